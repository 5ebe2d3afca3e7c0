//! The worked examples of rules section 9, one test each.

use super::*;
use crate::starfarers::rules::{self, vp};

#[test]
fn example_9_1_setup_values() {
    let (g, s) = start(4, Phase::Roll);
    let d = g.data();
    for seat in 0..4 {
        assert_eq!(vp(d, &s, seat), 4);
        let p = &s.players[seat];
        assert_eq!(
            (p.fame, p.boosters, p.cannons, p.freight_rings),
            (1, 0, 0, 0)
        );
        assert_eq!(p.hand.total(), 0);
    }
    let b = |n: usize| s.buildings.iter().find(|b| b.node == n).unwrap().clone();
    assert_eq!(
        (
            b(site(&g, "home_a", 0)).owner,
            b(site(&g, "home_a", 0)).spaceport
        ),
        (0, false)
    );
    assert_eq!(
        (
            b(site(&g, "home_a", 2)).owner,
            b(site(&g, "home_a", 2)).spaceport
        ),
        (0, false)
    );
    assert_eq!(
        (
            b(site(&g, "home_a", 1)).owner,
            b(site(&g, "home_a", 1)).spaceport
        ),
        (0, true)
    );
    // Each player starts with one colony ship next to the spaceport.
    assert_eq!(s.ships.len(), 4);
    assert!(s.ships.iter().all(|x| x.kind == ShipKind::Colony));
}

#[test]
fn example_9_2_production() {
    let (g, mut s) = start(4, Phase::Roll);
    rules::produce(g.data(), &mut s, 8);
    assert_eq!(s.players[0].hand, hand(0, 2, 0, 0, 0));
    assert_eq!(s.players[2].hand, hand(0, 2, 0, 0, 0));
    assert_eq!(s.players[1].hand.total() + s.players[3].hand.total(), 0);
    let (g, mut s) = start(4, Phase::Roll);
    rules::produce(g.data(), &mut s, 5);
    assert_eq!(s.players[0].hand, hand(0, 0, 0, 2, 0));
    assert_eq!(s.players[2].hand, hand(0, 0, 0, 2, 0));
}

#[test]
fn example_9_3_seven() {
    let (g, mut s) = start(3, Phase::Roll);
    s.players[0].hand = hand(3, 0, 0, 0, 0);
    s.players[1].hand = hand(2, 2, 2, 2, 1);
    s.players[2].hand = hand(0, 7, 0, 0, 0);
    s.players[0].fame = 8; // 4 + 4 = 8 VP: supply from Earth still comes
    rules::seven(g.data(), &mut s);
    assert_eq!(s.phase, Phase::Discard { owed: vec![(1, 4)] });
    assert_eq!(g.status(&s).to_act(), &[1]);
    for r in [
        Resource::Carbon,
        Resource::Food,
        Resource::Fuel,
        Resource::Ore,
    ] {
        s = act(&g, &s, 1, Action::Discard { resource: r });
    }
    assert_eq!(s.players[1].hand.total(), 5);
    assert_eq!(s.players[2].hand.total(), 7);
    assert_eq!(s.phase, Phase::Steal);
    let legal = g.legal_actions(&s, 0);
    assert!(legal.contains(&Action::Steal { from: 1 }) && legal.contains(&Action::NoSteal));
    s = act(&g, &s, 0, Action::Steal { from: 2 });
    assert_eq!(s.players[0].hand, hand(3, 1, 0, 0, 0));
    assert_eq!(vp(g.data(), &s, 0), 8);
    assert_eq!(s.phase, Phase::Supply);
    s = act(
        &g,
        &s,
        0,
        Action::TakeSupply {
            resource: Resource::Ore,
        },
    );
    assert_eq!(s.players[0].hand.ore, 1);
    assert_eq!(s.phase, Phase::TradeBuild);
}

#[test]
fn example_9_4_bank() {
    let (g, mut s) = start(4, Phase::TradeBuild);
    s.players[0].hand = hand(0, 0, 0, 3, 2);
    s = act(
        &g,
        &s,
        0,
        Action::BankTrade {
            give: Resource::Ore,
            get: Resource::Carbon,
        },
    );
    assert_eq!(s.players[0].hand, hand(1, 0, 0, 0, 2));
    s = act(
        &g,
        &s,
        0,
        Action::BankTrade {
            give: Resource::TradeGoods,
            get: Resource::Food,
        },
    );
    assert_eq!(s.players[0].hand, hand(1, 1, 0, 0, 0));
    // With me_ore_market, 2 ore buy any card.
    s.players[0].hand = hand(0, 0, 0, 2, 0);
    assert!(
        g.apply(
            &s,
            0,
            &Action::BankTrade {
                give: Resource::Ore,
                get: Resource::Fuel
            }
        )
        .is_err()
    );
    s.players[0].cards.push(card(&g, "me_ore_market"));
    s = act(
        &g,
        &s,
        0,
        Action::BankTrade {
            give: Resource::Ore,
            get: Resource::Fuel,
        },
    );
    assert_eq!(s.players[0].hand, hand(0, 0, 1, 0, 0));
}

/// A state whose launch draws exactly these two balls (found by trying seeds).
fn launch_with(g: &Starfarers, s: &State, balls: [&str; 2]) -> State {
    for seed in 0..2000 {
        let mut t = s.clone();
        t.rng = GameRng::seed_from_u64(seed);
        let n = act(g, &t, 0, Action::Launch);
        let mut names: Vec<&str> = n
            .balls
            .iter()
            .map(|&b| g.data().balls[b].name.as_str())
            .collect();
        names.sort();
        let mut want = balls.to_vec();
        want.sort();
        if names == want {
            return n;
        }
    }
    panic!("no seed draws {balls:?}");
}

#[test]
fn example_9_5_speed() {
    let (g, mut s) = start(4, Phase::TradeBuild);
    s.players[0].boosters = 2;
    let n = launch_with(&g, &s, ["red", "blue"]);
    assert_eq!((n.phase.clone(), n.speed), (Phase::Flying, 7));
    // Black: the encounter first (E10 hero_welcome: +1 fame), then 3 + 2 boosters.
    let hero = encounter(&g, "E10");
    s.deck.retain(|&c| c != hero);
    s.deck.insert(0, hero);
    let n = launch_with(&g, &s, ["black", "yellow"]);
    assert_eq!(n.players[0].fame, 2);
    assert_eq!((n.phase.clone(), n.speed), (Phase::Flying, 5));
    // Ion storm: speed 1 whatever the boosters.
    let storm = encounter(&g, "E29");
    s.deck.retain(|&c| c != storm);
    s.deck.insert(0, storm);
    let n = launch_with(&g, &s, ["black", "yellow"]);
    assert_eq!(n.speed, 1);
}

/// A's colony ship one step from s1's right-top site, flying.
fn ship_near_s1(g: &Starfarers, s: &mut State) -> (u32, usize) {
    s.ships.clear();
    let target = site(g, "s1", 1);
    let from = plain_neighbour(g, target);
    let id = put_ship(s, 0, ShipKind::Colony, from);
    fly_phase(s, 3);
    (id, target)
}

#[test]
fn example_9_6_founding_a_colony() {
    let (g, mut s) = start(4, Phase::Roll);
    let (t, br) = (planet(&g, "s1 T"), planet(&g, "s1 BR"));
    set_chip(&mut s, t, Chip::Number(6));
    set_chip(&mut s, br, Chip::Number(9));
    let (id, target) = ship_near_s1(&g, &mut s);
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: target,
            via: vec![],
        },
    );
    // Ending on the site shows both chips to A only.
    assert!(s.planets[t].seen_by.contains(&0) && s.planets[br].seen_by.contains(&0));
    s = act(&g, &s, 0, Action::FoundColony { ship: id });
    assert!(s.planets[t].revealed && s.planets[br].revealed);
    assert_eq!(vp(g.data(), &s, 0), 5);
    assert!(
        s.ships.iter().all(|x| x.owner != 0),
        "the transporter goes back to the supply"
    );
    assert!(
        s.buildings
            .iter()
            .any(|b| b.node == target && b.owner == 0 && !b.spaceport)
    );
    let mut six = s.clone();
    rules::produce(g.data(), &mut six, 6);
    assert_eq!(six.players[0].hand, hand(0, 1, 0, 0, 0));
    let mut nine = s.clone();
    rules::produce(g.data(), &mut nine, 9);
    assert_eq!(nine.players[0].hand, hand(0, 0, 0, 0, 1));
}

#[test]
fn example_9_7_ice() {
    let (g, mut s) = start(4, Phase::Roll);
    let (t, br) = (planet(&g, "s1 T"), planet(&g, "s1 BR"));
    set_chip(&mut s, t, Chip::Ice(2));
    set_chip(&mut s, br, Chip::Number(9));
    s.players[0].freight_rings = 1;
    let (id, target) = ship_near_s1(&g, &mut s);
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: target,
            via: vec![],
        },
    );
    let legal = g.legal_actions(&s, 0);
    assert!(!legal.contains(&Action::FoundColony { ship: id }));
    assert!(!legal.contains(&Action::Terraform { planet: t }));
    assert!(g.apply(&s, 0, &Action::Terraform { planet: t }).is_err());
    s.players[0].freight_rings = 2;
    s = act(&g, &s, 0, Action::Terraform { planet: t });
    assert_eq!(s.players[0].ice, 1);
    assert_eq!(vp(g.data(), &s, 0), 5);
    assert!(s.planets[t].from_reserve && !s.planets[t].revealed);
    assert!(matches!(s.planets[t].chip, Some(Chip::Number(_))));
    assert_eq!(s.reserve.len(), 4);
    s = act(&g, &s, 0, Action::FoundColony { ship: id });
    assert!(s.planets[t].revealed && s.planets[br].revealed);
    assert_eq!(vp(g.data(), &s, 0), 6);
}

#[test]
fn example_9_8_pirates() {
    let (g, mut s) = start(4, Phase::Roll);
    let t = planet(&g, "s1 T");
    set_chip(&mut s, t, Chip::Pirates(3));
    s.players[0].cannons = 2;
    let (id, target) = ship_near_s1(&g, &mut s);
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: target,
            via: vec![],
        },
    );
    assert!(
        !g.legal_actions(&s, 0)
            .contains(&Action::ClearPirates { planet: t })
    );
    let mut three = s.clone();
    three.players[0].cannons = 3;
    let three = act(&g, &three, 0, Action::ClearPirates { planet: t });
    assert_eq!((three.players[0].pirates, vp(g.data(), &three, 0)), (1, 5));
    let mut card_help = s.clone();
    card_help.players[0].cards.push(card(&g, "sc_weapons"));
    let card_help = act(&g, &card_help, 0, Action::ClearPirates { planet: t });
    assert_eq!(card_help.players[0].pirates, 1);
}

/// Seat `seat` flies a trade ship from the outpost entrance to `dock` and founds there.
fn found_station(g: &Starfarers, s: &mut State, seat: Seat, dock: u32) {
    let o = outpost(g, "green_folk");
    s.current = seat;
    s.ships.retain(|x| x.owner != seat);
    let id = put_ship(s, seat, ShipKind::Trade, g.data().outposts[o].entrance);
    fly_phase(s, 5);
    let to = g.data().outposts[o].docks[dock as usize - 1];
    *s = act(
        g,
        s,
        seat,
        Action::Fly {
            ship: id,
            to,
            via: vec![],
        },
    );
    // Ending on a dock commits the ship: the turn cannot end before founding.
    assert!(!g.legal_actions(s, seat).contains(&Action::EndTurn));
    *s = act(g, s, seat, Action::FoundTradeStation { ship: id });
    let first_free = g
        .legal_actions(s, seat)
        .into_iter()
        .find(|a| matches!(a, Action::TakeFriendshipCard { .. }))
        .unwrap();
    *s = act(g, s, seat, first_free);
}

#[test]
fn example_9_9_trade_stations_and_the_token() {
    let (g, mut s) = start(4, Phase::Roll);
    let d = g.data();
    let o = outpost(&g, "green_folk");
    s.players[0].freight_rings = 1;
    found_station(&g, &mut s, 0, 1);
    assert_eq!(s.token[o], Some(0));
    assert_eq!(vp(d, &s, 0), 6);
    assert_eq!(s.players[0].cards.len(), 1);
    // b at dock 2: needs 2 rings.
    s.players[1].freight_rings = 2;
    found_station(&g, &mut s, 1, 2);
    assert_eq!(s.players[1].cards.len(), 1);
    assert_eq!(s.token[o], Some(0), "1-1, and A holds the lower dock");
    // b at dock 3 with 3 rings: 2 stations take the token.
    s.players[1].freight_rings = 3;
    found_station(&g, &mut s, 1, 3);
    assert_eq!(s.token[o], Some(1));
    assert_eq!((vp(d, &s, 0), vp(d, &s, 1)), (4, 6));
    // Too few rings for dock 4: the dock is not a legal end.
    s.current = 2;
    s.players[2].freight_rings = 3;
    s.ships.retain(|x| x.owner != 2);
    let id = put_ship(&mut s, 2, ShipKind::Trade, d.outposts[o].entrance);
    fly_phase(&mut s, 5);
    assert!(
        g.apply(
            &s,
            2,
            &Action::Fly {
                ship: id,
                to: d.outposts[o].docks[3],
                via: vec![]
            }
        )
        .is_err()
    );
}

#[test]
fn example_9_10_flight_restrictions() {
    let (g, mut s) = start(4, Phase::Roll);
    let d = g.data();
    s.current = 1;
    s.ships.clear();
    // B's colony ship two steps from A's colony on home_a's left-top site.
    let a_colony = site(&g, "home_a", 0);
    let near = plain_neighbour(&g, a_colony);
    let id = put_ship(&mut s, 1, ShipKind::Colony, near);
    fly_phase(&mut s, 4);
    let ship = s.ships[0].clone();
    let dests: Vec<usize> = rules::destinations(d, &s, &ship)
        .into_iter()
        .map(|x| x.0)
        .collect();
    assert!(!dests.contains(&a_colony), "may not end on A's colony");
    let beyond: Vec<usize> = d
        .graph
        .neighbors(a_colony)
        .iter()
        .copied()
        .filter(|&m| m != near)
        .collect();
    assert!(
        beyond.iter().any(|m| dests.contains(m)),
        "may pass through it"
    );
    // Not next to C's spaceport.
    let c_port = site(&g, "home_c", 0);
    for &m in d.graph.neighbors(c_port) {
        let mut t = s.clone();
        t.ships[0].node = plain_neighbour(&g, m);
        let x = t.ships[0].clone();
        assert!(rules::end_ok(d, &t, &x, m).is_none());
    }
    // A trade ship may not end on a free colony site; a colony ship not on a dock.
    let free_site = site(&g, "s1", 1);
    let mut trade = ship.clone();
    trade.kind = ShipKind::Trade;
    assert!(rules::end_ok(d, &s, &trade, free_site).is_none());
    assert!(rules::end_ok(d, &s, &ship, free_site).is_some());
    let dock = d.outposts[0].docks[0];
    assert!(rules::end_ok(d, &s, &ship, dock).is_none());
    // A ship that starts on a colony site (and cannot found there) must leave.
    let mut t = s.clone();
    t.ships[0].node = free_site;
    t.ships[0].start = free_site;
    let x = t.ships[0].clone();
    assert!(rules::end_ok(d, &t, &x, free_site).is_none());
    assert!(
        g.apply(
            &t,
            1,
            &Action::Fly {
                ship: id,
                to: free_site,
                via: vec![]
            }
        )
        .is_err()
    );
}

#[test]
fn example_9_11_winning() {
    let (g, mut s) = start(4, Phase::Roll);
    let d = g.data();
    let (t, br) = (planet(&g, "s1 T"), planet(&g, "s1 BR"));
    set_chip(&mut s, t, Chip::Number(6));
    set_chip(&mut s, br, Chip::Number(9));
    s.players[0].pirates = 6;
    s.players[0].fame = 8; // 4 + 6 + 4 = 14
    assert_eq!(vp(d, &s, 0), 14);
    let (id, target) = ship_near_s1(&g, &mut s);
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: target,
            via: vec![],
        },
    );
    assert!(!g.status(&s).is_finished());
    s = act(&g, &s, 0, Action::FoundColony { ship: id });
    match g.status(&s) {
        Status::Finished(o) => {
            assert_eq!(o.winners(), vec![0]);
            assert_eq!(o.ranking[0].score, Some(15));
        }
        other => panic!("expected a win, got {other:?}"),
    }
    assert!(g.apply(&s, 0, &Action::EndTurn).is_err());

    // B takes A's token on B's turn: A drops and cannot win then.
    let (g, mut s) = start(4, Phase::Roll);
    s.players[0].freight_rings = 1;
    found_station(&g, &mut s, 0, 1);
    s.players[0].pirates = 6;
    assert_eq!(vp(d, &s, 0), 12);
    s.players[1].freight_rings = 3;
    found_station(&g, &mut s, 1, 2);
    found_station(&g, &mut s, 1, 3);
    assert_eq!(vp(d, &s, 0), 10);
    assert!(!g.status(&s).is_finished());
}

#[test]
fn example_9_12_fame() {
    let (g, mut s) = start(4, Phase::Roll);
    let d = g.data();
    s.players[0].fame = 5;
    assert_eq!(vp(d, &s, 0), 6);
    s.players[0].fame = 10;
    rules::resolve_encounter(d, &mut s, encounter(&g, "E10"));
    assert_eq!((s.players[0].fame, vp(d, &s, 0)), (11, 9));
    rules::resolve_encounter(d, &mut s, encounter(&g, "E10"));
    assert_eq!(s.players[0].fame, 11, "a 12th ring is not gained");
}

#[test]
fn example_9_13_encounter_fight() {
    let (g, mut s) = start(4, Phase::Roll);
    let e16 = encounter(&g, "E16");
    s.phase = Phase::Encounter { card: e16 };
    s.players[0].cannons = 2;
    s.players[0].hand = hand(1, 1, 0, 0, 0);
    let fight = |die: u8| {
        let mut t = s.clone();
        t.rng = rng_with_d6(die);
        act(&g, &t, 0, Action::EncounterFight)
    };
    let win = fight(4);
    assert_eq!((win.players[0].fame, win.players[0].cannons), (2, 2));
    let draw = fight(3);
    assert_eq!((draw.players[0].fame, draw.players[0].cannons), (1, 2));
    let loss = fight(1);
    assert_eq!((loss.players[0].fame, loss.players[0].cannons), (1, 1));
    // The tribute of 2 cards instead: no roll.
    let paid = act(
        &g,
        &s,
        0,
        Action::EncounterPay {
            cards: hand(1, 1, 0, 0, 0),
        },
    );
    assert_eq!(paid.rng, s.rng);
    assert_eq!(
        (paid.players[0].hand.total(), paid.players[0].cannons),
        (0, 2)
    );
    assert_eq!(paid.phase, Phase::Flying);
}

#[test]
fn a_boxed_in_ship_may_stay() {
    let (g, mut s) = start(4, Phase::Roll);
    let d = g.data();
    s.ships.clear();
    // A trade ship on a free colony site it started on, all neighbours taken by ships.
    let at = site(&g, "s1", 1);
    let id = put_ship(&mut s, 0, ShipKind::Trade, at);
    for &m in d.graph.neighbors(at) {
        put_ship(&mut s, 1, ShipKind::Colony, m);
    }
    fly_phase(&mut s, 1);
    assert_eq!(
        g.legal_actions(&s, 0),
        vec![
            Action::Fly {
                ship: id,
                to: at,
                via: vec![]
            },
            Action::EndTurn
        ]
    );
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: at,
            via: vec![],
        },
    );
    assert!(g.legal_actions(&s, 0).contains(&Action::EndTurn));
}

#[test]
fn unmoved_ships_stay_when_the_turn_ends() {
    let (g, mut s) = start(4, Phase::Roll);
    fly_phase(&mut s, 4);
    assert!(g.legal_actions(&s, 0).contains(&Action::EndTurn));
    let ship = s.ships.iter().find(|x| x.owner == 0).unwrap().clone();
    let n = act(&g, &s, 0, Action::EndTurn);
    assert_eq!((n.current, n.phase.clone()), (1, Phase::Roll));
    assert_eq!(
        n.ships.iter().find(|x| x.id == ship.id).unwrap().node,
        ship.node
    );
    // A ship that started on a colony site it cannot found on must fly first.
    let mut t = s.clone();
    let free_site = site(&g, "s1", 1);
    let i = t.ships.iter().position(|x| x.owner == 0).unwrap();
    t.ships[i].node = free_site;
    t.ships[i].start = free_site;
    assert!(!g.legal_actions(&t, 0).contains(&Action::EndTurn));
    assert!(g.apply(&t, 0, &Action::EndTurn).is_err());
}

/// A place next to planets names each planet's system, as the map labels it.
#[test]
fn places_next_to_planets_name_their_system() {
    let (g, _) = start(3, Phase::Roll);
    let d = g.data();
    let mut named = 0;
    for n in 0..d.nodes.len() {
        let place = crate::starfarers::render::node_place(d, n);
        if let Some(list) = place.strip_prefix("next to ") {
            for planet in list.split(", ") {
                let (_, system) = planet.split_once(" in ").expect("a planet in a system");
                assert!(
                    d.systems
                        .iter()
                        .any(|s| crate::starfarers::render::system_name(&s.id) == system),
                    "{place}"
                );
                named += 1;
            }
        }
    }
    assert!(named > 10, "{named}");
}
