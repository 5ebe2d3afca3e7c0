use std::net::{IpAddr, Ipv4Addr};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use reqwest::blocking::Client;
use serde_json::{Value, json};

use crate::helpers::{
    PATIENCE, TestApp, assert_problem, fresh_email, invitation_token, spawn_app, spawn_app_with,
};

const NOTICE: &str = "[Turnpost] Someone tried to sign up with your address";
const LINK: &str = "[Turnpost] Finish creating your account";

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

    // Same email in another case: taken. This server does not require confirmed
    // addresses, so an account works at once and the answer cannot hide that (see
    // `sign_up_answers_alike_whether_or_not_the_address_has_an_account`); the owner is
    // told all the same.
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": "ada@example.ORG", "name": "Ada 2", "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 409);
    assert_eq!(r.headers()["content-type"], "application/problem+json");
    assert_eq!(r.json::<Value>().unwrap()["code"], "email_taken");
    app.wait_for_mails("the notice to the owner", |m| {
        m.iter()
            .any(|m| m.to == "Ada@Example.org" && m.subject == NOTICE)
    });

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

/// A client whose requests come from 127.0.0.`n` (all of 127/8 is this machine).
fn from(n: u8) -> Client {
    Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, n)))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

fn login(
    app: &TestApp,
    client: &Client,
    email: &str,
    password: &str,
) -> reqwest::blocking::Response {
    client
        .post(app.url("/api/v1/auth/token"))
        .json(&json!({"email": email, "password": password}))
        .send()
        .unwrap()
}

/// After 50 failures from one address, its logins are paced, not refused: the right
/// passwords of other accounts still get in, and a trusted one is not even paced.
#[test]
fn a_right_password_gets_in_from_an_address_that_failed_fifty_times() {
    // A pace far longer than a sign-in takes on a loaded machine, so that a paced attempt
    // and one that skipped the lane cannot be mistaken for each other.
    let app = spawn_app_with(|s| s.login_slow_lane_ms = 5000);
    let here = from(1);
    // Known has signed in from here before; Newbie never has.
    let known = app.player("Known");
    let newbie = fresh_email("newbie");
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": newbie, "name": "Newbie", "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 201);
    // Someone at the same address sprays guesses over 52 accounts: each is answered; past
    // the address's budget (50), guesses are paced (one per 5 s), not refused.
    let mut start = Instant::now();
    for i in 0..52 {
        if i == 50 {
            start = Instant::now();
        }
        let r = login(
            &app,
            &here,
            &format!("guess{i}@example.org"),
            "password1234",
        );
        assert_eq!(r.status(), 401, "guess {i}");
    }
    assert!(
        start.elapsed() >= Duration::from_millis(4000),
        "the second paced guess waited {:?}",
        start.elapsed()
    );
    // The right password of an account that never signed in here: slower, and in.
    let r = login(&app, &here, &newbie, "correct horse battery");
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    // Known signed in from here before: not paced at all, though the lane is busy for
    // the next 5 s.
    let start = Instant::now();
    let r = login(&app, &here, &known.email, "correct horse battery");
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    assert!(
        start.elapsed() < Duration::from_millis(4000),
        "a trusted sign-in waited {:?}",
        start.elapsed()
    );
}

/// Guesses at one account from many addresses are paced, and its owner still gets in.
#[test]
fn guesses_at_one_account_from_many_addresses_are_paced_and_its_owner_still_gets_in() {
    let app = spawn_app_with(|s| {
        s.login_max_failures_per_account = 10;
        s.login_slow_lane_ms = 1000;
    });
    // The owner signs in from 127.0.0.1 as usual.
    let owner = app.player("Owner");
    let guess = |n: u8| {
        login(&app, &from(n), &owner.email, "password1234")
            .status()
            .as_u16()
    };
    for n in 10..20 {
        assert_eq!(guess(n), 401, "guess from 127.0.0.{n}");
    }
    // Past the account's budget, each guess waits its turn: one a second.
    let start = Instant::now();
    for n in 20..24 {
        assert_eq!(guess(n), 401, "guess from 127.0.0.{n}");
    }
    assert!(
        start.elapsed() >= Duration::from_millis(2500),
        "four paced guesses took {:?}",
        start.elapsed()
    );
    // A burst from 30 more addresses: the lane takes what fits in 10 s and refuses the
    // rest with the time to come back.
    let url = app.url("/api/v1/auth/token");
    let (tx, rx) = std::sync::mpsc::channel();
    for n in 30..60u8 {
        let (url, email, tx) = (url.clone(), owner.email.clone(), tx.clone());
        std::thread::spawn(move || {
            let r = from(n)
                .post(url)
                .json(&json!({"email": email, "password": "password1234"}))
                .send()
                .unwrap();
            let (status, retry) = (r.status().as_u16(), r.headers().contains_key("retry-after"));
            let code = r.json::<Value>().unwrap()["code"].clone();
            let _ = tx.send((status, retry, code, Instant::now()));
        });
    }
    drop(tx);
    let mut answers: Vec<(u16, bool, Value, Instant)> = Vec::new();
    let next = |answers: &mut Vec<(u16, bool, Value, Instant)>| {
        let a = rx
            .recv_timeout(PATIENCE)
            .expect("a guess of the burst answered");
        answers.push(a);
    };
    // Meanwhile the owner, at their usual address, gets in at once. A refused guess says
    // the lane is full: the guesses it holds take 10 s to be answered, and the owner's
    // answer must come before the last of them, not after.
    while !answers.iter().any(|a| a.0 == 429) {
        next(&mut answers);
    }
    let r = login(&app, &from(1), &owner.email, "correct horse battery");
    let owner_in = Instant::now();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    while answers.len() < 30 {
        next(&mut answers);
    }
    let last_checked = answers
        .iter()
        .filter(|a| a.0 == 401)
        .map(|a| a.3)
        .max()
        .expect("guesses checked");
    assert!(
        owner_in < last_checked,
        "the owner got in {:?} after the last guess was checked: behind the guesses",
        owner_in - last_checked
    );
    let answers: Vec<(u16, bool, Value)> = answers.into_iter().map(|a| (a.0, a.1, a.2)).collect();
    let checked = answers.iter().filter(|a| a.0 == 401).count();
    let refused = answers.iter().filter(|a| a.0 == 429).count();
    assert_eq!(checked + refused, 30, "{answers:?}");
    assert!((5..=13).contains(&checked), "{answers:?}");
    assert!(
        answers
            .iter()
            .filter(|a| a.0 == 429)
            .all(|a| a.1 && a.2 == "too_many_attempts"),
        "{answers:?}"
    );
    // The owner at a new address is paced like anyone, but not locked out.
    let r = login(&app, &from(99), &owner.email, "correct horse battery");
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

/// Easy passwords such as `aaaaaaaaaa`, `password12` and ten NUL characters are refused.
#[test]
fn easy_passwords_are_refused_wherever_a_password_is_set() {
    let app = spawn_app();
    let email = "grace@example.org";
    let nuls = "\u{0}".repeat(10);
    for (password, code, why) in [
        ("aaaaaaaaaa", "weak_password", "Repeats"),
        ("password12", "weak_password", "common password"),
        ("password123", "weak_password", "common password"),
        ("qwertyuiop", "weak_password", "common password"),
        (
            "Grace@Example.org",
            "weak_password",
            "email address or your name",
        ),
        (
            "Grace Hopper",
            "weak_password",
            "email address or your name",
        ),
        ("grace hopper 1906", "weak_password", ""),
        (nuls.as_str(), "invalid_password", "control characters"),
        (
            "correct\nhorse battery",
            "invalid_password",
            "control characters",
        ),
    ] {
        let r = app.post(
            "/api/v1/accounts",
            None,
            &json!({"email": email, "name": "Grace Hopper", "password": password}),
        );
        let (status, v) = assert_problem(r, password);
        assert_eq!(
            (status, v["code"].as_str()),
            (422, Some(code)),
            "{password:?}: {v}"
        );
        let detail = v["detail"].as_str().unwrap();
        assert!(detail.contains(why), "{password:?}: {detail}");
    }
    // Nothing was made: a good password now signs the address up.
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": email, "name": "Grace Hopper", "password": "correct horse battery staple"}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    // A password change is held to the same rule, and changes nothing when refused.
    let token = app.token_for(email, "correct horse battery staple");
    for password in ["password123", "grace@example.org"] {
        let r = app
            .client
            .patch(app.url("/api/v1/me"))
            .bearer_auth(&token)
            .json(
                &json!({"password": password, "current_password": "correct horse battery staple"}),
            )
            .send()
            .unwrap();
        let (status, v) = assert_problem(r, password);
        assert_eq!(
            (status, v["code"].as_str()),
            (422, Some("weak_password")),
            "{v}"
        );
    }
    assert_eq!(
        app.get("/api/v1/me", Some(&token)).status(),
        200,
        "token not revoked"
    );
    app.token_for(email, "correct horse battery staple");
    // So is the account an invitation makes.
    let ada = app.player("Ada");
    let invitee = fresh_email("invitee");
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "invite": [invitee]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let accept = format!(
        "/api/v1/invitations/{}/accept",
        invitation_token(&app, &invitee)
    );
    let r = app.post(
        &accept,
        None,
        &json!({"name": "Ivy", "password": "aaaaaaaaaa"}),
    );
    let (status, v) = assert_problem(r, "weak password on accepting");
    assert_eq!(
        (status, v["code"].as_str()),
        (422, Some("weak_password")),
        "{v}"
    );
    let r = app.post(
        &accept,
        None,
        &json!({"name": "Ivy", "password": "ivy is a climbing plant"}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

/// Emails of `kind` queued to `address` (sent or not).
fn queued(app: &TestApp, kind: &str, address: &str) -> i64 {
    diesel::sql_query(
        "SELECT count(*) AS n FROM outbox WHERE kind = $1 AND lower(to_address) = lower($2)",
    )
    .bind::<diesel::sql_types::Text, _>(kind)
    .bind::<diesel::sql_types::Text, _>(address)
    .get_result::<Count>(&mut PgConnection::establish(&app.database_url).unwrap())
    .unwrap()
    .n
}

/// The tokens of the sign-up links mailed to `address`, once `n` have come.
fn sign_up_links(app: &TestApp, address: &str, n: usize) -> Vec<String> {
    let mine = |m: &crate::helpers::Mail| m.to == address && m.subject == LINK;
    let mails = app.wait_for_mails("sign-up links", |m| {
        m.iter().filter(|m| mine(m)).count() >= n
    });
    let marker = "http://turnpost.test/api/v1/sign-ups/";
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
            m.text[at..]
                .chars()
                .take_while(char::is_ascii_hexdigit)
                .collect()
        })
        .collect()
}

fn sign_up(app: &TestApp, email: &str, name: &str, password: &str) -> (u16, Value) {
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": email, "name": name, "password": password}),
    );
    assert!(r.headers().get("location").is_none());
    (r.status().as_u16(), r.json().unwrap())
}

/// A `409 email_taken` on sign-up would tell anyone who has an account.
#[test]
fn sign_up_answers_alike_whether_or_not_the_address_has_an_account() {
    let app = spawn_app_with(|s| s.require_email_verification = true);
    let ada = "ada@example.org";
    // A new address: 202, and a link in the mailbox. No account yet.
    let new = sign_up(&app, ada, "Ada", "correct horse battery");
    assert_eq!(new.0, 202, "{}", new.1);
    assert_eq!(new.1["status"], "check_your_email");
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": ada, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 401, "no account before the link is followed");
    let link = &sign_up_links(&app, ada, 1)[0];
    let page = app.get(&format!("/api/v1/sign-ups/{link}"), None);
    assert_eq!(page.status(), 200);
    let html = page.text().unwrap();
    assert!(
        html.contains("Make my account") && html.contains(ada),
        "{html}"
    );
    // Following the link (a GET, as a link scanner would) made nothing; the button does.
    let r = app.post(&format!("/api/v1/sign-ups/{link}"), None, &json!({}));
    assert_eq!(r.status(), 200);
    assert!(r.text().unwrap().contains("Your account is ready"));
    let token = app.token_for(ada, "correct horse battery");
    let me: Value = app.get("/api/v1/me", Some(&token)).json().unwrap();
    assert_eq!(
        (me["name"].as_str(), me["email_status"].as_str()),
        (Some("Ada"), Some("verified"))
    );
    // A link works once; a made-up one not at all.
    for t in [link.clone(), "ab".repeat(32), "nonsense".into()] {
        let (s, v) = assert_problem(
            app.post(&format!("/api/v1/sign-ups/{t}"), None, &json!({})),
            "used link",
        );
        assert_eq!((s, v["code"].as_str()), (403, Some("invalid_link")));
    }

    // The same address again, with another name and password: the very same answer.
    for _ in 0..3 {
        let taken = sign_up(&app, ada, "Mallory", "a long enough password");
        assert_eq!(taken, new);
    }
    // Nothing changed for Ada; her mailbox got one notice (at most one a day), no link.
    app.token_for(ada, "correct horse battery");
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": ada, "password": "a long enough password"}),
    );
    assert_eq!(r.status(), 401);
    let mails = app.wait_for_mails("the notice", |m| {
        m.iter().any(|m| m.to == ada && m.subject == NOTICE)
    });
    let notice = mails
        .iter()
        .find(|m| m.to == ada && m.subject == NOTICE)
        .unwrap();
    assert!(
        notice.text.contains("Hello Ada") && !notice.text.contains("Mallory"),
        "{}",
        notice.text
    );
    assert!(
        notice.text.contains("http://turnpost.test/#/signin"),
        "{}",
        notice.text
    );
    assert_eq!(queued(&app, "sign_up_taken", ada), 1);
    assert_eq!(queued(&app, "sign_up", ada), 1);

    // A new address signed up for five times gets three links; the last one mailed is the
    // one that works, with the password it was sent for.
    let bo = "bo@example.org";
    for i in 0..5 {
        let (status, _) = sign_up(&app, bo, "Bo", &format!("correct horse battery {i}"));
        assert_eq!(status, 202);
    }
    assert_eq!(queued(&app, "sign_up", bo), 3);
    let links = sign_up_links(&app, bo, 3);
    let made: Vec<u16> = links
        .iter()
        .map(|l| {
            app.post(&format!("/api/v1/sign-ups/{l}"), None, &json!({}))
                .status()
                .as_u16()
        })
        .collect();
    assert_eq!(made.iter().filter(|&&s| s == 200).count(), 1, "{made:?}");
    app.token_for(bo, "correct horse battery 2");
}

/// Twenty of the same at once, on every write path of signing up by mail.
#[test]
fn twenty_sign_ups_and_twenty_clicks_at_once_make_one_account_and_three_links() {
    let app = spawn_app_with(|s| s.require_email_verification = true);
    let cy = "cy@example.org";
    let at_once = |f: &(dyn Fn() -> (u16, Value) + Sync)| -> Vec<(u16, Value)> {
        std::thread::scope(|s| {
            let hs: Vec<_> = (0..20).map(|_| s.spawn(f)).collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        })
    };
    let answers = at_once(&|| sign_up(&app, cy, "Cy", "correct horse battery"));
    assert!(answers.iter().all(|a| *a == answers[0]), "{answers:?}");
    assert_eq!(answers[0].0, 202);
    // Three links a day, whatever the crowd; exactly one of them works (the newest).
    assert_eq!(queued(&app, "sign_up", cy), 3);
    let links = sign_up_links(&app, cy, 3);
    let working: Vec<&String> = links
        .iter()
        .filter(|t| app.get(&format!("/api/v1/sign-ups/{t}"), None).status() == 200)
        .collect();
    assert_eq!(working.len(), 1, "{links:?}");
    let path = format!("/api/v1/sign-ups/{}", working[0]);
    let clicks = at_once(&|| {
        let r = app.post(&path, None, &json!({}));
        let status = r.status().as_u16();
        let body = r.text().unwrap_or_default();
        (status, json!(body))
    });
    assert_eq!(
        clicks.iter().filter(|c| c.0 == 200).count(),
        1,
        "{clicks:?}"
    );
    for (status, body) in clicks.iter().filter(|c| c.0 != 200) {
        assert_eq!(*status, 403, "{body}");
        assert!(body.as_str().unwrap().contains("invalid_link"), "{body}");
    }
    let accounts: i64 = diesel::sql_query(
        "SELECT count(*) AS n FROM accounts WHERE email_lower = 'cy@example.org'",
    )
    .get_result::<Count>(&mut PgConnection::establish(&app.database_url).unwrap())
    .unwrap()
    .n;
    assert_eq!(accounts, 1);
    app.token_for(cy, "correct horse battery");
    // The address has an account now: twenty more sign-ups give the same answer and its
    // owner one notice.
    let again = at_once(&|| sign_up(&app, cy, "Mallory", "another long passphrase"));
    assert!(again.iter().all(|a| *a == answers[0]), "{again:?}");
    assert_eq!(queued(&app, "sign_up_taken", cy), 1);
}
