//! Failover without losing a move: a primary and a streaming standby started
//! from the installed PostgreSQL binaries, the real server on a two-host `DATABASE_URL`
//! (`target_session_attrs=read-write`), Kasino played by several clients at once; the
//! primary is killed (every process of it, SIGKILL: a dead host, not a clean stop) and the
//! standby promoted while they play. The server must serve again by itself.
//!
//! Synchronous replication: every move answered 200 is in the promoted database, and the
//! games verify. Asynchronous: the same run, printing what was lost (nothing asserted about
//! it: on loopback the standby is usually milliseconds behind, so it often loses nothing).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, spawn_app_on};

/// Moves acknowledged (across the clients) before the primary dies, and after service is
/// back before the clients stop.
const WARM_UP_MOVES: usize = 3 * CLIENTS;
const AFTER_MOVES: usize = 2 * CLIENTS;
/// Games played at once, one client each.
const CLIENTS: usize = 4;
/// How long the clients may take to play the moves above, or the server to come back:
/// only a failing run waits this long.
const PATIENCE: Duration = Duration::from_secs(120);
/// How soon after the promotion the server serves again: it finds the new primary by
/// itself within a second or so (a pool checkout gives up after 1 s, libpq tries each host
/// for at most 2 s); the bound leaves a loaded machine room, and still fails a server that
/// came back only after some long backoff.
const BACK_WITHIN: Duration = Duration::from_secs(30);

fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// A PostgreSQL binary run as `postgres` when we are root (the server refuses root).
fn pg(bin: &Path, name: &str) -> Command {
    let path = bin.join(name);
    if running_as_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(path);
        c
    } else {
        Command::new(path)
    }
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn chown_postgres(dir: &Path) {
    if running_as_root() {
        let mut c = Command::new("chown");
        c.arg("-R").arg("postgres:postgres").arg(dir);
        run(c, "chown");
    }
}

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    l.local_addr().expect("port").port()
}

/// A primary (`a`) and its streaming standby (`b`) in a temporary directory; both are
/// stopped and the directory removed when dropped.
struct Pair {
    bin: PathBuf,
    root: PathBuf,
    primary_port: u16,
    standby_port: u16,
}

impl Pair {
    fn start(synchronous: bool) -> Pair {
        // The real bin directory: PATH may hold symlinks to the server alone.
        let bin = crate::helpers::pg_tool("pg_basebackup")
            .parent()
            .expect("bin")
            .to_path_buf();
        let root = std::env::temp_dir().join(format!(
            "turnpost-failover-{}",
            hex::encode(rand::random::<[u8; 6]>())
        ));
        std::fs::create_dir_all(&root).expect("temporary directory");
        let pair = Pair {
            bin,
            root,
            primary_port: free_port(),
            standby_port: free_port(),
        };
        chown_postgres(&pair.root);
        let mut c = pg(&pair.bin, "initdb");
        c.arg("-D").arg(pair.dir("a"));
        c.args(["-U", "turnpost", "--auth=trust", "-E", "UTF8", "--locale=C"]);
        run(c, "initdb");
        // fsync is off: processes are killed here, not the machine, and what a killed
        // process wrote is in the kernel's cache. A commit still waits for the standby.
        pair.append_conf(
            "a",
            &format!(
                "port = {}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\n\
                 fsync = off\nsynchronous_commit = on\nsynchronous_standby_names = '{}'\n",
                pair.primary_port,
                if synchronous { "*" } else { "" }
            ),
        );
        pair.pg_ctl_start("a");
        let mut c = pg(&pair.bin, "pg_basebackup");
        c.args(["-h", "127.0.0.1", "-p", &pair.primary_port.to_string()]);
        c.args(["-U", "turnpost", "-X", "stream", "-R", "-c", "fast", "-D"]);
        c.arg(pair.dir("b"));
        run(c, "pg_basebackup");
        // The standby, once promoted, has no standby of its own: were it to keep
        // `synchronous_standby_names`, its every commit would wait forever.
        pair.append_conf(
            "b",
            &format!(
                "port = {}\nsynchronous_standby_names = ''\n",
                pair.standby_port
            ),
        );
        pair.pg_ctl_start("b");
        pair.wait_for_replication(if synchronous { "sync" } else { "async" });
        pair
    }

    fn dir(&self, node: &str) -> PathBuf {
        self.root.join(node)
    }

    fn append_conf(&self, node: &str, lines: &str) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(self.dir(node).join("postgresql.conf"))
            .expect("postgresql.conf");
        f.write_all(lines.as_bytes())
            .expect("write postgresql.conf");
    }

    fn pg_ctl_start(&self, node: &str) {
        chown_postgres(&self.root);
        let mut c = pg(&self.bin, "pg_ctl");
        c.arg("-D").arg(self.dir(node)).arg("-l");
        c.arg(self.root.join(format!("{node}.log")));
        c.args(["-w", "-t", "60", "start"]);
        run(c, "pg_ctl start");
    }

    fn url(port: u16, db: &str) -> String {
        format!("postgres://turnpost@127.0.0.1:{port}/{db}")
    }

    fn primary_url(&self, db: &str) -> String {
        Pair::url(self.primary_port, db)
    }

    fn standby_url(&self, db: &str) -> String {
        Pair::url(self.standby_port, db)
    }

    /// What the server is given: both hosts; libpq tries them in turn and keeps the one
    /// that accepts writes.
    fn both_url(&self, db: &str) -> String {
        format!(
            "postgres://turnpost@127.0.0.1:{},127.0.0.1:{}/{db}?target_session_attrs=read-write&connect_timeout=2",
            self.primary_port, self.standby_port
        )
    }

    fn wait_for_replication(&self, sync_state: &str) {
        #[derive(QueryableByName)]
        struct N {
            #[diesel(sql_type = diesel::sql_types::BigInt)]
            n: i64,
        }
        let mut conn =
            PgConnection::establish(&self.primary_url("postgres")).expect("primary connection");
        let start = Instant::now();
        loop {
            let n = diesel::sql_query(
                "SELECT count(*) AS n FROM pg_stat_replication \
                 WHERE state = 'streaming' AND sync_state = $1",
            )
            .bind::<diesel::sql_types::Text, _>(sync_state)
            .get_result::<N>(&mut conn)
            .expect("pg_stat_replication")
            .n;
            if n == 1 {
                return;
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no {sync_state} standby"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The primary's host dies: every process of it is killed at once.
    fn kill_primary(&self) {
        kill_tree(self.postmaster("a"));
    }

    /// The standby falls behind: the primary's WAL sender stands still for `lag` (a slow
    /// or broken link), then the primary dies. A synchronous primary's commits wait
    /// meanwhile; an asynchronous one acknowledges moves the standby never gets. (Stopping
    /// the standby's receiver instead lost nothing: what was sent waited in its socket.)
    fn kill_primary_lagging(&self, lag: Duration) {
        let sender = children(self.postmaster("a"))
            .into_iter()
            .find(|p| {
                std::fs::read(format!("/proc/{p}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains("walsender"))
            })
            .expect("the primary's WAL sender");
        // SAFETY: kill(2) on a process of the primary this test started.
        unsafe { libc::kill(sender, libc::SIGSTOP) };
        std::thread::sleep(lag);
        self.kill_primary();
    }

    /// The pid of `node`'s postmaster.
    fn postmaster(&self, node: &str) -> i32 {
        std::fs::read_to_string(self.dir(node).join("postmaster.pid"))
            .expect("postmaster.pid")
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .expect("pid")
    }

    fn promote(&self) {
        let mut c = pg(&self.bin, "pg_ctl");
        c.arg("-D").arg(self.dir("b")).args(["-w", "promote"]);
        run(c, "pg_ctl promote");
    }
}

impl Drop for Pair {
    fn drop(&mut self) {
        for node in ["a", "b"] {
            let _ = pg(&self.bin, "pg_ctl")
                .arg("-D")
                .arg(self.dir(node))
                .args(["-m", "immediate", "-w", "stop"])
                .output();
        }
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Kills `pid` and its descendants with SIGKILL, as a dying host would: no shutdown, no
/// goodbye to clients. All at once: its process group first (pg_ctl makes the postmaster
/// a group leader), then anything of the tree outside it. (Stopping them one by one let
/// backends commit while the WAL sender already stood still: async runs lost more than a
/// dead host would.)
fn kill_tree(pid: i32) {
    let mut all = vec![pid];
    let mut i = 0;
    while i < all.len() {
        all.extend(children(all[i]));
        i += 1;
    }
    // SAFETY: kill(2) on processes of the clusters this test started.
    unsafe {
        if libc::getpgid(pid) == pid {
            libc::kill(-pid, libc::SIGKILL);
        }
        for p in all {
            libc::kill(p, libc::SIGKILL);
        }
    }
}

/// The processes whose parent is `pid`, from /proc.
fn children(pid: i32) -> Vec<i32> {
    let Ok(rd) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    rd.filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat"))
                .ok()
                .and_then(|s| {
                    let (_, rest) = s.rsplit_once(')')?;
                    rest.split_whitespace().nth(1)?.parse::<i32>().ok()
                })
                == Some(pid)
        })
        .collect()
}

/// A move the server acknowledged (answered 200): its game, the version it made (the
/// `seq` of its row in `game_actions`), and when the answer came.
struct Ack {
    game: i64,
    version: i64,
    at: Instant,
}

/// What the clients saw.
#[derive(Default)]
struct Seen {
    acks: Vec<Ack>,
    statuses: BTreeMap<u16, usize>,
    /// Games that were there and then were not (their creation was acknowledged by a
    /// primary whose standby never got it).
    vanished: BTreeSet<i64>,
    /// Answers that were neither 200, a 409 (a version conflict: a move whose answer was
    /// lost may have been written) nor a 503 problem document.
    bad: Vec<String>,
}

/// Plays game `id` until `stop`, the first seat to act a random legal action, and a new
/// game when it ends.
fn client(app: &TestApp, id: i64, players: &[Player; 2], stop: &AtomicBool, seen: &Mutex<Seen>) {
    let mut id = id;
    let get = |id: i64, p: &Player| {
        app.client
            .get(app.url(&format!("/api/v1/games/{id}")))
            .bearer_auth(&p.token)
            .send()
            .expect("request")
    };
    let note = |status: u16, ct: String, body: String| {
        let mut s = seen.lock().expect("seen");
        *s.statuses.entry(status).or_default() += 1;
        let problem = ct == "application/problem+json";
        if !(status == 409 || (status == 503 && problem)) {
            s.bad.push(format!("{status} {ct}: {body}"));
        }
    };
    while !stop.load(Ordering::Relaxed) {
        let r = get(id, &players[0]);
        if r.status() == 404 {
            seen.lock().expect("seen").vanished.insert(id);
            if let Ok(new) = new_game(app, players) {
                id = new;
            }
            continue;
        }
        if r.status() != 200 {
            let (s, ct) = (r.status().as_u16(), crate::helpers::content_type(&r));
            note(s, ct, r.text().unwrap_or_default());
            std::thread::sleep(Duration::from_millis(50));
            continue;
        }
        let g: Value = r.json().expect("game");
        if g["status"] == "finished" {
            match new_game(app, players) {
                Ok(new) => id = new,
                Err((s, ct, body)) => {
                    note(s, ct, body);
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            continue;
        }
        if g["status"] == "open" {
            // A join the old primary acknowledged and a lagging asynchronous standby never
            // received (what asynchronous replication loses): join again.
            let r = app.post(
                &format!("/api/v1/games/{id}/join"),
                Some(&players[1].token),
                &json!({}),
            );
            if r.status() != 200 {
                let (s, ct) = (r.status().as_u16(), crate::helpers::content_type(&r));
                note(s, ct, r.text().unwrap_or_default());
                std::thread::sleep(Duration::from_millis(50));
            }
            continue;
        }
        let seat = &g["to_act"][0];
        let Some(p) = players.iter().find(|p| {
            g["seats"].as_array().is_some_and(|s| {
                s.iter()
                    .any(|s| &s["seat"] == seat && s["account_id"] == p.id)
            })
        }) else {
            panic!("nobody to act in {g}");
        };
        let r = get(id, p);
        if r.status() != 200 {
            let (s, ct) = (r.status().as_u16(), crate::helpers::content_type(&r));
            note(s, ct, r.text().unwrap_or_default());
            continue;
        }
        let mine: Value = r.json().expect("game");
        let legal = mine["legal_actions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if legal.is_empty() {
            continue;
        }
        let action = &legal[rand::random::<u32>() as usize % legal.len()];
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&p.token),
            &json!({"expected_version": mine["version"], "action": action}),
        );
        let status = r.status().as_u16();
        let ct = crate::helpers::content_type(&r);
        let body = r.text().unwrap_or_default();
        if status == 200 {
            let after: Value = serde_json::from_str(&body).expect("the game after the move");
            let mut s = seen.lock().expect("seen");
            *s.statuses.entry(200).or_default() += 1;
            s.acks.push(Ack {
                game: id,
                version: after["version"].as_i64().expect("version"),
                at: Instant::now(),
            });
        } else {
            note(status, ct, body);
        }
    }
}

/// A new Kasino game of `players`, or the refusal.
fn new_game(app: &TestApp, players: &[Player; 2]) -> Result<i64, (u16, String, String)> {
    let refused = |r: reqwest::blocking::Response| {
        let (s, ct) = (r.status().as_u16(), crate::helpers::content_type(&r));
        (s, ct, r.text().unwrap_or_default())
    };
    let r = app.post(
        "/api/v1/games",
        Some(&players[0].token),
        &json!({"game_type": "kasino", "players": 2, "options": {}}),
    );
    if r.status() != 201 {
        return Err(refused(r));
    }
    let id = r.json::<Value>().expect("json")["id"].as_i64().expect("id");
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&players[1].token),
        &json!({}),
    );
    if r.status() != 200 {
        return Err(refused(r));
    }
    Ok(id)
}

/// A live event reaches a stream opened after the failover: the event listener (`LISTEN`
/// on a connection of its own) found the new primary by itself. Moves are made until one
/// is seen, since those made before the listener is back are announced to nobody (a new
/// game when one ends first).
fn live_events_flow(app: &TestApp, players: &[Player; 2]) {
    use std::io::BufRead;
    use std::sync::mpsc::RecvTimeoutError;
    let mut id = new_game(app, players).expect("a game after the failover");
    let url = app.url(&format!(
        "/api/v1/me/events?ticket={}",
        app.ticket(&players[0].token)
    ));
    let (tx, rx) = std::sync::mpsc::channel::<Value>();
    std::thread::spawn(move || {
        // The stream stays open as long as the test reads it.
        let client = reqwest::blocking::Client::builder()
            .timeout(None)
            .build()
            .expect("client");
        let Ok(resp) = client.get(url).send() else {
            return;
        };
        for line in std::io::BufReader::new(resp).lines() {
            let Ok(line) = line else { break };
            if let Some(d) = line.strip_prefix("data: ")
                && let Ok(v) = serde_json::from_str(d)
                && tx.send(v).is_err()
            {
                break;
            }
        }
    });
    let until = Instant::now() + PATIENCE;
    loop {
        assert!(
            Instant::now() < until,
            "no live event in {PATIENCE:?} after the failover"
        );
        let g = app.game(id, &players[0]);
        if g["status"] == "finished" {
            id = new_game(app, players).expect("a game after the failover");
            continue;
        }
        let seat = &g["to_act"][0];
        let p = players
            .iter()
            .find(|p| {
                g["seats"].as_array().is_some_and(|s| {
                    s.iter()
                        .any(|s| &s["seat"] == seat && s["account_id"] == p.id)
                })
            })
            .expect("a player to act");
        let mine = app.game(id, p);
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&p.token),
            &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
        );
        assert_eq!(r.status(), 200, "a move after the failover");
        // A moment for its event before the next move; an event of any move counts.
        let next_move = Instant::now() + Duration::from_millis(500);
        while let Some(left) = next_move.checked_duration_since(Instant::now()) {
            match rx.recv_timeout(left) {
                Ok(v) if v["id"] == id && v["version"].as_i64() > Some(0) => return,
                Ok(_) => {}
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => panic!("the event stream ended"),
            }
        }
    }
}

/// Waits until the standby at `url` has replayed all the WAL it received: a commit the
/// synchronous primary acknowledged is on the standby's disk, and readable there only once
/// it is replayed. Its startup process then waits because no source has more WAL for it
/// (the primary is dead), which it says. (The last WAL received may end in part of a
/// record, which is never replayed: replay does not always reach what was received.)
fn caught_up(url: &str) {
    #[derive(QueryableByName)]
    struct Replay {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        done: bool,
    }
    let mut conn = PgConnection::establish(url).expect("standby connection");
    let until = Instant::now() + PATIENCE;
    // `RecoveryWalAll` is what PostgreSQL 13 called it.
    while !diesel::sql_query(
        "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE backend_type = 'startup' \
           AND wait_event IN ('RecoveryRetrieveRetryInterval', 'RecoveryWalAll')) AS done",
    )
    .get_result::<Replay>(&mut conn)
    .expect("the standby's startup process")
    .done
    {
        assert!(
            Instant::now() < until,
            "the standby never ran out of WAL to replay"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The `(game, seq)` of every logged action in the database at `url`.
fn logged(url: &str) -> BTreeSet<(i64, i64)> {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        game_id: i64,
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        seq: i64,
    }
    let mut conn = PgConnection::establish(url).expect("connection");
    diesel::sql_query("SELECT game_id, seq FROM game_actions")
        .load::<Row>(&mut conn)
        .expect("game_actions")
        .into_iter()
        .map(|r| (r.game_id, r.seq))
        .collect()
}

/// What one failover run measured.
struct Outcome {
    acked_before: usize,
    /// Acknowledged moves the standby did not have when it was promoted (counted only
    /// where the test promotes it).
    lost: usize,
    /// Games whose creation was acknowledged and that the new primary does not have.
    vanished: usize,
    /// From the primary's death to the first move acknowledged after it.
    without_service: Duration,
    /// From the promotion to the first move acknowledged after it.
    after_promotion: Duration,
}

/// Sets its flag when dropped (also while a panic unwinds).
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// A database that fails over.
struct Setup<'a> {
    name: &'a str,
    /// The server's `DATABASE_URL`, naming every host.
    url: String,
    /// Kills the primary.
    kill: Box<dyn Fn() + 'a>,
    /// The standby's own URL and how to promote it, when the test promotes it (with
    /// pg_auto_failover, its monitor does).
    promote: Option<(String, Box<dyn Fn() + 'a>)>,
    /// How long service may take to come back after the kill.
    patience: Duration,
}

/// Plays, kills the primary, promotes the standby, plays on; checks the server served
/// again, nothing but 200, 409 and 503 problem documents came back, every move the new
/// primary acknowledged is there and the games verify; returns what was acknowledged and
/// lost.
fn failover_run(setup: Setup) -> Outcome {
    let app = spawn_app_on(setup.url.clone(), |s| {
        // The production defaults (the test suite's are for a crowded test cluster).
        s.db_checkout_timeout_ms = 1000;
        s.db_pool_size = 16;
    });
    let games: Vec<(i64, [Player; 2])> = (0..CLIENTS)
        .map(|i| {
            let players = [app.player(&format!("A{i}")), app.player(&format!("B{i}"))];
            let id = app.start_game("kasino", json!({}), &[&players[0], &players[1]]);
            (id, players)
        })
        .collect();
    let stop = AtomicBool::new(false);
    let seen = Mutex::new(Seen::default());
    // Waits until `pred` holds of what the clients saw.
    let wait = |what: &str, pred: &dyn Fn(&Seen) -> bool| {
        let until = Instant::now() + PATIENCE;
        loop {
            let s = seen.lock().expect("seen");
            if pred(&s) {
                return;
            }
            assert!(
                Instant::now() < until,
                "{what}: not in {PATIENCE:?}; answers: {:?}",
                s.statuses
            );
            drop(s);
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let (killed, promoted, back, lost, acked_before) = std::thread::scope(|s| {
        // A failed wait below stops the clients, so that the scope can end.
        let _stop = StopOnDrop(&stop);
        for (id, players) in &games {
            let (app, stop, seen) = (&app, &stop, &seen);
            s.spawn(move || client(app, *id, players, stop, seen));
        }
        wait("the clients playing", &|s| s.acks.len() >= WARM_UP_MOVES);
        let unavailable = seen.lock().expect("seen").statuses.get(&503).copied();
        (setup.kill)();
        let killed = Instant::now();
        let mut lost = 0;
        let acked_before;
        let promoted = match &setup.promote {
            Some((standby, promote)) => {
                // What stands for failure detection (pg_auto_failover's, Patroni's or an
                // operator's): the standby is promoted once the server has found the
                // primary gone (a client was told 503), not after a guessed time.
                wait("a 503 after the kill", &|s| {
                    s.statuses.get(&503).copied() > unavailable
                });
                // Before the promotion nothing can write to the standby: what it holds
                // now is what the old primary sent it, and every move acknowledged so far
                // was acknowledged by the old primary.
                let acked: Vec<(i64, i64)> = seen
                    .lock()
                    .expect("seen")
                    .acks
                    .iter()
                    .map(|a| (a.game, a.version))
                    .collect();
                caught_up(standby);
                let on_standby = logged(standby);
                lost = acked.iter().filter(|a| !on_standby.contains(a)).count();
                acked_before = acked.len();
                promote();
                Instant::now()
            }
            None => {
                acked_before = seen.lock().expect("seen").acks.len();
                killed
            }
        };
        let back = loop {
            let first = seen
                .lock()
                .expect("seen")
                .acks
                .iter()
                .find(|a| a.at > promoted)
                .map(|a| a.at);
            if let Some(at) = first {
                break at;
            }
            assert!(
                promoted.elapsed() < setup.patience,
                "no move acknowledged in {:?} after the failover; answers: {:?}",
                setup.patience,
                seen.lock().expect("seen").statuses
            );
            std::thread::sleep(Duration::from_millis(20));
        };
        // The clients play on for a few moves: those are checked against the new primary.
        wait("moves after the failover", &|s| {
            s.acks.iter().filter(|a| a.at > promoted).count() >= AFTER_MOVES
        });
        stop.store(true, Ordering::Relaxed);
        (killed, promoted, back, lost, acked_before)
    });
    let seen = seen.into_inner().expect("seen");
    assert!(
        seen.bad.is_empty(),
        "answers other than 200, 409, 503 problem: {:#?}",
        seen.bad
    );
    // Every move acknowledged after the promotion is in the new primary (and, without a
    // test promotion to count them before, every one before it too).
    let now = logged(&setup.url);
    let missing = seen
        .acks
        .iter()
        .filter(|a| {
            (a.at > promoted || setup.promote.is_none()) && !now.contains(&(a.game, a.version))
        })
        .count();
    assert_eq!(
        missing, 0,
        "acknowledged moves missing from the new primary"
    );
    let vanished = seen.vanished.len();
    live_events_flow(&app, &games[0].1);
    let report =
        turnpost::domain::verify::verify_all(&setup.url, &turnpost::games::Registry::standard())
            .expect("verify");
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    eprintln!(
        "failover ({}): {} moves acknowledged before the kill, {} of them lost, {} games \
         lost; {:.2} s without service, {:.2} s of it after the promotion; answers: {:?}",
        setup.name,
        acked_before,
        lost,
        vanished,
        (back - killed).as_secs_f64(),
        (back - promoted).as_secs_f64(),
        seen.statuses
    );
    Outcome {
        acked_before,
        lost,
        vanished,
        without_service: back - killed,
        after_promotion: back - promoted,
    }
}

/// A primary and its standby started here, the server's URL naming both.
/// With `lag`, the standby stops receiving that long before the kill.
fn pair_run(pair: &Pair, name: &str, lag: Option<Duration>) -> Outcome {
    turnpost::embedded_pg::create_database(&pair.primary_url("postgres"), "turnpost")
        .expect("create database");
    failover_run(Setup {
        name,
        url: pair.both_url("turnpost"),
        kill: Box::new(move || match lag {
            Some(lag) => pair.kill_primary_lagging(lag),
            None => pair.kill_primary(),
        }),
        promote: Some((pair.standby_url("turnpost"), Box::new(|| pair.promote()))),
        patience: PATIENCE,
    })
}

/// How long the standby stops receiving before the kill, in the lagging runs.
const LAG: Duration = Duration::from_millis(500);

#[test]
fn a_synchronous_standby_promoted_under_load_loses_no_acknowledged_move() {
    for (name, lag) in [
        ("synchronous standby", None),
        ("synchronous standby, lagging", Some(LAG)),
    ] {
        let pair = Pair::start(true);
        let o = pair_run(&pair, name, lag);
        assert!(
            o.acked_before > 0,
            "{name}: moves were played before the kill"
        );
        assert_eq!(o.lost, 0, "{name}: acknowledged moves lost");
        assert_eq!(o.vanished, 0, "{name}: acknowledged games lost");
        assert!(
            o.after_promotion < BACK_WITHIN,
            "{name}: {:?}",
            o.without_service
        );
    }
}

/// What asynchronous replication loses: printed, not asserted (it depends on timing). On
/// loopback the standby is milliseconds behind and usually loses nothing; one that lags
/// loses every move acknowledged since it last received.
#[test]
fn an_asynchronous_standby_promoted_under_load_serves_again_and_says_what_it_lost() {
    for (name, lag) in [
        ("asynchronous standby", None),
        ("asynchronous standby, lagging", Some(LAG)),
    ] {
        let pair = Pair::start(false);
        let o = pair_run(&pair, name, lag);
        assert!(
            o.acked_before > 0,
            "{name}: moves were played before the kill"
        );
        assert!(
            o.after_promotion < BACK_WITHIN,
            "{name}: {:?}",
            o.without_service
        );
    }
}
