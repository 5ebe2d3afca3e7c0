//! Many games with clocks: `cargo bench --bench clock_sweep`.
//!
//! Starts the private cluster and `turnpost serve` as `storage` does, makes one real clocked
//! two-player Kasino game through the API (one day per move, `forfeit`), stops the server,
//! and copies that game (its row, seats and snapshot, as the server wrote them) in bulk
//! SQL until SWEEP_SIZES games (default 25000,50000,100000) are active. At each size it
//! times, with the server's own `Domain::sweep`:
//! - a pass with nothing due (every clock started a moment ago): what every pass costs;
//! - a pass with SWEEP_DUE_PER_MILLE (default 1) ‰ of the games out of time: each of those
//!   times out (forfeit). With clocks of days and a pass a minute, 100,000 games see about
//!   25 timeouts a pass even if every player walked away (100,000 × 60 s / 3 days): 1 ‰
//!   (100) is four times that;
//!
//! and, as the baseline of the same run, a pass over an empty database. Then, at the
//! largest size, it makes SWEEP_RACE (default 2000) games overdue and runs two sweepers
//! (two `Domain`s with pools of their own, as two nodes) at once, and checks that every
//! timeout was applied exactly once: the two reports add up to the overdue games, each has
//! one marker in `game_timeouts`, and each game is finished.
//!
//! SWEEP_REPEAT (default 3) passes are timed per figure; the median is printed with the
//! spread (min-max).

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;

use anyhow::{Context, bail, ensure};
use chrono::Utc;
use diesel::prelude::*;
use diesel::sql_types::BigInt;
use reqwest::blocking::Client;
use secrecy::SecretString;
use serde_json::{Value, json};
use support::{Rig, env_usize};
use turnpost::domain::Domain;

#[derive(QueryableByName)]
struct Num {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn num(conn: &mut PgConnection, sql: &str) -> anyhow::Result<i64> {
    Ok(diesel::sql_query(sql).get_result::<Num>(conn)?.n)
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

fn player(client: &Client, base: &str, email: &str) -> anyhow::Result<String> {
    client
        .post(format!("{base}/accounts"))
        .json(&json!({"email": email, "name": "Bench", "password": "correct horse battery"}))
        .send()?;
    let t: Value = client
        .post(format!("{base}/auth/token"))
        .json(&json!({"email": email, "password": "correct horse battery"}))
        .send()?
        .json()?;
    t["access_token"]
        .as_str()
        .map(str::to_string)
        .context("no token")
}

/// One clocked game made through the API, by a server on `url`; returns its id.
fn seed_game(rig: &mut Rig, url: &str) -> anyhow::Result<i64> {
    let port = free_port()?;
    let server = Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .arg("serve")
        .env("DATABASE_URL", url)
        .env("TURNPOST_BIND", format!("127.0.0.1:{port}"))
        .env("TURNPOST_VAR_DIR", &rig.var)
        .env("TURNPOST_JWT_SECRET", "bench-secret-".repeat(3))
        .env("TURNPOST_REQUIRE_EMAIL_VERIFICATION", "false")
        .env("TURNPOST_SWEEP_INTERVAL_SECS", "3600")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting turnpost serve")?;
    rig.server = Some(server);
    let client = Client::builder().timeout(Duration::from_secs(60)).build()?;
    let base = format!("http://127.0.0.1:{port}/api/v1");
    let up = Instant::now();
    while client
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .map_or(true, |r| !r.status().is_success())
    {
        if up.elapsed() > Duration::from_secs(60) {
            bail!("turnpost serve did not come up");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let a = player(&client, &base, "ada@bench.example")?;
    let b = player(&client, &base, "bo@bench.example")?;
    let created: Value = client
        .post(format!("{base}/games"))
        .bearer_auth(&a)
        .json(&json!({"game_type": "kasino", "players": 2, "options": {},
                      "time_control": {"days_per_move": 1}, "timeout_policy": "forfeit"}))
        .send()?
        .json()?;
    let id = created["id"].as_i64().context("no game id")?;
    let r = client
        .post(format!("{base}/games/{id}/join"))
        .bearer_auth(&b)
        .json(&json!({}))
        .send()?;
    ensure!(r.status().is_success(), "join: {}", r.status());
    if let Some(mut s) = rig.server.take() {
        let _ = s.kill();
        let _ = s.wait();
    }
    Ok(id)
}

/// The columns of `table` but `skip`, in order, as a list for SQL.
fn columns(conn: &mut PgConnection, table: &str, skip: &[&str]) -> anyhow::Result<Vec<String>> {
    #[derive(QueryableByName)]
    struct Col {
        #[diesel(sql_type = diesel::sql_types::Text)]
        column_name: String,
    }
    Ok(diesel::sql_query(format!(
        "SELECT column_name::text AS column_name FROM information_schema.columns \
         WHERE table_schema = 'public' AND table_name = '{table}' \
         AND is_generated = 'NEVER' ORDER BY ordinal_position"
    ))
    .load::<Col>(conn)?
    .into_iter()
    .map(|c| c.column_name)
    .filter(|c| !skip.contains(&c.as_str()))
    .collect())
}

/// Copies game `seed` (row and seats) `n` times, every clock started at `now()`.
fn copy_games(conn: &mut PgConnection, seed: i64, n: usize) -> anyhow::Result<()> {
    let game_cols = columns(conn, "games", &["id"])?.join(", ");
    let seat_cols = columns(conn, "game_seats", &["game_id", "clock_since"])?.join(", ");
    // In batches: one statement of 100,000 rows holds a large transaction for no gain.
    let mut left = n;
    while left > 0 {
        let batch = left.min(10_000);
        diesel::sql_query(format!(
            "WITH made AS (
                 INSERT INTO games ({game_cols})
                 SELECT {game_cols} FROM games, generate_series(1, {batch}) WHERE id = {seed}
                 RETURNING id)
             INSERT INTO game_seats (game_id, clock_since, {seat_cols})
             SELECT made.id, CASE WHEN s.clock_since IS NULL THEN NULL ELSE now() END, {seat_cols}
             FROM made, (SELECT * FROM game_seats WHERE game_id = {seed}) s"
        ))
        .execute(conn)?;
        left -= batch;
    }
    diesel::sql_query("ANALYZE games").execute(conn)?;
    diesel::sql_query("ANALYZE game_seats").execute(conn)?;
    Ok(())
}

/// Makes `n` still active games out of time (their running clock started 30 days ago).
fn make_overdue(conn: &mut PgConnection, n: usize) -> anyhow::Result<usize> {
    Ok(diesel::sql_query(format!(
        "UPDATE game_seats SET clock_since = now() - interval '30 days' \
         WHERE clock_since IS NOT NULL AND game_id IN ( \
             SELECT id FROM games WHERE status = 'active' AND time_control IS NOT NULL \
             ORDER BY random() LIMIT {n})"
    ))
    .execute(conn)?)
}

fn new_domain(url: &str) -> anyhow::Result<Domain> {
    let settings = turnpost::settings::Settings::load()?;
    let pool = turnpost::store::pool(url, 2, Duration::from_secs(30))?;
    turnpost::app::domain(
        &settings,
        pool,
        turnpost::games::Registry::standard(),
        &SecretString::from("bench-secret-".repeat(3)),
    )
}

/// Median, min and max of `xs` (seconds), as text.
fn spread(xs: &mut [f64]) -> (f64, String) {
    xs.sort_by(f64::total_cmp);
    let median = xs[xs.len() / 2];
    (
        median,
        format!("{:.3} s ({:.3}-{:.3})", median, xs[0], xs[xs.len() - 1]),
    )
}

fn main() -> anyhow::Result<()> {
    turnpost::notify::webhook::install_tls_provider();
    let sizes: Vec<usize> = std::env::var("SWEEP_SIZES")
        .unwrap_or_else(|_| "25000,50000,100000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let due_per_mille = env_usize("SWEEP_DUE_PER_MILLE", 1);
    let race = env_usize("SWEEP_RACE", 2000);
    let repeat = env_usize("SWEEP_REPEAT", 3).max(1);
    let (mut rig, url) = Rig::start("sweep")?;
    let seed = seed_game(&mut rig, &url)?;
    let mut conn = PgConnection::establish(&url)?;
    let domain = new_domain(&url)?;

    // The baseline: a pass with no other clocked game than the seed.
    let mut base = (0..repeat)
        .map(|_| {
            let t = Instant::now();
            domain.sweep(Utc::now()).map(|_| t.elapsed().as_secs_f64())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (base_median, base_text) = spread(&mut base);
    println!("baseline: a pass over 1 clocked game: {base_text}");
    println!(
        "{:>8} {:>26} {:>9} {:>8} {:>26} {:>12}",
        "games", "pass, nothing due", "us/game", "due", "pass with due", "timeouts"
    );
    let mut have = 1usize;
    let mut rows = Vec::new();
    for &size in &sizes {
        copy_games(&mut conn, seed, size.saturating_sub(have))?;
        have = size.max(have);
        let active = num(
            &mut conn,
            "SELECT count(*) AS n FROM games WHERE status = 'active' AND time_control IS NOT NULL",
        )? as usize;
        let mut idle = Vec::new();
        for _ in 0..repeat {
            let t = Instant::now();
            let r = domain.sweep(Utc::now())?;
            idle.push(t.elapsed().as_secs_f64());
            ensure!(
                r.timeouts == 0,
                "nothing was due, yet {} timeouts",
                r.timeouts
            );
        }
        let (idle_median, idle_text) = spread(&mut idle);
        let due = active * due_per_mille / 1000;
        let marked = make_overdue(&mut conn, due)?;
        let t = Instant::now();
        let r = domain.sweep(Utc::now())?;
        let due_secs = t.elapsed().as_secs_f64();
        ensure!(
            r.timeouts == due,
            "{due} games were out of time, {} timed out ({marked} clocks marked)",
            r.timeouts
        );
        // Keep the count of active games at the size: replace those that finished.
        copy_games(&mut conn, seed, due)?;
        println!(
            "{:>8} {:>26} {:>9.2} {:>8} {:>24.3} s {:>12}",
            active,
            idle_text,
            idle_median * 1e6 / active as f64,
            due,
            due_secs,
            r.timeouts
        );
        rows.push((active, idle_median, due_secs));
    }
    if let (Some(first), Some(last)) = (rows.first(), rows.last()) {
        let size_ratio = last.0 as f64 / first.0 as f64;
        println!(
            "\n{}x the games: the idle pass {:.2}x, the pass with {} per mille due {:.2}x \
             ({:.0}x / {:.0}x the baseline pass)",
            size_ratio,
            last.1 / first.1,
            due_per_mille,
            last.2 / first.2,
            last.1 / base_median,
            last.2 / base_median
        );
        println!(
            "largest pass: {:.3} s with nothing due, {:.3} s with {} per mille due (limit 2 s)",
            last.1, last.2, due_per_mille
        );
    }

    // Two nodes sweep the same overdue games at once.
    let before = num(&mut conn, "SELECT count(*) AS n FROM game_timeouts")?;
    let marked = make_overdue(&mut conn, race)?;
    let now = Utc::now();
    let (a, b) = std::thread::scope(|s| -> anyhow::Result<_> {
        let url_a = url.clone();
        let url_b = url.clone();
        let one = s.spawn(move || new_domain(&url_a).and_then(|d| Ok(d.sweep(now)?)));
        let two = s.spawn(move || new_domain(&url_b).and_then(|d| Ok(d.sweep(now)?)));
        let a = one.join().expect("sweeper thread")?;
        let b = two.join().expect("sweeper thread")?;
        Ok((a, b))
    })?;
    let markers = num(&mut conn, "SELECT count(*) AS n FROM game_timeouts")? - before;
    let doubled = num(
        &mut conn,
        "SELECT count(*) AS n FROM (SELECT game_id FROM game_timeouts \
         GROUP BY game_id HAVING count(*) > 1) d",
    )?;
    let still = num(
        &mut conn,
        "SELECT count(*) AS n FROM game_seats s JOIN games g ON g.id = s.game_id \
         WHERE g.status = 'active' AND s.clock_since < now() - interval '2 days'",
    )?;
    println!(
        "\nrace: {race} games out of time ({marked} clocks), two sweepers at once: \
         {} + {} = {} timeouts, {markers} markers, {doubled} games timed out twice, \
         {still} left overdue",
        a.timeouts,
        b.timeouts,
        a.timeouts + b.timeouts
    );
    ensure!(
        a.timeouts + b.timeouts == race && markers == race as i64 && doubled == 0 && still == 0,
        "a timeout was applied twice or not at all"
    );
    drop(rig);
    Ok(())
}
