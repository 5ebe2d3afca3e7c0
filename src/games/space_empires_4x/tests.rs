//! Contract playouts, the digest's worked examples (9.x), one test per house rule (hr_n_)
//! and leak tests.

use super::*;
use turnpost_engine::Viewer;
use turnpost_engine::harness::{
    PlayoutConfig, PlayoutStats, assert_resample_covers, check_many, check_many_steered,
};

mod battles;
mod hidden_info;
mod invariant_checks;
mod picture;
mod rules_v2;

fn cfg(deep: usize) -> PlayoutConfig {
    PlayoutConfig {
        max_actions: 20_000,
        optional_action_percent: 5,
        deep_every: deep,
        round_trip_every: 1,
        has_hidden_information: true,
    }
}

fn d() -> &'static Data {
    data::load().unwrap()
}

const G: SpaceEmpires4x = SpaceEmpires4x;

/// A game with every Homeworld placed; seat 0 moves first with seats in order 0, 1, ...
fn started(seats: usize) -> State {
    let mut s = G
        .setup(&Options::default(), seats, GameRng::seed_from_u64(7))
        .unwrap();
    let homes = if seats == 2 {
        vec![(6, 0), (6, 7)]
    } else {
        vec![(6, 0), (20, 0), (6, 7), (20, 7)]
    };
    for (seat, (x, y)) in homes.into_iter().enumerate().take(seats) {
        s = G
            .apply(&s, seat, &Action::ChooseHomeworld { x, y })
            .unwrap();
    }
    s.order = (0..seats).collect();
    s.current = 0;
    s.turn = 1;
    rules::start_player_turn(&mut s);
    s
}

fn at(s: &State, x: i32, y: i32) -> usize {
    s.idx(x, y).unwrap()
}

fn add(s: &mut State, owner: Seat, kind: UnitKind, count: u8, x: i32, y: i32) -> u32 {
    let p = at(s, x, y);
    rules::new_group(s, owner, kind, count, p)
}

fn set_cell(s: &mut State, x: i32, y: i32, m: Marker, explored: bool) {
    let p = at(s, x, y);
    s.cells[p].marker = m;
    s.cells[p].explored = explored;
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

// ------------------------------------------------------------------ contract

/// State fields everyone may see, so `resample_hidden` keeps them (digest section 7).
/// Every other field must be varied by the resampling of some viewer.
const PUBLIC: &[&str] = &[
    // The map's shape.
    "seats",
    "width",
    "height",
    "on_map",
    // Colonies and Homeworlds with their current CP value and delivered loads.
    "colonies",
    // Where play stands and who owes what.
    "round",
    "turn",
    "order",
    "current",
    "phase",
    "pending",
    "battle.pos",
    "battle.attacker",
    "battle.defender",
    "battle.round",
    "bombarded",
    // The current player's unexplored hexes: where its (visible) counters stand.
    "explore_queue",
    // The stack moving now; its moves are in the public log.
    "active",
    // Revealed bids and the counters each seat placed.
    "last_reveal",
    "bids",
    // Counter ids are printed on the map.
    "next_id",
    "round_cap",
    "instant_upgrades",
    "rules_version",
];

/// An empty list or absent object is a leaf of its own (`groups` = [] at setup,
/// `battle` = null): nothing in it to resample. It counts as varied when the fields it
/// holds once filled (`groups[].kind`, `battle.plans[]...`) were varied.
fn drop_empty_leaves(stats: &mut PlayoutStats) {
    let varied = stats.varied_paths.clone();
    stats.state_paths.retain(|p| {
        varied.contains(p)
            || !varied
                .iter()
                .any(|v| v.starts_with(&format!("{p}[")) || v.starts_with(&format!("{p}.")))
    });
}

#[test]
fn contract_two_players_deep() {
    let o = Options {
        round_cap: Some(3),
        instant_upgrades: false,
    };
    let mut st = check_many(&G, &o, 2, 40, 1, &cfg(1));
    assert!(
        st.private_log_entries > 0,
        "econ orders and combat plans are private"
    );
    assert!(st.resamples_that_changed_state > 0);
    assert!(st.illegal_tried > 0);
    assert!(st.invariant_checks > 40 * 100);
    // Steered play reaches battles, so combat plans are resampled too.
    let steered = check_many_steered(&G, &o, 2, 10, 500, &cfg(1), &battles::toward_enemies);
    assert!(
        steered
            .state_paths
            .iter()
            .any(|p| p.starts_with("battle.plans"))
    );
    st.merge(steered);
    drop_empty_leaves(&mut st);
    for hidden in [
        "home_stock[][]",
        "players[].cp",
        "players[].tech[]",
        "groups[].kind",
        "groups[].count",
        "groups[].attack",
        "drafts[].bid",
        "drafts[].lines[].tech",
        "last_orders[][].tech",
        "events[].text",
        "cells[].marker",
        "battle.plans[].targets[]",
    ] {
        assert!(
            st.varied_paths.contains(hidden),
            "{hidden}: {:?}",
            st.varied_paths
        );
    }
    assert_resample_covers(&st, PUBLIC);
}

#[test]
fn contract_two_players_many() {
    let o = Options {
        round_cap: Some(3),
        instant_upgrades: false,
    };
    let st = check_many(&G, &o, 2, 160, 1000, &cfg(7));
    assert!(st.private_log_entries > 0);
    assert!(st.actions > 160 * 50);
}

#[test]
fn contract_three_and_four_players() {
    let o = Options {
        round_cap: Some(2),
        instant_upgrades: true,
    };
    let st3 = check_many(&G, &o, 3, 20, 5000, &cfg(5));
    let st4 = check_many(&G, &o, 4, 20, 6000, &cfg(5));
    assert!(st3.private_log_entries > 0 && st4.private_log_entries > 0);
    let steered = check_many_steered(&G, &o, 3, 5, 7000, &cfg(5), &battles::toward_enemies);
    assert!(steered.invariant_checks > 0);
}

#[test]
fn playouts_without_cap_reach_late_rounds_and_stay_legal() {
    // No round cap: the game must still accept every listed action deep into play.
    let o = Options {
        round_cap: None,
        instant_upgrades: false,
    };
    let p = turnpost_engine::harness::random_playout(&G, &o, 2, 3, 6000).unwrap();
    assert!(p.finished || p.state.round >= 4, "round {}", p.state.round);
}

#[test]
fn late_game_fixture_gives_a_legal_action() {
    let (game, state, seat, action) = late_game_fixture();
    assert!(state.round >= 3);
    assert!(game.legal_actions(&state, seat).contains(&action));
    assert!(game.apply(&state, seat, &action).is_ok());
}

#[test]
fn data_file_is_valid_and_broken_files_are_refused() {
    assert!(G.check_data().is_ok());
    let raw = include_str!("data.toml");
    assert!(data::parse(raw).is_ok());
    let broken = raw.replace("costs = [10, 15, 20, 20, 20]", "costs = [10, 15]");
    assert!(
        data::parse(&broken).unwrap_err().contains("ship_size") || data::parse(&broken).is_err()
    );
    let broken = raw.replace(
        "table = [\"ship_size\", \"ship_size\",",
        "table = [\"ship_size\",",
    );
    assert!(data::parse(&broken).unwrap_err().contains("wreck"));
    assert!(data::parse("nonsense = 1").is_err());
}

#[test]
fn hostile_actions_are_refused_without_panicking() {
    let s = started(2);
    let bad = vec![
        Action::Move {
            groups: vec![u32::MAX, 0],
            x: i32::MIN,
            y: i32::MAX,
        },
        Action::Move {
            groups: vec![],
            x: 1,
            y: 1,
        },
        Action::Split {
            group: 1,
            count: 255,
        },
        Action::Merge { group: 1, into: 1 },
        Action::Peek {
            group: 9999,
            x: -1,
            y: -1,
        },
        Action::Fight {
            x: 0,
            y: 0,
            defender: usize::MAX,
        },
        Action::Bid { cp: -5 },
        Action::Bid { cp: i64::MAX },
        Action::Build {
            unit: UnitKind::Dreadnought,
            x: 99,
            y: 99,
        },
        Action::SetTurnOrder { order: vec![0, 0] },
        Action::LostInSpace { x: 0, y: 0 },
        Action::Colonise { group: 0 },
        Action::RevealPeek,
    ];
    for seat in [0usize, 1, 7, usize::MAX] {
        for a in &bad {
            assert!(G.apply(&s, seat, a).is_err(), "{a:?} by {seat}");
        }
    }
    assert_eq!(
        G.apply(&s, 1, &Action::EndMovement).unwrap_err().code,
        "not_your_turn"
    );
}

// ------------------------------------------------------------------ worked examples

#[test]
fn ex_9_1_to_hit_basics() {
    let th = combat::to_hit(
        d(),
        UnitKind::Destroyer,
        1,
        0,
        UnitKind::Cruiser,
        1,
        Marker::Empty,
    );
    assert_eq!(th, 3);
    assert!((1..=3).all(|r| combat::hits(r, th)));
    assert!((4..=10).all(|r| !combat::hits(r, th)));
}

#[test]
fn ex_9_2_four_means_four_or_less() {
    let th = combat::to_hit(
        d(),
        UnitKind::Destroyer,
        0,
        0,
        UnitKind::Scout,
        0,
        Marker::Empty,
    );
    assert_eq!(th, 4);
    assert!(combat::hits(4, th) && !combat::hits(5, th));
}

#[test]
fn ex_9_3_hull_caps_tech_and_a_one_always_hits() {
    assert_eq!(
        combat::to_hit(
            d(),
            UnitKind::Scout,
            3,
            0,
            UnitKind::Scout,
            0,
            Marker::Empty
        ),
        4
    );
    let th = combat::to_hit(
        d(),
        UnitKind::Scout,
        3,
        0,
        UnitKind::Dreadnought,
        3,
        Marker::Empty,
    );
    assert_eq!(th, -2);
    assert!(combat::hits(1, th));
    assert!(!combat::hits(2, th));
}

fn battle_state(
    a: &[(UnitKind, u8, u8)],
    dfd: &[(UnitKind, u8, u8)],
    marker: Marker,
) -> (State, Vec<u32>, Vec<u32>) {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 6, 3, marker, true);
    let mut ia = Vec::new();
    let mut id = Vec::new();
    for (k, n, tac) in a {
        let g = add(&mut s, 0, *k, *n, 6, 3);
        s.group_mut(g).unwrap().tactics = *tac;
        ia.push(g);
    }
    for (k, n, tac) in dfd {
        let g = add(&mut s, 1, *k, *n, 6, 3);
        s.group_mut(g).unwrap().tactics = *tac;
        id.push(g);
    }
    s.phase = Phase::Combat;
    (s, ia, id)
}

#[test]
fn ex_9_4_fleet_size_bonus_and_screening() {
    assert_eq!(combat::fleet_bonus(4, 2), 1);
    assert_eq!(combat::fleet_bonus(3, 2), 0);
    assert_eq!(
        combat::to_hit(
            d(),
            UnitKind::Scout,
            0,
            1,
            UnitKind::Destroyer,
            0,
            Marker::Empty
        ),
        4
    );
    let (mut s, a, _) = battle_state(
        &[(UnitKind::Scout, 3, 0)],
        &[(UnitKind::Destroyer, 1, 0), (UnitKind::Destroyer, 1, 0)],
        Marker::Empty,
    );
    let p = at(&s, 6, 3);
    combat::start_battle(&mut s, d(), 0, 1, p);
    let acts = combat::plan_actions(&s, d(), 0);
    assert!(
        acts.contains(&Action::Screen { group: a[0] }),
        "3 against 2 may screen 1"
    );
    combat::apply_plan(&mut s, d(), 0, &Action::Screen { group: a[0] }).unwrap();
    assert!(
        !combat::plan_actions(&s, d(), 0)
            .iter()
            .any(|x| matches!(x, Action::Screen { .. })),
        "only 1"
    );
    assert!(
        !combat::plan_actions(&s, d(), 1)
            .iter()
            .any(|x| matches!(x, Action::Screen { .. }))
    );
}

#[test]
fn ex_9_5_asteroids_and_nebula() {
    assert_eq!(
        combat::to_hit(
            d(),
            UnitKind::Cruiser,
            2,
            0,
            UnitKind::Scout,
            0,
            Marker::Asteroids
        ),
        4
    );
    for k in [UnitKind::Battleship, UnitKind::Cruiser, UnitKind::Scout] {
        assert_eq!(combat::class_rank(d(), k, Marker::Asteroids), 4);
    }
    assert_eq!(
        combat::to_hit(
            d(),
            UnitKind::Destroyer,
            0,
            0,
            UnitKind::Battleship,
            2,
            Marker::Nebula
        ),
        2
    );
    assert_eq!(
        combat::to_hit(
            d(),
            UnitKind::Destroyer,
            0,
            0,
            UnitKind::Battleship,
            2,
            Marker::Empty
        ),
        0
    );
    // In asteroids tactics then the defender decide: a defender scout fires before an attacker battleship.
    let (s, a, df) = battle_state(
        &[(UnitKind::Battleship, 1, 0)],
        &[(UnitKind::Scout, 1, 0)],
        Marker::Asteroids,
    );
    let b = Battle {
        pos: at(&s, 6, 3),
        attacker: 0,
        defender: 1,
        round: 1,
        plans: Default::default(),
    };
    let order: Vec<u32> = combat::firing_order(&s, d(), &b)
        .into_iter()
        .map(|e| e.3)
        .collect();
    assert_eq!(order, vec![df[0], a[0]]);
}

#[test]
fn ex_9_6_firing_order() {
    let (mut s, a, df) = battle_state(
        &[(UnitKind::Destroyer, 2, 1), (UnitKind::Destroyer, 1, 0)],
        &[(UnitKind::Battleship, 1, 0)],
        Marker::Empty,
    );
    let b = Battle {
        pos: at(&s, 6, 3),
        attacker: 0,
        defender: 1,
        round: 1,
        plans: Default::default(),
    };
    let order: Vec<u32> = combat::firing_order(&s, d(), &b)
        .into_iter()
        .map(|e| e.3)
        .collect();
    assert_eq!(order, vec![df[0], a[0], a[1]]);
    let extra = add(&mut s, 1, UnitKind::Destroyer, 1, 6, 3);
    s.group_mut(extra).unwrap().tactics = 1;
    let order: Vec<u32> = combat::firing_order(&s, d(), &b)
        .into_iter()
        .map(|e| e.3)
        .collect();
    assert_eq!(order, vec![df[0], extra, a[0], a[1]]);
}

#[test]
fn ex_9_7_group_damage_and_repair() {
    let (mut s, a, _) = battle_state(
        &[(UnitKind::Cruiser, 2, 0)],
        &[(UnitKind::Scout, 1, 0)],
        Marker::Empty,
    );
    let g = s.group_mut(a[0]).unwrap();
    assert!(!combat::damage_group(g, 2));
    assert!(!combat::damage_group(g, 2));
    assert_eq!((g.count, g.damage), (1, 0), "ship 1 destroyed after 2 hits");
    assert!(!combat::damage_group(g, 2));
    assert_eq!((g.count, g.damage), (1, 1));
    // The battle ends (the scout is gone): damage is repaired.
    let scout = s.groups.iter().find(|g| g.owner == 1).unwrap().id;
    let p = at(&s, 6, 3);
    s.battle = Some(Battle {
        pos: p,
        attacker: 0,
        defender: 1,
        round: 1,
        plans: Default::default(),
    });
    rules::destroy_group(&mut s, scout);
    assert!(combat::check_end(&mut s, d()));
    assert_eq!(s.group(a[0]).unwrap().damage, 0);
}

#[test]
fn ex_9_8_colony_damage_steps() {
    let mut s = started(2);
    let p = at(&s, 8, 2);
    s.colonies.push(Colony {
        owner: 1,
        pos: p,
        homeworld: false,
        value: 5,
        deposits: vec![],
    });
    let ci = s.colonies.len() - 1;
    rules::hit_colony(&mut s, d(), ci);
    assert_eq!(s.colony_at(p).unwrap().value, 3);
    rules::hit_colony(&mut s, d(), ci);
    assert_eq!(s.colony_at(p).unwrap().value, 1);
    rules::hit_colony(&mut s, d(), ci);
    assert!(
        s.colony_at(p).is_none(),
        "destroyed; the planet can be colonised again"
    );
    s.colonies.push(Colony {
        owner: 1,
        pos: p,
        homeworld: false,
        value: 0,
        deposits: vec![],
    });
    let ci = s.colonies.len() - 1;
    rules::hit_colony(&mut s, d(), ci);
    assert!(
        s.colony_at(p).is_none(),
        "a grounded colony ship dies to 1 hit"
    );
    let hw = s.players[1].homeworld.unwrap();
    for v in [15, 10, 5] {
        let ci = s.colonies.iter().position(|c| c.pos == hw).unwrap();
        rules::hit_colony(&mut s, d(), ci);
        assert_eq!(s.colony_at(hw).unwrap().value, v);
    }
    let ci = s.colonies.iter().position(|c| c.pos == hw).unwrap();
    rules::hit_colony(&mut s, d(), ci);
    assert!(!s.players[1].alive);
    assert!(G.status(&s).is_finished());
    assert_eq!(G.status(&s), Status::Finished(G.outcome(&s)));
    if let Status::Finished(o) = G.status(&s) {
        assert_eq!(o.winners(), vec![0]);
    }
}

#[test]
fn ex_9_8_bombard_through_play() {
    let mut s = started(2);
    s.groups
        .retain(|g| g.owner == 0 && g.kind == UnitKind::Scout);
    let p = at(&s, 8, 3);
    set_cell(&mut s, 8, 3, Marker::Planet, true);
    s.colonies.push(Colony {
        owner: 1,
        pos: p,
        homeworld: false,
        value: 5,
        deposits: vec![],
    });
    for g in s.groups.iter_mut() {
        g.pos = p;
    }
    s.phase = Phase::Combat;
    assert!(
        G.legal_actions(&s, 0)
            .contains(&Action::Bombard { x: 8, y: 3 })
    );
    let n = G.apply(&s, 0, &Action::Bombard { x: 8, y: 3 }).unwrap();
    let rolls = n
        .events
        .iter()
        .filter(|e| e.text.starts_with("Bombardment of (8,3)"))
        .count();
    assert_eq!(rolls, 3, "each of the 3 scouts fires once");
    let hits = n
        .events
        .iter()
        .filter(|e| e.text.starts_with("Bombardment of (8,3)") && e.text.ends_with("hit."))
        .count();
    let expect = [5u8, 3, 1, 0];
    assert_eq!(n.colony_at(p).map_or(0, |c| c.value), expect[hits.min(3)]);
}

#[test]
fn ex_9_9_econ_arithmetic() {
    let mut s = started(2);
    s.groups.retain(|g| !(g.owner == 0 && is_ship(g.kind)));
    for _ in 0..3 {
        add(&mut s, 0, UnitKind::Scout, 1, 6, 0);
    }
    add(&mut s, 0, UnitKind::Cruiser, 2, 6, 0);
    for (x, v) in [(8, 3u8), (9, 1), (10, 0)] {
        let p = at(&s, x, 1);
        let dep = if v == 3 {
            vec![Marker::Minerals10]
        } else {
            vec![]
        };
        s.colonies.push(Colony {
            owner: 0,
            pos: p,
            homeworld: false,
            value: v,
            deposits: dep,
        });
    }
    s.players[0].cp = 5;
    econ::start_econ(&mut s, d());
    let dr = &s.drafts[0];
    assert_eq!(dr.income, 34);
    assert_eq!(dr.maintenance, 7);
    assert_eq!(dr.available, 32);
    let mut s2 = s.clone();
    for a in [
        Action::Bid { cp: 2 },
        Action::Research { tech: Tech::Attack },
        Action::Build {
            unit: UnitKind::Scout,
            x: 6,
            y: 0,
        },
        Action::SubmitOrders,
    ] {
        s = G.apply(&s, 0, &a).unwrap();
    }
    s = G.apply(&s, 1, &Action::SubmitOrders).unwrap();
    assert_eq!(s.players[0].cp, 4);
    let new = s
        .last_reveal
        .iter()
        .find(|r| r.seat == 0)
        .unwrap()
        .new_counters[0];
    assert_eq!(
        s.group(new).unwrap().attack,
        1,
        "the tech bought this phase applies to the new scout"
    );
    // 45 unspent: only 30 carry over.
    s2.drafts[0].available = 45;
    s2 = G.apply(&s2, 0, &Action::SubmitOrders).unwrap();
    s2 = G.apply(&s2, 1, &Action::SubmitOrders).unwrap();
    assert_eq!(s2.players[0].cp, 30);
}

fn is_ship(k: UnitKind) -> bool {
    matches!(
        k,
        UnitKind::Scout
            | UnitKind::Destroyer
            | UnitKind::Cruiser
            | UnitKind::Battlecruiser
            | UnitKind::Battleship
            | UnitKind::Dreadnought
    )
}

fn run_econ(s: &mut State) {
    econ::start_econ(s, d());
    for dr in s.drafts.iter_mut() {
        dr.submitted = true;
    }
    econ::resolve(s, d());
}

#[test]
fn ex_9_10_colony_growth_timeline() {
    let mut s = started(2);
    let p = at(&s, 9, 1);
    s.colonies.push(Colony {
        owner: 0,
        pos: p,
        homeworld: false,
        value: 0,
        deposits: vec![],
    });
    let mut produced = Vec::new();
    let mut values = Vec::new();
    for _ in 0..4 {
        econ::start_econ(&mut s, d());
        produced.push(s.drafts[0].income - 20);
        for dr in s.drafts.iter_mut() {
            dr.submitted = true;
        }
        econ::resolve(&mut s, d());
        values.push(s.colony_at(p).unwrap().value);
    }
    assert_eq!(produced, vec![0, 1, 3, 5]);
    assert_eq!(values, vec![1, 3, 5, 5]);
}

#[test]
fn ex_9_11_movement_tech_and_terrain_stop() {
    assert_eq!(
        [d().speed(3, 1), d().speed(3, 2), d().speed(3, 3)],
        [1, 2, 2]
    );
    let mut s = started(2);
    s.groups.clear();
    let co = add(&mut s, 0, UnitKind::ColonyShip, 1, 6, 2);
    s.players[0].tech[Tech::Movement as usize] = 4;
    let g = add(&mut s, 0, UnitKind::Scout, 1, 6, 2);
    for t in 1..=3 {
        s.turn = t;
        assert_eq!(rules::allowance(&s, d(), s.group(co).unwrap()), 1);
        assert_eq!(rules::allowance(&s, d(), s.group(g).unwrap()), 2);
    }
    s.turn = 1;
    set_cell(&mut s, 6, 2, Marker::Empty, true);
    set_cell(&mut s, 7, 2, Marker::Nebula, true);
    set_cell(&mut s, 5, 2, Marker::Empty, true);
    set_cell(&mut s, 4, 2, Marker::Nebula, true);
    let n = G
        .apply(
            &s,
            0,
            &Action::Move {
                groups: vec![g],
                x: 7,
                y: 2,
            },
        )
        .unwrap();
    assert!(n.group(g).unwrap().done, "entering a nebula ends movement");
    let n = G
        .apply(
            &s,
            0,
            &Action::Move {
                groups: vec![g],
                x: 5,
                y: 2,
            },
        )
        .unwrap();
    assert!(!n.group(g).unwrap().done);
    assert!(
        G.apply(
            &n,
            0,
            &Action::Move {
                groups: vec![g],
                x: 4,
                y: 2
            }
        )
        .is_err(),
        "nebula only as first hex"
    );
}

#[test]
fn ex_9_12_shipyard_capacity() {
    assert_eq!(d().capacity(2, 1), 2);
    assert_eq!(d().capacity(3, 2), 4);
    let mut s = started(2);
    s.groups
        .iter_mut()
        .find(|g| g.owner == 0 && g.kind == UnitKind::Shipyard)
        .unwrap()
        .count = 2;
    s.players[0].tech[Tech::ShipSize as usize] = 3;
    s.players[0].cp = 30;
    econ::start_econ(&mut s, d());
    let hw = at(&s, 6, 0);
    let mut a = s.clone();
    econ::apply_econ(
        &mut a,
        d(),
        0,
        &Action::Build {
            unit: UnitKind::Cruiser,
            x: 6,
            y: 0,
        },
    )
    .unwrap();
    assert!(
        econ::build_problem(&a, d(), 0, UnitKind::Scout, hw).is_some(),
        "1 cruiser fills 2 hull"
    );
    let mut b = s.clone();
    econ::apply_econ(
        &mut b,
        d(),
        0,
        &Action::Build {
            unit: UnitKind::Scout,
            x: 6,
            y: 0,
        },
    )
    .unwrap();
    econ::apply_econ(
        &mut b,
        d(),
        0,
        &Action::Build {
            unit: UnitKind::Scout,
            x: 6,
            y: 0,
        },
    )
    .unwrap();
    assert!(econ::build_problem(&b, d(), 0, UnitKind::Scout, hw).is_some());
    let mut c = s.clone();
    econ::apply_econ(
        &mut c,
        d(),
        0,
        &Action::Build {
            unit: UnitKind::Scout,
            x: 6,
            y: 0,
        },
    )
    .unwrap();
    assert!(econ::build_problem(&c, d(), 0, UnitKind::ColonyShip, hw).is_none());
}

#[test]
fn ex_9_13_black_hole_rolls_per_ship() {
    let mut s = started(2);
    s.groups.clear();
    let g = add(&mut s, 0, UnitKind::Scout, 3, 6, 2);
    set_cell(&mut s, 6, 2, Marker::BlackHole, false);
    s.phase = Phase::Combat;
    let n = G.apply(&s, 0, &Action::EndCombat).unwrap();
    let ev = n
        .events
        .iter()
        .find(|e| e.text.starts_with("Black hole at (6,2)"))
        .expect("rolled");
    assert!(ev.seen_by.is_none(), "everyone sees how many ships rolled");
    let rolls: Vec<u8> = ev
        .text
        .split("rolls ")
        .nth(1)
        .unwrap()
        .split(" (")
        .next()
        .unwrap()
        .split(", ")
        .map(|r| r.parse().unwrap())
        .collect();
    assert_eq!(rolls.len(), 3);
    let lost = rolls.iter().filter(|r| **r >= 7).count() as u8;
    assert_eq!(n.group(g).map_or(0, |g| g.count), 3 - lost);
}

#[test]
fn ex_9_14_space_wreck_table() {
    let mut s = started(2);
    let line = econ::apply_wreck(&mut s, d(), 0, 7);
    assert_eq!(s.players[0].level(Tech::Tactics), 1, "{line}");
    s.players[0].tech[Tech::Tactics as usize] = 3;
    econ::apply_wreck(&mut s, d(), 0, 7);
    assert_eq!(s.players[0].level(Tech::Tactics), 3);
    let expect = [
        Tech::ShipSize,
        Tech::ShipSize,
        Tech::Attack,
        Tech::Attack,
        Tech::Defense,
        Tech::Defense,
        Tech::Tactics,
        Tech::Movement,
        Tech::Movement,
        Tech::Shipyard,
    ];
    assert_eq!(d().wreck.table, expect);
    // Delivered wrecks are rolled in the next ECON.
    let hw = s.players[0].homeworld.unwrap();
    s.colonies
        .iter_mut()
        .find(|c| c.pos == hw)
        .unwrap()
        .deposits
        .push(Marker::SpaceWreck);
    let before: u32 = s.players[0].tech.iter().map(|t| *t as u32).sum();
    run_econ(&mut s);
    let after: u32 = s.players[0].tech.iter().map(|t| *t as u32).sum();
    assert!(after <= before + 1);
    assert!(s.colony_at(hw).unwrap().deposits.is_empty());
}

#[test]
fn ex_9_15_retreat_legality() {
    let mut s = started(2);
    s.groups.clear();
    let hw = s.players[0].homeworld.unwrap();
    // A hex 3 from the Homeworld with neighbours at 2, 3 and 4.
    let h = (0..s.cells.len())
        .find(|i| {
            s.on_map[*i]
                && s.distance(*i, hw) == 3
                && s.neighbours(*i).iter().any(|n| s.distance(*n, hw) == 4)
        })
        .unwrap();
    for n in s.neighbours(h) {
        s.cells[n].explored = true;
        s.cells[n].marker = Marker::Empty;
    }
    let (x, y) = s.xy(h);
    let bc = add(&mut s, 0, UnitKind::Battlecruiser, 1, x, y);
    let sy = add(&mut s, 0, UnitKind::Shipyard, 1, x, y);
    let r = combat::retreat_hexes(&s, d(), s.group(bc).unwrap());
    let expect: Vec<usize> = s
        .neighbours(h)
        .into_iter()
        .filter(|n| s.distance(*n, hw) <= 3)
        .collect();
    assert_eq!(r, expect);
    assert!(r.iter().all(|n| s.distance(*n, hw) != 4));
    assert!(combat::retreat_hexes(&s, d(), s.group(sy).unwrap()).is_empty());
    // Only from round 2, and never into a hex with enemies.
    add(&mut s, 1, UnitKind::Scout, 1, x, y);
    add(&mut s, 1, UnitKind::Scout, 1, x, y);
    let blocked = expect[0];
    let (bx, by) = s.xy(blocked);
    add(&mut s, 1, UnitKind::ColonyShip, 1, bx, by);
    s.battle = Some(Battle {
        pos: h,
        attacker: 0,
        defender: 1,
        round: 1,
        plans: Default::default(),
    });
    assert!(
        !combat::plan_actions(&s, d(), 0)
            .iter()
            .any(|a| matches!(a, Action::Retreat { .. }))
    );
    s.battle.as_mut().unwrap().round = 2;
    let acts = combat::plan_actions(&s, d(), 0);
    assert!(
        acts.iter()
            .any(|a| matches!(a, Action::Retreat { group, .. } if *group == bc))
    );
    assert!(!acts.contains(&Action::Retreat {
        group: bc,
        count: 1,
        x: bx,
        y: by
    }));
    assert!(
        !acts
            .iter()
            .any(|a| matches!(a, Action::Retreat { group, .. } if *group == sy))
    );
}

#[test]
fn turn_order_bidding() {
    let mut s = started(3);
    s.order = vec![2, 0, 1];
    s.bids = vec![3, 5, 0];
    assert_eq!(econ::order_chooser(&s), 1);
    s.bids = vec![5, 5, 0];
    assert_eq!(
        econ::order_chooser(&s),
        2,
        "a tie: the current first player chooses"
    );
    s.bids = vec![0, 0, 0];
    assert_eq!(econ::order_chooser(&s), 2);
    s.phase = Phase::ChooseOrder { chooser: 2 };
    assert_eq!(G.legal_actions(&s, 2).len(), 6);
    assert!(G.legal_actions(&s, 0).is_empty());
    let n = G
        .apply(
            &s,
            2,
            &Action::SetTurnOrder {
                order: vec![1, 2, 0],
            },
        )
        .unwrap();
    assert_eq!(n.order, vec![1, 2, 0]);
    assert_eq!(n.round, s.round + 1);
}

#[test]
fn exploration_danger_supernova_and_lost_in_space() {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 6, 2, Marker::Danger, false);
    let g = add(&mut s, 0, UnitKind::Scout, 2, 6, 2);
    s.phase = Phase::Combat;
    let n = G.apply(&s, 0, &Action::EndCombat).unwrap();
    assert!(n.group(g).is_none());
    assert_eq!(n.cells[at(&n, 6, 2)].marker, Marker::Empty);
    // Supernova: back where they came from.
    set_cell(&mut s, 6, 2, Marker::Supernova, false);
    s.group_mut(g).unwrap().prev = at(&s, 6, 1);
    let n = G.apply(&s, 0, &Action::EndCombat).unwrap();
    assert_eq!(n.group(g).unwrap().pos, at(&n, 6, 1));
    assert!(n.cells[at(&n, 6, 2)].explored);
    // Lost in space: the player to the right chooses (their action).
    set_cell(&mut s, 6, 2, Marker::LostInSpace, false);
    let n = G.apply(&s, 0, &Action::EndCombat).unwrap();
    assert_eq!(G.status(&n).to_act(), &[1]);
    let choices = G.legal_actions(&n, 1);
    assert_eq!(choices.len(), n.neighbours(at(&n, 6, 2)).len());
    assert!(G.legal_actions(&n, 0).is_empty());
    let Action::LostInSpace { x, y } = choices[0].clone() else {
        panic!()
    };
    let m = G.apply(&n, 1, &choices[0]).unwrap();
    // Moved there (and explored at once if need be: a danger there would destroy them).
    let target = at(&m, x, y);
    assert!(m.group(g).is_none_or(|g| g.pos != at(&m, 6, 2)));
    assert!(m.cells[target].explored || m.group(g).is_some_and(|g| g.pos == target));
    assert_eq!(m.cells[at(&m, 6, 2)].marker, Marker::Empty);
}

#[test]
fn mining_and_colonising() {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 6, 1, Marker::Minerals5, true);
    let mi = add(&mut s, 0, UnitKind::Miner, 1, 6, 1);
    let n = G.apply(&s, 0, &Action::PickUp { group: mi }).unwrap();
    assert_eq!(n.group(mi).unwrap().cargo, Some(Marker::Minerals5));
    let n = G
        .apply(
            &n,
            0,
            &Action::Move {
                groups: vec![mi],
                x: 6,
                y: 0,
            },
        )
        .unwrap();
    let n = G.apply(&n, 0, &Action::Deposit { group: mi }).unwrap();
    let hw = n.players[0].homeworld.unwrap();
    assert_eq!(n.colony_at(hw).unwrap().deposits, vec![Marker::Minerals5]);
    // A colony ship lands on an explored planet in EXPLORE.
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 8, 2, Marker::BarrenPlanet, true);
    set_cell(&mut s, 9, 2, Marker::Planet, true);
    let c1 = add(&mut s, 0, UnitKind::ColonyShip, 1, 8, 2);
    let c2 = add(&mut s, 0, UnitKind::ColonyShip, 1, 9, 2);
    add(&mut s, 0, UnitKind::Scout, 1, 9, 2);
    s.phase = Phase::Combat;
    let n = G.apply(&s, 0, &Action::EndCombat).unwrap();
    let acts = G.legal_actions(&n, 0);
    assert!(acts.contains(&Action::Colonise { group: c2 }));
    assert!(
        !acts.contains(&Action::Colonise { group: c1 }),
        "barren needs terraforming"
    );
    let n = G.apply(&n, 0, &Action::Colonise { group: c2 }).unwrap();
    assert_eq!(n.colony_at(at(&n, 9, 2)).unwrap().value, 0);
}

// ------------------------------------------------------------------ house rules

#[test]
fn hr_1_two_to_four_players() {
    for n in [0, 1, 5] {
        assert!(
            G.setup(&Options::default(), n, GameRng::seed_from_u64(1))
                .is_err()
        );
    }
    for n in 2..=4 {
        assert!(
            G.setup(&Options::default(), n, GameRng::seed_from_u64(1))
                .is_ok()
        );
    }
}

#[test]
fn hr_2_published_chart_values() {
    let dd = d().unit(UnitKind::Destroyer);
    assert_eq!(
        (
            dd.attack,
            dd.defense,
            dd.hull,
            dd.cost,
            dd.ship_size,
            dd.counter_limit
        ),
        (4, 0, 1, 9, 2, 4)
    );
    let dn = d().unit(UnitKind::Dreadnought);
    assert_eq!((dn.attack, dn.defense, dn.hull, dn.cost), (6, 3, 3, 24));
    assert_eq!(d().tech(Tech::Movement).costs, vec![20, 25, 25, 25, 20, 20]);
    assert_eq!(d().unit(UnitKind::Base).class, "A");
}

#[test]
fn hr_3_colony_ships_and_miners_use_one_hull() {
    let mut s = started(2);
    s.groups
        .iter_mut()
        .find(|g| g.owner == 0 && g.kind == UnitKind::Shipyard)
        .unwrap()
        .count = 1;
    econ::start_econ(&mut s, d());
    let hw = at(&s, 6, 0);
    econ::apply_econ(
        &mut s,
        d(),
        0,
        &Action::Build {
            unit: UnitKind::ColonyShip,
            x: 6,
            y: 0,
        },
    )
    .unwrap();
    assert!(
        econ::build_problem(&s, d(), 0, UnitKind::Miner, hw)
            .unwrap()
            .contains("hull")
    );
    assert!(
        econ::build_problem(&s, d(), 0, UnitKind::Decoy, hw).is_none(),
        "decoys need no yard"
    );
}

#[test]
fn hr_4_shipyard_tech_has_three_levels() {
    let t = d().tech(Tech::Shipyard);
    assert_eq!((t.start, t.max, t.costs.clone()), (1, 3, vec![20, 25]));
    assert_eq!(d().capacity(2, 3), 4);
}

#[test]
fn hr_5_groups_keep_their_built_movement() {
    let mut s = started(2);
    s.groups.clear();
    let sc = add(&mut s, 0, UnitKind::Scout, 1, 6, 2);
    let dc = add(&mut s, 0, UnitKind::Decoy, 1, 6, 2);
    s.players[0].tech[Tech::Movement as usize] = 4;
    s.turn = 3;
    assert_eq!(rules::allowance(&s, d(), s.group(sc).unwrap()), 1);
    assert_eq!(
        rules::allowance(&s, d(), s.group(dc).unwrap()),
        2,
        "decoys move at current tech"
    );
    s.instant_upgrades = true;
    assert_eq!(rules::allowance(&s, d(), s.group(sc).unwrap()), 2);
}

#[test]
fn hr_6_capacity_rounds_down() {
    assert_eq!(d().capacity(1, 2), 1);
    assert_eq!(d().capacity(3, 2), 4);
    assert_eq!(d().capacity(5, 2), 7);
}

#[test]
fn hr_7_map_and_filler() {
    let s2 = G
        .setup(&Options::default(), 2, GameRng::seed_from_u64(3))
        .unwrap();
    assert_eq!((s2.width, s2.height), (13, 8));
    let deep = |s: &State| {
        (0..s.cells.len())
            .filter(|i| s.on_map[*i] && s.cells[*i].home_of.is_none())
            .count()
    };
    assert_eq!(deep(&s2), 52);
    assert!(
        s2.cells
            .iter()
            .filter(|c| c.home_of == Some(0))
            .all(|c| c.y <= 1)
    );
    let s3 = G
        .setup(&Options::default(), 3, GameRng::seed_from_u64(3))
        .unwrap();
    assert_eq!(deep(&s3), 112);
    assert!(
        s3.idx(20, 7).is_none(),
        "the P4 block is off the map with 3 players"
    );
    let s4 = G
        .setup(&Options::default(), 4, GameRng::seed_from_u64(3))
        .unwrap();
    assert_eq!(deep(&s4), 112);
    let empties = (0..s4.cells.len())
        .filter(|i| {
            s4.on_map[*i] && s4.cells[*i].home_of.is_none() && s4.cells[*i].marker == Marker::Empty
        })
        .count();
    assert_eq!(empties, 10);
    // Odd-r neighbours (digest 2.8).
    let mut n = s2.neighbours(at(&s2, 4, 2));
    n.sort_unstable();
    let mut e: Vec<usize> = [(5, 2), (3, 2), (3, 1), (4, 1), (3, 3), (4, 3)]
        .iter()
        .map(|(x, y)| at(&s2, *x, *y))
        .collect();
    e.sort_unstable();
    assert_eq!(n, e);
    let mut n = s2.neighbours(at(&s2, 4, 3));
    n.sort_unstable();
    let mut e: Vec<usize> = [(5, 3), (3, 3), (4, 2), (5, 2), (4, 4), (5, 4)]
        .iter()
        .map(|(x, y)| at(&s2, *x, *y))
        .collect();
    e.sort_unstable();
    assert_eq!(n, e);
}

#[test]
fn hr_8_random_first_round_order() {
    let orders: std::collections::BTreeSet<Vec<Seat>> = (0..20)
        .map(|seed| {
            G.setup(&Options::default(), 3, GameRng::seed_from_u64(seed))
                .unwrap()
                .order
        })
        .collect();
    assert!(orders.len() > 1);
    assert!(orders.iter().all(|o| {
        let mut v = o.clone();
        v.sort();
        v == vec![0, 1, 2]
    }));
}

#[test]
fn hr_9_shipyards_are_public() {
    let s = started(2);
    let v = G.view(&s, Viewer::Seat(1));
    let sy = v
        .groups
        .iter()
        .find(|g| g.owner == 0 && g.kind == Some(UnitKind::Shipyard))
        .unwrap();
    assert_eq!(sy.count, Some(4));
    assert_eq!(
        sy.attack_tech, None,
        "the owner's current tech stays secret"
    );
}

#[test]
fn hr_10_starting_units() {
    let s = started(2);
    let mine: Vec<&Group> = s.groups.iter().filter(|g| g.owner == 0).collect();
    let count = |k: UnitKind| {
        mine.iter()
            .filter(|g| g.kind == k)
            .map(|g| g.count as usize)
            .collect::<Vec<_>>()
    };
    assert_eq!(count(UnitKind::Scout), vec![1, 1, 1]);
    assert_eq!(count(UnitKind::Shipyard), vec![4]);
    assert_eq!(count(UnitKind::ColonyShip), vec![1, 1, 1]);
    assert_eq!(count(UnitKind::Miner), vec![1]);
    assert!(mine.iter().all(|g| g.face_up != g.kind.hides()));
}

#[test]
fn hr_11_start_with_no_cp() {
    let s = started(3);
    assert!(s.players.iter().all(|p| p.cp == 0));
}

#[test]
fn hr_12_simultaneous_secret_combat_plans() {
    let (mut s, a, df) = battle_state(
        &[(UnitKind::Scout, 1, 0), (UnitKind::Destroyer, 1, 0)],
        &[(UnitKind::Scout, 1, 0), (UnitKind::Destroyer, 1, 0)],
        Marker::Empty,
    );
    let p = at(&s, 6, 3);
    combat::start_battle(&mut s, d(), 0, 1, p);
    assert_eq!(G.status(&s).to_act(), &[0, 1]);
    let t = Action::Target { group: df[1] };
    assert!(G.legal_actions(&s, 0).contains(&t));
    assert!(matches!(
        G.action_visibility(&s, 0, &t),
        Visibility::Private { .. }
    ));
    let n = G.apply(&s, 0, &t).unwrap();
    let tgt = format!("\"targets\":[{}]", df[1]);
    assert!(
        !json(&G.view(&n, Viewer::Seat(1))).contains(&tgt),
        "the plan is secret"
    );
    assert!(!json(&G.view(&n, Viewer::Spectator)).contains(&tgt));
    assert!(json(&G.view(&n, Viewer::Seat(0))).contains(&format!("\"targets\":[{}]", df[1])));
    let n = G.apply(&n, 0, &Action::SubmitPlan).unwrap();
    assert_eq!(G.status(&n).to_act(), &[1]);
    let n = G.apply(&n, 1, &Action::Target { group: a[0] }).unwrap();
    let n = G.apply(&n, 1, &Action::SubmitPlan).unwrap();
    assert!(
        n.events
            .iter()
            .any(|e| e.text.starts_with("Combat round 1 at (6,3)"))
    );
}

#[test]
fn hr_13_stacks_and_regrouping_in_own_move() {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 6, 2, Marker::Empty, true);
    set_cell(&mut s, 7, 2, Marker::Empty, true);
    let a = add(&mut s, 0, UnitKind::Scout, 2, 6, 2);
    let b = add(&mut s, 0, UnitKind::Scout, 1, 6, 2);
    add(&mut s, 1, UnitKind::Scout, 2, 6, 6);
    let mv = Action::Move {
        groups: vec![a, b],
        x: 7,
        y: 2,
    };
    assert!(G.legal_actions(&s, 0).contains(&mv));
    let n = G.apply(&s, 0, &mv).unwrap();
    assert_eq!(n.group(b).unwrap().pos, at(&n, 7, 2));
    assert!(
        G.legal_actions(&s, 0)
            .contains(&Action::Split { group: a, count: 1 })
    );
    assert!(
        G.legal_actions(&s, 0)
            .contains(&Action::Merge { group: b, into: a })
    );
    let n = G
        .apply(&s, 0, &Action::Merge { group: b, into: a })
        .unwrap();
    assert_eq!(n.group(a).unwrap().count, 3);
    assert!(
        !G.legal_actions(&n, 0)
            .iter()
            .any(|x| matches!(x, Action::Split { .. })),
        "once per turn"
    );
    let theirs = s.groups.iter().find(|g| g.owner == 1).unwrap().id;
    assert!(
        G.apply(
            &s,
            1,
            &Action::Split {
                group: theirs,
                count: 1
            }
        )
        .is_err()
    );
    assert!(
        G.apply(&s, 0, &Action::Split { group: a, count: 2 })
            .is_err(),
        "a group keeps at least 1"
    );
}

#[test]
fn hr_14_enemy_colony_alone_does_not_stop() {
    let mut s = started(2);
    s.groups.clear();
    for x in 5..=8 {
        set_cell(&mut s, x, 3, Marker::Empty, true);
    }
    let p = at(&s, 6, 3);
    s.colonies.push(Colony {
        owner: 1,
        pos: p,
        homeworld: false,
        value: 3,
        deposits: vec![],
    });
    let g = add(&mut s, 0, UnitKind::Scout, 1, 5, 3);
    s.group_mut(g).unwrap().movement = 4;
    let n = G
        .apply(
            &s,
            0,
            &Action::Move {
                groups: vec![g],
                x: 6,
                y: 3,
            },
        )
        .unwrap();
    assert!(!n.group(g).unwrap().done);
    // A face-down enemy counter does stop it.
    add(&mut s, 1, UnitKind::Scout, 1, 6, 3);
    let n = G
        .apply(
            &s,
            0,
            &Action::Move {
                groups: vec![g],
                x: 6,
                y: 3,
            },
        )
        .unwrap();
    assert!(n.group(g).unwrap().done);
}

#[test]
fn hr_15_known_black_hole_rolls_per_ship() {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 6, 2, Marker::Empty, true);
    set_cell(&mut s, 7, 2, Marker::BlackHole, true);
    let g = add(&mut s, 0, UnitKind::Scout, 4, 6, 2);
    let n = G
        .apply(
            &s,
            0,
            &Action::Move {
                groups: vec![g],
                x: 7,
                y: 2,
            },
        )
        .unwrap();
    let ev = n
        .events
        .iter()
        .find(|e| e.text.starts_with("Black hole at (7,2)"))
        .unwrap();
    let rolls = ev.text.split("rolls ").nth(1).unwrap();
    assert_eq!(rolls.matches(',').count(), 3, "4 rolls: {}", ev.text);
}

#[test]
fn hr_16_peek_seen_by_the_peeker_only() {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 6, 2, Marker::Empty, true);
    set_cell(&mut s, 7, 2, Marker::Danger, false);
    s.players[0].tech[Tech::Exploration as usize] = 1;
    let c = add(&mut s, 0, UnitKind::Cruiser, 1, 6, 2);
    let pk = Action::Peek {
        group: c,
        x: 7,
        y: 2,
    };
    assert!(G.legal_actions(&s, 0).contains(&pk));
    let n = G.apply(&s, 0, &pk).unwrap();
    let mine = G.view(&n, Viewer::Seat(0));
    let theirs = G.view(&n, Viewer::Seat(1));
    let h = |v: &render::View| {
        v.hexes
            .iter()
            .find(|h| h.x == 7 && h.y == 2)
            .unwrap()
            .peeked
    };
    assert_eq!(h(&mine), Some(Marker::Danger));
    assert_eq!(h(&theirs), None);
    assert!(!G.render_text(&n, Viewer::Seat(1)).contains("danger"));
    assert!(
        G.render_text(&n, Viewer::Seat(0))
            .contains("(7,2) = danger")
    );
    let hidden = G.apply(&n, 0, &Action::HidePeek).unwrap();
    assert!(!hidden.cells[at(&hidden, 7, 2)].explored);
    assert_eq!(hidden.cells[at(&hidden, 7, 2)].marker, Marker::Danger);
    let shown = G.apply(&n, 0, &Action::RevealPeek).unwrap();
    assert!(shown.cells[at(&shown, 7, 2)].explored);
    assert_eq!(
        shown.cells[at(&shown, 7, 2)].marker,
        Marker::Empty,
        "danger is discarded"
    );
    assert!(shown.group(c).is_some(), "the cruiser is never affected");
}

#[test]
fn hr_17_round_cap_scores_colony_value_then_cp() {
    let mut s = started(2);
    s.round_cap = Some(1);
    let p = at(&s, 9, 1);
    s.colonies.push(Colony {
        owner: 1,
        pos: p,
        homeworld: false,
        value: 1,
        deposits: vec![],
    });
    run_econ(&mut s);
    let Status::Finished(o) = G.status(&s) else {
        panic!("the cap ends the game")
    };
    assert_eq!(o.winners(), vec![1], "20+3 beats 20+0");
    let mut t = started(2);
    t.round_cap = Some(1);
    t.players[0].cp = 10;
    run_econ(&mut t);
    let Status::Finished(o) = G.status(&t) else {
        panic!()
    };
    assert_eq!(o.winners(), vec![0], "equal colonies: more CP banked wins");
    let mut u = started(2);
    u.round_cap = Some(1);
    run_econ(&mut u);
    let Status::Finished(o) = G.status(&u) else {
        panic!()
    };
    assert_eq!(o.winners(), vec![0, 1], "a shared win");
}

#[test]
fn hr_18_attacker_fights_each_defender_in_turn() {
    let mut s = started(3);
    s.groups.clear();
    set_cell(&mut s, 13, 3, Marker::Empty, true);
    add(&mut s, 0, UnitKind::Destroyer, 2, 13, 3);
    add(&mut s, 1, UnitKind::Scout, 1, 13, 3);
    add(&mut s, 2, UnitKind::Scout, 1, 13, 3);
    s.phase = Phase::Combat;
    let acts = G.legal_actions(&s, 0);
    assert_eq!(
        acts,
        vec![
            Action::Fight {
                x: 13,
                y: 3,
                defender: 1
            },
            Action::Fight {
                x: 13,
                y: 3,
                defender: 2
            }
        ]
    );
    let n = G.apply(&s, 0, &acts[1]).unwrap();
    assert!(n.battle.as_ref().is_none_or(|b| b.defender == 2));
}

#[test]
fn hr_19_elimination_removes_everything() {
    let mut s = started(3);
    let p = at(&s, 9, 1);
    s.colonies.push(Colony {
        owner: 1,
        pos: p,
        homeworld: false,
        value: 3,
        deposits: vec![],
    });
    rules::eliminate(&mut s, 1);
    assert!(!s.groups.iter().any(|g| g.owner == 1));
    assert!(!s.colonies.iter().any(|c| c.owner == 1));
    assert!(!G.status(&s).is_finished(), "two players remain");
    assert_eq!(rules::right_of(&s, 2), 0, "dead seats are skipped");
}

#[test]
fn hr_20_growth_and_homeworld_recovery() {
    let mut s = started(2);
    let hw = s.players[0].homeworld.unwrap();
    s.colonies.iter_mut().find(|c| c.pos == hw).unwrap().value = 10;
    let p = at(&s, 9, 1);
    s.colonies.push(Colony {
        owner: 0,
        pos: p,
        homeworld: false,
        value: 1,
        deposits: vec![],
    });
    run_econ(&mut s);
    assert_eq!(s.colony_at(hw).unwrap().value, 15);
    assert_eq!(s.colony_at(p).unwrap().value, 3);
}

#[test]
fn hr_21_minerals_pay_once() {
    let mut s = started(2);
    let hw = s.players[0].homeworld.unwrap();
    s.colonies
        .iter_mut()
        .find(|c| c.pos == hw)
        .unwrap()
        .deposits
        .push(Marker::Minerals10);
    econ::start_econ(&mut s, d());
    assert_eq!(s.drafts[0].income, 30);
    for dr in s.drafts.iter_mut() {
        dr.submitted = true;
    }
    econ::resolve(&mut s, d());
    econ::start_econ(&mut s, d());
    assert_eq!(s.drafts[0].income, 20);
}

#[test]
fn hr_22_forced_scuttling() {
    let mut s = started(2);
    let dn = add(&mut s, 0, UnitKind::Dreadnought, 6, 6, 0);
    econ::start_econ(&mut s, d());
    // 20 income - (3 scouts + 6x3) = -1.
    assert_eq!(s.drafts[0].available, -1);
    let acts = G.legal_actions(&s, 0);
    assert!(acts.iter().all(|a| matches!(a, Action::Scuttle { .. })) && !acts.is_empty());
    assert!(G.apply(&s, 0, &Action::SubmitOrders).is_err());
    let n = G.apply(&s, 0, &Action::Scuttle { group: dn }).unwrap();
    assert!(G.legal_actions(&n, 0).contains(&Action::SubmitOrders));
}

#[test]
fn hr_23_every_bidder_pays_and_the_winner_sets_the_order() {
    let mut s = started(2);
    econ::start_econ(&mut s, d());
    s = G.apply(&s, 0, &Action::Bid { cp: 5 }).unwrap();
    s = G.apply(&s, 1, &Action::Bid { cp: 3 }).unwrap();
    s = G.apply(&s, 0, &Action::SubmitOrders).unwrap();
    s = G.apply(&s, 1, &Action::SubmitOrders).unwrap();
    assert_eq!(s.players[0].cp, 20 - 3 - 5);
    assert_eq!(s.players[1].cp, 20 - 3 - 3);
    assert_eq!(s.phase, Phase::ChooseOrder { chooser: 0 });
    let v = G.view(&s, Viewer::Spectator);
    assert_eq!(
        v.last_reveal.iter().map(|r| r.bid).collect::<Vec<_>>(),
        vec![5, 3],
        "bids are revealed"
    );
}

#[test]
fn hr_24_cp_and_tech_are_secret() {
    let mut s = started(2);
    s.players[0].cp = 27;
    s.players[0].tech[Tech::Attack as usize] = 2;
    let other = G.view(&s, Viewer::Seat(1));
    assert_eq!(other.me.as_ref().unwrap().cp, 0);
    assert!(!json(&other).contains("27"));
    let txt = G.render_text(&s, Viewer::Seat(1));
    assert!(!txt.contains("CP banked: 27"));
    assert!(G.render_text(&s, Viewer::Seat(0)).contains("CP banked: 27"));
    assert!(
        G.render_text(&s, Viewer::Spectator)
            .find("YOUR EMPIRE")
            .is_none()
    );
}

// ------------------------------------------------------------------ leaks

#[test]
fn leak_face_down_groups_show_only_a_counter() {
    let mut s = started(2);
    let g = add(&mut s, 0, UnitKind::Dreadnought, 2, 6, 0);
    let v = G.view(&s, Viewer::Seat(1));
    let gv = v.groups.iter().find(|x| x.id == g).unwrap();
    assert_eq!((gv.kind, gv.count, gv.attack_tech), (None, None, None));
    let sv = G.view(&s, Viewer::Spectator);
    assert!(sv.groups.iter().find(|x| x.id == g).unwrap().kind.is_none());
    for viewer in [Viewer::Seat(1), Viewer::Spectator] {
        let t = G.render_text(&s, viewer);
        assert!(!t.contains("dreadnought"), "{t}");
        assert!(t.contains(&format!("#{g} Seat 1 face-down counter")));
    }
    assert!(
        G.render_text(&s, Viewer::Seat(0))
            .contains(&format!("#{g} dreadnought x2"))
    );
    // Revealed in combat, hidden again at an own colony.
    let p = at(&s, 6, 0);
    add(&mut s, 1, UnitKind::Scout, 1, 6, 0);
    s.phase = Phase::Combat;
    s.battle = None;
    combat::start_battle(&mut s, d(), 1, 0, p);
    if let Some(gr) = s.group(g) {
        assert!(gr.face_up);
        assert_eq!(
            G.view(&s, Viewer::Seat(1))
                .groups
                .iter()
                .find(|x| x.id == g)
                .unwrap()
                .kind,
            Some(UnitKind::Dreadnought)
        );
    }
    s.battle = None;
    rules::end_movement(&mut s, 0);
    assert!(s.group(g).is_none_or(|gr| !gr.face_up));
}

#[test]
fn leak_secret_orders_until_the_reveal() {
    let mut s = started(2);
    econ::start_econ(&mut s, d());
    let b = Action::Build {
        unit: UnitKind::Scout,
        x: 6,
        y: 0,
    };
    s = G.apply(&s, 0, &b).unwrap();
    s = G.apply(&s, 0, &Action::Bid { cp: 4 }).unwrap();
    match G.action_visibility(&s, 0, &Action::Research { tech: Tech::Attack }) {
        Visibility::Private {
            seen_by,
            public_form,
        } => {
            assert_eq!(seen_by, vec![0]);
            assert_eq!(public_form, serde_json::json!({"type": "econ_order"}));
        }
        Visibility::Public => panic!("orders are secret"),
    }
    let other = json(&G.view(&s, Viewer::Seat(1)));
    assert!(!other.contains("\"build\"") && !other.contains("\"bid\":4"));
    assert!(!G.render_text(&s, Viewer::Seat(1)).contains("build a scout"));
    assert!(G.render_text(&s, Viewer::Seat(0)).contains("build a scout"));
    s = G.apply(&s, 0, &Action::SubmitOrders).unwrap();
    s = G.apply(&s, 1, &Action::SubmitOrders).unwrap();
    let v = G.view(&s, Viewer::Seat(1));
    let r = v.last_reveal.iter().find(|r| r.seat == 0).unwrap();
    assert_eq!(r.bid, 4);
    assert_eq!(r.new_counters.len(), 1);
    let gv = v.groups.iter().find(|g| g.id == r.new_counters[0]).unwrap();
    assert!(
        gv.kind.is_none(),
        "the new scout is a face-down counter to others"
    );
    assert!(!G.render_text(&s, Viewer::Seat(1)).contains("build a scout"));
}

#[test]
fn leak_resample_keeps_the_viewers_world() {
    let mut s = started(2);
    let p = at(&s, 3, 3);
    let m = s.cells[p].marker;
    s.players[0].peeks.push((p, m));
    let mut rng = GameRng::seed_from_u64(5);
    let r = G.resample_hidden(&s, Viewer::Seat(0), &mut rng);
    assert_eq!(
        json(&G.view(&r, Viewer::Seat(0))),
        json(&G.view(&s, Viewer::Seat(0)))
    );
    assert_eq!(r.cells[at(&s, 3, 3)].marker, s.cells[at(&s, 3, 3)].marker);
    let moved = (0..s.cells.len())
        .filter(|i| r.cells[*i].marker != s.cells[*i].marker)
        .count();
    assert!(moved > 0, "unexplored markers were reshuffled");
}

#[test]
fn render_shows_map_rows_and_coordinates() {
    let s = started(2);
    let t = G.render_text(&s, Viewer::Seat(0));
    assert!(t.contains(" 0 [?1"));
    assert!(t.contains(" 1    ["), "odd rows are shifted");
    assert!(t.contains("[H1 a ]"));
    assert!(t.contains("Seat 2 Homeworld at (6,7): 20 CP"));
    assert!(t.contains("CP banked: 0"));
}

#[test]
fn a_battle_runs_to_its_end_through_apply() {
    let (s, a, df) = battle_state(
        &[(UnitKind::Destroyer, 3, 0)],
        &[(UnitKind::Scout, 1, 0)],
        Marker::Empty,
    );
    let mut s = s;
    let fight = Action::Fight {
        x: 6,
        y: 3,
        defender: 1,
    };
    assert_eq!(G.legal_actions(&s, 0), vec![fight.clone()]);
    s = G.apply(&s, 0, &fight).unwrap();
    let mut guard = 0;
    while s.battle.is_some() && guard < 500 {
        let seat = G.status(&s).to_act()[0];
        s = G.apply(&s, seat, &Action::SubmitPlan).unwrap();
        guard += 1;
    }
    assert!(s.battle.is_none());
    let left_a = s.group(a[0]).map_or(0, |g| g.count);
    let left_d = s.group(df[0]).map_or(0, |g| g.count);
    assert!(left_a == 0 || left_d == 0);
    assert!(
        s.groups.iter().all(|g| g.damage == 0),
        "repaired after the battle"
    );
    assert!(s.events.iter().any(|e| e.text.contains("fires at")));
}

#[test]
fn bench_late_game_apply() {
    let (game, state, seat, action) = late_game_fixture();
    let mut times = Vec::new();
    for _ in 0..21 {
        let t = std::time::Instant::now();
        let r = game.apply(&state, seat, &action);
        times.push(t.elapsed());
        assert!(r.is_ok());
    }
    times.sort();
    println!(
        "late game: round {} phase {:?}, {} groups; median apply {:?}",
        state.round,
        state.phase,
        state.groups.len(),
        times[10]
    );
}

#[test]
fn hr_13_one_escort_takes_one_passenger_into_the_unknown() {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 6, 2, Marker::Empty, true);
    set_cell(&mut s, 7, 2, Marker::Planet, false);
    let sc = add(&mut s, 0, UnitKind::Scout, 1, 6, 2);
    let sc2 = add(&mut s, 0, UnitKind::Scout, 1, 6, 2);
    let co = add(&mut s, 0, UnitKind::ColonyShip, 1, 6, 2);
    let legal = G.legal_actions(&s, 0);
    assert!(
        !legal.contains(&Action::Move {
            groups: vec![co],
            x: 7,
            y: 2
        }),
        "no unescorted passenger"
    );
    let pair = Action::Move {
        groups: vec![sc, co],
        x: 7,
        y: 2,
    };
    assert!(legal.contains(&pair));
    let n = G.apply(&s, 0, &pair).unwrap();
    assert_eq!(n.group(sc2).unwrap().pos, at(&n, 6, 2));
    assert_eq!(n.group(co).unwrap().pos, at(&n, 7, 2));
}

#[test]
fn decoys_die_alone_or_at_the_start_of_battle() {
    let mut s = started(2);
    s.groups.clear();
    for x in 5..=7 {
        set_cell(&mut s, x, 3, Marker::Empty, true);
    }
    let dc = add(&mut s, 1, UnitKind::Decoy, 1, 6, 3);
    let sc = add(&mut s, 0, UnitKind::Scout, 1, 5, 3);
    s.group_mut(sc).unwrap().movement = 4;
    let n = G
        .apply(
            &s,
            0,
            &Action::Move {
                groups: vec![sc],
                x: 6,
                y: 3,
            },
        )
        .unwrap();
    assert!(n.group(dc).is_none(), "a decoy met alone is destroyed");
    assert!(!n.group(sc).unwrap().done, "and does not stop the mover");
    assert!(!n.group(sc).unwrap().face_up, "the mover is not revealed");
    // In a battle every decoy goes first.
    let real = add(&mut s, 1, UnitKind::Scout, 1, 6, 3);
    let p = at(&s, 6, 3);
    s.group_mut(sc).unwrap().pos = p;
    combat::start_battle(&mut s, d(), 0, 1, p);
    assert!(s.group(dc).is_none());
    assert!(
        s.events
            .iter()
            .any(|e| e.text.contains(&format!("#{dc} at (6,3) was a decoy")))
    );
    assert!(
        s.group(real).is_some_and(|g| g.face_up),
        "the real ship is revealed"
    );
}

#[test]
fn blockade_stops_income_but_not_growth() {
    let mut s = started(2);
    let p = at(&s, 9, 1);
    s.colonies.push(Colony {
        owner: 0,
        pos: p,
        homeworld: false,
        value: 3,
        deposits: vec![Marker::Minerals5],
    });
    add(&mut s, 1, UnitKind::Decoy, 1, 9, 1);
    econ::start_econ(&mut s, d());
    assert_eq!(s.drafts[0].income, 28, "a decoy has no attack: no blockade");
    let mut s = started(2);
    s.colonies.push(Colony {
        owner: 0,
        pos: p,
        homeworld: false,
        value: 3,
        deposits: vec![Marker::Minerals5],
    });
    add(&mut s, 1, UnitKind::Scout, 1, 9, 1);
    econ::start_econ(&mut s, d());
    assert_eq!(s.drafts[0].income, 20);
    assert_eq!(s.drafts[0].blockaded, vec![p]);
    for dr in s.drafts.iter_mut() {
        dr.submitted = true;
    }
    econ::resolve(&mut s, d());
    let c = s.colony_at(p).unwrap();
    assert_eq!(c.value, 5, "it still grows");
    assert_eq!(
        c.deposits,
        vec![Marker::Minerals5],
        "minerals wait for an unblockaded phase"
    );
}

#[test]
fn counter_limits_count_groups() {
    let mut s = started(2);
    add(&mut s, 0, UnitKind::Scout, 1, 6, 0);
    add(&mut s, 0, UnitKind::Scout, 1, 6, 0);
    s.players[0].cp = 30;
    econ::start_econ(&mut s, d());
    let hw = at(&s, 6, 0);
    assert!(
        econ::build_problem(&s, d(), 0, UnitKind::Scout, hw)
            .unwrap()
            .contains("counter")
    );
    // Scuttling a whole counter frees it.
    let one = s
        .groups
        .iter()
        .find(|g| g.owner == 0 && g.kind == UnitKind::Scout)
        .unwrap()
        .id;
    s = G.apply(&s, 0, &Action::Scuttle { group: one }).unwrap();
    assert!(econ::build_problem(&s, d(), 0, UnitKind::Scout, hw).is_none());
    // Splitting needs a free counter too.
    let mut t = started(2);
    t.groups
        .retain(|g| !(g.owner == 0 && g.kind == UnitKind::Scout));
    let dn = add(&mut t, 0, UnitKind::Dreadnought, 2, 6, 0);
    assert!(G.legal_actions(&t, 0).contains(&Action::Split {
        group: dn,
        count: 1
    }));
    add(&mut t, 0, UnitKind::Dreadnought, 1, 6, 0);
    assert!(!G.legal_actions(&t, 0).contains(&Action::Split {
        group: dn,
        count: 1
    }));
}

#[test]
fn options_and_action_schema() {
    let o: Options = serde_json::from_str(r#"{"round_cap": 5}"#).unwrap();
    assert_eq!(o.round_cap, Some(5));
    assert!(!o.instant_upgrades);
    assert!(serde_json::from_str::<Options>(r#"{"rounds": 5}"#).is_err());
    assert!(
        G.setup(
            &Options {
                round_cap: Some(0),
                instant_upgrades: false
            },
            2,
            GameRng::seed_from_u64(1)
        )
        .is_err()
    );
    let schema = json(&schemars::schema_for!(Action));
    for tag in [
        "choose_homeworld",
        "move",
        "submit_plan",
        "build",
        "set_turn_order",
        "colony_ship",
    ] {
        assert!(schema.contains(tag), "{tag}");
    }
    let a: Action = serde_json::from_str(r#"{"type":"build","unit":"scout","x":6,"y":0}"#).unwrap();
    assert_eq!(
        a,
        Action::Build {
            unit: UnitKind::Scout,
            x: 6,
            y: 0
        }
    );
    assert_eq!(G.info().rules_version, RULES_VERSION);
    assert_eq!(G.info().id, ID);
}

#[test]
fn strange_viewers_do_not_panic() {
    let s = started(2);
    let mut rng = GameRng::seed_from_u64(1);
    let _ = G.resample_hidden(&s, Viewer::Seat(99), &mut rng);
    let v = G.view(&s, Viewer::Seat(99));
    assert!(v.me.is_none());
    assert!(!G.render_text(&s, Viewer::Seat(99)).contains("YOUR EMPIRE"));
    assert!(G.legal_actions(&s, 99).is_empty());
}

#[test]
fn the_player_chooses_the_exploration_order() {
    let mut s = started(2);
    s.groups.clear();
    set_cell(&mut s, 3, 2, Marker::Planet, false);
    set_cell(&mut s, 9, 2, Marker::Nebula, false);
    add(&mut s, 0, UnitKind::Scout, 1, 3, 2);
    add(&mut s, 0, UnitKind::Scout, 1, 9, 2);
    s.phase = Phase::Combat;
    let n = G.apply(&s, 0, &Action::EndCombat).unwrap();
    assert_eq!(
        G.legal_actions(&n, 0),
        vec![
            Action::Explore { x: 3, y: 2 },
            Action::Explore { x: 9, y: 2 }
        ]
    );
    assert!(G.apply(&n, 0, &Action::EndExploration).is_err());
    let m = G.apply(&n, 0, &Action::Explore { x: 9, y: 2 }).unwrap();
    assert!(
        m.cells[at(&m, 9, 2)].explored && m.cells[at(&m, 3, 2)].explored,
        "the last one follows at once"
    );
    let first = m
        .events
        .iter()
        .position(|e| e.text.contains("explores (9,2)"))
        .unwrap();
    let second = m
        .events
        .iter()
        .position(|e| e.text.contains("explores (3,2)"))
        .unwrap();
    assert!(first < second);
}

#[test]
fn leak_splitting_does_not_tell_the_group_size() {
    let mut s = started(2);
    let g = add(&mut s, 0, UnitKind::Scout, 4, 6, 0);
    let a = Action::Split { group: g, count: 3 };
    let Visibility::Private {
        seen_by,
        public_form,
    } = G.action_visibility(&s, 0, &a)
    else {
        panic!()
    };
    assert_eq!(seen_by, vec![0]);
    assert_eq!(public_form, serde_json::json!({"type": "secret_move_step"}));
    let n = G.apply(&s, 0, &a).unwrap();
    let t = G.render_text(&n, Viewer::Seat(1));
    assert!(t.contains(&format!("#{g} Seat 1 face-down counter at (6,0)")));
    assert!(!t.contains("3 ship"), "the split size stays secret");
    let v = G.view(&n, Viewer::Seat(1));
    assert!(
        v.groups
            .iter()
            .filter(|x| x.owner == 0 && x.kind.is_none())
            .all(|x| x.count.is_none())
    );
}

#[test]
fn ex_9_15_part_of_a_group_retreats_as_a_new_counter() {
    let mut s = started(2);
    s.groups.clear();
    let hw = s.players[0].homeworld.unwrap();
    let h = at(&s, 6, 2);
    for n in s.neighbours(h) {
        s.cells[n].explored = true;
        s.cells[n].marker = Marker::Empty;
    }
    s.cells[h].explored = true;
    let ca = add(&mut s, 0, UnitKind::Cruiser, 3, 6, 2);
    add(&mut s, 1, UnitKind::Scout, 1, 6, 2);
    add(&mut s, 1, UnitKind::Scout, 1, 6, 2);
    for g in s.groups.iter_mut() {
        g.face_up = true; // revealed when the battle began
    }
    s.battle = Some(Battle {
        pos: h,
        attacker: 0,
        defender: 1,
        round: 2,
        plans: Default::default(),
    });
    let back = s
        .neighbours(h)
        .into_iter()
        .find(|n| s.distance(*n, hw) < s.distance(h, hw))
        .unwrap();
    let (x, y) = s.xy(back);
    let r = Action::Retreat {
        group: ca,
        count: 2,
        x,
        y,
    };
    assert!(G.legal_actions(&s, 0).contains(&r));
    let n = G.apply(&s, 0, &r).unwrap();
    assert!(
        !G.legal_actions(&n, 0)
            .iter()
            .any(|a| matches!(a, Action::Retreat { .. })),
        "one retreat order per group"
    );
    let n = G.apply(&n, 0, &Action::SubmitPlan).unwrap();
    let n = G.apply(&n, 1, &Action::SubmitPlan).unwrap();
    let gone: Vec<&Group> = n
        .groups
        .iter()
        .filter(|g| g.owner == 0 && g.pos == back)
        .collect();
    assert_eq!(gone.len(), 1);
    assert_eq!(gone[0].count, 2);
    assert!(gone[0].face_up);
    assert!(n.events.iter().any(|e| {
        e.text
            .contains(&format!("2 ship(s) of counter #{ca} retreat"))
    }));
}

#[test]
fn an_order_that_spends_cp_says_what_it_costs() {
    let mut s = started(2);
    econ::start_econ(&mut s, d());
    let texts: Vec<(Action, String)> = G
        .legal_actions(&s, 0)
        .into_iter()
        .map(|a| {
            let t = G.describe_action(&s, 0, &a);
            (a, t)
        })
        .collect();
    let scout = d().unit(UnitKind::Scout).cost;
    assert!(
        texts.iter().any(|(a, t)| matches!(
            a,
            Action::Build {
                unit: UnitKind::Scout,
                ..
            }
        ) && t.ends_with(&format!(" for {scout} CP"))),
        "{texts:?}"
    );
    let size = econ::research_cost(d(), &s, 0, Tech::ShipSize);
    assert!(
        texts.iter().any(|(a, t)| *a
            == Action::Research {
                tech: Tech::ShipSize
            }
            && t.ends_with(&format!(" for {size} CP"))),
        "{texts:?}"
    );
    // Orders that spend nothing name no price.
    assert!(
        texts
            .iter()
            .filter(|(a, _)| matches!(a, Action::SubmitOrders | Action::Bid { .. }))
            .all(|(_, t)| !t.contains(" CP") || t.starts_with("bid ")),
        "{texts:?}"
    );
}
