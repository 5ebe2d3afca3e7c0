//! What the computer player ([`turnpost_engine::bot`]) scores an unfinished Partners by.

use super::{Loc, State};
use turnpost_engine::Seat;
use turnpost_engine::bot::standing_from_scores;

/// A team's pieces in play and in its homes, deeper homes counting more: the race the
/// team must win with all eight.
pub fn standing(st: &State, seat: Seat) -> Option<f64> {
    let mut teams = [0i64; 2];
    for (colour, pieces) in st.pieces.iter().enumerate() {
        let progress: i64 = pieces
            .iter()
            .map(|p| match p.loc {
                Loc::Circle => 0,
                Loc::Track(_) => 2,
                Loc::Home(h) => 4 + i64::from(h),
            })
            .sum();
        teams[State::team_of(colour)] += progress;
    }
    standing_from_scores(&teams, State::team_of(seat), 4.0)
}
