//! The games this server read or wrote last, each with its seats and the revision the
//! database gave them (see migration `game_revision`: every change to what a read of the
//! game returns bumps it). A read compares one number with the database instead of
//! reading the row and its seats; a move works from the copy and writes only if the
//! revision is still the same (`record_move`), so a stale copy costs a retry, never a
//! wrong answer.
//!
//! Kept only while nothing about the game changes with the time alone: no time control
//! (its clocks run), and no vacation of its players starting or ending (`settled_until`).

use std::sync::{Arc, OnceLock};

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

use super::locked::{LockedGame, game_seats_json, game_seats_settled_until, seats_from_json};
use super::{DomainError, DomainResult};
use crate::engine::LoadedGame;
use crate::store::kinds::GameId;
use crate::store::models::GameRow;
use crate::store::schema::games;

/// How many bytes of game rows are kept per server; the least used go first.
const CAPACITY_BYTES: u64 = 32 * 1024 * 1024;

/// A game as read or written at one revision.
#[derive(Clone)]
pub struct Kept {
    pub revision: i64,
    pub game: Arc<LockedGame>,
    /// When a vacation of one of its players starts or ends (the copy is stale then).
    pub settled_until: Option<DateTime<Utc>>,
    /// The state decoded from the row's snapshot, by the first request that needed it and
    /// shared with every later one (a move's read and its write each decoded the snapshot
    /// afresh: a tenth of the server's time in the load bench).
    decoded: Arc<OnceLock<Arc<dyn LoadedGame>>>,
}

impl Kept {
    /// `game` at `revision`, its state not decoded yet.
    pub fn new(revision: i64, game: LockedGame, settled_until: Option<DateTime<Utc>>) -> Kept {
        Kept {
            revision,
            game: Arc::new(game),
            settled_until,
            decoded: Arc::default(),
        }
    }

    /// `game` at `revision`, with `state`, the state its snapshot holds (as just written).
    pub fn with_state(
        revision: i64,
        game: LockedGame,
        settled_until: Option<DateTime<Utc>>,
        state: Arc<dyn LoadedGame>,
    ) -> Kept {
        let kept = Kept::new(revision, game, settled_until);
        let _ = kept.decoded.set(state);
        kept
    }

    /// The game's state, decoded by `decode` from the snapshot unless decoded before; None
    /// for a game not started (no snapshot).
    pub fn state<E>(
        &self,
        decode: impl FnOnce(&LockedGame) -> Result<Option<Box<dyn LoadedGame>>, E>,
    ) -> Result<Option<Arc<dyn LoadedGame>>, E> {
        if let Some(state) = self.decoded.get() {
            return Ok(Some(Arc::clone(state)));
        }
        let Some(state) = decode(&self.game)? else {
            return Ok(None);
        };
        // Two requests may decode at once; both states are the same, either is kept.
        let state: Arc<dyn LoadedGame> = Arc::from(state);
        Ok(Some(Arc::clone(self.decoded.get_or_init(|| state))))
    }

    fn fresh_at(&self, now: DateTime<Utc>) -> bool {
        self.settled_until.is_none_or(|t| now < t)
    }

    /// Whether a game may be kept at all: nothing in it runs with the time.
    pub fn keepable(game: &LockedGame) -> bool {
        game.row.time_control.is_none() && game.seats.iter().all(|s| s.clock_since.is_none())
    }
}

/// Weighs a game by its snapshot, the bulk of it, counted twice: once as text and once
/// decoded (about as large, measured on Kasino and Starfarers; a copy is weighed when it
/// is kept, before a request may decode it).
#[derive(Clone, Copy)]
struct BySize;

impl Weighter<GameId, Kept> for BySize {
    fn weight(&self, _key: &GameId, kept: &Kept) -> u64 {
        let snapshot = kept.game.row.snapshot.as_ref().map_or(0, String::len);
        (2 * snapshot + 1024) as u64
    }
}

pub struct GameCache {
    games: Cache<GameId, Kept, BySize>,
}

impl Default for GameCache {
    fn default() -> Self {
        GameCache {
            games: Cache::with_weighter(4096, CAPACITY_BYTES, BySize),
        }
    }
}

impl GameCache {
    /// The kept copy of game `id`, if one is kept and no vacation began or ended since;
    /// not checked against the database (a move's write checks its revision).
    pub fn get(&self, id: GameId, now: DateTime<Utc>) -> Option<Kept> {
        self.games.get(&id).filter(|k| k.fresh_at(now))
    }

    /// Keeps `kept` unless a newer revision of the game is kept already (a slow request
    /// must not push out what a later one stored), or the game runs with the time.
    pub fn keep(&self, id: GameId, kept: Kept) {
        if !Kept::keepable(&kept.game) {
            self.games.remove(&id);
            return;
        }
        let newer = self
            .games
            .get(&id)
            .is_some_and(|k| k.revision > kept.revision);
        if !newer {
            self.games.insert(id, kept);
        }
    }

    /// Drops the copy of game `id` (it is about to change by another way than a kept move).
    pub fn forget(&self, id: GameId) {
        self.games.remove(&id);
    }

    /// Game `id` as the database has it now: the kept copy when its revision is still
    /// current (one indexed read of one number), else the row and seats read afresh and
    /// kept.
    pub fn current(
        &self,
        conn: &mut PgConnection,
        id: GameId,
        now: DateTime<Utc>,
    ) -> super::DomainResult<Kept> {
        use crate::store::schema::games;
        if let Some(kept) = self.get(id, now) {
            let revision: Option<i64> = games::table
                .find(id)
                .select(games::revision)
                .first(conn)
                .optional()?;
            match revision {
                Some(r) if r == kept.revision => return Ok(kept),
                Some(_) => {}
                None => {
                    self.games.remove(&id);
                    return Err(super::DomainError::game_not_found(id));
                }
            }
        }
        let kept = LockedGame::read_revision(conn, id, now)?;
        self.keep(id, kept.clone());
        Ok(kept)
    }

    /// How many games are kept (for tests).
    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
}

/// Reading a game to keep lives here, beside the cache that keeps it (the lock itself
/// knows nothing of keeping).
impl LockedGame {
    /// Reads game `id` and its seats without a lock, with the revision they are at and
    /// how long they stay as read (for [`GameCache`]).
    pub(crate) fn read_revision(
        conn: &mut PgConnection,
        id: GameId,
        now: DateTime<Utc>,
    ) -> DomainResult<Kept> {
        let found: Option<(GameRow, i64, serde_json::Value, Option<DateTime<Utc>>)> = games::table
            .find(id)
            .select((
                GameRow::as_select(),
                games::revision,
                game_seats_json(games::id, now),
                game_seats_settled_until(games::id, now),
            ))
            .first(conn)
            .optional()?;
        let (row, revision, seats, settled_until) =
            found.ok_or_else(|| DomainError::game_not_found(id))?;
        let game = LockedGame {
            seats: seats_from_json(conn, seats, now)?,
            row,
        };
        Ok(Kept::new(revision, game, settled_until))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::models::GameRow;
    use serde_json::json;
    use std::cell::Cell;

    fn kasino_game() -> (LockedGame, Box<dyn LoadedGame>) {
        let registry = crate::games::Registry::standard();
        let kasino = registry.get("kasino").expect("kasino");
        let options = kasino.normalize_options(&json!({})).expect("options");
        let state = kasino.setup(&options, 2, [5; 32]).expect("setup");
        let row = GameRow {
            options,
            snapshot: Some(state.encode()),
            ..GameRow::sample(GameId(3), 0)
        };
        let game = LockedGame {
            row,
            seats: Vec::new(),
        };
        (game, state)
    }

    #[test]
    fn a_copy_decodes_its_snapshot_once_for_every_request_that_shares_it() {
        let registry = crate::games::Registry::standard();
        let kasino = registry.get("kasino").expect("kasino");
        let (game, state) = kasino_game();
        let cache = GameCache::default();
        cache.keep(GameId(3), Kept::new(1, game, None));
        let decodes = Cell::new(0);
        let decode = |g: &LockedGame| -> Result<_, String> {
            decodes.set(decodes.get() + 1);
            let snapshot = g.row.snapshot.as_deref().ok_or("no snapshot")?;
            kasino.load(snapshot).map(Some).map_err(|e| e.to_string())
        };
        for _ in 0..3 {
            let kept = cache.get(GameId(3), Utc::now()).expect("kept");
            let decoded = kept.state(decode).expect("decodes").expect("started");
            assert_eq!(decoded.encode(), state.encode());
        }
        assert_eq!(decodes.get(), 1, "decoded once, then shared");

        // A copy kept with the state just written never decodes.
        let (game, state) = kasino_game();
        let written: Arc<dyn LoadedGame> = Arc::from(state);
        cache.keep(
            GameId(3),
            Kept::with_state(2, game, None, Arc::clone(&written)),
        );
        let kept = cache.get(GameId(3), Utc::now()).expect("kept");
        let shared = kept
            .state(|_| -> Result<_, String> { Err("decoded again".into()) })
            .expect("no decode")
            .expect("started");
        assert!(Arc::ptr_eq(&shared, &written));
    }
}
