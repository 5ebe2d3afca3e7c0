//! What a node needs to hold many streams and sweep many clocks
//! (the figures are in `benches/watchers.rs` and `benches/clock_sweep.rs`).

use chrono::{Duration, Utc};
use diesel::prelude::*;
use serde_json::{Value, json};

use crate::helpers::spawn_app;

/// Two sweepers (two nodes' domains on the same database) racing over the same overdue
/// games apply each timeout once; a pass skips the games with nothing due.
#[test]
fn two_sweepers_racing_apply_each_timeout_once() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let games = 60;
    let mut ids = Vec::new();
    for _ in 0..games {
        let r = app.post(
            "/api/v1/games",
            Some(&ada.token),
            &json!({"game_type": "kasino", "players": 2, "options": {},
                    "time_control": {"days_per_move": 1}, "timeout_policy": "forfeit"}),
        );
        assert_eq!(r.status(), 201);
        let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
        let j = app.post(
            &format!("/api/v1/games/{id}/join"),
            Some(&bo.token),
            &json!({}),
        );
        assert_eq!(j.status(), 200);
        ids.push(id);
    }
    let t0 = Utc::now();
    let one = app.domain();
    let two = app.domain();
    let idle = one.sweep(t0 + Duration::hours(1)).unwrap();
    assert_eq!(
        (idle.reminders, idle.timeouts),
        (0, 0),
        "nothing is due yet"
    );
    let late = t0 + Duration::days(3);
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| one.sweep(late).unwrap());
        let b = s.spawn(|| two.sweep(late).unwrap());
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a.timeouts + b.timeouts, games, "{a:?} {b:?}");
    let again = one.sweep(late + Duration::hours(1)).unwrap();
    assert_eq!(again.timeouts, 0, "a timeout applied twice");
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    #[derive(QueryableByName)]
    struct N {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let n = |conn: &mut PgConnection, sql: &str| {
        diesel::sql_query(sql).get_result::<N>(conn).unwrap().n
    };
    assert_eq!(
        n(&mut conn, "SELECT count(*) AS n FROM game_timeouts"),
        games as i64
    );
    assert_eq!(
        n(
            &mut conn,
            "SELECT count(*) AS n FROM games WHERE status = 'active'"
        ),
        0,
        "every game timed out"
    );
    for id in ids {
        assert_ne!(app.game(id, &ada)["status"], "active");
    }
}

/// A node raises its soft open-file limit to the hard one: each stream holds a descriptor.
#[test]
fn the_open_file_limit_is_raised_to_the_hard_one() {
    let got = turnpost::api::stream_limits::raise_open_file_limit();
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes to an rlimit this test owns.
    assert_eq!(unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) }, 0);
    assert_eq!(lim.rlim_cur, lim.rlim_max);
    assert_eq!(got, lim.rlim_cur);
}
