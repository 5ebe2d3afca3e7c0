//! The background bot worker: the moves of the computer (and of forfeited seats) that a
//! request left over when its budget ran out (see `domain::autoplay`). It plays one move
//! per transaction, on one game at a time, taking the game that waited longest, so that a
//! game of computers only plays itself to the end without any request holding its row
//! lock for more than one move, and many such games take turns. A game whose creator has
//! spent the daily allowance of computer moves is marked paused, with the account's other
//! such games, and passed by until the allowance comes back (`domain::computer_budget`).

use crate::store::outage::DATABASE;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Timestamptz};

use super::autoplay::Budget;
use super::games::Locked;
use super::locked::LockedGame;
use super::{Domain, DomainError, DomainResult};
use crate::store::kinds::{GameId, GameStatus};

/// The game whose move is the server's and that waited longest, locked, skipping games
/// a request holds (it plays their moves itself, or leaves them for the next pick) and
/// those in `$1` (nothing was found to play there: see [`BotWorker::run`]) and those paused
/// past `$2`, the time now (their creator's allowance is spent). A seat the
/// server plays is in `to_act` exactly when a move of the server's is due: a computer seat
/// that waits for an answer is written as the seat it waits for.
const PICK: &str = "SELECT g.id FROM games g \
     WHERE g.status = 'active' AND g.id <> ALL ($1) \
       AND (g.computer_paused_until IS NULL OR g.computer_paused_until <= $2) \
       AND EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id \
                   AND s.seat = ANY (g.to_act) AND (s.bot OR s.seat = ANY (g.forfeited))) \
     ORDER BY g.updated_at, g.id \
     LIMIT 1 \
     FOR UPDATE OF g SKIP LOCKED";

#[derive(QueryableByName)]
struct Picked {
    #[diesel(sql_type = BigInt)]
    id: i64,
}

/// What one step of the worker did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stepped {
    /// No game has a move of the server's due.
    Idle,
    /// One move (and any only choices after it) was played in this game.
    Played(GameId),
    /// This game was picked but had nothing for the server to play.
    Nothing(GameId),
    /// This game was picked, but its creator's daily allowance of computer moves is spent:
    /// it and the creator's other games that wait for the computer are marked paused.
    Paused(GameId),
}

impl Domain {
    /// Plays one move of the server's in the game that waited longest for one, in a
    /// transaction of its own under the game row lock. Games in `skip` are left alone.
    pub fn autoplay_step(&self, skip: &[GameId]) -> DomainResult<Stepped> {
        let mut conn = self.conn()?;
        let skip: Vec<i64> = skip.iter().map(|g| g.0).collect();
        let stepped = self.retrying(&mut conn, |conn| {
            let now = self.clock.now();
            let picked: Option<Picked> = diesel::sql_query(PICK)
                .bind::<Array<BigInt>, _>(&skip)
                .bind::<Timestamptz, _>(now)
                .get_result(conn)
                .optional()?;
            let Some(Picked { id }) = picked else {
                return Ok(Stepped::Idle);
            };
            let id = GameId(id);
            let LockedGame { row, seats } = LockedGame::lock(conn, id)?;
            if row.status != GameStatus::Active {
                return Ok(Stepped::Nothing(id));
            }
            // Checked before the state is read: a spent account's games cost one query.
            if let Some(a) = self.computer_allowance(conn, row.created_by, now)?
                && a.left == 0
            {
                self.pause_computer(conn, row.created_by, a.resumes_at)?;
                return Ok(Stepped::Paused(id));
            }
            let state = self.load(&row)?.ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!("active game {id} has no snapshot"))
            })?;
            let before_actors = state.actors(row.players.max(0) as usize);
            let played =
                self.play_out(conn, &row, &seats, Vec::new(), state, Budget::one_move())?;
            if played.steps.is_empty() {
                return Ok(Stepped::Nothing(id));
            }
            self.write_change(
                conn,
                &row,
                &seats,
                &before_actors,
                played,
                self.clock.now(),
                Locked::Yes,
            )?;
            if row.computer_paused_until.is_some() {
                self.unpause_computer(conn, id)?;
            }
            Ok(Stepped::Played(id))
        })?;
        if let Stepped::Played(id) | Stepped::Paused(id) = stepped {
            // Written under the lock: this server's copy, if any, is stale.
            self.game_cache.forget(id);
        }
        Ok(stepped)
    }
}

/// The worker: [`Domain::autoplay_step`] in a loop until `stop` is set.
pub struct BotWorker {
    pub domain: Domain,
    /// How long it sleeps when no game has a move due (or after an error).
    pub poll: Duration,
    pub stop: Arc<AtomicBool>,
}

/// How long a game where nothing was found to play is left alone: a game whose rules put
/// a seat to act without a legal action would otherwise be picked again and again.
const SKIP_FOR: Duration = Duration::from_secs(60);

impl BotWorker {
    /// Meant for a thread of its own. It runs at the senders' lower priority: a request
    /// should not wait for the computer's thinking in a game nobody is waiting on.
    pub fn run(self) {
        crate::priority::background_priority();
        let mut skip: Vec<(GameId, Instant)> = Vec::new();
        while !self.stop.load(Ordering::Relaxed) {
            skip.retain(|(_, since)| since.elapsed() < SKIP_FOR);
            let ids: Vec<GameId> = skip.iter().map(|(g, _)| *g).collect();
            match self.domain.autoplay_step(&ids) {
                Ok(Stepped::Played(_)) => {
                    DATABASE.back();
                }
                // A paused game is passed by anyway; skipping it too guards against a
                // game the pause could not mark (a request held it) being picked at once.
                Ok(Stepped::Nothing(id) | Stepped::Paused(id)) => {
                    DATABASE.back();
                    skip.push((id, Instant::now()));
                }
                Ok(Stepped::Idle) => {
                    DATABASE.back();
                    self.pause();
                }
                Err(e) => {
                    DATABASE.failed("the bot worker's step", &e);
                    self.pause();
                }
            }
        }
    }

    /// Sleeps for `poll`, waking early when told to stop.
    fn pause(&self) {
        let until = Instant::now() + self.poll;
        while Instant::now() < until && !self.stop.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(10).min(self.poll));
        }
    }
}
