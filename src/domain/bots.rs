//! The computer as a player: bot accounts for "play against the computer", the seats the
//! computer plays (its own, and those it took over when a player's time ran out under the
//! `bot` timeout policy), and the move it makes for them. Its first moves are made in the
//! transaction of the change that handed it the turn, within a budget, the rest by the
//! background bot worker (see `domain::autoplay`); all are marked `[bot]` in the log.

use crate::domain::ProblemCode;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::Value;

use super::locked::{LockedGame, seat_infos};
use super::shapes::GameResponse;
use super::{Domain, DomainError, DomainResult};
use crate::engine::{LoadedGame, Seat};
use crate::store::kinds::{AccountId, GameId, GameStatus};
use crate::store::models::GameRow;
use crate::store::models::SeatInfo;
use crate::store::schema::{accounts, game_seats};

/// The computer's move for `seat`, chosen from what the seat may know (see
/// [`crate::engine::bot`]) and the game's latest actions; `None` when it has nothing to
/// decide or waits for another seat.
pub(crate) fn bot_action(
    state: &dyn LoadedGame,
    seat: Seat,
    game_type: &str,
    recent: &[(Seat, Value)],
) -> Option<Value> {
    // A fresh seed per move: what the bot chose is in the log, so replays need no seed.
    crate::engine::bot::choose_action(
        state,
        seat,
        rand::random(),
        crate::engine::bot::BotBudget::for_game(game_type),
        recent,
    )
}

/// The accounts of computer players 1..=n, made on first use. Distinct accounts, because a
/// game seats an account once.
pub(crate) fn bot_accounts(conn: &mut PgConnection, n: usize) -> DomainResult<Vec<AccountId>> {
    let mut ids = Vec::with_capacity(n);
    for k in 1..=n {
        // `.invalid` is reserved (RFC 2606): no mail can ever go there. The password hash
        // is no hash at all, so no password matches it.
        let email = format!("computer-{k}@bots.invalid");
        let name = if k == 1 {
            "Computer".to_string()
        } else {
            format!("Computer {k}")
        };
        diesel::insert_into(accounts::table)
            .values((
                accounts::email.eq(&email),
                accounts::email_lower.eq(&email),
                accounts::name.eq(&name),
                accounts::password_hash.eq("!"),
                accounts::email_notifications.eq(false),
                accounts::reminders.eq(false),
                accounts::bot.eq(true),
            ))
            .on_conflict(accounts::email_lower)
            .do_nothing()
            .execute(conn)?;
        let id: AccountId = accounts::table
            .filter(accounts::email_lower.eq(&email).and(accounts::bot.eq(true)))
            .select(accounts::id)
            .first(conn)?;
        ids.push(id);
    }
    Ok(ids)
}

/// Whether the computer plays `seat`.
pub(crate) fn plays(seats: &[SeatInfo], seat: Seat) -> bool {
    seats.iter().any(|s| s.seat as usize == seat && s.bot)
}

impl Domain {
    /// The seat's time ran out under the `bot` policy: the computer plays it from now on
    /// (at once, if the game waits for it).
    pub(crate) fn bot_takes_over(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seat: i32,
        now: DateTime<Utc>,
    ) -> DomainResult<()> {
        diesel::update(
            game_seats::table.filter(
                game_seats::game_id
                    .eq(row.id)
                    .and(game_seats::seat.eq(seat)),
            ),
        )
        .set(game_seats::bot.eq(true))
        .execute(conn)?;
        let seats = seat_infos(conn, row.id)?;
        let state = self.load(row)?.ok_or_else(|| {
            DomainError::Internal(anyhow::anyhow!("active game {} has no snapshot", row.id))
        })?;
        let before = state.actors(row.players as usize);
        self.persist_at(conn, row, &seats, &before, Vec::new(), state, now)?;
        Ok(())
    }

    /// The caller takes their seat back from the computer, which took it over when their
    /// time ran out.
    pub fn resume_seat(&self, account: AccountId, id: GameId) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            // An outsider learns nothing of a private game, not even that it exists.
            let seat = self.seat_or_hidden(conn, &game, account)?;
            let LockedGame { row, seats } = game;
            if row.status != GameStatus::Active {
                return Err(DomainError::conflict(
                    ProblemCode::GameNotActive,
                    "the game is not being played",
                ));
            }
            if !seats.iter().any(|s| s.seat == seat && s.bot) {
                return Err(DomainError::conflict(
                    ProblemCode::SeatNotWithBot,
                    "you are playing this seat yourself already",
                ));
            }
            diesel::update(
                game_seats::table.filter(game_seats::game_id.eq(id).and(game_seats::seat.eq(seat))),
            )
            .set(game_seats::bot.eq(false))
            .execute(conn)?;
            Ok(())
        })?;
        self.game_for(&mut conn, Some(account), id)
    }
}
