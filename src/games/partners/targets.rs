//! What a play involves on the board picture (`data-target` tokens), and how the log tells
//! it after the player's name.

use super::actions::{Action, Spot};
use super::board::{card_target, circle_target, field_target, home_target};
use super::data::Data;
use super::moves::{self, Pieces};
use super::state::{Loc, State};
use super::view::cap;

/// The colour whose home field `h` holds a piece moved by the hand of colour `p`: the
/// colour it moves (its own, or the partner's once its own are home), else the other one
/// of the pair (a seven may move both).
fn home_colour(d: &Data, pieces: &Pieces, p: usize, h: u8) -> String {
    let own = moves::mover(pieces, p);
    let other = (own + 2) % 4;
    let holds = |c: usize| {
        pieces
            .get(c)
            .is_some_and(|ps| ps.iter().any(|pc| pc.loc == Loc::Home(h)))
    };
    let c = if !holds(own) && holds(other) {
        other
    } else {
        own
    };
    cap(d.colour(c))
}

fn spot_target(d: &Data, pieces: &Pieces, p: usize, spot: Spot) -> String {
    match spot {
        Spot::Track(f) => field_target(f),
        Spot::Home(h) => home_target(&home_colour(d, pieces, p, h), h),
    }
}

fn loc_target(d: &Data, c: usize, loc: Loc) -> String {
    match loc {
        Loc::Track(f) => field_target(f),
        Loc::Home(h) => home_target(&cap(d.colour(c)), h),
        Loc::Circle => circle_target(&cap(d.colour(c))),
    }
}

/// The card played (`card:7H`), the piece's place (`field:12`, `home:Yellow.2`,
/// `circle:Yellow`) and, for a single move, where it ends.
pub fn targets(d: &Data, st: &State, action: &Action) -> Vec<String> {
    let p = st.turn;
    let pieces = &st.pieces;
    let mut t: Vec<String> = action.card().map(card_target).into_iter().collect();
    match action {
        Action::Exchange { .. } | Action::Discard => {}
        Action::Start { .. } => {
            let c = moves::mover(pieces, p);
            t.push(circle_target(&cap(d.colour(c))));
            t.push(field_target(d.start_field(c)));
        }
        Action::Forward {
            from,
            steps,
            into_home,
            ..
        } => {
            t.push(spot_target(d, pieces, p, *from));
            let c = moves::mover(pieces, p);
            if let Ok(to) = moves::walk_forward(
                d,
                st.rules(),
                pieces,
                c,
                moves::spot_loc(*from),
                *steps,
                *into_home,
            ) {
                t.push(loc_target(d, c, to));
            }
        }
        Action::Back { from, .. } => t.push(field_target(*from)),
        Action::Seven { parts, .. } => {
            for part in parts {
                let target = spot_target(d, pieces, p, part.from);
                if !t.contains(&target) {
                    t.push(target);
                }
            }
        }
        Action::Swap { a, b, .. } => {
            t.push(field_target(*a));
            t.push(field_target(*b));
        }
    }
    t.dedup();
    t
}

/// The play as the log tells it after the player's name: "played 7♥: Yellow moves …",
/// "gave 9♣ to Blue" (seen only by who may see the exchange card).
pub fn log_text(d: &Data, st: &State, seat_colour: usize, action: &Action) -> String {
    match action {
        Action::Exchange { card } => format!(
            "gave {} to their partner ({})",
            card.pretty(),
            cap(d.colour(State::partner(seat_colour)))
        ),
        Action::Discard => {
            let hand: Vec<String> = st
                .hands
                .get(st.turn)
                .map(|h| h.iter().map(|c| c.pretty()).collect())
                .unwrap_or_default();
            format!(
                "could use no card and laid down the hand of {}: {}",
                cap(d.colour(st.turn)),
                hand.join(" ")
            )
        }
        _ => {
            let card = action.card().map_or_else(String::new, |c| c.pretty());
            let mut pieces = st.pieces.clone();
            let mut events = Vec::new();
            match moves::perform(d, st.rules(), &mut pieces, st.turn, action, &mut events) {
                Ok(()) => format!(
                    "played {card} for {}: {}",
                    cap(d.colour(st.turn)),
                    events.join(", ")
                ),
                Err(_) => format!("played {card} for {}", cap(d.colour(st.turn))),
            }
        }
    }
}
