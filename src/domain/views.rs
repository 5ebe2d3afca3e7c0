//! What one seat sees of one version of a game (its view, legal actions and their texts),
//! computed once and kept: a client polling an unchanged game costs one row read, not a
//! snapshot decode and a legal-move search per request.

use crate::store::kinds::GameId;
use crate::store::kinds::GameStatus;
use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use serde_json::value::RawValue;

use crate::engine::{LoadedGame, Viewer};
use crate::store::models::GameRow;

/// How many bytes of answers are kept per server; the least used go first. Bounded by
/// size, not by count: a Starfarers answer with hundreds of flights is a hundred times a
/// Kasino one.
const CAPACITY_BYTES: u64 = 32 * 1024 * 1024;

/// A seat's answer for one version of a game, as the JSON text it is sent as: kept as
/// text, it takes a third of the memory of parsed values and is copied into an answer
/// without being walked.
pub struct SeatAnswer {
    pub view: Box<RawValue>,
    pub legal_actions: Box<RawValue>,
    pub legal_action_texts: Box<RawValue>,
}

impl SeatAnswer {
    fn bytes(&self) -> u64 {
        (self.view.get().len()
            + self.legal_actions.get().len()
            + self.legal_action_texts.get().len()) as u64
    }
}

/// Weighs an answer by its size.
#[derive(Clone, Copy)]
struct BySize;

impl Weighter<Key, Arc<SeatAnswer>> for BySize {
    fn weight(&self, _key: &Key, answer: &Arc<SeatAnswer>) -> u64 {
        answer.bytes().max(1)
    }
}

/// Everything the answer depends on. The status is part of it: a resignation can end a
/// game without a new version, and a finished game offers no actions.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    game: GameId,
    version: i64,
    active: bool,
    seat: Option<i32>,
}

impl Key {
    fn new(row: &GameRow, seat: Option<i32>) -> Key {
        Key {
            game: row.id,
            version: row.version,
            active: row.status == GameStatus::Active,
            seat,
        }
    }
}

pub struct ViewCache {
    answers: Cache<Key, Arc<SeatAnswer>, BySize>,
}

impl Default for ViewCache {
    fn default() -> Self {
        ViewCache {
            answers: Cache::with_weighter(4096, CAPACITY_BYTES, BySize),
        }
    }
}

impl ViewCache {
    /// The kept answer of `seat` (None: a spectator) for `row`'s version, if any.
    pub fn get(&self, row: &GameRow, seat: Option<i32>) -> Option<Arc<SeatAnswer>> {
        self.answers.get(&Key::new(row, seat))
    }

    /// Computes the answer from `state` (the game at `row`'s version) and keeps it.
    pub fn compute(
        &self,
        row: &GameRow,
        seat: Option<i32>,
        state: Option<&dyn LoadedGame>,
    ) -> Arc<SeatAnswer> {
        let answer = Arc::new(seat_answer(row, seat, state));
        // Only a started game's answer is kept: an open game has no state, and its row
        // changes (players join) without a new version.
        if state.is_some() {
            self.answers
                .insert(Key::new(row, seat), Arc::clone(&answer));
        }
        answer
    }
}

fn seat_answer(row: &GameRow, seat: Option<i32>, state: Option<&dyn LoadedGame>) -> SeatAnswer {
    let Some(st) = state else {
        return SeatAnswer {
            view: Box::default(),
            legal_actions: raw(&[(); 0]),
            legal_action_texts: raw(&[(); 0]),
        };
    };
    let viewer = seat.map_or(Viewer::Spectator, |s| Viewer::Seat(s as usize));
    let legal = match seat {
        Some(s) if row.status == GameStatus::Active => st.legal_actions(s as usize),
        _ => Vec::new(),
    };
    let texts: Vec<String> = match seat {
        Some(s) => legal
            .iter()
            .map(|a| st.describe_action(s as usize, a).unwrap_or_default())
            .collect(),
        None => Vec::new(),
    };
    SeatAnswer {
        view: raw(&st.view(viewer)),
        legal_actions: raw(&legal),
        legal_action_texts: raw(&texts),
    }
}

/// `value` as JSON text. Values built in memory always serialise; `null` stands in if one
/// ever did not.
fn raw<T: serde::Serialize + ?Sized>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_default()
}
