//! Invariants the contract harness checks after every action of every random playout.
//! Counts cannot go negative by construction (every count is unsigned and every payment goes
//! through a checked subtraction); these checks cover what the types do not: pieces within
//! the supply, chips and encounter cards conserved, friendship cards and tokens where the
//! stations say, victory points as recomputed, and resource cards moving only as the action
//! says (the bank's supply is unlimited, HR-1, so "bank + hands" is conserved exactly when
//! every change of a hand is a payment to or from the bank that the action accounts for).

use super::actions::Action;
use super::data::{Data, Resource, Resources};
use super::rules;
use super::state::{Phase, ShipKind, State};
use turnpost_engine::Seat;

/// One state on its own.
pub fn check_state(d: &Data, s: &State) -> Result<(), String> {
    if s.players.len() != s.seats {
        return Err("player table has the wrong size".into());
    }
    for seat in 0..s.seats {
        check_pieces(d, s, seat)?;
    }
    check_chips(d, s)?;
    check_encounter_cards(d, s)?;
    check_friendship(d, s)?;
    for seat in 0..s.seats {
        let recomputed = recompute_vp(d, s, seat);
        let shown = rules::vp(d, s, seat);
        if shown != recomputed {
            return Err(format!(
                "seat {seat} shows {shown} VP, its pieces add up to {recomputed}"
            ));
        }
    }
    if let Some(w) = s.winner
        && (!matches!(s.phase, Phase::Over) || rules::vp(d, s, w) < d.rules.victory_points)
    {
        return Err(format!(
            "seat {w} won without {} VP",
            d.rules.victory_points
        ));
    }
    Ok(())
}

fn check_pieces(d: &Data, s: &State, seat: Seat) -> Result<(), String> {
    let p = &s.players[seat];
    let ships: Vec<_> = s.ships.iter().filter(|x| x.owner == seat).collect();
    let colony_ships = ships.iter().filter(|x| x.kind == ShipKind::Colony).count() as u32;
    let trade_ships = ships.len() as u32 - colony_ships;
    let buildings = s.buildings.iter().filter(|b| b.owner == seat).count() as u32;
    let spaceports = s
        .buildings
        .iter()
        .filter(|b| b.owner == seat && b.spaceport)
        .count() as u32;
    let stations = s.stations.iter().filter(|x| x.owner == seat).count() as u32;
    let over = [
        ("transporters", ships.len() as u32, d.pieces.transporters),
        ("colony pieces", buildings + colony_ships, d.pieces.colonies),
        ("spaceport rings", spaceports, d.pieces.spaceports),
        (
            "trade modules",
            stations + trade_ships,
            d.pieces.trade_modules,
        ),
        ("boosters", p.boosters, d.limits.booster),
        ("cannons", p.cannons, d.limits.cannon),
        ("freight rings", p.freight_rings, d.limits.freight_ring),
        ("fame rings", p.fame, d.rules.fame_max),
    ];
    for (what, used, limit) in over {
        if used > limit {
            return Err(format!(
                "seat {seat} uses {used} {what}, the limit is {limit}"
            ));
        }
    }
    Ok(())
}

/// Every outer and reserve chip is on a planet, in the reserve pile, or kept by the player
/// who cleared it (pirates and ice); home planets keep their own chip.
fn check_chips(d: &Data, s: &State) -> Result<(), String> {
    if s.planets.len() != d.planets.len() {
        return Err("planet table has the wrong size".into());
    }
    let mut left: Vec<_> = d.outer_chips.iter().chain(&d.reserve_chips).collect();
    left.sort();
    let mut placed: Vec<_> = s.reserve.iter().collect();
    for (i, p) in s.planets.iter().enumerate() {
        match d.planets[i].home_chip {
            Some(h) if p.chip != Some(h) => {
                return Err(format!("home planet {} lost its chip", d.planets[i].name));
            }
            Some(_) => {}
            None => placed.extend(p.chip.iter()),
        }
    }
    for c in placed {
        match left.binary_search(&c) {
            Ok(i) => {
                left.remove(i);
            }
            Err(_) => return Err(format!("chip {c:?} is in play more often than it exists")),
        }
    }
    let kept: u32 = s.players.iter().map(|p| p.pirates + p.ice).sum();
    let cleared = left
        .iter()
        .filter(|c| !matches!(c, super::data::Chip::Number(_)))
        .count() as u32;
    if left.len() as u32 != kept || cleared != kept {
        return Err(format!(
            "{} chips are off the board and out of the reserve, players keep {kept}",
            left.len()
        ));
    }
    Ok(())
}

/// Each encounter card is in the deck, in the discard pile, or in the hand of the phase.
fn check_encounter_cards(d: &Data, s: &State) -> Result<(), String> {
    let mut all: Vec<usize> = s.deck.iter().chain(&s.discard).copied().collect();
    match &s.phase {
        Phase::Encounter { card } => all.push(*card),
        Phase::ScoutChoice { cards } => all.extend(cards),
        _ => {}
    }
    all.sort_unstable();
    if all != (0..d.encounters.len()).collect::<Vec<_>>() {
        return Err(format!("encounter cards are not each there once: {all:?}"));
    }
    if s.deck_known_bottom > s.deck.len() {
        return Err("more known cards under the deck than in it".into());
    }
    Ok(())
}

/// Friendship cards are where their owner list says; tokens go to the most stations.
fn check_friendship(d: &Data, s: &State) -> Result<(), String> {
    if s.card_owner.len() != d.friendship.len() || s.token.len() != d.outposts.len() {
        return Err("friendship tables have the wrong size".into());
    }
    for (c, owner) in s.card_owner.iter().enumerate() {
        for seat in 0..s.seats {
            let holds = s.players[seat].cards.iter().filter(|&&x| x == c).count();
            if holds != usize::from(*owner == Some(seat)) {
                return Err(format!(
                    "friendship card {c} is held {holds} times by seat {seat}, owner {owner:?}"
                ));
            }
        }
    }
    for o in 0..d.outposts.len() {
        let mut t = s.clone();
        let holder = rules::recompute_token(&mut t, o);
        if holder != s.token[o] {
            return Err(format!(
                "the token of outpost {o} is with {:?}, the stations give it to {holder:?}",
                s.token[o]
            ));
        }
    }
    Ok(())
}

/// VP added up piece by piece, independently of `rules::vp`.
fn recompute_vp(d: &Data, s: &State, seat: Seat) -> u32 {
    let p = &s.players[seat];
    let colonies = s
        .buildings
        .iter()
        .filter(|b| b.owner == seat && !b.spaceport)
        .count() as u32;
    let ports = s
        .buildings
        .iter()
        .filter(|b| b.owner == seat && b.spaceport)
        .count() as u32;
    let tokens = s.token.iter().filter(|t| **t == Some(seat)).count() as u32;
    colonies + 2 * ports + 2 * tokens + p.pirates + p.ice + p.fame / d.rules.fame_per_vp.max(1)
}

fn hand(s: &State, seat: Seat) -> Resources {
    s.players
        .get(seat)
        .map_or_else(Resources::default, |p| p.hand)
}

fn all_cards(s: &State) -> Resources {
    s.players
        .iter()
        .fold(Resources::default(), |a, p| a.plus(&p.hand))
}

/// What one action may do to the hands.
pub fn check_transition(
    d: &Data,
    before: &State,
    seat: Seat,
    action: &Action,
    after: &State,
) -> Result<(), String> {
    let others_same = |except: &[Seat]| -> Result<(), String> {
        for x in 0..before.seats {
            if !except.contains(&x) && hand(before, x) != hand(after, x) {
                return Err(format!(
                    "{action:?} by seat {seat} changed seat {x}'s hand from {:?} to {:?}",
                    hand(before, x),
                    hand(after, x)
                ));
            }
        }
        Ok(())
    };
    // The seat's hand after paying `cost` to the bank and taking `gain` from it.
    let exactly = |cost: &Resources, gain: &Resources| -> Result<(), String> {
        let want = hand(before, seat).minus(cost).map(|h| h.plus(gain));
        if want != Some(hand(after, seat)) {
            return Err(format!(
                "{action:?} turned seat {seat}'s hand {:?} into {:?}, expected {want:?}",
                hand(before, seat),
                hand(after, seat)
            ));
        }
        others_same(&[seat])
    };
    let one = |r: Resource| Resources::one(r, 1);
    let none = Resources::default();
    match action {
        Action::BuildColonyShip { .. } => exactly(&d.costs.colony_ship, &none),
        Action::BuildTradeShip { .. } => exactly(&d.costs.trade_ship, &none),
        Action::BuildSpaceport { .. } => exactly(&d.costs.spaceport, &none),
        Action::BuildBooster => exactly(&d.costs.booster, &none),
        Action::BuildCannon => exactly(&d.costs.cannon, &none),
        Action::BuildFreightRing => exactly(&d.costs.freight_ring, &none),
        Action::BankTrade { give, get } => exactly(
            &Resources::one(*give, rules::bank_rate(d, before, seat, *give)),
            &one(*get),
        ),
        Action::Broker { get } => exactly(&one(Resource::TradeGoods), &one(*get)),
        Action::TakeSupply { resource } | Action::TakeRelief { resource } => {
            exactly(&none, &one(*resource))
        }
        Action::Discard { resource } => exactly(&one(*resource), &none),
        // Cards change hands between players: none come from or go to the bank.
        Action::Steal { .. } | Action::AcceptOffer => {
            if all_cards(before) != all_cards(after) {
                return Err(format!(
                    "{action:?} changed the cards in play from {:?} to {:?}",
                    all_cards(before),
                    all_cards(after)
                ));
            }
            Ok(())
        }
        // Nothing here pays or earns a card.
        Action::OfferTrade { .. }
        | Action::WithdrawOffer
        | Action::DeclineOffer
        | Action::NoSteal
        | Action::Fly { .. }
        | Action::ClearPirates { .. }
        | Action::Terraform { .. }
        | Action::FoundColony { .. }
        | Action::FoundTradeStation { .. }
        | Action::TakeFriendshipCard { .. } => others_same(&[]),
        // Production, encounters and the rest: cards come from the bank, but only the
        // roller's production touches other hands, and an encounter only the active
        // player's (and, for charity, the poorest player's).
        _ => Ok(()),
    }
}
