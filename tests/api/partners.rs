//! A full four-player Partners game over HTTP, through the generic API only.

use serde_json::{Value, json};

use crate::helpers::{play_random, run_verify, spawn_app_without_mail};

#[test]
fn a_full_four_player_partners_game_over_http() {
    let app = spawn_app_without_mail();
    let ps = [
        app.player("North"),
        app.player("East"),
        app.player("South"),
        app.player("West"),
    ];
    let players: Vec<_> = ps.iter().collect();
    let id = app.start_game("partners", json!({}), &players);
    let actions = play_random(&app, id, &players, 7, 20_000);
    assert!(
        actions > 50,
        "a Partners game takes many moves, not {actions}"
    );
    let g = app.game(id, &ps[0]);
    assert_eq!(g["status"], "finished");
    let teams = g["result"]["teams"]
        .as_array()
        .expect("the result lists the teams");
    assert_eq!(teams.len(), 2);
    let mut seats: Vec<i64> = teams
        .iter()
        .flat_map(|t| {
            t["seats"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_i64)
        })
        .collect();
    seats.sort();
    assert_eq!(seats, vec![0, 1, 2, 3]);
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}
