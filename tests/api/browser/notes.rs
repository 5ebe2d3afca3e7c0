//! The game page's "My notes" box: a note typed and saved is there after a
//! reload, the other player never sees it, and markup in it stays text.

use serde_json::{Value, json};

use super::{Driver, axe, css, js, open_game, runtime, screenshot, type_into, wait_for};
use crate::helpers::spawn_app;

/// Waits until the game page has read the seat's note from the server.
async fn note_loaded(c: &fantoccini::Client) {
    wait_for(
        c,
        "the note, read",
        "const n = document.getElementById('note'); \
         return n && !n.hidden && n.dataset.loaded === 'true';",
    )
    .await;
}

#[test]
fn a_note_typed_on_the_game_page_is_kept_for_its_author_alone() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let hostile = "<img src=x onerror=\"document.title='owned'\"> Bo keeps the tens";
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        open_game(&c, &app, id, &ada.token).await;
        note_loaded(&c).await;
        // Empty: the box is closed; open it, type, save.
        css(&c, "#note summary")
            .await
            .click()
            .await
            .expect("open notes");
        type_into(&c, "#note-text", hostile).await;
        css(&c, "#note-save")
            .await
            .click()
            .await
            .expect("save");
        wait_for(
            &c,
            "Saved.",
            "return document.querySelector('#note .note-state')?.textContent === 'Saved.';",
        )
        .await;
        let stored: Value = tokio::task::block_in_place(|| {
            app.get(&format!("/api/v1/games/{id}/note"), Some(&ada.token))
                .json()
                .expect("json")
        });
        assert_eq!(stored["body"], hostile, "saved as typed");

        // After a reload the note is there, open, as text.
        c.refresh().await.expect("reload");
        note_loaded(&c).await;
        let shown = js(
            &c,
            "return [document.getElementById('note-text').value, document.getElementById('note').open];",
        )
        .await;
        assert_eq!(shown, json!([hostile, true]), "the note after a reload");
        assert_eq!(
            js(
                &c,
                "return [document.querySelectorAll('#game img').length, document.title.includes('owned')];"
            )
            .await,
            json!([0, false]),
            "markup in a note stays text"
        );
        assert_eq!(axe(&c).await, Vec::<String>::new(), "accessibility");
        screenshot(&driver, &c, "note.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        let wide = js(
            &c,
            "const r = document.getElementById('note-text').getBoundingClientRect(); \
             return [r.right <= window.innerWidth + 1, document.getElementById('note-save').getBoundingClientRect().right <= window.innerWidth + 1];",
        )
        .await;
        assert_eq!(wide, json!([true, true]), "the note box fits a phone");
        screenshot(&driver, &c, "note-phone.png").await;

        // Bo, at the same table, has an empty note of his own.
        let b = driver.browser().await;
        open_game(&b, &app, id, &bo.token).await;
        note_loaded(&b).await;
        assert_eq!(
            js(&b, "return document.getElementById('note-text').value;").await,
            json!(""),
            "the opponent does not see Ada's note"
        );
        let page = js(&b, "return document.body.textContent;").await;
        assert!(
            !page.as_str().unwrap_or_default().contains("keeps the tens"),
            "nowhere on Bo's page"
        );
        for x in [&c, &b] {
            assert_eq!(driver.severe(x).await, Vec::<String>::new(), "browser errors");
        }
        let _ = c.close().await;
        let _ = b.close().await;
    });
}
