//! What a move costs the database, by game type: `cargo bench --bench storage`.
//!
//! Starts the private cluster and `turnpost serve` as `http_load` does, then for each game
//! type plays STORAGE_GAMES (default 3) games of at most STORAGE_MOVES (default 60) random
//! legal moves each through the API (a GET as the mover, then a POST), with confirmed
//! addresses and no grace period, so that every move owes and sends a turn email as in
//! real play. Per move it reports the WAL written (`pg_current_wal_lsn` before and after),
//! the database's growth, the log entry's size and the snapshot's, and WAL over (log entry
//! + snapshot), the ratio to keep at 2 or below.
//!
//! Then retention: every settled outbox row and processed reply is aged past
//! `outbox_retention_days`, the server's own sweep (every second here) prunes them, and the
//! bench reports the outbox's rows and bytes before and after, and what stays per move.

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;

use anyhow::{Context, bail};
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use reqwest::blocking::Client;
use serde_json::{Value, json};
use support::{Rig, env_usize};
use turnpost::engine::GameRng;

#[derive(QueryableByName)]
struct Num {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn num(conn: &mut PgConnection, sql: &str) -> anyhow::Result<i64> {
    Ok(diesel::sql_query(sql).get_result::<Num>(conn)?.n)
}

fn wal(conn: &mut PgConnection) -> anyhow::Result<i64> {
    num(
        conn,
        "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint AS n",
    )
}

fn lsn(conn: &mut PgConnection) -> anyhow::Result<String> {
    Ok(diesel::sql_query("SELECT pg_current_wal_lsn()::text AS t")
        .get_result::<Label>(conn)?
        .t)
}

#[derive(QueryableByName)]
struct Label {
    #[diesel(sql_type = Text)]
    t: String,
}

#[derive(QueryableByName)]
struct WalPart {
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = BigInt)]
    records: i64,
    #[diesel(sql_type = BigInt)]
    bytes: i64,
    #[diesel(sql_type = BigInt)]
    fpi: i64,
}

/// Where the WAL between two positions went (pg_walinspect), by the relation a record's
/// first block belongs to (a TOAST table under its owner's name), per move: what to cut.
fn wal_detail(conn: &mut PgConnection, from: &str, to: &str, moves: usize) -> anyhow::Result<()> {
    diesel::sql_query("CREATE EXTENSION IF NOT EXISTS pg_walinspect").execute(conn)?;
    let parts: Vec<WalPart> = diesel::sql_query(
        "SELECT COALESCE(o.relname || ' (toast)', c.relname, r.rm) || ' ' || r.rt AS name, \
                count(*)::bigint AS records, sum(r.record_length)::bigint AS bytes, \
                sum(r.fpi_length)::bigint AS fpi \
         FROM (SELECT resource_manager AS rm, record_type AS rt, record_length, fpi_length, \
                      substring(block_ref from 'rel [0-9]+/[0-9]+/([0-9]+)')::oid AS node \
               FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn)) r \
         LEFT JOIN pg_class c ON c.relfilenode = r.node \
         LEFT JOIN pg_class o ON o.reltoastrelid = c.oid \
         GROUP BY 1 ORDER BY 3 DESC LIMIT 14",
    )
    .bind::<Text, _>(from)
    .bind::<Text, _>(to)
    .load(conn)?;
    for p in parts {
        println!(
            "    {:<40} {:>7.1} rec/mv {:>8.0} B/mv ({:>6.0} B full pages)",
            p.name,
            p.records as f64 / moves.max(1) as f64,
            p.bytes as f64 / moves.max(1) as f64,
            p.fpi as f64 / moves.max(1) as f64
        );
    }
    Ok(())
}

fn db_size(conn: &mut PgConnection) -> anyhow::Result<i64> {
    // Checkpointed sizes move in pages; a vacuum first leaves only what stays.
    diesel::sql_query("VACUUM").execute(conn)?;
    num(conn, "SELECT pg_database_size(current_database()) AS n")
}

fn free_port() -> anyhow::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

struct Api {
    client: Client,
    base: String,
}

impl Api {
    fn player(&self, email: &str) -> anyhow::Result<String> {
        self.client
            .post(format!("{}/accounts", self.base))
            .json(&json!({"email": email, "name": email.split('@').next(), "password": "correct horse battery"}))
            .send()?;
        let t: Value = self
            .client
            .post(format!("{}/auth/token", self.base))
            .json(&json!({"email": email, "password": "correct horse battery"}))
            .send()?
            .json()?;
        t["access_token"]
            .as_str()
            .map(str::to_string)
            .context("no token")
    }

    fn get(&self, path: &str, token: &str) -> anyhow::Result<Value> {
        Ok(self
            .client
            .get(format!("{}{path}", self.base))
            .bearer_auth(token)
            .send()?
            .json()?)
    }

    fn post(&self, path: &str, token: &str, body: &Value) -> anyhow::Result<Value> {
        let r = self
            .client
            .post(format!("{}{path}", self.base))
            .bearer_auth(token)
            .json(body)
            .send()?;
        let status = r.status();
        let v: Value = r.json()?;
        if !status.is_success() {
            bail!("{path}: {status} {v}");
        }
        Ok(v)
    }
}

/// Plays game `id` for at most `moves` random legal moves, calling `before_move` before
/// each; returns how many were played.
fn play(
    api: &Api,
    id: i64,
    tokens: &[String],
    moves: usize,
    rng: &mut GameRng,
    before_move: &mut dyn FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<usize> {
    let mut played = 0;
    while played < moves {
        let g = api.get(&format!("/games/{id}"), &tokens[0])?;
        if g["status"] != "active" {
            break;
        }
        let mut moved = false;
        for seat in g["to_act"].as_array().context("to_act")? {
            let token = &tokens[seat.as_u64().context("seat")? as usize];
            let mine = api.get(&format!("/games/{id}"), token)?;
            let legal = mine["legal_actions"].as_array().context("legal")?;
            if legal.is_empty() {
                continue;
            }
            let action = legal[rng.below(legal.len())].clone();
            before_move()?;
            api.post(
                &format!("/games/{id}/actions"),
                token,
                &json!({"expected_version": mine["version"], "action": action}),
            )?;
            moved = true;
            break;
        }
        if !moved {
            bail!("game {id}: nobody could move");
        }
        played += 1;
    }
    Ok(played)
}

/// Waits until the server has sent every email due.
fn settle(conn: &mut PgConnection) -> anyhow::Result<()> {
    let start = Instant::now();
    while num(
        conn,
        "SELECT count(*) AS n FROM outbox WHERE sent_at IS NULL AND dropped_at IS NULL \
         AND failed_at IS NULL AND next_attempt_at <= now()",
    )? > 0
    {
        if start.elapsed() > Duration::from_secs(300) {
            bail!("the outbox did not empty");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok(())
}

#[derive(QueryableByName)]
struct Sizes {
    #[diesel(sql_type = BigInt)]
    entries: i64,
    #[diesel(sql_type = BigInt)]
    entry_bytes: i64,
    #[diesel(sql_type = BigInt)]
    snapshot_bytes: i64,
    #[diesel(sql_type = BigInt)]
    state_bytes: i64,
}

/// How the database stores a move under each of three setups, in one run.
#[derive(Clone, Copy)]
enum Phase {
    /// Without migration 000033 (its down run), and full-page images uncompressed.
    Before,
    /// Migration 000033 (a BRIN index on the event buffer), full-page images compressed
    /// with pglz (`wal_compression = on`, which every build has).
    Pglz,
    /// As the embedded default runs: 000033, and `wal_compression = zstd` where the build
    /// has it.
    After,
}

impl Phase {
    fn title(self) -> &'static str {
        match self {
            Phase::Before => "before: B-tree on game_events.created_at, wal_compression off",
            Phase::Pglz => "BRIN on game_events.created_at (000033), wal_compression pglz",
            Phase::After => "after: as the embedded default runs (000033, wal_compression zstd)",
        }
    }

    fn tag(self) -> &'static str {
        match self {
            Phase::Before => "b",
            Phase::Pglz => "p",
            Phase::After => "a",
        }
    }

    fn apply(self, conn: &mut PgConnection) -> anyhow::Result<()> {
        let database = turnpost::embedded_pg::DATABASE;
        let sql = match self {
            Phase::Before => format!(
                "{}\nALTER DATABASE {database} SET wal_compression = off;",
                include_str!("../migrations/2026-11-28-000033_event_buffer_brin/down.sql")
            ),
            Phase::Pglz => format!(
                "{}\nALTER DATABASE {database} SET wal_compression = pglz;",
                include_str!("../migrations/2026-11-28-000033_event_buffer_brin/up.sql")
            ),
            Phase::After => format!("ALTER DATABASE {database} RESET wal_compression;"),
        };
        conn.batch_execute(&sql)?;
        Ok(())
    }
}

/// Starts `turnpost serve` on the cluster and waits until it answers.
fn start_server(url: &str, var: &std::path::Path) -> anyhow::Result<(std::process::Child, Api)> {
    let port = free_port()?;
    let server = Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .arg("serve")
        .env("DATABASE_URL", url)
        .env("TURNPOST_BIND", format!("127.0.0.1:{port}"))
        .env("TURNPOST_VAR_DIR", var)
        .env("TURNPOST_JWT_SECRET", "bench-secret-".repeat(3))
        .env("TURNPOST_REQUIRE_EMAIL_VERIFICATION", "false")
        .env("TURNPOST_TURN_EMAIL_GRACE_SECS", "0")
        .env("TURNPOST_EMAIL_PICTURES", "false")
        .env("TURNPOST_SWEEP_INTERVAL_SECS", "1")
        .env("TURNPOST_RATE_LIMIT_PER_ACCOUNT", "100000000")
        .env("TURNPOST_RATE_LIMIT_PER_ADDRESS", "100000000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .context("starting turnpost serve")?;
    let api = Api {
        client: Client::builder().timeout(Duration::from_secs(60)).build()?,
        base: format!("http://127.0.0.1:{port}/api/v1"),
    };
    let up = Instant::now();
    while api
        .client
        .get(format!("http://127.0.0.1:{port}/healthz"))
        .send()
        .map_or(true, |r| !r.status().is_success())
    {
        if up.elapsed() > Duration::from_secs(60) {
            bail!("turnpost serve did not come up");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Ok((server, api))
}

/// One game type's figures per move.
struct Run {
    played: usize,
    wal: f64,
    growth: f64,
    entry: f64,
    /// The snapshot as the engine wrote it (text bytes).
    state: f64,
    /// The snapshot as the table holds it (compressed or not).
    stored: f64,
    lsns: (String, String),
}

/// Plays `games` games of `kind` and measures what their moves wrote. `cold`: a checkpoint
/// before every move, so each first touch of a page writes its full image, as in games
/// whose moves come minutes or days apart.
#[allow(clippy::too_many_arguments)]
fn measure(
    api: &Api,
    conn: &mut PgConnection,
    kind: &str,
    seats: usize,
    games: usize,
    moves: usize,
    cold: bool,
    prefix: &str,
    rng: &mut GameRng,
) -> anyhow::Result<Run> {
    let mut tables = Vec::new();
    for g in 0..games {
        let tokens: Vec<String> = (0..seats)
            .map(|s| api.player(&format!("p{prefix}x{g}x{s}@bench.example")))
            .collect::<anyhow::Result<_>>()?;
        let created = api.post(
            "/games",
            &tokens[0],
            &json!({"game_type": kind, "players": seats}),
        )?;
        let id = created["id"].as_i64().context("game id")?;
        for token in &tokens[1..] {
            api.post(&format!("/games/{id}/join"), token, &json!({}))?;
        }
        tables.push((id, tokens));
    }
    diesel::sql_query("UPDATE accounts SET email_verified_at = now()").execute(conn)?;
    settle(conn)?;
    let (wal0, size0) = (wal(conn)?, db_size(conn)?);
    let wal0 = wal0.max(wal(conn)?);
    let lsn0 = lsn(conn)?;
    let mut played = 0;
    let checkpoint = |conn: &mut PgConnection| -> anyhow::Result<()> {
        if cold {
            diesel::sql_query("CHECKPOINT").execute(conn)?;
        }
        Ok(())
    };
    for (id, tokens) in &tables {
        played += play(api, *id, tokens, moves, rng, &mut || checkpoint(conn))?;
    }
    settle(conn)?;
    let wal1 = wal(conn)?;
    let lsn1 = lsn(conn)?;
    let size1 = db_size(conn)?;
    let ids: Vec<String> = tables.iter().map(|t| t.0.to_string()).collect();
    let sizes: Sizes = diesel::sql_query(format!(
        "SELECT (SELECT count(*) FROM game_actions WHERE game_id IN ({ids}))::bigint AS entries, \
                (SELECT COALESCE(sum(pg_column_size(a.*)), 0) FROM game_actions a \
                 WHERE game_id IN ({ids}))::bigint AS entry_bytes, \
                (SELECT COALESCE(sum(pg_column_size(g.snapshot)), 0) FROM games g \
                 WHERE id IN ({ids}))::bigint AS snapshot_bytes, \
                (SELECT COALESCE(sum(octet_length(g.snapshot)), 0) FROM games g \
                 WHERE id IN ({ids}))::bigint AS state_bytes",
        ids = ids.join(",")
    ))
    .get_result(conn)?;
    let per = |x: i64| x as f64 / played.max(1) as f64;
    Ok(Run {
        played,
        wal: per(wal1 - wal0),
        growth: per(size1 - size0),
        entry: sizes.entry_bytes as f64 / sizes.entries.max(1) as f64,
        state: sizes.state_bytes as f64 / tables.len() as f64,
        stored: sizes.snapshot_bytes as f64 / tables.len() as f64,
        lsns: (lsn0, lsn1),
    })
}

fn main() -> anyhow::Result<()> {
    // reqwest clients here take rustls without a bundled provider (see notify::webhook).
    turnpost::notify::webhook::install_tls_provider();
    let games = env_usize("STORAGE_GAMES", 3);
    let moves = env_usize("STORAGE_MOVES", 60);
    let (mut rig, url) = Rig::start("storage")?;
    let var = rig.var.clone();
    let mut conn = PgConnection::establish(&url)?;
    turnpost::store::migrate(&mut conn)?;
    let mut rng = GameRng::seed_from_u64(36);
    let mut total_moves = 0usize;
    for phase in [Phase::Before, Phase::Pglz, Phase::After] {
        phase.apply(&mut conn)?;
        // A new server, so that its pooled connections take the phase's settings.
        if let Some(mut old) = rig.server.take() {
            let _ = old.kill();
            let _ = old.wait();
        }
        let (server, current) = start_server(&url, &var)?;
        rig.server = Some(server);
        let types: Value = current
            .client
            .get(format!("{}/game-types", current.base))
            .send()?
            .json()?;
        // What the server's connections (opened after the phase's settings) run with.
        let compression: Setting = diesel::sql_query("SHOW wal_compression")
            .get_result(&mut PgConnection::establish(&url)?)?;
        println!(
            "\n{} (the server's connections: wal_compression = {})",
            phase.title(),
            compression.wal_compression
        );
        println!(
            "{:<16} {:>5} {:>9} {:>9} {:>8} {:>7} {:>7} {:>7} {:>9} {:>9}",
            "game type",
            "moves",
            "WAL B/mv",
            "cold B/mv",
            "DB B/mv",
            "entry B",
            "state B",
            "stored",
            "WAL/(e+s)",
            "cold/(e+s)"
        );
        for (t, game_type) in types.as_array().context("types")?.iter().enumerate() {
            let kind = game_type["id"].as_str().context("id")?;
            let seats = game_type["player_counts"][0].as_u64().context("counts")? as usize;
            let mut runs = Vec::new();
            for cold in [false, true] {
                let prefix = format!("{}{}t{t}", phase.tag(), u8::from(cold));
                runs.push(measure(
                    &current, &mut conn, kind, seats, games, moves, cold, &prefix, &mut rng,
                )?);
            }
            let (warm, cold) = (&runs[0], &runs[1]);
            let basis = warm.entry + warm.state;
            println!(
                "{:<16} {:>5} {:>9.0} {:>9.0} {:>8.0} {:>7.0} {:>7.0} {:>7.0} {:>9.2} {:>9.2}",
                kind,
                warm.played,
                warm.wal,
                cold.wal,
                warm.growth,
                warm.entry,
                warm.state,
                warm.stored,
                warm.wal / basis,
                cold.wal / (cold.entry + cold.state)
            );
            total_moves += warm.played + cold.played;
            if std::env::var_os("STORAGE_WAL_DETAIL").is_some() {
                for run in &runs {
                    wal_detail(&mut conn, &run.lsns.0, &run.lsns.1, run.played)?;
                }
            }
        }
    }
    // Retention: age what settled past the retention; the server's sweep prunes it.
    settle(&mut conn)?;
    let outbox = |conn: &mut PgConnection| -> anyhow::Result<(i64, i64)> {
        Ok((
            num(conn, "SELECT count(*) AS n FROM outbox")?,
            num(conn, "SELECT pg_total_relation_size('outbox') AS n")?,
        ))
    };
    let (rows0, bytes0) = outbox(&mut conn)?;
    let size0 = db_size(&mut conn)?;
    diesel::sql_query(
        "UPDATE outbox SET sent_at = sent_at - interval '31 days', \
         dropped_at = dropped_at - interval '31 days'",
    )
    .execute(&mut conn)?;
    diesel::sql_query("UPDATE inbound_messages SET received_at = received_at - interval '31 days'")
        .execute(&mut conn)?;
    let start = Instant::now();
    loop {
        let pruned = num(
            &mut conn,
            "SELECT count(*) AS n FROM outbox WHERE failed_at IS NULL \
             AND COALESCE(sent_at, dropped_at) < now() - interval '30 days' \
             AND (message_id IS NULL OR message_id NOT LIKE '<game-%')",
        )?;
        if pruned == 0 {
            break;
        }
        if start.elapsed() > Duration::from_secs(120) {
            bail!("the sweep did not prune the outbox ({pruned} rows left)");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    let (rows1, _) = outbox(&mut conn)?;
    diesel::sql_query("VACUUM FULL outbox").execute(&mut conn)?;
    let bytes1 = num(&mut conn, "SELECT pg_total_relation_size('outbox') AS n")?;
    let size1 = db_size(&mut conn)?;
    let kinds: Vec<(String, i64)> = diesel::sql_query(
        "SELECT COALESCE(kind, 'rendered') AS kind, count(*) AS n FROM outbox GROUP BY 1 ORDER BY 1",
    )
    .load::<KindCount>(&mut conn)?
    .into_iter()
    .map(|k| (k.kind, k.n))
    .collect();
    println!(
        "\nretention: {total_moves} moves; outbox {rows0} rows ({:.0} B/move, {} KiB) before \
         the prune, {rows1} rows ({} KiB) after, kept: {kinds:?}",
        bytes0 as f64 / total_moves as f64,
        bytes0 / 1024,
        bytes1 / 1024
    );
    println!(
        "database {} KiB before, {} KiB after ({:.0} B/move less)",
        size0 / 1024,
        size1 / 1024,
        (size0 - size1) as f64 / total_moves as f64
    );
    drop(rig);
    Ok(())
}

#[derive(QueryableByName)]
struct Setting {
    #[diesel(sql_type = Text)]
    wal_compression: String,
}

#[derive(QueryableByName)]
struct KindCount {
    #[diesel(sql_type = Text)]
    kind: String,
    #[diesel(sql_type = BigInt)]
    n: i64,
}
