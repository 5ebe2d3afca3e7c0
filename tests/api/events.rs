//! Live updates across server nodes: an SSE client on node B hears of a move made through
//! node A, over PostgreSQL LISTEN/NOTIFY.

use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{PATIENCE, spawn_app, spawn_app_on};

#[test]
fn a_move_through_node_a_reaches_an_sse_client_on_node_b_within_seconds() {
    let a_node = spawn_app();
    let b_node = spawn_app_on(a_node.database_url.clone(), |_| {});
    let (ada, bo) = (a_node.player("Ada"), a_node.player("Bo"));
    let id = a_node.start_game("kasino", json!({}), &[&ada, &bo]);
    let g = a_node.game(id, &ada);
    let seat = g["to_act"][0].as_i64().unwrap();
    let (mover, waiter) = if g["seats"][seat as usize]["account_id"] == ada.id {
        (&ada, &bo)
    } else {
        (&bo, &ada)
    };

    // The waiting player listens on node B with a ticket from node A (as a browser's
    // EventSource does: a ticket in the query): any node takes any node's tickets.
    let url = b_node.url(&format!(
        "/api/v1/me/events?ticket={}",
        a_node.ticket(&waiter.token)
    ));
    let (tx, rx) = mpsc::channel::<(Instant, String, String)>();
    std::thread::spawn(move || {
        let resp = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap()
            .get(url)
            .send()
            .unwrap();
        assert_eq!(resp.status(), 200);
        let _ = tx.send((Instant::now(), "open".into(), String::new()));
        let mut event = String::new();
        for line in BufReader::new(resp).lines() {
            let Ok(line) = line else { break };
            if let Some(e) = line.strip_prefix("event: ") {
                event = e.to_string();
            } else if let Some(d) = line.strip_prefix("data: ")
                && tx
                    .send((Instant::now(), event.clone(), d.to_string()))
                    .is_err()
            {
                break;
            }
        }
    });
    let (_, opened, _) = rx.recv_timeout(PATIENCE).unwrap();
    assert_eq!(opened, "open");
    // The stream says `ready` once it is subscribed to node B's live events: a move made
    // after it reaches the stream.
    loop {
        let (_, event, _) = rx.recv_timeout(PATIENCE).expect("the stream's ready");
        if event == "ready" {
            break;
        }
    }

    let mine = a_node.game(id, mover);
    let sent = Instant::now();
    let r = a_node.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&mover.token),
        &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
    );
    assert_eq!(r.status(), 200);
    let mut got = Vec::new();
    while got.len() < 2 {
        let (at, event, data) = rx.recv_timeout(PATIENCE).expect("event");
        let data: Value = serde_json::from_str(&data).unwrap();
        assert_eq!(data["id"], id);
        // The game's start (version 0) may still be on its way to node B.
        if data["version"] == 0 {
            continue;
        }
        assert_eq!(data["version"], 1);
        got.push((event, at.duration_since(sent)));
    }
    assert_eq!(got[0].0, "game_changed");
    assert_eq!(got[1].0, "your_turn");
    // Node B hears at once: its listener naps 25 ms between reads, and this is usually
    // tens of milliseconds. The bound leaves a loaded machine room and still fails a
    // listener that holds notifications for ten seconds or more.
    assert!(got[1].1 < Duration::from_secs(10), "took {:?}", got[1].1);
    eprintln!("node A move → node B SSE: {:?}", got[1].1);

    // Without a token: 401.
    assert_eq!(b_node.get("/api/v1/me/events", None).status(), 401);
}

/// The announcer sends every queued announcement, in order, in batches (more than one
/// statement's worth here), on a new connection when the database ended its session, and
/// what it still holds when told to stop.
#[test]
fn the_announcer_sends_every_queued_event_in_order_and_drains_when_stopped() {
    use diesel::prelude::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    use turnpost::store::announcer::Announcer;

    let app = spawn_app();
    let mut listener = PgConnection::establish(&app.database_url).unwrap();
    diesel::sql_query("LISTEN turnpost_events")
        .execute(&mut listener)
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let (announcer, thread) =
        Announcer::spawn(app.database_url.clone(), Arc::clone(&stop)).unwrap();
    // No game has this id, so the app's own nodes ignore these events.
    let payload = |n: usize| {
        json!({"game": -7, "version": n, "status": "active", "to_act": [],
               "accounts": [], "to_act_accounts": []})
        .to_string()
    };
    let total = 1500;
    for n in 0..total / 2 {
        assert!(announcer.queue(payload(n)).is_ok(), "queue refused {n}");
    }
    // The database ends the announcer's session (as a restart would): it connects again
    // and loses nothing queued after.
    let mut admin = PgConnection::establish(&app.database_url).unwrap();
    let deadline = Instant::now() + PATIENCE;
    let ended = loop {
        let n = diesel::sql_query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
             WHERE query LIKE 'SELECT count(turnpost_announce%' AND pid <> pg_backend_pid()",
        )
        .execute(&mut admin)
        .unwrap();
        if n > 0 || Instant::now() > deadline {
            break n;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(ended > 0, "the announcer's session was never seen");
    for n in total / 2..total {
        assert!(announcer.queue(payload(n)).is_ok(), "queue refused {n}");
    }
    stop.store(true, Ordering::Relaxed);
    thread.join().unwrap();

    let mut got = Vec::new();
    let deadline = Instant::now() + PATIENCE;
    while got.len() < total && Instant::now() < deadline {
        for n in listener.notifications_iter() {
            let n = n.unwrap();
            let v: Value = serde_json::from_str(&n.payload).unwrap();
            if v["game"] == -7 {
                got.push(v["version"].as_u64().unwrap() as usize);
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(got, (0..total).collect::<Vec<_>>());
    // A stopped announcer takes nothing more: the request announces its own.
    assert_eq!(announcer.queue(payload(0)), Err(payload(0)));
    // Nor does one that was never started.
    assert_eq!(Announcer::default().queue(payload(1)), Err(payload(1)));
}
