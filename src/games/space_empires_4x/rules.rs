//! Setup, movement, exploration, colonies and the flow between phases.

use turnpost_engine::{GameRng, RuleError, Seat};

use super::actions::Action;
use super::data::Data;
use super::state::*;

pub fn err(code: &'static str, msg: impl Into<String>) -> RuleError {
    RuleError::new(code, msg)
}

pub fn setup(
    d: &Data,
    seats: usize,
    round_cap: Option<u32>,
    instant: bool,
    mut rng: GameRng,
) -> Option<State> {
    let map = d.map_for(seats)?;
    let (w, h) = (map.width, map.height);
    let n = (w * h) as usize;
    let inside = |b: &[i32; 4], x: i32, y: i32| x >= b[0] && x <= b[1] && y >= b[2] && y <= b[3];
    let mut cells = Vec::with_capacity(n);
    let mut on_map = Vec::with_capacity(n);
    for y in 0..h {
        for x in 0..w {
            let home_of = map.homes.iter().position(|b| inside(b, x, y));
            let off = map.off_map.iter().any(|b| inside(b, x, y));
            on_map.push(!off);
            cells.push(Cell {
                x,
                y,
                home_of,
                marker: Marker::Empty,
                explored: false,
            });
        }
    }
    // Deep space: the shuffled pool, `empty` for the extra hexes (HR-7).
    let mut pool: Vec<Marker> = Vec::new();
    for (m, k) in &d.markers.deep {
        pool.extend(std::iter::repeat_n(*m, *k));
    }
    rng.shuffle(&mut pool);
    let mut draw = pool.into_iter();
    for (i, c) in cells.iter_mut().enumerate() {
        if on_map[i] && c.home_of.is_none() {
            c.marker = draw.next().unwrap_or(Marker::Empty);
        }
    }
    let mut home_stock = Vec::new();
    for _ in 0..seats {
        let mut v: Vec<Marker> = Vec::new();
        for (m, k) in &d.markers.home {
            v.extend(std::iter::repeat_n(*m, *k));
        }
        rng.shuffle(&mut v);
        home_stock.push(v);
    }
    let mut tech = [0u8; 8];
    for t in Tech::ALL {
        tech[t as usize] = d.tech(t).start;
    }
    let players = (0..seats)
        .map(|_| Player {
            cp: d.general.start_cp,
            tech,
            alive: true,
            eliminated_round: None,
            homeworld: None,
            peeks: Vec::new(),
        })
        .collect();
    // HR-8: random round-1 order.
    let mut order: Vec<Seat> = (0..seats).collect();
    rng.shuffle(&mut order);
    Some(State {
        seats,
        width: w,
        height: h,
        cells,
        on_map,
        groups: Vec::new(),
        colonies: Vec::new(),
        players,
        home_stock,
        round: 1,
        turn: 1,
        order,
        current: 0,
        phase: Phase::ChooseHome { seat: 0 },
        pending: None,
        battle: None,
        bombarded: Vec::new(),
        explore_queue: Vec::new(),
        drafts: vec![Draft::default(); seats],
        last_reveal: Vec::new(),
        last_orders: vec![Vec::new(); seats],
        bids: vec![0; seats],
        next_id: 1,
        active: Vec::new(),
        events: Vec::new(),
        round_cap,
        instant_upgrades: instant,
        rng,
        rules_version: RULES_VERSION,
    })
}

/// A new group at `pos` with the owner's current tech.
pub fn new_group(s: &mut State, owner: Seat, kind: UnitKind, count: u8, pos: usize) -> u32 {
    let id = s.next_id;
    s.next_id = s.next_id.saturating_add(1);
    let p = &s.players[owner];
    let special = match kind {
        UnitKind::Cruiser => p.level(Tech::Exploration) > 0,
        UnitKind::ColonyShip => p.level(Tech::Terraforming) > 0,
        _ => false,
    };
    s.groups.push(Group {
        id,
        owner,
        kind,
        count,
        damage: 0,
        pos,
        prev: pos,
        face_up: !kind.hides(),
        attack: p.level(Tech::Attack),
        defense: p.level(Tech::Defense),
        tactics: p.level(Tech::Tactics),
        movement: p.level(Tech::Movement),
        special,
        moved: 0,
        done: false,
        regrouped: false,
        peeked: false,
        cargo: None,
    });
    id
}

pub fn choose_home(s: &mut State, d: &Data, seat: Seat, x: i32, y: i32) -> Result<(), RuleError> {
    let Some(pos) = s.idx(x, y) else {
        return Err(err("off_map", format!("({x},{y}) is not on the map")));
    };
    if s.cells[pos].home_of != Some(seat) {
        return Err(err(
            "not_your_home_system",
            format!("({x},{y}) is not in your Home System"),
        ));
    }
    let stock = std::mem::take(&mut s.home_stock[seat]);
    let mut it = stock.into_iter();
    for i in 0..s.cells.len() {
        if s.cells[i].home_of == Some(seat) && s.on_map[i] {
            if i == pos {
                s.cells[i].marker = Marker::Planet;
                s.cells[i].explored = true;
            } else {
                s.cells[i].marker = it.next().unwrap_or(Marker::Empty);
            }
        }
    }
    s.players[seat].homeworld = Some(pos);
    s.colonies.push(Colony {
        owner: seat,
        pos,
        homeworld: true,
        value: d.general.homeworld_value,
        deposits: Vec::new(),
    });
    for (kind, groups, size) in d.start.units.clone() {
        for _ in 0..groups {
            new_group(s, seat, kind, size, pos);
        }
    }
    s.log(format!(
        "Seat {} places its Homeworld at ({x},{y}).",
        seat + 1
    ));
    if seat + 1 < s.seats {
        s.phase = Phase::ChooseHome { seat: seat + 1 };
    } else {
        start_player_turn(s);
    }
    Ok(())
}

// ---------------------------------------------------------------- helpers

pub fn is_combat(d: &Data, k: UnitKind) -> bool {
    d.unit(k).combat
}

/// Ships that carry weapons and can move (they escort, blockade and bombard).
pub fn is_armed_ship(d: &Data, k: UnitKind) -> bool {
    d.unit(k).combat && d.unit(k).mobile
}

pub fn enemy_groups_at(s: &State, pos: usize, seat: Seat) -> impl Iterator<Item = &Group> {
    s.groups
        .iter()
        .filter(move |g| g.pos == pos && g.owner != seat)
}

pub fn has_enemy(s: &State, pos: usize, seat: Seat) -> bool {
    enemy_groups_at(s, pos, seat).next().is_some()
}

pub fn own_colony_at(s: &State, pos: usize, seat: Seat) -> bool {
    s.colonies.iter().any(|c| c.pos == pos && c.owner == seat)
}

/// Effective tech of a group (yards, bases and decoys use the owner's current tech; so does every
/// ship with the `instant_upgrades` option).
pub fn eff_tech(s: &State, g: &Group, t: Tech) -> u8 {
    let p = &s.players[g.owner];
    if g.kind.current_tech() || s.instant_upgrades {
        return p.level(t);
    }
    match t {
        Tech::Attack => g.attack,
        Tech::Defense => g.defense,
        Tech::Tactics => g.tactics,
        Tech::Movement => g.movement,
        _ => p.level(t),
    }
}

/// The tech level of `g` that everyone may know: the level a revealed ship was built with.
/// None when the level is the owner's current one (shipyards, bases, decoys, and every
/// ship with `instant_upgrades`), which stays secret (HR-24), or the group is face down.
pub fn public_tech(s: &State, g: &Group, t: Tech) -> Option<u8> {
    if g.face_up && !g.kind.current_tech() && !s.instant_upgrades {
        Some(eff_tech(s, g, t))
    } else {
        None
    }
}

pub fn allowance(s: &State, d: &Data, g: &Group) -> u8 {
    match g.kind {
        UnitKind::Base | UnitKind::Shipyard => 0,
        UnitKind::ColonyShip | UnitKind::Miner => 1,
        _ => d.speed(eff_tech(s, g, Tech::Movement), s.turn),
    }
}

fn can_move(s: &State, d: &Data, g: &Group, seat: Seat) -> bool {
    g.owner == seat && !g.done && d.unit(g.kind).mobile && g.moved < allowance(s, d, g)
}

fn terrain_stop(c: &Cell) -> bool {
    !c.explored || matches!(c.marker, Marker::Nebula | Marker::Asteroids)
}

/// Whether `ids` (all in one hex) may enter `to` now.
pub fn can_enter(s: &State, d: &Data, seat: Seat, ids: &[u32], to: usize) -> bool {
    let mut from = None;
    let mut escort = false;
    let mut passenger = false;
    for (k, id) in ids.iter().enumerate() {
        if ids[..k].contains(id) {
            return false;
        }
        let Some(g) = s.group(*id) else { return false };
        if !can_move(s, d, g, seat) {
            return false;
        }
        if *from.get_or_insert(g.pos) != g.pos {
            return false;
        }
        if is_armed_ship(d, g.kind) {
            escort = true;
        } else {
            passenger = true;
        }
        if terrain_stop(&s.cells[to]) && g.moved > 0 {
            return false;
        }
    }
    let Some(from) = from else { return false };
    if !s.neighbours(from).contains(&to) {
        return false;
    }
    let c = &s.cells[to];
    if c.explored && c.marker == Marker::Supernova {
        return false;
    }
    if passenger && !escort {
        let enemy_colony = s.colonies.iter().any(|c| c.pos == to && c.owner != seat);
        if !c.explored || has_enemy(s, to, seat) || enemy_colony {
            return false;
        }
    }
    true
}

fn movable_ids(s: &State, d: &Data, seat: Seat) -> Vec<u32> {
    s.groups
        .iter()
        .filter(|g| can_move(s, d, g, seat))
        .map(|g| g.id)
        .collect()
}

pub fn move_actions(s: &State, d: &Data, seat: Seat) -> Vec<Action> {
    let mut out: Vec<Action> = Vec::new();
    let movable = movable_ids(s, d, seat);
    let mut sets: Vec<Vec<u32>> = movable.iter().map(|id| vec![*id]).collect();
    let mut active: Vec<u32> = s
        .active
        .iter()
        .copied()
        .filter(|id| movable.contains(id))
        .collect();
    active.sort_unstable();
    if active.len() >= 2 && active.len() == s.active.len() {
        sets.push(active);
    }
    let mut hexes: Vec<usize> = movable
        .iter()
        .filter_map(|id| s.group(*id).map(|g| g.pos))
        .collect();
    hexes.sort_unstable();
    hexes.dedup();
    for h in hexes {
        let fresh: Vec<u32> = movable
            .iter()
            .copied()
            .filter(|id| s.group(*id).is_some_and(|g| g.pos == h && g.moved == 0))
            .collect();
        // One escort with one passenger (colony ship, miner, decoy), so a passenger can be
        // escorted without moving the whole stack.
        if fresh.len() > 2 {
            let armed = |id: &u32| s.group(*id).is_some_and(|g| is_armed_ship(d, g.kind));
            for e in fresh.iter().filter(|id| armed(id)) {
                for p in fresh.iter().filter(|id| !armed(id)) {
                    let mut pair = vec![*e, *p];
                    pair.sort_unstable();
                    if !sets.contains(&pair) {
                        sets.push(pair);
                    }
                }
            }
        }
        if fresh.len() >= 2 && !sets.contains(&fresh) {
            sets.push(fresh);
        }
    }
    for set in sets {
        let Some(from) = set.first().and_then(|id| s.group(*id)).map(|g| g.pos) else {
            continue;
        };
        for to in s.neighbours(from) {
            if can_enter(s, d, seat, &set, to) {
                let (x, y) = s.xy(to);
                out.push(Action::Move {
                    groups: set.clone(),
                    x,
                    y,
                });
            }
        }
    }
    out
}

pub fn regroup_actions(s: &State, d: &Data, seat: Seat) -> Vec<Action> {
    let mut out = Vec::new();
    let mine: Vec<&Group> = s
        .groups
        .iter()
        .filter(|g| g.owner == seat && d.unit(g.kind).mobile && g.kind.hides() && !g.regrouped)
        .collect();
    for g in &mine {
        if g.count > 1 && counters_of(s, seat, g.kind) < d.unit(g.kind).counter_limit {
            for c in 1..g.count {
                out.push(Action::Split {
                    group: g.id,
                    count: c,
                });
            }
        }
    }
    for g in &mine {
        for h in &mine {
            if g.id != h.id && mergeable(d, g, h) {
                out.push(Action::Merge {
                    group: g.id,
                    into: h.id,
                });
            }
        }
    }
    out
}

fn mergeable(d: &Data, g: &Group, h: &Group) -> bool {
    g.pos == h.pos
        && g.kind == h.kind
        && g.attack == h.attack
        && g.defense == h.defense
        && g.tactics == h.tactics
        && g.movement == h.movement
        && g.special == h.special
        && g.count + h.count <= d.general.max_group_size
        && !g.regrouped
        && !h.regrouped
}

pub fn counters_of(s: &State, seat: Seat, kind: UnitKind) -> usize {
    s.groups
        .iter()
        .filter(|g| g.owner == seat && g.kind == kind)
        .count()
}

pub fn misc_move_actions(s: &State, seat: Seat) -> Vec<Action> {
    let mut out = Vec::new();
    for g in s.groups.iter().filter(|g| g.owner == seat) {
        if g.kind == UnitKind::Cruiser && g.special && g.moved == 0 && !g.done && !g.peeked {
            for n in s.neighbours(g.pos) {
                let seen = s.players[seat].peeks.iter().any(|(p, _)| *p == n);
                if !s.cells[n].explored && !seen {
                    let (x, y) = s.xy(n);
                    out.push(Action::Peek { group: g.id, x, y });
                }
            }
        }
        if g.kind == UnitKind::Miner {
            let c = &s.cells[g.pos];
            if g.cargo.is_none() && c.explored && c.marker.is_cargo() {
                out.push(Action::PickUp { group: g.id });
            }
            if g.cargo.is_some() && own_colony_at(s, g.pos, seat) {
                out.push(Action::Deposit { group: g.id });
            }
        }
    }
    out
}

pub fn destroy_group(s: &mut State, id: u32) {
    s.groups.retain(|g| g.id != id);
    s.active.retain(|a| *a != id);
}

/// One ship of each group rolls on entering a black hole (HR-15).
fn black_hole(s: &mut State, d: &Data, ids: &[u32], pos: usize) {
    for id in ids {
        let Some(g) = s.group(*id) else { continue };
        let n = g.count;
        let mut rolls = Vec::new();
        let mut lost = 0u8;
        for _ in 0..n {
            let r = s.rng.die(d.general.die_sides);
            rolls.push(r.to_string());
            if r >= d.general.black_hole_destroy_min {
                lost += 1;
            }
        }
        let name = s.hex_name(pos);
        s.log(format!(
            "Black hole at {name}: counter #{id} rolls {} ({lost} destroyed).",
            rolls.join(", ")
        ));
        if lost >= n {
            destroy_group(s, *id);
        } else if let Some(g) = s.group_mut(*id) {
            g.count -= lost;
        }
    }
}

pub fn do_move(
    s: &mut State,
    d: &Data,
    seat: Seat,
    ids: &[u32],
    x: i32,
    y: i32,
) -> Result<(), RuleError> {
    let Some(to) = s.idx(x, y) else {
        return Err(err("off_map", format!("({x},{y}) is not on the map")));
    };
    let listed = move_actions(s, d, seat).contains(&Action::Move {
        groups: ids.to_vec(),
        x,
        y,
    });
    if !listed || !can_enter(s, d, seat, ids, to) {
        return Err(err("illegal_move", "those groups cannot move there now"));
    }
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    let mut cur = s.active.clone();
    cur.sort_unstable();
    if cur != sorted {
        // Finish the previous unit before the next one moves (seed).
        for id in s.active.clone() {
            if let Some(g) = s.group_mut(id)
                && g.moved > 0
            {
                g.done = true;
            }
        }
        s.active = ids.to_vec();
    }
    for id in ids {
        if let Some(g) = s.group_mut(*id) {
            g.prev = g.pos;
            g.pos = to;
            g.moved += 1;
        }
    }
    let name = s.hex_name(to);
    let list: Vec<String> = ids.iter().map(|i| format!("#{i}")).collect();
    s.log(format!(
        "Seat {} moves {} to {name}.",
        seat + 1,
        list.join("+")
    ));
    // Enemy units met on the way.
    let enemies: Vec<(u32, UnitKind)> = enemy_groups_at(s, to, seat)
        .map(|g| (g.id, g.kind))
        .collect();
    let stop = if enemies.is_empty() {
        false
    } else if enemies.iter().all(|(_, k)| !is_combat(d, *k)) {
        for (id, k) in enemies {
            s.log(format!("Enemy {} #{id} at {name} is destroyed.", k.name()));
            destroy_group(s, id);
        }
        false
    } else {
        true
    };
    let cell = s.cells[to].clone();
    if cell.explored && cell.marker == Marker::BlackHole {
        black_hole(s, d, ids, to);
    }
    for id in ids {
        let full = s.group(*id).is_some_and(|g| g.moved >= allowance(s, d, g));
        if (stop || terrain_stop(&cell) || full)
            && let Some(g) = s.group_mut(*id)
        {
            g.done = true;
        }
    }
    s.active
        .retain(|id| s.groups.iter().any(|g| g.id == *id && !g.done));
    Ok(())
}

pub fn do_split(s: &mut State, d: &Data, seat: Seat, id: u32, count: u8) -> Result<(), RuleError> {
    let ok = regroup_actions(s, d, seat).contains(&Action::Split { group: id, count });
    let Some(g) = s.group(id).filter(|_| ok).cloned() else {
        return Err(err(
            "illegal_split",
            "that group cannot be split that way now",
        ));
    };
    let nid = s.next_id;
    s.next_id += 1;
    let mut ng = g.clone();
    ng.id = nid;
    ng.count = count;
    ng.damage = 0;
    ng.regrouped = true;
    ng.cargo = None;
    if let Some(g) = s.group_mut(id) {
        g.count -= count;
        g.regrouped = true;
    }
    s.groups.push(ng);
    s.log(format!(
        "Seat {} splits counter #{id}: new counter #{nid}.",
        seat + 1
    ));
    Ok(())
}

pub fn do_merge(s: &mut State, d: &Data, seat: Seat, id: u32, into: u32) -> Result<(), RuleError> {
    if !regroup_actions(s, d, seat).contains(&Action::Merge { group: id, into }) {
        return Err(err("illegal_merge", "those groups cannot merge now"));
    }
    let Some(g) = s.group(id).cloned() else {
        return Err(err("no_such_group", "no such group"));
    };
    if let Some(h) = s.group_mut(into) {
        h.count += g.count;
        h.moved = h.moved.max(g.moved);
        h.done |= g.done;
        h.face_up |= g.face_up;
        h.regrouped = true;
    }
    destroy_group(s, id);
    s.log(format!(
        "Seat {} merges counter #{id} into another counter in its hex.",
        seat + 1
    ));
    s.log_private(seat, format!("Counter #{id} merged into #{into}."));
    Ok(())
}

pub fn do_peek(s: &mut State, seat: Seat, id: u32, x: i32, y: i32) -> Result<(), RuleError> {
    let ok = s.idx(x, y).is_some()
        && misc_move_actions(s, seat).contains(&Action::Peek { group: id, x, y });
    let Some(pos) = s.idx(x, y).filter(|_| ok) else {
        return Err(err("illegal_peek", "that cruiser cannot peek there now"));
    };
    let m = s.cells[pos].marker;
    s.players[seat].peeks.push((pos, m));
    if let Some(g) = s.group_mut(id) {
        g.peeked = true;
    }
    s.pending = Some(Pending::Peek { seat, pos });
    let name = s.hex_name(pos);
    s.log(format!("Seat {} peeks at the marker in {name}.", seat + 1));
    s.log_private(seat, format!("The marker in {name} is: {}.", m.name()));
    Ok(())
}

/// Turns a marker face up (exploration or a revealed peek); nobody's peek of it matters any more.
pub fn reveal_cell(s: &mut State, pos: usize) {
    s.cells[pos].explored = true;
    for p in s.players.iter_mut() {
        p.peeks.retain(|(h, _)| *h != pos);
    }
}

pub fn finish_peek(s: &mut State, reveal: bool) {
    let Some(Pending::Peek { seat, pos }) = s.pending.take() else {
        return;
    };
    let name = s.hex_name(pos);
    if reveal {
        reveal_cell(s, pos);
        let m = s.cells[pos].marker;
        s.log(format!(
            "Seat {} reveals the marker in {name}: {}.",
            seat + 1,
            m.name()
        ));
        if matches!(m, Marker::Danger | Marker::LostInSpace) {
            s.cells[pos].marker = Marker::Empty;
        }
    } else {
        s.log(format!(
            "Seat {} leaves the marker in {name} face down.",
            seat + 1
        ));
    }
}

pub fn do_pick_up(s: &mut State, seat: Seat, id: u32) -> Result<(), RuleError> {
    if !misc_move_actions(s, seat).contains(&Action::PickUp { group: id }) {
        return Err(err(
            "illegal_pick_up",
            "that miner cannot pick anything up here",
        ));
    }
    let Some(pos) = s.group(id).map(|g| g.pos) else {
        return Err(err("no_such_group", "no such group"));
    };
    let m = s.cells[pos].marker;
    s.cells[pos].marker = Marker::Empty;
    if let Some(g) = s.group_mut(id) {
        g.cargo = Some(m);
    }
    let name = s.hex_name(pos);
    s.log(format!(
        "Seat {}'s miner #{id} picks up the {} at {name}.",
        seat + 1,
        m.name()
    ));
    Ok(())
}

pub fn do_deposit(s: &mut State, seat: Seat, id: u32) -> Result<(), RuleError> {
    if !misc_move_actions(s, seat).contains(&Action::Deposit { group: id }) {
        return Err(err("illegal_deposit", "that miner cannot deposit here"));
    }
    let Some(g) = s.group_mut(id) else {
        return Err(err("no_such_group", "no such group"));
    };
    let (pos, cargo) = (g.pos, g.cargo.take());
    if let (Some(c), Some(col)) = (
        cargo,
        s.colonies
            .iter_mut()
            .find(|c| c.pos == pos && c.owner == seat),
    ) {
        col.deposits.push(c);
        let name = s.hex_name(pos);
        s.log(format!(
            "Seat {}'s miner #{id} delivers {} at {name}.",
            seat + 1,
            c.name()
        ));
    }
    Ok(())
}

pub fn end_movement(s: &mut State, seat: Seat) {
    s.active.clear();
    let colonies: Vec<usize> = s
        .colonies
        .iter()
        .filter(|c| c.owner == seat)
        .map(|c| c.pos)
        .collect();
    for g in s.groups.iter_mut().filter(|g| g.owner == seat) {
        g.done = true;
        // Revealed groups hide again when they end a move at an own colony (seed).
        if g.kind.hides() && colonies.contains(&g.pos) {
            g.face_up = false;
        }
    }
    s.log(format!("Seat {} ends movement.", seat + 1));
    s.phase = Phase::Combat;
    s.bombarded.clear();
}

// ---------------------------------------------------------------- turn flow

pub fn start_player_turn(s: &mut State) {
    let p = s.current_player();
    for g in s.groups.iter_mut().filter(|g| g.owner == p) {
        g.moved = 0;
        g.done = false;
        g.regrouped = false;
        g.peeked = false;
    }
    s.active.clear();
    s.phase = Phase::Move;
}

/// After a player's EXPLORE: the next player, the next turn, or the Economic Phase.
pub fn next_player(s: &mut State, d: &Data) {
    loop {
        s.current += 1;
        if s.current >= s.order.len() {
            s.current = 0;
            s.turn += 1;
            if s.turn > 3 {
                super::econ::start_econ(s, d);
                return;
            }
        }
        let p = s.current_player();
        if s.players[p].alive {
            break;
        }
    }
    start_player_turn(s);
}

/// Hexes where `seat` must fight `defender`.
pub fn battle_options(s: &State, d: &Data, seat: Seat) -> Vec<(usize, Seat)> {
    let mut out = Vec::new();
    let mut hexes: Vec<usize> = s
        .groups
        .iter()
        .filter(|g| g.owner == seat)
        .map(|g| g.pos)
        .collect();
    hexes.sort_unstable();
    hexes.dedup();
    for h in hexes {
        let mine_combat = s
            .groups
            .iter()
            .any(|g| g.pos == h && g.owner == seat && is_combat(d, g.kind));
        let mut enemies: Vec<Seat> = enemy_groups_at(s, h, seat).map(|g| g.owner).collect();
        enemies.sort_unstable();
        enemies.dedup();
        for e in enemies {
            let their_combat = s
                .groups
                .iter()
                .any(|g| g.pos == h && g.owner == e && is_combat(d, g.kind));
            // Face-down decoys count as possible combat units until revealed.
            let their_hidden = s
                .groups
                .iter()
                .any(|g| g.pos == h && g.owner == e && !g.face_up);
            if mine_combat || their_combat || their_hidden {
                out.push((h, e));
            }
        }
    }
    out
}

pub fn bombard_options(s: &State, d: &Data, seat: Seat) -> Vec<usize> {
    let mut out: Vec<usize> = s
        .colonies
        .iter()
        .filter(|c| c.owner != seat)
        .map(|c| c.pos)
        .filter(|p| !s.bombarded.contains(p) && !has_enemy(s, *p, seat))
        .filter(|p| {
            s.groups
                .iter()
                .any(|g| g.pos == *p && g.owner == seat && is_armed_ship(d, g.kind))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

pub fn bombard(s: &mut State, d: &Data, seat: Seat, pos: usize) -> Result<(), RuleError> {
    if !bombard_options(s, d, seat).contains(&pos) {
        return Err(err("illegal_bombard", "you cannot bombard there now"));
    }
    s.bombarded.push(pos);
    let asteroids = s.cells[pos].explored && s.cells[pos].marker == Marker::Asteroids;
    // (ships, to-hit, whether the to-hit may be shown): a face-down shooter's to-hit
    // would tell its type and tech, so only revealed ships with built tech show it.
    let shooters: Vec<(u8, i32, bool)> = s
        .groups
        .iter()
        .filter(|g| g.pos == pos && g.owner == seat && is_armed_ship(d, g.kind))
        .map(|g| {
            let u = d.unit(g.kind);
            let tech = if asteroids {
                0
            } else {
                eff_tech(s, g, Tech::Attack).min(u.hull) as i32
            };
            (
                g.count,
                u.attack + tech,
                public_tech(s, g, Tech::Attack).is_some(),
            )
        })
        .collect();
    let name = s.hex_name(pos);
    for (n, to_hit, shown) in shooters {
        for _ in 0..n {
            let Some(ci) = s.colonies.iter().position(|c| c.pos == pos) else {
                return Ok(());
            };
            let r = s.rng.die(d.general.die_sides);
            let hit = r == 1 || (r as i32) <= to_hit;
            let vs = if shown {
                format!(" vs {to_hit}")
            } else {
                String::new()
            };
            s.log(format!(
                "Bombardment of {name}: roll {r}{vs}: {}.",
                if hit { "hit" } else { "miss" }
            ));
            if hit {
                hit_colony(s, d, ci);
            }
        }
    }
    Ok(())
}

/// One hit on a colony (digest 2.6): colonies step down 5→3→1→gone, Homeworlds lose 5.
pub fn hit_colony(s: &mut State, d: &Data, ci: usize) {
    let Some(c) = s.colonies.get(ci).cloned() else {
        return;
    };
    let name = s.hex_name(c.pos);
    let new = if c.homeworld {
        c.value.saturating_sub(d.general.homeworld_step)
    } else {
        d.general
            .colony_steps
            .iter()
            .rev()
            .copied()
            .find(|v| *v < c.value)
            .unwrap_or(0)
    };
    let destroyed = new == 0 || (c.value == 0 && !c.homeworld) || (c.value <= 1 && !c.homeworld);
    if destroyed || new == 0 {
        s.colonies.remove(ci);
        if c.homeworld {
            s.log(format!(
                "The Homeworld of Seat {} at {name} is destroyed!",
                c.owner + 1
            ));
            eliminate(s, c.owner);
        } else {
            s.log(format!(
                "Seat {}'s colony at {name} is destroyed.",
                c.owner + 1
            ));
        }
    } else if let Some(col) = s.colonies.get_mut(ci) {
        col.value = new;
        s.log(format!(
            "Seat {}'s colony at {name} drops to {new} CP.",
            c.owner + 1
        ));
    }
}

/// HR-19: everything of the player leaves the map.
pub fn eliminate(s: &mut State, seat: Seat) {
    s.groups.retain(|g| g.owner != seat);
    s.colonies.retain(|c| c.owner != seat);
    let round = s.round;
    if let Some(p) = s.players.get_mut(seat) {
        p.alive = false;
        p.eliminated_round = Some(round);
        p.peeks.clear();
    }
    s.log(format!("Seat {} is eliminated.", seat + 1));
    if s.alive().len() <= 1 {
        s.phase = Phase::Over;
        s.pending = None;
        s.battle = None;
    }
}

// ---------------------------------------------------------------- exploration

pub fn start_explore(s: &mut State) {
    let p = s.current_player();
    let mut q: Vec<usize> = s
        .groups
        .iter()
        .filter(|g| g.owner == p && !s.cells[g.pos].explored)
        .map(|g| g.pos)
        .collect();
    q.sort_unstable();
    q.dedup();
    s.explore_queue = q;
    s.phase = Phase::Explore;
}

/// Reveals the queued hexes in order until one needs a choice (lost in space).
/// Drops queued hexes that no longer need exploring (explored meanwhile, or the units left).
pub fn clean_queue(s: &mut State) {
    let p = s.current_player();
    let q: Vec<usize> = s
        .explore_queue
        .iter()
        .copied()
        .filter(|h| !s.cells[*h].explored && s.groups.iter().any(|g| g.owner == p && g.pos == *h))
        .collect();
    s.explore_queue = q;
}

/// Explores one queued hex (the player's choice when several are queued, digest 5.2).
pub fn explore_choice(s: &mut State, d: &Data, x: i32, y: i32) -> Result<(), RuleError> {
    let Some(pos) = s
        .idx(x, y)
        .filter(|p| s.explore_queue.len() >= 2 && s.explore_queue.contains(p))
    else {
        return Err(err(
            "illegal_explore",
            "that hex is not one you must explore now",
        ));
    };
    s.explore_queue.retain(|h| *h != pos);
    explore_hex(s, d, pos);
    Ok(())
}

/// Reveals one hex holding the current player's units and applies its marker at once.
pub fn explore_hex(s: &mut State, d: &Data, pos: usize) {
    let p = s.current_player();
    {
        if s.cells[pos].explored {
            return;
        }
        let ids: Vec<u32> = s
            .groups
            .iter()
            .filter(|g| g.owner == p && g.pos == pos)
            .map(|g| g.id)
            .collect();
        if ids.is_empty() {
            return;
        }
        reveal_cell(s, pos);
        let m = s.cells[pos].marker;
        let name = s.hex_name(pos);
        s.log(format!("Seat {} explores {name}: {}.", p + 1, m.name()));
        match m {
            Marker::BlackHole => black_hole(s, d, &ids, pos),
            Marker::Danger => {
                let all: Vec<u32> = s
                    .groups
                    .iter()
                    .filter(|g| g.pos == pos)
                    .map(|g| g.id)
                    .collect();
                for id in all {
                    destroy_group(s, id);
                }
                s.log(format!("Danger! Every unit in {name} is destroyed."));
                s.cells[pos].marker = Marker::Empty;
            }
            Marker::Supernova => {
                for id in ids {
                    if let Some(g) = s.group_mut(id) {
                        g.pos = g.prev;
                    }
                }
                s.log(format!("A supernova at {name} throws the ships back."));
            }
            Marker::LostInSpace => {
                s.cells[pos].marker = Marker::Empty;
                let chooser = right_of(s, p);
                // Walled in by supernovas: nowhere to go, the ships stay.
                if !lost_targets(s, pos).is_empty() {
                    s.pending = Some(Pending::LostInSpace {
                        chooser,
                        victim: p,
                        pos,
                    });
                }
            }
            _ => {}
        }
    }
}

/// The player to `p`'s right: the previous living seat.
pub fn right_of(s: &State, p: Seat) -> Seat {
    let n = s.seats.max(1);
    for k in 1..n {
        let q = (p + n - k) % n;
        if s.players[q].alive {
            return q;
        }
    }
    p
}

pub fn lost_targets(s: &State, pos: usize) -> Vec<usize> {
    s.neighbours(pos)
        .into_iter()
        .filter(|n| !(s.cells[*n].explored && s.cells[*n].marker == Marker::Supernova))
        .collect()
}

pub fn do_lost(s: &mut State, d: &Data, seat: Seat, x: i32, y: i32) -> Result<(), RuleError> {
    let Some(Pending::LostInSpace {
        chooser,
        victim,
        pos,
    }) = s.pending.clone()
    else {
        return Err(RuleError::not_your_turn(seat));
    };
    if chooser != seat {
        return Err(RuleError::not_your_turn(seat));
    }
    let Some(to) = s.idx(x, y).filter(|t| lost_targets(s, pos).contains(t)) else {
        return Err(err(
            "illegal_lost_in_space",
            "pick an adjacent hex on the map that is not a supernova",
        ));
    };
    for g in s
        .groups
        .iter_mut()
        .filter(|g| g.owner == victim && g.pos == pos)
    {
        g.prev = pos;
        g.pos = to;
    }
    s.pending = None;
    let name = s.hex_name(to);
    s.log(format!(
        "Seat {} sends Seat {}'s lost ships to {name}.",
        seat + 1,
        victim + 1
    ));
    // An unexplored hex is explored at once; an enemy there is fought at once (next step).
    s.explore_queue.retain(|h| *h != to);
    explore_hex(s, d, to);
    Ok(())
}

pub fn colonise_options(s: &State, seat: Seat) -> Vec<u32> {
    s.groups
        .iter()
        .filter(|g| g.owner == seat && g.kind == UnitKind::ColonyShip)
        .filter(|g| {
            let c = &s.cells[g.pos];
            c.explored
                && (c.marker == Marker::Planet || (c.marker == Marker::BarrenPlanet && g.special))
                && s.colony_at(g.pos).is_none()
                && !has_enemy(s, g.pos, seat)
        })
        .map(|g| g.id)
        .collect()
}

pub fn colonise(s: &mut State, seat: Seat, id: u32) -> Result<(), RuleError> {
    if !colonise_options(s, seat).contains(&id) {
        return Err(err("illegal_colonise", "that colony ship cannot land now"));
    }
    let Some(pos) = s.group(id).map(|g| g.pos) else {
        return Err(err("no_such_group", "no such group"));
    };
    destroy_group(s, id);
    s.colonies.push(Colony {
        owner: seat,
        pos,
        homeworld: false,
        value: 0,
        deposits: Vec::new(),
    });
    let name = s.hex_name(pos);
    s.log(format!("Seat {} founds a colony at {name}.", seat + 1));
    Ok(())
}
