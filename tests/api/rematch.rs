//! Rematch: one click (`POST /games/{id}/rematch`) or one reply word (`rematch`) plays a
//! finished game again with the same players, the seats rotated, the same options.

use serde_json::{Value, json};

use crate::email_play::{answer_to, deliver, reply};
use crate::helpers::{Player, TestApp, assert_problem, spawn_app};

/// A finished two-player Kasino game with a clock and a non-default option: Ada resigns.
fn finished_game(app: &TestApp, ada: &Player, bo: &Player) -> (i64, Value) {
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({
            "game_type": "kasino",
            "players": 2,
            "options": {"sweeps_cancel": true},
            "time_control": {"days_per_move": 3, "max_days": 21},
            "timeout_policy": "random_move",
        }),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    let r = app.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&ada.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let g = app.game(id, ada);
    assert_eq!(g["status"], "finished");
    (id, g)
}

fn seat_accounts(g: &Value) -> Vec<i64> {
    g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["account_id"].as_i64().unwrap())
        .collect()
}

#[test]
fn a_rematch_seats_the_same_players_rotated_with_the_same_options_once() {
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let (id, old) = finished_game(&app, &ada, &bo);
    assert_eq!(old["rematch"], Value::Null);
    let path = format!("/api/v1/games/{id}/rematch");

    // Only the players may ask, and only once the game is over.
    let (s, v) = assert_problem(app.post(&path, Some(&cy.token), &json!({})), "outsider");
    assert_eq!((s, v["code"].as_str()), (403, Some("not_a_player")));
    let (s, _) = assert_problem(app.post(&path, None, &json!({})), "anonymous");
    assert_eq!(s, 401);
    let running = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let (s, v) = assert_problem(
        app.post(
            &format!("/api/v1/games/{running}/rematch"),
            Some(&ada.token),
            &json!({}),
        ),
        "a game still on",
    );
    assert_eq!((s, v["code"].as_str()), (409, Some("game_not_finished")));
    for bad in ["abc", "99999999999", "-1", "%00", "99999999999999999999999"] {
        let r = app.post(
            &format!("/api/v1/games/{bad}/rematch"),
            Some(&ada.token),
            &json!({}),
        );
        let (s, _) = assert_problem(r, bad);
        assert_eq!(s, 404, "{bad}");
    }

    let r = app.post(&path, Some(&bo.token), &json!({}));
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let new: Value = r.json().unwrap();
    let new_id = new["id"].as_i64().unwrap();
    assert_ne!(new_id, id);
    assert_eq!(location, format!("/api/v1/games/{new_id}"));
    assert_eq!(
        new["status"], "active",
        "everyone is seated: it starts at once"
    );
    for same in [
        "game_type",
        "players",
        "options",
        "time_control",
        "timeout_policy",
    ] {
        assert_eq!(new[same], old[same], "{same}");
    }
    let (before, after) = (seat_accounts(&old), seat_accounts(&new));
    assert_eq!(after, vec![before[1], before[0]], "seats rotated by one");
    assert_eq!(new["your_seat"], 0, "Bo, seat 1 before, has seat 0 now");

    // Asking again, by anyone seated, gives the same game; the old game names it.
    for p in [&ada, &bo] {
        let r = app.post(&path, Some(&p.token), &json!({}));
        assert_eq!(r.status(), 200);
        assert_eq!(r.json::<Value>().unwrap()["id"], new_id);
    }
    assert_eq!(app.game(id, &ada)["rematch"], new_id);
    let mine = app.get("/api/v1/games?status=active", Some(&ada.token));
    let ids: Vec<i64> = mine.json::<Value>().unwrap()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.iter().filter(|&&g| g == new_id).count(), 1);
    assert!(ids.contains(&running));
    assert_eq!(ids.len(), 2, "one rematch only: {ids:?}");
}

#[test]
fn players_asking_at_the_same_moment_get_one_rematch() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let (id, _) = finished_game(&app, &ada, &bo);
    let path = format!("/api/v1/games/{id}/rematch");
    let answers: Vec<(u16, i64)> = std::thread::scope(|s| {
        let asks: Vec<_> = [&ada, &bo, &ada, &bo]
            .into_iter()
            .map(|p| {
                let (app, path) = (&app, &path);
                s.spawn(move || {
                    let r = app.post(path, Some(&p.token), &json!({}));
                    let status = r.status().as_u16();
                    (status, r.json::<Value>().unwrap()["id"].as_i64().unwrap())
                })
            })
            .collect();
        asks.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let created = answers.iter().filter(|a| a.0 == 201).count();
    assert_eq!(created, 1, "{answers:?}");
    assert!(answers.iter().all(|a| a.1 == answers[0].1), "{answers:?}");
}

#[test]
fn replying_rematch_to_the_game_over_email_starts_it() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let (id, _) = finished_game(&app, &ada, &bo);
    let over = app
        .wait_for_mails("Bo's game-over email", |m| {
            m.iter()
                .any(|x| x.to == bo.email && x.subject.contains("game over"))
        })
        .into_iter()
        .find(|x| x.to == bo.email && x.subject.contains("game over"))
        .unwrap();
    assert!(over.text.contains("Reply `rematch`"), "{}", over.text);
    let raw = reply(
        &bo.email,
        &over.reply_to,
        &over.subject,
        "Rematch!",
        &over.text,
        "rematch-1@example.net",
    );
    let answer = deliver(&app, &raw);
    assert_eq!(answer["outcome"], "rematch", "{answer}");
    let new_id = answer["game_id"].as_i64().unwrap();
    assert_ne!(new_id, id);
    let mail = answer_to(&app, "rematch-1@example.net");
    assert!(
        mail.text.contains(&format!("/#/game/{new_id}")),
        "{}",
        mail.text
    );
    let new = app.game(new_id, &bo);
    assert_eq!(new["status"], "active");
    assert_eq!(app.game(id, &bo)["rematch"], new_id);

    // The same word during a game refuses and changes nothing.
    let turn = app
        .wait_for_mails("a turn email of the rematch", |m| {
            m.iter()
                .any(|x| x.subject.contains(&format!("#{new_id}")) && !x.reply_to.is_empty())
        })
        .into_iter()
        .find(|x| x.subject.contains(&format!("#{new_id}")) && !x.reply_to.is_empty())
        .unwrap();
    let from = if turn.to == ada.email { &ada } else { &bo };
    let raw = reply(
        &from.email,
        &turn.reply_to,
        &turn.subject,
        "rematch",
        &turn.text,
        "rematch-2@example.net",
    );
    let answer = deliver(&app, &raw);
    assert_eq!(
        (answer["outcome"].as_str(), answer["code"].as_str()),
        (Some("refused"), Some("game_not_finished")),
        "{answer}"
    );
    assert_eq!(app.game(new_id, from)["rematch"], Value::Null);
}
