//! A game with its seats, read in one statement: the start of every move, resignation,
//! nudge, timeout and email reply. `LockedGame::lock` also takes the game row's lock for
//! the rest of the transaction, so changes to one game serialise while other games go on.

use crate::domain::ProblemCode;
use crate::store::kinds::{AccountId, GameId};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Timestamptz};
use serde::Deserialize;

use super::clocks;
use super::{DomainError, DomainResult};
use crate::store::models::GameRow;
use crate::store::models::SeatInfo;
use crate::store::schema::games;

diesel::define_sql_function! {
    /// When the seats of a game as `game_seats_json` gives them at `at` next change with
    /// the time alone (a vacation starting or ending), if ever.
    fn game_seats_settled_until(game: BigInt, at: Timestamptz) -> Nullable<Timestamptz>;
}

diesel::define_sql_function! {
    /// The seats of a game with their players' details and any vacation under way at `at`,
    /// as one JSON array ordered by seat (a function of the database: see its migration).
    fn game_seats_json(game: BigInt, at: Timestamptz) -> Json;
}

/// A seat as `game_seats_json` writes it.
#[derive(Deserialize)]
struct SeatJson {
    seat: i32,
    account_id: AccountId,
    name: String,
    email: String,
    email_notifications: bool,
    daily_digest: bool,
    clock_ms: Option<i64>,
    clock_since: Option<DateTime<Utc>>,
    email_verified: bool,
    email_bouncing: bool,
    muted: bool,
    #[serde(default)]
    bot: bool,
    vacation_until: Option<DateTime<Utc>>,
}

/// A game row and its seats, as one transaction sees them.
#[derive(Clone, Debug)]
pub struct LockedGame {
    pub row: GameRow,
    pub seats: Vec<SeatInfo>,
}

impl LockedGame {
    /// Reads game `id` and its seats and locks the game row until the transaction ends.
    pub(crate) fn lock(conn: &mut PgConnection, id: GameId) -> DomainResult<LockedGame> {
        Self::fetch(conn, id, true)
    }

    /// Reads game `id` and its seats without a lock (for answers that change nothing).
    pub(crate) fn read(conn: &mut PgConnection, id: GameId) -> DomainResult<LockedGame> {
        Self::fetch(conn, id, false)
    }

    fn fetch(conn: &mut PgConnection, id: GameId, lock: bool) -> DomainResult<LockedGame> {
        if lock {
            // The lock is its own statement: a statement that waited for the row reads the
            // row again once it is free, but a function in its select list (the seats) still
            // sees the snapshot from before the wait, so a join that waited for another would
            // see the seats without it and take the same seat number. The read
            // below starts after the wait, with a snapshot that holds what it waited for.
            games::table
                .find(id)
                .select(games::id)
                .for_update()
                .first::<GameId>(conn)
                .optional()?
                .ok_or_else(|| DomainError::game_not_found(id))?;
        }
        let now = Utc::now();
        // Built with the query builder, so that each connection prepares it once.
        let query = games::table
            .find(id)
            .select((GameRow::as_select(), game_seats_json(games::id, now)));
        let found: Option<(GameRow, serde_json::Value)> = query.first(conn).optional()?;
        let (row, seats) = found.ok_or_else(|| DomainError::game_not_found(id))?;
        Ok(LockedGame {
            seats: seats_from_json(conn, seats, now)?,
            row,
        })
    }

    /// Reads the seats again (after their clocks changed).
    pub(crate) fn reload_seats(&mut self, conn: &mut PgConnection) -> DomainResult<()> {
        self.seats = seat_infos(conn, self.row.id)?;
        Ok(())
    }

    /// The seat of `account`, if it plays here.
    pub fn seat_of(&self, account: AccountId) -> Option<i32> {
        seat_of(&self.seats, account)
    }

    /// The seat of `account`, or `403 not_a_player`.
    pub(crate) fn player_seat(&self, account: AccountId) -> DomainResult<i32> {
        self.seat_of(account).ok_or_else(|| {
            DomainError::forbidden(ProblemCode::NotAPlayer, "you have no seat in this game")
        })
    }
}

/// Locks game `id`'s row until the transaction ends, without its seats.
pub(crate) fn lock_game(conn: &mut PgConnection, id: GameId) -> DomainResult<GameRow> {
    games::table
        .find(id)
        .select(GameRow::as_select())
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| DomainError::game_not_found(id))
}

/// The seats of game `game_id` with their players' details, in one query (two or more
/// only while clocks run through a vacation).
pub(crate) fn seat_infos(conn: &mut PgConnection, game_id: GameId) -> DomainResult<Vec<SeatInfo>> {
    let now = Utc::now();
    let seats: serde_json::Value =
        diesel::select(game_seats_json(game_id, now)).get_result(conn)?;
    seats_from_json(conn, seats, now)
}

pub(crate) fn seat_of(seats: &[SeatInfo], account: AccountId) -> Option<i32> {
    seats
        .iter()
        .find(|s| s.account_id == account)
        .map(|s| s.seat)
}

pub(crate) fn seats_from_json(
    conn: &mut PgConnection,
    seats: serde_json::Value,
    now: DateTime<Utc>,
) -> DomainResult<Vec<SeatInfo>> {
    let seats: Vec<SeatJson> = serde_json::from_value(seats).map_err(anyhow::Error::from)?;
    seats
        .into_iter()
        .map(|s| {
            // A running clock loses the time since it started, less any vacation in between:
            // only then is another query needed.
            let clock_left_ms = match (s.clock_ms, s.clock_since) {
                (Some(ms), Some(since)) => {
                    Some((ms - clocks::used_ms(conn, s.account_id, since, now)?).max(0))
                }
                (ms, _) => ms,
            };
            Ok(SeatInfo {
                seat: s.seat,
                account_id: s.account_id,
                name: s.name,
                email: s.email,
                email_notifications: s.email_notifications,
                daily_digest: s.daily_digest,
                clock_ms: s.clock_ms,
                clock_since: s.clock_since,
                clock_left_ms,
                vacation_until: s.vacation_until,
                email_verified: s.email_verified,
                email_bouncing: s.email_bouncing,
                muted: s.muted,
                bot: s.bot,
            })
        })
        .collect()
}
