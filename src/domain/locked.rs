//! A game with its seats, read in one statement: the start of every move, resignation,
//! nudge, timeout and email reply. `LockedGame::lock` also takes the game row's lock for
//! the rest of the transaction, so changes to one game serialise while other games go on.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Json, Timestamptz};
use serde::Deserialize;

use super::clocks;
use super::games::SeatInfo;
use super::{DomainError, DomainResult};
use crate::store::models::GameRow;
use crate::store::schema::games;

/// The seats of game `g`, with their players' details and any vacation under way at `$2`,
/// as one JSON array ordered by seat. One query instead of one per seat.
const SEATS_OF_G: &str = "COALESCE((
    SELECT json_agg(json_build_object(
        'seat', s.seat,
        'account_id', s.account_id,
        'name', a.name,
        'email', a.email,
        'email_notifications', a.email_notifications,
        'daily_digest', a.daily_digest,
        'clock_ms', s.clock_ms,
        'clock_since', s.clock_since,
        'email_verified', a.email_verified_at IS NOT NULL,
        'email_bouncing', a.email_bouncing_at IS NOT NULL,
        'muted', s.muted,
        'vacation_until', (
            SELECT v.ends_at FROM vacations v
            WHERE v.account_id = s.account_id AND v.starts_at <= $2 AND v.ends_at > $2
            ORDER BY v.ends_at DESC LIMIT 1)
    ) ORDER BY s.seat)
    FROM game_seats s JOIN accounts a ON a.id = s.account_id
    WHERE s.game_id = g.id), '[]'::json)";

/// A seat as the query above writes it.
#[derive(Deserialize)]
struct SeatJson {
    seat: i32,
    account_id: i64,
    name: String,
    email: String,
    email_notifications: bool,
    daily_digest: bool,
    clock_ms: Option<i64>,
    clock_since: Option<DateTime<Utc>>,
    email_verified: bool,
    email_bouncing: bool,
    muted: bool,
    vacation_until: Option<DateTime<Utc>>,
}

#[derive(QueryableByName)]
struct GameWithSeats {
    // Not named `row`: the derive's own code uses that name.
    #[diesel(embed)]
    game: GameRow,
    #[diesel(sql_type = Json)]
    seats: serde_json::Value,
}

#[derive(QueryableByName)]
struct SeatsOnly {
    #[diesel(sql_type = Json)]
    seats: serde_json::Value,
}

/// A game row and its seats, as one transaction sees them.
#[derive(Clone, Debug)]
pub struct LockedGame {
    pub row: GameRow,
    pub seats: Vec<SeatInfo>,
}

impl LockedGame {
    /// Reads game `id` and its seats and locks the game row until the transaction ends.
    pub(crate) fn lock(conn: &mut PgConnection, id: i64) -> DomainResult<LockedGame> {
        Self::fetch(conn, id, " FOR UPDATE OF g")
    }

    /// Reads game `id` and its seats without a lock (for answers that change nothing).
    pub(crate) fn read(conn: &mut PgConnection, id: i64) -> DomainResult<LockedGame> {
        Self::fetch(conn, id, "")
    }

    fn fetch(conn: &mut PgConnection, id: i64, lock: &str) -> DomainResult<LockedGame> {
        let now = Utc::now();
        let found: Option<GameWithSeats> = diesel::sql_query(format!(
            "SELECT g.*, {SEATS_OF_G} AS seats FROM games g WHERE g.id = $1{lock}"
        ))
        .bind::<BigInt, _>(id)
        .bind::<Timestamptz, _>(now)
        .get_result(conn)
        .optional()?;
        let found = found.ok_or_else(|| DomainError::not_found(format!("game {id}")))?;
        Ok(LockedGame {
            seats: seats_from_json(conn, found.seats, now)?,
            row: found.game,
        })
    }

    /// Reads the seats again (after their clocks changed).
    pub(crate) fn reload_seats(&mut self, conn: &mut PgConnection) -> DomainResult<()> {
        self.seats = seat_infos(conn, self.row.id)?;
        Ok(())
    }

    /// The seat of `account`, if it plays here.
    pub fn seat_of(&self, account: i64) -> Option<i32> {
        seat_of(&self.seats, account)
    }

    /// The seat of `account`, or `403 not_a_player`.
    pub(crate) fn player_seat(&self, account: i64) -> DomainResult<i32> {
        self.seat_of(account)
            .ok_or_else(|| DomainError::forbidden("not_a_player", "you have no seat in this game"))
    }
}

/// Locks game `id`'s row until the transaction ends, without its seats.
pub(crate) fn lock_game(conn: &mut PgConnection, id: i64) -> DomainResult<GameRow> {
    games::table
        .find(id)
        .select(GameRow::as_select())
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| DomainError::not_found(format!("game {id}")))
}

/// The seats of game `game_id` with their players' details, in one query (two or more
/// only while clocks run through a vacation).
pub(crate) fn seat_infos(conn: &mut PgConnection, game_id: i64) -> DomainResult<Vec<SeatInfo>> {
    let now = Utc::now();
    let found: SeatsOnly = diesel::sql_query(format!(
        "SELECT {SEATS_OF_G} AS seats FROM (SELECT $1::int8 AS id) g"
    ))
    .bind::<BigInt, _>(game_id)
    .bind::<Timestamptz, _>(now)
    .get_result(conn)?;
    seats_from_json(conn, found.seats, now)
}

pub(crate) fn seat_of(seats: &[SeatInfo], account: i64) -> Option<i32> {
    seats
        .iter()
        .find(|s| s.account_id == account)
        .map(|s| s.seat)
}

fn seats_from_json(
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
            })
        })
        .collect()
}
