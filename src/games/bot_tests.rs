//! The computer player on every registered game: legal, deterministic, blind to what the
//! seat cannot see.

use serde_json::Value;
use turnpost_engine::bot::{BotBudget, choose_action};
use turnpost_engine::{GameRng, LoadedGame, Viewer};

use crate::Registry;

/// A game of `id` just set up, with its fewest seats (at least two).
fn started(id: &str, seed: u8) -> Box<dyn LoadedGame> {
    let registry = Registry::standard();
    let Some(g) = registry.get(id) else {
        panic!("{id} is registered");
    };
    let seats = g.info().min_players.max(2);
    g.setup(&Value::Null, seats, [seed; 32])
        .unwrap_or_else(|e| panic!("{id}: {e}"))
}

/// A few random moves into each real game: positions with choices to make.
fn positions(id: &str, seed: u8, moves: usize) -> Box<dyn LoadedGame> {
    let mut state = started(id, seed);
    let mut rng = GameRng::seed_from_u64(u64::from(seed));
    for _ in 0..moves {
        let to_act = state.status().to_act().to_vec();
        let Some(&seat) = rng.pick(&to_act) else {
            break;
        };
        let legal = state.legal_actions(seat);
        let Some(a) = rng.pick(&legal) else {
            break;
        };
        state = state
            .apply(seat, a)
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .state;
    }
    state
}

const TINY: BotBudget = BotBudget {
    playouts: 12,
    depth: 8,
    candidates: 4,
};

#[test]
fn on_every_game_the_bot_plays_a_legal_action_the_same_for_the_same_seed() {
    for g in Registry::standard().all() {
        let id = g.info().id;
        for (seed, moves) in [(1u8, 3usize), (2, 40)] {
            let state = positions(id, seed, moves);
            for &seat in state.status().to_act() {
                let a = choose_action(state.as_ref(), seat, [9; 32], TINY, &[]);
                let b = choose_action(state.as_ref(), seat, [9; 32], TINY, &[]);
                assert_eq!(a, b, "{id}: same seed, same choice");
                let Some(a) = a else {
                    // It may wait for another seat's answer (a Starfarers offer it made),
                    // never for nobody.
                    let others = (0..4).any(|s| s != seat && state.has_legal_actions(s));
                    assert!(
                        others,
                        "{id}: seat {seat} is to act but the bot found nothing"
                    );
                    continue;
                };
                assert!(state.legal_actions(seat).contains(&a), "{id}: {a} is legal");
                assert!(state.apply(seat, &a).is_ok(), "{id}: {a} applies");
            }
        }
    }
}

#[test]
fn at_the_end_of_a_game_the_bot_has_nothing_to_play() {
    let registry = Registry::standard();
    let Some(g) = registry.get("kasino") else {
        panic!("kasino is registered");
    };
    let mut state = g
        .setup(&Value::Null, 2, [3; 32])
        .unwrap_or_else(|e| panic!("{e}"));
    let mut seed = [0u8; 32];
    while let Some(&seat) = state.status().to_act().first() {
        seed[0] = seed[0].wrapping_add(1);
        let Some(a) = choose_action(state.as_ref(), seat, seed, TINY, &[]) else {
            panic!("kasino: seat {seat} to act without a choice");
        };
        state = state
            .apply(seat, &a)
            .unwrap_or_else(|e| panic!("{e}"))
            .state;
    }
    assert!(state.status().is_finished());
    for seat in 0..2 {
        assert_eq!(choose_action(state.as_ref(), seat, seed, TINY, &[]), None);
    }
}

/// States the seat cannot tell apart (its view is the same; everything else redrawn) get
/// the same choice: the bot decides on the seat's knowledge alone. Exact for the games
/// whose `resample_hidden` draws a world from the unseen items whatever order they lay in;
/// SP4X, Space Empires 4X and Starfarers shuffle hidden items as they lie, so there the
/// world for one seed is a different (equally likely) one and only the distribution of
/// choices over seeds is independent of the hidden part.
#[test]
fn hidden_information_does_not_change_the_choice() {
    for id in ["kasino", "crossword-rummy", "partners", "fuldrigger"] {
        for (seed, moves) in [(4u8, 2usize), (5, 30)] {
            let state = positions(id, seed, moves);
            for &seat in state.status().to_act() {
                let me = Viewer::Seat(seat);
                let other = state.resample_hidden(me, [seed.wrapping_add(100); 32]);
                assert_eq!(state.view(me), other.view(me), "{id}: same view");
                let here = choose_action(state.as_ref(), seat, [7; 32], TINY, &[]);
                let there = choose_action(other.as_ref(), seat, [7; 32], TINY, &[]);
                assert_eq!(
                    here, there,
                    "{id} seat {seat}: hidden information changed the choice"
                );
            }
        }
    }
}

/// The computer's longest run of decisions in a row by one seat, over the first
/// `decisions` of a game it plays against itself, shown the game's latest actions as the
/// server shows them.
fn longest_run(id: &str, seed: u8, decisions: usize) -> (usize, usize) {
    let mut state = started(id, seed);
    let mut recent: Vec<(usize, Value)> = Vec::new();
    let (mut run, mut longest, mut last) = (0, 0, None);
    let mut bot_seed = [seed; 32];
    for n in 0..decisions {
        bot_seed[1..9].copy_from_slice(&(n as u64).to_le_bytes());
        let to_act = state.status().to_act().to_vec();
        let chosen = to_act.iter().find_map(|&seat| {
            choose_action(state.as_ref(), seat, bot_seed, TINY, &recent).map(|a| (seat, a))
        });
        let Some((seat, action)) = chosen else {
            break;
        };
        state = state
            .apply(seat, &action)
            .unwrap_or_else(|e| panic!("{id}: {e}"))
            .state;
        recent.push((seat, action));
        if recent.len() > turnpost_engine::bot::RECENT {
            recent.remove(0);
        }
        run = if last == Some(seat) { run + 1 } else { 1 };
        last = Some(seat);
        longest = longest.max(run);
    }
    (longest, recent.len())
}

/// A turn of the computer's ends: it neither goes back and forth between two positions
/// nor goes on past [`MAX_DECISIONS_PER_TURN`] decisions where it could end its turn.
fn turns_end(id: &str) {
    use turnpost_engine::bot::MAX_DECISIONS_PER_TURN;
    for seed in [1u8, 2] {
        let (longest, played) = longest_run(id, seed, 300);
        assert!(played > 0, "{id}: the computer played nothing");
        assert!(
            longest <= MAX_DECISIONS_PER_TURN + 1,
            "{id} (seed {seed}): {longest} decisions in a row by one seat"
        );
    }
}

#[test]
fn the_computers_turns_end_in_sp4x() {
    turns_end("sp4x");
}

#[test]
fn the_computers_turns_end_in_space_empires_4x() {
    turns_end("space-empires-4x");
}

#[test]
fn the_computers_turns_end_in_crossword_rummy() {
    turns_end("crossword-rummy");
}

#[test]
fn the_computers_turns_end_in_partners() {
    turns_end("partners");
}

#[test]
fn the_computers_turns_end_in_kasino() {
    turns_end("kasino");
}

#[test]
fn the_computers_turns_end_in_fuldrigger() {
    turns_end("fuldrigger");
}

#[test]
fn the_computers_turns_end_in_starfarers() {
    turns_end("starfarers");
}
