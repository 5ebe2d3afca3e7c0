//! The Kasino capture and build editor: a capture the list leaves out on a crowded table,
//! composed by clicks and the keyboard, checked by the server and played; pictures of the
//! editor on a desktop and a phone-sized screen.

use std::time::{Duration, Instant};

use fantoccini::key::Key;
use serde_json::{Value, json};

use super::{
    Driver, PATIENCE, css, js, next_frames, open_game, runtime, screenshot, verdict, wait_for,
};
use crate::helpers::spawn_app;

#[test]
fn a_kasino_capture_the_list_leaves_out_is_played_in_the_editor() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo")];
    let id = app.start_game("kasino", json!({}), &[&people[0], &people[1]]);
    let (mover, g, capture) = crate::kasino::crowd_the_table(&app, id, &[&people[0], &people[1]]);
    let version = g["version"].as_i64().expect("version");
    let card = capture["card"].as_str().expect("card").to_string();
    let taken: Vec<String> = serde_json::from_value(capture["cards"].clone()).expect("cards");
    assert!(taken.len() >= 2, "{capture}");

    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        open_game(&c, &app, id, &mover.token).await;
        wait_for(
            &c,
            "the capture editor",
            "return document.querySelector('#editor button.ks-card');",
        )
        .await;
        let click = |key: String| {
            let c = c.clone();
            async move {
                css(&c, &format!("#editor button[data-key='{key}']"))
                    .await
                    .click()
                    .await
                    .unwrap_or_else(|e| panic!("click {key}: {e}"))
            }
        };
        // The hand card alone takes nothing: the editor says what is missing, and there is
        // nothing to play.
        click(format!("hand:{card}")).await;
        let said = verdict(&c, "the note on a card alone").await;
        assert!(said.contains("Pick the table cards"), "{said}");
        let play_disabled = js(
            &c,
            "return document.querySelector('#editor .check-row button.primary').disabled;",
        )
        .await;
        assert_eq!(play_disabled, Value::Bool(true));
        // The table cards: all but the last by mouse, the last from the keyboard (focus
        // it, then Enter), as a button does.
        let (last, rest) = taken.split_last().expect("cards");
        for t in rest {
            click(format!("table:{t}")).await;
        }
        js(
            &c,
            &format!("document.querySelector(\"#editor button[data-key='table:{last}']\").focus(); return true;"),
        )
        .await;
        c.active_element()
            .await
            .expect("focus")
            .send_keys(&Key::Enter)
            .await
            .expect("enter");
        let pressed = js(
            &c,
            "return [...document.querySelectorAll('#editor button.ks-card[aria-pressed=\"true\"]')].map((b) => b.dataset.key);",
        )
        .await;
        assert_eq!(
            pressed.as_array().map(Vec::len),
            Some(taken.len() + 1),
            "{pressed}"
        );
        let said = verdict(&c, "the verdict on the capture").await;
        assert!(said.starts_with("Valid: take "), "{said}");
        screenshot(&driver, &c, "kasino-editor-desktop.png").await;
        // A phone-sized screen: the cards wrap, nothing runs off the side.
        driver
            .cdp(
                &c,
                "Emulation.setDeviceMetricsOverride",
                json!({"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true}),
            )
            .await;
        // The page is laid out at the new width once it sees it, and has handled its
        // resize after the next frames.
        wait_for(&c, "the phone's width", "return window.innerWidth === 390;").await;
        next_frames(&c).await;
        let overflow = js(
            &c,
            "const e = document.querySelector('#editor'); return e.scrollWidth - e.clientWidth;",
        )
        .await;
        assert!(overflow.as_i64().unwrap_or(1) <= 0, "the editor overflows: {overflow}");
        screenshot(&driver, &c, "kasino-editor-phone.png").await;
        driver
            .cdp(&c, "Emulation.clearDeviceMetricsOverride", json!({}))
            .await;

        // Clicked when enabled (the page may redraw the editor and check again).
        let start = Instant::now();
        while js(
            &c,
            "const b = document.querySelector('#editor .check-row button.primary'); \
             if (!b || b.disabled) return false; b.click(); return true;",
        )
        .await
            != Value::Bool(true)
        {
            assert!(start.elapsed() < PATIENCE, "Play this move never enabled");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        wait_for(
            &c,
            "the capture played",
            &format!(
                "return Number(document.getElementById('game')?.dataset.version) > {version};"
            ),
        )
        .await;
        // Intermediate picks may be checked on the way and refused (409 `illegal_action`:
        // the action is well-formed but the position does not allow it): those are the
        // only errors.
        for e in driver.severe(&c).await {
            assert!(
                e.contains(&format!("/api/v1/games/{id}/preview")) && e.contains("409"),
                "browser error: {e}"
            );
        }
        let _ = c.close().await;
    });
    let after = app.game(id, mover);
    let table = after["view"]["table"].to_string();
    for t in &taken {
        assert!(
            !table.contains(&format!("\"{t}\"")),
            "{t} still on the table"
        );
    }
    // The log holds the capture as composed: that card, those table cards.
    let log = app.log(id, mover);
    assert!(
        log.iter().any(|e| e["action"]["type"] == "capture"
            && e["action"]["card"] == card.as_str()
            && e["action"]["cards"].as_array().map(Vec::len) == Some(taken.len())),
        "the capture is not in the log"
    );
}
