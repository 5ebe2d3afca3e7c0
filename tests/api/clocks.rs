//! Clocks measured in days, driven by an injected time: the tests call `sweep(now)` with
//! chosen times instead of sleeping. Reminders at 50 % and 90 %, vacations freezing clocks,
//! forfeit and random-move timeouts, exactly once even when the sweeper restarts.

use chrono::{Duration, Utc};
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, forced_moves, play_random, spawn_app};

fn clocked_game(app: &TestApp, players: &[&Player], days: i64, policy: &str) -> i64 {
    let r = app.post(
        "/api/v1/games",
        Some(&players[0].token),
        &json!({"game_type": "kasino", "players": players.len(), "options": {},
                "time_control": {"days_per_move": days}, "timeout_policy": policy}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    for p in &players[1..] {
        assert_eq!(
            app.post(
                &format!("/api/v1/games/{id}/join"),
                Some(&p.token),
                &json!({})
            )
            .status(),
            200
        );
    }
    id
}

fn to_act(g: &Value) -> usize {
    g["to_act"][0].as_u64().unwrap() as usize
}

fn log(app: &TestApp, id: i64, p: &Player) -> Vec<Value> {
    app.get(
        &format!("/api/v1/games/{id}/log?limit=1000"),
        Some(&p.token),
    )
    .json::<Value>()
    .unwrap()
    .as_array()
    .unwrap()
    .clone()
}

#[test]
fn reminders_at_half_and_ninety_percent_respecting_settings() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = clocked_game(&app, &[&ada, &bo], 2, "forfeit");
    let t0 = Utc::now();
    let domain = app.domain();
    let g = app.game(id, &ada);
    assert_eq!(
        g["time_control"],
        json!({"days_per_move": 2, "max_days": 6})
    );
    let seat = to_act(&g);
    assert_eq!(g["seats"][seat]["clock_running"], true);
    assert!(g["seats"][seat]["clock_ms_left"].as_i64().unwrap() > 47 * 3_600_000);
    assert_eq!(g["seats"][1 - seat]["clock_running"], false);
    let p = [&ada, &bo][seat];

    let sweep = |h: i64| domain.sweep(t0 + Duration::hours(h)).unwrap();
    assert_eq!(sweep(23).reminders, 0, "less than half the time is used");
    assert_eq!(sweep(25).reminders, 1, "half the time is used");
    assert_eq!(sweep(30).reminders, 0, "each reminder once");
    assert_eq!(sweep(44).reminders, 1, "90 % of the time is used");
    let s = sweep(47);
    assert_eq!((s.reminders, s.timeouts), (0, 0));
    let subject = format!("[Turnpost] Kasino #{id}: reminder: your turn");
    let mails = app.wait_for_mails("two reminders", |m| {
        m.iter().filter(|x| x.subject == subject).count() == 2
    });
    let reminders: Vec<_> = mails.iter().filter(|x| x.subject == subject).collect();
    assert!(
        reminders
            .iter()
            .all(|m| m.to == p.email && m.text.contains("Your choices:"))
    );
    assert!(
        reminders
            .iter()
            .any(|m| m.text.contains("Reminder: half of your time is used"))
    );
    assert!(
        reminders
            .iter()
            .any(|m| m.text.contains("Reminder: 90 % of your time is used"))
    );
    assert!(
        reminders
            .iter()
            .all(|m| m.reply_to.starts_with(&format!("play+{id}-{seat}-0-"))),
        "a reminder can be answered"
    );

    // Reminders off, or quiet hours in the player's time zone, hold them back.
    let carl = app.player("Carl");
    let dan = app.player("Dan");
    let id2 = clocked_game(&app, &[&carl, &dan], 2, "forfeit");
    let t1 = Utc::now();
    let g2 = app.game(id2, &carl);
    let q = [&carl, &dan][to_act(&g2)];
    let patch = |body: Value| {
        app.client
            .patch(app.url("/api/v1/me"))
            .bearer_auth(&q.token)
            .json(&body)
            .send()
            .unwrap()
    };
    let r = patch(json!({"quiet_hours": [0, 24]}));
    assert_eq!(
        (
            r.status().as_u16(),
            r.json::<Value>().unwrap()["code"].clone()
        ),
        (422, json!("invalid_quiet_hours"))
    );
    let r = patch(json!({"time_zone": "Mars/Olympus"}));
    assert_eq!(
        (
            r.status().as_u16(),
            r.json::<Value>().unwrap()["code"].clone()
        ),
        (422, json!("invalid_time_zone"))
    );
    assert_eq!(patch(json!({"reminders": false})).status(), 200);
    // (Game 1 had both its reminders; from here on only game 2 can remind.)
    assert_eq!(
        domain.sweep(t1 + Duration::hours(25)).unwrap().reminders,
        0,
        "reminders are off"
    );
    // Quiet hours in Tokyo time (UTC+9, no daylight saving): the hour of t1 + 30 h there.
    let tokyo_hour = |t: chrono::DateTime<Utc>| {
        (t + Duration::hours(9))
            .format("%H")
            .to_string()
            .parse::<i64>()
            .unwrap()
    };
    let quiet = t1 + Duration::hours(30);
    let h = tokyo_hour(quiet);
    let r = patch(
        json!({"reminders": true, "time_zone": "Asia/Tokyo", "quiet_hours": [h, (h + 1) % 24]}),
    );
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().unwrap()["time_zone"], "Asia/Tokyo");
    assert_eq!(
        domain.sweep(quiet).unwrap().reminders,
        0,
        "quiet hours hold it back"
    );
    assert_eq!(
        domain.sweep(quiet + Duration::hours(1)).unwrap().reminders,
        1,
        "sent once the quiet hours are over"
    );
}

/// A time zone is one of the names openapi.yaml lists (`TimeZone`), and only those: a name
/// the database knows but the list leaves out (`posix/...`, `localtime`) is refused like an
/// unknown one, so that the contract says exactly what is accepted.
#[test]
fn time_zones_are_the_listed_names_and_the_database_knows_every_one() {
    use diesel::prelude::*;
    let app = spawn_app();
    let ada = app.player("Ada");
    let patch = |zone: &str| {
        let r = app
            .client
            .patch(app.url("/api/v1/me"))
            .bearer_auth(&ada.token)
            .json(&json!({ "time_zone": zone }))
            .send()
            .unwrap();
        let status = r.status().as_u16();
        (status, r.json::<Value>().unwrap())
    };
    for zone in ["Europe/Copenhagen", "Asia/Calcutta", "Etc/GMT+5", "UTC"] {
        let (status, body) = patch(zone);
        assert_eq!((status, &body["time_zone"]), (200, &json!(zone)), "{body}");
    }
    for zone in [
        "posix/Europe/Copenhagen",
        "localtime",
        "",
        "europe/copenhagen",
    ] {
        let (status, body) = patch(zone);
        assert_eq!(
            (status, &body["code"]),
            (422, &json!("invalid_time_zone")),
            "{zone:?}: {body}"
        );
    }
    // Quiet hours and digests are worked out by the database: it knows every listed name.
    #[derive(QueryableByName)]
    struct Name {
        #[diesel(sql_type = diesel::sql_types::Text)]
        name: String,
    }
    let known: std::collections::HashSet<String> =
        diesel::sql_query("SELECT name FROM pg_timezone_names")
            .load::<Name>(&mut PgConnection::establish(&app.database_url).unwrap())
            .unwrap()
            .into_iter()
            .map(|n| n.name)
            .collect();
    let missing: Vec<&&str> = turnpost::domain::time_zones::TIME_ZONES
        .iter()
        .filter(|z| !known.contains(**z))
        .collect();
    assert!(missing.is_empty(), "unknown to PostgreSQL: {missing:?}");
}

#[test]
fn vacation_freezes_clocks_and_a_forfeit_timeout_ends_the_game() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = clocked_game(&app, &[&ada, &bo], 1, "forfeit");
    // A control game between others, with the same clock.
    let carl = app.player("Carl");
    let dan = app.player("Dan");
    let control = clocked_game(&app, &[&carl, &dan], 1, "forfeit");
    let t0 = Utc::now();
    let g = app.game(id, &ada);
    let seat = to_act(&g);
    let (p, q) = if seat == 0 { (&ada, &bo) } else { (&bo, &ada) };

    // Bad vacations change nothing.
    let vac = |who: &Player, from: chrono::DateTime<Utc>, until: chrono::DateTime<Utc>| {
        app.post(
            "/api/v1/me/vacation",
            Some(&who.token),
            &json!({"from": from, "until": until}),
        )
    };
    let r = vac(p, t0 + Duration::days(3), t0 + Duration::days(1));
    assert_eq!(
        (
            r.status().as_u16(),
            r.json::<Value>().unwrap()["code"].clone()
        ),
        (422, json!("invalid_vacation"))
    );
    let r = vac(p, t0 - Duration::days(3), t0 + Duration::days(1));
    assert_eq!(r.status(), 422);
    // 62 days: whichever calendar years they fall in, one of them gets more than the 30
    // allowed (35 days failed to exceed it when they straddled New Year).
    let r = vac(p, t0 + Duration::days(10), t0 + Duration::days(72));
    assert_eq!(
        (
            r.status().as_u16(),
            r.json::<Value>().unwrap()["code"].clone()
        ),
        (409, json!("vacation_allowance_exceeded"))
    );
    // Three days off, starting now.
    let r = vac(p, t0, t0 + Duration::days(3));
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let v: Value = r.json().unwrap();
    assert!(v["days_left_this_year"].as_i64().unwrap() >= 26);
    let r = vac(p, t0 + Duration::days(2), t0 + Duration::days(4));
    assert_eq!(
        (
            r.status().as_u16(),
            r.json::<Value>().unwrap()["code"].clone()
        ),
        (409, json!("vacation_overlap"))
    );
    // The opponent sees it.
    let seen = app.game(id, q);
    assert!(
        seen["seats"][seat]["on_vacation_until"].is_string(),
        "{}",
        seen["seats"]
    );

    // Two days on: the control game timed out, the vacationer's clock stood still.
    let domain = app.domain();
    let report = domain.sweep(t0 + Duration::days(2)).unwrap();
    assert_eq!(report.timeouts, 1, "only the control game times out");
    assert_eq!(app.game(control, &carl)["status"], "finished");
    let g = app.game(id, q);
    assert_eq!(g["status"], "active");
    assert_eq!(g["version"], 0);

    // The vacationer moves anyway; the opponent's email says who is on vacation.
    let mine = app.game(id, p);
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"expected_version": 0, "action": mine["legal_actions"][0]}),
    );
    assert_eq!(r.status(), 200);
    let after: Value = r.json().unwrap();
    // Nothing used, one day added: two days on the clock (the cap is three).
    let left = after["seats"][seat]["clock_ms_left"].as_i64().unwrap();
    assert!(left > 47 * 3_600_000 && left <= 48 * 3_600_000, "{left}");
    let turn = format!("[Turnpost] Kasino #{id}: your turn");
    let mails = app.wait_for_mails("the opponent's turn email", |m| {
        m.iter().any(|x| x.subject == turn && x.to == q.email)
    });
    let m = mails
        .iter()
        .find(|x| x.subject == turn && x.to == q.email)
        .unwrap();
    assert!(m.text.contains("on vacation until"), "{}", m.text);

    // The opponent lets their day run out: they forfeit, the game ends, once.
    let t1 = Utc::now();
    assert_eq!(domain.sweep(t1 + Duration::hours(23)).unwrap().timeouts, 0);
    assert_eq!(domain.sweep(t1 + Duration::hours(25)).unwrap().timeouts, 1);
    let g = app.game(id, p);
    assert_eq!(g["status"], "finished");
    assert_eq!(g["result"]["ranking"][0]["seat"], seat);
    assert_eq!(g["result"]["ranking"][1]["seat"], 1 - seat);
    assert!(
        g["result"]["summary"]
            .as_str()
            .unwrap()
            .contains("ran out of time")
    );
    // Nothing more, a month on (within the outbox's retention of 30 days).
    assert_eq!(
        domain.sweep(t1 + Duration::days(29)).unwrap(),
        Default::default()
    );
    let over = format!("[Turnpost] Kasino #{id}: game over");
    app.wait_for_mails("game over", |m| {
        m.iter().filter(|x| x.subject == over).count() == 2
    });
}

#[test]
fn random_move_timeouts_run_exactly_once_across_restarts_and_racing_sweepers() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = clocked_game(&app, &[&ada, &bo], 1, "random_move");
    let t0 = Utc::now();
    let seat = to_act(&app.game(id, &ada));
    let now = t0 + Duration::hours(25);

    // Two sweepers race on the same timeout: one applies it.
    let (a, b) = (app.domain(), app.domain());
    let ta = std::thread::spawn(move || a.sweep(now).unwrap().timeouts);
    let tb = std::thread::spawn(move || b.sweep(now).unwrap().timeouts);
    assert_eq!(ta.join().unwrap() + tb.join().unwrap(), 1);
    // The bot's move for the seat, then any moves that played themselves (a Kasino seat
    // with a single choice): one timeout, however many entries.
    let timed_out = |entries: &[Value]| {
        entries
            .iter()
            .filter(|e| {
                e["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("[bot] (time ran out)"))
            })
            .count()
    };
    let g = app.game(id, &ada);
    let entries = log(&app, id, &ada);
    assert_eq!(g["status"], "active");
    assert_eq!(timed_out(&entries), 1, "{entries:?}");
    assert_eq!(entries.len(), 1 + forced_moves(&entries), "{entries:?}");
    assert_eq!(g["version"], entries.len());
    assert!(
        entries[0]["text"]
            .as_str()
            .unwrap()
            .starts_with("[bot] (time ran out)"),
        "{}",
        entries[0]
    );
    assert_eq!(entries[0]["seat"], seat);
    let after_first = entries.len();

    // A restarted sweeper (a fresh domain) at the same moment and later changes nothing
    // more: the clock of the seat now to act started at `now` (also when the turn came
    // straight back to the seat that timed out: its clock starts again).
    let restarted = app.domain();
    assert_eq!(restarted.sweep(now).unwrap().timeouts, 0);
    assert_eq!(
        restarted.sweep(now + Duration::hours(23)).unwrap().timeouts,
        0
    );
    assert_eq!(app.game(id, &ada)["version"], after_first);
    // The next timeout is its own, once.
    assert_eq!(
        restarted.sweep(now + Duration::hours(25)).unwrap().timeouts,
        1
    );
    assert_eq!(
        app.domain()
            .sweep(now + Duration::hours(25))
            .unwrap()
            .timeouts,
        0
    );
    let entries = log(&app, id, &ada);
    assert_eq!(timed_out(&entries), 2, "{entries:?}");
    assert_eq!(entries.len(), 2 + forced_moves(&entries), "{entries:?}");
    assert_eq!(app.game(id, &ada)["version"], entries.len());
    let (ok, out) = crate::helpers::run_verify(&app);
    assert!(ok, "{out}");
}

#[test]
fn a_forfeit_with_three_players_hands_the_seat_to_a_bot() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let cy = app.player("Cy");
    let players = [&ada, &bo, &cy];
    let id = clocked_game(&app, &players, 1, "forfeit");
    let t0 = Utc::now();
    let seat = to_act(&app.game(id, &ada));
    assert_eq!(
        app.domain()
            .sweep(t0 + Duration::hours(25))
            .unwrap()
            .timeouts,
        1
    );
    let g = app.game(id, &ada);
    assert_eq!(g["status"], "active", "two players are left");
    assert_eq!(g["forfeited"], json!([seat]));
    assert!(
        !g["to_act"].as_array().unwrap().contains(&json!(seat)),
        "the bot moved at once"
    );
    let others: Vec<&Player> = players
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != seat)
        .map(|(_, p)| *p)
        .collect();
    // The others play on; the bot answers for the forfeited seat whenever it is its turn.
    play_random(&app, id, &others, 5, 5_000);
    let g = app.game(id, &ada);
    assert_eq!(g["status"], "finished");
    let ranking = g["result"]["ranking"].as_array().unwrap();
    assert_eq!(
        ranking.last().unwrap()["seat"],
        seat,
        "the forfeited seat ranks last"
    );
    let bot_moves = log(&app, id, &ada)
        .iter()
        .filter(|e| e["seat"] == seat)
        .count();
    assert!(bot_moves > 0);
    assert!(
        log(&app, id, &ada)
            .iter()
            .filter(|e| e["seat"] == seat)
            .all(|e| e["text"].as_str().unwrap().starts_with("[bot] "))
    );
    let (ok, out) = crate::helpers::run_verify(&app);
    assert!(ok, "{out}");
}

#[test]
fn resign_and_nudge_over_http() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let dee = app.player("Dee");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let seat = to_act(&app.game(id, &ada));
    let (p, q) = if seat == 0 { (&ada, &bo) } else { (&bo, &ada) };
    let nudge = |who: &Player| {
        app.post(
            &format!("/api/v1/games/{id}/nudge"),
            Some(&who.token),
            &json!({}),
        )
    };
    let code = |r: reqwest::blocking::Response| {
        (
            r.status().as_u16(),
            r.json::<Value>().unwrap()["code"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    };
    assert_eq!(code(nudge(p)), (409, "your_move".into()));
    assert_eq!(code(nudge(&dee)), (403, "not_a_player".into()));
    assert_eq!(nudge(q).status(), 202);
    assert_eq!(code(nudge(q)), (409, "nudge_too_soon".into()));
    let subject = format!("[Turnpost] Kasino #{id}: nudge: your turn");
    app.wait_for_mails("the nudge", |m| {
        m.iter().any(|x| x.subject == subject && x.to == p.email)
    });

    let resign = |who: &Player| {
        app.post(
            &format!("/api/v1/games/{id}/resign"),
            Some(&who.token),
            &json!({}),
        )
    };
    assert_eq!(code(resign(&dee)), (403, "not_a_player".into()));
    let r = resign(q);
    assert_eq!(r.status(), 200);
    let g: Value = r.json().unwrap();
    assert_eq!(g["status"], "finished");
    assert_eq!(g["result"]["ranking"][0]["seat"], seat);
    assert_eq!(g["legal_actions"], json!([]));
    assert_eq!(code(resign(p)), (409, "game_not_active".into()));
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"expected_version": 0, "action": {"type": "clear_table"}}),
    );
    assert_eq!(code(r), (409, "game_not_active".into()));
    // Bad clock options are refused at creation.
    for (tc, policy, want) in [
        (
            json!({"days_per_move": 4}),
            json!("forfeit"),
            "invalid_time_control",
        ),
        (
            json!({"days_per_move": 3, "max_days": 2}),
            json!("forfeit"),
            "invalid_time_control",
        ),
        (
            json!({"days_per_move": 3}),
            json!("coin_flip"),
            // The schema's enum refuses it while the body is read.
            "invalid_body",
        ),
    ] {
        let r = app.post(
            "/api/v1/games",
            Some(&ada.token),
            &json!({"game_type": "kasino", "players": 2, "time_control": tc, "timeout_policy": policy}),
        );
        assert_eq!(code(r), (422, want.into()));
    }
}

#[test]
fn the_daily_digest_replaces_turn_emails_and_comes_once_a_day() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let patch = |p: &Player, body: Value| {
        app.client
            .patch(app.url("/api/v1/me"))
            .bearer_auth(&p.token)
            .json(&body)
            .send()
            .unwrap()
    };
    let r = patch(&ada, json!({"email_notifications": "hourly"}));
    assert_eq!(
        (
            r.status().as_u16(),
            r.json::<Value>().unwrap()["code"].clone()
        ),
        (422, json!("invalid_body"))
    );
    let r = patch(&ada, json!({"digest_hour": 24}));
    assert_eq!(r.status(), 422);
    for p in [&ada, &bo] {
        let r = patch(
            p,
            json!({"email_notifications": "daily_digest", "digest_hour": 10, "time_zone": "UTC"}),
        );
        assert_eq!(r.status(), 200);
        let me: Value = r.json().unwrap();
        assert_eq!(
            (
                me["email_mode"].as_str(),
                me["email_notifications"].as_bool()
            ),
            (Some("daily_digest"), Some(true))
        );
    }
    let g1 = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let g2 = app.start_game("kasino", json!({}), &[&bo, &ada]);
    let awaited: std::collections::BTreeSet<i64> = [g1, g2]
        .iter()
        .map(|&id| {
            let g = app.game(id, &ada);
            g["seats"][to_act(&g)]["account_id"].as_i64().unwrap()
        })
        .collect();
    let tomorrow = (Utc::now() + Duration::days(1)).date_naive();
    let at = tomorrow.and_hms_opt(10, 5, 0).unwrap().and_utc();
    let domain = app.domain();
    assert_eq!(
        domain.sweep(at - Duration::hours(1)).unwrap().digests,
        0,
        "before the chosen hour"
    );
    assert_eq!(domain.sweep(at).unwrap().digests, awaited.len());
    assert_eq!(
        domain.sweep(at + Duration::hours(3)).unwrap().digests,
        0,
        "once a day"
    );
    assert_eq!(
        app.domain().sweep(at + Duration::hours(4)).unwrap().digests,
        0,
        "once a day, after a restart too"
    );

    let subject_prefix = "[Turnpost] daily digest: ";
    let mails = app.wait_for_mails("digests", |m| {
        m.iter()
            .filter(|x| x.subject.starts_with(subject_prefix))
            .count()
            == awaited.len()
    });
    assert!(
        mails.iter().all(|m| !m.subject.ends_with(": your turn")),
        "no turn emails for digest readers"
    );
    let who = if awaited.contains(&ada.id) { &ada } else { &bo };
    let digest = mails
        .iter()
        .find(|m| m.subject.starts_with(subject_prefix) && m.to == who.email)
        .unwrap();
    assert!(digest.text.contains("Your choices:"), "{}", digest.text);
    // Its reply addresses work like a turn email's.
    let address = digest
        .text
        .lines()
        .find_map(|l| l.strip_prefix("To play by email, write to "))
        .unwrap()
        .trim()
        .to_string();
    let id: i64 = address
        .trim_start_matches("play+")
        .split('-')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!([g1, g2].contains(&id));
    let raw = crate::email_play::reply(
        &who.email,
        &address,
        "digest",
        "1",
        &digest.text,
        "digest-reply@x.org",
    );
    let r: Value = app.inbound(&raw).json().unwrap();
    assert_eq!(r["outcome"], "applied", "{r}");
    assert_eq!(app.game(id, who)["version"], 1);
    // The next day brings the next digest, if a game still waits.
    let _ = domain.sweep(at + Duration::days(1)).unwrap();
}
