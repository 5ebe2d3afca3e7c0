//! Invariants the contract harness checks after every action of every random playout:
//! the 52 cards conserved, builds worth what they claim, scores equal to their history, and
//! each finished round's points recomputed from the captured cards.

use std::collections::BTreeSet;

use super::actions::Action;
use super::combos::partition;
use super::data::{diamond_10, spade_2};
use super::state::{BuildKind, CURRENT_RULES, FIRST_RULES, Item, State};
use turnpost_engine::Seat;
use turnpost_engine::cards::{Card, Suit};

fn item_cards(item: &Item) -> Vec<Card> {
    match item {
        Item::Loose { card } => vec![*card],
        Item::Build(b) => b.cards.clone(),
    }
}

/// Every invariant of one state, or the first one broken.
pub fn check_state(st: &State) -> Result<(), String> {
    if !(FIRST_RULES..=CURRENT_RULES).contains(&st.rules_version) {
        return Err(format!("unknown rules version {}", st.rules_version));
    }
    if st.turn >= st.seats || st.dealer >= st.seats {
        return Err(format!(
            "turn {} or dealer {} out of range",
            st.turn, st.dealer
        ));
    }
    if st.hands.len() != st.seats || st.piles.len() != st.seats || st.sweeps.len() != st.seats {
        return Err("hands, piles or sweeps do not match the seats".into());
    }
    // Stock, hands, table and capture piles hold each card once: 52 in all, except that
    // cards left on the table when nobody captured in the game's last round are set aside
    // (HR-6); at any other time that happens a new round is dealt at once.
    let all: Vec<Card> = st
        .stock
        .iter()
        .chain(st.hands.iter().flatten())
        .chain(st.piles.iter().flatten())
        .copied()
        .chain(st.table.iter().flat_map(item_cards))
        .collect();
    let distinct: BTreeSet<Card> = all.iter().copied().collect();
    let set_aside = st.finished && st.last_capturer.is_none();
    if distinct.len() != all.len() || (all.len() != 52 && !set_aside) {
        return Err(format!(
            "cards not conserved: {} cards, {} distinct, not 52",
            all.len(),
            distinct.len()
        ));
    }
    let mut ids = BTreeSet::new();
    for b in st.builds() {
        let tvs: Vec<u32> = b.cards.iter().map(|&c| st.params.tv(c)).collect();
        let sum: u32 = tvs.iter().sum();
        let fits = match b.kind {
            BuildKind::Single => sum == b.value,
            BuildKind::Multiple => sum > b.value && partition(&tvs, b.value).is_some(),
        };
        if !fits || !ids.insert(b.id) || b.id >= st.next_build_id || b.owner >= st.seats {
            return Err(format!(
                "build B{} is not worth {} as recorded",
                b.id, b.value
            ));
        }
    }
    check_scores(st)
}

/// Totals equal the sum of the round lines, each line the sum of its items, and the game
/// is over exactly when someone reached the target alone at the top (section 6, HR-11).
fn check_scores(st: &State) -> Result<(), String> {
    let sides = if st.options.teams { 2 } else { st.seats };
    if st.scores.len() != sides {
        return Err(format!("{} scores for {sides} sides", st.scores.len()));
    }
    for (side, &score) in st.scores.iter().enumerate() {
        let mut sum = 0;
        for (r, lines) in st.history.iter().enumerate() {
            let line = lines
                .get(side)
                .ok_or_else(|| format!("round {} has no score line for side {side}", r + 1))?;
            if line.points != line.items.iter().map(|(_, v)| v).sum::<i64>() {
                return Err(format!(
                    "round {} line of side {side} does not add up",
                    r + 1
                ));
            }
            sum += line.points;
        }
        if sum != score {
            return Err(format!(
                "side {side} has score {score}, but its rounds add up to {sum}"
            ));
        }
    }
    let top = st.scores.iter().copied().max().unwrap_or(0);
    let over = top >= st.params.game.target && st.scores.iter().filter(|&&s| s == top).count() == 1;
    if over != st.finished {
        return Err(format!(
            "finished is {} with scores {:?}",
            st.finished, st.scores
        ));
    }
    Ok(())
}

/// When `seat`'s action ends a round, the points it adds are recomputed from the capture
/// piles (the rest of the table goes to the last capturer, HR-6 if nobody), with ties for
/// most spades or cards scoring nothing; the sides share the 11 points plus sweeps. Any
/// other action adds no points.
pub fn check_step(
    before: &State,
    seat: Seat,
    action: &Action,
    after: &State,
) -> Result<(), String> {
    if after.rules_version != before.rules_version {
        return Err("the rules version changed".into());
    }
    if after.history.len() == before.history.len() {
        if after.scores != before.scores {
            return Err("scores changed in the middle of a round".into());
        }
        return Ok(());
    }
    if after.history.len() != before.history.len() + 1 {
        return Err("more than one round ended in one action".into());
    }
    let captures = matches!(action, Action::Capture { .. } | Action::ClearTable);
    let mut piles = before.piles.clone();
    let mut sweeps = before.sweeps.clone();
    let last = if captures {
        Some(seat)
    } else {
        before.last_capturer
    };
    // The last card of the round: it and everything on the table end with the capturer.
    let mut rest: Vec<Card> = before.table.iter().flat_map(item_cards).collect();
    rest.push(action.card());
    if let Some(pile) = last.and_then(|s| piles.get_mut(s)) {
        pile.extend(rest);
    }
    let took_all = match action {
        Action::ClearTable => true,
        Action::Capture { cards, builds, .. } => cards.len() + builds.len() == before.table.len(),
        _ => false,
    };
    if took_all && let Some(n) = sweeps.get_mut(seat) {
        *n += 1;
    }
    let sides = before.scores.len();
    let side_of = |s: Seat| if before.options.teams { s % 2 } else { s };
    let mut pile_of = vec![Vec::new(); sides];
    let mut sweeps_of = vec![0i64; sides];
    for s in 0..before.seats {
        if let Some(p) = pile_of.get_mut(side_of(s)) {
            p.extend(piles.get(s).cloned().unwrap_or_default());
        }
        if let Some(n) = sweeps_of.get_mut(side_of(s)) {
            *n += i64::from(sweeps.get(s).copied().unwrap_or(0));
        }
    }
    if before.options.sweeps_cancel {
        let low = sweeps_of.iter().copied().min().unwrap_or(0);
        for n in &mut sweeps_of {
            *n -= low;
        }
    }
    let sc = &before.params.scoring;
    let spades: Vec<usize> = pile_of
        .iter()
        .map(|p| p.iter().filter(|c| c.suit == Suit::Spades).count())
        .collect();
    let counts: Vec<usize> = pile_of.iter().map(Vec::len).collect();
    let alone_on_top = |v: &[usize]| {
        let top = v.iter().copied().max().unwrap_or(0);
        let at_top: Vec<usize> = (0..v.len()).filter(|&i| v[i] == top).collect();
        (at_top.len() == 1).then(|| at_top[0])
    };
    let mut points = vec![0i64; sides];
    let mut award = |side: Option<usize>, pts: i64| {
        if let Some(p) = side.and_then(|s| points.get_mut(s)) {
            *p += pts;
        }
    };
    award(alone_on_top(&spades), sc.most_spades);
    award(alone_on_top(&counts), sc.most_cards);
    for (side, pile) in pile_of.iter().enumerate() {
        if pile.contains(&diamond_10()) {
            award(Some(side), sc.diamond_10);
        }
        if pile.contains(&spade_2()) {
            award(Some(side), sc.spade_2);
        }
        award(
            Some(side),
            sc.each_ace * pile.iter().filter(|c| c.rank == 1).count() as i64,
        );
        award(Some(side), sc.each_sweep * sweeps_of[side]);
    }
    award(last.map(side_of), sc.last_capture);
    let lines = after.history.last().map(Vec::as_slice).unwrap_or(&[]);
    for (side, &worth) in points.iter().enumerate() {
        let added = after.scores.get(side).copied().unwrap_or(0)
            - before.scores.get(side).copied().unwrap_or(0);
        let line = lines.get(side).map_or(i64::MIN, |l| l.points);
        if added != worth || line != worth {
            return Err(format!(
                "side {side} scored {added} (line {line}) but its cards are worth {worth}"
            ));
        }
    }
    // With every card captured the round hands out the 11 points (fewer only for ties for
    // most spades or most cards) plus the sweeps.
    if last.is_some() {
        let mut available = sc.diamond_10 + sc.spade_2 + 4 * sc.each_ace + sc.last_capture;
        if alone_on_top(&spades).is_some() {
            available += sc.most_spades;
        }
        if alone_on_top(&counts).is_some() {
            available += sc.most_cards;
        }
        available += sc.each_sweep * sweeps_of.iter().sum::<i64>();
        let total: i64 = points.iter().sum();
        if total != available {
            return Err(format!(
                "the round handed out {total} points, not {available}"
            ));
        }
    }
    Ok(())
}
