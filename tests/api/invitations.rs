//! Private games and invitations by email: who may see a private game, seats kept for
//! invitees, the emailed link and its page, accepting (with or without an account),
//! declining, the creator's list and cancelling, and refusals of bad input.

use reqwest::blocking::Response;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, invitation_token, spawn_app};

fn create(app: &TestApp, p: &Player, body: Value) -> Response {
    app.post("/api/v1/games", Some(&p.token), &body)
}

fn created(app: &TestApp, p: &Player, body: Value) -> Value {
    let r = create(app, p, body);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    r.json().unwrap()
}

fn fresh_address(name: &str) -> String {
    format!(
        "{name}-{}@example.org",
        hex::encode(rand::random::<[u8; 4]>())
    )
}

fn lobby_ids(app: &TestApp, p: &Player) -> Vec<i64> {
    let list: Value = app
        .get("/api/v1/games?open=true&per_page=100", Some(&p.token))
        .json()
        .unwrap();
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].as_i64().unwrap())
        .collect()
}

fn form(app: &TestApp, path: &str, body: &str) -> Response {
    app.client
        .post(app.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.to_string())
        .send()
        .unwrap()
}

/// Every game endpoint answers `who` as for a game that does not exist.
fn assert_hidden(app: &TestApp, id: i64, who: Option<&Player>, what: &str) {
    let token = who.map(|p| p.token.as_str());
    for missing in [id, 987_654_321] {
        let base = format!("/api/v1/games/{missing}");
        let mut answers = Vec::new();
        for p in [
            "",
            "/log",
            "/views/0",
            "/board.svg",
            "/events",
            "/invitations",
        ] {
            answers.push((p, app.get(&format!("{base}{p}"), token)));
        }
        for (p, body) in [
            ("/join", json!({})),
            ("/leave", json!({})),
            ("/actions", json!({"expected_version": 0, "action": {}})),
            ("/preview", json!({"action": {}})),
            ("/resign", json!({})),
            ("/nudge", json!({})),
        ] {
            answers.push((p, app.post(&format!("{base}{p}"), token, &body)));
        }
        for (p, r) in answers {
            let (s, v) = assert_problem(r, &format!("{what} {p}"));
            // Without a token, the endpoints that need one say so first.
            if who.is_none() && !["", "/log", "/views/0", "/board.svg", "/events"].contains(&p) {
                assert_eq!(s, 401, "{what} {p}");
                continue;
            }
            assert_eq!(
                (s, v["code"].as_str()),
                (404, Some("game_not_found")),
                "{what} {p} of game {missing}"
            );
            assert_eq!(v["detail"], format!("game {missing} not found"));
        }
    }
}

#[test]
fn a_private_game_is_seen_only_by_its_seats_and_invitees() {
    let app = spawn_app();
    let (ada, bo, cy, eve) = (
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Eve"),
    );
    // A seat kept for an address goes to an account that confirmed it (or to the link).
    app.confirm_email(&cy);
    let public = created(&app, &ada, json!({"game_type": "kasino", "players": 2}));
    assert_eq!(public["private"], false);
    let g = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 3, "private": true, "invite": [cy.email]}),
    );
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["private"], true);
    let lobby = lobby_ids(&app, &eve);
    assert!(lobby.contains(&public["id"].as_i64().unwrap()));
    assert!(!lobby.contains(&id), "a private game is never in the lobby");
    assert_hidden(&app, id, Some(&eve), "outsider");
    assert_hidden(&app, id, None, "anonymous");

    // The invitee sees it before answering, and joining takes the seat kept for them.
    assert_eq!(app.game(id, &cy)["your_seat"], Value::Null);
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&cy.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    let invitations: Value = app
        .get(&format!("/api/v1/games/{id}/invitations"), Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(invitations[0]["status"], "accepted");
    assert_eq!(invitations[0]["account_id"], cy.id);
    // The link of that invitation is used up.
    let token = invitation_token(&app, &cy.email);
    let r = app.post(
        &format!("/api/v1/invitations/{token}/accept"),
        None,
        &json!({}),
    );
    let (s, v) = assert_problem(r, "used link");
    assert_eq!((s, v["code"].as_str()), (410, Some("invitation_closed")));

    // A private game without invitees left: the third seat is nobody's to take.
    assert_hidden(&app, id, Some(&bo), "not invited");
    // Seated players see and play it; a seated player is no creator.
    let r = app.get(&format!("/api/v1/games/{id}/invitations"), Some(&cy.token));
    let (s, v) = assert_problem(r, "not the creator");
    assert_eq!((s, v["code"].as_str()), (403, Some("not_game_creator")));
    assert_eq!(app.game(id, &ada)["private"], true);
    assert_eq!(app.game(id, &cy)["your_seat"], 1);
    // My games list it, for its seats.
    let mine: Value = app.get("/api/v1/games", Some(&cy.token)).json().unwrap();
    assert_eq!(mine["items"][0]["id"], id);
}

#[test]
fn a_newcomer_accepts_by_the_emailed_link_and_gets_an_account_and_the_seat() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let newcomer = fresh_address("Newcomer");
    let g = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "invite": [newcomer.to_uppercase()]}),
    );
    let id = g["id"].as_i64().unwrap();
    assert_eq!(g["status"], "open");
    // The seat is kept: nobody else may join, and the lobby does not offer it.
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&bo.token),
        &json!({}),
    );
    let (s, v) = assert_problem(r, "reserved seat");
    assert_eq!((s, v["code"].as_str()), (409, Some("seats_reserved")));
    assert!(!lobby_ids(&app, &bo).contains(&id));
    // A public game with invitations is still watchable.
    assert_eq!(app.get(&format!("/api/v1/games/{id}"), None).status(), 200);

    let token = invitation_token(&app, &newcomer);
    let page = app.get(&format!("/api/v1/invitations/{token}"), None);
    assert_eq!(page.status(), 200);
    assert!(
        page.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let html = page.text().unwrap();
    assert!(html.contains("Ada invites you to play Kasino"), "{html}");
    assert!(html.contains("name=\"password\""), "{html}");
    assert!(html.contains(&format!("/api/v1/invitations/{token}/accept")));

    // A bad form changes nothing.
    let r = form(
        &app,
        &format!("/api/v1/invitations/{token}/accept"),
        "name=Newcomer&password=short",
    );
    assert_eq!(
        assert_problem(r, "short password").1["code"],
        "password_too_short"
    );
    let r = form(&app, &format!("/api/v1/invitations/{token}/accept"), "");
    assert_eq!(
        assert_problem(r, "no details").1["code"],
        "account_details_required"
    );
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": newcomer, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 401, "no account was made yet");

    // Accepted on the page: on to the game in the web client, signed in (the new
    // account's token in the fragment, which no server sees).
    let r = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
        .post(app.url(&format!("/api/v1/invitations/{token}/accept")))
        .header("content-type", "application/x-www-form-urlencoded")
        .body("name=New+Comer&password=correct+horse+battery")
        .send()
        .unwrap();
    assert_eq!(r.status(), 303);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let welcome = format!("/#/welcome/{id}/");
    let at = location.find(&welcome).expect("to the game, signed in");
    let session = &location[at + welcome.len()..];
    let me: Value = app.get("/api/v1/me", Some(session)).json().unwrap();
    assert_eq!(
        me["name"], "New Comer",
        "the fragment's token is the new account's"
    );

    // The new account signs in, its address confirmed, and plays.
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": newcomer, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 200);
    let t = r.json::<Value>().unwrap()["access_token"]
        .as_str()
        .unwrap()
        .to_string();
    let me: Value = app.get("/api/v1/me", Some(&t)).json().unwrap();
    assert_eq!(me["name"], "New Comer");
    assert_eq!(me["email_status"], "verified");
    let game: Value = app
        .get(&format!("/api/v1/games/{id}"), Some(&t))
        .json()
        .unwrap();
    assert_eq!(game["status"], "active", "the last seat started the game");
    assert_eq!(game["your_seat"], 1);
    assert_eq!(game["seats"][1]["account_id"], me["id"]);

    // The link works once.
    for r in [
        app.get(&format!("/api/v1/invitations/{token}"), None),
        form(
            &app,
            &format!("/api/v1/invitations/{token}/accept"),
            "name=Eve&password=correct+horse+battery",
        ),
        app.post(
            &format!("/api/v1/invitations/{token}/decline"),
            None,
            &json!({}),
        ),
    ] {
        let (s, v) = assert_problem(r, "reused link");
        assert_eq!((s, v["code"].as_str()), (410, Some("invitation_closed")));
    }
}

#[test]
fn declining_or_cancelling_frees_the_seat_and_an_account_holder_is_recognised() {
    let app = spawn_app();
    let (ada, bo, cy, di) = (
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Di"),
    );
    let (x, y) = (fresh_address("x"), fresh_address("y"));
    let g = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 4, "invite": [x, y, di.email]}),
    );
    let id = g["id"].as_i64().unwrap();
    let list = |p: &Player| app.get(&format!("/api/v1/games/{id}/invitations"), Some(&p.token));
    let invitations: Value = list(&ada).json().unwrap();
    let statuses: Vec<&str> = invitations
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["pending"; 3]);
    assert_eq!(invitations[0]["email"], x.as_str());
    let (s, v) = assert_problem(list(&bo), "someone else's invitations");
    assert_eq!((s, v["code"].as_str()), (403, Some("not_game_creator")));
    let join = |p: &Player| {
        app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&p.token),
            &json!({}),
        )
    };
    assert_eq!(
        assert_problem(join(&bo), "full").1["code"],
        "seats_reserved"
    );

    // x declines through the API: the seat is anyone's again.
    let tx = invitation_token(&app, &x);
    let r = app.post(
        &format!("/api/v1/invitations/{tx}/decline"),
        None,
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().unwrap()["game_id"], id);
    assert_eq!(join(&bo).status(), 200);

    // The creator withdraws y's invitation: its link dies, the seat is free.
    let y_id = invitations[1]["id"].as_i64().unwrap();
    let cancel = |p: &Player, inv: i64| {
        app.client
            .delete(app.url(&format!("/api/v1/games/{id}/invitations/{inv}")))
            .bearer_auth(&p.token)
            .send()
            .unwrap()
    };
    let (s, v) = assert_problem(cancel(&bo, y_id), "not the creator cancels");
    assert_eq!((s, v["code"].as_str()), (403, Some("not_game_creator")));
    assert_eq!(cancel(&ada, y_id).status(), 204);
    let (s, v) = assert_problem(cancel(&ada, y_id), "cancelled twice");
    assert_eq!((s, v["code"].as_str()), (410, Some("invitation_closed")));
    let (s, v) = assert_problem(cancel(&ada, 987_654), "no such invitation");
    assert_eq!((s, v["code"].as_str()), (404, Some("invitation_not_found")));
    let ty = invitation_token(&app, &y);
    let r = app.post(
        &format!("/api/v1/invitations/{ty}/accept"),
        None,
        &json!({"name": "Y", "password": "correct horse battery"}),
    );
    assert_eq!(
        assert_problem(r, "cancelled link").1["code"],
        "invitation_closed"
    );
    assert_eq!(join(&cy).status(), 200);

    // Di has an account under the invited address, not confirmed yet: the link alone does
    // not seat it (whoever signed up may not own the address).
    let td = invitation_token(&app, &di.email);
    let r = app.post(
        &format!("/api/v1/invitations/{td}/accept"),
        None,
        &json!({}),
    );
    assert_eq!(
        assert_problem(r, "unconfirmed account holder").1["code"],
        "sign_in_required"
    );
    // Once Di confirmed it, the link alone seats Di, and the game starts with the last seat.
    app.confirm_email(&di);
    let page = app
        .get(&format!("/api/v1/invitations/{td}"), None)
        .text()
        .unwrap();
    assert!(page.contains("Accept and play as Di"), "{page}");
    let r = app.post(
        &format!("/api/v1/invitations/{td}/accept"),
        None,
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    let done: Value = r.json().unwrap();
    assert_eq!(done["account_id"], di.id);
    assert_eq!(done["account_created"], false);
    assert_eq!(done["access_token"], Value::Null);
    assert_eq!(done["game_started"], true);
    assert_eq!(app.game(id, &di)["status"], "active");
    let statuses: Vec<String> = list(&ada)
        .json::<Value>()
        .unwrap()
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["status"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(statuses, ["declined", "cancelled", "accepted"]);
}

#[test]
fn a_signed_in_player_may_accept_a_link_sent_to_another_address() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let other = fresh_address("bo-at-work");
    let g = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "private": true, "invite": [other]}),
    );
    let id = g["id"].as_i64().unwrap();
    let token = invitation_token(&app, &other);
    let r = app
        .client
        .post(app.url(&format!("/api/v1/invitations/{token}/accept")))
        .bearer_auth(&bo.token)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let done: Value = r.json().unwrap();
    assert_eq!(
        (done["account_id"].as_i64(), done["seat"].as_i64()),
        (Some(bo.id), Some(1))
    );
    assert_eq!(app.game(id, &bo)["your_seat"], 1);
}

#[test]
fn forged_and_garbage_invitation_requests_are_problems() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let base = |body: Value| {
        let mut g = json!({"game_type": "kasino", "players": 4});
        g.as_object_mut()
            .unwrap()
            .extend(body.as_object().unwrap().clone());
        g
    };
    let thousand: Vec<String> = (0..1000).map(|i| format!("p{i}@example.org")).collect();
    for (body, code) in [
        (json!({"invite": thousand}), "too_many_invitees"),
        (
            json!({"invite": ["a@example.org", "b@example.org", "c@example.org", "d@example.org"]}),
            "too_many_invitees",
        ),
        (json!({"invite": ["not an address"]}), "invalid_email"),
        (json!({"invite": ["nobody"]}), "invalid_email"),
        (json!({"invite": ["a\u{0}b@example.org"]}), "invalid_email"),
        (json!({"invite": [""]}), "invalid_email"),
        (
            json!({"invite": [format!("{}@example.org", "x".repeat(300))]}),
            "invalid_email",
        ),
        (
            json!({"invite": ["a@example.org", "A@EXAMPLE.ORG"]}),
            "duplicate_invitee",
        ),
        (
            json!({"invite": [ada.email.to_uppercase()]}),
            "cannot_invite_yourself",
        ),
        (json!({"invite": "a@example.org"}), "invalid_body"),
        (json!({"invite": [12]}), "invalid_body"),
        (json!({"private": "yes"}), "invalid_body"),
        (json!({"private": 1}), "invalid_body"),
        (json!({"players": 1e30}), "invalid_body"),
    ] {
        let r = create(&app, &ada, base(body.clone()));
        let (s, v) = assert_problem(r, &body.to_string());
        assert_eq!(v["code"], code, "{body}");
        assert_eq!(s, 422, "{body}");
    }
    let mine: Value = app.get("/api/v1/games", Some(&ada.token)).json().unwrap();
    assert_eq!(mine["total"], 0, "nothing was created");
    assert!(app.mails().is_empty(), "nothing was sent");

    // Forged, malformed and unknown tokens: 403, never a 500.
    let forged = hex::encode(rand::random::<[u8; 32]>());
    for t in [
        forged.as_str(),
        "abc",
        "%00",
        "0000000000000000000000000000000000000000000000000000000000000000000000",
        &"zz".repeat(32),
    ] {
        for r in [
            app.get(&format!("/api/v1/invitations/{t}"), None),
            app.post(&format!("/api/v1/invitations/{t}/accept"), None, &json!({})),
            app.post(
                &format!("/api/v1/invitations/{t}/decline"),
                None,
                &json!({}),
            ),
        ] {
            let (s, v) = assert_problem(r, t);
            assert_eq!((s, v["code"].as_str()), (403, Some("invalid_link")), "{t}");
        }
    }

    // A real token with a bad body: nothing changes.
    let invitee = fresh_address("Invitee");
    created(&app, &ada, base(json!({"invite": [invitee]})));
    let token = invitation_token(&app, &invitee);
    let accept = format!("/api/v1/invitations/{token}/accept");
    let raw = |body: &str| {
        app.client
            .post(app.url(&accept))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap()
    };
    for (body, status, code) in [
        ("{", 400, "invalid_json"),
        ("{\"name\": 5}", 422, "invalid_body"),
        ("{\"nickname\": \"x\"}", 422, "invalid_body"),
        (
            "{\"name\": \"\", \"password\": \"correct horse battery\"}",
            422,
            "invalid_name",
        ),
        (
            "{\"name\": \"a\\u0000b\", \"password\": \"correct horse battery\"}",
            422,
            "invalid_name",
        ),
        (
            "{\"name\": \"Ivy\", \"password\": \"short\"}",
            422,
            "password_too_short",
        ),
        ("{\"name\": \"Ivy\"}", 422, "account_details_required"),
        ("{}", 422, "account_details_required"),
    ] {
        let (s, v) = assert_problem(raw(body), body);
        assert_eq!((s, v["code"].as_str()), (status, Some(code)), "{body}");
    }
    let r = form(&app, &accept, "name=%00&password=correct+horse+battery");
    assert_eq!(assert_problem(r, "NUL name").1["code"], "invalid_name");
    // Still open after all that.
    assert_eq!(
        app.get(&format!("/api/v1/invitations/{token}"), None)
            .status(),
        200
    );
}

/// The last player leaving a game with invitations out deletes the game, whether the
/// invitation emails went already or not; the links then lead nowhere. (Leaving after the
/// email is sent must not answer 500, though the sent email points at the game.)
#[test]
fn the_creator_leaving_a_game_with_invitations_out_deletes_it() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let x = fresh_address("x");
    let g = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "invite": [x], "bots": null}),
    );
    let id = g["id"].as_i64().unwrap();
    // The email has gone out (the case that failed).
    let token = invitation_token(&app, &x);
    let r = app.post(
        &format!("/api/v1/games/{id}/leave"),
        Some(&ada.token),
        &json!({}),
    );
    assert_eq!(r.status(), 204, "{}", r.text().unwrap_or_default());
    let (s, v) = assert_problem(
        app.get(&format!("/api/v1/games/{id}"), Some(&ada.token)),
        "a deleted game",
    );
    assert_eq!((s, v["code"].as_str()), (404, Some("game_not_found")));
    let r = app.post(
        &format!("/api/v1/invitations/{token}/accept"),
        None,
        &json!({"name": "X", "password": "correct horse battery"}),
    );
    // The invitation went with the game: its link is one the server no longer knows.
    let (s, v) = assert_problem(r, "the link of a deleted game");
    assert_eq!((s, v["code"].as_str()), (403, Some("invalid_link")));

    // Before the email goes: the game is deleted and the invitation is never sent.
    let y = fresh_address("y");
    let g = created(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 2, "invite": [y]}),
    );
    let id = g["id"].as_i64().unwrap();
    let r = app.post(
        &format!("/api/v1/games/{id}/leave"),
        Some(&ada.token),
        &json!({}),
    );
    assert_eq!(r.status(), 204, "{}", r.text().unwrap_or_default());
    assert_eq!(
        app.get(&format!("/api/v1/games/{id}"), Some(&ada.token))
            .status(),
        404
    );
}
