//! Small mismatches between what the API says and what it does: path
//! ids, one status per problem code, the new account's `Location`.

use reqwest::blocking::Response;
use serde_json::{Value, json};
use turnpost::domain::ProblemCode;

use crate::helpers::*;

/// A problem whose status is the one its code's page gives.
fn assert_page_status(r: Response, what: &str, code: &str) -> Value {
    let (status, body) = assert_problem(r, what);
    assert_eq!(body["code"], code, "{what}: {body}");
    let page = ProblemCode::from_word(code).expect("a known code");
    assert_eq!(status, page.status(), "{what}: {body}");
    body
}

#[test]
fn an_id_in_the_path_that_is_no_number_is_invalid_path_naming_the_parameter() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let id = app.start_game("kasino", json!({}), &[&ada, &app.player("Bo")]);
    for (path, parameter, value) in [
        ("/api/v1/games/abc".to_string(), "id", "abc"),
        (
            "/api/v1/games/99999999999999999999".to_string(),
            "id",
            "99999999999999999999",
        ),
        ("/api/v1/games/1.5/log".to_string(), "id", "1.5"),
        (format!("/api/v1/games/{id}/views/x"), "version", "x"),
        ("/api/v1/accounts/me/ratings".to_string(), "id", "me"),
    ] {
        let body = assert_page_status(app.get(&path, Some(&ada.token)), &path, "invalid_path");
        assert_eq!(body["status"], 404, "{path}: {body}");
        assert_eq!(body["parameter"], parameter, "{path}: {body}");
        let detail = body["detail"].as_str().unwrap();
        assert!(
            detail.contains(value) && detail.contains("whole number"),
            "{detail}"
        );
        assert!(
            !detail.contains("i64") && !detail.contains("deserialize"),
            "{detail}"
        );
    }
    // The code has its page.
    assert_eq!(app.get("/problems/invalid_path", None).status(), 200);
}

#[test]
fn invalid_query_and_invalid_body_answer_with_their_pages_status_everywhere() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let id = app.start_game("kasino", json!({}), &[&ada, &app.player("Bo")]);
    for path in [
        format!("/api/v1/games/{id}/log?limit=0"),
        format!("/api/v1/games/{id}/log?after=-1"),
        "/api/v1/games?per_page=1000".to_string(),
        "/api/v1/games?page=x".to_string(),
        format!("/api/v1/accounts/{}/ratings?page=0", ada.id),
    ] {
        assert_page_status(app.get(&path, Some(&ada.token)), &path, "invalid_query");
    }
    // A form that is not UTF-8 was a 400 `invalid_body`; JSON of the wrong shape a 422.
    let r = app
        .client
        .post(app.url("/api/v1/invitations/anything/accept"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(vec![b'n', b'a', b'm', b'e', b'=', 0xff, 0xfe])
        .send()
        .unwrap();
    assert_page_status(r, "a form not in UTF-8", "invalid_body");
    let r = app.post(
        "/api/v1/me/webhooks",
        Some(&ada.token),
        &json!({"url": 5, "events": "x"}),
    );
    assert_page_status(r, "a webhook of the wrong shape", "invalid_body");
}

#[test]
fn a_new_accounts_location_is_the_account_it_signs_in_to() {
    let app = spawn_app();
    let email = fresh_email("Cy");
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": email, "name": "Cy", "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 201);
    let location = r.headers()["location"].to_str().unwrap().to_string();
    let created: Value = r.json().unwrap();
    assert_eq!(location, "/api/v1/me");
    let token = app.token_for(&email, "correct horse battery");
    let r = app.get(&location, Some(&token));
    assert_eq!(r.status(), 200, "GET {location}");
    assert_eq!(r.json::<Value>().unwrap()["id"], created["id"]);
}
