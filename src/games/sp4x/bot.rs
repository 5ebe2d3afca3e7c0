//! What the computer player ([`turnpost_engine::bot`]) scores an unfinished SP4X by.

use super::State;
use turnpost_engine::Seat;
use turnpost_engine::bot::standing_from_scores;

/// The running score, which is what ranks the players at the end.
pub fn standing(st: &State, seat: Seat) -> Option<f64> {
    let scores: Vec<i64> = st.players.iter().map(|p| p.score).collect();
    let scale = scores.iter().map(|v| v.abs()).max().unwrap_or(0).max(4) as f64 / 4.0;
    standing_from_scores(&scores, seat, scale)
}
