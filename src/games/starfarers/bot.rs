//! What the computer player ([`turnpost_engine::bot`]) scores an unfinished Starfarers by,
//! and which of its legal actions it weighs.

use super::{Action, Data, State, rules};
use turnpost_engine::Seat;
use turnpost_engine::bot::standing_from_scores;

/// How many trade offers the computer makes in one turn. Offers cost it nothing, so
/// without a limit it made thousands a game (6,112 in one, none accepted).
pub const OFFERS_PER_TURN: usize = 2;

/// Victory points, which decide the game.
pub fn standing(d: &Data, st: &State, seat: Seat) -> Option<f64> {
    let vp: Vec<i64> = (0..st.seats)
        .map(|s| i64::from(rules::vp(d, st, s)))
        .collect();
    standing_from_scores(&vp, seat, 2.0)
}

/// The computer's candidates out of `legal`. While its own offer stands it weighs nothing:
/// withdrawing the offer, spending the offered cards, launching or ending the turn would
/// all take the offer away before the other player could answer it, so its turn waits for
/// the answer (the server hands the decision to the recipient meanwhile). And once it made
/// [`OFFERS_PER_TURN`] offers this turn it makes no more.
pub fn candidates(
    st: &State,
    seat: Seat,
    mut legal: Vec<Action>,
    recent: &[(Seat, Action)],
) -> Vec<Action> {
    if st.offer.as_ref().is_some_and(|o| o.from == seat) {
        return Vec::new();
    }
    if legal.iter().any(|a| matches!(a, Action::OfferTrade { .. }))
        && offers_this_turn(recent, seat) >= OFFERS_PER_TURN
    {
        legal.retain(|a| !matches!(a, Action::OfferTrade { .. }));
    }
    legal
}

/// The offers `seat` made since its turn began with its roll. When the roll is out of
/// sight (a turn longer than the history shown), the limit counts as reached: the rule is
/// "at most", never "at least".
fn offers_this_turn(recent: &[(Seat, Action)], seat: Seat) -> usize {
    let mut offers = 0;
    for (_, a) in recent.iter().rev().filter(|(s, _)| *s == seat) {
        match a {
            Action::Roll => return offers,
            Action::OfferTrade { .. } => offers += 1,
            _ => {}
        }
    }
    OFFERS_PER_TURN
}
