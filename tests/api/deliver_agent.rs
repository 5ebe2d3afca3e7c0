//! `turnpost deliver`, the agent a mail server pipes replies to, against a real server:
//! its exit status is what Postfix acts on (0 delivered, 75 keep it queued, 65 bounce it).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::json;

use crate::email_play::{first_choice_reply, reply};
use crate::helpers::{INBOUND_SECRET, TestApp, spawn_app, spawn_app_with};

/// A secret file as the hosts' guide says ("Connecting an MTA" in `src/docs/hosting.md`):
/// readable by its owner (and group) only.
pub fn secret_file(secret: &str, mode: u32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = std::env::temp_dir().join(format!(
        "turnpost-inbound-secret-{}",
        hex::encode(rand::random::<[u8; 6]>())
    ));
    std::fs::write(&path, format!("{secret}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    path
}

/// Runs `turnpost deliver` with `input` on standard input: (exit status, standard error).
fn agent(
    url: &str,
    recipient: &str,
    secret: Option<&Path>,
    env: &[(&str, &str)],
    input: &[u8],
) -> (i32, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_turnpost"));
    command
        .args(["deliver", "--url", url, "--timeout", "30", recipient])
        .env_remove("TURNPOST_INBOUND_SECRET")
        .env_remove("TURNPOST_PUBLIC_URL")
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(s) = secret {
        command.arg("--secret-file").arg(s);
    }
    let mut child = command.spawn().expect("run turnpost deliver");
    // The agent may answer before reading everything (a bad setting): a closed pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(input);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

#[test]
fn the_agent_delivers_a_reply_and_tells_the_mail_server_what_to_do_with_the_rest() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let good = secret_file(INBOUND_SECRET, 0o640);
    let wrong = secret_file("not-the-secret", 0o600);
    let version = |app: &TestApp| app.game(id, &ada)["version"].as_i64().unwrap();

    // A wrong secret: kept queued (75), with a reason that names the secret; nothing played.
    let before = version(&app);
    let (_, to, raw, _) = first_choice_reply(&app, id, &players, "agent-1@mail.example.org");
    let (code, err) = agent(&app.address, &to, Some(&wrong), &[], &raw);
    assert_eq!(code, 75, "{err}");
    assert!(err.contains("secret") && err.contains("401"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert_eq!(version(&app), before);

    // A secret file anyone may read: refused before anything is sent.
    let open = secret_file(INBOUND_SECRET, 0o644);
    let (code, err) = agent(&app.address, &to, Some(&open), &[], &raw);
    assert_eq!(code, 75, "{err}");
    assert!(err.contains("open to every user"), "{err}");
    assert_eq!(version(&app), before);

    // The right secret: processed (0), the move played.
    let (code, err) = agent(&app.address, &to, Some(&good), &[], &raw);
    assert_eq!(code, 0, "{err}");
    assert!(err.is_empty(), "{err}");
    assert!(version(&app) > before);

    // The same reply again is a duplicate, processed all the same: 0, not a bounce.
    let (code, err) = agent(&app.address, &to, Some(&good), &[], &raw);
    assert_eq!(code, 0, "{err}");

    // The secret from the environment works as well.
    let before = version(&app);
    let (_, to, raw, _) = first_choice_reply(&app, id, &players, "agent-2@mail.example.org");
    let (code, err) = agent(
        &app.address,
        &to,
        None,
        &[("TURNPOST_INBOUND_SECRET", INBOUND_SECRET)],
        &raw,
    );
    assert_eq!(code, 0, "{err}");
    assert!(version(&app) > before);

    // No secret at all: kept queued.
    let (code, err) = agent(&app.address, &to, None, &[], &raw);
    assert_eq!(code, 75, "{err}");

    // What can never be processed bounces (65): no message at all, or not a message (no
    // From address: the server's 422).
    let (code, err) = agent(&app.address, &to, Some(&good), &[], b"");
    assert_eq!(code, 65, "{err}");
    let (code, err) = agent(
        &app.address,
        &to,
        Some(&good),
        &[],
        b"\x00\x01 garbage, no headers\n",
    );
    assert_eq!(code, 65, "{err}");
    assert!(err.contains("422"), "{err}");
    // A recipient no address can be (100,000 characters): no retry could post it.
    let huge = format!("play+{}@turnpost.test", "a".repeat(100_000));
    let (code, err) = agent(&app.address, &huge, Some(&good), &[], &raw);
    assert_eq!(code, 65, "{err}");
    assert!(err.contains("longer than an address"), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // A recipient at the bound gets to the server, whatever it answers for its unknown
    // token: it is not bounced for its length.
    let long = format!("play+{}@t.test", "a".repeat(254 - 12));
    assert_eq!(long.len(), 254);
    let (code, err) = agent(&app.address, &long, Some(&good), &[], &raw);
    assert_ne!(code, 65, "{err}");

    // A mistyped argument in the pipe keeps the message queued, not bounced (clap's 2).
    let out = Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .args(["deliver", "--no-such-flag", &to])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(75));

    // The server stopped: kept queued.
    let address = app.address.clone();
    drop(app);
    let start = std::time::Instant::now();
    while std::net::TcpStream::connect(address.trim_start_matches("http://")).is_ok() {
        assert!(start.elapsed().as_secs() < 60, "the server does not stop");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let (code, err) = agent(&address, &to, Some(&good), &[], &raw);
    assert_eq!(code, 75, "{err}");
    assert!(err.contains("cannot connect"), "{err}");
}

#[test]
fn a_server_that_takes_no_inbound_mail_defers_the_message() {
    // 503 inbound_disabled: the server's setting, fixed by its operator.
    let app = spawn_app_with(|s| s.inbound_secret = None);
    let good = secret_file(INBOUND_SECRET, 0o600);
    let raw = reply(
        "ada@example.org",
        "play+1-0-0-00@turnpost.test",
        "x",
        "1",
        "",
        "agent-3@mail.example.org",
    );
    let (code, err) = agent(
        &app.address,
        "play+1-0-0-00@turnpost.test",
        Some(&good),
        &[],
        &raw,
    );
    assert_eq!(code, 75, "{err}");
    assert!(
        err.contains("503") && err.contains("inbound_disabled"),
        "{err}"
    );
}

/// Connections to `app`'s database allowed (true) or refused, existing ones ended: the
/// database down and back, as far as this app can tell.
fn database_up(app: &TestApp, up: bool) {
    use diesel::prelude::*;
    let (base, name) = app.database_url.rsplit_once('/').unwrap();
    let mut admin = PgConnection::establish(&format!("{base}/postgres")).unwrap();
    diesel::sql_query(format!(
        "ALTER DATABASE \"{name}\" WITH ALLOW_CONNECTIONS {up}"
    ))
    .execute(&mut admin)
    .unwrap();
    if !up {
        diesel::sql_query(format!(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"
        ))
        .execute(&mut admin)
        .unwrap();
    }
}

#[test]
fn a_reply_while_the_database_is_down_is_deferred_and_played_once_it_is_back() {
    let app = spawn_app_with(|s| s.db_checkout_timeout_ms = 1000);
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let good = secret_file(INBOUND_SECRET, 0o600);
    let (_, to, raw, _) = first_choice_reply(&app, id, &players, "agent-db@mail.example.org");
    let before = app.game(id, &ada)["version"].as_i64().unwrap();

    database_up(&app, false);
    let (code, err) = agent(&app.address, &to, Some(&good), &[], &raw);
    database_up(&app, true);
    assert_eq!(code, 75, "{err}");
    assert!(err.contains("503"), "{err}");

    // What the mail server does next: the same message again, later.
    let start = std::time::Instant::now();
    loop {
        let (code, err) = agent(&app.address, &to, Some(&good), &[], &raw);
        if code == 0 {
            break;
        }
        assert_eq!(code, 75, "{err}");
        assert!(start.elapsed().as_secs() < 60, "{err}");
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(app.game(id, &ada)["version"].as_i64().unwrap() > before);
}
