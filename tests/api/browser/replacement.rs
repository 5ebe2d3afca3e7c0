//! A replacement for an abandoned seat by clicking: a player still in
//! the game offers the seat of one who resigned, and another person takes it in the lobby;
//! the game page then shows them the seat and the hand-over in the log.

use serde_json::{Value, json};

use super::{Driver, css, js, remember, runtime, screenshot, wait_for};
use crate::helpers::spawn_app;

#[test]
fn a_player_offers_a_given_up_seat_and_another_takes_it_in_the_lobby_by_clicking() {
    let app = spawn_app();
    let (ada, bo, cy, dee) = (
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Dee"),
    );
    let id = app.start_game("kasino", json!({}), &[&ada, &bo, &cy]);
    let r = app.post(
        &format!("/api/v1/games/{id}/resign"),
        Some(&bo.token),
        &json!({}),
    );
    assert_eq!(r.status(), 200);
    runtime().block_on(async {
        let mut driver = Driver::start();
        // Ada offers Bo's seat from the game page.
        let c = driver.browser().await;
        remember(&c, &app, &ada.token).await;
        c.goto(&app.url(&format!("/#/game/{id}")))
            .await
            .expect("open the game");
        css(&c, "#replacements li[data-seat='1'][data-offered='false'] button")
            .await
            .click()
            .await
            .expect("offer");
        wait_for(
            &c,
            "the offer shown",
            "return document.querySelector(\"#replacements li[data-seat='1'][data-offered='true']\");",
        )
        .await;
        screenshot(&driver, &c, "replacement-offered.png").await;
        assert_eq!(driver.severe(&c).await, Vec::<String>::new(), "browser errors");
        let _ = c.close().await;

        // Dee takes it in the lobby.
        let c = driver.browser().await;
        remember(&c, &app, &dee.token).await;
        c.goto(&app.url("/#/lobby")).await.expect("open the lobby");
        c.refresh().await.expect("reload");
        let row = format!(".seat-offers li[data-game='{id}'][data-seat='1'] button");
        css(&c, &row).await;
        screenshot(&driver, &c, "replacement-lobby.png").await;
        css(&c, &row).await.click().await.expect("take");
        wait_for(
            &c,
            "the game page, seated",
            &format!(
                "return location.hash === '#/game/{id}' && document.getElementById('game')?.dataset.status === 'active' \
                 && document.querySelector('#hand') !== null;"
            ),
        )
        .await;
        let said = wait_for(
            &c,
            "the hand-over in the log",
            "return document.querySelector('#log li.handover')?.textContent || '';",
        )
        .await;
        assert!(
            said.as_str().unwrap().starts_with("Dee took over seat 2 from Bo"),
            "{said}"
        );
        // The seat's moves before the hand-over are named for Bo, those after for Dee.
        let named = js(
            &c,
            "const handover = document.querySelector('#log li.handover'); \
             const before = [...document.querySelectorAll('#log li[data-seat=\"1\"]:not(.handover)')] \
               .filter((li) => li.compareDocumentPosition(handover) & Node.DOCUMENT_POSITION_FOLLOWING); \
             return before.every((li) => li.querySelector('.who').textContent.startsWith('Bo'));",
        )
        .await;
        assert_eq!(named, json!(true));
        screenshot(&driver, &c, "replacement-taken.png").await;
        assert_eq!(driver.severe(&c).await, Vec::<String>::new(), "browser errors");
        let seated = js(&c, "return document.getElementById('game').dataset.version;").await;
        assert!(!seated.is_null());
        let _ = c.close().await;

        // Played to the end: the result says who left the seat and who played it on.
        tokio::task::block_in_place(|| {
            crate::helpers::play_random(&app, id, &[&ada, &dee, &cy], 3, 5000);
        });
        let c = driver.browser().await;
        remember(&c, &app, &ada.token).await;
        c.goto(&app.url(&format!("/#/game/{id}")))
            .await
            .expect("open the game");
        let said = wait_for(
            &c,
            "the hand-over in the result",
            "return document.getElementById('game')?.dataset.status === 'finished' \
               && document.querySelector(\"#replacements li[data-seat='1']\")?.textContent || '';",
        )
        .await;
        assert_eq!(
            said,
            json!("Bo left seat 2 and keeps the loss; Dee played it on as a replacement, unrated.")
        );
        screenshot(&driver, &c, "replacement-finished.png").await;
        assert_eq!(driver.severe(&c).await, Vec::<String>::new(), "browser errors");
        let _ = c.close().await;
    });
    let g: Value = app.game(id, &dee);
    assert_eq!(g["your_seat"], 1);
    assert_eq!(g["seats"][1]["name"], "Dee");
    assert_eq!(app.game(id, &cy)["forfeited"], json!([]));
}
