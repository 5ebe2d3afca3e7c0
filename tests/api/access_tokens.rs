//! Personal access tokens and scopes, from outside: a `play` token plays but cannot touch
//! the account, the list never shows a secret, revoking and signing out take effect at
//! once, the per-account cap holds under 20 concurrent creations, and every bearer route
//! of the OpenAPI description has a scope.

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};

fn make_token(app: &TestApp, p: &Player, scopes: &[&str]) -> (i64, String) {
    let r = app.post(
        "/api/v1/me/tokens",
        Some(&p.token),
        &json!({"name": "bot", "scopes": scopes}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let v: Value = r.json().unwrap();
    (
        v["id"].as_i64().unwrap(),
        v["token"].as_str().unwrap().to_string(),
    )
}

fn delete(app: &TestApp, path: &str, token: &str) -> reqwest::blocking::Response {
    app.client
        .delete(app.url(path))
        .bearer_auth(token)
        .send()
        .unwrap()
}

#[test]
fn a_play_token_plays_but_is_refused_on_account_routes() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let (_, play) = make_token(&app, &ada, &["play"]);
    assert!(play.starts_with("tp_") && play.len() == 3 + 64, "{play}");

    // Play routes: read, create and act on games.
    assert_eq!(app.get("/api/v1/me", Some(&play)).status(), 200);
    assert_eq!(app.get("/api/v1/games", Some(&play)).status(), 200);
    let r = app.post(
        "/api/v1/games",
        Some(&play),
        &json!({"game_type": "kasino", "players": 2}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        app.get(&format!("/api/v1/games/{id}"), Some(&play))
            .status(),
        200
    );
    let r = app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    let r = app.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&play),
        &json!({}),
    );
    assert!(r.status().is_success(), "{}", r.text().unwrap_or_default());

    // Account routes: 403 insufficient_scope, naming the scope.
    let refused = [
        app.client
            .patch(app.url("/api/v1/me"))
            .bearer_auth(&play)
            .json(&json!({"name": "Eve"}))
            .send()
            .unwrap(),
        app.get("/api/v1/me/webhooks", Some(&play)),
        app.post(
            "/api/v1/me/vacation",
            Some(&play),
            &json!({"from": "2030-01-01T00:00:00Z", "until": "2030-01-02T00:00:00Z"}),
        ),
        app.get("/api/v1/me/tokens", Some(&play)),
        app.post(
            "/api/v1/me/tokens",
            Some(&play),
            &json!({"name": "more", "scopes": ["account"]}),
        ),
        app.post("/api/v1/me/calendar/reset", Some(&play), &json!({})),
    ];
    for r in refused {
        let url = r.url().to_string();
        let (status, v) = assert_problem(r, &url);
        assert_eq!(status, 403, "{url}: {v}");
        assert_eq!(v["code"], "insufficient_scope", "{url}: {v}");
        assert_eq!(v["required_scope"], "account", "{url}: {v}");
    }
    // The name was not changed by the refused PATCH.
    let me: Value = app.get("/api/v1/me", Some(&ada.token)).json().unwrap();
    assert_eq!(me["name"], "Ada");

    // An `account` token manages the account but does not play.
    let (_, acct) = make_token(&app, &ada, &["account"]);
    assert_eq!(app.get("/api/v1/me/tokens", Some(&acct)).status(), 200);
    let (status, v) = assert_problem(app.get("/api/v1/games", Some(&acct)), "games");
    assert_eq!((status, v["required_scope"].clone()), (403, json!("play")));
}

#[test]
fn the_list_never_shows_a_secret_and_a_revoked_token_is_refused_at_once() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let (id, tok) = make_token(&app, &ada, &["play", "account"]);
    assert_eq!(app.get("/api/v1/me", Some(&tok)).status(), 200);

    let r = app.get("/api/v1/me/tokens", Some(&ada.token));
    assert_eq!(r.status(), 200);
    let body = r.text().unwrap();
    assert!(
        !body.contains(&tok[3..]),
        "the list shows the secret: {body}"
    );
    let list: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["id"], id);
    assert_eq!(list[0]["scopes"], json!(["play", "account"]));
    assert!(list[0].get("token").is_none(), "{body}");
    assert!(list[0]["last_used_at"].is_string(), "used once: {body}");

    // Another account cannot revoke it.
    let bo = app.player("Bo");
    let r = delete(&app, &format!("/api/v1/me/tokens/{id}"), &bo.token);
    assert_eq!(assert_problem(r, "other's").0, 404);
    assert_eq!(app.get("/api/v1/me", Some(&tok)).status(), 200);

    let r = delete(&app, &format!("/api/v1/me/tokens/{id}"), &ada.token);
    assert_eq!(r.status(), 204);
    let (status, _) = assert_problem(app.get("/api/v1/me", Some(&tok)), "revoked");
    assert_eq!(status, 401);
    // The login token still works.
    assert_eq!(app.get("/api/v1/me", Some(&ada.token)).status(), 200);
}

#[test]
fn bad_token_requests_get_their_codes() {
    let app = spawn_app();
    let ada = app.player("Ada");
    for (body, code) in [
        (
            json!({"name": "", "scopes": ["play"]}),
            "invalid_token_name",
        ),
        (
            json!({"name": "x".repeat(81), "scopes": ["play"]}),
            "invalid_token_name",
        ),
        (json!({"name": "b", "scopes": []}), "invalid_token_scopes"),
        (
            json!({"name": "b", "scopes": ["admin"]}),
            "invalid_token_scopes",
        ),
        (
            json!({"name": "b", "scopes": ["play"], "expires_in_days": 0}),
            "invalid_token_lifetime",
        ),
    ] {
        let r = app.post("/api/v1/me/tokens", Some(&ada.token), &body);
        let (status, v) = assert_problem(r, &body.to_string());
        assert_eq!((status, v["code"].as_str().unwrap()), (422, code), "{body}");
    }
    let r = app.post(
        "/api/v1/me/tokens",
        Some(&ada.token),
        &json!({"name": "b", "scopes": ["play"], "expires_in_days": 30}),
    );
    assert_eq!(r.status(), 201);
    assert!(r.json::<Value>().unwrap()["expires_at"].is_string());
}

#[test]
fn twenty_concurrent_creations_respect_the_cap() {
    let app = spawn_app();
    let ada = app.player("Ada");
    for _ in 0..15 {
        make_token(&app, &ada, &["play"]);
    }
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..20)
            .map(|_| {
                s.spawn(|| {
                    app.post(
                        "/api/v1/me/tokens",
                        Some(&ada.token),
                        &json!({"name": "race", "scopes": ["play"]}),
                    )
                })
            })
            .collect();
        hs.into_iter()
            .map(|h| {
                let r = h.join().unwrap();
                let s = r.status().as_u16();
                if s != 201 {
                    let (_, v) = assert_problem(r, "over the cap");
                    assert_eq!(v["code"], "too_many_access_tokens");
                }
                s
            })
            .collect()
    });
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        5,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 409).count(),
        15,
        "{statuses:?}"
    );
    let list: Value = app
        .get("/api/v1/me/tokens", Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(list.as_array().unwrap().len(), 20);
}

#[test]
fn logout_revokes_the_token_used_and_only_it() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let other_login = app.token_for(&ada.email, "correct horse battery");
    let r = app.post("/api/v1/auth/logout", Some(&ada.token), &json!({}));
    assert_eq!(r.status(), 204, "{}", r.text().unwrap_or_default());
    let (status, _) = assert_problem(app.get("/api/v1/me", Some(&ada.token)), "signed out");
    assert_eq!(status, 401);
    assert_eq!(app.get("/api/v1/me", Some(&other_login)).status(), 200);

    // A play-only personal access token may sign itself out.
    let ada = Player {
        token: other_login.clone(),
        ..ada
    };
    let (_, pat) = make_token(&app, &ada, &["play"]);
    let r = app.post("/api/v1/auth/logout", Some(&pat), &json!({}));
    assert_eq!(r.status(), 204);
    assert_eq!(
        assert_problem(app.get("/api/v1/me", Some(&pat)), "pat").0,
        401
    );
    let list: Value = app
        .get("/api/v1/me/tokens", Some(&other_login))
        .json()
        .unwrap();
    assert_eq!(list, json!([]));
}

#[test]
fn every_bearer_route_of_the_description_has_a_scope() {
    let doc: Value = serde_yaml::from_str(&turnpost::api::openapi_yaml()).unwrap();
    let mut seen = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let Some(reqs) = op["security"].as_array() else {
                continue;
            };
            if !reqs.iter().any(|r| r.get("bearer").is_some()) {
                continue;
            }
            let m = method.to_ascii_uppercase();
            let classified = turnpost::api::scopes::ROUTES
                .iter()
                .any(|(rm, rp, _)| *rm == m && rp == path)
                || turnpost::api::scopes::ANY_SCOPE
                    .iter()
                    .any(|(rm, rp)| *rm == m && rp == path);
            assert!(
                classified,
                "{m} {path} is in no scope: add it to api::scopes::ROUTES"
            );
            seen += 1;
        }
    }
    assert!(seen > 30, "{seen}");
    // And the table names no route that does not exist.
    for (m, p, _) in turnpost::api::scopes::ROUTES {
        assert!(
            doc["paths"][p][m.to_ascii_lowercase()].is_object(),
            "{m} {p} is classified but not described"
        );
    }
}
