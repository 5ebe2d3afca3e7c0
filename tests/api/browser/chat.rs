//! The chat panel of the game page: a message posted elsewhere arrives live and shows as
//! text (markup in it stays text), and a message typed in the panel is posted.

use serde_json::{Value, json};

use super::{Driver, css, js, runtime, type_into, wait_for};
use crate::helpers::spawn_app;

#[test]
fn the_chat_panel_shows_messages_live_as_text_and_posts_what_is_typed() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        c.goto(&app.url("/")).await.expect("open the client");
        js(
            &c,
            &format!(
                "localStorage.setItem('turnpost.token', {}); return true;",
                json!(bo.token)
            ),
        )
        .await;
        c.goto(&app.url(&format!("/#/game/{id}")))
            .await
            .expect("open the game");
        css(&c, "#chat textarea").await;
        let hostile = "<img src=x onerror=\"document.title='owned'\"> hi";
        tokio::task::block_in_place(|| {
            let r = app.post(
                &format!("/api/v1/games/{id}/chat"),
                Some(&ada.token),
                &json!({ "text": hostile }),
            );
            assert_eq!(r.status(), 201);
        });
        wait_for(
            &c,
            "Ada's message, live",
            &format!(
                "const t = document.querySelector('#chat .chat-text'); \
                 return t && t.textContent === {};",
                json!(hostile)
            ),
        )
        .await;
        let images = js(&c, "return document.querySelectorAll('#chat img').length;").await;
        assert_eq!(images, 0, "markup in a message stays text");
        type_into(&c, "#chat textarea", "good game").await;
        css(&c, "#chat button[type=submit]")
            .await
            .click()
            .await
            .expect("send");
        wait_for(
            &c,
            "Bo's own message in the panel",
            "return [...document.querySelectorAll('#chat .chat-text')] \
             .some((t) => t.textContent === 'good game');",
        )
        .await;
        let page: Value = tokio::task::block_in_place(|| {
            app.get(&format!("/api/v1/games/{id}/chat"), Some(&ada.token))
                .json()
                .unwrap()
        });
        assert_eq!(page["messages"][1]["text"], "good game");
        assert_eq!(page["messages"][1]["author_id"], bo.id);
        assert_eq!(
            driver.severe(&c).await,
            Vec::<String>::new(),
            "browser errors"
        );
        let _ = c.close().await;
    });
}
