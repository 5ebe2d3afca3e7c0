//! What the computer player ([`turnpost_engine::bot`]) scores an unfinished Space Empires 4X
//! by.

use super::State;
use turnpost_engine::Seat;
use turnpost_engine::bot::standing_from_scores;

/// The colony value a player holds and, far behind, its banked CP: the order the game ends
/// in when the round cap is reached. An eliminated player stands at nothing.
pub fn standing(st: &State, seat: Seat) -> Option<f64> {
    let scores: Vec<i64> = (0..st.seats)
        .map(|s| match st.players.get(s) {
            Some(p) if p.alive => {
                let colonies: i64 = st
                    .colonies
                    .iter()
                    .filter(|c| c.owner == s)
                    .map(|c| i64::from(c.value))
                    .sum();
                10 * colonies + p.cp / 10
            }
            _ => -1000,
        })
        .collect();
    standing_from_scores(&scores, seat, 40.0)
}
