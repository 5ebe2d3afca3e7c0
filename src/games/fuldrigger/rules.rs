//! Rule logic: setup, turn flow, chance cards, movement and hazards, trade, battles and deals.

use super::actions::Action;
use super::data::{Board, CardEffect, HazardKind, NodeKind};
use super::state::{
    Bundle, DepotToken, Offer, Pending, Phase, Player, RULES_VERSION, SHIP_PAID_PRICE_SINCE, Sale,
    Ship, State, Token,
};
use turnpost_engine::{GameRng, RuleError, Seat};

pub type R<T> = Result<T, RuleError>;

/// Offers a player may have open at once (keeps the state bounded).
pub const MAX_OPEN_OFFERS: usize = 12;
/// Largest cash amount in one offer.
pub const MAX_OFFER_CASH: u32 = 1_000_000;

pub const COLOURS: [&str; 4] = ["Red", "Blue", "Green", "Yellow"];

pub fn seat_name(seat: Seat) -> String {
    COLOURS
        .get(seat)
        .map_or_else(|| format!("Seat {}", seat + 1), |c| (*c).to_string())
}

fn bad(code: &'static str, message: impl Into<String>) -> RuleError {
    RuleError::new(code, message)
}

fn sum_dice(d: &[u8]) -> u32 {
    d.iter().map(|&x| u32::from(x)).sum()
}

/// Two dice for a hazard or battle roll.
pub fn roll2(st: &mut State) -> u32 {
    let d = st.rng.roll(2, 6);
    sum_dice(&d)
}

// ---------------------------------------------------------------- setup and flow

pub fn setup(b: &Board, seats: usize, isthmus: bool, rounds: u32, mut rng: GameRng) -> State {
    let mut rolls: Vec<Vec<u32>> = vec![Vec::new(); seats];
    let home_order = roll_order((0..seats).collect(), &mut rng, &mut rolls);
    let mut deck: Vec<usize> = (0..b.cards.len()).collect();
    rng.shuffle(&mut deck);
    let players = rolls
        .into_iter()
        .map(|r| Player {
            cash: b.c.start_cash,
            home: None,
            known_reefs: Vec::new(),
            out: false,
            depot: Vec::new(),
            home_roll: r,
        })
        .collect();
    let current = home_order.first().copied().unwrap_or(0);
    let mut st = State {
        rules_version: RULES_VERSION,
        seats,
        isthmus,
        rounds,
        players,
        ships: Vec::new(),
        next_ship: 1,
        forts: vec![None; b.ports.len()],
        home_order,
        first: current,
        round: 0,
        current,
        phase: Phase::ChooseHome,
        roll: None,
        dice: Vec::new(),
        deck,
        turned: Vec::new(),
        active_card: None,
        arrivals: Vec::new(),
        sales: Vec::new(),
        attacked_fields: Vec::new(),
        moving: None,
        pending: None,
        offers: Vec::new(),
        next_offer: 1,
        next_load: 1,
        early_winner: None,
        events: Vec::new(),
        rng,
    };
    let order: Vec<String> = st
        .home_order
        .iter()
        .map(|&s| {
            format!(
                "{} ({})",
                seat_name(s),
                st.players[s]
                    .home_roll
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", then ")
            )
        })
        .collect();
    st.event(format!(
        "Home-city rolls, choosing order: {}",
        order.join("; ")
    ));
    st
}

/// Orders seats by a 3-dice roll, highest first; tied seats re-roll among themselves (HR-6).
fn roll_order(seats: Vec<Seat>, rng: &mut GameRng, rolls: &mut [Vec<u32>]) -> Vec<Seat> {
    if seats.len() <= 1 {
        return seats;
    }
    let mut vals: Vec<(u32, Seat)> = seats
        .iter()
        .map(|&s| {
            let v = sum_dice(&rng.roll(3, 6));
            if let Some(r) = rolls.get_mut(s) {
                r.push(v);
            }
            (v, s)
        })
        .collect();
    vals.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut out = Vec::new();
    let mut i = 0;
    while i < vals.len() {
        let mut j = i;
        while j < vals.len() && vals[j].0 == vals[i].0 {
            j += 1;
        }
        let group: Vec<Seat> = vals[i..j].iter().map(|v| v.1).collect();
        out.extend(roll_order(group, rng, rolls));
        i = j;
    }
    out
}

pub fn home_chooser(st: &State) -> Option<Seat> {
    st.home_order
        .iter()
        .copied()
        .find(|&s| st.players[s].home.is_none())
}

pub fn new_ship(st: &mut State, owner: Seat, at: usize) -> u32 {
    let id = st.next_ship;
    st.next_ship = st.next_ship.saturating_add(1);
    st.ships.push(Ship {
        id,
        owner,
        at,
        cargo: None,
        privateer: false,
        becalmed: false,
        stuck: false,
        left_port: false,
        remaining: 0,
        done: false,
        hazards_met: Vec::new(),
        attacked: false,
        sailed: 0,
        paid: None,
    });
    id
}

/// A ship bought from the bank for `price`: under rules version 2 it remembers the price,
/// which is what it counts for in the fortune.
pub fn bought_ship(st: &mut State, owner: Seat, at: usize, price: u32) -> u32 {
    let id = new_ship(st, owner, at);
    if st.rules_version >= SHIP_PAID_PRICE_SINCE
        && let Some(s) = st.ship_mut(id)
    {
        s.paid = Some(price);
    }
    id
}

/// What a ship counts for in its owner's fortune: its purchase price (version 2), or the
/// standard ship price (version 1, and ships that were never bought).
pub fn ship_value(b: &Board, st: &State, s: &Ship) -> u32 {
    match s.paid {
        Some(p) if st.rules_version >= SHIP_PAID_PRICE_SINCE => p,
        _ => b.c.ship_price,
    }
}

fn start_game(b: &Board, st: &mut State) {
    for s in 0..st.seats {
        if let Some(home) = st.players[s].home {
            let node = b.ports[home].node;
            for _ in 0..b.c.start_ships {
                new_ship(st, s, node);
            }
        }
    }
    st.first = st.home_order.first().copied().unwrap_or(0);
    st.current = (st.first + st.seats - 1) % st.seats;
    next_turn(b, st);
}

/// Passes the turn to the next seat that can play, starting new rounds as needed.
pub fn next_turn(b: &Board, st: &mut State) {
    let mut seat = st.current;
    // Each pass either starts a turn, skips an out seat or ends the game; the round counter
    // bounds the loop.
    for _ in 0..(st.seats * (st.rounds as usize + 2) + 2) {
        seat = (seat + 1) % st.seats;
        if seat == st.first && !start_round(b, st) {
            return;
        }
        if begin_turn(b, st, seat) || st.phase == Phase::Over {
            return;
        }
    }
    finish(st);
}

fn start_round(b: &Board, st: &mut State) -> bool {
    if st.round >= st.rounds {
        finish(st);
        return false;
    }
    st.round += 1;
    turn_card(b, st);
    true
}

fn begin_turn(b: &Board, st: &mut State, seat: Seat) -> bool {
    if st.players[seat].out {
        return false;
    }
    st.current = seat;
    st.offers.retain(|o| o.from != seat);
    st.sales.clear();
    st.attacked_fields.clear();
    st.moving = None;
    st.pending = None;
    st.roll = None;
    st.dice.clear();
    for sh in st.ships.iter_mut().filter(|s| s.owner == seat) {
        sh.stuck = sh.becalmed;
        sh.becalmed = false;
        sh.left_port = false;
        sh.remaining = 0;
        sh.done = false;
        // The field a ship starts its turn on does not trigger this turn (HR-5).
        sh.hazards_met = vec![sh.at];
        sh.attacked = false;
    }
    if st.ship_count(seat) == 0 {
        let price = ship_price(b, st);
        match st.players[seat].home {
            Some(home) if st.cash(seat) >= price => {
                st.pay(seat, price);
                bought_ship(st, seat, b.ports[home].node, price);
                st.event(format!(
                    "{} has no ships and buys one for {price}",
                    seat_name(seat)
                ));
            }
            _ => {
                st.players[seat].out = true;
                st.offers.retain(|o| o.from != seat && o.to != seat);
                st.event(format!(
                    "{} has no ships and cannot buy one: out of the game (forts still count)",
                    seat_name(seat)
                ));
                let left: Vec<Seat> = (0..st.seats).filter(|&s| !st.players[s].out).collect();
                if left.len() <= 1 {
                    st.early_winner = left.first().copied();
                    finish(st);
                }
                return false;
            }
        }
    }
    st.phase = Phase::Before;
    st.event(format!("Round {}: {}'s turn", st.round, seat_name(seat)));
    true
}

fn finish(st: &mut State) {
    st.phase = Phase::Over;
    st.offers.clear();
    st.pending = None;
    st.moving = None;
    st.event("The game is over".into());
}

// ---------------------------------------------------------------- chance cards

fn active_effect(b: &Board, st: &State) -> Option<CardEffect> {
    st.active_card
        .and_then(|c| b.cards.get(c))
        .map(|c| c.effect.clone())
}

pub fn ship_price(b: &Board, st: &State) -> u32 {
    match active_effect(b, st) {
        Some(CardEffect::ShipPrice { amount }) => amount,
        _ => b.c.ship_price,
    }
}

pub fn price_mod(b: &Board, st: &State, good: usize) -> i64 {
    match active_effect(b, st) {
        Some(CardEffect::PriceMod { good: g, amount }) if g == good => i64::from(amount),
        _ => 0,
    }
}

pub fn port_closed(b: &Board, st: &State, port: usize) -> bool {
    matches!(active_effect(b, st), Some(CardEffect::PortClosed { port: p }) if p == port)
}

pub fn peace(b: &Board, st: &State) -> bool {
    matches!(active_effect(b, st), Some(CardEffect::Peace))
}

fn marque(b: &Board, st: &State) -> u32 {
    match active_effect(b, st) {
        Some(CardEffect::Marque { amount }) => amount,
        _ => 0,
    }
}

/// The movement allowance for three dice, with C17/C18 applied.
pub fn allowance(b: &Board, st: &State, dice_sum: u32) -> u32 {
    match active_effect(b, st) {
        Some(CardEffect::RollBonus { amount }) => dice_sum + amount,
        Some(CardEffect::RollHalve) => dice_sum.div_ceil(2),
        _ => dice_sum,
    }
}

pub fn turn_card(b: &Board, st: &mut State) {
    if st.deck.is_empty() {
        // Every card goes back, and unclaimed first-arrival rewards end (seed).
        st.deck = (0..b.cards.len()).collect();
        st.rng.shuffle(&mut st.deck);
        st.arrivals.clear();
        st.turned.clear();
        st.event("The chance deck is reshuffled".into());
    }
    let Some(c) = st.deck.pop() else {
        st.active_card = None;
        return;
    };
    st.turned.push(c);
    st.active_card = Some(c);
    let card = &b.cards[c];
    st.event(format!(
        "Round {}: chance card {}: {}",
        st.round, card.id, card.text
    ));
    match card.effect.clone() {
        CardEffect::FirstArrival { .. } => st.arrivals.push(c),
        CardEffect::Gale { region } => {
            let ids: Vec<u32> = st
                .ships
                .iter()
                .filter(|s| b.at_sea(s.at) && b.nodes[s.at].region == region)
                .map(|s| s.id)
                .collect();
            for id in ids {
                let r = roll2(st);
                let sinks = b.c.storm_sinks.contains(&r);
                st.event(format!(
                    "  {} rolls {r}{}",
                    ship_name(st, id),
                    if sinks { ": sinks" } else { ": rides it out" }
                ));
                if sinks {
                    st.remove_ship(id);
                }
            }
        }
        CardEffect::PirateRaid { region } => {
            let ids: Vec<u32> = st
                .ships
                .iter()
                .filter(|s| !s.privateer && b.at_sea(s.at) && b.nodes[s.at].region == region)
                .map(|s| s.id)
                .collect();
            for id in ids {
                let Some(sh) = st.ship(id) else { continue };
                let (owner, at) = (sh.owner, sh.at);
                if protected(b, st, owner, at) {
                    st.event(format!(
                        "  {} is protected by a nearby fort",
                        ship_name(st, id)
                    ));
                    continue;
                }
                pirate_roll(b, st, id);
            }
        }
        CardEffect::FortTax { amount } => {
            for s in 0..st.seats {
                let due = amount.saturating_mul(st.fort_count(s) as u32);
                let paid = st.pay(s, due);
                if due > 0 {
                    st.event(format!("  {} pays {paid} royal tax", seat_name(s)));
                }
            }
        }
        CardEffect::ShipSubsidy { amount } => {
            for s in 0..st.seats {
                let got = amount.saturating_mul(st.ship_count(s) as u32);
                st.receive(s, got);
            }
        }
        CardEffect::Inheritance { amount } => {
            let live: Vec<Seat> = (0..st.seats).filter(|&s| !st.players[s].out).collect();
            let low = live.iter().map(|&s| fortune(b, st, s)).min();
            for s in live {
                if Some(fortune(b, st, s)) == low {
                    st.receive(s, amount);
                    st.event(format!("  {} inherits {amount}", seat_name(s)));
                }
            }
        }
        CardEffect::Spoil { good } => {
            for sh in st.ships.iter_mut() {
                if sh.cargo.as_ref().is_some_and(|t| t.good == good) {
                    sh.cargo = None;
                }
            }
        }
        _ => {}
    }
}

// ---------------------------------------------------------------- scoring

/// Cash + purchase value of ships, forts and goods (seed; 6). A ship counts at what was
/// paid for it (rules version 2; version 1 counted every ship at the standard price).
pub fn fortune(b: &Board, st: &State, seat: Seat) -> i64 {
    let ships: i64 = st
        .ships_of(seat)
        .map(|s| {
            i64::from(ship_value(b, st, s)) + s.cargo.as_ref().map_or(0, |t| i64::from(t.price))
        })
        .sum();
    let depot: i64 = st.players.get(seat).map_or(0, |p| {
        p.depot.iter().map(|d| i64::from(d.token.price)).sum()
    });
    i64::from(st.cash(seat))
        + ships
        + depot
        + i64::from(b.c.fort_price) * st.fort_count(seat) as i64
}

// ---------------------------------------------------------------- helpers

pub fn ship_name(st: &State, id: u32) -> String {
    match st.ship(id) {
        Some(s) => format!("{} ship #{id}", seat_name(s.owner)),
        None => format!("ship #{id}"),
    }
}

pub fn good_name(b: &Board, good: usize) -> &str {
    b.goods.get(good).map_or("?", String::as_str)
}

/// Does `owner` own a fort in a port within the pirate radius of `node`?
pub fn protected(b: &Board, st: &State, owner: Seat, node: usize) -> bool {
    let dist = b.graph(st.isthmus).distances(node);
    b.ports.iter().enumerate().any(|(p, port)| {
        st.forts.get(p).copied().flatten() == Some(owner)
            && dist
                .get(port.node)
                .copied()
                .flatten()
                .is_some_and(|d| d <= b.c.pirate_fort_radius)
    })
}

fn pirate_roll(b: &Board, st: &mut State, id: u32) {
    let r = roll2(st);
    let name = ship_name(st, id);
    if b.c.pirates_take_ship.contains(&r) {
        st.event(format!(
            "  pirates! {name} rolls {r}: ship and cargo are lost"
        ));
        st.remove_ship(id);
    } else if b.c.pirates_take_cargo.contains(&r) {
        st.event(format!("  pirates! {name} rolls {r}: the cargo is lost"));
        if let Some(s) = st.ship_mut(id) {
            s.cargo = None;
        }
    } else {
        st.event(format!("  pirates! {name} rolls {r}: escapes"));
    }
}

pub fn tokens_in_play(st: &State, good: usize) -> usize {
    let on_ships = st
        .ships
        .iter()
        .filter(|s| s.cargo.as_ref().is_some_and(|t| t.good == good))
        .count();
    let in_depots: usize = st
        .players
        .iter()
        .map(|p| p.depot.iter().filter(|d| d.token.good == good).count())
        .sum();
    on_ships + in_depots
}

fn port_at(b: &Board, sh: &Ship) -> Option<usize> {
    b.port_of(sh.at)
}

fn owned_ship(st: &State, seat: Seat, id: u32) -> R<Ship> {
    match st.ship(id) {
        Some(s) if s.owner == seat => Ok(s.clone()),
        Some(_) => Err(bad("not_your_ship", format!("ship #{id} is not yours"))),
        None => Err(bad("no_such_ship", format!("there is no ship #{id}"))),
    }
}

fn privateer_port(st: &State, seat: Seat, port: usize) -> bool {
    st.players[seat].home == Some(port) || st.forts.get(port).copied().flatten() == Some(seat)
}

/// The price `seat` gets for selling `token` in `port` now, and the duty owed to a fort owner.
pub fn sale_price(
    b: &Board,
    st: &State,
    seat: Seat,
    port: usize,
    good: usize,
) -> Option<(u32, u32, Option<Seat>)> {
    let base = b.ports.get(port)?.sell_price(good)?;
    let sold = st
        .sales
        .iter()
        .find(|s| s.port == port && s.good == good)
        .map_or(0, |s| s.count);
    let owner = st.forts.get(port).copied().flatten();
    let mut price = i64::from(base) + price_mod(b, st, good)
        - i64::from(b.c.repeat_sale_drop) * i64::from(sold);
    if owner == Some(seat) {
        price += i64::from(b.c.fort_owner_sell_bonus);
    }
    let price = u32::try_from(price.max(0)).unwrap_or(0);
    match owner {
        Some(o) if o != seat => Some((price, b.c.fort_duty, Some(o))),
        _ => Some((price, 0, None)),
    }
}

/// Toll for moving a load over `isth`: (amount payer pays, who shares it; empty = bank).
pub fn isthmus_toll(b: &Board, st: &State, isth: usize, payer: Seat) -> (u32, Vec<Seat>) {
    let Some(i) = b.isthmuses.get(isth) else {
        return (b.c.isthmus_toll, Vec::new());
    };
    let owners: Vec<Option<Seat>> = i
        .toll_forts
        .iter()
        .map(|&p| st.forts.get(p).copied().flatten())
        .collect();
    if owners.iter().all(Option::is_some) {
        let mut set: Vec<Seat> = owners.into_iter().flatten().collect();
        set.sort_unstable();
        set.dedup();
        if set.contains(&payer) {
            (0, Vec::new())
        } else {
            (b.c.isthmus_toll, set)
        }
    } else {
        (b.c.isthmus_toll, Vec::new())
    }
}

fn isthmus_of_port(b: &Board, port: usize) -> Option<usize> {
    b.isthmuses.iter().position(|i| i.sides.contains(&port))
}

// ---------------------------------------------------------------- movement

/// The fields reachable along one lane from the ship, per direction, within its allowance.
pub fn lane_walks(b: &Board, st: &State, sh: &Ship) -> Vec<Vec<usize>> {
    let g = b.graph(st.isthmus);
    let limit = sh.remaining as usize;
    let mut walks = Vec::new();
    if limit == 0 {
        return walks;
    }
    for &nb in g.neighbors(sh.at) {
        let mut path = Vec::new();
        let (mut prev, mut cur) = (sh.at, nb);
        loop {
            path.push(cur);
            if path.len() >= limit || b.nodes[cur].kind != NodeKind::Lane {
                break;
            }
            match g.neighbors(cur).iter().copied().find(|&x| x != prev) {
                Some(n) => {
                    prev = cur;
                    cur = n;
                }
                None => break,
            }
        }
        walks.push(path);
    }
    walks
}

fn can_sail(st: &State, sh: &Ship) -> bool {
    st.phase == Phase::Movement && st.pending.is_none() && !sh.done && !sh.stuck && sh.remaining > 0
}

fn sail(b: &Board, st: &mut State, seat: Seat, id: u32, to: &str) -> R<()> {
    let sh = owned_ship(st, seat, id)?;
    if !can_sail(st, &sh) {
        return Err(bad(
            "cannot_sail",
            format!("ship #{id} cannot move any further this turn"),
        ));
    }
    let target = b
        .node(to)
        .filter(|&n| st.isthmus || !b.nodes[n].variant)
        .ok_or_else(|| {
            bad(
                "unknown_field",
                format!("there is no field {to:?} on this map"),
            )
        })?;
    let path = lane_walks(b, st, &sh)
        .into_iter()
        .find_map(|w| {
            w.iter()
                .position(|&n| n == target)
                .map(|k| w[..=k].to_vec())
        })
        .ok_or_else(|| {
            bad(
                "unreachable",
                format!(
                    "ship #{id} cannot reach {to} along one lane with {} fields left",
                    sh.remaining
                ),
            )
        })?;
    if let Some(prev) = st.moving.filter(|&m| m != id)
        && let Some(p) = st.ship_mut(prev)
    {
        p.done = true;
    }
    st.moving = Some(id);
    let from = b.node_id(sh.at).to_string();
    st.event(format!("{} sails from {from}", ship_name(st, id)));
    let leaving_port = b.port_of(sh.at).is_some();
    for node in path {
        let Some(s) = st.ship_mut(id) else {
            return Ok(());
        };
        if s.remaining == 0 {
            break;
        }
        s.at = node;
        s.remaining -= 1;
        s.sailed = s.sailed.saturating_add(1);
        if leaving_port {
            s.left_port = true;
        }
        if let Some(t) = s.cargo.as_mut() {
            t.fields = t.fields.saturating_add(1);
        }
        if let Some(port) = b.port_of(node) {
            // Entering a port ends the move.
            s.remaining = 0;
            let owner = s.owner;
            st.event(format!(
                "  {} enters {}",
                ship_name(st, id),
                b.ports[port].name
            ));
            if let Some(k) = st
                .arrivals
                .iter()
                .position(|&c| matches!(b.cards[c].effect, CardEffect::FirstArrival { port: p, .. } if p == port))
            {
                let c = st.arrivals.remove(k);
                if let CardEffect::FirstArrival { amount, .. } = b.cards[c].effect {
                    st.receive(owner, amount);
                    st.event(format!("  first to arrive: {} collects {amount} ({})", seat_name(owner), b.cards[c].id));
                }
            }
            break;
        }
        if !enter_hazard(b, st, id, node) {
            break;
        }
    }
    if let Some(s) = st.ship(id) {
        let (at, rem) = (s.at, s.remaining);
        st.event(format!(
            "  ship #{id} is now at {} ({rem} fields left)",
            b.node_id(at)
        ));
    }
    Ok(())
}

/// Applies the hazard of `node` to a ship that just entered it. False if the ship stops
/// (sunk, becalmed or out of allowance).
pub fn enter_hazard(b: &Board, st: &mut State, id: u32, node: usize) -> bool {
    let Some(h) = b.nodes[node].hazard.and_then(|h| b.hazards.get(h)) else {
        return true;
    };
    let Some(sh) = st.ship(id).cloned() else {
        return false;
    };
    if sh.hazards_met.contains(&node) {
        return sh.remaining > 0;
    }
    if let Some(s) = st.ship_mut(id) {
        s.hazards_met.push(node);
    }
    let name = ship_name(st, id);
    let here = b.node_id(node).to_string();
    match h.kind {
        HazardKind::Tailwind => {
            if let Some(s) = st.ship_mut(id) {
                s.remaining = s.remaining.saturating_add(b.c.tailwind_bonus);
            }
            st.event(format!(
                "  tailwind at {here}: {name} gains {} fields",
                b.c.tailwind_bonus
            ));
        }
        HazardKind::Headwind => {
            if let Some(s) = st.ship_mut(id) {
                s.remaining = s.remaining.saturating_sub(b.c.headwind_penalty);
            }
            st.event(format!(
                "  headwind at {here}: {name} loses {} fields",
                b.c.headwind_penalty
            ));
        }
        HazardKind::Storm | HazardKind::Iceberg => {
            let r = roll2(st);
            let sinks = if h.kind == HazardKind::Storm {
                &b.c.storm_sinks
            } else {
                &b.c.iceberg_sinks
            };
            if sinks.contains(&r) {
                st.event(format!(
                    "  {} at {here}: {name} rolls {r} and sinks",
                    h.kind.name()
                ));
                st.remove_ship(id);
                return false;
            }
            st.event(format!(
                "  {} at {here}: {name} rolls {r}, no harm",
                h.kind.name()
            ));
        }
        HazardKind::Doldrums => {
            let r = roll2(st);
            if r <= b.c.doldrums_stop_at_most {
                st.event(format!(
                    "  doldrums at {here}: {name} rolls {r}, becalmed (stops, skips its next move)"
                ));
                if let Some(s) = st.ship_mut(id) {
                    s.remaining = 0;
                    s.becalmed = true;
                }
                return false;
            }
            st.event(format!("  doldrums at {here}: {name} rolls {r}, sails on"));
        }
        HazardKind::Reef => {
            let letter = h.reef.clone().unwrap_or_default();
            if st.players[sh.owner].known_reefs.contains(&letter) {
                return sh.remaining > 0;
            }
            let r = roll2(st);
            if b.c.reef_wrecks.contains(&r) {
                st.event(format!(
                    "  reef {letter} at {here}: {name} rolls {r} and is wrecked"
                ));
                st.remove_ship(id);
                return false;
            }
            st.event(format!(
                "  reef {letter} at {here}: {name} rolls {r}; {} now knows reef {letter}",
                seat_name(sh.owner)
            ));
            let known = &mut st.players[sh.owner].known_reefs;
            known.push(letter);
            known.sort();
        }
        HazardKind::Pirates => {
            if sh.privateer || protected(b, st, sh.owner, node) {
                return sh.remaining > 0;
            }
            pirate_roll(b, st, id);
        }
    }
    st.ship(id).is_some_and(|s| s.remaining > 0)
}

// ---------------------------------------------------------------- battles

/// What defends `field` against an attack on `defender`: (ships, fort port). None if the
/// field cannot be attacked (a port without the defender's fort).
pub fn defenders(
    b: &Board,
    st: &State,
    field: usize,
    defender: Seat,
) -> Option<(Vec<u32>, Option<usize>)> {
    let ships: Vec<u32> = st
        .ships
        .iter()
        .filter(|s| s.owner == defender && s.at == field)
        .map(|s| s.id)
        .collect();
    match b.port_of(field) {
        Some(p) if st.forts.get(p).copied().flatten() == Some(defender) => Some((ships, Some(p))),
        Some(_) => None,
        None if ships.is_empty() => None,
        None => Some((ships, None)),
    }
}

fn can_attack_with(seat: Seat, s: &Ship) -> bool {
    s.owner == seat && s.privateer && !s.attacked && !s.stuck
}

fn attack(b: &Board, st: &mut State, seat: Seat, defender: Seat, ids: &[u32]) -> R<()> {
    if st.phase != Phase::Movement || st.pending.is_some() {
        return Err(bad(
            "not_now",
            "attacks happen during movement, after the roll",
        ));
    }
    if peace(b, st) {
        return Err(bad(
            "peace_treaty",
            "a peace treaty is in force this round: no attacks",
        ));
    }
    if defender >= st.seats || defender == seat {
        return Err(bad("bad_defender", "name another player as the defender"));
    }
    let Some(&first) = ids.first() else {
        return Err(bad("no_attackers", "name at least one privateer"));
    };
    let field = owned_ship(st, seat, first)?.at;
    for (i, &id) in ids.iter().enumerate() {
        let s = owned_ship(st, seat, id)?;
        if ids[..i].contains(&id) {
            return Err(bad("duplicate_ship", format!("ship #{id} is named twice")));
        }
        if !can_attack_with(seat, &s) {
            return Err(bad(
                "not_a_privateer",
                format!("ship #{id} cannot attack (merchant, becalmed or already attacked)"),
            ));
        }
        if s.at != field {
            return Err(bad(
                "not_together",
                "all attacking privateers must stand on the target field",
            ));
        }
    }
    if st.attacked_fields.contains(&field) {
        return Err(bad(
            "already_attacked",
            "only one attack per target field per turn (HR-10)",
        ));
    }
    let Some((ships, fort)) = defenders(b, st, field, defender) else {
        return Err(bad(
            "no_target",
            format!(
                "{} has nothing to attack at {} (ships in a port without their fort cannot be attacked)",
                seat_name(defender),
                b.node_id(field)
            ),
        ));
    };
    let d = ships.len() + usize::from(fort.is_some());
    if d == 0 {
        return Err(bad("no_target", "nothing to attack there"));
    }
    if ids.len() < d {
        return Err(bad(
            "too_few_attackers",
            format!("you need at least {d} privateers against {d} defenders"),
        ));
    }
    st.attacked_fields.push(field);
    for &id in ids {
        if let Some(s) = st.ship_mut(id) {
            s.attacked = true;
            s.done = true;
            s.remaining = 0;
        }
    }
    st.moving = None;
    let r = roll2(st) + marque(b, st);
    let col = b.attack_column(ids.len());
    let (loss, capture) = (b.attack.loss_below[col], b.attack.capture_above[col]);
    let here = b.node_id(field).to_string();
    if r < loss {
        st.event(format!(
            "{} attacks {} at {here} with {} privateer(s): roll {r}, the attack fails",
            seat_name(seat),
            seat_name(defender),
            ids.len()
        ));
        if ids.len() == 1 {
            st.event(format!("  {} is lost", ship_name(st, first)));
            st.remove_ship(first);
        } else {
            st.pending = Some(Pending::ChooseLoss {
                attackers: ids.to_vec(),
            });
        }
    } else if r > capture {
        st.event(format!(
            "{} attacks {} at {here} with {} privateer(s): roll {r}, a capture",
            seat_name(seat),
            seat_name(defender),
            ids.len()
        ));
        match (ships.as_slice(), fort) {
            ([only], None) => capture_ship(b, st, seat, *only),
            ([], Some(p)) => capture_fort(b, st, seat, p),
            _ => st.pending = Some(Pending::ChooseCapture { field, defender }),
        }
    } else {
        st.event(format!(
            "{} attacks {} at {here} with {} privateer(s): roll {r}, a draw",
            seat_name(seat),
            seat_name(defender),
            ids.len()
        ));
    }
    Ok(())
}

fn capture_ship(b: &Board, st: &mut State, seat: Seat, id: u32) {
    let name = ship_name(st, id);
    if st.ship_count(seat) >= b.c.max_ships {
        st.event(format!(
            "  {name} is captured and sunk ({} already has {} ships)",
            seat_name(seat),
            b.c.max_ships
        ));
        st.remove_ship(id);
        return;
    }
    if let Some(s) = st.ship_mut(id) {
        s.owner = seat;
        s.privateer = false;
        s.done = true;
        s.remaining = 0;
        s.stuck = false;
        s.becalmed = false;
        s.hazards_met.clear();
    }
    st.event(format!(
        "  {name} is captured by {} with its cargo",
        seat_name(seat)
    ));
}

fn capture_fort(b: &Board, st: &mut State, seat: Seat, port: usize) {
    let name = &b.ports[port].name;
    if st.fort_count(seat) >= b.c.max_forts {
        st.forts[port] = None;
        st.event(format!("  the fort at {name} is taken and razed"));
    } else {
        st.forts[port] = Some(seat);
        st.event(format!(
            "  the fort at {name} is captured by {}",
            seat_name(seat)
        ));
    }
}

// ---------------------------------------------------------------- deals

fn check_bundle(b: &Board, st: &State, owner: Seat, bundle: &Bundle, need_cash: bool) -> R<()> {
    let who = seat_name(owner);
    if bundle.cash > MAX_OFFER_CASH {
        return Err(bad(
            "bad_offer",
            format!("at most {MAX_OFFER_CASH} ducats in one offer"),
        ));
    }
    if need_cash && st.cash(owner) < bundle.cash {
        return Err(bad(
            "not_enough_cash",
            format!("{who} does not have {} ducats", bundle.cash),
        ));
    }
    for (i, id) in bundle.ships.iter().enumerate() {
        if bundle.ships[..i].contains(id) {
            return Err(bad("bad_offer", format!("ship #{id} is listed twice")));
        }
        if st.ship(*id).map(|s| s.owner) != Some(owner) {
            return Err(bad(
                "bad_offer",
                format!("ship #{id} does not belong to {who}"),
            ));
        }
    }
    for (i, id) in bundle.depot.iter().enumerate() {
        if bundle.depot[..i].contains(id) {
            return Err(bad("bad_offer", format!("depot load {id} is listed twice")));
        }
        if !st.players[owner].depot.iter().any(|d| d.id == *id) {
            return Err(bad(
                "bad_offer",
                format!("depot load {id} does not belong to {who}"),
            ));
        }
    }
    for (i, f) in bundle.forts.iter().enumerate() {
        if bundle.forts[..i].contains(f) {
            return Err(bad("bad_offer", format!("the fort at {f} is listed twice")));
        }
        let p = b
            .port_index(f)
            .ok_or_else(|| bad("bad_offer", format!("there is no port {f:?}")))?;
        if st.forts[p] != Some(owner) {
            return Err(bad(
                "bad_offer",
                format!("{who} does not own the fort at {f}"),
            ));
        }
    }
    Ok(())
}

fn make_offer(
    b: &Board,
    st: &mut State,
    seat: Seat,
    to: Seat,
    give: &Bundle,
    get: &Bundle,
) -> R<()> {
    port_phase(st, seat)?;
    if to >= st.seats || to == seat || st.players[to].out {
        return Err(bad(
            "bad_offer",
            "offer to another player who is still in the game",
        ));
    }
    if give.is_empty() && get.is_empty() {
        return Err(bad("bad_offer", "an offer must contain something"));
    }
    if st.offers.iter().filter(|o| o.from == seat).count() >= MAX_OPEN_OFFERS {
        return Err(bad(
            "too_many_offers",
            format!("at most {MAX_OPEN_OFFERS} open offers; withdraw one first"),
        ));
    }
    check_bundle(b, st, seat, give, true)?;
    check_bundle(b, st, to, get, false)?;
    let id = st.next_offer;
    st.next_offer = st.next_offer.saturating_add(1);
    st.offers.push(Offer {
        id,
        from: seat,
        to,
        give: give.clone(),
        get: get.clone(),
    });
    Ok(())
}

/// Why `offer` cannot be accepted now (None: it can).
pub fn acceptance_problem(b: &Board, st: &State, o: &Offer) -> Option<RuleError> {
    if st.pending.is_some() || !matches!(st.phase, Phase::Before | Phase::Movement | Phase::After) {
        return Some(bad("not_now", "deals wait until the battle choice is made"));
    }
    if st.players[o.from].out || st.players[o.to].out {
        return Some(bad("player_out", "a party to this deal is out of the game"));
    }
    if let Err(e) = check_bundle(b, st, o.from, &o.give, true) {
        return Some(e);
    }
    if let Err(e) = check_bundle(b, st, o.to, &o.get, true) {
        return Some(e);
    }
    let ships_from = st.ship_count(o.from) - o.give.ships.len() + o.get.ships.len();
    let ships_to = st.ship_count(o.to) - o.get.ships.len() + o.give.ships.len();
    let forts_from = st.fort_count(o.from) - o.give.forts.len() + o.get.forts.len();
    let forts_to = st.fort_count(o.to) - o.get.forts.len() + o.give.forts.len();
    if ships_from.max(ships_to) > b.c.max_ships || forts_from.max(forts_to) > b.c.max_forts {
        return Some(bad(
            "limit",
            format!(
                "the deal would break the limit of {} ships or {} forts",
                b.c.max_ships, b.c.max_forts
            ),
        ));
    }
    None
}

fn transfer(b: &Board, st: &mut State, from: Seat, to: Seat, bundle: &Bundle) {
    let paid = st.pay(from, bundle.cash);
    st.receive(to, paid);
    for &id in &bundle.ships {
        if st.moving == Some(id) {
            st.moving = None;
        }
        if let Some(s) = st.ship_mut(id) {
            s.owner = to;
            s.done = true;
            s.remaining = 0;
        }
    }
    for f in &bundle.forts {
        if let Some(p) = b.port_index(f) {
            st.forts[p] = Some(to);
        }
    }
    for id in &bundle.depot {
        let (give, keep): (Vec<_>, Vec<_>) = std::mem::take(&mut st.players[from].depot)
            .into_iter()
            .partition(|d| d.id == *id);
        st.players[from].depot = keep;
        st.players[to].depot.extend(give);
    }
}

pub fn bundle_text(b: &Board, st: &State, bundle: &Bundle) -> String {
    let mut parts = Vec::new();
    if bundle.cash > 0 {
        parts.push(format!("{} ducats", bundle.cash));
    }
    for &id in &bundle.ships {
        match st.ship(id) {
            Some(s) => {
                let cargo = s
                    .cargo
                    .as_ref()
                    .map_or("empty".to_string(), |t| good_name(b, t.good).to_string());
                parts.push(format!("ship #{id} (at {}, {cargo})", b.node_id(s.at)));
            }
            None => parts.push(format!("ship #{id}")),
        }
    }
    for f in &bundle.forts {
        parts.push(format!("the fort at {f}"));
    }
    for id in &bundle.depot {
        let what = st
            .players
            .iter()
            .flat_map(|p| p.depot.iter())
            .find(|d| d.id == *id)
            .map_or(String::new(), |d| {
                format!(
                    " ({} at {})",
                    good_name(b, d.token.good),
                    b.ports[d.dropped_at].id
                )
            });
        parts.push(format!("depot load {id}{what}"));
    }
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(", ")
    }
}

// ---------------------------------------------------------------- port actions

fn port_phase(st: &State, seat: Seat) -> R<()> {
    if seat != st.current
        || !matches!(st.phase, Phase::Before | Phase::After)
        || st.pending.is_some()
    {
        return Err(bad(
            "not_now",
            "port actions are only allowed before the roll or after movement, in your turn",
        ));
    }
    Ok(())
}

fn ship_in_port(b: &Board, st: &State, seat: Seat, id: u32) -> R<(Ship, usize)> {
    let s = owned_ship(st, seat, id)?;
    let p =
        port_at(b, &s).ok_or_else(|| bad("not_in_port", format!("ship #{id} is not in a port")))?;
    Ok((s, p))
}

fn buy_good(b: &Board, st: &mut State, seat: Seat, id: u32, good: &str) -> R<()> {
    port_phase(st, seat)?;
    let (s, p) = ship_in_port(b, st, seat, id)?;
    let g = b
        .good_index(good)
        .ok_or_else(|| bad("unknown_good", format!("there is no good {good:?}")))?;
    if s.privateer || s.cargo.is_some() {
        return Err(bad(
            "not_empty_merchant",
            format!("ship #{id} must be an empty merchant ship"),
        ));
    }
    if s.left_port {
        return Err(bad(
            "left_port",
            format!("ship #{id} left port this turn and cannot trade"),
        ));
    }
    if port_closed(b, st, p) {
        return Err(bad(
            "port_closed",
            format!("{} is closed this round", b.ports[p].name),
        ));
    }
    let price = b.ports[p].buy_price(g).ok_or_else(|| {
        bad(
            "not_sold_here",
            format!("{good} cannot be bought in {}", b.ports[p].name),
        )
    })?;
    if tokens_in_play(st, g) >= b.c.supply_per_good {
        return Err(bad("no_supply", format!("all {good} tokens are in use")));
    }
    let owner = st.forts[p].filter(|&o| o != seat);
    let duty = if owner.is_some() { b.c.fort_duty } else { 0 };
    if st.cash(seat) < price + duty {
        return Err(bad(
            "not_enough_cash",
            format!("you need {} ducats", price + duty),
        ));
    }
    st.pay(seat, price + duty);
    if let Some(o) = owner {
        st.receive(o, duty);
    }
    if let Some(sh) = st.ship_mut(id) {
        sh.cargo = Some(Token {
            good: g,
            price,
            bought_at: p,
            fields: 0,
        });
    }
    let duty_text = owner.map_or(String::new(), |o| {
        format!(" + {duty} duty to {}", seat_name(o))
    });
    st.event(format!(
        "{} buys {good} for ship #{id} at {} for {price}{duty_text}",
        seat_name(seat),
        b.ports[p].id
    ));
    Ok(())
}

fn sell_good(b: &Board, st: &mut State, seat: Seat, id: u32) -> R<()> {
    port_phase(st, seat)?;
    let (s, p) = ship_in_port(b, st, seat, id)?;
    let t = s
        .cargo
        .clone()
        .ok_or_else(|| bad("no_cargo", format!("ship #{id} carries nothing")))?;
    if s.left_port {
        return Err(bad(
            "left_port",
            format!("ship #{id} left port this turn and cannot trade"),
        ));
    }
    if port_closed(b, st, p) {
        return Err(bad(
            "port_closed",
            format!("{} is closed this round", b.ports[p].name),
        ));
    }
    let name = good_name(b, t.good).to_string();
    let (price, duty, owner) = sale_price(b, st, seat, p, t.good).ok_or_else(|| {
        bad(
            "not_bought_here",
            format!("{name} cannot be sold in {}", b.ports[p].name),
        )
    })?;
    if t.fields < b.c.min_transport_fields {
        return Err(bad(
            "too_short",
            format!(
                "the {name} has moved {} fields; it must be carried at least {}",
                t.fields, b.c.min_transport_fields
            ),
        ));
    }
    if t.bought_at == p {
        return Err(bad(
            "same_port",
            "goods cannot be sold where they were bought (HR-9)",
        ));
    }
    st.receive(seat, price);
    let mut duty_text = String::new();
    if let Some(o) = owner {
        let paid = st.pay(seat, duty);
        st.receive(o, paid);
        duty_text = format!(", pays {paid} duty to {}", seat_name(o));
    }
    if let Some(sh) = st.ship_mut(id) {
        sh.cargo = None;
    }
    match st
        .sales
        .iter_mut()
        .find(|x| x.port == p && x.good == t.good)
    {
        Some(x) => x.count += 1,
        None => st.sales.push(Sale {
            port: p,
            good: t.good,
            count: 1,
        }),
    }
    st.event(format!(
        "{} sells {name} from ship #{id} at {} for {price}{duty_text}",
        seat_name(seat),
        b.ports[p].id
    ));
    Ok(())
}

fn buy_ship(b: &Board, st: &mut State, seat: Seat) -> R<()> {
    port_phase(st, seat)?;
    let price = ship_price(b, st);
    if st.ship_count(seat) >= b.c.max_ships {
        return Err(bad(
            "ship_limit",
            format!("you may own at most {} ships", b.c.max_ships),
        ));
    }
    if st.cash(seat) < price {
        return Err(bad("not_enough_cash", format!("a ship costs {price}")));
    }
    let home = st.players[seat]
        .home
        .ok_or_else(|| bad("no_home", "no home city"))?;
    st.pay(seat, price);
    let id = bought_ship(st, seat, b.ports[home].node, price);
    if st.phase == Phase::After
        && let Some(s) = st.ship_mut(id)
    {
        s.done = true;
    }
    st.event(format!(
        "{} buys ship #{id} for {price} in {}",
        seat_name(seat),
        b.ports[home].id
    ));
    Ok(())
}

fn sell_ship(b: &Board, st: &mut State, seat: Seat, id: u32) -> R<()> {
    port_phase(st, seat)?;
    let (_, p) = ship_in_port(b, st, seat, id)?;
    st.remove_ship(id);
    st.receive(seat, b.c.ship_sellback);
    st.event(format!(
        "{} sells ship #{id} to the bank at {} for {}",
        seat_name(seat),
        b.ports[p].id,
        b.c.ship_sellback
    ));
    Ok(())
}

fn buy_fort(b: &Board, st: &mut State, seat: Seat, port: &str) -> R<()> {
    port_phase(st, seat)?;
    let p = b
        .port_index(port)
        .filter(|&p| st.isthmus || !b.ports[p].variant)
        .ok_or_else(|| bad("unknown_port", format!("there is no port {port:?}")))?;
    if !b.ports[p].fort_allowed {
        return Err(bad(
            "no_fort_here",
            format!("{} cannot have a fort", b.ports[p].name),
        ));
    }
    if st.forts[p].is_some() {
        return Err(bad(
            "fort_taken",
            format!("{} already has a fort (HR-7)", b.ports[p].name),
        ));
    }
    if port_closed(b, st, p) {
        return Err(bad(
            "port_closed",
            format!("{} is closed this round", b.ports[p].name),
        ));
    }
    if st.fort_count(seat) >= b.c.max_forts {
        return Err(bad(
            "fort_limit",
            format!("you may own at most {} forts", b.c.max_forts),
        ));
    }
    if !st.ships_of(seat).any(|s| s.at == b.ports[p].node) {
        return Err(bad(
            "no_ship_there",
            format!("one of your ships must be in {}", b.ports[p].name),
        ));
    }
    if st.cash(seat) < b.c.fort_price {
        return Err(bad(
            "not_enough_cash",
            format!("a fort costs {}", b.c.fort_price),
        ));
    }
    st.pay(seat, b.c.fort_price);
    st.forts[p] = Some(seat);
    st.event(format!(
        "{} builds a fort at {}",
        seat_name(seat),
        b.ports[p].name
    ));
    Ok(())
}

fn fit(b: &Board, st: &mut State, seat: Seat, id: u32, to_privateer: bool) -> R<()> {
    port_phase(st, seat)?;
    let (s, p) = ship_in_port(b, st, seat, id)?;
    if !privateer_port(st, seat, p) {
        return Err(bad(
            "wrong_port",
            "only in your home city or a port where you own the fort",
        ));
    }
    if to_privateer {
        if s.privateer || s.cargo.is_some() {
            return Err(bad(
                "not_empty_merchant",
                format!("ship #{id} must be an empty merchant ship"),
            ));
        }
    } else if !s.privateer {
        return Err(bad(
            "not_a_privateer",
            format!("ship #{id} is not a privateer"),
        ));
    }
    if let Some(sh) = st.ship_mut(id) {
        sh.privateer = to_privateer;
    }
    let what = if to_privateer {
        "fits out ship #{id} as a privateer"
    } else {
        "turns privateer #{id} back into a merchant"
    };
    st.event(format!(
        "{} {} at {}",
        seat_name(seat),
        what.replace("{id}", &id.to_string()),
        b.ports[p].id
    ));
    Ok(())
}

fn transship_drop(b: &Board, st: &mut State, seat: Seat, id: u32) -> R<()> {
    port_phase(st, seat)?;
    if !st.isthmus {
        return Err(bad("no_variant", "the isthmus variant is not in play"));
    }
    let (s, p) = ship_in_port(b, st, seat, id)?;
    let i = isthmus_of_port(b, p).ok_or_else(|| {
        bad(
            "no_isthmus",
            format!("{} is not an isthmus landing", b.ports[p].name),
        )
    })?;
    let token = s
        .cargo
        .clone()
        .ok_or_else(|| bad("no_cargo", format!("ship #{id} carries nothing")))?;
    let (toll, to) = isthmus_toll(b, st, i, seat);
    if st.cash(seat) < toll {
        return Err(bad("not_enough_cash", format!("the toll is {toll}")));
    }
    st.pay(seat, toll);
    if !to.is_empty() {
        let share = toll / to.len() as u32;
        for &r in &to {
            st.receive(r, share);
        }
    }
    if let Some(sh) = st.ship_mut(id) {
        sh.cargo = None;
    }
    let load = st.next_load;
    st.next_load = st.next_load.saturating_add(1);
    st.players[seat].depot.push(DepotToken {
        id: load,
        isthmus: i,
        dropped_at: p,
        token: token.clone(),
    });
    st.event(format!(
        "{} drops {} at {} for the {} crossing (toll {toll})",
        seat_name(seat),
        good_name(b, token.good),
        b.ports[p].id,
        b.isthmuses[i].name
    ));
    Ok(())
}

fn transship_pickup(b: &Board, st: &mut State, seat: Seat, id: u32, load: u32) -> R<()> {
    port_phase(st, seat)?;
    if !st.isthmus {
        return Err(bad("no_variant", "the isthmus variant is not in play"));
    }
    let (s, p) = ship_in_port(b, st, seat, id)?;
    if s.privateer || s.cargo.is_some() {
        return Err(bad(
            "not_empty_merchant",
            format!("ship #{id} must be an empty merchant ship"),
        ));
    }
    let d = st.players[seat]
        .depot
        .iter()
        .find(|d| d.id == load)
        .cloned()
        .ok_or_else(|| bad("no_such_item", format!("your depot has no load {load}")))?;
    let ok = b
        .isthmuses
        .get(d.isthmus)
        .is_some_and(|i| i.sides.contains(&p))
        && d.dropped_at != p;
    if !ok {
        return Err(bad(
            "wrong_side",
            "pick the load up on the other side of its isthmus",
        ));
    }
    st.players[seat].depot.retain(|d| d.id != load);
    if let Some(sh) = st.ship_mut(id) {
        sh.cargo = Some(d.token.clone());
    }
    st.event(format!(
        "{} loads {} onto ship #{id} at {}",
        seat_name(seat),
        good_name(b, d.token.good),
        b.ports[p].id
    ));
    Ok(())
}

// ---------------------------------------------------------------- apply and legal actions

pub fn apply(b: &Board, st: &mut State, seat: Seat, action: &Action) -> R<()> {
    if st.phase == Phase::Over {
        return Err(RuleError::game_over());
    }
    if seat >= st.seats {
        return Err(RuleError::not_your_turn(seat));
    }
    // Answers to deals may come from anyone at any time.
    match action {
        Action::Accept { offer } => {
            let o = st
                .offers
                .iter()
                .find(|o| o.id == *offer && o.to == seat)
                .cloned()
                .ok_or_else(|| {
                    bad(
                        "no_such_offer",
                        format!("there is no open offer #{offer} to you"),
                    )
                })?;
            if let Some(e) = acceptance_problem(b, st, &o) {
                return Err(e);
            }
            transfer(b, st, o.from, o.to, &o.give);
            transfer(b, st, o.to, o.from, &o.get);
            st.offers.retain(|x| x.id != o.id);
            st.event(format!(
                "Deal: {} accepts {}'s offer #{}: {} gives {}; {} gives {}",
                seat_name(o.to),
                seat_name(o.from),
                o.id,
                seat_name(o.from),
                bundle_text(b, st, &o.give),
                seat_name(o.to),
                bundle_text(b, st, &o.get)
            ));
            return Ok(());
        }
        Action::Decline { offer } => {
            if !st.offers.iter().any(|o| o.id == *offer && o.to == seat) {
                return Err(bad(
                    "no_such_offer",
                    format!("there is no open offer #{offer} to you"),
                ));
            }
            st.offers.retain(|o| o.id != *offer);
            st.event(format!("{} declines offer #{offer}", seat_name(seat)));
            return Ok(());
        }
        Action::Withdraw { offer } => {
            if !st.offers.iter().any(|o| o.id == *offer && o.from == seat) {
                return Err(bad(
                    "no_such_offer",
                    format!("you have no open offer #{offer}"),
                ));
            }
            st.offers.retain(|o| o.id != *offer);
            st.event(format!("{} withdraws offer #{offer}", seat_name(seat)));
            return Ok(());
        }
        _ => {}
    }
    if st.phase == Phase::ChooseHome {
        let Action::ChooseHome { port } = action else {
            return Err(bad("not_now", "the players are choosing home cities"));
        };
        if home_chooser(st) != Some(seat) {
            return Err(RuleError::not_your_turn(seat));
        }
        let p = b
            .port_index(port)
            .filter(|p| b.home_cities.contains(p))
            .ok_or_else(|| {
                bad(
                    "not_a_home_city",
                    format!("{port} is not one of the home cities"),
                )
            })?;
        if st.players.iter().any(|pl| pl.home == Some(p)) {
            return Err(bad("taken", format!("{port} is already taken")));
        }
        st.players[seat].home = Some(p);
        st.event(format!(
            "{} chooses {} as home city",
            seat_name(seat),
            b.ports[p].name
        ));
        match home_chooser(st) {
            Some(next) => st.current = next,
            None => start_game(b, st),
        }
        return Ok(());
    }
    if seat != st.current {
        return Err(RuleError::not_your_turn(seat));
    }
    if let Some(pending) = st.pending.clone() {
        return match (pending, action) {
            (Pending::ChooseLoss { attackers }, Action::ChooseLoss { ship }) => {
                if !attackers.contains(ship) || st.ship(*ship).map(|s| s.owner) != Some(seat) {
                    return Err(bad(
                        "not_an_attacker",
                        format!("ship #{ship} did not take part in the attack"),
                    ));
                }
                st.event(format!("  {} is lost", ship_name(st, *ship)));
                st.remove_ship(*ship);
                st.pending = None;
                Ok(())
            }
            (Pending::ChooseCapture { field, defender }, Action::CaptureShip { ship }) => {
                let ok = st
                    .ship(*ship)
                    .is_some_and(|s| s.owner == defender && s.at == field);
                if !ok {
                    return Err(bad(
                        "not_a_target",
                        format!("ship #{ship} is not among the defenders"),
                    ));
                }
                st.pending = None;
                capture_ship(b, st, seat, *ship);
                Ok(())
            }
            (Pending::ChooseCapture { field, defender }, Action::CaptureFort) => {
                let Some(p) = b.port_of(field).filter(|&p| st.forts[p] == Some(defender)) else {
                    return Err(bad("not_a_target", "there is no fort among the defenders"));
                };
                st.pending = None;
                capture_fort(b, st, seat, p);
                Ok(())
            }
            _ => Err(bad(
                "choice_pending",
                "first choose the outcome of the battle",
            )),
        };
    }
    match action {
        Action::Roll => {
            if st.phase != Phase::Before {
                return Err(bad("not_now", "you have already rolled this turn"));
            }
            let dice: Vec<u32> = st.rng.roll(3, 6).into_iter().map(u32::from).collect();
            let roll = allowance(b, st, dice.iter().sum());
            for s in st.ships.iter_mut().filter(|s| s.owner == seat) {
                s.remaining = if s.stuck { 0 } else { roll };
                s.done = s.stuck;
            }
            st.event(format!(
                "{} rolls {} = {roll} fields",
                seat_name(seat),
                dice.iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join("+")
            ));
            st.dice = dice;
            st.roll = Some(roll);
            st.phase = Phase::Movement;
            Ok(())
        }
        Action::Sail { ship, to } => sail(b, st, seat, *ship, to),
        Action::Attack { defender, ships } => attack(b, st, seat, *defender, ships),
        Action::EndMovement => {
            if st.phase != Phase::Movement {
                return Err(bad("not_now", "you are not moving ships now"));
            }
            st.moving = None;
            for s in st.ships.iter_mut().filter(|s| s.owner == seat) {
                s.done = true;
                s.remaining = 0;
            }
            st.phase = Phase::After;
            Ok(())
        }
        Action::BuyGood { ship, good } => buy_good(b, st, seat, *ship, good),
        Action::SellGood { ship } => sell_good(b, st, seat, *ship),
        Action::BuyShip => buy_ship(b, st, seat),
        Action::SellShip { ship } => sell_ship(b, st, seat, *ship),
        Action::BuyFort { port } => buy_fort(b, st, seat, port),
        Action::FitPrivateer { ship } => fit(b, st, seat, *ship, true),
        Action::UnfitPrivateer { ship } => fit(b, st, seat, *ship, false),
        Action::TransshipDrop { ship } => transship_drop(b, st, seat, *ship),
        Action::TransshipPickup { ship, load } => transship_pickup(b, st, seat, *ship, *load),
        Action::Offer { to, give, get } => make_offer(b, st, seat, *to, give, get),
        Action::EndTurn => {
            if st.phase != Phase::After {
                return Err(bad("not_now", "roll and move before ending the turn"));
            }
            next_turn(b, st);
            Ok(())
        }
        Action::ChooseHome { .. } => Err(bad("not_now", "home cities are already chosen")),
        Action::ChooseLoss { .. } | Action::CaptureShip { .. } | Action::CaptureFort => {
            Err(bad("not_now", "there is no battle outcome to choose"))
        }
        Action::Accept { .. } | Action::Decline { .. } | Action::Withdraw { .. } => {
            Err(bad("not_now", "handled above"))
        }
    }
}

/// Every action `seat` may submit now (offers are a bounded sample of standard deals).
pub fn legal(b: &Board, st: &State, seat: Seat) -> Vec<Action> {
    let mut v = Vec::new();
    if st.phase == Phase::Over || seat >= st.seats {
        return v;
    }
    if st.phase == Phase::ChooseHome {
        if home_chooser(st) == Some(seat) {
            for &p in &b.home_cities {
                if !st.players.iter().any(|pl| pl.home == Some(p)) {
                    v.push(Action::ChooseHome {
                        port: b.ports[p].id.clone(),
                    });
                }
            }
        }
        return v;
    }
    if seat == st.current {
        if let Some(p) = &st.pending {
            match p {
                Pending::ChooseLoss { attackers } => {
                    for &id in attackers {
                        if st.ship(id).is_some_and(|s| s.owner == seat) {
                            v.push(Action::ChooseLoss { ship: id });
                        }
                    }
                }
                Pending::ChooseCapture { field, defender } => {
                    if let Some((ships, fort)) = defenders(b, st, *field, *defender) {
                        if fort.is_some() {
                            v.push(Action::CaptureFort);
                        }
                        for id in ships {
                            v.push(Action::CaptureShip { ship: id });
                        }
                    }
                }
            }
            return v;
        }
        match st.phase {
            Phase::Before => {
                port_actions(b, st, seat, &mut v);
                v.push(Action::Roll);
                offer_actions(b, st, seat, &mut v);
            }
            Phase::Movement => {
                movement_actions(b, st, seat, &mut v);
                v.push(Action::EndMovement);
            }
            Phase::After => {
                port_actions(b, st, seat, &mut v);
                offer_actions(b, st, seat, &mut v);
                v.push(Action::EndTurn);
            }
            _ => {}
        }
        for o in st.offers.iter().filter(|o| o.from == seat) {
            v.push(Action::Withdraw { offer: o.id });
        }
    }
    for o in st.offers.iter().filter(|o| o.to == seat) {
        if acceptance_problem(b, st, o).is_none() {
            v.push(Action::Accept { offer: o.id });
        }
        v.push(Action::Decline { offer: o.id });
    }
    v
}

fn movement_actions(b: &Board, st: &State, seat: Seat, v: &mut Vec<Action>) {
    for s in st.ships_of(seat) {
        if !can_sail(st, s) {
            continue;
        }
        for w in lane_walks(b, st, s) {
            for n in w {
                v.push(Action::Sail {
                    ship: s.id,
                    to: b.nodes[n].id.clone(),
                });
            }
        }
    }
    if peace(b, st) {
        return;
    }
    let mut fields: Vec<usize> = st
        .ships_of(seat)
        .filter(|s| can_attack_with(seat, s))
        .map(|s| s.at)
        .collect();
    fields.sort_unstable();
    fields.dedup();
    for f in fields {
        if st.attacked_fields.contains(&f) {
            continue;
        }
        let mine: Vec<u32> = st
            .ships_of(seat)
            .filter(|s| s.at == f && can_attack_with(seat, s))
            .map(|s| s.id)
            .collect();
        for d in (0..st.seats).filter(|&d| d != seat) {
            let Some((ships, fort)) = defenders(b, st, f, d) else {
                continue;
            };
            let need = ships.len() + usize::from(fort.is_some());
            if need == 0 {
                continue;
            }
            for k in need..=mine.len() {
                v.push(Action::Attack {
                    defender: d,
                    ships: mine[..k].to_vec(),
                });
            }
        }
    }
}

fn port_actions(b: &Board, st: &State, seat: Seat, v: &mut Vec<Action>) {
    let cash = st.cash(seat);
    let mut fort_ports: Vec<usize> = Vec::new();
    for s in st.ships_of(seat) {
        let Some(p) = port_at(b, s) else { continue };
        fort_ports.push(p);
        let open = !port_closed(b, st, p);
        let duty = if st.forts[p].is_some_and(|o| o != seat) {
            b.c.fort_duty
        } else {
            0
        };
        if open && !s.left_port && !s.privateer && s.cargo.is_none() {
            for &(g, price) in &b.ports[p].buy {
                if cash >= price + duty && tokens_in_play(st, g) < b.c.supply_per_good {
                    v.push(Action::BuyGood {
                        ship: s.id,
                        good: b.goods[g].clone(),
                    });
                }
            }
        }
        if let Some(t) = &s.cargo
            && open
            && !s.left_port
            && t.fields >= b.c.min_transport_fields
            && t.bought_at != p
            && b.ports[p].sell_price(t.good).is_some()
        {
            v.push(Action::SellGood { ship: s.id });
        }
        if privateer_port(st, seat, p) {
            if !s.privateer && s.cargo.is_none() {
                v.push(Action::FitPrivateer { ship: s.id });
            }
            if s.privateer {
                v.push(Action::UnfitPrivateer { ship: s.id });
            }
        }
        if st.isthmus
            && let Some(i) = isthmus_of_port(b, p)
        {
            {
                if s.cargo.is_some() && cash >= isthmus_toll(b, st, i, seat).0 {
                    v.push(Action::TransshipDrop { ship: s.id });
                }
                if !s.privateer && s.cargo.is_none() {
                    for d in &st.players[seat].depot {
                        if d.isthmus == i && d.dropped_at != p {
                            v.push(Action::TransshipPickup {
                                ship: s.id,
                                load: d.id,
                            });
                        }
                    }
                }
            }
        }
        v.push(Action::SellShip { ship: s.id });
    }
    fort_ports.sort_unstable();
    fort_ports.dedup();
    if cash >= b.c.fort_price && st.fort_count(seat) < b.c.max_forts {
        for p in fort_ports {
            if b.ports[p].fort_allowed && st.forts[p].is_none() && !port_closed(b, st, p) {
                v.push(Action::BuyFort {
                    port: b.ports[p].id.clone(),
                });
            }
        }
    }
    if cash >= ship_price(b, st)
        && st.ship_count(seat) < b.c.max_ships
        && st.players[seat].home.is_some()
    {
        v.push(Action::BuyShip);
    }
}

/// A bounded menu of standard deals; `apply` accepts any well-formed offer.
fn offer_actions(b: &Board, st: &State, seat: Seat, v: &mut Vec<Action>) {
    if st.offers.iter().filter(|o| o.from == seat).count() >= MAX_OPEN_OFFERS {
        return;
    }
    let cash = st.cash(seat);
    let cash_only = |c: u32| Bundle {
        cash: c,
        ..Bundle::default()
    };
    for q in 0..st.seats {
        if q == seat || st.players[q].out || st.offers.iter().any(|o| o.from == seat && o.to == q) {
            continue;
        }
        let mut push = |give: Bundle, get: Bundle| v.push(Action::Offer { to: q, give, get });
        if cash >= 50 {
            push(cash_only(50), Bundle::default());
        }
        push(Bundle::default(), cash_only(50));
        for (p, f) in st.forts.iter().enumerate() {
            let fort = Bundle {
                forts: vec![b.ports[p].id.clone()],
                ..Bundle::default()
            };
            if *f == Some(seat) {
                push(fort, cash_only(b.c.fort_price));
            } else if *f == Some(q) && cash >= b.c.fort_price {
                push(cash_only(b.c.fort_price), fort);
            }
        }
        for d in &st.players[seat].depot {
            let load = Bundle {
                depot: vec![d.id],
                ..Bundle::default()
            };
            push(load, cash_only(d.token.price));
        }
        for s in &st.ships {
            let ship = Bundle {
                ships: vec![s.id],
                ..Bundle::default()
            };
            if s.owner == seat {
                push(ship, cash_only(b.c.ship_sellback));
            } else if s.owner == q && cash >= b.c.ship_price {
                push(cash_only(b.c.ship_price), ship);
            }
        }
    }
}
