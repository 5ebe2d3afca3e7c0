//! A backup restored into a fresh PostgreSQL cluster, as the hosts' guide's "Backups and
//! restore" says (`src/docs/hosting.md`): `pg_dump`, `pg_restore`, the same JWT secret;
//! players stay signed in, games are where they were and `turnpost verify` is clean. With
//! another secret every token is refused: why the guide says to keep it.

use std::path::Path;
use std::process::Command;

use secrecy::SecretString;
use serde_json::{Value, json};
use turnpost::embedded_pg::ThrowawayCluster;

use crate::helpers::{TestApp, pg_tool, play_random, run_verify, spawn_app, spawn_app_on};

fn run(program: &Path, args: &[&str]) {
    let out = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    assert!(
        out.status.success(),
        "{} {args:?}: {}{}",
        program.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn game_and_log(app: &TestApp, id: i64, token: &str) -> (Value, Value) {
    let g: Value = app
        .get(&format!("/api/v1/games/{id}"), Some(token))
        .json()
        .expect("game");
    let log: Value = app
        .get(&format!("/api/v1/games/{id}/log"), Some(token))
        .json()
        .expect("log");
    (g, log)
}

#[test]
fn a_dump_restored_into_a_fresh_cluster_keeps_games_and_sign_ins_with_the_same_secret() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let finished = app.start_game("kasino", json!({}), &[&ada, &bo]);
    play_random(&app, finished, &[&ada, &bo], 3, 400);
    let active = app.start_game("crossword-rummy", json!({}), &[&ada, &bo]);
    let before_finished = game_and_log(&app, finished, &ada.token);
    let before_active = game_and_log(&app, active, &bo.token);

    let dump = std::env::temp_dir().join(format!(
        "turnpost-backup-{}.dump",
        hex::encode(rand::random::<[u8; 6]>())
    ));
    let dump_arg = dump.display().to_string();
    run(
        &pg_tool("pg_dump"),
        &[
            "--format=custom",
            "--file",
            &dump_arg,
            "--dbname",
            &app.database_url,
        ],
    );
    // Another machine: a cluster of its own, an empty database.
    let fresh = ThrowawayCluster::start().expect("a second cluster");
    let url = fresh.new_database().expect("an empty database");
    run(
        &pg_tool("pg_restore"),
        &["--no-owner", "--exit-on-error", "--dbname", &url, &dump_arg],
    );
    let _ = std::fs::remove_file(&dump);

    let restored = spawn_app_on(url.clone(), |_| {});
    // The same secret: the tokens issued before the backup still sign in.
    let me = restored.get("/api/v1/me", Some(&ada.token));
    assert_eq!(me.status(), 200, "a token from before the backup");
    assert_eq!(
        game_and_log(&restored, finished, &ada.token),
        before_finished
    );
    assert_eq!(game_and_log(&restored, active, &bo.token), before_active);
    let (ok, text) = run_verify(&restored);
    assert!(ok, "verify after the restore: {text}");
    // Play goes on where it stopped.
    play_random(&restored, active, &[&ada, &bo], 4, 2000);

    // Restored with another secret, nobody is signed in any more.
    let other = turnpost::app::spawn_in_background(
        restored.settings.clone(),
        url,
        SecretString::from("another-secret-".repeat(4)),
    )
    .expect("a server with another secret");
    let r = restored
        .client
        .get(format!("http://127.0.0.1:{}/api/v1/me", other.port))
        .bearer_auth(&ada.token)
        .send()
        .expect("me");
    assert_eq!(r.status(), 401);
    other.stop();
}
