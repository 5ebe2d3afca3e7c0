//! Behind a reverse proxy (issue 34): the client address throttles and budgets key on is
//! the one a trusted proxy names in `X-Forwarded-For` or `Forwarded`; from any other peer
//! those headers are ignored.
//!
//! The test client connects from 127.0.0.1 (the trusted proxy when one is set) or, to be
//! an untrusted peer, from 127.0.0.2.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use reqwest::blocking::{Client, RequestBuilder};
use serde_json::json;

use crate::helpers::{TestApp, spawn_app_with};

const PASSWORD: &str = "correct horse battery";

/// A client whose requests come from 127.0.0.`n`.
fn from(n: u8) -> Client {
    Client::builder()
        .local_address(IpAddr::V4(Ipv4Addr::new(127, 0, 0, n)))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

fn behind_proxy(adjust: impl FnOnce(&mut turnpost::settings::Settings)) -> TestApp {
    spawn_app_with(|s| {
        s.trusted_proxies = "127.0.0.1/32".into();
        adjust(s);
    })
}

fn login(app: &TestApp, client: &Client, email: &str, password: &str) -> RequestBuilder {
    client
        .post(app.url("/api/v1/auth/token"))
        .json(&json!({"email": email, "password": password}))
}

#[test]
fn fifty_failed_logins_from_one_forwarded_address_do_not_lock_out_another() {
    let app = behind_proxy(|_| {});
    let victim = app.player("Victim");
    let proxy = from(1);
    let mut statuses = Vec::new();
    for _ in 0..50 {
        let r = login(&app, &proxy, &victim.email, "wrong password 1234")
            .header("x-forwarded-for", "203.0.113.7")
            .send()
            .unwrap();
        statuses.push(r.status().as_u16());
    }
    // login_max_failures (5) per account and client address, then 429.
    assert_eq!(&statuses[..5], [401; 5], "{statuses:?}");
    assert_eq!(statuses[49], 429, "{statuses:?}");
    // The guesser's address stays refused, even with the right password...
    let r = login(&app, &proxy, &victim.email, PASSWORD)
        .header("x-forwarded-for", "203.0.113.7")
        .send()
        .unwrap();
    assert_eq!(r.status(), 429);
    // ...while the owner, behind the same proxy, gets in: by X-Forwarded-For, and by
    // RFC 7239 Forwarded.
    let r = login(&app, &proxy, &victim.email, PASSWORD)
        .header("x-forwarded-for", "198.51.100.9")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let r = login(&app, &proxy, &victim.email, PASSWORD)
        .header("forwarded", "for=\"[2001:db8::9]:4711\";proto=https")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

#[test]
fn forwarded_headers_from_untrusted_peers_are_ignored() {
    // The default: nobody is trusted. Then a proxy is trusted, and the peer is not it.
    for (app, client) in [
        (spawn_app_with(|_| {}), from(1)),
        (behind_proxy(|_| {}), from(2)),
    ] {
        let victim = app.player("Victim");
        for i in 0..8u8 {
            let r = login(&app, &client, &victim.email, "wrong password 1234")
                .header("x-forwarded-for", format!("198.51.100.{i}"))
                .header("forwarded", format!("for=192.0.2.{i}"))
                .send()
                .unwrap();
            let want = if i < 5 { 401 } else { 429 };
            assert_eq!(r.status(), want, "attempt {i}");
        }
        // A made-up address is no way around the throttle of the peer.
        let r = login(&app, &client, &victim.email, PASSWORD)
            .header("x-forwarded-for", "198.51.100.200")
            .send()
            .unwrap();
        assert_eq!(r.status(), 429);
    }
}

fn game_types(app: &TestApp, client: &Client, forwarded_for: &str) -> u16 {
    client
        .get(app.url("/api/v1/game-types"))
        .header("x-forwarded-for", forwarded_for)
        .send()
        .unwrap()
        .status()
        .as_u16()
}

#[test]
fn rate_limit_budgets_follow_the_forwarded_address() {
    let app = behind_proxy(|s| s.rate_limit_per_address = 3);
    let proxy = from(1);
    let statuses: Vec<u16> = (0..4)
        .map(|_| game_types(&app, &proxy, "203.0.113.7"))
        .collect();
    assert_eq!(statuses, [200, 200, 200, 429]);
    // Another client behind the same proxy has its own budget.
    let r = proxy
        .get(app.url("/api/v1/game-types"))
        .header("x-forwarded-for", "198.51.100.9")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["ratelimit-remaining"], "2");
}

#[test]
fn a_spoofed_chain_resolves_to_the_rightmost_untrusted_address() {
    let app = spawn_app_with(|s| {
        s.trusted_proxies = "127.0.0.1/32, 10.0.0.0/8".into();
        s.rate_limit_per_address = 2;
    });
    let proxy = from(1);
    let real = "198.51.100.20";
    assert_eq!(game_types(&app, &proxy, real), 200);
    assert_eq!(game_types(&app, &proxy, real), 200);
    // The client wrote "evil" itself; the proxy appended the address it saw. The budget
    // spent is the real one's, whatever the client prepends.
    assert_eq!(
        game_types(&app, &proxy, &format!("203.0.113.66, {real}")),
        429
    );
    assert_eq!(game_types(&app, &proxy, &format!("1.2.3.4, {real}")), 429);
    // Through a second trusted proxy (10.0.0.5) the client is still the real one.
    assert_eq!(
        game_types(&app, &proxy, &format!("6.6.6.6, {real}, 10.0.0.5")),
        429
    );
    // Garbage left of the client is not read; garbage as the client falls back to the
    // peer (the proxy), not to an error.
    assert_eq!(game_types(&app, &proxy, &format!("<script>, {real}")), 429);
    assert_eq!(game_types(&app, &proxy, "not an address"), 200);
    // The right-most untrusted address is the client: here a new one, with its budget.
    assert_eq!(
        game_types(&app, &proxy, &format!("{real}, 203.0.113.66")),
        200
    );
}

#[test]
fn twenty_concurrent_requests_spend_each_forwarded_budget_exactly() {
    let app = behind_proxy(|s| s.rate_limit_per_address = 5);
    let url = app.url("/api/v1/game-types");
    let threads: Vec<_> = (0..20)
        .map(|i| {
            let url = url.clone();
            let who = if i % 2 == 0 {
                "203.0.113.1"
            } else {
                "203.0.113.2"
            };
            std::thread::spawn(move || {
                let status = from(1)
                    .get(url)
                    .header("x-forwarded-for", who)
                    .send()
                    .unwrap()
                    .status()
                    .as_u16();
                (who, status)
            })
        })
        .collect();
    let results: Vec<(&str, u16)> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for who in ["203.0.113.1", "203.0.113.2"] {
        let ok = results
            .iter()
            .filter(|(w, s)| *w == who && *s == 200)
            .count();
        let refused = results
            .iter()
            .filter(|(w, s)| *w == who && *s == 429)
            .count();
        assert_eq!((ok, refused), (5, 5), "{who}: {results:?}");
    }
}
