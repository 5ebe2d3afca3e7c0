//! A game's history in the web client: a player steps through the moves (from the start,
//! one by one, from a log entry, by a link to a position) and sees the board and the hand
//! as their seat saw them then; a move made meanwhile leaves the position shown alone; a
//! spectator replays a finished public game to its end. At desktop and phone sizes.

use fantoccini::Client;
use serde_json::{Value, json};

use super::{Driver, advance, axe, css, js, open_game, runtime, screenshot, wait_for};
use crate::helpers::spawn_app;

/// Waits until the board shows version `v`, and returns what the history panel says.
async fn board_at(c: &Client, v: i64) -> String {
    let said = wait_for(
        c,
        &format!("the board at version {v}"),
        &format!(
            "const b = document.getElementById('board'); \
             const w = document.querySelector('#history .history-where'); \
             return b && b.dataset.version === '{v}' && b.querySelector('svg.picture') && w \
               ? w.textContent : null;"
        ),
    )
    .await;
    said.as_str().unwrap_or_default().to_string()
}

async fn click(c: &Client, selector: &str) {
    css(c, selector)
        .await
        .click()
        .await
        .unwrap_or_else(|e| panic!("click {selector}: {e}"));
}

/// The cards in the page's hand section.
async fn hand_shown(c: &Client) -> Value {
    js(
        c,
        "return [...document.querySelectorAll('#hand ul.pieces li')].map((li) => li.textContent);",
    )
    .await
}

#[test]
fn a_player_steps_through_a_games_moves_and_a_spectator_replays_it() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    advance(&app, id, &[&ada, &bo], 3);
    // The last move is Ada's: Kasino's moves show a hidden card, so none is offered back.
    let ada_seat = app.game(id, &ada)["your_seat"].clone();
    if app.log(id, &ada).last().map(|e| e["seat"].clone()) != Some(ada_seat) {
        advance(&app, id, &[&ada, &bo], 1);
    }
    let n = app.game(id, &ada)["version"].as_i64().expect("version");
    let view_of = |v: i64| -> Value {
        app.get(&format!("/api/v1/games/{id}/views/{v}"), Some(&ada.token))
            .json()
            .expect("json")
    };
    let start_hand = view_of(0)["view"]["your_hand"]
        .as_array()
        .expect("hand")
        .len();
    let hand_now = view_of(n)["view"]["your_hand"]
        .as_array()
        .expect("hand")
        .len();
    assert_ne!(start_hand, hand_now, "Ada played a card");
    let log: Vec<Value> = app
        .get(&format!("/api/v1/games/{id}/log"), Some(&ada.token))
        .json()
        .expect("log");
    let second = log[1]["text"]
        .as_str()
        .expect("move 2 is public")
        .to_string();

    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        open_game(&c, &app, id, &ada.token).await;
        let now = board_at(&c, n).await;
        assert!(
            now.starts_with(&format!("The game now: after move {n} of {n}")),
            "{now}"
        );
        assert_eq!(
            js(
                &c,
                "return [...document.querySelectorAll('#game button')] \
                   .filter((b) => b.textContent.includes('Take back')).length;"
            )
            .await,
            json!(0),
            "no takeback offered in Kasino"
        );
        assert_eq!(
            js(&c, "return document.getElementById('history').hidden;").await,
            json!(false),
            "a started game with moves has a history"
        );

        // From the start: the board and Ada's hand as she saw them before the first move;
        // nothing to play meanwhile.
        click(&c, "#history summary").await;
        click(&c, "#history .history-start").await;
        let said = board_at(&c, 0).await;
        assert!(
            said.starts_with("You are looking back: the start"),
            "{said}"
        );
        assert_eq!(
            hand_shown(&c).await.as_array().map(Vec::len),
            Some(start_hand),
            "the hand at the start"
        );
        assert_eq!(
            js(
                &c,
                "return [location.hash, document.getElementById('actions').hidden, \
                  document.querySelector('#history .history-link').getAttribute('href')];"
            )
            .await,
            json!([
                format!("#/game/{id}/at/0"),
                true,
                format!("#/game/{id}/at/0")
            ]),
            "the address is a link to the position; moves are put aside"
        );
        screenshot(&driver, &c, "history-start.png").await;

        // One move forward, then the board after move 2 from its log entry.
        click(&c, "#history .history-forward").await;
        let said = board_at(&c, 1).await;
        assert!(said.contains(&format!("after move 1 of {n}")), "{said}");
        click(&c, "#log li[value='2'] button.show-at").await;
        let said = board_at(&c, 2).await;
        assert!(said.contains(&second), "{said} names move 2: {second}");

        // A move made meanwhile: the position shown stays, the history grows.
        // Moves forced by it (a new deal) play themselves: the history grows by them too.
        let grown = tokio::task::block_in_place(|| {
            advance(&app, id, &[&ada, &bo], 1);
            app.game(id, &ada)["version"].as_i64().expect("version")
        });
        assert!(grown > n, "{n} -> {grown}");
        wait_for(
            &c,
            "the history to grow by the move",
            &format!(
                "return document.getElementById('history-slider').max === '{}';",
                grown
            ),
        )
        .await;
        let said = board_at(&c, 2).await;
        assert!(said.contains(&format!("after move 2 of {grown}")), "{said}");

        // A link to a position opens there.
        c.goto(&app.url(&format!("/#/game/{id}/at/1")))
            .await
            .expect("open the link");
        c.refresh().await.expect("reload");
        let said = board_at(&c, 1).await;
        assert!(said.starts_with("You are looking back"), "{said}");
        assert_eq!(axe(&c).await, Vec::<String>::new(), "accessibility");
        c.set_window_size(390, 844).await.expect("phone size");
        let fits = js(
            &c,
            "const r = document.querySelector('#history .history-bar').getBoundingClientRect(); \
             return r.left >= 0 && r.right <= window.innerWidth + 1;",
        )
        .await;
        assert_eq!(fits, json!(true), "the history controls fit a phone");
        screenshot(&driver, &c, "history-phone.png").await;
        c.set_window_size(1280, 900).await.expect("desktop size");

        // Back to the game now: the moves are there again.
        click(&c, "#history .history-now").await;
        board_at(&c, grown).await;
        assert_eq!(
            js(
                &c,
                "return [location.hash, document.getElementById('actions').hidden];"
            )
            .await,
            json!([format!("#/game/{id}"), false])
        );

        // A spectator (signed out) replays the game, finished by a resignation, to its end.
        let r = tokio::task::block_in_place(|| {
            app.post(
                &format!("/api/v1/games/{id}/resign"),
                Some(&bo.token),
                &json!({}),
            )
        });
        assert_eq!(r.status(), 200);
        let last: i64 = tokio::task::block_in_place(|| app.game(id, &ada))["version"]
            .as_i64()
            .expect("version");
        js(
            &c,
            "sessionStorage.clear(); localStorage.removeItem('turnpost.token'); return true;",
        )
        .await;
        c.goto(&app.url(&format!("/#/game/{id}/at/0")))
            .await
            .expect("open as a spectator");
        c.refresh().await.expect("reload");
        board_at(&c, 0).await;
        assert_eq!(
            hand_shown(&c).await,
            json!([]),
            "a spectator sees no one's hand"
        );
        for v in 1..last {
            click(&c, "#history .history-forward").await;
            board_at(&c, v).await;
        }
        click(&c, "#history .history-forward").await;
        let end = board_at(&c, last).await;
        assert!(end.starts_with("The game now"), "{end}");
        screenshot(&driver, &c, "history-finished.png").await;
    });
}
