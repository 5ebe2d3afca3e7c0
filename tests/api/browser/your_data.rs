//! Your data by clicking: the settings page downloads the export and
//! deletes the account with its password.

use serde_json::json;

use super::{Driver, css, js, remember, runtime, screenshot, type_into, wait_for};
use crate::helpers::spawn_app;

#[test]
fn a_player_downloads_their_data_and_deletes_their_account_from_the_settings_page() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        remember(&c, &app, &ada.token).await;
        c.goto(&app.url("/#/settings")).await.expect("settings");
        c.refresh().await.expect("reload");
        css(&c, "#data-h").await;
        // The download: the export is fetched and offered as a file.
        js(
            &c,
            "[...document.querySelectorAll('button')].find(b => b.textContent === 'Download my data').click(); return true;",
        )
        .await;
        let said = wait_for(
            &c,
            "the download's status",
            "const t = document.getElementById('data-status')?.textContent || ''; return t.startsWith('Downloaded') ? t : '';",
        )
        .await;
        assert_eq!(said, "Downloaded: 1 game.");

        // A wrong password: said on the page, nothing deleted.
        type_into(&c, "form.danger input[name=password]", "not my password").await;
        css(&c, "form.danger input[name=sure]")
            .await
            .click()
            .await
            .expect("tick");
        css(&c, "form.danger button.danger")
            .await
            .click()
            .await
            .expect("delete");
        let error = wait_for(
            &c,
            "the refusal",
            "return document.querySelector('form.danger .error')?.textContent || '';",
        )
        .await;
        assert!(error.as_str().unwrap().contains("password"), "{error}");
        screenshot(&driver, &c, "your-data-settings.png").await;

        // The right one (which would find the account gone had the wrong one deleted
        // it): signed out, the account gone, the seat "Deleted player".
        js(
            &c,
            "document.querySelector('form.danger input[name=password]').value = ''; return true;",
        )
        .await;
        type_into(&c, "form.danger input[name=password]", "correct horse battery").await;
        css(&c, "form.danger button.danger")
            .await
            .click()
            .await
            .expect("delete");
        wait_for(
            &c,
            "the sign-in page",
            "return location.hash.startsWith('#/signin') && document.querySelector('input[name=email]') !== null;",
        )
        .await;
        let _ = c.close().await;
    });
    assert_eq!(app.get("/api/v1/me", Some(&ada.token)).status(), 401);
    let g = app.game(id, &bo);
    assert_eq!(g["status"], "finished");
    assert_eq!(g["seats"][0]["name"], "Deleted player");
}
