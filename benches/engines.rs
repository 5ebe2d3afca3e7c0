//! Micro-benchmarks of the rules engines (criterion; `cargo bench --bench engines`).
//! - the Crossword Rummy meld validator on a table of more than 100 tiles;
//! - one Space Empires 4X action applied to a late-game state;
//! - one Kasino action applied early in a game and late in a game (the cost of a move must
//!   not grow with the game's length).

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use turnpost::engine::harness::random_playout;
use turnpost::engine::{Game, GameRng};
use turnpost::games::crossword_rummy::{bench_fixture_large_table, validate_table};
use turnpost::games::kasino::Kasino;
use turnpost::games::space_empires_4x::late_game_fixture;

fn crossword_validator(c: &mut Criterion) {
    let Ok(f) = bench_fixture_large_table() else {
        panic!("the validator fixture must build");
    };
    assert!(
        f.table.len() >= 100,
        "the fixture table has {} tiles",
        f.table.len()
    );
    assert!(
        validate_table(&f.context(), &f.submitted).is_ok(),
        "the fixture meld is legal"
    );
    c.bench_function(
        &format!("crossword_rummy/validate_table/{}_tiles", f.table.len()),
        |b| b.iter(|| validate_table(black_box(&f.context()), black_box(&f.submitted))),
    );
}

fn space_empires_apply(c: &mut Criterion) {
    let (game, state, seat, action) = late_game_fixture();
    assert!(
        game.apply(&state, seat, &action).is_ok(),
        "the fixture action is legal"
    );
    c.bench_function("space_empires_4x/apply/late_game", |b| {
        b.iter(|| game.apply(black_box(&state), seat, black_box(&action)))
    });
}

fn kasino_apply_early_and_late(c: &mut Criterion) {
    let game = Kasino;
    let options = Default::default();
    let Ok(p) = random_playout(&game, &options, 2, 3, 10_000) else {
        panic!("a random Kasino game finishes");
    };
    let mut state = game
        .setup(&options, 2, GameRng::seed_from_u64(3))
        .expect("setup");
    let mut states = vec![state.clone()];
    for (seat, a) in &p.log {
        state = game.apply(&state, *seat, a).expect("replay");
        states.push(state.clone());
    }
    for at in [10, p.log.len() - 1] {
        let (seat, action) = &p.log[at];
        let before = &states[at];
        c.bench_function(&format!("kasino/apply/at_action_{at}"), |b| {
            b.iter(|| game.apply(black_box(before), *seat, black_box(action)))
        });
    }
}

criterion_group!(
    benches,
    crossword_validator,
    space_empires_apply,
    kasino_apply_early_and_late
);
criterion_main!(benches);
