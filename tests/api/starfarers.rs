//! A three-player Starfarers game over HTTP, with one player-to-player trade.

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, play_random, run_verify, spawn_app_without_mail};

fn act(app: &TestApp, id: i64, p: &Player, action: &Value) -> reqwest::blocking::Response {
    let g = app.game(id, p);
    app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"expected_version": g["version"], "action": action}),
    )
}

#[test]
fn a_three_player_starfarers_game_with_a_trade() {
    let app = spawn_app_without_mail();
    let ps = [app.player("Ann"), app.player("Ben"), app.player("Cas")];
    let players: Vec<_> = ps.iter().collect();
    let id = app.start_game("starfarers", json!({"turn_limit": 30}), &players);
    let mut rng = turnpost::engine::GameRng::seed_from_u64(9);

    // Play until someone on turn can offer a trade that the other side accepts.
    let mut traded = false;
    for _ in 0..3_000 {
        let g = app.game(id, &ps[0]);
        if g["status"] != "active" {
            break;
        }
        let seat = g["to_act"][0].as_u64().unwrap() as usize;
        let mine = app.game(id, &ps[seat]);
        let legal = mine["legal_actions"].as_array().unwrap().clone();
        if let Some(offer) = legal.iter().find(|a| a["type"] == "offer_trade") {
            let to = offer["to"].as_u64().unwrap() as usize;
            // The choice names the person beside the game's name for them.
            let names = ["Ann", "Ben", "Cas"];
            let label = mine["seats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|s| s["seat"] == json!(to))
                .and_then(|s| s["label"].as_str())
                .unwrap()
                .to_string();
            let index = legal.iter().position(|a| a == offer).unwrap();
            let text = mine["legal_action_texts"][index].as_str().unwrap();
            assert!(text.contains(&format!("{} ({label})", names[to])), "{text}");
            assert_eq!(act(&app, id, &ps[seat], offer).status(), 200);
            // The log tells the recipient of the offer to them as "you".
            let log: Vec<Value> = app
                .get(&format!("/api/v1/games/{id}/log"), Some(&ps[to].token))
                .json()
                .unwrap();
            let told = log.last().unwrap()["text"].as_str().unwrap_or_default();
            assert!(told.contains(&format!("you ({label})")), "{told}");
            // A third player sees neither the terms nor the text.
            let third = (0..3).find(|&s| s != seat && s != to).unwrap();
            let log: Vec<Value> = app
                .get(&format!("/api/v1/games/{id}/log"), Some(&ps[third].token))
                .json()
                .unwrap();
            assert_eq!(log.last().unwrap()["text"], Value::Null);
            let theirs = app.game(id, &ps[to]);
            if let Some(accept) = theirs["legal_actions"]
                .as_array()
                .unwrap()
                .iter()
                .find(|a| a["type"] == "accept_offer")
            {
                // The offer is the recipient's decision: shown as theirs everywhere, though
                // the turn (and the clock) stays with the offerer.
                assert!(
                    theirs["deciding"].as_array().unwrap().contains(&json!(to)),
                    "{}",
                    theirs["deciding"]
                );
                assert!(!theirs["to_act"].as_array().unwrap().contains(&json!(to)));
                let awaiting: Value = app
                    .get("/api/v1/games?awaiting=me", Some(&ps[to].token))
                    .json()
                    .unwrap();
                let listed = awaiting["items"].as_array().unwrap();
                assert!(
                    listed
                        .iter()
                        .any(|g| g["id"] == id && g["awaiting_you"] == true),
                    "the recipient's awaiting=me lists the game: {awaiting}"
                );
                let third_list: Value = app
                    .get("/api/v1/games?awaiting=me", Some(&ps[third].token))
                    .json()
                    .unwrap();
                assert!(
                    !third_list["items"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|g| g["id"] == id),
                    "the third player has nothing to decide"
                );
                let r = act(&app, id, &ps[to], accept);
                assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
                traded = true;
                break;
            }
            continue;
        }
        let choice = legal[rng.below(legal.len())].clone();
        assert_eq!(act(&app, id, &ps[seat], &choice).status(), 200);
    }
    assert!(traded, "a trade was offered and accepted");
    play_random(&app, id, &players, 13, 50_000);
    assert_eq!(app.game(id, &ps[0])["status"], "finished");
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}
