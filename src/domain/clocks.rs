//! Clocks measured in days: a seat's clock runs only while the game waits for it (several
//! at once in simultaneous steps), a move adds `days_per_move` up to `max_days`, vacations
//! freeze it. The sweep sends reminders at 50 % and 90 % of the time and applies timeouts;
//! it takes `now` as a parameter (tests drive it directly) and runs each timeout exactly
//! once: a marker row keyed by (game, seat, version) is written in the transaction that
//! applies it, under the game row lock, so a restarted or concurrent sweeper skips it.

use crate::domain::ProblemCode;
use crate::store::kinds::AccountId;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{Domain, DomainError, DomainResult};
use crate::engine::Seat;
use crate::store::models::GameRow;
use crate::store::schema::{accounts, game_seats, vacations};

/// Where the domain gets the time from. The server uses [`SystemClock`]; the sweep and the
/// clock arithmetic take `now` explicitly, so tests choose it.
pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

pub const DAY_MS: i64 = 86_400_000;
/// The allowed `days_per_move`.
pub const DAYS_PER_MOVE: [i32; 6] = [1, 2, 3, 5, 7, 14];

/// A game's time control: each seat starts with `days_per_move` days; each move adds
/// `days_per_move` days, never beyond `max_days`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TimeControl {
    /// 1, 2, 3, 5, 7 or 14 (else `422 invalid_time_control`).
    #[serde(deserialize_with = "super::integral::int")]
    #[schema(example = 3, minimum = 1, maximum = 14)]
    pub days_per_move: i32,
    /// The cap of a seat's clock, in days (default: three moves' worth); at least
    /// `days_per_move` and at most 60, else `422 invalid_time_control`.
    #[serde(default, deserialize_with = "super::integral::opt")]
    #[schema(example = 9, minimum = 1, maximum = 60)]
    pub max_days: Option<i32>,
}

impl TimeControl {
    /// Checked and with the default cap filled in.
    pub fn normalized(self) -> DomainResult<TimeControl> {
        if !DAYS_PER_MOVE.contains(&self.days_per_move) {
            return Err(DomainError::invalid(
                ProblemCode::InvalidTimeControl,
                format!("days_per_move must be one of {DAYS_PER_MOVE:?}"),
            ));
        }
        let max = self.max_days.unwrap_or(self.days_per_move * 3);
        if max < self.days_per_move || max > 60 {
            return Err(DomainError::invalid(
                ProblemCode::InvalidTimeControl,
                "max_days must be at least days_per_move and at most 60",
            ));
        }
        Ok(TimeControl {
            days_per_move: self.days_per_move,
            max_days: Some(max),
        })
    }

    pub(crate) fn per_move_ms(&self) -> i64 {
        self.days_per_move as i64 * DAY_MS
    }

    fn cap_ms(&self) -> i64 {
        self.max_days.unwrap_or(self.days_per_move * 3) as i64 * DAY_MS
    }
}

pub fn time_control(row: &GameRow) -> Option<TimeControl> {
    row.time_control
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

/// Milliseconds of `account`'s vacations within [from, to].
fn vacation_ms(
    conn: &mut PgConnection,
    account: AccountId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> QueryResult<i64> {
    let rows: Vec<(DateTime<Utc>, DateTime<Utc>)> = vacations::table
        .filter(vacations::account_id.eq(account))
        .filter(vacations::starts_at.lt(to))
        .filter(vacations::ends_at.gt(from))
        .select((vacations::starts_at, vacations::ends_at))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(s, e)| (e.min(to) - s.max(from)).num_milliseconds().max(0))
        .sum())
}

/// Clock time used between `since` and `now`: wall time less vacations.
pub fn used_ms(
    conn: &mut PgConnection,
    account: AccountId,
    since: DateTime<Utc>,
    now: DateTime<Utc>,
) -> QueryResult<i64> {
    if now <= since {
        return Ok(0);
    }
    let wall = (now - since).num_milliseconds();
    Ok((wall - vacation_ms(conn, account, since, now)?).max(0))
}

/// After a transition: clocks of seats the game no longer waits for stop (and gain
/// `days_per_move` up to the cap); clocks of seats it now waits for start. A seat in
/// `handed_back` moved, and the turn came back to it within the transition (another seat's
/// move that played itself, or a bot's): its clock stops and starts again, as if it had
/// stopped in between. Without that, a seat whose time ran out under `random_move` and got
/// the turn straight back kept an empty clock and timed out again at the next sweep.
pub(crate) fn sync_clocks(
    conn: &mut PgConnection,
    row: &GameRow,
    forfeited: &[i32],
    to_act: &[Seat],
    handed_back: &[Seat],
    finished: bool,
    now: DateTime<Utc>,
) -> DomainResult<()> {
    let Some(tc) = time_control(row) else {
        return Ok(());
    };
    type SeatClock = (i32, AccountId, Option<i64>, Option<DateTime<Utc>>);
    let clocks: Vec<SeatClock> = game_seats::table
        .filter(game_seats::game_id.eq(row.id))
        .select((
            game_seats::seat,
            game_seats::account_id,
            game_seats::clock_ms,
            game_seats::clock_since,
        ))
        .load(conn)?;
    for (seat, account, clock_ms, since) in clocks {
        let waits = !finished && to_act.contains(&(seat as usize)) && !forfeited.contains(&seat);
        let target = game_seats::table.filter(
            game_seats::game_id
                .eq(row.id)
                .and(game_seats::seat.eq(seat)),
        );
        let again = handed_back.contains(&(seat as usize));
        match (since, waits) {
            (Some(since), false) => {
                let left =
                    clock_ms.unwrap_or(tc.per_move_ms()) - used_ms(conn, account, since, now)?;
                let next = if finished {
                    left
                } else {
                    (left + tc.per_move_ms()).min(tc.cap_ms())
                };
                diesel::update(target)
                    .set((
                        game_seats::clock_ms.eq(Some(next.max(0))),
                        game_seats::clock_since.eq(None::<DateTime<Utc>>),
                    ))
                    .execute(conn)?;
            }
            (Some(since), true) if again => {
                let left =
                    clock_ms.unwrap_or(tc.per_move_ms()) - used_ms(conn, account, since, now)?;
                let next = (left.max(0) + tc.per_move_ms()).min(tc.cap_ms());
                diesel::update(target)
                    .set((
                        game_seats::clock_ms.eq(Some(next)),
                        game_seats::clock_since.eq(Some(now)),
                        game_seats::reminders_sent.eq(0),
                    ))
                    .execute(conn)?;
            }
            (None, true) => {
                diesel::update(target)
                    .set((
                        game_seats::clock_ms.eq(Some(clock_ms.unwrap_or(tc.per_move_ms()))),
                        game_seats::clock_since.eq(Some(now)),
                        game_seats::reminders_sent.eq(0),
                    ))
                    .execute(conn)?;
            }
            _ => {}
        }
    }
    Ok(())
}

impl Domain {
    /// Registers a vacation: the account's clocks stand still from `from` to `until`.
    pub fn add_vacation(
        &self,
        account: AccountId,
        from: DateTime<Utc>,
        until: DateTime<Utc>,
        allowance_days: i64,
    ) -> DomainResult<VacationResponse> {
        let now = self.clock.now();
        if until <= from {
            return Err(DomainError::invalid(
                ProblemCode::InvalidVacation,
                "until must be after from",
            ));
        }
        if from < now - Duration::minutes(5) {
            return Err(DomainError::invalid(
                ProblemCode::InvalidVacation,
                "a vacation cannot start in the past",
            ));
        }
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            // Serialise one account's vacation requests.
            accounts::table
                .find(account)
                .select(accounts::id)
                .for_update()
                .first::<i64>(conn)?;
            let overlapping: i64 = vacations::table
                .filter(vacations::account_id.eq(account))
                .filter(vacations::starts_at.lt(until))
                .filter(vacations::ends_at.gt(from))
                .count()
                .get_result(conn)?;
            if overlapping > 0 {
                return Err(DomainError::conflict(
                    ProblemCode::VacationOverlap,
                    "this vacation overlaps one already registered",
                ));
            }
            let year_start = |y: i32| {
                chrono::NaiveDate::from_ymd_opt(y, 1, 1)
                    .and_then(|d| d.and_hms_opt(0, 0, 0))
                    .map(|d| d.and_utc())
                    .ok_or_else(|| DomainError::invalid(ProblemCode::InvalidVacation, "dates out of range"))
            };
            use chrono::Datelike;
            let mut left_days = allowance_days;
            for y in from.year()..=until.year() {
                let (ys, ye) = (year_start(y)?, year_start(y + 1)?);
                let taken = vacation_ms(conn, account, ys, ye)?;
                let new = (until.min(ye) - from.max(ys)).num_milliseconds().max(0);
                let allowance = allowance_days * DAY_MS;
                // What is left depends on the vacations booked: a conflict with them.
                if taken + new > allowance {
                    return Err(DomainError::Conflict {
                        code: ProblemCode::VacationAllowanceExceeded,
                        message: format!(
                            "the yearly allowance is {allowance_days} days; {:.1} days are left in {y}",
                            (allowance - taken).max(0) as f64 / DAY_MS as f64
                        ),
                        extra: None,
                    });
                }
                if y == from.year() {
                    left_days = (allowance - taken - new) / DAY_MS;
                }
            }
            let id: i64 = diesel::insert_into(vacations::table)
                .values((
                    vacations::account_id.eq(account),
                    vacations::starts_at.eq(from),
                    vacations::ends_at.eq(until),
                ))
                .returning(vacations::id)
                .get_result(conn)?;
            Ok(VacationResponse {
                id,
                from,
                until,
                days_left_this_year: left_days,
            })
        })
    }
}

/// `POST /api/v1/me/vacation`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VacationRequest {
    /// When the caller's clocks stop: now or later (five minutes' grace), else `422
    /// invalid_vacation`.
    pub from: DateTime<Utc>,
    /// When they run again: after `from`, else `422 invalid_vacation`. A vacation that
    /// overlaps one booked is `409 vacation_overlap`; one longer than what the year's
    /// allowance leaves, `409 vacation_allowance_exceeded`.
    pub until: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct VacationResponse {
    pub id: i64,
    pub from: DateTime<Utc>,
    pub until: DateTime<Utc>,
    /// Whole days of the yearly allowance left in the year the vacation starts.
    pub days_left_this_year: i64,
}

/// The end of the account's current vacation, if it is on one at `now`.
pub fn on_vacation_until(
    conn: &mut PgConnection,
    account: AccountId,
    now: DateTime<Utc>,
) -> QueryResult<Option<DateTime<Utc>>> {
    vacations::table
        .filter(vacations::account_id.eq(account))
        .filter(vacations::starts_at.le(now))
        .filter(vacations::ends_at.gt(now))
        .select(vacations::ends_at)
        .first(conn)
        .optional()
}
