//! The steps of an action being resolved: their choices (`job_actions`) and effects (`exec_job`).

use super::actions::Action;
use super::board::*;
use super::data::Data;
use super::rules::{add_road, frame, illegal, name, pair_stack, pay};
use super::state::*;
use turnpost_engine::hex::Hex;
use turnpost_engine::{RuleError, Seat};

pub(super) fn done_count(done: &[(Hex, u8)], h: Hex) -> u8 {
    done.iter().find(|(x, _)| *x == h).map_or(0, |(_, n)| *n)
}

pub(super) fn bump(list: &mut Vec<(Hex, u8)>, h: Hex) {
    match list.iter_mut().find(|(x, _)| *x == h) {
        Some((_, n)) => *n = n.saturating_add(1),
        None => list.push((h, 1)),
    }
}

pub(super) fn owned_aliens(d: &Data, st: &State, p: Seat) -> Vec<Hex> {
    held_tiles(st, p)
        .into_iter()
        .filter(|&h| st.tile(h).is_some_and(|t| d.tile(t.kind).ability.is_some()))
        .collect()
}

/// The choices of the top step of frame `f`. Empty means the step is over.
pub fn job_actions(d: &Data, st: &State, f: &Frame) -> Vec<Action> {
    let p = f.actor;
    let Some(job) = f.stack.last() else {
        return Vec::new();
    };
    let pl = st.players.get(p);
    let res = pl.map_or([0; 3], |x| x.res);
    let mut out = Vec::new();
    match job {
        Job::MoveExplore { left, done } => {
            if *left == Some(0) {
                return out;
            }
            for t in &st.tiles {
                if t.men.get(p).copied().unwrap_or(0) <= done_count(done, t.hex) {
                    continue;
                }
                for to in move_dests(d, st, p, t.hex) {
                    out.push(Action::Move { from: t.hex, to });
                }
                for (via, at) in explore_options(st, p, t.hex) {
                    out.push(Action::Explore {
                        from: t.hex,
                        via,
                        at,
                    });
                }
            }
            if !out.is_empty() {
                out.push(Action::Stop);
            }
        }
        Job::Roads { left } => {
            if *left > 0 {
                out.extend(
                    road_options(d, st, p)
                        .into_iter()
                        .map(|(a, b)| Action::Road { a, b }),
                );
            }
        }
        Job::BuildChoice => {
            out.push(Action::BuildRoads);
            if !base_options(d, st, p).is_empty() {
                out.push(Action::BuildBase);
            }
        }
        Job::Base { optional } => {
            out.extend(
                base_options(d, st, p)
                    .into_iter()
                    .map(|at| Action::Base { at }),
            );
            if *optional && !out.is_empty() {
                out.push(Action::Stop);
            }
        }
        Job::ExploitSingle => {
            for t in st
                .tiles
                .iter()
                .filter(|t| t.men.get(p).copied().unwrap_or(0) > 0)
            {
                out.push(Action::Harvest { at: t.hex });
            }
            out.extend(
                owned_aliens(d, st, p)
                    .into_iter()
                    .map(|at| Action::UseAlien { at }),
            );
        }
        Job::ExploitPair => {
            out.extend(
                Resource::ALL
                    .iter()
                    .map(|&resource| Action::HarvestAll { resource }),
            );
            if !owned_aliens(d, st, p).is_empty() {
                out.push(Action::AllAliens);
            }
        }
        Job::AlienOrder { remaining } => {
            out.extend(remaining.iter().map(|&at| Action::UseAlien { at }));
        }
        Job::Transmogrify => {
            for r in Resource::ALL {
                if res[r.idx()] >= 1 {
                    out.push(Action::Fill { resource: r });
                }
            }
        }
        Job::Telemorph { at } => {
            if st.men_at(*at, p) > 0 {
                for t in st.tiles.iter().filter(|t| t.hex != *at) {
                    // HR-14: barrier tiles only where an own road touches them.
                    if !d.tile(t.kind).barrier || st.road_touches(p, t.hex) {
                        out.push(Action::Teleport { to: t.hex });
                    }
                }
                if !out.is_empty() {
                    out.push(Action::Stop);
                }
            }
        }
        Job::MenSingle => {
            if men_pool(d, st, p) > 0 {
                out.extend(base_tiles(st, p).into_iter().map(|at| Action::MenAt { at }));
            }
        }
        Job::MenPair { placed } => {
            if men_pool(d, st, p) > 0 {
                for at in base_tiles(st, p) {
                    if done_count(placed, at) < d.points.pair_men_per_base {
                        out.push(Action::MenAt { at });
                    }
                }
            }
        }
        Job::StealTarget { .. } => {
            out.extend(
                rob_options(st, p)
                    .into_iter()
                    .map(|(at, victim)| Action::Rob { at, victim }),
            );
        }
        Job::StealTake { victim, left, pair } => {
            if *left > 0 {
                let vres = st.players.get(*victim).map_or([0; 3], |x| x.res);
                for r in Resource::ALL {
                    if vres[r.idx()] > 0 {
                        out.push(Action::Take { resource: r });
                    }
                }
                if *pair && !out.is_empty() {
                    out.push(Action::Stop);
                }
            }
        }
        Job::WarTarget => {
            out.extend(
                attack_options(st, p)
                    .into_iter()
                    .map(|(at, victim)| Action::Attack { at, victim }),
            );
        }
        Job::GreatWar { next } => {
            out.extend(
                attack_options(st, *next)
                    .into_iter()
                    .map(|(at, victim)| Action::Attack { at, victim }),
            );
        }
        Job::WarLoss { victim, at, .. } => {
            let v = *victim;
            if st
                .players
                .get(v)
                .is_some_and(|x| x.res[Resource::Metal.idx()] > 0)
            {
                out.push(Action::PayMetal);
            }
            if st.men_at(*at, v) > 0 {
                out.push(Action::LoseMan);
            }
            if st.base_at(*at, v) {
                out.push(Action::LoseBase);
            }
            for r in st
                .roads
                .iter()
                .filter(|r| r.owner == v && (r.a == *at || r.b == *at))
            {
                out.push(Action::LoseRoad { a: r.a, b: r.b });
            }
        }
        Job::NameBasic => {
            out.extend(Card::BASIC.iter().map(|&card| Action::NameAction { card }));
        }
        Job::StarSetup { action, .. } => {
            if action.is_none() {
                out.extend(Card::BASIC.iter().map(|&card| Action::NameAction { card }));
            } else {
                out.push(Action::ActFirst);
                out.push(Action::ActLast);
            }
        }
    }
    out
}

pub(super) fn push_job(st: &mut State, job: Job) {
    if let Some(f) = st.frames.first_mut() {
        f.stack.push(job);
    }
}

pub(super) fn add_acc(st: &mut State, n: i64) {
    if let Some(f) = st.frames.first_mut() {
        f.acc += n;
    }
}

pub(super) fn start_ability(d: &Data, st: &mut State, p: Seat, at: Hex) {
    let Some(kind) = st.tile(at).map(|t| t.kind) else {
        return;
    };
    match d.tile(kind).ability {
        Some(Ability::Transmogrifier) => push_job(st, Job::Transmogrify),
        Some(Ability::ClusterBots) => push_job(st, Job::Base { optional: true }),
        Some(Ability::Telemorpher) => push_job(st, Job::Telemorph { at }),
        Some(Ability::ClonePool) => {
            let n = u32::from(st.men_at(at, p)).min(men_pool(d, st, p)) as u8;
            st.add_men(at, p, n);
            st.event(format!("{}: the clone pool at {at} adds {n} men", name(p)));
        }
        None => {}
    }
}

pub(super) fn exec_job(d: &Data, st: &mut State, a: &Action) -> Result<(), RuleError> {
    let Some(f) = st.frames.first_mut() else {
        return Err(illegal(st, a));
    };
    let p = f.actor;
    let Some(job) = f.stack.pop() else {
        return Err(illegal(st, a));
    };
    let n = st.seats.max(1);
    match (job, a) {
        (Job::MoveExplore { left, mut done }, Action::Move { from, to }) => {
            st.remove_man(*from, p);
            st.add_men(*to, p, 1);
            bump(&mut done, *to);
            st.event(format!("{} moves a man {from} -> {to}", name(p)));
            push_job(
                st,
                Job::MoveExplore {
                    left: left.map(|l| l.saturating_sub(1)),
                    done,
                },
            );
        }
        (Job::MoveExplore { left, mut done }, Action::Explore { from, via, at }) => {
            if !st.tile_stack.is_empty() {
                let kind = st.tile_stack.remove(0);
                st.tiles.push(Tile {
                    hex: *at,
                    kind,
                    men: vec![0; n],
                    bases: vec![false; n],
                });
                st.remove_man(*from, p);
                let dest = if d.tile(kind).barrier { *via } else { *at };
                st.add_men(dest, p, 1);
                bump(&mut done, dest);
                st.event(format!(
                    "{} explores {at}: {}; the man ends at {dest}",
                    name(p),
                    kind.label()
                ));
            }
            push_job(
                st,
                Job::MoveExplore {
                    left: left.map(|l| l.saturating_sub(1)),
                    done,
                },
            );
        }
        (Job::Roads { left }, Action::Road { a, b }) => {
            add_road(st, p, *a, *b);
            st.event(format!("{} builds a road {a}-{b}", name(p)));
            push_job(
                st,
                Job::Roads {
                    left: left.saturating_sub(1),
                },
            );
        }
        (Job::BuildChoice, Action::BuildRoads) => push_job(
            st,
            Job::Roads {
                left: d.points.build_pair_roads,
            },
        ),
        (Job::BuildChoice, Action::BuildBase) => push_job(st, Job::Base { optional: false }),
        (Job::Base { .. }, Action::Base { at }) => {
            let cost = st.tile(*at).map_or(0, |t| d.tile(t.kind).base_plastic);
            pay(st, p, Resource::Plastic, cost);
            st.set_base(*at, p, true);
            st.event(format!("{} builds a base at {at}", name(p)));
        }
        (Job::ExploitSingle, Action::Harvest { at }) => {
            if let Some(kind) = st.tile(*at).map(|t| t.kind) {
                for r in Resource::ALL {
                    let y = d.tile(kind).yield_of(r);
                    if y > 0 {
                        let g = gain(d, st, p, r, u32::from(y));
                        st.event(format!("{} gains {g} {} at {at}", name(p), r.name()));
                    }
                }
            }
        }
        (Job::ExploitSingle, Action::UseAlien { at }) => start_ability(d, st, p, *at),
        (Job::ExploitPair, Action::HarvestAll { resource }) => {
            let total: u32 = held_tiles(st, p)
                .iter()
                .filter_map(|&h| st.tile(h))
                .map(|t| u32::from(d.tile(t.kind).yield_of(*resource)))
                .sum();
            add_acc(st, i64::from(total));
            let g = gain(d, st, p, *resource, total);
            st.event(format!(
                "{} harvests {total} {} (gains {g})",
                name(p),
                resource.name()
            ));
        }
        (Job::ExploitPair, Action::AllAliens) => {
            push_job(
                st,
                Job::AlienOrder {
                    remaining: owned_aliens(d, st, p),
                },
            );
        }
        (Job::AlienOrder { mut remaining }, Action::UseAlien { at }) => {
            remaining.retain(|h| h != at);
            push_job(st, Job::AlienOrder { remaining });
            start_ability(d, st, p, *at);
        }
        (Job::Transmogrify, Action::Fill { resource }) => {
            let g = gain(d, st, p, *resource, u32::from(d.track_max));
            add_acc(st, i64::from(g));
            st.event(format!(
                "{}: the transmogrifier fills {} (+{g})",
                name(p),
                resource.name()
            ));
        }
        (Job::Telemorph { at }, Action::Teleport { to }) => {
            st.remove_man(at, p);
            st.add_men(*to, p, 1);
            st.event(format!("{}: telemorpher sends a man {at} -> {to}", name(p)));
            push_job(st, Job::Telemorph { at });
        }
        (Job::MenSingle, Action::MenAt { at }) => {
            let k = u32::from(d.points.single_men).min(men_pool(d, st, p)) as u8;
            st.add_men(*at, p, k);
            st.event(format!("{} puts {k} men on {at}", name(p)));
        }
        (Job::MenPair { mut placed }, Action::MenAt { at }) => {
            st.add_men(*at, p, 1);
            bump(&mut placed, *at);
            st.event(format!("{} puts a man on {at}", name(p)));
            push_job(st, Job::MenPair { placed });
        }
        (Job::StealTarget { pair }, Action::Rob { at, victim }) => {
            let left = if pair { d.points.steal_pair_max } else { 1 };
            st.event(format!("{} robs {} at {at}", name(p), name(*victim)));
            push_job(
                st,
                Job::StealTake {
                    victim: *victim,
                    left,
                    pair,
                },
            );
        }
        (Job::StealTake { victim, left, pair }, Action::Take { resource }) => {
            pay(st, victim, *resource, 1);
            let g = gain(d, st, p, *resource, 1); // HR-20: the victim loses even if p cannot gain
            st.event(format!(
                "{} takes 1 {} from {} (gains {g})",
                name(p),
                resource.name(),
                name(victim)
            ));
            push_job(
                st,
                Job::StealTake {
                    victim,
                    left: left.saturating_sub(1),
                    pair,
                },
            );
        }
        (Job::WarTarget, Action::Attack { at, victim }) => {
            st.event(format!("{} attacks {} at {at}", name(p), name(*victim)));
            push_job(
                st,
                Job::WarLoss {
                    attacker: p,
                    victim: *victim,
                    at: *at,
                },
            );
        }
        (Job::GreatWar { next }, Action::Attack { at, victim }) => {
            st.event(format!(
                "Great war: {} attacks {} at {at}",
                name(next),
                name(*victim)
            ));
            push_job(
                st,
                Job::GreatWar {
                    next: (next + 1) % n,
                },
            );
            push_job(
                st,
                Job::WarLoss {
                    attacker: next,
                    victim: *victim,
                    at: *at,
                },
            );
        }
        (Job::WarLoss { victim, at, .. }, loss) => {
            let what = match loss {
                Action::PayMetal => {
                    pay(st, victim, Resource::Metal, 1);
                    "pays 1 metal"
                }
                Action::LoseMan => {
                    st.remove_man(at, victim);
                    "loses a man"
                }
                Action::LoseBase => {
                    st.set_base(at, victim, false);
                    "loses a base"
                }
                Action::LoseRoad { a, b } => {
                    let (a, b) = edge(*a, *b);
                    st.roads
                        .retain(|r| !(r.owner == victim && r.a == a && r.b == b));
                    "loses a road"
                }
                _ => return Err(illegal(st, a)),
            };
            st.event(format!("{} {what} at {at}", name(victim)));
        }
        (Job::NameBasic, Action::NameAction { card }) => {
            st.event(format!("{} names {}", name(p), card.label()));
            for j in pair_stack(*card, p) {
                push_job(st, j);
            }
        }
        (
            Job::StarSetup {
                q,
                action: None,
                plan,
            },
            Action::NameAction { card },
        ) => {
            st.event(format!("{} names {} for everyone", name(p), card.label()));
            push_job(
                st,
                Job::StarSetup {
                    q,
                    action: Some(*card),
                    plan,
                },
            );
        }
        (
            Job::StarSetup {
                q,
                action: Some(c),
                plan,
            },
            Action::ActFirst | Action::ActLast,
        ) => {
            let first = *a == Action::ActFirst;
            let mut order: Vec<Seat> = (1..n).map(|i| (p + i) % n).collect();
            if first {
                order.insert(0, p);
            } else {
                order.push(p);
            }
            st.event(format!(
                "{} acts {}",
                name(p),
                if first { "first" } else { "last" }
            ));
            for s in order {
                let scoring = if s == p || s == q {
                    if plan {
                        Scoring::Fixed(d.points.grand_plan_pair)
                    } else {
                        Scoring::Points
                    }
                } else {
                    Scoring::Nothing
                };
                st.frames.push(frame(s, c, true, scoring, pair_stack(c, s)));
            }
        }
        // Ends an optional step (more moves, abilities, takes): the step is already popped.
        (_, Action::Stop) => {}
        _ => return Err(illegal(st, a)),
    }
    Ok(())
}
