//! Who sits where, as the players know each other. A board picture names each seat's
//! person ("Ada (Red)") and the viewer as "you", so nobody has to work out who "Seat 2" is.
//! The names come from the server (accounts' display names); a picture drawn without them
//! (tests, benchmarks) names seats as the game does.

use super::contract::{Seat, Viewer};

/// Longest name a picture shows, in characters: a long display name must not push the
/// board's labels off the picture.
const MAX_NAME_CHARS: usize = 18;

/// The people at the table, seen from one viewer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct People {
    viewer: Viewer,
    names: Vec<String>,
    ending: Option<String>,
}

impl People {
    /// `names[seat]` is the person at each seat (an empty name counts as unknown).
    pub fn new(viewer: Viewer, names: Vec<String>) -> People {
        People {
            viewer,
            names,
            ending: None,
        }
    }

    /// The game ended outside its rules (a resignation, a player out of time), as `how`
    /// says ("Eve resigned; Ada wins"): the picture says so where it would say whose turn
    /// it is, since the position itself still waits for a move.
    pub fn ended(self, how: String) -> People {
        People {
            ending: Some(how),
            ..self
        }
    }

    /// How the game ended, when it ended outside its rules (see [`People::ended`]).
    pub fn ending(&self) -> Option<&str> {
        self.ending.as_deref()
    }

    /// The seats a picture shows as acting (`to_act`), none once the game has ended.
    pub fn acting<'a>(&self, to_act: &'a [Seat]) -> &'a [Seat] {
        if self.ending.is_some() { &[] } else { to_act }
    }

    /// "Game over: …" for a game that ended outside its rules, to stand in a picture's
    /// status line.
    pub fn game_over(&self) -> Option<String> {
        self.ending().map(|how| format!("Game over: {how}"))
    }

    /// No names known: seats are called what the game calls them.
    pub fn unnamed(viewer: Viewer) -> People {
        People::new(viewer, Vec::new())
    }

    pub fn viewer(&self) -> Viewer {
        self.viewer
    }

    /// Whether `seat` is the viewer's own.
    pub fn is_viewer(&self, seat: Seat) -> bool {
        self.viewer == Viewer::Seat(seat)
    }

    /// The person at `seat` as the viewer knows them: "you", their name (shortened if very
    /// long), or `None` when no name is known.
    pub fn name(&self, seat: Seat) -> Option<String> {
        if self.is_viewer(seat) {
            return Some("you".to_string());
        }
        let name = self.names.get(seat)?.trim();
        if name.is_empty() {
            return None;
        }
        if name.chars().count() <= MAX_NAME_CHARS {
            return Some(name.to_string());
        }
        let short: String = name.chars().take(MAX_NAME_CHARS - 1).collect();
        Some(format!("{}…", short.trim_end()))
    }

    /// The game's name for `seat` (`label`: "Red", "South", "Seat 2") with the person:
    /// "Ada (Red)", "You (Red)", or just "Red" when nobody is known there.
    pub fn label(&self, seat: Seat, label: &str) -> String {
        match self.name(seat) {
            Some(name) => format!("{} ({label})", capitalised(&name)),
            None => label.to_string(),
        }
    }

    /// The person alone where the game's name adds nothing ("Ada", "You"), else `label`.
    pub fn who(&self, seat: Seat, label: &str) -> String {
        self.name(seat)
            .map_or_else(|| label.to_string(), |n| capitalised(&n))
    }
}

/// How a game's sentence names its seats: each at every mention ("Bo (Seat 2) wins"), or
/// each at its first mention only, the rest left as the game says them ("Bo (Red) played
/// Q♠ for Red").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mentions {
    Every,
    First,
}

impl People {
    /// The person at `seat` in a sentence: the viewer as "you", others by their whole
    /// display name; `None` when nobody is known there.
    fn in_sentence(&self, seat: Seat) -> Option<String> {
        if self.is_viewer(seat) {
            return Some("you".to_string());
        }
        let name = self.names.get(seat)?.trim();
        (!name.is_empty()).then(|| name.to_string())
    }

    /// A game's own words with the people beside the seats they name: "Seat 2 wins with 22
    /// points" reads "Bo (Seat 2) wins with 22 points", or "You (Seat 2) win with 22 points"
    /// for Bo. `labels[seat]` is what the game calls each seat; `except` (a log line's
    /// mover, already named before its words) is left as the game says it.
    pub fn name_seats(
        &self,
        text: &str,
        labels: &[String],
        mentions: Mentions,
        except: Option<Seat>,
    ) -> String {
        let mut seats: Vec<(&str, String)> = labels
            .iter()
            .enumerate()
            .filter(|&(seat, _)| Some(seat) != except)
            .filter_map(|(seat, label)| {
                let person = self.in_sentence(seat)?;
                (!label.is_empty() && *label != person).then_some((label.as_str(), person))
            })
            .collect();
        // "Seat 12" before "Seat 1".
        seats.sort_by_key(|(label, _)| std::cmp::Reverse(label.len()));
        let mut out = text.to_string();
        for (label, person) in seats {
            let with = format!("{person} ({label})");
            out = name_words(&out, label, &with, mentions == Mentions::First);
            if person == "you" {
                out = without_second_you(&out, &with);
            }
        }
        you_agrees(&out)
    }
}

/// A game's text marks the reader's own seat ("Seat 2 (you)"); once the seat reads "you
/// (Seat 2)" the mark says it twice. It becomes as many spaces, so columns stay aligned.
fn without_second_you(text: &str, you: &str) -> String {
    const MARK: &str = "(you)";
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(you) {
        let end = at + you.len();
        out.push_str(&rest[..end]);
        rest = &rest[end..];
        let gap = rest.len() - rest.trim_start_matches(' ').len();
        if rest[gap..].starts_with(MARK) {
            out.push_str(&" ".repeat(gap + MARK.len()));
            rest = &rest[gap + MARK.len()..];
        }
    }
    out.push_str(rest);
    out
}

/// `text` with each whole-word `word` (not already in parentheses) replaced by `with`; with
/// `once`, only the first.
pub fn name_words(text: &str, word: &str, with: &str, once: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at]
            .chars()
            .next_back()
            .or_else(|| out.chars().next_back());
        let after = rest[at + word.len()..].chars().next();
        let inside = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric());
        let named = before == Some('(') || after == Some(')');
        out.push_str(&rest[..at]);
        if inside(before) || inside(after) || named {
            out.push_str(word);
        } else {
            out.push_str(with);
            if once {
                out.push_str(&rest[at + word.len()..]);
                return out;
            }
        }
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}

/// Verbs a game writes after a seat ("Seat 1 wins"), as they read after "you".
const THIRD_PERSON: [(&str, &str); 24] = [
    ("wins", "win"),
    ("has", "have"),
    ("is", "are"),
    ("was", "were"),
    ("takes", "take"),
    ("plays", "play"),
    ("leads", "lead"),
    ("scores", "score"),
    ("gets", "get"),
    ("holds", "hold"),
    ("needs", "need"),
    ("draws", "draw"),
    ("passes", "pass"),
    ("goes", "go"),
    ("does", "do"),
    ("moves", "move"),
    ("captures", "capture"),
    ("keeps", "keep"),
    ("loses", "lose"),
    ("owes", "owe"),
    ("offers", "offer"),
    ("gives", "give"),
    ("pays", "pay"),
    ("ties", "tie"),
];

/// The seat-named sentence made grammatical where the viewer is its subject: "you (Seat 1)
/// wins" reads "You (Seat 1) win", capitalised at the start of a sentence.
fn you_agrees(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("you (") {
        let starts_word = rest[..at]
            .chars()
            .next_back()
            .or_else(|| out.chars().next_back())
            .is_none_or(|c| !c.is_alphanumeric());
        let Some(close) = rest[at..].find(')').map(|c| at + c + 1) else {
            break;
        };
        if !starts_word {
            out.push_str(&rest[..close]);
            rest = &rest[close..];
            continue;
        }
        let head = &rest[..at];
        let so_far = format!("{out}{head}");
        let sentence_start = so_far.ends_with('\n')
            || so_far.trim_end().is_empty()
            || so_far.trim_end().ends_with(['.', '!', '?']);
        out.push_str(head);
        let you = &rest[at..close];
        if sentence_start {
            out.push('Y');
            out.push_str(&you[1..]);
        } else {
            out.push_str(you);
        }
        rest = &rest[close..];
        if let Some(tail) = rest.strip_prefix(' ') {
            let verb_end = tail
                .find(|c: char| !c.is_alphabetic())
                .unwrap_or(tail.len());
            if let Some((_, plain)) = THIRD_PERSON.iter().find(|(v, _)| *v == &tail[..verb_end]) {
                out.push(' ');
                out.push_str(plain);
                rest = &tail[verb_end..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn capitalised(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_viewer_is_you_and_others_go_by_name() {
        let p = People::new(Viewer::Seat(1), vec!["Ada".into(), "Bo".into(), " ".into()]);
        assert_eq!(p.label(0, "Red"), "Ada (Red)");
        assert_eq!(p.label(1, "Blue"), "You (Blue)");
        assert_eq!(p.label(2, "Green"), "Green");
        assert_eq!(p.label(3, "Seat 4"), "Seat 4");
        assert_eq!(p.who(0, "Red"), "Ada");
    }

    fn seats() -> Vec<String> {
        ["Seat 1", "Seat 2", "Seat 12"].map(String::from).to_vec()
    }

    #[test]
    fn sentences_name_the_people_and_agree_with_you() {
        let names = vec!["Ada".into(), "Bo".into(), "Cy".into()];
        let bo = People::new(Viewer::Seat(1), names.clone());
        let all = Mentions::Every;
        assert_eq!(
            bo.name_seats("Seat 1 wins with 30 points", &seats(), all, None),
            "Ada (Seat 1) wins with 30 points"
        );
        assert_eq!(
            bo.name_seats(
                "Seat 2 wins with 30 points; Seat 12 has 4",
                &seats(),
                all,
                None
            ),
            "You (Seat 2) win with 30 points; Cy (Seat 12) has 4"
        );
        assert_eq!(
            bo.name_seats("Seat 1 resigned. Seat 2 is last", &seats(), all, None),
            "Ada (Seat 1) resigned. You (Seat 2) are last"
        );
        let spectator = People::new(Viewer::Spectator, names);
        assert_eq!(
            spectator.name_seats(
                "offer Seat 2 1 food, Seat 2 pays",
                &seats(),
                Mentions::First,
                None
            ),
            "offer Bo (Seat 2) 1 food, Seat 2 pays"
        );
        assert_eq!(
            spectator.name_seats("played for Seat 1 and Seat 2", &seats(), all, Some(0)),
            "played for Seat 1 and Bo (Seat 2)"
        );
        // Named words are not named again, and a word inside another is left alone.
        let once = spectator.name_seats("Seat 2 wins", &seats(), all, None);
        assert_eq!(spectator.name_seats(&once, &seats(), all, None), once);
        assert_eq!(
            name_words("Redmond beat Red", "Red", "Ada (Red)", false),
            "Redmond beat Ada (Red)"
        );
    }

    #[test]
    fn the_readers_own_seat_marked_by_the_game_says_you_once_in_its_column() {
        let bo = People::new(Viewer::Seat(1), vec!["Ada".into(), "Bo".into()]);
        let text = "Players:\n  Seat 1        hand 4\n  Seat 2 (you)  hand 4\nDealer: Seat 2";
        assert_eq!(
            bo.name_seats(text, &seats(), Mentions::Every, None),
            "Players:\n  Ada (Seat 1)        hand 4\n  you (Seat 2)        hand 4\n\
             Dealer: you (Seat 2)"
        );
    }

    #[test]
    fn a_spectator_sees_no_you_and_long_names_are_shortened() {
        let p = People::new(Viewer::Spectator, vec!["Ada".into(), "x".repeat(40)]);
        assert_eq!(p.label(0, "Red"), "Ada (Red)");
        let long = p.name(1).unwrap_or_default();
        assert_eq!(long.chars().count(), MAX_NAME_CHARS);
        assert!(long.ends_with('…'));
        assert_eq!(People::unnamed(Viewer::Seat(0)).label(1, "South"), "South");
    }
}
