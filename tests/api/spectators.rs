//! Watching public games: the game, its log, its picture and a live stream, for someone
//! without a seat and for someone without an account, carrying nothing private.
//!
//! The leak check, for every game type: at points of a random game, the anonymous
//! spectator's answer must equal the spectator's view of the stored state with all hidden
//! information drawn afresh (`resample_hidden`), so it cannot depend on any hand, rack, deck
//! or secret; the picture likewise; and each log entry hidden from some seat must come in
//! its public form.

use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::Duration;

use diesel::prelude::*;
use serde_json::{Value, json};
use turnpost::engine::{GameRng, Viewer};
use turnpost::store::models::{ActionRow, GameRow};
use turnpost::store::schema::{game_actions, games};

use crate::helpers::{PATIENCE, Player, TestApp, assert_problem, play_random, spawn_app};

fn conn(app: &TestApp) -> PgConnection {
    PgConnection::establish(&app.database_url).expect("database")
}

/// One random legal action by a seat the game waits for; false once the game is over.
fn step(app: &TestApp, id: i64, players: &[&Player], rng: &mut GameRng) -> bool {
    let g = app.game(id, players[0]);
    if g["status"] != "active" {
        return false;
    }
    let to_act: Vec<i64> = g["to_act"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    let seat = to_act[rng.below(to_act.len())];
    let account = g["seats"][seat as usize]["account_id"].as_i64().unwrap();
    let p = players.iter().find(|p| p.id == account).unwrap();
    let mine = app.game(id, p);
    let legal = mine["legal_actions"].as_array().unwrap().clone();
    let action = legal[rng.below(legal.len())].clone();
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"expected_version": mine["version"], "action": action}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    true
}

fn text(app: &TestApp, path: &str, token: Option<&str>) -> String {
    let r = app.get(path, token);
    assert_eq!(r.status(), 200, "{path}");
    r.text().unwrap()
}

fn json_of(app: &TestApp, path: &str, token: Option<&str>) -> Value {
    serde_json::from_str(&text(app, path, token)).unwrap()
}

/// What a spectator receives now must not depend on anything hidden from spectators.
fn check_spectator(app: &TestApp, id: i64, outsider: &Player, round: u64) {
    let anon = json_of(app, &format!("/api/v1/games/{id}"), None);
    let watcher = json_of(app, &format!("/api/v1/games/{id}"), Some(&outsider.token));
    assert_eq!(
        anon, watcher,
        "anonymous and seatless spectators see the same"
    );
    assert_eq!(anon["your_seat"], Value::Null);
    assert_eq!(
        anon["legal_actions"],
        json!([]),
        "a spectator has no choices"
    );
    assert_eq!(anon["legal_action_texts"], json!([]));
    let game_type = anon["game_type"].as_str().unwrap().to_string();
    let version = anon["version"].as_i64().unwrap();

    let mut db = conn(app);
    let row: GameRow = games::table
        .find(turnpost::store::kinds::GameId(id))
        .select(GameRow::as_select())
        .first(&mut db)
        .unwrap();
    assert_eq!(row.version, version);
    let registry = turnpost::games::Registry::standard();
    let engine = registry.get(&game_type).unwrap();
    let state = engine.load(row.snapshot.as_deref().unwrap()).unwrap();
    let picture = text(app, &format!("/api/v1/games/{id}/board.svg"), None);
    // The stored state with every hidden part drawn afresh, three times: a spectator's
    // answer that differs from any of them depends on hidden information.
    for k in 0..3u8 {
        let mut seed = [k; 32];
        seed[0] = round as u8;
        let other = state.resample_hidden(Viewer::Spectator, seed);
        assert_eq!(
            anon["view"],
            other.view(Viewer::Spectator),
            "{game_type} at version {version}: the spectator's view depends on hidden information"
        );
        assert_eq!(
            picture,
            other.board_svg(&turnpost::engine::People::new(
                Viewer::Spectator,
                seat_names(&anon)
            )),
            "{game_type} at version {version}: the spectator's picture depends on hidden information"
        );
    }

    // The log: entries hidden from anyone come in their public form, without text.
    let stored: Vec<ActionRow> = game_actions::table
        .filter(game_actions::game_id.eq(turnpost::store::kinds::GameId(id)))
        .order(game_actions::seq.asc())
        .select(ActionRow::as_select())
        .load(&mut db)
        .unwrap();
    let log = json_of(app, &format!("/api/v1/games/{id}/log?limit=1000"), None);
    let log = log.as_array().unwrap();
    assert_eq!(log.len(), stored.len());
    // The log names the people beside the seats the game's words name: without the names,
    // a text is the stored one.
    let seats = json_of(app, &format!("/api/v1/games/{id}"), None)["seats"].clone();
    let unnamed = |text: &str| {
        seats
            .as_array()
            .unwrap()
            .iter()
            .fold(text.to_string(), |t, s| {
                let (name, label) = (
                    s["name"].as_str().unwrap(),
                    s["label"].as_str().unwrap_or(""),
                );
                t.replace(&format!("{name} ({label})"), label)
            })
    };
    for (entry, row) in log.iter().zip(&stored) {
        assert_eq!(entry["seq"], row.seq);
        match &row.public_action {
            Some(public) => {
                // The stored public form, marked as such (a client must not take it for
                // the move itself).
                let mut marked = public.clone();
                if let Some(form) = marked.as_object_mut() {
                    form.insert("redacted".into(), Value::Bool(true));
                }
                assert_eq!(entry["action"], marked, "{game_type}: a private log entry");
                assert_eq!(
                    entry["text"],
                    Value::Null,
                    "{game_type}: a private entry's text"
                );
            }
            None => {
                assert_eq!(entry["action"], row.action);
                assert_eq!(
                    unnamed(entry["text"].as_str().unwrap()),
                    row.description.as_str()
                );
            }
        }
    }
    assert_eq!(
        json_of(
            app,
            &format!("/api/v1/games/{id}/log?limit=1000"),
            Some(&outsider.token)
        )
        .as_array()
        .unwrap(),
        log
    );

    // An earlier version, rebuilt from the log: its view and picture likewise.
    if version > 0 {
        let at = version / 2;
        let before: Vec<ActionRow> = stored.iter().filter(|a| a.seq <= at).cloned().collect();
        let then = app.domain().replay(&row, &before).unwrap();
        let other = then.resample_hidden(Viewer::Spectator, [round as u8 ^ 0x5a; 32]);
        let past = json_of(app, &format!("/api/v1/games/{id}/views/{at}"), None);
        assert_eq!(past["your_seat"], Value::Null);
        assert_eq!(
            past["view"],
            other.view(Viewer::Spectator),
            "{game_type} at {at}"
        );
        assert_eq!(
            text(
                app,
                &format!("/api/v1/games/{id}/board.svg?version={at}"),
                None
            ),
            other.board_svg(&turnpost::engine::People::new(
                Viewer::Spectator,
                seat_names(&anon)
            )),
            "{game_type} picture at {at}"
        );
    }
}

/// Plays `game_type` with random moves and checks the spectator's answers as it goes.
fn watch_random_game(game_type: &str, seats: usize, actions: usize, seed: u64) {
    let app = spawn_app();
    let names = ["Ada", "Bo", "Cy", "Di"];
    let players: Vec<Player> = names[..seats].iter().map(|n| app.player(n)).collect();
    let refs: Vec<&Player> = players.iter().collect();
    let outsider = app.player("Eve");
    let id = app.start_game(game_type, json!({}), &refs);
    let mut rng = GameRng::seed_from_u64(seed);
    check_spectator(&app, id, &outsider, 0);
    for round in 1..=4u64 {
        for _ in 0..actions / 4 {
            if !step(&app, id, &refs, &mut rng) {
                break;
            }
        }
        check_spectator(&app, id, &outsider, round);
    }
}

#[test]
fn a_kasino_spectator_sees_nothing_private_through_to_the_end() {
    watch_random_game("kasino", 2, 16, 1);
    // And a whole game, finished.
    let app = spawn_app();
    let (ada, bo, eve) = (app.player("Ada"), app.player("Bo"), app.player("Eve"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    play_random(&app, id, &[&ada, &bo], 2, 2_000);
    check_spectator(&app, id, &eve, 9);
}

#[test]
fn a_partners_spectator_sees_nothing_private() {
    watch_random_game("partners", 4, 40, 3);
}

#[test]
fn a_crossword_rummy_spectator_sees_nothing_private() {
    watch_random_game("crossword-rummy", 2, 16, 4);
}

#[test]
fn an_sp4x_spectator_sees_nothing_private() {
    watch_random_game("sp4x", 3, 40, 5);
}

#[test]
fn a_space_empires_spectator_sees_nothing_private() {
    watch_random_game("space-empires-4x", 2, 40, 6);
}

#[test]
fn a_fuldrigger_spectator_sees_nothing_private() {
    watch_random_game("fuldrigger", 3, 40, 7);
}

#[test]
fn a_starfarers_spectator_sees_nothing_private() {
    watch_random_game("starfarers", 3, 60, 8);
}

/// Opens a game's event stream; sends each `(event, data)` on the channel.
fn listen(app: &TestApp, id: i64, token: Option<&str>) -> mpsc::Receiver<(String, Value)> {
    let mut url = app.url(&format!("/api/v1/games/{id}/events"));
    if let Some(t) = token {
        url.push_str(&format!("?ticket={}", app.ticket(t)));
    }
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let resp = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap()
            .get(url)
            .send()
            .unwrap();
        assert_eq!(resp.status(), 200);
        let mut event = String::new();
        for line in BufReader::new(resp).lines() {
            let Ok(line) = line else { break };
            if let Some(e) = line.strip_prefix("event: ") {
                event = e.to_string();
            } else if let Some(d) = line.strip_prefix("data: ") {
                let data = serde_json::from_str(d).unwrap_or(Value::Null);
                if tx.send((event.clone(), data)).is_err() {
                    break;
                }
            }
        }
    });
    rx
}

#[test]
fn anyone_may_watch_a_public_game_live_and_nobody_may_act_for_it() {
    let app = spawn_app();
    let (ada, bo, eve) = (app.player("Ada"), app.player("Bo"), app.player("Eve"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let anon = listen(&app, id, None);
    let signed_in = listen(&app, id, Some(&eve.token));
    for rx in [&anon, &signed_in] {
        let (event, data) = rx.recv_timeout(PATIENCE).expect("first");
        assert_eq!(event, "game_changed");
        assert_eq!(data["id"], id);
        assert_eq!(data["version"], 0);
    }
    let mut rng = GameRng::seed_from_u64(11);
    assert!(step(&app, id, &[&ada, &bo], &mut rng));
    let now = app.game(id, &ada);
    for rx in [&anon, &signed_in] {
        let (event, data) = loop {
            let got = rx.recv_timeout(PATIENCE).expect("change");
            if got.1["version"] == 1 {
                break got;
            }
        };
        assert_eq!(event, "game_changed");
        // Only what anyone may know: no accounts, no views.
        let keys: Vec<&String> = data.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["id", "version", "status", "to_act"]);
        assert_eq!(data["to_act"], now["to_act"]);
        assert_eq!(data["status"], "active");
    }

    // Watching is reading: acting, previewing, resigning, nudging need a seat (or a token).
    let path = |p: &str| format!("/api/v1/games/{id}/{p}");
    let action = json!({"expected_version": now["version"], "action": {}});
    assert_eq!(app.post(&path("actions"), None, &action).status(), 401);
    for p in ["actions", "preview", "resign", "nudge"] {
        let body = if p == "preview" {
            json!({"action": {}})
        } else {
            action.clone()
        };
        let (s, v) = assert_problem(app.post(&path(p), Some(&eve.token), &body), p);
        assert_eq!((s, v["code"].as_str()), (403, Some("not_a_player")), "{p}");
    }
    // A bad token is refused, not read as nobody.
    let r = app.get(&format!("/api/v1/games/{id}"), Some("not-a-token"));
    assert_eq!(assert_problem(r, "bad token").0, 401);
    let r = app.get(&format!("/api/v1/games/{id}/events?ticket=nope"), None);
    assert_eq!(assert_problem(r, "bad stream ticket").0, 401);
    // A game that does not exist, for anyone.
    for p in ["", "/log", "/board.svg", "/views/0", "/events"] {
        let r = app.get(&format!("/api/v1/games/999999{p}"), None);
        let (s, v) = assert_problem(r, p);
        assert_eq!(
            (s, v["code"].as_str()),
            (404, Some("game_not_found")),
            "{p}"
        );
    }
    // Huge and negative numbers are 4xx problems.
    for p in [
        "/api/v1/games/99999999999999999999999",
        "/api/v1/games/-1/log",
        &format!("/api/v1/games/{id}/views/99999999999999999999"),
        &format!("/api/v1/games/{id}/views/-5"),
        &format!("/api/v1/games/{id}/board.svg?version=-1"),
        &format!("/api/v1/games/{id}/log?after=-1"),
    ] {
        assert_problem(app.get(p, None), p);
    }
}

/// The players' names by seat, as a game resource lists them (what pictures name them by).
fn seat_names(game: &serde_json::Value) -> Vec<String> {
    let seats = game["seats"].as_array().cloned().unwrap_or_default();
    let count = seats
        .iter()
        .filter_map(|s| s["seat"].as_u64())
        .max()
        .map_or(0, |m| m as usize + 1);
    let mut names = vec![String::new(); count];
    for s in &seats {
        if let (Some(i), Some(n)) = (s["seat"].as_u64(), s["name"].as_str()) {
            names[i as usize] = n.to_string();
        }
    }
    names
}
