//! Invariants the contract harness checks after every action: the action cards, the map
//! tiles and each colour's pieces are conserved, resource tracks stay within 0..=track_max,
//! and resources are only spent when there is something to pay.

use super::actions::Action;
use super::data::Data;
use super::state::{Card, Resource, State, Step, TileKind};
use turnpost_engine::Seat;

/// Every state the engine produces satisfies these.
pub fn check(d: &Data, st: &State) -> Result<(), String> {
    let n = st.seats;
    if !(3..=4).contains(&n) || st.players.len() != n || st.current >= n {
        return Err(format!(
            "{n} seats, {} players, current {}",
            st.players.len(),
            st.current
        ));
    }
    cards(d, st)?;
    board(d, st)?;
    for (s, p) in st.players.iter().enumerate() {
        if let Some(r) = p.res.iter().position(|&v| v > d.track_max) {
            return Err(format!(
                "seat {s} holds {} {} (the track ends at {})",
                p.res[r],
                Resource::ALL[r].name(),
                d.track_max
            ));
        }
        if !p.hand.is_sorted() {
            return Err(format!(
                "seat {s}'s hand is not kept sorted (its order would tell)"
            ));
        }
    }
    if st.step != Step::Frames && !st.frames.is_empty() {
        return Err(format!("{:?} step with frames pending", st.step));
    }
    Ok(())
}

/// The action cards (ai included) are all in hands, the deck, the discard or lying out (a
/// shown grand plan), exactly as many of each as the data says; the star is the deck's last card and nowhere else.
fn cards(d: &Data, st: &State) -> Result<(), String> {
    if st.deck.last() != Some(&Card::Star) {
        return Err("the star card is not at the bottom of the deck".into());
    }
    let mut seen: Vec<Card> = st
        .players
        .iter()
        .flat_map(|p| p.hand.iter().copied())
        .chain(st.deck.iter().copied().filter(|&c| c != Card::Star))
        .chain(st.discard.iter().copied())
        // A shown grand plan lies face up in front of its owner until their next turn.
        .chain(
            st.players
                .iter()
                .filter(|p| p.plan_out)
                .map(|_| Card::GrandPlan),
        )
        .collect();
    if st.deck.iter().filter(|&&c| c == Card::Star).count() != 1 || seen.contains(&Card::Star) {
        return Err("the star card is in a hand, the discard or twice in the deck".into());
    }
    seen.sort_unstable();
    let mut all = d.action_cards();
    all.sort_unstable();
    if seen != all {
        return Err(format!(
            "{} action cards in hands, deck and discard; the game has {}: {seen:?}",
            seen.len(),
            all.len()
        ));
    }
    Ok(())
}

/// Map tiles conserved (board + stack = the data's counts, one mothership at the centre,
/// one tile per hex); each colour's men, bases and roads on the board within its supply;
/// every road on an edge between two neighbouring positions, once per colour.
fn board(d: &Data, st: &State) -> Result<(), String> {
    let n = st.seats;
    for kind in TileKind::ALL {
        let placed = st.tiles.iter().filter(|t| t.kind == kind).count();
        let stacked = st.tile_stack.iter().filter(|&&k| k == kind).count();
        let expect = usize::from(d.tile(kind).count);
        if placed + stacked != expect {
            return Err(format!(
                "{} {} tiles (board {placed}, stack {stacked}), the game has {expect}",
                placed + stacked,
                kind.name()
            ));
        }
    }
    if st
        .tiles
        .first()
        .is_none_or(|t| t.kind != TileKind::Mothership || t.hex.q != 0 || t.hex.r != 0)
    {
        return Err("the mothership is not the first tile at (0,0)".into());
    }
    for (i, t) in st.tiles.iter().enumerate() {
        if st.tiles[..i].iter().any(|u| u.hex == t.hex) {
            return Err(format!("two tiles at {}", t.hex));
        }
        if t.men.len() != n || t.bases.len() != n {
            return Err(format!(
                "the tile at {} has pieces for the wrong seats",
                t.hex
            ));
        }
    }
    for s in 0..n {
        let (men, bases, roads) = (
            st.men_on_board(s),
            st.bases_on_board(s),
            st.roads_on_board(s),
        );
        if men > u32::from(d.men) || bases > u32::from(d.bases) || roads > u32::from(d.roads) {
            return Err(format!(
                "seat {s} has {men} men, {bases} bases, {roads} roads on the board; the supply is {}, {}, {}",
                d.men, d.bases, d.roads
            ));
        }
    }
    for (i, r) in st.roads.iter().enumerate() {
        if r.owner >= n || r.a >= r.b || !r.a.neighbors().contains(&r.b) {
            return Err(format!("a road {}-{} is not on an edge", r.a, r.b));
        }
        if st.roads[..i].contains(r) {
            return Err(format!("two roads of seat {} on {}-{}", r.owner, r.a, r.b));
        }
    }
    Ok(())
}

/// One transition: spending a resource needs that resource (the engine's payment saturates
/// at 0, so a free payment would otherwise pass unseen), and costs exactly 1.
pub fn check_step(
    before: &State,
    seat: Seat,
    action: &Action,
    after: &State,
) -> Result<(), String> {
    let paid = match action {
        Action::SpendFoodMove { .. } | Action::SpendFoodMan { .. } => Some(Resource::Food),
        Action::SpendPlasticRoad { .. } => Some(Resource::Plastic),
        _ => None,
    };
    if let Some(r) = paid {
        let had = before.players.get(seat).map_or(0, |p| p.res[r.idx()]);
        let has = after.players.get(seat).map_or(0, |p| p.res[r.idx()]);
        if had == 0 || has + 1 != had {
            return Err(format!(
                "seat {seat} paid 1 {} going from {had} to {has}",
                r.name()
            ));
        }
    }
    // The age and the game only move forward.
    if after.age < before.age || (before.step == Step::Over && after != before) {
        return Err("the age went back or a finished game changed".into());
    }
    Ok(())
}
