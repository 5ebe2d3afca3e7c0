//! A three-player Fuldrigger game over HTTP, with a deal offered and accepted.

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, play_random, run_verify, spawn_app_without_mail};

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
