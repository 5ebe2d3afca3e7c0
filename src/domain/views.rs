//! What one seat sees of one version of a game (its view, legal actions and their texts),
//! computed once and kept: a client polling an unchanged game costs a read of its revision
//! (see `game_cache`), not a snapshot decode and a legal-move search per request.

use crate::store::kinds::GameId;
use crate::store::kinds::GameStatus;
use std::sync::Arc;

use quick_cache::Weighter;
use quick_cache::sync::Cache;
use serde_json::value::RawValue;

use crate::engine::{LoadedGame, SeatJson, Viewer, raw_json};
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
    pub legal_action_targets: Box<RawValue>,
    /// What the game calls each seat ("Red", "South"), by seat.
    pub seat_labels: Vec<String>,
}

impl SeatAnswer {
    fn bytes(&self) -> u64 {
        (self.view.get().len()
            + self.legal_actions.get().len()
            + self.legal_action_texts.get().len()
            + self.legal_action_targets.get().len()
            + self.seat_labels.iter().map(String::len).sum::<usize>()) as u64
    }
}

/// Weighs an answer by its size.
#[derive(Clone, Copy)]
struct BySize;

impl Weighter<Key, Entry> for BySize {
    fn weight(&self, _key: &Key, entry: &Entry) -> u64 {
        entry.answer.bytes().max(1)
    }
}

/// One entry per game and seat (None: a spectator): the answer of the latest version
/// computed. An older version is never asked for again (a read answers the game as it is
/// now), so a move replaces its seats' answers instead of leaving them to age out: the
/// cache holds what is live, not the last 32 MiB of moves.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    game: GameId,
    seat: Option<i32>,
}

/// Everything else the answer depends on, and the answer. The status is part of it: a
/// resignation can end a game without a new version, and a finished game offers no
/// actions.
#[derive(Clone)]
struct Entry {
    version: i64,
    active: bool,
    answer: Arc<SeatAnswer>,
}

impl Entry {
    fn answers(&self, row: &GameRow) -> bool {
        self.version == row.version && self.active == (row.status == GameStatus::Active)
    }
}

pub struct ViewCache {
    answers: Cache<Key, Entry, BySize>,
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
        let key = Key { game: row.id, seat };
        self.answers
            .get(&key)
            .filter(|e| e.answers(row))
            .map(|e| e.answer)
    }

    /// Computes the answer from `state` (the game at `row`'s version) and keeps it, in
    /// place of the seat's answer for an earlier version.
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
            let key = Key { game: row.id, seat };
            let newer_kept = self
                .answers
                .get(&key)
                .is_some_and(|e| e.version > row.version);
            // A slow request that worked out an older version must not push out a newer
            // answer.
            if !newer_kept {
                self.answers.insert(
                    key,
                    Entry {
                        version: row.version,
                        active: row.status == GameStatus::Active,
                        answer: Arc::clone(&answer),
                    },
                );
            }
        }
        answer
    }

    /// How many answers are kept (for tests).
    pub fn len(&self) -> usize {
        self.answers.len()
    }

    pub fn is_empty(&self) -> bool {
        self.answers.is_empty()
    }
}

fn seat_answer(row: &GameRow, seat: Option<i32>, state: Option<&dyn LoadedGame>) -> SeatAnswer {
    let Some(st) = state else {
        return SeatAnswer {
            view: Box::default(),
            legal_actions: raw_json(&[(); 0]),
            legal_action_texts: raw_json(&[(); 0]),
            legal_action_targets: raw_json(&[(); 0]),
            seat_labels: Vec::new(),
        };
    };
    let viewer = seat.map_or(Viewer::Spectator, |s| Viewer::Seat(s as usize));
    let acting = seat
        .filter(|_| row.status == GameStatus::Active)
        .map(|s| s as usize);
    let SeatJson {
        view,
        legal_actions,
        legal_action_texts,
        legal_action_targets,
    } = st.seat_json(viewer, acting);
    SeatAnswer {
        view,
        legal_actions,
        legal_action_texts,
        legal_action_targets,
        seat_labels: (0..row.players.max(0) as usize)
            .map(|s| st.seat_name(s))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(version: i64) -> GameRow {
        GameRow::sample(GameId(7), version)
    }

    /// The answer written straight from a game's types is the very text the JSON values
    /// gave, for every game, seat and spectator, along a played game.
    #[test]
    fn typed_answers_are_the_text_the_json_values_gave() {
        let registry = crate::games::Registry::standard();
        for game in registry.all() {
            let info = game.info();
            let options = game.normalize_options(&json!({})).expect("options");
            let mut state = game
                .setup(&options, info.min_players, [9; 32])
                .expect("setup");
            for step in 0..30 {
                let viewers = (0..info.min_players)
                    .map(|s| (Viewer::Seat(s), Some(s)))
                    .chain([(Viewer::Spectator, None)]);
                for (viewer, acting) in viewers {
                    let typed = state.seat_json(viewer, acting);
                    let legal = acting.map(|s| state.legal_actions(s)).unwrap_or_default();
                    let texts: Vec<String> = legal
                        .iter()
                        .filter_map(|a| state.describe_action(acting?, a))
                        .collect();
                    let what = format!("{} step {step} {viewer:?}", info.id);
                    assert_eq!(
                        typed.view.get(),
                        raw_json(&state.view(viewer)).get(),
                        "{what}"
                    );
                    assert_eq!(typed.legal_actions.get(), raw_json(&legal).get(), "{what}");
                    assert_eq!(
                        typed.legal_action_texts.get(),
                        raw_json(&texts).get(),
                        "{what}"
                    );
                }
                let Some(&seat) = state.status().to_act().first() else {
                    break;
                };
                let legal = state.legal_actions(seat);
                let Some(action) = legal.get(step * 7 % legal.len().max(1)) else {
                    break;
                };
                state = state.apply(seat, action).expect("legal").state;
            }
        }
    }

    #[test]
    fn a_seat_keeps_one_answer_the_latest_version_computed() {
        let registry = crate::games::Registry::standard();
        let kasino = registry.get("kasino").expect("kasino");
        let options = kasino.normalize_options(&json!({})).expect("options");
        let mut state = kasino.setup(&options, 2, [3; 32]).expect("setup");
        let cache = ViewCache::default();
        for version in 0..50 {
            for seat in [Some(0), Some(1), None] {
                cache.compute(&row(version), seat, Some(state.as_ref()));
            }
            let seat = state.status().to_act()[0];
            let action = state.legal_actions(seat).remove(0);
            state = state.apply(seat, &action).expect("legal").state;
        }
        assert_eq!(cache.len(), 3, "one answer per seat and the spectator");
        assert!(cache.get(&row(49), Some(0)).is_some());
        assert!(cache.get(&row(48), Some(0)).is_none(), "an older version");
        let mut ended = row(49);
        ended.status = GameStatus::Finished;
        assert!(
            cache.get(&ended, Some(0)).is_none(),
            "ended without a new version"
        );
        // A slow request that worked out an older version leaves the newer answer.
        cache.compute(&row(10), Some(0), Some(state.as_ref()));
        assert!(cache.get(&row(49), Some(0)).is_some());
        assert!(cache.get(&row(10), Some(0)).is_none());
    }
}
