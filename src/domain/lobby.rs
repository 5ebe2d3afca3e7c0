//! What the lobby weighs about players: each account's reliability record, what a game's
//! creator asks of those who join, and the cap on games an account holds a seat in.

use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::ToSchema;

use super::{Domain, DomainError, DomainResult, ProblemCode};
use crate::store::kinds::{AccountId, GameId};
use crate::store::schema::{accounts, game_requirements};

/// The rating an account has in a game type it never played rated (Glicko-2's start).
pub const STARTING_RATING: f64 = 1500.0;

/// How often an account plays its games to the end, from the games themselves: a seat in
/// `forfeited` resigned, unless the clock sweeper recorded a forfeit timeout for it (lost
/// on time).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ReliabilityResponse {
    pub account_id: AccountId,
    /// Finished games the account held a seat in (however they ended for it).
    pub games_finished: i64,
    /// Games the account resigned (finished or still played on by the others).
    pub resigned: i64,
    /// Games the account lost because its clock ran out (forfeit timeouts).
    pub lost_on_time: i64,
    /// Percent (0–100, rounded down) of its ended games the account played to the end,
    /// neither resigning nor running out of time; null before any game ended for it.
    pub share: Option<i32>,
}

/// What a game's creator asks of those who join (null: nothing).
#[derive(Clone, Debug, Default, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
pub struct JoinRequirements {
    /// Minimum reliability `share` (percent). An account no game has ended for yet meets it.
    pub min_reliability: Option<i32>,
    /// Minimum rating in the game's type; an account not yet rated in it counts 1500.
    pub min_rating: Option<i32>,
}

impl JoinRequirements {
    pub fn is_empty(&self) -> bool {
        self.min_reliability.is_none() && self.min_rating.is_none()
    }

    /// Refuses values out of range (`422 invalid_requirement`).
    pub fn check(&self) -> DomainResult<()> {
        let bad_share = self
            .min_reliability
            .is_some_and(|v| !(0..=100).contains(&v));
        let bad_rating = self.min_rating.is_some_and(|v| !(0..=4000).contains(&v));
        if bad_share || bad_rating {
            return Err(DomainError::invalid(
                ProblemCode::InvalidRequirement,
                "min_reliability is a percent from 0 to 100, and min_rating a whole number from 0 to 4000",
            ));
        }
        Ok(())
    }
}

#[derive(QueryableByName)]
struct Counts {
    #[diesel(sql_type = BigInt)]
    ended: i64,
    #[diesel(sql_type = BigInt)]
    finished: i64,
    #[diesel(sql_type = BigInt)]
    resigned: i64,
    #[diesel(sql_type = BigInt)]
    timed_out: i64,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The reliability record of `account` (whether or not it exists).
pub fn reliability(
    conn: &mut PgConnection,
    account: AccountId,
) -> DomainResult<ReliabilityResponse> {
    // Seats the account holds (for a seat it took over as a replacement, only what
    // happened after), and seats it left that a replacement took over (ended for it then).
    let c: Counts = diesel::sql_query(
        "SELECT \
           count(*) FILTER (WHERE c.ended) AS ended, \
           count(*) FILTER (WHERE c.finished) AS finished, \
           count(*) FILTER (WHERE c.resigned) AS resigned, \
           count(*) FILTER (WHERE c.timed_out) AS timed_out \
         FROM ( \
           SELECT g.status = 'finished' OR s.seat = ANY(g.forfeited) AS ended, \
             g.status = 'finished' AS finished, \
             s.seat = ANY(g.forfeited) AND NOT t.timed_out AS resigned, \
             t.timed_out AS timed_out \
           FROM game_seats s JOIN games g ON g.id = s.game_id \
           LEFT JOIN seat_replacements r ON r.game_id = s.game_id AND r.seat = s.seat \
             AND r.replacement_id = s.account_id \
           CROSS JOIN LATERAL (SELECT EXISTS (SELECT 1 FROM game_timeouts x WHERE x.game_id = s.game_id \
             AND x.seat = s.seat AND x.policy = 'forfeit' \
             AND (r.taken_at_version IS NULL OR x.version > r.taken_at_version)) AS timed_out) t \
           WHERE s.account_id = $1 \
           UNION ALL \
           SELECT true, g.status = 'finished', NOT r.left_on_time, r.left_on_time \
           FROM seat_replacements r JOIN games g ON g.id = r.game_id \
           WHERE r.left_account_id = $1 AND r.replacement_id IS NOT NULL \
         ) c",
    )
    .bind::<BigInt, _>(account)
    .get_result(conn)?;
    let kept = c.ended - c.resigned - c.timed_out;
    let share = (c.ended > 0).then(|| i32::try_from(kept.max(0) * 100 / c.ended).unwrap_or(0));
    Ok(ReliabilityResponse {
        account_id: account,
        games_finished: c.finished,
        resigned: c.resigned,
        lost_on_time: c.timed_out,
        share,
    })
}

/// Games not yet finished (open or in play) `account` holds a seat in.
pub fn active_games(conn: &mut PgConnection, account: AccountId) -> DomainResult<i64> {
    let c: Count = diesel::sql_query(
        "SELECT count(*) AS n FROM game_seats s JOIN games g ON g.id = s.game_id \
         WHERE s.account_id = $1 AND g.status IN ('open', 'active')",
    )
    .bind::<BigInt, _>(account)
    .get_result(conn)?;
    Ok(c.n)
}

/// The rating of `account` in `game_type` (the starting rating when it has none).
fn rating_in(conn: &mut PgConnection, account: AccountId, game_type: &str) -> DomainResult<f64> {
    #[derive(QueryableByName)]
    struct Rating {
        #[diesel(sql_type = diesel::sql_types::Double)]
        rating: f64,
    }
    let r: Option<Rating> =
        diesel::sql_query("SELECT rating FROM ratings WHERE account_id = $1 AND game_type = $2")
            .bind::<BigInt, _>(account)
            .bind::<Text, _>(game_type)
            .get_result(conn)
            .optional()?;
    Ok(r.map_or(STARTING_RATING, |r| r.rating))
}

/// The requirements of game `id` (empty when it has none).
pub fn requirements(conn: &mut PgConnection, id: GameId) -> DomainResult<JoinRequirements> {
    let row: Option<(Option<i32>, Option<i32>)> = game_requirements::table
        .find(id)
        .select((
            game_requirements::min_reliability,
            game_requirements::min_rating,
        ))
        .first(conn)
        .optional()?;
    Ok(
        row.map_or_else(JoinRequirements::default, |(r, m)| JoinRequirements {
            min_reliability: r,
            min_rating: m,
        }),
    )
}

/// Stores what game `id` asks of those who join (nothing when `req` is empty).
pub fn set_requirements(
    conn: &mut PgConnection,
    id: GameId,
    req: &JoinRequirements,
) -> DomainResult<()> {
    if req.is_empty() {
        return Ok(());
    }
    diesel::insert_into(game_requirements::table)
        .values((
            game_requirements::game_id.eq(id),
            game_requirements::min_reliability.eq(req.min_reliability),
            game_requirements::min_rating.eq(req.min_rating),
        ))
        .execute(conn)?;
    Ok(())
}

/// `403 join_requirement_not_met` unless `account` meets what game `id` asks.
pub fn check_requirements(
    conn: &mut PgConnection,
    id: GameId,
    game_type: &str,
    account: AccountId,
) -> DomainResult<()> {
    let req = requirements(conn, id)?;
    if let Some(min) = req.min_reliability {
        let record = reliability(conn, account)?;
        if let Some(share) = record.share
            && share < min
        {
            return Err(DomainError::forbidden(
                ProblemCode::JoinRequirementNotMet,
                format!(
                    "this game asks a reliability of at least {min} %; yours is {share} % (min_reliability)"
                ),
            ));
        }
    }
    if let Some(min) = req.min_rating {
        let rating = rating_in(conn, account, game_type)?;
        if rating < f64::from(min) {
            return Err(DomainError::forbidden(
                ProblemCode::JoinRequirementNotMet,
                format!(
                    "this game asks a rating of at least {min} in {game_type}; yours is {} (min_rating)",
                    rating.round()
                ),
            ));
        }
    }
    Ok(())
}

impl Domain {
    /// `409 too_many_active_games` when `account` holds as many unfinished games as allowed.
    pub(crate) fn check_active_cap(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
    ) -> DomainResult<()> {
        let limit = self.max_active_games_per_account;
        // The account's row lock, held to the end of the caller's transaction: creates and
        // joins of one account then count one after another, so that of requests racing
        // at the limit only as many get through as there are places.
        diesel::sql_query("SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE")
            .bind::<diesel::sql_types::BigInt, _>(account)
            .execute(conn)?;
        let n = active_games(conn, account)?;
        if n >= limit {
            return Err(DomainError::Conflict {
                code: ProblemCode::TooManyActiveGames,
                message: format!(
                    "you hold seats in {n} games not yet finished, and this server allows {limit}; finish or leave one first"
                ),
                extra: Some(json!({ "limit": limit, "active": n })),
            });
        }
        Ok(())
    }

    /// The reliability record of `account`; `404 not_found` when there is no such account.
    pub fn account_reliability(&self, account: AccountId) -> DomainResult<ReliabilityResponse> {
        let mut conn = self.conn()?;
        accounts::table
            .find(account)
            .select(accounts::name)
            .first::<String>(&mut conn)
            .optional()?
            .ok_or_else(|| DomainError::not_found(format!("account {account}")))?;
        reliability(&mut conn, account)
    }

    /// How many unfinished games `account` holds and may hold (for the lobby).
    pub fn active_games_of(&self, account: AccountId) -> DomainResult<(i64, i64)> {
        let mut conn = self.conn()?;
        Ok((
            active_games(&mut conn, account)?,
            self.max_active_games_per_account,
        ))
    }
}
