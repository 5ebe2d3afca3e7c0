//! Migrations on real databases: the newest goes down and up again with games in play; two
//! nodes migrating a fresh database at the same instant; every down and up again, empty and
//! with games of every type (a down that would destroy data refuses, clearly, changing
//! nothing); `turnpost migrate --down N` and `turnpost migrate --status`.

use std::process::{Command, Output};
use std::sync::{Arc, Barrier};

use diesel::migration::MigrationSource;
use diesel::pg::Pg;
use diesel::prelude::*;
use serde_json::{Value, json};
use turnpost::store::migrations::applied_count;

use crate::helpers::{
    Player, TestApp, fresh_database, migrated_database, spawn_app, spawn_app_on, spawn_app_with,
};

#[test]
fn the_newest_migration_reverts_and_reapplies_with_games_in_play() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    crate::browser::advance_public(&app, id, &[&ada, &bo], 3);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    let reverted = turnpost::store::revert_last(&mut conn).unwrap();
    let applied = turnpost::store::migrate(&mut conn).unwrap();
    assert_eq!(applied, vec![reverted], "the one reverted is applied again");
    // A new node on the database plays on: the game's deciders were filled in.
    let node = spawn_app_on(app.database_url.clone(), |_| {});
    let g = node.game(id, &ada);
    assert_eq!(g["deciding"], g["to_act"], "{g}");
    let before = g["version"].as_i64().expect("version");
    crate::browser::advance_public(&node, id, &[&ada, &bo], 2);
    // Forced moves play themselves, so a deal decides how many follow the two chosen ones.
    let after = node.game(id, &bo)["version"].as_i64().expect("version");
    assert!(after >= before + 2, "{before} -> {after}");
}

/// The names of this build's migrations, oldest first.
fn migration_names() -> Vec<String> {
    let mut names: Vec<String> = MigrationSource::<Pg>::migrations(&turnpost::store::MIGRATIONS)
        .unwrap()
        .iter()
        .map(|m| m.name().to_string())
        .collect();
    names.sort();
    names
}

/// The database's schema as `pg_dump --schema-only` writes it (tables, columns,
/// constraints, indexes, functions, triggers), without its comment lines and the random
/// `\restrict` key newer versions add.
fn schema_dump(url: &str) -> String {
    let pg_dump = crate::helpers::pg_tool("pg_dump");
    let out = Command::new(pg_dump)
        .args(["--schema-only", "--no-owner", "--no-privileges", url])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "pg_dump: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with("--") && !l.starts_with('\\') && !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every other test runs on a copy of the suite's template: the copy must be what the
/// migrations make, and a server starting on it must find nothing left to apply.
#[test]
fn a_database_copied_from_the_template_is_a_freshly_migrated_one() {
    let reference = fresh_database();
    let applied =
        turnpost::store::migrate(&mut PgConnection::establish(&reference).unwrap()).unwrap();
    assert_eq!(applied.len(), migration_names().len());
    let copy = migrated_database();
    assert_eq!(schema_dump(&copy), schema_dump(&reference));
    let again = turnpost::store::migrate(&mut PgConnection::establish(&copy).unwrap()).unwrap();
    assert!(again.is_empty(), "left to apply on the copy: {again:?}");
}

#[test]
fn two_nodes_migrating_a_fresh_database_at_the_same_instant_both_succeed_20_times() {
    let reference = fresh_database();
    turnpost::store::migrate(&mut PgConnection::establish(&reference).unwrap()).unwrap();
    let want = schema_dump(&reference);
    let all = migration_names().len();
    for round in 0..20 {
        let url = fresh_database();
        let start = Arc::new(Barrier::new(2));
        let nodes: Vec<_> = (0..2)
            .map(|_| {
                let (url, start) = (url.clone(), start.clone());
                std::thread::spawn(move || {
                    // Connected first, so that both ask the database at the same instant.
                    let mut conn = PgConnection::establish(&url).unwrap();
                    start.wait();
                    turnpost::store::migrate(&mut conn).map_err(|e| e.to_string())
                })
            })
            .collect();
        let mut applied: Vec<usize> = nodes
            .into_iter()
            .map(|n| match n.join().unwrap() {
                Ok(names) => names.len(),
                Err(e) => panic!("round {round}: a node failed to migrate: {e}"),
            })
            .collect();
        applied.sort();
        assert_eq!(
            applied,
            vec![0, all],
            "round {round}: one node applies everything, the other finds nothing to do"
        );
        assert_eq!(
            schema_dump(&url),
            want,
            "round {round}: the schema is complete"
        );
    }
}

/// Reverts migrations one at a time, newest first, until none is left or a down refuses;
/// returns the names reverted and the refusal. A refusal must change nothing: the same
/// migrations applied and the same schema.
fn walk_down(url: &str, conn: &mut PgConnection) -> (Vec<String>, Option<String>) {
    let mut reverted = Vec::new();
    loop {
        let applied = applied_count(conn).unwrap();
        if applied == 0 {
            return (reverted, None);
        }
        let before = schema_dump(url);
        match turnpost::store::revert_last(conn) {
            Ok(name) => reverted.push(name),
            Err(e) => {
                assert_eq!(
                    applied_count(conn).unwrap(),
                    applied,
                    "a refusal reverts nothing"
                );
                assert_eq!(
                    schema_dump(url),
                    before,
                    "a refusal leaves the schema as it was"
                );
                return (reverted, Some(e.to_string()));
            }
        }
    }
}

fn verify_clean(url: &str) -> usize {
    let report =
        turnpost::domain::verify::verify_all(url, &turnpost::games::Registry::standard()).unwrap();
    assert!(report.problems.is_empty(), "{:#?}", report.problems);
    report.games
}

#[test]
fn every_migration_goes_down_and_up_again_on_an_empty_database_leaving_the_same_schema() {
    let url = fresh_database();
    let mut conn = PgConnection::establish(&url).unwrap();
    turnpost::store::migrate(&mut conn).unwrap();
    let before = schema_dump(&url);
    let (reverted, refused) = walk_down(&url, &mut conn);
    assert_eq!(refused, None, "nothing to lose, nothing refused");
    let mut newest_first = migration_names();
    newest_first.reverse();
    assert_eq!(reverted, newest_first);
    assert_eq!(
        turnpost::store::migrate(&mut conn).unwrap(),
        migration_names()
    );
    assert_eq!(
        schema_dump(&url),
        before,
        "down and up again changes nothing"
    );
}

/// Asks for a takeback in a Starfarers game and has every other player accept it: the log
/// then holds an entry with `takeback_to`.
fn take_back(app: &TestApp, players: &[&Player]) -> i64 {
    let id = app.start_game("starfarers", json!({}), players);
    let found = crate::takeback::play_until_takeback(app, id, players, 7);
    for (i, p) in players.iter().enumerate() {
        if i != found.mover {
            let r = app.post(
                &format!("/api/v1/games/{id}/takeback/accept"),
                Some(&p.token),
                &json!({}),
            );
            assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        }
    }
    assert_eq!(
        app.game(id, players[0])["takeback"],
        Value::Null,
        "taken back"
    );
    id
}

fn count(conn: &mut PgConnection, query: &str) -> i64 {
    diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(query))
        .get_result(conn)
        .unwrap()
}

#[test]
fn a_takeback_keeps_its_migration_from_being_reverted_and_the_games_verify_after() {
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    take_back(&app, &[&ada, &bo, &cy]);
    let url = app.database_url.clone();
    drop(app);
    let mut conn = PgConnection::establish(&url).unwrap();
    let takebacks = "(SELECT count(*) FROM game_actions WHERE takeback_to IS NOT NULL)";
    assert!(count(&mut conn, takebacks) > 0);
    let before = schema_dump(&url);

    let (reverted, refused) = walk_down(&url, &mut conn);
    let refused = refused.expect("a down refuses");
    assert!(
        refused.contains(
            "migration 2026-11-26-000014_takeback cannot be reverted while data it would \
             destroy exists: games hold takebacks"
        ),
        "{refused}"
    );
    assert_eq!(
        reverted.last().map(String::as_str),
        Some("2026-11-26-000015_record_move")
    );
    assert!(
        count(&mut conn, takebacks) > 0,
        "the takebacks are still there"
    );

    turnpost::store::migrate(&mut conn).unwrap();
    assert_eq!(schema_dump(&url), before);
    assert_eq!(verify_clean(&url), 1);
}

#[test]
fn games_of_every_type_survive_every_down_that_runs_and_the_schema_comes_back_the_same() {
    let app = spawn_app_with(|s| s.webhook_allow_private = true);
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let three = [&ada, &bo, &cy];
    let registry = turnpost::games::Registry::standard();
    let types = [
        "kasino",
        "crossword-rummy",
        "partners",
        "fuldrigger",
        "sp4x",
        "space-empires-4x",
        "starfarers",
    ];
    for t in types {
        assert!(registry.get(t).is_some(), "{t} is a game type");
        let players = if matches!(t, "sp4x" | "starfarers") {
            &three[..]
        } else {
            &three[..2]
        };
        let id = app.start_game(t, json!({}), players);
        crate::browser::advance_public(&app, id, players, 4);
    }
    take_back(&app, &three);
    // A game with clocks.
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "options": {},
                "time_control": {"days_per_move": 3}, "timeout_policy": "forfeit"}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let clocked = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    let r = app.post(
        &format!("/api/v1/games/{clocked}/join"),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    crate::browser::advance_public(&app, clocked, &[&ada, &bo], 2);
    // An invitation to a private game.
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 3, "private": true,
                "invite": [crate::helpers::fresh_email("Dee")]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    // A webhook.
    let r = app.post(
        "/api/v1/me/webhooks",
        Some(&bo.token),
        &json!({"url": "http://127.0.0.1:9/hook", "events": ["your_turn"]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());

    let url = app.database_url.clone();
    drop(app);
    let mut conn = PgConnection::establish(&url).unwrap();
    let games = verify_clean(&url);
    assert!(games >= types.len() + 2, "{games}");
    let before = schema_dump(&url);

    let (reverted, refused) = walk_down(&url, &mut conn);
    let refused = refused.expect("a down refuses: these games hold data no older schema keeps");
    assert!(
        refused.contains("cannot be reverted while data it would destroy exists"),
        "{refused}"
    );
    assert!(!reverted.is_empty(), "the newest ones go down");

    turnpost::store::migrate(&mut conn).unwrap();
    assert_eq!(
        schema_dump(&url),
        before,
        "down and up again changes nothing"
    );
    assert_eq!(
        verify_clean(&url),
        games,
        "every game replays to its snapshot"
    );
}

/// Going down past the revision (000017) and the event buffer (000025) and up again must
/// not count either from the start again: a node that was not restarted would trust a stale
/// copy of a game whose revision came round to the same number, and a browser tab open
/// across it would reconnect with its last event id and be sent the wrong events.
#[test]
fn revisions_and_event_ids_only_grow_across_a_down_and_up() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    crate::browser::advance_public(&app, id, &[&ada, &bo], 6);
    let url = app.database_url.clone();
    drop(app);
    let mut conn = PgConnection::establish(&url).unwrap();
    let revision = format!("(SELECT revision FROM games WHERE id = {id})");
    let newest_event = "(SELECT coalesce(max(id), 0) FROM game_events)";
    let (revision_before, event_before) =
        (count(&mut conn, &revision), count(&mut conn, newest_event));
    assert!(revision_before > 0 && event_before > 0);

    loop {
        let name = turnpost::store::revert_last(&mut conn).unwrap();
        if name == "2026-11-26-000017_game_revision" {
            break;
        }
    }
    turnpost::store::migrate(&mut conn).unwrap();
    let revision_after = count(&mut conn, &revision);
    assert!(
        revision_after > revision_before,
        "{revision_before} -> {revision_after}"
    );

    let node = spawn_app_on(url.clone(), |_| {});
    crate::browser::advance_public(&node, id, &[&ada, &bo], 1);
    // The server announces a move just after its commit.
    let deadline = std::time::Instant::now() + crate::helpers::PATIENCE;
    let mut event_after = count(&mut conn, newest_event);
    while event_after == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
        event_after = count(&mut conn, newest_event);
    }
    assert!(
        event_after > event_before,
        "{event_before} -> {event_after}"
    );
    assert!(count(&mut conn, &revision) > revision_after);
    assert_eq!(verify_clean(&url), 1);
}

fn turnpost_cli(url: &str, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .args(args)
        .env("DATABASE_URL", url)
        .env("TURNPOST_JWT_SECRET", "x".repeat(40))
        .env("RUST_LOG", "warn")
        .output()
        .unwrap()
}

#[test]
fn migrate_down_reverts_the_newest_printing_each_and_refuses_more_than_applied() {
    let url = fresh_database();
    let mut conn = PgConnection::establish(&url).unwrap();
    turnpost::store::migrate(&mut conn).unwrap();
    let before = schema_dump(&url);
    let names = migration_names();
    let all = names.len();

    let out = turnpost_cli(&url, &["migrate", "--down", "2"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout.lines().collect::<Vec<_>>(),
        vec![
            format!("reverted {}", names[all - 1]),
            format!("reverted {}", names[all - 2]),
            "2 migration(s) reverted".to_string(),
        ]
    );
    assert_eq!(applied_count(&mut conn).unwrap(), all - 2);

    let too_many = (all - 1).to_string();
    let out = turnpost_cli(&url, &["migrate", "--down", &too_many]);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "cannot revert {too_many} migration(s): only {} are applied",
            all - 2
        )),
        "{stderr}"
    );
    assert_eq!(
        applied_count(&mut conn).unwrap(),
        all - 2,
        "nothing reverted"
    );

    let out = turnpost_cli(&url, &["migrate"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "2 migration(s) applied"
    );
    assert_eq!(schema_dump(&url), before);
}

/// The rows of the migration table, as the database holds them (`version`, `run_on`).
fn migration_rows(conn: &mut PgConnection) -> Vec<String> {
    #[derive(QueryableByName)]
    struct Row {
        #[diesel(sql_type = diesel::sql_types::Text)]
        row: String,
    }
    diesel::sql_query(
        "SELECT version::text || ' ' || run_on::text AS row FROM __diesel_schema_migrations \
         ORDER BY version",
    )
    .load::<Row>(conn)
    .unwrap()
    .into_iter()
    .map(|r| r.row)
    .collect()
}

/// `turnpost migrate --status`, which must succeed; its standard output.
fn migrate_status(url: &str) -> String {
    let out = turnpost_cli(url, &["migrate", "--status"]);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn migrate_status_lists_every_migration_applied_with_its_time_or_pending_and_changes_nothing() {
    let url = migrated_database();
    let mut conn = PgConnection::establish(&url).unwrap();
    let reverted = turnpost::store::revert_last(&mut conn).unwrap();
    let names = migration_names();
    assert_eq!(reverted, names[names.len() - 1]);
    let rows = migration_rows(&mut conn);
    let schema = schema_dump(&url);

    let stdout = migrate_status(&url);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), names.len() + 1, "{stdout}");
    for (name, line) in names.iter().zip(&lines) {
        let (listed, state) = line.split_once('\t').unwrap_or_else(|| panic!("{line}"));
        assert_eq!(listed, name, "{stdout}");
        if *name == reverted {
            assert_eq!(state, "pending", "{stdout}");
        } else {
            let when = state
                .strip_prefix("applied ")
                .unwrap_or_else(|| panic!("{name} is not applied: {line}"));
            assert!(
                chrono::NaiveDateTime::parse_from_str(when, "%Y-%m-%d %H:%M:%S").is_ok(),
                "{line}"
            );
        }
    }
    assert_eq!(
        lines[names.len()],
        format!("{} applied, 1 pending", names.len() - 1)
    );

    // Nothing was applied: the reverted one is still pending, the rest as they were.
    assert_eq!(migration_rows(&mut conn), rows);
    assert_eq!(schema_dump(&url), schema);
    assert_eq!(migrate_status(&url), stdout, "a second look finds the same");

    // A database never migrated has every migration pending, and keeps no trace of the
    // look: not even the migration table is created.
    let empty = fresh_database();
    let stdout = migrate_status(&empty);
    let pending: Vec<String> = names.iter().map(|n| format!("{n}\tpending")).collect();
    let mut want = pending.join("\n");
    want.push_str(&format!("\n0 applied, {} pending\n", names.len()));
    assert_eq!(stdout, want);
    assert_eq!(
        count(
            &mut PgConnection::establish(&empty).unwrap(),
            "(SELECT count(*) FROM pg_class WHERE relname = '__diesel_schema_migrations')"
        ),
        0
    );
}

/// A running node's transaction can hold one table a down alters while it waits for the
/// other: PostgreSQL cancels the down, whose transaction rolls back whole, and the revert
/// runs it again instead of failing a down that nothing refused.
#[test]
fn a_down_that_loses_a_deadlock_to_a_running_node_runs_again_and_reverts() {
    let url = migrated_database();
    let mut conn = PgConnection::establish(&url).unwrap();
    // The down to race alters webhook_receivers, then webhooks.
    while !turnpost::store::revert_last(&mut conn)
        .unwrap()
        .contains("000035_")
    {}
    let mut node = PgConnection::establish(&url).unwrap();
    // The node waits long before it looks for a deadlock, so the down (which waits first)
    // is the one PostgreSQL cancels.
    diesel::sql_query("SET deadlock_timeout = '60s'")
        .execute(&mut node)
        .unwrap();
    diesel::sql_query("BEGIN").execute(&mut node).unwrap();
    diesel::sql_query("SELECT count(*) FROM webhooks")
        .execute(&mut node)
        .unwrap();
    let pid: i32 = diesel::select(diesel::dsl::sql::<diesel::sql_types::Integer>(
        "pg_backend_pid()",
    ))
    .get_result(&mut conn)
    .unwrap();
    let down = std::thread::spawn(move || turnpost::store::revert_last(&mut conn));
    // Once the down holds webhook_receivers and waits for webhooks, the node asks for
    // webhook_receivers: a deadlock.
    let mut watcher = PgConnection::establish(&url).unwrap();
    let until = std::time::Instant::now() + crate::helpers::PATIENCE;
    while count(
        &mut watcher,
        &format!("(SELECT count(*) FROM pg_locks WHERE pid = {pid} AND NOT granted)"),
    ) == 0
    {
        assert!(std::time::Instant::now() < until, "the down never waited");
        std::thread::yield_now();
    }
    diesel::sql_query("SELECT count(*) FROM webhook_receivers")
        .execute(&mut node)
        .unwrap();
    diesel::sql_query("COMMIT").execute(&mut node).unwrap();
    let reverted = down
        .join()
        .unwrap()
        .expect("the down ran again and went through");
    assert!(reverted.contains("000034_webhook_isolation"), "{reverted}");
    let mut conn = PgConnection::establish(&url).unwrap();
    assert_eq!(
        count(
            &mut conn,
            "(SELECT count(*) FROM information_schema.columns \
              WHERE table_name = 'webhooks' AND column_name = 'served_at')"
        ),
        0,
        "the down's change is there"
    );
}
