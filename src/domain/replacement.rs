//! A replacement for an abandoned seat. When a seat of a game of three
//! or more gives up (resigns, forfeits on time, or its account is deleted) the computer
//! plays it on; a player still in the game may offer the seat in the lobby, and a person
//! who takes it plays on from the seat's position with the seat's view only. The hand-over
//! is recorded beside the game's log (`seat_replacements`), never in it: the log stays the
//! rules' actions, so a game still replays from its seed and log. The leaver keeps the
//! loss (rated last, see `ratings::rate_finished`); the replacement is not rated.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::Serialize;
use utoipa::ToSchema;

use super::clocks;
use super::locked::{LockedGame, seat_infos, seat_of};
use super::shapes::GameResponse;
use super::{Domain, DomainError, DomainResult, ProblemCode};
use crate::store::kinds::{AccountId, GameId, GameStatus};
use crate::store::models::GameRow;
use crate::store::schema::{accounts, game_seats, game_timeouts, games, seat_replacements};

/// A seat offered to a replacement, and once taken, its hand-over.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatReplacement {
    pub game_id: GameId,
    pub seat: i32,
    /// The account that gave the seat up: it keeps the loss.
    pub left_account_id: AccountId,
    pub left_name: String,
    /// The player still in the game who offered the seat.
    pub offered_by: AccountId,
    pub offered_at: DateTime<Utc>,
    /// Who took the seat over; null while the offer waits in the lobby.
    pub replacement_account_id: Option<AccountId>,
    pub replacement_name: Option<String>,
    pub taken_at: Option<DateTime<Utc>>,
    /// The game's version when the seat was taken: the seat's log entries up to it are the
    /// leaver's (or the computer's for it), those after it the replacement's.
    pub taken_at_version: Option<i64>,
    /// Always false: a replacement is not rated for the game it took over.
    pub replacement_rated: bool,
    /// The hand-over in words, as the game's history shows it (null while only offered).
    pub text: Option<String>,
}

/// A seat offered in the lobby (`GET /api/v1/seat-offers`).
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct SeatOffer {
    pub game_id: GameId,
    #[schema(example = "sp4x")]
    pub game_type: String,
    pub players: i32,
    pub seat: i32,
    /// Who gave the seat up.
    pub left_name: String,
    /// Who offers it.
    pub offered_by_name: String,
    pub offered_at: DateTime<Utc>,
    /// Whether the game has a clock.
    pub clock: bool,
    /// The game's current version.
    pub version: i64,
}

#[derive(Serialize, ToSchema)]
pub struct SeatOfferList {
    pub items: Vec<SeatOffer>,
}

type OfferRow = (
    GameId,
    i32,
    AccountId,
    AccountId,
    DateTime<Utc>,
    Option<AccountId>,
    Option<DateTime<Utc>>,
    Option<i64>,
);

fn offer_columns() -> (
    seat_replacements::game_id,
    seat_replacements::seat,
    seat_replacements::left_account_id,
    seat_replacements::offered_by,
    seat_replacements::offered_at,
    seat_replacements::replacement_id,
    seat_replacements::taken_at,
    seat_replacements::taken_at_version,
) {
    (
        seat_replacements::game_id,
        seat_replacements::seat,
        seat_replacements::left_account_id,
        seat_replacements::offered_by,
        seat_replacements::offered_at,
        seat_replacements::replacement_id,
        seat_replacements::taken_at,
        seat_replacements::taken_at_version,
    )
}

fn name_of(conn: &mut PgConnection, account: AccountId) -> DomainResult<String> {
    Ok(accounts::table
        .find(account)
        .select(accounts::name)
        .first::<String>(conn)
        .optional()?
        .unwrap_or_default())
}

fn to_response(conn: &mut PgConnection, r: OfferRow) -> DomainResult<SeatReplacement> {
    let left_name = name_of(conn, r.2)?;
    let replacement_name = r.5.map(|a| name_of(conn, a)).transpose()?;
    let text = replacement_name.as_ref().map(|who| {
        format!(
            "{who} took over seat {} from {left_name}, who keeps the loss; {who} plays on unrated",
            r.1 + 1
        )
    });
    Ok(SeatReplacement {
        game_id: r.0,
        seat: r.1,
        left_account_id: r.2,
        left_name,
        offered_by: r.3,
        offered_at: r.4,
        replacement_account_id: r.5,
        replacement_name,
        taken_at: r.6,
        taken_at_version: r.7,
        replacement_rated: false,
        text,
    })
}

/// The seats of game `game` a replacement took over, with the accounts that left them:
/// `(seat, leaver)` (for ratings: the leaver is rated, not the replacement).
pub(crate) fn taken_seats(
    conn: &mut PgConnection,
    game: GameId,
) -> DomainResult<Vec<(i32, AccountId)>> {
    Ok(seat_replacements::table
        .filter(seat_replacements::game_id.eq(game))
        .filter(seat_replacements::replacement_id.is_not_null())
        .select((seat_replacements::seat, seat_replacements::left_account_id))
        .load(conn)?)
}

/// `404` unless `seat` is one of the game's seats.
fn check_seat(row: &GameRow, seat: i32) -> DomainResult<()> {
    if seat < 0 || seat >= row.players {
        return Err(DomainError::not_found(format!(
            "seat {seat} of game {}",
            row.id
        )));
    }
    Ok(())
}

fn check_active(row: &GameRow) -> DomainResult<()> {
    if row.status != GameStatus::Active {
        return Err(DomainError::conflict(
            ProblemCode::GameNotActive,
            format!("the game is {}", row.status),
        ));
    }
    Ok(())
}

fn find_offer(conn: &mut PgConnection, id: GameId, seat: i32) -> DomainResult<Option<OfferRow>> {
    Ok(seat_replacements::table
        .find((id, seat))
        .select(offer_columns())
        .first::<OfferRow>(conn)
        .optional()?)
}

fn already_replaced() -> DomainError {
    DomainError::conflict(
        ProblemCode::SeatAlreadyReplaced,
        "someone took this seat over already",
    )
}

impl Domain {
    /// The caller's seat, if they are a player still in game (seated, a person, not given
    /// up): only they may offer a seat or withdraw an offer.
    fn remaining_player(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        account: AccountId,
    ) -> DomainResult<i32> {
        let mine = self.seat_or_hidden(conn, game, account)?;
        check_active(&game.row)?;
        if game.row.forfeited.contains(&mine) {
            return Err(DomainError::conflict(
                ProblemCode::AlreadyForfeited,
                "you gave up your seat in this game: only the players still in it may offer seats",
            ));
        }
        Ok(mine)
    }

    /// A player still in the game offers the abandoned `seat` in the lobby.
    pub fn offer_seat(
        &self,
        account: AccountId,
        id: GameId,
        seat: i32,
    ) -> DomainResult<SeatReplacement> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            self.remaining_player(conn, &game, account)?;
            let LockedGame { row, seats } = &game;
            check_seat(row, seat)?;
            let offered = find_offer(conn, id, seat)?;
            if offered.as_ref().is_some_and(|o| o.5.is_some()) {
                return Err(already_replaced());
            }
            let leaver = seats.iter().find(|s| s.seat == seat);
            let Some(leaver) = leaver.filter(|s| row.forfeited.contains(&seat) && !s.bot) else {
                return Err(DomainError::conflict(
                    ProblemCode::SeatNotAbandoned,
                    format!(
                        "seat {seat} has not been given up: only a seat that resigned or forfeited on time can be offered"
                    ),
                ));
            };
            if row.private {
                return Err(DomainError::conflict(
                    ProblemCode::SeatOfferPrivate,
                    "a private game's seats are not offered in the lobby",
                ));
            }
            if offered.is_some() {
                return Err(DomainError::conflict(
                    ProblemCode::SeatAlreadyOffered,
                    "this seat is offered already",
                ));
            }
            let offered: OfferRow = diesel::insert_into(seat_replacements::table)
                .values((
                    seat_replacements::game_id.eq(id),
                    seat_replacements::seat.eq(seat),
                    seat_replacements::left_account_id.eq(leaver.account_id),
                    seat_replacements::offered_by.eq(account),
                ))
                .returning(offer_columns())
                .get_result(conn)?;
            // Lobby watchers and the players see the change (the trigger announces it).
            diesel::update(games::table.find(id))
                .set(games::updated_at.eq(diesel::dsl::now))
                .execute(conn)?;
            to_response(conn, offered)
        })
    }

    /// A player still in the game withdraws the offer of `seat` (not yet taken).
    pub fn withdraw_seat_offer(
        &self,
        account: AccountId,
        id: GameId,
        seat: i32,
    ) -> DomainResult<()> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            self.remaining_player(conn, &game, account)?;
            check_seat(&game.row, seat)?;
            match find_offer(conn, id, seat)? {
                None => Err(DomainError::conflict(
                    ProblemCode::SeatNotOffered,
                    format!("seat {seat} is not offered"),
                )),
                Some(o) if o.5.is_some() => Err(already_replaced()),
                Some(_) => {
                    diesel::delete(seat_replacements::table.find((id, seat))).execute(conn)?;
                    diesel::update(games::table.find(id))
                        .set(games::updated_at.eq(diesel::dsl::now))
                        .execute(conn)?;
                    Ok(())
                }
            }
        })
    }

    /// The caller takes the offered `seat` over: from now on they play it, from its
    /// position and with its view only, and the computer stops playing it. Under the game
    /// row lock, so of takers racing exactly one gets the seat.
    pub fn take_seat(
        &self,
        account: AccountId,
        id: GameId,
        seat: i32,
    ) -> DomainResult<GameResponse> {
        let now = self.clock.now();
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let LockedGame { row, seats } = LockedGame::lock(conn, id)?;
            self.check_visible(conn, &row, &seats, Some(account))?;
            check_seat(&row, seat)?;
            check_active(&row)?;
            let offer = match find_offer(conn, id, seat)? {
                None => {
                    return Err(DomainError::conflict(
                        ProblemCode::SeatNotOffered,
                        format!("seat {seat} is not offered"),
                    ));
                }
                Some(o) if o.5.is_some() => return Err(already_replaced()),
                Some(o) => o,
            };
            let mine = seat_of(&seats, account);
            if mine == Some(seat) || offer.2 == account {
                return Err(DomainError::conflict(
                    ProblemCode::LeaverCannotTake,
                    "you gave this seat up: you keep the loss, and cannot come back as its replacement",
                ));
            }
            if mine.is_some() {
                return Err(DomainError::conflict(
                    ProblemCode::AlreadyJoined,
                    "you have a seat in this game already",
                ));
            }
            if !row.forfeited.contains(&seat) {
                return Err(DomainError::conflict(
                    ProblemCode::SeatNotAbandoned,
                    format!("seat {seat} is no longer given up"),
                ));
            }
            super::lobby::check_requirements(conn, id, &row.game_type, account)?;
            self.check_active_cap(conn, account)?;
            let left_on_time: bool = diesel::select(diesel::dsl::exists(
                game_timeouts::table.filter(
                    game_timeouts::game_id
                        .eq(id)
                        .and(game_timeouts::seat.eq(seat))
                        .and(game_timeouts::policy.eq("forfeit")),
                ),
            ))
            .get_result(conn)?;
            // A fresh clock: the leaver's ran out, or stopped when the seat gave up.
            let clock = clocks::time_control(&row).map(|tc| tc.per_move_ms());
            diesel::update(
                game_seats::table.filter(game_seats::game_id.eq(id).and(game_seats::seat.eq(seat))),
            )
            .set((
                game_seats::account_id.eq(account),
                game_seats::joined_at.eq(now),
                game_seats::bot.eq(false),
                game_seats::muted.eq(false),
                game_seats::reminders_sent.eq(0),
                game_seats::clock_ms.eq(clock),
                game_seats::clock_since.eq(None::<DateTime<Utc>>),
            ))
            .execute(conn)?;
            diesel::update(seat_replacements::table.find((id, seat)))
                .set((
                    seat_replacements::replacement_id.eq(Some(account)),
                    seat_replacements::taken_at.eq(Some(now)),
                    seat_replacements::taken_at_version.eq(Some(row.version)),
                    seat_replacements::left_on_time.eq(left_on_time),
                ))
                .execute(conn)?;
            let forfeited: Vec<i32> = row.forfeited.iter().copied().filter(|&s| s != seat).collect();
            diesel::update(games::table.find(id))
                .set(games::forfeited.eq(&forfeited))
                .execute(conn)?;
            let row = GameRow { forfeited, ..row };
            let seats = seat_infos(conn, id)?;
            let state = self.load(&row)?.ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!("active game {id} has no snapshot"))
            })?;
            // The game now waits for the person if the seat is to act: its clock starts,
            // and the turn email goes to them.
            let before = state.actors(row.players as usize);
            self.persist_at(conn, &row, &seats, &before, Vec::new(), state, now)?;
            Ok(())
        })?;
        self.game_cache.forget(id);
        self.game_for(&mut conn, Some(account), id)
    }

    /// The offers and hand-overs of game `id`, as anyone who may see the game sees them
    /// (offers not taken only while the game is played).
    pub fn game_replacements(
        &self,
        viewer: Option<AccountId>,
        id: GameId,
    ) -> DomainResult<Vec<SeatReplacement>> {
        let mut conn = self.conn()?;
        let LockedGame { row, seats } = LockedGame::read(&mut conn, id)?;
        self.check_visible(&mut conn, &row, &seats, viewer)?;
        let rows: Vec<OfferRow> = seat_replacements::table
            .filter(seat_replacements::game_id.eq(id))
            .order(seat_replacements::seat.asc())
            .select(offer_columns())
            .load(&mut conn)?;
        rows.into_iter()
            .filter(|r| r.5.is_some() || row.status == GameStatus::Active)
            .map(|r| to_response(&mut conn, r))
            .collect()
    }

    /// The seats offered in the lobby: of public games in play the caller has no seat in.
    pub fn seat_offers(&self, account: AccountId) -> DomainResult<SeatOfferList> {
        let mut conn = self.conn()?;
        let mine = game_seats::table
            .filter(game_seats::account_id.eq(account))
            .select(game_seats::game_id);
        type Listed = (
            GameId,
            String,
            i32,
            i32,
            AccountId,
            AccountId,
            DateTime<Utc>,
            Option<serde_json::Value>,
            i64,
        );
        let rows: Vec<Listed> = seat_replacements::table
            .inner_join(games::table)
            .filter(seat_replacements::replacement_id.is_null())
            .filter(games::status.eq(GameStatus::Active))
            .filter(games::private.eq(false))
            .filter(diesel::dsl::not(games::id.eq_any(mine)))
            .order((seat_replacements::offered_at.desc(), games::id.desc()))
            .limit(100)
            .select((
                games::id,
                games::game_type,
                games::players,
                seat_replacements::seat,
                seat_replacements::left_account_id,
                seat_replacements::offered_by,
                seat_replacements::offered_at,
                games::time_control,
                games::version,
            ))
            .load(&mut conn)?;
        let mut items = Vec::with_capacity(rows.len());
        for r in rows {
            items.push(SeatOffer {
                game_id: r.0,
                game_type: r.1,
                players: r.2,
                seat: r.3,
                left_name: name_of(&mut conn, r.4)?,
                offered_by_name: name_of(&mut conn, r.5)?,
                offered_at: r.6,
                clock: r.7.is_some(),
                version: r.8,
            });
        }
        Ok(SeatOfferList { items })
    }
}
