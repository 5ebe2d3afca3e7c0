//! Takeback with consent. A player asks to undo their last action; every other player
//! still playing (not the computer, not a seat that gave up) accepts or declines. With no
//! one to ask (against the computer) it happens at once.
//!
//! What is undone: the seat's last action of its own choosing and the moves that played
//! themselves after it (forced moves, the computer's). It is refused when someone else has
//! chosen a move since, and when the undone moves showed anyone something they did not know
//! before: a hidden card or tile, a private log entry, a die, a draw. That is tested, not
//! declared per game: for every seat and for a spectator, the undone moves are played again
//! on worlds whose hidden parts (the random stream included) are drawn afresh for that
//! viewer; if any viewer's view comes out different, the moves depended on something that
//! viewer could not see, so taking them back would let a player learn and retry.
//!
//! The log is never rewritten: the takeback is an entry of its own (`takeback_to`), and
//! the log's readers mark the entries it undid (see [`super::replay`]).
//! A request is stored on the game row with the version it was asked at; any move lets it
//! lapse.

use crate::domain::ProblemCode;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::locked::LockedGame;
use super::mail_events::{TAKEBACK, enqueue, event};
use super::replay;
use super::shapes::GameResponse;
use super::shapes::TakebackResponse;
use super::steps::{BOT_MARK, FORCED_MARK};
use super::{Domain, DomainError, DomainResult};
use crate::engine::{LoadedGame, Viewer};
use crate::store::kinds::{AccountId, GameId, GameStatus};
use crate::store::models::{ActionRow, GameRow, NewAction, NewOutbox, SeatInfo};
use crate::store::schema::{game_actions, games};

/// Worlds drawn per viewer when checking what the undone moves showed. A move that shows
/// something (a card drawn from a shuffled deck, a die) comes out the same in every world
/// only by a coincidence that this many draws make vanishingly rare.
const WORLDS_PER_VIEWER: usize = 8;

/// A request as stored on the game row (`games.takeback`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Pending {
    pub seat: i32,
    /// The game's version when it was asked; any later move lets it lapse.
    pub at_version: i64,
    /// The version the game returns to.
    pub to_version: i64,
    /// The log entries it undoes, and what they did (public words: nothing private is
    /// ever taken back).
    pub undoes: Vec<i64>,
    pub texts: Vec<String>,
    pub accepted: Vec<i32>,
    pub asked_at: DateTime<Utc>,
    /// The seats with a decision of the game's own when it was asked: a seat asked to
    /// answer decides too (`games.deciding`) until it has answered.
    #[serde(default)]
    pub deciding_before: Option<Vec<i32>>,
}

/// The request pending on `row` now, if any.
pub fn pending(row: &GameRow) -> Option<Pending> {
    let p: Pending = serde_json::from_value(row.takeback.clone()?).ok()?;
    (row.status == GameStatus::Active && p.at_version == row.version).then_some(p)
}

/// The seats whose consent a takeback by `asker` needs: everyone else still playing
/// (the computer agrees to anything; a seat that gave up has no say).
fn must_agree(row: &GameRow, seats: &[SeatInfo], asker: i32) -> Vec<i32> {
    seats
        .iter()
        .filter(|s| s.seat != asker && !s.bot && !row.forfeited.contains(&s.seat))
        .map(|s| s.seat)
        .collect()
}

/// The pending request on `row` as the API shows it.
pub fn response(row: &GameRow, seats: &[SeatInfo]) -> Option<TakebackResponse> {
    let p = pending(row)?;
    let waiting_for = must_agree(row, seats, p.seat)
        .into_iter()
        .filter(|s| !p.accepted.contains(s))
        .collect();
    Some(TakebackResponse {
        seat: p.seat,
        to_version: p.to_version,
        undoes: p.undoes,
        undoes_texts: p.texts,
        accepted: p.accepted,
        waiting_for,
        asked_at: p.asked_at,
    })
}

/// A move nobody chose: played for a seat with one choice, or by the computer.
fn automatic(a: &ActionRow) -> bool {
    a.description.starts_with(BOT_MARK) || a.description.starts_with(FORCED_MARK)
}

/// Whether replaying `undone` from `before` can come out differently for some viewer than
/// it did (`now`): the moves showed someone something hidden from them, or a random outcome.
pub fn reveals(
    before: &dyn LoadedGame,
    undone: &[&ActionRow],
    now: &dyn LoadedGame,
    players: usize,
) -> bool {
    // A private log entry is something some seat saw and others did not.
    if undone.iter().any(|a| a.public_action.is_some()) {
        return true;
    }
    let viewers = (0..players).map(Viewer::Seat).chain([Viewer::Spectator]);
    for viewer in viewers {
        let seen = now.view(viewer);
        for _ in 0..WORLDS_PER_VIEWER {
            let mut world = before.resample_hidden(viewer, rand::random());
            for a in undone {
                match world.apply(a.seat as usize, &a.action) {
                    Ok(applied) => world = applied.state,
                    // Legal only in the real world: it depended on what the viewer cannot see.
                    Err(_) => return true,
                }
            }
            if world.view(viewer) != seen {
                return true;
            }
        }
    }
    false
}

fn active(row: &GameRow) -> DomainResult<()> {
    if row.status != GameStatus::Active {
        return Err(DomainError::conflict(
            ProblemCode::GameNotActive,
            format!("the game is {}", row.status),
        ));
    }
    Ok(())
}

/// The game's log up to its version, in order.
fn log_of(conn: &mut PgConnection, row: &GameRow) -> DomainResult<Vec<ActionRow>> {
    Ok(game_actions::table
        .filter(
            game_actions::game_id
                .eq(row.id)
                .and(game_actions::seq.le(row.version)),
        )
        .order(game_actions::seq.asc())
        .select(ActionRow::as_select())
        .load(conn)?)
}

/// What a takeback by `seat` would undo now: the version to return to and the entries.
fn undoable(actions: &[ActionRow], seat: i32) -> DomainResult<(i64, Vec<&ActionRow>)> {
    let kept = replay::effective(actions).map_err(|e| DomainError::Internal(anyhow::anyhow!(e)))?;
    let Some(last_chosen) = kept.iter().rposition(|a| !automatic(a)) else {
        return Err(DomainError::conflict(
            ProblemCode::NothingToTakeBack,
            "you have made no move in this game that could be taken back",
        ));
    };
    if kept[last_chosen].seat != seat {
        let code = if kept.iter().any(|a| a.seat == seat && !automatic(a)) {
            ProblemCode::TakebackTooLate
        } else {
            ProblemCode::NothingToTakeBack
        };
        return Err(DomainError::conflict(
            code,
            "only the last move chosen in the game can be taken back, by its player: another \
             player has moved since yours",
        ));
    }
    Ok((kept[last_chosen].seq - 1, kept[last_chosen..].to_vec()))
}

/// What became of a takeback request after one seat's word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TakebackStep {
    /// Asked for; the other players are to answer.
    Asked,
    /// Everyone agreed (or nobody else had a say): the move is taken back.
    TakenBack,
    /// Accepted by this seat; others still to answer.
    Accepted,
    /// Declined: the game goes on.
    Declined,
    /// Withdrawn by the seat that asked.
    Withdrawn,
}

impl Domain {
    /// The caller asks to take back their last action (see the module's doc). Done at once
    /// when no one else must agree.
    pub fn ask_takeback(&self, account: AccountId, id: GameId) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            let seat = self.seat_or_hidden(conn, &game, account)?;
            self.ask_takeback_locked(conn, &game, seat).map(|_| ())
        })?;
        self.game_for(&mut conn, Some(account), id)
    }

    /// [`Domain::ask_takeback`] in the caller's transaction, on the locked game. Returns
    /// whether it was done at once.
    pub(crate) fn ask_takeback_locked(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        seat: i32,
    ) -> DomainResult<bool> {
        let LockedGame { row, seats } = game;
        active(row)?;
        if row.forfeited.contains(&seat) {
            return Err(DomainError::conflict(
                ProblemCode::AlreadyForfeited,
                "this seat has given up: it cannot take a move back",
            ));
        }
        if let Some(p) = pending(row) {
            return Err(DomainError::Conflict {
                code: ProblemCode::TakebackPending,
                message: "a takeback is asked for already: it must be answered first".into(),
                extra: Some(json!({ "takeback_seat": p.seat })),
            });
        }
        let actions = log_of(conn, row)?;
        let (to_version, undone) = undoable(&actions, seat)?;
        let now_state = self.load(row)?.ok_or_else(|| {
            DomainError::Internal(anyhow::anyhow!("active game {} has no snapshot", row.id))
        })?;
        let before = self
            .replay(row, &actions[..to_version as usize])
            .map_err(DomainError::Internal)?;
        if reveals(
            before.as_ref(),
            &undone,
            now_state.as_ref(),
            row.players as usize,
        ) {
            return Err(DomainError::conflict(
                ProblemCode::TakebackReveals,
                "this move cannot be taken back: it showed a player something hidden before (a \
                 card, a tile, a secret choice) or a random outcome (a die, a draw)",
            ));
        }
        let request = Pending {
            seat,
            at_version: row.version,
            to_version,
            undoes: undone.iter().map(|a| a.seq).collect(),
            texts: undone.iter().map(|a| a.description.clone()).collect(),
            accepted: Vec::new(),
            asked_at: self.clock.now(),
            deciding_before: Some(row.deciding.clone()),
        };
        let asked = must_agree(row, seats, seat);
        if asked.is_empty() {
            self.take_back(conn, row, seats, &request, &actions, now_state)?;
            return Ok(true);
        }
        store(conn, row.id, Some(&request))?;
        decide(conn, row, seats, &request, true)?;
        // Each player asked gets an email (answered by replying `accept` or `decline`) and
        // an `offer` webhook.
        let from = seats
            .iter()
            .find(|s| s.seat == seat)
            .map_or("A player", |s| s.name.as_str());
        let mails: Vec<NewOutbox> = seats
            .iter()
            .filter(|s| asked.contains(&s.seat))
            .filter(|s| s.gets_game_mail(self.require_email_verification))
            .map(|s| NewOutbox {
                // Per request: one withdrawn and asked again at the same version mails again.
                dedupe_key: format!(
                    "takeback:{}:{}:{}:{}",
                    row.id,
                    row.version,
                    s.seat,
                    request.asked_at.timestamp_micros()
                ),
                detail: Some(json!({ "from": from })),
                ..event(row.id, s, TAKEBACK, row.version)
            })
            .collect();
        enqueue(conn, mails)?;
        let offered: Vec<&SeatInfo> = seats.iter().filter(|s| asked.contains(&s.seat)).collect();
        self.owe_offer_webhooks(conn, row, &offered)?;
        Ok(false)
    }

    /// The caller accepts (`accept`) or declines the pending takeback; the player who asked
    /// withdraws it by declining.
    pub fn answer_takeback(
        &self,
        account: AccountId,
        id: GameId,
        accept: bool,
    ) -> DomainResult<GameResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            let seat = self.seat_or_hidden(conn, &game, account)?;
            self.answer_takeback_locked(conn, &game, seat, accept)
                .map(|_| ())
        })?;
        self.game_for(&mut conn, Some(account), id)
    }

    /// [`Domain::answer_takeback`] in the caller's transaction. Returns what became of the
    /// request.
    pub(crate) fn answer_takeback_locked(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        seat: i32,
        accept: bool,
    ) -> DomainResult<TakebackStep> {
        let LockedGame { row, seats } = game;
        active(row)?;
        let Some(mut request) = pending(row) else {
            return Err(DomainError::conflict(
                ProblemCode::NoTakebackPending,
                "nobody is asking to take a move back in this game now (a move since lets a \
                 request lapse)",
            ));
        };
        let name = |s: i32| {
            seats
                .iter()
                .find(|i| i.seat == s)
                .map_or_else(|| format!("seat {s}"), |i| i.name.clone())
        };
        if request.seat == seat {
            if accept {
                return Err(DomainError::conflict(
                    ProblemCode::OwnTakeback,
                    "you asked for this takeback: the other players answer it (decline \
                     withdraws it)",
                ));
            }
            store(conn, row.id, None)?;
            decide(conn, row, seats, &request, false)?;
            return Ok(TakebackStep::Withdrawn);
        }
        let asked = must_agree(row, seats, request.seat);
        if !asked.contains(&seat) {
            return Err(DomainError::forbidden(
                ProblemCode::NotAsked,
                "this seat has no say in the takeback (it has given up)",
            ));
        }
        if !accept {
            store(conn, row.id, None)?;
            decide(conn, row, seats, &request, false)?;
            // The player who asked hears of it by email.
            if let Some(asker) = seats.iter().find(|s| s.seat == request.seat)
                && asker.gets_game_mail(self.require_email_verification)
            {
                enqueue(
                    conn,
                    vec![NewOutbox {
                        dedupe_key: format!(
                            "takeback-declined:{}:{}:{}:{}",
                            row.id,
                            row.version,
                            seat,
                            request.asked_at.timestamp_micros()
                        ),
                        detail: Some(json!({ "from": name(seat), "declined": true })),
                        ..event(row.id, asker, TAKEBACK, row.version)
                    }],
                )?;
            }
            return Ok(TakebackStep::Declined);
        }
        if !request.accepted.contains(&seat) {
            request.accepted.push(seat);
        }
        if asked.iter().all(|s| request.accepted.contains(s)) {
            let actions = log_of(conn, row)?;
            let now_state = self.load(row)?.ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!("active game {} has no snapshot", row.id))
            })?;
            self.take_back(conn, row, seats, &request, &actions, now_state)?;
            return Ok(TakebackStep::TakenBack);
        }
        store(conn, row.id, Some(&request))?;
        decide(conn, row, seats, &request, true)?;
        Ok(TakebackStep::Accepted)
    }

    /// Writes the takeback: its log entry, then the state at `to_version` as the game's
    /// new state (with clocks and the emails owed, as after any move).
    fn take_back(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        request: &Pending,
        actions: &[ActionRow],
        now_state: Box<dyn LoadedGame>,
    ) -> DomainResult<()> {
        let back = usize::try_from(request.to_version)
            .ok()
            .and_then(|v| actions.get(..v))
            .ok_or_else(|| {
                DomainError::Internal(anyhow::anyhow!("takeback beyond the log of {}", row.id))
            })?;
        let state = self.replay(row, back).map_err(DomainError::Internal)?;
        let undone: Vec<&str> = actions
            .iter()
            .filter(|a| request.undoes.contains(&a.seq))
            .map(|a| a.description.as_str())
            .collect();
        // Like every log entry's words, without the player's name (the log shows whose).
        let description = format!(
            "took back: {} (back to move {})",
            undone.join("; "),
            request.to_version + 1
        );
        let version = row.version + 1;
        let action = json!({ "takeback": { "to_version": request.to_version } });
        diesel::insert_into(game_actions::table)
            .values(NewAction {
                game_id: row.id,
                seq: version,
                seat: request.seat,
                action: &action,
                public_action: None,
                seen_by: &[],
                description: &description,
                takeback_to: Some(request.to_version),
            })
            .execute(conn)?;
        store(conn, row.id, None)?;
        let row = GameRow {
            version,
            takeback: None,
            ..row.clone()
        };
        let before_actors = now_state.actors(row.players as usize);
        self.persist(conn, &row, seats, &before_actors, Vec::new(), state)?;
        Ok(())
    }
}

/// The game's deciding seats while `request` is pending (`open`) or once it is answered:
/// those of the game's own, and while it is open, every seat still to answer it.
fn decide(
    conn: &mut PgConnection,
    row: &GameRow,
    seats: &[SeatInfo],
    request: &Pending,
    open: bool,
) -> DomainResult<()> {
    let mut deciding = request
        .deciding_before
        .clone()
        .unwrap_or_else(|| row.deciding.clone());
    if open {
        deciding.extend(
            must_agree(row, seats, request.seat)
                .into_iter()
                .filter(|s| !request.accepted.contains(s)),
        );
    }
    deciding.sort_unstable();
    deciding.dedup();
    diesel::update(games::table.find(row.id))
        .set(games::deciding.eq(deciding))
        .execute(conn)?;
    Ok(())
}

/// Stores (or clears) the game's takeback request.
fn store(conn: &mut PgConnection, game: GameId, request: Option<&Pending>) -> DomainResult<()> {
    let value = request
        .map(serde_json::to_value)
        .transpose()
        .map_err(anyhow::Error::from)?;
    diesel::update(games::table.find(game))
        .set(games::takeback.eq(value))
        .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{GameRng, Status, Visibility};
    use crate::games::Registry;
    use crate::store::kinds::GameId;
    use serde_json::Value;

    /// Random play of `game` for `seats`; each action with whether [`reveals`] says taking
    /// it back would show something.
    fn judged(game: &str, seats: usize, seed: u8, steps: usize) -> Vec<(Value, bool)> {
        let registry = Registry::standard();
        let engine = registry.get(game).expect("a game type");
        let mut state = engine
            .setup(&Value::Null, seats, [seed; 32])
            .expect("set-up");
        let mut rng = GameRng::from_seed([seed ^ 0x5a; 32]);
        let mut out = Vec::new();
        for seq in 1..=steps as i64 {
            let Status::Active { to_act } = state.status() else {
                break;
            };
            let seat = to_act[rng.below(to_act.len())];
            let legal = state.legal_actions(seat);
            let action = rng.pick(&legal).expect("a legal action").clone();
            let applied = state.apply(seat, &action).expect("legal");
            let row = ActionRow {
                game_id: GameId(1),
                seq,
                seat: seat as i32,
                action: applied.action.clone(),
                public_action: match &applied.visibility {
                    Visibility::Public => None,
                    Visibility::Private { public_form, .. } => Some(public_form.clone()),
                },
                seen_by: Vec::new(),
                description: applied.description.clone(),
                created_at: Utc::now(),
                takeback_to: None,
            };
            let shown = reveals(state.as_ref(), &[&row], applied.state.as_ref(), seats);
            out.push((action, shown));
            state = applied.state;
        }
        out
    }

    #[test]
    fn rolled_dice_are_final_and_public_builds_can_be_taken_back() {
        let steps = judged("starfarers", 3, 7, 400);
        let rolls: Vec<bool> = steps
            .iter()
            .filter(|(a, _)| a["type"] == "roll")
            .map(|(_, shown)| *shown)
            .collect();
        assert!(!rolls.is_empty(), "random play rolls the dice");
        assert!(
            rolls.iter().all(|&shown| shown),
            "a roll is a random outcome"
        );
        assert!(
            steps.iter().any(|(_, shown)| !shown),
            "some moves use nothing hidden: {:?}",
            steps.iter().map(|(a, _)| &a["type"]).collect::<Vec<_>>()
        );
    }

    /// A game that says none of its moves can be taken back is right: in random play every
    /// move shows something. (Games that allow takebacks show it of some move in the other
    /// tests here and in the black-box takeback tests.)
    #[test]
    fn games_without_takebacks_show_something_in_every_move() {
        let registry = Registry::standard();
        let mut without: Vec<&str> = registry
            .all()
            .filter(|g| !g.takebacks())
            .map(|g| g.info().id)
            .collect();
        without.sort_unstable();
        assert_eq!(without, ["kasino", "partners"]);
        for (game, seats) in [
            ("kasino", 2),
            ("kasino", 4),
            ("partners", 4),
            ("partners", 2),
        ] {
            for seed in 1..=3 {
                for (action, shown) in judged(game, seats, seed, 30) {
                    assert!(
                        shown,
                        "{game} ({seats} seats), seed {seed}: {action} shows nothing"
                    );
                }
            }
        }
        assert!(
            registry
                .get("crossword-rummy")
                .is_some_and(|g| g.takebacks())
        );
    }

    #[test]
    fn a_card_played_from_a_hand_is_final() {
        for seed in 1..=5 {
            let steps = judged("kasino", 2, seed, 1);
            assert_eq!(steps.len(), 1);
            assert!(steps[0].1, "the first card played shows it: {}", steps[0].0);
        }
    }
}
