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
}

impl People {
    /// `names[seat]` is the person at each seat (an empty name counts as unknown).
    pub fn new(viewer: Viewer, names: Vec<String>) -> People {
        People { viewer, names }
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
