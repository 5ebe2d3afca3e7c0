//! The move path under load, against the bare PostgreSQL append limit measured in the same
//! run on the same cluster.
//!
//! `cargo bench --bench http_load`:
//! 1. starts a private PostgreSQL cluster the way `turnpost serve` does by default, and the
//!    release binary `turnpost serve` on it as a separate process;
//! 2. drives LOAD_GAMES concurrent two-player Kasino games over HTTP for LOAD_SECS seconds,
//!    one client task per game, all on one thread (read the game as the player to act, submit a random legal
//!    action; a finished game is replaced by a new one);
//! 3. reports moves/s, the p50/p99 latency of the submissions and the server's peak RSS;
//! 4. compares the cost of a move in a game whose log holds 10 actions with one whose log
//!    holds 10,000 (padded with placeholder rows: no game type here runs that long);
//! 5. plays the same games again for LOAD_SECS seconds at half the rate just measured (each
//!    game moves on a fixed beat, as players with something else to do would) and reports the
//!    latency there: at full load a closed loop of N clients waits N / rate per request
//!    whatever the server does (Little's law), so latency is read at a load the server keeps;
//! 6. counts the SQL statements the server ran per move during the full load
//!    (pg_stat_statements, enabled on the bench's cluster), with the statements of a move's
//!    own transaction listed;
//! 7. stops the server and runs pgbench on the same cluster with LOAD_GAMES clients, each
//!    doing the bare append of a move (update its game's version, insert one action) for
//!    LOAD_SECS seconds without any of Turnpost's triggers, and prints the ratio of the two
//!    rates; then the same append with the triggers, for comparison; then a move's own
//!    statements (the revision read and `record_move`) alone, with no server in front of
//!    them: the ratio a server costing no CPU would reach on this machine. Every pgbench
//!    run uses prepared statements, as the server's connections do.
//!
//! LOAD_NESTED=1 also counts the statements inside database functions; LOAD_STATEMENTS
//! sets how many statements are listed (default 12).
//!
//! Environment: LOAD_GAMES (default 32), LOAD_SECS (default 20), LOAD_POOL (server
//! connection pool, default 16), LOAD_SERVER (the server binary to measure; default the
//! one this bench was built with).

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

mod support;

use anyhow::{Context, bail};
use diesel::prelude::*;
use reqwest::Client;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use std::sync::Arc;
use support::{Rig, env_usize};
use turnpost::embedded_pg::PrivateCluster;
use turnpost::engine::GameRng;

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// CPU time (user + system, in clock ticks of 10 ms) that process `pid` used so far.
fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces), from field 3 on.
    let rest = stat.rsplit_once(") ").map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|v| v.parse().unwrap_or(0))
        .collect();
    // utime and stime are fields 14 and 15: 11 and 12 here.
    f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0)
}

/// CPU time (clock ticks) of each of `pid`'s threads so far, summed by thread name (an
/// unnamed thread has its creator's name): the request workers apart from the email
/// senders, the event announcer and the sweeper.
fn thread_ticks(pid: u32) -> std::collections::BTreeMap<String, u64> {
    let mut by_name = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(format!("/proc/{pid}/task"))
        .into_iter()
        .flatten()
        .flatten()
    {
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let Some((head, rest)) = stat.rsplit_once(") ") else {
            continue;
        };
        let name = head.split_once(" (").map_or(head, |(_, n)| n);
        // Worker threads are numbered (actix-rt|system:0|arbiter:3): one group for them.
        let name: String = name.trim_end_matches(|c: char| c.is_ascii_digit()).into();
        let f: Vec<u64> = rest
            .split_whitespace()
            .map(|v| v.parse().unwrap_or(0))
            .collect();
        *by_name.entry(name).or_insert(0) +=
            f.get(11).copied().unwrap_or(0) + f.get(12).copied().unwrap_or(0);
    }
    by_name
}

/// The PostgreSQL server's processes: the postmaster of `data` and its children.
fn postgres_ticks(data: &std::path::Path) -> u64 {
    let Some(master) = std::fs::read_to_string(data.join("postmaster.pid"))
        .ok()
        .and_then(|t| t.lines().next().and_then(|l| l.trim().parse::<u32>().ok()))
    else {
        return 0;
    };
    let mut ticks = cpu_ticks(master);
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let ppid = stat
            .rsplit_once(") ")
            .and_then(|(_, r)| r.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u32>().ok());
        if ppid == Some(master) {
            ticks += cpu_ticks(pid);
        }
    }
    ticks
}

/// CPU used during a phase, by the server, PostgreSQL and this load generator.
#[derive(Clone, Copy, Default)]
struct CpuUse {
    server: u64,
    postgres: u64,
    load: u64,
}

impl CpuUse {
    fn now(server: u32, data: &std::path::Path) -> CpuUse {
        CpuUse {
            server: cpu_ticks(server),
            postgres: postgres_ticks(data),
            load: cpu_ticks(std::process::id()),
        }
    }

    fn since(self, before: CpuUse) -> CpuUse {
        CpuUse {
            server: self.server.saturating_sub(before.server),
            postgres: self.postgres.saturating_sub(before.postgres),
            load: self.load.saturating_sub(before.load),
        }
    }
}

fn kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// A player's session: its bearer token.
async fn player(client: &Client, base: &str, email: &str) -> anyhow::Result<String> {
    client
        .post(format!("{base}/accounts"))
        .json(&json!({"email": email, "name": "Bench", "password": "correct horse battery"}))
        .send()
        .await?;
    let t: Value = client
        .post(format!("{base}/auth/token"))
        .json(&json!({"email": email, "password": "correct horse battery"}))
        .send()
        .await?
        .json()
        .await?;
    t["access_token"]
        .as_str()
        .map(str::to_string)
        .context("no token")
}

/// A new two-player Kasino game between `tokens`; returns its id.
async fn new_game(client: &Client, base: &str, tokens: &[String; 2]) -> anyhow::Result<i64> {
    let created: Value = client
        .post(format!("{base}/games"))
        .bearer_auth(&tokens[0])
        .json(&json!({"game_type": "kasino", "players": 2}))
        .send()
        .await?
        .json()
        .await?;
    let id = created["id"].as_i64().context("no game id")?;
    let r = client
        .post(format!("{base}/games/{id}/join"))
        .bearer_auth(&tokens[1])
        .json(&json!({}))
        .send()
        .await?;
    if !r.status().is_success() {
        bail!("join: {}", r.status());
    }
    Ok(id)
}

/// The part of a game's answer a player needs to move; the legal actions stay as the
/// server wrote them, to be sent back unchanged.
#[derive(Deserialize)]
struct Answer {
    status: String,
    #[serde(default)]
    version: i64,
    #[serde(default)]
    to_act: Vec<usize>,
    #[serde(default)]
    legal_actions: Vec<Box<RawValue>>,
}

async fn read_game(client: &Client, base: &str, id: i64, token: &str) -> anyhow::Result<Answer> {
    let body = client
        .get(format!("{base}/games/{id}"))
        .bearer_auth(token)
        .send()
        .await?
        .bytes()
        .await?;
    Ok(serde_json::from_slice(&body)?)
}

/// One move in game `id`: read it as the seat to act, submit a random legal action.
/// Returns the submission's latency, or `None` when the game is over.
async fn one_move(
    client: &Client,
    base: &str,
    id: i64,
    tokens: &[String; 2],
    to_act: &mut Option<usize>,
    rng: &mut GameRng,
) -> anyhow::Result<Option<Duration>> {
    let seat = match *to_act {
        Some(s) => s,
        None => read_game(client, base, id, &tokens[0])
            .await?
            .to_act
            .first()
            .copied()
            .unwrap_or(0),
    };
    let game = read_game(client, base, id, &tokens[seat % 2]).await?;
    if game.status != "active" {
        return Ok(None);
    }
    if game.legal_actions.is_empty() {
        *to_act = None;
        return Ok(Some(Duration::ZERO));
    }
    let action = game.legal_actions[rng.below(game.legal_actions.len())].get();
    let body = format!(
        r#"{{"expected_version":{},"action":{action}}}"#,
        game.version
    );
    let t = Instant::now();
    let r = client
        .post(format!("{base}/games/{id}/actions"))
        .bearer_auth(&tokens[seat % 2])
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await?;
    let status = r.status();
    let answer = r.bytes().await?;
    let elapsed = t.elapsed();
    if status != 200 {
        bail!("game {id}: move answered {status}");
    }
    let after: Answer = serde_json::from_slice(&answer)?;
    if after.status != "active" {
        return Ok(None);
    }
    *to_act = after.to_act.first().copied();
    Ok(Some(elapsed))
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let n = sorted.len();
    let i = ((n as f64 * p).ceil() as usize)
        .saturating_sub(1)
        .min(n.saturating_sub(1));
    sorted.get(i).copied().unwrap_or_default()
}

/// Turns on pg_stat_statements on the bench's own cluster (a restart loads it); `None`
/// when this PostgreSQL does not ship it, and the count is then left out.
fn with_statement_stats(var: &std::path::Path, cluster: PrivateCluster) -> (PrivateCluster, bool) {
    let url = cluster.database_url();
    let set = PgConnection::establish(&url).ok().and_then(|mut c| {
        diesel::sql_query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
            .execute(&mut c)
            .ok()
    });
    if set.is_none() {
        return (cluster, false);
    }
    cluster.stop();
    let Ok(cluster) = PrivateCluster::ensure_running(&var.join("pg")) else {
        panic!("the bench cluster did not come back after loading pg_stat_statements");
    };
    let ok = PgConnection::establish(&cluster.database_url())
        .ok()
        .and_then(|mut c| {
            diesel::sql_query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
                .execute(&mut c)
                .ok()?;
            // LOAD_NESTED=1 also counts the statements run inside functions (record_move's
            // own), which costs a little time per statement.
            if std::env::var("LOAD_NESTED").is_ok_and(|v| v == "1") {
                diesel::sql_query("ALTER SYSTEM SET pg_stat_statements.track = 'all'")
                    .execute(&mut c)
                    .ok()?;
                diesel::sql_query("SELECT pg_reload_conf()")
                    .execute(&mut c)
                    .ok()?;
            }
            Some(())
        })
        .is_some();
    (cluster, ok)
}

#[derive(QueryableByName)]
struct StatementCalls {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    calls: i64,
    /// Time inside PostgreSQL executing it (a function's own statements included).
    #[diesel(sql_type = diesel::sql_types::Double)]
    exec_ms: f64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    query: String,
}

/// The statements run since the last reset, most frequent first.
fn statement_calls(url: &str) -> anyhow::Result<Vec<StatementCalls>> {
    let mut c = PgConnection::establish(url)?;
    Ok(diesel::sql_query(
        "SELECT calls, total_exec_time AS exec_ms, regexp_replace(query, '\\s+', ' ', 'g') AS query FROM pg_stat_statements \
         WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database()) \
         ORDER BY calls DESC",
    )
    .load(&mut c)?)
}

#[derive(QueryableByName)]
struct TableUpdates {
    #[diesel(sql_type = diesel::sql_types::Text)]
    relname: String,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n_tup_upd: i64,
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n_tup_hot_upd: i64,
}

/// Row updates per table so far, and how many stayed on their page without touching an
/// index (HOT): an update that is not HOT writes a new entry in every index of the table.
fn table_updates(url: &str) -> anyhow::Result<Vec<TableUpdates>> {
    let mut c = PgConnection::establish(url)?;
    Ok(diesel::sql_query(
        "SELECT relname::text AS relname, n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables \
         WHERE n_tup_upd > 0 ORDER BY n_tup_upd DESC",
    )
    .load(&mut c)?)
}

#[derive(QueryableByName)]
struct SnapshotSize {
    #[diesel(sql_type = diesel::sql_types::Double)]
    text: f64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    stored: f64,
}

/// How big the games' snapshots are, and how big PostgreSQL stores them (compressed
/// above about 2 kB).
fn snapshot_size(url: &str) -> anyhow::Result<SnapshotSize> {
    let mut c = PgConnection::establish(url)?;
    Ok(diesel::sql_query(
        "SELECT avg(octet_length(snapshot))::float8 AS text, \
         avg(pg_column_size(snapshot))::float8 AS stored FROM games",
    )
    .get_result(&mut c)?)
}

fn reset_statement_calls(url: &str) -> anyhow::Result<()> {
    let mut c = PgConnection::establish(url)?;
    diesel::sql_query("SELECT pg_stat_statements_reset()").execute(&mut c)?;
    Ok(())
}

/// What one load phase measured.
struct Played {
    latencies: Vec<Duration>,
    errors: usize,
    wall: Duration,
}

/// Every game's task plays its game (and the next, when one ends) for `secs` seconds; with
/// `beat`, each task starts a move only every `beat`, otherwise as fast as answers come.
/// The tasks share one thread, so the load generator costs as little CPU as it can.
async fn play(
    client: &Client,
    base: &str,
    tables: &mut [(i64, [String; 2])],
    secs: u64,
    beat: Option<Duration>,
) -> Played {
    let stop = Arc::new(AtomicBool::new(false));
    let start = Instant::now();
    let tasks: Vec<_> = tables
        .iter()
        .enumerate()
        .map(|(i, (id, tokens))| {
            let (client, base, stop) = (client.clone(), base.to_string(), stop.clone());
            let (mut id, tokens) = (*id, tokens.clone());
            tokio::spawn(async move {
                let mut rng = GameRng::seed_from_u64(i as u64 + beat.map_or(0, |_| 1000));
                let (mut lat, mut errors) = (Vec::new(), 0);
                let mut to_act = None;
                // Tasks start spread over one beat, not all at once.
                let mut next = tokio::time::Instant::now()
                    + beat.map_or(Duration::ZERO, |b| b.mul_f64(i as f64 / 32.0));
                while !stop.load(Ordering::Relaxed) {
                    if let Some(b) = beat {
                        tokio::time::sleep_until(next).await;
                        next += b;
                    }
                    match one_move(&client, &base, id, &tokens, &mut to_act, &mut rng).await {
                        Ok(Some(d)) if d > Duration::ZERO => lat.push(d),
                        Ok(Some(_)) => {}
                        Ok(None) => match new_game(&client, &base, &tokens).await {
                            Ok(fresh) => (id, to_act) = (fresh, None),
                            Err(_) => errors += 1,
                        },
                        Err(e) => {
                            errors += 1;
                            if errors < 3 {
                                eprintln!("{e}");
                            }
                            to_act = None;
                        }
                    }
                }
                (id, lat, errors)
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_secs(secs)).await;
    stop.store(true, Ordering::Relaxed);
    let (mut latencies, mut errors) = (Vec::new(), 0);
    for (table, task) in tables.iter_mut().zip(tasks) {
        match task.await {
            Ok((id, lat, e)) => {
                table.0 = id;
                latencies.extend(lat);
                errors += e;
            }
            Err(_) => errors += 1,
        }
    }
    let wall = start.elapsed();
    latencies.sort();
    Played {
        latencies,
        errors,
        wall,
    }
}

fn print_latency(label: &str, all: &[Duration]) {
    println!(
        "{label}: p50 {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        ms(percentile(all, 0.50)),
        ms(percentile(all, 0.90)),
        ms(percentile(all, 0.99)),
        ms(all.last().copied().unwrap_or_default())
    );
}

fn main() -> anyhow::Result<()> {
    // reqwest clients here take rustls without a bundled provider (see notify::webhook).
    turnpost::notify::webhook::install_tls_provider();
    let games = env_usize("LOAD_GAMES", 32);
    let secs = env_usize("LOAD_SECS", 20) as u64;
    let pool = env_usize("LOAD_POOL", 16);
    let var = std::env::temp_dir().join(format!("turnpost-bench-{}", std::process::id()));
    std::fs::create_dir_all(&var)?;
    let mut rig = Rig {
        var: var.clone(),
        cluster: None,
        server: None,
    };
    let (cluster, stats) =
        with_statement_stats(&var, PrivateCluster::ensure_running(&var.join("pg"))?);
    let url = cluster.database_url();
    rig.cluster = Some(cluster);
    let port = free_port()?;
    // LOAD_SERVER: another build of the server to measure (say, an earlier commit's) with
    // this bench, for a comparison on one machine at one time.
    let binary =
        std::env::var("LOAD_SERVER").unwrap_or_else(|_| env!("CARGO_BIN_EXE_turnpost").into());
    let server = Command::new(binary)
        .arg("serve")
        .env("DATABASE_URL", &url)
        .env("TURNPOST_BIND", format!("127.0.0.1:{port}"))
        .env("TURNPOST_VAR_DIR", &var)
        .env("TURNPOST_JWT_SECRET", "bench-secret-".repeat(3))
        .env("TURNPOST_DB_POOL_SIZE", pool.to_string())
        // Sign-up makes the account at once (where addresses must be confirmed it waits
        // for a mailed link); the bench confirms every address itself below.
        .env("TURNPOST_REQUIRE_EMAIL_VERIFICATION", "false")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting turnpost serve")?;
    let pid = server.id();
    println!("server pid {pid}");
    rig.server = Some(server);
    let base = format!("http://127.0.0.1:{port}/api/v1");
    // One thread drives every request of the load (see `play`).
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let _in_rt = rt.enter();
    let client = Client::builder()
        .timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(games * 2)
        // Shorter than the server's keep-alive (actix: 5 s), so the client never reuses a
        // connection the server is closing between the phases (one such request failed
        // with "connection closed before message completed").
        .pool_idle_timeout(Duration::from_secs(3))
        .build()?;
    let up = Instant::now();
    while rt
        .block_on(
            client
                .get(format!("http://127.0.0.1:{port}/healthz"))
                .send(),
        )
        .map_or(true, |r| !r.status().is_success())
    {
        if up.elapsed() > Duration::from_secs(60) {
            bail!("turnpost serve did not come up");
        }
        std::thread::sleep(Duration::from_millis(100));
    }

    let mut tables = Vec::new();
    for g in 0..games {
        let tokens = [
            rt.block_on(player(&client, &base, &format!("a{g}@bench.example")))?,
            rt.block_on(player(&client, &base, &format!("b{g}@bench.example")))?,
        ];
        let id = rt.block_on(new_game(&client, &base, &tokens))?;
        tables.push((id, tokens));
    }
    // Confirmed addresses: every move then owes the next player a turn email, as in real
    // play (the outbox event is written in the move's transaction; the grace period keeps
    // it from being sent while the games go this fast).
    diesel::sql_query("UPDATE accounts SET email_verified_at = now()")
        .execute(&mut PgConnection::establish(&url)?)?;
    let first_game = tables.first().map_or(1, |t| t.0);
    let rss_before = kib(pid, "VmRSS:");

    // Full load: every thread plays as fast as the server answers.
    if stats {
        reset_statement_calls(&url)?;
    }
    let mails = |dir: &std::path::Path| {
        std::fs::read_dir(dir).map_or(0, |d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
                .count()
        })
    };
    let mails_before = mails(&var.join("mail"));
    let threads_before = thread_ticks(pid);
    let cpu_before = CpuUse::now(pid, &var.join("pg"));
    let full = rt.block_on(play(&client, &base, &mut tables, secs, None));
    let cpu = CpuUse::now(pid, &var.join("pg")).since(cpu_before);
    let threads = thread_ticks(pid);
    let mailed = mails(&var.join("mail")).saturating_sub(mails_before);
    let calls = if stats {
        statement_calls(&url)?
    } else {
        Vec::new()
    };
    let moves = full.latencies.len();
    let rate = moves as f64 / full.wall.as_secs_f64();
    println!(
        "load: {games} concurrent two-player Kasino games for {:.1} s, {moves} moves, {} errors",
        full.wall.as_secs_f64(),
        full.errors
    );
    println!("turnpost: {rate:.0} moves/s (each move: GET as the mover, then POST the action)");
    print_latency("POST /actions latency at full load", &full.latencies);
    if moves > 0 {
        // Clock ticks are 10 ms: per move, in microseconds.
        let per_move = |ticks: u64| ticks as f64 * 10_000.0 / moves as f64;
        let all = cpu.server + cpu.postgres + cpu.load;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        println!(
            "CPU per move: {:.0} µs in all (of {:.0} µs the {cores} cores had): server {:.0}, \
             PostgreSQL {:.0}, this load generator {:.0}",
            per_move(all),
            cores as f64 * 1e6 * full.wall.as_secs_f64() / moves as f64,
            per_move(cpu.server),
            per_move(cpu.postgres),
            per_move(cpu.load)
        );
        let mut split: Vec<(u64, &String)> = threads
            .iter()
            .map(|(name, t)| {
                let before = threads_before.get(name).copied().unwrap_or(0);
                (t.saturating_sub(before), name)
            })
            .filter(|(t, _)| *t > 0)
            .collect();
        split.sort_by(|a, b| b.cmp(a));
        let split: Vec<String> = split
            .iter()
            .map(|(t, name)| format!("{name} {:.0}", per_move(*t)))
            .collect();
        println!(
            "  the server's by thread (µs per move): {}",
            split.join(", ")
        );
        // Emails (the game-over ones; turn emails wait out their grace period) are sent
        // as games happen to end, so their share of the server's time varies from run to
        // run: the CPU of the request threads alone compares builds more steadily.
        let senders: u64 = threads
            .iter()
            .filter(|(name, _)| name.starts_with("outbox"))
            .map(|(name, t)| t.saturating_sub(threads_before.get(name).copied().unwrap_or(0)))
            .sum();
        println!(
            "  emails sent: {mailed} ({:.2} per 100 moves), {:.1} ms of CPU each; the server \
             without its email senders: {:.0} µs per move",
            100.0 * mailed as f64 / moves as f64,
            senders as f64 * 10.0 / mailed.max(1) as f64,
            per_move(cpu.server.saturating_sub(senders))
        );
        // The load generator's work per move is the same for every server build, so its CPU
        // time tracks how fast the machine runs just now (it can vary by a fifth between runs
        // minutes apart): server CPU in those units compares builds across runs.
        println!(
            "  server CPU per move in units of the load generator's: {:.2} (without the email \
             senders: {:.2})",
            cpu.server as f64 / cpu.load.max(1) as f64,
            cpu.server.saturating_sub(senders) as f64 / cpu.load.max(1) as f64
        );
    }
    if stats && moves > 0 {
        let total: i64 = calls.iter().map(|c| c.calls).sum();
        println!(
            "SQL statements during the full load: {:.2} per move (POST and the GET before it, \
             with the background workers), the most frequent:",
            total as f64 / moves as f64
        );
        let exec: f64 = calls.iter().map(|c| c.exec_ms).sum();
        println!(
            "  (executing them took {:.3} ms of PostgreSQL time per move; per statement: calls \
             per move, then microseconds each)",
            exec / moves as f64
        );
        for c in calls.iter().take(env_usize("LOAD_STATEMENTS", 12)) {
            let q: String = c.query.chars().take(100).collect();
            println!(
                "  {:>6.2}/move {:>7.1} µs  {q}",
                c.calls as f64 / moves as f64,
                1000.0 * c.exec_ms / c.calls.max(1) as f64
            );
        }
    }
    // Counted since the cluster started (statistics reach the view within a second).
    std::thread::sleep(Duration::from_millis(1500));
    for t in table_updates(&url)? {
        println!(
            "updates of {}: {}, in place (HOT) {:.0} %",
            t.relname,
            t.n_tup_upd,
            100.0 * t.n_tup_hot_upd as f64 / t.n_tup_upd.max(1) as f64
        );
    }

    if let Ok(size) = snapshot_size(&url) {
        println!(
            "game snapshots: {:.0} bytes of JSON on average, {:.0} bytes as stored",
            size.text, size.stored
        );
    }

    // Paced: the same games at half that rate.
    let beat = Duration::from_secs_f64(games as f64 / (rate / 2.0).max(1.0));
    let paced = rt.block_on(play(&client, &base, &mut tables, secs, Some(beat)));
    println!(
        "paced: each game moves every {:.0} ms ({:.0} moves/s offered), {} moves, {} errors",
        ms(beat),
        games as f64 / beat.as_secs_f64(),
        paced.latencies.len(),
        paced.errors
    );
    print_latency("POST /actions latency at half load", &paced.latencies);
    let (rss_now, rss_peak) = (kib(pid, "VmRSS:"), kib(pid, "VmHWM:"));
    println!(
        "server RSS: {} MiB before the load, {} MiB after, peak {} MiB",
        rss_before / 1024,
        rss_now / 1024,
        rss_peak / 1024
    );

    rt.block_on(long_log(&client, &base, &url, &tables))?;

    // The server is stopped so that pgbench has the machine as the load had it.
    if let Some(mut s) = rig.server.take() {
        let _ = s.kill();
        let _ = s.wait();
    }
    let (tps, latency) = bare_append(&url, &var, games, secs, first_game, true, "prepared")?;
    // With as many clients as games, even the bare append waits this long on average.
    println!(
        "bare append (pgbench, {games} clients, same cluster, no triggers, prepared): {tps:.0} tps, \
         latency average {latency:.2} ms"
    );
    let (simple, _) = bare_append(&url, &var, games, secs, first_game, true, "simple")?;
    // Figures measured with pgbench's simple protocol compare with this line, not with
    // the prepared one the server's own connections match.
    println!("the bare append with the simple protocol (each statement parsed): {simple:.0} tps");
    let (with_triggers, _) = bare_append(&url, &var, games, secs, first_game, false, "prepared")?;
    println!(
        "the same append with Turnpost's triggers (revision, announcement): {with_triggers:.0} tps"
    );
    let alone = moves_alone(&url, &var, games, secs, first_game)?;
    println!(
        "a move's statements alone (pgbench: the revision read and record_move, prepared): \
         {alone:.0} tps; ratio to the bare append {:.2}, the most a server costing no CPU \
         could reach",
        alone / tps
    );
    println!(
        "ratio turnpost / bare append: {:.2} (against the simple protocol's: {:.2})",
        rate / tps,
        rate / simple
    );
    Ok(())
}

/// A move in a game with 10 actions against one in a game with 10,000: 60 moves each,
/// alternating, one at a time.
async fn long_log(
    client: &Client,
    base: &str,
    url: &str,
    tables: &[(i64, [String; 2])],
) -> anyhow::Result<()> {
    let Some((_, tokens)) = tables.first() else {
        return Ok(());
    };
    let short = new_game(client, base, tokens).await?;
    let long = new_game(client, base, tokens).await?;
    let mut conn = PgConnection::establish(url)?;
    // Placeholder entries after the game's real ones; the version moves past them.
    diesel::sql_query(
        "INSERT INTO game_actions (game_id, seq, seat, action, seen_by, description) \
         SELECT g.id, g.version + n, 0, '{}'::jsonb, '{}', 'placeholder' \
         FROM games g, generate_series(1, 10000) n WHERE g.id = $1",
    )
    .bind::<diesel::sql_types::BigInt, _>(long)
    .execute(&mut conn)?;
    diesel::sql_query("UPDATE games SET version = version + 10000 WHERE id = $1")
        .bind::<diesel::sql_types::BigInt, _>(long)
        .execute(&mut conn)?;
    let mut rng = GameRng::seed_from_u64(7);
    let (mut lat_short, mut lat_long) = (Vec::new(), Vec::new());
    let (mut act_short, mut act_long) = (None, None);
    for _ in 0..60 {
        if let Ok(Some(d)) = one_move(client, base, short, tokens, &mut act_short, &mut rng).await {
            lat_short.push(d);
        }
        if let Ok(Some(d)) = one_move(client, base, long, tokens, &mut act_long, &mut rng).await {
            lat_long.push(d);
        }
    }
    lat_short.retain(|d| *d > Duration::ZERO);
    lat_long.retain(|d| *d > Duration::ZERO);
    lat_short.sort();
    lat_long.sort();
    let (a, b) = (percentile(&lat_short, 0.5), percentile(&lat_long, 0.5));
    println!(
        "median move, one at a time: {:.2} ms with 10 actions in the log, {:.2} ms with 10,000 ({} and {} moves); ratio {:.2}",
        ms(a),
        ms(b),
        lat_short.len(),
        lat_long.len(),
        b.as_secs_f64() / a.as_secs_f64().max(1e-9)
    );
    Ok(())
}

/// pgbench: each client appends to its own game, as a move does, in one transaction.
fn bare_append(
    url: &str,
    var: &std::path::Path,
    clients: usize,
    secs: u64,
    first_game: i64,
    bare: bool,
    mode: &str,
) -> anyhow::Result<(f64, f64)> {
    let script = format!(
        "\\set gid :client_id + {first_game}\n\
         BEGIN;\n\
         UPDATE games SET version = version + 1 WHERE id = :gid;\n\
         INSERT INTO game_actions (game_id, seq, seat, action, seen_by, description) \
         SELECT id, version, 0, '{{\"bench\": true}}', '{{}}', 'bench' FROM games WHERE id = :gid;\n\
         END;\n"
    );
    // Bare: none of Turnpost's triggers (the revision, the announcement, the foreign keys'
    // checks) run, as the replica role skips them.
    pgbench(url, var, "append", &script, clients, secs, bare, mode)
}

/// What a move's own statements cost the database with no server in front of it: pgbench
/// runs, per client and game, the two statements the server sends per move (the read of
/// the revision, then `record_move` with a real action, a real snapshot of this run and a
/// turn email owed), prepared, as the server's connections run them. The announcement,
/// sent for hundreds of moves in one statement, is left out. This rate over the bare
/// append's is the ratio the server would reach if it cost no CPU at all.
fn moves_alone(
    url: &str,
    var: &std::path::Path,
    clients: usize,
    secs: u64,
    first_game: i64,
) -> anyhow::Result<f64> {
    // The action, snapshot and player of a move of this run, in a one-row table the script
    // reads (pgbench would take a colon in their JSON text for one of its variables).
    let mut c = PgConnection::establish(url)?;
    diesel::sql_query(
        "CREATE TABLE bench_move AS \
         SELECT g.snapshot, jsonb_build_array(jsonb_build_object('seat', a.seat, \
         'action', a.action, 'public_action', a.public_action, 'seen_by', to_jsonb(a.seen_by), \
         'description', a.description)) AS entry, acc.id AS account, acc.email \
         FROM games g JOIN game_actions a ON a.game_id = g.id \
         JOIN game_seats s ON s.game_id = g.id AND s.seat = 1 \
         JOIN accounts acc ON acc.id = s.account_id \
         WHERE g.snapshot IS NOT NULL AND a.description <> 'bench' ORDER BY g.id, a.seq DESC LIMIT 1",
    )
    .execute(&mut c)?;
    let script = format!(
        "\\set gid :client_id + {first_game}\n\
         SELECT revision AS rev FROM games WHERE id = :gid \\gset\n\
         SELECT record_move(g.id, g.version, :rev, m.entry, m.snapshot, 'active', '{{1}}', '{{1}}', \
         NULL, 'kasino', '{{}}', '{{}}', '{{}}', '{{1}}', ARRAY[m.account], ARRAY[m.email], \
         ARRAY[format('turn:%s:%s:1', g.id, g.version + 1)], 3600) \
         FROM bench_move m, games g WHERE g.id = :gid;\n"
    );
    Ok(pgbench(url, var, "move", &script, clients, secs, false, "prepared")?.0)
}

/// Runs `script` with pgbench in query `mode` (`prepared`, or `simple`: parsed anew each
/// time) and gives its tps and average latency.
#[allow(clippy::too_many_arguments)]
fn pgbench(
    url: &str,
    var: &std::path::Path,
    name: &str,
    script: &str,
    clients: usize,
    secs: u64,
    replica: bool,
    mode: &str,
) -> anyhow::Result<(f64, f64)> {
    let path = var.join(format!("{name}.sql"));
    std::fs::write(&path, script)?;
    let mut pgbench = Command::new("pgbench");
    if replica {
        pgbench.env("PGOPTIONS", "-c session_replication_role=replica");
    }
    let out = pgbench
        .args([
            "-n",
            "-M",
            mode,
            "-c",
            &clients.to_string(),
            "-j",
            "2",
            "-T",
            &secs.to_string(),
            "-f",
        ])
        .arg(&path)
        .arg(url)
        .output()
        .context("running pgbench (Debian: postgresql-contrib or postgresql-client)")?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        bail!(
            "pgbench failed: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let failed = text
        .lines()
        .find_map(|l| l.strip_prefix("number of failed transactions: "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse::<u64>().ok())
        .unwrap_or(0);
    if failed > 0 {
        bail!("pgbench: {failed} transactions of {name}.sql failed: {text}");
    }
    let field = |prefix: &str| -> Option<f64> {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .and_then(|l| l.split_whitespace().next())
            .and_then(|v| v.parse().ok())
    };
    let tps = field("tps = ").context("no tps in pgbench's output")?;
    let latency = field("latency average = ").context("no latency in pgbench's output")?;
    Ok((tps, latency))
}
