//! Rematch: a finished game played again by the same players, with the seats rotated by
//! one (so another player starts) and the same options, clock and timeout policy. The new
//! game starts at once; everyone in it already played the last one together.

use crate::domain::ProblemCode;
use diesel::prelude::*;

use super::locked::LockedGame;
use super::shapes::GameResponse;
use super::{Domain, DomainError, DomainResult};
use crate::store::kinds::{AccountId, GameId, GameStatus};
use crate::store::models::{GameRow, NewGame};
use crate::store::schema::{accounts, game_seats, games};

impl Domain {
    /// The rematch of game `id`, asked for by `account` (a player of it): created and
    /// started on the first request (`true`), the same game on every later one.
    pub fn rematch(&self, account: AccountId, id: GameId) -> DomainResult<(GameResponse, bool)> {
        let mut conn = self.conn()?;
        let (new_id, created) = conn.transaction(|conn| {
            let before = LockedGame::lock(conn, id)?.row.rematch_id;
            let new = self.rematch_locked(conn, account, id)?;
            Ok::<_, DomainError>((new, before.is_none()))
        })?;
        Ok((self.game_for(&mut conn, Some(account), new_id)?, created))
    }

    /// [`Domain::rematch`] in the caller's transaction (the email path has one open).
    pub(crate) fn rematch_locked(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
        id: GameId,
    ) -> DomainResult<GameId> {
        // The old game's row lock orders two players asking at the same moment: the
        // second finds the first one's rematch.
        let game = LockedGame::lock(conn, id)?;
        // An outsider learns nothing of a private game, not even that it exists.
        self.seat_or_hidden(conn, &game, account)?;
        let LockedGame { row, seats } = game;
        if row.status != GameStatus::Finished {
            return Err(DomainError::conflict(
                ProblemCode::GameNotFinished,
                "a rematch can be asked for once the game is over",
            ));
        }
        if let Some(existing) = row.rematch_id {
            return Ok(existing);
        }
        let engine = self.engine_for(&row)?;
        let info = engine.info();
        // Today's rules: the options are checked again in case they changed since.
        let options = engine.normalize_options(&row.options).map_err(|e| {
            DomainError::conflict(
                ProblemCode::RematchOptionsInvalid,
                format!("this game's options no longer apply: {}", e.message),
            )
        })?;
        let seed: [u8; 32] = rand::random();
        let new: GameRow = diesel::insert_into(games::table)
            .values(NewGame {
                game_type: info.id,
                rules_version: info.rules_version as i32,
                options: &options,
                players: row.players,
                status: GameStatus::Open,
                seed: &seed,
                created_by: account,
                time_control: row.time_control.as_ref(),
                timeout_policy: row.timeout_policy,
                private: row.private,
                rated: row.rated,
            })
            .returning(GameRow::as_returning())
            .get_result(conn)?;
        // The computer's own accounts play again as the computer; a person's seat that the
        // computer took over when their time ran out goes back to that person.
        let computers: Vec<AccountId> = accounts::table
            .filter(accounts::id.eq_any(seats.iter().map(|s| s.account_id)))
            .filter(accounts::bot.eq(true))
            .select(accounts::id)
            .load(conn)?;
        // Rotated: the old second seat starts.
        let n = seats.len();
        let rows: Vec<_> = (0..n)
            .map(|j| {
                let account = seats[(j + 1) % n].account_id;
                (
                    game_seats::game_id.eq(new.id),
                    game_seats::seat.eq(j as i32),
                    game_seats::account_id.eq(account),
                    game_seats::bot.eq(computers.contains(&account)),
                )
            })
            .collect();
        diesel::insert_into(game_seats::table)
            .values(rows)
            .execute(conn)?;
        diesel::update(games::table.find(row.id))
            .set(games::rematch_id.eq(new.id))
            .execute(conn)?;
        self.start(conn, &new)?;
        Ok(new.id)
    }
}
