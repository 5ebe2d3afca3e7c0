//! The game writer: a change (steps already applied, ending in a state) becomes the log
//! entries, snapshot, status, clocks and everything owed at the transition (turn emails,
//! webhooks, ratings at the end) in the transaction that holds the game, and its live
//! event after the commit.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::{Value, json};

use super::autoplay::{Budget, PlayedOut};
use super::clocks;
use super::mail_events::Actors;
use super::steps::Step;
use super::{Domain, DomainError, DomainResult};
use crate::engine::{LoadedGame, Outcome, Placing, Seat, Status, Visibility};
use crate::store::announcer::{Announcer, announce_now};
use crate::store::kinds::GameStatus;
use crate::store::models::{GameRow, SeatInfo};

diesel::define_sql_function! {
    /// Writes a change of a game in one statement, after version `base`; if the game is
    /// no longer at `expected` (when given), nothing (a function of the database: see its
    /// migration).
    #[allow(clippy::too_many_arguments)]
    fn record_move(
        game: diesel::sql_types::BigInt,
        base: diesel::sql_types::BigInt,
        expected: diesel::sql_types::Nullable<diesel::sql_types::BigInt>,
        entries: diesel::sql_types::Jsonb,
        snapshot: diesel::sql_types::Text,
        status: diesel::sql_types::Text,
        to_act: diesel::sql_types::Array<diesel::sql_types::Integer>,
        deciding: diesel::sql_types::Array<diesel::sql_types::Integer>,
        result: diesel::sql_types::Nullable<diesel::sql_types::Jsonb>,
        game_type: diesel::sql_types::Text,
        hook_seats: diesel::sql_types::Array<diesel::sql_types::Integer>,
        hook_accounts: diesel::sql_types::Array<diesel::sql_types::BigInt>,
        hook_events: diesel::sql_types::Array<diesel::sql_types::Text>,
        turn_seats: diesel::sql_types::Array<diesel::sql_types::Integer>,
        turn_accounts: diesel::sql_types::Array<diesel::sql_types::BigInt>,
        turn_addresses: diesel::sql_types::Array<diesel::sql_types::Text>,
        turn_keys: diesel::sql_types::Array<diesel::sql_types::Text>,
        grace: diesel::sql_types::Double,
    ) -> diesel::sql_types::Nullable<diesel::sql_types::Timestamptz>;
}

/// Announces a move written without the row lock, after its commit, as the trigger
/// `turnpost_announce_game` announces every other change (see `notify::events::GameEvent`):
/// a notifying transaction holds a database-wide lock through its commit, and the move's
/// own commit would otherwise wait its turn for every other move's. The server's announcer
/// sends it (with others, under load: see `store::announcer`), or else this request. The
/// move stands whatever happens here: a failure costs the live event only, and is logged.
pub(crate) fn announce(
    announcer: &Announcer,
    conn: &mut PgConnection,
    row: &GameRow,
    seats: &[SeatInfo],
) {
    let accounts: Vec<i64> = seats.iter().map(|s| s.account_id.0).collect();
    let to_act_accounts: Vec<i64> = seats
        .iter()
        .filter(|s| row.deciding.contains(&s.seat))
        .map(|s| s.account_id.0)
        .collect();
    let payload = json!({
        "game": row.id,
        "version": row.version,
        "status": row.status.as_str(),
        "to_act": row.to_act,
        "accounts": accounts,
        "to_act_accounts": to_act_accounts,
    })
    .to_string();
    if let Err(payload) = announcer.queue(payload)
        && let Err(e) = announce_now(conn, &[payload])
    {
        tracing::warn!(game = %row.id, error = %e, "a move's live event was not announced");
    }
}

/// Whether a write runs under the game row lock (see [`Domain::write_change`]), or
/// without it on the game at a revision.
#[derive(Clone, Copy)]
pub(crate) enum Locked {
    Yes,
    No { revision: i64 },
}
fn to_i32s(seats: &[Seat]) -> Vec<i32> {
    seats.iter().map(|&s| s as i32).collect()
}

impl Domain {
    /// Writes `steps` (already applied, in order, ending in `state`) after `row`'s version:
    /// log entries, the new snapshot and status, and the notifications owed. Must run in
    /// the transaction that locked the game row. Returns the final state and the game row
    /// as written.
    pub(crate) fn persist(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        before_actors: &[Seat],
        steps: Vec<Step>,
        state: Box<dyn LoadedGame>,
    ) -> DomainResult<(Box<dyn LoadedGame>, GameRow)> {
        self.persist_at(
            conn,
            row,
            seats,
            before_actors,
            steps,
            state,
            self.clock.now(),
        )
    }

    /// [`Domain::persist`] at a given time (the sweep passes its own `now`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn persist_at(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        before_actors: &[Seat],
        steps: Vec<Step>,
        state: Box<dyn LoadedGame>,
        now: DateTime<Utc>,
    ) -> DomainResult<(Box<dyn LoadedGame>, GameRow)> {
        let played = self.play_out(conn, row, seats, steps, state, Budget::request())?;
        self.write_change(conn, row, seats, before_actors, played, now, Locked::Yes)?
            .ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!(
                    "game {} changed under its row lock",
                    row.id
                ))
            })
    }

    /// Writes the played steps (ending in their state) after `row`'s version: the log
    /// entries, the new snapshot and status and the webhooks and turn emails owed go in one
    /// statement (the database function `record_move`). Without the row lock it writes
    /// nothing and gives `None` when the game is no longer at the given revision in the
    /// database. Clocks and the end of a game add their own statements: those need the
    /// transaction that locked the game row. Returns the final state and the game row as
    /// written.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn write_change(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        before_actors: &[Seat],
        played: PlayedOut,
        now: DateTime<Utc>,
        locked: Locked,
    ) -> DomainResult<Option<(Box<dyn LoadedGame>, GameRow)>> {
        let PlayedOut {
            steps,
            state,
            to_act: awaited,
            ..
        } = played;
        let version = row.version + steps.len() as i64;
        let entries = log_entries(&steps);
        let after = status_after(state.as_ref(), awaited, &row.forfeited);
        let (status, result) = stored_status(&after)?;
        let snapshot = state.encode();
        let to_act = to_i32s(after.to_act());
        let acted: Vec<Seat> = steps.iter().map(|s| s.seat as usize).collect();
        let after_actors = state.actors(row.players as usize);
        // Who has a decision: the seats to act and any other with legal actions.
        let deciding = if after.is_finished() {
            Vec::new()
        } else {
            let mut all = to_i32s(&after_actors);
            all.extend(&to_act);
            all.sort_unstable();
            all.dedup();
            all
        };
        let awaited_before: Vec<Seat> = row.to_act.iter().map(|&s| s as usize).collect();
        let actors = Actors {
            before: before_actors,
            awaited_before: &awaited_before,
            after: &after_actors,
            acted: &acted,
        };
        let owed = self.owed(actors, &after, seats, &row.forfeited);
        let hook_seats: Vec<i32> = owed.webhooks.iter().map(|o| o.0).collect();
        let hook_accounts: Vec<i64> = owed.webhooks.iter().map(|o| o.1.0).collect();
        let hook_events: Vec<&str> = owed.webhooks.iter().map(|o| o.2.as_str()).collect();
        let turn_seats: Vec<i32> = owed.turns.iter().map(|p| p.seat).collect();
        let turn_accounts: Vec<i64> = owed.turns.iter().map(|p| p.account_id.0).collect();
        let turn_addresses: Vec<&str> = owed.turns.iter().map(|p| p.email.as_str()).collect();
        let turn_keys: Vec<String> = owed
            .turns
            .iter()
            .map(|p| Self::turn_key(row.id, version, p.seat))
            .collect();
        // Built with the query builder, so that each connection prepares it once.
        let expected = match locked {
            Locked::Yes => None,
            Locked::No { revision } => Some(revision),
        };
        let updated_at: Option<DateTime<Utc>> = diesel::select(record_move(
            row.id,
            row.version,
            expected,
            Value::Array(entries),
            &snapshot,
            status.as_str(),
            &to_act,
            &deciding,
            result.as_ref(),
            &row.game_type,
            &hook_seats,
            &hook_accounts,
            &hook_events,
            &turn_seats,
            &turn_accounts,
            &turn_addresses,
            &turn_keys,
            self.turn_email_grace.as_secs_f64(),
        ))
        .get_result(conn)?;
        let Some(updated_at) = updated_at else {
            return Ok(None);
        };
        // Counted when written: a locked move's transaction could still roll back after
        // this, which only a failed clock or rating write does.
        metrics::counter!("turnpost_moves_total", "game_type" => row.game_type.clone())
            .increment(steps.len() as u64);
        // The row as now stored, without reading it back.
        let written = GameRow {
            snapshot: Some(snapshot),
            version,
            status,
            to_act,
            deciding,
            result,
            updated_at,
            ..row.clone()
        };
        clocks::sync_clocks(
            conn,
            row,
            &row.forfeited,
            after.to_act(),
            &handed_back(&acted),
            after.is_finished(),
            now,
        )?;
        if let Status::Finished(outcome) = &after {
            self.owe_finish(conn, row, version, outcome, seats)?;
        }
        Ok(Some((state, written)))
    }
}

/// The log entries of `steps`, as `record_move` takes them.
fn log_entries(steps: &[Step]) -> Vec<Value> {
    steps
        .iter()
        .map(|step| {
            let (public_action, seen_by) = match &step.visibility {
                Visibility::Public => (Value::Null, Vec::new()),
                Visibility::Private {
                    seen_by,
                    public_form,
                } => (public_form.clone(), to_i32s(seen_by)),
            };
            json!({
                "seat": step.seat,
                "action": step.action,
                "public_action": public_action,
                "seen_by": seen_by,
                "description": step.description,
            })
        })
        .collect()
}

/// The game's status after a change: the seats it waits for, which may be the answer a
/// computer seat waits for rather than that seat (see `autoplay::PlayedOut`), or its
/// outcome with the seats that forfeited ranked last.
fn status_after(state: &dyn LoadedGame, awaited: Vec<Seat>, forfeited: &[i32]) -> Status {
    match state.status() {
        Status::Active { .. } => Status::Active { to_act: awaited },
        Status::Finished(mut outcome) => {
            rank_forfeited_last(&mut outcome, forfeited);
            Status::Finished(outcome)
        }
    }
}

/// The status word and result as the games row stores them.
fn stored_status(after: &Status) -> DomainResult<(GameStatus, Option<Value>)> {
    Ok(match after {
        Status::Active { .. } => (GameStatus::Active, None),
        Status::Finished(outcome) => (
            GameStatus::Finished,
            Some(serde_json::to_value(outcome).map_err(anyhow::Error::from)?),
        ),
    })
}

/// Seats that moved and then saw another seat move: the turn left them and came back.
fn handed_back(acted: &[Seat]) -> Vec<Seat> {
    acted
        .iter()
        .enumerate()
        .filter(|&(i, s)| acted[i + 1..].iter().any(|later| later != s))
        .map(|(_, &s)| s)
        .collect()
}

/// Seats that forfeited rank below every other seat (sharing the last rank).
fn rank_forfeited_last(outcome: &mut Outcome, forfeited: &[i32]) {
    if forfeited.is_empty() {
        return;
    }
    let is_out = |p: &Placing| forfeited.contains(&(p.seat as i32));
    let stayed: Vec<Placing> = outcome
        .ranking
        .iter()
        .filter(|p| !is_out(p))
        .cloned()
        .collect();
    // Strictly below every seat that stayed, even when those keep the gaps the forfeited
    // seats left (1, 3): a forfeit loses to everyone, ratings included.
    let worst = stayed.iter().map(|p| p.rank).max().unwrap_or(0);
    let last = worst.max(stayed.len() as u32) + 1;
    let out = outcome
        .ranking
        .iter()
        .filter(|p| is_out(p))
        .map(|p| Placing {
            rank: last,
            ..p.clone()
        });
    outcome.ranking = stayed.into_iter().chain(out).collect();
}
