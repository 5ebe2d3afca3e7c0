//! Ratings: a finished rated game moves its players' Glicko-2 ratings in its game type
//! (see `rating_math` for who is rated against whom), and the answers that show them: an
//! account's ratings with their history, and each game type's leaderboard.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::Serialize;
use skillratings::glicko2::Glicko2Rating;
use utoipa::ToSchema;

use super::rating_math::{self, Placed};
use super::{Domain, DomainError, DomainResult};
use crate::engine::Outcome;
use crate::store::kinds::{AccountId, GameId};
use crate::store::models::GameRow;
use crate::store::models::SeatInfo;
use crate::store::schema::{accounts, rating_history, ratings};

/// Fewer rated games than this and a rating is marked provisional: its deviation is still
/// large, so its place on a leaderboard says little.
pub const PROVISIONAL_BELOW_GAMES: i32 = 5;

/// A page of a list: 1-based page number and items per page (checked by the caller).
#[derive(Clone, Copy, Debug)]
pub struct Page {
    pub page: i64,
    pub per_page: i64,
}

impl Page {
    fn offset(self) -> i64 {
        (self.page - 1) * self.per_page
    }
}

/// An account's current rating in one game type.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingResponse {
    #[schema(example = "kasino")]
    pub game_type: String,
    /// Glicko-2 rating (a new player starts at 1500).
    pub rating: f64,
    /// Rating deviation: how uncertain the rating is (350 at the start).
    pub deviation: f64,
    /// Glicko-2 volatility: how erratic the player's results are (0.06 at the start).
    pub volatility: f64,
    pub games_played: i32,
    /// Fewer than five rated games in this game type.
    pub provisional: bool,
}

/// How one rated game changed one account's rating.
#[derive(Debug, Serialize, ToSchema)]
pub struct RatingChange {
    pub game_id: GameId,
    pub game_type: String,
    /// The account's rank in the game (1 is best).
    pub rank: i32,
    pub rating_before: f64,
    pub rating_after: f64,
    pub deviation_before: f64,
    pub deviation_after: f64,
    pub volatility_before: f64,
    pub volatility_after: f64,
    pub rated_at: DateTime<Utc>,
}

/// An account's ratings in every game type it played rated, and one page of its rating
/// history, newest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountRatingsResponse {
    pub account_id: AccountId,
    pub name: String,
    /// By game type id.
    pub ratings: Vec<RatingResponse>,
    pub history: Vec<RatingChange>,
    pub page: i64,
    pub per_page: i64,
    /// History rows in all.
    pub total: i64,
    /// The next history page's path, while there are more.
    pub next: Option<String>,
}

/// One place on a leaderboard.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardEntry {
    /// 1-based place in rating order.
    pub position: i64,
    pub account_id: AccountId,
    pub name: String,
    pub rating: f64,
    pub deviation: f64,
    pub games_played: i32,
    /// Fewer than five rated games in this game type.
    pub provisional: bool,
}

/// One page of a game type's leaderboard: highest rating first.
#[derive(Debug, Serialize, ToSchema)]
pub struct LeaderboardResponse {
    #[schema(example = "kasino")]
    pub game_type: String,
    pub entries: Vec<LeaderboardEntry>,
    pub page: i64,
    pub per_page: i64,
    /// Rated accounts in all.
    pub total: i64,
    /// The next page's path, while there are more.
    pub next: Option<String>,
}

fn next_path(base: &str, page: Page, total: i64) -> Option<String> {
    (page.page.saturating_mul(page.per_page) < total)
        .then(|| format!("{base}?page={}&per_page={}", page.page + 1, page.per_page))
}

/// Rates the finished game `row` once, if it is rated: every player's rating in the game
/// type moves by the game's placings. Runs in the transaction that finishes the game,
/// under its row lock, so whichever path ends a game (a move, a resignation, a timeout, an
/// email reply) rates it, and rates it at most once (history rows are keyed by game too).
pub(crate) fn rate_finished(
    conn: &mut PgConnection,
    row: &GameRow,
    outcome: &Outcome,
    seats: &[SeatInfo],
) -> DomainResult<()> {
    if !row.rated {
        return Ok(());
    }
    let done: bool = diesel::select(diesel::dsl::exists(
        rating_history::table.filter(rating_history::game_id.eq(row.id)),
    ))
    .get_result(conn)?;
    if done {
        return Ok(());
    }
    let mut placed: Vec<(Placed, AccountId)> = rating_math::placings(outcome)
        .into_iter()
        .filter_map(|p| {
            let account = seats.iter().find(|s| s.seat as usize == p.seat)?.account_id;
            Some((p, account))
        })
        .collect();
    // A seat a replacement took over: the account that left it is rated, last (it keeps
    // the loss); the replacement is not rated for the game.
    let taken = super::replacement::taken_seats(conn, row.id)?;
    if !taken.is_empty() {
        let stayed = |p: &Placed| !taken.iter().any(|(s, _)| *s as usize == p.seat);
        let worst = placed
            .iter()
            .filter(|(p, _)| stayed(p))
            .map(|(p, _)| p.rank)
            .max()
            .unwrap_or(0);
        for (p, account) in &mut placed {
            if let Some(&(_, leaver)) = taken.iter().find(|(s, _)| *s as usize == p.seat) {
                *account = leaver;
                p.rank = worst + 1;
            }
        }
    }
    let only: Vec<Placed> = placed.iter().map(|(p, _)| *p).collect();
    if !rating_math::is_contest(&only) {
        return Ok(());
    }
    // Rows locked in account order, so games finishing at once never wait on each other
    // in a circle.
    placed.sort_by_key(|(_, a)| *a);
    let fresh = Glicko2Rating::new();
    let defaults: Vec<_> = placed
        .iter()
        .map(|(_, a)| {
            (
                ratings::account_id.eq(*a),
                ratings::game_type.eq(&row.game_type),
                ratings::rating.eq(fresh.rating),
                ratings::deviation.eq(fresh.deviation),
                ratings::volatility.eq(fresh.volatility),
            )
        })
        .collect();
    diesel::insert_into(ratings::table)
        .values(&defaults)
        .on_conflict_do_nothing()
        .execute(conn)?;
    let ids: Vec<AccountId> = placed.iter().map(|(_, a)| *a).collect();
    let current: Vec<(AccountId, f64, f64, f64)> = ratings::table
        .filter(ratings::game_type.eq(&row.game_type))
        .filter(ratings::account_id.eq_any(&ids))
        .order(ratings::account_id)
        .select((
            ratings::account_id,
            ratings::rating,
            ratings::deviation,
            ratings::volatility,
        ))
        .for_update()
        .load(conn)?;
    let players: Vec<(Placed, Glicko2Rating)> = placed
        .iter()
        .map(|(p, a)| {
            let (_, rating, deviation, volatility) =
                current.iter().find(|c| c.0 == *a).copied().ok_or_else(|| {
                    DomainError::Internal(anyhow::anyhow!("no rating row for {a}"))
                })?;
            Ok((
                *p,
                Glicko2Rating {
                    rating,
                    deviation,
                    volatility,
                },
            ))
        })
        .collect::<DomainResult<_>>()?;
    let after = rating_math::rate(&players);
    for (((p, before), new), account) in players.iter().zip(&after).zip(&ids) {
        diesel::update(ratings::table.find((*account, &row.game_type)))
            .set((
                ratings::rating.eq(new.rating),
                ratings::deviation.eq(new.deviation),
                ratings::volatility.eq(new.volatility),
                ratings::games_played.eq(ratings::games_played + 1),
                ratings::updated_at.eq(diesel::dsl::now),
            ))
            .execute(conn)?;
        diesel::insert_into(rating_history::table)
            .values((
                rating_history::game_id.eq(row.id),
                rating_history::account_id.eq(*account),
                rating_history::game_type.eq(&row.game_type),
                rating_history::rank.eq(p.rank as i32),
                rating_history::rating_before.eq(before.rating),
                rating_history::deviation_before.eq(before.deviation),
                rating_history::volatility_before.eq(before.volatility),
                rating_history::rating_after.eq(new.rating),
                rating_history::deviation_after.eq(new.deviation),
                rating_history::volatility_after.eq(new.volatility),
            ))
            .execute(conn)?;
    }
    Ok(())
}

type RatingRow = (String, f64, f64, f64, i32);
type HistoryRow = (
    GameId,
    String,
    i32,
    f64,
    f64,
    f64,
    f64,
    f64,
    f64,
    DateTime<Utc>,
);

impl Domain {
    /// `account`'s current ratings and one page of its rating history (public: names and
    /// numbers only). A private game is in the history only for `viewer` seated in it.
    pub fn account_ratings(
        &self,
        account: AccountId,
        viewer: Option<AccountId>,
        page: Page,
    ) -> DomainResult<AccountRatingsResponse> {
        // A private game's id, type, time and ranks are its players' business.
        let visible = || {
            diesel::dsl::sql::<diesel::sql_types::Bool>(
                "(NOT EXISTS (SELECT 1 FROM games g WHERE g.id = rating_history.game_id AND g.private) \
                 OR EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = rating_history.game_id \
                 AND s.account_id = ",
            )
            .bind::<diesel::sql_types::BigInt, _>(viewer.unwrap_or(AccountId(-1)))
            .sql("))")
        };
        let mut conn = self.conn()?;
        let name: String = accounts::table
            .find(account)
            .select(accounts::name)
            .first(&mut conn)
            .optional()?
            .ok_or_else(|| DomainError::not_found(format!("account {account}")))?;
        let current: Vec<RatingRow> = ratings::table
            .filter(ratings::account_id.eq(account))
            .order(ratings::game_type)
            .select((
                ratings::game_type,
                ratings::rating,
                ratings::deviation,
                ratings::volatility,
                ratings::games_played,
            ))
            .load(&mut conn)?;
        let total: i64 = rating_history::table
            .filter(rating_history::account_id.eq(account))
            .filter(visible())
            .count()
            .get_result(&mut conn)?;
        let rows: Vec<HistoryRow> = rating_history::table
            .filter(rating_history::account_id.eq(account))
            .filter(visible())
            .order((
                rating_history::rated_at.desc(),
                rating_history::game_id.desc(),
            ))
            .limit(page.per_page)
            .offset(page.offset())
            .select((
                rating_history::game_id,
                rating_history::game_type,
                rating_history::rank,
                rating_history::rating_before,
                rating_history::rating_after,
                rating_history::deviation_before,
                rating_history::deviation_after,
                rating_history::volatility_before,
                rating_history::volatility_after,
                rating_history::rated_at,
            ))
            .load(&mut conn)?;
        Ok(AccountRatingsResponse {
            account_id: account,
            name,
            ratings: current
                .into_iter()
                .map(
                    |(game_type, rating, deviation, volatility, games_played)| RatingResponse {
                        game_type,
                        rating,
                        deviation,
                        volatility,
                        games_played,
                        provisional: games_played < PROVISIONAL_BELOW_GAMES,
                    },
                )
                .collect(),
            history: rows
                .into_iter()
                .map(|r| RatingChange {
                    game_id: r.0,
                    game_type: r.1,
                    rank: r.2,
                    rating_before: r.3,
                    rating_after: r.4,
                    deviation_before: r.5,
                    deviation_after: r.6,
                    volatility_before: r.7,
                    volatility_after: r.8,
                    rated_at: r.9,
                })
                .collect(),
            page: page.page,
            per_page: page.per_page,
            total,
            next: next_path(&format!("/api/v1/accounts/{account}/ratings"), page, total),
        })
    }

    /// One page of `game_type`'s leaderboard: highest rating first, ties by account id.
    pub fn leaderboard(&self, game_type: &str, page: Page) -> DomainResult<LeaderboardResponse> {
        let game = self
            .registry
            .get(game_type)
            .ok_or_else(|| DomainError::not_found(format!("game type {game_type}")))?;
        let id = game.info().id;
        let mut conn = self.conn()?;
        let total: i64 = ratings::table
            .filter(ratings::game_type.eq(id))
            .count()
            .get_result(&mut conn)?;
        let rows: Vec<(AccountId, String, f64, f64, i32)> = ratings::table
            .inner_join(accounts::table)
            .filter(ratings::game_type.eq(id))
            .order((ratings::rating.desc(), ratings::account_id))
            .limit(page.per_page)
            .offset(page.offset())
            .select((
                ratings::account_id,
                accounts::name,
                ratings::rating,
                ratings::deviation,
                ratings::games_played,
            ))
            .load(&mut conn)?;
        Ok(LeaderboardResponse {
            game_type: id.to_string(),
            entries: rows
                .into_iter()
                .zip(page.offset() + 1..)
                .map(
                    |((account_id, name, rating, deviation, games_played), position)| {
                        LeaderboardEntry {
                            position,
                            account_id,
                            name,
                            rating,
                            deviation,
                            games_played,
                            provisional: games_played < PROVISIONAL_BELOW_GAMES,
                        }
                    },
                )
                .collect(),
            page: page.page,
            per_page: page.per_page,
            total,
            next: next_path(&format!("/api/v1/game-types/{id}/leaderboard"), page, total),
        })
    }
}
