//! Games the computer plays much of (issue 28, "Runaway requests"): a request plays a
//! bounded number of its moves, the background bot worker the rest; Space Empires without
//! a round cap is refused; the Starfarers computer offers a few times a turn and waits for
//! each answer.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, run_verify, spawn_app_without_mail};

/// How many moves one request may play for the computer, with room for the only choices
/// that play themselves in between (`autoplay::REQUEST_MOVES` is 32).
const MOVES_PER_REQUEST: i64 = 100;

/// Creates a game of `players` seats, all but the creator's played by the computer.
fn computer_game(
    app: &TestApp,
    creator: &Player,
    game_type: &str,
    players: usize,
    options: Value,
) -> Value {
    let r = app.post(
        "/api/v1/games",
        Some(&creator.token),
        &json!({"game_type": game_type, "players": players, "bots": players - 1, "options": options}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    r.json().unwrap()
}

/// Polls the game until `done` holds for it, at most `patience`.
fn wait_for(
    app: &TestApp,
    id: i64,
    p: &Player,
    patience: Duration,
    done: impl Fn(&Value) -> bool,
) -> Value {
    let start = Instant::now();
    loop {
        let g = app.game(id, p);
        if done(&g) {
            return g;
        }
        assert!(
            start.elapsed() < patience,
            "game {id} still at version {} after {patience:?}: {}",
            g["version"],
            g["status"]
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The creator resigns from a four-seat Starfarers game of computers: before, that one
/// request played the whole game (5.5 s in production, and a Space Empires game without a
/// cap for over ten minutes while the client had its 408). Now the answer comes at once,
/// with a bounded number of the computer's moves, and the game plays on to its end.
#[test]
fn an_all_computer_game_answers_the_resignation_at_once_and_still_finishes() {
    let app = spawn_app_without_mail();
    let ada = app.player("Ada");
    let g = computer_game(&app, &ada, "starfarers", 4, json!({"turn_limit": 16}));
    let id = g["id"].as_i64().unwrap();
    let before = app.game(id, &ada)["version"].as_i64().unwrap();
    let started = Instant::now();
    let r = app.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&ada.token),
        &json!({}),
    );
    let took = started.elapsed();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let after: Value = r.json().unwrap();
    let played = after["version"].as_i64().unwrap() - before;
    eprintln!("the resignation took {took:?} and played {played} moves in the request");
    assert!(
        played <= MOVES_PER_REQUEST,
        "the request played {played} moves itself"
    );
    // The background worker plays the rest.
    let done = wait_for(&app, id, &ada, Duration::from_secs(240), |g| {
        g["status"] == "finished"
    });
    assert!(done["version"].as_i64().unwrap() > after["version"].as_i64().unwrap());
    let log = app.log(id, &ada);
    // An offer between two computers is hidden from Ada (its text is left out for her).
    let by_server = |e: &&Value| match e["text"].as_str() {
        Some(t) => t.starts_with("[bot] ") || t.starts_with("[forced] "),
        None => e["seat"] != 0,
    };
    assert!(
        log.iter().skip(before as usize).all(|e| by_server(&e)),
        "after the resignation only the server moved"
    );
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}

/// Twenty requests at once on a game of computers, among them the resignation that hands
/// the game to them: every one is answered in time, none with a server error. Before,
/// the resignation held the game row (and its connection) while it played the whole game,
/// and the requests queued behind it ran out of connections and time.
#[test]
fn twenty_requests_at_once_on_a_computer_game_get_no_server_error() {
    let app = spawn_app_without_mail();
    let ada = app.player("Ada");
    let g = computer_game(&app, &ada, "starfarers", 4, json!({}));
    let id = g["id"].as_i64().unwrap();
    let version = g["version"].clone();
    let results: Vec<(String, u16, Duration)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let (app, ada, version) = (&app, &ada, version.clone());
                s.spawn(move || {
                    let started = Instant::now();
                    let (what, r) = match i % 5 {
                        0 => ("resign", app.post(&format!("/api/v1/games/{id}/resign"), Some(&ada.token), &json!({}))),
                        1 => ("read", app.get(&format!("/api/v1/games/{id}"), Some(&ada.token))),
                        2 => ("log", app.get(&format!("/api/v1/games/{id}/log"), Some(&ada.token))),
                        3 => (
                            "move",
                            app.post(
                                &format!("/api/v1/games/{id}/actions"),
                                Some(&ada.token),
                                &json!({"expected_version": version, "action": {"type": "end_turn"}}),
                            ),
                        ),
                        _ => ("nudge", app.post(&format!("/api/v1/games/{id}/nudge"), Some(&ada.token), &json!({}))),
                    };
                    (what.to_string(), r.status().as_u16(), started.elapsed())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (what, status, took) in &results {
        assert!(
            *status < 500 && *status != 408,
            "{what}: {status} after {took:?}: {results:?}"
        );
    }
    assert_eq!(
        results
            .iter()
            .filter(|(w, s, _)| w == "resign" && *s == 200)
            .count(),
        1,
        "one resignation stands, the others are refused: {results:?}"
    );
    let g = app.game(id, &ada);
    assert_eq!(g["forfeited"], json!([0]));
}

/// A new Space Empires game needs a round cap: `null` played on for ever (issue 28). Left
/// out, it is the default of 20; a number is kept.
#[test]
fn space_empires_without_a_round_cap_is_refused_at_creation() {
    let app = spawn_app_without_mail();
    let ada = app.player("Ada");
    let create = |options: Value| {
        app.post(
            "/api/v1/games",
            Some(&ada.token),
            &json!({"game_type": "space-empires-4x", "players": 3, "bots": 2, "options": options}),
        )
    };
    let (s, v) = assert_problem(create(json!({"round_cap": null})), "round_cap null");
    assert_eq!(s, 422);
    assert_eq!(v["code"], "invalid_options");
    assert_eq!(v["rule_code"], "round_cap_required");
    assert!(
        v["detail"].as_str().unwrap_or("").contains("round_cap"),
        "{v}"
    );
    let r = app.get("/api/v1/games?status=active", Some(&ada.token));
    assert_eq!(
        r.json::<Value>().unwrap()["total"],
        0,
        "nothing was created"
    );
    let r = create(json!({}));
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    assert_eq!(r.json::<Value>().unwrap()["options"]["round_cap"], 20);
    let r = create(json!({"round_cap": 2}));
    assert_eq!(r.status(), 201);
    assert_eq!(r.json::<Value>().unwrap()["options"]["round_cap"], 2);
}

/// A person against two computers in Starfarers, playing random legal moves: every offer
/// the computer makes stays open until its recipient answered it (the person is then the
/// one the game waits for), and the computer makes at most two a turn. Before, it offered
/// and withdrew thousands of times, each within one request.
#[test]
fn the_starfarers_computer_waits_for_the_answer_to_each_offer() {
    let app = spawn_app_without_mail();
    let ada = app.player("Ada");
    let g = computer_game(&app, &ada, "starfarers", 3, json!({"turn_limit": 15}));
    let id = g["id"].as_i64().unwrap();
    let mut rng = turnpost::engine::GameRng::seed_from_u64(28);
    let mut answered = 0;
    for _ in 0..400 {
        let g = wait_for(&app, id, &ada, Duration::from_secs(120), |g| {
            g["status"] == "finished" || g["to_act"].as_array().unwrap().contains(&json!(0))
        });
        if g["status"] == "finished" {
            break;
        }
        let legal = g["legal_actions"].as_array().unwrap().clone();
        assert!(!legal.is_empty(), "awaited without a choice: {g}");
        // Offers of the person's own are left out: the computer does not answer those.
        let choices: Vec<&Value> = legal
            .iter()
            .filter(|a| a["type"] != "offer_trade")
            .collect();
        let action = choices[rng.below(choices.len())].clone();
        if action["type"] == "accept_offer" || action["type"] == "decline_offer" {
            answered += 1;
        }
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&ada.token),
            &json!({"expected_version": g["version"], "action": action}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    }
    let log = app.log(id, &ada);
    let mut offers = 0;
    let mut this_turn = std::collections::HashMap::new();
    for (i, e) in log.iter().enumerate() {
        let (seat, kind) = (
            e["seat"].as_i64().unwrap(),
            e["action"]["type"].as_str().unwrap_or(""),
        );
        if kind == "roll" {
            this_turn.insert(seat, 0);
        }
        if kind != "offer_trade" || seat == 0 {
            continue;
        }
        offers += 1;
        let n = this_turn.entry(seat).or_insert(0);
        *n += 1;
        assert!(*n <= 2, "seat {seat} made offer {n} in one turn: {e}");
        let to = e["action"]["to"].as_i64().unwrap();
        // An offer still open at the end of the log has not been answered yet.
        let Some(next) = log.get(i + 1) else {
            continue;
        };
        assert_eq!(
            next["seat"], to,
            "the recipient acts next on an open offer: {e} then {next}"
        );
        let answer = next["action"]["type"].as_str().unwrap_or("");
        assert!(
            answer == "accept_offer" || answer == "decline_offer",
            "{e} then {next}"
        );
    }
    eprintln!("{offers} offers by the computer, {answered} answered by the person");
    assert!(offers > 0, "the computer made no offer at all");
}
