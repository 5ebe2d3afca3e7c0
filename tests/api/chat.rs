//! Chat at the table, over HTTP on the real server and database: who reads and
//! writes which channel, garbage and hostile text, the length cap and the rate limit,
//! muting, reports and the operator's list, chat surviving a takeback, concurrent posts,
//! unread counts and the live event.

use std::collections::HashSet;
use std::io::{BufRead, BufReader};
use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use reqwest::blocking::Response;
use serde_json::{Value, json};

use crate::helpers::{PATIENCE, Player, TestApp, assert_problem, spawn_app};

fn chat_path(id: i64) -> String {
    format!("/api/v1/games/{id}/chat")
}

fn say(app: &TestApp, id: i64, p: &Player, text: &str) -> Response {
    app.post(&chat_path(id), Some(&p.token), &json!({ "text": text }))
}

fn say_ok(app: &TestApp, id: i64, p: &Player, body: Value) -> Value {
    let r = app.post(&chat_path(id), Some(&p.token), &body);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    r.json().unwrap()
}

fn code_of(r: Response, what: &str) -> (u16, String) {
    let (s, v) = assert_problem(r, what);
    (s, v["code"].as_str().unwrap_or_default().to_string())
}

/// The texts of a channel as `p` reads it, oldest first.
fn texts(app: &TestApp, id: i64, p: &Player, query: &str) -> Vec<String> {
    let r = app.get(
        &format!("{}?limit=200{query}", chat_path(id)),
        Some(&p.token),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let page: Value = r.json().unwrap();
    page["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

fn seat_of(app: &TestApp, id: i64, p: &Player) -> i64 {
    app.game(id, p)["your_seat"].as_i64().unwrap()
}

#[test]
fn only_seated_players_read_and_write_the_table() {
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let m = say_ok(&app, id, &ada, json!({"text": "good luck"}));
    assert_eq!(m["channel"], "table");
    assert_eq!(m["author_id"], ada.id);
    assert_eq!(m["seat"], 0);
    assert_eq!(texts(&app, id, &bo, ""), ["good luck"]);

    // A spectator of a public game: the game is visible, its chat is not.
    let (s, code) = code_of(app.get(&chat_path(id), Some(&cy.token)), "spectator reads");
    assert_eq!((s, code.as_str()), (403, "not_a_player"));
    let (s, code) = code_of(say(&app, id, &cy, "hi"), "spectator writes");
    assert_eq!((s, code.as_str()), (403, "not_a_player"));
    // Without a token: 401.
    let (s, _) = code_of(app.get(&chat_path(id), None), "anonymous reads");
    assert_eq!(s, 401);
    // No such game.
    let (s, code) = code_of(app.get(&chat_path(9_999_999), Some(&ada.token)), "no game");
    assert_eq!((s, code.as_str()), (404, "game_not_found"));
    // A two-player Kasino has no teams.
    let (s, code) = code_of(
        app.post(
            &chat_path(id),
            Some(&ada.token),
            &json!({"text": "psst", "channel": "team"}),
        ),
        "team channel without teams",
    );
    assert_eq!((s, code.as_str()), (409, "no_team_channel"));
    let (s, code) = code_of(
        app.get(&format!("{}?channel=team", chat_path(id)), Some(&bo.token)),
        "team list without teams",
    );
    assert_eq!((s, code.as_str()), (409, "no_team_channel"));
    for q in [
        "?channel=lobby",
        "?limit=0",
        "?limit=201",
        "?before=-1",
        "?after=-1",
        "?colour=red",
    ] {
        let (s, code) = code_of(
            app.get(&format!("{}{q}", chat_path(id)), Some(&bo.token)),
            q,
        );
        assert_eq!((s, code.as_str()), (400, "invalid_query"), "{q}");
    }

    // A stranger to a private game is not told it exists.
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "private": true, "invite": [bo.email]}),
    );
    assert_eq!(r.status(), 201);
    let private = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    say_ok(&app, private, &ada, json!({"text": "just us"}));
    for (r, what) in [
        (
            app.get(&chat_path(private), Some(&cy.token)),
            "stranger reads",
        ),
        (say(&app, private, &cy, "hello?"), "stranger writes"),
    ] {
        let (s, code) = code_of(r, what);
        assert_eq!((s, code.as_str()), (404, "game_not_found"), "{what}");
    }
    // Invited but not seated yet: no chat either.
    let (s, _) = code_of(app.get(&chat_path(private), Some(&bo.token)), "invitee");
    assert!(s == 403 || s == 404, "{s}");
}

#[test]
fn a_team_channel_is_read_by_the_team_alone() {
    let app = spawn_app();
    let people = [
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Di"),
    ];
    let all: Vec<&Player> = people.iter().collect();
    let id = app.start_game("kasino", json!({"teams": true}), &all);
    let seats: Vec<i64> = people.iter().map(|p| seat_of(&app, id, p)).collect();
    let ada = &people[0];
    let mate = (1..4).find(|&i| seats[i] % 2 == seats[0] % 2).unwrap();
    let opponents: Vec<usize> = (1..4).filter(|&i| i != mate).collect();

    let m = say_ok(
        &app,
        id,
        ada,
        json!({"text": "lead low", "channel": "team"}),
    );
    assert_eq!(m["channel"], "team");
    say_ok(&app, id, ada, json!({"text": "well played all"}));
    assert_eq!(
        texts(&app, id, &people[mate], "&channel=team"),
        ["lead low"]
    );
    assert_eq!(
        texts(&app, id, &people[mate], ""),
        ["well played all"],
        "team talk stays off the table"
    );
    for &o in &opponents {
        assert!(
            texts(&app, id, &people[o], "&channel=team").is_empty(),
            "an opponent's team channel is their own"
        );
        assert_eq!(texts(&app, id, &people[o], ""), ["well played all"]);
        // Nor can an opponent report what they cannot read.
        let (s, code) = code_of(
            app.post(
                &format!("{}/{}/report", chat_path(id), m["id"]),
                Some(&people[o].token),
                &json!({}),
            ),
            "opponent reports team talk",
        );
        assert_eq!((s, code.as_str()), (404, "chat_message_not_found"));
    }
    // The opponents' own channel.
    say_ok(
        &app,
        id,
        &people[opponents[0]],
        json!({"text": "they lead low", "channel": "team"}),
    );
    assert_eq!(
        texts(&app, id, &people[opponents[1]], "&channel=team"),
        ["they lead low"]
    );
    assert_eq!(texts(&app, id, ada, "&channel=team"), ["lead low"]);
}

#[test]
fn garbage_and_hostile_text_is_refused_or_neutralised() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    for (text, code) in [
        ("nul\u{0}here", "invalid_chat_message"),
        ("", "invalid_chat_message"),
        ("   \n\t ", "invalid_chat_message"),
        ("\u{202E}\u{2066}", "invalid_chat_message"),
    ] {
        let (s, c) = code_of(say(&app, id, &ada, text), text);
        assert_eq!((s, c.as_str()), (422, code), "{text:?}");
    }
    let (s, c) = code_of(say(&app, id, &ada, &"x".repeat(1001)), "too long");
    assert_eq!((s, c.as_str()), (422, "chat_message_too_long"));
    // Characters, not bytes.
    let long = "é".repeat(1000);
    assert_eq!(say(&app, id, &ada, &long).status(), 201);
    for (body, code, status) in [
        (json!({"text": 5}), "invalid_body", 422),
        (json!({"text": "hi", "colour": "red"}), "invalid_body", 422),
        (
            json!({"text": "hi", "channel": "lobby"}),
            "invalid_body",
            422,
        ),
        (json!({}), "invalid_body", 422),
        (json!([1, 2]), "invalid_body", 422),
    ] {
        let (s, c) = code_of(
            app.post(&chat_path(id), Some(&ada.token), &body),
            &body.to_string(),
        );
        assert_eq!((s, c.as_str()), (status, code), "{body}");
    }
    let r = app
        .client
        .post(app.url(&chat_path(id)))
        .bearer_auth(&ada.token)
        .header("content-type", "application/json")
        .body("{\"text\": \"unterminated")
        .send()
        .unwrap();
    let (s, c) = code_of(r, "not JSON");
    assert_eq!((s, c.as_str()), (400, "invalid_json"));

    let hostile = say_ok(
        &app,
        id,
        &ada,
        json!({"text": "<img src=x onerror=alert(1)>\u{202E}gnp.exe\u{7}\ttab\r\nline two"}),
    );
    assert_eq!(
        hostile["text"], "<img src=x onerror=alert(1)>gnp.exe  tab\nline two",
        "bidi overrides go, controls are spaces, HTML stays text"
    );
    let listed = texts(&app, id, &bo, "");
    assert_eq!(listed.last().map(String::as_str), hostile["text"].as_str());
    // Reports are neutralised and capped too.
    let mid = hostile["id"].as_i64().unwrap();
    let report = format!("{}/{mid}/report", chat_path(id));
    let (s, c) = code_of(
        app.post(
            &report,
            Some(&bo.token),
            &json!({"reason": "x".repeat(501)}),
        ),
        "long reason",
    );
    assert_eq!((s, c.as_str()), (422, "chat_message_too_long"));
    let (s, c) = code_of(
        app.post(&report, Some(&bo.token), &json!({"reason": "a\u{0}b"})),
        "NUL reason",
    );
    assert_eq!((s, c.as_str()), (422, "invalid_chat_message"));
    // Ids that are not ids.
    let r = app.get("/api/v1/games/abc/chat", Some(&bo.token));
    assert_eq!(code_of(r, "bad game id").0, 404);
    let r = app.post(
        &format!("{}/zz/report", chat_path(id)),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(code_of(r, "bad message id").0, 404);
}

#[test]
fn a_player_posts_at_most_twenty_messages_a_minute() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    for i in 0..20 {
        let r = say(&app, id, &ada, &format!("message {i}"));
        assert_eq!(r.status(), 201, "message {i}");
    }
    let r = say(&app, id, &ada, "one too many");
    let retry: u64 = r
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    assert!((1..=60).contains(&retry), "{retry}");
    let (s, c) = code_of(r, "rate limited");
    assert_eq!((s, c.as_str()), (429, "rate_limited"));
    // Others still may.
    assert_eq!(say(&app, id, &bo, "slow down").status(), 201);
    assert_eq!(texts(&app, id, &bo, "").len(), 21);
}

#[test]
fn twenty_concurrent_posts_are_stored_once_each_in_one_order() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let (app, p) = (&app, if i % 2 == 0 { &ada } else { &bo });
                s.spawn(move || say(app, id, p, &format!("m{i}")).status().as_u16())
            })
            .collect();
        for h in handles {
            assert_eq!(h.join().unwrap(), 201);
        }
    });
    let a = texts(&app, id, &ada, "");
    let b = texts(&app, id, &bo, "");
    assert_eq!(a.len(), 20);
    assert_eq!(a, b, "both read one order");
    let unique: HashSet<&String> = a.iter().collect();
    assert_eq!(unique.len(), 20, "each once");

    // Paging back through them with the cursor gives the same order.
    let mut paged: Vec<String> = Vec::new();
    let mut before: Option<i64> = None;
    loop {
        let q = match before {
            Some(b) => format!("{}?limit=7&before={b}", chat_path(id)),
            None => format!("{}?limit=7", chat_path(id)),
        };
        let page: Value = app.get(&q, Some(&ada.token)).json().unwrap();
        let mut texts: Vec<String> = page["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["text"].as_str().unwrap().to_string())
            .collect();
        texts.append(&mut paged);
        paged = texts;
        match page["next_before"].as_i64() {
            Some(b) => before = Some(b),
            None => break,
        }
    }
    assert_eq!(paged, a);

    // `after` with `before`: the messages strictly between the two, oldest first.
    let all: Value = app
        .get(&format!("{}?limit=20", chat_path(id)), Some(&ada.token))
        .json()
        .unwrap();
    let ids: Vec<i64> = all["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_i64().unwrap())
        .collect();
    let between = texts(
        &app,
        id,
        &ada,
        &format!("&after={}&before={}", ids[3], ids[9]),
    );
    assert_eq!(between, a[4..9].to_vec());
}

#[test]
fn a_muted_player_is_hidden_and_unread_counts_leave_them_out() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    say_ok(&app, id, &ada, json!({"text": "first"}));
    let unread: Value = app
        .get("/api/v1/me/chat/unread", Some(&bo.token))
        .json()
        .unwrap();
    assert_eq!(unread, json!([{"game_id": id, "unread": 1}]));
    let own: Value = app
        .get("/api/v1/me/chat/unread", Some(&ada.token))
        .json()
        .unwrap();
    assert_eq!(own, json!([]), "one's own messages are read");

    let r = app.post(
        &format!("/api/v1/accounts/{}/mute", ada.id),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 204);
    say_ok(&app, id, &ada, json!({"text": "second"}));
    assert!(texts(&app, id, &bo, "").is_empty(), "muted");
    assert_eq!(
        texts(&app, id, &ada, ""),
        ["first", "second"],
        "the author sees all"
    );
    let unread: Value = app
        .get("/api/v1/me/chat/unread", Some(&bo.token))
        .json()
        .unwrap();
    assert_eq!(unread, json!([]));
    let (s, c) = code_of(
        app.post(
            &format!("/api/v1/accounts/{}/mute", bo.id),
            Some(&bo.token),
            &json!({}),
        ),
        "self",
    );
    assert_eq!((s, c.as_str()), (422, "cannot_mute_yourself"));
    // Unmuting yourself asks for what already holds.
    let r = app
        .client
        .delete(app.url(&format!("/api/v1/accounts/{}/mute", bo.id)))
        .bearer_auth(&bo.token)
        .send()
        .unwrap();
    assert_eq!(r.status(), 204);
    let (s, c) = code_of(
        app.post(
            "/api/v1/accounts/99999999/mute",
            Some(&bo.token),
            &json!({}),
        ),
        "nobody",
    );
    assert_eq!((s, c.as_str()), (404, "not_found"));

    let r = app
        .client
        .delete(app.url(&format!("/api/v1/accounts/{}/mute", ada.id)))
        .bearer_auth(&bo.token)
        .send()
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(texts(&app, id, &bo, ""), ["first", "second"]);
    let page: Value = app.get(&chat_path(id), Some(&bo.token)).json().unwrap();
    let last = page["messages"][1]["id"].as_i64().unwrap();
    let r = app.post(
        &format!("{}/read", chat_path(id)),
        Some(&bo.token),
        &json!({"last_read_id": last}),
    );
    assert_eq!(r.status(), 204);
    let unread: Value = app
        .get("/api/v1/me/chat/unread", Some(&bo.token))
        .json()
        .unwrap();
    assert_eq!(unread, json!([]));
}

fn cli(app: &TestApp, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .args(args)
        .env("DATABASE_URL", &app.database_url)
        .env("TURNPOST_JWT_SECRET", "x".repeat(40))
        .env("RUST_LOG", "warn")
        .output()
        .expect("run turnpost");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "turnpost {args:?}: {}\n{text}{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

#[test]
fn a_reported_message_is_listed_for_the_operator() {
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let m = say_ok(&app, id, &ada, json!({"text": "you are terrible\nat this"}));
    let report = format!("{}/{}/report", chat_path(id), m["id"]);
    let (s, c) = code_of(app.post(&report, Some(&cy.token), &json!({})), "spectator");
    assert_eq!((s, c.as_str()), (403, "not_a_player"));
    let (s, c) = code_of(
        app.post(
            &format!("{}/99999999/report", chat_path(id)),
            Some(&bo.token),
            &json!({}),
        ),
        "no such message",
    );
    assert_eq!((s, c.as_str()), (404, "chat_message_not_found"));
    for _ in 0..2 {
        let r = app.post(&report, Some(&bo.token), &json!({"reason": "rude"}));
        assert_eq!(r.status(), 202, "{}", r.text().unwrap_or_default());
    }
    let listed = cli(&app, &["chat", "reports"]);
    assert!(listed.contains("1 report(s)"), "{listed}");
    let line = listed
        .lines()
        .find(|l| l.contains(&format!("message {}", m["id"])))
        .unwrap_or_else(|| panic!("{listed}"));
    assert!(line.contains(&format!("game {id}")), "{line}");
    assert!(line.contains(&format!("author {} (Ada)", ada.id)), "{line}");
    assert!(line.contains(&format!("reporter {}", bo.id)), "{line}");
    assert!(line.contains("reason: rude"), "{line}");
    assert!(line.contains("text: you are terrible\\nat this"), "{line}");
}

#[test]
fn a_report_of_a_message_deleted_meanwhile_is_not_found_not_a_server_error() {
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let m = say_ok(&app, id, &ada, json!({"text": "gone soon"}));
    let mid = m["id"].as_i64().unwrap();
    // Another session deletes the message (as deleting its game does) and holds its
    // transaction open: the report's insert still reads the message, and its foreign-key
    // check waits for that session, then finds the message gone. Schemathesis met this
    // as a 500 when its two workers deleted a game and reported one of its messages.
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    conn.batch_execute("BEGIN").unwrap();
    diesel::sql_query("DELETE FROM chat_messages WHERE id = $1")
        .bind::<diesel::sql_types::BigInt, _>(mid)
        .execute(&mut conn)
        .unwrap();
    let report = format!("{}/{mid}/report", chat_path(id));
    let (s, c) = std::thread::scope(|scope| {
        let reporting = scope.spawn(|| {
            code_of(
                app.post(&report, Some(&bo.token), &json!({"reason": "rude"})),
                "report of a message deleted meanwhile",
            )
        });
        // The report's foreign-key check is waiting for the deleting session's lock.
        let mut watch = PgConnection::establish(&app.database_url).unwrap();
        let until = std::time::Instant::now() + Duration::from_secs(120);
        loop {
            let waiting: i64 = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
                "(SELECT count(*) FROM pg_stat_activity \
                  WHERE datname = current_database() AND wait_event_type = 'Lock')",
            ))
            .get_result(&mut watch)
            .unwrap();
            if waiting > 0 {
                break;
            }
            assert!(
                std::time::Instant::now() < until,
                "the report never reached the check"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        conn.batch_execute("COMMIT").unwrap();
        reporting.join().unwrap()
    });
    assert_eq!((s, c.as_str()), (404, "chat_message_not_found"));
    let reports: i64 = diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(
        "(SELECT count(*) FROM chat_reports)",
    ))
    .get_result(&mut conn)
    .unwrap();
    assert_eq!(reports, 0, "nothing was written");
}

#[test]
fn chat_survives_a_takeback() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo"), app.player("Cy")];
    let all: Vec<&Player> = people.iter().collect();
    let id = app.start_game("starfarers", json!({}), &all);
    say_ok(&app, id, &people[0], json!({"text": "before"}));
    let found = crate::takeback::play_until_takeback(&app, id, &all, 7);
    say_ok(
        &app,
        id,
        &people[1],
        json!({"text": "may I take that back?"}),
    );
    for (i, p) in all.iter().enumerate() {
        if i != found.mover {
            let r = app.post(
                &format!("/api/v1/games/{id}/takeback/accept"),
                Some(&p.token),
                &json!({}),
            );
            assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        }
    }
    assert_eq!(app.game(id, all[0])["takeback"], Value::Null, "taken back");
    assert!(
        app.log(id, all[0])
            .iter()
            .any(|e| !e["takeback_to"].is_null()),
        "the log holds the takeback"
    );
    for p in &all {
        assert_eq!(
            texts(&app, id, p, ""),
            ["before", "may I take that back?"],
            "chat is not part of the log"
        );
    }
    assert!(
        !app.log(id, all[0])
            .iter()
            .any(|e| e.to_string().contains("before")),
        "nor the log part of chat"
    );
}

/// Opens `path` and sends its `(event, data)` frames from a thread.
fn stream(app: &TestApp, path: &str) -> mpsc::Receiver<(String, Value)> {
    let resp = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
        .get(app.url(path))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut event = String::new();
        for line in BufReader::new(resp).lines() {
            let Ok(line) = line else { break };
            if let Some(v) = line.strip_prefix("event: ") {
                event = v.to_string();
            } else if let Some(v) = line.strip_prefix("data: ") {
                let data = serde_json::from_str(v).unwrap_or(Value::Null);
                if tx.send((std::mem::take(&mut event), data)).is_err() {
                    break;
                }
            }
        }
    });
    rx
}

/// The next `chat_message` frame on `rx`.
fn next_chat(rx: &mpsc::Receiver<(String, Value)>) -> Value {
    loop {
        let (event, data) = rx.recv_timeout(PATIENCE).expect("a chat_message event");
        if event == "chat_message" {
            return data;
        }
    }
}

#[test]
fn a_message_reaches_its_readers_live_and_not_who_muted_its_author() {
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo, &cy]);
    let bo_events = stream(
        &app,
        &format!("/api/v1/me/events?ticket={}", app.ticket(&bo.token)),
    );
    let cy_events = stream(
        &app,
        &format!("/api/v1/me/events?ticket={}", app.ticket(&cy.token)),
    );
    // Cy mutes Ada: Ada's next message reaches Bo, not Cy; Bo's reaches both.
    let r = app.post(
        &format!("/api/v1/accounts/{}/mute", ada.id),
        Some(&cy.token),
        &json!({}),
    );
    assert_eq!(r.status(), 204);
    let m = say_ok(&app, id, &ada, json!({"text": "<b>hello</b>"}));
    let got = next_chat(&bo_events);
    assert_eq!(got, m, "the event carries the message");
    say_ok(&app, id, &bo, json!({"text": "hi Ada"}));
    assert_eq!(next_chat(&bo_events)["text"], "hi Ada");
    assert_eq!(
        next_chat(&cy_events)["text"],
        "hi Ada",
        "Ada's message was not sent to Cy, who muted her"
    );
}

#[test]
fn a_webhook_taking_chat_messages_is_owed_one() {
    let app = crate::helpers::spawn_app_with(|s| s.webhook_allow_private = true);
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let r = app.post(
        "/api/v1/me/webhooks",
        Some(&bo.token),
        &json!({"url": "http://127.0.0.1:9/hook", "events": ["chat_message"]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let hook = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    say_ok(&app, id, &ada, json!({"text": "ping"}));
    say_ok(&app, id, &bo, json!({"text": "own messages are not sent"}));
    let r = app.get(
        &format!("/api/v1/me/webhooks/{hook}/deliveries"),
        Some(&bo.token),
    );
    assert_eq!(r.status(), 200);
    let deliveries: Value = r.json().unwrap();
    let list = deliveries.as_array().unwrap();
    assert_eq!(list.len(), 1, "{deliveries}");
    assert_eq!(list[0]["event"], "chat_message");
    assert_eq!(list[0]["game_id"], id);
}

#[test]
fn the_chat_migration_refuses_to_go_down_while_messages_exist() {
    use diesel::{Connection, RunQueryDsl};
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    say_ok(&app, id, &ada, json!({"text": "keep me"}));
    let mut conn = diesel::PgConnection::establish(&app.database_url).unwrap();
    // Newer migrations go down first; this one refuses.
    let e = crate::helpers::revert_until_refused(&mut conn).to_string();
    assert!(
        e.contains("2026-11-28-000028_chat cannot be reverted") && e.contains("chat messages"),
        "{e}"
    );
    // Read from the table itself: the running server's queries expect the newer columns
    // the reverted migrations took away.
    #[derive(diesel::QueryableByName)]
    struct Kept {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let kept: Kept = diesel::sql_query(
        "SELECT count(*) AS n FROM chat_messages WHERE game_id = $1 AND body = 'keep me'",
    )
    .bind::<diesel::sql_types::BigInt, _>(id)
    .get_result(&mut conn)
    .unwrap();
    assert_eq!(kept.n, 1, "nothing lost");
}

#[test]
fn the_muted_players_are_listed_for_their_muter_alone() {
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let list = |p: &Player| -> Value {
        let r = app.get("/api/v1/me/mutes", Some(&p.token));
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        assert_eq!(
            r.headers()
                .get("cache-control")
                .and_then(|v| v.to_str().ok()),
            Some("private, no-store")
        );
        r.json().unwrap()
    };
    assert_eq!(list(&bo), json!([]));
    for p in [&ada, &cy, &ada] {
        let r = app.post(
            &format!("/api/v1/accounts/{}/mute", p.id),
            Some(&bo.token),
            &json!({}),
        );
        assert_eq!(r.status(), 204);
    }
    let muted = list(&bo);
    let ids: Vec<i64> = muted
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["account_id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [cy.id, ada.id], "once each, the newest first");
    assert_eq!(muted[1]["name"], "Ada");
    assert!(muted[1]["muted_at"].is_string());
    assert_eq!(list(&ada), json!([]), "each account sees its own list");

    let r = app
        .client
        .delete(app.url(&format!("/api/v1/accounts/{}/mute", cy.id)))
        .bearer_auth(&bo.token)
        .send()
        .unwrap();
    assert_eq!(r.status(), 204);
    assert_eq!(list(&bo).as_array().unwrap().len(), 1);

    let (s, c) = code_of(app.get("/api/v1/me/mutes", None), "no token");
    assert_eq!((s, c.as_str()), (401, "unauthorized"));
    // A personal access token with the `play` scope alone may mute but not read the list.
    let r = app.post(
        "/api/v1/me/tokens",
        Some(&bo.token),
        &json!({"name": "bot", "scopes": ["play"]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let play = r.json::<Value>().unwrap()["token"]
        .as_str()
        .unwrap()
        .to_string();
    let (s, c) = code_of(app.get("/api/v1/me/mutes", Some(&play)), "play scope");
    assert_eq!((s, c.as_str()), (403, "insufficient_scope"));
}
