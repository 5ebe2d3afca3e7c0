//! Chat by email: `say` lines in a real reply through the inbound endpoint go
//! to the chat with the reply's moves or not at all; chat reaches other players in their
//! next turn email, or in a short chat email once the table is quiet (one an hour per game
//! at most, never to a player who muted the author, stopped game email, is in quiet hours
//! or reads the daily digest, where it goes instead).

use chrono::{Duration, Utc};
use diesel::prelude::*;
use serde_json::{Value, json};

use crate::email_play::{answer_to, deliver, reply, turn_mail};
use crate::helpers::{Mail, Player, TestApp, spawn_app};

fn chat_texts(app: &TestApp, id: i64, p: &Player) -> Vec<String> {
    let r = app.get(
        &format!("/api/v1/games/{id}/chat?limit=200"),
        Some(&p.token),
    );
    assert_eq!(r.status(), 200);
    r.json::<Value>().unwrap()["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

fn say(app: &TestApp, id: i64, p: &Player, text: &str) {
    let r = app.post(
        &format!("/api/v1/games/{id}/chat"),
        Some(&p.token),
        &json!({ "text": text }),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
}

/// The seat to act and its player.
fn to_act<'a>(app: &TestApp, id: i64, players: &[&'a Player]) -> (i64, i64, &'a Player) {
    let g = app.game(id, players[0]);
    let seat = g["to_act"][0].as_i64().unwrap();
    (g["version"].as_i64().unwrap(), seat, players[seat as usize])
}

/// Replies `lines` to the turn email now waiting for the seat to act.
fn reply_to_turn(app: &TestApp, id: i64, players: &[&Player], lines: &str, mid: &str) -> Value {
    let (version, seat, p) = to_act(app, id, players);
    let mail = turn_mail(app, p, id, seat, version);
    deliver(
        app,
        &reply(
            &p.email,
            &mail.reply_to,
            &mail.subject,
            lines,
            &mail.text,
            mid,
        ),
    )
}

fn chat_mails(app: &TestApp, p: &Player) -> Vec<Mail> {
    app.mails()
        .into_iter()
        .filter(|m| {
            m.to == p.email && m.subject.contains("table talk") && !m.subject.contains("digest")
        })
        .collect()
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

/// Waits until the outbox worker has sent (or dropped) every email due now.
fn settle(app: &TestApp) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut conn = PgConnection::establish(&app.database_url).unwrap();
    loop {
        let pending = diesel::sql_query(
            "SELECT count(*) AS n FROM outbox WHERE kind <> 'webhook' AND sent_at IS NULL \
             AND dropped_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()",
        )
        .get_result::<Count>(&mut conn)
        .unwrap()
        .n;
        if pending == 0 {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the outbox did not empty"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn say_lines_go_to_the_chat_with_the_moves_or_not_at_all() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let players = [&ada, &bo];

    // A move and a line to the table, in one reply: both.
    let (_, _, first) = to_act(&app, id, &players);
    let r = reply_to_turn(
        &app,
        id,
        &players,
        "say Good luck, <b>friend</b>!\n1",
        "say-1@mail.test",
    );
    assert_eq!(r["outcome"], "applied", "{r}");
    assert_eq!(
        chat_texts(&app, id, &ada),
        vec!["Good luck, <b>friend</b>!"]
    );
    let answer = answer_to(&app, "say-1@mail.test");
    assert!(
        answer.text.contains("Your message was posted"),
        "{}",
        answer.text
    );

    // The other player's next turn email carries it, as text in both parts.
    let (version, seat, second) = to_act(&app, id, &players);
    assert_ne!(first.email, second.email);
    let mail = turn_mail(&app, second, id, seat, version);
    assert!(mail.text.contains("Table talk:"), "{}", mail.text);
    let author = if first.email == ada.email {
        "Ada"
    } else {
        "Bo"
    };
    assert!(
        mail.text
            .contains(&format!("{author}: Good luck, <b>friend</b>!")),
        "{}",
        mail.text
    );
    assert!(
        mail.html.contains("Good luck, &lt;b&gt;friend&lt;/b&gt;!"),
        "{}",
        mail.html
    );
    assert!(!mail.html.contains("<b>friend"), "{}", mail.html);

    // A refused move posts nothing, and the answer says so.
    let r = reply_to_turn(&app, id, &players, "say nice one\n999", "say-2@mail.test");
    assert_eq!(r["outcome"], "refused", "{r}");
    assert_eq!(chat_texts(&app, id, &ada).len(), 1);
    let answer = answer_to(&app, "say-2@mail.test");
    assert!(
        answer.text.contains("Your message was not posted either"),
        "{}",
        answer.text
    );

    // A team line in a game without teams, an empty one: refused, nothing posted.
    for (n, lines) in ["say team: psst\n1", "say   \n1"].into_iter().enumerate() {
        let r = reply_to_turn(&app, id, &players, lines, &format!("bad-{n}@mail.test"));
        assert_eq!(r["outcome"], "refused", "{lines:?}: {r}");
        assert_eq!(chat_texts(&app, id, &ada).len(), 1, "{lines:?}");
    }

    // `say` lines alone: posted (bidi controls removed), nothing played.
    let before = app.game(id, &ada)["version"].clone();
    let r = reply_to_turn(
        &app,
        id,
        &players,
        "Say \u{202E}wait for it\nsay and then",
        "say-3@mail.test",
    );
    assert_eq!(r["outcome"], "chatted", "{r}");
    assert_eq!(app.game(id, &ada)["version"], before);
    assert_eq!(
        chat_texts(&app, id, &ada)[1],
        "wait for it\nand then",
        "a run of say lines is one message"
    );

    // The same reply delivered 20 times at once posts once.
    let (version, seat, p) = to_act(&app, id, &players);
    let mail = turn_mail(&app, p, id, seat, version);
    let raw = reply(
        &p.email,
        &mail.reply_to,
        &mail.subject,
        "say only once",
        &mail.text,
        "say-race@mail.test",
    );
    let outcomes: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..20)
            .map(|_| s.spawn(|| deliver(&app, &raw)["outcome"].as_str().unwrap().to_string()))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        outcomes.iter().filter(|o| *o == "chatted").count(),
        1,
        "{outcomes:?}"
    );
    assert_eq!(
        chat_texts(&app, id, &ada)
            .iter()
            .filter(|t| *t == "only once")
            .count(),
        1
    );
    // Delivered again after the processed replies were pruned: still posted once.
    let pruned = app
        .domain()
        .sweep(Utc::now() + Duration::days(app.settings.outbox_retention_days + 1))
        .unwrap();
    assert!(pruned.pruned_outbox >= 1, "{pruned:?}");
    let again = deliver(&app, &raw);
    assert_eq!(again["outcome"], "duplicate", "{again}");
    assert_eq!(
        chat_texts(&app, id, &ada)
            .iter()
            .filter(|t| *t == "only once")
            .count(),
        1
    );
}

#[test]
fn a_player_with_no_turn_coming_gets_one_chat_email_after_a_quiet_period() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let (_, _, mover) = to_act(&app, id, &[&ada, &bo]);
    let waiter = if mover.email == ada.email { &bo } else { &ada };
    settle(&app);
    let domain = app.domain();
    let sweep = |minutes: i64| {
        let n = domain
            .sweep(Utc::now() + Duration::minutes(minutes))
            .unwrap()
            .chat_emails;
        settle(&app);
        n
    };

    // The one to move writes; the other has no turn coming.
    say(&app, id, mover, "Thinking...");
    say(&app, id, mover, "<script>alert(1)</script> still thinking");
    assert_eq!(sweep(5), 0, "the table is not quiet yet");
    assert_eq!(sweep(11), 1);
    let mails = chat_mails(&app, waiter);
    assert_eq!(mails.len(), 1);
    let m = &mails[0];
    assert!(m.text.contains("Thinking..."), "{}", m.text);
    assert!(m.text.contains("<script>alert(1)</script> still thinking"));
    assert!(m.html.contains("&lt;script&gt;"), "{}", m.html);
    assert!(!m.html.contains("<script>"));
    assert!(!m.reply_to.is_empty(), "a chat email can be answered");
    assert!(chat_mails(&app, mover).is_empty(), "not to its author");

    // Nothing new: nothing more. Something new within the hour: not yet.
    assert_eq!(sweep(12), 0);
    say(&app, id, mover, "Your move soon");
    assert_eq!(sweep(20), 0, "at most one an hour");
    assert_eq!(sweep(75), 1);
    let last = chat_mails(&app, waiter)
        .into_iter()
        .find(|m| m.text.contains("Your move soon"))
        .expect("the second chat email");
    assert!(
        !last.text.contains("Thinking..."),
        "each message is sent once"
    );

    // Answering it with `say` posts to the table.
    let r = deliver(
        &app,
        &reply(
            &waiter.email,
            &last.reply_to,
            &last.subject,
            "say take your time",
            &last.text,
            "answer-chat@mail.test",
        ),
    );
    assert_eq!(r["outcome"], "chatted", "{r}");
    assert!(chat_texts(&app, id, mover).contains(&"take your time".to_string()));

    // Read on the page: no email.
    say(&app, id, mover, "seen on the web");
    let page: Value = app
        .get(&format!("/api/v1/games/{id}/chat"), Some(&waiter.token))
        .json()
        .unwrap();
    let newest = page["messages"].as_array().unwrap().last().unwrap()["id"].clone();
    let r = app.post(
        &format!("/api/v1/games/{id}/chat/read"),
        Some(&waiter.token),
        &json!({ "last_read_id": newest }),
    );
    assert!(r.status().is_success());
    let before = chat_mails(&app, waiter).len();
    sweep(200);
    assert_eq!(chat_mails(&app, waiter).len(), before, "read on the page");
    // The mover, whose turn email went long ago, gets the answer by chat email.
    assert!(
        chat_mails(&app, mover)
            .iter()
            .any(|m| m.text.contains("take your time")),
        "the other way round"
    );
}

/// Who gets no chat email: a player who muted the author, stopped game email, is in quiet
/// hours, or reads the digest (where the chat goes instead).
#[test]
fn mute_stop_quiet_hours_and_digest_are_respected() {
    let app = spawn_app();
    let bo = app.player("Bo");
    let ada = app.player("Ada");
    let cases: Vec<(&str, Player)> = ["muted", "stopped", "quiet", "digest", "plain"]
        .into_iter()
        .map(|c| (c, app.player(c)))
        .collect();
    let mut games = Vec::new();
    for (case, p) in &cases {
        // Bo moves first and writes; `p` waits for their turn (a 3-player game, so that
        // it is not always `p`'s turn next).
        let id = app.start_game("kasino", json!({}), &[&bo, p, &ada]);
        games.push((case, p, id));
        let body = match *case {
            "stopped" => json!({ "email_notifications": "off" }),
            "quiet" => {
                let h = (Utc::now() + Duration::hours(3)).format("%H").to_string();
                let h: i64 = h.parse().unwrap();
                json!({ "time_zone": "UTC", "quiet_hours": [(h + 22) % 24, (h + 2) % 24] })
            }
            "digest" => json!({ "email_notifications": "daily_digest", "digest_hour": 0 }),
            _ => json!({}),
        };
        let r = app
            .client
            .patch(app.url("/api/v1/me"))
            .bearer_auth(&p.token)
            .json(&body)
            .send()
            .unwrap();
        assert!(
            r.status().is_success(),
            "{case}: {}",
            r.text().unwrap_or_default()
        );
        if *case == "muted" {
            let r = app.post(
                &format!("/api/v1/accounts/{}/mute", bo.id),
                Some(&p.token),
                &json!({}),
            );
            assert!(r.status().is_success());
        }
    }
    settle(&app);
    for (_, _, id) in &games {
        say(&app, *id, &bo, "hello table");
    }
    let domain = app.domain();
    domain.sweep(Utc::now() + Duration::hours(3)).unwrap();
    settle(&app);
    for (case, p, _) in &games {
        let got = chat_mails(&app, p).len();
        let want = usize::from(**case == "plain");
        assert_eq!(got, want, "{case}");
    }
    // The digest carries it instead, once.
    let digests: Vec<Mail> = app
        .mails()
        .into_iter()
        .filter(|m| m.to == games[3].1.email && m.subject.contains("daily digest"))
        .collect();
    assert_eq!(digests.len(), 1, "one digest");
    assert!(
        digests[0].text.contains("Table talk in Kasino"),
        "{}",
        digests[0].text
    );
    assert!(
        digests[0].text.contains("Bo: hello table"),
        "{}",
        digests[0].text
    );
}

/// Team talk by email reaches the team alone: in Partners, seat 1's partner gets it, the
/// opponents get only what was said to the table.
#[test]
fn team_talk_is_emailed_to_the_team_alone() {
    let app = spawn_app();
    let people: Vec<Player> = ["Ada", "Bo", "Cy", "Di"]
        .into_iter()
        .map(|n| app.player(n))
        .collect();
    let seated: Vec<&Player> = people.iter().collect();
    let id = app.start_game("partners", json!({}), &seated);
    settle(&app);
    let r = app.post(
        &format!("/api/v1/games/{id}/chat"),
        Some(&people[0].token),
        &json!({ "text": "lead hearts, partner", "channel": "team" }),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    say(&app, id, &people[0], "good luck all");
    app.domain().sweep(Utc::now() + Duration::hours(1)).unwrap();
    settle(&app);
    let mate: Vec<Mail> = chat_mails(&app, &people[2]);
    assert_eq!(mate.len(), 1);
    assert!(
        mate[0]
            .text
            .contains("Ada (to your team): lead hearts, partner"),
        "{}",
        mate[0].text
    );
    assert!(mate[0].text.contains("Ada: good luck all"));
    for opponent in [&people[1], &people[3]] {
        let mails = chat_mails(&app, opponent);
        assert_eq!(mails.len(), 1);
        assert!(mails[0].text.contains("good luck all"));
        assert!(!mails[0].text.contains("hearts"), "{}", mails[0].text);
        assert!(!mails[0].html.contains("hearts"));
    }
}
