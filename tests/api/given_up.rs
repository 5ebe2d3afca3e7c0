//! An email given up after its last attempt is reported (the account's `email_status`, the
//! metrics an operator scrapes, `turnpost outbox failed`) and sent once the operator
//! requeues it (`turnpost outbox requeue`).

use std::net::TcpListener;
use std::process::Command;
use std::time::{Duration, Instant};

use secrecy::SecretString;
use serde_json::{Value, json};

use crate::helpers::{MAIL_PATIENCE_SECS, Player, TestApp, assert_problem, spawn_app_with};
use crate::smtp_sink::Sink;

const METRICS_TOKEN: &str = "metrics-token-for-the-test-0123456789";

fn email_status(app: &TestApp, p: &Player) -> String {
    let me: Value = app.get("/api/v1/me", Some(&p.token)).json().expect("me");
    me["email_status"]
        .as_str()
        .expect("email_status")
        .to_string()
}

fn scrape(app: &TestApp) -> String {
    let r = app.metrics(METRICS_TOKEN);
    assert!(
        r.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain; version=0.0.4")
    );
    r.text().unwrap()
}

/// The value of the sample `name{labels}` in a Prometheus text exposition.
fn sample(text: &str, series: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(series)?.trim().parse().ok())
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
fn an_email_given_up_is_reported_and_sent_once_the_operator_requeues_it() {
    // A mail server that is not there yet: every attempt is refused.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let app = spawn_app_with(|s| {
        s.smtp_url = Some(SecretString::from(format!("smtp://127.0.0.1:{port}")));
        s.outbox_max_attempts = 2;
        s.metrics_token = Some(SecretString::from(METRICS_TOKEN));
    });
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let game = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let to_act = app.game(game, &ada)["to_act"][0].as_u64().unwrap() as usize;
    let (mover, other) = if to_act == 0 {
        (&ada, &bo)
    } else {
        (&bo, &ada)
    };
    // Two attempts (the second after a 2 s backoff), then the turn email is given up.
    let start = Instant::now();
    while email_status(&app, mover) != "failing" {
        assert!(
            start.elapsed() < Duration::from_secs(MAIL_PATIENCE_SECS),
            "the mover's address never showed as failing"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert_eq!(
        email_status(&app, other),
        "unverified",
        "nothing was sent to them"
    );
    let text = scrape(&app);
    assert_eq!(
        sample(&text, "turnpost_outbox_failed{kind=\"turn\"}"),
        Some(1.0),
        "{text}"
    );
    assert_eq!(
        sample(&text, "turnpost_outbox_failed{kind=\"webhook\"}"),
        Some(0.0)
    );
    assert!(
        sample(&text, "turnpost_outbox_given_up_total{kind=\"turn\"}").is_some_and(|n| n >= 1.0),
        "{text}"
    );
    let listed = cli(&app, &["outbox", "failed"]);
    assert!(listed.contains(&mover.email), "{listed}");
    assert!(listed.contains("turn\t"), "{listed}");
    assert!(listed.contains("1 message(s) given up"), "{listed}");
    // The operator fixes the mail server and requeues.
    let sink = Sink::start_on(port);
    assert!(cli(&app, &["outbox", "requeue", "--all"]).contains("1 message(s) requeued"));
    let mail = sink.wait_for("the requeued turn email", |m| m.to == mover.email);
    assert!(
        mail.subject.ends_with(&format!("#{game}: your turn")),
        "{}",
        mail.subject
    );
    let start = Instant::now();
    while email_status(&app, mover) != "unverified" {
        assert!(
            start.elapsed() < Duration::from_secs(MAIL_PATIENCE_SECS),
            "the failing state never ended"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let text = scrape(&app);
    assert_eq!(
        sample(&text, "turnpost_outbox_failed{kind=\"turn\"}"),
        Some(0.0),
        "{text}"
    );
    assert!(cli(&app, &["outbox", "failed"]).contains("0 message(s) given up"));
    assert!(cli(&app, &["outbox", "requeue", "--all"]).contains("0 message(s) requeued"));
}

#[test]
fn metrics_need_the_operators_token() {
    let app = spawn_app_with(|s| s.metrics_token = Some(SecretString::from(METRICS_TOKEN)));
    let r = app.client.get(app.url("/metrics")).send().unwrap();
    assert_eq!(assert_problem(r, "no token").0, 401);
    let r = app
        .client
        .get(app.url("/metrics"))
        .bearer_auth("not-the-token")
        .send()
        .unwrap();
    assert_eq!(assert_problem(r, "a wrong token").0, 401);
    let ada = app.player("Ada");
    let r = app
        .client
        .get(app.url("/metrics"))
        .bearer_auth(&ada.token)
        .send()
        .unwrap();
    assert_eq!(assert_problem(r, "a player's token").0, 401);
    assert!(scrape(&app).contains("# TYPE turnpost_outbox_failed gauge"));
    // Twenty scrapes at once: each answered in full.
    std::thread::scope(|s| {
        let scrapes: Vec<_> = (0..20).map(|_| s.spawn(|| scrape(&app))).collect();
        for h in scrapes {
            assert!(
                h.join()
                    .unwrap()
                    .contains("turnpost_outbox_failed{kind=\"turn\"} 0")
            );
        }
    });
    let closed = spawn_app_with(|_| {});
    let r = closed.client.get(closed.url("/metrics")).send().unwrap();
    assert_eq!(assert_problem(r, "metrics off, no token").0, 401);
    let r = closed
        .client
        .get(closed.url("/metrics"))
        .bearer_auth(METRICS_TOKEN)
        .send()
        .unwrap();
    let (status, body) = assert_problem(r, "metrics off");
    assert_eq!(
        (status, body["code"].as_str()),
        (404, Some("metrics_disabled"))
    );
}

/// The outbox column holds only the jobs the senders know: each `OutboxKind` is stored and
/// read back as itself, and any other word is refused by the database where it is
/// written (without the CHECK, such a row would sit in the outbox for ever, never sendable).
#[test]
fn the_outbox_holds_only_the_kinds_its_senders_know() {
    use diesel::prelude::*;
    use diesel::sql_types::Text;
    use turnpost::store::kinds::OutboxKind;
    use turnpost::store::schema::outbox;

    let app = crate::helpers::spawn_app();
    let mut conn = PgConnection::establish(&app.database_url).expect("database");
    // Dropped already, so that the app's senders leave them alone.
    let insert = |conn: &mut PgConnection, kind: &str| {
        diesel::sql_query(
            "INSERT INTO outbox (dedupe_key, to_address, subject, body_text, body_html, kind, \
               dropped_at, drop_reason) \
             VALUES ($1, 'kinds@example.org', '', '', '', $2, now(), 'test')",
        )
        .bind::<Text, _>(format!("kind-test-{kind}"))
        .bind::<Text, _>(kind)
        .execute(conn)
    };
    for k in OutboxKind::ALL {
        insert(&mut conn, k.as_str()).unwrap_or_else(|e| panic!("{k}: {e}"));
    }
    for stranger in ["Cheap pills", "Turn", "turn "] {
        let e = insert(&mut conn, stranger).expect_err(stranger);
        assert!(
            e.to_string().contains("outbox_kind_known"),
            "{stranger}: {e}"
        );
    }
    let mut stored: Vec<Option<OutboxKind>> = outbox::table
        .filter(outbox::to_address.eq("kinds@example.org"))
        .select(outbox::kind)
        .load(&mut conn)
        .expect("kinds read back");
    stored.sort_by_key(|k| k.map(OutboxKind::as_str));
    let mut all: Vec<Option<OutboxKind>> = OutboxKind::ALL.iter().copied().map(Some).collect();
    all.sort_by_key(|k| k.map(OutboxKind::as_str));
    assert_eq!(stored, all);
}
