//! The reference a client builder browses: `/docs` draws the whole API with the vendored
//! Redoc, from this server alone (every resource the page loads is same-origin, nothing
//! is blocked or failing), and links each game type's page, which shows its actions with
//! examples, at desktop and phone widths without running off the side. Screenshots go to
//! `target/screenshots/docs*.png`.

use serde_json::Value;

use super::{Driver, axe, js, next_frames, runtime, screenshot, wait_for};
use crate::helpers::spawn_app;

#[test]
fn the_api_reference_and_each_game_page_are_drawn_from_this_server_alone() {
    let app = spawn_app();
    let types: Value = app.get("/api/v1/game-types", None).json().unwrap();
    let ids: Vec<String> = types
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 7);
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        c.goto(&app.url("/docs")).await.unwrap();
        // Redoc has read openapi.yaml and drawn its operations: the submit-action one
        // among them, and the game models by name.
        wait_for(
            &c,
            "Redoc drew the API",
            "return document.querySelectorAll('[data-section-id^=\"operation/\"]').length > 50 \
             && document.body.innerText.includes('Submit an action') ? true : null;",
        )
        .await;
        let operations = js(
            &c,
            "return document.querySelectorAll('[data-section-id^=\"operation/\"]').length;",
        )
        .await;
        assert!(operations.as_u64().unwrap() > 50, "{operations}");
        // Everything the page loaded came from this server.
        let origins = js(
            &c,
            "return performance.getEntriesByType('resource').map(e => new URL(e.name).origin);",
        )
        .await;
        for o in origins.as_array().unwrap() {
            assert_eq!(o.as_str().unwrap(), app.address, "{origins}");
        }
        let severe = driver.severe(&c).await;
        assert!(
            severe.iter().all(|m| !m.contains("Content Security Policy") && !m.contains("Failed to load")),
            "{severe:?}"
        );
        // Redoc's page is very long: the window, at the top and at the action request.
        let dir = super::screenshots();
        std::fs::write(dir.join("docs.png"), c.screenshot().await.unwrap()).unwrap();
        js(
            &c,
            "document.querySelector('[data-section-id=\"operation/submit_action\"]').scrollIntoView(); return true;",
        )
        .await;
        wait_for(
            &c,
            "the action request in view",
            "const r = document.querySelector('[data-section-id=\"operation/submit_action\"]').getBoundingClientRect(); \
             return r.top < window.innerHeight && r.bottom > 0;",
        )
        .await;
        next_frames(&c).await;
        std::fs::write(dir.join("docs-submit-action.png"), c.screenshot().await.unwrap()).unwrap();
        // Every game type is linked from the reference, and its page lists its actions.
        let links = js(
            &c,
            "return [...document.querySelectorAll('.docs-nav a[href^=\"/docs/games/\"]')].map(a => a.getAttribute('href'));",
        )
        .await;
        let links: Vec<&str> = links.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
        for id in &ids {
            assert!(links.contains(&format!("/docs/games/{id}").as_str()), "{id}: {links:?}");
        }
        for (width, suffix) in [(1100, ""), (390, "-phone")] {
            c.set_window_size(width, 900).await.unwrap();
            for id in &ids {
                c.goto(&app.url(&format!("/docs/games/{id}"))).await.unwrap();
                let state = js(
                    &c,
                    "return [document.querySelectorAll('section.action').length, \
                     document.querySelectorAll('section.action pre').length, \
                     document.documentElement.scrollWidth, window.innerWidth, \
                     document.querySelector('h1').innerText];",
                )
                .await;
                let sections = state[0].as_u64().unwrap();
                let examples = state[1].as_u64().unwrap();
                assert!(sections >= 2, "{id}: {state}");
                // Most kinds of action were met in the example game, each with its JSON.
                assert!(examples * 2 >= sections, "{id}: {state}");
                assert!(
                    state[2].as_u64() <= state[3].as_u64(),
                    "{id} runs off the side at {width}px: {state}"
                );
                if suffix.is_empty() {
                    assert_eq!(axe(&c).await, Vec::<String>::new(), "{id}: accessibility");
                }
                if id == "kasino" || id == "starfarers" {
                    screenshot(&driver, &c, &format!("docs-{id}{suffix}.png")).await;
                }
            }
        }
        assert_eq!(driver.severe(&c).await, Vec::<String>::new());
    });
}
