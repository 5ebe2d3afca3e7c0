//! The newest migration goes down and up again on a database with games in it, and the
//! games play on afterwards.

use diesel::prelude::*;
use serde_json::json;

use crate::helpers::{spawn_app, spawn_app_on};

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
