//! Rotating the server secret: after a rotation, what the previous
//! secret signed (login tokens, reply addresses in turn emails, links in emails) keeps
//! working until the grace period ends, and everything new is signed with the new secret.

use secrecy::{ExposeSecret, SecretString};
use serde_json::json;

use crate::email_play::{deliver, first_choice_reply, reply};
use crate::helpers::{Player, TestApp, spawn_app, spawn_node, test_secret};

const NEW_SECRET: &str = "the-new-secret-after-a-rotation-0123456789";

/// A node on `app`'s database that signs with the new secret and accepts the test secret
/// until `grace_secs` from now (negative: a grace period already over).
fn rotated(app: &TestApp, grace_secs: i64) -> TestApp {
    spawn_node(
        app.database_url.clone(),
        SecretString::from(NEW_SECRET),
        |s| {
            s.jwt_secret_previous = Some(test_secret());
            s.jwt_secret_previous_until =
                Some(chrono::Utc::now() + chrono::Duration::seconds(grace_secs));
        },
    )
}

fn me_status(app: &TestApp, token: &str) -> u16 {
    app.get("/api/v1/me", Some(token)).status().as_u16()
}

/// The confirmation link mailed to `p`, not followed.
fn confirmation_link(app: &TestApp, p: &Player) -> String {
    let r = app.post("/api/v1/me/verify-email", Some(&p.token), &json!({}));
    assert_eq!(r.status(), 202, "ask for the confirmation email");
    let subject = "[Turnpost] Confirm your email address";
    let mails = app.wait_for_mails("a confirmation email", |m| {
        m.iter().any(|x| x.to == p.email && x.subject == subject)
    });
    mails
        .iter()
        .filter(|x| x.to == p.email && x.subject == subject)
        .find_map(|m| {
            m.text
                .lines()
                .find_map(|l| l.trim().split_once("/api/v1/verify-email/"))
                .map(|(_, token)| token.trim().to_string())
        })
        .expect("a link in the confirmation email")
}

#[test]
fn after_a_rotation_what_the_old_secret_signed_works_until_the_grace_period_ends() {
    assert_ne!(test_secret().expose_secret(), NEW_SECRET);
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    // Signed with the old secret: login tokens, a turn email's reply address, a link.
    let (from, to, first, _) = first_choice_reply(&app, id, &[&ada, &bo], "rotation-1@mail.test");
    // The same reply again, as a new message (a resent one is a duplicate).
    let again = |n: u32| {
        reply(
            &from,
            &to,
            "Your turn",
            "1",
            "",
            &format!("rotation-{n}@mail.test"),
        )
    };
    let link = confirmation_link(&app, &bo);

    let new = rotated(&app, 3600);
    assert_eq!(
        me_status(&new, &ada.token),
        200,
        "an old token, in the grace period"
    );
    let r = deliver(&new, &first);
    assert_eq!(r["outcome"], "applied", "an old reply address: {r}");
    let r = new.get(&format!("/api/v1/verify-email/{link}"), None);
    assert_eq!(r.status(), 200, "an old confirmation link");

    // A token issued now is signed with the new secret alone.
    let fresh = new.token_for(&ada.email, "correct horse battery");
    assert_eq!(me_status(&new, &fresh), 200);
    assert_eq!(
        me_status(&app, &fresh),
        401,
        "the old secret cannot check it"
    );

    // The grace period over: the old token and reply address no longer count; the new
    // token does.
    let over = rotated(&app, -1);
    assert_eq!(
        me_status(&over, &ada.token),
        401,
        "an old token after the grace"
    );
    assert_eq!(me_status(&over, &bo.token), 401);
    assert_eq!(me_status(&over, &fresh), 200);
    let r = deliver(&over, &again(2));
    assert_eq!(r["code"], "invalid_reply_token", "{r}");
    // ...where in the grace period the same reply was only stale.
    let during = rotated(&app, 3600);
    let r = deliver(&during, &again(3));
    assert_eq!(r["code"], "stale_token", "{r}");
}
