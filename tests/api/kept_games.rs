//! A server keeps the games it read or wrote last and trusts a copy only at the revision
//! the database holds (`domain::game_cache`). Two nodes on one database: whatever node B
//! changes, node A answers it at once, from a read and from a move.

use std::time::Duration;

use chrono::Utc;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, forced_moves, spawn_app, spawn_app_on};

/// The seat of `p` in game `g`.
fn seat_of(g: &Value, p: &Player) -> usize {
    g["seats"]
        .as_array()
        .and_then(|s| s.iter().position(|s| s["account_id"] == p.id))
        .expect("seated")
}

/// Whoever is to act, and their first legal action, as `node` shows the game.
fn choose<'p>(node: &TestApp, id: i64, people: [&'p Player; 2]) -> (&'p Player, Value) {
    let g = node.game(id, people[0]);
    let seat = g["to_act"][0].as_u64().expect("someone to act") as usize;
    let mover = people
        .into_iter()
        .find(|p| seat_of(&g, p) == seat)
        .expect("a mover");
    let g = node.game(id, mover);
    let body = json!({"expected_version": g["version"], "action": g["legal_actions"][0]});
    (mover, body)
}

/// Posts a move through `node`; returns the answer.
fn post_move(node: &TestApp, id: i64, mover: &Player, body: &Value) -> Value {
    let r = node.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&mover.token),
        body,
    );
    assert_eq!(r.status(), 200, "move: {}", r.text().unwrap_or_default());
    r.json().expect("json")
}

/// Plays the first legal action of whoever is to act, through `node`; returns the answer.
fn move_on(node: &TestApp, id: i64, people: [&Player; 2]) -> Value {
    let (mover, body) = choose(node, id, people);
    post_move(node, id, mover, &body)
}

fn rename(node: &TestApp, p: &Player, name: &str) {
    let r = node
        .client
        .patch(node.url("/api/v1/me"))
        .bearer_auth(&p.token)
        .json(&json!({ "name": name }))
        .send()
        .expect("request");
    assert_eq!(r.status(), 200, "rename: {}", r.text().unwrap_or_default());
}

fn name_in(g: &Value, p: &Player) -> Value {
    g["seats"][seat_of(g, p)]["name"].clone()
}

#[test]
fn node_a_answers_every_change_node_b_makes_at_once() {
    let a = spawn_app();
    let b = spawn_app_on(a.database_url.clone(), |_| {});
    let (ada, bo) = (a.player("Ada"), a.player("Bo"));
    let id = a.start_game("kasino", json!({}), &[&ada, &bo]);
    let people = [&ada, &bo];

    // A move through B: A, which kept the game at its last read, shows the new version.
    let before = a.game(id, &ada);
    let moved = move_on(&b, id, people);
    assert!(moved["version"].as_i64() > before["version"].as_i64());
    assert_eq!(a.game(id, &ada)["version"], moved["version"], "a move on B");
    // And a move through A right after, from what A kept: its answer is B's game moved on.
    let again = move_on(&a, id, people);
    assert!(again["version"].as_i64() > moved["version"].as_i64());
    assert_eq!(b.game(id, &bo)["version"], again["version"]);

    // A player's new name, through B (no new version of the game).
    assert_eq!(name_in(&a.game(id, &ada), &bo), "Bo");
    rename(&b, &bo, "Bo the Second");
    let g = a.game(id, &ada);
    assert_eq!(name_in(&g, &bo), "Bo the Second", "a rename on B");
    assert_eq!(g["version"], again["version"]);

    // A move through A from its copy, after B renamed Ada: the copy is stale, the move
    // still goes through, and its answer has the new name.
    let (mover, body) = choose(&a, id, people);
    rename(&b, &ada, "Ada the Bold");
    let answer = post_move(&a, id, mover, &body);
    assert_eq!(name_in(&answer, &ada), "Ada the Bold", "the move's answer");
    assert_eq!(name_in(&a.game(id, &bo), &ada), "Ada the Bold");

    // A vacation from two seconds on, through B: A shows it when it begins, although
    // nothing is written then.
    let (from, until) = (
        Utc::now() + chrono::Duration::seconds(2),
        Utc::now() + chrono::Duration::days(2),
    );
    let r = b.post(
        "/api/v1/me/vacation",
        Some(&bo.token),
        &json!({"from": from, "until": until}),
    );
    assert_eq!(
        r.status(),
        201,
        "vacation: {}",
        r.text().unwrap_or_default()
    );
    let on_vacation = |g: &Value| g["seats"][seat_of(g, &bo)]["on_vacation_until"].clone();
    // Read again and again: not shown while the vacation has not begun, shown by a read
    // made after it began. Each read is judged by the clock around it, so a slow answer
    // cannot make it wrong. (The database keeps microseconds: a read asked 300 ms after
    // the beginning is past it whatever the rounding.)
    loop {
        let asked = Utc::now();
        let shown = on_vacation(&a.game(id, &ada));
        let answered = Utc::now();
        if shown.is_string() {
            assert!(answered >= from, "shown before the vacation began: {shown}");
            break;
        }
        assert_eq!(shown, Value::Null);
        assert!(
            asked < from + chrono::Duration::milliseconds(300),
            "a read {} ms after the vacation began does not show it",
            (asked - from).num_milliseconds()
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // A resignation through B ends the game without a new version; A shows it ended.
    let r = b.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200, "resign: {}", r.text().unwrap_or_default());
    let g = a.game(id, &ada);
    assert_eq!(g["status"], "finished", "a resignation on B");
    assert_eq!(g["legal_actions"], json!([]));
}

/// The same seat submits two moves for one version at once, one through each node, both of
/// which hold a copy of the game at that version: exactly one is written, the other is
/// refused as stale, and the log has one entry per version.
#[test]
fn two_nodes_with_the_same_copy_never_both_write_a_move() {
    let a = spawn_app();
    let b = spawn_app_on(a.database_url.clone(), |_| {});
    let (ada, bo) = (a.player("Ada"), a.player("Bo"));
    let id = a.start_game("kasino", json!({}), &[&ada, &bo]);
    for round in 0..6 {
        let g = a.game(id, &ada);
        let seat = g["to_act"][0].as_u64().expect("someone to act") as usize;
        let p = if seat_of(&g, &ada) == seat { &ada } else { &bo };
        // Both nodes read the game as the mover: both now keep it at this revision.
        let mine = a.game(id, p);
        assert_eq!(b.game(id, p)["version"], mine["version"]);
        let legal = mine["legal_actions"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let version = mine["version"].as_i64().expect("version");
        let (first, last) = (legal[0].clone(), legal[legal.len() - 1].clone());
        let path = format!("/api/v1/games/{id}/actions");
        let (r1, r2) = std::thread::scope(|s| {
            let h1 = s.spawn(|| {
                a.post(
                    &path,
                    Some(&p.token),
                    &json!({"expected_version": version, "action": first}),
                )
            });
            let h2 = s.spawn(|| {
                b.post(
                    &path,
                    Some(&p.token),
                    &json!({"expected_version": version, "action": last}),
                )
            });
            (h1.join().expect("node A"), h2.join().expect("node B"))
        });
        let mut statuses = [r1.status().as_u16(), r2.status().as_u16()];
        statuses.sort();
        assert_eq!(statuses, [200, 409], "round {round}");
        let loser: Value = if r1.status() == 409 { r1 } else { r2 }
            .json()
            .expect("json");
        assert_eq!(loser["code"], "stale_version", "round {round}");
        let current = loser["current_version"].as_i64().expect("current version");
        let log = a.log(id, &ada);
        assert_eq!(log.len() as i64, current, "one entry per version: {log:?}");
        assert_eq!(
            current,
            version + 1 + forced_moves(&log[version as usize + 1..]) as i64,
            "the winner's move and the moves that played themselves, never the loser's"
        );
        // Both nodes answer the game as it now is.
        assert_eq!(a.game(id, &ada)["version"], current);
        assert_eq!(b.game(id, &bo)["version"], current);
    }
}
