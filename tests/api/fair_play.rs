//! Fair play under attack: joins and acceptances racing for the same game, private
//! games answered to outsiders exactly as missing ones, ratings that keep private games to
//! their players, kept seats that an unconfirmed sign-up cannot take, tokens kept out of the
//! log, and streams that end when their token is revoked.

use std::io::Read;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::hardening::{free_port, serve};
use crate::helpers::{
    PATIENCE, Player, TestApp, assert_problem, invitation_token, play_random, spawn_app,
};

fn created(app: &TestApp, p: &Player, body: Value) -> i64 {
    let r = app.post("/api/v1/games", Some(&p.token), &body);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    r.json::<Value>().unwrap()["id"].as_i64().unwrap()
}

/// The statuses and codes of `requests` sent all at once, one thread each.
fn at_once(app: &TestApp, requests: Vec<(String, Option<String>)>) -> Vec<(u16, String)> {
    let barrier = std::sync::Barrier::new(requests.len());
    std::thread::scope(|s| {
        let handles: Vec<_> = requests
            .iter()
            .map(|(path, token)| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let r = app.post(path, token.as_deref(), &json!({}));
                    let status = r.status().as_u16();
                    let body: Value = r.json().unwrap_or(Value::Null);
                    (status, body["code"].as_str().unwrap_or("").to_string())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

fn seats(app: &TestApp, id: i64, p: &Player) -> Vec<i64> {
    let g = app.game(id, p);
    g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["account_id"].as_i64().unwrap())
        .collect()
}

/// How many times the game started: its set-up is the log's first entry at most once, and a
/// started game's version is that of its log.
fn assert_started_once(app: &TestApp, id: i64, p: &Player, players: usize) {
    let g = app.game(id, p);
    assert_eq!(g["status"], "active", "{g}");
    let seated = seats(app, id, p);
    assert_eq!(seated.len(), players, "{seated:?}");
    let mut distinct = seated.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(
        distinct.len(),
        players,
        "an account seated twice: {seated:?}"
    );
    let log = app.log(id, p);
    assert_eq!(log.len() as i64, g["version"].as_i64().unwrap(), "{log:?}");
}

#[test]
fn twenty_joins_at_once_seat_each_account_once_and_start_the_game_once() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let others: Vec<Player> = (0..20).map(|i| app.player(&format!("P{i}"))).collect();
    for round in 0..3 {
        // One account twenty times at once: one seat, nineteen refusals, no 5xx.
        let id = created(&app, &ada, json!({"game_type": "kasino", "players": 4}));
        let bo = &others[round];
        let answers = at_once(
            &app,
            (0..20)
                .map(|_| (format!("/api/v1/games/{id}/join"), Some(bo.token.clone())))
                .collect(),
        );
        let ok = answers.iter().filter(|a| a.0 == 200).count();
        assert_eq!(ok, 1, "round {round}: {answers:?}");
        assert!(
            answers
                .iter()
                .all(|a| a.0 == 200 || (a.0 == 409 && a.1 == "already_joined")),
            "round {round}: {answers:?}"
        );
        assert_eq!(seats(&app, id, &ada), [ada.id, bo.id]);

        // Twenty accounts for the three seats of another game: three seated, the game
        // starts exactly once.
        let id = created(&app, &ada, json!({"game_type": "kasino", "players": 4}));
        let answers = at_once(
            &app,
            others
                .iter()
                .map(|p| (format!("/api/v1/games/{id}/join"), Some(p.token.clone())))
                .collect(),
        );
        let ok = answers.iter().filter(|a| a.0 == 200).count();
        assert_eq!(ok, 3, "round {round}: {answers:?}");
        assert!(
            answers
                .iter()
                .all(|a| a.0 == 200 || (a.0 == 409 && a.1 == "game_not_open")),
            "round {round}: {answers:?}"
        );
        assert_started_once(&app, id, &ada, 4);
    }
}

fn fresh_address(name: &str) -> String {
    format!(
        "{name}-{}@example.org",
        hex::encode(rand::random::<[u8; 4]>())
    )
}

#[test]
fn acceptances_and_joins_at_once_fill_each_seat_once_and_start_once() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let signed_in: Vec<Player> = (0..20).map(|i| app.player(&format!("S{i}"))).collect();
    for round in 0..3 {
        let invited: Vec<String> = (0..3)
            .map(|i| fresh_address(&format!("i{round}{i}")))
            .collect();
        let id = created(
            &app,
            &ada,
            json!({"game_type": "kasino", "players": 4, "invite": invited}),
        );
        let links: Vec<String> = invited.iter().map(|a| invitation_token(&app, a)).collect();
        // Twenty at once: each link accepted by signed-in players several times over, and
        // joins that find every free seat kept.
        let requests: Vec<(String, Option<String>)> = signed_in
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let path = match i % 4 {
                    3 => format!("/api/v1/games/{id}/join"),
                    k => format!("/api/v1/invitations/{}/accept", links[k]),
                };
                (path, Some(p.token.clone()))
            })
            .collect();
        let answers = at_once(&app, requests);
        assert!(
            answers.iter().all(|a| a.0 < 500),
            "round {round}: {answers:?}"
        );
        let ok = answers.iter().filter(|a| a.0 == 200).count();
        assert_eq!(ok, 3, "round {round}: {answers:?}");
        assert!(
            answers.iter().all(|a| a.0 == 200
                || ["invitation_closed", "game_not_open", "seats_reserved"]
                    .contains(&a.1.as_str())),
            "round {round}: {answers:?}"
        );
        assert_started_once(&app, id, &ada, 4);
    }
}

#[test]
fn an_outsider_cannot_tell_a_private_game_from_a_missing_one() {
    let app = spawn_app();
    let (ada, bo, eve) = (app.player("Ada"), app.player("Bo"), app.player("Eve"));
    app.confirm_email(&bo);
    let id = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "private": true, "invite": [bo.email]}),
    );
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    for path in [
        "rematch",
        "resume",
        "takeback",
        "takeback/accept",
        "takeback/decline",
    ] {
        let mut seen = Vec::new();
        for game in [id, 987_654_321] {
            let r = app.post(
                &format!("/api/v1/games/{game}/{path}"),
                Some(&eve.token),
                &json!({}),
            );
            let (s, v) = assert_problem(r, path);
            seen.push((
                s,
                v["code"].clone(),
                v["detail"]
                    .as_str()
                    .unwrap()
                    .replace(&game.to_string(), "N"),
            ));
        }
        assert_eq!(
            seen[0], seen[1],
            "{path}: a private game answers as a missing one"
        );
        assert_eq!(
            (seen[0].0, seen[0].1.as_str()),
            (404, Some("game_not_found")),
            "{path}"
        );
    }
}

#[test]
fn ratings_list_a_private_game_only_to_its_players() {
    let app = spawn_app();
    let (ada, bo, eve) = (app.player("Ada"), app.player("Bo"), app.player("Eve"));
    app.confirm_email(&bo);
    let id = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "private": true, "invite": [bo.email]}),
    );
    assert_eq!(
        app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&bo.token),
            &json!({})
        )
        .status(),
        200
    );
    play_random(&app, id, &[&ada, &bo], 7, 5_000);
    let history = |token: Option<&str>| -> Vec<i64> {
        let r = app.get(&format!("/api/v1/accounts/{}/ratings", ada.id), token);
        assert_eq!(r.status(), 200);
        let v: Value = r.json().unwrap();
        assert_eq!(
            v["total"].as_u64().unwrap() as usize,
            v["history"].as_array().unwrap().len()
        );
        v["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["game_id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(history(Some(&ada.token)), [id]);
    assert_eq!(history(Some(&bo.token)), [id]);
    assert!(history(None).is_empty(), "anonymous");
    assert!(history(Some(&eve.token)).is_empty(), "an outsider");
}

/// A token of Mallory's new account under `address`, which she cannot confirm.
fn unconfirmed_account(app: &TestApp, address: &str) -> String {
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": address, "name": "Mallory", "password": "a long enough password"}),
    );
    assert_eq!(r.status(), 201);
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": address, "password": "a long enough password"}),
    );
    r.json::<Value>().unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn an_unconfirmed_sign_up_with_an_invitees_address_gets_neither_the_seat_nor_the_game() {
    let app = spawn_app();
    let (ada, friend) = (app.player("Ada"), app.player("Friend"));
    let address = fresh_address("invitee");
    let id = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "private": true, "invite": [address]}),
    );
    // Mallory signs up with the invitee's address, which she cannot confirm.
    let mallory = unconfirmed_account(&app, &address);
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&mallory),
        &json!({}),
    );
    let (s, v) = assert_problem(r, "unconfirmed join");
    assert_eq!((s, v["code"].as_str()), (404, Some("game_not_found")));
    assert_eq!(
        app.get(&format!("/api/v1/games/{id}"), Some(&mallory))
            .status(),
        404
    );
    // The link alone does not hand the seat to Mallory's account either.
    let link = invitation_token(&app, &address);
    let page = app
        .get(&format!("/api/v1/invitations/{link}"), None)
        .text()
        .unwrap();
    assert!(!page.contains("Accept and play as Mallory"), "{page}");
    let r = app.post(
        &format!("/api/v1/invitations/{link}/accept"),
        None,
        &json!({}),
    );
    let (s, v) = assert_problem(r, "link without sign-in");
    assert_eq!((s, v["code"].as_str()), (409, Some("sign_in_required")));
    // The real invitee, signed in under another address, still has the seat.
    let r = app
        .client
        .post(app.url(&format!("/api/v1/invitations/{link}/accept")))
        .bearer_auth(&friend.token)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(seats(&app, id, &ada), [ada.id, friend.id]);

    // In a public game too, the seat kept for an address is not an unconfirmed account's.
    let address = fresh_address("other");
    let id = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "invite": [address]}),
    );
    let mallory = unconfirmed_account(&app, &address);
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&mallory),
        &json!({}),
    );
    let (s, v) = assert_problem(r, "unconfirmed join of a public game");
    assert_eq!((s, v["code"].as_str()), (409, Some("seats_reserved")));
}

#[test]
fn a_rematch_against_the_computer_is_played_by_the_computer() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let id = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "bots": 1}),
    );
    play_random(&app, id, &[&ada, &ada], 3, 5_000);
    let r = app.post(
        &format!("/api/v1/games/{id}/rematch"),
        Some(&ada.token),
        &json!({}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let new = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    // Rotated: the computer has the first seat now. Whenever the game waits for it, it
    // moves (its seat stays the computer's, not a person's that nobody plays).
    let start = Instant::now();
    let mut mine = 0;
    while mine < 3 {
        let g = app.game(new, &ada);
        assert_eq!(g["seats"][0]["bot"], true, "{g}");
        assert_eq!(g["seats"][1]["bot"], false, "{g}");
        if g["to_act"] == json!([1]) {
            let r = app.post(
                &format!("/api/v1/games/{new}/actions"),
                Some(&ada.token),
                &json!({"expected_version": g["version"], "action": g["legal_actions"][0]}),
            );
            assert_eq!(r.status(), 200);
            mine += 1;
            continue;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the computer never moved: {g}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    let log = app.log(new, &ada);
    assert!(log.iter().any(|e| e["seat"] == 0), "{log:?}");
}

/// Reads the stream `r` until its opening frame `first` (such as `event: ready`) has
/// arrived whole, then on to its end in a thread; the whole text arrives on the channel.
fn opened_and_read_in_background(
    mut r: reqwest::blocking::Response,
    first: &str,
) -> mpsc::Receiver<String> {
    let mut all = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let text = String::from_utf8_lossy(&all);
        if text
            .find(first)
            .is_some_and(|at| text[at..].contains("\n\n"))
        {
            break;
        }
        match r.read(&mut buf) {
            Ok(0) | Err(_) => panic!("the stream ended before its {first:?}: {text}"),
            Ok(n) => all.extend_from_slice(&buf[..n]),
        }
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        loop {
            match r.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => all.extend_from_slice(&buf[..n]),
            }
        }
        let _ = tx.send(String::from_utf8_lossy(&all).into_owned());
    });
    rx
}

#[test]
fn streams_end_within_seconds_once_their_token_is_revoked() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(120))
        .build()
        .unwrap();
    let mine = client
        .get(app.url(&format!(
            "/api/v1/me/events?ticket={}",
            app.ticket(&ada.token)
        )))
        .send()
        .unwrap();
    assert_eq!(mine.status(), 200);
    let game = client
        .get(app.url(&format!("/api/v1/games/{id}/events")))
        .bearer_auth(&ada.token)
        .send()
        .unwrap();
    assert_eq!(game.status(), 200);
    // Each stream is under way (its opening has come) before the password changes.
    let (mine, game) = (
        opened_and_read_in_background(mine, "event: ready"),
        opened_and_read_in_background(game, "event: game_changed"),
    );
    // Bo's streams are not Ada's business: they go on.
    let bos = client
        .get(app.url(&format!(
            "/api/v1/games/{id}/events?ticket={}",
            app.ticket(&bo.token)
        )))
        .send()
        .unwrap();
    assert_eq!(bos.status(), 200);
    let bos = opened_and_read_in_background(bos, "event: game_changed");
    let bo_opened = Instant::now();
    let changed = Instant::now();
    let r = app
        .client
        .patch(app.url("/api/v1/me"))
        .bearer_auth(&ada.token)
        .json(&json!({"password": "a brand new password", "current_password": "correct horse battery"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    for (what, rx) in [("me/events", mine), ("games/{id}/events", game)] {
        let text = rx
            .recv_timeout(PATIENCE)
            .unwrap_or_else(|_| panic!("{what} still open {PATIENCE:?} after the password change"));
        assert!(
            text.ends_with("event: unauthorized\ndata: {\"code\": \"token_revoked\"}\n\n"),
            "{what}: {text}"
        );
    }
    eprintln!(
        "streams closed {:?} after the password change",
        changed.elapsed()
    );
    // A stream checks its token every 5 s, and a check that finds it good leaves nothing
    // to wait for: Bo's stream is given two such checks since it opened (at least one of
    // them after the change) and must still be open. A machine slow enough to delay them
    // makes this pass without them; it never fails a stream that keeps going.
    let checks = bo_opened + Duration::from_secs(10);
    assert!(
        bos.recv_timeout(checks.saturating_duration_since(Instant::now()))
            .is_err(),
        "Bo's stream ended too"
    );
}

#[test]
fn a_token_in_a_query_or_a_link_path_never_reaches_the_log() {
    let app = spawn_app();
    let port = free_port();
    let log = app.settings.var_dir.join("server.log");
    std::fs::create_dir_all(&app.settings.var_dir).unwrap();
    let mut server = serve(
        &[
            ("DATABASE_URL", app.database_url.clone()),
            ("TURNPOST_JWT_SECRET", "x".repeat(40)),
            (
                "TURNPOST_VAR_DIR",
                app.settings.var_dir.display().to_string(),
            ),
            ("RUST_LOG", "info".into()),
            // Sign-up makes the account at once, to sign in with right after.
            ("TURNPOST_REQUIRE_EMAIL_VERIFICATION", "false".into()),
        ],
        port,
        Duration::from_secs(60),
        Some(&log),
    );
    let base = format!("http://127.0.0.1:{port}/api/v1");
    let client = reqwest::blocking::Client::new();
    let r = client
        .post(format!("{base}/accounts"))
        .json(&json!({"email": "logged@example.org", "name": "L", "password": "correct horse battery"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 201);
    let r = client
        .post(format!("{base}/auth/token"))
        .json(&json!({"email": "logged@example.org", "password": "correct horse battery"}))
        .send()
        .unwrap();
    let token = r.json::<Value>().unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    // Requests that fail, with the token in the query (as a browser's EventSource sends it)
    // and secrets in link paths.
    for path in [
        format!("/games/987654/events?access_token={token}"),
        format!("/me/events?access_token={token}&bogus=1"),
        format!("/games/987654?access_token={token}"),
        format!("/invitations/{}", "ab".repeat(32)),
        format!("/calendar/{}.ics", "cd".repeat(32)),
        format!("/sign-ups/{}", "ef".repeat(32)),
    ] {
        let r = client
            .get(format!("{base}{path}"))
            .bearer_auth(&token)
            .send()
            .unwrap();
        assert!(r.status().is_client_error(), "{path}: {}", r.status());
    }
    let _ = server.kill();
    let _ = server.wait();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        text.contains("[redacted]"),
        "the failed requests are logged: {text}"
    );
    for secret in [
        token.as_str(),
        &"ab".repeat(32),
        &"cd".repeat(32),
        &"ef".repeat(32),
    ] {
        assert!(!text.contains(secret), "a secret in the log:\n{text}");
    }
    // The token's signature alone is a secret too.
    let signature = token.rsplit('.').next().unwrap();
    assert!(!text.contains(signature));
}
