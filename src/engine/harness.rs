//! Random playouts, for `turnpost simulate`, the computer player and benchmarks
//! (`random_playout`), and, behind the `testing` feature, the contract checks every game
//! must pass in its tests (`check_many`, in [`check`]).

use std::borrow::Cow;

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
    /// Check that the state survives a serde round trip every n-th step, and on every
    /// deep step and the last state; 1 checks every step. The round trip of a large state
    /// costs more than the rules' step itself, so light playouts check a sample.
    pub round_trip_every: usize,
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
            round_trip_every: 4,
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
    let status = game.status(state);
    let mut legal_of = |s: Seat| Cow::Owned(game.legal_actions(state, s));
    choose_among::<G>(
        state,
        status.to_act(),
        seats,
        optional_percent,
        rng,
        steer,
        &mut legal_of,
    )
}

/// [`choose_steered`] on legal actions already listed: `legal[s]` is seat `s`'s list on
/// `state`, whose status waits for `to_act`. Same choice, same draws from `rng`, without
/// listing them again (listing is the dearest part of a step in some games).
pub fn choose_steered_from<G: Game>(
    state: &G::State,
    to_act: &[Seat],
    legal: &[Vec<G::Action>],
    optional_percent: usize,
    rng: &mut GameRng,
    steer: Option<Steer<'_, G>>,
) -> Option<(Seat, G::Action)> {
    let mut legal_of = |s: Seat| Cow::Borrowed(legal.get(s).map_or(&[][..], Vec::as_slice));
    choose_among::<G>(
        state,
        to_act,
        legal.len(),
        optional_percent,
        rng,
        steer,
        &mut legal_of,
    )
}

/// The choice behind [`choose_steered`] and [`choose_steered_from`]; `legal_of` lists a
/// seat's actions, asked only for the seats the choice looks at.
fn choose_among<'l, G: Game>(
    state: &G::State,
    to_act: &[Seat],
    seats: usize,
    optional_percent: usize,
    rng: &mut GameRng,
    steer: Option<Steer<'_, G>>,
    legal_of: &mut dyn FnMut(Seat) -> Cow<'l, [G::Action]>,
) -> Option<(Seat, G::Action)> {
    let mut candidates: Vec<(Seat, Cow<'l, [G::Action]>)> = to_act
        .iter()
        .map(|&s| (s, legal_of(s)))
        .filter(|(_, a)| !a.is_empty())
        .collect();
    if optional_percent > 0 && rng.below(100) < optional_percent {
        let optional: Vec<(Seat, Cow<'l, [G::Action]>)> = (0..seats)
            .filter(|s| !to_act.contains(s))
            .map(|s| (s, legal_of(s)))
            .filter(|(_, a)| !a.is_empty())
            .collect();
        if !optional.is_empty() {
            candidates = optional;
        }
    }
    if candidates.is_empty() {
        return None;
    }
    let (seat, actions) = candidates.swap_remove(rng.below(candidates.len()));
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
    let action = match actions {
        Cow::Owned(mut list) => list.swap_remove(i),
        Cow::Borrowed(list) => list.get(i)?.clone(),
    };
    Some((seat, action))
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
