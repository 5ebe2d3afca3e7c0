//! What the computer player ([`turnpost_engine::bot`]) scores an unfinished Fuldrigger by.

use super::{Board, State, rules};
use turnpost_engine::Seat;
use turnpost_engine::bot::standing_from_scores;

/// The seat's fortune (what ranks the players at the end) against the richest other.
pub fn standing(b: &Board, st: &State, seat: Seat) -> Option<f64> {
    let fortunes: Vec<i64> = (0..st.seats).map(|s| rules::fortune(b, st, s)).collect();
    let scale = fortunes.iter().map(|f| f.abs()).max().unwrap_or(0).max(1) as f64 / 4.0;
    standing_from_scores(&fortunes, seat, scale)
}
