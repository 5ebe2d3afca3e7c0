//! Invariants the contract harness checks after setup and every action of every random
//! playout (`Game::check_invariants` / `check_step`). Each returns the first broken rule.

use turnpost_engine::Seat;

use super::data::Data;
use super::rules::is_combat;
use super::state::*;

/// One state: banks, tech, counters, group sizes, colonies, Homeworlds and who shares hexes.
pub fn check_state(s: &State, d: &Data) -> Result<(), String> {
    if s.players.len() != s.seats || s.drafts.len() != s.seats || s.last_orders.len() != s.seats {
        return Err("one player, draft and order list per seat".into());
    }
    for (seat, p) in s.players.iter().enumerate() {
        // CP never negative, and never more than the carry-over cap between phases.
        if p.cp < 0 || p.cp > d.general.carry_over_cap {
            return Err(format!("Seat {} banks {} CP", seat + 1, p.cp));
        }
        for t in Tech::ALL {
            let (lo, hi) = (d.tech(t).start, d.tech(t).max);
            let v = p.level(t);
            if v < lo || v > hi {
                return Err(format!("Seat {} has {} {v}", seat + 1, t.name()));
            }
        }
    }
    check_groups(s, d)?;
    check_colonies(s, d)?;
    check_shared_hexes(s, d)?;
    if let Some(b) = &s.battle {
        let present = |seat: Seat| s.groups.iter().any(|g| g.pos == b.pos && g.owner == seat);
        if b.attacker == b.defender || !present(b.attacker) || !present(b.defender) {
            return Err(format!(
                "a battle at {} without two sides present",
                s.hex_name(b.pos)
            ));
        }
    }
    Ok(())
}

fn check_groups(s: &State, d: &Data) -> Result<(), String> {
    let mut ids: Vec<u32> = s.groups.iter().map(|g| g.id).collect();
    ids.sort_unstable();
    if ids.windows(2).any(|w| w[0] == w[1]) {
        return Err("two groups share a counter id".into());
    }
    for g in &s.groups {
        let name = format!("counter #{}", g.id);
        if g.id >= s.next_id {
            return Err(format!("{name} is not below next_id {}", s.next_id));
        }
        if g.owner >= s.seats || !s.players[g.owner].alive {
            return Err(format!("{name} belongs to no living seat"));
        }
        if !s.on_map.get(g.pos).copied().unwrap_or(false) {
            return Err(format!("{name} is off the map"));
        }
        if g.count == 0 {
            return Err(format!("{name} holds no units"));
        }
        // HR-13: a ship group holds 1-6; shipyards pile up on their planet.
        if g.kind.hides() && g.count > d.general.max_group_size {
            return Err(format!("{name} holds {} units", g.count));
        }
        if g.damage >= d.unit(g.kind).hull.max(1) {
            return Err(format!("{name} carries {} damage", g.damage));
        }
        if s.battle.is_none() && g.damage > 0 {
            return Err(format!("{name} is not repaired after the battle"));
        }
        if g.cargo.is_some() && g.kind != UnitKind::Miner {
            return Err(format!("{name} is a {} with cargo", g.kind.name()));
        }
    }
    // Counter limits count group counters in play (seed "Purchase Limits").
    for seat in 0..s.seats {
        for kind in UnitKind::ALL {
            let n = s
                .groups
                .iter()
                .filter(|g| g.owner == seat && g.kind == kind)
                .count();
            if n > d.unit(kind).counter_limit {
                return Err(format!(
                    "Seat {} has {n} {} counters (limit {})",
                    seat + 1,
                    kind.name(),
                    d.unit(kind).counter_limit
                ));
            }
        }
    }
    Ok(())
}

fn check_colonies(s: &State, d: &Data) -> Result<(), String> {
    let mut at: Vec<usize> = s.colonies.iter().map(|c| c.pos).collect();
    at.sort_unstable();
    if at.windows(2).any(|w| w[0] == w[1]) {
        return Err("two colonies on one planet".into());
    }
    for c in &s.colonies {
        let name = format!("colony at {}", s.hex_name(c.pos));
        if c.owner >= s.seats || !s.players[c.owner].alive {
            return Err(format!("{name} belongs to no living seat"));
        }
        let ok = if c.homeworld {
            c.value > 0
                && c.value <= d.general.homeworld_value
                && c.value % d.general.homeworld_step.max(1) == 0
        } else {
            c.value == 0 || d.general.colony_steps.contains(&c.value)
        };
        if !ok {
            return Err(format!("{name} is worth {} CP", c.value));
        }
    }
    // Once every Homeworld is placed, a seat is alive exactly while its Homeworld stands.
    if !matches!(s.phase, Phase::ChooseHome { .. }) {
        for (seat, p) in s.players.iter().enumerate() {
            let home = s
                .colonies
                .iter()
                .find(|c| c.owner == seat && c.homeworld)
                .map(|c| c.pos);
            let ok = if p.alive {
                home.is_some() && home == p.homeworld
            } else {
                home.is_none()
            };
            if !ok {
                return Err(format!(
                    "Seat {} alive {} but Homeworld {home:?}",
                    seat + 1,
                    p.alive
                ));
            }
        }
    }
    Ok(())
}

/// Armed fleets of two owners never share a hex outside combat: the player whose turn it
/// is fights every battle it moved into before its turn ends, so a shared hex with
/// combat units of both sides exists only in a battle or during the turn of one of them.
/// In games of 3+ players two defenders may stay together (HR-18: they do not fight each
/// other), so the check is for two-player games. Version 1 games could build shipyards
/// beside a blockading fleet, so it applies from rules version 2.
fn check_shared_hexes(s: &State, d: &Data) -> Result<(), String> {
    if s.seats != 2 || s.rules_version < 2 || s.phase == Phase::Over {
        return Ok(());
    }
    let turn_of = match s.phase {
        Phase::Move | Phase::Combat | Phase::Explore => Some(s.current_player()),
        _ => None,
    };
    let mut hexes: Vec<usize> = s.groups.iter().map(|g| g.pos).collect();
    hexes.sort_unstable();
    hexes.dedup();
    for h in hexes {
        if s.battle.as_ref().is_some_and(|b| b.pos == h) {
            continue;
        }
        let mut owners: Vec<Seat> = s
            .groups
            .iter()
            .filter(|g| g.pos == h)
            .map(|g| g.owner)
            .collect();
        owners.sort_unstable();
        owners.dedup();
        if owners.len() < 2 || turn_of.is_some_and(|p| owners.contains(&p)) {
            continue;
        }
        let armed = owners
            .iter()
            .filter(|o| {
                s.groups
                    .iter()
                    .any(|g| g.pos == h && g.owner == **o && is_combat(d, g.kind))
            })
            .count();
        if armed >= 2 {
            return Err(format!(
                "armed units of {owners:?} share {} outside combat",
                s.hex_name(h)
            ));
        }
    }
    Ok(())
}

/// One transition: ids are never reused, time and tech only go forward, the dead stay
/// dead, and the table's settings never change.
pub fn check_step(before: &State, after: &State) -> Result<(), String> {
    if after.next_id < before.next_id {
        return Err("next_id went down".into());
    }
    for g in &after.groups {
        if before.group(g.id).is_none() && g.id < before.next_id {
            return Err(format!("counter id #{} was reused", g.id));
        }
    }
    if after.round < before.round || after.seats != before.seats {
        return Err("the round went back".into());
    }
    for (seat, (b, a)) in before.players.iter().zip(&after.players).enumerate() {
        if Tech::ALL.iter().any(|t| a.level(*t) < b.level(*t)) {
            return Err(format!("Seat {}'s tech went down", seat + 1));
        }
        if !b.alive && a.alive {
            return Err(format!("Seat {} came back to life", seat + 1));
        }
    }
    if after.round_cap != before.round_cap
        || after.instant_upgrades != before.instant_upgrades
        || after.rules_version != before.rules_version
    {
        return Err("the table's settings changed".into());
    }
    Ok(())
}
