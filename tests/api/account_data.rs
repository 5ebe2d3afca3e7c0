//! Your data is yours: the export holds everything about the account
//! and nothing its seats may not see; deleting the account resigns its games, frees its
//! address, erases its name, and its finished games still replay.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, play_random, run_verify, spawn_app};

const PASSWORD: &str = "correct horse battery";

fn status_of(app: &TestApp, id: i64, p: &Player) -> String {
    app.game(id, p)["status"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_export_holds_every_game_as_the_seat_sees_it_and_needs_the_account_scope() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let finished = app.start_game("kasino", json!({}), &[&ada, &bo]);
    play_random(&app, finished, &[&ada, &bo], 1, 400);
    let active = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let r = app.post(
        "/api/v1/me/tokens",
        Some(&ada.token),
        &json!({"name": "my bot", "scopes": ["play"]}),
    );
    assert_eq!(r.status(), 201);
    let pat = r.json::<Value>().unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();

    // What Ada wrote: a note, chat (Bo's line is not hers), a mute and a report.
    let chat = format!("/api/v1/games/{active}/chat");
    for (p, text) in [(&ada, "good luck <b>Bo</b>"), (&bo, "thanks")] {
        let r = app.post(&chat, Some(&p.token), &json!({"text": text}));
        assert_eq!(r.status(), 201);
    }
    let bos_line = app.get(&chat, Some(&ada.token)).json::<Value>().unwrap()["messages"][1]["id"]
        .as_i64()
        .unwrap();
    let r = app.post(
        &format!("{chat}/{bos_line}/report"),
        Some(&ada.token),
        &json!({"reason": "too smug"}),
    );
    assert!(r.status().is_success(), "{}", r.status());
    let r = app.put(
        &format!("/api/v1/games/{active}/note"),
        Some(&ada.token),
        &json!({"body": "Bo hoards spades"}),
    );
    assert_eq!(r.status(), 200);
    let r = app.post(
        &format!("/api/v1/accounts/{}/mute", bo.id),
        Some(&ada.token),
        &json!({}),
    );
    assert!(r.status().is_success(), "{}", r.status());

    let r = app.get("/api/v1/me/export", Some(&ada.token));
    assert_eq!(r.status(), 200);
    let disposition = r
        .headers()
        .get("content-disposition")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(disposition.starts_with("attachment;"), "{disposition}");
    let export: Value = r.json().unwrap();
    assert_eq!(export["account"]["id"], ada.id);
    assert_eq!(export["account"]["email"], ada.email.as_str());
    let games: BTreeMap<i64, &Value> = export["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["game"]["id"].as_i64().unwrap(), g))
        .collect();
    assert_eq!(
        games.keys().copied().collect::<Vec<_>>(),
        vec![finished, active]
    );
    for id in [finished, active] {
        // Exactly what the seat reads through the API: no more (Bo's hand stays hidden).
        assert_eq!(games[&id]["game"], app.game(id, &ada), "game {id}");
        assert_eq!(
            games[&id]["log"],
            Value::Array(app.log(id, &ada)),
            "log {id}"
        );
    }
    let mine = &games[&active];
    assert_eq!(mine["note"], "Bo hoards spades");
    let said: Vec<&str> = mine["chat"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(said, vec!["good luck <b>Bo</b>"]);
    assert_eq!(games[&finished]["note"], Value::Null);
    assert_eq!(export["muted"][0]["account_id"], bo.id);
    assert_eq!(export["muted"][0]["name"], "Bo");
    assert_eq!(export["reports"][0]["message_id"], bos_line);
    assert_eq!(export["reports"][0]["reason"], "too smug");
    let tokens = export["access_tokens"].as_array().unwrap();
    assert_eq!(tokens.len(), 1);
    assert_eq!(tokens[0]["name"], "my bot");
    assert!(!export.to_string().contains(&pat), "no token secret");
    assert!(export["ratings"].is_object());

    // A token for playing may not read the account's data.
    let (s, p) = assert_problem(app.get("/api/v1/me/export", Some(&pat)), "play scope");
    assert_eq!((s, p["code"].as_str()), (403, Some("insufficient_scope")));
    let (s, _) = assert_problem(app.get("/api/v1/me/export", None), "no token");
    assert_eq!(s, 401);
}

#[test]
fn deleting_an_account_resigns_its_games_frees_its_address_and_keeps_finished_games_whole() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let cy = app.player("Cy");
    let finished = app.start_game("kasino", json!({}), &[&ada, &bo]);
    play_random(&app, finished, &[&ada, &bo], 2, 400);
    let two = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let three = app.start_game("kasino", json!({}), &[&bo, &ada, &cy]);
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "options": {}}),
    );
    assert_eq!(r.status(), 201);
    let open = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    let before_finished = app.game(finished, &bo);
    let three_chat = format!("/api/v1/games/{three}/chat");
    for (p, text) in [(&ada, "my words"), (&bo, "Bo's words to Ada, not Adam")] {
        let r = app.post(&three_chat, Some(&p.token), &json!({"text": text}));
        assert_eq!(r.status(), 201);
    }

    // The wrong password changes nothing.
    let (s, p) = assert_problem(
        app.post(
            "/api/v1/me/delete",
            Some(&ada.token),
            &json!({"password": "nope"}),
        ),
        "wrong password",
    );
    assert_eq!(
        (s, p["code"].as_str()),
        (403, Some("current_password_wrong"))
    );
    for garbage in [
        json!({}),
        json!({"password": 5}),
        json!({"password": "x", "also": 1}),
    ] {
        let (s, _) = assert_problem(
            app.post("/api/v1/me/delete", Some(&ada.token), &garbage),
            "garbage",
        );
        assert!(s == 400 || s == 422, "{s} for {garbage}");
    }
    assert_eq!(app.get("/api/v1/me", Some(&ada.token)).status(), 200);
    assert_eq!(status_of(&app, two, &bo), "active");

    // Twenty at once: one deletes, the others find the account gone; no 5xx.
    let answers: Vec<(u16, Value)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|_| {
                s.spawn(|| {
                    let r = app.post(
                        "/api/v1/me/delete",
                        Some(&ada.token),
                        &json!({"password": PASSWORD}),
                    );
                    (
                        r.status().as_u16(),
                        r.json::<Value>().unwrap_or(Value::Null),
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ok: Vec<&Value> = answers
        .iter()
        .filter(|(s, _)| *s == 200)
        .map(|(_, b)| b)
        .collect();
    assert_eq!(ok.len(), 1, "{answers:?}");
    assert!(
        answers.iter().all(|(s, _)| *s == 200 || *s == 401),
        "{answers:?}"
    );
    let mut resigned: Vec<i64> = serde_json::from_value(ok[0]["resigned"].clone()).unwrap();
    resigned.sort();
    assert_eq!(resigned, vec![two, three]);
    assert_eq!(ok[0]["left"], json!([open]));

    // Signed out everywhere, and the address signs in no more...
    assert_eq!(app.get("/api/v1/me", Some(&ada.token)).status(), 401);
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": ada.email, "password": PASSWORD}),
    );
    assert_eq!(r.status(), 401);
    // ...but is free for a new account.
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": ada.email, "name": "Ada again", "password": PASSWORD}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());

    // The two-player game went to Bo; the three-player one goes on, the computer in
    // Ada's seat; the lobby game is gone.
    assert_eq!(status_of(&app, two, &bo), "finished");
    // Its result names the seats as they are now: Ada's name is gone, and Bo reads "you".
    let summary = app.game(two, &bo)["result"]["summary"].clone();
    let summary = summary.as_str().unwrap_or_default();
    assert!(
        summary.starts_with("Deleted player (Seat ")
            && summary.contains(") resigned; you (Seat ")
            && summary.ends_with(") win"),
        "{summary}"
    );
    assert_eq!(status_of(&app, three, &bo), "active");
    assert_eq!(
        app.get(&format!("/api/v1/games/{open}"), Some(&bo.token))
            .status(),
        404
    );

    // Ada's chat went with her; Bo's stays, without her name.
    let page: Value = app.get(&three_chat, Some(&bo.token)).json().unwrap();
    let texts: Vec<&str> = page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts, vec!["Bo's words to Deleted player, not Adam"]);

    // The finished game reads the same to Bo but for the name, everywhere.
    let after = app.game(finished, &bo);
    assert_eq!(after["seats"].as_array().unwrap().len(), 2);
    let text = after.to_string()
        + &Value::Array(app.log(finished, &bo)).to_string()
        + &Value::Array(app.log(two, &bo)).to_string();
    assert!(
        !text.contains("\"Ada\"") && !text.contains("Ada "),
        "{text}"
    );
    for id in [finished, two, three] {
        let names: Vec<Value> = app.game(id, &bo)["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].clone())
            .collect();
        assert!(
            names.contains(&json!("Deleted player")),
            "game {id}: {names:?}"
        );
    }
    assert_eq!(
        after["view"], before_finished["view"],
        "the view itself is unchanged"
    );
    let (ok, report) = run_verify(&app);
    assert!(ok, "verify after the deletion: {report}");
}
