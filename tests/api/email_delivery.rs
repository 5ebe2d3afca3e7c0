//! Email as players receive it: HTML with the seat's board picture inline, one thread per
//! game and seat, one-click unsubscribe, a grace period that keeps fast play quiet,
//! bounces, address confirmation, and `stop`/`mute` replies.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use chrono::Utc;
use diesel::prelude::*;
use mail_parser::{MessageParser, MimeHeaders};
use secrecy::SecretString;
use serde_json::{Value, json};
use turnpost::notify::transport::Mailer;
use turnpost::outbox::worker::Worker;

use crate::email_play::{answer_to, deliver, reply, turn_mail};
use crate::helpers::{Player, TestApp, assert_problem, spawn_app, spawn_app_with};
use crate::smtp_sink::Sink;

fn db(app: &TestApp) -> PgConnection {
    PgConnection::establish(&app.database_url).expect("connect")
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    n: i64,
}

fn count(app: &TestApp, sql: &str) -> i64 {
    diesel::sql_query(sql)
        .get_result::<Count>(&mut db(app))
        .expect("count")
        .n
}

/// Turn email rows queued for `p` so far (sent, pending or dropped).
fn turn_rows(app: &TestApp, p: &Player) -> i64 {
    count(
        app,
        &format!(
            "SELECT count(*) AS n FROM outbox WHERE kind = 'turn' AND account_id = {}",
            p.id
        ),
    )
}

fn header(raw: &[u8], name: &str) -> String {
    let m = MessageParser::default().parse(raw).expect("a message");
    m.header_raw(name).unwrap_or_default().trim().to_string()
}

/// The inline PNG of a message: (Content-ID, bytes).
fn inline_png(raw: &[u8]) -> Option<(String, Vec<u8>)> {
    let m = MessageParser::default().parse(raw)?;
    m.parts.iter().find_map(|p| {
        let ct = p.content_type()?;
        (ct.ctype() == "image" && ct.subtype() == Some("png")).then(|| {
            (
                p.content_id().unwrap_or_default().to_string(),
                p.contents().to_vec(),
            )
        })
    })
}

/// A PNG's width and height, from its IHDR chunk; checks the signature.
fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "PNG signature");
    assert_eq!(&png[12..16], b"IHDR");
    let be = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    (be(&png[16..20]), be(&png[20..24]))
}

/// A link from an email, made to point at the test server.
fn local(app: &TestApp, url: &str) -> String {
    url.replacen("http://turnpost.test", &app.address, 1)
}

fn seat_player<'a>(g: &Value, players: &[&'a Player]) -> (i64, &'a Player) {
    let seat = g["to_act"][0].as_i64().unwrap();
    let account = g["seats"][seat as usize]["account_id"].as_i64().unwrap();
    (
        seat,
        players.iter().find(|p| p.id == account).copied().unwrap(),
    )
}

fn play_first(app: &TestApp, id: i64, p: &Player) {
    let mine = app.game(id, p);
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

/// `p` moves, then the others until the game waits for `p` again (or is over): a move
/// that is a seat's only choice plays itself, so the turn need not simply alternate.
fn play_round(app: &TestApp, id: i64, players: &[&Player], p: &Player) {
    play_first(app, id, p);
    play_until_turn_of(app, id, players, p);
}

/// The others move until the game waits for `p` (or is over).
fn play_until_turn_of(app: &TestApp, id: i64, players: &[&Player], p: &Player) {
    for _ in 0..20 {
        let g = app.game(id, p);
        let mine = g["your_seat"].clone();
        if g["status"] != "active" || g["to_act"].as_array().is_some_and(|t| t.contains(&mine)) {
            return;
        }
        let (_, q) = seat_player(&g, players);
        play_first(app, id, q);
    }
    panic!("the turn did not come back to {}", p.email);
}

fn me(app: &TestApp, p: &Player) -> Value {
    app.get("/api/v1/me", Some(&p.token)).json().unwrap()
}

#[test]
fn a_turn_email_over_smtp_has_the_seats_picture_its_thread_and_one_click_unsubscribe() {
    let sink = Sink::start();
    let url = format!("smtp://127.0.0.1:{}", sink.port);
    let app = spawn_app_with(|s| s.smtp_url = Some(SecretString::from(url)));
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let g = app.game(id, &ada);
    let (seat, p) = seat_player(&g, &players);
    let other = if p.id == ada.id { &bo } else { &ada };

    // The first email of the game to the seat is its thread's root: derived from the game
    // and seat, with a tag that keeps it from being guessed.
    let (_, first) = sink.wait_for_raw("the first turn email", |m| m.to == p.email);
    let root = header(&first, "Message-ID");
    assert!(
        root.starts_with(&format!("<game-{id}.seat-{seat}.")) && root.ends_with("@localhost>"),
        "{root}"
    );
    assert_eq!(header(&first, "References"), "");

    // The seat moves, the other seat moves, and the seat's next turn email joins the thread.
    play_first(&app, id, p);
    let (other_seat, _) = seat_player(&app.game(id, p), &players);
    if other_seat != seat {
        sink.wait_for("the other seat's turn email", |m| m.to == other.email);
    }
    play_until_turn_of(&app, id, &players, p);
    let g = app.game(id, p);
    assert_eq!(g["to_act"][0], seat, "the turn came back");
    let version = g["version"].as_i64().unwrap();
    let marker = format!("play+{id}-{seat}-{version}-");
    let (mail, raw) = sink.wait_for_raw("the second turn email", |m| {
        m.to == p.email && m.reply_to.starts_with(&marker)
    });
    assert_eq!(mail.subject, format!("[Turnpost] Kasino #{id}: your turn"));
    assert_ne!(header(&raw, "Message-ID"), root);
    assert_eq!(header(&raw, "In-Reply-To"), root);
    assert_eq!(header(&raw, "References"), root);
    assert_eq!(header(&raw, "Auto-Submitted"), "auto-generated");
    assert_eq!(
        header(&raw, "List-Unsubscribe-Post"),
        "List-Unsubscribe=One-Click"
    );
    let unsubscribe = header(&raw, "List-Unsubscribe");
    assert!(
        unsubscribe.starts_with("<http://turnpost.test/api/v1/unsubscribe/")
            && unsubscribe.ends_with('>'),
        "{unsubscribe}"
    );

    // The picture: an inline PNG the HTML refers to, drawn from this seat's view (the
    // same pixels as its own board.svg) and not from the other seat's.
    let (cid, png) = inline_png(&raw).expect("an inline PNG");
    assert!(
        mail.html.contains(&format!("src=\"cid:{cid}\"")),
        "{}",
        mail.html
    );
    let (w, h) = png_size(&png);
    assert_eq!(w, 600, "the picture's own width");
    assert!(h > 100, "{h}");
    let svg = |who: &Player| {
        app.get(&format!("/api/v1/games/{id}/board.svg"), Some(&who.token))
            .text()
            .unwrap()
    };
    let mine = turnpost::notify::picture::png(&svg(p)).unwrap();
    assert!(png == mine, "the picture is the recipient's own view");
    let theirs = turnpost::notify::picture::png(&svg(other)).unwrap();
    assert!(png != theirs, "not the other seat's view");
    // For phones, the picture's halves drawn larger, each referenced by the HTML part.
    let halves = turnpost::notify::picture::mail_png(&svg(p))
        .unwrap()
        .halves
        .expect("a 600 px picture has halves");
    let parts = MessageParser::default().parse(&raw).expect("a message");
    let attached: Vec<(String, Vec<u8>)> = parts
        .parts
        .iter()
        .filter(|p| p.content_type().is_some_and(|t| t.subtype() == Some("png")))
        .map(|p| {
            (
                p.content_id().unwrap_or_default().to_string(),
                p.contents().to_vec(),
            )
        })
        .collect();
    assert_eq!(attached.len(), 3, "the whole picture and its two halves");
    for ((cid, half), drawn) in attached[1..].iter().zip(&halves) {
        assert!(half == drawn, "{cid}: the recipient's own view, halved");
        assert!(mail.html.contains(&format!("src=\"cid:{cid}\"")), "{cid}");
        let (w, h2) = png_size(half);
        assert_eq!(w, 336, "{cid}: as wide as a phone shows it");
        assert!(h2 > h, "{cid}: drawn larger than the whole");
    }
    assert!(mail.text.contains("Your choices:") && mail.text.contains("    1. "));
    assert!(mail.html.contains("<ol") && mail.html.contains("max-width:600px"));
    // Read as a person would: kept for a look.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("email-sample");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("turn.eml"), &raw).unwrap();
    std::fs::write(out.join("turn.png"), &png).unwrap();
    std::fs::write(out.join("turn.html"), &mail.html).unwrap();

    // One-click unsubscribe: the page shows a button; a forged link is refused; the POST
    // works without a login and turns the account's game emails off.
    let link = local(&app, unsubscribe.trim_matches(|c| c == '<' || c == '>'));
    let page = app.client.get(&link).send().unwrap();
    assert_eq!(page.status(), 200);
    let text = page.text().unwrap();
    assert!(text.contains("<form method=\"post\"") && text.contains("Stop game emails"));
    let mut forged = link.clone();
    let last = forged.pop().unwrap();
    forged.push(if last == '0' { '1' } else { '0' });
    let post = |url: &str| {
        app.client
            .post(url)
            .header("content-type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click")
            .send()
            .unwrap()
    };
    let (s, v) = assert_problem(post(&forged), "a forged unsubscribe");
    assert_eq!((s, v["code"].as_str()), (403, Some("invalid_link")));
    let (s, _) = assert_problem(app.client.get(&forged).send().unwrap(), "a forged page");
    assert_eq!(s, 403);
    let other_account = link.replacen(
        &format!("/unsubscribe/{}-", p.id),
        &format!("/unsubscribe/{}-", other.id),
        1,
    );
    assert_eq!(
        post(&other_account).status(),
        403,
        "a link names one account"
    );
    assert_eq!(me(&app, other)["email_mode"], "each_turn");
    assert_eq!(me(&app, p)["email_mode"], "each_turn");
    let r = post(&link);
    assert_eq!(r.status(), 200);
    assert_eq!(me(&app, p)["email_mode"], "off");
    assert_eq!(post(&link).status(), 200, "idempotent");
    // No turn email is queued for the seat any more; the other player still gets theirs.
    let before = turn_rows(&app, p);
    let mut other_mailed = false;
    for _ in 0..10 {
        play_first(&app, id, p);
        let g = app.game(id, other);
        let waits_for_other = g["to_act"]
            .as_array()
            .is_some_and(|t| t.contains(&g["your_seat"]));
        if waits_for_other {
            other_mailed = count(
                &app,
                &format!(
                    "SELECT count(*) AS n FROM outbox WHERE kind = 'turn' AND account_id = {} \
                     AND version = {}",
                    other.id, g["version"]
                ),
            ) == 1;
            break;
        }
        // The other seat's only choice played itself: the turn is back with the seat.
    }
    assert_eq!(turn_rows(&app, p), before);
    assert!(other_mailed, "the other player still gets theirs");
}

/// A worker the test drives by hand, sending to files (the app's own sleeps).
fn test_worker(app: &TestApp) -> Worker {
    Worker {
        lane: turnpost::outbox::worker::Lane::Email,
        domain: app.domain(),
        mailer: Mailer::from_settings(None, app.settings.var_dir.join("fast-mail"), 1).unwrap(),
        from: "Turnpost <turnpost@localhost>".parse().unwrap(),
        poll: Duration::from_millis(10),
        max_attempts: 5,
        lease: Duration::from_secs(600),
        senders: 1,
        stop: Arc::new(AtomicBool::new(false)),
    }
}

#[derive(QueryableByName, Debug, PartialEq)]
struct PendingTurn {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    dedupe_key: String,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    next_attempt_at: chrono::DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    due_at: Option<chrono::DateTime<Utc>>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    version: Option<i64>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    sent_at: Option<chrono::DateTime<Utc>>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>)]
    dropped_at: Option<chrono::DateTime<Utc>>,
}

fn turn_row_of(app: &TestApp, p: &Player) -> PendingTurn {
    diesel::sql_query(
        "SELECT id, dedupe_key, next_attempt_at, due_at, version, sent_at, dropped_at \
         FROM outbox WHERE kind = 'turn' AND account_id = $1",
    )
    .bind::<diesel::sql_types::BigInt, _>(p.id)
    .get_result(&mut db(app))
    .expect("one turn row")
}

/// A move that rewrote the pending turn email's indexed columns (its key and due time)
/// would keep any update of it from staying on its page. A newer turn writes only
/// unindexed ones, and the worker moves the row to its real due time when it finds it too
/// early.
#[test]
fn a_newer_turn_moves_no_index_entry_and_the_worker_waits_for_its_grace() {
    let app = spawn_app_with(|s| {
        s.turn_email_grace_secs = 120;
        s.outbox_poll_ms = 3_600_000;
    });
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let players = [&ada, &bo];
    let worker = test_worker(&app);
    let id = app.start_game("kasino", json!({}), &players);
    play_until_turn_of(&app, id, &players, &ada);
    let first = turn_row_of(&app, &ada);
    play_round(&app, id, &players, &ada);
    play_round(&app, id, &players, &ada);
    let later = turn_row_of(&app, &ada);
    assert_eq!(later.id, first.id, "one row for the seat's turns");
    assert_eq!(
        (&later.dedupe_key, later.next_attempt_at),
        (&first.dedupe_key, first.next_attempt_at),
        "the indexed columns stay as they were"
    );
    assert!(
        later.version > first.version,
        "the row shows the newer turn"
    );
    let due = later.due_at.expect("a due time");
    assert!(
        due > first.next_attempt_at,
        "due when the newer turn's grace ends"
    );

    // At the old due time nothing is sent: the row moves to its due time.
    worker.send_due_at(first.next_attempt_at).unwrap();
    let moved = turn_row_of(&app, &ada);
    assert_eq!((moved.sent_at, moved.dropped_at), (None, None));
    assert_eq!(moved.next_attempt_at, due);
    // Then it is sent, showing the newer turn.
    worker.send_due_at(due).unwrap();
    let sent = turn_row_of(&app, &ada);
    assert!(sent.sent_at.is_some(), "{sent:?}");
    assert_eq!(sent.version, later.version);
}

/// Plays `moves` quick moves of two-player Kasino (new games as they end), with a worker
/// pass after each move as a busy outbox would make, and one more once `grace_secs` have
/// passed.
fn fast_play(grace_secs: u64, moves: usize) -> FastPlay {
    // The app's own worker sleeps; the test's worker sends, at the times it chooses.
    let app = spawn_app_with(|s| {
        s.turn_email_grace_secs = grace_secs;
        s.outbox_poll_ms = 3_600_000;
    });
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let players = [&ada, &bo];
    let worker = test_worker(&app);
    let mut rng = turnpost::engine::GameRng::seed_from_u64(7);
    let (mut turn_changes, mut made, mut games) = (0, 0, 0);
    let mut id = None;
    while made < moves {
        let game = match id {
            Some(id) if app.game(id, &ada)["status"] == "active" => id,
            _ => {
                let new = app.start_game("kasino", json!({}), &players);
                turn_changes += 1;
                games += 1;
                worker.send_due().unwrap();
                id = Some(new);
                new
            }
        };
        let g = app.game(game, &ada);
        let (_, p) = seat_player(&g, &players);
        let mine = app.game(game, p);
        let legal = mine["legal_actions"].as_array().unwrap();
        let action = legal[rng.below(legal.len())].clone();
        let r = app.post(
            &format!("/api/v1/games/{game}/actions"),
            Some(&p.token),
            &json!({"expected_version": mine["version"], "action": action}),
        );
        assert_eq!(r.status(), 200);
        made += 1;
        let after: Value = r.json().unwrap();
        // A turn is owed to whoever must decide next: another seat, or the mover again
        // (its turn came back through a move that played itself).
        let mover_again = after["to_act"]
            .as_array()
            .is_some_and(|t| t.contains(&mine["your_seat"]));
        if after["status"] == "active" && (after["to_act"] != g["to_act"] || mover_again) {
            turn_changes += 1;
        }
        worker.send_due().unwrap();
    }
    let waiting = id.is_some_and(|id| app.game(id, &ada)["status"] == "active");
    // Everyone stops; the grace period runs out.
    worker
        .send_due_at(Utc::now() + chrono::Duration::seconds(grace_secs as i64 + 60))
        .unwrap();
    let sent = count(
        &app,
        "SELECT count(*) AS n FROM outbox WHERE kind = 'turn' AND sent_at IS NOT NULL",
    );
    let pending = count(
        &app,
        "SELECT count(*) AS n FROM outbox WHERE kind = 'turn' AND sent_at IS NULL AND dropped_at IS NULL",
    );
    assert_eq!(pending, 0, "every turn email was sent or dropped");
    FastPlay {
        turn_changes,
        sent,
        rows: count(&app, "SELECT count(*) AS n FROM outbox WHERE kind = 'turn'"),
        games,
        waiting,
    }
}

struct FastPlay {
    turn_changes: usize,
    /// Turn emails sent.
    sent: i64,
    /// Turn email rows queued (pending ones for a seat are coalesced into one).
    rows: i64,
    games: i64,
    /// A game still waited for someone at the end.
    waiting: bool,
}

#[test]
fn a_hundred_fast_moves_send_a_handful_of_turn_emails() {
    let before = fast_play(0, 100);
    let after = fast_play(120, 100);
    eprintln!(
        "turn emails per 100 fast moves: {} without a grace period (one per turn change: {}), \
         {} with the default 2-minute grace ({} turn rows queued for {} games)",
        before.sent, before.turn_changes, after.sent, after.rows, after.games
    );
    assert_eq!(
        before.sent as usize, before.turn_changes,
        "without grace every turn is mailed"
    );
    assert!(before.turn_changes >= 50, "the seats alternate");
    assert!(after.sent <= 3, "{} turn emails", after.sent);
    assert_eq!(
        after.sent >= 1,
        after.waiting,
        "the seat left to move is mailed once play stops"
    );
    assert!(
        after.rows <= 2 * after.games,
        "pending turn emails of a seat are coalesced: {} rows",
        after.rows
    );
}

/// A bounce as Postfix writes it, about the message `message_id` to `to`.
fn dsn(to: &str, message_id: &str, own_id: &str) -> Vec<u8> {
    format!(
        "From: MAILER-DAEMON@mx.example.net (Mail Delivery System)\r\n\
To: turnpost@localhost\r\n\
Subject: Undelivered Mail Returned to Sender\r\n\
Message-ID: <{own_id}>\r\n\
Auto-Submitted: auto-replied\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/report; report-type=delivery-status;\r\n\
\tboundary=\"XyZ\"\r\n\
\r\n\
--XyZ\r\n\
Content-Type: text/plain; charset=us-ascii\r\n\
\r\n\
This is the mail system at host mx.example.net. Your message could not be delivered.\r\n\
\r\n\
--XyZ\r\n\
Content-Type: message/delivery-status\r\n\
\r\n\
Reporting-MTA: dns; mx.example.net\r\n\
Arrival-Date: Mon, 23 Nov 2026 10:00:00 +0000\r\n\
\r\n\
Final-Recipient: rfc822; {to}\r\n\
Original-Recipient: rfc822;{to}\r\n\
Action: failed\r\n\
Status: 5.1.1\r\n\
Diagnostic-Code: smtp; 550 5.1.1 <{to}>: Recipient address rejected: User unknown\r\n\
\r\n\
--XyZ\r\n\
Content-Type: text/rfc822-headers\r\n\
\r\n\
From: Turnpost <turnpost@localhost>\r\n\
To: {to}\r\n\
Subject: [Turnpost] Kasino: your turn\r\n\
Message-ID: {message_id}\r\n\
\r\n\
--XyZ--\r\n"
    )
    .into_bytes()
}

#[test]
fn a_delivery_status_notification_marks_the_address_bouncing_and_stops_its_mail() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let (seat, p) = seat_player(&app.game(id, &ada), &players);
    let other = if p.id == ada.id { &bo } else { &ada };
    let mail = turn_mail(&app, p, id, seat, 0);

    // A report about mail we never sent (a made-up Message-ID) changes nothing.
    let r = deliver(
        &app,
        &dsn(&other.email, "<made-up@localhost>", "bounce-0@mx"),
    );
    assert_eq!(
        (r["outcome"].as_str(), r["code"].as_str()),
        (Some("ignored"), Some("unknown_bounce")),
        "{r}"
    );
    assert_ne!(me(&app, other)["email_status"], "bouncing");

    // The real report: the address bounces, once.
    let r = deliver(
        &app,
        &dsn(&p.email, &format!("<{}>", mail.message_id), "bounce-1@mx"),
    );
    assert_eq!(r["outcome"], "bounce", "{r}");
    assert_eq!(me(&app, p)["email_status"], "bouncing");
    assert_eq!(
        deliver(
            &app,
            &dsn(&p.email, &format!("<{}>", mail.message_id), "bounce-1@mx")
        )["outcome"],
        "duplicate"
    );
    // Mail to it stops: the seat's next turn queues nothing.
    let before = turn_rows(&app, p);
    play_first(&app, id, p);
    let g = app.game(id, other);
    if g["to_act"][0] == 1 - seat {
        turn_mail(&app, other, id, 1 - seat, g["version"].as_i64().unwrap());
    }
    play_until_turn_of(&app, id, &players, p);
    assert_eq!(turn_rows(&app, p), before);

    // Confirming the address again (the link goes out even to a bouncing address) ends
    // the bounce and brings the turn email that was held back.
    let r = app.post("/api/v1/me/verify-email", Some(&p.token), &json!({}));
    assert_eq!(r.status(), 202);
    let link = confirmation_link(&app, p);
    assert_eq!(
        app.client.get(local(&app, &link)).send().unwrap().status(),
        200
    );
    assert_eq!(me(&app, p)["email_status"], "verified");
    let version = app.game(id, p)["version"].as_i64().unwrap();
    turn_mail(&app, p, id, seat, version);
    let r = app.post("/api/v1/me/verify-email", Some(&p.token), &json!({}));
    let (s, v) = assert_problem(r, "confirming a confirmed address");
    assert_eq!((s, v["code"].as_str()), (409, Some("already_verified")));
}

/// The confirmation link in the latest confirmation email to `p`.
fn confirmation_link(app: &TestApp, p: &Player) -> String {
    let subject = "[Turnpost] Confirm your email address";
    let mails = app.wait_for_mails("a confirmation email", |m| {
        m.iter().any(|x| x.to == p.email && x.subject == subject)
    });
    mails
        .iter()
        .filter(|x| x.to == p.email && x.subject == subject)
        .find_map(|m| {
            m.text
                .lines()
                .find(|l| l.contains("/api/v1/verify-email/"))
                .map(|l| l.trim().to_string())
        })
        .expect("a link in the confirmation email")
}

#[test]
fn an_unconfirmed_account_gets_no_game_email_until_it_follows_the_link() {
    let app = spawn_app_with(|s| s.require_email_verification = true);
    let (ada, bo) = (app.unconfirmed_player("Ada"), app.unconfirmed_player("Bo"));
    let players = [&ada, &bo];
    assert_eq!(me(&app, &ada)["email_status"], "unverified");
    let link = confirmation_link(&app, &ada);
    confirmation_link(&app, &bo);
    let id = app.start_game("kasino", json!({}), &players);
    let g = app.game(id, &ada);
    let (seat, p) = seat_player(&g, &players);
    // Nothing is queued for either player, let alone sent.
    assert_eq!(turn_rows(&app, &ada) + turn_rows(&app, &bo), 0);
    assert!(
        app.mails()
            .iter()
            .all(|m| m.subject.starts_with("[Turnpost] Confirm")),
        "only confirmation emails went out"
    );
    // A link altered to name another account, or garbled, confirms nothing.
    let forged = link.replacen(
        &format!("/verify-email/{}-", ada.id),
        &format!("/verify-email/{}-", bo.id),
        1,
    );
    let (s, v) = assert_problem(
        app.client.get(local(&app, &forged)).send().unwrap(),
        "a forged confirmation",
    );
    assert_eq!((s, v["code"].as_str()), (403, Some("invalid_link")));
    assert_eq!(me(&app, &bo)["email_status"], "unverified");
    // Each player follows their own link: the one to move then gets the turn email.
    let bo_link = confirmation_link(&app, &bo);
    for l in [&link, &bo_link] {
        let r = app.client.get(local(&app, l)).send().unwrap();
        assert_eq!(r.status(), 200);
        assert!(r.text().unwrap().contains("confirmed"));
    }
    assert_eq!(me(&app, &ada)["email_status"], "verified");
    assert_eq!(me(&app, &bo)["email_status"], "verified");
    turn_mail(&app, p, id, seat, 0);
}

#[test]
fn mute_and_stop_replies_turn_game_emails_off() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    let (seat, p) = seat_player(&app.game(id, &ada), &players);
    let mail = turn_mail(&app, p, id, seat, 0);
    let send = |line: &str, mid: &str| {
        deliver(
            &app,
            &reply(
                &p.email,
                &mail.reply_to,
                &mail.subject,
                line,
                &mail.text,
                mid,
            ),
        )
    };
    // Mute this game: the answer says so, and the seat's next turn queues nothing.
    let r = send("mute", "mute-1@x.org");
    assert_eq!(r["outcome"], "muted", "{r}");
    assert!(
        answer_to(&app, "mute-1@x.org")
            .text
            .contains("no more email about")
    );
    let before = turn_rows(&app, p);
    play_round(&app, id, &players, p);
    assert_eq!(turn_rows(&app, p), before);
    // Unmute (through the same, now old, email): the next turn is mailed again.
    assert_eq!(send("unmute", "unmute-1@x.org")["outcome"], "unmuted");
    play_round(&app, id, &players, p);
    let version = app.game(id, p)["version"].as_i64().unwrap();
    turn_mail(&app, p, id, seat, version);
    // Stop: no game email at all for the account.
    assert_eq!(send("stop", "stop-1@x.org")["outcome"], "stopped");
    assert_eq!(me(&app, p)["email_mode"], "off");
    assert!(
        answer_to(&app, "stop-1@x.org")
            .text
            .contains("no more game emails")
    );
}
