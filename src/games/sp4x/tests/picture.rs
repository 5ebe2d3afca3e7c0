//! The board picture: every tile, piece and road of the view is drawn; the viewer's hand is
//! face up, every other hand only as backs, and a spectator sees no hand.

use super::*;
use turnpost_engine::harness::check_picture;

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

fn picture(st: &State, viewer: Viewer) -> String {
    Sp4x.board_svg(
        &Sp4x.view(st, viewer),
        &turnpost_engine::People::unnamed(viewer),
    )
}

/// A game in progress with a grown map: explored tiles, roads, bases and men of several
/// colours.
fn grown_map() -> State {
    (0..40u64)
        .find_map(|seed| {
            let st = random_playout(&Sp4x, &Options::default(), 4, seed, 300)
                .ok()?
                .state;
            let bases = st
                .tiles
                .iter()
                .flat_map(|t| &t.bases)
                .filter(|&&b| b)
                .count();
            (st.step != Step::Over && st.tiles.len() >= 9 && st.roads.len() >= 6 && bases >= 5)
                .then_some(st)
        })
        .expect("a grown map in random play")
}

#[test]
fn every_tile_piece_and_road_of_the_view_is_drawn() {
    let st = grown_map();
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let v = Sp4x.view(&st, viewer);
        let svg = Sp4x.board_svg(&v, &turnpost_engine::People::unnamed(viewer));
        check_picture(&svg).unwrap();
        assert_eq!(count(&svg, "class=\"tile\""), v.tiles.len());
        assert_eq!(count(&svg, "class=\"road\""), v.roads.len());
        let pairs = |f: &dyn Fn(&TileView, usize) -> bool| {
            v.tiles
                .iter()
                .map(|t| (0..st.seats).filter(|&s| f(t, s)).count())
                .sum::<usize>()
        };
        assert_eq!(count(&svg, "class=\"base\""), pairs(&|t, s| t.bases[s]));
        assert_eq!(
            count(&svg, "class=\"man\""),
            pairs(&|t, s| !t.bases[s] && t.men[s] > 0)
        );
        assert_eq!(count(&svg, "class=\"men\""), pairs(&|t, s| t.men[s] > 0));
        for t in &v.tiles {
            assert!(svg.contains(&format!(">{},{}</text>", t.hex.q, t.hex.r)));
        }
        for p in &v.players {
            assert!(svg.contains(&format!(">score {}</text>", p.score)));
        }
    }
}

#[test]
fn own_hand_face_up_other_hands_as_backs_spectator_sees_none() {
    let st = midgame();
    let sizes: Vec<usize> = st.players.iter().map(|p| p.hand.len()).collect();
    assert!(sizes.iter().all(|&n| n > 0));
    let all: usize = sizes.iter().sum();
    for (seat, &size) in sizes.iter().enumerate() {
        let svg = picture(&st, Viewer::Seat(seat));
        assert_eq!(count(&svg, "class=\"hand-card\""), size);
        assert_eq!(count(&svg, "class=\"card-back\""), all - size);
    }
    let spectator = picture(&st, Viewer::Spectator);
    assert_eq!(count(&spectator, "class=\"hand-card\""), 0);
    assert_eq!(count(&spectator, "class=\"card-back\""), all);
    assert!(!spectator.contains("Your hand"));
}

#[test]
fn a_hand_is_read_only_by_its_holder() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::Mountain);
    tile(&mut st, 0, 1, TileKind::PlasticSteppe);
    men(&mut st, 0, 0, 0, 2);
    men(&mut st, 0, 0, 1, 1);
    base(&mut st, 1, 0, 1);
    road(&mut st, h(0, 0), h(1, 0), 0);
    road(&mut st, h(0, 0), h(1, 0), 1);
    hand(&mut st, 0, &[Card::War, Card::Men, Card::Men]);
    hand(&mut st, 1, &[Card::Build]);
    let red = picture(&st, Viewer::Seat(0));
    let blue = picture(&st, Viewer::Seat(1));
    let spectator = picture(&st, Viewer::Spectator);
    assert_eq!(count(&red, "class=\"hand-card\""), 3);
    assert!(red.contains(">war</text>") && red.contains(">men</text>"));
    assert!(
        red.contains("Your hand: men, men, war."),
        "desc names the hand"
    );
    assert_eq!(count(&blue, "class=\"hand-card\""), 1);
    assert_eq!(count(&blue, "class=\"card-back\""), 3);
    for other in [&blue, &spectator] {
        assert!(!other.contains(">war</text>"));
        assert!(!other.contains("men, men, war"));
    }
    assert!(!spectator.contains(">build</text>"));
    // Two colours' roads on one edge, Red's two men, Blue's man on Blue's base.
    assert_eq!(count(&red, "class=\"road\""), 2);
    assert_eq!(count(&red, "class=\"man\""), 2);
    assert_eq!(count(&red, "class=\"base\""), 1);
    // Seat 0 is to act in MAIN.
    assert!(red.contains("Waiting for You (Red): show a card or play a pair"));
    assert_eq!(red, picture(&st, Viewer::Seat(0)), "same view, same bytes");
}

fn named(viewer: Viewer) -> turnpost_engine::People {
    turnpost_engine::People::new(
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

/// Red holds move & explore and men, with two men on the mothership next to a mountain.
fn red_to_move() -> State {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::Mountain);
    tile(&mut st, 0, 1, TileKind::PlasticSteppe);
    men(&mut st, 0, 0, 0, 2);
    hand(&mut st, 0, &[Card::MoveExplore, Card::Men]);
    hand(&mut st, 1, &[Card::Build]);
    st.events.push("Blue shows build".into());
    st
}

#[test]
fn the_picture_names_the_people_at_the_table() {
    let st = red_to_move();
    let svg = Sp4x.board_svg(&Sp4x.view(&st, Viewer::Seat(1)), &named(Viewer::Seat(1)));
    check_picture(&svg).unwrap();
    assert!(svg.contains("Ada (Red)") && svg.contains("You (Blue)") && svg.contains("Cy (Green)"));
    assert!(
        svg.contains("Waiting for Ada (Red): show a card"),
        "whose turn, by name"
    );
    assert!(
        svg.contains("You (Blue) shows build"),
        "the log names the person"
    );
    // No bare colour word is left where a person is meant.
    let rest = svg.replace("Ada (Red)", "").replace("You (Blue)", "");
    for bare in [">Red", " Red ", "Red:", "Red'", ">Blue", " Blue ", "Blue:"] {
        assert!(!rest.contains(bare), "{bare}");
    }
    let title = svg.split("</title>").next().unwrap();
    assert!(title.contains("Ada (Red)'s turn"), "{title}");
}

#[test]
fn cards_men_and_tiles_are_clicked_on_the_picture() {
    let st = red_to_move();
    let show = Action::Show {
        card: Card::MoveExplore,
    };
    assert!(legal(&st, 0).contains(&show));
    assert_eq!(
        Sp4x.action_targets(&st, 0, &show),
        vec!["card:move_explore"]
    );
    let svg = Sp4x.board_svg(&Sp4x.view(&st, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    assert!(svg.contains("data-target=\"card:move_explore\""));
    // After showing move & explore, each move names the man's tile and the destination.
    let st = play(&st, 0, show);
    let svg = Sp4x.board_svg(&Sp4x.view(&st, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    let moves: Vec<Action> = legal(&st, 0)
        .into_iter()
        .filter(|a| matches!(a, Action::Move { .. } | Action::Explore { .. }))
        .collect();
    assert!(!moves.is_empty());
    for a in &moves {
        let t = Sp4x.action_targets(&st, 0, a);
        assert!(t.len() >= 2 && t[0] == "hex:q0r0", "{t:?}");
        for token in &t {
            assert!(svg.contains(&format!("data-target=\"{token}\"")), "{token}");
        }
    }
}

#[test]
fn the_log_tells_a_move_in_the_third_person() {
    let st = red_to_move();
    let show = Action::Show {
        card: Card::MoveExplore,
    };
    assert!(
        Sp4x.log_text(&st, 0, &show)
            .starts_with("showed move & explore")
    );
    assert!(
        Sp4x.describe_action(&st, 0, &show)
            .starts_with("show move & explore")
    );
    let st = play(&st, 0, show);
    for a in legal(&st, 0) {
        let text = Sp4x.log_text(&st, 0, &a);
        assert!(!text.contains("your") && !text.contains("you "), "{text}");
        assert!(!text.contains('_'), "internal name in {text}");
        assert!(!Sp4x.describe_action(&st, 0, &a).contains('_'));
    }
    assert!(
        st.events.iter().all(|e| !e.contains('_')),
        "{:?}",
        st.events
    );
}

#[test]
fn every_text_is_at_least_10_units_high() {
    let st = grown_map();
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        let svg = Sp4x.board_svg(&Sp4x.view(&st, viewer), &named(viewer));
        assert!(smallest_font(&svg) >= 10.0, "{}", smallest_font(&svg));
    }
}

#[test]
fn save_the_mid_game_picture() {
    let st = grown_map();
    let svg = Sp4x.board_svg(&Sp4x.view(&st, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    turnpost_engine::svg::save_png("sp4x-mid-game", &svg).unwrap();
}
