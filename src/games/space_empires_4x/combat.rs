//! Battles (digest 5.4): screening, fleet-size bonus, firing order, to-hit, damage, retreat.

use turnpost_engine::{RuleError, Seat};

use super::actions::Action;
use super::data::Data;
use super::rules::{counters_of, destroy_group, eff_tech, err, is_combat, public_tech};
use super::state::*;

/// Class rank for the firing order: A = 0 ... E = 4. Terrain makes every ship class E.
pub fn class_rank(d: &Data, k: UnitKind, terrain: Marker) -> u8 {
    if matches!(terrain, Marker::Asteroids | Marker::Nebula) {
        return 4;
    }
    match d.unit(k).class.as_str() {
        "A" => 0,
        "B" => 1,
        "C" => 2,
        "D" => 3,
        _ => 4,
    }
}

/// The number a d10 must not exceed (digest 5.4 step 5). A natural 1 hits regardless.
pub fn to_hit(
    d: &Data,
    shooter: UnitKind,
    att_tech: u8,
    bonus: i32,
    target: UnitKind,
    def_tech: u8,
    terrain: Marker,
) -> i32 {
    let a = d.unit(shooter);
    let t = d.unit(target);
    let at = if terrain == Marker::Asteroids {
        0
    } else {
        att_tech.min(a.hull) as i32
    };
    let dt = if terrain == Marker::Nebula {
        0
    } else {
        def_tech.min(t.hull) as i32
    };
    a.attack + at + bonus - (t.defense + dt)
}

pub fn hits(roll: u8, to_hit: i32) -> bool {
    roll == 1 || (roll as i32) <= to_hit
}

/// One hit on a group: it goes to the damaged ship until that ship is destroyed (9.7).
/// Returns true when the whole group is gone.
pub fn damage_group(g: &mut Group, hull: u8) -> bool {
    g.damage += 1;
    if g.damage >= hull.max(1) {
        g.damage = 0;
        g.count = g.count.saturating_sub(1);
    }
    g.count == 0
}

fn terrain_at(s: &State, pos: usize) -> Marker {
    if s.cells[pos].explored {
        s.cells[pos].marker
    } else {
        Marker::Empty
    }
}

fn side_groups(s: &State, pos: usize, seat: Seat) -> Vec<&Group> {
    s.groups
        .iter()
        .filter(|g| g.pos == pos && g.owner == seat)
        .collect()
}

fn ships(d: &Data, gs: &[&Group]) -> u32 {
    gs.iter()
        .filter(|g| is_combat(d, g.kind))
        .map(|g| g.count as u32)
        .sum()
}

/// Starts a battle (the attacker chose it). Returns without a battle when one side has no
/// combat unit (its other units are destroyed at once).
pub fn start_battle(s: &mut State, d: &Data, attacker: Seat, defender: Seat, pos: usize) {
    let name = s.hex_name(pos);
    let decoys: Vec<u32> = s
        .groups
        .iter()
        .filter(|g| {
            g.pos == pos
                && g.kind == UnitKind::Decoy
                && (g.owner == attacker || g.owner == defender)
        })
        .map(|g| g.id)
        .collect();
    for id in decoys {
        s.log(format!(
            "Counter #{id} at {name} was a decoy and is removed."
        ));
        destroy_group(s, id);
    }
    for g in s
        .groups
        .iter_mut()
        .filter(|g| g.pos == pos && (g.owner == attacker || g.owner == defender))
    {
        g.face_up = true;
    }
    let desc: Vec<String> = s
        .groups
        .iter()
        .filter(|g| g.pos == pos && (g.owner == attacker || g.owner == defender))
        .map(|g| describe_group(s, g))
        .collect();
    s.log(format!(
        "Battle at {name}: Seat {} attacks Seat {}. Revealed: {}.",
        attacker + 1,
        defender + 1,
        desc.join("; ")
    ));
    s.battle = Some(Battle {
        pos,
        attacker,
        defender,
        round: 1,
        plans: [Plan::default(), Plan::default()],
    });
    if !check_end(s, d) {
        auto_submit(s, d);
    }
}

/// A revealed group for the public battle log: type, size and the tech it was built with.
/// Shipyards, bases (and every ship under `instant_upgrades`) fight with their owner's
/// current levels, which are secret (HR-24), so the log leaves them out.
pub fn describe_group(s: &State, g: &Group) -> String {
    let tech = match (
        public_tech(s, g, Tech::Attack),
        public_tech(s, g, Tech::Defense),
        public_tech(s, g, Tech::Tactics),
    ) {
        (Some(a), Some(d), Some(t)) => format!(" (att {a} def {d} tac {t})"),
        _ => String::new(),
    };
    format!(
        "#{} Seat {} {}x{}{tech}",
        g.id,
        g.owner + 1,
        g.kind.name(),
        g.count,
    )
}

/// The to-hit number as the public log may show it: only when every level in it is one
/// everyone knows (built tech of revealed ships). Otherwise it would tell the shooter's
/// current attack or the target's current defense.
fn public_to_hit(s: &State, shooter: &Group, target: &Group, th: i32) -> String {
    let known = public_tech(s, shooter, Tech::Attack).is_some()
        && public_tech(s, target, Tech::Defense).is_some();
    if known {
        format!(" vs {th}")
    } else {
        String::new()
    }
}

/// Ends the battle when a side has no units, or no combat units (its others are lost).
/// Returns true when the battle is over.
pub fn check_end(s: &mut State, d: &Data) -> bool {
    let Some(b) = s.battle.clone() else {
        return true;
    };
    let name = s.hex_name(b.pos);
    for side in [b.attacker, b.defender] {
        let gs = side_groups(s, b.pos, side);
        if !gs.is_empty() && ships(d, &gs) == 0 {
            let ids: Vec<u32> = gs.iter().map(|g| g.id).collect();
            for id in ids {
                destroy_group(s, id);
            }
            s.log(format!(
                "Seat {}'s unprotected units at {name} are destroyed.",
                side + 1
            ));
        }
    }
    let a = side_groups(s, b.pos, b.attacker).len();
    let df = side_groups(s, b.pos, b.defender).len();
    if a == 0 || df == 0 {
        for g in s.groups.iter_mut().filter(|g| g.pos == b.pos) {
            g.damage = 0;
        }
        s.battle = None;
        s.log(format!("The battle at {name} is over."));
        return true;
    }
    false
}

fn side_index(b: &Battle, seat: Seat) -> Option<usize> {
    if seat == b.attacker {
        Some(0)
    } else if seat == b.defender {
        Some(1)
    } else {
        None
    }
}

fn screened_of(p: &Plan, id: u32) -> u8 {
    p.screened
        .iter()
        .find(|(g, _)| *g == id)
        .map_or(0, |(_, n)| *n)
}

/// Legal retreat hexes for a group (digest 5.4 Retreat; 9.15).
///
/// The seed allows "the same distance, or less, from one of its colonies": from rules
/// version 2 a hex qualifies when it is no farther than the battle hex from any one own
/// colony or the Homeworld, so a ship may fall back toward a colony that is not the
/// nearest. Version 1 games measured only against the nearest colony.
pub fn retreat_hexes(s: &State, d: &Data, g: &Group) -> Vec<usize> {
    if !d.unit(g.kind).mobile || !is_combat(d, g.kind) {
        return Vec::new();
    }
    let colonies: Vec<usize> = s
        .colonies
        .iter()
        .filter(|c| c.owner == g.owner)
        .map(|c| c.pos)
        .collect();
    let nearest = |h: usize| {
        colonies
            .iter()
            .map(|c| s.distance(h, *c))
            .min()
            .unwrap_or(u32::MAX)
    };
    let toward_some = |h: usize| {
        colonies
            .iter()
            .any(|c| s.distance(h, *c) <= s.distance(g.pos, *c))
    };
    s.neighbours(g.pos)
        .into_iter()
        .filter(|n| {
            let c = &s.cells[*n];
            let distance_ok = if s.rules_version >= 2 {
                toward_some(*n)
            } else {
                nearest(*n) <= nearest(g.pos)
            };
            c.explored
                && c.marker != Marker::Supernova
                && !s.groups.iter().any(|o| o.pos == *n && o.owner != g.owner)
                && distance_ok
        })
        .collect()
}

pub fn plan_actions(s: &State, d: &Data, seat: Seat) -> Vec<Action> {
    let Some(b) = &s.battle else {
        return Vec::new();
    };
    let Some(i) = side_index(b, seat) else {
        return Vec::new();
    };
    let plan = &b.plans[i];
    if plan.submitted {
        return Vec::new();
    }
    let enemy = if i == 0 { b.defender } else { b.attacker };
    let mine = side_groups(s, b.pos, seat);
    let theirs = side_groups(s, b.pos, enemy);
    let mut out = vec![Action::SubmitPlan];
    let (m, t) = (ships(d, &mine), ships(d, &theirs));
    let budget = m.saturating_sub(t);
    let used: u32 = plan.screened.iter().map(|(_, n)| *n as u32).sum();
    let retreating = |id: u32| plan.retreats.iter().find(|r| r.0 == id).map_or(0, |r| r.2);
    for g in &mine {
        if used < budget
            && is_combat(d, g.kind)
            && screened_of(plan, g.id) + retreating(g.id) < g.count
        {
            out.push(Action::Screen { group: g.id });
        }
    }
    if b.round >= 2 {
        for g in &mine {
            if retreating(g.id) > 0 {
                continue;
            }
            let free = g.count.saturating_sub(screened_of(plan, g.id));
            let new_counter = counters_of(s, seat, g.kind) < d.unit(g.kind).counter_limit;
            let hexes = retreat_hexes(s, d, g);
            for count in 1..=free {
                if count < g.count && !new_counter {
                    continue;
                }
                for h in &hexes {
                    let (x, y) = s.xy(*h);
                    out.push(Action::Retreat {
                        group: g.id,
                        count,
                        x,
                        y,
                    });
                }
            }
        }
    }
    let targets: Vec<u32> = theirs
        .iter()
        .filter(|g| is_combat(d, g.kind))
        .map(|g| g.id)
        .collect();
    if targets.len() > 1 {
        for id in targets {
            if !plan.targets.contains(&id) {
                out.push(Action::Target { group: id });
            }
        }
    }
    out
}

/// Sides with nothing to choose submit at once (fewer emails); rounds where both sides
/// have submitted are fought.
pub fn auto_submit(s: &mut State, d: &Data) {
    while let Some(b) = s.battle.clone() {
        for (i, seat) in [b.attacker, b.defender].into_iter().enumerate() {
            if !b.plans[i].submitted
                && plan_actions(s, d, seat).len() <= 1
                && let Some(bb) = s.battle.as_mut()
            {
                bb.plans[i].submitted = true;
            }
        }
        if s.battle
            .as_ref()
            .is_some_and(|b| b.plans.iter().all(|p| p.submitted))
        {
            resolve_round(s, d);
        } else {
            break;
        }
    }
}

pub fn apply_plan(s: &mut State, d: &Data, seat: Seat, a: &Action) -> Result<(), RuleError> {
    if !plan_actions(s, d, seat).contains(a) {
        return Err(err(
            "illegal_plan",
            "that is not a choice of your combat plan now",
        ));
    }
    let Some(b) = s.battle.as_ref() else {
        return Err(RuleError::not_your_turn(seat));
    };
    let Some(i) = side_index(b, seat) else {
        return Err(RuleError::not_your_turn(seat));
    };
    let hex = match a {
        Action::Retreat { x, y, .. } => s.idx(*x, *y),
        _ => None,
    };
    let Some(b) = s.battle.as_mut() else {
        return Err(RuleError::not_your_turn(seat));
    };
    let plan = &mut b.plans[i];
    match a {
        Action::SubmitPlan => plan.submitted = true,
        Action::Screen { group } => match plan.screened.iter_mut().find(|(g, _)| g == group) {
            Some(e) => e.1 += 1,
            None => plan.screened.push((*group, 1)),
        },
        Action::Retreat { group, count, .. } => {
            if let Some(h) = hex {
                plan.retreats.push((*group, h, *count));
            }
        }
        Action::Target { group } => plan.targets.push(*group),
        _ => return Err(err("illegal_plan", "not a combat plan step")),
    }
    auto_submit(s, d);
    Ok(())
}

/// Fleet-size bonus: +1 attack for a side with at least twice the other side's ships.
pub fn fleet_bonus(mine: u32, theirs: u32) -> i32 {
    if theirs > 0 && mine >= 2 * theirs {
        1
    } else {
        0
    }
}

/// Firing order: class A..E (all E in asteroids/nebula), higher tactics first, the
/// defender first on equal terms, then counter id. Entries: (class, -tactics, side, id), side 0 = defender.
pub fn firing_order(s: &State, d: &Data, b: &Battle) -> Vec<(u8, i32, u8, u32)> {
    let terrain = terrain_at(s, b.pos);
    let mut order: Vec<(u8, i32, u8, u32)> = s
        .groups
        .iter()
        .filter(|g| {
            g.pos == b.pos
                && (g.owner == b.attacker || g.owner == b.defender)
                && is_combat(d, g.kind)
        })
        .map(|g| {
            let side = if g.owner == b.defender { 0 } else { 1 };
            (
                class_rank(d, g.kind, terrain),
                -(eff_tech(s, g, Tech::Tactics) as i32),
                side,
                g.id,
            )
        })
        .collect();
    order.sort_unstable();
    order
}

/// Fires one combat round with both plans (HR-12).
pub fn resolve_round(s: &mut State, d: &Data) {
    let Some(b) = s.battle.clone() else { return };
    let pos = b.pos;
    let terrain = terrain_at(s, pos);
    let name = s.hex_name(pos);
    let a_ships = ships(d, &side_groups(s, pos, b.attacker));
    let d_ships = ships(d, &side_groups(s, pos, b.defender));
    let a_bonus = fleet_bonus(a_ships, d_ships);
    let d_bonus = fleet_bonus(d_ships, a_ships);
    s.log(format!("Combat round {} at {name}.", b.round));
    let order = firing_order(s, d, &b);
    for (_, _, side, id) in order {
        let plan_i = if side == 0 { 1 } else { 0 };
        let plan = &b.plans[plan_i];
        let enemy_plan = &b.plans[1 - plan_i];
        let Some(g) = s.group(id).cloned() else {
            continue;
        };
        if g.pos != pos {
            continue;
        }
        let mut leaving = 0;
        if let Some(&(_, h, n)) = plan.retreats.iter().find(|r| r.0 == id) {
            let hn = s.hex_name(h);
            if n >= g.count {
                if let Some(gm) = s.group_mut(id) {
                    gm.prev = pos;
                    gm.pos = h;
                    gm.damage = 0;
                }
                s.log(format!("Counter #{id} retreats to {hn}."));
                continue;
            }
            // Part of the group leaves as a new counter; the damaged ship stays.
            let nid = s.next_id;
            s.next_id = s.next_id.saturating_add(1);
            let mut ng = g.clone();
            ng.id = nid;
            ng.count = n;
            ng.damage = 0;
            ng.prev = pos;
            ng.pos = h;
            ng.cargo = None;
            s.groups.push(ng);
            if let Some(gm) = s.group_mut(id) {
                gm.count -= n;
            }
            leaving = n;
            s.log(format!(
                "{n} ship(s) of counter #{id} retreat to {hn} as counter #{nid}."
            ));
        }
        let shots = g
            .count
            .saturating_sub(leaving)
            .saturating_sub(screened_of(plan, id));
        let enemy = if side == 0 { b.attacker } else { b.defender };
        let my_bonus = if side == 0 { d_bonus } else { a_bonus };
        for _ in 0..shots {
            // The group may have lost ships before its turn: only the living fire.
            if s.group(id).is_none() {
                break;
            }
            let targetable = |t: &Group| {
                t.pos == pos
                    && t.owner == enemy
                    && is_combat(d, t.kind)
                    && t.count > screened_of(enemy_plan, t.id)
            };
            let pick = plan
                .targets
                .iter()
                .find_map(|t| s.group(*t).filter(|t| targetable(t)))
                .or_else(|| s.groups.iter().find(|t| targetable(t)))
                .cloned();
            let Some(t) = pick else { break };
            let th = to_hit(
                d,
                g.kind,
                eff_tech(s, &g, Tech::Attack),
                my_bonus,
                t.kind,
                eff_tech(s, &t, Tech::Defense),
                terrain,
            );
            let r = s.rng.die(d.general.die_sides);
            let hit = hits(r, th);
            s.log(format!(
                "#{id} {} fires at #{} {}: roll {r}{}: {}.",
                g.kind.name(),
                t.id,
                t.kind.name(),
                public_to_hit(s, &g, &t, th),
                if hit { "hit" } else { "miss" }
            ));
            if hit {
                let hull = d.unit(t.kind).hull;
                let gone = s.group_mut(t.id).is_some_and(|tg| damage_group(tg, hull));
                if gone {
                    destroy_group(s, t.id);
                    s.log(format!("Counter #{} is destroyed.", t.id));
                }
            }
        }
    }
    if let Some(bb) = s.battle.as_mut() {
        bb.round += 1;
        bb.plans = [Plan::default(), Plan::default()];
    }
    check_end(s, d);
}
