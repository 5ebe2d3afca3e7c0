//! The numbered choices of a turn email, and what a number in a reply picks.
//!
//! A short list is one number per legal action. A long one (hundreds of Starfarers flights,
//! one Space Empires bid per CP value) becomes two steps instead of hundreds of lines:
//! actions the game gathers under one heading (ship and destination; see
//! [`crate::engine::Game::choice_group`]) share a number, `12`, and are picked as `12.3`;
//! actions whose texts differ only in one number (`bid 12 CP`) are listed once, as
//! `bid # CP`, with the range, and are answered by writing the text with the number.
//! Both sides compute the list from the same position, so a number means the same in the
//! email and in the reply.

use std::collections::BTreeMap;

use serde_json::Value;

use super::compose::choice_namer;
use crate::engine::{LoadedGame, Seat};
use crate::store::models::SeatInfo;

/// Up to this many actions are listed one by one.
pub const FLAT_LIMIT: usize = 40;
/// A text pattern shared by at least this many actions is listed once.
const FAMILY_MIN: usize = 5;

/// One numbered line of the list.
#[derive(Debug)]
pub struct Entry {
    /// What the line says.
    pub label: String,
    /// Indices into the seat's legal actions, in their order.
    pub members: Vec<usize>,
    /// True for a family of texts differing in one number (picked by writing the text).
    pub family: bool,
}

/// The numbered list for `seat` on `state`.
pub fn entries(state: &dyn LoadedGame, seat: Seat) -> (Vec<Value>, Vec<String>, Vec<Entry>) {
    let legal = state.legal_actions(seat);
    let texts: Vec<String> = legal
        .iter()
        .map(|a| state.describe_action(seat, a).unwrap_or_default())
        .collect();
    let list = if legal.len() <= FLAT_LIMIT {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Entry {
                label: t.clone(),
                members: vec![i],
                family: false,
            })
            .collect()
    } else {
        grouped(state, seat, &legal, &texts)
    };
    (legal, texts, list)
}

fn grouped(state: &dyn LoadedGame, seat: Seat, legal: &[Value], texts: &[String]) -> Vec<Entry> {
    let patterns: Vec<String> = texts.iter().map(|t| number_pattern(t)).collect();
    let mut pattern_count: BTreeMap<&str, usize> = BTreeMap::new();
    for p in &patterns {
        *pattern_count.entry(p.as_str()).or_default() += 1;
    }
    // Each action's key, in the order of first appearance.
    let mut order: Vec<(String, bool)> = Vec::new();
    let mut members: BTreeMap<(String, bool), Vec<usize>> = BTreeMap::new();
    for (i, a) in legal.iter().enumerate() {
        let key = match state.choice_group(seat, a) {
            Some(heading) => (heading, false),
            None if pattern_count[patterns[i].as_str()] >= FAMILY_MIN => {
                (patterns[i].clone(), true)
            }
            None => (format!("\u{0}{i}"), false),
        };
        let list = members.entry(key.clone()).or_default();
        if list.is_empty() {
            order.push(key);
        }
        list.push(i);
    }
    order
        .into_iter()
        .map(|key| {
            let m = members.remove(&key).unwrap_or_default();
            let (heading, family) = key;
            let label = if m.len() == 1 {
                texts[m[0]].clone()
            } else if family {
                family_label(&heading, m.iter().map(|&i| texts[i].as_str()))
            } else {
                format!("{heading} ({} ways)", m.len())
            };
            Entry {
                label,
                members: m,
                family,
            }
        })
        .collect()
}

/// `text` with every run of digits replaced by `#`.
fn number_pattern(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_digits = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                out.push('#');
            }
            in_digits = true;
        } else {
            out.push(c);
            in_digits = false;
        }
    }
    out
}

/// `bid # CP, with # from 0 to 37 (write it out, e.g. "bid 12 CP")`.
fn family_label<'a>(pattern: &str, texts: impl Iterator<Item = &'a str>) -> String {
    let texts: Vec<&str> = texts.collect();
    let numbers: Vec<u64> = texts
        .iter()
        .filter_map(|t| {
            t.split(|c: char| !c.is_ascii_digit())
                .find(|s| !s.is_empty())
                .and_then(|s| s.parse().ok())
        })
        .collect();
    let range = match (numbers.iter().min(), numbers.iter().max()) {
        (Some(lo), Some(hi)) if pattern.matches('#').count() == 1 => {
            format!(", with # from {lo} to {hi}")
        }
        _ => String::new(),
    };
    let example = texts.get(texts.len() / 2).copied().unwrap_or_default();
    format!(
        "{pattern}{range} ({} choices: write one out, e.g. \"{example}\")",
        texts.len()
    )
}

/// `text` in lower case with single spaces.
pub fn normalize(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `text` without its parenthesised notes: "end trading and launch (3 ships ready)" is
/// written "end trading and launch", "offer Ada (Player A): 1 food" "offer Ada: 1 food".
fn without_notes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for c in text.chars() {
        match c {
            '(' => {
                if depth == 0 {
                    out.truncate(out.trim_end().len());
                }
                depth += 1;
            }
            ')' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    normalize(&out)
}

/// What a choice written out in a reply matches among `seat`'s legal actions.
#[derive(Debug, PartialEq)]
pub enum Written {
    Action(Value),
    /// Several choices begin with these words: their texts.
    Several(Vec<String>),
}

/// A choice written out: its whole text (any case and spacing), its text without the
/// parenthesised notes, or the first words of exactly one choice ("accept" for "accept the
/// offer: 2 ore for 1 food"); each as the game says it ("offer Player A: …") or as the
/// email lists it, people named ("offer Ada (Player A): …", "offer Ada: …"). `None` when
/// no choice begins with these words.
pub fn written(
    state: &dyn LoadedGame,
    seat: Seat,
    seats: &[SeatInfo],
    line: &str,
) -> Option<Written> {
    let wanted = normalize(line.trim().trim_end_matches('.'));
    if wanted.is_empty() {
        return None;
    }
    let legal = state.legal_actions(seat);
    let texts: Vec<String> = legal
        .iter()
        .map(|a| state.describe_action(seat, a).unwrap_or_default())
        .collect();
    let name = choice_namer(state, seat, seats);
    let named: Vec<String> = texts.iter().map(|t| name(t)).collect();
    // Each choice's forms: its own words and its words with the people named.
    let forms = |i: usize| [&texts[i], &named[i]];
    if let Some(i) = (0..texts.len()).find(|&i| forms(i).iter().any(|t| normalize(t) == wanted)) {
        return legal.get(i).cloned().map(Written::Action);
    }
    let bare: Vec<[String; 2]> = (0..texts.len())
        .map(|i| forms(i).map(|t| without_notes(t)))
        .collect();
    let mut found: Vec<usize> = (0..bare.len())
        .filter(|&i| bare[i].contains(&wanted))
        .collect();
    if found.is_empty() {
        // Whole words only: "take" is not the start of "taken".
        found = (0..bare.len())
            .filter(|&i| {
                bare[i].iter().any(|b| {
                    b.strip_prefix(&wanted).is_some_and(|rest| {
                        rest.is_empty() || rest.starts_with([' ', ':', ',', ';'])
                    })
                })
            })
            .collect();
    }
    match found.as_slice() {
        [] => None,
        [one] => legal.get(*one).cloned().map(Written::Action),
        many => Some(Written::Several(
            many.iter().map(|&i| named[i].clone()).collect(),
        )),
    }
}

/// What a number in a reply picks.
#[derive(Debug, PartialEq)]
pub enum Pick {
    Action(Value),
    /// The number names a heading with several actions: the reply must say which.
    Ambiguous(String),
}

/// Resolves `12` or `12.3` against the list of `seat` on `state`; `None` when `text` is
/// not a choice number.
pub fn pick(
    state: &dyn LoadedGame,
    seat: Seat,
    seats: &[SeatInfo],
    text: &str,
) -> Option<Result<Pick, String>> {
    let (major, minor) = match text.split_once('.') {
        Some((a, b)) => (a.parse::<usize>().ok()?, Some(b.parse::<usize>().ok()?)),
        None => (text.parse::<usize>().ok()?, None),
    };
    let (legal, texts, list) = entries(state, seat);
    let Some(entry) = major.checked_sub(1).and_then(|i| list.get(i)) else {
        return Some(Err(format!(
            "there is no choice {major}: choose 1 to {}",
            list.len()
        )));
    };
    let chosen = match (minor, entry.members.as_slice()) {
        (None, [only]) => *only,
        (Some(1), [only]) => *only,
        (None, many) => {
            let mut lines = format!(
                "choice {major} is {} ways; reply with one of:\n",
                many.len()
            );
            let name = choice_namer(state, seat, seats);
            for (j, &i) in many.iter().enumerate() {
                lines.push_str(&format!("  {major}.{} {}\n", j + 1, name(&texts[i])));
            }
            return Some(Ok(Pick::Ambiguous(lines)));
        }
        (Some(n), many) => match n.checked_sub(1).and_then(|j| many.get(j)) {
            Some(&i) => i,
            None => {
                return Some(Err(format!(
                    "choice {major} has {} ways: {major}.1 to {major}.{}",
                    many.len(),
                    many.len()
                )));
            }
        },
    };
    legal.get(chosen).cloned().map(|a| Ok(Pick::Action(a)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Applied, RuleError, Status, Viewer};
    use serde_json::json;

    /// A seat whose legal actions are described by `texts`.
    struct Texts(Vec<&'static str>);

    impl LoadedGame for Texts {
        fn status(&self) -> Status {
            Status::Active { to_act: vec![0] }
        }
        fn legal_actions(&self, _: Seat) -> Vec<Value> {
            (0..self.0.len()).map(|i| json!({ "n": i })).collect()
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
        fn choice_group(&self, _: Seat, _: &Value) -> Option<String> {
            None
        }
        fn apply(&self, _: Seat, _: &Value) -> Result<Applied, RuleError> {
            Err(RuleError::new("no", "no"))
        }
        fn view(&self, _: Viewer) -> Value {
            Value::Null
        }
        fn render_text(&self, _: Viewer) -> String {
            String::new()
        }
        fn board_svg(&self, _: &crate::engine::People) -> String {
            String::new()
        }
        fn describe_action(&self, _: Seat, a: &Value) -> Option<String> {
            let i = a["n"].as_u64()? as usize;
            self.0.get(i).map(|t| t.to_string())
        }
        fn seat_name(&self, seat: Seat) -> String {
            format!("Seat {seat}")
        }
        fn decision_basis(&self, _: Seat) -> Value {
            Value::Null
        }
        fn resample_hidden(&self, _: Viewer, _: [u8; 32]) -> Box<dyn LoadedGame> {
            Box::new(Texts(self.0.clone()))
        }
        fn encode(&self) -> String {
            String::new()
        }
    }

    fn seat(seat: i32, name: &str) -> SeatInfo {
        SeatInfo {
            seat,
            account_id: crate::store::kinds::AccountId(i64::from(seat) + 1),
            name: name.into(),
            email: String::new(),
            email_notifications: true,
            daily_digest: false,
            clock_ms: None,
            clock_since: None,
            clock_left_ms: None,
            vacation_until: None,
            email_verified: true,
            email_bouncing: false,
            muted: false,
            bot: false,
        }
    }

    #[test]
    fn a_choice_is_written_as_the_game_says_it_or_as_the_email_lists_it_with_names() {
        let g = Texts(vec![
            "offer Seat 1: your 1 food for their 1 ore",
            "draw a random card from Seat 1",
            "draw a random card from Seat 2",
        ]);
        let seats = [seat(0, "Ada"), seat(1, "Bo"), seat(2, "Cy")];
        let pick = |l: &str| written(&g, 0, &seats, l);
        assert_eq!(
            pick("offer Bo (Seat 1): your 1 food for their 1 ore"),
            Some(Written::Action(json!({"n": 0})))
        );
        assert_eq!(
            pick("Offer Bo: your 1 food for their 1 ore."),
            Some(Written::Action(json!({"n": 0})))
        );
        assert_eq!(
            pick("offer Seat 1: your 1 food for their 1 ore"),
            Some(Written::Action(json!({"n": 0})))
        );
        assert_eq!(
            pick("draw a random card from Cy"),
            Some(Written::Action(json!({"n": 2})))
        );
        // Several begin so: they are listed as the email lists them.
        assert_eq!(
            pick("draw"),
            Some(Written::Several(vec![
                "draw a random card from Bo (Seat 1)".into(),
                "draw a random card from Cy (Seat 2)".into(),
            ]))
        );
    }

    #[test]
    fn a_choice_is_written_whole_without_its_notes_or_by_its_unique_first_words() {
        let g = Texts(vec![
            "accept the offer: 2 ore for 1 food",
            "decline the offer",
            "end trading and launch (3 ships ready)",
            "take 5♥ with 5♦",
            "take 7♣ with 7♦",
            "taken back",
        ]);
        let pick = |l: &str| written(&g, 0, &[], l);
        assert_eq!(pick("Accept"), Some(Written::Action(json!({"n": 0}))));
        assert_eq!(
            pick("DECLINE  the offer."),
            Some(Written::Action(json!({"n": 1})))
        );
        assert_eq!(
            pick("end trading and launch"),
            Some(Written::Action(json!({"n": 2})))
        );
        // Several begin with "take": the reply must say which; "taken" is another word.
        assert_eq!(
            pick("take"),
            Some(Written::Several(vec![
                "take 5♥ with 5♦".into(),
                "take 7♣ with 7♦".into()
            ]))
        );
        assert_eq!(pick("taken back"), Some(Written::Action(json!({"n": 5}))));
        assert_eq!(pick("acc"), None, "a part of a word is no word");
        assert_eq!(pick("launch"), None);
        assert_eq!(pick("  "), None);
    }
}
