//! Games the computer plays much of: a request plays a
//! bounded number of its moves, the background bot worker the rest; Space Empires without
//! a round cap is refused; the Starfarers computer offers a few times a turn and waits for
//! each answer.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::helpers::{
    Player, TestApp, assert_problem, run_verify, spawn_app_with, spawn_app_without_mail,
};

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

/// The creator resigns from a four-seat Starfarers game of computers: were that one request
/// to play the whole game, it would take 5.5 s in production (and a Space Empires game
/// without a cap over ten minutes, long after the client's 408). The answer comes at once,
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
/// the game to them: every one is answered in time, none with a server error. A
/// resignation that held the game row (and its connection) while it played the whole game
/// would leave the requests queued behind it out of connections and time.
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

/// A new Space Empires game needs a round cap: with `null` it may play on for ever. Left
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
/// one the game waits for), and the computer makes at most two a turn, rather than
/// offering and withdrawing thousands of times, each within one request.
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

/// Every option that sets how long a game lasts has bounds a new game must keep: a game of
/// computers with a round cap of 4,000,000,000 played on for hours. Out of range is `422
/// invalid_options` naming the option; the bounds themselves are accepted, and the options
/// schema publishes them.
#[test]
fn options_that_set_a_games_length_are_bounded_at_creation() {
    let app = spawn_app_without_mail();
    let ada = app.player("Ada");
    let mut made = 0;
    for (game_type, players, option, min, max) in [
        ("space-empires-4x", 2, "round_cap", 1, 100),
        ("starfarers", 3, "turn_limit", 1, 300),
        ("partners", 2, "deal_limit", 0, 100),
        ("fuldrigger", 2, "rounds", 1, 200),
        ("crossword-rummy", 2, "games", 1, 20),
    ] {
        let create = |value: Value| {
            app.post(
                "/api/v1/games",
                Some(&ada.token),
                &json!({"game_type": game_type, "players": players, "options": {option: value}}),
            )
        };
        for bad in [json!(max + 1), json!(4_000_000_000u64), json!(min - 1)] {
            let what = format!("{game_type} {option} {bad}");
            let (status, v) = assert_problem(create(bad.clone()), &what);
            assert_eq!(
                (status, v["code"].as_str()),
                (422, Some("invalid_options")),
                "{what}: {v}"
            );
            // A negative number is no number of the option's type at all.
            if bad != json!(-1) {
                assert!(
                    v["detail"].as_str().unwrap_or("").contains(option),
                    "{what}: {v}"
                );
            }
        }
        for good in [min.max(1), max] {
            let r = create(json!(good));
            assert_eq!(
                r.status(),
                201,
                "{game_type} {option} {good}: {}",
                r.text().unwrap_or_default()
            );
            made += 1;
        }
        let t: Value = app
            .get(&format!("/api/v1/game-types/{game_type}"), None)
            .json()
            .unwrap();
        let schema = &t["options_schema"]["properties"][option];
        assert_eq!(schema["maximum"], max, "{game_type}: {schema}");
        assert_eq!(schema["minimum"], min, "{game_type}: {schema}");
    }
    let r = app.get("/api/v1/games?status=open", Some(&ada.token));
    assert_eq!(
        r.json::<Value>().unwrap()["total"],
        made,
        "only the accepted games were made"
    );
}

/// A clock a day and more ahead: what the bot worker sees once the allowance is back.
struct Later(chrono::Duration);

impl turnpost::domain::clocks::Clock for Later {
    fn now(&self) -> chrono::DateTime<chrono::Utc> {
        chrono::Utc::now() + self.0
    }
}

/// Moves the server made by choice in a game (the computer's, and those of seats given up):
/// `[bot]`, or hidden from the reader (only the computer's offers to the computer are).
fn computer_moves(log: &[Value]) -> usize {
    log.iter()
        .filter(|e| match e["text"].as_str() {
            Some(t) => t.starts_with("[bot] "),
            None => true,
        })
        .count()
}

/// An account may have the computer make so many moves a day in the games it created: a
/// game of computers stops there and says so, the account's next game gets no computer
/// move, another account's game is not held back, and a day later the worker plays on.
/// Without the allowance, two such games play thousands of moves an hour for as long as
/// the server runs.
#[test]
fn the_computer_stops_at_its_creators_daily_allowance_and_goes_on_when_it_is_back() {
    const ALLOWANCE: usize = 40;
    let app = spawn_app_with(|s| {
        s.email_senders = turnpost::settings::EmailSenders::Driven;
        s.bot_moves_per_account_per_day = ALLOWANCE as u32;
    });
    let ada = app.player("Ada");
    let bob = app.player("Bob");
    let all_computers = |p: &Player, players: usize| {
        let g = computer_game(&app, p, "starfarers", players, json!({"turn_limit": 200}));
        let id = g["id"].as_i64().unwrap();
        let r = app.post(
            &format!("/api/v1/games/{id}/resign"),
            Some(&p.token),
            &json!({}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        id
    };
    let paused = |g: &Value| g["status"] == "finished" || !g["computer_paused"].is_null();
    let first = all_computers(&ada, 4);
    let g = wait_for(&app, first, &ada, Duration::from_secs(240), paused);
    assert_eq!(
        g["status"], "active",
        "the game ended before the allowance: {g}"
    );
    assert_eq!(g["computer_paused"]["reason"], "daily_allowance", "{g}");
    let until: chrono::DateTime<chrono::Utc> = g["computer_paused"]["until"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let now = chrono::Utc::now();
    assert!(
        until > now && until <= now + chrono::Duration::hours(24),
        "{until}"
    );
    assert_eq!(computer_moves(&app.log(first, &ada)), ALLOWANCE);
    // The worker, driven here, passes the game by: it has nothing else to do.
    let domain = app.domain();
    assert_eq!(
        domain.autoplay_step(&[]).unwrap(),
        turnpost::domain::bot_worker::Stepped::Idle
    );
    assert_eq!(app.game(first, &ada)["version"], g["version"]);
    // Ada's next game waits for the computer from its first move on.
    let second = all_computers(&ada, 3);
    let g2 = wait_for(&app, second, &ada, Duration::from_secs(120), paused);
    assert_eq!(g2["computer_paused"]["reason"], "daily_allowance", "{g2}");
    assert_eq!(computer_moves(&app.log(second, &ada)), 0);
    // Bob's allowance is his own: his game plays up to it.
    let bobs = all_computers(&bob, 3);
    let g3 = wait_for(&app, bobs, &bob, Duration::from_secs(240), paused);
    assert_eq!(g3["status"], "active", "{g3}");
    assert_eq!(computer_moves(&app.log(bobs, &bob)), ALLOWANCE);
    // A day later the allowance is back: the worker plays Ada's games again.
    let mut later = app.domain();
    later.clock = std::sync::Arc::new(Later(chrono::Duration::hours(25)));
    let mut played = std::collections::BTreeSet::new();
    for _ in 0..50 {
        match later.autoplay_step(&[]).unwrap() {
            turnpost::domain::bot_worker::Stepped::Played(id) => {
                played.insert(id.0);
            }
            other => panic!("the worker did not play: {other:?}"),
        }
        if played.contains(&first) && played.contains(&second) {
            break;
        }
    }
    assert!(
        played.contains(&first) && played.contains(&second),
        "{played:?}"
    );
    assert!(computer_moves(&app.log(first, &ada)) > ALLOWANCE);
}
