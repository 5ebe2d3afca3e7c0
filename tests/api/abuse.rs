//! Abuse resistance: what one account (or none) may do to others through the
//! server. Invitations cannot be used to mail strangers; the bearer scheme is read as
//! HTTP defines it.

use serde_json::{Value, json};

use crate::helpers::{
    PATIENCE, Player, TestApp, assert_problem, spawn_app, spawn_app_with, wait_for_outbox_settled,
};

fn invitation_mails_to(app: &TestApp, address: &str) -> usize {
    app.mails()
        .iter()
        .filter(|m| {
            m.to.eq_ignore_ascii_case(address) && m.subject.starts_with("[Turnpost] An invitation")
        })
        .count()
}

fn create(app: &TestApp, p: &Player, invite: &[&str]) -> reqwest::blocking::Response {
    app.post(
        "/api/v1/games",
        Some(&p.token),
        &json!({"game_type": "kasino", "players": 4, "invite": invite}),
    )
}

#[test]
fn an_unconfirmed_account_invites_nobody_and_no_free_text_reaches_a_subject() {
    let app = spawn_app_with(|s| s.require_email_verification = true);
    let ada = app.unconfirmed_player("Ada");
    let r = app
        .client
        .patch(app.url("/api/v1/me"))
        .bearer_auth(&ada.token)
        .json(&json!({"name": "Cheap pills at pills.example"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let stranger = "stranger@example.org";
    let (s, v) = assert_problem(create(&app, &ada, &[stranger]), "unconfirmed inviter");
    assert_eq!((s, v["code"].as_str()), (403, Some("email_unconfirmed")));
    let mine: Value = app.get("/api/v1/games", Some(&ada.token)).json().unwrap();
    assert_eq!(mine["total"], 0, "no game was made");
    app.confirm_email(&ada);
    assert_eq!(create(&app, &ada, &[stranger]).status(), 201);
    let mails = app.wait_for_mails("the invitation", |m| m.iter().any(|m| m.to == stranger));
    let mail = mails.iter().find(|m| m.to == stranger).unwrap();
    assert_eq!(mail.subject, "[Turnpost] An invitation to play Kasino");
    assert!(
        mail.text.contains("Cheap pills"),
        "the name is in the body: {}",
        mail.text
    );
}

#[test]
fn invite_and_leave_cycles_mail_an_address_once() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let victim = "victim@example.org";
    let mut answers = Vec::new();
    for _ in 0..20 {
        let r = create(&app, &ada, &[victim]);
        let status = r.status().as_u16();
        let body: Value = r.json().unwrap();
        if status == 201 {
            let id = body["id"].as_i64().unwrap();
            let r = app.post(
                &format!("/api/v1/games/{id}/leave"),
                Some(&ada.token),
                &json!({}),
            );
            assert_eq!(r.status(), 204, "leave");
        } else {
            assert_eq!(status, 429, "{body}");
            assert!(
                body["detail"].as_str().unwrap().contains("did not answer"),
                "{body}"
            );
        }
        answers.push((status, body["code"].as_str().unwrap_or("").to_string()));
    }
    assert_eq!(
        answers.iter().filter(|a| a.0 == 201).count(),
        1,
        "{answers:?}"
    );
    assert!(
        answers[1..].iter().all(|a| a.1 == "invitee_not_answering"),
        "{answers:?}"
    );
    // Every email queued is sent or dropped: counting mails counts what went out.
    wait_for_outbox_settled(&app);
    assert!(invitation_mails_to(&app, victim) <= 1);
    // Another inviter is not held to Ada's silence, but the address's daily limit holds
    // for everyone together.
    let others: Vec<Player> = (0..5).map(|i| app.player(&format!("O{i}"))).collect();
    let codes: Vec<(u16, String)> = others
        .iter()
        .map(|p| {
            let r = create(&app, p, &[victim]);
            let s = r.status().as_u16();
            (
                s,
                r.json::<Value>().unwrap()["code"]
                    .as_str()
                    .unwrap_or("")
                    .to_string(),
            )
        })
        .collect();
    assert_eq!(codes.iter().filter(|c| c.0 == 201).count(), 2, "{codes:?}");
    assert!(
        codes
            .iter()
            .all(|c| c.0 == 201 || (c.0 == 429 && c.1 == "invitee_invited_enough")),
        "{codes:?}"
    );
}

#[test]
fn an_account_sends_at_most_twenty_invitations_a_day() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let mut sent = 0;
    for game in 0..6 {
        let addresses: Vec<String> = (0..3)
            .map(|i| format!("friend{game}{i}@example.org"))
            .collect();
        let refs: Vec<&str> = addresses.iter().map(String::as_str).collect();
        assert_eq!(create(&app, &ada, &refs).status(), 201);
        sent += 3;
    }
    assert_eq!(sent, 18);
    let r = create(
        &app,
        &ada,
        &["a@example.org", "b@example.org", "c@example.org"],
    );
    assert!(r.headers().contains_key("retry-after"));
    let (s, v) = assert_problem(r, "21 invitations");
    assert_eq!((s, v["code"].as_str()), (429, Some("too_many_invitations")));
    // Two more fit.
    assert_eq!(
        create(&app, &ada, &["a@example.org", "b@example.org"]).status(),
        201
    );
}

#[test]
fn twenty_invitations_of_one_address_at_once_stay_within_its_limit() {
    let app = spawn_app();
    let inviters: Vec<Player> = (0..20).map(|i| app.player(&format!("I{i}"))).collect();
    let target = "popular@example.org";
    let barrier = std::sync::Barrier::new(inviters.len());
    let answers: Vec<(u16, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = inviters
            .iter()
            .map(|p| {
                let (app, barrier) = (&app, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    let r = create(app, p, &[target]);
                    let status = r.status().as_u16();
                    let v: Value = r.json().unwrap_or(Value::Null);
                    (status, v["code"].as_str().unwrap_or("").to_string())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        answers.iter().filter(|a| a.0 == 201).count(),
        3,
        "{answers:?}"
    );
    assert!(
        answers
            .iter()
            .all(|a| a.0 == 201 || (a.0 == 429 && a.1 == "invitee_invited_enough")),
        "{answers:?}"
    );
    app.wait_for_mails("three invitations", |m| {
        m.iter().filter(|m| m.to == target).count() >= 3
    });
    // Every email queued is sent or dropped: counting mails counts what went out.
    wait_for_outbox_settled(&app);
    assert_eq!(invitation_mails_to(&app, target), 3);
}

#[test]
fn the_bearer_scheme_is_case_insensitive() {
    let app = spawn_app();
    let ada = app.player("Ada");
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let r = app
            .client
            .get(app.url("/api/v1/me"))
            .header("authorization", format!("{scheme} {}", ada.token))
            .send()
            .unwrap();
        assert_eq!(r.status(), 200, "{scheme}");
    }
    for header in [
        format!("Basic {}", ada.token),
        format!("Bearer{}", ada.token),
        "Bearer".to_string(),
        "Bearer ".to_string(),
    ] {
        let r = app
            .client
            .get(app.url("/api/v1/me"))
            .header("authorization", header.clone())
            .send()
            .unwrap();
        assert_eq!(r.status(), 401, "{header}");
    }
}

/// Event streams of anonymous watchers can use up the server's file descriptors (977
/// streams under a 1,024 limit), after which nobody can sign in or read a game. So the node
/// refuses streams beyond what its limit leaves after a reserve, and everything else goes
/// on. The real binary under `ulimit -n 600`: 88 streams at most (600 − 512).
#[test]
fn a_flood_of_streams_is_refused_before_the_server_runs_out_of_descriptors() {
    use crate::hardening::free_port;
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let port = free_port();
    let mut server = Command::new("bash")
        .arg("-c")
        .arg(format!(
            "ulimit -n 600 && exec {} serve",
            env!("CARGO_BIN_EXE_turnpost")
        ))
        .env("DATABASE_URL", &app.database_url)
        .env("TURNPOST_BIND", format!("127.0.0.1:{port}"))
        .env("TURNPOST_JWT_SECRET", "x".repeat(40))
        .env(
            "TURNPOST_VAR_DIR",
            app.settings.var_dir.display().to_string(),
        )
        .env("TURNPOST_MAX_EVENT_STREAMS_PER_ADDRESS", "100000")
        .env("RUST_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the server");
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    let start = Instant::now();
    while client.get(format!("{base}/healthz")).send().is_err() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the server did not come up"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let mut open = Vec::new();
    let mut refused = Vec::new();
    // Bounded: at most 300 streams, within 2 minutes.
    for _ in 0..300 {
        assert!(start.elapsed() < Duration::from_secs(120));
        let r = client
            .get(format!("{base}/api/v1/games/{id}/events"))
            .send()
            .expect("the server answers every stream request");
        if r.status() == 200 {
            open.push(r);
        } else {
            let status = r.status().as_u16();
            assert!(r.headers().contains_key("retry-after"));
            let v: Value = r.json().unwrap();
            refused.push((status, v["code"].as_str().unwrap_or("").to_string()));
            if refused.len() >= 20 {
                break;
            }
        }
    }
    assert_eq!(open.len(), 88, "600 descriptors less the reserve of 512");
    assert!(
        refused
            .iter()
            .all(|r| *r == (503, "streams_full".to_string())),
        "{refused:?}"
    );
    // With every stream place taken, the server still does all the rest.
    assert_eq!(
        client
            .get(format!("{base}/healthz"))
            .send()
            .unwrap()
            .status(),
        200
    );
    let r = client
        .post(format!("{base}/api/v1/auth/token"))
        .json(&json!({"email": ada.email, "password": "correct horse battery"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // This server signs its own tokens.
    let token = r.json::<Value>().unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let r = client
        .get(format!("{base}/api/v1/games/{id}"))
        .bearer_auth(&token)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    // A closed stream gives its place back.
    open.truncate(80);
    let deadline = Instant::now() + PATIENCE;
    loop {
        let r = client
            .get(format!("{base}/api/v1/games/{id}/events"))
            .send()
            .unwrap();
        if r.status() == 200 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "closed streams never gave their places back"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn one_address_holds_a_bounded_number_of_streams() {
    let app = spawn_app_with(|s| s.max_event_streams_per_address = 5);
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let client = reqwest::blocking::Client::builder()
        .timeout(std::time::Duration::from_secs(20))
        .build()
        .unwrap();
    let mut open = Vec::new();
    for _ in 0..5 {
        let r = client
            .get(app.url(&format!("/api/v1/games/{id}/events")))
            .send()
            .unwrap();
        assert_eq!(r.status(), 200);
        open.push(r);
    }
    let r = client
        .get(app.url(&format!(
            "/api/v1/me/events?ticket={}",
            app.ticket(&ada.token)
        )))
        .send()
        .unwrap();
    assert!(r.headers().contains_key("retry-after"));
    let (s, v) = assert_problem(r, "sixth stream");
    assert_eq!((s, v["code"].as_str()), (429, Some("too_many_streams")));
    assert_eq!(app.get("/healthz", None).status(), 200);
}

/// One account holds a game's row (a runaway request, here a session holding the lock for
/// twelve seconds) and fifteen nudges wait on it: were each to hold a pooled connection,
/// every other user would get 503 for as long as the row is held. So lock waits end after
/// 5 s (`409 resource_busy`), and requests that change games wait for their turn without a
/// connection, so the pool keeps a reserve for everyone else.
#[test]
fn requests_waiting_on_a_held_game_leave_connections_for_everyone_else() {
    use diesel::{Connection, PgConnection, RunQueryDsl};
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let other = app.start_game("kasino", json!({}), &[&cy, &bo]);
    // Another session takes the game's row and keeps it.
    let mut holder = Command::new("psql")
        .arg(&app.database_url)
        .arg("-c")
        .arg(format!(
            "BEGIN; SELECT id FROM games WHERE id = {id} FOR UPDATE; SELECT pg_sleep(12); COMMIT;"
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("psql");
    // The row is held once a look that skips locked rows finds nothing.
    let mut watch = PgConnection::establish(&app.database_url).expect("connect");
    let until = Instant::now() + PATIENCE;
    loop {
        let free = diesel::sql_query(format!(
            "SELECT id FROM games WHERE id = {id} FOR UPDATE SKIP LOCKED"
        ))
        .execute(&mut watch)
        .expect("look at the game's row");
        if free == 0 {
            break;
        }
        assert!(Instant::now() < until, "psql never took the game's row");
        std::thread::sleep(Duration::from_millis(20));
    }
    drop(watch);
    let started = Instant::now();
    let (nudges, others) = std::thread::scope(|s| {
        let nudges: Vec<_> = (0..15)
            .map(|_| {
                let app = &app;
                let token = if rand::random::<bool>() {
                    &ada.token
                } else {
                    &bo.token
                };
                s.spawn(move || {
                    let r = app.post(
                        &format!("/api/v1/games/{id}/nudge"),
                        Some(token),
                        &json!({}),
                    );
                    let status = r.status().as_u16();
                    let v: Value = r.json().unwrap_or(Value::Null);
                    (status, v["code"].as_str().unwrap_or("").to_string())
                })
            })
            .collect();
        // Meanwhile everyone else: sign-ins, reads of another game, readiness.
        let mut others = Vec::new();
        // Ten seconds of the hold, and at least seven rounds however slowly a loaded
        // machine answers them.
        while started.elapsed() < Duration::from_secs(10) || others.len() < 21 {
            let login = app.post(
                "/api/v1/auth/token",
                None,
                &json!({"email": cy.email, "password": "correct horse battery"}),
            );
            others.push(("login", login.status().as_u16()));
            others.push((
                "read",
                app.get(&format!("/api/v1/games/{other}"), Some(&cy.token))
                    .status()
                    .as_u16(),
            ));
            others.push(("readyz", app.get("/readyz", None).status().as_u16()));
            std::thread::sleep(Duration::from_millis(300));
        }
        let nudges: Vec<(u16, String)> = nudges.into_iter().map(|h| h.join().unwrap()).collect();
        (nudges, others)
    });
    let _ = holder.wait();
    assert!(
        others.iter().all(|o| o.1 == 200),
        "others were refused: {others:?}"
    );
    // Each nudge is answered: waited out (resource_busy), refused for the usual reasons
    // (not the other's turn, too soon), queued, or told the server is busy.
    assert!(
        nudges
            .iter()
            .all(|n| n.0 < 500 || (n.0 == 503 && n.1 == "busy")),
        "{nudges:?}"
    );
    assert!(nudges.iter().any(|n| n.1 == "resource_busy"), "{nudges:?}");
    // Once the row is free, the game is played on.
    let g = app.game(id, &ada);
    let seat = g["to_act"][0].as_i64().unwrap();
    let mover = if seat == g["your_seat"].as_i64().unwrap() {
        &ada
    } else {
        &bo
    };
    let g = app.game(id, mover);
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&mover.token),
        &json!({"expected_version": g["version"], "action": g["legal_actions"][0]}),
    );
    assert_eq!(r.status(), 200);
}
