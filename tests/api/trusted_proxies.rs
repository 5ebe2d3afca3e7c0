//! Behind a reverse proxy: the client address throttles and budgets key on is the one a
//! trusted proxy names in the header the host chose (`X-Forwarded-For` unless told
//! otherwise); the other header, and both from any other peer, are ignored.
//!
//! The test client connects from 127.0.0.1 (the trusted proxy when one is set) or, to be
//! an untrusted peer, from 127.0.0.2. One test puts the hosts' guide's own nginx block in front.

use std::net::{IpAddr, Ipv4Addr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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
    // ...while the owner, behind the same proxy, gets in.
    let r = login(&app, &proxy, &victim.email, PASSWORD)
        .header("x-forwarded-for", "198.51.100.9")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

#[test]
fn a_host_that_names_forwarded_gets_rfc_7239_and_x_forwarded_for_is_ignored() {
    let app = behind_proxy(|s| {
        s.client_address_header = turnpost::settings::ClientAddressHeader::Forwarded;
    });
    let victim = app.player("Victim");
    let proxy = from(1);
    for i in 0..6 {
        let r = login(&app, &proxy, &victim.email, "wrong password 1234")
            .header("forwarded", "for=203.0.113.7")
            .header("x-forwarded-for", "198.51.100.9")
            .send()
            .unwrap();
        assert_eq!(r.status(), if i < 5 { 401 } else { 429 }, "attempt {i}");
    }
    // The X-Forwarded-For the guesser sent did not name the owner...
    let r = login(&app, &proxy, &victim.email, PASSWORD)
        .header("forwarded", "for=\"[2001:db8::9]:4711\";proto=https")
        .header("x-forwarded-for", "203.0.113.7")
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    // ...and cannot unname the guesser.
    let r = login(&app, &proxy, &victim.email, PASSWORD)
        .header("forwarded", "for=203.0.113.7")
        .header("x-forwarded-for", "198.51.100.9")
        .send()
        .unwrap();
    assert_eq!(r.status(), 429);
}

/// The hosts' guide's nginx block (`src/docs/hosting.md`), run by Debian's nginx in front
/// of `app`, on a port of its own.
struct Nginx {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Nginx {
    fn in_front_of(app: &TestApp) -> Nginx {
        let guide = include_str!("../../src/docs/hosting.md");
        let at = guide.find("```nginx\n").expect("the guide's nginx block") + 9;
        let block = &guide[at..];
        let block = &block[..block.find("```").expect("its end")];
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let upstream = app.address.trim_start_matches("http://");
        let mut server = String::new();
        for line in block.lines() {
            let line = match line.trim() {
                // No certificate here: the same server, in plain HTTP.
                l if l.starts_with("ssl_certificate") => continue,
                "listen 443 ssl;" => format!("listen 127.0.0.1:{port};"),
                "proxy_pass http://127.0.0.1:8080;" => format!("proxy_pass http://{upstream};"),
                _ => line.to_string(),
            };
            server.push_str(&line);
            server.push('\n');
        }
        assert!(
            server.contains(&format!("listen 127.0.0.1:{port};")),
            "{server}"
        );
        assert!(
            server.contains(&format!("proxy_pass http://{upstream};")),
            "{server}"
        );
        let dir =
            std::env::temp_dir().join(format!("turnpost-nginx-{port}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let d = dir.display();
        let conf = format!(
            "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{}}\nhttp {{\naccess_log off;\nclient_body_temp_path {d}/body;\n\
             proxy_temp_path {d}/proxy;\nfastcgi_temp_path {d}/fastcgi;\n\
             uwsgi_temp_path {d}/uwsgi;\nscgi_temp_path {d}/scgi;\n{server}}}\n"
        );
        let conf_path = dir.join("nginx.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let child = Command::new("/usr/sbin/nginx")
            .arg("-p")
            .arg(&dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .arg("-c")
            .arg(&conf_path)
            .stdin(Stdio::null())
            .spawn()
            .expect("nginx (Debian package nginx; .ci/run installs it)");
        let mut nginx = Nginx { child, port, dir };
        // Ready when it accepts connections; an nginx that exits says why in its log.
        let deadline = Instant::now() + Duration::from_secs(120);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Ok(Some(status)) = nginx.child.try_wait() {
                let log = std::fs::read_to_string(nginx.dir.join("error.log")).unwrap_or_default();
                panic!("nginx exited ({status}): {log}");
            }
            assert!(Instant::now() < deadline, "nginx did not listen on {port}");
            std::thread::sleep(Duration::from_millis(20));
        }
        nginx
    }

    fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn through_the_readmes_nginx_a_client_cannot_name_another_clients_address() {
    // The hosts' guide's setting for a proxy on the same machine; nginx reaches Turnpost from
    // 127.0.0.1, clients reach nginx from 127.0.0.2 (the attacker) and 127.0.0.3 (the owner).
    let app = spawn_app_with(|s| {
        s.trusted_proxies = "127.0.0.1/32,::1/128".into();
        s.rate_limit_per_address = 12;
    });
    let owner = app.player("Owner");
    let nginx = Nginx::in_front_of(&app);
    let (attacker, victim) = (from(2), from(3));
    let spoofed = |r: RequestBuilder| {
        r.header("forwarded", "for=127.0.0.3")
            .header("x-forwarded-for", "127.0.0.3")
    };
    let login_at = |client: &Client, password: &str| {
        client
            .post(nginx.url("/api/v1/auth/token"))
            .json(&json!({"email": owner.email, "password": password}))
    };
    let statuses: Vec<u16> = (0..6)
        .map(|_| {
            spoofed(login_at(&attacker, "wrong password 1234"))
                .send()
                .unwrap()
                .status()
                .as_u16()
        })
        .collect();
    assert_eq!(statuses, [401, 401, 401, 401, 401, 429]);
    // The guesses were the attacker's: its own address is refused, the owner's is not.
    let r = spoofed(login_at(&attacker, PASSWORD)).send().unwrap();
    assert_eq!(r.status(), 429);
    let r = login_at(&victim, PASSWORD).send().unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());

    // Request budgets: whatever the attacker spends is its own.
    let mut refused = 0;
    for _ in 0..20 {
        let r = spoofed(attacker.get(nginx.url("/api/v1/game-types")))
            .send()
            .unwrap();
        if r.status() == 429 {
            refused += 1;
        }
    }
    assert!(refused > 0, "20 requests within a budget of 12 a minute");
    let r = victim.get(nginx.url("/api/v1/game-types")).send().unwrap();
    assert_eq!(r.status(), 200);
    // 12 less the owner's own sign-in and this request, at most.
    let remaining: u32 = r.headers()["ratelimit-remaining"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!(remaining >= 10, "the owner has {remaining} requests left");
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
