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
        assert_eq!(svg.contains(">12</text>"), peeked, "{viewer:?}");
        assert_eq!(
            svg.contains("Player A gives 1 ore to Player B for 1 food"),
            party,
            "{viewer:?}"
        );
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
