//! A replacement for an abandoned seat: a seat that gave up in a game
//! of three or more is offered in the lobby by a player still in the game; a person who
//! takes it plays on from the seat's position with the seat's view only; the game's
//! hand-overs say so; the leaver keeps the loss and the replacement is not rated.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, play_random, spawn_app};
use crate::kasino::{hand, strings};

fn offer(app: &TestApp, id: i64, seat: i64, p: &Player) -> reqwest::blocking::Response {
    app.post(
        &format!("/api/v1/games/{id}/seats/{seat}/offer"),
        Some(&p.token),
        &json!({}),
    )
}

fn take(app: &TestApp, id: i64, seat: i64, p: &Player) -> reqwest::blocking::Response {
    app.post(
        &format!("/api/v1/games/{id}/seats/{seat}/take"),
        Some(&p.token),
        &json!({}),
    )
}

fn withdraw(app: &TestApp, id: i64, seat: i64, p: &Player) -> reqwest::blocking::Response {
    app.client
        .delete(app.url(&format!("/api/v1/games/{id}/seats/{seat}/offer")))
        .bearer_auth(&p.token)
        .send()
        .unwrap()
}

fn resign(app: &TestApp, id: i64, p: &Player) {
    let r = app.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&p.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

fn replacements(app: &TestApp, id: i64, p: &Player) -> Vec<Value> {
    let r = app.get(&format!("/api/v1/games/{id}/replacements"), Some(&p.token));
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap().as_array().unwrap().clone()
}

fn lobby(app: &TestApp, p: &Player) -> Vec<Value> {
    let r = app.get("/api/v1/seat-offers", Some(&p.token));
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap()["items"]
        .as_array()
        .unwrap()
        .clone()
}

/// `(status, code)` of a refusal.
fn refused(r: reqwest::blocking::Response, what: &str) -> (u16, String) {
    let (s, v) = assert_problem(r, what);
    (s, v["code"].as_str().unwrap_or_default().to_string())
}

/// A three-seat Kasino game (Ada, Bo, Cy) in which Bo resigned: the computer plays seat 1.
fn abandoned(app: &TestApp) -> (i64, Player, Player, Player) {
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo, &cy]);
    resign(app, id, &bo);
    let g = app.game(id, &ada);
    assert_eq!(g["status"], "active");
    assert_eq!(g["forfeited"], json!([1]));
    (id, ada, bo, cy)
}

#[test]
fn a_seat_given_up_is_offered_taken_and_played_on_by_its_replacement_who_is_not_rated() {
    let app = spawn_app();
    let (id, ada, bo, cy) = abandoned(&app);
    let dee = app.player("Dee");
    assert!(lobby(&app, &dee).is_empty());

    // Ada, still in the game, offers Bo's seat; it shows in the lobby (not to the players).
    let r = offer(&app, id, 1, &ada);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let o: Value = r.json().unwrap();
    assert_eq!(o["left_account_id"], bo.id);
    assert_eq!(o["left_name"], "Bo");
    assert_eq!(o["replacement_account_id"], Value::Null);
    let listed = lobby(&app, &dee);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert_eq!(listed[0]["game_id"], id);
    assert_eq!(listed[0]["seat"], 1);
    assert_eq!(listed[0]["left_name"], "Bo");
    assert_eq!(listed[0]["offered_by_name"], "Ada");
    assert!(lobby(&app, &cy).is_empty(), "a player cannot take a seat");

    // The seat's view as it stands (the computer's knowledge of it), before the hand-over.
    let seat_view = app.game(id, &bo);
    let version = seat_view["version"].as_i64().unwrap();
    let (ada_hand, cy_hand) = (hand(&app.game(id, &ada)), hand(&app.game(id, &cy)));

    let r = take(&app, id, 1, &dee);
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let g: Value = r.json().unwrap();
    assert_eq!(g["your_seat"], 1);
    assert_eq!(g["seats"][1]["account_id"], dee.id);
    assert_eq!(g["seats"][1]["name"], "Dee");
    assert_eq!(g["seats"][1]["bot"], false);
    assert_eq!(g["forfeited"], json!([]), "the computer no longer plays it");
    assert!(
        lobby(&app, &dee).is_empty(),
        "a seat taken leaves the lobby"
    );

    // Dee sees what the seat saw, and nothing of the others' hands.
    let then = app.get(
        &format!("/api/v1/games/{id}/views/{version}"),
        Some(&dee.token),
    );
    assert_eq!(then.status(), 200);
    assert_eq!(then.json::<Value>().unwrap()["view"], seat_view["view"]);
    let mut seen = BTreeSet::new();
    strings(&app.game(id, &dee)["view"], &mut seen);
    for (who, h) in [("Ada", &ada_hand), ("Cy", &cy_hand)] {
        let leaked: Vec<&String> = h.intersection(&seen).collect();
        assert!(leaked.is_empty(), "Dee sees {who}'s cards {leaked:?}");
    }
    // Bo, no longer seated, sees the game as a spectator: no hand of the seat's.
    let bo_now = app.game(id, &bo);
    assert_eq!(bo_now["your_seat"], Value::Null);

    // The hand-over is on the game's record, in words.
    let handed = replacements(&app, id, &cy);
    assert_eq!(handed.len(), 1);
    assert_eq!(handed[0]["replacement_account_id"], dee.id);
    assert_eq!(handed[0]["replacement_rated"], false);
    assert_eq!(handed[0]["taken_at_version"], version);
    let text = handed[0]["text"].as_str().unwrap();
    assert!(
        text.contains("Dee took over seat 2 from Bo") && text.contains("unrated"),
        "{text}"
    );

    // Dee plays on to the end, as seat 1.
    play_random(&app, id, &[&ada, &dee, &cy], 7, 5000);
    // The seat's turn emails went to Dee from the hand-over on, none to Bo.
    {
        use diesel::prelude::*;
        let mut conn = PgConnection::establish(&app.database_url).unwrap();
        let turns = |conn: &mut PgConnection, account: i64| -> i64 {
            diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(&format!(
                "(SELECT count(*) FROM outbox WHERE kind = 'turn' AND account_id = {account} \
                  AND game_id = {id} AND version >= {version})"
            )))
            .get_result(conn)
            .unwrap()
        };
        assert!(
            turns(&mut conn, dee.id) > 0,
            "Dee is told when it is the seat's turn"
        );
        assert_eq!(turns(&mut conn, bo.id), 0, "Bo is told nothing more");
    }
    let g = app.game(id, &ada);
    assert_eq!(g["status"], "finished");
    let log = app.log(id, &ada);
    assert!(
        log.iter().any(|e| e["seat"] == 1
            && e["seq"].as_i64().unwrap() > version
            && !e["text"].as_str().unwrap_or("[bot]").starts_with("[bot]")),
        "Dee's own moves are in the log"
    );

    // Ratings: Bo keeps the loss (ranked last), Dee is not rated; Ada and Cy are.
    let history = |p: &Player| -> Vec<Value> {
        let r = app.get(
            &format!("/api/v1/accounts/{}/ratings", p.id),
            Some(&p.token),
        );
        assert_eq!(r.status(), 200);
        r.json::<Value>().unwrap()["history"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["game_id"] == id)
            .cloned()
            .collect()
    };
    let bo_rated = history(&bo);
    assert_eq!(bo_rated.len(), 1, "the leaver is rated");
    let worst_other = [&ada, &cy]
        .iter()
        .map(|p| history(p)[0]["rank"].as_i64().unwrap())
        .max()
        .unwrap();
    assert!(
        bo_rated[0]["rank"].as_i64().unwrap() > worst_other,
        "the leaver ranks below every rated player: {bo_rated:?}"
    );
    assert!(bo_rated[0]["rating_after"].as_f64() < bo_rated[0]["rating_before"].as_f64());
    assert!(history(&dee).is_empty(), "the replacement is not rated");
    let r = app.get(
        &format!("/api/v1/accounts/{}/ratings", dee.id),
        Some(&dee.token),
    );
    assert_eq!(r.json::<Value>().unwrap()["ratings"], json!([]));
    assert_eq!(history(&ada).len(), 1);
    assert_eq!(history(&cy).len(), 1);
    // The hand-over stays on record after the end; the game verifies (replays).
    assert_eq!(replacements(&app, id, &ada).len(), 1);
    let (ok, out) = crate::helpers::run_verify(&app);
    assert!(ok, "{out}");

    // Reliability: Bo resigned the game; Dee played it to the end.
    let rel = |p: &Player| -> Value {
        app.get(
            &format!("/api/v1/accounts/{}/reliability", p.id),
            Some(&p.token),
        )
        .json()
        .unwrap()
    };
    let b = rel(&bo);
    assert_eq!(
        (b["resigned"].as_i64(), b["share"].as_i64()),
        (Some(1), Some(0)),
        "{b}"
    );
    let d = rel(&dee);
    assert_eq!(
        (d["resigned"].as_i64(), d["games_finished"].as_i64()),
        (Some(0), Some(1)),
        "{d}"
    );
}

#[test]
fn every_wrong_offer_or_take_is_refused_with_its_code_and_changes_nothing() {
    let app = spawn_app();
    let (id, ada, bo, cy) = abandoned(&app);
    let (dee, eve) = (app.player("Dee"), app.player("Eve"));
    let before = app.game(id, &ada);

    // Offers: not a player, the leaver, a seat still played, no such seat, no token.
    assert_eq!(
        refused(offer(&app, id, 1, &dee), "a stranger"),
        (403, "not_a_player".into())
    );
    assert_eq!(
        refused(offer(&app, id, 1, &bo), "the leaver"),
        (409, "already_forfeited".into())
    );
    assert_eq!(
        refused(offer(&app, id, 2, &ada), "a seat still played"),
        (409, "seat_not_abandoned".into())
    );
    assert_eq!(
        refused(offer(&app, id, 0, &ada), "one's own seat"),
        (409, "seat_not_abandoned".into())
    );
    assert_eq!(refused(offer(&app, id, 7, &ada), "no such seat").0, 404);
    assert_eq!(
        refused(offer(&app, 999_999, 1, &ada), "no such game").0,
        404
    );
    let r = app.post(
        &format!("/api/v1/games/{id}/seats/1/offer"),
        None,
        &json!({}),
    );
    assert_eq!(refused(r, "no token").0, 401);
    // Takes and withdrawals before any offer.
    assert_eq!(
        refused(take(&app, id, 1, &dee), "not offered"),
        (409, "seat_not_offered".into())
    );
    assert_eq!(
        refused(withdraw(&app, id, 1, &ada), "nothing to withdraw"),
        (409, "seat_not_offered".into())
    );
    assert!(replacements(&app, id, &ada).is_empty(), "nothing changed");
    assert_eq!(app.game(id, &ada)["version"], before["version"]);

    assert_eq!(offer(&app, id, 1, &cy).status(), 201);
    // Each refused in turn, changing nothing.
    for (r, what, want) in [
        (
            offer(&app, id, 1, &ada),
            "offered twice",
            (409, "seat_already_offered"),
        ),
        (
            take(&app, id, 1, &bo),
            "the leaver",
            (409, "leaver_cannot_take"),
        ),
        (
            take(&app, id, 1, &ada),
            "a player already seated",
            (409, "already_joined"),
        ),
        (
            withdraw(&app, id, 1, &bo),
            "the leaver withdraws",
            (409, "already_forfeited"),
        ),
        (
            withdraw(&app, id, 1, &dee),
            "a stranger withdraws",
            (403, "not_a_player"),
        ),
    ] {
        assert_eq!(refused(r, what), (want.0, want.1.into()), "{what}");
    }
    assert_eq!(refused(take(&app, id, 5, &dee), "no such seat").0, 404);
    // Withdrawn: gone from the lobby, not to be taken; offered again.
    assert_eq!(withdraw(&app, id, 1, &ada).status(), 204);
    assert!(lobby(&app, &dee).is_empty());
    assert_eq!(
        refused(take(&app, id, 1, &dee), "withdrawn"),
        (409, "seat_not_offered".into())
    );
    assert_eq!(offer(&app, id, 1, &ada).status(), 201);
    assert_eq!(take(&app, id, 1, &dee).status(), 200);
    // Taken: once only.
    for (r, what) in [
        (take(&app, id, 1, &eve), "taken again"),
        (offer(&app, id, 1, &ada), "offered once taken"),
        (withdraw(&app, id, 1, &cy), "withdrawn once taken"),
    ] {
        assert_eq!(
            refused(r, what),
            (409, "seat_already_replaced".into()),
            "{what}"
        );
    }
    let handed = replacements(&app, id, &ada);
    assert_eq!(handed.len(), 1);
    assert_eq!(handed[0]["replacement_account_id"], dee.id);

    // A game of two ends when a seat gives up: nothing to offer.
    let (fay, gus) = (app.player("Fay"), app.player("Gus"));
    let two = app.start_game("kasino", json!({}), &[&fay, &gus]);
    resign(&app, two, &gus);
    assert_eq!(
        refused(offer(&app, two, 1, &fay), "a game of two"),
        (409, "game_not_active".into())
    );
    // A private game's seats are not offered in the lobby.
    let (hal, ivy, jo) = (app.player("Hal"), app.player("Ivy"), app.player("Jo"));
    let r = app.post(
        "/api/v1/games",
        Some(&hal.token),
        &json!({"game_type": "kasino", "players": 3, "private": true,
                "invite": [ivy.email.clone(), jo.email.clone()]}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let private = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    for p in [&ivy, &jo] {
        let token = crate::helpers::invitation_token(&app, &p.email);
        let r = app.post(
            &format!("/api/v1/invitations/{token}/accept"),
            Some(&p.token),
            &json!({}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    }
    resign(&app, private, &jo);
    assert_eq!(
        refused(offer(&app, private, 2, &hal), "a private game"),
        (409, "seat_offer_private".into())
    );
    assert!(replacements(&app, private, &hal).is_empty());
    // A game not started: nothing given up.
    let r = app.post(
        "/api/v1/games",
        Some(&fay.token),
        &json!({"game_type": "kasino", "players": 3}),
    );
    let open = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        refused(offer(&app, open, 1, &fay), "an open game"),
        (409, "game_not_active".into())
    );
}

#[test]
fn an_offer_ends_with_the_game_and_a_deleted_accounts_seat_can_be_offered() {
    let app = spawn_app();
    let (ada, bo, cy, dee) = (
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Dee"),
    );
    let id = app.start_game("kasino", json!({}), &[&ada, &bo, &cy]);
    // Bo deletes their account: their seat is resigned, and may be offered like any other.
    let r = app.post(
        "/api/v1/me/delete",
        Some(&bo.token),
        &json!({"password": "correct horse battery"}),
    );
    assert!(r.status().is_success(), "{}", r.text().unwrap_or_default());
    assert_eq!(app.game(id, &ada)["forfeited"], json!([1]));
    let r = offer(&app, id, 1, &ada);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    assert_eq!(lobby(&app, &dee).len(), 1);
    // Cy resigns too: Ada alone is left, the game ends, and the offer with it.
    resign(&app, id, &cy);
    assert_eq!(app.game(id, &ada)["status"], "finished");
    assert!(lobby(&app, &dee).is_empty());
    assert!(replacements(&app, id, &ada).is_empty());
    assert_eq!(
        refused(take(&app, id, 1, &dee), "a finished game"),
        (409, "game_not_active".into())
    );
}

/// Twenty accounts take the same seat at once: exactly one gets it, the others are told
/// it is taken, and the seat has one player.
#[test]
fn twenty_takers_at_once_one_gets_the_seat() {
    let app = spawn_app();
    let (id, ada, _bo, _cy) = abandoned(&app);
    assert_eq!(offer(&app, id, 1, &ada).status(), 201);
    let takers: Vec<Player> = (0..20).map(|i| app.player(&format!("Taker{i}"))).collect();
    let barrier = std::sync::Barrier::new(takers.len());
    let answers: Vec<(u16, Value)> = std::thread::scope(|s| {
        let handles: Vec<_> = takers
            .iter()
            .map(|p| {
                let (app, barrier) = (&app, &barrier);
                s.spawn(move || {
                    barrier.wait();
                    let r = take(app, id, 1, p);
                    let status = r.status().as_u16();
                    (status, r.json::<Value>().unwrap_or(Value::Null))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let won: Vec<usize> = (0..answers.len())
        .filter(|&i| answers[i].0 == 200)
        .collect();
    assert_eq!(won.len(), 1, "{answers:?}");
    for (status, body) in answers.iter().filter(|a| a.0 != 200) {
        assert_eq!(*status, 409, "{body}");
        assert_eq!(body["code"], "seat_already_replaced", "{body}");
    }
    let winner = &takers[won[0]];
    let g = app.game(id, &ada);
    assert_eq!(g["seats"][1]["account_id"], winner.id);
    let handed = replacements(&app, id, &ada);
    assert_eq!(handed.len(), 1);
    assert_eq!(handed[0]["replacement_account_id"], winner.id);
    for p in &takers {
        let mine = app.game(id, p);
        let expected = if p.id == winner.id {
            json!(1)
        } else {
            Value::Null
        };
        assert_eq!(mine["your_seat"], expected);
    }
}

/// A seat that forfeited on time is offered like a resigned one; its replacement starts
/// with a fresh clock, and the leaver's record says it lost on time.
#[test]
fn a_seat_forfeited_on_time_is_taken_over_with_a_fresh_clock() {
    use chrono::{Duration, Utc};
    let app = spawn_app();
    let (ada, bo, cy, dee) = (
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Dee"),
    );
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 3,
                "time_control": {"days_per_move": 1}, "timeout_policy": "forfeit"}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    for p in [&bo, &cy] {
        let r = app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&p.token),
            &json!({}),
        );
        assert_eq!(r.status(), 200);
    }
    let g = app.game(id, &ada);
    let late = g["to_act"][0].as_i64().unwrap();
    let players = [&ada, &bo, &cy];
    let sleeper = players
        .iter()
        .find(|p| g["seats"][late as usize]["account_id"] == p.id)
        .unwrap();
    let keeper = players.iter().find(|p| p.id != sleeper.id).unwrap();
    let domain = app.domain();
    assert_eq!(
        domain
            .sweep(Utc::now() + Duration::hours(25))
            .unwrap()
            .timeouts,
        1
    );
    assert_eq!(app.game(id, keeper)["forfeited"], json!([late]));
    assert_eq!(offer(&app, id, late, keeper).status(), 201);
    let r = take(&app, id, late, &dee);
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let g: Value = r.json().unwrap();
    let left = g["seats"][late as usize]["clock_ms_left"].as_i64().unwrap();
    assert!(left > 23 * 3_600_000, "a fresh day: {left}");
    let rel: Value = app
        .get(
            &format!("/api/v1/accounts/{}/reliability", sleeper.id),
            Some(&dee.token),
        )
        .json()
        .unwrap();
    assert_eq!(rel["lost_on_time"], 1, "{rel}");
    assert_eq!(rel["resigned"], 0, "{rel}");
    let rel: Value = app
        .get(
            &format!("/api/v1/accounts/{}/reliability", dee.id),
            Some(&dee.token),
        )
        .json()
        .unwrap();
    assert_eq!(
        rel["lost_on_time"], 0,
        "the replacement did not time out: {rel}"
    );
}

/// The migration's down drops offers not taken, but refuses while a seat was taken over
/// (the record of who keeps the loss), changing nothing.
#[test]
fn the_migration_refuses_to_go_down_while_a_seat_was_taken_over() {
    use diesel::prelude::*;
    let app = spawn_app();
    let (id, ada, _bo, _cy) = abandoned(&app);
    assert_eq!(offer(&app, id, 1, &ada).status(), 201);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    // Only an offer: the down runs (after those of newer migrations), and the up again.
    let mut reverted = Vec::new();
    loop {
        let last = turnpost::store::revert_last(&mut conn).unwrap();
        let done = last.contains("000031_replacement_seats");
        reverted.push(last);
        if done {
            break;
        }
    }
    reverted.reverse();
    assert_eq!(turnpost::store::migrate(&mut conn).unwrap(), reverted);
    assert!(replacements(&app, id, &ada).is_empty(), "the offer went");
    assert_eq!(offer(&app, id, 1, &ada).status(), 201);
    let dee = app.player("Dee");
    assert_eq!(take(&app, id, 1, &dee).status(), 200);
    let e = crate::helpers::revert_until_refused(&mut conn).to_string();
    // What went down before it (newer migrations) comes back up.
    turnpost::store::migrate(&mut conn).unwrap();
    assert!(
        e.contains("migration 2026-11-28-000031_replacement_seats cannot be reverted while data it would destroy exists"),
        "{e}"
    );
    assert_eq!(replacements(&app, id, &ada).len(), 1, "nothing changed");
}
