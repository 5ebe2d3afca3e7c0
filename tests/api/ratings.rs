//! Glicko-2 ratings over HTTP: every way a game ends moves ratings once, unrated games move
//! nothing, teams and placings, the leaderboard, bad input. Expected numbers come from the
//! `skillratings` crate itself, fed the results the players' guide describes ("Ratings" in
//! `src/docs/players.md`): each player against every player of another side, in one rating
//! period.

use chrono::{Duration, Utc};
use serde_json::{Value, json};
use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};

use crate::helpers::{Player, TestApp, assert_problem, play_random, spawn_app};

fn ratings_of(app: &TestApp, p: &Player) -> Value {
    let r = app.get(
        &format!("/api/v1/accounts/{}/ratings?per_page=100", p.id),
        None,
    );
    assert_eq!(r.status(), 200);
    r.json().unwrap()
}

/// `p`'s current rating in `game_type`, or the default one with 0 games.
fn rating(app: &TestApp, p: &Player, game_type: &str) -> (Glicko2Rating, i64) {
    let all = ratings_of(app, p);
    match all["ratings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["game_type"] == game_type)
    {
        Some(r) => (
            Glicko2Rating {
                rating: r["rating"].as_f64().unwrap(),
                deviation: r["deviation"].as_f64().unwrap(),
                volatility: r["volatility"].as_f64().unwrap(),
            },
            r["games_played"].as_i64().unwrap(),
        ),
        None => (Glicko2Rating::new(), 0),
    }
}

fn history(app: &TestApp, p: &Player) -> Vec<Value> {
    ratings_of(app, p)["history"].as_array().unwrap().clone()
}

fn close(a: &Glicko2Rating, b: &Glicko2Rating) -> bool {
    (a.rating - b.rating).abs() < 1e-9
        && (a.deviation - b.deviation).abs() < 1e-9
        && (a.volatility - b.volatility).abs() < 1e-9
}

/// What the crate gives each seat of a finished game's `result`, from `before` (by seat):
/// every player of another side is one result (team-mates are on one side).
fn expected(result: &Value, before: &[Glicko2Rating]) -> Vec<Glicko2Rating> {
    let rank_of = |seat: usize| {
        result["ranking"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["seat"] == seat)
            .unwrap()["rank"]
            .as_u64()
            .unwrap()
    };
    let side_of = |seat: usize| {
        result["teams"]
            .as_array()
            .and_then(|ts| {
                ts.iter()
                    .position(|t| t["seats"].as_array().unwrap().contains(&json!(seat)))
            })
            .map_or(100 + seat, |t| t)
    };
    (0..before.len())
        .map(|me| {
            let results: Vec<(Glicko2Rating, Outcomes)> = (0..before.len())
                .filter(|&o| side_of(o) != side_of(me))
                .map(|o| {
                    let outcome = match rank_of(me).cmp(&rank_of(o)) {
                        std::cmp::Ordering::Less => Outcomes::WIN,
                        std::cmp::Ordering::Greater => Outcomes::LOSS,
                        std::cmp::Ordering::Equal => Outcomes::DRAW,
                    };
                    (before[o], outcome)
                })
                .collect();
            glicko2_rating_period(&before[me], &results, &Glicko2Config::new())
        })
        .collect()
}

/// The account in each seat of game `id`, by seat.
fn seated<'a>(app: &TestApp, id: i64, players: &[&'a Player]) -> Vec<&'a Player> {
    let g = app.game(id, players[0]);
    g["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            *players
                .iter()
                .find(|p| s["account_id"] == p.id)
                .expect("seat's player")
        })
        .collect()
}

/// Checks that game `id` (finished) moved every seat's rating as the crate says, from
/// `before` (by seat), and wrote one history row per player for it.
fn assert_rated(
    app: &TestApp,
    id: i64,
    game_type: &str,
    seats: &[&Player],
    before: &[Glicko2Rating],
) {
    let g = app.game(id, seats[0]);
    assert_eq!(g["status"], "finished");
    let want = expected(&g["result"], before);
    for (seat, p) in seats.iter().enumerate() {
        let (now, _) = rating(app, p, game_type);
        assert!(
            close(&now, &want[seat]),
            "seat {seat} of game {id}: {now:?}, expected {:?} (result {})",
            want[seat],
            g["result"]
        );
        let rows: Vec<Value> = history(app, p)
            .into_iter()
            .filter(|h| h["game_id"] == id)
            .collect();
        assert_eq!(rows.len(), 1, "one history row per player and game");
        assert!((rows[0]["rating_before"].as_f64().unwrap() - before[seat].rating).abs() < 1e-9);
        assert!((rows[0]["rating_after"].as_f64().unwrap() - want[seat].rating).abs() < 1e-9);
    }
}

fn resign(app: &TestApp, id: i64, p: &Player) {
    let r = app.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&p.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

#[test]
fn a_full_game_and_a_resignation_move_the_winner_up_and_the_loser_down() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    assert_eq!(app.game(id, &ada)["rated"], true, "rated by default");
    play_random(&app, id, &[&ada, &bo], 3, 5_000);
    let fresh = [Glicko2Rating::new(), Glicko2Rating::new()];
    assert_rated(&app, id, "kasino", &[&ada, &bo], &fresh);
    let g = app.game(id, &ada);
    let winner = g["result"]["ranking"][0]["seat"].as_u64().unwrap() as usize;
    let seats = [&ada, &bo];
    let (w, _) = rating(&app, seats[winner], "kasino");
    let (l, _) = rating(&app, seats[1 - winner], "kasino");
    assert!(w.rating > 1500.0 && l.rating < 1500.0, "{w:?} {l:?}");

    // A second game, ended by a resignation: it counts, and starts from the first's ratings.
    let before = [
        rating(&app, &ada, "kasino").0,
        rating(&app, &bo, "kasino").0,
    ];
    let id2 = app.start_game("kasino", json!({}), &[&ada, &bo]);
    resign(&app, id2, &ada);
    assert_rated(&app, id2, "kasino", &[&ada, &bo], &before);
    assert!(rating(&app, &ada, "kasino").0.rating < before[0].rating);
    assert!(rating(&app, &bo, "kasino").0.rating > before[1].rating);
    for p in [&ada, &bo] {
        let all = ratings_of(&app, p);
        assert_eq!(all["ratings"][0]["games_played"], 2);
        assert_eq!(all["ratings"][0]["provisional"], true);
        let h = all["history"].as_array().unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!(h[0]["game_id"], id2, "newest first");
        assert_eq!(h[1]["game_id"], id);
        assert_eq!(h[0]["rating_before"], h[1]["rating_after"]);
        assert_eq!(all["total"], 2);
        assert!(all.get("email").is_none() && !all.to_string().contains(&p.email));
    }
    // Other game types are untouched.
    assert_eq!(rating(&app, &ada, "sp4x").1, 0);
}

#[test]
fn a_timeout_forfeit_counts_once() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "options": {},
                "time_control": {"days_per_move": 1}, "timeout_policy": "forfeit"}),
    );
    assert_eq!(r.status(), 201);
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    assert_eq!(
        app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&bo.token),
            &json!({})
        )
        .status(),
        200
    );
    let seats = seated(&app, id, &[&ada, &bo]);
    let late = app.game(id, &ada)["to_act"][0].as_u64().unwrap() as usize;
    let domain = app.domain();
    let now = Utc::now();
    assert_eq!(domain.sweep(now + Duration::hours(25)).unwrap().timeouts, 1);
    let fresh = [Glicko2Rating::new(), Glicko2Rating::new()];
    assert_rated(&app, id, "kasino", &seats, &fresh);
    assert!(
        rating(&app, seats[late], "kasino").0.rating < 1500.0,
        "the late seat loses"
    );
    assert!(rating(&app, seats[1 - late], "kasino").0.rating > 1500.0);
    // Sweeping again changes nothing.
    domain.sweep(now + Duration::days(30)).unwrap();
    for p in [&ada, &bo] {
        assert_eq!(history(&app, p).len(), 1);
        assert_eq!(rating(&app, p, "kasino").1, 1);
    }
}

#[test]
fn an_unrated_game_changes_nothing() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "kasino", "players": 2, "rated": false}),
    );
    assert_eq!(r.status(), 201);
    let g: Value = r.json().unwrap();
    assert_eq!(g["rated"], false);
    let id = g["id"].as_i64().unwrap();
    app.post(
        &format!("/api/v1/games/{id}/join"),
        Some(&bo.token),
        &json!({}),
    );
    resign(&app, id, &bo);
    assert_eq!(app.game(id, &ada)["status"], "finished");
    assert_eq!(app.game(id, &ada)["rated"], false);
    for p in [&ada, &bo] {
        let all = ratings_of(&app, p);
        assert_eq!(all["ratings"], json!([]));
        assert_eq!(all["history"], json!([]));
        assert_eq!(all["total"], 0);
    }
    let board: Value = app
        .get("/api/v1/game-types/kasino/leaderboard", None)
        .json()
        .unwrap();
    assert_eq!(board["total"], 0);
    assert_eq!(board["entries"], json!([]));
}

#[test]
fn four_player_kasino_in_teams_rates_team_mates_together() {
    let app = spawn_app();
    let ps = [
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Di"),
    ];
    let players: Vec<&Player> = ps.iter().collect();
    let id = app.start_game("kasino", json!({"teams": true}), &players);
    play_random(&app, id, &players, 21, 10_000);
    let seats = seated(&app, id, &players);
    let fresh = [Glicko2Rating::new(); 4];
    assert_rated(&app, id, "kasino", &seats, &fresh);
    let g = app.game(id, &ps[0]);
    let teams = g["result"]["teams"].as_array().unwrap().clone();
    assert_eq!(teams.len(), 2, "{}", g["result"]);
    let after: Vec<f64> = seats
        .iter()
        .map(|p| rating(&app, p, "kasino").0.rating)
        .collect();
    for t in &teams {
        let members: Vec<usize> = t["seats"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as usize)
            .collect();
        assert!(
            (after[members[0]] - after[members[1]]).abs() < 1e-9,
            "team-mates share the team's result"
        );
        let won = t["rank"]
            == teams
                .iter()
                .map(|t| t["rank"].as_u64().unwrap())
                .min()
                .unwrap();
        let tied = teams[0]["rank"] == teams[1]["rank"];
        if !tied {
            assert_eq!(after[members[0]] > 1500.0, won, "{}", g["result"]);
        }
    }
}

#[test]
fn three_player_placings_rate_everyone_by_place() {
    let app = spawn_app();
    let ps = [app.player("Ada"), app.player("Bo"), app.player("Cy")];
    let players: Vec<&Player> = ps.iter().collect();
    let id = app.start_game("kasino", json!({}), &players);
    play_random(&app, id, &players, 9, 10_000);
    let seats = seated(&app, id, &players);
    assert_rated(&app, id, "kasino", &seats, &[Glicko2Rating::new(); 3]);
    let g = app.game(id, &ps[0]);
    let ranking = g["result"]["ranking"].as_array().unwrap().clone();
    // A better place never ends lower than a worse one (all started equal).
    for a in &ranking {
        for b in &ranking {
            let (ra, rb) = (a["rank"].as_u64().unwrap(), b["rank"].as_u64().unwrap());
            let sa = rating(&app, seats[a["seat"].as_u64().unwrap() as usize], "kasino").0;
            let sb = rating(&app, seats[b["seat"].as_u64().unwrap() as usize], "kasino").0;
            if ra < rb {
                assert!(sa.rating > sb.rating, "{}", g["result"]);
            }
        }
    }
    let (top, _) = rating(
        &app,
        seats[ranking[0]["seat"].as_u64().unwrap() as usize],
        "kasino",
    );
    assert!(top.rating > 1500.0);
}

#[test]
fn a_forfeit_in_a_three_player_game_ranks_the_seat_last_in_the_ratings() {
    let app = spawn_app();
    let ps = [app.player("Ada"), app.player("Bo"), app.player("Cy")];
    let players: Vec<&Player> = ps.iter().collect();
    let id = app.start_game("kasino", json!({}), &players);
    resign(&app, id, &ps[2]);
    // The others play on; a bot plays the resigned seat's moves.
    play_random(&app, id, &players[..2], 4, 10_000);
    let seats = seated(&app, id, &players);
    assert_rated(&app, id, "kasino", &seats, &[Glicko2Rating::new(); 3]);
    let (cy, games) = rating(&app, &ps[2], "kasino");
    assert_eq!(games, 1);
    assert!(cy.rating < 1500.0, "the resigned seat lost to both");
    for p in &ps[..2] {
        assert!(rating(&app, p, "kasino").0.rating > cy.rating);
    }
}

#[test]
fn the_leaderboard_is_in_rating_order_and_paged() {
    let app = spawn_app();
    let (ada, bo, cy) = (app.player("Ada"), app.player("Bo"), app.player("Cy"));
    // Ada beats Bo and Cy; Bo beats Cy.
    for (winner, loser) in [(&ada, &bo), (&ada, &cy), (&bo, &cy)] {
        let id = app.start_game("kasino", json!({}), &[winner, loser]);
        resign(&app, id, loser);
    }
    let page = |n: u32| -> (Value, Option<String>) {
        let r = app.get(
            &format!("/api/v1/game-types/kasino/leaderboard?page={n}&per_page=1"),
            None,
        );
        assert_eq!(r.status(), 200);
        let link = r
            .headers()
            .get("link")
            .map(|v| v.to_str().unwrap().to_string());
        (r.json().unwrap(), link)
    };
    let mut order = Vec::new();
    let mut last = f64::INFINITY;
    for n in 1..=3 {
        let (b, link) = page(n);
        assert_eq!(b["total"], 3);
        assert_eq!(b["page"], n);
        let e = &b["entries"][0];
        assert_eq!(e["position"], n);
        assert_eq!(e["games_played"], 2);
        assert_eq!(e["provisional"], true);
        assert!(e.get("email").is_none());
        let r = e["rating"].as_f64().unwrap();
        assert!(r < last, "highest rating first");
        last = r;
        order.push(e["account_id"].as_i64().unwrap());
        if n < 3 {
            let next = format!(
                "/api/v1/game-types/kasino/leaderboard?page={}&per_page=1",
                n + 1
            );
            assert_eq!(b["next"], next.as_str());
            assert_eq!(link, Some(format!("<{next}>; rel=\"next\"")));
        } else {
            assert_eq!(b["next"], Value::Null);
            assert_eq!(link, None);
        }
    }
    assert_eq!(order, vec![ada.id, bo.id, cy.id]);
    let (past, _) = page(4);
    assert_eq!(past["entries"], json!([]));
    let whole: Value = app
        .get("/api/v1/game-types/kasino/leaderboard", None)
        .json()
        .unwrap();
    assert_eq!(whole["entries"][0]["name"], "Ada");
    assert!(!whole.to_string().contains("@example.org"));
    let other: Value = app
        .get("/api/v1/game-types/sp4x/leaderboard", None)
        .json()
        .unwrap();
    assert_eq!(other["total"], 0);
    // History is paged too.
    let r = app.get(
        &format!("/api/v1/accounts/{}/ratings?per_page=1", cy.id),
        None,
    );
    let h: Value = r.json().unwrap();
    assert_eq!(h["total"], 2);
    assert_eq!(h["history"].as_array().unwrap().len(), 1);
    assert_eq!(
        h["next"],
        format!("/api/v1/accounts/{}/ratings?page=2&per_page=1", cy.id).as_str()
    );
}

#[test]
fn bad_rating_requests_are_problems() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let cases: Vec<(String, u16, &str)> = vec![
        (
            "/api/v1/game-types/chess/leaderboard".into(),
            404,
            "not_found",
        ),
        (
            "/api/v1/game-types/%00/leaderboard".into(),
            404,
            "not_found",
        ),
        (
            "/api/v1/game-types/kasino/leaderboard?page=0".into(),
            400,
            "invalid_query",
        ),
        (
            "/api/v1/game-types/kasino/leaderboard?page=1000001".into(),
            400,
            "invalid_query",
        ),
        (
            "/api/v1/game-types/kasino/leaderboard?page=99999999999999999999".into(),
            400,
            "invalid_query",
        ),
        (
            "/api/v1/game-types/kasino/leaderboard?per_page=101".into(),
            400,
            "invalid_query",
        ),
        (
            "/api/v1/game-types/kasino/leaderboard?per_page=0".into(),
            400,
            "invalid_query",
        ),
        (
            "/api/v1/game-types/kasino/leaderboard?page=abc".into(),
            400,
            "invalid_query",
        ),
        (
            "/api/v1/game-types/kasino/leaderboard?sort=name".into(),
            400,
            "invalid_query",
        ),
        (
            format!("/api/v1/accounts/{}/ratings?page=-3", ada.id),
            400,
            "invalid_query",
        ),
        (
            "/api/v1/accounts/987654321/ratings".into(),
            404,
            "not_found",
        ),
        ("/api/v1/accounts/-1/ratings".into(), 404, "not_found"),
    ];
    for (path, status, code) in cases {
        let (s, p) = assert_problem(app.get(&path, None), &path);
        assert_eq!((s, p["code"].as_str().unwrap()), (status, code), "{path}");
    }
    for path in [
        "/api/v1/accounts/abc/ratings",
        "/api/v1/accounts/99999999999999999999/ratings",
    ] {
        assert_problem(app.get(path, None), path);
    }
    // `rated` takes a boolean and nothing else.
    for rated in [json!("no"), json!(0), json!([])] {
        let r = app.post(
            "/api/v1/games",
            Some(&ada.token),
            &json!({"game_type": "kasino", "players": 2, "rated": rated}),
        );
        let (s, p) = assert_problem(r, "rated");
        assert_eq!((s, p["code"].as_str().unwrap()), (422, "invalid_body"));
    }
    let mine: Value = app.get("/api/v1/games", Some(&ada.token)).json().unwrap();
    assert_eq!(mine["total"], 0, "nothing was created");
}
