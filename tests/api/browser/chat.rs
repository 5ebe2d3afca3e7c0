//! The chat panel of the game page: a message posted elsewhere arrives live and shows as
//! text (markup in it stays text), and a message typed in the panel is posted.

use serde_json::{Value, json};

use super::{Driver, axe, css, js, runtime, screenshot, type_into, wait_for};
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

/// The texts shown in the chat panel, oldest first.
const SHOWN: &str =
    "[...document.querySelectorAll('#chat .chat-text')].map((t) => t.textContent).join('|')";

#[test]
fn a_message_is_reported_with_a_reason_and_its_author_muted_and_unmuted_by_clicking() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let mut said = Vec::new();
    for text in ["<b>buy</b> cheap chips at spam.example", "second"] {
        tokio_free_post(&app, id, &ada, text);
        said.push(text);
    }
    let first_id = app
        .get(&format!("/api/v1/games/{id}/chat"), Some(&bo.token))
        .json::<Value>()
        .expect("json")["messages"][0]["id"]
        .as_i64()
        .expect("id");
    let mutes = |p: &crate::helpers::Player| -> Value {
        app.get("/api/v1/me/mutes", Some(&p.token))
            .json()
            .expect("json")
    };
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        super::remember(&c, &app, &bo.token).await;
        c.goto(&app.url(&format!("/#/game/{id}")))
            .await
            .expect("open the game");
        c.refresh().await.expect("reload");
        wait_for(&c, "Ada's messages", &format!("return {SHOWN} === {};", json!(said.join("|")))).await;

        // Report the first message: a reason must be chosen.
        css(&c, &format!("#chat li[data-message='{first_id}'] .chat-menu button[title^='Report']"))
            .await
            .click()
            .await
            .expect("report");
        wait_for(&c, "the report dialog", "return document.querySelector('dialog.report-dialog')?.open;").await;
        assert_eq!(
            js(&c, "return document.querySelector('dialog.report-dialog blockquote').textContent;").await,
            json!(format!("Ada: {}", said[0])),
            "the message quoted, as text"
        );
        assert_eq!(axe(&c).await, Vec::<String>::new(), "report dialog: accessibility");
        screenshot(&driver, &c, "chat-report.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        let fits = js(
            &c,
            "const r = document.querySelector('dialog.report-dialog').getBoundingClientRect(); \
             return r.left >= 0 && r.right <= window.innerWidth;",
        )
        .await;
        assert_eq!(fits, json!(true), "the dialog fits a phone");
        screenshot(&driver, &c, "chat-report-phone.png").await;
        c.set_window_size(1100, 1000).await.expect("desktop size");
        css(&c, "dialog.report-dialog button[type=submit]")
            .await
            .click()
            .await
            .expect("report without a reason");
        wait_for(
            &c,
            "asked for a reason",
            "return document.querySelector('dialog.report-dialog .error')?.textContent === 'Choose a reason.';",
        )
        .await;
        css(&c, "dialog.report-dialog select")
            .await
            .select_by_value("Spam or advertising")
            .await
            .expect("a reason");
        type_into(&c, "dialog.report-dialog textarea", "sells chips").await;
        css(&c, "dialog.report-dialog button[type=submit]")
            .await
            .click()
            .await
            .expect("report");
        wait_for(
            &c,
            "the thanks",
            "return !document.querySelector('dialog.report-dialog').open && \
             document.querySelector('#flash .flash')?.textContent.startsWith('Reported.');",
        )
        .await;
        let reports = tokio::task::block_in_place(|| {
            let mut conn = app.domain().conn().expect("a connection");
            turnpost::domain::chat::reports(&mut conn, 10).expect("reports")
        });
        assert_eq!(reports.len(), 1);
        assert_eq!(
            (reports[0].message_id, reports[0].reporter_id, reports[0].reason.as_str()),
            (first_id, bo.id, "Spam or advertising: sells chips")
        );

        // Mute Ada from her message: her messages go, and the panel offers to unmute her.
        css(&c, &format!("#chat li[data-message='{first_id}'] .chat-menu button[title^='Hide']"))
            .await
            .click()
            .await
            .expect("mute");
        wait_for(&c, "Ada muted in the panel", "return document.querySelector('#chat .chat-muted:not([hidden])')?.textContent === 'Muted: Ada Unmute';").await;
        assert_eq!(js(&c, &format!("return {SHOWN};")).await, json!(""), "her messages are hidden");
        let listed = tokio::task::block_in_place(|| mutes(&bo));
        assert_eq!(listed[0]["account_id"], ada.id);
        // After a reload the panel still knows.
        c.refresh().await.expect("reload");
        wait_for(&c, "Ada still muted", "return document.querySelector('#chat .chat-muted:not([hidden])')?.textContent === 'Muted: Ada Unmute';").await;
        assert_eq!(axe(&c).await, Vec::<String>::new(), "chat panel: accessibility");
        screenshot(&driver, &c, "chat-muted.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        screenshot(&driver, &c, "chat-muted-phone.png").await;
        c.set_window_size(1100, 1000).await.expect("desktop size");
        css(&c, "#chat .chat-muted button")
            .await
            .click()
            .await
            .expect("unmute");
        wait_for(&c, "Ada's messages back", &format!("return {SHOWN} === {};", json!(said.join("|")))).await;
        assert_eq!(tokio::task::block_in_place(|| mutes(&bo)), json!([]));

        // Mute again, then unmute from the settings page's list.
        css(&c, &format!("#chat li[data-message='{first_id}'] .chat-menu button[title^='Hide']"))
            .await
            .click()
            .await
            .expect("mute again");
        wait_for(&c, "Ada muted again", "return !document.querySelector('#chat .chat-muted').hidden;").await;
        c.goto(&app.url("/#/settings")).await.expect("settings");
        let row = wait_for(
            &c,
            "Ada in the muted players",
            &format!("return document.querySelector(\"#muted-players li[data-account='{}']\")?.textContent;", ada.id),
        )
        .await;
        assert!(row.as_str().unwrap_or_default().starts_with("Ada since"), "{row}");
        assert_eq!(axe(&c).await, Vec::<String>::new(), "settings: accessibility");
        screenshot(&driver, &c, "settings-muted.png").await;
        c.set_window_size(390, 844).await.expect("phone size");
        let fits = js(
            &c,
            "const b = document.querySelector('#muted-players button').getBoundingClientRect(); \
             return b.right <= window.innerWidth && document.documentElement.scrollWidth <= window.innerWidth;",
        )
        .await;
        assert_eq!(fits, json!(true), "the list fits a phone");
        screenshot(&driver, &c, "settings-muted-phone.png").await;
        css(&c, "#muted-players button")
            .await
            .click()
            .await
            .expect("unmute in settings");
        wait_for(
            &c,
            "nobody muted",
            "return document.querySelector('#muted-players ul').textContent === 'Nobody is muted.';",
        )
        .await;
        assert_eq!(tokio::task::block_in_place(|| mutes(&bo)), json!([]));
        assert_eq!(
            driver.severe(&c).await,
            Vec::<String>::new(),
            "browser errors"
        );
        let _ = c.close().await;
    });
}

fn tokio_free_post(app: &crate::helpers::TestApp, id: i64, p: &crate::helpers::Player, text: &str) {
    let r = app.post(
        &format!("/api/v1/games/{id}/chat"),
        Some(&p.token),
        &json!({ "text": text }),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
}

/// A team message that arrives while the table's chat is shown is announced on the Team
/// tab, until the tab is opened.
#[test]
fn a_team_message_read_elsewhere_is_announced_on_the_team_tab() {
    let app = spawn_app();
    let people = [
        app.player("Ada"),
        app.player("Bo"),
        app.player("Cy"),
        app.player("Di"),
    ];
    let all: Vec<&crate::helpers::Player> = people.iter().collect();
    let id = app.start_game("partners", json!({}), &all);
    let bo = &people[1];
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        super::open_game(&c, &app, id, &bo.token).await;
        css(&c, "#chat .chat-tabs button[data-channel=team]").await;
        // The page's live stream is open: a message now arrives live, not in the first read.
        wait_for(
            &c,
            "the live stream open",
            "if (!window.__live) { import('/web/live.js').then((m) => { window.__live = m; }); return false; } \
             return window.__live.connected();",
        )
        .await;
        // Everyone else says something to their team: only Bo's partner's words reach Bo.
        let sent = tokio::task::block_in_place(|| {
            people
                .iter()
                .filter(|p| p.id != bo.id)
                .filter(|p| {
                    app.post(
                        &format!("/api/v1/games/{id}/chat"),
                        Some(&p.token),
                        &json!({ "text": "lead spades", "channel": "team" }),
                    )
                    .status()
                        == 201
                })
                .count()
        });
        assert_eq!(sent, 3, "each posts to their own team");
        let badge = wait_for(
            &c,
            "the Team tab's sign",
            "const b = document.querySelector('#chat .chat-tabs button[data-channel=team] .chat-unseen'); \
             return b && b.textContent.trim();",
        )
        .await;
        assert_eq!(badge, json!("1 new"));
        screenshot(&driver, &c, "chat-team-unseen.png").await;
        css(&c, "#chat .chat-tabs button[data-channel=team]")
            .await
            .click()
            .await
            .expect("open the Team tab");
        wait_for(
            &c,
            "the team message shown, the sign gone",
            "return !document.querySelector('#chat .chat-unseen') && \
             [...document.querySelectorAll('#chat .chat-text')].some((t) => t.textContent === 'lead spades');",
        )
        .await;
        assert_eq!(axe(&c).await, Vec::<String>::new(), "accessibility");
        let _ = c.close().await;
    });
}
