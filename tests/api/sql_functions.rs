//! The database functions and triggers of `src/store/sql/replaceable.sql`, called directly
//! in SQL on a database with a game in it (its server stopped, so nothing else writes), and
//! the file applied again when, and only when, its text changed.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Nullable, Text};
use serde_json::{Value, json};

use crate::helpers::spawn_app;

fn int(conn: &mut PgConnection, query: &str) -> i64 {
    diesel::select(diesel::dsl::sql::<BigInt>(query))
        .get_result(conn)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
}

fn text(conn: &mut PgConnection, query: &str) -> Option<String> {
    diesel::select(diesel::dsl::sql::<Nullable<Text>>(query))
        .get_result(conn)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
}

fn yes(conn: &mut PgConnection, query: &str) -> bool {
    diesel::select(diesel::dsl::sql::<Bool>(query))
        .get_result(conn)
        .unwrap_or_else(|e| panic!("{query}: {e}"))
}

fn run(conn: &mut PgConnection, query: &str) -> Result<usize, String> {
    diesel::sql_query(query)
        .execute(conn)
        .map_err(|e| e.to_string())
}

/// A database with a Kasino game of Ada (seat 0) and Bo (seat 1) a few moves in; its
/// server stopped. Returns (url, game, Ada's account, Bo's account).
fn a_game() -> (String, i64, i64, i64) {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    crate::browser::advance_public(&app, id, &[&ada, &bo], 2);
    let seat0 = app.game(id, &ada)["your_seat"].as_i64().unwrap();
    let (a, b) = if seat0 == 0 {
        (ada.id, bo.id)
    } else {
        (bo.id, ada.id)
    };
    let url = app.database_url.clone();
    drop(app);
    // The stopped server's senders may still hold a claim on a turn email they were
    // sending (the functions leave claimed rows alone): wait until they let go.
    let conn = &mut PgConnection::establish(&url).unwrap();
    let claimed = "(SELECT count(*) FROM outbox WHERE claimed_until > now())";
    let start = std::time::Instant::now();
    while int(conn, claimed) > 0 {
        assert!(
            start.elapsed() < crate::helpers::PATIENCE,
            "a stopped server's sender kept its claim"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // Nor may its last writes (a sent email's bookkeeping, announced by the triggers) land
    // while a test counts announcements: wait until it has closed its every session on
    // the database, after which nothing of it can write.
    let sessions = "(SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() \
                     AND backend_type = 'client backend' AND pid <> pg_backend_pid())";
    while int(conn, sessions) > 0 {
        assert!(
            start.elapsed() < crate::helpers::PATIENCE,
            "a stopped server kept its sessions"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    (url, id, a, b)
}

#[test]
fn seats_json_revision_triggers_settled_until_and_announcements() {
    let (url, id, seat0, seat1) = a_game();
    let conn = &mut PgConnection::establish(&url).unwrap();
    let seats: Value =
        serde_json::from_str(&text(conn, &format!("game_seats_json({id}, now())::text")).unwrap())
            .unwrap();
    assert_eq!(seats.as_array().unwrap().len(), 2, "{seats}");
    assert_eq!(seats[0]["seat"], 0);
    assert_eq!(seats[0]["account_id"], seat0);
    assert_eq!(seats[1]["account_id"], seat1);
    assert_eq!(seats[1]["bot"], false);
    assert_eq!(seats[1]["vacation_until"], Value::Null);

    let revision = format!("(SELECT revision FROM games WHERE id = {id})");
    let events = format!("(SELECT count(*) FROM game_events WHERE game_id = {id})");
    let (r0, e0) = (int(conn, &revision), int(conn, &events));
    // games_revision, and games_announce storing the change (turnpost_store_event).
    run(
        conn,
        &format!("UPDATE games SET last_nudge_at = now() WHERE id = {id}"),
    )
    .unwrap();
    assert_eq!(int(conn, &revision), r0 + 1);
    assert_eq!(
        int(conn, &events),
        e0 + 1,
        "the change is announced and kept"
    );
    assert!(yes(
        conn,
        &format!(
            "(SELECT payload->>'status' = status FROM game_events, games \
             WHERE game_events.game_id = {id} AND games.id = {id} \
             ORDER BY game_events.id DESC LIMIT 1)"
        )
    ));
    // game_seats_revision.
    run(
        conn,
        &format!("UPDATE game_seats SET muted = TRUE WHERE game_id = {id} AND seat = 0"),
    )
    .unwrap();
    assert_eq!(int(conn, &revision), r0 + 2);
    // accounts_revision: a name shown in the game, not a setting it does not show.
    run(
        conn,
        &format!("UPDATE accounts SET name = 'Renamed' WHERE id = {seat1}"),
    )
    .unwrap();
    assert_eq!(int(conn, &revision), r0 + 3);
    run(
        conn,
        &format!("UPDATE accounts SET digest_hour = 9 WHERE id = {seat1}"),
    )
    .unwrap();
    assert_eq!(int(conn, &revision), r0 + 3);
    assert_eq!(
        text(
            conn,
            &format!("(game_seats_json({id}, now()) -> 1 ->> 'name')")
        )
        .as_deref(),
        Some("Renamed")
    );
    // turnpost_touch_games_of.
    run(conn, &format!("SELECT turnpost_touch_games_of({seat1})")).unwrap();
    assert_eq!(int(conn, &revision), r0 + 4);

    // vacations_revision, and game_seats_settled_until: nothing changes with the time
    // alone until a vacation is planned, then its start is when it does.
    let settled = format!("(game_seats_settled_until({id}, now())::text)");
    assert_eq!(text(conn, &settled), None);
    run(
        conn,
        &format!(
            "INSERT INTO vacations (account_id, starts_at, ends_at) \
             VALUES ({seat1}, now() + interval '1 day', now() + interval '3 days')"
        ),
    )
    .unwrap();
    assert_eq!(int(conn, &revision), r0 + 5);
    assert!(yes(
        conn,
        &format!(
            "game_seats_settled_until({id}, now()) = \
             (SELECT starts_at FROM vacations WHERE account_id = {seat1})"
        )
    ));
    assert!(yes(
        conn,
        &format!(
            "(game_seats_json({id}, now() + interval '2 days') -> 1 ->> 'vacation_until') \
             IS NOT NULL"
        )
    ));

    // turnpost_announce: the server's own announcement is kept like the trigger's.
    let e1 = int(conn, &events);
    assert!(yes(
        conn,
        &format!("turnpost_announce('{{\"game\": {id}, \"version\": 0}}')")
    ));
    assert_eq!(int(conn, &events), e1 + 1);
}

#[test]
fn the_log_is_append_only() {
    let (url, id, _, _) = a_game();
    let conn = &mut PgConnection::establish(&url).unwrap();
    assert!(
        int(
            conn,
            &format!("(SELECT count(*) FROM game_actions WHERE game_id = {id})")
        ) > 0
    );
    for change in [
        format!("UPDATE game_actions SET description = 'rewritten' WHERE game_id = {id}"),
        format!("DELETE FROM game_actions WHERE game_id = {id}"),
    ] {
        let e = run(conn, &change).unwrap_err();
        assert!(e.contains("game_actions is append-only"), "{change}: {e}");
    }
}

#[test]
fn record_move_writes_a_move_once_and_owes_its_webhooks_and_turn_emails() {
    let (url, id, _, seat1) = a_game();
    let conn = &mut PgConnection::establish(&url).unwrap();
    // A webhook row gets its receiver's row (webhook_receiver_row, webhook_receiver_of).
    run(
        conn,
        &format!(
            "INSERT INTO webhooks (account_id, url, events, secret) \
             VALUES ({seat1}, 'https://Hooks.Example.org:8443/in', '{{your_turn}}', 's')"
        ),
    )
    .unwrap();
    assert_eq!(
        int(
            conn,
            "(SELECT count(*) FROM webhook_receivers WHERE receiver = 'hooks.example.org:8443')"
        ),
        1
    );

    let version = int(
        conn,
        &format!("(SELECT version FROM games WHERE id = {id})"),
    );
    let revision = int(
        conn,
        &format!("(SELECT revision FROM games WHERE id = {id})"),
    );
    let events = format!("(SELECT count(*) FROM game_events WHERE game_id = {id})");
    let e0 = int(conn, &events);
    let call = |expected: i64| {
        format!(
            "(record_move({id}, {version}, {expected}, \
              '[{{\"seat\": 0, \"action\": {{\"type\": \"test\"}}, \"public_action\": null, \
                 \"seen_by\": [0], \"description\": \"a test entry\"}}]'::jsonb, \
              (SELECT snapshot FROM games WHERE id = {id}), 'active', '{{1}}', '{{1}}', NULL, \
              'kasino', '{{1}}', '{{{seat1}}}', '{{your_turn}}', \
              '{{1}}', '{{{seat1}}}', '{{bo@example.org}}', '{{turn-test-key}}', 0)::text)"
        )
    };
    assert!(text(conn, &call(revision)).is_some(), "written");
    assert_eq!(
        int(
            conn,
            &format!("(SELECT version FROM games WHERE id = {id})")
        ),
        version + 1
    );
    assert!(yes(
        conn,
        &format!(
            "(SELECT description = 'a test entry' AND public_action IS NULL AND seen_by = '{{0}}' \
              AND seat = 0 FROM game_actions WHERE game_id = {id} AND seq = {})",
            version + 1
        )
    ));
    assert!(yes(
        conn,
        &format!("(SELECT to_act = '{{1}}' AND deciding = '{{1}}' FROM games WHERE id = {id})")
    ));
    // The server announces a move written without the row lock itself.
    assert_eq!(int(conn, &events), e0, "not announced by the trigger");
    assert_eq!(
        int(
            conn,
            &format!(
                "(SELECT count(*) FROM outbox WHERE kind = 'webhook' AND game_id = {id} \
                 AND account_id = {seat1} AND detail->>'event' = 'your_turn')"
            )
        ),
        1
    );
    assert_eq!(
        int(
            conn,
            &format!(
                "(SELECT count(*) FROM outbox WHERE kind = 'turn' AND game_id = {id} AND seat = 1 \
                 AND version = {} AND sent_at IS NULL AND dropped_at IS NULL)",
                version + 1
            )
        ),
        1
    );
    let actions = format!("(SELECT count(*) FROM game_actions WHERE game_id = {id})");
    let written = int(conn, &actions);
    // The same call again: the revision moved on, so nothing is written.
    assert_eq!(text(conn, &call(revision)), None);
    assert_eq!(int(conn, &actions), written);
    assert_eq!(
        int(
            conn,
            &format!("(SELECT version FROM games WHERE id = {id})")
        ),
        version + 1
    );
}

#[test]
fn owe_turn_email_and_owe_webhooks_write_each_message_once() {
    let (url, id, seat0, _) = a_game();
    let conn = &mut PgConnection::establish(&url).unwrap();
    let pending = format!(
        "(SELECT count(*) FROM outbox WHERE kind = 'turn' AND game_id = {id} AND seat = 0 \
         AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL)"
    );
    // The stopped server may have left none, one, or two (a claimed row stays while a newer
    // turn of the same seat is written beside it, for its sender to drop): start with none.
    run(
        conn,
        &format!(
            "UPDATE outbox SET dropped_at = now() WHERE kind = 'turn' AND game_id = {id} \
             AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL"
        ),
    )
    .unwrap();
    // The first call writes one pending turn email of seat 0, which takes the newer turn.
    assert!(yes(
        conn,
        &format!("owe_turn_email(100, 'k-100', 0, {id}, 0, {seat0}, 'ada@example.org')")
    ));
    assert!(yes(
        conn,
        &format!("owe_turn_email(101, 'k-101', 3600, {id}, 0, {seat0}, 'ada@example.org')")
    ));
    assert_eq!(int(conn, &pending), 1);
    assert!(yes(
        conn,
        &format!(
            "(SELECT version = 101 AND due_at > now() + interval '50 minutes' FROM outbox \
             WHERE kind = 'turn' AND game_id = {id} AND seat = 0 AND sent_at IS NULL \
             AND failed_at IS NULL AND dropped_at IS NULL)"
        )
    ));

    run(
        conn,
        &format!(
            "INSERT INTO webhooks (account_id, url, events, secret) \
             VALUES ({seat0}, 'https://hooks.example.org/in', '{{your_turn,game_finished}}', 's')"
        ),
    )
    .unwrap();
    let owe = format!(
        "owe_webhooks({id}, 100, 'kasino', '{{0,0}}', '{{{seat0},{seat0}}}', \
         '{{your_turn,offer}}')::BIGINT"
    );
    assert_eq!(
        int(conn, &owe),
        1,
        "one event the webhook takes, one it does not"
    );
    assert_eq!(int(conn, &owe), 0, "owed already");
}

#[test]
fn the_replaceable_file_is_applied_again_when_and_only_when_its_text_changed() {
    let (url, _, _, _) = a_game();
    let conn = &mut PgConnection::establish(&url).unwrap();
    let hash = turnpost::store::replaceable::sha256_hex();
    assert_eq!(
        turnpost::store::replaceable::recorded(conn).unwrap(),
        Some(hash.clone())
    );
    // Every function of the schema is the file's, but the generated column's.
    let mut want: Vec<&str> = turnpost::store::replaceable::created_names();
    want.push("webhook_receiver_of");
    want.sort();
    let have = text(
        conn,
        "(SELECT string_agg(p.proname, ',' ORDER BY p.proname) FROM pg_proc p \
         JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public')",
    )
    .unwrap();
    assert_eq!(have, want.join(","));
    let triggers = "(SELECT count(*) FROM pg_trigger WHERE NOT tgisinternal)";
    assert_eq!(int(conn, triggers), 7);

    run(
        conn,
        "DROP TRIGGER game_actions_append_only ON game_actions",
    )
    .unwrap();
    assert!(turnpost::store::migrate(conn).unwrap().is_empty());
    assert_eq!(int(conn, triggers), 6, "the same text is not applied again");

    run(
        conn,
        "UPDATE turnpost_replaceable_schema SET sha256 = 'an older text'",
    )
    .unwrap();
    turnpost::store::migrate(conn).unwrap();
    assert_eq!(int(conn, triggers), 7, "a changed text is applied");
    assert_eq!(
        turnpost::store::replaceable::recorded(conn).unwrap(),
        Some(hash)
    );
}
