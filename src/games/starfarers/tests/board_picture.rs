//! The board picture: what it draws is what the view holds, and no more.

use super::*;
use crate::starfarers::state::{Building, Offer, Station};
use turnpost_engine::harness::check_picture;

fn picture(g: &Starfarers, s: &State, viewer: Viewer) -> String {
    let svg = g.board_svg(
        &g.view(s, viewer),
        &turnpost_engine::People::unnamed(viewer),
    );
    check_picture(&svg).unwrap_or_else(|e| panic!("{viewer:?}: {e}\n{svg}"));
    svg
}

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

fn desc(svg: &str) -> &str {
    svg.split("<desc id=\"desc\">")
        .nth(1)
        .and_then(|d| d.split("</desc>").next())
        .unwrap_or("")
}

/// Four players in A's trade-and-build step: A holds 2 carbon, 1 fuel and 3 ore; B, C and
/// D hold 4, 0 and 9 cards. A has founded a colony in s1 and a trade station at the Green
/// Folk, flies a trade ship besides the starting colony ships, has peeked at a 12 on s3, and
/// offers B 1 ore for 1 food.
fn mid_game() -> (Starfarers, State) {
    let (g, mut s) = start(4, Phase::TradeBuild);
    s.players[0].hand = hand(2, 0, 1, 3, 0);
    s.players[1].hand = hand(1, 1, 1, 1, 0);
    s.players[3].hand = hand(0, 9, 0, 0, 0);
    let site = site(&g, "s1", 2);
    s.buildings.push(Building {
        node: site,
        owner: 0,
        spaceport: false,
    });
    let gf = outpost(&g, "green_folk");
    s.stations.push(Station {
        outpost: gf,
        dock: 1,
        owner: 0,
    });
    let free = plain_neighbour(&g, site);
    put_ship(&mut s, 0, ShipKind::Trade, free);
    let p = planet(&g, "s3 T");
    set_chip(&mut s, p, Chip::Number(12));
    s.planets[p].seen_by.insert(0);
    s.offer = Some(Offer {
        from: 0,
        to: 1,
        give: hand(0, 0, 0, 1, 0),
        get: hand(0, 1, 0, 0, 0),
    });
    (g, s)
}

#[test]
fn the_viewers_hand_is_face_up_and_other_hands_are_counts() {
    let (g, s) = mid_game();
    let a = picture(&g, &s, Viewer::Seat(0));
    assert_eq!(count(&a, "class=\"card face-up\""), 6);
    assert_eq!(count(&a, "class=\"card-back\""), 3);
    assert!(a.contains("Your hand: 2 carbon, 1 fuel, 3 ore"));
    assert!(a.contains(">9</text>"), "D's count on its card back");
    let b = picture(&g, &s, Viewer::Seat(1));
    assert_eq!(count(&b, "class=\"card face-up\""), 4);
    assert_eq!(count(&b, "class=\"card-back\""), 3);
    assert!(!b.contains("2 carbon, 1 fuel, 3 ore"));
    let spectator = picture(&g, &s, Viewer::Spectator);
    assert_eq!(count(&spectator, "class=\"card face-up\""), 0);
    assert_eq!(count(&spectator, "class=\"card-back\""), 4);
    assert!(!spectator.contains("Your hand") && !spectator.contains("(you)"));
    assert!(!desc(&spectator).contains("your hand"));
    assert!(desc(&a).contains("You are Player A; your hand: 2 carbon, 1 fuel, 3 ore."));
}

#[test]
fn the_map_holds_every_piece_of_the_view() {
    let (g, s) = mid_game();
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let v = g.view(&s, viewer);
        let svg = picture(&g, &s, viewer);
        let colonies = v.places.iter().filter(|p| !p.spaceport).count();
        let spaceports = v.places.len() - colonies;
        // Four home systems with two colonies and a spaceport each, and A's new colony.
        assert_eq!((colonies, spaceports), (9, 4));
        assert_eq!(count(&svg, "class=\"colony\""), colonies, "{viewer:?}");
        assert_eq!(count(&svg, "class=\"spaceport\""), spaceports);
        assert_eq!(count(&svg, "class=\"station\""), 1);
        assert_eq!(count(&svg, "class=\"ship\""), v.ships.len());
        assert_eq!(v.ships.len(), 5);
        assert_eq!(count(&svg, "class=\"ship-key\""), v.ships.len());
        assert_eq!(count(&svg, "class=\"planet\""), g.data().planets.len());
        // Every player's VP.
        for p in &v.players {
            assert!(svg.contains(&format!(">{} VP</text>", p.vp)));
        }
    }
}

#[test]
fn a_peeked_chip_and_the_offer_terms_reach_only_those_who_know_them() {
    let (g, s) = mid_game();
    for (viewer, peeked, party) in [
        (Viewer::Seat(0), true, true),
        (Viewer::Seat(1), false, true),
        (Viewer::Seat(2), false, false),
        (Viewer::Spectator, false, false),
    ] {
        let svg = picture(&g, &s, viewer);
        // The chip's number on its planet (outlined map text, unlike the row numbers).
        assert_eq!(
            svg.contains("paint-order=\"stroke\">12</text>"),
            peeked,
            "{viewer:?}"
        );
        // The offerer reads the terms; the recipient reads them as an offer to answer.
        let terms = match viewer {
            Viewer::Seat(1) => "Trade offer to you from Player A: you get 1 ore for 1 food",
            _ => "You (Player A) gives 1 ore to Player B for 1 food",
        };
        assert_eq!(svg.contains(terms), party, "{viewer:?}");
        assert_eq!(
            svg.contains("terms seen only by them"),
            !party,
            "{viewer:?}"
        );
    }
}

#[test]
fn the_neutral_home_is_grey_and_the_title_names_whose_turn() {
    let (g, s) = start(3, Phase::Roll);
    let svg = picture(&g, &s, Viewer::Seat(2));
    assert!(svg.contains("<title id=\"title\">The Starfarers of Catan: turn"));
    assert!(svg.contains("Player A to play: production: roll</title>"));
    // The neutral home's two colonies and its spaceport, in grey.
    let grey = "fill=\"#9e9e9e\" stroke=\"#000000\" stroke-width=\"1.5\"";
    assert_eq!(count(&svg, grey), 3);
    assert!(svg.contains("Grey pieces: the neutral home"));
    let four = picture(&g, &start(4, Phase::Roll).1, Viewer::Seat(2));
    assert!(!four.contains("Grey pieces"));
    assert_eq!(count(&four, grey), 0);
}

#[test]
fn the_same_view_gives_the_same_bytes_and_a_new_ship_a_new_shape() {
    let (g, s) = mid_game();
    assert_eq!(
        picture(&g, &s, Viewer::Seat(3)),
        picture(&g, &s.clone(), Viewer::Seat(3))
    );
    let mut more = s.clone();
    let at = plain_neighbour(&g, site(&g, "s2", 0));
    put_ship(&mut more, 3, ShipKind::Colony, at);
    assert_eq!(
        count(&picture(&g, &more, Viewer::Seat(3)), "class=\"ship\""),
        6
    );
}

fn named(viewer: Viewer) -> People {
    People::new(
        viewer,
        vec!["Ada".into(), "Bo".into(), "Cy".into(), "Dee".into()],
    )
}

/// The smallest `font-size` of a picture.
fn smallest_font(svg: &str) -> f64 {
    svg.split("font-size=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next()?.parse::<f64>().ok())
        .fold(f64::MAX, f64::min)
}

#[test]
fn the_picture_names_the_people_at_the_table() {
    let (g, s) = mid_game();
    let svg = g.board_svg(&g.view(&s, Viewer::Seat(1)), &named(Viewer::Seat(1)));
    check_picture(&svg).unwrap();
    for label in [
        "Ada (Player A)",
        "You (Player B)",
        "Cy (Player C)",
        "Dee (Player D)",
    ] {
        assert!(svg.contains(label), "{label} missing");
    }
    // Every mention of a seat names its person: no bare "Player C" is left.
    for (bare, full) in [
        ("Player A", "Ada (Player A)"),
        ("Player C", "Cy (Player C)"),
        ("Player D", "Dee (Player D)"),
    ] {
        assert_eq!(count(&svg, bare), count(&svg, full), "{bare}");
    }
    assert!(
        desc(&svg).contains("Ada (Player A) to play"),
        "{}",
        desc(&svg)
    );
    // A very long name is shortened and stays in the picture's width.
    let long = People::new(
        Viewer::Spectator,
        vec!["Wolfeschlegelsteinhausenbergerdorff".into(); 4],
    );
    let svg = g.board_svg(&g.view(&s, Viewer::Spectator), &long);
    assert!(svg.contains("Wolfeschlegelstei… (Player A)"));
}

#[test]
fn the_recipient_of_an_offer_is_told_it_awaits_their_answer() {
    let (g, s) = mid_game();
    let svg = g.board_svg(&g.view(&s, Viewer::Seat(1)), &named(Viewer::Seat(1)));
    assert!(
        svg.contains("a trade offer awaits your answer</title>"),
        "{svg}"
    );
    assert!(desc(&svg).contains("It awaits your answer: accept or decline"));
    let other = g.board_svg(&g.view(&s, Viewer::Seat(2)), &named(Viewer::Seat(2)));
    assert!(!other.contains("awaits your answer"));
}

#[test]
fn flights_builds_and_planets_can_be_clicked_on_the_map() {
    let (g, mut s) = mid_game();
    let ship = s.ships.iter().find(|x| x.owner == 0).map(|x| x.id).unwrap();
    // Building: the new ship's intersection is marked on the map.
    s.players[0].hand = hand(3, 3, 3, 3, 3);
    s.offer = None;
    let builds: Vec<Action> = g
        .legal_actions(&s, 0)
        .into_iter()
        .filter(|a| matches!(a, Action::BuildColonyShip { .. }))
        .collect();
    assert!(!builds.is_empty());
    let svg = g.board_svg(&g.view(&s, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    for a in &builds {
        let t = g.action_targets(&s, 0, a);
        assert_eq!(t.len(), 1);
        assert!(t[0].starts_with("node:r"), "{t:?}");
        assert!(svg.contains(&format!("data-target=\"{}\"", t[0])));
    }
    // Flying: the ship and the destination.
    fly_phase(&mut s, 3);
    let flights: Vec<Action> = g
        .legal_actions(&s, 0)
        .into_iter()
        .filter(|a| matches!(a, Action::Fly { ship: x, .. } if *x == ship))
        .collect();
    assert!(flights.len() > 3);
    let svg = g.board_svg(&g.view(&s, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    for a in &flights {
        let t = g.action_targets(&s, 0, a);
        assert_eq!(t[0], format!("ship:{ship}"));
        assert!(t.len() >= 2 && t[1].starts_with("node:"), "{t:?}");
        for token in &t {
            assert!(svg.contains(&format!("data-target=\"{token}\"")), "{token}");
        }
        // The text names the place as the map does: its row and column numbers.
        let text = g.describe_action(&s, 0, a);
        let label = t[1].trim_start_matches("node:");
        assert!(text.contains(label), "{text}");
    }
    // The map carries the row and column numbers and the systems' names.
    assert!(svg.contains(">s1</text>") && svg.contains(">home A</text>"));
    let v = g.view(&s, Viewer::Seat(0));
    let x = v.ships.iter().find(|x| x.id == ship).unwrap();
    let (r, c) = x.label.trim_start_matches('r').split_once('c').unwrap();
    assert!(svg.contains(&format!(">{r}</text>")) && svg.contains(&format!(">{c}</text>")));
}

#[test]
fn the_log_tells_a_move_in_the_third_person() {
    let (g, mut s) = mid_game();
    let ship = s.ships.iter().find(|x| x.owner == 0).map(|x| x.id).unwrap();
    fly_phase(&mut s, 3);
    let home = s
        .ships
        .iter()
        .find(|x| x.id == ship)
        .map(|x| x.node)
        .unwrap();
    let fly = g
        .legal_actions(&s, 0)
        .into_iter()
        .find(|a| matches!(a, Action::Fly { ship: x, to, .. } if *x == ship && *to != home))
        .unwrap();
    let text = g.log_text(&s, 0, &fly);
    assert!(
        text.starts_with(&format!("flew trade ship #{ship}"))
            || text.starts_with("flew colony ship"),
        "{text}"
    );
    for a in [
        fly,
        Action::EndTurn,
        Action::Launch,
        Action::WithdrawOffer,
        Action::Roll,
    ] {
        let text = g.log_text(&s, 0, &a);
        assert!(!text.contains("your") && !text.contains("you "), "{text}");
        assert!(
            !text.split_whitespace().any(|w| w.contains('_')),
            "internal name in {text}"
        );
    }
    assert_eq!(g.log_text(&s, 0, &Action::EndTurn), "ended their turn");
}

#[test]
fn every_text_is_at_least_10_units_high() {
    let (g, s) = mid_game();
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        let svg = g.board_svg(&g.view(&s, viewer), &named(viewer));
        assert!(smallest_font(&svg) >= 10.0, "{}", smallest_font(&svg));
    }
}

#[test]
fn save_the_mid_game_picture() {
    let (g, s) = mid_game();
    let svg = g.board_svg(&g.view(&s, Viewer::Seat(1)), &named(Viewer::Seat(1)));
    turnpost_engine::svg::save_png("starfarers-mid-game", &svg).unwrap();
}
