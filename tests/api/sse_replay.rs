//! Live-update ids, replay from `Last-Event-ID`, `resync` and per-stream keep-alives, over
//! real HTTP with an SSE parser.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use diesel::prelude::*;
use serde_json::{Value, json};

use crate::helpers::{PATIENCE, Player, TestApp, spawn_app, spawn_app_with};

/// One dispatched SSE frame (or a comment line).
#[derive(Clone, Debug, Default)]
struct Frame {
    event: String,
    data: String,
    id: Option<String>,
    retry: Option<u64>,
    comment: bool,
}

impl Frame {
    fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
    fn id(&self) -> i64 {
        self.id.as_deref().unwrap().parse().unwrap()
    }
}

/// Opens `path` and parses its frames on a thread; dropping the receiver ends the reader
/// at its next frame.
fn open(app: &TestApp, path: &str, last_event_id: Option<&str>) -> mpsc::Receiver<Frame> {
    let mut req = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap()
        .get(app.url(path));
    if let Some(id) = last_event_id {
        req = req.header("Last-Event-ID", id);
    }
    let resp = req.send().unwrap();
    assert_eq!(resp.status(), 200);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut f = Frame::default();
        for line in BufReader::new(resp).lines() {
            let Ok(line) = line else { break };
            if line.is_empty() {
                if tx.send(std::mem::take(&mut f)).is_err() {
                    break;
                }
            } else if line.starts_with(':') {
                f.comment = true;
            } else if let Some(v) = line.strip_prefix("event: ") {
                f.event = v.into();
            } else if let Some(v) = line.strip_prefix("data: ") {
                f.data = v.into();
            } else if let Some(v) = line.strip_prefix("id: ") {
                f.id = Some(v.into());
            } else if let Some(v) = line.strip_prefix("retry: ") {
                f.retry = v.parse().ok();
            }
        }
    });
    rx
}

fn next(rx: &mpsc::Receiver<Frame>) -> Frame {
    rx.recv_timeout(PATIENCE).expect("a frame")
}

/// Frames up to and including `ready`, which the stream sends once its replay is done.
fn until_ready(rx: &mpsc::Receiver<Frame>) -> (Vec<Frame>, Frame) {
    let first = next(rx);
    assert!(
        first.retry.is_some_and(|ms| ms > 0),
        "retry first: {first:?}"
    );
    let mut before = Vec::new();
    loop {
        let f = next(rx);
        if f.event == "ready" {
            return (before, f);
        }
        before.push(f);
    }
}

/// Makes the next move of game `id`, by whichever of `players` is to act; returns the new
/// version.
fn step(app: &TestApp, id: i64, players: &[&Player]) -> i64 {
    try_step(app, id, players).unwrap_or_else(|| panic!("nobody may move in game {id}"))
}

/// [`step`], or `None` when nobody may move (the game is over).
fn try_step(app: &TestApp, id: i64, players: &[&Player]) -> Option<i64> {
    for p in players {
        let g = app.game(id, p);
        if g["legal_actions"].as_array().is_some_and(|a| !a.is_empty()) {
            let r = app.post(
                &format!("/api/v1/games/{id}/actions"),
                Some(&p.token),
                &json!({"expected_version": g["version"], "action": g["legal_actions"][0]}),
            );
            assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
            // A move may take the game on by more than one version (a deal that follows).
            return app.game(id, p)["version"].as_i64();
        }
    }
    None
}

/// The frames with an id for game `id`, until one of `version`, skipping keep-alives.
fn until_version(rx: &mpsc::Receiver<Frame>, id: i64, version: i64) -> Vec<Frame> {
    let mut got = Vec::new();
    loop {
        let f = next(rx);
        if f.comment || f.event == "lobby_changed" {
            continue;
        }
        let done = f.id.is_some() && f.json()["id"] == id && f.json()["version"] == version;
        got.push(f);
        if done {
            return got;
        }
    }
}

fn events_path(app: &TestApp, p: &Player) -> String {
    format!("/api/v1/me/events?ticket={}", app.ticket(&p.token))
}

/// The frames of game `id` with an id: one per change the player was told of.
fn changes(frames: &[Frame], id: i64) -> Vec<(i64, i64)> {
    frames
        .iter()
        .filter(|f| f.id.is_some() && f.json()["id"] == id && f.event != "ready")
        .map(|f| (f.id(), f.json()["version"].as_i64().unwrap()))
        .collect()
}

#[test]
fn a_client_that_reconnects_with_last_event_id_gets_exactly_what_it_missed_then_live_events() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);

    let rx = open(&app, &events_path(&app, &ada), None);
    let (before, ready) = until_ready(&rx);
    assert!(before.is_empty(), "nothing to replay: {before:?}");
    let cursor = ready.id();
    assert_eq!(ready.json()["last_event_id"], cursor);
    let v1 = step(&app, id, &[&ada, &bo]);
    let seen = until_version(&rx, id, v1);
    let last = seen.last().unwrap().id();
    assert!(last > cursor);
    drop(rx);

    let missed: Vec<i64> = (0..3).map(|_| step(&app, id, &[&ada, &bo])).collect();

    let rx = open(&app, &events_path(&app, &ada), Some(&last.to_string()));
    let (replayed, ready) = until_ready(&rx);
    // A move's announcement may still be on its way when the stream reads what is stored:
    // then it comes live, right after `ready`.
    let mut got = changes(&replayed, id);
    assert_eq!(
        ready.json()["replayed"].as_u64().unwrap() as usize,
        got.len()
    );
    if got.last().map(|g| g.1) != missed.last().copied() {
        got.extend(changes(&until_version(&rx, id, missed[2]), id));
    }
    assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), missed);
    let ids: Vec<i64> = got.iter().map(|g| g.0).collect();
    assert!(ids[0] > last, "{ids:?} after {last}");
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "ids grow: {ids:?}");

    // Then live events, never one sent before.
    let v = step(&app, id, &[&ada, &bo]);
    let live = changes(&until_version(&rx, id, v), id);
    assert_eq!(live.iter().map(|l| l.1).collect::<Vec<_>>(), vec![v]);
    assert!(live[0].0 > ids[2]);

    // The query parameter works as the header does, for a fresh page.
    let rx = open(
        &app,
        &format!("{}&last_event_id={last}", events_path(&app, &ada)),
        None,
    );
    let (replayed, _) = until_ready(&rx);
    let again: Vec<i64> = changes(&replayed, id).iter().map(|g| g.1).collect();
    assert_eq!(again, vec![missed[0], missed[1], missed[2], v]);
}

#[test]
fn an_id_older_than_what_is_kept_or_not_an_id_gets_resync() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let rx = open(&app, &events_path(&app, &ada), None);
    let (_, ready) = until_ready(&rx);
    let old = ready.id();
    drop(rx);
    for _ in 0..3 {
        step(&app, id, &[&ada, &bo]);
    }
    // Wait for the announcements; then a day passes and the sweeper prunes.
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let deadline = Instant::now() + PATIENCE;
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    while diesel::sql_query("SELECT count(*) AS n FROM game_events WHERE id > $1")
        .bind::<diesel::sql_types::BigInt, _>(old)
        .get_result::<N>(&mut conn)
        .unwrap()
        .n
        < 3
    {
        assert!(Instant::now() < deadline, "the moves were never stored");
        std::thread::sleep(Duration::from_millis(50));
    }
    diesel::sql_query("UPDATE game_events SET created_at = now() - interval '25 hours'")
        .execute(&mut conn)
        .unwrap();
    let pruned = turnpost::notify::events::prune(&mut conn).unwrap();
    assert!(pruned >= 2, "pruned {pruned}");

    for bad in [
        old.to_string(),
        "banana".into(),
        "-3".into(),
        "99999999".into(),
    ] {
        let rx = open(&app, &events_path(&app, &ada), Some(&bad));
        let (before, ready) = until_ready(&rx);
        assert_eq!(before.len(), 1, "{bad}: {before:?}");
        assert_eq!(before[0].event, "resync", "{bad}");
        assert!(before[0].id.is_some(), "{bad}");
        assert_eq!(
            before[0].json()["last_event_id"],
            ready.json()["last_event_id"]
        );
    }
}

#[test]
fn an_idle_stream_gets_keep_alives_while_another_game_makes_many_moves() {
    let app = spawn_app_with(|s| s.sse_keep_alive_ms = 700);
    let (ada, bo, cy, di) = (
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Di"),
    );
    let mut busy = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let idle = app.start_game("kasino", json!({}), &[&cy, &di]);
    let rx = open(
        &app,
        &format!(
            "/api/v1/games/{idle}/events?ticket={}",
            app.ticket(&cy.token)
        ),
        None,
    );
    assert!(next(&rx).retry.is_some());
    assert_eq!(next(&rx).event, "game_changed");
    // Moves in the other game wake the idle stream over and over; it still keeps its own
    // time. Moves go on until the keep-alive comes (or for far longer than its interval).
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut moves = 0;
    let got = loop {
        // A finished game makes way for a new one: the moves go on.
        if try_step(&app, busy, &[&ada, &bo]).is_none() {
            busy = app.start_game("kasino", json!({}), &[&ada, &bo]);
        }
        moves += 1;
        match rx.try_recv() {
            Ok(f) => break f,
            Err(_) if Instant::now() > deadline => panic!("no keep-alive after {moves} moves"),
            Err(_) => {}
        }
    };
    assert!(got.comment, "{got:?}");
    assert!(moves > 1, "{moves} moves");
    eprintln!("keep-alive on the idle stream after {moves} moves in the other game");
}

#[test]
fn twenty_clients_reconnecting_at_once_each_get_the_same_missed_events() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let rx = open(&app, &events_path(&app, &ada), None);
    let (_, ready) = until_ready(&rx);
    drop(rx);
    let last = ready.id();
    let versions: Vec<i64> = (0..3).map(|_| step(&app, id, &[&ada, &bo])).collect();
    let app = std::sync::Arc::new(app);
    let threads: Vec<_> = (0..20)
        .map(|_| {
            let app = std::sync::Arc::clone(&app);
            let path = events_path(&app, &ada);
            let versions = versions.clone();
            std::thread::spawn(move || {
                let rx = open(&app, &path, Some(&last.to_string()));
                let (replayed, _) = until_ready(&rx);
                let mut got = changes(&replayed, id);
                if got.last().map(|g| g.1) != versions.last().copied() {
                    got.extend(changes(&until_version(&rx, id, versions[2]), id));
                }
                got
            })
        })
        .collect();
    let mut all = HashSet::new();
    for t in threads {
        let got = t.join().unwrap();
        assert_eq!(got.iter().map(|g| g.1).collect::<Vec<_>>(), versions);
        all.insert(got);
    }
    assert_eq!(all.len(), 1, "every client got the same ids");
}
