//! Request budgets: per account (all its tokens together), and per client address without
//! a token; every API answer says where its caller stands (`RateLimit-*`), a request past
//! the budget is 429 `rate_limited` with `Retry-After` and changes nothing.

use std::time::{Duration, Instant};

use reqwest::blocking::Response;
use serde_json::{Value, json};

use crate::helpers::{TestApp, assert_problem, spawn_app, spawn_app_on, spawn_app_with};

fn header(r: &Response, name: &str) -> Option<u64> {
    r.headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
}

fn app(per_account: u32, per_address: u32) -> TestApp {
    spawn_app_with(|s| {
        s.rate_limit_per_account = per_account;
        s.rate_limit_per_address = per_address;
    })
}

fn games_of(app: &TestApp, token: &str) -> usize {
    let r = app.get("/api/v1/games", Some(token));
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap()["total"].as_u64().unwrap() as usize
}

#[test]
fn a_token_sees_its_budget_shrink_and_past_it_is_refused_without_effect() {
    let app = app(6, 1000);
    let ada = app.player("Ada");
    let mut remaining = Vec::new();
    for _ in 0..5 {
        let r = app.get("/api/v1/me", Some(&ada.token));
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "ratelimit-limit"), Some(6));
        assert!(header(&r, "ratelimit-reset").unwrap() >= 1);
        assert_eq!(r.headers()["ratelimit-policy"].to_str().unwrap(), "6;w=60");
        remaining.push(header(&r, "ratelimit-remaining").unwrap());
    }
    assert_eq!(remaining, [5, 4, 3, 2, 1]);
    // The last request of the budget: a game is listed (none yet).
    assert_eq!(games_of(&app, &ada.token), 0);
    // Past the budget: a write is refused and does nothing.
    let asked = Instant::now();
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2}),
    );
    let refused = Instant::now();
    let retry = header(&r, "retry-after").expect("Retry-After");
    assert!(
        (1..=10).contains(&retry),
        "one request back in 10 s: {retry}"
    );
    assert_eq!(header(&r, "ratelimit-remaining"), Some(0));
    assert_eq!(header(&r, "ratelimit-limit"), Some(6));
    assert!(r.headers().contains_key("x-request-id"));
    let (status, body) = assert_problem(r, "past the budget");
    assert_eq!(status, 429);
    assert_eq!(body["code"], "rate_limited");
    assert_eq!(body["retry_after"], retry);
    // Another token of the same account spends the same budget.
    let other = app.token_for(&ada.email, "correct horse battery");
    assert_eq!(app.get("/api/v1/me", Some(&other)).status(), 429);
    // The budget comes back steadily: one request once Retry-After has passed. The wait is
    // for time itself, counted from the refusal's arrival: the server rounded its wait up
    // to whole seconds and named it before the answer left, so the request cannot come
    // early, however slow the machine.
    std::thread::sleep(
        (refused + Duration::from_secs(retry)).saturating_duration_since(Instant::now()),
    );
    // It lists the games: the refused creation made none.
    let r = app.get("/api/v1/games", Some(&ada.token));
    let answered = Instant::now();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["ratelimit-limit"], "6");
    // One request's worth came back (one every 10 s at 6 a minute) and this one spent it,
    // unless the machine took so long that more came back meanwhile: the first came back
    // more than `retry - 1` s after the refusal was asked for.
    let elapsed = (answered - asked).as_secs_f64();
    let more = ((elapsed - retry as f64 + 1.0) / 10.0).floor().max(0.0) as u64;
    let remaining = header(&r, "ratelimit-remaining").expect("RateLimit-Remaining");
    assert!(
        remaining <= more,
        "{remaining} left {elapsed:.1} s after the refusal"
    );
    assert_eq!(r.json::<Value>().unwrap()["total"], 0);
}

#[test]
fn twenty_requests_at_once_spend_exactly_the_budget() {
    let app = app(10, 1000);
    let ada = app.player("Ada");
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|_| {
                let (app, token) = (&app, &ada.token);
                s.spawn(move || {
                    app.post(
                        "/api/v1/games",
                        Some(token),
                        &json!({"game_type": "kasino", "players": 2}),
                    )
                    .status()
                    .as_u16()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let made = statuses.iter().filter(|s| **s != 429).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    // The refill during the burst (one request per 6 s) may let one more through.
    assert!((10..=11).contains(&made), "{statuses:?}");
    assert_eq!(made + refused, 20);
    // Only what was let through acted: each created game is there (or was refused by the
    // game's own rules, not half made).
    let created = statuses.iter().filter(|s| **s == 201).count();
    // Counted on another node, whose budget this account has not spent.
    let other = spawn_app_on(app.database_url.clone(), |_| {});
    assert_eq!(games_of(&other, &ada.token), created, "{statuses:?}");
}

#[test]
fn without_a_token_the_client_address_has_a_budget() {
    let app = app(1000, 4);
    let mut seen = Vec::new();
    for _ in 0..4 {
        let r = app.get("/api/v1/game-types", None);
        assert_eq!(r.status(), 200);
        seen.push(header(&r, "ratelimit-remaining").unwrap());
    }
    assert_eq!(seen, [3, 2, 1, 0]);
    let (status, body) = assert_problem(app.get("/api/v1/game-types", None), "anonymous");
    assert_eq!((status, body["code"].as_str()), (429, Some("rate_limited")));
    // Outside the API nothing is limited: health, the description, the web client.
    for path in ["/healthz", "/openapi.yaml", "/", "/problems/rate_limited"] {
        for _ in 0..3 {
            let r = app.get(path, None);
            assert_eq!(r.status(), 200, "{path}");
            assert!(!r.headers().contains_key("ratelimit-limit"), "{path}");
        }
    }
}

#[test]
fn made_up_tokens_are_charged_to_their_address() {
    let app = app(1000, 5);
    let ada = app.player("Ada");
    // Sign-up and login spent 2 of the address's 5.
    let mut statuses = Vec::new();
    for i in 0..8 {
        let token = format!("made-up-{i}");
        statuses.push(app.get("/api/v1/me", Some(&token)).status().as_u16());
    }
    // Each refused token is charged: 3 more fit in the budget, then the address may not
    // try tokens until it comes back.
    assert_eq!(&statuses[..4], [401, 401, 401, 401], "{statuses:?}");
    assert!(statuses[4..].iter().all(|s| *s == 429), "{statuses:?}");
    // A good token is its own budget... but from a barred address it waits too: the
    // server cannot tell a guess from a real one before checking it.
    let r = app.get("/api/v1/me", Some(&ada.token));
    assert_eq!(r.status(), 429);
}

/// `n` personal access tokens of `p`, made on `app`.
fn tokens_of(app: &TestApp, p: &crate::helpers::Player, n: usize) -> Vec<String> {
    (0..n)
        .map(|i| {
            let r = app.post(
                "/api/v1/me/tokens",
                Some(&p.token),
                &json!({"name": format!("t{i}"), "scopes": ["play"]}),
            );
            assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
            r.json::<Value>().unwrap()["token"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

/// What a budget of `per_minute` lets through in `elapsed`: the whole budget at once, and
/// one more every `60 / per_minute` seconds (one more still, for a refill that came due
/// between two of the clock readings).
fn allowed_in(per_minute: u32, elapsed: Duration) -> usize {
    per_minute as usize
        + (elapsed.as_secs_f64() * f64::from(per_minute) / 60.0).floor() as usize
        + 1
}

/// An account's tokens, personal and login, spend one budget: twenty personal tokens
/// taking turns get no more through than one would, a fresh sign-in brings no fresh
/// budget, and another account still has its whole budget.
#[test]
fn all_of_an_accounts_tokens_spend_one_budget() {
    // The tokens are made on a node with a large budget; the budget under test is another
    // node's (budgets are per node), on the same database.
    let setup = spawn_app();
    let ada = setup.player("Ada");
    let bob = setup.player("Bob");
    let tokens = tokens_of(&setup, &ada, 20);
    let app = spawn_app_on(setup.database_url.clone(), |s| {
        s.rate_limit_per_account = 30;
        s.rate_limit_per_address = 1000;
    });
    let started = Instant::now();
    let mut passed = 0;
    for i in 0..100 {
        let r = app.get("/api/v1/me", Some(&tokens[i % tokens.len()]));
        match r.status().as_u16() {
            200 => {
                assert_eq!(header(&r, "ratelimit-limit"), Some(30));
                // The account's budget, whichever token spent it.
                let remaining = header(&r, "ratelimit-remaining").unwrap() as usize;
                assert!(
                    remaining + passed < allowed_in(30, started.elapsed()),
                    "{remaining} left after {passed} requests of the account's"
                );
                passed += 1;
            }
            429 => assert_eq!(header(&r, "ratelimit-remaining"), Some(0)),
            other => panic!("{other}: {}", r.text().unwrap_or_default()),
        }
    }
    // Signing in again is no fresh budget: its token spends the same one.
    let fresh = app.token_for(&ada.email, "correct horse battery");
    let mut fresh_passed = 0;
    for _ in 0..10 {
        let r = app.get("/api/v1/me", Some(&fresh));
        match r.status().as_u16() {
            200 => fresh_passed += 1,
            429 => {}
            other => panic!("{other}: {}", r.text().unwrap_or_default()),
        }
    }
    let elapsed = started.elapsed();
    assert!(passed >= 30, "the budget itself was let through: {passed}");
    assert!(
        passed + fresh_passed <= allowed_in(30, elapsed),
        "{passed} + {fresh_passed} requests let through in {elapsed:?} on a budget of 30 a minute"
    );
    // Another account is untouched.
    let r = app.get("/api/v1/me", Some(&bob.token));
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, "ratelimit-remaining"), Some(29));
}

/// Twenty requests at once, each with another token of one account, spend exactly the
/// account's budget.
#[test]
fn twenty_requests_at_once_on_twenty_tokens_spend_exactly_the_account_budget() {
    let setup = spawn_app();
    let ada = setup.player("Ada");
    let tokens = tokens_of(&setup, &ada, 20);
    let app = spawn_app_on(setup.database_url.clone(), |s| {
        s.rate_limit_per_account = 10;
        s.rate_limit_per_address = 1000;
    });
    let started = Instant::now();
    let statuses: Vec<u16> = std::thread::scope(|s| {
        let handles: Vec<_> = tokens
            .iter()
            .map(|token| {
                let app = &app;
                s.spawn(move || app.get("/api/v1/me", Some(token)).status().as_u16())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let elapsed = started.elapsed();
    let passed = statuses.iter().filter(|s| **s == 200).count();
    let refused = statuses.iter().filter(|s| **s == 429).count();
    assert_eq!(passed + refused, 20, "{statuses:?}");
    assert!(
        (10..=allowed_in(10, elapsed).min(20)).contains(&passed),
        "{passed} let through in {elapsed:?}: {statuses:?}"
    );
}
