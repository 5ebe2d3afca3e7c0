//! What the computer player ([`crate::engine::bot`]) scores an unfinished Starfarers by.

use super::{Data, State, rules};
use crate::engine::Seat;
use crate::engine::bot::standing_from_scores;

/// Victory points, which decide the game.
pub fn standing(d: &Data, st: &State, seat: Seat) -> Option<f64> {
    let vp: Vec<i64> = (0..st.seats)
        .map(|s| i64::from(rules::vp(d, st, s)))
        .collect();
    standing_from_scores(&vp, seat, 2.0)
}
