//! The generic game API: creating, joining, leaving, listing, versions and errors.

use serde_json::{Value, json};

use crate::helpers::{forced_moves, spawn_app};

#[test]
fn game_types_describe_every_hosted_game() {
    let app = spawn_app();
    let r = app.get("/api/v1/game-types", None);
    assert_eq!(r.status(), 200);
    let types: Vec<Value> = r.json().unwrap();
    let kasino = types
        .iter()
        .find(|t| t["id"] == "kasino")
        .expect("kasino is hosted");
    assert_eq!(kasino["min_players"], 2);
    assert_eq!(kasino["max_players"], 4);
    assert_eq!(kasino["rules_version"], 2);
    assert!(kasino["options_schema"].is_object());
    assert!(kasino["action_schema"].is_object());
}

#[test]
fn create_join_leave_list_and_their_errors() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let cy = app.player("Cy");

    for (body, code) in [
        (
            json!({"game_type": "chess", "players": 2}),
            "unknown_game_type",
        ),
        (
            json!({"game_type": "kasino", "players": 7}),
            "invalid_player_count",
        ),
        (
            json!({"game_type": "kasino", "players": 2, "options": {"no_such_option": 1}}),
            "invalid_options",
        ),
    ] {
        let r = app.post("/api/v1/games", Some(&ada.token), &body);
        assert_eq!(r.status(), 422, "{body}");
        assert_eq!(r.json::<Value>().unwrap()["code"], code);
    }
    assert_eq!(
        app.post(
            "/api/v1/games",
            None,
            &json!({"game_type": "kasino", "players": 2})
        )
        .status(),
        401
    );

    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 3}),
    );
    assert_eq!(r.status(), 201);
    let g: Value = r.json().unwrap();
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["status"], "open");
    assert_eq!(g["your_seat"], 0);
    assert_eq!(g["view"], Value::Null);

    // Bo sees it in the lobby, joins, leaves, joins again.
    let list: Value = app
        .get("/api/v1/games?open=true", Some(&bo.token))
        .json()
        .unwrap();
    assert!(
        list["items"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["id"] == id)
    );
    let join = |p: &crate::helpers::Player| {
        app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&p.token),
            &json!({}),
        )
    };
    assert_eq!(join(&bo).status(), 200);
    let r = join(&bo);
    assert_eq!(r.status(), 409);
    assert_eq!(r.json::<Value>().unwrap()["code"], "already_joined");
    assert_eq!(
        app.post(
            &format!("/api/v1/games/{id}/leave"),
            Some(&bo.token),
            &json!({})
        )
        .status(),
        204
    );
    let r = app.post(
        &format!("/api/v1/games/{id}/leave"),
        Some(&cy.token),
        &json!({}),
    );
    assert_eq!(r.status(), 403);
    assert_eq!(join(&bo).status(), 200);

    // Acting before the game starts.
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&ada.token),
        &json!({"expected_version": 0, "action": {}}),
    );
    assert_eq!(r.status(), 409);
    assert_eq!(r.json::<Value>().unwrap()["code"], "game_not_active");

    // The last seat starts the game.
    let r = join(&cy);
    assert_eq!(r.status(), 200);
    let g: Value = r.json().unwrap();
    assert_eq!(g["status"], "active");
    assert_eq!(g["your_seat"], 2);
    assert_eq!(g["version"], 0);
    assert!(g["view"].is_object());
    let r = app.post(
        &format!("/api/v1/games/{id}/leave"),
        Some(&cy.token),
        &json!({}),
    );
    assert_eq!(r.status(), 409);
    let dee = app.player("Dee");
    assert_eq!(join(&dee).status(), 409);

    // Lists: mine, awaiting me, pagination and bad queries.
    let mine: Value = app
        .get("/api/v1/games?status=active", Some(&bo.token))
        .json()
        .unwrap();
    assert_eq!(mine["total"], 1);
    let to_act = g["to_act"][0].as_i64().unwrap();
    let awaiting_player = [&ada, &bo, &cy][to_act as usize];
    let awaiting: Value = app
        .get("/api/v1/games?awaiting=me", Some(&awaiting_player.token))
        .json()
        .unwrap();
    assert_eq!(awaiting["total"], 1);
    assert_eq!(awaiting["items"][0]["awaiting_you"], true);
    let other = [&ada, &bo, &cy][((to_act + 1) % 3) as usize];
    let not_awaiting: Value = app
        .get("/api/v1/games?awaiting=me", Some(&other.token))
        .json()
        .unwrap();
    assert_eq!(not_awaiting["total"], 0);
    for q in ["status=weird", "awaiting=you", "page=0", "per_page=1000"] {
        let r = app.get(&format!("/api/v1/games?{q}"), Some(&ada.token));
        assert_eq!(r.status(), 400, "{q}");
    }
    assert_eq!(
        app.get("/api/v1/games?page=x", Some(&ada.token)).status(),
        400
    );

    // A spectator sees the game without anyone's hand and with no legal actions.
    let spectator: Value = app.game(id, &dee);
    assert_eq!(spectator["your_seat"], Value::Null);
    assert_eq!(spectator["legal_actions"], json!([]));
    assert_eq!(
        app.get("/api/v1/games/999999", Some(&ada.token)).status(),
        404
    );
    assert_eq!(app.get("/api/v1/games/abc", Some(&ada.token)).status(), 404);
}

#[test]
fn two_concurrent_submissions_for_one_version_exactly_one_wins() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    for round in 0..5 {
        let g = app.game(id, &ada);
        let seat = g["to_act"][0].as_i64().unwrap();
        let p = if seat == 0 { &ada } else { &bo };
        let mine = app.game(id, p);
        let legal = mine["legal_actions"].as_array().unwrap().clone();
        let version = mine["version"].as_i64().unwrap();
        let a1 = legal[0].clone();
        let a2 = legal[legal.len() - 1].clone();
        let url = app.url(&format!("/api/v1/games/{id}/actions"));
        let (r1, r2) = std::thread::scope(|s| {
            let h1 = s.spawn(|| {
                app.client
                    .post(&url)
                    .bearer_auth(&p.token)
                    .json(&json!({"expected_version": version, "action": a1}))
                    .send()
                    .unwrap()
            });
            let h2 = s.spawn(|| {
                app.client
                    .post(&url)
                    .bearer_auth(&p.token)
                    .json(&json!({"expected_version": version, "action": a2}))
                    .send()
                    .unwrap()
            });
            (h1.join().unwrap(), h2.join().unwrap())
        });
        let mut statuses = [r1.status().as_u16(), r2.status().as_u16()];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "round {round}");
        let loser = if r1.status() == 409 { r1 } else { r2 };
        let p: Value = loser.json().unwrap();
        assert_eq!(p["code"], "stale_version");
        // The winner's move, then any moves that played themselves (a Kasino seat with a
        // single choice): never the loser's.
        let log: Vec<Value> = app
            .get(&format!("/api/v1/games/{id}/log"), Some(&ada.token))
            .json()
            .unwrap();
        let current = p["current_version"].as_i64().unwrap();
        assert_eq!(
            current,
            version + 1 + forced_moves(&log[version as usize + 1..]) as i64,
            "{log:?}"
        );
        assert_eq!(log.len() as i64, current, "exactly one action per version");
    }
}
