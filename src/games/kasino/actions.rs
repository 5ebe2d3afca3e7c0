//! Actions: their shape, the rules that allow them (sections 5.1-5.6 of the digest), how
//! they change the state, and the enumeration of every legal one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::combos::{bits, partition, subsets_summing, unions};
use super::data::{diamond_10, spade_2, spade_5};
use super::largest::largest_split;
use super::state::{Build, BuildKind, Item, State};
use turnpost_engine::cards::{Card, Suit};
use turnpost_engine::{RuleError, Seat};

/// One play: every turn the active player plays exactly one card from hand.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Lay `card` face up on the table as a loose card ("udsmide").
    Trail { card: Card },
    /// Play `card` and take table items ("tage stik"): loose `cards` that split into groups
    /// each worth the card's hand value (a single loose card of that value is a group), and
    /// `builds` (by id) whose value equals it. A build is only ever taken whole, as a match.
    Capture {
        card: Card,
        /// Loose table cards taken.
        #[serde(default)]
        cards: Vec<Card>,
        /// Ids of builds taken.
        #[serde(default)]
        builds: Vec<u32>,
    },
    /// Play the ♠5 and take everything on the table, builds included: a sweep.
    ClearTable,
    /// Put `card` on the table with loose `cards` as one new build of `value` ("bygger").
    /// `card` plus the cards must split into groups each worth `value`: one group makes a
    /// single build, several make a multiple build ("mere"). You must keep another card of
    /// hand value `value`.
    Build {
        card: Card,
        value: u32,
        /// Loose table cards built with (at least one).
        cards: Vec<Card>,
    },
    /// Put `card` on a single build, raising it to `value` = build value + the card's table
    /// value ("bygger videre"). You must keep another card of hand value `value`.
    Raise { card: Card, build: u32, value: u32 },
    /// Add `card` (with optional loose `cards`) to a build as further groups of its value
    /// ("mere"). The build becomes multiple and yours. You must keep another card of its value.
    AddToBuild {
        card: Card,
        build: u32,
        /// Loose table cards added with the card.
        #[serde(default)]
        cards: Vec<Card>,
    },
}

impl Action {
    /// The card played from hand.
    pub fn card(&self) -> Card {
        match self {
            Action::Trail { card }
            | Action::Capture { card, .. }
            | Action::Build { card, .. }
            | Action::Raise { card, .. }
            | Action::AddToBuild { card, .. } => *card,
            Action::ClearTable => spade_5(),
        }
    }

    fn is_build_play(&self) -> bool {
        matches!(
            self,
            Action::Build { .. } | Action::Raise { .. } | Action::AddToBuild { .. }
        )
    }
}

fn err(code: &'static str, message: impl Into<String>) -> RuleError {
    RuleError::new(code, message)
}

/// The state after `seat` plays `action`, or why not.
pub fn apply(state: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
    if state.finished {
        return Err(RuleError::game_over());
    }
    if seat != state.turn {
        return Err(RuleError::not_your_turn(seat));
    }
    let card = action.card();
    let Some(pos) = state.hand(seat).iter().position(|&c| c == card) else {
        return Err(err(
            "card_not_in_hand",
            match action {
                Action::ClearTable => "you do not hold the 5♠".to_string(),
                _ => format!("you do not hold {}", card.pretty()),
            },
        ));
    };
    let owned = state.owned_build(seat).map(|b| (b.id, b.value));
    if state.must_capture(seat) && !matches!(action, Action::Capture { .. } | Action::ClearTable) {
        return Err(err(
            "must_capture",
            "you built last turn and still own the build: this turn you must capture (O2)",
        ));
    }
    let p = &state.params;
    let mut next = state.clone();
    if let Some(h) = next.hands.get_mut(seat) {
        h.remove(pos);
    }
    match action {
        Action::Trail { card } => next.table.push(Item::Loose { card: *card }),
        Action::Capture {
            card,
            cards,
            builds,
        } => {
            if cards.is_empty() && builds.is_empty() {
                return Err(err(
                    "nothing_to_capture",
                    "name the table cards or builds to take",
                ));
            }
            let cv = p.cv(*card);
            check_loose(state, cards)?;
            if builds.len() > state.builds().count() {
                return Err(err(
                    "no_such_build",
                    "more builds named than lie on the table",
                ));
            }
            for (i, id) in builds.iter().enumerate() {
                if builds[..i].contains(id) {
                    return Err(err("duplicate_item", format!("build B{id} is named twice")));
                }
                let Some(b) = state.build(*id) else {
                    return Err(err(
                        "no_such_build",
                        format!("there is no build B{id} on the table"),
                    ));
                };
                if b.value != cv {
                    return Err(err(
                        "build_not_matched",
                        format!(
                            "build B{id} is worth {} and can only be taken whole by a card worth {} (your {} is worth {cv})",
                            b.value,
                            b.value,
                            card.pretty()
                        ),
                    ));
                }
            }
            let tvs: Vec<u32> = cards.iter().map(|&c| p.tv(c)).collect();
            if partition(&tvs, cv).is_none() {
                return Err(err(
                    "bad_capture_sum",
                    format!(
                        "the loose cards taken must split into groups each worth {cv}, the value of {}",
                        card.pretty()
                    ),
                ));
            }
            let mut taken = vec![*card];
            next.table.retain(|item| match item {
                Item::Loose { card: c } if cards.contains(c) => {
                    taken.push(*c);
                    false
                }
                Item::Build(b) if builds.contains(&b.id) => {
                    taken.extend(b.cards.iter().copied());
                    false
                }
                _ => true,
            });
            next.capture(seat, taken);
        }
        Action::ClearTable => {
            if state.table.is_empty() {
                return Err(err(
                    "empty_table",
                    "the 5♠ clears the table, but the table is empty",
                ));
            }
            let mut taken = vec![spade_5()];
            for item in std::mem::take(&mut next.table) {
                match item {
                    Item::Loose { card } => taken.push(card),
                    Item::Build(b) => taken.extend(b.cards),
                }
            }
            next.capture(seat, taken);
        }
        Action::Build { card, value, cards } => {
            if owned.is_some() {
                return Err(err(
                    "already_own_build",
                    "you already own a build: take it before you build another (O1)",
                ));
            }
            if cards.is_empty() {
                return Err(err(
                    "build_needs_table_cards",
                    "a build uses at least one loose table card",
                ));
            }
            check_loose(state, cards)?;
            // Rules version 2: when the played card alone is worth the value
            // ("mere syv"), it is laid on one loose card of that value, not on a sum.
            if state.rules_version >= 2
                && p.tv(*card) == *value
                && !cards.iter().any(|&c| p.tv(c) == *value)
            {
                return Err(err(
                    "mere_needs_equal_card",
                    format!(
                        "{} alone is worth {value}: a \"mere\" build lays it on a loose card worth {value}, not on a sum",
                        card.pretty()
                    ),
                ));
            }
            let mut vals = vec![p.tv(*card)];
            vals.extend(cards.iter().map(|&c| p.tv(c)));
            if *value == 0 || partition(&vals, *value).is_none() {
                return Err(err(
                    "bad_build_sum",
                    format!(
                        "{} and the table cards must split into groups each worth {value}",
                        card.pretty()
                    ),
                ));
            }
            let total: u32 = vals.iter().sum();
            let mut pile = vec![*card];
            pile.extend(cards.iter().copied());
            next.table
                .retain(|i| !matches!(i, Item::Loose { card } if cards.contains(card)));
            let id = next.next_build_id;
            next.next_build_id = id.saturating_add(1);
            next.table.push(Item::Build(Build {
                id,
                value: *value,
                kind: if total == *value {
                    BuildKind::Single
                } else {
                    BuildKind::Multiple
                },
                owner: seat,
                cards: pile,
            }));
        }
        Action::Raise { card, build, value } => {
            let b = target_build(state, owned, *build)?;
            if b.kind == BuildKind::Multiple {
                return Err(err(
                    "cannot_raise_multiple",
                    format!("build B{build} is a multiple build and can never be raised"),
                ));
            }
            let new_value = b.value + p.tv(*card);
            if new_value != *value {
                return Err(err(
                    "wrong_build_value",
                    format!(
                        "{} on B{build} (worth {}) makes {new_value}, not {value}",
                        card.pretty(),
                        b.value
                    ),
                ));
            }
            if let Some(nb) = next.build_mut(*build) {
                nb.value = new_value;
                nb.owner = seat;
                nb.cards.push(*card);
            }
        }
        Action::AddToBuild { card, build, cards } => {
            let b = target_build(state, owned, *build)?;
            check_loose(state, cards)?;
            let mut vals = vec![p.tv(*card)];
            vals.extend(cards.iter().map(|&c| p.tv(c)));
            if partition(&vals, b.value).is_none() {
                return Err(err(
                    "bad_build_sum",
                    format!(
                        "{} and the table cards must split into groups each worth {}",
                        card.pretty(),
                        b.value
                    ),
                ));
            }
            next.table
                .retain(|i| !matches!(i, Item::Loose { card } if cards.contains(card)));
            if let Some(nb) = next.build_mut(*build) {
                nb.kind = BuildKind::Multiple;
                nb.owner = seat;
                nb.cards.push(*card);
                nb.cards.extend(cards.iter().copied());
            }
        }
    }
    // O3 (and "you must hold another card of the build's value" for build plays): whoever
    // owns a build after the play still holds a card that can take it.
    if let Some(b) = next.owned_build(seat) {
        let v = b.value;
        if !next.hand(seat).iter().any(|&c| p.cv(c) == v) {
            return Err(if action.is_build_play() {
                err(
                    "no_card_for_build",
                    format!("to build {v} you must keep another card worth {v} in hand"),
                )
            } else {
                err(
                    "must_keep_build_card",
                    format!(
                        "you own a build of {v}: keep a card worth {v} in hand until you take it (O3)"
                    ),
                )
            });
        }
    }
    if let Some(f) = next.built_last_turn.get_mut(seat) {
        *f = action.is_build_play();
    }
    next.advance();
    Ok(next)
}

/// The loose cards named exist on the table, once each.
fn check_loose(state: &State, cards: &[Card]) -> Result<(), RuleError> {
    let loose = state.loose();
    // More names than loose cards means a repeat or a stranger; refusing early keeps a
    // hostile list of a million cards cheap.
    if cards.len() > loose.len() {
        return Err(err(
            "not_on_table",
            format!("only {} loose cards lie on the table", loose.len()),
        ));
    }
    for (i, c) in cards.iter().enumerate() {
        if cards[..i].contains(c) {
            return Err(err(
                "duplicate_item",
                format!("{} is named twice", c.pretty()),
            ));
        }
        if !loose.contains(c) {
            return Err(err(
                "not_on_table",
                format!("{} is not a loose card on the table", c.pretty()),
            ));
        }
    }
    Ok(())
}

/// A build the player may raise or add to under O1: any build, unless they own another.
fn target_build(state: &State, owned: Option<(u32, u32)>, id: u32) -> Result<&Build, RuleError> {
    let Some(b) = state.build(id) else {
        return Err(err(
            "no_such_build",
            format!("there is no build B{id} on the table"),
        ));
    };
    if let Some((own, _)) = owned
        && own != id
    {
        return Err(err(
            "already_own_build",
            format!(
                "you own build B{own}: you may not change another player's build until you take yours (O1)"
            ),
        ));
    }
    Ok(b)
}

impl State {
    fn build_mut(&mut self, id: u32) -> Option<&mut Build> {
        self.table.iter_mut().find_map(|i| match i {
            Item::Build(b) if b.id == id => Some(b),
            _ => None,
        })
    }

    fn capture(&mut self, seat: Seat, taken: Vec<Card>) {
        if let Some(p) = self.piles.get_mut(seat) {
            p.extend(taken);
        }
        self.last_capturer = Some(seat);
        // An empty table after a capture is a sweep (the card played is in the pile).
        if self.table.is_empty()
            && let Some(s) = self.sweeps.get_mut(seat)
        {
            *s += 1;
        }
    }

    /// Next player; a new deal when every hand is empty; the end of the round when the
    /// stock is empty too.
    fn advance(&mut self) {
        self.turn = self.left_of(self.turn);
        if self.hands.iter().all(|h| h.is_empty()) {
            if self.stock.is_empty() {
                self.end_round();
            } else {
                self.deal_hand();
            }
        }
    }
}

/// Every action `seat` may play now, in a stable order: clear the table, captures, new
/// builds, raises, additions to builds, trails. On a crowded table a bounded sample of
/// them (see [`Listing`]).
pub fn legal(state: &State, seat: Seat) -> Vec<Action> {
    listing(state, seat).actions
}

/// The legal actions listed for a seat, and whether that is all of them. On a crowded
/// table the captures and builds of one card run into the millions: the list then holds a
/// bounded sample of them (each one valid), plus each card's largest capture, and
/// `complete` is false.
pub struct Listing {
    pub actions: Vec<Action>,
    pub complete: bool,
}

pub fn listing(state: &State, seat: Seat) -> Listing {
    let mut out = Vec::new();
    let mut complete = true;
    if state.finished || seat != state.turn {
        return Listing {
            actions: out,
            complete,
        };
    }
    let p = &state.params;
    let hand = state.hand(seat);
    let owned = state.owned_build(seat).map(|b| (b.id, b.value));
    let o2 = state.must_capture(seat);
    let loose = state.loose();
    let tvs: Vec<u32> = loose.iter().map(|&c| p.tv(c)).collect();
    let pick =
        |mask: u64| -> Vec<Card> { bits(mask).filter_map(|i| loose.get(i).copied()).collect() };
    // Would the rest of the hand still back the build this seat owns (O3)?
    let keeps = |played: usize| -> bool {
        owned.is_none_or(|(_, v)| {
            hand.iter()
                .enumerate()
                .any(|(i, &c)| i != played && p.cv(c) == v)
        })
    };
    let holds_other = |played: usize, v: u32| {
        hand.iter()
            .enumerate()
            .any(|(i, &c)| i != played && p.cv(c) == v)
    };

    if hand.contains(&spade_5()) && !state.table.is_empty() {
        out.push(Action::ClearTable);
    }
    for (i, &card) in hand.iter().enumerate() {
        let cv = p.cv(card);
        let groups = subsets_summing(&tvs, cv);
        let sets = unions(&[0], &groups.items);
        let matching: Vec<u32> = state
            .builds()
            .filter(|b| b.value == cv)
            .map(|b| b.id)
            .collect();
        let keep = keeps(i);
        for &mask in &sets.items {
            for sub in 0u32..(1 << matching.len()) {
                if mask == 0 && sub == 0 {
                    continue;
                }
                let builds: Vec<u32> = (0..matching.len())
                    .filter(|k| sub & (1 << k) != 0)
                    .filter_map(|k| matching.get(k).copied())
                    .collect();
                if !keep && !owned.is_some_and(|(id, _)| builds.contains(&id)) {
                    continue;
                }
                out.push(Action::Capture {
                    card,
                    cards: pick(mask),
                    builds,
                });
            }
        }
        if groups.complete && sets.complete {
            continue;
        }
        // A sample drawn in table order can miss the capture a player wants most: the
        // one taking the most cards is found directly and listed too, with every build
        // of the value (taking a build never stands in the way of a loose card).
        complete = false;
        let mask = largest_capture(state, &loose, &tvs, cv);
        let own_taken = owned.is_some_and(|(id, _)| matching.contains(&id));
        if mask != 0 && !sets.items.contains(&mask) && (keep || own_taken) {
            out.push(Action::Capture {
                card,
                cards: pick(mask),
                builds: matching,
            });
        }
    }
    if o2 {
        return Listing {
            actions: out,
            complete,
        };
    }
    if owned.is_none() {
        for (i, &card) in hand.iter().enumerate() {
            let tv = p.tv(card);
            let mut values: Vec<u32> = hand
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, &c)| p.cv(c))
                .filter(|&v| v >= tv)
                .collect();
            values.sort_unstable();
            values.dedup();
            for value in values {
                let starts = subsets_summing(&tvs, value - tv);
                let groups = subsets_summing(&tvs, value);
                // A mere build (the card alone worth the value) needs a loose card of the
                // value to lie on (rules version 2).
                let needs_equal = state.rules_version >= 2 && tv == value;
                let equal: u64 = tvs
                    .iter()
                    .enumerate()
                    .filter(|&(_, &v)| v == value)
                    .fold(0, |m, (i, _)| m | (1u64 << i));
                let sets = unions(&starts.items, &groups.items);
                complete &= starts.complete && groups.complete && sets.complete;
                for mask in sets.items {
                    if mask != 0 && (!needs_equal || mask & equal != 0) {
                        out.push(Action::Build {
                            card,
                            value,
                            cards: pick(mask),
                        });
                    }
                }
            }
        }
    }
    let targets: Vec<&Build> = state
        .builds()
        .filter(|b| owned.is_none_or(|(id, _)| id == b.id))
        .collect();
    for (i, &card) in hand.iter().enumerate() {
        for b in targets.iter().filter(|b| b.kind == BuildKind::Single) {
            let value = b.value + p.tv(card);
            if holds_other(i, value) {
                out.push(Action::Raise {
                    card,
                    build: b.id,
                    value,
                });
            }
        }
    }
    for (i, &card) in hand.iter().enumerate() {
        let tv = p.tv(card);
        for b in &targets {
            if tv > b.value || !holds_other(i, b.value) {
                continue;
            }
            let starts = subsets_summing(&tvs, b.value - tv);
            let groups = subsets_summing(&tvs, b.value);
            let sets = unions(&starts.items, &groups.items);
            complete &= starts.complete && groups.complete && sets.complete;
            for mask in sets.items {
                out.push(Action::AddToBuild {
                    card,
                    build: b.id,
                    cards: pick(mask),
                });
            }
        }
    }
    for (i, &card) in hand.iter().enumerate() {
        if keeps(i) {
            out.push(Action::Trail { card });
        }
    }
    Listing {
        actions: out,
        complete,
    }
}

/// The loose cards (as a mask over `loose`) of the capture with a card worth `cv` that
/// takes the most of them. Where cards of one value give a choice, the ones that score
/// (the casinos, aces, spades) are taken first.
fn largest_capture(state: &State, loose: &[Card], tvs: &[u32], cv: u32) -> u64 {
    let used = largest_split(tvs, cv).used;
    let worth = |c: Card| {
        let s = &state.params.scoring;
        let points = if c == diamond_10() {
            s.diamond_10
        } else if c == spade_2() {
            s.spade_2
        } else if c.rank == 1 {
            s.each_ace
        } else {
            0
        };
        (points, c.suit == Suit::Spades)
    };
    let mut order: Vec<usize> = (0..loose.len()).collect();
    // Stable: among cards worth the same, table order.
    order.sort_by_key(|&i| std::cmp::Reverse(loose.get(i).map(|&c| worth(c))));
    let mut left = used;
    let mut mask = 0u64;
    for i in order {
        let Some(n) = tvs
            .get(i)
            .and_then(|&v| usize::try_from(v).ok())
            .and_then(|v| left.get_mut(v))
        else {
            continue;
        };
        if *n > 0 && i < 64 {
            *n -= 1;
            mask |= 1u64 << i;
        }
    }
    mask
}
