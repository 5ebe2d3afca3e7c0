//! A whole Kasino game played by email replies through the inbound endpoint: real MIME
//! built by lettre (quoted history, signatures, an HTML-only mail), a wrong sender, a stale
//! token, a preview, an all-or-nothing batch that fails half-way, a duplicate delivery.

use std::collections::BTreeSet;

use lettre::Message;
use lettre::message::header::ContentType;
use lettre::message::{Mailbox, SinglePart};
use serde_json::{Value, json};

use crate::helpers::{Mail, Player, TestApp, forced_moves, run_verify, spawn_app};

/// A reply as a mail client writes it: the player's lines, an attribution line, the quoted
/// email, a signature.
pub fn reply(
    from: &str,
    to: &str,
    subject: &str,
    lines: &str,
    quoted: &str,
    message_id: &str,
) -> Vec<u8> {
    let quoted: Vec<String> = quoted.lines().map(|l| format!("> {l}")).collect();
    let text = format!(
        "{lines}\n\nOn Sat, 21 Nov 2026 at 09:14, Turnpost <turnpost@localhost> wrote:\n{}\n\n-- \nAda Lovelace\nAnalytical Engines Ltd.\n",
        quoted.join("\n")
    );
    let from: Mailbox = from.parse().unwrap();
    Message::builder()
        .from(from)
        .to(to.parse().unwrap())
        .subject(format!("Re: {subject}"))
        .message_id(Some(format!("<{message_id}>")))
        .header(ContentType::TEXT_PLAIN)
        .body(text)
        .unwrap()
        .formatted()
}

/// An HTML-only reply, as some webmail clients send it.
fn html_reply(from: &str, to: &str, subject: &str, line: &str, message_id: &str) -> Vec<u8> {
    let html = format!(
        "<html><body><div dir=\"ltr\">{}</div><br><div class=\"gmail_quote\"><div>On Sat, 21 Nov 2026 at 09:14, \
         Turnpost &lt;turnpost@localhost&gt; wrote:</div><blockquote>Hello<br>1. something</blockquote></div></body></html>",
        html_escape::encode_text(line)
    );
    Message::builder()
        .from(from.parse().unwrap())
        .to(to.parse().unwrap())
        .subject(format!("Re: {subject}"))
        .message_id(Some(format!("<{message_id}>")))
        .singlepart(SinglePart::html(html))
        .unwrap()
        .formatted()
}

/// The numbered choices listed in a turn email.
pub fn choices(mail: &Mail) -> Vec<String> {
    mail.text
        .lines()
        .skip_while(|l| !l.starts_with("Your choices:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.trim().split_once(". "))
        .filter(|(n, _)| n.parse::<usize>().is_ok())
        .map(|(_, t)| t.to_string())
        .collect()
}

fn token_marker(id: i64, seat: i64, version: i64) -> String {
    format!("play+{id}-{seat}-{version}-")
}

/// Waits for an email to `p` whose Reply-To carries the token of (game, seat, version).
pub fn turn_mail(app: &TestApp, p: &Player, id: i64, seat: i64, version: i64) -> Mail {
    let marker = token_marker(id, seat, version);
    let mails = app.wait_for_mails(&format!("a mail with token {marker}"), |m| {
        m.iter()
            .any(|x| x.to == p.email && x.reply_to.starts_with(&marker))
    });
    mails
        .into_iter()
        .find(|x| x.to == p.email && x.reply_to.starts_with(&marker))
        .unwrap()
}

/// A reply choosing the first listed choice, to the turn email now waiting for the seat to
/// act: (the sender's address, the Reply-To it goes to, the raw message, the version).
pub fn first_choice_reply(
    app: &TestApp,
    id: i64,
    players: &[&Player],
    mid: &str,
) -> (String, String, Vec<u8>, i64) {
    let g = app.game(id, players[0]);
    let version = g["version"].as_i64().unwrap();
    let seat = g["to_act"][0].as_i64().unwrap();
    let p = players[seat as usize];
    let mail = turn_mail(app, p, id, seat, version);
    let raw = reply(
        &p.email,
        &mail.reply_to,
        &mail.subject,
        "1",
        &mail.text,
        mid,
    );
    (p.email.clone(), mail.reply_to, raw, version)
}

pub fn deliver(app: &TestApp, raw: &[u8]) -> Value {
    let r = app.inbound(raw);
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    r.json().unwrap()
}

pub fn answer_to(app: &TestApp, message_id: &str) -> Mail {
    let want = format!("<{message_id}>");
    let mails = app.wait_for_mails(&format!("the answer to {message_id}"), |m| {
        m.iter().any(|x| x.in_reply_to == want)
    });
    mails.into_iter().find(|x| x.in_reply_to == want).unwrap()
}

fn log_len(app: &TestApp, id: i64, p: &Player) -> usize {
    let r = app.get(
        &format!("/api/v1/games/{id}/log?limit=1000"),
        Some(&p.token),
    );
    r.json::<Value>().unwrap().as_array().unwrap().len()
}

#[test]
fn a_whole_kasino_game_played_by_email_replies() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let dee = app.player("Dee");
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let mut rng = turnpost::engine::GameRng::seed_from_u64(66);
    let mut moves = 0usize;
    let mut previous_token: [Option<(String, i64)>; 2] = [None, None];
    let mut seen = BTreeSet::new();
    let mut stale_checked = false;
    let mut n_msg = 0usize;
    let mut next_id = || {
        n_msg += 1;
        format!(
            "reply-{n_msg}-{}@mail.example.org",
            hex::encode(rand::random::<[u8; 4]>())
        )
    };
    loop {
        let g = app.game(id, &ada);
        if g["status"] == "finished" {
            break;
        }
        assert!(moves < 500, "the game did not finish");
        let version = g["version"].as_i64().unwrap();
        let seat = g["to_act"][0].as_i64().unwrap();
        let p = players[seat as usize];
        let mail = turn_mail(&app, p, id, seat, version);
        assert!(
            mail.subject
                .starts_with(&format!("[Turnpost] Kasino #{id}: ")),
            "{}",
            mail.subject
        );
        let list = choices(&mail);
        let mine = app.game(id, p);
        assert_eq!(
            list,
            mine["legal_action_texts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .take(turnpost::notify::compose::MAX_LISTED_CHOICES)
                .collect::<Vec<_>>(),
            "the email lists the legal actions in the API's order (at most the cap)"
        );
        let n = rng.below(list.len()) + 1;
        // The player's own address, with a display name and in other letter case.
        let from = format!(
            "\"{} Player\" <{}>",
            if seat == 0 { "Ada" } else { "Bo" },
            p.email.to_uppercase()
        );
        let to = mail.reply_to.clone();
        let log_before = log_len(&app, id, p);

        match moves {
            // Someone else replies with the player's reply address: refused, answered.
            0 => {
                let mid = next_id();
                let r = deliver(
                    &app,
                    &reply(&dee.email, &to, &mail.subject, "1", &mail.text, &mid),
                );
                assert_eq!(
                    (r["outcome"].as_str(), r["code"].as_str()),
                    (Some("refused"), Some("wrong_sender")),
                    "{r}"
                );
                // Dee has an account but no seat in this game: she is not told anything
                // about it (a forged From must not turn refusals into mail to strangers).
                assert_eq!(r["answered"], false, "{r}");
                // A tampered token is refused too.
                let forged = to.replacen(
                    &format!("+{id}-{seat}-"),
                    &format!("+{id}-{}-", 1 - seat),
                    1,
                );
                let mid = next_id();
                let r = deliver(&app, &reply(&from, &forged, &mail.subject, "1", "", &mid));
                assert_eq!(r["code"], "invalid_reply_token", "{r}");
                // No reply address at all.
                let mid = next_id();
                let r = deliver(
                    &app,
                    &reply(&from, "play@turnpost.test", &mail.subject, "1", "", &mid),
                );
                assert_eq!(r["code"], "no_reply_token", "{r}");
            }
            // A preview answers with the resulting position and commits nothing.
            1 => {
                let mid = next_id();
                let r = deliver(
                    &app,
                    &reply(
                        &from,
                        &to,
                        &mail.subject,
                        &format!("preview\n{n}"),
                        &mail.text,
                        &mid,
                    ),
                );
                assert_eq!(r["outcome"], "previewed", "{r}");
                assert_eq!(r["version"], version);
                let ans = answer_to(&app, &mid);
                assert!(
                    ans.text.contains("Preview: nothing was played"),
                    "{}",
                    ans.text
                );
                assert!(
                    ans.text.contains(&list[n - 1]),
                    "the preview names the action"
                );
                assert!(
                    ans.reply_to.starts_with(&token_marker(id, seat, version)),
                    "the preview can be answered"
                );
            }
            // A batch whose second line fails: all or nothing.
            2 => {
                let mid = next_id();
                let r = deliver(
                    &app,
                    &reply(
                        &from,
                        &to,
                        &mail.subject,
                        &format!("{n}\n1"),
                        &mail.text,
                        &mid,
                    ),
                );
                assert_eq!(r["outcome"], "refused", "{r}");
                assert_eq!(r["code"], "not_your_turn", "{r}");
                let ans = answer_to(&app, &mid);
                assert!(
                    ans.text.contains("line 2 (\"1\") was refused"),
                    "{}",
                    ans.text
                );
                assert!(
                    ans.text.contains("not even the lines before it"),
                    "{}",
                    ans.text
                );
                // An unknown command and a choice that does not exist.
                let mid = next_id();
                let r = deliver(
                    &app,
                    &reply(&from, &to, &mail.subject, "juggle the deck", "", &mid),
                );
                assert_eq!(r["code"], "unknown_command", "{r}");
                let mid = next_id();
                let r = deliver(
                    &app,
                    &reply(
                        &from,
                        &to,
                        &mail.subject,
                        &format!("{}", list.len() + 1),
                        "",
                        &mid,
                    ),
                );
                assert_eq!(r["code"], "no_such_choice", "{r}");
            }
            // A reply to an old email: the current position instead.
            3.. if !stale_checked && previous_token[seat as usize].is_some() => {
                stale_checked = true;
                let (old_to, old_version) = previous_token[seat as usize].clone().unwrap();
                let mid = next_id();
                let r = deliver(
                    &app,
                    &reply(&from, &old_to, &mail.subject, "1", &mail.text, &mid),
                );
                assert_eq!(
                    (r["outcome"].as_str(), r["code"].as_str()),
                    (Some("stale"), Some("stale_token")),
                    "{r}"
                );
                let ans = answer_to(&app, &mid);
                assert!(
                    ans.text
                        .contains(&format!("answers move {}", old_version + 1)),
                    "{}",
                    ans.text
                );
                assert!(ans.text.contains("Your choices:"));
                assert!(
                    ans.reply_to.starts_with(&token_marker(id, seat, version)),
                    "{}",
                    ans.reply_to
                );
                // help and status answer without playing.
                let mid = next_id();
                assert_eq!(
                    deliver(&app, &reply(&from, &to, &mail.subject, "help", "", &mid))["outcome"],
                    "help"
                );
                let help = answer_to(&app, &mid).text;
                assert!(help.contains("How to play"), "{help}");
                assert!(help.contains("http://turnpost.test/docs/players"), "{help}");
                let mid = next_id();
                assert_eq!(
                    deliver(&app, &reply(&from, &to, &mail.subject, "status", "", &mid))["outcome"],
                    "status"
                );
            }
            _ => {}
        }
        assert_eq!(
            app.game(id, p)["version"],
            version,
            "nothing above changed the game"
        );
        assert_eq!(log_len(&app, id, p), log_before, "nor its log");

        // The move itself: by number, by its text, or in an HTML-only mail.
        let mid = next_id();
        let raw = match moves % 3 {
            0 => reply(&from, &to, &mail.subject, &n.to_string(), &mail.text, &mid),
            1 => reply(
                &from,
                &to,
                &mail.subject,
                &list[n - 1].to_uppercase(),
                &mail.text,
                &mid,
            ),
            _ => html_reply(&from, &to, &mail.subject, &list[n - 1], &mid),
        };
        let r = deliver(&app, &raw);
        assert_eq!(r["outcome"], "applied", "{r}");
        assert_eq!(r["applied"].as_array().unwrap().len(), 1);
        assert!(r["version"].as_i64().unwrap() > version);
        if moves == 4 {
            // The MTA delivers the same message again: processed once.
            let again = deliver(&app, &raw);
            assert_eq!(again["outcome"], "duplicate", "{again}");
        }
        let ans = answer_to(&app, &mid);
        assert!(ans.text.contains("Played:"), "{}", ans.text);
        assert!(seen.insert(mid));
        previous_token[seat as usize] = Some((to, version));
        moves += 1;
    }
    assert!(stale_checked, "a stale token was tried");
    let g = app.game(id, &ada);
    assert_eq!(g["result"]["ranking"].as_array().unwrap().len(), 2);
    // Every version is an applied reply or a move the server played because it was the
    // only choice (marked in the log).
    let forced = forced_moves(&app.log(id, &ada));
    assert_eq!(
        g["version"].as_i64().unwrap(),
        (moves + forced) as i64,
        "one version per applied reply or forced move"
    );
    // Answers are threaded and automatic, so no robot answers them back.
    let (ok, out) = run_verify(&app);
    assert!(ok, "verify failed: {out}");
}

#[test]
fn the_inbound_endpoint_refuses_bad_deliveries() {
    let app = spawn_app();
    let raw = b"From: a@example.org\r\nTo: play@turnpost.test\r\nSubject: x\r\n\r\n1\r\n";
    let url = app.url("/api/v1/inbound/email");
    let problem = |r: reqwest::blocking::Response| {
        let status = r.status().as_u16();
        assert_eq!(r.headers()["content-type"], "application/problem+json");
        (
            status,
            r.json::<Value>().unwrap()["code"]
                .as_str()
                .unwrap()
                .to_string(),
        )
    };
    let r = app
        .client
        .post(&url)
        .header("content-type", "message/rfc822")
        .body(raw.to_vec())
        .send()
        .unwrap();
    assert_eq!(problem(r), (401, "unauthorized".into()));
    let r = app
        .client
        .post(&url)
        .bearer_auth("wrong")
        .header("content-type", "message/rfc822")
        .body(raw.to_vec())
        .send()
        .unwrap();
    assert_eq!(problem(r), (401, "unauthorized".into()));
    let r = app
        .client
        .post(&url)
        .bearer_auth(crate::helpers::INBOUND_SECRET)
        .header("content-type", "text/plain")
        .body(raw.to_vec())
        .send()
        .unwrap();
    assert_eq!(problem(r), (415, "unsupported_media_type".into()));
    assert_eq!(
        problem(app.inbound(b"no headers at all")),
        (422, "invalid_message".into())
    );
    assert_eq!(
        problem(app.inbound(b"Subject: x\r\n\r\nhello\r\n")),
        (422, "invalid_message".into())
    );
    // Automatic mail is never answered.
    let auto = b"From: robot@example.org\r\nTo: play+1-0-0-00@turnpost.test\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <auto@x>\r\n\r\nI am away\r\n";
    let r = app.inbound(auto);
    assert_eq!(r.status(), 200);
    let v: Value = r.json().unwrap();
    assert_eq!(
        (v["outcome"].as_str(), v["answered"].as_bool()),
        (Some("ignored"), Some(false))
    );

    // Without a configured secret the endpoint is off.
    let off = crate::helpers::spawn_app_with(|s| s.inbound_secret = None);
    let r = off.inbound(raw);
    assert_eq!(problem(r), (503, "inbound_disabled".into()));
}

#[test]
fn resigning_by_email_ends_a_two_player_game() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let g = app.game(id, &ada);
    let seat = g["to_act"][0].as_i64().unwrap();
    let (p, other) = if seat == 0 { (&ada, &bo) } else { (&bo, &ada) };
    let mail = turn_mail(&app, p, id, seat, 0);
    let r = deliver(
        &app,
        &reply(
            &p.email,
            &mail.reply_to,
            &mail.subject,
            "resign",
            &mail.text,
            "resign-1@x.org",
        ),
    );
    assert_eq!(r["outcome"], "resigned", "{r}");
    let g = app.game(id, other);
    assert_eq!(g["status"], "finished");
    assert_eq!(g["result"]["ranking"][0]["seat"], 1 - seat);
    assert_eq!(g["result"]["ranking"][1]["seat"], seat);
    let over = format!("[Turnpost] Kasino #{id}: game over");
    let mails = app.wait_for_mails("game-over emails", |m| {
        m.iter().filter(|x| x.subject == over).count() == 2
    });
    // The position was left with a turn to play, which the email does not call final.
    for m in mails.iter().filter(|x| x.subject == over) {
        assert!(m.text.contains("resigned"), "{}", m.text);
        assert!(
            m.text
                .contains("The position when the game ended (the turn it shows was not played):")
                && !m.text.contains("Final position"),
            "{}",
            m.text
        );
    }
    // Further replies are answered with the result and change nothing.
    let r = deliver(
        &app,
        &reply(
            &p.email,
            &mail.reply_to,
            &mail.subject,
            "1",
            "",
            "late-1@x.org",
        ),
    );
    assert_eq!(r["code"], "game_not_active", "{r}");
}

/// The Crossword Rummy meld, the game's main move, is played by a reply in the notation:
/// the turn email explains it with an example from the player's own rack, and the reply
/// sends that example back over several lines.
#[test]
fn a_crossword_rummy_meld_is_played_by_an_email_in_the_notation() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo")];
    let id = app.start_game("crossword-rummy", json!({}), &[&people[0], &people[1]]);
    // Draw until the player to act holds an opening the game lists.
    let mut found = None;
    for _ in 0..40 {
        let mover = people
            .iter()
            .find(|p| {
                let g = app.game(id, p);
                g["to_act"][0] == g["your_seat"]
            })
            .expect("someone to act");
        let g = app.game(id, mover);
        let legal = g["legal_actions"].as_array().expect("legal actions");
        if legal.iter().any(|a| a["type"] == "meld") {
            found = Some((mover, g));
            break;
        }
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&mover.token),
            &json!({"expected_version": g["version"], "action": {"type": "draw_bag"}}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    }
    let (mover, g) = found.expect("an opening meld within 40 draws");
    let seat = g["your_seat"].as_i64().unwrap();
    let version = g["version"].as_i64().unwrap();
    let mail = turn_mail(&app, mover, id, seat, version);
    assert!(mail.text.contains("Writing a meld"), "{}", mail.text);
    // The example: the indented lines after "For example, ...".
    let example: Vec<String> = mail
        .text
        .lines()
        .skip_while(|l| !l.starts_with("For example"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.trim().to_string())
        .collect();
    assert!(
        !example.is_empty() && example.iter().all(|l| l.starts_with("lay ")),
        "no example meld in\n{}",
        mail.text
    );
    let rack_before = g["view"]["your_rack"].as_array().map_or(0, Vec::len);
    let laid: usize = example
        .iter()
        .map(|l| l.split_whitespace().take_while(|w| *w != "at").count() - 1)
        .sum();
    let r = deliver(
        &app,
        &reply(
            &mover.email,
            &mail.reply_to,
            &mail.subject,
            &example.join("\n"),
            &mail.text,
            "meld-1@x.org",
        ),
    );
    assert_eq!(r["outcome"], "applied", "{r}");
    let after = app.game(id, mover);
    let table = after["view"]["table"].as_array().expect("table");
    assert_eq!(table.len(), laid, "{after}");
    if rack_before > 0 {
        let rack_after = after["view"]["your_rack"].as_array().map_or(0, Vec::len);
        assert_eq!(rack_after + laid, rack_before);
    }
    // A meld in the notation that the rules refuse is explained and plays nothing.
    let bad = "lay R1 at 0,0";
    let other = people.iter().find(|p| p.email != mover.email).unwrap();
    let g = app.game(id, other);
    if g["to_act"][0] == g["your_seat"] {
        let v = g["version"].as_i64().unwrap();
        let mail = turn_mail(&app, other, id, g["your_seat"].as_i64().unwrap(), v);
        let r = deliver(
            &app,
            &reply(
                &other.email,
                &mail.reply_to,
                &mail.subject,
                bad,
                "",
                "meld-2@x.org",
            ),
        );
        assert_eq!(r["outcome"], "refused", "{r}");
        assert_eq!(app.game(id, other)["version"], v);
    }
}

/// A Starfarers trade offer is a decision for a seat that is not the one to act: the
/// offer's recipient gets an email listing accept and decline, and accepts by reply.
#[test]
fn a_starfarers_trade_offer_reaches_its_recipient_who_accepts_by_reply() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo"), app.player("Cy")];
    let id = app.start_game(
        "starfarers",
        json!({}),
        &[&people[0], &people[1], &people[2]],
    );
    // Play the first legal action of whoever acts until the active player can offer.
    let mut offered = None;
    for _ in 0..400 {
        let (mover, g) = people
            .iter()
            .map(|p| (p, app.game(id, p)))
            .find(|(_, g)| g["to_act"][0] == g["your_seat"])
            .expect("someone to act");
        let legal = g["legal_actions"].as_array().unwrap().clone();
        // An offer the recipient can accept: one asking for cards they hold (the test
        // reads their hand; the offering player could not).
        let offer = legal.iter().find(|a| {
            a["type"] == "offer_trade" && {
                let to = a["to"].as_u64().unwrap() as usize;
                let them = app.game(id, &people[to]);
                let hand = &them["view"]["players"][to]["hand"];
                a["get"]
                    .as_object()
                    .is_some_and(|want| want.iter().all(|(r, n)| hand[r].as_u64() >= n.as_u64()))
            }
        });
        // Otherwise keep the cards coming: roll and end turns, build nothing.
        let calm = ["roll", "end_turn", "launch", "take_supply", "decline_offer"];
        let action = offer
            .or_else(|| {
                legal
                    .iter()
                    .find(|a| calm.contains(&a["type"].as_str().unwrap_or("")))
            })
            .unwrap_or(&legal[0])
            .clone();
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&mover.token),
            &json!({"expected_version": g["version"], "action": action}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        if offer.is_some() {
            let after: Value = r.json().unwrap();
            offered = Some((action, after["version"].as_i64().unwrap()));
            break;
        }
    }
    let (offer, version) = offered.expect("an offer within 400 moves");
    let to = offer["to"].as_i64().unwrap();
    let recipient = &people[to as usize];
    // The recipient is not the one to act, yet is told and can answer.
    let g = app.game(id, recipient);
    assert_ne!(g["to_act"][0], to, "{g}");
    let mail = turn_mail(&app, recipient, id, to, version);
    // Not their turn, but a decision of theirs: said so from the subject on.
    assert!(
        mail.subject.ends_with(": your decision"),
        "{}",
        mail.subject
    );
    let listed = choices(&mail);
    assert!(
        listed.iter().filter(|t| t.starts_with("accept")).count() == 1,
        "one accept among {listed:?}\n{}",
        mail.text
    );
    assert!(
        listed.iter().any(|t| t == "decline the offer"),
        "{listed:?}"
    );
    // The game's "accept …" wins over the takeback answer `accept`: written as a person
    // would, the first word of the one choice that begins with it.
    let r = deliver(
        &app,
        &reply(
            &recipient.email,
            &mail.reply_to,
            &mail.subject,
            "Accept",
            &mail.text,
            "accept-1@x.org",
        ),
    );
    assert_eq!(r["outcome"], "applied", "{r}");
    let log: Value = app
        .get(
            &format!("/api/v1/games/{id}/log?limit=1000"),
            Some(&recipient.token),
        )
        .json()
        .unwrap();
    let accepted = log
        .as_array()
        .unwrap()
        .iter()
        .rev()
        .find(|e| e["seat"] == to)
        .expect("the recipient's entry");
    assert!(
        accepted["text"]
            .as_str()
            .is_some_and(|t| t.starts_with("accept")),
        "{accepted}"
    );
}

/// On a crowded table the list of choices is a sample. A capture it leaves out is played
/// by writing it in the notation of the list (letters for suits, lower case), the turn
/// email says how, and a slip is explained and plays nothing.
#[test]
fn a_kasino_capture_the_list_leaves_out_is_played_by_email_in_the_notation() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo")];
    let id = app.start_game("kasino", json!({}), &[&people[0], &people[1]]);
    let (mover, g, capture) = crate::kasino::crowd_the_table(&app, id, &[&people[0], &people[1]]);
    let seat = g["your_seat"].as_i64().unwrap();
    let version = g["version"].as_i64().unwrap();
    let mail = turn_mail(&app, mover, id, seat, version);
    assert!(mail.text.contains("Writing a move"), "{}", mail.text);
    assert!(
        mail.text.contains("your largest capture now:"),
        "{}",
        mail.text
    );
    let taken: Vec<String> = serde_json::from_value(capture["cards"].clone()).unwrap();
    let card = capture["card"].as_str().unwrap().to_lowercase();
    let send = |line: &str, message_id: &str| {
        deliver(
            &app,
            &reply(
                &mover.email,
                &mail.reply_to,
                &mail.subject,
                line,
                &mail.text,
                message_id,
            ),
        )
    };

    let r = send(&format!("take {}x with {card}", taken[0]), "crowd-1@x.org");
    assert_eq!(r["outcome"], "refused", "{r}");
    assert!(
        r["detail"].as_str().unwrap().contains("is not a card"),
        "{r}"
    );
    assert_eq!(app.game(id, mover)["version"], version);

    let cards: Vec<String> = taken.iter().map(|c| c.to_lowercase()).collect();
    let line = format!("take {} with {card}", cards.join(" "));
    let r = send(&line, "crowd-2@x.org");
    assert_eq!(r["outcome"], "applied", "{line}: {r}");
    let after = app.game(id, mover);
    assert!(after["version"].as_i64().unwrap() > version);
    let table = after["view"]["table"].to_string();
    for c in &taken {
        assert!(
            !table.contains(&format!("\"{c}\"")),
            "{c} still on the table"
        );
    }
}
