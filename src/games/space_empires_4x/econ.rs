//! The Economic Phase (digest 5.7): income, maintenance, secret orders, resolution, turn order.

use turnpost_engine::{RuleError, Seat};

use super::actions::Action;
use super::data::Data;
use super::rules::{err, is_armed_ship, new_group, start_player_turn};
use super::state::*;

pub fn start_econ(s: &mut State, d: &Data) {
    s.phase = Phase::Econ;
    s.turn = 3;
    s.active.clear();
    for seat in 0..s.seats {
        let mut draft = Draft::default();
        if !s.players[seat].alive {
            draft.submitted = true;
            s.drafts[seat] = draft;
            continue;
        }
        let mut income = 0i64;
        let mut wrecks = 0u32;
        let cols: Vec<usize> = (0..s.colonies.len())
            .filter(|i| s.colonies[*i].owner == seat)
            .collect();
        for ci in cols {
            let pos = s.colonies[ci].pos;
            // Blockade: an enemy armed ship in the hex at the start of ECON.
            let blockaded = s
                .groups
                .iter()
                .any(|g| g.pos == pos && g.owner != seat && is_armed_ship(d, g.kind));
            if blockaded {
                draft.blockaded.push(pos);
                continue;
            }
            let c = &mut s.colonies[ci];
            income += c.value as i64;
            for m in c.deposits.drain(..) {
                match m {
                    Marker::Minerals5 => income += 5,
                    Marker::Minerals10 => income += 10,
                    Marker::SpaceWreck => wrecks += 1,
                    _ => {}
                }
            }
        }
        let maintenance: i64 = s
            .groups
            .iter()
            .filter(|g| g.owner == seat)
            .map(|g| d.unit(g.kind).maintenance * g.count as i64)
            .sum();
        draft.income = income;
        draft.maintenance = maintenance;
        draft.wrecks = wrecks;
        draft.available = income + s.players[seat].cp - maintenance;
        s.drafts[seat] = draft;
    }
    s.log(format!(
        "Round {}: Economic Phase. Every player submits secret orders.",
        s.round
    ));
}

pub fn remaining(dr: &Draft) -> i64 {
    dr.available - dr.bid.unwrap_or(0) - dr.spent
}

pub fn draft_level(s: &State, seat: Seat, t: Tech) -> u8 {
    let base = s.players[seat].level(t);
    let bought = s.drafts[seat]
        .lines
        .contains(&OrderLine::Research { tech: t });
    base + u8::from(bought)
}

fn scuttled(dr: &Draft, id: u32) -> u8 {
    dr.lines
        .iter()
        .filter(|l| **l == OrderLine::Scuttle { group: id })
        .count() as u8
}

fn yards_at(s: &State, seat: Seat, pos: usize) -> u32 {
    s.groups
        .iter()
        .filter(|g| g.owner == seat && g.pos == pos && g.kind == UnitKind::Shipyard)
        .map(|g| g.count as u32)
        .sum()
}

/// Counters the builds in `lines` add for `kind` (new ships of a type at one planet are grouped by 6).
fn new_counters(s: &State, d: &Data, seat: Seat, lines: &[OrderLine], kind: UnitKind) -> usize {
    let mut per_pos: Vec<(usize, usize)> = Vec::new();
    for l in lines {
        if let OrderLine::Build { unit, pos } = l
            && *unit == kind
        {
            match per_pos.iter_mut().find(|(p, _)| p == pos) {
                Some(e) => e.1 += 1,
                None => per_pos.push((*pos, 1)),
            }
        }
    }
    let max = d.general.max_group_size as usize;
    per_pos
        .iter()
        .map(|(pos, n)| match kind {
            UnitKind::Shipyard => usize::from(yards_at(s, seat, *pos) == 0),
            UnitKind::Scout
            | UnitKind::Destroyer
            | UnitKind::Cruiser
            | UnitKind::Battlecruiser
            | UnitKind::Battleship
            | UnitKind::Dreadnought => n.div_ceil(max),
            _ => *n,
        })
        .sum()
}

fn hull_used(d: &Data, lines: &[OrderLine], pos: usize) -> u32 {
    lines
        .iter()
        .map(|l| match l {
            OrderLine::Build { unit, pos: p } if *p == pos && d.unit(*unit).needs_yard => {
                d.unit(*unit).hull as u32
            }
            _ => 0,
        })
        .sum()
}

/// Why `seat` cannot add this build line now, if it cannot.
pub fn build_problem(
    s: &State,
    d: &Data,
    seat: Seat,
    unit: UnitKind,
    pos: usize,
) -> Option<String> {
    let dr = &s.drafts[seat];
    let u = d.unit(unit);
    let Some(col) = s.colonies.iter().find(|c| c.pos == pos && c.owner == seat) else {
        return Some("you have no colony or Homeworld there".into());
    };
    if u.cost > remaining(dr) {
        return Some(format!(
            "a {} costs {} CP; you have {} left",
            unit.name(),
            u.cost,
            remaining(dr)
        ));
    }
    if draft_level(s, seat, Tech::ShipSize) < u.ship_size {
        return Some(format!("a {} needs ship size {}", unit.name(), u.ship_size));
    }
    let same_here = dr.lines.contains(&OrderLine::Build { unit, pos });
    match unit {
        UnitKind::Shipyard | UnitKind::Base if col.value == 0 => {
            return Some("only an income-producing colony or the Homeworld can have it".into());
        }
        // A blockaded colony produces nothing this phase, so it is not income-producing
        // (seed: bases and shipyards only at income-producing colonies). Rules version 2.
        UnitKind::Shipyard | UnitKind::Base
            if s.rules_version >= 2 && dr.blockaded.contains(&pos) =>
        {
            return Some("a blockaded colony produces no income and cannot have it".into());
        }
        UnitKind::Shipyard if same_here => {
            return Some("at most one new shipyard per planet per phase".into());
        }
        UnitKind::Base
            if same_here
                || s.groups
                    .iter()
                    .any(|g| g.owner == seat && g.pos == pos && g.kind == unit) =>
        {
            return Some("at most one base per planet".into());
        }
        _ => {}
    }
    if u.needs_yard {
        let cap = d.capacity(yards_at(s, seat, pos), draft_level(s, seat, Tech::Shipyard));
        if hull_used(d, &dr.lines, pos) + u.hull as u32 > cap {
            return Some(format!(
                "the shipyards there can build only {cap} hull this phase"
            ));
        }
    }
    let mut lines = dr.lines.clone();
    lines.push(OrderLine::Build { unit, pos });
    let gone = s
        .groups
        .iter()
        .filter(|g| g.owner == seat && g.kind == unit && scuttled(dr, g.id) >= g.count)
        .count();
    let existing = s
        .groups
        .iter()
        .filter(|g| g.owner == seat && g.kind == unit)
        .count()
        - gone;
    if existing + new_counters(s, d, seat, &lines, unit) > u.counter_limit {
        return Some(format!(
            "no free {} counter (limit {})",
            unit.name(),
            u.counter_limit
        ));
    }
    None
}

fn research_problem(s: &State, d: &Data, seat: Seat, t: Tech) -> Option<String> {
    let dr = &s.drafts[seat];
    if dr.lines.contains(&OrderLine::Research { tech: t }) {
        return Some("at most one level of each tech per phase".into());
    }
    let td = d.tech(t);
    let lvl = s.players[seat].level(t);
    if lvl >= td.max {
        return Some(format!("{} is at its maximum", t.name()));
    }
    let cost = td
        .costs
        .get((lvl - td.start) as usize)
        .copied()
        .unwrap_or(i64::MAX);
    if cost > remaining(dr) {
        return Some(format!("{} {} costs {cost} CP", t.name(), lvl + 1));
    }
    None
}

pub fn research_cost(d: &Data, s: &State, seat: Seat, t: Tech) -> i64 {
    let td = d.tech(t);
    let lvl = s.players[seat].level(t);
    td.costs
        .get(lvl.saturating_sub(td.start) as usize)
        .copied()
        .unwrap_or(i64::MAX)
}

fn scuttle_options(s: &State, d: &Data, seat: Seat, forced: bool) -> Vec<u32> {
    let dr = &s.drafts[seat];
    s.groups
        .iter()
        .filter(|g| g.owner == seat && scuttled(dr, g.id) < g.count)
        .filter(|g| !forced || d.unit(g.kind).maintenance > 0)
        .map(|g| g.id)
        .collect()
}

pub fn econ_actions(s: &State, d: &Data, seat: Seat) -> Vec<Action> {
    let Some(dr) = s.drafts.get(seat) else {
        return Vec::new();
    };
    if s.phase != Phase::Econ || dr.submitted || !s.players[seat].alive {
        return Vec::new();
    }
    let left = remaining(dr);
    if left < 0 {
        // HR-22: scuttle until the maintenance is paid.
        return scuttle_options(s, d, seat, true)
            .into_iter()
            .map(|group| Action::Scuttle { group })
            .collect();
    }
    let mut out = vec![Action::SubmitOrders];
    if dr.bid.is_none() {
        for cp in 0..=left {
            out.push(Action::Bid { cp });
        }
    }
    for t in Tech::ALL {
        if research_problem(s, d, seat, t).is_none() {
            out.push(Action::Research { tech: t });
        }
    }
    let mut cols: Vec<usize> = s
        .colonies
        .iter()
        .filter(|c| c.owner == seat)
        .map(|c| c.pos)
        .collect();
    cols.sort_unstable();
    for pos in cols {
        for unit in UnitKind::ALL {
            if build_problem(s, d, seat, unit, pos).is_none() {
                let (x, y) = s.xy(pos);
                out.push(Action::Build { unit, x, y });
            }
        }
    }
    for group in scuttle_options(s, d, seat, false) {
        out.push(Action::Scuttle { group });
    }
    out
}

pub fn apply_econ(s: &mut State, d: &Data, seat: Seat, a: &Action) -> Result<(), RuleError> {
    if s.phase != Phase::Econ || s.drafts.get(seat).is_none_or(|dr| dr.submitted) {
        return Err(RuleError::not_your_turn(seat));
    }
    if !econ_actions(s, d, seat).contains(a) {
        let why = match a {
            Action::Build { unit, x, y } => match s.idx(*x, *y) {
                Some(pos) => build_problem(s, d, seat, *unit, pos)
                    .unwrap_or_else(|| "not allowed now".into()),
                None => "not a hex of the map".into(),
            },
            Action::Research { tech } => {
                research_problem(s, d, seat, *tech).unwrap_or_else(|| "not allowed now".into())
            }
            _ if remaining(&s.drafts[seat]) < 0 => {
                "you must scuttle ships until your maintenance is paid".into()
            }
            _ => "that order is not possible now".into(),
        };
        return Err(err("illegal_order", why));
    }
    let cost = match a {
        Action::Research { tech } => research_cost(d, s, seat, *tech),
        Action::Build { unit, .. } => d.unit(*unit).cost,
        _ => 0,
    };
    let relief = match a {
        Action::Scuttle { group } => s.group(*group).map_or(0, |g| d.unit(g.kind).maintenance),
        _ => 0,
    };
    let pos = match a {
        Action::Build { x, y, .. } => s.idx(*x, *y),
        _ => None,
    };
    let dr = &mut s.drafts[seat];
    match a {
        Action::SubmitOrders => dr.submitted = true,
        Action::Bid { cp } => dr.bid = Some(*cp),
        Action::Research { tech } => {
            dr.lines.push(OrderLine::Research { tech: *tech });
            dr.spent += cost;
        }
        Action::Build { unit, .. } => {
            if let Some(pos) = pos {
                dr.lines.push(OrderLine::Build { unit: *unit, pos });
                dr.spent += cost;
            }
        }
        Action::Scuttle { group } => {
            dr.lines.push(OrderLine::Scuttle { group: *group });
            dr.available += relief;
            dr.maintenance -= relief;
        }
        _ => return Err(err("illegal_order", "not an economic order")),
    }
    if (0..s.seats).all(|i| s.drafts[i].submitted) {
        resolve(s, d);
    }
    Ok(())
}

/// Resolution steps 4-8 of digest 5.7, then the reveal.
pub fn resolve(s: &mut State, d: &Data) {
    s.last_reveal.clear();
    for seat in 0..s.seats {
        if !s.players[seat].alive {
            continue;
        }
        let dr = s.drafts[seat].clone();
        let bid = dr.bid.unwrap_or(0);
        s.bids[seat] = bid;
        let mut cp = remaining(&dr);
        let mut private: Vec<String> = Vec::new();
        // Scuttles free their counters first.
        for l in &dr.lines {
            if let OrderLine::Scuttle { group } = l {
                let mut gone = false;
                if let Some(g) = s.group_mut(*group) {
                    g.count = g.count.saturating_sub(1);
                    g.damage = 0;
                    gone = g.count == 0;
                }
                if gone {
                    super::rules::destroy_group(s, *group);
                }
                private.push(format!("scuttle one ship of #{group}"));
            }
        }
        for l in &dr.lines {
            if let OrderLine::Research { tech } = l {
                let p = &mut s.players[seat];
                p.tech[*tech as usize] = p.tech[*tech as usize].saturating_add(1);
                private.push(format!("research {} {}", tech.name(), p.level(*tech)));
            }
        }
        // Builds, grouped by type and planet in the order given.
        let mut new_ids = Vec::new();
        let max = d.general.max_group_size;
        let mut open: Vec<(UnitKind, usize, u32)> = Vec::new();
        for l in &dr.lines {
            let OrderLine::Build { unit, pos } = l else {
                continue;
            };
            private.push(format!("build a {} at {}", unit.name(), s.hex_name(*pos)));
            let groups = matches!(
                unit,
                UnitKind::Scout
                    | UnitKind::Destroyer
                    | UnitKind::Cruiser
                    | UnitKind::Battlecruiser
                    | UnitKind::Battleship
                    | UnitKind::Dreadnought
            );
            if *unit == UnitKind::Shipyard
                && let Some(g) = s
                    .groups
                    .iter_mut()
                    .find(|g| g.owner == seat && g.pos == *pos && g.kind == UnitKind::Shipyard)
            {
                g.count = g.count.saturating_add(1);
                continue;
            }
            let open_id = open
                .iter()
                .find(|(k, p, _)| k == unit && p == pos)
                .map(|e| e.2);
            if groups
                && let Some(id) = open_id
                && let Some(g) = s.group_mut(id).filter(|g| g.count < max)
            {
                g.count += 1;
                continue;
            }
            let id = new_group(s, seat, *unit, 1, *pos);
            open.retain(|(k, p, _)| !(k == unit && p == pos));
            open.push((*unit, *pos, id));
            new_ids.push(id);
        }
        // Space wrecks (table 2.7).
        for _ in 0..dr.wrecks {
            let r = s.rng.die(d.general.die_sides);
            let line = apply_wreck(s, d, seat, r);
            private.push(line);
        }
        // Growth (HR-20).
        for c in s.colonies.iter_mut().filter(|c| c.owner == seat) {
            if c.homeworld {
                c.value = (c.value + d.general.homeworld_step).min(d.general.homeworld_value);
            } else if let Some(v) = d
                .general
                .colony_steps
                .iter()
                .copied()
                .find(|v| *v > c.value)
            {
                c.value = v;
            }
        }
        cp = cp.clamp(0, d.general.carry_over_cap);
        s.players[seat].cp = cp;
        s.last_orders[seat] = dr.lines.clone();
        let ids: Vec<String> = new_ids.iter().map(|i| format!("#{i}")).collect();
        s.log(format!(
            "Seat {} bid {bid} CP; new counters: {}.",
            seat + 1,
            if ids.is_empty() {
                "none".to_string()
            } else {
                ids.join(", ")
            }
        ));
        if !private.is_empty() {
            s.log_private(
                seat,
                format!("Your orders: {}. {cp} CP carried over.", private.join("; ")),
            );
        }
        s.last_reveal.push(Reveal {
            seat,
            bid,
            new_counters: new_ids,
        });
    }
    if s.round_cap.is_some_and(|c| s.round >= c) {
        s.phase = Phase::Over;
        s.log("The round cap is reached: the game ends.");
        return;
    }
    let chooser = order_chooser(s);
    s.phase = Phase::ChooseOrder { chooser };
}

/// Table 2.7: one d10 roll for a delivered space wreck. Returns the private log line.
pub fn apply_wreck(s: &mut State, d: &Data, seat: Seat, roll: u8) -> String {
    let Some(t) = d.wreck.table.get((roll as usize).wrapping_sub(1)).copied() else {
        return format!("space wreck roll {roll}: no effect");
    };
    let max = d.tech(t).max;
    let p = &mut s.players[seat];
    if p.level(t) < max {
        p.tech[t as usize] += 1;
        format!(
            "space wreck roll {roll}: {} rises to {}",
            t.name(),
            p.level(t)
        )
    } else {
        format!(
            "space wreck roll {roll}: {} is already at maximum",
            t.name()
        )
    }
}

/// HR-23: the single highest bidder above 0 sets the order; otherwise the current first player.
pub fn order_chooser(s: &State) -> Seat {
    let alive = s.alive();
    let best = alive.iter().map(|p| s.bids[*p]).max().unwrap_or(0);
    let top: Vec<Seat> = alive
        .iter()
        .copied()
        .filter(|p| s.bids[*p] == best)
        .collect();
    if best > 0 && top.len() == 1 {
        top[0]
    } else {
        s.order
            .iter()
            .copied()
            .find(|p| s.players[*p].alive)
            .unwrap_or(0)
    }
}

/// Every ordering of the living seats, in lexicographic order.
pub fn orders(s: &State) -> Vec<Vec<Seat>> {
    fn perms(items: &[Seat], out: &mut Vec<Vec<Seat>>, cur: &mut Vec<Seat>) {
        if cur.len() == items.len() {
            out.push(cur.clone());
            return;
        }
        for &x in items {
            if !cur.contains(&x) {
                cur.push(x);
                perms(items, out, cur);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    perms(&s.alive(), &mut out, &mut Vec::new());
    out
}

pub fn set_order(s: &mut State, seat: Seat, order: &[Seat]) -> Result<(), RuleError> {
    let Phase::ChooseOrder { chooser } = s.phase else {
        return Err(RuleError::not_your_turn(seat));
    };
    if chooser != seat {
        return Err(RuleError::not_your_turn(seat));
    }
    if !orders(s).iter().any(|o| o == order) {
        return Err(err("bad_turn_order", "list every living seat exactly once"));
    }
    s.order = order.to_vec();
    let names: Vec<String> = order.iter().map(|p| format!("Seat {}", p + 1)).collect();
    s.log(format!(
        "Seat {} sets the turn order: {}.",
        seat + 1,
        names.join(", ")
    ));
    s.round += 1;
    s.turn = 1;
    s.current = 0;
    for dr in s.drafts.iter_mut() {
        *dr = Draft::default();
    }
    start_player_turn(s);
    Ok(())
}
