//! Stream tickets: a browser's `EventSource` cannot send a header, and a token never goes
//! in a URL. A ticket opens event streams and nothing else, for a minute; the stream it
//! opened lives while the token it was issued for is good.

use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app};

/// Opens `path` without a header; sends each line read on the channel.
fn stream(app: &TestApp, path: &str) -> (u16, mpsc::Receiver<String>) {
    let resp = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
        .get(app.url(path))
        .send()
        .unwrap();
    let status = resp.status().as_u16();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(resp).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    (status, rx)
}

/// Lines until one that starts with `prefix`, within `secs`.
fn until(rx: &mpsc::Receiver<String>, prefix: &str, secs: u64) -> Option<String> {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    while let Some(left) = deadline.checked_duration_since(std::time::Instant::now()) {
        match rx.recv_timeout(left) {
            Ok(line) if line.starts_with(prefix) => return Some(line),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
    None
}

#[test]
fn a_ticket_opens_streams_and_nothing_else_and_a_token_in_the_url_is_refused() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);

    // A token in the URL is refused on both streams, valid or not, before anything else.
    for path in [
        format!("/api/v1/me/events?access_token={}", ada.token),
        format!("/api/v1/games/{id}/events?access_token={}", ada.token),
        "/api/v1/me/events?access_token=nope".to_string(),
    ] {
        let (s, v) = assert_problem(app.get(&path, None), &path);
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("token_in_url")),
            "{path}"
        );
    }

    let r = app.post("/api/v1/me/stream-tickets", Some(&ada.token), &Value::Null);
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["cache-control"], "no-store");
    let v: Value = r.json().unwrap();
    assert_eq!(v["expires_in"], 60);
    let ticket = v["ticket"].as_str().unwrap().to_string();

    // It opens both streams, as Ada.
    let (s, rx) = stream(&app, &format!("/api/v1/me/events?ticket={ticket}"));
    assert_eq!(s, 200);
    assert!(until(&rx, "event: ready", 120).is_some());
    let (s, _) = stream(&app, &format!("/api/v1/games/{id}/events?ticket={ticket}"));
    assert_eq!(s, 200);

    // It is no token anywhere else, not even for another ticket.
    for path in [
        "/api/v1/me",
        "/api/v1/games",
        &format!("/api/v1/games/{id}"),
    ] {
        let (s, v) = assert_problem(app.get(path, Some(&ticket)), path);
        assert_eq!(
            (s, v["code"].as_str()),
            (401, Some("unauthorized")),
            "{path}"
        );
    }
    let r = app.post("/api/v1/me/stream-tickets", Some(&ticket), &Value::Null);
    assert_eq!(assert_problem(r, "ticket for a ticket").0, 401);

    // Garbage and a ticket altered by one character are refused.
    let mut altered = ticket.clone().into_bytes();
    let last = altered.len() - 2;
    altered[last] = if altered[last] == b'A' { b'B' } else { b'A' };
    let altered = String::from_utf8(altered).unwrap();
    for bad in ["nope", "", "a.b.c", altered.as_str()] {
        let path = format!("/api/v1/me/events?ticket={bad}");
        let (s, v) = assert_problem(app.get(&path, None), &path);
        assert_eq!(
            (s, v["code"].as_str()),
            (401, Some("unauthorized")),
            "{bad}"
        );
    }
    // Neither a ticket nor a header: 401 on the account's stream.
    let (s, _) = assert_problem(app.get("/api/v1/me/events", None), "no credentials");
    assert_eq!(s, 401);
}

#[test]
fn a_ticket_needs_a_play_token_and_dies_with_the_token_it_was_issued_for() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let make = |scopes: &[&str]| -> (i64, String) {
        let r = app.post(
            "/api/v1/me/tokens",
            Some(&ada.token),
            &json!({"name": "stream", "scopes": scopes}),
        );
        assert_eq!(r.status(), 201);
        let v: Value = r.json().unwrap();
        (
            v["id"].as_i64().unwrap(),
            v["token"].as_str().unwrap().into(),
        )
    };
    // An `account` token cannot get one.
    let (_, account) = make(&["account"]);
    let r = app.post("/api/v1/me/stream-tickets", Some(&account), &Value::Null);
    let (s, v) = assert_problem(r, "account token");
    assert_eq!((s, v["code"].as_str()), (403, Some("insufficient_scope")));

    // A `play` token's ticket opens a stream; revoking the token ends the stream and
    // refuses the ticket, though it is still within its minute.
    let (pat_id, play) = make(&["play"]);
    let ticket = app.ticket(&play);
    let (s, rx) = stream(&app, &format!("/api/v1/me/events?ticket={ticket}"));
    assert_eq!(s, 200);
    assert!(until(&rx, "event: ready", 120).is_some());
    let r = app
        .client
        .delete(app.url(&format!("/api/v1/me/tokens/{pat_id}")))
        .bearer_auth(&ada.token)
        .send()
        .unwrap();
    assert_eq!(r.status(), 204);
    assert!(
        until(&rx, "event: unauthorized", 120).is_some(),
        "the stream goes on after its token was revoked"
    );
    let path = format!("/api/v1/me/events?ticket={ticket}");
    let (s, _) = assert_problem(app.get(&path, None), "revoked parent");
    assert_eq!(s, 401);

    // A login token signed out: the same.
    let login = app.token_for(&ada.email, "correct horse battery");
    let ticket = app.ticket(&login);
    let r = app.post("/api/v1/auth/logout", Some(&login), &Value::Null);
    assert_eq!(r.status(), 204);
    let path = format!("/api/v1/games?ticket={ticket}");
    assert_eq!(app.get(&path, None).status(), 401);
    let path = format!("/api/v1/me/events?ticket={ticket}");
    let (s, _) = assert_problem(app.get(&path, None), "signed-out parent");
    assert_eq!(s, 401);
}

#[test]
fn twenty_ticket_requests_at_once_all_get_a_working_ticket() {
    let app = std::sync::Arc::new(spawn_app());
    let ada = app.player("Ada");
    let threads: Vec<_> = (0..20)
        .map(|_| {
            let app = std::sync::Arc::clone(&app);
            let token = ada.token.clone();
            std::thread::spawn(move || {
                let r = app.post("/api/v1/me/stream-tickets", Some(&token), &Value::Null);
                assert_eq!(r.status(), 200);
                r.json::<Value>().unwrap()["ticket"]
                    .as_str()
                    .unwrap()
                    .to_string()
            })
        })
        .collect();
    let tickets: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    // The stream limit per client address is what bounds them, not the tickets.
    for t in tickets.iter().take(3) {
        let path = format!("/api/v1/me/events?ticket={t}");
        let (s, rx) = stream(&app, &path);
        assert_eq!(s, 200);
        assert!(until(&rx, "event: ready", 120).is_some());
    }
}
