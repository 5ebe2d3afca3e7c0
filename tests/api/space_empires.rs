//! A two-player Space Empires 4X game over HTTP that reaches at least the third round.

use serde_json::json;

use crate::helpers::{play_random, run_verify, spawn_app_without_mail};

#[test]
fn a_two_player_space_empires_game_reaches_round_three() {
    let app = spawn_app_without_mail();
    let ps = [app.player("Terrans"), app.player("Aliens")];
    let players: Vec<_> = ps.iter().collect();
    // With a round cap of 3 the game ends when round 3 is over: it has been played.
    let id = app.start_game("space-empires-4x", json!({"round_cap": 3}), &players);
    let actions = play_random(&app, id, &players, 17, 20_000);
    let g = app.game(id, &ps[0]);
    assert_eq!(g["status"], "finished");
    assert!(
        g["view"]["round"].as_u64().unwrap() >= 3,
        "round {}",
        g["view"]["round"]
    );
    assert!(actions > 20);
    // Round 1's secret economic orders were logged privately: the other side saw placeholders.
    let log: Vec<serde_json::Value> = app
        .get(&format!("/api/v1/games/{id}/log"), Some(&ps[0].token))
        .json()
        .unwrap();
    assert!(
        log.iter().any(|e| e["seat"] == 1 && e["text"].is_null()),
        "some of seat 1's actions are hidden from seat 0"
    );
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}
