//! A full three-player SP4X game over HTTP, through the generic API only.

use serde_json::json;

use crate::helpers::{play_random, run_verify, spawn_app_without_mail};

#[test]
fn a_full_three_player_sp4x_game_over_http() {
    let app = spawn_app_without_mail();
    let ps = [app.player("Red"), app.player("Blue"), app.player("Green")];
    let players: Vec<_> = ps.iter().collect();
    let id = app.start_game("sp4x", json!({}), &players);
    let actions = play_random(&app, id, &players, 5, 5_000);
    assert!(actions > 30);
    let g = app.game(id, &ps[1]);
    assert_eq!(g["status"], "finished");
    assert_eq!(g["result"]["ranking"].as_array().unwrap().len(), 3);
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}
