//! Random playouts, for `turnpost simulate`, the computer player and benchmarks
//! (`random_playout`), and, behind the `testing` feature, the contract checks every game
//! must pass in its tests (`check_many`, in [`check`]).

use super::contract::{Game, Seat};
use super::rng::GameRng;

/// How a random player chooses and how hard the checks look.
#[derive(Clone, Debug)]
pub struct PlayoutConfig {
    /// A playout that has not finished after this many actions fails.
    pub max_actions: usize,
    /// Chance (in percent) that a seat outside `to_act` with optional actions acts instead.
    pub optional_action_percent: usize,
    /// Run the expensive checks (views under resampling, illegal actions) on every n-th
    /// step; 1 checks every step.
    pub deep_every: usize,
    /// The game hides something from someone: resampling must change the state at least
    /// once in a playout, or the leak check could not fail.
    pub has_hidden_information: bool,
}

impl Default for PlayoutConfig {
    fn default() -> Self {
        PlayoutConfig {
            max_actions: 20_000,
            optional_action_percent: 5,
            deep_every: 1,
            has_hidden_information: true,
        }
    }
}

#[cfg(any(test, feature = "testing"))]
pub mod check;
#[cfg(any(test, feature = "testing"))]
pub use check::*;

/// How a steered random player weighs a legal action (0 never picks it unless every
/// action weighs 0). Uniform play weighs every action 1.
pub type Steer<'a, G> = &'a dyn Fn(&<G as Game>::State, Seat, &<G as Game>::Action) -> u32;

/// A finished (or capped) random game.
pub struct Playout<G: Game> {
    pub state: G::State,
    pub log: Vec<(Seat, G::Action)>,
    pub finished: bool,
}

/// A steered random player's choice: a seat that must act (or, rarely, one with an
/// optional action), then one of its legal actions with probability proportional to
/// `steer`'s weight (uniformly without one).
pub fn choose_steered<G: Game>(
    game: &G,
    state: &G::State,
    seats: usize,
    optional_percent: usize,
    rng: &mut GameRng,
    steer: Option<Steer<'_, G>>,
) -> Option<(Seat, G::Action)> {
    let to_act = game.status(state).to_act().to_vec();
    let mut candidates: Vec<(Seat, Vec<G::Action>)> = to_act
        .iter()
        .map(|&s| (s, game.legal_actions(state, s)))
        .filter(|(_, a)| !a.is_empty())
        .collect();
    if optional_percent > 0 && rng.below(100) < optional_percent {
        let optional: Vec<(Seat, Vec<G::Action>)> = (0..seats)
            .filter(|s| !to_act.contains(s))
            .map(|s| (s, game.legal_actions(state, s)))
            .filter(|(_, a)| !a.is_empty())
            .collect();
        if !optional.is_empty() {
            candidates = optional;
        }
    }
    if candidates.is_empty() {
        return None;
    }
    let (seat, mut actions) = candidates.swap_remove(rng.below(candidates.len()));
    let i = match steer {
        None => rng.below(actions.len()),
        Some(weigh) => {
            let weights: Vec<u64> = actions
                .iter()
                .map(|a| u64::from(weigh(state, seat, a)))
                .collect();
            let total: u64 = weights.iter().sum();
            if total == 0 {
                rng.below(actions.len())
            } else {
                // Roll below the total weight; u64 keeps the sum exact.
                let mut roll = rng.next_u64() % total;
                weights
                    .iter()
                    .position(|&w| {
                        if roll < w {
                            true
                        } else {
                            roll -= w;
                            false
                        }
                    })
                    .unwrap_or(0)
            }
        }
    };
    Some((seat, actions.swap_remove(i)))
}

/// The random player's choice: a seat that must act (or, rarely, one with an optional
/// action), then one of its legal actions, uniformly.
pub fn choose_random<G: Game>(
    game: &G,
    state: &G::State,
    seats: usize,
    optional_percent: usize,
    rng: &mut GameRng,
) -> Option<(Seat, G::Action)> {
    choose_steered(game, state, seats, optional_percent, rng, None)
}

/// Plays one random game without checks (fast; for `simulate` and benchmarks).
pub fn random_playout<G: Game>(
    game: &G,
    options: &G::Options,
    seats: usize,
    seed: u64,
    max_actions: usize,
) -> Result<Playout<G>, String> {
    random_playout_steered(game, options, seats, seed, max_actions, None)
}

/// [`random_playout`] with a steered player (prefer melds, attacks, trades...), so
/// playouts reach states that uniform play rarely does.
pub fn random_playout_steered<G: Game>(
    game: &G,
    options: &G::Options,
    seats: usize,
    seed: u64,
    max_actions: usize,
    steer: Option<Steer<'_, G>>,
) -> Result<Playout<G>, String> {
    let mut state = game
        .setup(options, seats, GameRng::seed_from_u64(seed))
        .map_err(|e| format!("setup failed: {e}"))?;
    let mut agent = GameRng::seed_from_u64(seed ^ 0x5eed_a9e7_0000_0001);
    let mut log = Vec::new();
    while !game.status(&state).is_finished() && log.len() < max_actions {
        let Some((seat, action)) = choose_steered(game, &state, seats, 5, &mut agent, steer) else {
            return Err(format!(
                "seed {seed}: active game with no legal action for any seat"
            ));
        };
        state = game.apply(&state, seat, &action).map_err(|e| {
            format!("seed {seed}: legal action {action:?} of seat {seat} refused: {e}")
        })?;
        log.push((seat, action));
    }
    let finished = game.status(&state).is_finished();
    Ok(Playout {
        state,
        log,
        finished,
    })
}
