//! Email throughput: turn emails written when sent (text, HTML and the seat's board picture
//! rasterised to PNG) and delivered over SMTP by the outbox worker's sender threads, through
//! one pooled SMTP transport, into a local sink.
//!
//! `cargo bench --bench email_throughput` starts a throwaway PostgreSQL cluster and a tiny
//! SMTP sink (a thread per connection that accepts every message), opens MAIL_GAMES
//! two-player Kasino games (each start owes one turn email), then runs the worker with
//! MAIL_SENDERS senders until the outbox is empty. Reports emails/s and the processor time
//! per email (of this process and of the database), with the board pictures and again
//! without them (`email_pictures = false`), since drawing the picture is most of the work.
//! Environment: MAIL_GAMES (default 2000), MAIL_SENDERS (default 4), MAIL_PICTURES
//! (`with` or `without` runs that half only).

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use secrecy::SecretString;
use serde_json::json;
use turnpost::embedded_pg::ThrowawayCluster;
use turnpost::games::Registry;
use turnpost::notify::transport::Mailer;
use turnpost::outbox::worker::Worker;
use turnpost::settings::Settings;
use turnpost::store::kinds::AccountId;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One SMTP session: every message is accepted and counted.
fn session(stream: TcpStream, received: &AtomicUsize, bytes: &AtomicUsize) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut input = BufReader::new(stream);
    out.write_all(b"220 sink ESMTP\r\n")?;
    let mut line = String::new();
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" => out.write_all(b"250-sink\r\n250-8BITMIME\r\n250 SMTPUTF8\r\n")?,
            "DATA" => {
                out.write_all(b"354 go ahead\r\n")?;
                let mut size = 0;
                loop {
                    line.clear();
                    if input.read_line(&mut line)? == 0 {
                        return Ok(());
                    }
                    if line == ".\r\n" || line == ".\n" {
                        break;
                    }
                    size += line.len();
                }
                received.fetch_add(1, Ordering::Relaxed);
                bytes.fetch_add(size, Ordering::Relaxed);
                out.write_all(b"250 queued\r\n")?;
            }
            "QUIT" => {
                out.write_all(b"221 bye\r\n")?;
                return Ok(());
            }
            _ => out.write_all(b"250 ok\r\n")?,
        }
    }
}

/// Starts the sink; returns its port and its counters (messages, bytes).
fn sink() -> anyhow::Result<(u16, Arc<AtomicUsize>, Arc<AtomicUsize>)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let received = Arc::new(AtomicUsize::new(0));
    let bytes = Arc::new(AtomicUsize::new(0));
    let (r, b) = (Arc::clone(&received), Arc::clone(&bytes));
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let (r, b) = (Arc::clone(&r), Arc::clone(&b));
            std::thread::spawn(move || {
                let _ = session(stream, &r, &b);
            });
        }
    });
    Ok((port, received, bytes))
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

fn main() -> anyhow::Result<()> {
    let games = env_usize("MAIL_GAMES", 2000);
    let senders = env_usize("MAIL_SENDERS", 4);
    let cluster = ThrowawayCluster::start()?;
    let url = cluster.new_database()?;
    turnpost::store::migrate(&mut PgConnection::establish(&url)?)?;
    let (port, received, bytes) = sink()?;

    let mut settings = Settings::load()?;
    settings.turn_email_grace_secs = 0;
    settings.require_email_verification = false;
    settings.public_url = Some("https://games.example.org".into());
    let secret = SecretString::from("bench-secret-".repeat(3));
    let pool = turnpost::store::pool(&url, senders as u32 + 2, Duration::from_secs(10))?;
    let domain = turnpost::app::domain(&settings, pool, Registry::standard(), &secret)?;
    let mut conn = PgConnection::establish(&url)?;
    let sink = Sink {
        port,
        received,
        bytes,
    };
    let phases: &[bool] = match std::env::var("MAIL_PICTURES").as_deref() {
        Ok("with") => &[true],
        Ok("without") => &[false],
        _ => &[true, false],
    };
    for &pictures in phases {
        let domain = turnpost::domain::Domain {
            email_pictures: pictures,
            ..domain.clone()
        };
        run(&domain, &mut conn, &sink, games, senders)?;
    }
    Ok(())
}

struct Sink {
    port: u16,
    received: Arc<AtomicUsize>,
    bytes: Arc<AtomicUsize>,
}

/// Opens `games` games (one turn email each) and sends their emails.
fn run(
    domain: &turnpost::domain::Domain,
    conn: &mut PgConnection,
    sink: &Sink,
    games: usize,
    senders: usize,
) -> anyhow::Result<()> {
    // Players are inserted directly: password hashing is not what is measured here.
    let first: i64 = diesel::sql_query("SELECT COALESCE(max(id), 0) + 1 AS n FROM accounts")
        .get_result::<Count>(conn)?
        .n;
    diesel::sql_query(
        "INSERT INTO accounts (email, email_lower, name, password_hash) \
         SELECT 'p' || i || '@bench.example', 'p' || i || '@bench.example', 'Player ' || i, 'x' \
         FROM generate_series($1, $2) AS i ORDER BY i",
    )
    .bind::<diesel::sql_types::BigInt, _>(first)
    .bind::<diesel::sql_types::BigInt, _>(first + 2 * games as i64 - 1)
    .execute(conn)?;
    let first: i64 = diesel::sql_query("SELECT min(id) AS n FROM accounts WHERE email = $1")
        .bind::<diesel::sql_types::Text, _>(format!("p{first}@bench.example"))
        .get_result::<Count>(conn)?
        .n;
    let setup = Instant::now();
    for g in 0..games as i64 {
        let req = serde_json::from_value(json!({"game_type": "kasino", "players": 2}))?;
        let created = domain.create_game(AccountId(first + 2 * g), req)?;
        domain.join_game(AccountId(first + 2 * g + 1), created.id)?;
    }
    let queued: i64 = diesel::sql_query(
        "SELECT count(*) AS n FROM outbox WHERE kind = 'turn' AND sent_at IS NULL",
    )
    .get_result::<Count>(conn)?
    .n;
    println!(
        "{games} games started in {:.1} s: {queued} turn emails owed",
        setup.elapsed().as_secs_f64()
    );
    // A database in service has its statistics; one filled a second ago has none, and
    // its plans would be those of empty tables.
    diesel::sql_query("ANALYZE").execute(conn)?;
    let (received0, bytes0) = (
        sink.received.load(Ordering::Relaxed),
        sink.bytes.load(Ordering::Relaxed),
    );
    let stop = Arc::new(AtomicBool::new(false));
    let worker = Worker {
        lane: turnpost::outbox::worker::Lane::Email,
        domain: domain.clone(),
        mailer: Mailer::from_settings(
            Some(&format!("smtp://127.0.0.1:{}", sink.port)),
            std::env::temp_dir(),
            senders,
        )?,
        from: "Turnpost <games@example.org>".parse()?,
        poll: Duration::from_millis(20),
        max_attempts: 5,
        lease: Duration::from_secs(120),
        senders,
        stop: Arc::clone(&stop),
    };
    let cpu0 = cpu_used(conn)?;
    let start = Instant::now();
    let running = std::thread::spawn(move || worker.run());
    let deadline = Duration::from_secs(600);
    let sent = || sink.received.load(Ordering::Relaxed) - received0;
    while (sent() as i64) < queued && start.elapsed() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    let wall = start.elapsed();
    let cpu = cpu_since(&cpu0, &cpu_used(conn)?);
    stop.store(true, Ordering::Relaxed);
    let _ = running.join();
    let sent = sent();
    let unsent: i64 = diesel::sql_query("SELECT count(*) AS n FROM outbox WHERE sent_at IS NULL")
        .get_result::<Count>(conn)?
        .n;
    let size = (sink.bytes.load(Ordering::Relaxed) - bytes0) as f64 / sent.max(1) as f64 / 1024.0;
    let per_email = cpu.as_secs_f64() / sent.max(1) as f64;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{}: {senders} senders sent {sent} emails over SMTP ({size:.0} KiB each) in {:.2} s \
         ({unsent} not sent): {:.0} emails/s; {:.2} ms of processor time per email (sender, \
         sink and database), so {:.0} emails/s when the {cores} cores are free",
        if domain.email_pictures {
            "with board pictures"
        } else {
            "without pictures"
        },
        wall.as_secs_f64(),
        sent as f64 / wall.as_secs_f64(),
        per_email * 1000.0,
        cores as f64 / per_email
    );
    Ok(())
}

/// Processor time used so far: this process's, and each database server process's (the
/// backends of this database) by its pid. The machine may be shared with other work, so
/// emails/s alone says little; processor time per email does not depend on it.
struct CpuUsed {
    own: Duration,
    backends: std::collections::HashMap<i32, Duration>,
}

fn cpu_used(conn: &mut PgConnection) -> anyhow::Result<CpuUsed> {
    #[derive(QueryableByName)]
    struct Pid {
        #[diesel(sql_type = diesel::sql_types::Integer)]
        pid: i32,
    }
    let pids =
        diesel::sql_query("SELECT pid FROM pg_stat_activity WHERE datname = current_database()")
            .load::<Pid>(conn)?;
    // SAFETY: getrusage fills the struct it is given.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    Ok(CpuUsed {
        own: tv(usage.ru_utime) + tv(usage.ru_stime),
        backends: pids
            .iter()
            .filter_map(|p| Some((p.pid, process_cpu(p.pid)?)))
            .collect(),
    })
}

/// User and system time of a process, from /proc (Linux).
fn process_cpu(pid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces):
    // utime and stime are the 12th and 13th.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf only reads a configuration value.
    let per_sec = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    Some(Duration::from_micros(ticks * 1_000_000 / per_sec))
}

/// The processor time used between two readings (backends that began in between count
/// from zero).
fn cpu_since(before: &CpuUsed, after: &CpuUsed) -> Duration {
    let backends: Duration = after
        .backends
        .iter()
        .map(|(pid, t)| t.saturating_sub(before.backends.get(pid).copied().unwrap_or_default()))
        .sum();
    after.own.saturating_sub(before.own) + backends
}
