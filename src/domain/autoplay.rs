//! The moves that play themselves after a change: a seat's only choice (`[forced]`), a
//! forfeited seat's random move and the computer's move (`[bot]`). A request plays them
//! within a budget ([`Budget::request`]); what is left goes to the background bot worker
//! (`domain::bot_worker`), one move per transaction, so no request holds a game row lock
//! for long however many moves the computer has to make.

use std::time::{Duration, Instant};

use diesel::prelude::*;
use serde_json::Value;

use super::bots;
use super::steps::{BOT_MARK, FORCED_MARK, Step};
use super::{Domain, DomainResult};
use crate::engine::{LoadedGame, Seat, Status};
use crate::store::models::GameRow;
use crate::store::models::SeatInfo;
use crate::store::schema::game_actions;

/// How many moves of the computer (or of forfeited seats) a request plays at most.
pub const REQUEST_MOVES: u32 = 32;
/// How long a request spends on them at most: the game row stays locked meanwhile.
pub const REQUEST_TIME: Duration = Duration::from_millis(200);
/// Moves that are a seat's only choice cost nearly nothing and are not budgeted, but a
/// change plays at most this many in all, so that no game's rules can loop a request.
const MAX_STEPS: usize = 10_000;

/// What a change may spend on moves the server makes by choice (the computer's and a
/// forfeited seat's): a number of moves and a time, whichever runs out first. The time is
/// checked before each move, so one decision may end past it (a decision's work is bounded
/// by its game's `BotBudget`: tens of milliseconds at most).
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    moves: u32,
    until: Instant,
}

impl Budget {
    /// What a request spends.
    pub fn request() -> Budget {
        Budget {
            moves: REQUEST_MOVES,
            until: Instant::now() + REQUEST_TIME,
        }
    }

    /// One move: the background worker's step.
    pub fn one_move() -> Budget {
        Budget {
            moves: 1,
            until: Instant::now() + REQUEST_TIME,
        }
    }

    /// Takes one move from the budget, if any is left.
    fn take(&mut self) -> bool {
        if self.moves == 0 || Instant::now() >= self.until {
            return false;
        }
        self.moves -= 1;
        true
    }
}

/// The steps played, the state they end in, the seats the game now waits for, and whether
/// moves the server makes are left for the background worker.
pub(crate) struct PlayedOut {
    pub steps: Vec<Step>,
    pub state: Box<dyn LoadedGame>,
    /// Who the game waits for, as written (`games.to_act`): the rules' seats to act, except
    /// that a computer seat that waits for another seat's answer (its Starfarers offer)
    /// is replaced by that seat, whose clock then runs and who is listed as awaited.
    pub to_act: Vec<Seat>,
    /// The budget ran out with a move of the server's still to make.
    pub pending: bool,
}

/// How the server plays a seat's next move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    /// Its only choice.
    Forced,
    /// A random legal move: a seat that forfeited, or a computer seat that waits for
    /// nobody who could answer (see [`next_mover`]).
    Random,
    /// The computer's choice.
    Bot,
}

/// The next move the server makes, and the seats the game waits for.
struct Next {
    mover: Option<(Seat, How)>,
    awaited: Vec<Seat>,
}

/// Who moves next by the server's hand, if anyone. Among the seats to act, in order: a
/// forfeited seat (randomly), a computer seat that does not wait (its choice), a person's
/// only choice. If none moves and every seat to act is the server's, some waiting for an
/// answer, the seats that can give it act: the computer or a forfeited seat moves at once,
/// a person is waited for (and listed as awaited). If nobody can answer, a waiting
/// computer seat plays a random legal move, so a game never waits for nobody.
fn next_mover(
    state: &dyn LoadedGame,
    to_act: &[Seat],
    seats: &[SeatInfo],
    forfeited: &[i32],
    players: usize,
    recent: &mut dyn FnMut() -> DomainResult<Vec<(Seat, Value)>>,
) -> DomainResult<Next> {
    let is_forfeited = |s: Seat| forfeited.contains(&(s as i32));
    let mut waiting = Vec::new();
    let mut person_to_act = false;
    for &seat in to_act {
        if is_forfeited(seat) {
            if state.has_legal_actions(seat) {
                return Ok(Next {
                    mover: Some((seat, How::Random)),
                    awaited: to_act.to_vec(),
                });
            }
        } else if bots::plays(seats, seat) {
            if !state.has_legal_actions(seat) {
                continue;
            }
            if state.bot_waits(seat, &recent()?) {
                waiting.push(seat);
                continue;
            }
            return Ok(Next {
                mover: Some((seat, How::Bot)),
                awaited: to_act.to_vec(),
            });
        } else if state.forced_action(seat).is_some() {
            return Ok(Next {
                mover: Some((seat, How::Forced)),
                awaited: to_act.to_vec(),
            });
        } else {
            person_to_act = true;
        }
    }
    if waiting.is_empty() || person_to_act {
        return Ok(Next {
            mover: None,
            awaited: to_act.to_vec(),
        });
    }
    let others: Vec<Seat> = (0..players)
        .filter(|s| !to_act.contains(s) && state.has_legal_actions(*s))
        .collect();
    for &seat in &others {
        let how = if is_forfeited(seat) {
            How::Random
        } else if bots::plays(seats, seat) && !state.bot_waits(seat, &recent()?) {
            How::Bot
        } else {
            continue;
        };
        return Ok(Next {
            mover: Some((seat, how)),
            awaited: vec![seat],
        });
    }
    let people: Vec<Seat> = others
        .into_iter()
        .filter(|&s| !is_forfeited(s) && !bots::plays(seats, s))
        .collect();
    if !people.is_empty() {
        return Ok(Next {
            mover: None,
            awaited: people,
        });
    }
    Ok(Next {
        mover: waiting.first().map(|&s| (s, How::Random)),
        awaited: to_act.to_vec(),
    })
}

/// The game's latest actions as logged (at most [`crate::engine::bot::RECENT`]), oldest
/// first: what the computer is shown of the turn so far.
fn logged_recent(conn: &mut PgConnection, row: &GameRow) -> DomainResult<Vec<(Seat, Value)>> {
    let mut rows: Vec<(i32, Value)> = game_actions::table
        .filter(
            game_actions::game_id
                .eq(row.id)
                .and(game_actions::seq.le(row.version)),
        )
        .order(game_actions::seq.desc())
        .limit(crate::engine::bot::RECENT as i64)
        .select((game_actions::seat, game_actions::action))
        .load(conn)?;
    rows.reverse();
    Ok(rows
        .into_iter()
        .map(|(s, a)| (s.max(0) as Seat, a))
        .collect())
}

/// The moves of the computer's a change may still make under its game creator's daily
/// allowance (see `domain::computer_budget`), and how many it made.
struct Allowed {
    /// `None`: no limit applies.
    left: Option<u32>,
    made: u32,
}

impl Allowed {
    fn spent(&self) -> bool {
        self.left.is_some_and(|left| self.made >= left)
    }
}

impl Domain {
    /// `steps` (already applied, ending in `state`) and the moves that then play
    /// themselves (see [`next_mover`]), all marked in the log, as far as `budget` and the
    /// game creator's daily allowance of computer moves go.
    pub(crate) fn play_out(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        steps: Vec<Step>,
        state: Box<dyn LoadedGame>,
        budget: Budget,
    ) -> DomainResult<PlayedOut> {
        // Read only for a game where the server may move by choice.
        let now = self.clock.now();
        let server_plays = seats.iter().any(|s| s.bot) || !row.forfeited.is_empty();
        let left = if server_plays {
            self.computer_allowance(conn, row.created_by, now)?
                .map(|a| a.left)
        } else {
            None
        };
        let mut allowed = Allowed { left, made: 0 };
        let played = self.play_out_within(conn, row, seats, steps, state, budget, &mut allowed)?;
        if let Some(left) = allowed.left {
            self.charge_computer_moves(conn, row.created_by, now, allowed.made, left)?;
        }
        Ok(played)
    }

    #[allow(clippy::too_many_arguments)]
    fn play_out_within(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        steps: Vec<Step>,
        state: Box<dyn LoadedGame>,
        mut budget: Budget,
        allowed: &mut Allowed,
    ) -> DomainResult<PlayedOut> {
        let (mut steps, mut state) = (steps, state);
        let players = row.players.max(0) as usize;
        // Read once, and only for a game the computer plays in.
        let mut logged: Option<Vec<(Seat, Value)>> = None;
        loop {
            let Status::Active { to_act } = state.status() else {
                return Ok(PlayedOut {
                    steps,
                    state,
                    to_act: Vec::new(),
                    pending: false,
                });
            };
            let mut recent = || -> DomainResult<Vec<(Seat, Value)>> {
                if logged.is_none() {
                    logged = Some(logged_recent(conn, row)?);
                }
                let mut all: Vec<(Seat, Value)> = logged.clone().unwrap_or_default();
                all.extend(
                    steps
                        .iter()
                        .map(|s| (s.seat.max(0) as Seat, s.action.clone())),
                );
                let cut = all.len().saturating_sub(crate::engine::bot::RECENT);
                Ok(all.split_off(cut))
            };
            let next = next_mover(
                state.as_ref(),
                &to_act,
                seats,
                &row.forfeited,
                players,
                &mut recent,
            )?;
            let Some((seat, how)) = next.mover else {
                return Ok(PlayedOut {
                    steps,
                    state,
                    to_act: next.awaited,
                    pending: false,
                });
            };
            let chosen = match how {
                How::Forced if steps.len() < MAX_STEPS => state.forced_action(seat),
                How::Forced => None,
                _ if steps.len() >= MAX_STEPS || allowed.spent() || !budget.take() => {
                    return Ok(PlayedOut {
                        steps,
                        state,
                        to_act: next.awaited,
                        pending: true,
                    });
                }
                How::Random => {
                    let legal = state.legal_actions(seat);
                    (!legal.is_empty())
                        .then(|| rand::random_range(0..legal.len()))
                        .and_then(|i| legal.into_iter().nth(i))
                }
                How::Bot => bots::bot_action(state.as_ref(), seat, &row.game_type, &recent()?),
            };
            let Some(action) = chosen else {
                return Ok(PlayedOut {
                    steps,
                    state,
                    to_act: next.awaited,
                    pending: how != How::Forced,
                });
            };
            if how != How::Forced {
                allowed.made += 1;
            }
            let mark = if how == How::Forced {
                FORCED_MARK
            } else {
                BOT_MARK
            };
            let applied = state
                .apply(seat, &action)
                .map_err(|e| anyhow::anyhow!("a legal action was refused: {e}"))?;
            let (mut step, after) = Step::from_applied(seat as i32, applied);
            step.description = format!("{mark}{}", step.description);
            steps.push(step);
            state = after;
        }
    }
}
