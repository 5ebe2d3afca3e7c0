//! Password reset by email: the same answer for every address, a link that
//! works once and for an hour, old tokens revoked, requests throttled per address and per
//! client, and twenty of the same at once.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use diesel::prelude::*;
use reqwest::blocking::Client;
use serde_json::{Value, json};
use turnpost::notify::reset_links::Fingerprint;
use turnpost::store::kinds::AccountId;

use crate::helpers::{Player, TestApp, assert_problem, fresh_email, spawn_app, spawn_app_with};

pub const SUBJECT: &str = "[Turnpost] Choose a new password";
const NEW_PASSWORD: &str = "a brand new passphrase";

/// A client whose requests come from 127.0.0.`n` (all of 127/8 is this machine).
fn from(n: u8) -> Client {
    Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, n)))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

fn ask(app: &TestApp, client: &Client, email: &str) -> (u16, Value, Option<String>) {
    let r = client
        .post(app.url("/api/v1/password-reset"))
        .json(&json!({ "email": email }))
        .send()
        .unwrap();
    let status = r.status().as_u16();
    let retry = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    (status, r.json().unwrap(), retry)
}

fn set_password(app: &TestApp, token: &str, password: &str) -> reqwest::blocking::Response {
    app.post(
        "/api/v1/password-reset/new-password",
        None,
        &json!({ "token": token, "password": password }),
    )
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

/// Reset emails queued to `address` (sent or not).
fn queued(app: &TestApp, address: &str) -> i64 {
    diesel::sql_query(
        "SELECT count(*) AS n FROM outbox \
         WHERE kind = 'password_reset' AND lower(to_address) = lower($1)",
    )
    .bind::<diesel::sql_types::Text, _>(address)
    .get_result::<Count>(&mut PgConnection::establish(&app.database_url).unwrap())
    .unwrap()
    .n
}

/// The tokens of the reset links mailed to `address`, once `n` have come.
pub fn reset_links(app: &TestApp, address: &str, n: usize) -> Vec<String> {
    let mine = |m: &crate::helpers::Mail| m.to == address && m.subject == SUBJECT;
    let mails = app.wait_for_mails("reset links", |m| m.iter().filter(|m| mine(m)).count() >= n);
    let marker = "http://turnpost.test/#/reset/";
    mails
        .iter()
        .filter(|m| mine(m))
        .map(|m| {
            assert!(
                m.reply_to.is_empty() && !m.text.contains("unsubscribe"),
                "{}",
                m.text
            );
            let at = m.text.find(marker).expect("a link") + marker.len();
            let token: String = m.text[at..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            assert!(
                m.html.contains(&format!("{marker}{token}")),
                "the HTML part has the link too: {}",
                m.html
            );
            token
        })
        .collect()
}

#[derive(QueryableByName)]
struct Row {
    #[diesel(sql_type = diesel::sql_types::Text)]
    password_hash: String,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    token_generation: i32,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    reset_generation: i32,
}

/// A link for `p` made by the server's own signer, as it would have been mailed with
/// `expires` (Unix seconds).
fn crafted(app: &TestApp, p: &Player, expires: i64) -> String {
    let row: Row = diesel::sql_query(
        "SELECT password_hash, token_generation, reset_generation FROM accounts WHERE id = $1",
    )
    .bind::<diesel::sql_types::BigInt, _>(p.id)
    .get_result(&mut PgConnection::establish(&app.database_url).unwrap())
    .unwrap();
    app.domain().reset_links.token(
        AccountId(p.id),
        expires,
        &Fingerprint {
            password_hash: &row.password_hash,
            token_generation: row.token_generation,
            reset_generation: row.reset_generation,
            email: &p.email,
        },
    )
}

#[test]
fn a_reset_answers_alike_for_every_address_and_its_link_works_once() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let nobody = fresh_email("nobody");
    let known = ask(&app, &app.client, &ada.email);
    let unknown = ask(&app, &app.client, &nobody);
    assert_eq!(known.0, 202, "{}", known.1);
    assert_eq!(
        known, unknown,
        "the same answer whether or not an account has it"
    );
    assert_eq!(known.1["status"], "check_your_email");
    // A malformed address is refused as such (that tells nothing about accounts).
    let (s, v) = assert_problem(
        app.post(
            "/api/v1/password-reset",
            None,
            &json!({"email": "not an address"}),
        ),
        "bad address",
    );
    assert_eq!((s, v["code"].as_str()), (422, Some("invalid_email")));

    let link = reset_links(&app, &ada.email, 1).remove(0);
    assert_eq!(
        queued(&app, &nobody),
        0,
        "nothing is mailed to an unknown address"
    );
    // A weak password is refused, and the link still works afterwards.
    let (s, v) = assert_problem(set_password(&app, &link, "password123"), "weak");
    assert_eq!((s, v["code"].as_str()), (422, Some("weak_password")));
    // A fresh link checks out, and checking it, 20 times at once, does not use it.
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let checks: Vec<_> = (0..20)
            .map(|_| {
                scope.spawn(|| {
                    app.post(
                        "/api/v1/password-reset/check",
                        None,
                        &json!({ "token": link }),
                    )
                    .status()
                    .as_u16()
                })
            })
            .collect();
        checks.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(statuses, vec![204; 20]);
    // A body that is not a check: a problem, not a 5xx.
    for body in [json!({ "token": 7 }), json!({ "token": link, "extra": 1 })] {
        let (s, v) = assert_problem(
            app.post("/api/v1/password-reset/check", None, &body),
            "a malformed check",
        );
        assert_eq!((s, v["code"].as_str()), (422, Some("invalid_body")), "{v}");
    }
    let r = set_password(&app, &link, NEW_PASSWORD);
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let fresh: Value = r.json().unwrap();
    let fresh = fresh["access_token"].as_str().unwrap().to_string();
    let me: Value = app.get("/api/v1/me", Some(&fresh)).json().unwrap();
    assert_eq!(me["email"], ada.email.as_str());
    assert_eq!(
        me["email_status"], "verified",
        "the link proved the address"
    );
    // Every token issued before is revoked; the old password no longer signs in.
    let (s, v) = assert_problem(app.get("/api/v1/me", Some(&ada.token)), "old token");
    assert_eq!((s, v["code"].as_str()), (401, Some("token_revoked")));
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": ada.email, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 401);
    app.token_for(&ada.email, NEW_PASSWORD);

    // The link works once; checking it says so, and changes nothing.
    let check = |token: &str| {
        app.post(
            "/api/v1/password-reset/check",
            None,
            &json!({ "token": token }),
        )
    };
    let (s, v) = assert_problem(check(&link), "checking a used link");
    assert_eq!((s, v["code"].as_str()), (410, Some("link_used")));
    let (s, v) = assert_problem(set_password(&app, &link, "yet another passphrase"), "reuse");
    assert_eq!((s, v["code"].as_str()), (410, Some("link_used")));
    app.token_for(&ada.email, NEW_PASSWORD);
    // Altered or made up: invalid.
    let (head, tail) = link.split_at(link.len() - 40);
    let flipped = tail.replacen(|c: char| c != '0', "0", 1);
    for bad in [format!("{head}{flipped}"), "nonsense".into(), String::new()] {
        let (s, v) = assert_problem(set_password(&app, &bad, NEW_PASSWORD), "altered");
        assert_eq!(
            (s, v["code"].as_str()),
            (403, Some("invalid_link")),
            "{bad}"
        );
    }
    // Older than its hour: expired. The same signer's link for now works, which shows the
    // crafted ones are what the server mails.
    let now = chrono::Utc::now().timestamp();
    let (s, v) = assert_problem(
        set_password(
            &app,
            &crafted(&app, &ada, now - 1),
            "yet another passphrase",
        ),
        "expired",
    );
    assert_eq!((s, v["code"].as_str()), (410, Some("link_expired")));
    let r = set_password(
        &app,
        &crafted(&app, &ada, now + 60),
        "yet another passphrase",
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    // Which revoked the token the first reset gave.
    assert_eq!(app.get("/api/v1/me", Some(&fresh)).status(), 401);
}

#[test]
fn reset_requests_are_throttled_per_address_and_per_client() {
    let app = spawn_app_with(|s| {
        s.password_reset_max_per_email = 2;
        s.password_reset_max_per_client = 4;
    });
    let ada = app.player("Ada");
    let nobody = fresh_email("nobody");
    // One address from one client: two, then 429, for an account's address and for an
    // address without one alike.
    for address in [&ada.email, &nobody] {
        let here = from(2);
        let got: Vec<u16> = (0..3).map(|_| ask(&app, &here, address).0).collect();
        assert_eq!(got, [202, 202, 429], "{address}");
    }
    let (s, v, retry) = ask(&app, &from(3), &ada.email);
    assert_eq!(
        (s, v["code"].as_str()),
        (429, Some("too_many_password_resets"))
    );
    assert!(
        retry.unwrap().parse::<u64>().unwrap() >= 1,
        "and from other clients too"
    );
    assert_eq!(queued(&app, &ada.email), 2);
    // One client, many addresses: four, then 429; another client is not affected.
    let busy = from(4);
    let got: Vec<u16> = (0..5)
        .map(|i| ask(&app, &busy, &fresh_email(&format!("x{i}"))).0)
        .collect();
    assert_eq!(got, [202, 202, 202, 202, 429]);
    assert_eq!(ask(&app, &from(5), &fresh_email("y")).0, 202);
    // One address from many clients: two.
    let cy = fresh_email("cy");
    let got: Vec<u16> = (10..13).map(|n| ask(&app, &from(n), &cy).0).collect();
    assert_eq!(got, [202, 202, 429]);
}

#[test]
fn asking_again_makes_the_earlier_link_stop_working() {
    let app = spawn_app();
    let cy = app.player("Cy");
    assert_eq!(ask(&app, &app.client, &cy.email).0, 202);
    let first = reset_links(&app, &cy.email, 1).remove(0);
    assert_eq!(ask(&app, &app.client, &cy.email).0, 202);
    let second = reset_links(&app, &cy.email, 2)
        .into_iter()
        .find(|l| *l != first)
        .expect("a second link");
    let (s, v) = assert_problem(set_password(&app, &first, NEW_PASSWORD), "older link");
    assert_eq!((s, v["code"].as_str()), (410, Some("link_used")));
    assert!(
        v["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("newer one"),
        "{v}"
    );
    let r = set_password(&app, &second, NEW_PASSWORD);
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

#[test]
fn twenty_requests_and_twenty_uses_of_one_link_at_once() {
    let app = spawn_app();
    let bo = app.player("Bo");
    let at_once = |f: &(dyn Fn(usize) -> (u16, String) + Sync)| -> Vec<(u16, String)> {
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..20).map(|i| s.spawn(move || f(i))).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    };
    // Twenty requests for one address from one client: its budget (3), no more.
    let asked = at_once(&|_| {
        let (s, v, _) = ask(&app, &app.client, &bo.email);
        (s, v.to_string())
    });
    assert_eq!(asked.iter().filter(|a| a.0 == 202).count(), 3, "{asked:?}");
    assert!(
        asked
            .iter()
            .all(|a| a.0 == 202 || (a.0 == 429 && a.1.contains("too_many_password_resets"))),
        "{asked:?}"
    );
    assert_eq!(queued(&app, &bo.email), 3);
    // Twenty uses of the three links, each with its own password: exactly one is set (only
    // the newest link works, and only once).
    let links = reset_links(&app, &bo.email, 3);
    let used = at_once(&|i| {
        let r = set_password(&app, &links[i % 3], &format!("{NEW_PASSWORD} number {i}"));
        (r.status().as_u16(), r.text().unwrap_or_default())
    });
    let won: Vec<usize> = (0..20).filter(|i| used[*i].0 == 200).collect();
    assert_eq!(won.len(), 1, "{used:?}");
    for (status, body) in used.iter().filter(|u| u.0 != 200) {
        assert_eq!(*status, 410, "{body}");
        assert!(body.contains("link_used"), "{body}");
    }
    app.token_for(&bo.email, &format!("{NEW_PASSWORD} number {}", won[0]));
    // The other links mailed before are dead too: the password they were signed over is gone.
    for other in reset_links(&app, &bo.email, 3) {
        assert_eq!(set_password(&app, &other, NEW_PASSWORD).status(), 410);
    }
}
