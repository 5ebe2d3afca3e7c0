//! What the computer player ([`turnpost_engine::bot`]) scores an unfinished Kasino by.

use super::State;
use turnpost_engine::Seat;
use turnpost_engine::bot::standing_from_scores;

/// The game totals of the seat's side against the best other side, plus this round's
/// captures so far (cards are what points are mostly made of).
pub fn standing(st: &State, seat: Seat) -> Option<f64> {
    let mut sides: Vec<i64> = st.scores.iter().map(|s| s * 4).collect();
    for (s, pile) in st.piles.iter().enumerate() {
        if let Some(v) = sides.get_mut(st.side_of(s)) {
            *v += pile.len() as i64;
        }
    }
    standing_from_scores(&sides, st.side_of(seat), 8.0)
}
