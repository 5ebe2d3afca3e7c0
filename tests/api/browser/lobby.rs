//! The lobby and the player's page by clicking: the reliability record beside
//! a game's creator and on the player's page, a game created through the form with a
//! minimum reliability and rating (and the refusal a player below them sees on Join), the
//! lobby's filters, and the cap on games in progress.

use fantoccini::Client;
use serde_json::{Value, json};

use super::{Driver, axe, css, js, remember, runtime, screenshot, type_into, wait_for};
use crate::helpers::{Player, TestApp, spawn_app, spawn_app_with};

/// Opens the lobby as the holder of `token`.
async fn open_lobby(c: &Client, app: &TestApp, token: &str) {
    remember(c, app, token).await;
    c.goto(&app.url("/#/lobby")).await.expect("lobby");
    c.refresh().await.expect("reload");
    css(c, "#open-games").await;
    css(c, "#lobby-filters").await;
}

/// Waits until the lobby lists exactly the games `ids` (in any order).
async fn lists(c: &Client, what: &str, ids: &[i64]) {
    let mut want: Vec<i64> = ids.to_vec();
    want.sort_unstable();
    let want = json!(
        want.iter()
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    wait_for(
        c,
        what,
        &format!(
            "return [...document.querySelectorAll('#lobby-results li[data-game]')] \
             .map((li) => Number(li.dataset.game)).sort((a, b) => a - b).join(',') === {want};"
        ),
    )
    .await;
}

fn create(app: &TestApp, p: &Player, body: Value) -> i64 {
    let r = app.post("/api/v1/games", Some(&p.token), &body);
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    r.json::<Value>().expect("json")["id"].as_i64().expect("id")
}

/// The page fits a phone's width: nothing sticks out sideways.
async fn fits_the_width(c: &Client, what: &str) {
    let v = js(
        c,
        "return [document.documentElement.scrollWidth, window.innerWidth, \
         [...document.querySelectorAll('main button, main input, main select')] \
           .filter((e) => e.offsetParent && e.getBoundingClientRect().right > window.innerWidth + 1) \
           .map((e) => e.outerHTML.slice(0, 80))];",
    )
    .await;
    assert!(
        v[0].as_i64() <= v[1].as_i64() && v[2] == json!([]),
        "{what}: wider than the phone: {v}"
    );
}

#[test]
fn reliability_is_shown_and_a_player_below_a_games_requirements_is_told_why_on_join() {
    let app = spawn_app();
    let (ada, bo, carl) = (app.player("Ada"), app.player("Bo"), app.player("Carl"));
    // Bo resigns a game: he played none of his ended games to the end.
    let g = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let r = app.post(
        &format!("/api/v1/games/{g}/resign"),
        Some(&bo.token),
        &json!({}),
    );
    assert!(r.status().is_success(), "{}", r.text().unwrap_or_default());
    let share = |p: &Player| -> Value {
        app.get(&format!("/api/v1/accounts/{}/reliability", p.id), None)
            .json::<Value>()
            .expect("json")["share"]
            .clone()
    };
    let (ada_share, bo_share) = (share(&ada), share(&bo));
    assert_eq!(bo_share, json!(0));
    assert!(ada_share.as_i64().is_some_and(|s| s >= 60), "{ada_share}");

    runtime().block_on(async {
        let mut driver = Driver::start();
        // Ada asks, in the form, for 60 % reliability and a rating of 1600.
        let a = driver.browser().await;
        open_lobby(&a, &app, &ada.token).await;
        css(&a, "form[aria-labelledby=new-game] select[name=game_type]")
            .await
            .select_by_value("kasino")
            .await
            .expect("kasino");
        css(&a, "form[aria-labelledby=new-game] select[name=players]")
            .await
            .select_by_value("3")
            .await
            .expect("three players");
        type_into(&a, "input[name=min_reliability]", "60").await;
        type_into(&a, "input[name=min_rating]", "1600").await;
        css(&a, "form[aria-labelledby=new-game] button[type=submit]")
            .await
            .click()
            .await
            .expect("create");
        let id = wait_for(
            &a,
            "the new game's page",
            "const m = /^#\\/game\\/(\\d+)$/.exec(location.hash); return m ? Number(m[1]) : null;",
        )
        .await
        .as_i64()
        .expect("game id");
        let lobby: Value = tokio::task::block_in_place(|| {
            app.get("/api/v1/games?open=true", Some(&carl.token))
                .json()
                .expect("json")
        });
        let item = lobby["items"]
            .as_array()
            .expect("items")
            .iter()
            .find(|g| g["id"] == id)
            .cloned()
            .expect("listed");
        assert_eq!(
            item["requirements"],
            json!({"min_reliability": 60, "min_rating": 1600})
        );

        // Bo sees Ada's record and the requirements beside her game; Join tells him why not.
        let b = driver.browser().await;
        open_lobby(&b, &app, &bo.token).await;
        let row = wait_for(
            &b,
            "Ada's game in the lobby",
            &format!("return document.querySelector(\"li[data-game='{id}']\")?.textContent;"),
        )
        .await;
        let row = row.as_str().unwrap_or_default();
        for part in [
            format!("creator plays {ada_share}% of games to the end"),
            "asks 60% reliability".to_string(),
            "asks rating 1600+".to_string(),
        ] {
            assert!(row.contains(&part), "{part:?} in {row:?}");
        }
        assert_eq!(axe(&b).await, Vec::<String>::new(), "lobby: accessibility");
        screenshot(&driver, &b, "lobby.png").await;
        css(&b, &format!("li[data-game='{id}'] button"))
            .await
            .click()
            .await
            .expect("join");
        let said = wait_for(
            &b,
            "the refusal",
            "return document.querySelector('#flash .flash.error')?.textContent;",
        )
        .await;
        assert_eq!(
            said,
            json!(format!(
                "You cannot join game #{id}: this game asks a reliability of at least 60 %; yours is 0 %."
            ))
        );
        assert_eq!(
            js(&b, "return location.hash;").await,
            json!("#/lobby"),
            "still in the lobby"
        );
        b.set_window_size(390, 844).await.expect("phone size");
        fits_the_width(&b, "lobby").await;
        screenshot(&driver, &b, "lobby-refused-phone.png").await;

        // Carl, new here, counts 1500: below the rating asked.
        let c = driver.browser().await;
        open_lobby(&c, &app, &carl.token).await;
        css(&c, &format!("li[data-game='{id}'] button"))
            .await
            .click()
            .await
            .expect("join");
        let said = wait_for(
            &c,
            "the refusal",
            "return document.querySelector('#flash .flash.error')?.textContent;",
        )
        .await;
        assert_eq!(
            said,
            json!(format!(
                "You cannot join game #{id}: this game asks a rating of at least 1600 in kasino; yours is 1500."
            ))
        );

        // Bo's page says what his record is.
        c.goto(&app.url(&format!("/#/ratings/{}", bo.id)))
            .await
            .expect("Bo's page");
        let text = wait_for(
            &c,
            "Bo's record",
            "return document.querySelector('#reliability p')?.textContent;",
        )
        .await;
        assert!(
            text.as_str()
                .unwrap_or_default()
                == "Plays 0% of games to the end (1 game ended: 1 resigned, 0 lost on time).",
            "{text}"
        );
        assert_eq!(
            axe(&c).await,
            Vec::<String>::new(),
            "player's page: accessibility"
        );
        screenshot(&driver, &c, "player.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        fits_the_width(&c, "player's page").await;
        screenshot(&driver, &c, "player-phone.png").await;
        for x in [&a, &b, &c] {
            let errors: Vec<String> = driver
                .severe(x)
                .await
                .into_iter()
                .filter(|e| !e.contains("/join - Failed to load resource"))
                .collect();
            assert_eq!(errors, Vec::<String>::new(), "browser errors");
        }
        for x in [a, b, c] {
            let _ = x.close().await;
        }
    });
}

#[test]
fn the_lobby_filters_by_game_players_clock_and_rating() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let k2 = create(&app, &ada, json!({"game_type": "kasino", "players": 2}));
    let k3 = create(
        &app,
        &ada,
        json!({"game_type": "kasino", "players": 3, "time_control": {"days_per_move": 2}}),
    );
    let rummy = create(
        &app,
        &ada,
        json!({"game_type": "crossword-rummy", "players": 2}),
    );
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        open_lobby(&c, &app, &bo.token).await;
        lists(&c, "every open game", &[k2, k3, rummy]).await;
        let pick = |name: &'static str, value: &'static str| {
            let c = c.clone();
            async move {
                css(&c, &format!("#lobby-filters select[name=filter_{name}]"))
                    .await
                    .select_by_value(value)
                    .await
                    .expect(name);
            }
        };
        let clear = || {
            let c = c.clone();
            async move {
                css(&c, "#lobby-filters button[type=reset]")
                    .await
                    .click()
                    .await
                    .expect("clear");
            }
        };
        pick("game_type", "kasino").await;
        lists(&c, "Kasino games", &[k2, k3]).await;
        pick("players", "3").await;
        lists(&c, "Kasino for three", &[k3]).await;
        clear().await;
        lists(&c, "all again", &[k2, k3, rummy]).await;
        pick("clock", "false").await;
        lists(&c, "games without a clock", &[k2, rummy]).await;
        pick("clock", "true").await;
        lists(&c, "games with a clock", &[k3]).await;
        clear().await;
        lists(&c, "all again", &[k2, k3, rummy]).await;
        // Ada is unrated: 1500.
        type_into(&c, "#lobby-filters input[name=filter_min_rating]", "1600").await;
        lists(&c, "creators rated 1600 or more", &[]).await;
        wait_for(
            &c,
            "the empty result said",
            "return document.getElementById('lobby-results').textContent === 'No open game matches these filters.';",
        )
        .await;
        clear().await;
        type_into(&c, "#lobby-filters input[name=filter_min_rating]", "1400").await;
        type_into(&c, "#lobby-filters input[name=filter_max_rating]", "1600").await;
        lists(&c, "creators rated 1400 to 1600", &[k2, k3, rummy]).await;
        pick("game_type", "crossword-rummy").await;
        lists(&c, "crossword rummy", &[rummy]).await;
        assert_eq!(axe(&c).await, Vec::<String>::new(), "accessibility");
        screenshot(&driver, &c, "lobby-filtered.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        fits_the_width(&c, "filtered lobby").await;
        screenshot(&driver, &c, "lobby-filtered-phone.png").await;
        assert_eq!(
            driver.severe(&c).await,
            Vec::<String>::new(),
            "browser errors"
        );
        let _ = c.close().await;
    });
}

#[test]
fn the_lobby_shows_the_cap_on_games_in_progress_and_why_create_and_join_are_refused() {
    let app = spawn_app_with(|s| s.max_active_games_per_account = 2);
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let open = create(&app, &ada, json!({"game_type": "kasino", "players": 2}));
    create(&app, &bo, json!({"game_type": "kasino", "players": 2}));
    create(&app, &bo, json!({"game_type": "kasino", "players": 2}));
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        open_lobby(&c, &app, &bo.token).await;
        let cap = wait_for(
            &c,
            "the cap, said",
            "return document.getElementById('active-cap')?.textContent;",
        )
        .await;
        assert_eq!(
            cap,
            json!(
                "You are in 2 unfinished games, the most this server allows (2). Finish or leave one before you start or join another."
            )
        );
        css(&c, &format!("li[data-game='{open}'] button"))
            .await
            .click()
            .await
            .expect("join");
        let said = wait_for(
            &c,
            "the join refused",
            "return document.querySelector('#flash .flash.error')?.textContent;",
        )
        .await;
        assert_eq!(
            said,
            json!(format!(
                "You cannot join game #{open}: you hold seats in 2 games not yet finished, and this server allows 2; finish or leave one first."
            ))
        );
        css(&c, "form[aria-labelledby=new-game] button[type=submit]")
            .await
            .click()
            .await
            .expect("create");
        let said = wait_for(
            &c,
            "the creation refused",
            "return document.querySelector('form[aria-labelledby=new-game] .error')?.textContent;",
        )
        .await;
        assert_eq!(
            said,
            json!(
                "The game was not created: you hold seats in 2 games not yet finished, and this server allows 2; finish or leave one first."
            )
        );
        let held: Value = tokio::task::block_in_place(|| {
            app.get("/api/v1/games", Some(&bo.token))
                .json()
                .expect("json")
        });
        assert_eq!(held["your_active_games"], 2, "nothing was created or joined");
        assert_eq!(axe(&c).await, Vec::<String>::new(), "accessibility");
        screenshot(&driver, &c, "lobby-cap.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        fits_the_width(&c, "lobby at the cap").await;
        screenshot(&driver, &c, "lobby-cap-phone.png").await;
        let errors: Vec<String> = driver
            .severe(&c)
            .await
            .into_iter()
            .filter(|e| !e.contains("Failed to load resource"))
            .collect();
        assert_eq!(errors, Vec::<String>::new(), "browser errors");
        let _ = c.close().await;
    });
}
