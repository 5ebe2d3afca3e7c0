//! The clock sweeper: reminders and timeouts due, over every active game with a clock,
//! then the daily digests and the expiry of webhook deliveries nobody could take. Above
//! the clock arithmetic (`clocks`), which it uses.

use super::clocks::*;
use super::locked::{lock_game, seat_infos};
use super::steps::{BOT_MARK, Step};
use super::{Domain, DomainError, DomainResult};
use crate::store::kinds::{AccountId, GameId};
use crate::store::kinds::{GameStatus, TimeoutPolicy};
use crate::store::models::{GameRow, SeatInfo};
use crate::store::schema::{accounts, game_seats, game_timeouts, games};
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Integer, Text, Timestamptz};

/// What one sweep did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SweepReport {
    pub reminders: usize,
    pub timeouts: usize,
    /// Daily digests queued.
    pub digests: usize,
    /// Webhook deliveries dropped as too old (their receiver was paused for days).
    pub expired_webhooks: usize,
    /// Live-update events dropped as older than their retention.
    pub pruned_events: usize,
    /// Chat emails queued (see `chat_mail`).
    pub chat_emails: usize,
    /// Outbox rows and processed replies pruned after their retention (see `retention`).
    pub pruned_outbox: usize,
}

#[derive(QueryableByName)]
struct Hour {
    #[diesel(sql_type = Integer)]
    h: i32,
}

/// Whether `now` falls in the quiet hours [from, until) of the account's time zone.
pub(crate) fn in_quiet_hours(
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
        let ids = due_games(&mut conn, now)?;
        let mut report = SweepReport::default();
        for id in ids {
            let r = conn.transaction::<_, DomainError, _>(|conn| self.sweep_game(conn, id, now))?;
            report.reminders += r.reminders;
            report.timeouts += r.timeouts;
        }
        report.digests = self.send_digests(now)?;
        report.chat_emails = self.send_chat_emails(now)?;
        report.expired_webhooks = super::webhooks::expire_deliveries(&mut conn, now)?;
        report.pruned_events = crate::notify::events::prune(&mut conn)?;
        report.pruned_outbox = super::retention::prune(&mut conn, now - self.outbox_retention)?;
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
        self.forfeit_locked(
            conn,
            row,
            seats,
            seat,
            super::games::GaveUp::RanOutOfTime,
            now,
        )
    }
}

/// A running clock as `due_games` reads it: its game, the time control, the seat's time
/// left, since when it runs, and the reminders sent.
type RunningClock = (
    GameId,
    Option<serde_json::Value>,
    Option<i64>,
    Option<DateTime<Utc>>,
    i32,
);

/// The active clocked games that may owe a reminder or a timeout at `now`, in id order.
///
/// Locking and reading every active clocked game in a transaction of its own (with a
/// vacation query per running clock) would cost a pass several statements per clocked
/// game, due or not, against the 2 s a pass may take at 100,000 games. One read of the
/// running clocks picks the games to look at:
/// a clock whose wall time since it started is under half its time owes nothing
/// (vacations only take time off), and one past a stage whose reminder was sent owes
/// nothing until it is out of time. `sweep_game` still decides, under the row lock, with
/// vacations counted; this only skips games it would leave alone.
fn due_games(conn: &mut PgConnection, now: DateTime<Utc>) -> QueryResult<Vec<GameId>> {
    let clocks: Vec<RunningClock> = game_seats::table
        .inner_join(games::table)
        .filter(games::status.eq(GameStatus::Active))
        .filter(games::time_control.is_not_null())
        .filter(game_seats::clock_since.is_not_null())
        .select((
            games::id,
            games::time_control,
            game_seats::clock_ms,
            game_seats::clock_since,
            game_seats::reminders_sent,
        ))
        .load(conn)?;
    let mut ids: Vec<GameId> = clocks
        .into_iter()
        .filter_map(|(id, tc, clock_ms, since, sent)| {
            let tc: TimeControl = serde_json::from_value(tc?).ok()?;
            let wall = (now - since?).num_milliseconds();
            let total = clock_ms.unwrap_or(tc.per_move_ms()).max(1);
            let due = wall >= total
                || (sent < 1 && wall * 2 >= total)
                || (sent < 2 && wall * 10 >= total * 9);
            due.then_some(id)
        })
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// When this node's sweeper last began a pass, and the pause it keeps between passes
/// (milliseconds): the gauge `turnpost_sweeper_lag_seconds` is read from them.
static LAST_PASS_MS: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);
static PAUSE_MS: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(0);

/// The sweeper thread calls this as each pass begins.
pub fn pass_started(now: DateTime<Utc>, pause: std::time::Duration) {
    use std::sync::atomic::Ordering;
    PAUSE_MS.store(
        i64::try_from(pause.as_millis()).unwrap_or(i64::MAX),
        Ordering::Relaxed,
    );
    LAST_PASS_MS.store(now.timestamp_millis(), Ordering::Relaxed);
}

/// How far behind its schedule the sweeper is: how much longer ago than one pause the last
/// pass began (so 0 while passes start on time, and growing while a pass runs long or the
/// thread is stuck). None before the first pass.
pub fn lag_seconds() -> Option<f64> {
    lag_at(Utc::now().timestamp_millis())
}

fn lag_at(now_ms: i64) -> Option<f64> {
    use std::sync::atomic::Ordering;
    let last = LAST_PASS_MS.load(Ordering::Relaxed);
    if last == 0 {
        return None;
    }
    let late = now_ms
        .saturating_sub(last)
        .saturating_sub(PAUSE_MS.load(Ordering::Relaxed));
    Some(late.max(0) as f64 / 1000.0)
}

#[cfg(test)]
mod lag_tests {
    use super::*;

    #[test]
    fn the_sweeper_is_late_only_past_its_pause() {
        let start = DateTime::from_timestamp(1_800_000_000, 0).expect("a time");
        pass_started(start, std::time::Duration::from_secs(60));
        let ms = start.timestamp_millis();
        assert_eq!(lag_at(ms + 30_000), Some(0.0));
        assert_eq!(lag_at(ms + 90_000), Some(30.0));
    }
}
