//! A game ended by resignations: its position still waits for a move, but no board says
//! whose turn it is; each says how the game ended, naming the people.

use serde_json::{Value, json};

use crate::helpers::{EVERY_GAME, Player, TestApp, spawn_app_without_mail};

fn board(app: &TestApp, id: i64, p: &Player) -> String {
    let r = app.get(&format!("/api/v1/games/{id}/board.svg"), Some(&p.token));
    assert_eq!(r.status(), 200);
    r.text().unwrap()
}

/// The picture's title: the status line in words.
fn title(svg: &str) -> &str {
    let start = svg.find("<title id=\"title\">").expect("a title") + "<title id=\"title\">".len();
    let end = start + svg[start..].find("</title>").expect("the title's end");
    &svg[start..end]
}

#[test]
fn every_board_of_a_game_ended_by_resignation_says_it_is_over_and_whose_turn_it_is_not() {
    let app = spawn_app_without_mail();
    for (game_type, seats) in EVERY_GAME {
        let players: Vec<Player> = (0..seats)
            .map(|i| app.player(&format!("{}{i}", ["Ada", "Bo", "Cy", "Di"][i])))
            .collect();
        let refs: Vec<&Player> = players.iter().collect();
        let id = app.start_game(game_type, json!({}), &refs);
        // The one left is a seat the game waits for: its board said so before.
        let first: Value = app.game(id, &players[0])["to_act"][0].clone();
        let (stays, leave): (Vec<&Player>, Vec<&Player>) = players
            .iter()
            .partition(|p| app.game(id, p)["your_seat"] == first);
        let stays = stays[0];
        let before = board(&app, id, stays);
        assert!(
            !title(&before).contains("Game over"),
            "{game_type} before: {}",
            title(&before)
        );
        for p in &leave {
            let r = app.post(
                &format!("/api/v1/games/{id}/resign"),
                Some(&p.token),
                &json!({}),
            );
            assert_eq!(
                r.status(),
                200,
                "{game_type}: {}",
                r.text().unwrap_or_default()
            );
        }
        let g = app.game(id, stays);
        assert_eq!(g["status"], "finished", "{game_type}");
        let summary = g["result"]["summary"].as_str().unwrap().to_string();
        for p in &players {
            let svg = board(&app, id, p);
            let t = title(&svg).to_string();
            assert!(t.contains("Game over"), "{game_type}: {t}");
            assert!(t.contains("resigned"), "{game_type}: {t}");
            for stale in ["Your turn", "your turn", "to play", "to act", "awaited"] {
                assert!(
                    !svg.contains(stale),
                    "{game_type} still says {stale:?}: {t}"
                );
            }
            // Named as each reader knows the table.
            if std::ptr::eq(p, stays) {
                assert!(t.contains(&summary), "{game_type}: {t} / {summary}");
            }
        }
    }
}
