//! What emails say. Turn emails, reminders, nudges and game-over emails are written when
//! they are sent (see `domain::deliveries`), from the game as it is then and from the
//! recipient's view only; answers to replies are written when the reply is processed.

use crate::store::kinds::OutboxKind;
use crate::store::kinds::{AccountId, GameId};
use std::fmt::Write as _;

use crate::engine::{GameInfo, LoadedGame, Mentions, Outcome, Seat, Viewer};
use crate::notify::letter::{self, Letter};
use crate::notify::links::SignedLinks;
use crate::store::models::{GameRow, NewOutbox, SeatInfo, people, people_now};

/// The subject line of every email about one game: stable, so mail clients thread them.
pub fn subject(info: &GameInfo, game_id: GameId, what: &str) -> String {
    format!("[Turnpost] {} #{}: {}", info.name, game_id, what)
}

/// Why a turn email goes out.
#[derive(Clone, Debug, PartialEq)]
pub enum TurnWhy {
    /// The seat's turn began.
    Turn,
    /// 50 % (`stage` 1) or 90 % (`stage` 2) of the seat's time is used; `left_ms` remain.
    Reminder { stage: i32, left_ms: i64 },
    /// Another player is waiting.
    Nudge { from: String },
    /// Another player asks to take back their last move (`undoing`: what it did).
    Takeback { from: String, undoing: String },
    /// Another player declined the seat's takeback.
    TakebackDeclined { by: String },
}

/// What an email needs of the server itself: where it is, and the key its links are
/// signed with. (Passed in, so that writing mail does not depend on the domain layer.)
#[derive(Clone, Copy)]
pub struct Site<'a> {
    pub public_url: &'a str,
    pub links: &'a SignedLinks,
}

/// One entry of the game's log since the recipient's last move, as the recipient may see
/// it: `text` is `None` for a move hidden from them.
#[derive(Clone, Debug)]
pub struct RecentMove {
    pub seat: Seat,
    pub text: Option<String>,
}

/// A turn email lists at most this many of the moves since the seat's last one.
pub const MAX_RECENT: usize = 12;

/// Everything an email about one game needs besides the game itself.
pub struct GameMail<'a> {
    pub site: Site<'a>,
    pub row: &'a GameRow,
    pub info: &'a GameInfo,
    pub state: &'a dyn LoadedGame,
    pub player: &'a SeatInfo,
    pub seats: &'a [SeatInfo],
    /// The log since the seat last moved, oldest first (at most [`MAX_RECENT`] + 1: one
    /// more says that earlier ones were left out).
    pub recent: &'a [RecentMove],
}

impl GameMail<'_> {
    /// The game's page in the web client, for people.
    fn link(&self) -> String {
        format!(
            "{}/#/game/{}",
            self.site.public_url.trim_end_matches('/'),
            self.row.id
        )
    }

    fn kicker(&self) -> String {
        format!(
            "{} #{} · move {}",
            self.info.name,
            self.row.id,
            self.row.version + 1
        )
    }

    /// Why the email came and how to stop it, for every email about a game.
    fn footer(&self) -> Vec<String> {
        vec![format!(
            "You get this email because you play {} in {} #{}. Reply `mute` to get no more email \
             about this game, or `stop` for no more game emails at all.",
            self.state.seat_name(self.player.seat as usize),
            self.info.name,
            self.row.id,
        )]
    }

    fn unsubscribe(&self) -> Option<String> {
        Some(self.site.links.unsubscribe_url(self.player.account_id))
    }

    /// The seat's picture, as only that seat may see it (its own view).
    pub fn picture_svg(&self) -> String {
        let viewer = Viewer::Seat(self.player.seat as usize);
        self.state
            .board_svg(&people_now(self.row, self.seats, viewer, self.state))
    }

    /// A turn email (or a reminder, or a nudge) at the game's current version, from the
    /// seat's view (its picture: [`GameMail::picture_svg`]).
    pub fn turn(&self, why: &TurnWhy) -> Letter {
        let seat = self.player.seat as usize;
        let version = self.row.version;
        let link = self.link();
        let opponents: Vec<String> = self
            .seats
            .iter()
            .filter(|s| s.seat != self.player.seat)
            .map(|s| match s.vacation_until {
                Some(until) => format!(
                    "{} ({}, on vacation until {})",
                    s.name,
                    self.state.seat_name(s.seat as usize),
                    until.format("%Y-%m-%d %H:%M UTC")
                ),
                None => format!("{} ({})", s.name, self.state.seat_name(s.seat as usize)),
            })
            .collect();
        let mut paragraphs = Vec::new();
        // A seat may have a decision without its turn: an offer made to it.
        let on_turn = self.state.status().to_act().contains(&seat);
        let (what, heading) = match why {
            TurnWhy::Turn if on_turn => ("your turn", format!("Your turn, {}", self.player.name)),
            TurnWhy::Turn => (
                "your decision",
                format!("A decision for you, {}", self.player.name),
            ),
            TurnWhy::Reminder { stage, left_ms } => {
                let hours = (*left_ms).max(0) / 3_600_000;
                let left = if hours >= 48 {
                    format!("{} days", hours / 24)
                } else {
                    format!("{hours} hours")
                };
                paragraphs.push(format!(
                    "Reminder: {} of your time is used; {left} are left on your clock.",
                    if *stage >= 2 { "90 %" } else { "half" }
                ));
                (
                    "reminder: your turn",
                    format!("{left} left on your clock, {}", self.player.name),
                )
            }
            TurnWhy::Nudge { from } => {
                paragraphs.push(format!("{from} is waiting for your move."));
                ("nudge: your turn", format!("{from} is waiting for you"))
            }
            TurnWhy::Takeback { from, undoing } => {
                paragraphs.push(format!(
                    "{from} asks to take back their last move: {undoing}.\n\nReply `accept` to \
                     allow it, or `decline` to refuse it. A move by anyone lets the request lapse."
                ));
                ("takeback asked", format!("{from} asks to take back a move"))
            }
            TurnWhy::TakebackDeclined { by } => {
                paragraphs.push(format!(
                    "{by} declined to let you take back your move; the game goes on from here."
                ));
                ("takeback declined", format!("{by} declined your takeback"))
            }
        };
        paragraphs.push(format!("Hello {},", self.player.name));
        let whose = if on_turn {
            "It is your turn"
        } else {
            "You have a decision to make"
        };
        paragraphs.push(format!(
            "{whose} in {} #{} (move {}), playing as {} against {}.",
            self.info.name,
            self.row.id,
            version + 1,
            self.state.seat_name(seat),
            opponents.join(", ")
        ));
        let (_, texts, list) = super::choices::entries(self.state, seat);
        let named = choice_namer(self.state, seat, self.seats);
        let mut notes = Vec::new();
        if texts.is_empty() {
            // A takeback to answer is still something to do, outside the game's moves.
            notes.push(if matches!(why, TurnWhy::Takeback { .. }) {
                "Nothing else to play right now: reply `accept` or `decline`.\n".to_string()
            } else {
                "You have nothing to do right now.\n".to_string()
            });
        } else {
            if list.iter().any(|e| e.members.len() > 1 && !e.family) {
                notes.push(TWO_STEP_HELP.to_string());
            }
            if let Some(help) = self.state.notation_help(seat) {
                notes.push(help);
            }
            notes.push(REPLY_HELP.to_string());
        }
        Letter {
            subject: subject(self.info, self.row.id, what),
            kicker: self.kicker(),
            heading,
            paragraphs,
            position: Some(self.position_text()),
            picture: None,
            more_choices: list.len().saturating_sub(MAX_LISTED_CHOICES),
            choices: list
                .into_iter()
                .take(MAX_LISTED_CHOICES)
                .map(|e| named(&e.label))
                .collect(),
            notes,
            chat: Vec::new(),
            recent: self.recent_lines(),
            link: Some((link, "Open the game".into())),
            footer: self.footer(),
            unsubscribe: self.unsubscribe(),
        }
    }

    /// [`GameMail::recent`] in words, naming people as the recipient knows them.
    fn recent_lines(&self) -> Vec<String> {
        let people = people(self.seats, Viewer::Seat(self.player.seat as usize));
        let skipped = self.recent.len().saturating_sub(MAX_RECENT);
        let mut lines = Vec::new();
        if skipped > 0 {
            lines.push(format!(
                "… {skipped} earlier {} (the game's page has the whole log)",
                if skipped == 1 { "move" } else { "moves" }
            ));
        }
        for m in &self.recent[skipped..] {
            let who = people.label(m.seat, &self.state.seat_name(m.seat));
            let line = match &m.text {
                None => format!("{who} made a move you cannot see"),
                Some(text) => {
                    let (text, how) = match (
                        text.strip_prefix(FORCED_PREFIX),
                        text.strip_prefix(BOT_PREFIX),
                    ) {
                        (Some(t), _) => (t, " (their only choice)"),
                        (_, Some(t)) => (t, " (played by the computer)"),
                        _ => (text.as_str(), ""),
                    };
                    let said = self.named_once(text, m.seat);
                    format!("{who} {said}{how}")
                }
            };
            lines.push(line);
        }
        lines
    }

    /// What the game calls each seat ("Seat 2", "Red").
    fn labels(&self) -> Vec<String> {
        labels(self.state, self.seats)
    }

    /// A game's own words with people's names beside the seats they name: "Seat 2 wins
    /// with 22 points" reads "Bo (Seat 2) wins with 22 points." ("You (Seat 2) win" to Bo).
    fn named(&self, text: &str) -> String {
        let viewer = Viewer::Seat(self.player.seat as usize);
        let mut out = people(self.seats, viewer).name_seats(
            text.trim(),
            &self.labels(),
            Mentions::Every,
            None,
        );
        if !out.is_empty() && !out.ends_with(['.', '!', '?']) {
            out.push('.');
        }
        out
    }

    /// A log line's words after its actor's name: every other seat named at its first
    /// mention ("Bo (Blue)", the recipient "you (Green)"), the actor not again ("Di (Green)
    /// played Q♠ for Green: Green 1 → 13").
    fn named_once(&self, text: &str, actor: Seat) -> String {
        let viewer = Viewer::Seat(self.player.seat as usize);
        people(self.seats, viewer).name_seats(
            text.trim().trim_end_matches('.'),
            &self.labels(),
            Mentions::First,
            Some(actor),
        )
    }

    /// The seat's position in words, every seat named: "Bo (Seat 2) to play".
    fn position_text(&self) -> String {
        position_text(self.state, self.player.seat as usize, self.seats)
    }

    /// The game-over email: the ranking and the final position, from the seat's view.
    pub fn game_over(&self, outcome: &Outcome) -> Letter {
        let mut ranking = String::new();
        for p in &outcome.ranking {
            let name = self
                .seats
                .iter()
                .find(|i| i.seat as usize == p.seat)
                .map_or("?", |i| i.name.as_str());
            let score = p
                .score
                .map(|s| format!(" ({s} points)"))
                .unwrap_or_default();
            let _ = writeln!(
                ranking,
                "  {}. {} — {}{}",
                p.rank,
                name,
                self.state.seat_name(p.seat),
                score
            );
        }
        // A resignation or a timeout ends the game where the rules would go on: the last
        // position still shows whose turn came next, which nobody will play.
        let position = if self.state.status().is_finished() {
            "Final position:"
        } else {
            "The position when the game ended (the turn it shows was not played):"
        };
        Letter {
            subject: subject(self.info, self.row.id, "game over"),
            kicker: format!("{} #{} · final", self.info.name, self.row.id),
            heading: "The game is over".into(),
            paragraphs: vec![
                format!("Hello {},", self.player.name),
                format!("The game is over: {}", self.named(&outcome.summary)),
                ranking,
                "Reply `rematch` to play again: the same players, the seats rotated by one, the \
                 same options."
                    .into(),
                position.into(),
            ],
            position: Some(self.position_text()),
            link: Some((self.link(), "See the game".into())),
            footer: self.footer(),
            unsubscribe: self.unsubscribe(),
            ..Letter::default()
        }
    }

    /// A chat email: what was said at the table (`chat`: who, what) while the seat had no
    /// turn email coming. The position is not repeated; the link leads to the game.
    pub fn table_talk(&self, chat: Vec<(String, String)>) -> Letter {
        let authors: std::collections::BTreeSet<&str> = chat
            .iter()
            .map(|(who, _)| who.trim_end_matches(" (to your team)"))
            .collect();
        let authors: Vec<&str> = authors.into_iter().collect();
        let who = match authors.as_slice() {
            [one] => (*one).to_string(),
            [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
            [] => "Someone".to_string(),
        };
        Letter {
            subject: subject(self.info, self.row.id, "table talk"),
            kicker: self.kicker(),
            heading: format!("{who} wrote at the table"),
            paragraphs: vec![format!("Hello {},", self.player.name)],
            chat,
            link: Some((self.link(), "Open the game".into())),
            footer: self.footer(),
            unsubscribe: self.unsubscribe(),
            ..Letter::default()
        }
    }
}

/// How the log marks a move that played itself, and one the computer played for a seat
/// (the domain writes them; emails read them back into words).
pub const FORCED_PREFIX: &str = "[forced] ";
pub const BOT_PREFIX: &str = "[bot] ";

/// A turn email lists at most this many numbered lines. Long lists are grouped first
/// (see [`super::choices`]); what is left over can be written out.
pub const MAX_LISTED_CHOICES: usize = 150;

/// Under a list with grouped choices.
pub const TWO_STEP_HELP: &str = "A choice marked \"(n ways)\" comes in two steps: reply with its number to see the\n\
ways, or pick one at once as number.way (e.g. 12.3).\n";

/// `seat`'s position in words with the people beside the seats it names ("Bo (Seat 2) to
/// play", "You (Seat 1): 15 tiles").
pub fn position_text(state: &dyn LoadedGame, seat: Seat, seats: &[SeatInfo]) -> String {
    let viewer = Viewer::Seat(seat);
    people(seats, viewer).name_seats(
        &state.render_text(viewer),
        &labels(state, seats),
        Mentions::Every,
        None,
    )
}

/// `seat`'s choices as its emails list them: every other seat named at its first mention
/// ("offer Ada (Player A): your 1 food for their 1 ore"). The table is read once, for a
/// whole list.
pub fn choice_namer(
    state: &dyn LoadedGame,
    seat: Seat,
    seats: &[SeatInfo],
) -> impl Fn(&str) -> String {
    let table = people(seats, Viewer::Seat(seat));
    let labels = labels(state, seats);
    move |text| table.name_seats(text, &labels, Mentions::First, Some(seat))
}

/// A sentence of the game's about the table (a result's summary) as `seat` reads it, the
/// people beside their seats: "You (Seat 1) win with 30 points".
pub fn named_sentence(
    state: &dyn LoadedGame,
    seat: Seat,
    seats: &[SeatInfo],
    text: &str,
) -> String {
    people(seats, Viewer::Seat(seat)).name_seats(text, &labels(state, seats), Mentions::Every, None)
}

/// What the game calls each seat at the table ("Seat 2", "Red").
fn labels(state: &dyn LoadedGame, seats: &[SeatInfo]) -> Vec<String> {
    let count = seats.iter().map(|s| s.seat.max(0) as usize + 1).max();
    (0..count.unwrap_or(0))
        .map(|s| state.seat_name(s))
        .collect()
}

/// How to play by replying, as printed under the choices.
pub const REPLY_HELP: &str = "Reply to this email with the number of your choice, or the choice written out.\n\
Several lines are played in order, all or nothing. Add a line `preview` to see the result\n\
without playing it; `status` resends the position, `resign` gives up the game, `help` explains;\n`takeback` asks to undo your last move, `accept` or `decline` answers such a request;\nonce the game is over, `rematch` plays it again. A line starting with `say` goes to the table's\nchat (`say team:` to your team), with your moves or not at all.\n";

/// Appends the seat's view and its numbered choices (with how to reply); returns the
/// choices' texts.
pub fn position_and_choices(
    body: &mut String,
    state: &dyn LoadedGame,
    seat: Seat,
    seats: &[SeatInfo],
) -> Vec<String> {
    let (_, texts, list) = super::choices::entries(state, seat);
    body.push_str(&position_text(state, seat, seats));
    if texts.is_empty() {
        body.push_str("\n\nYou have nothing to do right now.\n");
        return texts;
    }
    body.push_str("\n\nYour choices:\n");
    let named = choice_namer(state, seat, seats);
    for (i, e) in list.iter().enumerate().take(MAX_LISTED_CHOICES) {
        let label = named(&e.label);
        let _ = writeln!(body, "  {:>3}. {label}", i + 1);
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
        body.push_str(TWO_STEP_HELP);
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
    pub account_id: Option<AccountId>,
    pub to: String,
    pub what: &'a str,
    pub body: String,
    pub reply_to: Option<String>,
    pub in_reply_to: &'a str,
    /// The player's seat, when the answer is about their game (it joins the game's thread).
    pub seat: Option<i32>,
}

pub fn answer(site: Site<'_>, a: Answer<'_>) -> NewOutbox {
    let (subject_line, link, game_id) = match a.game {
        Some((row, info)) => (
            subject(info, row.id, a.what),
            format!(
                "{}/#/game/{}",
                site.public_url.trim_end_matches('/'),
                row.id
            ),
            Some(row.id),
        ),
        None => (
            format!("[Turnpost] {}", a.what),
            site.public_url.to_string(),
            None,
        ),
    };
    let html = html_part(&subject_line, &a.body, &link);
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
        kind: Some(OutboxKind::Answer),
        seat: a.seat,
        ..NewOutbox::default()
    }
}

/// The HTML part of a text-only email: the text in the frame every email shares.
pub fn html_part(subject: &str, text: &str, link: &str) -> String {
    letter::plain(subject, "", text, link).html()
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
        fn board_svg(&self, _: &crate::engine::People) -> String {
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
    fn a_summary_names_the_people_beside_their_seats_once() {
        use crate::engine::people::name_words;
        let named = name_words(
            "Seat 2 wins with 22 points; Seat 21 and (Seat 2)",
            "Seat 2",
            "Bo (Seat 2)",
            false,
        );
        assert_eq!(
            named,
            "Bo (Seat 2) wins with 22 points; Seat 21 and (Seat 2)"
        );
        assert_eq!(
            name_words("Redmond beat Red", "Red", "Ada (Red)", false),
            "Redmond beat Ada (Red)"
        );
        // A log line names a seat at its first mention only.
        assert_eq!(
            name_words("gave 2 to Red, then Red 1 → 13", "Red", "Ada (Red)", true),
            "gave 2 to Ada (Red), then Red 1 → 13"
        );
    }

    #[test]
    fn long_choice_lists_become_two_steps_and_numbers_keep_their_meaning() {
        use crate::notify::choices::{Pick, pick};
        let mut body = String::new();
        let texts = position_and_choices(&mut body, &Many(400), 0, &[]);
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
            matches!(pick(&Many(400), 0, &[], "1"), Some(Ok(Pick::Ambiguous(t))) if t.contains("1.3 choice 2"))
        );
        assert_eq!(
            pick(&Many(400), 0, &[], "1.3"),
            Some(Ok(Pick::Action(json!({ "n": 2 }))))
        );
        assert!(pick(&Many(400), 0, &[], "1.11").is_some_and(|r| r.is_err()));
        assert!(pick(&Many(400), 0, &[], "99").is_some_and(|r| r.is_err()));
        assert!(pick(&Many(400), 0, &[], "bid 3").is_none());
        // A short list is numbered one by one.
        let mut short = String::new();
        position_and_choices(&mut short, &Many(3), 0, &[]);
        assert!(short.contains("    3. choice 2") && !short.contains("ways"));
        assert_eq!(
            pick(&Many(3), 0, &[], "3"),
            Some(Ok(Pick::Action(json!({ "n": 2 }))))
        );
    }
}
