//! A computer player for any game: a bounded, determinized Monte-Carlo search.
//!
//! For a decision of `seat`, the bot draws worlds with [`Game::resample_hidden`] for
//! `Viewer::Seat(seat)`: each world keeps what the seat sees and redraws everything else
//! (other hands, deck order, the random stream). It never reads the real hidden state. In
//! each world it plays each candidate action and then random moves for every seat, up to a
//! depth, and scores the result from the seat's point of view: the outcome when the game
//! ended, else the game's [`Game::bot_standing`] estimate. The candidate with the best mean
//! wins. All randomness comes from the caller's seed, and the work is bounded by playouts
//! and depth rather than by a clock, so a decision is deterministic and replayable.

use serde_json::Value;

use super::contract::{Game, Outcome, Seat, Viewer};
use super::dynamic::LoadedGame;
use super::rng::GameRng;

pub use super::budget::BotBudget;

/// How many of a game's latest actions the computer is shown with a decision (see
/// [`Game::bot_candidates`]): enough for a turn of any game here, and a bounded read.
pub const RECENT: usize = 64;

/// The bot's action for `seat` on `game`: one of the game's candidates for it (see
/// [`Game::bot_candidates`]; by default its legal actions), or `None` when it has none
/// (nothing to do, or it waits for another seat). `recent` is the game's latest actions
/// as logged, oldest first. The same state, seat, seed, budget and history give the same
/// action; states that differ only in what `seat` cannot see give the same action too, as
/// far as the game's `resample_hidden` draws its worlds from the visible part alone.
pub fn choose_action(
    game: &dyn LoadedGame,
    seat: Seat,
    seed: [u8; 32],
    budget: BotBudget,
    recent: &[(Seat, Value)],
) -> Option<Value> {
    game.bot_action(seat, seed, budget, recent)
}

/// [`choose_action`] on a typed game: what the erased form calls, without JSON in the loop.
pub fn search<G: Game>(
    game: &G,
    state: &G::State,
    seat: Seat,
    seed: [u8; 32],
    budget: BotBudget,
    recent: &[(Seat, G::Action)],
) -> Option<G::Action> {
    let legal = game.legal_actions(state, seat);
    if legal.is_empty() {
        return None;
    }
    let legal = game.bot_candidates(state, seat, legal, recent);
    let mut legal = moving_on(game, state, seat, legal, recent, seed);
    match legal.len() {
        0 => return None,
        1 => return legal.pop(),
        _ => {}
    }
    let mut rng = GameRng::from_seed(seed);
    let candidates = pick_candidates(legal, budget.candidates.max(1) as usize, &mut rng);
    if candidates.len() == 1 {
        return candidates.into_iter().next();
    }
    let per_candidate = (budget.playouts as usize / candidates.len()).max(1);
    // One seed per world, shared by all candidates: they are compared on the same deals
    // and the same later dice, which removes most of the noise between them.
    let worlds: Vec<[u8; 32]> = (0..per_candidate).map(|_| seed_from(&mut rng)).collect();
    let mut best: Option<(f64, usize)> = None;
    for (i, action) in candidates.iter().enumerate() {
        let mut total = 0.0;
        let mut counted = 0usize;
        for w in &worlds {
            let mut world_rng = GameRng::from_seed(*w);
            let world = game.resample_hidden(state, Viewer::Seat(seat), &mut world_rng);
            // Legal for the seat in every world it cannot tell apart; a game that says
            // otherwise simply loses this sample rather than failing the decision.
            let Ok(after) = game.apply(&world, seat, action) else {
                continue;
            };
            total += playout(game, after, seat, budget.depth, &mut world_rng);
            counted += 1;
        }
        if counted == 0 {
            continue;
        }
        let mean = total / counted as f64;
        // Strictly better only: ties keep the earlier candidate, so the order is stable.
        if best.is_none_or(|(b, _)| mean > b) {
            best = Some((mean, i));
        }
    }
    let pick = best.map_or(0, |(_, i)| i);
    candidates.into_iter().nth(pick)
}

/// At most this many decisions in a row by one seat before the computer chooses only
/// among the actions that end its turn (where any does): a turn of many small actions
/// (fitting out ships, moving a fleet) may not go on without end.
pub const MAX_DECISIONS_PER_TURN: usize = 40;

/// `candidates` without those that go back on what the seat just did (fitting out a ship
/// and then unfitting it, without end), and after [`MAX_DECISIONS_PER_TURN`] decisions in
/// a row, only those that end the seat's turn. Where no candidate is left, all stay.
fn moving_on<G: Game>(
    game: &G,
    state: &G::State,
    seat: Seat,
    candidates: Vec<G::Action>,
    recent: &[(Seat, G::Action)],
    seed: [u8; 32],
) -> Vec<G::Action> {
    let in_a_row = recent.iter().rev().take_while(|(s, _)| *s == seat).count();
    let last = recent.last().filter(|(s, _)| *s == seat);
    if candidates.len() < 2 || (last.is_none() && in_a_row < MAX_DECISIONS_PER_TURN) {
        return candidates;
    }
    // Judged on a world the seat cannot tell from the real one, so that what it cannot
    // see never weighs in.
    let world = game.resample_hidden(state, Viewer::Seat(seat), &mut GameRng::from_seed(seed));
    let candidates = match last {
        Some((_, last)) => keep_some(candidates, |a| !undoes(game, &world, seat, a, last)),
        None => candidates,
    };
    if in_a_row < MAX_DECISIONS_PER_TURN {
        return candidates;
    }
    keep_some(candidates, |a| {
        game.apply(&world, seat, a)
            .is_ok_and(|after| !game.status(&after).to_act().contains(&seat))
    })
}

/// Whether playing `action` and then `last` again comes back to `state`: `action` took
/// back `last`.
fn undoes<G: Game>(
    game: &G,
    state: &G::State,
    seat: Seat,
    action: &G::Action,
    last: &G::Action,
) -> bool {
    game.apply(state, seat, action)
        .and_then(|after| game.apply(&after, seat, last))
        .is_ok_and(|again| again == *state)
}

/// The items of `all` that `keep` holds for, or all of them when it holds for none.
fn keep_some<A>(all: Vec<A>, keep: impl Fn(&A) -> bool) -> Vec<A> {
    if all.iter().any(&keep) {
        all.into_iter().filter(|a| keep(a)).collect()
    } else {
        all
    }
}

/// All of `legal` when it fits, else a seeded choice of `max` of them, in their order.
fn pick_candidates<A>(legal: Vec<A>, max: usize, rng: &mut GameRng) -> Vec<A> {
    if legal.len() <= max {
        return legal;
    }
    let mut index: Vec<usize> = (0..legal.len()).collect();
    rng.shuffle(&mut index);
    let mut keep = index[..max].to_vec();
    keep.sort_unstable();
    legal
        .into_iter()
        .enumerate()
        .filter(|(i, _)| keep.binary_search(i).is_ok())
        .map(|(_, a)| a)
        .collect()
}

fn seed_from(rng: &mut GameRng) -> [u8; 32] {
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
    }
    seed
}

/// Random moves for whoever is to act, up to `depth` actions; the result scored for `seat`.
fn playout<G: Game>(
    game: &G,
    mut state: G::State,
    seat: Seat,
    depth: u32,
    rng: &mut GameRng,
) -> f64 {
    for _ in 0..depth {
        let status = game.status(&state);
        let to_act = status.to_act();
        if to_act.is_empty() {
            break;
        }
        let actor = to_act[rng.below(to_act.len())];
        let legal = game.legal_actions(&state, actor);
        let Some(action) = rng.pick(&legal) else {
            break;
        };
        match game.apply(&state, actor, action) {
            Ok(next) => state = next,
            Err(_) => break,
        }
    }
    match game.status(&state) {
        super::contract::Status::Finished(outcome) => outcome_value(&outcome, seat),
        super::contract::Status::Active { .. } => game
            .bot_standing(&state, seat)
            .map_or(0.5, |v| v.clamp(0.0, 1.0)),
    }
}

/// A finished game's worth to `seat`: mostly whether it won (a shared first place counts
/// as a share of a win), a little for the place otherwise, so that among lost lines the
/// bot still prefers the better finish. Team games count the team's place.
pub fn outcome_value(outcome: &Outcome, seat: Seat) -> f64 {
    let (rank, winners, entries) = if outcome.teams.is_empty() {
        let Some(me) = outcome.ranking.iter().find(|p| p.seat == seat) else {
            return 0.0;
        };
        let winners = outcome.ranking.iter().filter(|p| p.rank == 1).count();
        (me.rank, winners, outcome.ranking.len())
    } else {
        let Some(team) = outcome.teams.iter().find(|t| t.seats.contains(&seat)) else {
            return 0.0;
        };
        let winners = outcome.teams.iter().filter(|t| t.rank == 1).count();
        (team.rank, winners, outcome.teams.len())
    };
    let win = if rank == 1 {
        1.0 / winners.max(1) as f64
    } else {
        0.0
    };
    let place = if entries > 1 {
        (entries as f64 - f64::from(rank)) / (entries as f64 - 1.0)
    } else {
        1.0
    };
    0.9 * win + 0.1 * place.clamp(0.0, 1.0)
}

/// A standing in [0, 1] from running scores: 0.5 when level with the best of the others,
/// towards 1 as `seat` leads by several `scale`s, towards 0 as it trails. For
/// [`Game::bot_standing`] of games that keep a score.
pub fn standing_from_scores(scores: &[i64], seat: Seat, scale: f64) -> Option<f64> {
    let mine = *scores.get(seat)?;
    let best_other = scores
        .iter()
        .enumerate()
        .filter(|&(s, _)| s != seat)
        .map(|(_, &v)| v)
        .max()?;
    let lead = (mine - best_other) as f64 / scale.max(f64::MIN_POSITIVE);
    Some(0.5 + 0.5 * lead.tanh())
}

#[cfg(test)]
mod tests;
