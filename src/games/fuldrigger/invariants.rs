//! Invariants the contract harness checks after every action of every random playout:
//! what a state must always satisfy, and what one action may change. Money cannot go
//! negative by construction (cash is unsigned and every payment goes through `State::pay`,
//! which never takes more than a player has); the checks here cover what the types do not.

use std::collections::BTreeMap;

use super::actions::Action;
use super::data::{Board, CardEffect};
use super::rules::{fortune, ship_value, tokens_in_play};
use super::state::{Phase, SHIP_PAID_PRICE_SINCE, State, Token};
use turnpost_engine::Seat;

/// Prices a ship can have been bought at: the standard price or a shipyards card's price.
fn ship_prices(b: &Board) -> Vec<u32> {
    let mut v = vec![b.c.ship_price];
    v.extend(b.cards.iter().filter_map(|c| match c.effect {
        CardEffect::ShipPrice { amount } => Some(amount),
        _ => None,
    }));
    v
}

fn check_token(b: &Board, t: &Token, what: &str) -> Result<(), String> {
    if t.good >= b.goods.len() {
        return Err(format!("{what} holds unknown good {}", t.good));
    }
    // Every token was bought from the bank at a port's K price (nothing else creates one;
    // chance cards move only sale prices).
    let listed = b.ports.get(t.bought_at).and_then(|p| p.buy_price(t.good));
    if listed != Some(t.price) {
        return Err(format!(
            "{what}: token of good {} records price {} from port {}, which lists {listed:?}",
            t.good, t.price, t.bought_at
        ));
    }
    Ok(())
}

/// One state on its own.
pub fn check_state(b: &Board, st: &State) -> Result<(), String> {
    if st.players.len() != st.seats || st.forts.len() != b.ports.len() {
        return Err("player or fort table has the wrong size".into());
    }
    // Ships: unique ids below the counter, real owners and fields, limits kept.
    let mut seen = BTreeMap::new();
    let prices = ship_prices(b);
    for s in &st.ships {
        if seen.insert(s.id, ()).is_some() {
            return Err(format!("ship #{} exists twice", s.id));
        }
        if s.id == 0 || s.id >= st.next_ship {
            return Err(format!("ship #{} was never issued", s.id));
        }
        if s.owner >= st.seats {
            return Err(format!("ship #{} belongs to seat {}", s.id, s.owner));
        }
        let Some(node) = b.nodes.get(s.at) else {
            return Err(format!("ship #{} is off the board", s.id));
        };
        if node.variant && !st.isthmus {
            return Err(format!(
                "ship #{} is on variant field {} outside the variant",
                s.id, node.id
            ));
        }
        if s.privateer && s.cargo.is_some() {
            return Err(format!("privateer #{} carries cargo", s.id));
        }
        if let Some(t) = &s.cargo {
            check_token(b, t, &format!("ship #{}", s.id))?;
        }
        match s.paid {
            Some(p) if !prices.contains(&p) => {
                return Err(format!("ship #{} was bought at impossible price {p}", s.id));
            }
            Some(_) if st.rules_version < SHIP_PAID_PRICE_SINCE => {
                return Err(format!(
                    "ship #{} records a price in a version-{} game",
                    s.id, st.rules_version
                ));
            }
            _ => {}
        }
    }
    for seat in 0..st.seats {
        let p = &st.players[seat];
        if st.ship_count(seat) > b.c.max_ships {
            return Err(format!("seat {seat} has {} ships", st.ship_count(seat)));
        }
        if st.fort_count(seat) > b.c.max_forts {
            return Err(format!("seat {seat} has {} forts", st.fort_count(seat)));
        }
        if p.out && st.ship_count(seat) > 0 {
            return Err(format!("seat {seat} is out but still has ships"));
        }
        for d in &p.depot {
            check_token(b, &d.token, &format!("depot load {}", d.id))?;
        }
    }
    for (i, owner) in st.forts.iter().enumerate() {
        if let Some(o) = owner {
            if *o >= st.seats {
                return Err(format!("fort {i} belongs to seat {o}"));
            }
            if !b.ports[i].fort_allowed {
                return Err(format!("port {} may not have a fort", b.ports[i].id));
            }
        }
    }
    // Goods: a good's tokens never outnumber the supply.
    for g in 0..b.goods.len() {
        let n = tokens_in_play(st, g);
        if n > b.c.supply_per_good {
            return Err(format!(
                "{n} tokens of {} in play, the supply has {}",
                b.goods[g], b.c.supply_per_good
            ));
        }
    }
    // The fortune as shown equals its recomputation from the pieces on the table.
    for seat in 0..st.seats {
        let recomputed = recompute_fortune(b, st, seat);
        let shown = fortune(b, st, seat);
        if recomputed != shown {
            return Err(format!(
                "fortune of seat {seat} is {shown}, its pieces add up to {recomputed}"
            ));
        }
    }
    Ok(())
}

/// The fortune added up piece by piece, independently of `rules::fortune`.
fn recompute_fortune(b: &Board, st: &State, seat: Seat) -> i64 {
    let mut total = i64::from(st.cash(seat));
    for s in st.ships.iter().filter(|s| s.owner == seat) {
        total += i64::from(match s.paid {
            Some(p) if st.rules_version >= SHIP_PAID_PRICE_SINCE => p,
            _ => b.c.ship_price,
        });
        if let Some(t) = &s.cargo {
            total += i64::from(t.price);
        }
    }
    for d in &st.players[seat].depot {
        total += i64::from(d.token.price);
    }
    for f in st.forts.iter().flatten() {
        if *f == seat {
            total += i64::from(b.c.fort_price);
        }
    }
    total
}

fn tokens(st: &State) -> Vec<(u32, Token)> {
    let mut v: Vec<(u32, Token)> = st
        .ships
        .iter()
        .filter_map(|s| s.cargo.clone().map(|t| (s.id, t)))
        .collect();
    v.extend(
        st.players
            .iter()
            .flat_map(|p| p.depot.iter().map(|d| (u32::MAX - d.id, d.token.clone()))),
    );
    v.sort_by_key(|(k, _)| *k);
    v
}

/// What one action may change.
pub fn check_transition(
    b: &Board,
    before: &State,
    seat: Seat,
    action: &Action,
    after: &State,
) -> Result<(), String> {
    if after.rules_version != before.rules_version {
        return Err("the rules version changed during the game".into());
    }
    // A ship id never comes back, and new ships get fresh ids.
    for s in &after.ships {
        if s.id < before.next_ship && before.ship(s.id).is_none() {
            return Err(format!("ship #{} came back", s.id));
        }
    }
    if after.next_ship < before.next_ship {
        return Err("the ship counter went back".into());
    }
    let fortunes = |st: &State| -> Vec<i64> { (0..st.seats).map(|s| fortune(b, st, s)).collect() };
    let total = |st: &State| -> i64 { fortunes(st).iter().sum() };
    let total_cash = |st: &State| -> u64 { st.players.iter().map(|p| u64::from(p.cash)).sum() };
    let forts = |st: &State| st.forts.iter().flatten().count();
    match action {
        // Offers and answers that move nothing.
        Action::Offer { .. } | Action::Decline { .. } | Action::Withdraw { .. }
            if before.players != after.players
                || before.ships != after.ships
                || before.forts != after.forts =>
        {
            return Err("an offer, decline or withdrawal moved something".into());
        }
        // A deal moves cash, ships, forts and loads between the two parties: nothing is
        // created or destroyed, so the sum of all fortunes stays the same.
        Action::Accept { .. } => {
            let mut sb = before.ships.clone();
            let mut sa = after.ships.clone();
            for s in sb.iter_mut().chain(sa.iter_mut()) {
                s.owner = 0;
                s.done = false;
                s.remaining = 0;
            }
            if sb != sa {
                return Err("a deal created, destroyed or moved a ship".into());
            }
            if total_cash(before) != total_cash(after) || forts(before) != forts(after) {
                return Err("a deal created or destroyed cash or forts".into());
            }
            if tokens(before).len() != tokens(after).len() || total(before) != total(after) {
                return Err(format!(
                    "a deal changed the sum of fortunes from {} to {}",
                    total(before),
                    total(after)
                ));
            }
        }
        // Buying from the bank turns cash into an asset at its purchase value: the buyer's
        // fortune drops only by any duty, which the fort owner receives.
        Action::BuyShip | Action::BuyFort { .. } | Action::BuyGood { .. } => {
            let (fb, fa) = (fortunes(before), fortunes(after));
            let duty = fb[seat] - fa[seat];
            let paid_version = before.rules_version >= SHIP_PAID_PRICE_SINCE;
            let exempt = matches!(action, Action::BuyShip) && !paid_version;
            if !exempt && (duty < 0 || total(before) != total(after)) {
                return Err(format!(
                    "{action:?} changed the fortunes from {fb:?} to {fa:?}: buying must not create or destroy value"
                ));
            }
            if matches!(action, Action::BuyShip)
                && after.ship_count(seat) != before.ship_count(seat) + 1
            {
                return Err("a ship purchase did not add a ship".into());
            }
        }
        Action::SellShip { ship } => {
            let Some(s) = before.ship(*ship) else {
                return Err(format!("sold ship #{ship} did not exist"));
            };
            let expect = fortune(b, before, seat) + i64::from(b.c.ship_sellback)
                - i64::from(ship_value(b, before, s))
                - s.cargo.as_ref().map_or(0, |t| i64::from(t.price));
            if fortune(b, after, seat) != expect || after.ship(*ship).is_some() {
                return Err(format!(
                    "selling ship #{ship} left a fortune of {}, expected {expect}",
                    fortune(b, after, seat)
                ));
            }
        }
        _ => {}
    }
    // Tokens are bought one at a time; nothing else brings one into play.
    let (tb, ta) = (tokens(before).len(), tokens(after).len());
    let bought = usize::from(matches!(action, Action::BuyGood { .. }));
    if ta > tb + bought {
        return Err(format!("goods tokens went from {tb} to {ta} by {action:?}"));
    }
    if after.phase == Phase::Over && !after.offers.is_empty() {
        return Err("offers outlived the game".into());
    }
    Ok(())
}
