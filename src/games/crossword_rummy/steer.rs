//! A steered random player for playouts (`harness::check_many_steered`,
//! `random_playout_steered`): uniform random play draws far more than it melds and nearly
//! every game ends blocked, so it never exercises a game won by emptying a rack.

use super::data::Face;
use super::state::{Action, State};
use turnpost_engine::Seat;

/// Weighs a legal action: melds by the square of the tiles they lay (a meld of 5 beats a
/// meld of 3 and both beat drawing), draw_three on an opponent above drawing, everything
/// else 1.
pub fn prefer_big_melds(state: &State, _seat: Seat, action: &Action) -> u32 {
    match action {
        Action::Meld { table } => {
            let laid = table.len().saturating_sub(state.table.len()) as u32;
            100u32.saturating_mul(laid.saturating_mul(laid)).max(1)
        }
        Action::PlayAction { tile, .. } => {
            match state
                .rules
                .parse_tile(tile)
                .and_then(|t| state.rules.face(t))
            {
                Some(Face::DrawThree) => 20,
                _ => 1,
            }
        }
        _ => 1,
    }
}
