//! People's names in the game's own sentences. A game writes "Seat 2 wins" or "offer
//! Player A 1 food"; what the API answers says "Bo (Seat 2) wins", "offer Ada (Player A) 1
//! food", and "You (Seat 2) win" to Bo. The names are read when the answer is made, so a
//! renamed or deleted account reads as it is now, never as it was when the move was played.

use serde_json::Value;
use serde_json::value::RawValue;

use crate::engine::{Mentions, People, Viewer, raw_json};
use crate::store::models::{SeatInfo, people};

/// The people at one table as one caller knows them, with the game's names for the seats.
pub struct Naming {
    people: People,
    labels: Vec<String>,
}

impl Naming {
    /// `labels[seat]` is what the game calls each seat; `viewer` is the caller's seat.
    pub fn new(seats: &[SeatInfo], labels: &[String], viewer: Option<i32>) -> Naming {
        let viewer = viewer.map_or(Viewer::Spectator, |s| Viewer::Seat(s.max(0) as usize));
        Naming {
            people: people(seats, viewer),
            labels: labels.to_vec(),
        }
    }

    /// A sentence about the whole table (a result's summary): every seat named.
    pub fn sentence(&self, text: &str) -> String {
        self.people
            .name_seats(text, &self.labels, Mentions::Every, None)
    }

    /// An action's words after its mover's name (a log entry, a choice): every other seat
    /// named at its first mention.
    pub fn action(&self, text: &str, mover: Option<i32>) -> String {
        let mover = mover.map(|s| s.max(0) as usize);
        self.people
            .name_seats(text, &self.labels, Mentions::First, mover)
    }

    /// A game's result with its summary named; the rest as stored.
    pub fn result(&self, result: Option<&Value>) -> Option<Value> {
        let mut result = result?.clone();
        if let Some(summary) = result.get_mut("summary")
            && let Some(text) = summary.as_str()
        {
            *summary = Value::String(self.sentence(text));
        }
        Some(result)
    }

    /// The caller's choices in words (a JSON list of strings), named for the caller.
    pub fn choices(&self, texts: &RawValue, mover: Option<i32>) -> Box<RawValue> {
        match serde_json::from_str::<Vec<String>>(texts.get()) {
            Ok(texts) => {
                let named: Vec<String> = texts.iter().map(|t| self.action(t, mover)).collect();
                raw_json(&named)
            }
            Err(_) => texts.to_owned(),
        }
    }
}
