//! The board picture: what it draws is what the view holds, and no more.

use super::*;
use turnpost_engine::harness::{check_picture, random_playout};

fn picture(game: &Fuldrigger, st: &State, viewer: Viewer) -> String {
    let svg = game.board_svg(
        &game.view(st, viewer),
        &turnpost_engine::People::unnamed(viewer),
    );
    check_picture(&svg).unwrap_or_else(|e| panic!("{viewer:?}: {e}\n{svg}"));
    svg
}

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

/// The `<title>` of a picture.
fn title(svg: &str) -> &str {
    svg.split("<title id=\"title\">")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap_or("")
}

/// Three companies mid-game: Red has three ships in London (one a privateer with tea) and one
/// at sea, Blue one ship at Batavia and the fort there, Green none; Red has offered Blue
/// 77 ducats for ship 5.
fn mid_game(game: &Fuldrigger) -> State {
    let mut st = blank(game, 3);
    st.players[0].cash = 123;
    let a = ship_at(game, &mut st, 0, "LON");
    ship_at(game, &mut st, 0, "LON");
    ship_at(game, &mut st, 0, "LON");
    load(game, &mut st, a, "tea", 30, "CAN", 40);
    privateer(&mut st, a);
    let at_sea = ship_at(game, &mut st, 0, "L34:1");
    load(game, &mut st, at_sea, "spice", 30, "BAT", 4);
    let blue = ship_at(game, &mut st, 1, "BAT");
    st.forts[port(game, "BAT")] = Some(1);
    apply(
        game,
        &st,
        0,
        Action::Offer {
            to: 1,
            give: Bundle {
                cash: 77,
                ..Bundle::default()
            },
            get: Bundle {
                ships: vec![blue],
                ..Bundle::default()
            },
        },
    )
}

#[test]
fn the_picture_draws_every_ship_port_and_hazard_of_the_view() {
    let game = g();
    let st = mid_game(&game);
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let view = game.view(&st, viewer);
        let svg = picture(&game, &st, viewer);
        assert_eq!(count(&svg, "class=\"ship\""), 5, "{viewer:?}");
        assert_eq!(count(&svg, "class=\"ship\""), view.ships.len());
        // Each ship also has its line in its company's list.
        assert_eq!(count(&svg, "class=\"fleet-ship\""), 5);
        // Two loads: a crate on each loaded ship, on the map and in the list.
        assert_eq!(count(&svg, "class=\"cargo\""), 2 * 2);
        assert_eq!(count(&svg, "class=\"port\""), view.ports.len());
        // The base map without the isthmus: every hazard but the two Pacific ones.
        let base_hazards = board(&game).hazards.iter().filter(|h| !h.variant).count();
        assert_eq!(count(&svg, "class=\"hazard\""), base_hazards);
        assert!(svg.contains("cash 123"), "{viewer:?}");
        assert!(svg.contains("tea, paid 30 at CAN, 40 fields"));
        // A privateer's disc has the black ring.
        assert_eq!(count(&svg, "stroke=\"#000000\" stroke-width=\"2.5\""), 2);
        // Blue's fort at Batavia: one port square in Blue's colour.
        assert_eq!(
            count(
                &svg,
                "fill=\"#1f5fbf\" stroke=\"#1d1d1d\" stroke-width=\"1.5\""
            ),
            1
        );
    }
}

#[test]
fn offers_are_drawn_for_their_two_parties_only() {
    let game = g();
    let st = mid_game(&game);
    for (viewer, sees) in [
        (Viewer::Seat(0), true),
        (Viewer::Seat(1), true),
        (Viewer::Seat(2), false),
        (Viewer::Spectator, false),
    ] {
        let svg = picture(&game, &st, viewer);
        assert_eq!(svg.contains("77 ducats"), sees, "{viewer:?}");
        assert_eq!(
            count(&svg, "class=\"offer\""),
            usize::from(sees),
            "{viewer:?}"
        );
        // A seat is told it has no offers; a spectator has no offers section at all.
        assert_eq!(
            svg.contains("Your open offers"),
            viewer.seat().is_some(),
            "{viewer:?}"
        );
        assert_eq!(svg.contains("You (Red)"), viewer == Viewer::Seat(0));
    }
    // The parties' pictures differ from a third party's only in the offer.
    assert_ne!(
        picture(&game, &st, Viewer::Seat(0)),
        picture(&game, &st, Viewer::Seat(2))
    );
}

#[test]
fn title_and_description_say_whose_turn_and_the_position() {
    let game = g();
    let st = mid_game(&game);
    let svg = picture(&game, &st, Viewer::Seat(1));
    assert_eq!(title(&svg), "Fuldrigger: round 1 of 20, Red to play");
    let desc = svg
        .split("<desc id=\"desc\">")
        .nth(1)
        .and_then(|d| d.split("</desc>").next())
        .unwrap();
    assert!(desc.contains("You play Blue."), "{desc}");
    assert!(desc.contains("Red: cash 123"), "{desc}");
    assert!(
        desc.contains(" at LON (privateer, carrying tea paid 30)"),
        "{desc}"
    );
    assert!(desc.contains("You (Blue): cash 1000, fortune"), "{desc}");
    assert!(desc.contains("forts BAT"), "{desc}");
    assert!(desc.contains("Offer #"), "{desc}");
}

#[test]
fn the_isthmus_map_adds_the_pacific_strip() {
    let game = g();
    let options = Options {
        rounds: None,
        isthmus: true,
    };
    let st = started(&game, 2, &options);
    let svg = picture(&game, &st, Viewer::Spectator);
    assert!(svg.contains("Pacific crossing"));
    assert_eq!(count(&svg, "class=\"hazard\""), board(&game).hazards.len());
    assert!(svg.contains(">PAN</text>"));
    let base = picture(
        &game,
        &started(&game, 2, &Options::default()),
        Viewer::Spectator,
    );
    assert!(!base.contains("Pacific crossing") && !base.contains(">PAN</text>"));
}

#[test]
fn finished_games_name_the_winners_the_outcome_names() {
    let game = g();
    let options = Options {
        rounds: Some(3),
        isthmus: false,
    };
    let mut checked = 0;
    for seed in 0..12 {
        let seats = 2 + (seed as usize % 3);
        let p = random_playout(&game, &options, seats, seed, 20_000).unwrap();
        assert!(p.finished);
        let Status::Finished(outcome) = game.status(&p.state) else {
            unreachable!()
        };
        let svg = picture(&game, &p.state, Viewer::Spectator);
        let t = title(&svg).to_string();
        assert!(t.starts_with("Fuldrigger: Game over"), "{t}");
        let winners = outcome.winners();
        for s in 0..seats {
            assert_eq!(
                t.contains(&rules::seat_name(s)),
                winners.contains(&s),
                "seed {seed}: {t} vs {outcome:?}"
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 12);
}

#[test]
fn the_same_view_gives_the_same_bytes() {
    let game = g();
    let st = mid_game(&game);
    let a = picture(&game, &st, Viewer::Seat(0));
    let b = picture(&game, &st.clone(), Viewer::Seat(0));
    assert_eq!(a, b);
    // Another ship is another marker.
    let mut more = st.clone();
    ship_at(&game, &mut more, 2, "CPH");
    assert_eq!(
        count(&picture(&game, &more, Viewer::Seat(0)), "class=\"ship\""),
        6
    );
}
