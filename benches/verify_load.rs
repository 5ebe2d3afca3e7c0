//! `turnpost verify` over many games: `cargo bench --bench verify_load`.
//!
//! Starts a private PostgreSQL cluster as `turnpost serve` does, stores VERIFY_GAMES
//! (default 1,000) two-player Kasino games of VERIFY_ACTIONS (default 100) random legal
//! actions each, with their snapshots, written straight to the tables as the server writes
//! them (played through the rules engine here, so that making the data is not what is
//! timed), then times the release `turnpost verify` on that database: once on one core
//! (`taskset -c 0`) and once on all of them.

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::Command;
use std::time::Instant;

mod support;

use anyhow::{Context, bail};
use diesel::prelude::*;
use serde_json::{Value, json};
use support::{Rig, env_usize};
use turnpost::engine::{GameRng, Status};
use turnpost::games::Registry;
use turnpost::store::models::NewAction;
use turnpost::store::schema::{accounts, game_actions, games};

/// One game played at random for `actions` actions (fewer if it ends first).
struct Played {
    rules_version: i32,
    options: Value,
    seed: [u8; 32],
    log: Vec<(i32, Value)>,
    snapshot: String,
    status: &'static str,
    to_act: Vec<i32>,
}

fn play(registry: &Registry, rng: &mut GameRng, actions: usize) -> anyhow::Result<Played> {
    let engine = registry.get("kasino").context("no kasino")?;
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    let options = engine
        .normalize_options(&json!({}))
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut state = engine
        .setup(&options, 2, seed)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut log = Vec::with_capacity(actions);
    while log.len() < actions {
        let Status::Active { to_act } = state.status() else {
            break;
        };
        let Some((seat, legal)) = to_act
            .iter()
            .map(|&s| (s, state.legal_actions(s)))
            .find(|(_, l)| !l.is_empty())
        else {
            bail!("an active Kasino game with no legal action");
        };
        let action = legal[rng.below(legal.len())].clone();
        state = state
            .apply(seat, &action)
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .state;
        log.push((seat as i32, action));
    }
    let status = state.status();
    Ok(Played {
        rules_version: engine.info().rules_version as i32,
        options,
        seed,
        log,
        snapshot: state.encode(),
        status: if status.is_finished() {
            "finished"
        } else {
            "active"
        },
        to_act: status.to_act().iter().map(|&s| s as i32).collect(),
    })
}

fn store(conn: &mut PgConnection, account: i64, p: &Played) -> anyhow::Result<()> {
    let id: turnpost::store::kinds::GameId = diesel::insert_into(games::table)
        .values((
            games::game_type.eq("kasino"),
            games::rules_version.eq(p.rules_version),
            games::options.eq(&p.options),
            games::players.eq(2),
            games::status.eq(p.status),
            games::version.eq(p.log.len() as i64),
            games::seed.eq(p.seed.as_slice()),
            games::snapshot.eq(Some(&p.snapshot)),
            games::to_act.eq(&p.to_act),
            games::created_by.eq(account),
            games::timeout_policy.eq("forfeit"),
        ))
        .returning(games::id)
        .get_result(conn)?;
    let rows: Vec<NewAction> = p
        .log
        .iter()
        .zip(1..)
        .map(|((seat, action), seq)| NewAction {
            game_id: id,
            seq,
            seat: *seat,
            action,
            public_action: None,
            seen_by: &[],
            description: "",
            takeback_to: None,
        })
        .collect();
    for chunk in rows.chunks(1000) {
        diesel::insert_into(game_actions::table)
            .values(chunk)
            .execute(conn)?;
    }
    Ok(())
}

/// Runs the release `turnpost verify` on `url` (under `taskset -c 0` when `one_core`);
/// returns its report line and the seconds it took.
fn verify(url: &str, var: &std::path::Path, one_core: bool) -> anyhow::Result<(String, f64)> {
    let bin = env!("CARGO_BIN_EXE_turnpost");
    let mut cmd = if one_core {
        let mut c = Command::new("taskset");
        c.args(["-c", "0", bin]);
        c
    } else {
        Command::new(bin)
    };
    let t = Instant::now();
    let out = cmd
        .arg("verify")
        .env("DATABASE_URL", url)
        .env("TURNPOST_VAR_DIR", var)
        .env("TURNPOST_JWT_SECRET", "bench-secret-".repeat(3))
        .env("RUST_LOG", "warn")
        .output()
        .context("running turnpost verify")?;
    let secs = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        bail!(
            "turnpost verify failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok((text, secs))
}

fn main() -> anyhow::Result<()> {
    let n_games = env_usize("VERIFY_GAMES", 1000);
    let n_actions = env_usize("VERIFY_ACTIONS", 100);
    let (rig, url) = Rig::start("verify")?;
    let var = rig.var.clone();
    let mut conn = PgConnection::establish(&url)?;
    turnpost::store::migrate(&mut conn)?;
    let account: i64 = diesel::insert_into(accounts::table)
        .values((
            accounts::email.eq("verify@bench.example"),
            accounts::email_lower.eq("verify@bench.example"),
            accounts::name.eq("Bench"),
            accounts::password_hash.eq("-"),
        ))
        .returning(accounts::id)
        .get_result(&mut conn)?;

    let registry = Registry::standard();
    let mut rng = GameRng::seed_from_u64(2026);
    let t = Instant::now();
    let mut stored = 0;
    for _ in 0..n_games {
        let p = play(&registry, &mut rng, n_actions)?;
        stored += p.log.len();
        conn.transaction(|c| store(c, account, &p))?;
    }
    println!(
        "stored {n_games} Kasino games, {stored} actions, in {:.1} s (not timed below)",
        t.elapsed().as_secs_f64()
    );
    drop(conn);

    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (report_one, one) = verify(&url, &var, true)?;
    let (report_all, all) = verify(&url, &var, false)?;
    println!("turnpost verify on 1 core: {one:.2} s ({report_one})");
    println!("turnpost verify on {cores} cores: {all:.2} s ({report_all})");
    println!(
        "{:.0} actions/s on {cores} cores; speed-up {:.2}x over one core",
        stored as f64 / all,
        one / all
    );
    if !report_all.contains(": 0 mismatch") {
        bail!("verify found mismatches: {report_all}");
    }
    Ok(())
}
