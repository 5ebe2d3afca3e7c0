//! A mail server that refuses a mailbox for good at send time (`550 5.1.1` at RCPT) marks
//! the address bouncing after one attempt and the email is not retried; a refusal for now
//! (`450`) keeps being retried.

use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer, Nullable, Text};
use secrecy::SecretString;
use serde_json::{Value, json};

use crate::helpers::{MAIL_PATIENCE_SECS, Player, TestApp, spawn_app_with};
use crate::smtp_sink::Sink;

#[derive(QueryableByName, Debug)]
struct Row {
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Nullable<Text>)]
    drop_reason: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    last_error: Option<String>,
    #[diesel(sql_type = BigInt)]
    done: i64,
}

/// The confirmation email's outbox row for `p`: attempts, why dropped, last error, and
/// whether it is sent, dropped or given up (1) or still pending (0).
fn confirmation_row(app: &TestApp, p: &Player) -> Option<Row> {
    let mut conn = PgConnection::establish(&app.database_url).expect("database");
    diesel::sql_query(
        "SELECT attempts, drop_reason, last_error, \
           (CASE WHEN sent_at IS NULL AND dropped_at IS NULL AND failed_at IS NULL THEN 0 ELSE 1 END)::int8 AS done \
         FROM outbox WHERE kind = 'verify' AND account_id = $1",
    )
    .bind::<BigInt, _>(p.id)
    .get_result(&mut conn)
    .optional()
    .expect("outbox row")
}

/// Waits until the confirmation row of `p` satisfies `pred`.
fn wait_row(app: &TestApp, p: &Player, what: &str, pred: impl Fn(&Row) -> bool) -> Row {
    let start = Instant::now();
    loop {
        if let Some(r) = confirmation_row(app, p).filter(|r| pred(r)) {
            return r;
        }
        assert!(
            start.elapsed() < Duration::from_secs(MAIL_PATIENCE_SECS),
            "{what}: {:?}",
            confirmation_row(app, p)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn email_status(app: &TestApp, p: &Player) -> String {
    let me: Value = app.get("/api/v1/me", Some(&p.token)).json().expect("me");
    me["email_status"].as_str().unwrap_or_default().to_string()
}

#[test]
fn a_mailbox_refused_for_good_bounces_at_once_and_one_refused_for_now_is_retried() {
    let sink = Sink::start_refusing();
    let url = format!("smtp://127.0.0.1:{}", sink.port);
    let app = spawn_app_with(|s| s.smtp_url = Some(SecretString::from(url)));
    let unknown = app.player("Unknown");
    let busy = app.player("Busy");
    let ada = app.player("Ada");
    for p in [&unknown, &busy, &ada] {
        let r = app.post("/api/v1/me/verify-email", Some(&p.token), &json!({}));
        assert_eq!(r.status(), 202);
    }

    // The unknown mailbox: one attempt, then dropped (not retried), the address bouncing.
    let row = wait_row(&app, &unknown, "the first attempt", |r| {
        r.done == 1 || r.attempts > 0
    });
    assert_eq!(row.done, 1, "retried instead of dropped: {row:?}");
    assert_eq!(
        row.drop_reason.as_deref(),
        Some("mailbox_refused"),
        "{row:?}"
    );
    assert_eq!(row.attempts, 0, "{row:?}");
    assert!(
        row.last_error.as_deref().unwrap_or("").contains("5.1.1"),
        "{row:?}"
    );
    assert_eq!(email_status(&app, &unknown), "bouncing");

    // The busy mailbox: tried again after its backoff (2 s), still pending, not bouncing.
    let row = wait_row(&app, &busy, "a second attempt", |r| r.attempts >= 2);
    assert_eq!(row.done, 0, "{row:?}");
    assert!(
        row.last_error.as_deref().unwrap_or("").contains("450"),
        "{row:?}"
    );
    assert_eq!(email_status(&app, &busy), "unverified");

    // Everyone else's mail goes through the same server.
    sink.wait_for("Ada's confirmation", |m| m.to == ada.email);
    assert_eq!(email_status(&app, &ada), "unverified");
}
