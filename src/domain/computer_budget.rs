//! The computer's work one account may cause: its moves (and those of seats given up) in
//! the games the account created, at most `bot_moves_per_account_per_day` in 24 hours.
//! Moves are counted per hour (`computer_moves`), and the window is the current hour and
//! the 23 before it; past the allowance the computer makes no more moves in those games,
//! the bot worker marks them paused until the oldest hour that leaves the window frees
//! enough (`games.computer_paused_until`, shown in the game's view), and passes them by
//! until then. Moves that are a seat's only choice cost nothing and are not counted.
//!
//! Several changes at once in one account's games read the same allowance, so the count
//! may pass the allowance by what they play together (a request plays at most
//! [`super::autoplay::REQUEST_MOVES`]); the next change sees it spent.

use chrono::{DateTime, DurationRound, TimeDelta, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Timestamptz};

use super::{Domain, DomainResult};
use crate::store::kinds::{AccountId, GameId};
use crate::store::schema::computer_moves;

/// What an account may still have the computer do, when an allowance is set.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Allowance {
    /// Moves left in the window.
    pub left: u32,
    /// When moves come back, if none are left: the end of the hour whose moves free one.
    pub resumes_at: DateTime<Utc>,
}

/// The hour `at` falls in.
fn hour_of(at: DateTime<Utc>) -> DateTime<Utc> {
    at.duration_trunc(TimeDelta::hours(1)).unwrap_or(at)
}

/// The first hour that counts at `now`.
fn window_start(now: DateTime<Utc>) -> DateTime<Utc> {
    hour_of(now) - TimeDelta::hours(23)
}

/// The allowance left of `per_day`, given the moves of each hour in the window (oldest
/// first).
fn allowance(per_day: u32, now: DateTime<Utc>, hours: &[(DateTime<Utc>, i32)]) -> Allowance {
    let mut used: u64 = hours
        .iter()
        .map(|(_, m)| u64::from((*m).max(0).unsigned_abs()))
        .sum();
    let left = u64::from(per_day).saturating_sub(used);
    let mut resumes_at = hour_of(now) + TimeDelta::hours(1);
    if left == 0 {
        for (hour, moves) in hours {
            used = used.saturating_sub(u64::from((*moves).max(0).unsigned_abs()));
            resumes_at = *hour + TimeDelta::hours(24);
            if used < u64::from(per_day) {
                break;
            }
        }
    }
    Allowance {
        left: u32::try_from(left).unwrap_or(u32::MAX),
        resumes_at,
    }
}

impl Domain {
    /// What `account` may still have the computer do at `now`; `None`: no limit is set.
    pub(crate) fn computer_allowance(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
        now: DateTime<Utc>,
    ) -> DomainResult<Option<Allowance>> {
        let Some(per_day) = self.computer_moves_per_day else {
            return Ok(None);
        };
        let hours: Vec<(DateTime<Utc>, i32)> = computer_moves::table
            .filter(
                computer_moves::account_id
                    .eq(account)
                    .and(computer_moves::hour.ge(window_start(now))),
            )
            .order(computer_moves::hour)
            .select((computer_moves::hour, computer_moves::moves))
            .load(conn)?;
        Ok(Some(allowance(per_day, now, &hours)))
    }

    /// Counts `moves` more of the computer's for `account` at `now`, of the `left` it had,
    /// and forgets hours that left the window. Says so in the log when they spend the
    /// allowance.
    pub(crate) fn charge_computer_moves(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
        now: DateTime<Utc>,
        moves: u32,
        left: u32,
    ) -> DomainResult<()> {
        let Some(per_day) = self.computer_moves_per_day else {
            return Ok(());
        };
        if moves == 0 {
            return Ok(());
        }
        let n = i32::try_from(moves).unwrap_or(i32::MAX);
        diesel::insert_into(computer_moves::table)
            .values((
                computer_moves::account_id.eq(account),
                computer_moves::hour.eq(hour_of(now)),
                computer_moves::moves.eq(n),
            ))
            .on_conflict((computer_moves::account_id, computer_moves::hour))
            .do_update()
            .set(computer_moves::moves.eq(computer_moves::moves + n))
            .execute(conn)?;
        diesel::delete(
            computer_moves::table.filter(
                computer_moves::account_id
                    .eq(account)
                    .and(computer_moves::hour.lt(window_start(now))),
            ),
        )
        .execute(conn)?;
        if moves >= left {
            tracing::info!(
                account = account.0,
                per_day,
                "an account's games reached the daily allowance of computer moves: the \
                 computer waits in them until the allowance comes back"
            );
        }
        Ok(())
    }

    /// Marks `account`'s active games that wait for the computer as paused until `until`
    /// (the bot worker passes them by, their view says so). Games a request holds are
    /// left: the worker finds them spent when it picks them. Returns how many it marked.
    pub(crate) fn pause_computer(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
        until: DateTime<Utc>,
    ) -> DomainResult<usize> {
        Ok(diesel::sql_query(
            "UPDATE games SET computer_paused_until = $2 WHERE id IN ( \
               SELECT g.id FROM games g \
               WHERE g.created_by = $1 AND g.status = 'active' \
                 AND (g.computer_paused_until IS NULL OR g.computer_paused_until < $2) \
                 AND EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = g.id \
                             AND s.seat = ANY (g.to_act) AND (s.bot OR s.seat = ANY (g.forfeited))) \
               FOR UPDATE OF g SKIP LOCKED)",
        )
        .bind::<BigInt, _>(account.0)
        .bind::<Timestamptz, _>(until)
        .execute(conn)?)
    }

    /// The computer moves again in game `id`.
    pub(crate) fn unpause_computer(&self, conn: &mut PgConnection, id: GameId) -> DomainResult<()> {
        use crate::store::schema::games;
        diesel::update(games::table.find(id))
            .set(games::computer_paused_until.eq(None::<DateTime<Utc>>))
            .execute(conn)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        use chrono::TimeZone;
        Utc.with_ymd_and_hms(2026, 12, 3, h, m, 0).unwrap()
    }

    #[test]
    fn what_is_left_and_when_it_comes_back() {
        let now = at(12, 30);
        let a = allowance(10, now, &[]);
        assert_eq!(a.left, 10);
        let a = allowance(10, now, &[(at(1, 0), 4), (at(12, 0), 3)]);
        assert_eq!(a.left, 3);
        // Spent: it comes back when the oldest hour leaves the window, if that frees one.
        let a = allowance(10, now, &[(at(1, 0), 4), (at(12, 0), 6)]);
        assert_eq!((a.left, a.resumes_at), (0, at(1, 0) + TimeDelta::hours(24)));
        // Not before the hour whose moves bring it under the allowance.
        let a = allowance(10, now, &[(at(1, 0), 1), (at(3, 0), 1), (at(12, 0), 9)]);
        assert_eq!((a.left, a.resumes_at), (0, at(3, 0) + TimeDelta::hours(24)));
    }

    #[test]
    fn the_window_is_this_hour_and_the_23_before() {
        assert_eq!(window_start(at(12, 30)), at(12, 0) - TimeDelta::hours(23));
    }
}
