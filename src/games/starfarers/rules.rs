//! Rule logic: setup, derived values (VP, speed, rates), legal actions and their effects.

use std::collections::{BTreeSet, VecDeque};

use super::actions::Action;
use super::data::{Chip, Data, EncounterKind, FriendshipEffect, Gain, Resource, Resources};
use super::state::{
    Building, Offer, Options, Phase, PlanetState, Player, Ship, ShipKind, State, Station,
};
use turnpost_engine::{GameRng, RuleError, Seat, SetupError};

/// Seat letters used in the map and the log.
pub fn letter(owner: usize) -> char {
    match owner {
        0 => 'A',
        1 => 'B',
        2 => 'C',
        3 => 'D',
        _ => '?',
    }
}

pub fn player_name(state: &State, owner: usize) -> String {
    if owner >= state.seats {
        "the neutral home".into()
    } else {
        format!("Player {}", letter(owner))
    }
}

fn err(code: &'static str, msg: impl Into<String>) -> RuleError {
    RuleError::new(code, msg)
}

// ---------------------------------------------------------------- setup

pub fn setup(
    d: &Data,
    options: &Options,
    seats: usize,
    mut rng: GameRng,
) -> Result<State, SetupError> {
    if !(3..=4).contains(&seats) {
        return Err(SetupError::player_count(seats, 3, 4));
    }
    if options.turn_limit == Some(0) {
        return Err(SetupError::invalid_options("turn_limit must be at least 1"));
    }
    if d.systems.is_empty() {
        return Err(SetupError::new(
            "invalid_data",
            "the Starfarers data file did not load",
        ));
    }
    let mut outer = d.outer_chips.clone();
    rng.shuffle(&mut outer);
    let mut outer = outer.into_iter();
    let planets = d
        .planets
        .iter()
        .map(|p| {
            let (chip, revealed) = match p.home_chip {
                Some(c) => (Some(c), true),
                None => (outer.next(), false),
            };
            PlanetState {
                chip,
                revealed,
                from_reserve: false,
                seen_by: BTreeSet::new(),
            }
        })
        .collect();
    let mut reserve = d.reserve_chips.clone();
    rng.shuffle(&mut reserve);
    let mut deck: Vec<usize> = (0..d.encounters.len()).collect();
    rng.shuffle(&mut deck);

    let mut buildings = Vec::new();
    let mut ships = Vec::new();
    for sys in &d.systems {
        let Some(owner) = sys.home_seat else { continue };
        for &n in &sys.colony_sites {
            buildings.push(Building {
                node: n,
                owner,
                spaceport: false,
            });
        }
        buildings.push(Building {
            node: sys.spaceport_site,
            owner,
            spaceport: true,
        });
        if owner < seats {
            ships.push(Ship {
                id: ships.len() as u32 + 1,
                owner,
                kind: ShipKind::Colony,
                node: sys.ship_node,
                start: sys.ship_node,
                moved: false,
                must_found: false,
            });
        }
    }
    buildings.sort_by_key(|b| b.node);
    let players = (0..seats)
        .map(|_| Player {
            fame: d.rules.fame_start,
            ..Player::default()
        })
        .collect();

    // Everyone rolls two dice; the highest starts, ties re-roll.
    let mut contenders: Vec<Seat> = (0..seats).collect();
    let mut rolls_text = Vec::new();
    while contenders.len() > 1 {
        let rolls: Vec<(Seat, u32)> = contenders
            .iter()
            .map(|&s| (s, u32::from(rng.d6()) + u32::from(rng.d6())))
            .collect();
        let best = rolls.iter().map(|r| r.1).max().unwrap_or(0);
        rolls_text.push(
            rolls
                .iter()
                .map(|(s, r)| format!("{} {r}", letter(*s)))
                .collect::<Vec<_>>()
                .join(", "),
        );
        contenders = rolls.iter().filter(|r| r.1 == best).map(|r| r.0).collect();
    }
    let first = contenders.first().copied().unwrap_or(0);

    let mut state = State {
        rng,
        options: options.clone(),
        seats,
        players,
        planets,
        reserve,
        deck,
        deck_known_bottom: 0,
        discard: Vec::new(),
        buildings,
        stations: Vec::new(),
        next_ship: ships.len() as u32 + 1,
        ships,
        card_owner: vec![None; d.friendship.len()],
        token: vec![None; d.outposts.len()],
        current: first,
        turn: 1,
        phase: Phase::Roll,
        offer: None,
        dice: None,
        balls: Vec::new(),
        speed: 0,
        warp_available: false,
        winner: None,
        log: Vec::new(),
    };
    state.push_log(format!(
        "Start rolls: {}. {} begins.",
        rolls_text.join("; re-roll: "),
        player_name(&state, first)
    ));
    Ok(state)
}

// ---------------------------------------------------------------- derived values

pub fn has_card(d: &Data, s: &State, seat: Seat, effect: FriendshipEffect) -> Option<u32> {
    let p = s.players.get(seat)?;
    p.cards
        .iter()
        .filter_map(|&c| d.friendship.get(c))
        .filter(|c| c.effect == effect)
        .map(|c| c.amount)
        .max()
}

fn card_sum(d: &Data, s: &State, seat: Seat, effect: FriendshipEffect) -> u32 {
    s.players.get(seat).map_or(0, |p| {
        p.cards
            .iter()
            .filter_map(|&c| d.friendship.get(c))
            .filter(|c| c.effect == effect)
            .map(|c| c.amount)
            .sum()
    })
}

pub fn vp(d: &Data, s: &State, seat: Seat) -> u32 {
    let Some(p) = s.players.get(seat) else {
        return 0;
    };
    let mut v = 0;
    for b in s.buildings.iter().filter(|b| b.owner == seat) {
        v += if b.spaceport { 2 } else { 1 };
    }
    v += 2 * s.token.iter().filter(|t| **t == Some(seat)).count() as u32;
    v += p.pirates + p.ice + p.fame / d.rules.fame_per_vp.max(1);
    v
}

pub fn cannons_total(d: &Data, s: &State, seat: Seat) -> u32 {
    s.players.get(seat).map_or(0, |p| p.cannons) + card_sum(d, s, seat, FriendshipEffect::Cannons)
}

pub fn rings_total(d: &Data, s: &State, seat: Seat) -> u32 {
    s.players.get(seat).map_or(0, |p| p.freight_rings)
        + card_sum(d, s, seat, FriendshipEffect::FreightRings)
}

pub fn bank_rate(d: &Data, s: &State, seat: Seat, r: Resource) -> u32 {
    let base = if r == Resource::TradeGoods {
        d.rules.trade_goods_rate
    } else {
        d.rules.bank_rate
    };
    let market = s.players.get(seat).and_then(|p| {
        p.cards
            .iter()
            .filter_map(|&c| d.friendship.get(c))
            .filter(|c| c.effect == FriendshipEffect::Market && c.resource == Some(r))
            .map(|c| c.amount)
            .min()
    });
    market.map_or(base, |m| m.min(base)).max(1)
}

pub(crate) fn add_fame(d: &Data, s: &mut State, seat: Seat, delta: i32) {
    if let Some(p) = s.players.get_mut(seat) {
        let f = (p.fame as i64 + delta as i64).clamp(0, d.rules.fame_max as i64);
        p.fame = f as u32;
    }
}

pub(crate) fn apply_gain(d: &Data, s: &mut State, seat: Seat, g: &Gain) {
    add_fame(d, s, seat, g.fame);
    let limits = (d.limits.booster, d.limits.cannon, d.limits.freight_ring);
    let Some(p) = s.players.get_mut(seat) else {
        return;
    };
    p.hand = p.hand.plus(&g.resources());
    for _ in 0..g.booster.min(10) {
        if p.boosters < limits.0 {
            p.boosters += 1;
        } else if g.fallback {
            p.hand.fuel += 1;
        }
    }
    for _ in 0..g.cannon.min(10) {
        if p.cannons < limits.1 {
            p.cannons += 1;
        } else if g.fallback {
            p.hand.carbon += 1;
        }
    }
    for _ in 0..g.freight_ring.min(10) {
        if p.freight_rings < limits.2 {
            p.freight_rings += 1;
        } else if g.fallback {
            p.hand.ore += 1;
        }
    }
}

/// A gain can be taken in full (upgrades without fallback must fit under the limits).
fn gain_fits(d: &Data, p: &Player, g: &Gain) -> bool {
    g.fallback
        || (p.boosters + g.booster <= d.limits.booster
            && p.cannons + g.cannon <= d.limits.cannon
            && p.freight_rings + g.freight_ring <= d.limits.freight_ring)
}

pub fn ship_of(s: &State, id: u32) -> Option<&Ship> {
    s.ships.iter().find(|x| x.id == id)
}

fn building_at(s: &State, node: usize) -> Option<&Building> {
    s.buildings.iter().find(|b| b.node == node)
}

fn station_at(d: &Data, s: &State, node: usize) -> bool {
    d.nodes
        .get(node)
        .and_then(|n| n.dock)
        .is_some_and(|(o, k)| s.stations.iter().any(|st| st.outpost == o && st.dock == k))
}

/// No ship, colony, spaceport or station on the node.
fn node_free(d: &Data, s: &State, node: usize, except_ship: Option<u32>) -> bool {
    !s.ships
        .iter()
        .any(|x| x.node == node && Some(x.id) != except_ship)
        && building_at(s, node).is_none()
        && !station_at(d, s, node)
}

/// The viewer knows the planet's chip is not pirates or ice.
pub(crate) fn known_clear(d: &Data, s: &State, seat: Seat, planet: usize) -> bool {
    let (Some(ps), Some(p)) = (s.planets.get(planet), d.planets.get(planet)) else {
        return false;
    };
    let known =
        p.home_chip.is_some() || ps.revealed || ps.from_reserve || ps.seen_by.contains(&seat);
    known && matches!(ps.chip, None | Some(Chip::Number(_)))
}

/// The seat knows the planet holds pirates/ice it can remove now.
fn clearable(d: &Data, s: &State, seat: Seat, planet: usize) -> bool {
    let Some(ps) = s.planets.get(planet) else {
        return false;
    };
    if !(ps.revealed || ps.seen_by.contains(&seat)) {
        return false;
    }
    match ps.chip {
        Some(Chip::Pirates(n)) => cannons_total(d, s, seat) >= u32::from(n),
        Some(Chip::Ice(n)) => rings_total(d, s, seat) >= u32::from(n),
        _ => false,
    }
}

fn system_colonies(s: &State, d: &Data, system: usize) -> usize {
    d.systems.get(system).map_or(0, |sys| {
        sys.sites
            .iter()
            .filter(|&&n| building_at(s, n).is_some())
            .count()
    })
}

/// A colony could be founded on this site by this seat now, ignoring the ship; with
/// `allow_clearing`, pirates/ice the seat can remove now count as clear (HR-14).
fn site_foundable(d: &Data, s: &State, seat: Seat, node: usize, allow_clearing: bool) -> bool {
    let Some((sys, site)) = d.nodes.get(node).and_then(|n| n.site) else {
        return false;
    };
    if building_at(s, node).is_some() {
        return false;
    }
    if s.seats == 3 && system_colonies(s, d, sys) >= 2 {
        return false;
    }
    let Some(pl) = d.systems.get(sys).map(|x| x.site_planets[site]) else {
        return false;
    };
    pl.iter()
        .all(|&p| known_clear(d, s, seat, p) || (allow_clearing && clearable(d, s, seat, p)))
}

/// The lowest dock number of the outpost with no station and no other ship on it.
fn lowest_open_dock(d: &Data, s: &State, outpost: usize, except_ship: u32) -> Option<u32> {
    let o = d.outposts.get(outpost)?;
    o.docks.iter().enumerate().find_map(|(i, &n)| {
        let k = i as u32 + 1;
        let taken = s
            .stations
            .iter()
            .any(|st| st.outpost == outpost && st.dock == k)
            || s.ships.iter().any(|x| x.node == n && x.id != except_ship);
        (!taken).then_some(k)
    })
}

/// May this ship end its move on `node`? Returns Some(must_found) when it may.
pub fn end_ok(d: &Data, s: &State, ship: &Ship, node: usize) -> Option<bool> {
    let n = d.nodes.get(node)?;
    let seat = ship.owner;
    if !node_free(d, s, node, Some(ship.id)) {
        return None;
    }
    if has_card(d, s, seat, FriendshipEffect::Pathfinder).is_none() {
        for &m in d.graph.neighbors(node) {
            if building_at(s, m).is_some_and(|b| b.spaceport && b.owner != seat) {
                return None;
            }
        }
    }
    match (ship.kind, n.site, n.dock) {
        (ShipKind::Colony, _, Some(_)) => None,
        (ShipKind::Trade, Some(_), _) => None,
        (ShipKind::Trade, _, Some((o, k))) => {
            let ok = lowest_open_dock(d, s, o, ship.id) == Some(k) && rings_total(d, s, seat) >= k;
            ok.then_some(true)
        }
        (ShipKind::Colony, Some(_), _) if node == ship.start => {
            // It began the flight here: it may stay only to found a colony now.
            site_foundable(d, s, seat, node, true).then_some(true)
        }
        _ => Some(false),
    }
}

/// BFS from `from`: distances and parents (lowest-numbered neighbours first).
fn bfs(d: &Data, from: usize, max: u32) -> (Vec<Option<u32>>, Vec<usize>) {
    let mut dist = vec![None; d.nodes.len()];
    let mut parent = vec![usize::MAX; d.nodes.len()];
    if from >= d.nodes.len() {
        return (dist, parent);
    }
    dist[from] = Some(0);
    let mut q = VecDeque::from([from]);
    while let Some(n) = q.pop_front() {
        let dn = dist[n].unwrap_or(0);
        if dn >= max {
            continue;
        }
        for &m in d.graph.neighbors(n) {
            if dist[m].is_none() {
                dist[m] = Some(dn + 1);
                parent[m] = n;
                q.push_back(m);
            }
        }
    }
    (dist, parent)
}

fn warp_amount(d: &Data, s: &State, seat: Seat) -> u32 {
    if s.warp_available {
        has_card(d, s, seat, FriendshipEffect::Warp).unwrap_or(0)
    } else {
        0
    }
}

/// Legal destinations of a ship this flight: (node, distance).
pub fn destinations(d: &Data, s: &State, ship: &Ship) -> Vec<(usize, u32)> {
    let max = s.speed + warp_amount(d, s, ship.owner);
    let (dist, _) = bfs(d, ship.node, max);
    dist.iter()
        .enumerate()
        .filter_map(|(n, dd)| dd.map(|x| (n, x)))
        .filter(|&(n, _)| end_ok(d, s, ship, n).is_some())
        .collect()
}

fn ships_of(s: &State, seat: Seat) -> impl Iterator<Item = &Ship> {
    s.ships.iter().filter(move |x| x.owner == seat)
}

fn spaceport_neighbours(d: &Data, s: &State, seat: Seat) -> Vec<usize> {
    let mut v: BTreeSet<usize> = BTreeSet::new();
    for b in s
        .buildings
        .iter()
        .filter(|b| b.owner == seat && b.spaceport)
    {
        for &m in d.graph.neighbors(b.node) {
            if node_free(d, s, m, None) {
                v.insert(m);
            }
        }
    }
    v.into_iter().collect()
}

fn can_build_ship(d: &Data, s: &State, seat: Seat, kind: ShipKind) -> bool {
    let Some(p) = s.players.get(seat) else {
        return false;
    };
    let ships = ships_of(s, seat).count() as u32;
    let cost = match kind {
        ShipKind::Colony => &d.costs.colony_ship,
        ShipKind::Trade => &d.costs.trade_ship,
    };
    let modules_ok = match kind {
        ShipKind::Colony => {
            let used = s.buildings.iter().filter(|b| b.owner == seat).count() as u32
                + ships_of(s, seat)
                    .filter(|x| x.kind == ShipKind::Colony)
                    .count() as u32;
            used < d.pieces.colonies
        }
        ShipKind::Trade => {
            let used = s.stations.iter().filter(|x| x.owner == seat).count() as u32
                + ships_of(s, seat)
                    .filter(|x| x.kind == ShipKind::Trade)
                    .count() as u32;
            used < d.pieces.trade_modules
        }
    };
    ships < d.pieces.transporters && modules_ok && p.hand.covers(cost)
}

/// A ship that stayed on its starting site or ended on a dock must found while it still can
/// (if another founding made it impossible, the turn may end).
fn must_found_pending(d: &Data, s: &State) -> bool {
    ships_of(s, s.current).any(|x| {
        x.must_found
            && match x.kind {
                ShipKind::Colony => site_foundable(d, s, x.owner, x.node, true),
                ShipKind::Trade => station_ok(d, s, x.owner, x),
            }
    })
}

/// The flight may end: nothing must be founded, and every ship that has not flown may stay
/// where it is (so players need not "keep" each ship by hand).
fn can_end_flight(d: &Data, s: &State) -> bool {
    !must_found_pending(d, s)
        && ships_of(s, s.current)
            .filter(|x| !x.moved)
            .all(|x| end_ok(d, s, x, x.node) == Some(false) || destinations(d, s, x).is_empty())
}

fn all_moved(s: &State) -> bool {
    ships_of(s, s.current).all(|x| x.moved)
}

/// Whether the planet may be cleared (pirates) or terraformed (ice) by the seat now.
fn removal_ok(d: &Data, s: &State, seat: Seat, planet: usize, pirates: bool) -> bool {
    let (Some(ps), Some(p)) = (s.planets.get(planet), d.planets.get(planet)) else {
        return false;
    };
    let kind_ok = matches!(
        (ps.chip, pirates),
        (Some(Chip::Pirates(_)), true) | (Some(Chip::Ice(_)), false)
    );
    kind_ok
        && clearable(d, s, seat, planet)
        && ships_of(s, seat).any(|x| p.corners.contains(&x.node))
}

fn colony_ok(d: &Data, s: &State, seat: Seat, ship: &Ship) -> bool {
    ship.owner == seat
        && ship.kind == ShipKind::Colony
        && site_foundable(d, s, seat, ship.node, false)
}

fn station_ok(d: &Data, s: &State, seat: Seat, ship: &Ship) -> bool {
    if ship.owner != seat || ship.kind != ShipKind::Trade {
        return false;
    }
    let Some((o, k)) = d.nodes.get(ship.node).and_then(|n| n.dock) else {
        return false;
    };
    let lower_done = (1..k).all(|j| s.stations.iter().any(|st| st.outpost == o && st.dock == j));
    let free = !s.stations.iter().any(|st| st.outpost == o && st.dock == k);
    lower_done && free && rings_total(d, s, seat) >= k
}

// ---------------------------------------------------------------- encounters

/// The options an encounter card offers the active player now.
fn encounter_options(d: &Data, s: &State, card: usize) -> Vec<Action> {
    let seat = s.current;
    let (Some(e), Some(p)) = (d.encounters.get(card), s.players.get(seat)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    match e.kind {
        EncounterKind::ChooseResources => {
            let pool = Resources {
                carbon: e.count,
                food: e.count,
                fuel: e.count,
                ore: e.count,
                trade_goods: e.count,
            };
            for c in pool.subsets_of_size(e.count) {
                out.push(Action::EncounterTake { cards: c });
            }
        }
        EncounterKind::Offer => {
            let mut pays = Vec::new();
            match e.pay_any {
                Some([a, b]) => {
                    for n in a..=b {
                        pays.extend(p.hand.subsets_of_size(n));
                    }
                }
                None => {
                    if p.hand.covers(&e.pay) {
                        pays.push(e.pay);
                    }
                }
            }
            if gain_fits(d, p, &e.reward) {
                out.extend(pays.into_iter().map(|c| Action::EncounterPay { cards: c }));
            }
            if !out.is_empty() {
                out.push(Action::EncounterDecline);
            }
        }
        EncounterKind::Fight => {
            out.push(Action::EncounterFight);
            if e.tribute > 0 {
                for c in p.hand.subsets_of_size(e.tribute) {
                    out.push(Action::EncounterPay { cards: c });
                }
            }
        }
        _ => {}
    }
    out
}

/// The player with the fewest VP, searching from the seat after `seat` (rules E12).
fn poorest_after(d: &Data, s: &State, seat: Seat) -> Seat {
    let order: Vec<Seat> = (1..=s.seats).map(|i| (seat + i) % s.seats).collect();
    let min = order.iter().map(|&x| vp(d, s, x)).min().unwrap_or(0);
    order
        .into_iter()
        .find(|&x| vp(d, s, x) == min)
        .unwrap_or(seat)
}

fn draw_encounter(s: &mut State) -> Option<usize> {
    if s.deck.is_empty() {
        let mut pile = std::mem::take(&mut s.discard);
        s.rng.shuffle(&mut pile);
        s.deck = pile;
        s.deck_known_bottom = 0;
    }
    if s.deck.is_empty() {
        return None;
    }
    let c = s.deck.remove(0);
    s.deck_known_bottom = s.deck_known_bottom.min(s.deck.len());
    Some(c)
}

/// Reveals an encounter card and resolves what needs no choice.
pub(crate) fn resolve_encounter(d: &Data, s: &mut State, card: usize) {
    let seat = s.current;
    let Some(e) = d.encounters.get(card) else {
        start_flying(d, s, true, None, 0);
        return;
    };
    s.push_log(format!(
        "{} meets encounter {}",
        player_name(s, seat),
        e.describe()
    ));
    let done = |d: &Data, s: &mut State, set: Option<u32>, bonus: u32| {
        s.discard.push(card);
        start_flying(d, s, true, set, bonus);
    };
    match e.kind {
        EncounterKind::Gain => {
            apply_gain(d, s, seat, &e.gain);
            done(d, s, None, 0);
        }
        EncounterKind::SpeedSet => done(d, s, Some(e.speed), 0),
        EncounterKind::SpeedBonus => done(d, s, None, e.speed),
        EncounterKind::LoseBooster => {
            if let Some(p) = s.players.get_mut(seat) {
                if p.boosters > 0 {
                    p.boosters -= 1;
                } else if p.hand.fuel > 0 {
                    p.hand.fuel -= 1;
                }
            }
            done(d, s, None, 0);
        }
        EncounterKind::DiscardRandom => {
            let mut lost = Resources::default();
            for _ in 0..e.count {
                let cards = s
                    .players
                    .get(seat)
                    .map(|p| p.hand.cards())
                    .unwrap_or_default();
                let Some(&r) = s.rng.pick(&cards) else { break };
                if let Some(p) = s.players.get_mut(seat) {
                    *p.hand.slot(r) -= 1;
                }
                *lost.slot(r) += 1;
            }
            s.push_log(format!(
                "{} discards {} at random",
                player_name(s, seat),
                lost.describe()
            ));
            done(d, s, None, 0);
        }
        EncounterKind::Offer if e.to_poorest && poorest_after(d, s, seat) == seat => {
            s.push_log("You have the fewest VP yourself: nothing happens.");
            done(d, s, None, 0);
        }
        _ => {
            s.phase = Phase::Encounter { card };
            if encounter_options(d, s, card).is_empty() {
                // Nothing can be paid: the refusal applies at once.
                apply_gain(d, s, seat, &e.decline);
                if !e.decline.is_nothing() {
                    s.push_log(format!(
                        "{} cannot pay: {}",
                        player_name(s, seat),
                        e.decline.describe()
                    ));
                }
                done(d, s, None, 0);
            }
        }
    }
}

pub(crate) fn start_flying(d: &Data, s: &mut State, black: bool, set: Option<u32>, bonus: u32) {
    let seat = s.current;
    let base = if black {
        d.rules.encounter_base_speed
    } else {
        s.balls
            .iter()
            .filter_map(|&b| d.balls.get(b))
            .map(|b| b.value)
            .sum()
    };
    let boosters = s.players.get(seat).map_or(0, |p| p.boosters);
    s.speed = match set {
        Some(v) => v,
        None => base + boosters + card_sum(d, s, seat, FriendshipEffect::Speed) + bonus,
    };
    s.warp_available = set.is_none() && has_card(d, s, seat, FriendshipEffect::Warp).is_some();
    for x in s.ships.iter_mut().filter(|x| x.owner == seat) {
        x.start = x.node;
        x.moved = false;
        x.must_found = false;
    }
    s.phase = Phase::Flying;
    s.push_log(format!("Speed this flight: {}", s.speed));
}

// ---------------------------------------------------------------- turn flow

fn after_production(d: &Data, s: &mut State, relief: Vec<Seat>) {
    if !relief.is_empty() {
        s.phase = Phase::Relief { seats: relief };
    } else {
        supply_step(d, s);
    }
}

fn supply_step(d: &Data, s: &mut State) {
    s.phase = if vp(d, s, s.current) < d.rules.supply_below_vp {
        Phase::Supply
    } else {
        Phase::TradeBuild
    };
}

fn steal_step(d: &Data, s: &mut State) {
    let cur = s.current;
    let any = (0..s.seats).any(|x| x != cur && s.players[x].hand.total() > 0);
    if any {
        s.phase = Phase::Steal;
    } else {
        supply_step(d, s);
    }
}

pub(crate) fn produce(d: &Data, s: &mut State, roll: u32) {
    let mut got = vec![Resources::default(); s.seats];
    for (i, p) in d.planets.iter().enumerate() {
        let ps = &s.planets[i];
        if ps.chip != Some(Chip::Number(roll as u8)) || !(ps.revealed || p.home_chip.is_some()) {
            continue;
        }
        for &site in &p.sites {
            if let Some(b) = building_at(s, site)
                && let Some(g) = got.get_mut(b.owner)
            {
                *g.slot(p.resource) += 1;
            }
        }
    }
    let mut relief = Vec::new();
    for (seat, g) in got.iter_mut().enumerate() {
        if g.food > 0
            && let Some(extra) = has_card(d, s, seat, FriendshipEffect::Harvest)
        {
            g.food += extra;
        }
        if g.is_empty() && has_card(d, s, seat, FriendshipEffect::Relief).is_some() {
            relief.push(seat);
        }
        if !g.is_empty() {
            s.players[seat].hand = s.players[seat].hand.plus(g);
            let t = format!("{} produces {}", player_name(s, seat), g.describe());
            s.push_log(t);
        }
    }
    after_production(d, s, relief);
}

pub(crate) fn seven(d: &Data, s: &mut State) {
    let mut owed = Vec::new();
    for seat in 0..s.seats {
        let limit =
            has_card(d, s, seat, FriendshipEffect::Storehouse).unwrap_or(d.rules.discard_above);
        let n = s.players[seat].hand.total();
        if n > limit {
            owed.push((seat, n / 2));
        }
    }
    if owed.is_empty() {
        steal_step(d, s);
    } else {
        let t = owed
            .iter()
            .map(|(x, n)| format!("{} discards {n}", player_name(s, *x)))
            .collect::<Vec<_>>()
            .join(", ");
        s.push_log(t);
        s.phase = Phase::Discard { owed };
    }
}

fn end_turn(d: &Data, s: &mut State) {
    if s.offer.take().is_some() {
        s.push_log("The pending trade offer lapses.");
    }
    if let Some(p) = s.players.get_mut(s.current) {
        p.broker_used = false;
        p.patronage_used = false;
    }
    if let Some(limit) = s.options.turn_limit
        && s.turn >= limit
    {
        s.phase = Phase::Over;
        s.push_log(format!(
            "The turn limit ({limit}) is reached: the game ends."
        ));
        return;
    }
    s.current = (s.current + 1) % s.seats.max(1);
    s.turn += 1;
    s.phase = Phase::Roll;
    s.dice = None;
    s.balls.clear();
    s.speed = 0;
    s.warp_available = false;
    let _ = d;
}

/// The friendship token goes to the most stations, ties to the lowest dock.
pub(crate) fn recompute_token(s: &mut State, outpost: usize) -> Option<Seat> {
    let mut best: Option<(usize, u32, Seat)> = None; // (count, lowest dock, seat)
    for seat in 0..s.seats {
        let mine: Vec<u32> = s
            .stations
            .iter()
            .filter(|st| st.outpost == outpost && st.owner == seat)
            .map(|st| st.dock)
            .collect();
        if mine.is_empty() {
            continue;
        }
        let low = mine.iter().copied().min().unwrap_or(u32::MAX);
        let better = match best {
            None => true,
            Some((c, l, _)) => mine.len() > c || (mine.len() == c && low < l),
        };
        if better {
            best = Some((mine.len(), low, seat));
        }
    }
    let holder = best.map(|b| b.2);
    if let Some(t) = s.token.get_mut(outpost) {
        *t = holder;
    }
    holder
}

/// After a chip leaves a planet: a reserve chip goes face down there.
fn replace_chip(s: &mut State, planet: usize) {
    let next = if s.reserve.is_empty() {
        None
    } else {
        Some(s.reserve.remove(0))
    };
    if let Some(ps) = s.planets.get_mut(planet) {
        ps.chip = next;
        ps.revealed = false;
        ps.from_reserve = true;
        ps.seen_by.clear();
    }
}

/// Peeks at every face-down chip next to the route's intersections (HR-14).
fn peek_along(d: &Data, s: &mut State, seat: Seat, route: &[usize]) -> Vec<usize> {
    let mut seen = Vec::new();
    for &n in route {
        let Some(node) = d.nodes.get(n) else { continue };
        for &p in &node.planets {
            if let Some(ps) = s.planets.get_mut(p)
                && !ps.revealed
                && ps.chip.is_some()
                && ps.seen_by.insert(seat)
            {
                seen.push(p);
            }
        }
    }
    seen
}

// ---------------------------------------------------------------- legal actions

pub fn to_act(s: &State) -> Vec<Seat> {
    match &s.phase {
        Phase::Over => Vec::new(),
        Phase::Discard { owed } => owed.iter().filter(|o| o.1 > 0).map(|o| o.0).collect(),
        Phase::Relief { seats } => seats.clone(),
        _ => vec![s.current],
    }
}

pub fn legal(d: &Data, s: &State, seat: Seat) -> Vec<Action> {
    let mut out = Vec::new();
    if seat >= s.seats {
        return out;
    }
    let cur = s.current;
    let me = &s.players[seat];
    match &s.phase {
        Phase::Over => {}
        Phase::Roll if seat == cur => out.push(Action::Roll),
        Phase::Discard { owed } if owed.iter().any(|o| o.0 == seat && o.1 > 0) => {
            for r in Resource::ALL {
                if me.hand.get(r) > 0 {
                    out.push(Action::Discard { resource: r });
                }
            }
        }
        Phase::Steal if seat == cur => {
            for x in 0..s.seats {
                if x != cur && s.players[x].hand.total() > 0 {
                    out.push(Action::Steal { from: x });
                }
            }
            out.push(Action::NoSteal);
        }
        Phase::Relief { seats } if seats.contains(&seat) => {
            out.extend(Resource::ALL.map(|r| Action::TakeRelief { resource: r }));
        }
        Phase::Supply if seat == cur => {
            out.extend(Resource::ALL.map(|r| Action::TakeSupply { resource: r }))
        }
        Phase::TradeBuild if seat == cur => {
            for give in Resource::ALL {
                let rate = bank_rate(d, s, seat, give);
                if me.hand.get(give) >= rate {
                    for get in Resource::ALL.into_iter().filter(|&g| g != give) {
                        out.push(Action::BankTrade { give, get });
                    }
                }
            }
            if s.offer.is_none() {
                // A player holding no cards could only decline (how many each holds is
                // public).
                for to in (0..s.seats).filter(|&x| x != seat && s.players[x].hand.total() > 0) {
                    for give in Resource::ALL.into_iter().filter(|&r| me.hand.get(r) > 0) {
                        for get in Resource::ALL.into_iter().filter(|&g| g != give) {
                            out.push(Action::OfferTrade {
                                to,
                                give: Resources::one(give, 1),
                                get: Resources::one(get, 1),
                            });
                        }
                    }
                }
            } else {
                out.push(Action::WithdrawOffer);
            }
            for (kind, mk) in [
                (
                    ShipKind::Colony,
                    (|at| Action::BuildColonyShip { at }) as fn(usize) -> Action,
                ),
                (ShipKind::Trade, |at| Action::BuildTradeShip { at }),
            ] {
                if can_build_ship(d, s, seat, kind) {
                    for at in spaceport_neighbours(d, s, seat) {
                        out.push(mk(at));
                    }
                }
            }
            let ports = s
                .buildings
                .iter()
                .filter(|b| b.owner == seat && b.spaceport)
                .count() as u32;
            if ports < d.pieces.spaceports && me.hand.covers(&d.costs.spaceport) {
                for b in s
                    .buildings
                    .iter()
                    .filter(|b| b.owner == seat && !b.spaceport)
                {
                    out.push(Action::BuildSpaceport { at: b.node });
                }
            }
            if me.boosters < d.limits.booster && me.hand.covers(&d.costs.booster) {
                out.push(Action::BuildBooster);
            }
            if me.cannons < d.limits.cannon && me.hand.covers(&d.costs.cannon) {
                out.push(Action::BuildCannon);
            }
            if me.freight_rings < d.limits.freight_ring && me.hand.covers(&d.costs.freight_ring) {
                out.push(Action::BuildFreightRing);
            }
            if has_card(d, s, seat, FriendshipEffect::Broker).is_some()
                && !me.broker_used
                && me.hand.trade_goods > 0
            {
                for get in Resource::ALL
                    .into_iter()
                    .filter(|&g| g != Resource::TradeGoods)
                {
                    out.push(Action::Broker { get });
                }
            }
            if let Some(n) = has_card(d, s, seat, FriendshipEffect::Patronage)
                && !me.patronage_used
                && me.hand.trade_goods >= n
                && me.fame < d.rules.fame_max
            {
                out.push(Action::Patronage);
            }
            if ships_of(s, seat).next().is_some() {
                out.push(Action::Launch);
            } else {
                out.push(Action::EndTurn);
            }
        }
        Phase::TradeBuild => {
            if let Some(o) = &s.offer
                && o.to == seat
            {
                if me.hand.covers(&o.get) {
                    out.push(Action::AcceptOffer);
                }
                out.push(Action::DeclineOffer);
            }
        }
        Phase::ScoutChoice { cards } if seat == cur => {
            for &c in cards {
                if let Some(e) = d.encounters.get(c) {
                    out.push(Action::ChooseEncounter { card: e.id.clone() });
                }
            }
        }
        Phase::Encounter { card } if seat == cur => out = encounter_options(d, s, *card),
        Phase::Flying if seat == cur => {
            for x in ships_of(s, seat).filter(|x| !x.moved) {
                let dests = destinations(d, s, x);
                if dests.is_empty() {
                    // Boxed in (e.g. an ion storm): it stays where it is.
                    out.push(Action::Fly {
                        ship: x.id,
                        to: x.node,
                        via: Vec::new(),
                    });
                }
                for (to, _) in dests {
                    out.push(Action::Fly {
                        ship: x.id,
                        to,
                        via: Vec::new(),
                    });
                }
            }
            if all_moved(s) {
                for p in 0..d.planets.len() {
                    if removal_ok(d, s, seat, p, true) {
                        out.push(Action::ClearPirates { planet: p });
                    }
                    if removal_ok(d, s, seat, p, false) {
                        out.push(Action::Terraform { planet: p });
                    }
                }
                for x in ships_of(s, seat) {
                    if colony_ok(d, s, seat, x) {
                        out.push(Action::FoundColony { ship: x.id });
                    }
                    if station_ok(d, s, seat, x) {
                        out.push(Action::FoundTradeStation { ship: x.id });
                    }
                }
            }
            if can_end_flight(d, s) {
                out.push(Action::EndTurn);
            }
        }
        Phase::ChooseFriendship { race } if seat == cur => {
            let race_name = d.races.get(*race).cloned().unwrap_or_default();
            for (i, c) in d.friendship.iter().enumerate() {
                if c.race == race_name && s.card_owner.get(i) == Some(&None) {
                    out.push(Action::TakeFriendshipCard { card: c.id.clone() });
                }
            }
        }
        _ => {}
    }
    out
}

// ---------------------------------------------------------------- apply

pub fn apply(d: &Data, s0: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
    if matches!(s0.phase, Phase::Over) {
        return Err(RuleError::game_over());
    }
    if seat >= s0.seats {
        return Err(RuleError::not_your_turn(seat));
    }
    let mut s = s0.clone();
    let cur = s.current;
    let name = player_name(&s, seat);
    let is_cur = seat == cur;
    let wrong = || err("wrong_phase", format!("{action:?} is not possible now"));
    match (&s0.phase, action) {
        (Phase::Roll, Action::Roll) if is_cur => {
            let (a, b) = (s.rng.d6(), s.rng.d6());
            s.dice = Some((a, b));
            let roll = u32::from(a) + u32::from(b);
            s.push_log(format!("{name} rolls {a}+{b} = {roll}"));
            if roll == 7 {
                seven(d, &mut s);
            } else {
                produce(d, &mut s, roll);
            }
        }
        (Phase::Discard { owed }, Action::Discard { resource }) => {
            let Some(i) = owed.iter().position(|o| o.0 == seat && o.1 > 0) else {
                return Err(RuleError::not_your_turn(seat));
            };
            let p = &mut s.players[seat];
            if p.hand.get(*resource) == 0 {
                return Err(err(
                    "missing_cards",
                    format!("you hold no {}", resource.name()),
                ));
            }
            *p.hand.slot(*resource) -= 1;
            let mut owed = owed.clone();
            owed[i].1 -= 1;
            s.push_log(format!("{name} discards 1 {}", resource.name()));
            if owed.iter().all(|o| o.1 == 0) {
                steal_step(d, &mut s);
            } else {
                s.phase = Phase::Discard { owed };
            }
        }
        (Phase::Steal, Action::Steal { from }) if is_cur => {
            let victim = *from;
            if victim == seat || victim >= s.seats || s.players[victim].hand.total() == 0 {
                return Err(err("bad_target", "choose another player who holds cards"));
            }
            let cards = s.players[victim].hand.cards();
            if let Some(&r) = s.rng.pick(&cards) {
                *s.players[victim].hand.slot(r) -= 1;
                *s.players[seat].hand.slot(r) += 1;
                let vname = player_name(&s, victim);
                s.push_private(
                    format!("{name} draws a random card from {vname}"),
                    vec![seat, victim],
                    format!("{name} draws 1 {} from {vname}", r.name()),
                );
            }
            supply_step(d, &mut s);
        }
        (Phase::Steal, Action::NoSteal) if is_cur => {
            s.push_log(format!("{name} draws no card"));
            supply_step(d, &mut s);
        }
        (Phase::Relief { seats }, Action::TakeRelief { resource }) => {
            if !seats.contains(&seat) {
                return Err(RuleError::not_your_turn(seat));
            }
            *s.players[seat].hand.slot(*resource) += 1;
            s.push_log(format!("{name} takes 1 {} (relief)", resource.name()));
            let rest: Vec<Seat> = seats.iter().copied().filter(|&x| x != seat).collect();
            after_production(d, &mut s, rest);
        }
        (Phase::Supply, Action::TakeSupply { resource }) if is_cur => {
            *s.players[seat].hand.slot(*resource) += 1;
            s.push_log(format!("{name} takes 1 {} from Earth", resource.name()));
            s.phase = Phase::TradeBuild;
        }
        (Phase::TradeBuild, Action::AcceptOffer | Action::DeclineOffer) => {
            let Some(o) = s.offer.clone() else {
                return Err(err("no_offer", "there is no pending offer"));
            };
            if o.to != seat {
                return Err(RuleError::not_your_turn(seat));
            }
            s.offer = None;
            if matches!(action, Action::DeclineOffer) {
                s.push_log(format!("{name} declines the offer"));
            } else {
                let (Some(a), Some(b)) = (
                    s.players[o.from].hand.minus(&o.give),
                    s.players[seat].hand.minus(&o.get),
                ) else {
                    return Err(err("missing_cards", "you do not hold the cards asked for"));
                };
                s.players[o.from].hand = a.plus(&o.get);
                s.players[seat].hand = b.plus(&o.give);
                s.push_log(format!(
                    "{name} accepts: {} gives {} for {}",
                    player_name(&s, o.from),
                    o.give.describe(),
                    o.get.describe()
                ));
            }
        }
        (Phase::TradeBuild, _) if !is_cur => return Err(RuleError::not_your_turn(seat)),
        (Phase::TradeBuild, _) => trade_build(d, &mut s, seat, action)?,
        (Phase::ScoutChoice { cards }, Action::ChooseEncounter { card }) if is_cur => {
            let Some(&chosen) = cards
                .iter()
                .find(|&&c| d.encounters.get(c).is_some_and(|e| &e.id == card))
            else {
                return Err(err(
                    "bad_card",
                    format!("{card} is not one of the drawn cards"),
                ));
            };
            for &c in cards.iter().filter(|&&c| c != chosen) {
                s.deck.push(c);
                s.deck_known_bottom += 1;
                if let Some(e) = d.encounters.get(c) {
                    s.push_log(format!("{} goes under the encounter deck", e.id));
                }
            }
            resolve_encounter(d, &mut s, chosen);
        }
        (Phase::Encounter { card }, a) if is_cur => {
            let card = *card;
            if !encounter_options(d, &s, card).contains(a) {
                return Err(err(
                    "bad_choice",
                    "that is not one of this encounter's options",
                ));
            }
            encounter_choice(d, &mut s, card, a);
        }
        (Phase::Flying, _) if is_cur => flying(d, &mut s, seat, action)?,
        (Phase::ChooseFriendship { race }, Action::TakeFriendshipCard { card }) if is_cur => {
            let race_name = d.races.get(*race).cloned().unwrap_or_default();
            let Some(i) = d
                .friendship
                .iter()
                .position(|c| &c.id == card && c.race == race_name)
                .filter(|&i| s.card_owner.get(i) == Some(&None))
            else {
                return Err(err(
                    "bad_card",
                    format!("{card} is not a free friendship card of this race"),
                ));
            };
            s.card_owner[i] = Some(seat);
            s.players[seat].cards.push(i);
            s.push_log(format!(
                "{name} takes friendship card {}",
                d.friendship[i].describe()
            ));
            s.phase = Phase::Flying;
        }
        _ => {
            if !to_act(s0).contains(&seat) {
                return Err(RuleError::not_your_turn(seat));
            }
            return Err(wrong());
        }
    }
    // An offer stands only while its maker can still pay it.
    if let Some(o) = &s.offer
        && !s.players[o.from].hand.covers(&o.give)
    {
        s.offer = None;
        s.push_log("The pending offer is withdrawn (its cards were spent).");
    }
    // Victory: the active player at 15 VP during their own turn wins at once.
    if !matches!(s.phase, Phase::Over) && vp(d, &s, s.current) >= d.rules.victory_points {
        s.winner = Some(s.current);
        s.phase = Phase::Over;
        s.offer = None;
        let t = format!(
            "{} reaches {} VP and wins!",
            player_name(&s, s.current),
            vp(d, &s, s.current)
        );
        s.push_log(t);
    }
    Ok(s)
}

fn pay(s: &mut State, seat: Seat, cost: &Resources) -> Result<(), RuleError> {
    let p = &mut s.players[seat];
    p.hand = p
        .hand
        .minus(cost)
        .ok_or_else(|| err("missing_cards", format!("you need {}", cost.describe())))?;
    Ok(())
}

fn trade_build(d: &Data, s: &mut State, seat: Seat, action: &Action) -> Result<(), RuleError> {
    let name = player_name(s, seat);
    match action {
        Action::BankTrade { give, get } => {
            if give == get {
                return Err(err("bad_trade", "give and get must differ"));
            }
            let rate = bank_rate(d, s, seat, *give);
            pay(s, seat, &Resources::one(*give, rate))?;
            *s.players[seat].hand.slot(*get) += 1;
            s.push_log(format!(
                "{name} trades {rate} {} to the bank for 1 {}",
                give.name(),
                get.name()
            ));
        }
        Action::OfferTrade { to, give, get } => {
            if s.offer.is_some() {
                return Err(err("offer_pending", "withdraw your pending offer first"));
            }
            if *to == seat || *to >= s.seats {
                return Err(err("bad_target", "offer to another player"));
            }
            if give.is_empty() || get.is_empty() || give.total() > 50 || get.total() > 50 {
                return Err(err("bad_trade", "both sides of an offer need 1-50 cards"));
            }
            if Resource::ALL
                .iter()
                .any(|&r| give.get(r) > 0 && get.get(r) > 0)
            {
                return Err(err("bad_trade", "a resource cannot be on both sides"));
            }
            if !s.players[seat].hand.covers(give) {
                return Err(err("missing_cards", "you do not hold the cards you offer"));
            }
            let holds = s.players[*to].hand.total();
            if holds < get.total() {
                return Err(err(
                    "cannot_pay",
                    format!(
                        "{} holds {holds} card{}, fewer than the offer asks for",
                        player_name(s, *to),
                        if holds == 1 { "" } else { "s" }
                    ),
                ));
            }
            s.offer = Some(Offer {
                from: seat,
                to: *to,
                give: *give,
                get: *get,
            });
            let to_name = player_name(s, *to);
            s.push_private(
                format!("{name} makes {to_name} a trade offer"),
                vec![seat, *to],
                format!(
                    "{name} offers {to_name} {} for {}",
                    give.describe(),
                    get.describe()
                ),
            );
        }
        Action::WithdrawOffer => {
            if s.offer.take().is_none() {
                return Err(err("no_offer", "you have no pending offer"));
            }
            s.push_log(format!("{name} withdraws the offer"));
        }
        Action::BuildColonyShip { at } | Action::BuildTradeShip { at } => {
            let kind = if matches!(action, Action::BuildColonyShip { .. }) {
                ShipKind::Colony
            } else {
                ShipKind::Trade
            };
            if !can_build_ship(d, s, seat, kind) {
                return Err(err(
                    "cannot_build",
                    format!("you cannot build a {} now", kind.name()),
                ));
            }
            if !spaceport_neighbours(d, s, seat).contains(at) {
                return Err(err(
                    "bad_place",
                    "choose a free intersection next to one of your spaceports",
                ));
            }
            let cost = match kind {
                ShipKind::Colony => d.costs.colony_ship,
                ShipKind::Trade => d.costs.trade_ship,
            };
            pay(s, seat, &cost)?;
            let id = s.next_ship;
            s.next_ship += 1;
            s.ships.push(Ship {
                id,
                owner: seat,
                kind,
                node: *at,
                start: *at,
                moved: false,
                must_found: false,
            });
            s.push_log(format!("{name} builds {} #{id}", kind.name()));
        }
        Action::BuildSpaceport { at } => {
            let ports = s
                .buildings
                .iter()
                .filter(|b| b.owner == seat && b.spaceport)
                .count() as u32;
            if ports >= d.pieces.spaceports {
                return Err(err("no_pieces", "you have no spaceport ring left"));
            }
            let Some(i) = s
                .buildings
                .iter()
                .position(|b| b.node == *at && b.owner == seat && !b.spaceport)
            else {
                return Err(err("bad_place", "choose one of your colonies"));
            };
            pay(s, seat, &d.costs.spaceport)?;
            s.buildings[i].spaceport = true;
            s.push_log(format!("{name} upgrades a colony to a spaceport"));
        }
        Action::BuildBooster | Action::BuildCannon | Action::BuildFreightRing => {
            let (cost, limit, have, what) = match action {
                Action::BuildBooster => (
                    d.costs.booster,
                    d.limits.booster,
                    s.players[seat].boosters,
                    "booster",
                ),
                Action::BuildCannon => (
                    d.costs.cannon,
                    d.limits.cannon,
                    s.players[seat].cannons,
                    "cannon",
                ),
                _ => (
                    d.costs.freight_ring,
                    d.limits.freight_ring,
                    s.players[seat].freight_rings,
                    "freight ring",
                ),
            };
            if have >= limit {
                return Err(err("at_limit", format!("you already have {limit} of them")));
            }
            pay(s, seat, &cost)?;
            let p = &mut s.players[seat];
            match action {
                Action::BuildBooster => p.boosters += 1,
                Action::BuildCannon => p.cannons += 1,
                _ => p.freight_rings += 1,
            }
            s.push_log(format!("{name} builds a {what}"));
        }
        Action::Broker { get } => {
            if has_card(d, s, seat, FriendshipEffect::Broker).is_none()
                || s.players[seat].broker_used
            {
                return Err(err("not_allowed", "you have no unused broker card"));
            }
            if *get == Resource::TradeGoods {
                return Err(err("bad_trade", "choose another resource"));
            }
            pay(s, seat, &Resources::one(Resource::TradeGoods, 1))?;
            *s.players[seat].hand.slot(*get) += 1;
            s.players[seat].broker_used = true;
            s.push_log(format!(
                "{name} swaps 1 trade goods for 1 {} (broker)",
                get.name()
            ));
        }
        Action::Patronage => {
            let Some(n) = has_card(d, s, seat, FriendshipEffect::Patronage) else {
                return Err(err("not_allowed", "you have no patronage card"));
            };
            if s.players[seat].patronage_used || s.players[seat].fame >= d.rules.fame_max {
                return Err(err(
                    "not_allowed",
                    "patronage is used up this turn or fame is full",
                ));
            }
            pay(s, seat, &Resources::one(Resource::TradeGoods, n))?;
            s.players[seat].patronage_used = true;
            add_fame(d, s, seat, 1);
            s.push_log(format!("{name} pays {n} trade goods for a fame ring"));
        }
        Action::Launch => {
            if ships_of(s, seat).next().is_none() {
                return Err(err("no_ships", "you have no ship; end your turn"));
            }
            if s.offer.take().is_some() {
                s.push_log("The pending trade offer lapses.");
            }
            let mut idx: Vec<usize> = (0..d.balls.len()).collect();
            s.rng.shuffle(&mut idx);
            idx.truncate(2);
            s.balls = idx.clone();
            let names: Vec<&str> = idx
                .iter()
                .filter_map(|&i| d.balls.get(i))
                .map(|b| b.name.as_str())
                .collect();
            s.push_log(format!(
                "{name} shakes the mothership: {}",
                names.join(" + ")
            ));
            let black = idx.iter().any(|&i| d.balls.get(i).is_some_and(|b| b.black));
            if black {
                let scouts = has_card(d, s, seat, FriendshipEffect::Scouts)
                    .unwrap_or(1)
                    .max(1);
                let mut drawn = Vec::new();
                for _ in 0..scouts.min(4) {
                    if let Some(c) = draw_encounter(s) {
                        drawn.push(c);
                    }
                }
                match drawn.len() {
                    0 => start_flying(d, s, true, None, 0),
                    1 => resolve_encounter(d, s, drawn[0]),
                    _ => {
                        let ids: Vec<String> = drawn
                            .iter()
                            .filter_map(|&c| d.encounters.get(c))
                            .map(|e| e.describe())
                            .collect();
                        s.push_log(format!("Scouts draw: {}", ids.join(" / ")));
                        s.phase = Phase::ScoutChoice { cards: drawn };
                    }
                }
            } else {
                start_flying(d, s, false, None, 0);
            }
        }
        Action::EndTurn => {
            if ships_of(s, seat).next().is_some() {
                return Err(err("must_fly", "you have ships: launch to fly"));
            }
            end_turn(d, s);
        }
        _ => {
            return Err(err(
                "wrong_phase",
                format!("{action:?} is not possible while trading and building"),
            ));
        }
    }
    Ok(())
}

fn encounter_choice(d: &Data, s: &mut State, card: usize, a: &Action) {
    let seat = s.current;
    let name = player_name(s, seat);
    let Some(e) = d.encounters.get(card) else {
        return;
    };
    match a {
        Action::EncounterTake { cards } => {
            s.players[seat].hand = s.players[seat].hand.plus(cards);
            s.push_log(format!("{name} takes {}", cards.describe()));
        }
        Action::EncounterDecline => {
            apply_gain(d, s, seat, &e.decline);
            s.push_log(format!("{name} refuses ({})", e.decline.describe()));
        }
        Action::EncounterPay { cards } => {
            if let Some(h) = s.players[seat].hand.minus(cards) {
                s.players[seat].hand = h;
            }
            if e.kind == EncounterKind::Fight {
                s.push_log(format!("{name} pays a tribute of {}", cards.describe()));
            } else {
                if e.to_poorest {
                    let to = poorest_after(d, s, seat);
                    s.players[to].hand = s.players[to].hand.plus(cards);
                    s.push_log(format!(
                        "{name} gives {} to {}",
                        cards.describe(),
                        player_name(s, to)
                    ));
                } else {
                    s.push_log(format!("{name} pays {}", cards.describe()));
                }
                if let Some(r) = e.convert_to {
                    *s.players[seat].hand.slot(r) += cards.total();
                }
                apply_gain(d, s, seat, &e.reward);
            }
        }
        Action::EncounterFight => {
            let die = u32::from(s.rng.d6());
            let strength = die + cannons_total(d, s, seat);
            let verdict = if strength > e.strength {
                apply_gain(d, s, seat, &e.win_gain());
                "win".to_string()
            } else if strength == e.strength {
                "draw".to_string()
            } else {
                let p = &mut s.players[seat];
                if p.cannons > 0 {
                    p.cannons -= 1;
                    "loss: -1 cannon".to_string()
                } else if p.boosters > 0 {
                    p.boosters -= 1;
                    "loss: -1 booster".to_string()
                } else {
                    add_fame(d, s, seat, -1);
                    "loss: -1 fame ring".to_string()
                }
            };
            s.push_log(format!(
                "{name} fights: die {die}, total {strength} against {}: {verdict}",
                e.strength
            ));
        }
        _ => return,
    }
    s.discard.push(card);
    start_flying(d, s, true, None, 0);
}

fn flying(d: &Data, s: &mut State, seat: Seat, action: &Action) -> Result<(), RuleError> {
    let name = player_name(s, seat);
    let end_phase = || err("still_moving", "first move (or keep in place) every ship");
    match action {
        Action::Fly { ship, to, via } => {
            let Some(x) = ship_of(s, *ship).filter(|x| x.owner == seat).cloned() else {
                return Err(err("bad_ship", format!("you have no ship #{ship}")));
            };
            if x.moved {
                return Err(err(
                    "already_moved",
                    format!("ship #{ship} has already moved"),
                ));
            }
            if via.len() > 12 {
                return Err(err("too_far", "at most 12 waypoints"));
            }
            let max = s.speed + warp_amount(d, s, seat);
            // The route: shortest legs through each waypoint in turn.
            let mut route = vec![x.node];
            let mut steps = 0u32;
            for &w in via.iter().chain(std::iter::once(to)) {
                let here = route.last().copied().unwrap_or(x.node);
                let (dist, parent) = bfs(d, here, max.saturating_sub(steps));
                let Some(Some(leg)) = dist.get(w).copied() else {
                    return Err(err(
                        "too_far",
                        format!("intersection {w} is out of reach at speed {}", s.speed),
                    ));
                };
                let mut back = Vec::new();
                let mut n = w;
                while n != here && n < parent.len() && parent[n] != usize::MAX {
                    back.push(n);
                    n = parent[n];
                }
                back.reverse();
                route.extend(back);
                steps += leg;
            }
            let boxed_in = *to == x.node && via.is_empty() && destinations(d, s, &x).is_empty();
            let Some(must) = end_ok(d, s, &x, *to).or(boxed_in.then_some(false)) else {
                return Err(err(
                    "bad_destination",
                    format!("ship #{ship} may not end on intersection {to}"),
                ));
            };
            if steps > s.speed {
                s.warp_available = false;
            }
            let seen = peek_along(d, s, seat, route.get(1..).unwrap_or(&[]));
            if let Some(m) = s.ships.iter_mut().find(|m| m.id == *ship) {
                m.node = *to;
                m.moved = true;
                m.must_found = must;
            }
            let warp = if steps > s.speed { " using warp" } else { "" };
            s.push_log(format!(
                "{name} flies {} #{ship} {steps} steps{warp}",
                x.kind.name()
            ));
            if !seen.is_empty() {
                let names: Vec<String> = seen
                    .iter()
                    .filter_map(|&p| d.planets.get(p))
                    .map(|p| p.name.clone())
                    .collect();
                let vals: Vec<String> = seen
                    .iter()
                    .filter_map(|&p| {
                        Some(format!(
                            "{}: {}",
                            d.planets.get(p)?.name,
                            s.planets.get(p)?.chip?.describe()
                        ))
                    })
                    .collect();
                s.push_private(
                    format!("{name} peeks at {}", names.join(", ")),
                    vec![seat],
                    format!("{name} peeks at {}", vals.join(", ")),
                );
            }
        }
        Action::ClearPirates { planet } | Action::Terraform { planet } => {
            if !all_moved(s) {
                return Err(end_phase());
            }
            let pirates = matches!(action, Action::ClearPirates { .. });
            if !removal_ok(d, s, seat, *planet, pirates) {
                return Err(err(
                    "cannot_clear",
                    "you need a known chip of that kind, a ship next to the planet and enough cannons/freight rings",
                ));
            }
            let chip = s.planets.get(*planet).and_then(|p| p.chip);
            if pirates {
                s.players[seat].pirates += 1;
            } else {
                s.players[seat].ice += 1;
            }
            replace_chip(s, *planet);
            let pname = d
                .planets
                .get(*planet)
                .map(|p| p.name.clone())
                .unwrap_or_default();
            s.push_log(format!(
                "{name} {} {} on {pname}; a reserve chip goes face down",
                if pirates { "defeats" } else { "terraforms" },
                chip.map(Chip::describe).unwrap_or_default()
            ));
        }
        Action::FoundColony { ship } => {
            if !all_moved(s) {
                return Err(end_phase());
            }
            let Some(x) = ship_of(s, *ship)
                .cloned()
                .filter(|x| colony_ok(d, s, seat, x))
            else {
                return Err(err(
                    "cannot_found",
                    "a colony needs your colony ship on a free site with two clear planets",
                ));
            };
            s.ships.retain(|m| m.id != *ship);
            s.buildings.push(Building {
                node: x.node,
                owner: seat,
                spaceport: false,
            });
            s.buildings.sort_by_key(|b| b.node);
            let mut shown = Vec::new();
            if let Some((sys, site)) = d.nodes.get(x.node).and_then(|n| n.site)
                && let Some(pl) = d.systems.get(sys).map(|y| y.site_planets[site])
            {
                for p in pl {
                    if let Some(ps) = s.planets.get_mut(p) {
                        ps.revealed = true;
                        shown.push(format!(
                            "{} {} {}",
                            d.planets[p].name,
                            d.planets[p].resource.name(),
                            ps.chip.map(Chip::describe).unwrap_or("-".into())
                        ));
                    }
                }
            }
            s.push_log(format!("{name} founds a colony ({})", shown.join(", ")));
        }
        Action::FoundTradeStation { ship } => {
            if !all_moved(s) {
                return Err(end_phase());
            }
            let Some(x) = ship_of(s, *ship)
                .cloned()
                .filter(|x| station_ok(d, s, seat, x))
            else {
                return Err(err(
                    "cannot_found",
                    "a station needs your trade ship on the lowest free dock and enough freight rings",
                ));
            };
            let Some((o, k)) = d.nodes.get(x.node).and_then(|n| n.dock) else {
                return Err(err("cannot_found", "not a dock"));
            };
            s.ships.retain(|m| m.id != *ship);
            s.stations.push(Station {
                outpost: o,
                dock: k,
                owner: seat,
            });
            let before = s.token.get(o).copied().flatten();
            let after = recompute_token(s, o);
            let race = d
                .outposts
                .get(o)
                .map(|x| x.race.clone())
                .unwrap_or_default();
            s.push_log(format!(
                "{name} founds a trade station on dock {k} of the {race}"
            ));
            if before != after
                && let Some(h) = after
            {
                let t = format!(
                    "{} now holds the {race} friendship token",
                    player_name(s, h)
                );
                s.push_log(t);
            }
            let free = d
                .friendship
                .iter()
                .enumerate()
                .any(|(i, c)| c.race == race && s.card_owner.get(i) == Some(&None));
            if free {
                s.phase = Phase::ChooseFriendship { race: o };
            }
        }
        Action::EndTurn => {
            if !can_end_flight(d, s) {
                return Err(err(
                    "must_move_or_found",
                    "a ship that may not stay where it is must fly, and a ship that stayed on its \
                     site or ended on a dock must found first",
                ));
            }
            end_turn(d, s);
        }
        _ => {
            return Err(err(
                "wrong_phase",
                format!("{action:?} is not possible during the flight"),
            ));
        }
    }
    Ok(())
}
