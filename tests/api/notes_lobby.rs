//! Private notes, reliability records, join requirements, lobby filters and the
//! cap on games an account holds.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, play_random, spawn_app, spawn_app_with};

fn note_put(
    app: &TestApp,
    id: i64,
    token: Option<&str>,
    body: &Value,
) -> reqwest::blocking::Response {
    let mut r = app
        .client
        .put(app.url(&format!("/api/v1/games/{id}/note")))
        .json(body);
    if let Some(t) = token {
        r = r.bearer_auth(t);
    }
    r.send().unwrap()
}

fn note_get(app: &TestApp, id: i64, token: Option<&str>) -> reqwest::blocking::Response {
    app.get(&format!("/api/v1/games/{id}/note"), token)
}

fn code(r: reqwest::blocking::Response, what: &str) -> (u16, String) {
    let (status, v) = assert_problem(r, what);
    (status, v["code"].as_str().unwrap_or_default().to_string())
}

#[test]
fn a_note_is_seen_by_its_author_alone() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let carl = app.player("Carl");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);

    // Nothing written yet.
    let r = note_get(&app, id, Some(&ada.token));
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(
        (v["body"].clone(), v["updated_at"].clone()),
        (json!(""), Value::Null)
    );

    let text = "<script>alert(1)</script> & keep the tens\nline two\ttabbed";
    let r = note_put(&app, id, Some(&ada.token), &json!({"body": text}));
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let v: Value = note_get(&app, id, Some(&ada.token)).json().unwrap();
    assert_eq!(v["body"], text, "stored as written, HTML and all");
    assert!(v["updated_at"].is_string());

    // The opponent has their own (empty) note, and never sees Ada's.
    let v: Value = note_get(&app, id, Some(&bo.token)).json().unwrap();
    assert_eq!(v["body"], "");
    // The game itself does not carry it either.
    let g = app
        .get(&format!("/api/v1/games/{id}"), Some(&bo.token))
        .text()
        .unwrap();
    assert!(!g.contains("keep the tens"));

    // A spectator, a stranger without a token, a game that does not exist.
    assert_eq!(
        code(note_get(&app, id, Some(&carl.token)), "spectator"),
        (403, "not_a_player".into())
    );
    assert_eq!(
        code(
            note_put(&app, id, Some(&carl.token), &json!({"body": "x"})),
            "spectator put"
        ),
        (403, "not_a_player".into())
    );
    assert_eq!(
        code(note_get(&app, id, None), "no token"),
        (401, "unauthorized".into())
    );
    assert_eq!(
        code(note_get(&app, 999_999_999, Some(&ada.token)), "no game"),
        (404, "game_not_found".into())
    );

    // A private game is not even admitted to exist to an outsider.
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "private": true}),
    );
    assert_eq!(r.status(), 201);
    let private = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        code(note_get(&app, private, Some(&carl.token)), "private"),
        (404, "game_not_found".into())
    );
    assert_eq!(note_get(&app, private, Some(&ada.token)).status(), 200);

    // Bad notes change nothing.
    for (bad, what) in [
        (json!({"body": "a\u{0}b"}), "NUL"),
        (json!({"body": "abc\u{202E}def"}), "right-to-left override"),
        (json!({"body": "\u{2066}isolate"}), "isolate"),
        (json!({"body": "bell\u{7}"}), "control"),
        (json!({"body": "x".repeat(4001)}), "too long"),
    ] {
        assert_eq!(
            code(note_put(&app, id, Some(&ada.token), &bad), what),
            (422, "invalid_note".into()),
            "{what}"
        );
    }
    for (bad, what) in [
        (json!({"text": "x"}), "wrong member"),
        (json!({"body": 5}), "a number"),
        (json!("x"), "a string"),
        (Value::Null, "null"),
    ] {
        let (status, _) = code(note_put(&app, id, Some(&ada.token), &bad), what);
        assert!(status == 400 || status == 422, "{what}: {status}");
    }
    let r = app
        .client
        .put(app.url(&format!("/api/v1/games/{id}/note")))
        .bearer_auth(&ada.token)
        .header("Content-Type", "application/json")
        .body("{\"body\": \"unterminated")
        .send()
        .unwrap();
    let (status, _) = code(r, "garbage");
    assert!(status == 400 || status == 422);
    let v: Value = note_get(&app, id, Some(&ada.token)).json().unwrap();
    assert_eq!(v["body"], text, "refused writes changed nothing");

    // 4000 characters (not bytes) are fine; an empty note deletes it.
    let long = "é".repeat(4000);
    assert_eq!(
        note_put(&app, id, Some(&ada.token), &json!({"body": long})).status(),
        200
    );
    assert_eq!(
        note_put(&app, id, Some(&ada.token), &json!({"body": ""})).status(),
        200
    );
    let v: Value = note_get(&app, id, Some(&ada.token)).json().unwrap();
    assert_eq!(
        (v["body"].clone(), v["updated_at"].clone()),
        (json!(""), Value::Null)
    );
}

#[test]
fn twenty_notes_written_at_once_leave_one_of_them() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let url = app.url(&format!("/api/v1/games/{id}/note"));
    let written: Vec<String> = (0..20).map(|i| format!("plan number {i}")).collect();
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let handles: Vec<_> = written
            .iter()
            .map(|w| {
                let client = app.client.clone();
                let url = url.clone();
                let token = ada.token.clone();
                s.spawn(move || {
                    client
                        .put(url)
                        .bearer_auth(token)
                        .json(&json!({"body": w}))
                        .send()
                        .unwrap()
                        .status()
                        .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(statuses.iter().all(|&s| s == 200), "{statuses:?}");
    let v: Value = note_get(&app, id, Some(&ada.token)).json().unwrap();
    let body = v["body"].as_str().unwrap();
    assert!(written.iter().any(|w| w == body), "{body:?}");

    // The migration that keeps notes will not go down while one exists.
    use diesel::Connection;
    let mut conn = diesel::PgConnection::establish(&app.database_url).unwrap();
    let err = crate::helpers::revert_until_refused(&mut conn);
    assert!(format!("{err:#}").contains("private game notes"), "{err:#}");
}

fn reliability(app: &TestApp, p: &Player) -> Value {
    let r = app.get(&format!("/api/v1/accounts/{}/reliability", p.id), None);
    assert_eq!(r.status(), 200);
    r.json().unwrap()
}

fn figures(v: &Value) -> (i64, i64, i64, Option<i64>) {
    (
        v["games_finished"].as_i64().unwrap(),
        v["resigned"].as_i64().unwrap(),
        v["lost_on_time"].as_i64().unwrap(),
        v["share"].as_i64(),
    )
}

fn resign(app: &TestApp, id: i64, p: &Player) {
    let r = app.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&p.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

#[test]
fn reliability_counts_finished_resigned_and_timed_out_games() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let carl = app.player("Carl");
    assert_eq!(figures(&reliability(&app, &ada)), (0, 0, 0, None));
    assert_eq!(
        code(
            app.get("/api/v1/accounts/999999999/reliability", None),
            "no account"
        ),
        (404, "not_found".into())
    );

    // Played to the end.
    let played = app.start_game("kasino", json!({}), &[&ada, &bo]);
    play_random(&app, played, &[&ada, &bo], 7, 2000);
    assert_eq!(figures(&reliability(&app, &ada)), (1, 0, 0, Some(100)));
    assert_eq!(figures(&reliability(&app, &bo)), (1, 0, 0, Some(100)));

    // Bo resigns.
    let resigned = app.start_game("kasino", json!({}), &[&ada, &bo]);
    resign(&app, resigned, &bo);
    // The result names the people beside their seats, as each reader knows them.
    let g = app.game(resigned, &ada);
    let label = |name: &str| {
        g["seats"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .and_then(|s| s["label"].as_str())
            .unwrap()
            .to_string()
    };
    let (a, b) = (label("Ada"), label("Bo"));
    let summary = |g: Value| {
        g["result"]["summary"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        summary(g.clone()),
        format!("Bo ({b}) resigned; you ({a}) win")
    );
    assert_eq!(
        summary(app.game(resigned, &bo)),
        format!("You ({b}) resigned; Ada ({a}) wins")
    );
    assert_eq!(
        summary(app.game(resigned, &carl)),
        format!("Bo ({b}) resigned; Ada ({a}) wins")
    );
    assert_eq!(figures(&reliability(&app, &bo)), (2, 1, 0, Some(50)));
    assert_eq!(figures(&reliability(&app, &ada)), (2, 0, 0, Some(100)));

    // On a one-day clock, whoever is to move lets it run out.
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "time_control": {"days_per_move": 1}, "timeout_policy": "forfeit"}),
    );
    assert_eq!(r.status(), 201);
    let clocked = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        app.post(
            &format!("/api/v1/games/{clocked}/join"),
            Some(&carl.token),
            &json!({})
        )
        .status(),
        200
    );
    let seat = app.game(clocked, &ada)["to_act"][0].as_u64().unwrap();
    let report = app
        .domain()
        .sweep(Utc::now() + Duration::hours(25))
        .unwrap();
    assert_eq!(report.timeouts, 1);
    let (late, other) = if seat == 0 {
        (&ada, &carl)
    } else {
        (&carl, &ada)
    };
    let late_figures = figures(&reliability(&app, late));
    assert_eq!(late_figures.2, 1, "lost on time: {late_figures:?}");
    if late.id == ada.id {
        assert_eq!(late_figures, (3, 0, 1, Some(66)));
        assert_eq!(figures(&reliability(&app, other)), (1, 0, 0, Some(100)));
    } else {
        assert_eq!(late_figures, (1, 0, 1, Some(0)));
        assert_eq!(figures(&reliability(&app, other)), (3, 0, 0, Some(100)));
    }

    // The lobby shows each open game's creator's share.
    let r = app.post(
        "/api/v1/games",
        Some(&bo.token),
        &json!({"game_type": "kasino", "players": 2}),
    );
    assert_eq!(r.status(), 201);
    let open = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    let lobby: Value = app
        .get("/api/v1/games?open=true", Some(&carl.token))
        .json()
        .unwrap();
    let item = lobby["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == open)
        .unwrap();
    assert_eq!(item["creator_reliability"], 50);
}

fn create(app: &TestApp, p: &Player, body: Value) -> i64 {
    let r = app.post("/api/v1/games", Some(&p.token), &body);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    r.json::<Value>().unwrap()["id"].as_i64().unwrap()
}

#[test]
fn a_creator_may_ask_a_reliability_and_a_rating_of_those_who_join() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let carl = app.player("Carl");
    // Bo resigns a game: a share of 0.
    let g = app.start_game("kasino", json!({}), &[&ada, &bo]);
    resign(&app, g, &bo);

    let join = |id: i64, p: &Player| {
        app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&p.token),
            &json!({}),
        )
    };
    let picky = create(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 3, "min_reliability": 60}),
    );
    let lobby: Value = app
        .get("/api/v1/games?open=true", Some(&carl.token))
        .json()
        .unwrap();
    let item = lobby["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == picky)
        .unwrap();
    assert_eq!(
        item["requirements"],
        json!({"min_reliability": 60, "min_rating": null})
    );
    assert_eq!(
        code(join(picky, &bo), "unreliable"),
        (403, "join_requirement_not_met".into())
    );
    // A newcomer has nothing against them.
    assert_eq!(join(picky, &carl).status(), 200);

    // Everyone unrated counts 1500.
    let strong = create(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "min_rating": 1600}),
    );
    let dan = app.player("Dan");
    assert_eq!(
        code(join(strong, &dan), "rating"),
        (403, "join_requirement_not_met".into())
    );
    let fine = create(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "min_rating": 1400}),
    );
    assert_eq!(join(fine, &dan).status(), 200);

    for (bad, what) in [
        (
            json!({"game_type": "kasino", "players": 2, "min_reliability": 101}),
            "share above 100",
        ),
        (
            json!({"game_type": "kasino", "players": 2, "min_reliability": -1}),
            "negative share",
        ),
        (
            json!({"game_type": "kasino", "players": 2, "min_rating": 4001}),
            "rating too high",
        ),
    ] {
        assert_eq!(
            code(app.post("/api/v1/games", Some(&ada.token), &bad), what),
            (422, "invalid_requirement".into())
        );
    }
    let (status, _) = code(
        app.post(
            "/api/v1/games",
            Some(&ada.token),
            &json!({"game_type": "kasino", "players": 2, "min_rating": "high"}),
        ),
        "a word",
    );
    assert!(status == 400 || status == 422);
}

#[test]
fn the_lobby_filters_by_type_players_clock_and_rating() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let k2 = create(&app, &ada, json!({"game_type": "kasino", "players": 2}));
    let k3 = create(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 3, "time_control": {"days_per_move": 2}}),
    );
    let rummy = create(
        &app,
        &ada,
        json!({"game_type": "crossword-rummy", "players": 2}),
    );
    let ids = |q: &str| -> Vec<i64> {
        let r = app.get(&format!("/api/v1/games?open=true{q}"), Some(&bo.token));
        assert_eq!(r.status(), 200, "{q}: {}", r.text().unwrap_or_default());
        let mut v: Vec<i64> = r.json::<Value>().unwrap()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["id"].as_i64().unwrap())
            .collect();
        v.sort_unstable();
        v
    };
    assert_eq!(ids(""), vec![k2, k3, rummy]);
    assert_eq!(ids("&game_type=kasino"), vec![k2, k3]);
    assert_eq!(ids("&players=3"), vec![k3]);
    assert_eq!(ids("&clock=true"), vec![k3]);
    assert_eq!(ids("&clock=false"), vec![k2, rummy]);
    assert_eq!(ids("&game_type=kasino&clock=false&players=2"), vec![k2]);
    assert_eq!(ids("&min_rating=1400&max_rating=1600"), vec![k2, k3, rummy]);
    assert_eq!(ids("&min_rating=1600"), Vec::<i64>::new());
    assert_eq!(ids("&max_rating=1499"), Vec::<i64>::new());
    // A range with nothing in it lists nothing.
    assert_eq!(ids("&min_rating=2000&max_rating=1000"), Vec::<i64>::new());
    // The next page keeps the filters.
    let r: Value = app
        .get(
            "/api/v1/games?open=true&game_type=kasino&per_page=1",
            Some(&bo.token),
        )
        .json()
        .unwrap();
    let next = r["next"].as_str().unwrap();
    assert!(next.contains("game_type=kasino"), "{next}");

    for q in [
        "game_type=chess",
        "players=abc",
        "players=0",
        "players=17",
        "clock=maybe",
        "min_rating=-5",
        "max_rating=99999999999",
    ] {
        let r = app.get(&format!("/api/v1/games?open=true&{q}"), Some(&bo.token));
        assert_eq!(code(r, q), (422, "invalid_filter".into()), "{q}");
    }
}

#[test]
fn an_account_holds_at_most_the_allowed_unfinished_games() {
    let app = spawn_app_with(|s| s.max_active_games_per_account = 2);
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let carl = app.player("Carl");
    let a1 = create(&app, &ada, json!({"game_type": "kasino", "players": 2}));
    create(&app, &ada, json!({"game_type": "kasino", "players": 2}));
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2}),
    );
    let (status, v) = assert_problem(r, "third game");
    assert_eq!(
        (status, v["code"].clone(), v["limit"].clone()),
        (409, json!("too_many_active_games"), json!(2))
    );
    let list: Value = app.get("/api/v1/games", Some(&ada.token)).json().unwrap();
    assert_eq!(
        (
            list["your_active_games"].clone(),
            list["max_active_games"].clone()
        ),
        (json!(2), json!(2))
    );

    // Bo holds two already: joining a third is refused too.
    create(&app, &bo, json!({"game_type": "kasino", "players": 2}));
    create(&app, &bo, json!({"game_type": "kasino", "players": 2}));
    assert_eq!(
        code(
            app.post(
                &format!("/api/v1/games/{a1}/join"),
                Some(&bo.token),
                &json!({})
            ),
            "join"
        ),
        (409, "too_many_active_games".into())
    );
    // Carl may; and once the game is over, Ada may start another.
    assert_eq!(
        app.post(
            &format!("/api/v1/games/{a1}/join"),
            Some(&carl.token),
            &json!({})
        )
        .status(),
        200
    );
    resign(&app, a1, &carl);
    create(&app, &ada, json!({"game_type": "kasino", "players": 2}));

    // Twenty creations at once by a fresh account, at a cap of 2: exactly two get through.
    let dee = app.player("Dee");
    let statuses: Vec<u16> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..20)
            .map(|_| {
                sc.spawn(|| {
                    app.post(
                        "/api/v1/games",
                        Some(&dee.token),
                        &json!({"game_type": "kasino", "players": 2}),
                    )
                    .status()
                    .as_u16()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let made = statuses.iter().filter(|s| **s == 201).count();
    let refused = statuses.iter().filter(|s| **s == 409).count();
    assert_eq!((made, refused), (2, 18), "{statuses:?}");
}
