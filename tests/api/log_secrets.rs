//! No token of any kind reaches a log line, at any level: a server logging at `trace`
//! into a file is used the way players, browsers and a mail server use it (sign-up,
//! confirmation, reset, invitation, unsubscribe and calendar links, stream tickets,
//! `?access_token=`, personal tokens, and an emailed reply through `turnpost deliver`),
//! then every token it handed out is looked for in the log.
//!
//! The server runs in this test's process, so its log is this process's: each test is a
//! process of its own under the suite's runner, and the subscriber installed here sees
//! every line the server writes, its dependencies' included.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;

use serde_json::{Value, json};

use crate::deliver_agent::secret_file;
use crate::email_play::first_choice_reply;
use crate::helpers::{INBOUND_SECRET, Mail, Player, TestApp, invitation_token, spawn_app_with};
use crate::password_reset::reset_links;

/// Everything at `trace`, `log` records included, into `path`, filtered as the server's
/// binary filters `RUST_LOG=trace`.
fn log_everything_to(path: &Path) {
    let file = File::create(path).expect("log file");
    tracing_subscriber::fmt()
        .with_env_filter(turnpost::cli::log_filter(Some("trace")).expect("a filter"))
        .with_writer(Mutex::new(file))
        .with_ansi(false)
        .try_init()
        .expect("the only subscriber of this process");
}

/// The tokens in a mail's links and reply address: what follows each of `markers` up to
/// the first character no token has.
fn tokens_in(mail: &Mail) -> Vec<String> {
    const MARKERS: &[&str] = &[
        "/api/v1/sign-ups/",
        "/api/v1/verify-email/",
        "/api/v1/invitations/",
        "/api/v1/unsubscribe/",
        "/api/v1/calendar/",
        "/#/reset/",
        "/#/welcome/",
    ];
    let mut found = Vec::new();
    for text in [&mail.text, &mail.html] {
        for marker in MARKERS {
            for (at, _) in text.match_indices(marker) {
                let token: String = text[at + marker.len()..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
                    .collect();
                found.push(token.trim_end_matches(".ics").to_string());
            }
        }
    }
    if let Some((_, rest)) = mail.reply_to.split_once('+') {
        found.push(rest.split('@').next().unwrap_or_default().to_string());
    }
    found
}

fn sign_up(app: &TestApp, name: &str) -> Player {
    let email = crate::helpers::fresh_email(name);
    let r = app.post(
        "/api/v1/accounts",
        None,
        &json!({"email": email, "name": name, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 202, "{}", r.text().unwrap_or_default());
    let mails = app.wait_for_mails("a sign-up link", |m| {
        m.iter()
            .any(|x| x.to == email && x.text.contains("/api/v1/sign-ups/"))
    });
    let mail = mails
        .iter()
        .find(|x| x.to == email && x.text.contains("/api/v1/sign-ups/"))
        .expect("the sign-up mail");
    let marker = "/api/v1/sign-ups/";
    let at = mail.text.find(marker).expect("its link") + marker.len();
    let token: String = mail.text[at..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .collect();
    assert_eq!(
        app.get(&format!("{marker}{token}"), None).status(),
        200,
        "the link's page"
    );
    let r = app.post(&format!("{marker}{token}"), None, &json!({}));
    assert!(r.status().is_success(), "{}", r.text().unwrap_or_default());
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": email, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 200);
    let body: Value = r.json().expect("token");
    let me: Value = app
        .get("/api/v1/me", body["access_token"].as_str())
        .json()
        .expect("me");
    Player {
        id: me["id"].as_i64().expect("id"),
        email,
        token: body["access_token"].as_str().expect("token").to_string(),
    }
}

/// `turnpost deliver` at `trace`, as a mail server runs it: its standard error.
fn deliver(app: &TestApp, recipient: &str, secret: &Path, raw: &[u8]) -> String {
    let mut child = Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .args([
            "deliver",
            "--url",
            &app.address,
            "--timeout",
            "60",
            recipient,
        ])
        .arg("--secret-file")
        .arg(secret)
        .env("RUST_LOG", "trace")
        .env_remove("TURNPOST_INBOUND_SECRET")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("turnpost deliver");
    let _ = child.stdin.take().expect("stdin").write_all(raw);
    let out = child.wait_with_output().expect("deliver");
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(0), "{err}");
    err
}

#[test]
fn no_token_of_any_kind_is_in_a_trace_level_log() {
    let dir: PathBuf = std::env::temp_dir().join(format!(
        "turnpost-log-secrets-{}",
        hex::encode(rand::random::<[u8; 6]>())
    ));
    std::fs::create_dir_all(&dir).expect("dir");
    let log = dir.join("trace.log");
    log_everything_to(&log);
    let app = spawn_app_with(|s| {
        s.require_email_verification = true;
        s.turn_email_grace_secs = 0;
    });
    let mut secrets: Vec<String> = Vec::new();

    // Sign-up links (and the login tokens they lead to).
    let ada = sign_up(&app, "Ada");
    let bo = sign_up(&app, "Bo");
    secrets.extend([ada.token.clone(), bo.token.clone()]);

    // A personal token, used as a bearer and as `?access_token=` outside a stream.
    let r = app.post(
        "/api/v1/me/tokens",
        Some(&ada.token),
        &json!({"name": "script", "scopes": ["play"]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let personal: Value = r.json().expect("token");
    let personal = personal["token"].as_str().expect("token").to_string();
    assert_eq!(app.get("/api/v1/me", Some(&personal)).status(), 200);
    // A token in a URL is refused wherever it is sent, as the API guide says ("Tokens and
    // scopes" in `src/docs/api.md`).
    let (s, v) = crate::helpers::assert_problem(
        app.get(&format!("/api/v1/me?access_token={personal}"), None),
        "a token in the URL",
    );
    assert_eq!((s, v["code"].as_str()), (400, Some("token_in_url")));
    secrets.push(personal);

    // A stream ticket and an access token in a stream's query.
    let ticket = app.ticket(&ada.token);
    for (query, status) in [
        (format!("ticket={ticket}"), 200),
        (format!("access_token={}", ada.token), 400),
    ] {
        let r = app
            .client
            .get(app.url(&format!("/api/v1/me/events?{query}")))
            .send()
            .expect("stream");
        assert_eq!(r.status(), status, "{query}");
        drop(r);
    }
    secrets.push(ticket);

    // The calendar feed.
    let cal: Value = app
        .get("/api/v1/me/calendar", Some(&ada.token))
        .json()
        .expect("calendar");
    let feed = cal["url"].as_str().expect("feed url").to_string();
    let path = &feed[feed.find("/api/v1/calendar/").expect("feed path")..];
    assert_eq!(app.get(path, None).status(), 200);
    secrets.push(
        path.trim_start_matches("/api/v1/calendar/")
            .trim_end_matches(".ics")
            .to_string(),
    );

    // A confirmation link, a reset link used, an invitation followed.
    let r = app.post("/api/v1/password-reset", None, &json!({"email": bo.email}));
    assert_eq!(r.status(), 202);
    let reset = reset_links(&app, &bo.email, 1).remove(0);
    let r = app.post(
        "/api/v1/password-reset/new-password",
        None,
        &json!({"token": reset, "password": "a brand new passphrase"}),
    );
    assert!(r.status().is_success(), "{}", r.text().unwrap_or_default());
    let invitee = crate::helpers::fresh_email("Cy");
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "invite": [invitee]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let invitation = invitation_token(&app, &invitee);
    assert_eq!(
        app.get(&format!("/api/v1/invitations/{invitation}"), None)
            .status(),
        200
    );

    // A game: its turn email's unsubscribe link followed, and a reply to it delivered.
    let r = app.post(
        "/api/v1/password-reset/new-password",
        None,
        &json!({"token": reset, "password": "another new passphrase"}),
    );
    assert!(r.status().is_client_error(), "a reset link works once");
    let bo = Player {
        token: app.token_for(&bo.email, "a brand new passphrase"),
        ..bo
    };
    secrets.push(bo.token.clone());
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let (_, to, raw, _) = first_choice_reply(&app, id, &players, "log-secrets-1@mail.example.org");
    let secret = secret_file(INBOUND_SECRET, 0o600);
    let agent_log = deliver(&app, &to, &secret, &raw);
    let mails = app.mails();
    let unsubscribe = mails
        .iter()
        .flat_map(tokens_in)
        .find(|t| {
            mails
                .iter()
                .any(|m| m.text.contains(&format!("/api/v1/unsubscribe/{t}")))
        })
        .expect("a turn email's unsubscribe link");
    assert_eq!(
        app.get(&format!("/api/v1/unsubscribe/{unsubscribe}"), None)
            .status(),
        200
    );

    // Every token any mail carried.
    secrets.extend(app.mails().iter().flat_map(tokens_in));
    secrets.retain(|s| s.len() >= 16);
    secrets.sort();
    secrets.dedup();
    assert!(secrets.len() >= 10, "{secrets:?}");
    assert!(
        secrets.iter().any(|s| to.contains(&format!("+{s}@"))),
        "the reply address's token is among them: {to}"
    );

    // The access line of the delivered reply is written as its answer leaves.
    drop(app);
    let text = std::fs::read_to_string(&log).expect("the log");
    assert!(
        text.contains("/api/v1/inbound/email"),
        "the log has the inbound request"
    );
    for (name, text) in [("server", &text), ("deliver", &agent_log)] {
        for s in &secrets {
            let line = text.lines().find(|l| l.contains(s.as_str()));
            assert!(line.is_none(), "a token in the {name} log: {line:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
