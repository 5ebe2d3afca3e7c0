//! Clocks measured in days: a seat's clock runs only while the game waits for it (several
//! at once in simultaneous steps), a move adds `days_per_move` up to `max_days`, vacations
//! freeze it. The sweep sends reminders at 50 % and 90 % of the time and applies timeouts;
//! it takes `now` as a parameter (tests drive it directly) and runs each timeout exactly
//! once: a marker row keyed by (game, seat, version) is written in the transaction that
//! applies it, under the game row lock, so a restarted or concurrent sweeper skips it.

use crate::domain::ProblemCode;
use crate::store::kinds::{AccountId, GameId};
use crate::store::kinds::{GameStatus, TimeoutPolicy};
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Integer, Text, Timestamptz};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::locked::{lock_game, seat_infos};
use super::steps::{BOT_MARK, Step};
use super::{Domain, DomainError, DomainResult};
use crate::engine::Seat;
use crate::store::models::{GameRow, SeatInfo};
use crate::store::schema::{accounts, game_seats, game_timeouts, games, vacations};

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
    /// 1, 2, 3, 5, 7 or 14.
    #[serde(deserialize_with = "super::integral::int")]
    #[schema(example = 3, minimum = 1, maximum = 14)]
    pub days_per_move: i32,
    /// The cap of a seat's clock, in days (default: three moves' worth); at least
    /// `days_per_move`, at most 60.
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

    fn per_move_ms(&self) -> i64 {
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

/// What one sweep did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    pub reminders: usize,
    pub timeouts: usize,
    /// Daily digests queued.
    pub digests: usize,
    /// Webhook deliveries dropped as too old (their receiver was paused for days).
    pub expired_webhooks: usize,
}

#[derive(QueryableByName)]
struct Hour {
    #[diesel(sql_type = Integer)]
    h: i32,
}

/// Whether `now` falls in the quiet hours [from, until) of the account's time zone.
fn in_quiet_hours(
    conn: &mut PgConnection,
    tz: &str,
    from: Option<i16>,
    until: Option<i16>,
    now: DateTime<Utc>,
) -> QueryResult<bool> {
    let (Some(from), Some(until)) = (from, until) else {
        return Ok(false);
    };
    if from == until {
        return Ok(false);
    }
    let h = diesel::sql_query("SELECT EXTRACT(HOUR FROM ($1 AT TIME ZONE $2))::int AS h")
        .bind::<Timestamptz, _>(now)
        .bind::<Text, _>(tz)
        .get_result::<Hour>(conn)?
        .h as i16;
    Ok(if from < until {
        from <= h && h < until
    } else {
        h >= from || h < until
    })
}

/// A running clock, with what reminders need to know of its account.
struct Running {
    seat: i32,
    account: AccountId,
    clock_ms: Option<i64>,
    since: DateTime<Utc>,
    reminders_sent: i32,
    reminders: bool,
    email_notifications: bool,
    time_zone: String,
    quiet_from: Option<i16>,
    quiet_until: Option<i16>,
}

impl Domain {
    /// Reminders and timeouts due at `now`, over every active game with a clock, then the
    /// daily digests due. Each game (and each digest) is handled in a transaction of its
    /// own, under its row lock.
    pub fn sweep(&self, now: DateTime<Utc>) -> DomainResult<SweepReport> {
        let mut conn = self.conn()?;
        let ids: Vec<GameId> = games::table
            .filter(games::status.eq(GameStatus::Active))
            .filter(games::time_control.is_not_null())
            .order(games::id.asc())
            .select(games::id)
            .load(&mut conn)?;
        let mut report = SweepReport::default();
        for id in ids {
            let r = conn.transaction::<_, DomainError, _>(|conn| self.sweep_game(conn, id, now))?;
            report.reminders += r.reminders;
            report.timeouts += r.timeouts;
        }
        report.digests = self.send_digests(now)?;
        report.expired_webhooks = super::webhooks::expire_deliveries(&mut conn, now)?;
        Ok(report)
    }

    fn sweep_game(
        &self,
        conn: &mut PgConnection,
        id: GameId,
        now: DateTime<Utc>,
    ) -> DomainResult<SweepReport> {
        let mut report = SweepReport::default();
        let row = lock_game(conn, id)?;
        let Some(tc) = time_control(&row) else {
            return Ok(report);
        };
        if row.status != GameStatus::Active {
            return Ok(report);
        }
        let running: Vec<Running> = game_seats::table
            .inner_join(accounts::table)
            .filter(game_seats::game_id.eq(id))
            .filter(game_seats::clock_since.is_not_null())
            .order(game_seats::seat.asc())
            .select((
                game_seats::seat,
                game_seats::account_id,
                game_seats::clock_ms,
                game_seats::clock_since,
                game_seats::reminders_sent,
                accounts::reminders,
                accounts::email_notifications,
                accounts::time_zone,
                accounts::quiet_from,
                accounts::quiet_until,
            ))
            .load::<(
                i32,
                AccountId,
                Option<i64>,
                Option<DateTime<Utc>>,
                i32,
                bool,
                bool,
                String,
                Option<i16>,
                Option<i16>,
            )>(conn)?
            .into_iter()
            .filter_map(
                |(seat, account, clock_ms, since, sent, reminders, notes, tz, qf, qu)| {
                    since.map(|since| Running {
                        seat,
                        account,
                        clock_ms,
                        since,
                        reminders_sent: sent,
                        reminders,
                        email_notifications: notes,
                        time_zone: tz,
                        quiet_from: qf,
                        quiet_until: qu,
                    })
                },
            )
            .collect();
        let seats = seat_infos(conn, id)?;
        for c in running {
            let total = c.clock_ms.unwrap_or(tc.per_move_ms()).max(1);
            let used = used_ms(conn, c.account, c.since, now)?;
            if used >= total {
                // The marker makes the timeout happen once, whoever sweeps and however often.
                let fresh = diesel::insert_into(game_timeouts::table)
                    .values((
                        game_timeouts::game_id.eq(id),
                        game_timeouts::seat.eq(c.seat),
                        game_timeouts::version.eq(row.version),
                        game_timeouts::policy.eq(&row.timeout_policy),
                        game_timeouts::processed_at.eq(now),
                    ))
                    .on_conflict_do_nothing()
                    .execute(conn)?;
                if fresh == 0 {
                    continue;
                }
                self.time_out(conn, &row, &seats, c.seat, now)?;
                report.timeouts += 1;
                // The game changed: the next sweep looks at it afresh.
                return Ok(report);
            }
            let stage = if used * 10 >= total * 9 {
                2
            } else if used * 2 >= total {
                1
            } else {
                0
            };
            if stage <= c.reminders_sent || !c.reminders || !c.email_notifications {
                continue;
            }
            if in_quiet_hours(conn, &c.time_zone, c.quiet_from, c.quiet_until, now)? {
                continue;
            }
            let Some(player) = seats.iter().find(|s| s.seat == c.seat) else {
                continue;
            };
            self.owe_reminder(conn, &row, player, total - used, stage)?;
            diesel::update(
                game_seats::table
                    .filter(game_seats::game_id.eq(id).and(game_seats::seat.eq(c.seat))),
            )
            .set(game_seats::reminders_sent.eq(stage))
            .execute(conn)?;
            report.reminders += 1;
        }
        Ok(report)
    }

    /// The seat's time ran out: the game's `timeout_policy` applies.
    fn time_out(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        seat: i32,
        now: DateTime<Utc>,
    ) -> DomainResult<()> {
        let name = seats
            .iter()
            .find(|s| s.seat == seat)
            .map_or("a player", |s| s.name.as_str());
        let why = format!("{name} ran out of time");
        if row.timeout_policy == TimeoutPolicy::RandomMove {
            let state = self.load(row)?.ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!("active game {} has no snapshot", row.id))
            })?;
            let legal = state.legal_actions(seat as usize);
            if !legal.is_empty() {
                let before_actors = state.actors(row.players as usize);
                let choice = &legal[rand::random_range(0..legal.len())];
                let applied = state
                    .apply(seat as usize, choice)
                    .map_err(|e| anyhow::anyhow!("a legal action was refused: {e}"))?;
                let (mut step, next) = Step::from_applied(seat, applied);
                step.description = format!("{BOT_MARK}(time ran out) {}", step.description);
                self.persist_at(conn, row, seats, &before_actors, vec![step], next, now)?;
                return Ok(());
            }
        }
        if row.timeout_policy == TimeoutPolicy::Bot {
            return self.bot_takes_over(conn, row, seat, now);
        }
        self.forfeit_locked(conn, row, seats, seat, &why, now)
    }

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
                if taken + new > allowance {
                    return Err(DomainError::Invalid {
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
    pub from: DateTime<Utc>,
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
