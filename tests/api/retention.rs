//! Retention: the sweep prunes outbox rows and processed replies
//! settled before `outbox_retention_days`, and keeps what is still needed: pending and
//! given-up rows, and each game thread's first email (emptied), whose Message-ID the next
//! email must not take again.

use chrono::{Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use serde_json::json;

use crate::helpers::{Player, TestApp, spawn_app};

#[derive(QueryableByName, Debug, PartialEq, Eq)]
struct Row {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    message_id: Option<String>,
    #[diesel(sql_type = Text)]
    body: String,
    #[diesel(sql_type = Text)]
    state: String,
}

fn rows(app: &TestApp) -> Vec<Row> {
    diesel::sql_query(
        "SELECT id, message_id, subject || body_text || body_html AS body, \
         CASE WHEN failed_at IS NOT NULL THEN 'failed' WHEN sent_at IS NOT NULL THEN 'sent' \
              WHEN dropped_at IS NOT NULL THEN 'dropped' ELSE 'pending' END AS state \
         FROM outbox ORDER BY id",
    )
    .load(&mut PgConnection::establish(&app.database_url).unwrap())
    .unwrap()
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

fn count(app: &TestApp, sql: &str) -> i64 {
    diesel::sql_query(sql)
        .get_result::<Count>(&mut PgConnection::establish(&app.database_url).unwrap())
        .unwrap()
        .n
}

/// Plays `n` moves, the first legal action each time, settling the mail after each (so
/// that each turn email goes out rather than being coalesced).
fn play(app: &TestApp, id: i64, players: &[&Player], n: usize) {
    for _ in 0..n {
        let g = app.game(id, players[0]);
        let seat = g["to_act"][0].as_u64().unwrap() as usize;
        let p = players[seat];
        let mine = app.game(id, p);
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&p.token),
            &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        settle(app);
    }
}

/// Waits until every email due now is sent or dropped.
fn settle(app: &TestApp) {
    let start = std::time::Instant::now();
    while count(
        app,
        "SELECT count(*) AS n FROM outbox WHERE sent_at IS NULL AND dropped_at IS NULL \
         AND failed_at IS NULL AND next_attempt_at <= now()",
    ) > 0
    {
        assert!(start.elapsed().as_secs() < 60, "the outbox did not empty");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn the_sweep_prunes_settled_mail_after_the_retention_and_keeps_thread_roots() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    play(&app, id, &[&ada, &bo], 6);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    // One message still to send (due in a year) and one given up: both stay.
    diesel::sql_query(
        "INSERT INTO outbox (dedupe_key, to_address, subject, body_text, body_html, kind, \
                             next_attempt_at, created_at) \
         VALUES ('later', 'x@example.org', 's', 't', 'h', 'answer', now() + interval '1 year', \
                 now() - interval '90 days'), \
                ('given-up', 'y@example.org', 's', 't', 'h', 'answer', now(), \
                 now() - interval '90 days')",
    )
    .execute(&mut conn)
    .unwrap();
    diesel::sql_query(
        "UPDATE outbox SET failed_at = now() - interval '60 days' WHERE dedupe_key = 'given-up'",
    )
    .execute(&mut conn)
    .unwrap();
    // A reply processed (refused: it names no game), remembered by its Message-ID.
    let raw = crate::email_play::reply(
        &ada.email,
        "someone@turnpost.test",
        "hello",
        "1",
        "",
        "old-reply@mail.test",
    );
    assert_eq!(app.inbound(&raw).status(), 200);
    let replies_before = count(&app, "SELECT count(*) AS n FROM inbound_messages");
    assert_eq!(replies_before, 1);
    settle(&app);
    let before = rows(&app);
    let sent = before.iter().filter(|r| r.state == "sent").count();
    assert!(sent > 2, "turn emails were sent: {before:?}");
    let roots: Vec<&Row> = before
        .iter()
        .filter(|r| {
            r.message_id
                .as_deref()
                .is_some_and(|m| m.starts_with("<game-"))
        })
        .collect();
    assert_eq!(roots.len(), 2, "one thread per seat: {before:?}");

    // Within the retention: nothing goes.
    let domain = app.domain();
    let report = domain.sweep(Utc::now() + Duration::days(29)).unwrap();
    assert_eq!(report.pruned_outbox, 0);
    assert_eq!(rows(&app).len(), before.len());

    // Past it, twenty sweeps at once: what settled goes, once; the rest stays.
    let later = Utc::now() + Duration::days(31);
    let pruned: usize = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|_| s.spawn(|| app.domain().sweep(later).unwrap().pruned_outbox))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).sum()
    });
    let after = rows(&app);
    assert_eq!(
        pruned as i64,
        (before.len() - after.len()) as i64 + replies_before,
        "each row pruned once"
    );
    let states: Vec<&str> = after.iter().map(|r| r.state.as_str()).collect();
    assert_eq!(
        after.len(),
        4,
        "two roots, the pending and the given-up: {after:?}"
    );
    assert_eq!(states.iter().filter(|s| **s == "sent").count(), 2);
    assert!(states.contains(&"pending") && states.contains(&"failed"));
    for r in after.iter().filter(|r| r.state == "sent") {
        assert!(r.message_id.as_deref().unwrap().starts_with("<game-"));
        assert_eq!(r.body, "", "a kept root says nothing any more");
    }
    assert_eq!(count(&app, "SELECT count(*) AS n FROM inbound_messages"), 0);

    // The game goes on: the next turn email starts no second thread with the root's id.
    let root_ids: Vec<String> = roots
        .iter()
        .map(|r| r.message_id.clone().unwrap())
        .collect();
    play(&app, id, &[&ada, &bo], 2);
    let newest = rows(&app);
    let new_ids: Vec<&String> = newest
        .iter()
        .filter(|r| r.state == "sent" && !root_ids.contains(r.message_id.as_ref().unwrap()))
        .map(|r| r.message_id.as_ref().unwrap())
        .collect();
    assert!(!new_ids.is_empty(), "new emails were sent: {newest:?}");
    assert!(
        new_ids.iter().all(|m| m.starts_with("<turnpost.")),
        "{new_ids:?}"
    );
}
