//! Playing against the computer: `bots` seats computer players at creation; they move by
//! themselves in the transaction of the move that hands them the turn, marked `[bot]`.

use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app};

#[test]
fn a_game_against_the_computer_starts_at_once_and_the_computer_answers_each_move() {
    let app = spawn_app();
    let ada = app.player("Ada");
    for bad in [json!(2), json!(-1), json!(1e300), json!("one")] {
        let r = app.post(
            "/api/v1/games",
            Some(&ada.token),
            &json!({"game_type": "kasino", "players": 2, "bots": bad}),
        );
        let (s, _) = assert_problem(r, "bad bots");
        assert!(s == 422 || s == 400, "{bad}: {s}");
    }
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "bots": 1}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let g: Value = r.json().unwrap();
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["status"], "active");
    assert_eq!(g["seats"][1]["bot"], true);
    assert_eq!(g["seats"][0]["bot"], false);
    for _ in 0..6 {
        let mine = app.game(id, &ada);
        if mine["status"] != "active" {
            break;
        }
        assert_eq!(
            mine["to_act"],
            json!([0]),
            "the game never waits for the computer"
        );
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&ada.token),
            &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
        );
        assert_eq!(r.status(), 200);
    }
    let log = app.log(id, &ada);
    let by_bot: Vec<&Value> = log.iter().filter(|e| e["seat"] == 1).collect();
    assert!(!by_bot.is_empty());
    assert!(
        by_bot.iter().all(|e| e.to_string().contains("[bot] ")),
        "{by_bot:?}"
    );
    // The computer's account cannot be signed in to.
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": "computer-1@bots.invalid", "password": "!"}),
    );
    assert_eq!(r.status(), 401);
}

/// Under the `bot` timeout policy the computer takes a seat whose time ran out and plays it
/// (marked `[bot]`) until its player takes it back with `POST /games/{id}/resume`.
#[test]
fn the_computer_takes_over_a_timed_out_seat_until_its_player_resumes() {
    use chrono::{Duration, Utc};
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2,
                "time_control": {"days_per_move": 1}, "timeout_policy": "bot"}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    let g = app.game(id, &ada);
    assert_eq!(g["timeout_policy"], "bot");
    let late = g["to_act"][0].as_i64().unwrap();
    let (sleeper, waker) = if late == g["your_seat"].as_i64().unwrap() {
        (&ada, &bo)
    } else {
        (&bo, &ada)
    };
    // Resuming a seat the computer does not play is refused.
    let resume = |p| app.post(&format!("/api/v1/games/{id}/resume"), Some(p), &json!({}));
    let (s, v) = assert_problem(resume(&sleeper.token), "not taken over");
    assert_eq!((s, v["code"].as_str()), (409, Some("seat_not_with_bot")));

    // A day and more passes: the computer takes the seat and moves for it at once.
    let domain = app.domain();
    assert_eq!(
        domain
            .sweep(Utc::now() + Duration::hours(25))
            .unwrap()
            .timeouts,
        1
    );
    let g = app.game(id, sleeper);
    assert_eq!(g["seats"][late as usize]["bot"], true, "{g}");
    assert_eq!(
        g["forfeited"],
        json!([]),
        "the seat is played on, not forfeited"
    );
    let log = app.log(id, sleeper);
    let first = &log[0];
    assert_eq!(first["seat"], late);
    assert!(
        first["text"].as_str().unwrap().starts_with("[bot]"),
        "{first}"
    );

    // The other player moves; the computer answers for the sleeper within the same request.
    for _ in 0..3 {
        let mine = app.game(id, waker);
        if mine["status"] != "active" {
            break;
        }
        assert!(
            !mine["to_act"].as_array().unwrap().contains(&json!(late)),
            "the game never waits for a seat the computer plays: {mine}"
        );
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&waker.token),
            &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
        );
        assert_eq!(r.status(), 200);
    }
    let by_computer = app
        .log(id, waker)
        .iter()
        .filter(|e| e["seat"] == late)
        .count();
    assert!(by_computer >= 2, "the computer played on for the seat");
    let (s, v) = assert_problem(resume(&waker.token), "resuming a seat one plays oneself");
    assert_eq!((s, v["code"].as_str()), (409, Some("seat_not_with_bot")));

    // The sleeper takes the seat back: the game waits for them again.
    let r = resume(&sleeper.token);
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let g: Value = r.json().unwrap();
    assert_eq!(g["seats"][late as usize]["bot"], false);
    // From now on the game waits for the sleeper again (a single choice still plays
    // itself, marked `[forced]`); the computer makes no more moves for the seat.
    let before = app.log(id, sleeper).len();
    let mut waited = g["status"] != "active";
    for _ in 0..20 {
        let mine = app.game(id, waker);
        if mine["status"] != "active" {
            waited = true;
            break;
        }
        if mine["to_act"].as_array().unwrap().contains(&json!(late)) {
            waited = true;
            break;
        }
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&waker.token),
            &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
        );
        assert_eq!(r.status(), 200);
    }
    assert!(waited, "after resume, the game waits for the player");
    let later = app.log(id, sleeper);
    assert!(
        later[before..]
            .iter()
            .all(|e| e["seat"] != late || !e["text"].as_str().unwrap_or("").starts_with("[bot]")),
        "{later:?}"
    );
    let (s, _) = assert_problem(
        app.post(&format!("/api/v1/games/{id}/resume"), None, &json!({})),
        "no credentials",
    );
    assert_eq!(s, 401);
    let stranger = app.player("Cy");
    let (s, _) = assert_problem(resume(&stranger.token), "a stranger");
    assert_eq!(s, 403);
}
