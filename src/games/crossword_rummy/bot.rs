//! What the computer player ([`turnpost_engine::bot`]) scores an unfinished Crossword Rummy
//! by.

use super::State;
use turnpost_engine::Seat;
use turnpost_engine::bot::standing_from_scores;

/// Penalties count against a seat (HR-10), and every tile still on the rack is a future
/// penalty: fewer is better.
pub fn standing(st: &State, seat: Seat) -> Option<f64> {
    let scores: Vec<i64> = (0..st.seats)
        .map(|s| {
            let total = st.totals.get(s).copied().unwrap_or(0);
            let rack = st.racks.get(s).map_or(0, Vec::len) as i64;
            -(total + 2 * rack)
        })
        .collect();
    standing_from_scores(&scores, seat, 6.0)
}
