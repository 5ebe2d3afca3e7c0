//! A full Kasino game over HTTP between two accounts, using only `legal_actions`.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, forced_moves, run_verify, spawn_app};

/// Every string anywhere in a JSON value (cards serialise as strings like "10H").
pub fn strings(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// The cards of the seat's own hand in its view.
pub fn hand(game: &Value) -> BTreeSet<String> {
    game["view"]["your_hand"]
        .as_array()
        .expect("a player's view shows their hand")
        .iter()
        .filter_map(|c| c.as_str().map(String::from))
        .collect()
}

/// Fails if anything `seen` contains one of the cards in `secret_hand`.
fn assert_no_leak(what: &str, seen: &Value, secret_hand: &BTreeSet<String>) {
    let mut found = BTreeSet::new();
    strings(seen, &mut found);
    let leaked: Vec<&String> = secret_hand.intersection(&found).collect();
    assert!(
        leaked.is_empty(),
        "{what} shows the opponent's cards {leaked:?}"
    );
}

fn log(app: &TestApp, id: i64, p: &Player) -> Value {
    let r = app.get(&format!("/api/v1/games/{id}/log"), Some(&p.token));
    assert_eq!(r.status(), 200);
    r.json().unwrap()
}

fn submit(
    app: &TestApp,
    id: i64,
    p: Option<&Player>,
    version: i64,
    action: &Value,
) -> reqwest::blocking::Response {
    app.post(
        &format!("/api/v1/games/{id}/actions"),
        p.map(|p| p.token.as_str()),
        &json!({"expected_version": version, "action": action}),
    )
}

fn code(r: reqwest::blocking::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    (status, r.json().unwrap())
}

#[test]
fn a_full_kasino_game_over_http() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let dee = app.player("Dee");
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let mut rng = turnpost::engine::GameRng::seed_from_u64(2026);

    let mut turn_changes = 0usize;
    let mut previous_to_act: Vec<i64> = Vec::new();
    let mut moves = 0usize;
    let mut checked = [0usize; 5];
    loop {
        let ga = app.game(id, &ada);
        let gb = app.game(id, &bo);
        let to_act: Vec<i64> = ga["to_act"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_i64)
            .collect();
        turn_changes += to_act
            .iter()
            .filter(|s| !previous_to_act.contains(s))
            .count();
        previous_to_act = to_act.clone();
        if ga["status"] == "finished" {
            assert!(
                ga["result"]["ranking"]
                    .as_array()
                    .is_some_and(|r| r.len() == 2)
            );
            break;
        }
        assert!(moves < 2_000, "the game did not finish");
        // Neither player's view nor log shows the other's hand.
        let (ha, hb) = (hand(&ga), hand(&gb));
        assert_no_leak("Ada's view", &ga, &hb);
        assert_no_leak("Bo's view", &gb, &ha);
        // The log spans rounds, and cards played in an earlier round are dealt again in a
        // later one: compare the log with the hand only within the first round.
        if moves.is_multiple_of(10) && ga["view"]["round"] == 1 {
            assert_no_leak("Ada's log", &log(&app, id, &ada), &hb);
            assert_no_leak("Bo's log", &log(&app, id, &bo), &ha);
            assert_no_leak(
                "a spectator's view",
                &app.game(id, &dee),
                &ha.union(&hb).cloned().collect(),
            );
        }

        let seat = to_act[0] as usize;
        let (p, q, mine, other_hand) = if seat == 0 {
            (&ada, &bo, &ga, &hb)
        } else {
            (&bo, &ada, &gb, &ha)
        };
        let version = mine["version"].as_i64().unwrap();
        let legal = mine["legal_actions"].as_array().unwrap().clone();
        assert!(!legal.is_empty());
        assert_eq!(
            mine["legal_action_texts"].as_array().unwrap().len(),
            legal.len()
        );
        let q_game = if seat == 0 { &gb } else { &ga };
        assert_eq!(
            q_game["legal_actions"],
            json!([]),
            "the waiting player has nothing to submit"
        );

        // The errors, every few moves, each leaving the game unchanged.
        if moves.is_multiple_of(7) {
            let (s, body) = code(submit(&app, id, Some(q), version, &legal[0]));
            assert_eq!((s, body["code"].as_str()), (409, Some("not_your_turn")));
            checked[0] += 1;
            if version > 0 {
                let (s, body) = code(submit(&app, id, Some(p), version - 1, &legal[0]));
                assert_eq!((s, body["code"].as_str()), (409, Some("stale_version")));
                assert_eq!(body["current_version"], version);
                checked[1] += 1;
            }
            if let Some(card) = other_hand.iter().next() {
                let (s, body) = code(submit(
                    &app,
                    id,
                    Some(p),
                    version,
                    &json!({"type": "trail", "card": card}),
                ));
                assert_eq!((s, body["code"].as_str()), (409, Some("illegal_action")));
                assert!(body["rule_code"].is_string());
                checked[2] += 1;
            }
            let (s, body) = code(submit(&app, id, Some(&dee), version, &legal[0]));
            assert_eq!((s, body["code"].as_str()), (403, Some("not_a_player")));
            let (s, _) = code(submit(&app, id, None, version, &legal[0]));
            assert_eq!(s, 401);
            let (s, body) = code(submit(
                &app,
                id,
                Some(p),
                version,
                &json!({"type": "juggle"}),
            ));
            assert_eq!((s, body["code"].as_str()), (422, Some("malformed_action")));
            checked[3] += 1;
            assert_eq!(
                app.game(id, p)["version"],
                version,
                "refused submissions change nothing"
            );
        }

        let action = legal[rng.below(legal.len())].clone();
        let r = submit(&app, id, Some(p), version, &action);
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        let tag = r.headers()["etag"].to_str().unwrap().to_string();
        let after: Value = r.json().unwrap();
        // One version for the move, and one for each move the server then played for a
        // seat whose only choice it was.
        let now = after["version"].as_i64().unwrap();
        assert!(now > version, "{now} after {version}");
        // The turn came back to the mover (the opponent's only choice played itself): a
        // new turn of theirs, owed an email like any other.
        if after["status"] == "active"
            && after["to_act"]
                .as_array()
                .is_some_and(|t| t.contains(&after["your_seat"]))
        {
            turn_changes += 1;
        }
        assert!(tag.starts_with(&format!("\"{now}-")), "{tag}");
        // A move the server then played for the opponent (their only choice) may have put
        // one of their cards on the table: what is still in their hand must not show.
        let still_hidden: BTreeSet<String> = hand(&app.game(id, q))
            .intersection(other_hand)
            .cloned()
            .collect();
        assert_no_leak("the mover's response", &after, &still_hidden);
        moves += 1;
        checked[4] += 1;
    }
    assert!(
        checked.iter().all(|&c| c > 0),
        "every error path was exercised: {checked:?}"
    );

    // History: the view at version 0, and versions that do not exist.
    let r = app.get(&format!("/api/v1/games/{id}/views/0"), Some(&ada.token));
    assert_eq!(r.status(), 200);
    let v0: Value = r.json().unwrap();
    assert_eq!(v0["view"]["your_hand"].as_array().unwrap().len(), 4);
    let finished = app.game(id, &ada);
    let last = finished["version"].as_i64().unwrap();
    assert_eq!(
        app.get(
            &format!("/api/v1/games/{id}/views/{}", last + 1),
            Some(&ada.token)
        )
        .status(),
        404
    );
    // Moves that were a seat's only choice were played by the server, marked in the log:
    // the log holds the submitted moves and those, nothing else.
    let log = app.log(id, &ada);
    let forced = forced_moves(&log);
    assert!(forced > 0, "a whole Kasino game has forced last cards");
    assert_eq!(log.len(), moves + forced);
    assert_eq!(last as usize, moves + forced);
    let (s, body) = code(submit(
        &app,
        id,
        Some(&ada),
        finished["version"].as_i64().unwrap(),
        &json!({"type": "clear_table"}),
    ));
    assert_eq!((s, body["code"].as_str()), (409, Some("game_not_active")));

    // At most one turn email per turn change (one whose turn passed before it was sent
    // is dropped: this game is played faster than the outbox polls), and a game-over
    // email to each player.
    let subject_turn = format!("[Turnpost] Kasino #{id}: your turn");
    let subject_over = format!("[Turnpost] Kasino #{id}: game over");
    let mails = app.wait_for_mails("game-over emails", |m| {
        m.iter().filter(|x| x.subject == subject_over).count() >= 2
    });
    assert!(mails.iter().filter(|x| x.subject == subject_turn).count() <= turn_changes);
    let over: Vec<_> = mails.iter().filter(|x| x.subject == subject_over).collect();
    assert_eq!(over.len(), 2);
    assert!(over.iter().any(|m| m.to == ada.email) && over.iter().any(|m| m.to == bo.email));
    // The game-over email gives every round's points in words, not the last round's keys.
    for m in &over {
        let rounds = (1..)
            .take_while(|n| m.text.contains(&format!("Round {n}:")))
            .count();
        assert!(rounds >= 1, "{}", m.text);
        for raw in [
            "diamond_10",
            "spade_2",
            "last_capture",
            "most_spades",
            "most_cards",
        ] {
            assert!(
                !m.text.contains(raw) && !m.html.contains(raw),
                "{raw} in\n{}",
                m.text
            );
        }
        assert!(
            m.text.contains("Ada (Seat") || m.text.contains("Bo (Seat"),
            "{}",
            m.text
        );
    }
    let ids: BTreeSet<&str> = mails.iter().map(|m| m.message_id.as_str()).collect();
    assert_eq!(ids.len(), mails.len(), "every email is sent once");
    for m in mails.iter().filter(|x| x.subject == subject_turn) {
        assert!(m.to == ada.email || m.to == bo.email);
        assert!(
            m.text.contains("Your choices:") && m.text.contains("  1. "),
            "{}",
            m.text
        );
        // Links for people: the game's page, not the API.
        assert!(m.text.contains(&format!("/#/game/{id}")));
        assert!(!m.text.contains("/api/v1/games"));
        assert!(m.html.contains("The position in words"));
    }

    // The stored game replays to its snapshot.
    let (ok, out) = run_verify(&app);
    assert!(ok, "verify failed: {out}");
    assert!(out.contains("0 mismatch"), "{out}");
}

/// A capture the list of `legal` actions leaves out: two listed captures with the same
/// card taking disjoint loose cards make a valid capture of their union (each splits into
/// groups of the card's value), which a sample need not hold.
pub fn unlisted_capture(legal: &[Value]) -> Option<Value> {
    let cards = |a: &Value| -> BTreeSet<String> {
        a["cards"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|x| x.as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let captures: Vec<(&Value, BTreeSet<String>)> = legal
        .iter()
        .filter(|a| a["type"] == "capture" && a["builds"].as_array().is_none_or(Vec::is_empty))
        .map(|a| (&a["card"], cards(a)))
        .collect();
    let listed: BTreeSet<(String, BTreeSet<String>)> = captures
        .iter()
        .map(|(c, s)| (c.to_string(), s.clone()))
        .collect();
    for (i, (card, a)) in captures.iter().enumerate() {
        for (other, b) in &captures[i + 1..] {
            if other != card || !a.is_disjoint(b) {
                continue;
            }
            let union: BTreeSet<String> = a.union(b).cloned().collect();
            if !listed.contains(&(card.to_string(), union.clone())) {
                return Some(
                    json!({"type": "capture", "card": card, "cards": union, "builds": []}),
                );
            }
        }
    }
    None
}

/// Both players trail, hand after hand, until the one to act has a capture the list
/// leaves out (the table then holds two dozen loose cards or more). Returns that player,
/// their game and the capture.
pub fn crowd_the_table<'a>(
    app: &TestApp,
    id: i64,
    players: &[&'a Player],
) -> (&'a Player, Value, Value) {
    for _ in 0..60 {
        let (p, g) = players
            .iter()
            .map(|p| (*p, app.game(id, p)))
            .find(|(_, g)| g["to_act"][0] == g["your_seat"])
            .expect("someone to act");
        let legal = g["legal_actions"].as_array().expect("legal actions");
        let loose = g["view"]["table"]
            .as_array()
            .map_or(0, |t| t.iter().filter(|x| x["item"] == "loose").count());
        if loose >= 24
            && let Some(a) = unlisted_capture(legal)
        {
            return (p, g, a);
        }
        let trail = legal
            .iter()
            .find(|a| a["type"] == "trail")
            .expect("a card to trail");
        let r = submit(
            app,
            id,
            Some(p),
            g["version"].as_i64().expect("version"),
            trail,
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    }
    panic!("no capture left out of the list after 60 trails");
}

/// On a crowded table the list is a sample: a capture outside it is still played through
/// the API, and the game type says its lists can be samples.
#[test]
fn a_capture_the_list_leaves_out_is_played_through_the_api() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let (p, g, capture) = crowd_the_table(&app, id, &[&ada, &bo]);
    let taken: Vec<String> = serde_json::from_value(capture["cards"].clone()).unwrap();
    let version = g["version"].as_i64().unwrap();
    let r = submit(&app, id, Some(p), version, &capture);
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let after = app.game(id, p);
    let mut still = BTreeSet::new();
    strings(&after["view"]["table"], &mut still);
    assert!(
        taken.iter().all(|c| !still.contains(c)),
        "{taken:?} still on the table"
    );
    let types: Value = app.get("/api/v1/game-types", None).json().unwrap();
    let kasino = types
        .as_array()
        .and_then(|t| t.iter().find(|x| x["id"] == "kasino"))
        .expect("kasino listed");
    assert_eq!(kasino["legal_actions_complete"], false);
}
