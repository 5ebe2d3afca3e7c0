//! One test per house rule HR-n of the rules reference.

use std::collections::BTreeSet;

use super::*;
use crate::starfarers::rules::{self, vp};
use turnpost_engine::harness::random_playout;

#[test]
fn hr_1_resource_cards_are_unlimited() {
    let (g, mut s) = start(4, Phase::Roll);
    s.players[0].hand = hand(0, 1000, 0, 0, 0);
    rules::produce(g.data(), &mut s, 8);
    assert_eq!(s.players[0].hand.food, 1002);
}

#[test]
fn hr_2_building_costs() {
    let (g, mut s) = start(4, Phase::TradeBuild);
    s.ships.clear();
    let port_neighbour = g.data().graph.neighbors(site(&g, "home_a", 1))[0];
    let cases: Vec<(Resources, Action)> = vec![
        (
            hand(1, 1, 1, 1, 0),
            Action::BuildColonyShip { at: port_neighbour },
        ),
        (
            hand(0, 0, 1, 1, 2),
            Action::BuildTradeShip { at: port_neighbour },
        ),
        (
            hand(3, 2, 0, 0, 0),
            Action::BuildSpaceport {
                at: site(&g, "home_a", 0),
            },
        ),
        (hand(0, 0, 2, 0, 0), Action::BuildBooster),
        (hand(2, 0, 0, 0, 0), Action::BuildCannon),
        (hand(0, 0, 0, 2, 0), Action::BuildFreightRing),
    ];
    for (cost, a) in cases {
        let mut t = s.clone();
        t.players[0].hand = cost;
        let after = act(&g, &t, 0, a.clone());
        assert_eq!(after.players[0].hand.total(), 0, "{a:?}");
        // One card short: refused.
        let short = cost.minus(&Resources::one(cost.cards()[0], 1)).unwrap();
        t.players[0].hand = short;
        assert!(g.apply(&t, 0, &a).is_err(), "{a:?} with one card short");
    }
}

#[test]
fn hr_3_piece_counts() {
    let (g, mut s) = start(4, Phase::TradeBuild);
    s.players[0].hand = hand(9, 9, 9, 9, 9);
    let far = site(&g, "s7", 2);
    put_ship(&mut s, 0, ShipKind::Colony, far);
    put_ship(&mut s, 0, ShipKind::Trade, far);
    assert_eq!(s.ships.iter().filter(|x| x.owner == 0).count(), 3);
    let legal = g.legal_actions(&s, 0);
    assert!(!legal.iter().any(|a| matches!(
        a,
        Action::BuildColonyShip { .. } | Action::BuildTradeShip { .. }
    )));
    // Spaceport rings: 4 in all, 1 used at setup.
    let mut t = s.clone();
    for (i, b) in t.buildings.iter_mut().filter(|b| b.owner == 0).enumerate() {
        b.spaceport = i < 3;
    }
    t.buildings.push(state::Building {
        node: site(&g, "s5", 0),
        owner: 0,
        spaceport: true,
    });
    assert!(
        !g.legal_actions(&t, 0)
            .iter()
            .any(|a| matches!(a, Action::BuildSpaceport { .. }))
    );
    // Limits: 6 boosters.
    let mut t = s.clone();
    t.players[0].boosters = 6;
    assert!(g.apply(&t, 0, &Action::BuildBooster).is_err());
}

#[test]
fn hr_4_five_balls() {
    let g = game();
    let d = g.data();
    let mut values: Vec<(bool, u32)> = d.balls.iter().map(|b| (b.black, b.value)).collect();
    values.sort();
    assert_eq!(
        values,
        vec![(false, 1), (false, 2), (false, 2), (false, 3), (true, 0)]
    );
    let (g, mut s) = start(4, Phase::TradeBuild);
    let mut speeds = BTreeSet::new();
    let mut encounters = 0;
    for seed in 0..60 {
        s.rng = GameRng::seed_from_u64(seed);
        let n = act(&g, &s, 0, Action::Launch);
        assert_eq!(n.balls.len(), 2);
        if n.balls.iter().any(|&b| d.balls[b].black) {
            encounters += 1;
        } else {
            speeds.insert(n.speed);
        }
    }
    assert!(encounters > 0);
    assert_eq!(speeds, BTreeSet::from([3, 4, 5]));
}

#[test]
fn hr_5_authored_board() {
    let g = game();
    let d = g.data();
    assert_eq!((d.cells.len(), d.nodes.len(), d.lines), (259, 577, 813));
    assert!(d.graph.is_connected());
    assert_eq!(d.systems.len(), 11);
    // Mirror symmetry about x = 11 (2x = 22) of planets, outposts and starting ships (the
    // cell area itself, -1..22, is not symmetric about 11).
    let ships: BTreeSet<(i32, i32)> = d
        .systems
        .iter()
        .filter(|x| x.home_seat.is_some())
        .map(|x| (d.nodes[x.ship_node].gx, d.nodes[x.ship_node].gy))
        .collect();
    assert!(ships.iter().all(|&(x, y)| ships.contains(&(44 - x, y))));
    let planets: BTreeSet<(i32, i32)> = d
        .planets
        .iter()
        .map(|p| (2 * p.cell.q + p.cell.r, p.cell.r))
        .collect();
    assert!(planets.iter().all(|&(x, y)| planets.contains(&(44 - x, y))));
    let outposts: BTreeSet<(i32, i32)> = d
        .outposts
        .iter()
        .map(|o| (2 * o.cell.q + o.cell.r, o.cell.r))
        .collect();
    assert!(
        outposts
            .iter()
            .all(|&(x, y)| outposts.contains(&(44 - x, y)))
    );
    // Star corners are not intersections: each system's 3 planets share no node.
    for sys in &d.systems {
        let [a, b, c] = sys.planets;
        let common: Vec<&usize> = d.planets[a]
            .corners
            .iter()
            .filter(|n| d.planets[b].corners.contains(n) && d.planets[c].corners.contains(n))
            .collect();
        assert!(common.is_empty(), "{}", sys.id);
    }
}

#[test]
fn hr_6_chip_mix() {
    let (g, s) = start(4, Phase::Roll);
    let d = g.data();
    let mut on_board: Vec<Chip> = d
        .planets
        .iter()
        .enumerate()
        .filter(|(_, p)| p.home_chip.is_none())
        .map(|(i, _)| s.planets[i].chip.unwrap())
        .collect();
    on_board.sort();
    let mut expected = d.outer_chips.clone();
    expected.sort();
    assert_eq!(on_board, expected);
    assert_eq!(
        expected
            .iter()
            .filter(|c| matches!(c, Chip::Pirates(_)))
            .count(),
        3
    );
    assert_eq!(
        expected
            .iter()
            .filter(|c| matches!(c, Chip::Ice(_)))
            .count(),
        2
    );
    let mut reserve = s.reserve.clone();
    reserve.sort();
    assert_eq!(reserve, [3, 5, 6, 8, 11].map(Chip::Number).to_vec());
    // Outer chips lie face down.
    assert!(
        d.planets
            .iter()
            .enumerate()
            .all(|(i, p)| p.home_chip.is_some() == s.planets[i].revealed)
    );
}

#[test]
fn hr_7_race_names() {
    let g = game();
    let mut races = g.data().races.clone();
    races.sort();
    assert_eq!(
        races,
        vec!["green_folk", "merchants", "scientists", "travelers"]
    );
}

#[test]
fn hr_8_thirty_two_encounter_cards() {
    let (g, s) = start(4, Phase::Roll);
    let d = g.data();
    assert_eq!(d.encounters.len(), 32);
    let ids: BTreeSet<String> = d.encounters.iter().map(|e| e.id.clone()).collect();
    assert_eq!(ids, (1..=32).map(|i| format!("E{i:02}")).collect());
    let mut deck = s.deck.clone();
    deck.sort();
    assert_eq!(deck, (0..32).collect::<Vec<_>>());
    // E22 pirate_lord: a win gives +2 fame.
    assert_eq!(d.encounters[encounter(&g, "E22")].win_gain().fame, 2);
}

#[test]
fn hr_9_a_card_per_station_for_everyone_and_cards_stay() {
    let (g, mut s) = start(4, Phase::Roll);
    let o = outpost(&g, "green_folk");
    let entrance = g.data().outposts[o].entrance;
    let station = |s: &mut State, seat: Seat, dock: usize, card_id: &str| {
        s.current = seat;
        s.ships.retain(|x| x.owner != seat);
        let id = put_ship(s, seat, ShipKind::Trade, entrance);
        fly_phase(s, 5);
        *s = act(
            &g,
            s,
            seat,
            Action::Fly {
                ship: id,
                to: g.data().outposts[o].docks[dock],
                via: vec![],
            },
        );
        *s = act(&g, s, seat, Action::FoundTradeStation { ship: id });
        *s = act(
            &g,
            s,
            seat,
            Action::TakeFriendshipCard {
                card: card_id.into(),
            },
        );
    };
    s.players[0].freight_rings = 5;
    s.players[1].freight_rings = 5;
    station(&mut s, 1, 0, "gf_harvest");
    station(&mut s, 0, 1, "gf_relief");
    station(&mut s, 0, 2, "gf_storehouse");
    assert_eq!(s.players[0].cards.len(), 2, "a card for every station");
    assert_eq!(s.token[o], Some(0));
    station(&mut s, 1, 3, "gf_food_market");
    assert_eq!(s.token[o], Some(1), "2-2, B holds dock 1");
    assert_eq!(s.players[0].cards.len(), 2, "A keeps its cards");
    assert_eq!(s.card_owner[card(&g, "gf_relief")], Some(0));
    // Every card is taken: the last station gives none and the flight goes on.
    s.current = 2;
    s.players[2].freight_rings = 5;
    let id = put_ship(&mut s, 2, ShipKind::Trade, entrance);
    s.ships.retain(|x| x.owner != 2 || x.id == id);
    fly_phase(&mut s, 5);
    s = act(
        &g,
        &s,
        2,
        Action::Fly {
            ship: id,
            to: g.data().outposts[o].docks[4],
            via: vec![],
        },
    );
    s = act(&g, &s, 2, Action::FoundTradeStation { ship: id });
    assert_eq!(s.phase, Phase::Flying);
}

#[test]
fn hr_10_nothing_at_the_start() {
    let (_, s) = start(3, Phase::Roll);
    for p in &s.players {
        assert_eq!(
            (
                p.boosters,
                p.cannons,
                p.freight_rings,
                p.hand.total(),
                p.cards.len()
            ),
            (0, 0, 0, 0, 0)
        );
    }
}

#[test]
fn hr_11_discard_half_rounded_down() {
    let (g, mut s) = start(4, Phase::Roll);
    s.players[0].hand = hand(8, 0, 0, 0, 0);
    s.players[1].hand = hand(0, 9, 0, 0, 0);
    s.players[2].hand = hand(0, 0, 7, 0, 0);
    s.players[3].hand = hand(0, 0, 0, 13, 0);
    s.players[3].cards.push(card(&g, "gf_storehouse"));
    let mut t = s.clone();
    rules::seven(g.data(), &mut t);
    assert_eq!(
        t.phase,
        Phase::Discard {
            owed: vec![(0, 4), (1, 4), (3, 6)]
        }
    );
    // With the storehouse, 12 cards are safe.
    s.players[3].hand = hand(0, 0, 0, 12, 0);
    rules::seven(g.data(), &mut s);
    assert_eq!(
        s.phase,
        Phase::Discard {
            owed: vec![(0, 4), (1, 4)]
        }
    );
    // Discards are simultaneous: both seats must act.
    assert_eq!(g.status(&s).to_act(), &[0, 1]);
}

#[test]
fn hr_12_supply_for_the_active_player_also_on_a_seven() {
    let (g, mut s) = start(4, Phase::Roll);
    // Find a seed that rolls 7 (nobody holds cards: straight to the supply).
    let seven = (0..5000)
        .map(|seed| {
            let mut t = s.clone();
            t.rng = GameRng::seed_from_u64(seed);
            t
        })
        .find(|t| {
            let mut r = t.rng.clone();
            r.d6() + r.d6() == 7
        })
        .unwrap();
    let after = act(&g, &seven, 0, Action::Roll);
    assert_eq!(after.phase, Phase::Supply);
    assert_eq!(g.status(&after).to_act(), &[0]);
    assert!(g.legal_actions(&after, 1).is_empty());
    // At 9 VP there is no supply.
    s = seven.clone();
    s.players[0].fame = 10; // 4 + 5 = 9 VP
    let after = act(&g, &s, 0, Action::Roll);
    assert_eq!(vp(g.data(), &after, 0), 9);
    assert_eq!(after.phase, Phase::TradeBuild);
}

#[test]
fn hr_13_neutral_home_blocks_but_never_produces() {
    let (g, mut s) = start(3, Phase::Roll);
    let d = g.data();
    assert_eq!(s.players.len(), 3);
    assert!(s.buildings.iter().any(|b| b.owner == 3 && b.spaceport));
    assert!(s.ships.iter().all(|x| x.owner < 3));
    rules::produce(d, &mut s, 9); // kappa (home_d ore 9) and delta (home_b)
    assert_eq!(s.players[1].hand.ore, 2);
    assert_eq!(s.players[0].hand.total() + s.players[2].hand.total(), 0);
    let port = site(&g, "home_d", 0);
    let x = s.ships[0].clone();
    for &m in d.graph.neighbors(port) {
        assert!(rules::end_ok(d, &s, &x, m).is_none());
    }
    // And in a 3-player game a system takes at most 2 colonies.
    s.buildings.push(state::Building {
        node: site(&g, "s1", 0),
        owner: 0,
        spaceport: false,
    });
    s.buildings.push(state::Building {
        node: site(&g, "s1", 2),
        owner: 1,
        spaceport: false,
    });
    let (t, br) = (planet(&g, "s1 T"), planet(&g, "s1 BR"));
    set_chip(&mut s, t, Chip::Number(6));
    set_chip(&mut s, br, Chip::Number(9));
    s.ships.clear();
    let id = put_ship(
        &mut s,
        0,
        ShipKind::Colony,
        plain_neighbour(&g, site(&g, "s1", 1)),
    );
    fly_phase(&mut s, 3);
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: site(&g, "s1", 1),
            via: vec![],
        },
    );
    assert!(g.apply(&s, 0, &Action::FoundColony { ship: id }).is_err());
}

#[test]
fn hr_14_peeks_on_the_way_and_colonise_after_clearing() {
    let (g, mut s) = start(4, Phase::Roll);
    let d = g.data();
    let t = planet(&g, "s1 T");
    set_chip(&mut s, t, Chip::Pirates(2));
    // Fly through a corner of s1 T and end beyond it, away from the planet.
    s.ships.clear();
    let corner = site(&g, "s1", 1);
    let from = plain_neighbour(&g, corner);
    let id = put_ship(&mut s, 0, ShipKind::Colony, from);
    fly_phase(&mut s, 2);
    let beyond = d
        .graph
        .neighbors(corner)
        .iter()
        .copied()
        .find(|&m| {
            m != from && !d.planets[t].corners.contains(&m) && d.graph.distances(from)[m] == Some(2)
        })
        .unwrap();
    let passed = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: beyond,
            via: vec![],
        },
    );
    assert!(
        passed.planets[t].seen_by.contains(&0),
        "passing through counts"
    );
    assert!(!passed.planets[t].seen_by.contains(&1));
    // Clearing, then colonising in the same turn.
    let br = planet(&g, "s1 BR");
    set_chip(&mut s, br, Chip::Number(9));
    s.players[0].cannons = 2;
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: corner,
            via: vec![],
        },
    );
    assert!(g.apply(&s, 0, &Action::FoundColony { ship: id }).is_err());
    s = act(&g, &s, 0, Action::ClearPirates { planet: t });
    s = act(&g, &s, 0, Action::FoundColony { ship: id });
    assert_eq!(vp(d, &s, 0), 6);
}

#[test]
fn hr_turn_limit_ends_random_play() {
    let g = game();
    let o = Options {
        turn_limit: Some(12),
    };
    let p = random_playout(&g, &o, 3, 5, 20_000).unwrap();
    assert!(p.finished);
    assert!(p.state.turn <= 12);
    assert!(
        g.setup(
            &Options {
                turn_limit: Some(0)
            },
            3,
            GameRng::seed_from_u64(1)
        )
        .is_err()
    );
}

#[test]
fn hr_14_waypoints_choose_the_route_for_peeking() {
    let (g, mut s) = start(4, Phase::Roll);
    let d = g.data();
    s.ships.clear();
    // From s1's right-top site's neighbour: go out via a corner of s1 BL and come back.
    let corner = site(&g, "s1", 1);
    let from = plain_neighbour(&g, corner);
    let id = put_ship(&mut s, 0, ShipKind::Colony, from);
    fly_phase(&mut s, 6);
    let bl = planet(&g, "s1 BL");
    let dist = d.graph.distances(from);
    let waypoint = *d.planets[bl]
        .corners
        .iter()
        .filter(|&&n| dist[n].is_some_and(|x| x <= 3))
        .max_by_key(|&&n| dist[n])
        .unwrap();
    assert!(!s.planets[bl].seen_by.contains(&0));
    let back = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: from,
            via: vec![waypoint],
        },
    );
    assert!(
        back.planets[bl].seen_by.contains(&0),
        "the waypoint's planets are peeked"
    );
    assert_eq!(back.ships[0].node, from);
    // A route longer than the speed is refused.
    fly_phase(&mut s, 1);
    let far = Action::Fly {
        ship: id,
        to: from,
        via: vec![waypoint],
    };
    if dist[waypoint].unwrap_or(0) > 0 {
        assert!(g.apply(&s, 0, &far).is_err());
    }
    assert!(g.describe_action(&s, 0, &far).contains(" via r"));
}
