//! Every game's turn email as its player reads it, in both parts: the plain text says what
//! happened since the player's last move, naming people, and links only to pages for
//! people; the HTML part, opened in Chromium at phone and desktop widths, shows the
//! position as tables and lists (a map drawn in characters is left to the picture) and
//! nothing runs off the side. The pages and screenshots go to `target/screenshots/`.

use base64::Engine;

use mail_parser::MimeHeaders;
use serde_json::json;

use super::{Driver, advance, js, runtime, screenshot, screenshots};
use crate::email_play::turn_mail;
use crate::helpers::{Mail, Player, TestApp, spawn_app};

/// Each game type with a player count and how many first-legal moves to play before the
/// email is read.
const GAMES: [(&str, usize, usize); 7] = [
    ("kasino", 2, 5),
    ("partners", 4, 16),
    ("crossword-rummy", 2, 6),
    ("fuldrigger", 2, 8),
    ("starfarers", 3, 12),
    ("space-empires-4x", 2, 10),
    ("sp4x", 3, 8),
];

/// The inline pictures of the email whose Reply-To is `reply_to`: (Content-ID, data URL).
fn pictures_of(app: &TestApp, reply_to: &str) -> Vec<(String, String)> {
    for entry in std::fs::read_dir(&app.mail_dir)
        .into_iter()
        .flatten()
        .flatten()
    {
        let Ok(raw) = std::fs::read(entry.path()) else {
            continue;
        };
        let Some(m) = mail_parser::MessageParser::default().parse(&raw) else {
            continue;
        };
        let to_this = m
            .reply_to()
            .and_then(|a| a.first())
            .and_then(|a| a.address())
            == Some(reply_to);
        if !to_this {
            continue;
        }
        return m
            .parts
            .iter()
            .filter(|a| a.content_type().is_some_and(|t| t.subtype() == Some("png")))
            .map(|a| {
                (
                    a.content_id().unwrap_or_default().to_string(),
                    format!(
                        "data:image/png;base64,{}",
                        base64::engine::general_purpose::STANDARD.encode(a.contents())
                    ),
                )
            })
            .collect();
    }
    Vec::new()
}

/// The turn email of whoever acts now in game `id`.
fn current_turn_email(app: &TestApp, id: i64, players: &[&Player]) -> (Mail, String, String) {
    let (p, g) = players
        .iter()
        .map(|p| (*p, app.game(id, p)))
        .find(|(_, g)| g["legal_actions"].as_array().is_some_and(|a| !a.is_empty()))
        .expect("someone to act");
    let seat = g["your_seat"].as_i64().expect("seat");
    let version = g["version"].as_i64().expect("version");
    let mail = turn_mail(app, p, id, seat, version);
    let names = ["Ada", "Bo", "Cy", "Di"];
    let name = names[players.iter().position(|x| x.email == p.email).unwrap_or(0)];
    // The picture the email was drawn from: the seat's board at that version.
    let svg = app
        .get(
            &format!("/api/v1/games/{id}/board.svg?version={version}"),
            Some(&p.token),
        )
        .text()
        .expect("the board picture");
    (mail, name.to_string(), svg)
}

/// What the plain text and the HTML of one turn email must hold.
fn check_parts(game: &str, mail: &Mail, me: &str) {
    let (text, html) = (&mail.text, &mail.html);
    // What happened since the player last moved, by people's names.
    let recent: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Since your last move:")
        .skip(1)
        .take_while(|l| l.starts_with("  - "))
        .collect();
    assert!(!recent.is_empty(), "{game}: no recent moves in\n{text}");
    assert!(
        recent
            .iter()
            .any(|l| ["Ada (", "Bo (", "Cy (", "Di (", "You ("]
                .iter()
                .any(|n| l.contains(n))),
        "{game}: nobody named in {recent:?}"
    );
    assert!(html.contains("Since your last move</h2>"), "{game}");
    // A person's email: no API instructions, links to the web client's pages.
    for part in [text, html] {
        assert!(!part.contains("expected_version"), "{game}: {part}");
        assert!(!part.contains("/api/v1/games"), "{game}: {part}");
        assert!(!part.contains("as JSON"), "{game}: {part}");
    }
    assert!(text.contains(&format!("Hello {me},")), "{game}");
    assert!(text.contains("http://turnpost.test/#/game/"), "{game}");
    // The position in HTML is tables and lists; a character map is left to the picture.
    assert!(!html.contains("<pre"), "{game}: a <pre> in the HTML part");
    assert!(html.contains("The position in words"), "{game}");
}

#[test]
fn every_games_turn_email_reads_well_in_text_and_in_html_at_phone_and_desktop_width() {
    let app = spawn_app();
    let names = ["Ada", "Bo", "Cy", "Di"];
    let people: Vec<Player> = names.iter().map(|n| app.player(n)).collect();
    let mut pages = Vec::new();
    let mut rng = turnpost::engine::GameRng::seed_from_u64(7);
    for (game, n, moves) in GAMES {
        let players: Vec<&Player> = people.iter().take(n).collect();
        let id = app.start_game(game, json!({}), &players);
        advance(&app, id, &players, moves);
        // Until someone else moved since the player to act last did.
        for _ in 0..300 {
            let (p, g) = players
                .iter()
                .map(|p| (*p, app.game(id, p)))
                .find(|(_, g)| g["legal_actions"].as_array().is_some_and(|a| !a.is_empty()))
                .expect("someone to act");
            let log = app.log(id, p);
            if log.last().is_some_and(|e| e["seat"] != g["your_seat"]) {
                break;
            }
            // A random legal move: the first one may keep a seat busy for ever.
            let legal = g["legal_actions"].as_array().expect("legal").clone();
            let action = &legal[rng.below(legal.len())];
            let r = app.post(
                &format!("/api/v1/games/{id}/actions"),
                Some(&p.token),
                &json!({"expected_version": g["version"], "action": action}),
            );
            assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        }
        let (mail, me, svg) = current_turn_email(&app, id, &players);
        check_parts(game, &mail, &me);
        let pictures = pictures_of(&app, &mail.reply_to);
        assert_eq!(pictures.len(), 3, "{game}: the picture and its halves");
        // The pictures inline, as a mail client shows the `cid:` parts.
        let mut html = mail.html.clone();
        for (cid, data) in &pictures {
            let at = format!("src=\"cid:{cid}\"");
            assert!(html.contains(&at), "{game}: {cid} is shown");
            html = html.replace(&at, &format!("src=\"{data}\""));
        }
        let page = screenshots().join(format!("email-{game}.html"));
        std::fs::write(&page, html).expect("write the email page");
        std::fs::write(screenshots().join(format!("email-{game}.txt")), &mail.text)
            .expect("write the text part");
        pages.push((game, page, svg));
    }
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        for (game, page, svg) in &pages {
            for (width, label) in [(390, "phone"), (1100, "desktop")] {
                driver
                    .cdp(
                        &c,
                        "Emulation.setDeviceMetricsOverride",
                        json!({"width": width, "height": 844, "deviceScaleFactor": 1, "mobile": width < 600}),
                    )
                    .await;
                c.goto(&format!("file://{}", page.display()))
                    .await
                    .expect("open the email");
                // Laid out and painted: two animation frames after the load.
                super::next_frames(&c).await;
                // Nothing wider than the screen: no sideways scrolling to read a line.
                // (A phone's browser zooms out to fit a page too wide: compare with the
                // screen's own width.)
                let overflow = js(
                    &c,
                    &format!("return document.documentElement.scrollWidth - {width};"),
                )
                .await;
                assert!(
                    overflow.as_i64().unwrap_or(1) <= 0,
                    "{game} at {width} px overflows by {overflow}"
                );
                // The pictures shown, and their smallest text at the size shown: the whole
                // picture on a desktop, its halves on a phone.
                let shown = js(
                    &c,
                    &format!(
                        "const probe = document.createElement('div'); \
                         probe.style = 'position:absolute;left:-10000px;top:0'; \
                         probe.innerHTML = {}; document.body.append(probe); \
                         const svg = probe.querySelector('svg'); \
                         const units = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; \
                         const smallest = Math.min(...[...svg.querySelectorAll('text')] \
                           .map((t) => parseFloat(getComputedStyle(t).fontSize) / units) \
                           .filter((n) => n > 0)); \
                         const width = svg.viewBox.baseVal.width; probe.remove(); \
                         const seen = [...document.images].filter((i) => i.naturalWidth > 0 \
                           && i.getBoundingClientRect().width > 0); \
                         return [smallest, seen.map((i) => [i.alt.includes('half'), \
                           smallest * i.getBoundingClientRect().width \
                             / (i.alt.includes('half') ? width / 2 : width)])];",
                        json!(svg)
                    ),
                )
                .await;
                let (smallest, shown): (f64, Vec<(bool, f64)>) =
                    serde_json::from_value(shown).expect("the pictures shown");
                let halves = width < 600;
                assert_eq!(
                    shown.iter().map(|(half, _)| *half).collect::<Vec<_>>(),
                    if halves { vec![true, true] } else { vec![false] },
                    "{game} at {width} px: which pictures show"
                );
                // On a phone at least the 11 px the web client keeps a board's text at; on
                // a desktop the picture at its own size.
                let least = if halves { 11.0 } else { smallest - 0.01 };
                for (_, px) in &shown {
                    assert!(
                        *px >= least,
                        "{game} at {width} px: the picture's smallest text is {px:.1} px"
                    );
                }
                screenshot(&driver, &c, &format!("email-{game}-{label}.png")).await;
            }
        }
    });
}
