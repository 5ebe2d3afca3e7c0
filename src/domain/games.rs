//! Games: create, join, leave, list, read, act, log, history. Every change is one
//! transaction that locks the game row, so concurrent requests serialise per game.

use crate::domain::ProblemCode;
use crate::store::kinds::{AccountId, GameId};
use crate::store::kinds::{GameStatus, TimeoutPolicy};
use std::sync::Arc;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::{Value, json};

use super::autoplay::Budget;
use super::bots;
use super::clocks::{self, TimeControl};
use super::game_cache::Kept;
use super::locked::LockedGame;
use super::mail_events::Actors;
use super::naming::Naming;
use super::shapes::{
    ActionRequest, ComputerPause, ComputerPauseReason, GameListResponse, GameResponse, GameSummary,
    GameTypeResponse, LogEntry, NewGameRequest, PreviewRequest, PreviewResponse, SeatResponse,
    ViewAtResponse,
};
use super::views::SeatAnswer;
pub(crate) use super::writer::{Locked, announce};
use super::{Domain, DomainError, DomainResult};
use crate::engine::{DynGame, LoadedGame, Outcome, Placing, RuleError, Status, Viewer};
use crate::store::models::{ActionRow, GameRow, NewGame, people, people_now};
use crate::store::schema::{game_actions, game_seats, games, outbox};

pub struct ListQuery {
    pub status: Option<GameStatus>,
    /// Every open game anyone may join (the lobby), rather than the caller's games.
    pub lobby: bool,
    pub awaiting_me: bool,
    pub page: i64,
    pub per_page: i64,
    /// Lobby filters: the game type, the number of seats, with or without a
    /// clock, and the creator's rating in the game's type.
    pub game_type: Option<String>,
    pub players: Option<i32>,
    pub clock: Option<bool>,
    pub rating: Option<(i32, i32)>,
}

pub(crate) use super::locked::{seat_infos, seat_of};

pub use super::steps::{BOT_MARK, FORCED_MARK, Step};
pub use crate::store::models::SeatInfo;

/// A seat as the API shows it, with its clock and vacation.
fn seat_response(row: &GameRow, s: &SeatInfo, labels: &[String]) -> SeatResponse {
    let has_clock = row.time_control.is_some();
    SeatResponse {
        seat: s.seat,
        account_id: s.account_id,
        name: s.name.clone(),
        label: usize::try_from(s.seat)
            .ok()
            .and_then(|i| labels.get(i))
            .cloned(),
        clock_ms_left: if has_clock { s.clock_left_ms } else { None },
        clock_running: has_clock && s.clock_since.is_some(),
        on_vacation_until: s.vacation_until,
        bot: s.bot,
    }
}

impl Domain {
    pub fn game_types(&self) -> Vec<GameTypeResponse> {
        self.registry
            .all()
            .map(|g| {
                let info = g.info();
                GameTypeResponse {
                    id: info.id.to_string(),
                    name: info.name.to_string(),
                    min_players: info.min_players,
                    max_players: info.max_players,
                    player_counts: (info.min_players..=info.max_players)
                        .filter(|&n| g.setup(&Value::Null, n, [0; 32]).is_ok())
                        .collect(),
                    options_schema: g.options_schema(),
                    action_schema: g.action_schema(),
                    view_schema: g.view_schema(),
                    rules_url: format!("/api/v1/game-types/{}/rules", info.id),
                    legal_actions_complete: g.legal_actions_complete(),
                    takebacks: g.takebacks(),
                    rules_version: info.rules_version,
                }
            })
            .collect()
    }

    /// One game type, by id.
    pub fn game_type(&self, id: &str) -> DomainResult<GameTypeResponse> {
        self.game_types()
            .into_iter()
            .find(|t| t.id == id)
            .ok_or_else(|| DomainError::not_found(format!("game type {id}")))
    }

    /// The implementation that runs a stored game.
    pub(crate) fn engine_for(&self, row: &GameRow) -> DomainResult<Arc<dyn DynGame>> {
        self.registry
            .get_version(&row.game_type, row.rules_version as u32)
            .cloned()
            .ok_or_else(|| {
                DomainError::conflict(
                    ProblemCode::RulesVersionUnavailable,
                    format!(
                        "game {} runs {} rules version {}, which this server no longer provides",
                        row.id, row.game_type, row.rules_version
                    ),
                )
            })
    }

    pub(crate) fn load(&self, row: &GameRow) -> DomainResult<Option<Box<dyn LoadedGame>>> {
        let engine = self.engine_for(row)?;
        match &row.snapshot {
            None => Ok(None),
            Some(s) => Ok(Some(
                engine
                    .load(s)
                    .map_err(|e| DomainError::Internal(e.into()))?,
            )),
        }
    }

    pub fn create_game(
        &self,
        account: AccountId,
        req: NewGameRequest,
    ) -> DomainResult<GameResponse> {
        let engine = self.registry.get(&req.game_type).cloned().ok_or_else(|| {
            DomainError::invalid(
                ProblemCode::UnknownGameType,
                format!(
                    "no game type {:?}; see GET /api/v1/game-types",
                    req.game_type
                ),
            )
        })?;
        let info = engine.info();
        let players = usize::try_from(req.players).unwrap_or(0);
        if players < info.min_players || players > info.max_players {
            return Err(DomainError::invalid(
                ProblemCode::InvalidPlayerCount,
                format!(
                    "{} takes {} to {} players",
                    info.name, info.min_players, info.max_players
                ),
            ));
        }
        // A count the game cannot seat is a player-count problem whatever the game says;
        // anything else the set-up refuses is about the options.
        let setup_err = |e: crate::engine::SetupError| DomainError::Invalid {
            // The engine's code is its own word (kept as `rule_code`); only this one is ours.
            code: if e.code == ProblemCode::InvalidPlayerCount.as_str() {
                ProblemCode::InvalidPlayerCount
            } else {
                ProblemCode::InvalidOptions
            },
            message: e.message.clone(),
            extra: Some(json!({ "rule_code": e.code })),
        };
        let options = engine
            .normalize_options(&Value::Object(req.options))
            .map_err(setup_err)?;
        let time_control = req.time_control.map(TimeControl::normalized).transpose()?;
        // A game's clock runs out into a forfeit unless it says otherwise.
        let timeout_policy = req.timeout_policy.unwrap_or(TimeoutPolicy::Forfeit);
        let time_control = time_control
            .map(|t| serde_json::to_value(t).map_err(anyhow::Error::from))
            .transpose()?;
        let bots = usize::try_from(req.bots.unwrap_or(0))
            .ok()
            .filter(|&b| b < players)
            .ok_or_else(|| {
                DomainError::invalid(
                    ProblemCode::InvalidBots,
                    format!(
                        "bots is the number of computer players: 0 to {} for {players} seats",
                        players.saturating_sub(1)
                    ),
                )
            })?;
        // Try the set-up now, so options that cannot work with this many players are
        // refused at creation rather than when the last player joins.
        let seed: [u8; 32] = rand::random();
        engine.setup(&options, players, seed).map_err(setup_err)?;
        let creator = self.account(account)?;
        let invitees = super::invitations::parse_invitees(&req.invite, players, &creator.email)?;
        if bots + invitees.len() >= players {
            return Err(DomainError::invalid(
                ProblemCode::InvalidBots,
                format!(
                    "{bots} computer players and {} invitees do not fit {} seats besides yours",
                    invitees.len(),
                    players - 1
                ),
            ));
        }
        let rated = req.rated.unwrap_or(true);
        let requirements = super::lobby::JoinRequirements {
            min_reliability: req.min_reliability,
            min_rating: req.min_rating,
        };
        requirements.check()?;

        let mut conn = self.conn()?;
        let id = conn.transaction::<_, DomainError, _>(|conn| {
            self.check_active_cap(conn, account)?;
            let row: GameRow = diesel::insert_into(games::table)
                .values(NewGame {
                    game_type: info.id,
                    rules_version: info.rules_version as i32,
                    options: &options,
                    players: players as i32,
                    status: GameStatus::Open,
                    seed: &seed,
                    created_by: account,
                    time_control: time_control.as_ref(),
                    timeout_policy,
                    private: req.private,
                    rated,
                })
                .returning(GameRow::as_returning())
                .get_result(conn)?;
            diesel::insert_into(game_seats::table)
                .values((
                    game_seats::game_id.eq(row.id),
                    game_seats::seat.eq(0),
                    game_seats::account_id.eq(account),
                ))
                .execute(conn)?;
            super::lobby::set_requirements(conn, row.id, &requirements)?;
            let computer = bots::bot_accounts(conn, bots)?;
            if !computer.is_empty() {
                let rows: Vec<_> = computer
                    .iter()
                    .zip(1..)
                    .map(|(&a, seat)| {
                        (
                            game_seats::game_id.eq(row.id),
                            game_seats::seat.eq(seat),
                            game_seats::account_id.eq(a),
                            game_seats::bot.eq(true),
                        )
                    })
                    .collect();
                diesel::insert_into(game_seats::table)
                    .values(rows)
                    .execute(conn)?;
            }
            self.invite(conn, &row, &creator, &invitees)?;
            if players == 1 + bots {
                self.start(conn, &row)?;
            }
            Ok(row.id)
        })?;
        self.game_for(&mut conn, Some(account), id)
    }

    pub fn join_game(&self, account: AccountId, id: GameId) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let LockedGame { row, seats } = LockedGame::lock(conn, id)?;
            self.check_visible(conn, &row, &seats, Some(account))?;
            if row.status != GameStatus::Open {
                return Err(DomainError::conflict(
                    ProblemCode::GameNotOpen,
                    "this game has already started",
                ));
            }
            if seat_of(&seats, account).is_some() {
                return Err(DomainError::conflict(
                    ProblemCode::AlreadyJoined,
                    "you already have a seat in this game",
                ));
            }
            // A seat kept for an invitee goes to them alone.
            let invitation = self.seat_for_joiner(conn, &row, &seats, account)?;
            // An invitee was asked by name; the creator's requirements are for strangers.
            if invitation.is_none() {
                super::lobby::check_requirements(conn, id, &row.game_type, account)?;
            }
            self.check_active_cap(conn, account)?;
            let seat = seats.len() as i32;
            diesel::insert_into(game_seats::table)
                .values((
                    game_seats::game_id.eq(id),
                    game_seats::seat.eq(seat),
                    game_seats::account_id.eq(account),
                ))
                .execute(conn)?;
            if let Some(invitation) = invitation {
                super::invitations::mark_accepted(conn, invitation, account)?;
            }
            if seat + 1 == row.players {
                self.start(conn, &row)?;
            }
            Ok(())
        })?;
        self.game_for(&mut conn, Some(account), id)
    }

    /// The last seat is taken: seeded set-up, first notifications.
    pub(crate) fn start(&self, conn: &mut PgConnection, row: &GameRow) -> DomainResult<()> {
        let engine = self.engine_for(row)?;
        let seed: [u8; 32] = row.seed.as_slice().try_into().map_err(|_| {
            DomainError::Internal(anyhow::anyhow!("game {} has a malformed seed", row.id))
        })?;
        let state = engine
            .setup(&row.options, row.players as usize, seed)
            .map_err(|e| DomainError::Internal(anyhow::anyhow!("set-up failed at start: {e}")))?;
        // Written like any move from version 0, so that forced first steps play themselves.
        let seats = seat_infos(conn, row.id)?;
        let at_start = GameRow {
            version: 0,
            ..row.clone()
        };
        self.persist(conn, &at_start, &seats, &[], Vec::new(), state)?;
        Ok(())
    }

    pub fn leave_game(&self, account: AccountId, id: GameId) -> DomainResult<()> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let LockedGame { row, seats } = LockedGame::lock(conn, id)?;
            self.check_visible(conn, &row, &seats, Some(account))?;
            if row.status != GameStatus::Open {
                return Err(DomainError::conflict(
                    ProblemCode::GameNotOpen,
                    "you can only leave a game before it starts",
                ));
            }
            let Some(seat) = seat_of(&seats, account) else {
                return Err(DomainError::forbidden(
                    ProblemCode::NotAPlayer,
                    "you have no seat in this game",
                ));
            };
            diesel::delete(
                game_seats::table.filter(game_seats::game_id.eq(id).and(game_seats::seat.eq(seat))),
            )
            .execute(conn)?;
            if seats.iter().all(|s| s.seat == seat || s.bot) {
                // Nobody is left but the computer: the game was never played, so it goes
                // away, and so do its emails not yet sent (invitations to it). Those sent
                // stay on record without the game.
                diesel::delete(
                    outbox::table.filter(
                        outbox::game_id
                            .eq(id)
                            .and(outbox::sent_at.is_null())
                            .and(outbox::failed_at.is_null()),
                    ),
                )
                .execute(conn)?;
                diesel::delete(games::table.find(id)).execute(conn)?;
            } else {
                // Keep seats numbered 0..n in joining order.
                for s in seats.iter().filter(|s| s.seat > seat) {
                    diesel::update(
                        game_seats::table
                            .filter(game_seats::game_id.eq(id).and(game_seats::seat.eq(s.seat))),
                    )
                    .set(game_seats::seat.eq(s.seat - 1))
                    .execute(conn)?;
                }
            }
            Ok(())
        })
    }

    /// The game as `viewer` sees it: a seat's view, or a spectator's (no account, or one
    /// without a seat) of a game that is not private.
    pub fn get_game(
        &self,
        viewer: impl Into<Option<AccountId>>,
        id: GameId,
    ) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        self.game_for(&mut conn, viewer.into(), id)
    }

    pub(super) fn game_for(
        &self,
        conn: &mut PgConnection,
        account: Option<AccountId>,
        id: GameId,
    ) -> DomainResult<GameResponse> {
        // An unchanged game is read as one number, and answered from what was worked out
        // for this version before.
        let kept = self.game_cache.current(conn, id, Utc::now())?;
        let (row, seats) = (&kept.game.row, &kept.game.seats);
        self.check_visible(conn, row, seats, account)?;
        let your_seat = account.and_then(|a| seat_of(seats, a));
        if let Some(answer) = self.views.get(row, your_seat) {
            return Ok(self.respond_with(row, seats, your_seat, &answer));
        }
        let state = kept.state(|game| self.load(&game.row))?;
        Ok(self.respond(row, seats, account, state.as_deref()))
    }

    fn respond(
        &self,
        row: &GameRow,
        seats: &[SeatInfo],
        account: Option<AccountId>,
        state: Option<&dyn LoadedGame>,
    ) -> GameResponse {
        let your_seat = account.and_then(|a| seat_of(seats, a));
        let answer = self.views.compute(row, your_seat, state);
        self.respond_with(row, seats, your_seat, &answer)
    }

    /// The answer to a request about a game, given the seat's view and choices.
    fn respond_with(
        &self,
        row: &GameRow,
        seats: &[SeatInfo],
        your_seat: Option<i32>,
        answer: &SeatAnswer,
    ) -> GameResponse {
        let naming = Naming::new(seats, &answer.seat_labels, your_seat);
        GameResponse {
            id: row.id,
            game_type: row.game_type.clone(),
            rules_version: row.rules_version,
            status: row.status,
            version: row.version,
            players: row.players,
            options: row.options.clone(),
            seats: seats
                .iter()
                .map(|s| seat_response(row, s, &answer.seat_labels))
                .collect(),
            time_control: clocks::time_control(row),
            timeout_policy: row.timeout_policy,
            forfeited: row.forfeited.clone(),
            to_act: row.to_act.clone(),
            deciding: row.deciding.clone(),
            private: row.private,
            your_seat,
            view: answer.view.clone(),
            legal_actions: answer.legal_actions.clone(),
            legal_action_texts: naming.choices(&answer.legal_action_texts, your_seat),
            legal_action_targets: answer.legal_action_targets.clone(),
            result: naming.result(row.result.as_ref()),
            rematch: row.rematch_id,
            rated: row.rated,
            takeback: super::takeback::response(row, seats),
            computer_paused: row
                .computer_paused_until
                .filter(|until| row.status == GameStatus::Active && *until > self.clock.now())
                .map(|until| ComputerPause {
                    reason: ComputerPauseReason::DailyAllowance,
                    until,
                }),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }

    /// Applies one action: check the version, apply, append to the log, store the new
    /// snapshot, enqueue notifications. All in one transaction on the locked game row.
    pub fn submit_action(
        &self,
        account: AccountId,
        id: GameId,
        req: ActionRequest,
    ) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        if let Some(answer) = self.submit_unlocked(&mut conn, account, id, &req)? {
            return Ok(answer);
        }
        // The locked path reads the game afresh; whatever it writes, this server's copy is
        // stale after it (and may have been what sent the move here).
        self.game_cache.forget(id);
        self.retrying(&mut conn, |conn| {
            let mut game = LockedGame::lock(conn, id)?;
            let seat = self.seat_or_hidden(conn, &game, account)?;
            let (row, seats) = (&game.row, &game.seats);
            if row.status != GameStatus::Active {
                return Err(DomainError::Conflict {
                    code: ProblemCode::GameNotActive,
                    message: format!("the game is {}", row.status),
                    extra: Some(json!({ "game_status": row.status })),
                });
            }
            let state = self.load(row)?.ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!("active game {id} has no snapshot"))
            })?;
            // The HTTP layer fills it from If-Match, or refuses the request without one.
            let expected = req.expected_version.unwrap_or(-1);
            if expected != row.version
                && !self.seat_unchanged_since(conn, row, seat, expected, state.as_ref())?
            {
                return Err(DomainError::Conflict {
                    code: ProblemCode::StaleVersion,
                    message: format!(
                        "the game is at version {}, not {expected}, and your position changed since; \
                         reload it and choose again",
                        row.version
                    ),
                    extra: Some(json!({ "current_version": row.version })),
                });
            }
            let before_actors = state.actors(row.players as usize);
            let applied = state
                .apply(seat as usize, &req.action)
                .map_err(rule_error)?;
            let (step, state) = Step::from_applied(seat, applied);
            let (state, row) = self.persist(conn, row, seats, &before_actors, vec![step], state)?;
            // The answer is built from what is in memory; only clocks, changed by the move in
            // the database, need reading again.
            let clocks_changed = row.time_control.is_some();
            game.row = row;
            if clocks_changed {
                game.reload_seats(conn)?;
            }
            Ok(self.respond(
                &game.row,
                &game.seats,
                Some(account),
                Some(state.as_ref()),
            ))
        })
    }

    /// The usual move, in one or two statements and no transaction: the game as this
    /// server last read or wrote it, or else read without a lock, then
    /// [`Domain::write_change`], which writes only if the game is still at the revision
    /// worked from (atomic, as any single statement); then its announcement, after the
    /// commit (see [`announce`]). `None` leaves the move to the
    /// locked path: a move on another version, or anything else than a plain move on a
    /// game without clocks, forfeits or computer players (those write more than one
    /// statement, or depend on seats the game row lock keeps still), a move that ends the
    /// game (its ratings are written under the lock), a refused action (the locked path
    /// gives the error), or a game that changed between the read and the write.
    fn submit_unlocked(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
        id: GameId,
        req: &ActionRequest,
    ) -> DomainResult<Option<GameResponse>> {
        let now = Utc::now();
        let kept = match self.game_cache.get(id, now) {
            Some(kept) => kept,
            None => {
                let kept = LockedGame::read_revision(conn, id, now)?;
                self.game_cache.keep(id, kept.clone());
                kept
            }
        };
        let game = &kept.game;
        let (row, seats) = (&game.row, &game.seats);
        let Some(seat) = game.seat_of(account) else {
            return Ok(None);
        };
        let plain = row.status == GameStatus::Active
            && req.expected_version == Some(row.version)
            && row.time_control.is_none()
            && row.forfeited.is_empty()
            && !seats.iter().any(|s| s.bot);
        if !plain {
            return Ok(None);
        }
        let Some(state) = kept.state(|game| self.load(&game.row))? else {
            return Ok(None);
        };
        let before_actors = state.actors(row.players as usize);
        let Ok(applied) = state.apply(seat as usize, &req.action) else {
            return Ok(None);
        };
        let (step, state) = Step::from_applied(seat, applied);
        let played = self.play_out(conn, row, seats, vec![step], state, Budget::request())?;
        if played.state.status().is_finished() || played.pending {
            return Ok(None);
        }
        let written = self.write_change(
            conn,
            row,
            seats,
            &before_actors,
            played,
            self.clock.now(),
            Locked::No {
                revision: kept.revision,
            },
        )?;
        let Some((state, written)) = written else {
            return Ok(None);
        };
        announce(&self.announcer, conn, &written, seats);
        let answer = self.respond(&written, seats, Some(account), Some(state.as_ref()));
        // The write was the game's one change (it checked the revision and bumped it by
        // one, atomically), so the copy is current again, and so is the state just written.
        self.game_cache.keep(
            id,
            Kept::with_state(
                kept.revision + 1,
                LockedGame {
                    row: written,
                    seats: seats.clone(),
                },
                kept.settled_until,
                Arc::from(state),
            ),
        );
        Ok(Some(answer))
    }

    /// `seat` gives up (resignation or a timeout under `forfeit`): it ranks last. With one
    /// other player left the game ends; with more, a bot plays the seat's moves from now on.
    /// Must run in the transaction that locked the game row.
    pub(crate) fn forfeit_locked(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        seat: i32,
        why: GaveUp,
        now: DateTime<Utc>,
    ) -> DomainResult<()> {
        if row.status != GameStatus::Active {
            return Err(DomainError::conflict(
                ProblemCode::GameNotActive,
                format!("the game is {}", row.status),
            ));
        }
        if row.forfeited.contains(&seat) {
            return Err(DomainError::conflict(
                ProblemCode::AlreadyForfeited,
                "this seat has already given up",
            ));
        }
        let mut forfeited = row.forfeited.clone();
        forfeited.push(seat);
        let staying: Vec<&SeatInfo> = seats
            .iter()
            .filter(|s| !forfeited.contains(&s.seat))
            .collect();
        let state = self.load(row)?.ok_or_else(|| {
            DomainError::Internal(anyhow::anyhow!("active game {} has no snapshot", row.id))
        })?;
        let row = GameRow {
            forfeited: forfeited.clone(),
            ..row.clone()
        };
        diesel::update(games::table.find(row.id))
            .set(games::forfeited.eq(&forfeited))
            .execute(conn)?;
        if staying.len() <= 1 {
            // In the game's own words: the names are put in when the result is read, so
            // that they are always the players' names as they are now.
            let names: Vec<String> = staying
                .iter()
                .map(|s| state.seat_name(s.seat as usize))
                .collect();
            let why = match why {
                GaveUp::Resigned => format!("{} resigned", state.seat_name(seat as usize)),
                GaveUp::RanOutOfTime => {
                    format!("{} ran out of time", state.seat_name(seat as usize))
                }
            };
            let mut ranking: Vec<Placing> = staying
                .iter()
                .map(|s| Placing {
                    seat: s.seat as usize,
                    rank: 1,
                    score: None,
                })
                .collect();
            ranking.extend(forfeited.iter().map(|&s| Placing {
                seat: s as usize,
                rank: 2,
                score: None,
            }));
            let outcome = Outcome {
                ranking,
                teams: Vec::new(),
                summary: format!("{why}; {} wins", names.join(", ")),
            };
            diesel::update(games::table.find(row.id))
                .set((
                    games::status.eq(GameStatus::Finished),
                    games::to_act.eq(Vec::<i32>::new()),
                    games::deciding.eq(Vec::<i32>::new()),
                    games::result.eq(Some(
                        serde_json::to_value(&outcome).map_err(anyhow::Error::from)?,
                    )),
                    games::updated_at.eq(diesel::dsl::now),
                ))
                .execute(conn)?;
            clocks::sync_clocks(conn, &row, &forfeited, &[], &[], true, now)?;
            self.owe_for_transition(
                conn,
                &row,
                row.version,
                Actors::default(),
                &Status::Finished(outcome),
                seats,
                &[],
            )?;
        } else {
            // The bot takes over at once if the seat must act now.
            let before_actors = state.actors(row.players as usize);
            self.persist_at(conn, &row, seats, &before_actors, Vec::new(), state, now)?;
        }
        Ok(())
    }

    /// The caller gives up the game (see [`Domain::forfeit_locked`]).
    pub fn resign(&self, account: AccountId, id: GameId) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            let seat = self.seat_or_hidden(conn, &game, account)?;
            let LockedGame { row, seats } = game;
            self.forfeit_locked(conn, &row, &seats, seat, GaveUp::Resigned, self.clock.now())
        })?;
        self.game_for(&mut conn, Some(account), id)
    }

    /// Reminds the players the game waits for, by email: only when it is someone else's
    /// move, and once per 24 hours per game.
    pub fn nudge(&self, account: AccountId, id: GameId) -> DomainResult<()> {
        let now = self.clock.now();
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            let seat = self.seat_or_hidden(conn, &game, account)?;
            let LockedGame { row, seats } = game;
            if row.status != GameStatus::Active {
                return Err(DomainError::conflict(
                    ProblemCode::GameNotActive,
                    format!("the game is {}", row.status),
                ));
            }
            let waiting: Vec<&SeatInfo> = seats
                .iter()
                .filter(|s| {
                    row.to_act.contains(&s.seat)
                        && s.seat != seat
                        && !row.forfeited.contains(&s.seat)
                })
                .collect();
            if row.to_act.contains(&seat) || waiting.is_empty() {
                return Err(DomainError::conflict(
                    ProblemCode::YourMove,
                    "the game is waiting for you, not for someone else",
                ));
            }
            if let Some(last) = row.last_nudge_at {
                let next = last + chrono::Duration::hours(24);
                if now < next {
                    return Err(DomainError::Conflict {
                        code: ProblemCode::NudgeTooSoon,
                        message: format!(
                            "this game was nudged less than 24 hours ago; next nudge after {next}"
                        ),
                        extra: Some(json!({ "next_nudge_at": next })),
                    });
                }
            }
            let from = seats
                .iter()
                .find(|s| s.seat == seat)
                .map_or("", |s| s.name.as_str());
            self.owe_nudges(conn, &row, &waiting, from, now)?;
            diesel::update(games::table.find(id))
                .set(games::last_nudge_at.eq(Some(now)))
                .execute(conn)?;
            Ok(())
        })
    }

    pub fn list_games(&self, account: AccountId, q: ListQuery) -> DomainResult<GameListResponse> {
        let mut conn = self.conn()?;
        let mine = game_seats::table
            .filter(game_seats::account_id.eq(account))
            .select(game_seats::game_id);
        let mut query = games::table.into_boxed();
        let mut count = games::table.into_boxed();
        match (q.lobby, q.status) {
            // The lobby: every game one can still join. Other filters narrow it like any
            // list (a lobby game is never `active` nor awaiting anyone's move).
            (true, s) => {
                query = query
                    .filter(games::status.eq(GameStatus::Open))
                    .filter(super::invitations::in_lobby());
                count = count
                    .filter(games::status.eq(GameStatus::Open))
                    .filter(super::invitations::in_lobby());
                if let Some(s) = s {
                    query = query.filter(games::status.eq(s.as_str()));
                    count = count.filter(games::status.eq(s.as_str()));
                }
            }
            (false, Some(s)) => {
                query = query
                    .filter(games::status.eq(s.as_str()))
                    .filter(games::id.eq_any(mine));
                count = count
                    .filter(games::status.eq(s.as_str()))
                    .filter(games::id.eq_any(mine));
            }
            (false, None) => {
                query = query.filter(games::id.eq_any(mine));
                count = count.filter(games::id.eq_any(mine));
            }
        }
        if q.awaiting_me {
            // The caller's seat has something to decide (its turn, or an offer to answer).
            let awaiting = || {
                diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "games.status = 'active' AND EXISTS (SELECT 1 FROM game_seats s \
                     WHERE s.game_id = games.id AND s.seat = ANY(games.deciding) AND s.account_id = ",
                )
                .bind::<diesel::sql_types::BigInt, _>(account)
                .sql(")")
            };
            query = query.filter(awaiting());
            count = count.filter(awaiting());
        }
        if let Some(t) = &q.game_type {
            query = query.filter(games::game_type.eq(t.clone()));
            count = count.filter(games::game_type.eq(t.clone()));
        }
        if let Some(n) = q.players {
            query = query.filter(games::players.eq(n));
            count = count.filter(games::players.eq(n));
        }
        match q.clock {
            Some(true) => {
                query = query.filter(games::time_control.is_not_null());
                count = count.filter(games::time_control.is_not_null());
            }
            Some(false) => {
                query = query.filter(games::time_control.is_null());
                count = count.filter(games::time_control.is_null());
            }
            None => {}
        }
        if let Some((lo, hi)) = q.rating {
            // The creator's rating in the game's type (the starting 1500 when unrated).
            let between = || {
                diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "COALESCE((SELECT r.rating FROM ratings r WHERE r.account_id = games.created_by \
                     AND r.game_type = games.game_type), 1500) BETWEEN ",
                )
                .bind::<diesel::sql_types::Integer, _>(lo)
                .sql(" AND ")
                .bind::<diesel::sql_types::Integer, _>(hi)
            };
            query = query.filter(between());
            count = count.filter(between());
        }
        let total: i64 = count.count().get_result(&mut conn)?;
        let rows: Vec<GameRow> = query
            .order((games::updated_at.desc(), games::id.desc()))
            .limit(q.per_page)
            .offset((q.page - 1) * q.per_page)
            .select(GameRow::as_select())
            .load(&mut conn)?;
        let mut items = Vec::with_capacity(rows.len());
        for row in rows {
            let seats = seat_infos(&mut conn, row.id)?;
            let your_seat = seat_of(&seats, account);
            let seat_list = seats.iter().map(|s| seat_response(&row, s, &[])).collect();
            let creator_reliability = super::lobby::reliability(&mut conn, row.created_by)?.share;
            let requirements = super::lobby::requirements(&mut conn, row.id)?;
            items.push(GameSummary {
                clock: row.time_control.is_some(),
                creator_reliability,
                requirements,
                id: row.id,
                game_type: row.game_type,
                status: row.status,
                version: row.version,
                players: row.players,
                awaiting_you: row.status == GameStatus::Active
                    && your_seat.is_some_and(|s| row.deciding.contains(&s)),
                winners: winners(row.result.as_ref()),
                seats: seat_list,
                deciding: row.deciding,
                to_act: row.to_act,
                your_seat,
                updated_at: row.updated_at,
            });
        }
        let your_active_games = super::lobby::active_games(&mut conn, account)?;
        Ok(GameListResponse {
            your_active_games,
            max_active_games: self.max_active_games_per_account,
            items,
            page: q.page,
            per_page: q.per_page,
            total,
            next: None,
        })
    }

    /// What the game calls each seat of game `id` ("Seat 2", "Red"), from its current state.
    fn seat_labels(&self, conn: &mut PgConnection, id: GameId) -> DomainResult<Vec<String>> {
        let kept = self.game_cache.current(conn, id, Utc::now())?;
        let players = kept.game.row.players;
        let state = kept.state(|game| self.load(&game.row))?;
        Ok(state.map_or_else(Vec::new, |st| labels_of(st.as_ref(), players)))
    }

    /// The log as `viewer` may see it (entries hidden from it in their public form).
    pub fn game_log(
        &self,
        viewer: impl Into<Option<AccountId>>,
        id: GameId,
        after: i64,
        limit: i64,
    ) -> DomainResult<Vec<LogEntry>> {
        let account = viewer.into();
        let mut conn = self.conn()?;
        let LockedGame { row, seats } = LockedGame::read(&mut conn, id)?;
        self.check_visible(&mut conn, &row, &seats, account)?;
        let me = account.and_then(|a| seat_of(&seats, a));
        let naming = Naming::new(&seats, &self.seat_labels(&mut conn, id)?, me);
        let rows: Vec<ActionRow> = game_actions::table
            .filter(
                game_actions::game_id
                    .eq(id)
                    .and(game_actions::seq.gt(after)),
            )
            .order(game_actions::seq.asc())
            .limit(limit)
            .select(ActionRow::as_select())
            .load(&mut conn)?;
        // Which entries takebacks undid: an entry is undone by the first takeback after it
        // that returns to a version before it (an undone entry never counts again).
        let takebacks: Vec<(i64, Option<i64>)> = game_actions::table
            .filter(
                game_actions::game_id
                    .eq(id)
                    .and(game_actions::takeback_to.is_not_null()),
            )
            .order(game_actions::seq.asc())
            .select((game_actions::seq, game_actions::takeback_to))
            .load(&mut conn)?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let undone_by = takebacks
                    .iter()
                    .find(|&&(t, to)| t > r.seq && to.is_some_and(|to| to < r.seq))
                    .map(|&(t, _)| t);
                let entry = redact(r, me, &row.game_type);
                LogEntry {
                    undone_by,
                    text: entry
                        .text
                        .as_deref()
                        .map(|t| naming.action(t, Some(entry.seat))),
                    ..entry
                }
            })
            .collect())
    }

    /// The caller's view as it was at `version`, rebuilt from the seed and the log.
    pub fn view_at(
        &self,
        viewer: impl Into<Option<AccountId>>,
        id: GameId,
        version: i64,
    ) -> DomainResult<ViewAtResponse> {
        let account = viewer.into();
        let mut conn = self.conn()?;
        let LockedGame { row, seats } = LockedGame::read(&mut conn, id)?;
        self.check_visible(&mut conn, &row, &seats, account)?;
        if row.status == GameStatus::Open {
            return Err(DomainError::conflict(
                ProblemCode::GameNotActive,
                "the game has not started",
            ));
        }
        if version < 0 || version > row.version {
            return Err(DomainError::not_found(format!(
                "version {version} of game {id}"
            )));
        }
        let me = account.and_then(|a| seat_of(&seats, a));
        let actions: Vec<ActionRow> = game_actions::table
            .filter(
                game_actions::game_id
                    .eq(id)
                    .and(game_actions::seq.le(version)),
            )
            .order(game_actions::seq.asc())
            .select(ActionRow::as_select())
            .load(&mut conn)?;
        let state = self.replay(&row, &actions).map_err(DomainError::Internal)?;
        let viewer = me.map_or(Viewer::Spectator, |s| Viewer::Seat(s as usize));
        Ok(ViewAtResponse {
            id,
            game_type: row.game_type.clone(),
            version,
            your_seat: me,
            view: state.view(viewer),
        })
    }

    /// What `req.action` would do for the caller's seat, without playing it: the action is
    /// applied to a copy whose hidden parts are drawn afresh, so the preview foretells
    /// nothing the seat cannot know. Refused exactly as a real submission would be.
    pub fn preview_action(
        &self,
        account: AccountId,
        id: GameId,
        req: PreviewRequest,
    ) -> DomainResult<PreviewResponse> {
        let mut conn = self.conn()?;
        let game = LockedGame::read(&mut conn, id)?;
        let seat = self.seat_or_hidden(&mut conn, &game, account)?;
        let LockedGame { row, seats } = game;
        if row.status != GameStatus::Active {
            return Err(DomainError::conflict(
                ProblemCode::GameNotActive,
                format!("the game is {}", row.status),
            ));
        }
        let state = self.load(&row)?.ok_or_else(|| {
            DomainError::Internal(anyhow::anyhow!("active game {id} has no snapshot"))
        })?;
        let me = seat as usize;
        let copy = state.resample_hidden(Viewer::Seat(me), rand::random());
        let applied = copy.apply(me, &req.action).map_err(rule_error)?;
        let status = applied.state.status();
        Ok(PreviewResponse {
            game_type: row.game_type.clone(),
            description: Naming::new(&seats, &labels_of(state.as_ref(), row.players), Some(seat))
                .action(&applied.chosen, Some(seat)),
            view: applied.state.view(Viewer::Seat(me)),
            board_svg: applied.state.board_svg(&people(&seats, Viewer::Seat(me))),
            to_act: status.to_act().iter().map(|&s| s as i32).collect(),
            finishes_game: status.is_finished(),
        })
    }

    /// The caller's board picture (SVG), now or at `version`, with the version drawn.
    pub fn board_svg(
        &self,
        viewer: impl Into<Option<AccountId>>,
        id: GameId,
        version: Option<i64>,
    ) -> DomainResult<(i64, String)> {
        let account = viewer.into();
        let mut conn = self.conn()?;
        let LockedGame { row, seats } = LockedGame::read(&mut conn, id)?;
        self.check_visible(&mut conn, &row, &seats, account)?;
        if row.status == GameStatus::Open {
            return Err(DomainError::conflict(
                ProblemCode::GameNotActive,
                "the game has not started: there is no board yet",
            ));
        }
        let me = account.and_then(|a| seat_of(&seats, a));
        let viewer = me.map_or(Viewer::Spectator, |s| Viewer::Seat(s as usize));
        let at = version.unwrap_or(row.version);
        if at < 0 || at > row.version {
            return Err(DomainError::not_found(format!("version {at} of game {id}")));
        }
        let state = if at == row.version {
            self.load(&row)?.ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!("game {id} has no snapshot"))
            })?
        } else {
            let actions: Vec<ActionRow> = game_actions::table
                .filter(game_actions::game_id.eq(id).and(game_actions::seq.le(at)))
                .order(game_actions::seq.asc())
                .select(ActionRow::as_select())
                .load(&mut conn)?;
            self.replay(&row, &actions).map_err(DomainError::Internal)?
        };
        let table = if at == row.version {
            people_now(&row, &seats, viewer, state.as_ref())
        } else {
            people(&seats, viewer)
        };
        Ok((at, state.board_svg(&table)))
    }

    /// Whether `seat` sees the game now as it did at version `seen` (its view and legal
    /// actions: the game's decision basis): then an action chosen at `seen` means what it meant, though
    /// others moved since (simultaneous steps, offers between other seats). Looks back at
    /// most [`MAX_LOOKBACK`] versions.
    pub(crate) fn seat_unchanged_since(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seat: i32,
        seen: i64,
        now: &dyn LoadedGame,
    ) -> DomainResult<bool> {
        if seen < 0 || seen >= row.version || row.version - seen > MAX_LOOKBACK {
            return Ok(false);
        }
        let actions: Vec<ActionRow> = game_actions::table
            .filter(
                game_actions::game_id
                    .eq(row.id)
                    .and(game_actions::seq.le(seen)),
            )
            .order(game_actions::seq.asc())
            .select(ActionRow::as_select())
            .load(conn)?;
        let then = self.replay(row, &actions).map_err(DomainError::Internal)?;
        let me = seat as usize;
        Ok(then.decision_basis(me) == now.decision_basis(me))
    }

    /// Rebuilds a game's state from its seed and `actions` (in order; takebacks resolved,
    /// see [`super::replay`]).
    pub fn replay(
        &self,
        row: &GameRow,
        actions: &[ActionRow],
    ) -> anyhow::Result<Box<dyn LoadedGame>> {
        let engine = self
            .registry
            .get_version(&row.game_type, row.rules_version as u32)
            .ok_or_else(|| {
                anyhow::anyhow!("no engine for {} v{}", row.game_type, row.rules_version)
            })?;
        super::replay::fold(engine.as_ref(), row, actions).map_err(|e| anyhow::anyhow!(e))
    }
}

/// The seats a stored result ranks first.
fn winners(result: Option<&Value>) -> Vec<i32> {
    let ranking = result
        .and_then(|r| serde_json::from_value::<Outcome>(r.clone()).ok())
        .map(|o| o.winners())
        .unwrap_or_default();
    ranking.into_iter().map(|s| s as i32).collect()
}

/// Why a seat gives up the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GaveUp {
    Resigned,
    RanOutOfTime,
}

/// What the game calls each of its `players` seats.
fn labels_of(state: &dyn LoadedGame, players: i32) -> Vec<String> {
    (0..players.max(0) as usize)
        .map(|s| state.seat_name(s))
        .collect()
}

/// How many versions back a seat's unchanged position is looked for before an action
/// chosen there counts as stale.
pub const MAX_LOOKBACK: i64 = 64;

/// What `me` may see of a log entry.
fn redact(r: ActionRow, me: Option<i32>, game_type: &str) -> LogEntry {
    let visible = r.public_action.is_none() || me.is_some_and(|s| r.seen_by.contains(&s));
    let at: DateTime<Utc> = r.created_at;
    if visible {
        LogEntry {
            game_type: game_type.to_string(),
            seq: r.seq,
            seat: r.seat,
            action: r.action,
            text: Some(r.description),
            at,
            takeback_to: r.takeback_to,
            undone_by: None,
        }
    } else {
        LogEntry {
            game_type: game_type.to_string(),
            seq: r.seq,
            seat: r.seat,
            action: redacted_form(r.public_action),
            text: None,
            at,
            takeback_to: r.takeback_to,
            undone_by: None,
        }
    }
}

/// A secret action's public form as the log serves it, marked `"redacted": true`: its
/// `type` may be that of an action of the game (Partners' `exchange`), and the mark tells a
/// client (and a generated client's parser) which one it holds (see `<Game>RedactedAction`
/// in openapi.yaml). The stored form stays as the game wrote it.
fn redacted_form(public: Option<Value>) -> Value {
    match public {
        Some(Value::Object(mut form)) => {
            form.insert("redacted".into(), Value::Bool(true));
            Value::Object(form)
        }
        other => other.unwrap_or(Value::Null),
    }
}

pub(crate) fn rule_error(e: RuleError) -> DomainError {
    match e.code.as_ref() {
        RuleError::NOT_YOUR_TURN => DomainError::Conflict {
            code: ProblemCode::NotYourTurn,
            message: e.message,
            extra: None,
        },
        RuleError::MALFORMED => DomainError::Invalid {
            code: ProblemCode::MalformedAction,
            message: e.message,
            extra: None,
        },
        RuleError::GAME_OVER => DomainError::conflict(ProblemCode::GameNotActive, e.message),
        // Legal or not depends on the position: a conflict with the game's current state.
        _ => DomainError::Conflict {
            code: ProblemCode::IllegalAction,
            message: e.message,
            extra: Some(json!({ "rule_code": e.code })),
        },
    }
}
