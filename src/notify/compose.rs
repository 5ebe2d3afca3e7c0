//! Turn and game-over emails, rendered at the moment of the transition (inside the move's
//! transaction), so the email shows exactly the state the player must answer.

use std::fmt::Write as _;

use crate::domain::Domain;
use crate::domain::games::SeatInfo;
use crate::engine::{GameInfo, LoadedGame, Seat, Status, Viewer};
use crate::notify::reply::ReplyToken;
use crate::store::models::{GameRow, NewOutbox};

/// The subject line of every email about one game: stable, so mail clients thread them.
pub fn subject(info: &GameInfo, game_id: i64, what: &str) -> String {
    format!("[Turnpost] {} #{}: {}", info.name, game_id, what)
}

/// Emails owed after a game reached `version` with status `after` (`before_to_act` is who
/// had to act before the action; empty at the start).
#[allow(clippy::too_many_arguments)]
pub fn for_transition(
    domain: &Domain,
    row: &GameRow,
    info: &GameInfo,
    version: i64,
    state: &dyn LoadedGame,
    (before_actors, after_actors): (&[Seat], &[Seat]),
    after: &Status,
    seats: &[SeatInfo],
) -> Vec<NewOutbox> {
    let link = format!(
        "{}/api/v1/games/{}",
        domain.public_url.trim_end_matches('/'),
        row.id
    );
    match after {
        // Everyone who now has something to decide and had not before: the seats to act,
        // and others with legal actions (an offer made to them, a simultaneous step).
        Status::Active { .. } => after_actors
            .iter()
            .filter(|s| !before_actors.contains(s))
            .filter_map(|&s| seats.iter().find(|i| i.seat as usize == s))
            .filter(|i| i.email_notifications && !i.daily_digest)
            .map(|player| turn_email(domain, row, info, version, state, player, seats, &link))
            .collect(),
        Status::Finished(outcome) => seats
            .iter()
            .filter(|i| i.email_notifications)
            .map(|player| {
                let mut body = format!(
                    "Hello {},\n\nThe game is over: {}\n\n",
                    player.name, outcome.summary
                );
                for p in &outcome.ranking {
                    let name = seats
                        .iter()
                        .find(|i| i.seat as usize == p.seat)
                        .map_or("?", |i| i.name.as_str());
                    let score = p
                        .score
                        .map(|s| format!(" ({s} points)"))
                        .unwrap_or_default();
                    let _ = writeln!(
                        body,
                        "  {}. {} — {}{}",
                        p.rank,
                        name,
                        state.seat_name(p.seat),
                        score
                    );
                }
                let _ = write!(
                    body,
                    "\nFinal position:\n\n{}\n\nThe game: {link}\n",
                    state.render_text(Viewer::Seat(player.seat as usize))
                );
                let html = html_part(&body, &[], &link);
                NewOutbox {
                    dedupe_key: format!("over:{}:{}", row.id, player.account_id),
                    account_id: Some(player.account_id),
                    game_id: Some(row.id),
                    to_address: player.email.clone(),
                    subject: subject(info, row.id, "game over"),
                    body_text: body,
                    body_html: html,
                    reply_to: None,
                    in_reply_to: None,
                }
            })
            .collect(),
    }
}

#[allow(clippy::too_many_arguments)]
fn turn_email(
    domain: &Domain,
    row: &GameRow,
    info: &GameInfo,
    version: i64,
    state: &dyn LoadedGame,
    player: &SeatInfo,
    seats: &[SeatInfo],
    link: &str,
) -> NewOutbox {
    let seat = player.seat as usize;
    let opponents: Vec<String> = seats
        .iter()
        .filter(|s| s.seat != player.seat)
        .map(|s| match s.vacation_until {
            Some(until) => format!(
                "{} ({}, on vacation until {})",
                s.name,
                state.seat_name(s.seat as usize),
                until.format("%Y-%m-%d %H:%M UTC")
            ),
            None => format!("{} ({})", s.name, state.seat_name(s.seat as usize)),
        })
        .collect();
    let mut body = format!(
        "Hello {},\n\nIt is your turn in {} #{} (move {}), playing as {} against {}.\n\n",
        player.name,
        info.name,
        row.id,
        version + 1,
        state.seat_name(seat),
        opponents.join(", ")
    );
    let texts = position_and_choices(&mut body, state, seat);
    let _ = write!(
        body,
        "\nSubmit your move at {link}/actions with \"expected_version\": {version}.\n\
         The game: {link}\n\nTo stop these emails, set email_notifications to false (PATCH /api/v1/me).\n"
    );
    let html = html_part(&body, &texts, link);
    NewOutbox {
        dedupe_key: format!("turn:{}:{}:{}", row.id, version, seat),
        account_id: Some(player.account_id),
        game_id: Some(row.id),
        to_address: player.email.clone(),
        subject: subject(info, row.id, "your turn"),
        body_text: body,
        body_html: html,
        reply_to: Some(domain.reply.address(ReplyToken {
            game_id: row.id,
            seat: player.seat,
            version,
        })),
        in_reply_to: None,
    }
}

/// A reminder at 50 % (`stage` 1) or 90 % (`stage` 2) of the seat's time: the turn email
/// again, with the time left on top.
#[allow(clippy::too_many_arguments)]
pub fn reminder(
    domain: &Domain,
    row: &GameRow,
    info: &GameInfo,
    state: &dyn LoadedGame,
    player: &SeatInfo,
    seats: &[SeatInfo],
    left_ms: i64,
    stage: i32,
) -> NewOutbox {
    let link = format!(
        "{}/api/v1/games/{}",
        domain.public_url.trim_end_matches('/'),
        row.id
    );
    let mut m = turn_email(domain, row, info, row.version, state, player, seats, &link);
    let hours = left_ms.max(0) / 3_600_000;
    let left = if hours >= 48 {
        format!("{} days", hours / 24)
    } else {
        format!("{hours} hours")
    };
    m.dedupe_key = format!(
        "remind:{}:{}:{}:{}",
        row.id, row.version, player.seat, stage
    );
    m.subject = subject(info, row.id, "reminder: your turn");
    m.body_text = format!(
        "Reminder: {} of your time is used; {left} are left on your clock.\n\n{}",
        if stage >= 2 { "90 %" } else { "half" },
        m.body_text
    );
    m.body_html = html_part(&m.body_text, &[], &link);
    m
}

/// A nudge from another player: the turn email again, with who is waiting.
pub fn nudge(
    domain: &Domain,
    row: &GameRow,
    info: &GameInfo,
    state: &dyn LoadedGame,
    player: &SeatInfo,
    seats: &[SeatInfo],
    from: &str,
) -> NewOutbox {
    let link = format!(
        "{}/api/v1/games/{}",
        domain.public_url.trim_end_matches('/'),
        row.id
    );
    let mut m = turn_email(domain, row, info, row.version, state, player, seats, &link);
    m.dedupe_key = format!(
        "nudge:{}:{}:{}:{}",
        row.id,
        row.version,
        player.seat,
        chrono::Utc::now().timestamp()
    );
    m.subject = subject(info, row.id, "nudge: your turn");
    m.body_text = format!("{from} is waiting for your move.\n\n{}", m.body_text);
    m.body_html = html_part(&m.body_text, &[], &link);
    m
}

/// A turn email lists at most this many numbered lines. Long lists are grouped first
/// (see [`super::choices`]); what is left over can be written out.
pub const MAX_LISTED_CHOICES: usize = 150;

/// How to play by replying, as printed under the choices.
pub const REPLY_HELP: &str = "Reply to this email with the number of your choice, or the choice written out.\n\
Several lines are played in order, all or nothing. Add a line `preview` to see the result\n\
without playing it; `status` resends the position, `resign` gives up the game, `help` explains.\n";

/// Appends the seat's view and its numbered choices (with how to reply); returns the
/// choices' texts.
pub fn position_and_choices(body: &mut String, state: &dyn LoadedGame, seat: Seat) -> Vec<String> {
    let (_, texts, list) = super::choices::entries(state, seat);
    body.push_str(&state.render_text(Viewer::Seat(seat)));
    if texts.is_empty() {
        body.push_str("\n\nYou have nothing to do right now.\n");
        return texts;
    }
    body.push_str("\n\nYour choices:\n");
    for (i, e) in list.iter().enumerate().take(MAX_LISTED_CHOICES) {
        let _ = writeln!(body, "  {:>3}. {}", i + 1, e.label);
    }
    if list.len() > MAX_LISTED_CHOICES {
        let _ = writeln!(
            body,
            "  ... and {} more choices, not listed to keep this email readable: reply with one\n  \
             written out, or see them all in the game's legal_actions.",
            list.len() - MAX_LISTED_CHOICES
        );
    }
    if list.iter().any(|e| e.members.len() > 1 && !e.family) {
        body.push_str(
            "A choice marked \"(n ways)\" comes in two steps: reply with its number to see the\n\
             ways, or pick one at once as number.way (e.g. 12.3).\n",
        );
    }
    if let Some(help) = state.notation_help(seat) {
        body.push('\n');
        body.push_str(&help);
    }
    body.push('\n');
    body.push_str(REPLY_HELP);
    texts
}

/// An answer to an inbound email. `reply_to` carries a fresh reply token when the player
/// can act; `in_reply_to` threads it under the message it answers.
pub struct Answer<'a> {
    pub game: Option<(&'a GameRow, &'a GameInfo)>,
    pub account_id: Option<i64>,
    pub to: String,
    pub what: &'a str,
    pub body: String,
    pub reply_to: Option<String>,
    pub in_reply_to: &'a str,
}

pub fn answer(domain: &Domain, a: Answer<'_>) -> NewOutbox {
    let (subject_line, link, game_id) = match a.game {
        Some((row, info)) => (
            subject(info, row.id, a.what),
            format!(
                "{}/api/v1/games/{}",
                domain.public_url.trim_end_matches('/'),
                row.id
            ),
            Some(row.id),
        ),
        None => (
            format!("[Turnpost] {}", a.what),
            domain.public_url.clone(),
            None,
        ),
    };
    let html = html_part(&a.body, &[], &link);
    NewOutbox {
        dedupe_key: format!("answer:{}", a.in_reply_to),
        account_id: a.account_id,
        game_id,
        to_address: a.to,
        subject: subject_line,
        body_text: a.body,
        body_html: html,
        reply_to: a.reply_to,
        in_reply_to: Some(a.in_reply_to.to_string()),
    }
}

/// A short HTML alternative: the same text in a monospace block, and a link.
pub fn html_part(text: &str, _choices: &[String], link: &str) -> String {
    format!(
        "<!doctype html><html><body><pre style=\"font-family:monospace\">{}</pre>\
         <p><a href=\"{}\">Open the game</a></p></body></html>",
        html_escape::encode_text(text),
        html_escape::encode_double_quoted_attribute(link)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Applied, RuleError, Status};
    use serde_json::{Value, json};

    /// A position with many choices, for the listing cap.
    struct Many(usize);

    impl LoadedGame for Many {
        fn status(&self) -> Status {
            Status::Active { to_act: vec![0] }
        }
        fn legal_actions(&self, _: Seat) -> Vec<Value> {
            (0..self.0).map(|i| json!({ "n": i })).collect()
        }
        fn forced_action(&self, _: Seat) -> Option<Value> {
            None
        }
        fn parse_notation(&self, _: Seat, _: &str) -> Option<Result<Value, String>> {
            None
        }
        fn notation_help(&self, _: Seat) -> Option<String> {
            None
        }
        fn choice_group(&self, _: Seat, a: &Value) -> Option<String> {
            // Every ten choices share a heading, as flights to one place share it.
            a["n"]
                .as_u64()
                .filter(|n| n % 50 < 10)
                .map(|n| format!("group {}", n / 50))
        }
        fn apply(&self, _: Seat, _: &Value) -> Result<Applied, RuleError> {
            Err(RuleError::new("no", "no"))
        }
        fn view(&self, _: Viewer) -> Value {
            Value::Null
        }
        fn render_text(&self, _: Viewer) -> String {
            "board".into()
        }
        fn board_svg(&self, _: Viewer) -> String {
            String::new()
        }
        fn describe_action(&self, _: Seat, a: &Value) -> Option<String> {
            Some(format!("choice {}", a["n"]))
        }
        fn seat_name(&self, seat: Seat) -> String {
            format!("Seat {seat}")
        }
        fn decision_basis(&self, _: Seat) -> Value {
            Value::Null
        }
        fn resample_hidden(&self, _: Viewer, _: [u8; 32]) -> Box<dyn LoadedGame> {
            Box::new(Many(self.0))
        }
        fn encode(&self) -> String {
            String::new()
        }
    }

    #[test]
    fn long_choice_lists_become_two_steps_and_numbers_keep_their_meaning() {
        use crate::notify::choices::{Pick, pick};
        let mut body = String::new();
        let texts = position_and_choices(&mut body, &Many(400), 0);
        assert_eq!(texts.len(), 400);
        // Choices 0-9, 50-59, ... share a heading each (8 groups); the other 320 differ in
        // one number only and are listed once, as a family.
        assert!(body.contains("    1. group 0 (10 ways)"), "{body}");
        assert!(
            body.contains("choice #, with # from 10 to 399 (320 choices: write one out"),
            "{body}"
        );
        assert!(!body.contains("more choices"), "{body}");
        assert!(body.lines().count() < 40, "{body}");
        // `1` asks which way; `1.3` and `2.1` pick.
        assert!(
            matches!(pick(&Many(400), 0, "1"), Some(Ok(Pick::Ambiguous(t))) if t.contains("1.3 choice 2"))
        );
        assert_eq!(
            pick(&Many(400), 0, "1.3"),
            Some(Ok(Pick::Action(json!({ "n": 2 }))))
        );
        assert!(pick(&Many(400), 0, "1.11").is_some_and(|r| r.is_err()));
        assert!(pick(&Many(400), 0, "99").is_some_and(|r| r.is_err()));
        assert!(pick(&Many(400), 0, "bid 3").is_none());
        // A short list is numbered one by one.
        let mut short = String::new();
        position_and_choices(&mut short, &Many(3), 0);
        assert!(short.contains("    3. choice 2") && !short.contains("ways"));
        assert_eq!(
            pick(&Many(3), 0, "3"),
            Some(Ok(Pick::Action(json!({ "n": 2 }))))
        );
    }
}
