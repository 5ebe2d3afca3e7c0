//! Webhooks and the calendar feed, from outside: a receiver in the test gets signed POSTs
//! (`your_turn` after a move, `game_finished` at the end, retries with the same delivery id,
//! failures given up), registrations are checked (SSRF, garbage, other people's ids), and
//! the ICS feed lists the right deadline and refuses forged addresses.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hmac::{Hmac, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use turnpost::notify::transport::Mailer;
use turnpost::outbox::worker::{Delivered, Lane, Worker};

use crate::helpers::{
    Player, TestApp, assert_problem, content_type, play_random, spawn_app, spawn_app_with,
};

/// One POST the receiver got.
#[derive(Clone, Debug)]
struct Hit {
    /// The request's path.
    path: String,
    headers: HashMap<String, String>,
    body: Vec<u8>,
}

impl Hit {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the body is JSON")
    }

    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }
}

/// How the receiver answers its n-th request.
#[derive(Clone, Copy)]
enum Answer {
    Status(u16),
    /// Says nothing for this long, then hangs up.
    Silence(Duration),
}

/// A local HTTP server recording each request; answers follow `script`, then 200.
struct Receiver {
    url: String,
    /// `http://host:port`, for webhooks at other paths of the same receiver.
    base: String,
    hits: Arc<Mutex<Vec<Hit>>>,
}

fn receiver(script: Vec<Answer>) -> Receiver {
    routed_receiver(move |n, _| script.get(n).copied().unwrap_or(Answer::Status(200)))
}

/// A receiver whose answer to its n-th request (counted from 0) at a path is `answer`'s.
fn routed_receiver(answer: impl Fn(usize, &str) -> Answer + Send + 'static) -> Receiver {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let url = format!("{base}/hook");
    let hits = Arc::new(Mutex::new(Vec::new()));
    let recorded = Arc::clone(&hits);
    std::thread::spawn(move || {
        for (n, stream) in listener.incoming().enumerate() {
            let Ok(mut stream) = stream else { continue };
            let mut reader = BufReader::new(stream.try_clone().expect("clone"));
            let mut headers = HashMap::new();
            let mut line = String::new();
            if reader.read_line(&mut line).is_err() {
                continue;
            }
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            loop {
                line.clear();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some((k, v)) = line.split_once(':') {
                    headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
                }
            }
            let len: usize = headers
                .get("content-length")
                .and_then(|l| l.parse().ok())
                .unwrap_or(0);
            let mut body = vec![0; len];
            if reader.read_exact(&mut body).is_err() {
                continue;
            }
            let answered = answer(n, &path);
            recorded.lock().unwrap().push(Hit {
                path,
                headers,
                body,
            });
            match answered {
                Answer::Status(code) => {
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {code} Scripted\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                    );
                }
                Answer::Silence(d) => std::thread::sleep(d),
            }
        }
    });
    Receiver { url, base, hits }
}

impl Receiver {
    fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap().clone()
    }

    /// Waits until `pred` holds of the hits so far (patiently: a loaded CI machine may take
    /// a while, and a passing run never waits long).
    fn wait(&self, what: &str, pred: impl Fn(&[Hit]) -> bool) -> Vec<Hit> {
        let until = Instant::now() + PATIENCE;
        loop {
            let hits = self.hits();
            if pred(&hits) {
                return hits;
            }
            assert!(Instant::now() < until, "{what}: the receiver got {hits:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// The longest a test waits for the sender: only a failing run waits this long.
const PATIENCE: Duration = Duration::from_secs(180);

fn open_app() -> TestApp {
    spawn_app_with(|s| s.webhook_allow_private = true)
}

/// Registers a webhook; returns (id, secret).
fn register(app: &TestApp, p: &Player, url: &str, events: &[&str]) -> (i64, String) {
    let r = app.post(
        "/api/v1/me/webhooks",
        Some(&p.token),
        &json!({"url": url, "events": events}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let w: Value = r.json().unwrap();
    assert_eq!(w["url"], url);
    (
        w["id"].as_i64().unwrap(),
        w["secret"].as_str().expect("the secret, once").to_string(),
    )
}

/// Checks `Turnpost-Signature: t=…,v1=…` against the body, as a receiver would.
fn assert_signed(hit: &Hit, secret: &str) {
    let sig = hit.header("turnpost-signature");
    let parts: HashMap<&str, &str> = sig.split(',').filter_map(|p| p.split_once('=')).collect();
    let t: i64 = parts["t"].parse().expect("t");
    assert!(
        (chrono::Utc::now().timestamp() - t).abs() < 300,
        "a fresh time"
    );
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(format!("{t}.").as_bytes());
    mac.update(&hit.body);
    let expected = hex::decode(parts["v1"]).expect("hex");
    mac.verify_slice(&expected).expect("the signature holds");
    // Another secret does not verify it.
    let mut other = Hmac::<Sha256>::new_from_slice(b"whsec_other").unwrap();
    other.update(format!("{t}.").as_bytes());
    other.update(&hit.body);
    assert!(other.verify_slice(&expected).is_err());
}

fn deliveries(app: &TestApp, p: &Player, hook: i64) -> Vec<Value> {
    let r = app.get(
        &format!("/api/v1/me/webhooks/{hook}/deliveries"),
        Some(&p.token),
    );
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap().as_array().unwrap().clone()
}

/// Plays the first legal action of whoever is to act until `p`'s seat is to act.
fn until_turn_of(app: &TestApp, id: i64, players: &[&Player], seat: u64) {
    for _ in 0..20 {
        let g = app.game(id, players[0]);
        let to_act = g["to_act"][0].as_u64().unwrap();
        if to_act == seat {
            return;
        }
        let mover = players[to_act as usize];
        let mine = app.game(id, mover);
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&mover.token),
            &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    }
    panic!("the turn never came to seat {seat}");
}

#[test]
fn your_turn_after_a_move_is_signed_and_game_finished_comes_at_the_end() {
    let app = open_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let rx = receiver(vec![]);
    let (hook, secret) = register(&app, &bo, &rx.url, &["your_turn", "game_finished"]);
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    until_turn_of(&app, id, &[&ada, &bo], 1);
    let hits = rx.wait("your_turn for Bo", |h| !h.is_empty());
    let hit = &hits[0];
    assert_eq!(hit.header("turnpost-event"), "your_turn");
    assert_eq!(hit.header("content-type"), "application/json");
    assert_signed(hit, &secret);
    let body = hit.json();
    assert_eq!(body["event"], "your_turn");
    assert_eq!(body["game"]["id"], id);
    assert_eq!(body["game"]["type"], "kasino");
    assert_eq!(body["seat"], 1);
    assert_eq!(body["game"]["version"], app.game(id, &bo)["version"]);
    assert_eq!(
        body["game"]["url"],
        format!("http://turnpost.test/api/v1/games/{id}")
    );
    assert_eq!(
        body["delivery"].to_string(),
        hit.header("turnpost-delivery")
    );
    // Nothing but these members: no view, no hand.
    let mut keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "created_at",
            "delivery",
            "event",
            "game",
            "seat",
            "webhook_id"
        ]
    );
    // The body names its webhook: a receiver serving several knows which one it is for.
    assert_eq!(body["webhook_id"], hook);
    let mut game_keys: Vec<&str> = body["game"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    game_keys.sort_unstable();
    assert_eq!(game_keys, ["id", "type", "url", "version", "web_url"]);

    play_random(&app, id, &[&ada, &bo], 7, 2000);
    let hits = rx.wait("game_finished", |h| {
        h.iter()
            .any(|x| x.header("turnpost-event") == "game_finished")
    });
    let over = hits
        .iter()
        .find(|x| x.header("turnpost-event") == "game_finished")
        .unwrap();
    assert_signed(over, &secret);
    assert_eq!(over.json()["game"]["id"], id);
    assert_eq!(over.json()["seat"], 1);
    // Every delivery is Bo's seat, and none for Ada (who has no webhook).
    assert!(hits.iter().all(|h| h.json()["seat"] == 1));
    // The sender marks a delivery once the receiver's answer is in, a moment after the
    // receiver saw it.
    let delivered = |listed: &[Value]| {
        listed.iter().any(|d| {
            d["event"] == "game_finished" && d["status"] == "delivered" && d["game_id"] == id
        })
    };
    let start = Instant::now();
    let mut listed = deliveries(&app, &bo, hook);
    while !delivered(&listed) && start.elapsed() < PATIENCE {
        std::thread::sleep(Duration::from_millis(100));
        listed = deliveries(&app, &bo, hook);
    }
    assert!(delivered(&listed), "{listed:?}");
    assert!(listed.iter().all(|d| d["status"] != "failed"), "{listed:?}");
}

#[test]
fn a_receiver_that_fails_first_gets_a_retry_with_the_same_delivery_id() {
    let app = open_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let rx = receiver(vec![Answer::Status(500)]);
    let (hook, secret) = register(&app, &bo, &rx.url, &["your_turn"]);
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    until_turn_of(&app, id, &[&ada, &bo], 1);
    let hits = rx.wait("a retry", |h| h.len() >= 2);
    assert_eq!(
        hits[0].header("turnpost-delivery"),
        hits[1].header("turnpost-delivery")
    );
    assert_eq!(hits[0].body, hits[1].body, "a retry sends the same body");
    assert_signed(&hits[1], &secret);
    let listed = app.get(
        &format!("/api/v1/me/webhooks/{hook}/deliveries"),
        Some(&bo.token),
    );
    let listed: Value = listed.json().unwrap();
    let d = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|d| {
            d["id"].as_i64().map(|i| i.to_string()).as_deref()
                == Some(hits[0].header("turnpost-delivery"))
        })
        .expect("the delivery is listed")
        .clone();
    assert_eq!(d["attempts"], 1, "{d}\nhits: {hits:?}");
    assert_eq!(d["event"], "your_turn");
    // Marked after the answer: wait for the mark.
    let until = Instant::now() + PATIENCE;
    loop {
        let listed = deliveries(&app, &bo, hook);
        if listed.iter().any(|x| x["status"] == "delivered") {
            break;
        }
        assert!(Instant::now() < until, "never marked delivered: {listed:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_receiver_that_does_not_answer_in_time_is_given_up_after_the_last_attempt() {
    let app = spawn_app_with(|s| {
        s.webhook_allow_private = true;
        s.webhook_timeout_secs = 1;
        s.outbox_max_attempts = 2;
    });
    let ada = app.player("Ada");
    let rx = receiver(vec![
        Answer::Silence(Duration::from_secs(3)),
        Answer::Silence(Duration::from_secs(3)),
    ]);
    let (hook, secret) = register(&app, &ada, &rx.url, &["game_finished"]);
    let r = app.post(
        &format!("/api/v1/me/webhooks/{hook}/test"),
        Some(&ada.token),
        &json!({}),
    );
    assert_eq!(r.status(), 202);
    let queued: Value = r.json().unwrap();
    assert_eq!(queued["event"], "ping");
    assert_eq!(queued["status"], "pending");
    let hits = rx.wait("two attempts", |h| h.len() >= 2);
    assert_eq!(hits[0].header("turnpost-event"), "ping");
    assert_signed(&hits[0], &secret);
    assert_eq!(hits[0].json()["webhook"]["id"], hook);
    assert_eq!(hits[0].json()["webhook_id"], hook);
    let until = Instant::now() + PATIENCE;
    let d = loop {
        let listed = deliveries(&app, &ada, hook);
        if listed[0]["status"] == "failed" {
            break listed[0].clone();
        }
        assert!(Instant::now() < until, "never given up: {listed:?}");
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(d["attempts"], 2, "{d}");
    assert!(d["last_error"].as_str().unwrap().contains("in time"), "{d}");
}

#[test]
fn private_addresses_are_refused_unless_the_server_allows_them() {
    let app = spawn_app();
    let ada = app.player("Ada");
    for url in [
        "http://127.0.0.1:8080/hook",
        "http://localhost/hook",
        "http://LocalHost./hook",
        "http://[::1]/hook",
        "http://[::ffff:127.0.0.1]/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/",
        "http://192.168.1.10/",
        "http://0.0.0.0/",
        "http://2130706433/",
    ] {
        let r = app.post(
            "/api/v1/me/webhooks",
            Some(&ada.token),
            &json!({"url": url, "events": ["your_turn"]}),
        );
        let (s, v) = assert_problem(r, url);
        assert_eq!(
            (s, v["code"].as_str()),
            (422, Some("webhook_address_not_allowed")),
            "{url}"
        );
    }
    let (_, secret) = register(&app, &ada, "https://bot.example.org/turnpost", &["offer"]);
    assert!(secret.starts_with("whsec_") && secret.len() > 40);
    let listed: Value = app
        .get("/api/v1/me/webhooks", Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
}

#[test]
fn garbage_registrations_are_problems_and_change_nothing() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let post = |body: Value| app.post("/api/v1/me/webhooks", Some(&ada.token), &body);
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({"url": "ftp://example.org/", "events": ["your_turn"]}),
            422,
            "invalid_webhook_url",
        ),
        (
            json!({"url": "/relative", "events": ["your_turn"]}),
            422,
            "invalid_webhook_url",
        ),
        (
            json!({"url": "not a url", "events": ["your_turn"]}),
            422,
            "invalid_webhook_url",
        ),
        (
            json!({"url": "https://u:p@example.org/", "events": ["your_turn"]}),
            422,
            "invalid_webhook_url",
        ),
        (
            json!({"url": "https://example.org/\u{0}x", "events": ["your_turn"]}),
            422,
            "invalid_webhook_url",
        ),
        (
            json!({"url": "https://example.org/\nx", "events": ["your_turn"]}),
            422,
            "invalid_webhook_url",
        ),
        (
            json!({"url": format!("https://example.org/{}", "a".repeat(3000)), "events": ["your_turn"]}),
            422,
            "invalid_webhook_url",
        ),
        (
            json!({"url": "https://example.org/", "events": ["checkmate"]}),
            422,
            "invalid_webhook_events",
        ),
        (
            json!({"url": "https://example.org/", "events": ["your_turn\u{0}"]}),
            422,
            "invalid_webhook_events",
        ),
        (
            json!({"url": "https://example.org/", "events": []}),
            422,
            "invalid_webhook_events",
        ),
        (
            json!({"url": "https://example.org/", "events": "your_turn"}),
            422,
            "invalid_body",
        ),
        (
            json!({"url": "https://example.org/", "events": [1]}),
            422,
            "invalid_body",
        ),
        (
            json!({"url": 12, "events": ["your_turn"]}),
            422,
            "invalid_body",
        ),
        (json!({"events": ["your_turn"]}), 422, "invalid_body"),
        (
            json!({"url": "https://example.org/", "events": ["offer"], "secret": "mine"}),
            422,
            "invalid_body",
        ),
        (
            json!({"url": format!("https://example.org/{}", "a".repeat(300_000)), "events": ["offer"]}),
            413,
            "payload_too_large",
        ),
    ];
    for (body, status, code) in cases {
        let shown: String = body.to_string().chars().take(80).collect();
        let (s, v) = assert_problem(post(body), &shown);
        assert_eq!((s, v["code"].as_str()), (status, Some(code)), "{shown}");
    }
    let r = app
        .client
        .post(app.url("/api/v1/me/webhooks"))
        .bearer_auth(&ada.token)
        .header("content-type", "application/json")
        .body("{\"url\": ")
        .send()
        .unwrap();
    assert_eq!(assert_problem(r, "broken JSON").1["code"], "invalid_json");
    let r = app.post(
        "/api/v1/me/webhooks",
        None,
        &json!({"url": "https://example.org/", "events": ["offer"]}),
    );
    assert_eq!(assert_problem(r, "no token").0, 401);
    let listed: Value = app
        .get("/api/v1/me/webhooks", Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(listed, json!([]), "nothing was stored");

    for i in 0..10 {
        register(&app, &ada, &format!("https://example.org/{i}"), &["offer"]);
    }
    let (s, v) = assert_problem(
        post(json!({"url": "https://example.org/11", "events": ["offer"]})),
        "the eleventh",
    );
    assert_eq!((s, v["code"].as_str()), (409, Some("too_many_webhooks")));
    let listed: Value = app
        .get("/api/v1/me/webhooks", Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 10);
}

#[test]
fn one_account_cannot_see_or_touch_anothers_webhooks() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let eve = app.player("Eve");
    let (hook, _) = register(
        &app,
        &ada,
        "https://example.org/ada",
        &["your_turn", "offer"],
    );
    let listed: Value = app
        .get("/api/v1/me/webhooks", Some(&eve.token))
        .json()
        .unwrap();
    assert_eq!(listed, json!([]));
    let listed: Value = app
        .get("/api/v1/me/webhooks", Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(listed[0]["id"], hook);
    assert_eq!(listed[0]["events"], json!(["your_turn", "offer"]));
    assert!(
        listed[0].get("secret").is_none(),
        "the secret is shown once"
    );

    let delete = |p: &Player, id: &str| {
        app.client
            .delete(app.url(&format!("/api/v1/me/webhooks/{id}")))
            .bearer_auth(&p.token)
            .send()
            .unwrap()
    };
    let (s, v) = assert_problem(delete(&eve, &hook.to_string()), "Eve deletes");
    assert_eq!((s, v["code"].as_str()), (404, Some("not_found")));
    for path in [
        format!("/api/v1/me/webhooks/{hook}/deliveries"),
        "/api/v1/me/webhooks/abc/deliveries".to_string(),
        "/api/v1/me/webhooks/99999999999999999999/deliveries".to_string(),
    ] {
        assert_eq!(
            assert_problem(app.get(&path, Some(&eve.token)), &path).0,
            404
        );
    }
    let r = app.post(
        &format!("/api/v1/me/webhooks/{hook}/test"),
        Some(&eve.token),
        &json!({}),
    );
    assert_eq!(assert_problem(r, "Eve pings").0, 404);
    assert_eq!(assert_problem(delete(&ada, "-1"), "no such id").0, 404);

    assert_eq!(delete(&ada, &hook.to_string()).status(), 204);
    assert_eq!(
        assert_problem(delete(&ada, &hook.to_string()), "twice").0,
        404
    );
    let listed: Value = app
        .get("/api/v1/me/webhooks", Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(listed, json!([]));
}

fn create_game(app: &TestApp, players: &[&Player], clock: bool) -> i64 {
    let mut body = json!({"game_type": "kasino", "players": players.len(), "options": {}});
    if clock {
        body["time_control"] = json!({"days_per_move": 3});
    }
    let r = app.post("/api/v1/games", Some(&players[0].token), &body);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    for p in &players[1..] {
        let r = app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&p.token),
            &json!({}),
        );
        assert_eq!(r.status(), 200);
    }
    id
}

/// The feed's path on the test app (links name the public URL).
fn feed_path(app: &TestApp, p: &Player) -> String {
    let r = app.get("/api/v1/me/calendar", Some(&p.token));
    assert_eq!(r.status(), 200);
    let url = r.json::<Value>().unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string();
    let path = url
        .strip_prefix("http://turnpost.test")
        .expect("a link on the public URL");
    assert!(
        path.starts_with("/api/v1/calendar/") && path.ends_with(".ics"),
        "{path}"
    );
    path.to_string()
}

/// The feed's events, as (UID, DTSTART, SUMMARY) from the parsed document.
fn feed_events(app: &TestApp, path: &str) -> Vec<(String, String, String)> {
    use icalendar::Component;
    let r = app.get(path, None);
    assert_eq!(r.status(), 200);
    assert!(
        content_type(&r).starts_with("text/calendar"),
        "{}",
        content_type(&r)
    );
    let text = r.text().unwrap();
    assert!(text.starts_with("BEGIN:VCALENDAR\r\n"), "{text}");
    // The feed names its maker, Turnpost, not the calendar library.
    let prodid = format!(
        "\r\nPRODID:-//Turnpost//Turnpost {}//EN\r\n",
        env!("CARGO_PKG_VERSION")
    );
    assert!(text.contains(&prodid), "{text}");
    assert!(!text.contains("ICALENDAR-RS"), "{text}");
    let cal: icalendar::Calendar = text.parse().expect("the feed parses");
    cal.events()
        .map(|e| {
            (
                e.get_uid().unwrap_or_default().to_string(),
                e.properties()["DTSTART"].value().to_string(),
                e.get_summary().unwrap_or_default().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_calendar_feed_lists_the_deadline_where_it_is_the_accounts_turn() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let clocked = create_game(&app, &[&ada, &bo], true);
    let unclocked = create_game(&app, &[&ada, &bo], false);
    let started = chrono::Utc::now();
    let g = app.game(clocked, &ada);
    let seat = g["to_act"][0].as_u64().unwrap() as usize;
    let (mover, waiting) = if seat == 0 { (&ada, &bo) } else { (&bo, &ada) };

    let path = feed_path(&app, mover);
    assert_eq!(feed_path(&app, mover), path, "the same address until reset");
    let events = feed_events(&app, &path);
    assert_eq!(events.len(), 1, "{events:?}");
    let (uid, start, summary) = &events[0];
    assert!(
        uid.contains(&format!("game-{clocked}-seat-{seat}")),
        "{uid}"
    );
    assert!(summary.contains(&format!("Kasino #{clocked}")), "{summary}");
    assert!(!summary.contains(&format!("#{unclocked}")));
    let due = chrono::NaiveDateTime::parse_from_str(start, "%Y%m%dT%H%M%SZ")
        .expect("a UTC time")
        .and_utc();
    let expected = started + chrono::Duration::days(3);
    assert!(
        (due - expected).num_seconds().abs() < 120,
        "due {due}, expected about {expected}"
    );
    // Not the waiting player's deadline, and no game without a clock.
    assert_eq!(feed_events(&app, &feed_path(&app, waiting)), vec![]);

    // Forged addresses.
    let token = path
        .trim_start_matches("/api/v1/calendar/")
        .trim_end_matches(".ics")
        .to_string();
    let last = token.chars().last().unwrap();
    let flipped = format!(
        "{}{}",
        &token[..token.len() - 1],
        if last == '0' { '1' } else { '0' }
    );
    let other = feed_path(&app, waiting);
    let other_tag = other
        .rsplit_once('-')
        .unwrap()
        .1
        .trim_end_matches(".ics")
        .to_string();
    let (mover_id, _) = token.split_once('-').unwrap();
    for forged in [
        flipped,
        format!("{mover_id}-{other_tag}"),
        "garbage".into(),
        "1-zz".into(),
        "%00".into(),
        format!("{token}00"),
        "99999999999999999999-00".into(),
    ] {
        let r = app.get(&format!("/api/v1/calendar/{forged}.ics"), None);
        let (s, v) = assert_problem(r, &forged);
        assert_eq!(
            (s, v["code"].as_str()),
            (404, Some("feed_not_found")),
            "{forged}"
        );
    }
    // A reset revokes the old address.
    let r = app.post("/api/v1/me/calendar/reset", Some(&mover.token), &json!({}));
    assert_eq!(r.status(), 200);
    let fresh = r.json::<Value>().unwrap()["url"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(!fresh.ends_with(&path));
    assert_eq!(assert_problem(app.get(&path, None), "revoked").0, 404);
    assert_eq!(feed_events(&app, &feed_path(&app, mover)).len(), 1);
    assert_eq!(
        assert_problem(app.get("/api/v1/me/calendar", None), "no token").0,
        401
    );
}

/// `offer`: a seat has something to decide outside its turn. A takeback request is one:
/// each player asked gets a signed `offer` for the game's version, and nobody else does.
#[test]
fn a_takeback_request_is_an_offer_to_each_player_asked() {
    let app = open_app();
    let people = [app.player("Ada"), app.player("Bo"), app.player("Cy")];
    let rx = receiver(vec![]);
    let secrets: Vec<String> = people
        .iter()
        .map(|p| register(&app, p, &rx.url, &["offer"]).1)
        .collect();
    let all: Vec<&Player> = people.iter().collect();
    let id = app.start_game("starfarers", json!({}), &all);
    let found = crate::takeback::play_until_takeback(&app, id, &all, 9);
    let mut asked: Vec<i64> = found.game["takeback"]["waiting_for"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    asked.sort_unstable();
    assert_eq!(asked.len(), 2);
    let at = |h: &Hit| h.json()["game"]["version"] == found.version;
    let hits = rx.wait("an offer to each player asked", |h| {
        h.iter().filter(|x| at(x)).count() >= 2
    });
    let mut seats: Vec<i64> = Vec::new();
    for hit in hits.iter().filter(|x| at(x)) {
        assert_eq!(hit.header("turnpost-event"), "offer");
        let body = hit.json();
        assert_eq!(body["event"], "offer");
        assert_eq!(body["game"]["id"], id);
        let seat = body["seat"].as_i64().unwrap();
        // Signed with the secret of the seat's own account.
        let owner = people
            .iter()
            .position(|p| app.game(id, p)["your_seat"] == seat)
            .unwrap();
        assert_signed(hit, &secrets[owner]);
        seats.push(seat);
    }
    seats.sort_unstable();
    assert_eq!(
        seats, asked,
        "one offer per seat asked, none to the one asking"
    );
}

/// A receiver that takes every connection and never answers (each is kept until the
/// sender hangs up), noting when each arrived and how many were open at once.
struct Hung {
    url: String,
    arrivals: Arc<Mutex<Vec<Instant>>>,
    most_open: Arc<AtomicUsize>,
}

fn hung_receiver() -> Hung {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
    let arrivals = Arc::new(Mutex::new(Vec::new()));
    let most_open = Arc::new(AtomicUsize::new(0));
    let noted = Arc::clone(&arrivals);
    let most = Arc::clone(&most_open);
    std::thread::spawn(move || {
        // Never answered, never closed here: held until their senders give up.
        let mut held: Vec<TcpStream> = Vec::new();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            noted.lock().unwrap().push(Instant::now());
            held.retain_mut(|s| still_open(s, Instant::now()));
            // A sender gives up on a connection when its timeout passes and its client's
            // runtime drops the socket a moment later, while the sender may already be
            // connecting for the lane's next delivery: an older connection that closes
            // within a second is not one held at the same time. Three lanes at once would
            // keep all three open for most of the two-second timeout.
            if held.len() >= 2 {
                let until = Instant::now() + Duration::from_secs(1);
                held.retain_mut(|s| still_open(s, until));
            }
            held.push(stream);
            most.fetch_max(held.len(), Ordering::SeqCst);
        }
    });
    Hung {
        url,
        arrivals,
        most_open,
    }
}

/// Whether the sender still holds `stream` open at `until` (what it sent is read and
/// dropped); a deadline already passed asks only what has arrived.
fn still_open(stream: &mut TcpStream, until: Instant) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let set = if left.is_zero() {
            stream.set_nonblocking(true)
        } else {
            stream
                .set_nonblocking(false)
                .and_then(|()| stream.set_read_timeout(Some(left)))
        };
        if set.is_err() {
            return false;
        }
        match stream.read(&mut buf) {
            Ok(0) => return false,
            Ok(_) => continue,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return true;
            }
            Err(_) => return false,
        }
    }
}

impl Hung {
    fn accepted(&self) -> usize {
        self.arrivals.lock().unwrap().len()
    }
}

fn list_hooks(app: &TestApp, p: &Player) -> Vec<Value> {
    let r = app.get("/api/v1/me/webhooks", Some(&p.token));
    assert_eq!(r.status(), 200);
    r.json::<Vec<Value>>().unwrap()
}

fn ping(app: &TestApp, p: &Player, hook: i64) {
    let r = app.post(
        &format!("/api/v1/me/webhooks/{hook}/test"),
        Some(&p.token),
        &json!({}),
    );
    assert_eq!(r.status(), 202, "{}", r.text().unwrap_or_default());
}

/// A webhook sender of the test's own, claiming as the app's senders do.
fn test_sender(app: &TestApp, max_attempts: i32) -> Worker {
    Worker {
        lane: Lane::Webhooks,
        domain: app.domain(),
        mailer: Mailer::from_settings(None, app.settings.var_dir.join("test-sender"), 1).unwrap(),
        from: "Turnpost <turnpost@localhost>".parse().unwrap(),
        poll: Duration::from_millis(10),
        max_attempts,
        lease: Duration::from_secs(60),
        senders: 2,
        stop: Arc::new(AtomicBool::new(false)),
    }
}

#[test]
fn a_receiver_that_never_answers_holds_a_sender_per_lane_pauses_each_webhook_alone_and_delays_no_email()
 {
    let app = spawn_app_with(|s| {
        s.webhook_allow_private = true;
        s.webhook_timeout_secs = 2;
        s.webhook_senders = 4;
    });
    let rx = hung_receiver();
    // Two accounts with three webhooks each at the one receiver, each pinged once.
    let owners: Vec<Player> = (0..2).map(|i| app.player(&format!("Hook{i}"))).collect();
    let mut hooks = Vec::new();
    for p in &owners {
        for k in 0..3 {
            let (id, _) = register(&app, p, &format!("{}/{k}", rx.url), &["game_finished"]);
            hooks.push((p, id));
        }
    }
    for (p, id) in &hooks {
        ping(&app, p, *id);
    }
    // An unrelated game's first turn email goes out while the pings wait for their
    // receiver: it never waits behind them, each taking the whole timeout.
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let game = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let turn = format!("#{game}: your turn");
    app.wait_for_mails("the unrelated game's turn email", |m| {
        m.iter().any(|x| x.subject.ends_with(&turn))
    });
    let tried = rx.accepted();
    assert!(
        tried <= 4,
        "the turn email went out only after {tried} pings had been tried"
    );
    // A webhook is paused after its own three failures in a row, not with the others
    // at the same receiver: when the first pause shows, some webhook is not paused, and
    // each paused one has failed three times.
    let until = Instant::now() + PATIENCE;
    let paused: Vec<(&Player, i64, bool)> = loop {
        let listed: Vec<(&Player, i64, bool)> = owners
            .iter()
            .flat_map(|p| {
                list_hooks(&app, p)
                    .into_iter()
                    .map(move |h| (p, h["id"].as_i64().unwrap(), h["paused_until"].is_string()))
            })
            .collect();
        if listed.iter().any(|(_, _, paused)| *paused) {
            break listed;
        }
        assert!(Instant::now() < until, "no webhook was ever paused");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(
        paused.iter().any(|(_, _, paused)| !*paused),
        "every webhook at the receiver was paused at once: {:?}",
        paused.iter().map(|(_, id, p)| (id, p)).collect::<Vec<_>>()
    );
    for (p, id, is_paused) in &paused {
        let d = deliveries(&app, p, *id);
        if *is_paused {
            assert!(d[0]["attempts"].as_i64().unwrap() >= 3, "{d:?}");
        }
    }
    // Politeness: one delivery at a time per lane (webhooks that answered last time, and
    // webhooks retrying), so never more than two connections at once.
    let most = rx.most_open.load(Ordering::SeqCst);
    assert!(most <= 2, "{most} connections at once to one receiver");
}

/// Marks a claimed row as if its receiver had answered 2xx.
fn mark_sent(sender: &Worker, row: &turnpost::store::models::OutboxRow) {
    sender
        .mark(
            row,
            Ok(Delivered::Sent {
                shown_version: None,
                chat_upto: None,
            }),
        )
        .expect("mark");
}

#[test]
fn a_failing_webhook_is_paused_alone_and_another_accounts_webhook_at_the_same_host_is_delivered() {
    let app = open_app();
    // One host and port: `/bad` answers 500, any other path 200.
    let rx = routed_receiver(|_, path| {
        if path.starts_with("/bad") {
            Answer::Status(500)
        } else {
            Answer::Status(200)
        }
    });
    let ann = app.player("Ann");
    let ben = app.player("Ben");
    let (bad, _) = register(&app, &ann, &format!("{}/bad", rx.base), &["game_finished"]);
    let (good, secret) = register(&app, &ben, &format!("{}/good", rx.base), &["game_finished"]);
    ping(&app, &ann, bad);
    // Ann's ping is tried until it is given up, at once rather than after each backoff
    // (a sender looking hours ahead): its webhook's breaker opens for an hour.
    // (The app's senders may hold it for a moment: the test's sender tries again.)
    let sender = test_sender(&app, 20);
    let until = Instant::now() + PATIENCE;
    loop {
        sender
            .send_due_at(chrono::Utc::now() + chrono::Duration::hours(2))
            .expect("send");
        let failed = deliveries(&app, &ann, bad);
        if failed[0]["status"] == "failed" {
            break;
        }
        assert!(
            Instant::now() < until,
            "Ann's ping never given up: {failed:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let paused = list_hooks(&app, &ann)[0]["paused_until"].clone();
    let paused: chrono::DateTime<chrono::Utc> =
        serde_json::from_value(paused.clone()).unwrap_or_else(|_| panic!("not paused: {paused}"));
    assert!(paused > chrono::Utc::now() + chrono::Duration::minutes(30));
    // Ben's ping to the same host and port goes out now, by the app's own senders: the
    // pause is Ann's webhook's, not the receiver's.
    ping(&app, &ben, good);
    let hits = rx.wait("Ben's ping while Ann's webhook is paused", |h| {
        h.iter().any(|x| x.path == "/good")
    });
    let hit = hits.iter().find(|x| x.path == "/good").unwrap();
    assert_signed(hit, &secret);
    assert!(
        chrono::Utc::now() < paused,
        "delivered only after Ann's pause"
    );
    assert!(list_hooks(&app, &ann)[0]["paused_until"].is_string());
    assert!(list_hooks(&app, &ben)[0]["paused_until"].is_null());
    let until = Instant::now() + PATIENCE;
    while deliveries(&app, &ben, good)[0]["status"] != "delivered" {
        assert!(Instant::now() < until, "Ben's ping never marked delivered");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn accounts_take_turns_and_twenty_senders_at_once_take_each_delivery_and_lane_once() {
    // The app's own senders make one pass at start and then sleep: the test's senders
    // claim everything.
    let app = spawn_app_with(|s| {
        s.webhook_allow_private = true;
        s.outbox_poll_ms = 3_600_000;
    });
    // Nothing listens there: nothing is posted, claims are marked by hand.
    let busy_host = "http://127.0.0.1:9";
    let ann = app.player("Ann");
    let ben = app.player("Ben");
    for k in 0..10 {
        let (id, _) = register(
            &app,
            &ann,
            &format!("{busy_host}/ann/{k}"),
            &["game_finished"],
        );
        ping(&app, &ann, id);
    }
    let (id, _) = register(&app, &ben, "http://127.0.0.1:10/ben", &["game_finished"]);
    ping(&app, &ben, id);
    // Ann owes ten deliveries, all older than Ben's one: Ben's is the second claimed,
    // not the eleventh.
    let sender = test_sender(&app, 5);
    let mut order = Vec::new();
    while let Some(row) = sender.claim().expect("claim") {
        order.push(row.account_id.expect("an account").0);
        mark_sent(&sender, &row);
    }
    assert_eq!(order.len(), 11, "{order:?}");
    let ben_at = order
        .iter()
        .position(|a| *a == ben.id)
        .expect("Ben's claimed");
    assert!(
        ben_at <= 1,
        "Ben's delivery was claimed {}th: {order:?}",
        ben_at + 1
    );

    // Twenty senders claim at once: Cy's ten deliveries at one receiver, Di's ten at ten
    // receivers. Each delivery is claimed at most once, Cy's receiver carries one at a
    // time, and each of Di's receivers one.
    let cy = app.player("Cy");
    let di = app.player("Di");
    for k in 0..10 {
        let (id, _) = register(
            &app,
            &cy,
            &format!("{busy_host}/cy/{k}"),
            &["game_finished"],
        );
        ping(&app, &cy, id);
        let (id, _) = register(
            &app,
            &di,
            &format!("http://127.0.0.1:{}/di", 20 + k),
            &["game_finished"],
        );
        ping(&app, &di, id);
    }
    let senders: Vec<Worker> = (0..20).map(|_| test_sender(&app, 5)).collect();
    let barrier = std::sync::Barrier::new(senders.len());
    let claimed: Vec<(i64, i64)> = std::thread::scope(|s| {
        let handles: Vec<_> = senders
            .iter()
            .map(|sender| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    sender
                        .claim()
                        .expect("claim")
                        .map(|row| (row.id, row.account_id.expect("an account").0))
                })
            })
            .collect();
        handles
            .into_iter()
            .filter_map(|h| h.join().expect("a sender"))
            .collect()
    });
    let mut ids: Vec<i64> = claimed.iter().map(|c| c.0).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(
        ids.len(),
        claimed.len(),
        "a delivery claimed twice: {claimed:?}"
    );
    let of = |who: &Player| claimed.iter().filter(|c| c.1 == who.id).count();
    assert_eq!(
        of(&cy),
        1,
        "Cy's receiver carries one delivery at a time: {claimed:?}"
    );
    assert_eq!(
        of(&di),
        10,
        "each of Di's receivers carries one: {claimed:?}"
    );
}

#[test]
fn pings_are_one_a_minute_per_webhook_and_twenty_an_hour_per_account() {
    let app = open_app();
    let ada = app.player("Ada");
    let rx = receiver(vec![]);
    let (hook, _) = register(&app, &ada, &rx.url, &["game_finished"]);
    let path = format!("/api/v1/me/webhooks/{hook}/test");
    // Twenty at once: one is queued, the others are told when to try again.
    let answers: Vec<(u16, Value, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|_| {
                s.spawn(|| {
                    let r = app.post(&path, Some(&ada.token), &json!({}));
                    let status = r.status().as_u16();
                    let retry = r
                        .headers()
                        .get("retry-after")
                        .map(|v| v.to_str().unwrap().to_string())
                        .unwrap_or_default();
                    (status, r.json::<Value>().unwrap(), retry)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        answers.iter().filter(|a| a.0 == 202).count(),
        1,
        "{answers:?}"
    );
    for (status, body, retry) in answers.iter().filter(|a| a.0 != 202) {
        assert_eq!(*status, 429, "{body}");
        assert_eq!(body["code"], "too_many_pings", "{body}");
        let secs: u64 = retry.parse().expect("Retry-After in seconds");
        assert!((1..=60).contains(&secs), "Retry-After {secs}");
    }
    rx.wait("the one ping", |h| h.len() == 1);
    assert_eq!(deliveries(&app, &ada, hook).len(), 1);
    // The hourly budget across the account's webhooks: ten webhooks, pings a minute
    // apart (the clock moved back in the database), the 21st of the hour refused.
    let mut ids = vec![hook];
    for k in 1..10 {
        ids.push(register(&app, &ada, &format!("{}/{k}", rx.url), &["game_finished"]).0);
    }
    let mut conn = {
        use diesel::Connection;
        diesel::PgConnection::establish(&app.database_url).expect("connect")
    };
    let age_pings = |conn: &mut diesel::PgConnection| {
        use diesel::RunQueryDsl;
        diesel::sql_query(
            "UPDATE outbox SET created_at = created_at - interval '61 seconds' \
             WHERE kind = 'webhook'",
        )
        .execute(conn)
        .expect("age the pings");
    };
    age_pings(&mut conn);
    let mut queued = 1;
    for round in 0..2 {
        for id in &ids {
            if round == 1 && queued == 20 {
                break;
            }
            let r = app.post(
                &format!("/api/v1/me/webhooks/{id}/test"),
                Some(&ada.token),
                &json!({}),
            );
            assert_eq!(
                r.status(),
                202,
                "ping {}: {}",
                queued + 1,
                r.text().unwrap()
            );
            queued += 1;
        }
        age_pings(&mut conn);
    }
    assert_eq!(queued, 20);
    let r = app.post(
        &format!("/api/v1/me/webhooks/{}/test", ids[9]),
        Some(&ada.token),
        &json!({}),
    );
    let (status, body) = assert_problem(r, "the 21st ping of the hour");
    assert_eq!(status, 429, "{body}");
    assert_eq!(body["code"], "too_many_pings", "{body}");
    assert!(
        body["detail"]
            .as_str()
            .unwrap()
            .contains("20 times an hour"),
        "{body}"
    );
}

/// Each timeout policy's deadline says what that policy does: a `bot`-policy game's must
/// not say "or you forfeit the game".
#[test]
fn the_calendar_feed_says_what_each_timeout_policy_does() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    for (policy, says, never) in [
        ("forfeit", "or you forfeit the game", "computer"),
        (
            "random_move",
            "a random legal move is played for you",
            "forfeit",
        ),
        (
            "bot",
            "the computer plays your seat until you take it back",
            "forfeit",
        ),
    ] {
        let body = json!({"game_type": "kasino", "players": 2, "options": {},
            "time_control": {"days_per_move": 3}, "timeout_policy": policy});
        let r = app.post("/api/v1/games", Some(&ada.token), &body);
        assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
        let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
        let r = app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&bo.token),
            &json!({}),
        );
        assert_eq!(r.status(), 200);
        let seat = app.game(id, &ada)["to_act"][0].as_u64().unwrap();
        let mover = if seat == 0 { &ada } else { &bo };
        let ics = app
            .get(&feed_path(&app, mover), None)
            .text()
            .unwrap()
            .replace("\r\n ", "");
        let event = ics
            .split("BEGIN:VEVENT")
            .find(|e| e.contains(&format!("game-{id}-seat-{seat}")))
            .unwrap_or_else(|| panic!("no event for game {id}: {ics}"));
        let description = event
            .lines()
            .find(|l| l.starts_with("DESCRIPTION:"))
            .expect("a description");
        assert!(description.contains(says), "{policy}: {description}");
        assert!(!description.contains(never), "{policy}: {description}");
    }
}
