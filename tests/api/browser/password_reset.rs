//! A forgotten password, by clicking: the sign-in page's "Forgot your password?", the
//! emailed link, a new password, signed in; the used link refused. Screenshots at phone
//! and desktop size.

use fantoccini::Client;

use super::{Driver, css, js, runtime, screenshot, type_into, wait_for};
use crate::helpers::spawn_app;
use crate::password_reset::reset_links;

/// The browser's SEVERE log entries, less the refusals this test provokes on purpose (a
/// weak password, a used link: Chromium logs every 4xx answer to a fetch).
async fn unexpected_errors(driver: &Driver, c: &fantoccini::Client) -> Vec<String> {
    driver
        .severe(c)
        .await
        .into_iter()
        .filter(|m| {
            let refused_check = m.contains("/api/v1/password-reset/check") && m.contains("410");
            !refused_check && !m.contains("/api/v1/password-reset/new-password")
        })
        .collect()
}

#[test]
fn a_forgotten_password_is_reset_from_the_emailed_link_and_the_player_is_signed_in() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let link = runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        c.goto(&app.url("/#/signin")).await.expect("open sign-in");
        css(&c, "a[href='#/forgot']")
            .await
            .click()
            .await
            .expect("forgot your password?");
        wait_for(
            &c,
            "the forgot-your-password page",
            "return location.hash === '#/forgot' \
             && document.querySelector('main h1')?.textContent === 'Forgot your password?';",
        )
        .await;
        type_into(&c, "input[name=email]", &ada.email).await;
        screenshot(&driver, &c, "reset-1-forgot-desktop.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        screenshot(&driver, &c, "reset-1-forgot-phone.png").await;
        submit(&c).await;
        let text = wait_for(
            &c,
            "the check-your-email page",
            "const s = document.getElementById('reset-sent'); return s && s.textContent;",
        )
        .await;
        assert!(
            text.as_str()
                .unwrap_or("")
                .contains("If an account has this address"),
            "{text}"
        );
        screenshot(&driver, &c, "reset-2-sent-phone.png").await;

        // The emailed link, on this server.
        let link = reset_links(&app, &ada.email, 1).remove(0);
        c.goto(&app.url(&format!("/#/reset/{link}")))
            .await
            .expect("open the link");
        // A weak password first: the page says why, and keeps the link.
        type_into(&c, "input[name=password]", "password123").await;
        submit(&c).await;
        let why = wait_for(
            &c,
            "the refusal",
            "const e = document.querySelector('form .error'); return e && e.textContent;",
        )
        .await;
        assert!(
            why.as_str().unwrap_or("").contains("easy to guess"),
            "{why}"
        );
        screenshot(&driver, &c, "reset-3-weak-phone.png").await;
        css(&c, "input[name=password]")
            .await
            .clear()
            .await
            .expect("clear");
        type_into(&c, "input[name=password]", "a brand new passphrase").await;
        c.set_window_size(1100, 1000).await.expect("desktop size");
        screenshot(&driver, &c, "reset-3-new-password-desktop.png").await;
        submit(&c).await;
        let flash = wait_for(
            &c,
            "my games, signed in",
            "return location.hash === '#/games' && sessionStorage.getItem('turnpost.token') \
             && document.querySelector('main h1') \
             && document.getElementById('flash').textContent;",
        )
        .await;
        assert!(
            flash.as_str().unwrap_or("").contains("new password is set"),
            "{flash}"
        );
        screenshot(&driver, &c, "reset-4-signed-in-desktop.png").await;
        // The token the page keeps is good; the link left the history.
        let token = js(&c, "return sessionStorage.getItem('turnpost.token');").await;
        let shown = js(&c, "return location.href;").await;
        assert!(!shown.as_str().unwrap_or("").contains(&link), "{shown}");

        // The same link again (signed out): refused, with the way to a new one.
        js(
            &c,
            "sessionStorage.clear(); localStorage.clear(); return true;",
        )
        .await;
        c.set_window_size(390, 844).await.expect("phone size");
        c.goto(&app.url(&format!("/#/reset/{link}")))
            .await
            .expect("open the link again");
        c.refresh().await.expect("reload");
        // Said at once, before a new password is typed into a form that cannot take it.
        let why = wait_for(
            &c,
            "the used link's refusal",
            "const e = document.querySelector('#reset-dead'); \
             return e && e.querySelector('a[href=\"#/forgot\"]') && e.textContent;",
        )
        .await;
        assert_eq!(
            js(
                &c,
                "return document.querySelectorAll('input[name=password]').length;"
            )
            .await,
            serde_json::json!(0),
            "no password field for a used link"
        );
        assert!(why.as_str().unwrap_or("").contains("used already"), "{why}");
        screenshot(&driver, &c, "reset-5-used-link-phone.png").await;
        assert_eq!(
            unexpected_errors(&driver, &c).await,
            Vec::<String>::new(),
            "browser errors"
        );
        let _ = c.close().await;
        (link, token)
    });
    let (link, token) = link;
    let me = app.get("/api/v1/me", token.as_str());
    assert_eq!(me.status(), 200, "the page's token is good");
    app.token_for(&ada.email, "a brand new passphrase");
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &serde_json::json!({"email": ada.email, "password": "correct horse battery"}),
    );
    assert_eq!(r.status(), 401, "the old password is gone");
    assert!(!link.is_empty());
}

/// Sends the page's form with its submit button, as a person clicks it.
async fn submit(c: &Client) {
    css(c, "form button[type=submit]")
        .await
        .click()
        .await
        .expect("click the form's button");
}
