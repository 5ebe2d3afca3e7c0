//! The games this server read or wrote last, each with its seats and the revision the
//! database gave them (see migration `game_revision`: every change to what a read of the
//! game returns bumps it). A read compares one number with the database instead of
//! reading the row and its seats; a move works from the copy and writes only if the
//! revision is still the same (`record_move`), so a stale copy costs a retry, never a
//! wrong answer.
//!
//! Kept only while nothing about the game changes with the time alone: no time control
//! (its clocks run), and no vacation of its players starting or ending (`settled_until`).

use std::sync::Arc;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

use super::locked::LockedGame;
use crate::store::kinds::GameId;

/// How many bytes of game rows are kept per server; the least used go first.
const CAPACITY_BYTES: u64 = 32 * 1024 * 1024;

/// A game as read or written at one revision.
#[derive(Clone)]
pub struct Kept {
    pub revision: i64,
    pub game: Arc<LockedGame>,
    /// When a vacation of one of its players starts or ends (the copy is stale then).
    pub settled_until: Option<DateTime<Utc>>,
}

impl Kept {
    fn fresh_at(&self, now: DateTime<Utc>) -> bool {
        self.settled_until.is_none_or(|t| now < t)
    }

    /// Whether a game may be kept at all: nothing in it runs with the time.
    pub fn keepable(game: &LockedGame) -> bool {
        game.row.time_control.is_none() && game.seats.iter().all(|s| s.clock_since.is_none())
    }
}

/// Weighs a game by its snapshot, the bulk of it.
#[derive(Clone, Copy)]
struct BySize;

impl Weighter<GameId, Kept> for BySize {
    fn weight(&self, _key: &GameId, kept: &Kept) -> u64 {
        let snapshot = kept.game.row.snapshot.as_ref().map_or(0, String::len);
        (snapshot + 1024) as u64
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
    ) -> super::DomainResult<Arc<LockedGame>> {
        use crate::store::schema::games;
        if let Some(kept) = self.get(id, now) {
            let revision: Option<i64> = games::table
                .find(id)
                .select(games::revision)
                .first(conn)
                .optional()?;
            match revision {
                Some(r) if r == kept.revision => return Ok(kept.game),
                Some(_) => {}
                None => {
                    self.games.remove(&id);
                    return Err(super::DomainError::game_not_found(id));
                }
            }
        }
        let kept = LockedGame::read_revision(conn, id, now)?;
        let game = Arc::clone(&kept.game);
        self.keep(id, kept);
        Ok(game)
    }

    /// How many games are kept (for tests).
    pub fn len(&self) -> usize {
        self.games.len()
    }

    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }
}
