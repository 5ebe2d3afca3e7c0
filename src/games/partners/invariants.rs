//! Invariants the contract harness checks after every action of every random playout:
//! pieces and cards conserved, turn and dealer sane, home pieces never leave home.

use std::collections::BTreeSet;

use super::actions::Action;
use super::data::{COLOURS, Data};
use super::moves;
use super::rules;
use super::state::{Loc, Phase, State};
use turnpost_engine::cards::Card;

/// Every invariant of one state, or the first one broken.
pub fn check_state(d: &Data, st: &State) -> Result<(), String> {
    if !(rules::FIRST..=rules::CURRENT).contains(&st.rules_version) {
        return Err(format!("unknown rules version {}", st.rules_version));
    }
    if st.seats != 2 && st.seats != 4 {
        return Err(format!("{} seats", st.seats));
    }
    for (name, len) in [
        ("hands", st.hands.len()),
        ("discarded", st.discarded.len()),
        ("pending", st.pending.len()),
        ("given", st.given.len()),
        ("pieces", st.pieces.len()),
    ] {
        if len != COLOURS {
            return Err(format!("{name} has {len} entries, not {COLOURS}"));
        }
    }
    check_pieces(d, st)?;
    check_cards(st)?;
    check_turn(d, st)
}

/// Four pieces per colour, each somewhere real; home fields hold one piece; a track field
/// holds one colour; the "has left its start field" flag matches where the piece is.
fn check_pieces(d: &Data, st: &State) -> Result<(), String> {
    let mut field_colour: Vec<Option<usize>> = vec![None; usize::from(d.board.track_fields)];
    let mut field_count = vec![0usize; usize::from(d.board.track_fields)];
    for (c, ps) in st.pieces.iter().enumerate() {
        if ps.len() != usize::from(d.board.pieces_per_colour) {
            return Err(format!("colour {c} has {} pieces", ps.len()));
        }
        let mut homes = BTreeSet::new();
        for p in ps {
            match p.loc {
                Loc::Circle if p.left_start => {
                    return Err(format!(
                        "colour {c}: a piece in the circle has left its start"
                    ));
                }
                Loc::Circle => {}
                Loc::Track(f) => {
                    let slot = field_colour
                        .get_mut(usize::from(f))
                        .ok_or_else(|| format!("colour {c}: a piece on field {f}"))?;
                    if slot.is_some_and(|o| o != c) {
                        return Err(format!("field {f} holds two colours"));
                    }
                    *slot = Some(c);
                    if let Some(n) = field_count.get_mut(usize::from(f)) {
                        *n += 1;
                    }
                    if !p.left_start && f != d.start_field(c) {
                        return Err(format!(
                            "colour {c}: a piece on {f} has never left its start field"
                        ));
                    }
                }
                Loc::Home(h) => {
                    if h == 0 || h > d.board.home_fields {
                        return Err(format!("colour {c}: a piece on home field {h}"));
                    }
                    if !homes.insert(h) {
                        return Err(format!("colour {c}: two pieces on H{h}"));
                    }
                }
            }
        }
    }
    if st.rules().two_per_field()
        && let Some(f) = field_count.iter().position(|&n| n > 2)
    {
        return Err(format!(
            "field {f} holds more than two pieces (rules version 1)"
        ));
    }
    Ok(())
}

/// Deck, hands, chosen exchange cards and the face-up pile are the 52 cards, once each.
fn check_cards(st: &State) -> Result<(), String> {
    let all: Vec<Card> = st
        .deck
        .iter()
        .chain(st.hands.iter().flatten())
        .chain(st.pending.iter().flatten())
        .chain(&st.played)
        .copied()
        .collect();
    let distinct: BTreeSet<Card> = all.iter().copied().collect();
    if all.len() != 52 || distinct.len() != 52 {
        return Err(format!(
            "cards not conserved: {} cards, {} distinct (deck {}, hands {}, exchange {}, pile {})",
            all.len(),
            distinct.len(),
            st.deck.len(),
            st.hands.iter().map(Vec::len).sum::<usize>(),
            st.pending.iter().flatten().count(),
            st.played.len()
        ));
    }
    Ok(())
}

/// Dealer, turn and deal counters in range; the phase fits the hands and the exchange; the
/// game is over exactly when a team is home or the deal limit ended it.
fn check_turn(d: &Data, st: &State) -> Result<(), String> {
    if st.dealer >= COLOURS || st.turn >= COLOURS {
        return Err(format!(
            "dealer {} or turn {} out of range",
            st.dealer, st.turn
        ));
    }
    if st.deal_in_cycle == 0 || st.deal_in_cycle > d.deal.deals_per_cycle || st.deals == 0 {
        return Err(format!(
            "deal {} of the cycle, {} in all",
            st.deal_in_cycle, st.deals
        ));
    }
    for (p, h) in st.hands.iter().enumerate() {
        if h.len() > usize::from(d.deal.cards_per_deal) {
            return Err(format!("hand {p} holds {} cards", h.len()));
        }
        if st.discarded.get(p).copied().unwrap_or(false) && !h.is_empty() {
            return Err(format!("hand {p} was laid down but holds cards"));
        }
    }
    let given = st.given.iter().flatten().count();
    if given != 0 && given != COLOURS {
        return Err(format!("{given} of the exchanged cards recorded"));
    }
    let chosen = st.pending.iter().flatten().count();
    let team_home = (0..2).find(|&t| moves::team_home(&st.pieces, t));
    let limit_reached = st.options.deal_limit > 0 && st.deals >= st.options.deal_limit;
    match st.phase {
        Phase::Exchange => {
            if st.seats != 4 || given != 0 || chosen == COLOURS {
                return Err("exchange phase out of step".into());
            }
        }
        Phase::Play => {
            if chosen != 0 {
                return Err("exchange choices left over in the play phase".into());
            }
            if st.hands.get(st.turn).is_none_or(Vec::is_empty) {
                return Err(format!("hand {} is to play but holds no card", st.turn));
            }
        }
        Phase::Finished => {
            let fits = match st.winner {
                Some(t) => team_home == Some(t) || limit_reached,
                None => limit_reached && team_home.is_none(),
            };
            if !fits {
                return Err(format!("finished with winner {:?} unexplained", st.winner));
            }
            return Ok(());
        }
    }
    if let Some(t) = team_home {
        return Err(format!("team {t} is home but the game goes on"));
    }
    Ok(())
}

/// Invariants of one transition: the rules version never changes, a piece in home never
/// leaves it, and a play moves exactly the cards it names from the hand to the pile.
pub fn check_step(before: &State, action: &Action, after: &State) -> Result<(), String> {
    if before.rules_version != after.rules_version {
        return Err("the rules version changed".into());
    }
    for c in 0..COLOURS {
        let home = |st: &State| {
            st.pieces.get(c).map_or(0, |ps| {
                ps.iter().filter(|p| matches!(p.loc, Loc::Home(_))).count()
            })
        };
        if home(after) < home(before) {
            return Err(format!("a piece of colour {c} left its home"));
        }
    }
    let p = before.turn;
    let same_deal = after.deals == before.deals;
    if before.phase == Phase::Play && same_deal {
        let held = before.hands.get(p).map_or(0, Vec::len);
        let left = after.hands.get(p).map_or(0, Vec::len);
        let gone = match action {
            Action::Discard => held,
            _ => 1,
        };
        if held.checked_sub(left) != Some(gone) || after.played.len() != before.played.len() + gone
        {
            return Err(format!(
                "hand {p} went from {held} to {left} cards, the pile from {} to {}",
                before.played.len(),
                after.played.len()
            ));
        }
        if let Some(card) = action.card()
            && (after.played.last() != Some(&card)
                || after.hands.get(p).is_some_and(|h| h.contains(&card)))
        {
            return Err(format!("{card} was not moved from the hand to the pile"));
        }
    }
    Ok(())
}
