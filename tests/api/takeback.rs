//! Takeback with consent, over HTTP on the real server and database: asking, accepting,
//! declining, withdrawing, lapsing; refusals for moves that showed hidden information or a
//! random outcome, for moves not one's own or not the last; the log keeping the undone
//! entries marked; replay (`turnpost verify`) agreeing; against the computer at once; and
//! answering by an email reply.

use reqwest::blocking::Response;
use serde_json::{Value, json};

use crate::email_play::{answer_to, deliver, reply};
use crate::helpers::{Player, TestApp, assert_problem, run_verify, spawn_app};

fn ask(app: &TestApp, id: i64, p: &Player, what: &str) -> Response {
    app.post(
        &format!("/api/v1/games/{id}/takeback{what}"),
        Some(&p.token),
        &json!({}),
    )
}

fn code_of(r: Response, what: &str) -> (u16, String) {
    let (s, v) = assert_problem(r, what);
    (s, v["code"].as_str().unwrap_or_default().to_string())
}

/// What the search for a move that can be taken back found.
pub struct Found {
    /// Index of the mover in the players.
    pub mover: usize,
    /// The game's answer to the request (pending, or already done against the computer).
    pub game: Value,
    /// Version before the request.
    pub version: i64,
    /// Requests refused as `takeback_reveals` on the way, by the type of the action.
    pub refused: Vec<String>,
    /// The action the request is about.
    pub action: Value,
}

/// Plays random legal moves of whoever acts (of `people`; bots play themselves) and asks,
/// after each, to take it back, until a request is granted or pending. A refused request
/// must change nothing.
pub fn play_until_takeback(app: &TestApp, id: i64, people: &[&Player], seed: u64) -> Found {
    let mut rng = turnpost::engine::GameRng::seed_from_u64(seed);
    let mut refused = Vec::new();
    for _ in 0..400 {
        let (mover, g) = people
            .iter()
            .enumerate()
            .map(|(i, p)| (i, app.game(id, p)))
            .find(|(_, g)| {
                g["status"] == "active"
                    && g["legal_actions"].as_array().is_some_and(|l| !l.is_empty())
                    && g["to_act"]
                        .as_array()
                        .is_some_and(|t| t.contains(&g["your_seat"]))
            })
            .expect("a player of ours to act");
        let legal = g["legal_actions"].as_array().unwrap().clone();
        let action = legal[rng.below(legal.len())].clone();
        let p = people[mover];
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&p.token),
            &json!({"expected_version": g["version"], "action": action}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        let after: Value = r.json().unwrap();
        if after["status"] != "active" {
            panic!("the game ended before a move could be taken back");
        }
        let version = after["version"].as_i64().unwrap();
        let r = ask(app, id, p, "");
        if r.status() == 200 {
            return Found {
                mover,
                game: r.json().unwrap(),
                version,
                refused,
                action,
            };
        }
        let (s, code) = code_of(r, "a takeback request");
        assert_eq!((s, code.as_str()), (409, "takeback_reveals"), "{action}");
        assert_eq!(
            app.game(id, p)["version"],
            version,
            "a refusal changes nothing"
        );
        refused.push(action["type"].as_str().unwrap_or("?").to_string());
    }
    panic!("no move could be taken back in 400 moves");
}

#[test]
fn a_public_move_is_taken_back_once_everyone_agrees_and_the_log_keeps_it_marked() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo"), app.player("Cy")];
    let all: Vec<&Player> = people.iter().collect();
    let id = app.start_game("starfarers", json!({}), &all);

    let found = play_until_takeback(&app, id, &all, 7);
    // Dice are a random outcome: a roll is never taken back (see also the unit test of
    // `domain::takeback::reveals`).
    assert_ne!(found.action["type"], "roll", "{:?}", found.refused);
    let mover = &people[found.mover];
    let others: Vec<&Player> = (0..3)
        .filter(|&i| i != found.mover)
        .map(|i| &people[i])
        .collect();
    let seat_of = |p: &Player| app.game(id, p)["your_seat"].as_i64().unwrap();
    let (mover_seat, other_seats) = (
        seat_of(mover),
        others.iter().map(|p| seat_of(p)).collect::<Vec<_>>(),
    );
    let tb = found.game["takeback"].clone();
    assert_eq!(tb["seat"], mover_seat, "{tb}");
    assert_eq!(
        found.game["version"], found.version,
        "asking changes no version"
    );
    let to_version = tb["to_version"].as_i64().unwrap();
    let undoes: Vec<i64> = tb["undoes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(undoes.first(), Some(&(to_version + 1)), "{tb}");
    assert_eq!(undoes.last(), Some(&found.version), "{tb}");
    assert_eq!(tb["undoes_texts"].as_array().unwrap().len(), undoes.len());
    let mut waiting: Vec<i64> = tb["waiting_for"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    waiting.sort();
    let mut want = other_seats.clone();
    want.sort();
    assert_eq!(waiting, want);
    // Everyone sees the request, spectators too.
    assert_eq!(
        app.get(&format!("/api/v1/games/{id}"), None)
            .json::<Value>()
            .unwrap()["takeback"]["seat"],
        mover_seat
    );

    // The request is a decision of each player asked: theirs to answer, in the game and
    // in their list of games awaiting them.
    let awaiting = |p: &Player| -> Vec<Value> {
        app.get("/api/v1/games?awaiting=me", Some(&p.token))
            .json::<Value>()
            .unwrap()["items"]
            .as_array()
            .unwrap()
            .clone()
    };
    for (p, seat) in others.iter().zip(&other_seats) {
        let g = app.game(id, p);
        assert!(
            g["deciding"].as_array().unwrap().contains(&json!(seat)),
            "{}",
            g["deciding"]
        );
        let listed = awaiting(p);
        assert!(
            listed
                .iter()
                .any(|item| item["id"] == id && item["awaiting_you"] == true),
            "{listed:?}"
        );
    }

    // Only the others answer; asking twice is refused.
    let (s, code) = code_of(ask(&app, id, mover, "/accept"), "accepting one's own");
    assert_eq!((s, code.as_str()), (409, "own_takeback"));
    let (s, code) = code_of(ask(&app, id, mover, ""), "asking twice");
    assert_eq!((s, code.as_str()), (409, "takeback_pending"));
    let stranger = app.player("Di");
    let (s, _) = code_of(ask(&app, id, &stranger, "/accept"), "a stranger answers");
    assert_eq!(s, 403);
    let (s, _) = code_of(
        app.post(
            &format!("/api/v1/games/{id}/takeback/accept"),
            None,
            &json!({}),
        ),
        "no credentials",
    );
    assert_eq!(s, 401);

    let view_before: Value = app
        .get(
            &format!("/api/v1/games/{id}/views/{to_version}"),
            Some(&mover.token),
        )
        .json()
        .unwrap();
    let r = ask(&app, id, others[0], "/accept");
    assert_eq!(r.status(), 200);
    let g: Value = r.json().unwrap();
    assert_eq!(g["version"], found.version, "one of two agreed: not yet");
    assert_eq!(g["takeback"]["accepted"], json!([other_seats[0]]));
    assert_eq!(g["takeback"]["waiting_for"], json!([other_seats[1]]));
    assert!(
        g["deciding"]
            .as_array()
            .unwrap()
            .contains(&json!(other_seats[1]))
    );
    let r = ask(&app, id, others[1], "/accept");
    assert_eq!(r.status(), 200);
    let g: Value = r.json().unwrap();
    let taken = found.version + 1;
    assert_eq!(g["version"], taken, "{g}");
    assert_eq!(g["takeback"], Value::Null);
    // The game is where it was before the move, for the mover and in replay.
    assert_eq!(app.game(id, mover)["view"], view_before["view"]);
    assert!(
        app.game(id, mover)["to_act"]
            .as_array()
            .unwrap()
            .contains(&json!(mover_seat))
    );

    // The log keeps the undone entries, marked, and the takeback as an entry of its own.
    let log = app.log(id, others[0]);
    for e in &log {
        let seq = e["seq"].as_i64().unwrap();
        if undoes.contains(&seq) {
            assert_eq!(e["undone_by"], taken, "{e}");
        } else {
            assert_eq!(e["undone_by"], Value::Null, "{e}");
        }
    }
    let last = log.last().unwrap();
    assert_eq!(last["seq"], taken);
    assert_eq!(last["takeback_to"], to_version);
    assert!(
        last["text"].as_str().unwrap().contains("took back"),
        "{last}"
    );
    let (ok, out) = run_verify(&app);
    assert!(
        ok,
        "replay agrees with the stored state after a takeback: {out}"
    );

    // Declined: nothing changes but the request is gone.
    let found = play_until_takeback(&app, id, &all, 11);
    let mover = &people[found.mover];
    let other = people.iter().find(|p| !std::ptr::eq(*p, mover)).unwrap();
    let r = ask(&app, id, other, "/decline");
    assert_eq!(r.status(), 200);
    let g: Value = r.json().unwrap();
    assert_eq!(g["version"], found.version);
    assert_eq!(g["takeback"], Value::Null);
    let (s, code) = code_of(ask(&app, id, other, "/accept"), "nothing pending");
    assert_eq!((s, code.as_str()), (409, "no_takeback_pending"));

    // Withdrawn by the one who asked, then asked again and let lapse by a move.
    assert_eq!(ask(&app, id, mover, "").status(), 200);
    let r = ask(&app, id, mover, "/decline");
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().unwrap()["takeback"], Value::Null);
    let g: Value = ask(&app, id, mover, "").json().unwrap();
    assert_eq!(g["takeback"]["seat"], g["your_seat"]);
    let mine = app.game(id, mover);
    let moved = mine["legal_actions"]
        .as_array()
        .and_then(|l| l.first())
        .cloned();
    if let Some(action) = moved {
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&mover.token),
            &json!({"expected_version": mine["version"], "action": action}),
        );
        assert_eq!(r.status(), 200);
        assert_eq!(
            r.json::<Value>().unwrap()["takeback"],
            Value::Null,
            "lapsed"
        );
        let (s, code) = code_of(ask(&app, id, other, "/accept"), "a lapsed request");
        assert_eq!((s, code.as_str()), (409, "no_takeback_pending"));
    }
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}

#[test]
fn a_card_shown_or_a_move_not_the_last_cannot_be_taken_back() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let (first, second) =
        if app.game(id, &ada)["to_act"] == json!([app.game(id, &ada)["your_seat"]]) {
            (&ada, &bo)
        } else {
            (&bo, &ada)
        };
    let (s, code) = code_of(ask(&app, id, first, ""), "before any move");
    assert_eq!((s, code.as_str()), (409, "nothing_to_take_back"));
    let play = |p: &Player| {
        let g = app.game(id, p);
        let action = g["legal_actions"][0].clone();
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&p.token),
            &json!({"expected_version": g["version"], "action": action}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
        r.json::<Value>().unwrap()
    };
    let after = play(first);
    // The card came from a hand nobody else could see: taking it back would let its
    // player show a card and think again.
    let (s, code) = code_of(ask(&app, id, first, ""), "a card play");
    assert_eq!((s, code.as_str()), (409, "takeback_reveals"));
    assert_eq!(app.game(id, first)["version"], after["version"]);
    assert_eq!(app.game(id, first)["takeback"], Value::Null);
    let (s, code) = code_of(ask(&app, id, second, ""), "no move of one's own yet");
    assert_eq!((s, code.as_str()), (409, "nothing_to_take_back"));
    if after["to_act"]
        .as_array()
        .is_some_and(|t| !t.contains(&after["your_seat"]))
    {
        play(second);
        let (s, code) = code_of(ask(&app, id, first, ""), "another has moved since");
        assert_eq!((s, code.as_str()), (409, "takeback_too_late"));
    }
    // Garbage: no such game, a game id that is no number, no credentials.
    let (s, _) = code_of(ask(&app, 987_654_321, &ada, ""), "no such game");
    assert_eq!(s, 404);
    let (s, _) = code_of(ask(&app, id, &ada, "/maybe"), "an answer that is neither");
    assert_eq!(s, 404);
    let r = app.post("/api/v1/games/abc/takeback", Some(&ada.token), &json!({}));
    let (s, _) = code_of(r, "a malformed id");
    assert!(s == 400 || s == 404, "{s}");
    let (s, _) = code_of(
        app.post(&format!("/api/v1/games/{id}/takeback"), None, &json!({})),
        "no credentials",
    );
    assert_eq!(s, 401);
}

#[test]
fn against_the_computer_a_move_is_taken_back_at_once() {
    let app = spawn_app();
    let ada = app.player("Ada");
    let r = app.post(
        "/api/v1/games",
        Some(&ada.token),
        &json!({"game_type": "starfarers", "players": 3, "bots": 2}),
    );
    assert_eq!(r.status(), 201, "{}", r.text().unwrap_or_default());
    let id = r.json::<Value>().unwrap()["id"].as_i64().unwrap();
    let found = play_until_takeback(&app, id, &[&ada], 3);
    let g = found.game;
    assert_eq!(g["takeback"], Value::Null, "nobody to ask: done at once");
    assert_eq!(g["version"], found.version + 1, "{g}");
    let log = app.log(id, &ada);
    let last = log.last().unwrap();
    assert!(last["takeback_to"].is_i64(), "{last}");
    // Undone entries stay in the log, marked.
    assert!(log.iter().any(|e| e["undone_by"] == last["seq"]), "{log:?}");
    let (ok, out) = run_verify(&app);
    assert!(ok, "{out}");
}

#[test]
fn a_takeback_is_asked_and_accepted_by_email_replies() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo"), app.player("Cy")];
    let all: Vec<&Player> = people.iter().collect();
    let id = app.start_game("starfarers", json!({}), &all);
    let found = play_until_takeback(&app, id, &all, 5);
    // The HTTP request is withdrawn; the mover asks again by email.
    let mover = &people[found.mover];
    assert_eq!(ask(&app, id, mover, "/decline").status(), 200);
    let marker = format!("play+{id}-");
    let mails = app.wait_for_mails("a game email to the mover", |m| {
        m.iter()
            .any(|x| x.to == mover.email && x.reply_to.starts_with(&marker))
    });
    let any = mails
        .iter()
        .rev()
        .find(|m| m.to == mover.email && m.reply_to.starts_with(&format!("play+{id}-")))
        .expect("a game email to the mover with a reply address")
        .clone();
    let d = deliver(
        &app,
        &reply(
            &mover.email,
            &any.reply_to,
            &any.subject,
            "takeback",
            "",
            "tb-ask@example.org",
        ),
    );
    assert_eq!(d["outcome"], "takeback", "{d}");
    let g = app.game(id, mover);
    assert_eq!(g["takeback"]["seat"], g["your_seat"], "{g}");
    // Each player asked gets an email saying what would be undone, and answers by reply.
    let mut version = g["version"].as_i64().unwrap();
    for (n, other) in people.iter().filter(|p| p.email != mover.email).enumerate() {
        let mails = app.wait_for_mails("the takeback email", |m| {
            m.iter()
                .any(|x| x.to == other.email && x.subject.contains("takeback asked"))
        });
        let mail = mails
            .iter()
            .find(|x| x.to == other.email && x.subject.contains("takeback asked"))
            .unwrap();
        assert!(mail.text.contains("asks to take back"), "{}", mail.text);
        assert!(mail.text.contains("accept"), "{}", mail.text);
        assert!(
            !mail.text.contains("You have nothing to do"),
            "{}",
            mail.text
        );
        let message_id = format!("tb-accept-{n}@example.org");
        let d = deliver(
            &app,
            &reply(
                &other.email,
                &mail.reply_to,
                &mail.subject,
                "accept",
                &mail.text,
                &message_id,
            ),
        );
        assert_eq!(d["outcome"], "takeback", "{d}");
        let answer = answer_to(&app, &message_id);
        assert!(
            answer.text.contains("takeback") || answer.text.contains("taken back"),
            "{}",
            answer.text
        );
        version = app.game(id, other)["version"].as_i64().unwrap();
    }
    assert_eq!(
        version,
        found.version + 1,
        "taken back after the second accept"
    );
    assert_eq!(app.game(id, mover)["takeback"], Value::Null);
}
