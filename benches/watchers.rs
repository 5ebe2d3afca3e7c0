//! Watchers: `cargo bench --bench watchers`.
//!
//! Starts the private cluster and the real `turnpost serve` as a child process (so the
//! memory, descriptors and threads read from /proc are the server's alone), then plays
//! WATCH_GAMES (default 8) two-player Kasino games at one move per game per second
//! (a GET as the player to act, then the POST of a random legal action; the POST's
//! latency is recorded) for WATCH_SECS (default 30) seconds in each of three phases:
//! 1. baseline: no stream open;
//! 2. idle: WATCH_STREAMS (default 10,000) `GET /api/v1/me/events` streams open, held by
//!    the players of *other* games, which nobody plays: the streams get keep-alives only;
//! 3. busy: the same streams, and the games played are those of the streams' accounts:
//!    each move is an event for both its players, so each stream receives about one event
//!    per second (1 move/s per game, the streams spread evenly over the accounts).
//!
//! For each phase it prints the move latency p50/p99 and its ratio to the baseline, the
//! server's RSS (and peak), open descriptors and threads, and the events the streams got.
//! The client is cheap: one tokio task per stream on raw TCP, reading into a small buffer.
//!
//! Environment: WATCH_STREAMS, WATCH_GAMES, WATCH_SECS, WATCH_SERVER (the server binary;
//! default the one this bench was built with).

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

mod support;

use anyhow::{Context, bail};
use reqwest::Client;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};
use support::{Rig, env_usize};
use turnpost::engine::GameRng;

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

/// A `/proc/<pid>/status` field in kB (or a plain number, for `Threads:`).
fn status_field(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn open_fds(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd")).map_or(0, |d| d.count())
}

/// What the server holds now: RSS MiB, peak RSS MiB, descriptors, threads.
fn server_use(pid: u32) -> (f64, f64, usize, u64) {
    (
        status_field(pid, "VmRSS:") as f64 / 1024.0,
        status_field(pid, "VmHWM:") as f64 / 1024.0,
        open_fds(pid),
        status_field(pid, "Threads:"),
    )
}

/// The soft limit of open files raised to the hard one: this process holds every stream.
fn raise_nofile() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: plain calls on an rlimit this function owns.
    unsafe {
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
        lim.rlim_cur = lim.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim);
    }
    lim.rlim_cur
}

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

/// One move in game `id` as the seat to act; its POST's latency, or `None` when the game
/// is over (or the seat to act has nothing to do).
async fn one_move(
    client: &Client,
    base: &str,
    id: i64,
    tokens: &[String; 2],
    rng: &mut GameRng,
) -> anyhow::Result<Option<Duration>> {
    let first = read_game(client, base, id, &tokens[0]).await?;
    if first.status != "active" {
        return Ok(None);
    }
    let seat = first.to_act.first().copied().unwrap_or(0) % 2;
    let game = if seat == 0 {
        first
    } else {
        read_game(client, base, id, &tokens[1]).await?
    };
    if game.legal_actions.is_empty() {
        return Ok(None);
    }
    let action = game.legal_actions[rng.below(game.legal_actions.len())].get();
    let body = format!(
        r#"{{"expected_version":{},"action":{action}}}"#,
        game.version
    );
    let t = Instant::now();
    let r = client
        .post(format!("{base}/games/{id}/actions"))
        .bearer_auth(&tokens[seat])
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(body)
        .send()
        .await?;
    let status = r.status();
    r.bytes().await?;
    let elapsed = t.elapsed();
    if status != 200 {
        bail!("game {id}: move answered {status}");
    }
    Ok(Some(elapsed))
}

/// Plays `tables` at one move per game per second for `secs`; the POST latencies.
async fn play(
    client: &Client,
    base: &str,
    tables: &[[String; 2]],
    secs: u64,
    seed: u64,
) -> anyhow::Result<Vec<Duration>> {
    let mut tasks = Vec::new();
    let end = tokio::time::Instant::now() + Duration::from_secs(secs);
    let count = tables.len() as u64;
    for (i, tokens) in tables.iter().enumerate() {
        let client = client.clone();
        let base = base.to_string();
        let tokens = tokens.clone();
        tasks.push(tokio::spawn(async move {
            let mut rng = GameRng::seed_from_u64(seed * 1000 + i as u64);
            let mut lat = Vec::new();
            let mut id = new_game(&client, &base, &tokens).await?;
            // Spread the games over the second.
            let mut next =
                tokio::time::Instant::now() + Duration::from_millis(1000 * i as u64 / count);
            while next < end {
                tokio::time::sleep_until(next).await;
                next += Duration::from_secs(1);
                match one_move(&client, &base, id, &tokens, &mut rng).await? {
                    Some(d) => lat.push(d),
                    None => id = new_game(&client, &base, &tokens).await?,
                }
            }
            anyhow::Ok(lat)
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await??);
    }
    all.sort();
    Ok(all)
}

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let n = sorted.len();
    let i = ((n as f64 * p).ceil() as usize)
        .saturating_sub(1)
        .min(n.saturating_sub(1));
    sorted.get(i).copied().unwrap_or_default().as_secs_f64() * 1e3
}

/// One open event stream: reads (and counts) what the server sends until `stop`.
async fn stream(
    port: u16,
    token: String,
    counts: Arc<Counts>,
    mut opening: Option<tokio::sync::OwnedSemaphorePermit>,
) -> anyhow::Result<()> {
    let s = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let req = format!(
        "GET /api/v1/me/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\
         Authorization: Bearer {token}\r\n\r\n"
    );
    let mut sent = 0;
    while sent < req.len() {
        s.writable().await?;
        match s.try_write(&req.as_bytes()[sent..]) {
            Ok(n) => sent += n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e.into()),
        }
    }
    let mut buf = [0u8; 1024];
    let mut head = true;
    loop {
        s.readable().await?;
        let n = match s.try_read(&mut buf) {
            Ok(0) => bail!("the server closed a stream"),
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => continue,
            Err(e) => return Err(e.into()),
        };
        let got = &buf[..n];
        if head {
            if !got.starts_with(b"HTTP/1.1 200") {
                bail!(
                    "stream refused: {}",
                    String::from_utf8_lossy(&got[..n.min(200)])
                );
            }
            head = false;
            counts.opened.fetch_add(1, Ordering::Relaxed);
            // The next stream may open.
            drop(opening.take());
        }
        let frames = got.windows(6).filter(|w| w == b"event:").count();
        counts.events.fetch_add(frames as u64, Ordering::Relaxed);
        let lobby = got.windows(LOBBY.len()).filter(|w| *w == LOBBY).count();
        counts.lobby.fetch_add(lobby as u64, Ordering::Relaxed);
    }
}

/// What the streams counted, together.
#[derive(Default)]
struct Counts {
    opened: AtomicU64,
    failed: AtomicU64,
    events: AtomicU64,
    /// Of the events, `lobby_changed`: sent to every stream when a public game opens or
    /// fills (the bench replaces each finished game with a new one).
    lobby: AtomicU64,
}

const LOBBY: &[u8] = b"event: lobby_changed";

fn main() -> anyhow::Result<()> {
    turnpost::notify::webhook::install_tls_provider();
    let streams = env_usize("WATCH_STREAMS", 10_000);
    let games = env_usize("WATCH_GAMES", 8).max(1);
    let secs = env_usize("WATCH_SECS", 30) as u64;
    let nofile = raise_nofile();
    println!("bench process: open-file limit {nofile}");
    let (mut rig, url) = Rig::start("watchers")?;
    let var = rig.var.clone();
    let port = free_port()?;
    let binary =
        std::env::var("WATCH_SERVER").unwrap_or_else(|_| env!("CARGO_BIN_EXE_turnpost").into());
    let log = std::fs::File::create(var.join("server.log"))?;
    let server = Command::new(binary)
        .arg("serve")
        .env("DATABASE_URL", &url)
        .env("TURNPOST_BIND", format!("127.0.0.1:{port}"))
        .env("TURNPOST_VAR_DIR", &var)
        .env("TURNPOST_JWT_SECRET", "bench-secret-".repeat(3))
        .env("TURNPOST_REQUIRE_EMAIL_VERIFICATION", "false")
        .env("TURNPOST_EMAIL_PICTURES", "false")
        .env("TURNPOST_RATE_LIMIT_PER_ACCOUNT", "100000000")
        .env("TURNPOST_RATE_LIMIT_PER_ADDRESS", "100000000")
        // Every stream comes from this one address.
        .env("TURNPOST_MAX_EVENT_STREAMS_PER_ADDRESS", "1000000")
        .env("RUST_LOG", "info")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .context("starting turnpost serve")?;
    let pid = server.id();
    rig.server = Some(server);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let result = rt.block_on(async {
        let client = Client::builder()
            .timeout(Duration::from_secs(60))
            .pool_max_idle_per_host(64)
            .build()?;
        let base = format!("http://127.0.0.1:{port}/api/v1");
        let up = Instant::now();
        while client
            .get(format!("http://127.0.0.1:{port}/healthz"))
            .send()
            .await
            .map_or(true, |r| !r.status().is_success())
        {
            if up.elapsed() > Duration::from_secs(60) {
                bail!("turnpost serve did not come up");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Played without streams (phases 1 and 2), and by the streams' accounts (phase 3).
        let mut quiet = Vec::new();
        let mut watched = Vec::new();
        for g in 0..games {
            quiet.push([
                player(&client, &base, &format!("q{g}a@bench.example")).await?,
                player(&client, &base, &format!("q{g}b@bench.example")).await?,
            ]);
            watched.push([
                player(&client, &base, &format!("w{g}a@bench.example")).await?,
                player(&client, &base, &format!("w{g}b@bench.example")).await?,
            ]);
        }
        let header = format!(
            "{:<26} {:>7} {:>8} {:>8} {:>7} {:>8} {:>9} {:>6} {:>8} {:>11} {:>9}",
            "phase",
            "moves",
            "p50 ms",
            "p99 ms",
            "p99 x",
            "RSS MiB",
            "peak MiB",
            "fds",
            "threads",
            "events/s/st",
            "of lobby"
        );
        let report = |name: &str, lat: &[Duration], base_p99: f64, (ev, lobby): (f64, f64)| {
            let (rss, peak, fds, threads) = server_use(pid);
            let p99 = percentile(lat, 0.99);
            println!(
                "{:<26} {:>7} {:>8.1} {:>8.1} {:>7.2} {:>8.0} {:>9.0} {:>6} {:>8} {:>11.2} {:>9.2}",
                name,
                lat.len(),
                percentile(lat, 0.5),
                p99,
                p99 / base_p99,
                rss,
                peak,
                fds,
                threads,
                ev,
                lobby
            );
            p99
        };
        let (rss0, _, fds0, threads0) = server_use(pid);
        println!(
            "server at rest: RSS {rss0:.0} MiB, {fds0} descriptors, {threads0} threads; \
             {streams} streams, {games} games at 1 move/s each, {secs} s per phase"
        );
        let lat = play(&client, &base, &quiet, secs, 1).await?;
        println!("{header}");
        let base_p99 = report(
            "1 baseline, 0 streams",
            &lat,
            percentile(&lat, 0.99),
            (0.0, 0.0),
        );

        let counts = Arc::new(Counts::default());
        let accounts: Vec<String> = watched.iter().flatten().cloned().collect();
        let opening = Instant::now();
        // At most 64 openings at a time: each reads the stored events once.
        let gate = Arc::new(tokio::sync::Semaphore::new(64));
        let mut handles = Vec::new();
        for i in 0..streams {
            let token = accounts[i % accounts.len()].clone();
            let counts = counts.clone();
            let permit = gate.clone().acquire_owned().await?;
            handles.push(tokio::spawn(async move {
                if let Err(e) = stream(port, token, counts.clone(), Some(permit)).await
                    && counts.failed.fetch_add(1, Ordering::Relaxed) < 3
                {
                    eprintln!("stream: {e:#}");
                }
            }));
        }
        drop(gate.acquire_many(64).await?);
        println!(
            "{} streams opened in {:.1} s ({} failed)",
            counts.opened.load(Ordering::Relaxed),
            opening.elapsed().as_secs_f64(),
            counts.failed.load(Ordering::Relaxed)
        );
        let seen = || {
            (
                counts.events.load(Ordering::Relaxed),
                counts.lobby.load(Ordering::Relaxed),
            )
        };
        let e0 = seen();
        let lat = play(&client, &base, &quiet, secs, 2).await?;
        let e1 = seen();
        let per_stream = |(e, l): (u64, u64), (e0, l0): (u64, u64)| {
            let per = |n: u64| n as f64 / secs as f64 / streams.max(1) as f64;
            (per(e - e0), per(l - l0))
        };
        report(
            &format!("2 {streams} idle streams"),
            &lat,
            base_p99,
            per_stream(e1, e0),
        );
        let lat = play(&client, &base, &watched, secs, 3).await?;
        let e2 = seen();
        report(
            &format!("3 {streams} streams, busy"),
            &lat,
            base_p99,
            per_stream(e2, e1),
        );
        let failed = counts.failed.load(Ordering::Relaxed);
        if failed > 0 {
            bail!("{failed} streams failed");
        }
        for h in handles {
            h.abort();
        }
        Ok(base_p99)
    });
    drop(rt);
    result?;
    drop(rig);
    Ok(())
}
