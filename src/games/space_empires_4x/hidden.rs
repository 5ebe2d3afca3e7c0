//! `resample_hidden`: a state the viewer cannot tell from the real one. Everything hidden
//! from the viewer is redrawn (digest section 7, HR-24): face-down markers, other players'
//! banks, tech levels, face-down fleets, economic drafts and past orders, combat plans
//! and private log lines. The viewer's own pieces, orders and plan stay as they are, so
//! its view, text and legal actions do not change (the contract harness checks that).

use turnpost_engine::{GameRng, Seat, Viewer};

use super::data::Data;
use super::state::*;

/// The face-down kinds a counter of another player may turn out to be.
const HIDING_KINDS: [UnitKind; 7] = [
    UnitKind::Scout,
    UnitKind::Destroyer,
    UnitKind::Cruiser,
    UnitKind::Battlecruiser,
    UnitKind::Battleship,
    UnitKind::Dreadnought,
    UnitKind::Decoy,
];

fn random_tech(rng: &mut GameRng) -> Tech {
    Tech::ALL[rng.below(Tech::ALL.len())]
}

/// A level between the tech's start and maximum.
fn random_level(d: Option<&Data>, t: Tech, rng: &mut GameRng) -> u8 {
    let (lo, hi) = d.map_or((0, 1), |d| (d.tech(t).start, d.tech(t).max));
    lo + rng.below(usize::from(hi.saturating_sub(lo)) + 1) as u8
}

/// A few secret research lines: what another player might have ordered.
fn random_lines(rng: &mut GameRng) -> Vec<OrderLine> {
    let mut lines: Vec<OrderLine> = Vec::new();
    for _ in 0..rng.below(3) {
        let tech = random_tech(rng);
        if !lines.contains(&OrderLine::Research { tech }) {
            lines.push(OrderLine::Research { tech });
        }
    }
    lines
}

pub fn resample(state: &State, d: Option<&Data>, viewer: Viewer, rng: &mut GameRng) -> State {
    let mut s = state.clone();
    let me = viewer.seat().filter(|m| *m < s.seats);
    let other = |seat: Seat| Some(seat) != me;
    let over = s.phase == Phase::Over;

    // Unexplored markers the viewer has not peeked at, reshuffled within each border
    // colour; another player's peek follows the marker now lying in the hex it peeked at.
    let known: Vec<usize> = me
        .map(|m| s.players[m].peeks.iter().map(|(p, _)| *p).collect())
        .unwrap_or_default();
    for border in std::iter::once(None).chain((0..s.seats).map(Some)) {
        let idx: Vec<usize> = (0..s.cells.len())
            .filter(|i| {
                s.on_map[*i]
                    && !s.cells[*i].explored
                    && s.cells[*i].home_of == border
                    && !known.contains(i)
            })
            .collect();
        let mut ms: Vec<Marker> = idx.iter().map(|i| s.cells[*i].marker).collect();
        // Sorted first, so the world drawn depends only on which markers are unknown, not
        // on where they really lie (the contract's resample check).
        ms.sort_unstable();
        rng.shuffle(&mut ms);
        for (i, m) in idx.into_iter().zip(ms) {
            s.cells[i].marker = m;
        }
    }
    for seat in (0..s.seats).filter(|p| other(*p)) {
        let cells = &s.cells;
        for (pos, m) in s.players[seat].peeks.iter_mut() {
            if let Some(c) = cells.get(*pos) {
                *m = c.marker;
            }
        }
    }
    for st in s.home_stock.iter_mut() {
        st.sort_unstable();
        rng.shuffle(st);
    }

    for seat in (0..s.seats).filter(|p| other(*p)) {
        // At the end the banks decide ties and are announced, so they stay.
        if !over {
            s.players[seat].cp = rng.below(31) as i64;
        }
        for t in Tech::ALL {
            s.players[seat].tech[t as usize] = random_level(d, t, rng);
        }
        // The draft: income, maintenance, bid and lines are secret; whether it was
        // submitted is public, and so is which colonies are blockaded (the ships are there).
        if s.players[seat].alive {
            let cp = s.players[seat].cp;
            let dr = &mut s.drafts[seat];
            dr.income = rng.below(41) as i64;
            dr.maintenance = rng.below(21) as i64;
            dr.available = dr.income + cp - dr.maintenance;
            dr.bid = rng.chance(1, 2).then(|| rng.below(4) as i64);
            dr.lines = random_lines(rng);
            dr.spent = 10 * dr.lines.len() as i64;
            dr.wrecks = rng.below(2) as u32;
        }
        s.last_orders[seat] = random_lines(rng);
    }

    // Another player's face-down counter: any hiding type, size and tech.
    for g in s.groups.iter_mut().filter(|g| other(g.owner) && !g.face_up) {
        g.kind = HIDING_KINDS[rng.below(HIDING_KINDS.len())];
        g.count = 1 + rng.below(6) as u8;
        g.attack = rng.below(4) as u8;
        g.defense = rng.below(4) as u8;
        g.tactics = rng.below(4) as u8;
        g.movement = 1 + rng.below(7) as u8;
        g.special = g.kind == UnitKind::Cruiser && rng.chance(1, 2);
    }

    // The other side's combat plan (both plans for anyone outside the battle): screening,
    // retreats and targets are secret until the round is fought; `submitted` is public.
    if let Some(b) = s.battle.as_mut() {
        let sides = [b.attacker, b.defender];
        for (i, seat) in sides.into_iter().enumerate() {
            if !other(seat) {
                continue;
            }
            let enemy = sides[1 - i];
            let mut targets: Vec<u32> = state
                .groups
                .iter()
                .filter(|g| g.pos == b.pos && g.owner == enemy)
                .map(|g| g.id)
                .collect();
            rng.shuffle(&mut targets);
            targets.truncate(rng.below(targets.len() + 1));
            let screened: Vec<(u32, u8)> = state
                .groups
                .iter()
                .filter(|g| g.pos == b.pos && g.owner == seat && rng.chance(1, 3))
                .map(|g| (g.id, 1))
                .collect();
            let plan = &mut b.plans[i];
            plan.targets = targets;
            plan.screened = screened;
            plan.retreats.clear();
        }
    }

    // Lines of the log only another player sees.
    for e in s.events.iter_mut() {
        if e.seen_by.is_some_and(other) {
            e.text = format!("(resampled private line {})", rng.below(1000));
        }
    }
    s.rng = rng.fork();
    s
}
