//! A three-player Fuldrigger game over HTTP, with a deal offered and accepted.

use serde_json::{Value, json};

use crate::email_play::{choices, turn_mail};
use crate::helpers::{Player, TestApp, play_random, run_verify, spawn_app, spawn_app_without_mail};

fn act(app: &TestApp, id: i64, p: &Player, action: &Value) -> Value {
    let g = app.game(id, p);
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"expected_version": g["version"], "action": action}),
    );
    assert_eq!(
        r.status(),
        200,
        "{action}: {}",
        r.text().unwrap_or_default()
    );
    r.json().unwrap()
}

#[test]
fn a_three_player_fuldrigger_game_with_a_deal() {
    let app = spawn_app_without_mail();
    let ps = [app.player("Ann"), app.player("Ben"), app.player("Cas")];
    let players: Vec<_> = ps.iter().collect();
    let id = app.start_game("fuldrigger", json!({"rounds": 4}), &players);

    // Home cities are chosen in roll order: each chooser takes the first offered.
    let mut rng = turnpost::engine::GameRng::seed_from_u64(3);
    loop {
        let g = app.game(id, &ps[0]);
        let seat = g["to_act"][0].as_u64().unwrap() as usize;
        let mine = app.game(id, &ps[seat]);
        let legal = mine["legal_actions"].as_array().unwrap().clone();
        let homes: Vec<&Value> = legal
            .iter()
            .filter(|a| a["type"] == "choose_home")
            .collect();
        if homes.is_empty() {
            break;
        }
        act(&app, id, &ps[seat], homes[rng.below(homes.len())]);
    }

    // The player to act offers 50 ducats to the next seat, who accepts outside their turn.
    let g = app.game(id, &ps[0]);
    let from = g["to_act"][0].as_u64().unwrap() as usize;
    let to = (from + 1) % 3;
    let offer = json!({"type": "offer", "to": to, "give": {"cash": 50}, "get": {}});
    act(&app, id, &ps[from], &offer);
    let cash_before = app.game(id, &ps[to]).clone();
    let recipient = app.game(id, &ps[to]);
    assert!(
        !recipient["to_act"].as_array().unwrap().contains(&json!(to)),
        "the recipient is not on turn"
    );
    let accept = recipient["legal_actions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["type"] == "accept")
        .cloned()
        .expect("the recipient may accept at once");
    // The third player sees that an offer exists but not its terms.
    let log: Vec<Value> = app
        .get(
            &format!("/api/v1/games/{id}/log"),
            Some(&ps[(from + 2) % 3].token),
        )
        .json()
        .unwrap();
    let last = log.last().unwrap();
    assert_eq!(last["action"]["terms"], "hidden");
    assert_eq!(last["text"], Value::Null);
    act(&app, id, &ps[to], &accept);
    let after = app.game(id, &ps[to]);
    assert_ne!(
        after["view"], cash_before["view"],
        "accepting the deal changed the game"
    );

    play_random(&app, id, &players, 11, 20_000);
    assert_eq!(app.game(id, &ps[0])["status"], "finished");
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}

/// An offer made to a player asks them only to answer it; when the turn then passes to
/// them with the offer still open, they are told again, now that they have the move: the
/// email about the offer listed nothing but accepting and declining.
#[test]
fn a_player_with_an_open_offer_is_told_when_the_turn_becomes_theirs() {
    let app = spawn_app();
    let ps = [app.player("Ann"), app.player("Ben")];
    let players: Vec<_> = ps.iter().collect();
    let id = app.start_game("fuldrigger", json!({"rounds": 4}), &players);
    let seat_of = |g: &Value| g["to_act"][0].as_u64().unwrap() as usize;
    loop {
        let seat = seat_of(&app.game(id, &ps[0]));
        let legal = app.game(id, &ps[seat])["legal_actions"].clone();
        let Some(home) = legal
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["type"] == "choose_home")
            .cloned()
        else {
            break;
        };
        act(&app, id, &ps[seat], &home);
    }
    let from = seat_of(&app.game(id, &ps[0]));
    let to = 1 - from;
    let offer = json!({"type": "offer", "to": to, "give": {"cash": 50}, "get": {}});
    act(&app, id, &ps[from], &offer);
    let version = app.game(id, &ps[to])["version"].as_i64().unwrap();
    let about_the_offer = turn_mail(&app, &ps[to], id, to as i64, version);
    assert!(
        choices(&about_the_offer)
            .iter()
            .all(|c| !c.contains("roll the dice"))
    );

    // The offering player ends the turn, leaving the offer open.
    let mut moved = 0;
    while seat_of(&app.game(id, &ps[0])) == from {
        let legal = app.game(id, &ps[from])["legal_actions"].clone();
        let next = legal
            .as_array()
            .unwrap()
            .iter()
            .find(|a| ["roll", "end_movement", "end_turn"].contains(&a["type"].as_str().unwrap()))
            .cloned()
            .expect("a way to the end of the turn");
        act(&app, id, &ps[from], &next);
        moved += 1;
        assert!(moved < 20, "the turn never ended");
    }
    let g = app.game(id, &ps[to]);
    assert!(
        g["legal_actions"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["type"] == "accept"),
        "the offer is still open: {g}"
    );
    let version = g["version"].as_i64().unwrap();
    let turn = turn_mail(&app, &ps[to], id, to as i64, version);
    assert!(
        choices(&turn).iter().any(|c| c.contains("roll the dice")),
        "{}",
        turn.text
    );
}
