//! Games: create, join, leave, list, read, act, log, history. Every change is one
//! transaction that locks the game row, so concurrent requests serialise per game.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::{Value, json};

use super::shapes::{
    ActionRequest, GameListResponse, GameResponse, GameSummary, GameTypeResponse, LogEntry, NewGameRequest,
    SeatResponse, ViewAtResponse,
};
use super::{Domain, DomainError, DomainResult};
use crate::engine::{DynGame, LoadedGame, RuleError, Seat, Status, Viewer, Visibility};
use crate::notify::compose;
use crate::store::models::{ActionRow, GameRow, NewAction, NewGame, NewOutbox};
use crate::store::schema::{accounts, game_actions, game_seats, games, outbox};

/// Which games a list request wants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListStatus {
    Open,
    Active,
    Finished,
}

impl ListStatus {
    pub fn parse(s: &str) -> DomainResult<ListStatus> {
        match s {
            "open" => Ok(ListStatus::Open),
            "active" => Ok(ListStatus::Active),
            "finished" => Ok(ListStatus::Finished),
            other => Err(DomainError::invalid(
                "invalid_query",
                format!("status must be open, active or finished, not {other:?}"),
            )),
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            ListStatus::Open => "open",
            ListStatus::Active => "active",
            ListStatus::Finished => "finished",
        }
    }
}

pub struct ListQuery {
    pub status: Option<ListStatus>,
    pub awaiting_me: bool,
    pub page: i64,
    pub per_page: i64,
}

/// A seat with its player's details, as the domain needs them.
#[derive(Clone, Debug)]
pub struct SeatInfo {
    pub seat: i32,
    pub account_id: i64,
    pub name: String,
    pub email: String,
    pub email_notifications: bool,
}

fn seat_infos(conn: &mut PgConnection, game_id: i64) -> QueryResult<Vec<SeatInfo>> {
    let rows: Vec<(i32, i64, String, String, bool)> = game_seats::table
        .inner_join(accounts::table)
        .filter(game_seats::game_id.eq(game_id))
        .order(game_seats::seat.asc())
        .select((
            game_seats::seat,
            game_seats::account_id,
            accounts::name,
            accounts::email,
            accounts::email_notifications,
        ))
        .load(conn)?;
    Ok(rows
        .into_iter()
        .map(|(seat, account_id, name, email, email_notifications)| SeatInfo {
            seat,
            account_id,
            name,
            email,
            email_notifications,
        })
        .collect())
}

fn seat_of(seats: &[SeatInfo], account: i64) -> Option<i32> {
    seats.iter().find(|s| s.account_id == account).map(|s| s.seat)
}

fn lock_game(conn: &mut PgConnection, id: i64) -> DomainResult<GameRow> {
    games::table
        .find(id)
        .select(GameRow::as_select())
        .for_update()
        .first(conn)
        .optional()?
        .ok_or_else(|| DomainError::not_found(format!("game {id}")))
}

fn read_game(conn: &mut PgConnection, id: i64) -> DomainResult<GameRow> {
    games::table
        .find(id)
        .select(GameRow::as_select())
        .first(conn)
        .optional()?
        .ok_or_else(|| DomainError::not_found(format!("game {id}")))
}

fn to_i32s(seats: &[Seat]) -> Vec<i32> {
    seats.iter().map(|&s| s as i32).collect()
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
                    options_schema: g.options_schema(),
                    action_schema: g.action_schema(),
                    legal_actions_complete: g.legal_actions_complete(),
                    rules_version: info.rules_version,
                }
            })
            .collect()
    }

    /// The implementation that runs a stored game.
    fn engine_for(&self, row: &GameRow) -> DomainResult<Arc<dyn DynGame>> {
        self.registry
            .get_version(&row.game_type, row.rules_version as u32)
            .cloned()
            .ok_or_else(|| {
                DomainError::conflict(
                    "rules_version_unavailable",
                    format!(
                        "game {} runs {} rules version {}, which this server no longer provides",
                        row.id, row.game_type, row.rules_version
                    ),
                )
            })
    }

    fn load(&self, row: &GameRow) -> DomainResult<Option<Box<dyn LoadedGame>>> {
        let engine = self.engine_for(row)?;
        match &row.snapshot {
            None => Ok(None),
            Some(s) => Ok(Some(engine.load(s).map_err(|e| DomainError::Internal(e.into()))?)),
        }
    }

    pub fn create_game(&self, account: i64, req: NewGameRequest) -> DomainResult<GameResponse> {
        let engine = self.registry.get(&req.game_type).cloned().ok_or_else(|| {
            DomainError::invalid(
                "unknown_game_type",
                format!("no game type {:?}; see GET /api/v1/game-types", req.game_type),
            )
        })?;
        let info = engine.info();
        let players = usize::try_from(req.players).unwrap_or(0);
        if players < info.min_players || players > info.max_players {
            return Err(DomainError::invalid(
                "invalid_player_count",
                format!("{} takes {} to {} players", info.name, info.min_players, info.max_players),
            ));
        }
        let setup_err = |e: crate::engine::SetupError| DomainError::Invalid {
            code: "invalid_options",
            message: e.message.clone(),
            extra: Some(json!({ "rule_code": e.code })),
        };
        let options = engine.normalize_options(&req.options).map_err(setup_err)?;
        // Try the set-up now, so options that cannot work with this many players are
        // refused at creation rather than when the last player joins.
        let seed: [u8; 32] = rand::random();
        engine.setup(&options, players, seed).map_err(setup_err)?;

        let mut conn = self.conn()?;
        let id = conn.transaction::<_, DomainError, _>(|conn| {
            let row: GameRow = diesel::insert_into(games::table)
                .values(NewGame {
                    game_type: info.id,
                    rules_version: info.rules_version as i32,
                    options: &options,
                    players: players as i32,
                    status: "open",
                    seed: &seed,
                    created_by: account,
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
            if players == 1 {
                self.start(conn, &row)?;
            }
            Ok(row.id)
        })?;
        self.game_for(&mut conn, account, id)
    }

    pub fn join_game(&self, account: i64, id: i64) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let row = lock_game(conn, id)?;
            if row.status != "open" {
                return Err(DomainError::conflict("game_not_open", "this game has already started"));
            }
            let seats = seat_infos(conn, id)?;
            if seat_of(&seats, account).is_some() {
                return Err(DomainError::conflict("already_joined", "you already have a seat in this game"));
            }
            let seat = seats.len() as i32;
            diesel::insert_into(game_seats::table)
                .values((
                    game_seats::game_id.eq(id),
                    game_seats::seat.eq(seat),
                    game_seats::account_id.eq(account),
                ))
                .execute(conn)?;
            if seat + 1 == row.players {
                self.start(conn, &row)?;
            }
            Ok(())
        })?;
        self.game_for(&mut conn, account, id)
    }

    /// The last seat is taken: seeded set-up, first notifications.
    fn start(&self, conn: &mut PgConnection, row: &GameRow) -> DomainResult<()> {
        let engine = self.engine_for(row)?;
        let seed: [u8; 32] = row
            .seed
            .as_slice()
            .try_into()
            .map_err(|_| DomainError::Internal(anyhow::anyhow!("game {} has a malformed seed", row.id)))?;
        let state = engine
            .setup(&row.options, row.players as usize, seed)
            .map_err(|e| DomainError::Internal(anyhow::anyhow!("set-up failed at start: {e}")))?;
        let status = state.status();
        diesel::update(games::table.find(row.id))
            .set((
                games::status.eq("active"),
                games::snapshot.eq(Some(state.encode())),
                games::to_act.eq(to_i32s(status.to_act())),
                games::version.eq(0),
                games::updated_at.eq(diesel::dsl::now),
            ))
            .execute(conn)?;
        let seats = seat_infos(conn, row.id)?;
        let mails = compose::for_transition(self, row, &engine.info(), 0, state.as_ref(), &[], &status, &seats);
        enqueue(conn, mails)?;
        Ok(())
    }

    pub fn leave_game(&self, account: i64, id: i64) -> DomainResult<()> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let row = lock_game(conn, id)?;
            if row.status != "open" {
                return Err(DomainError::conflict("game_not_open", "you can only leave a game before it starts"));
            }
            let seats = seat_infos(conn, id)?;
            let Some(seat) = seat_of(&seats, account) else {
                return Err(DomainError::forbidden("not_a_player", "you have no seat in this game"));
            };
            diesel::delete(game_seats::table.filter(game_seats::game_id.eq(id).and(game_seats::seat.eq(seat))))
                .execute(conn)?;
            if seats.len() == 1 {
                // Nobody is left: the game was never played, so it goes away.
                diesel::delete(games::table.find(id)).execute(conn)?;
            } else {
                // Keep seats numbered 0..n in joining order.
                for s in seats.iter().filter(|s| s.seat > seat) {
                    diesel::update(game_seats::table.filter(game_seats::game_id.eq(id).and(game_seats::seat.eq(s.seat))))
                        .set(game_seats::seat.eq(s.seat - 1))
                        .execute(conn)?;
                }
            }
            Ok(())
        })
    }

    pub fn get_game(&self, account: i64, id: i64) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        self.game_for(&mut conn, account, id)
    }

    fn game_for(&self, conn: &mut PgConnection, account: i64, id: i64) -> DomainResult<GameResponse> {
        let row = read_game(conn, id)?;
        let seats = seat_infos(conn, id)?;
        let state = self.load(&row)?;
        Ok(self.respond(&row, &seats, account, state.as_deref()))
    }

    fn respond(&self, row: &GameRow, seats: &[SeatInfo], account: i64, state: Option<&dyn LoadedGame>) -> GameResponse {
        let your_seat = seat_of(seats, account);
        let viewer = your_seat.map_or(Viewer::Spectator, |s| Viewer::Seat(s as usize));
        let (view, legal) = match state {
            Some(st) => {
                let legal: Vec<Value> = match your_seat {
                    Some(s) if row.status == "active" => st.legal_actions(s as usize),
                    _ => Vec::new(),
                };
                (st.view(viewer), legal)
            }
            None => (Value::Null, Vec::new()),
        };
        let texts = match (state, your_seat) {
            (Some(st), Some(s)) => legal
                .iter()
                .map(|a| st.describe_action(s as usize, a).unwrap_or_default())
                .collect(),
            _ => Vec::new(),
        };
        GameResponse {
            id: row.id,
            game_type: row.game_type.clone(),
            rules_version: row.rules_version,
            status: row.status.clone(),
            version: row.version,
            players: row.players,
            options: row.options.clone(),
            seats: seats
                .iter()
                .map(|s| SeatResponse {
                    seat: s.seat,
                    account_id: s.account_id,
                    name: s.name.clone(),
                })
                .collect(),
            to_act: row.to_act.clone(),
            your_seat,
            view,
            legal_actions: legal,
            legal_action_texts: texts,
            result: row.result.clone(),
            created_at: row.created_at,
            updated_at: row.updated_at,
        }
    }

    /// Applies one action: check the version, apply, append to the log, store the new
    /// snapshot, enqueue notifications. All in one transaction on the locked game row.
    pub fn submit_action(&self, account: i64, id: i64, req: ActionRequest) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let row = lock_game(conn, id)?;
            let seats = seat_infos(conn, id)?;
            let Some(seat) = seat_of(&seats, account) else {
                return Err(DomainError::forbidden("not_a_player", "you have no seat in this game"));
            };
            if row.status != "active" {
                return Err(DomainError::Conflict {
                    code: "game_not_active",
                    message: format!("the game is {}", row.status),
                    extra: Some(json!({ "status": row.status })),
                });
            }
            if req.expected_version != row.version {
                return Err(DomainError::Conflict {
                    code: "stale_version",
                    message: format!(
                        "the game is at version {}, not {}; reload it and choose again",
                        row.version, req.expected_version
                    ),
                    extra: Some(json!({ "current_version": row.version })),
                });
            }
            let engine = self.engine_for(&row)?;
            let state = self
                .load(&row)?
                .ok_or_else(|| DomainError::Internal(anyhow::anyhow!("active game {id} has no snapshot")))?;
            let before = state.status();
            let applied = state.apply(seat as usize, &req.action).map_err(rule_error)?;
            let version = row.version + 1;
            let (public_action, seen_by) = match &applied.visibility {
                Visibility::Public => (None, Vec::new()),
                Visibility::Private { seen_by, public_form } => (Some(public_form.clone()), to_i32s(seen_by)),
            };
            diesel::insert_into(game_actions::table)
                .values(NewAction {
                    game_id: id,
                    seq: version,
                    seat,
                    action: &applied.action,
                    public_action: public_action.as_ref(),
                    seen_by: &seen_by,
                    description: &applied.description,
                })
                .execute(conn)?;
            let after = applied.state.status();
            let (status, result) = match &after {
                Status::Active { .. } => ("active", None),
                Status::Finished(outcome) => ("finished", Some(serde_json::to_value(outcome).map_err(anyhow::Error::from)?)),
            };
            diesel::update(games::table.find(id))
                .set((
                    games::snapshot.eq(Some(applied.state.encode())),
                    games::version.eq(version),
                    games::status.eq(status),
                    games::to_act.eq(to_i32s(after.to_act())),
                    games::result.eq(&result),
                    games::updated_at.eq(diesel::dsl::now),
                ))
                .execute(conn)?;
            let mails = compose::for_transition(
                self,
                &row,
                &engine.info(),
                version,
                applied.state.as_ref(),
                before.to_act(),
                &after,
                &seats,
            );
            enqueue(conn, mails)?;
            let row = read_game(conn, id)?;
            Ok(self.respond(&row, &seats, account, Some(applied.state.as_ref())))
        })
    }

    pub fn list_games(&self, account: i64, q: ListQuery) -> DomainResult<GameListResponse> {
        let mut conn = self.conn()?;
        let mine = game_seats::table
            .filter(game_seats::account_id.eq(account))
            .select(game_seats::game_id);
        let mut query = games::table.into_boxed();
        let mut count = games::table.into_boxed();
        match q.status {
            // Open games: every game one can still join, plus one's own.
            Some(ListStatus::Open) => {
                query = query.filter(games::status.eq("open"));
                count = count.filter(games::status.eq("open"));
            }
            Some(s) => {
                query = query.filter(games::status.eq(s.as_str())).filter(games::id.eq_any(mine));
                count = count.filter(games::status.eq(s.as_str())).filter(games::id.eq_any(mine));
            }
            None => {
                query = query.filter(games::status.eq("open").or(games::id.eq_any(mine)));
                count = count.filter(games::status.eq("open").or(games::id.eq_any(mine)));
            }
        }
        if q.awaiting_me {
            // The caller's seat is among those the game waits for.
            let awaiting = || {
                diesel::dsl::sql::<diesel::sql_types::Bool>(
                    "games.status = 'active' AND EXISTS (SELECT 1 FROM game_seats s \
                     WHERE s.game_id = games.id AND s.seat = ANY(games.to_act) AND s.account_id = ",
                )
                .bind::<diesel::sql_types::BigInt, _>(account)
                .sql(")")
            };
            query = query.filter(awaiting());
            count = count.filter(awaiting());
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
            items.push(GameSummary {
                id: row.id,
                game_type: row.game_type,
                status: row.status.clone(),
                version: row.version,
                players: row.players,
                awaiting_you: row.status == "active" && your_seat.is_some_and(|s| row.to_act.contains(&s)),
                seats: seats
                    .into_iter()
                    .map(|s| SeatResponse {
                        seat: s.seat,
                        account_id: s.account_id,
                        name: s.name,
                    })
                    .collect(),
                to_act: row.to_act,
                your_seat,
                updated_at: row.updated_at,
            });
        }
        Ok(GameListResponse {
            items,
            page: q.page,
            per_page: q.per_page,
            total,
        })
    }

    pub fn game_log(&self, account: i64, id: i64, after: i64, limit: i64) -> DomainResult<Vec<LogEntry>> {
        let mut conn = self.conn()?;
        let _ = read_game(&mut conn, id)?;
        let seats = seat_infos(&mut conn, id)?;
        let me = seat_of(&seats, account);
        let rows: Vec<ActionRow> = game_actions::table
            .filter(game_actions::game_id.eq(id).and(game_actions::seq.gt(after)))
            .order(game_actions::seq.asc())
            .limit(limit)
            .select(ActionRow::as_select())
            .load(&mut conn)?;
        Ok(rows.into_iter().map(|r| redact(r, me)).collect())
    }

    /// The caller's view as it was at `version`, rebuilt from the seed and the log.
    pub fn view_at(&self, account: i64, id: i64, version: i64) -> DomainResult<ViewAtResponse> {
        let mut conn = self.conn()?;
        let row = read_game(&mut conn, id)?;
        if row.status == "open" {
            return Err(DomainError::conflict("game_not_active", "the game has not started"));
        }
        if version < 0 || version > row.version {
            return Err(DomainError::not_found(format!("version {version} of game {id}")));
        }
        let seats = seat_infos(&mut conn, id)?;
        let me = seat_of(&seats, account);
        let actions: Vec<ActionRow> = game_actions::table
            .filter(game_actions::game_id.eq(id).and(game_actions::seq.le(version)))
            .order(game_actions::seq.asc())
            .select(ActionRow::as_select())
            .load(&mut conn)?;
        let state = self.replay(&row, &actions).map_err(DomainError::Internal)?;
        let viewer = me.map_or(Viewer::Spectator, |s| Viewer::Seat(s as usize));
        Ok(ViewAtResponse {
            id,
            version,
            your_seat: me,
            view: state.view(viewer),
        })
    }

    /// Rebuilds a game's state from its seed and `actions` (in order).
    pub fn replay(&self, row: &GameRow, actions: &[ActionRow]) -> anyhow::Result<Box<dyn LoadedGame>> {
        let engine = self
            .registry
            .get_version(&row.game_type, row.rules_version as u32)
            .ok_or_else(|| anyhow::anyhow!("no engine for {} v{}", row.game_type, row.rules_version))?;
        let seed: [u8; 32] = row
            .seed
            .as_slice()
            .try_into()
            .map_err(|_| anyhow::anyhow!("malformed seed"))?;
        let mut state = engine
            .setup(&row.options, row.players as usize, seed)
            .map_err(|e| anyhow::anyhow!("setup: {e}"))?;
        for a in actions {
            state = state
                .apply(a.seat as usize, &a.action)
                .map_err(|e| anyhow::anyhow!("action {} refused on replay: {e}", a.seq))?
                .state;
        }
        Ok(state)
    }
}

/// What `me` may see of a log entry.
fn redact(r: ActionRow, me: Option<i32>) -> LogEntry {
    let visible = r.public_action.is_none() || me.is_some_and(|s| r.seen_by.contains(&s));
    let at: DateTime<Utc> = r.created_at;
    if visible {
        LogEntry {
            seq: r.seq,
            seat: r.seat,
            action: r.action,
            text: Some(r.description),
            at,
        }
    } else {
        LogEntry {
            seq: r.seq,
            seat: r.seat,
            action: r.public_action.unwrap_or(Value::Null),
            text: None,
            at,
        }
    }
}

fn rule_error(e: RuleError) -> DomainError {
    match e.code.as_ref() {
        RuleError::NOT_YOUR_TURN => DomainError::Conflict {
            code: "not_your_turn",
            message: e.message,
            extra: None,
        },
        RuleError::MALFORMED => DomainError::Invalid {
            code: "malformed_action",
            message: e.message,
            extra: None,
        },
        RuleError::GAME_OVER => DomainError::conflict("game_not_active", e.message),
        _ => DomainError::Invalid {
            code: "illegal_action",
            message: e.message,
            extra: Some(json!({ "rule_code": e.code })),
        },
    }
}

/// Inserts notifications; a dedupe key already present is skipped (idempotent).
pub fn enqueue(conn: &mut PgConnection, mails: Vec<NewOutbox>) -> QueryResult<()> {
    if mails.is_empty() {
        return Ok(());
    }
    diesel::insert_into(outbox::table)
        .values(&mails)
        .on_conflict(outbox::dedupe_key)
        .do_nothing()
        .execute(conn)?;
    Ok(())
}
