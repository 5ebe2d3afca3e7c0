use serde_json::{Value, json};

use crate::helpers::spawn_app;

#[test]
fn sign_up_login_me_and_the_errors_around_them() {
    let app = spawn_app();
    let body =
        json!({"email": "Ada@Example.org", "name": "Ada", "password": "correct horse battery"});
    let r = app.post("/api/v1/accounts", None, &body);
    assert_eq!(r.status(), 201);
    let created: Value = r.json().unwrap();
    assert_eq!(created["email"], "Ada@Example.org");
    assert!(created.get("password_hash").is_none());

    // Same email in another case: taken.
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": "ada@example.ORG", "name": "Ada 2", "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 409);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    assert_eq!(r.json::<Value>().unwrap()["code"], "email_taken");

    for (bad, code) in [
        (
            json!({"email": "not-an-email", "name": "X", "password": "correct horse battery"}),
            "invalid_email",
        ),
        (
            json!({"email": "x@example.org", "name": "X", "password": "short"}),
            "password_too_short",
        ),
        (
            json!({"email": "x@example.org", "name": " ", "password": "correct horse battery"}),
            "invalid_name",
        ),
    ] {
        let r = app.post("/api/v1/accounts", None, &bad);
        assert_eq!(r.status(), 422, "{bad}");
        let p: Value = r.json().unwrap();
        assert_eq!(p["code"], code);
        assert_eq!(p["status"], 422);
        assert!(p["type"].as_str().unwrap().ends_with(code));
    }
    // Unknown fields and broken JSON are refused with problem documents too.
    let r = app.post("/api/v1/accounts", None, &json!({"email": "y@example.org", "name": "Y", "password": "correct horse battery", "admin": true}));
    assert_eq!(r.status(), 422);
    assert_eq!(r.json::<Value>().unwrap()["code"], "invalid_body");
    let r = app
        .client
        .post(app.url("/api/v1/accounts"))
        .header("content-type", "application/json")
        .body("{\"email\":")
        .send()
        .unwrap();
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().unwrap()["code"], "invalid_json");

    // Login, wrong password and unknown email give the same 401.
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": "ada@example.org", "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 200);
    let tok: Value = r.json().unwrap();
    assert_eq!(tok["token_type"], "Bearer");
    assert!(tok["expires_in"].as_i64().unwrap() > 0);
    let token = tok["access_token"].as_str().unwrap().to_string();
    let wrong = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": "ada@example.org", "password": "wrong horse battery"}),
    );
    let unknown = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": "nobody@example.org", "password": "wrong horse battery"}),
    );
    assert_eq!(wrong.status(), 401);
    assert_eq!(unknown.status(), 401);
    assert_eq!(
        wrong.json::<Value>().unwrap()["detail"],
        unknown.json::<Value>().unwrap()["detail"]
    );

    let r = app.get("/api/v1/me", Some(&token));
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().unwrap()["id"], created["id"]);
    let r = app.get("/api/v1/me", None);
    assert_eq!(r.status(), 401);
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    assert_eq!(app.get("/api/v1/me", Some("garbage")).status(), 401);

    // PATCH /me: notifications off, name change; password change needs the current one.
    let r = app
        .client
        .patch(app.url("/api/v1/me"))
        .bearer_auth(&token)
        .json(&json!({"email_notifications": false, "name": "Ada L."}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let me: Value = r.json().unwrap();
    assert_eq!(me["email_notifications"], false);
    assert_eq!(me["name"], "Ada L.");
    let r = app
        .client
        .patch(app.url("/api/v1/me"))
        .bearer_auth(&token)
        .json(&json!({"password": "a brand new password"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = app
        .client
        .patch(app.url("/api/v1/me"))
        .bearer_auth(&token)
        .json(&json!({"password": "a brand new password", "current_password": "correct horse battery"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": "ada@example.org", "password": "a brand new password"}),
    );
    assert_eq!(r.status(), 200);
}

#[test]
fn repeated_login_failures_are_throttled_with_retry_after() {
    let app = spawn_app();
    let p = app.player("Bo");
    let mut statuses = Vec::new();
    for _ in 0..7 {
        let r = app.post(
            "/api/v1/auth/token",
            None,
            &json!({"email": p.email, "password": "not the password"}),
        );
        statuses.push(r.status().as_u16());
        if r.status() == 429 {
            let retry: u64 = r.headers()["retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(retry >= 1);
            assert_eq!(r.json::<Value>().unwrap()["code"], "too_many_attempts");
        }
    }
    assert_eq!(&statuses[..5], &[401; 5]);
    assert_eq!(&statuses[5..], &[429, 429]);
    // Even the right password is refused while locked out.
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": p.email, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 429);
}

#[test]
fn health_readiness_and_unknown_paths() {
    let app = spawn_app();
    assert_eq!(app.get("/healthz", None).status(), 200);
    assert_eq!(app.get("/readyz", None).status(), 200);
    let r = app.get("/api/v1/nothing-here", None);
    assert_eq!(r.status(), 404);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
}
