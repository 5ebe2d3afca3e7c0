//! The board picture: everything in the view is drawn (every hex, counter and colony), and
//! nothing more (face-down counters and markers stay face down, secrets stay with their
//! seat).

use super::*;
use turnpost_engine::Game;
use turnpost_engine::harness::{check_picture, random_playout};

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

fn picture(s: &State, viewer: Viewer) -> String {
    G.board_svg(
        &G.view(s, viewer),
        &turnpost_engine::People::unnamed(viewer),
    )
}

/// A three-player game in round 2 or later, during someone's movement, with counters of
/// every seat on the map, some of them face down.
fn midgame() -> State {
    (0..40u64)
        .find_map(|seed| {
            let p = random_playout(&G, &Options::default(), 3, seed, 4_000).ok()?;
            let mut s = G
                .setup(&Options::default(), 3, GameRng::seed_from_u64(seed))
                .ok()?;
            for (seat, a) in &p.log {
                s = G.apply(&s, *seat, a).ok()?;
                let explored = s.cells.iter().filter(|c| c.explored).count();
                if s.round >= 2
                    && s.phase == Phase::Move
                    && s.pending.is_none()
                    && explored >= 8
                    && s.groups.iter().any(|g| !g.face_up && g.owner == 1)
                    && s.colonies.iter().any(|c| !c.homeworld)
                {
                    return Some(s);
                }
            }
            None
        })
        .expect("a mid-game position in random play")
}

#[test]
fn every_hex_counter_and_colony_of_the_view_is_drawn() {
    let s = midgame();
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let v = G.view(&s, viewer);
        let svg = G.board_svg(&v, &turnpost_engine::People::unnamed(viewer));
        check_picture(&svg).unwrap();
        let unexplored = v.hexes.iter().filter(|h| !h.explored).count();
        assert_eq!(count(&svg, "class=\"hex unexplored\""), unexplored);
        assert_eq!(
            count(&svg, "class=\"hex\""),
            v.hexes.len() - unexplored,
            "explored hexes"
        );
        let face_down = v.groups.iter().filter(|g| g.kind.is_none()).count();
        assert_eq!(count(&svg, "class=\"counter face-down\""), face_down);
        assert_eq!(
            count(&svg, "class=\"counter\""),
            v.groups.len() - face_down,
            "open counters"
        );
        assert_eq!(count(&svg, "class=\"colony\""), v.colonies.len());
        assert_eq!(
            count(&svg, "class=\"homeworld\""),
            v.colonies.iter().filter(|c| c.homeworld).count()
        );
        // Every hex is labelled with its coordinates.
        for h in &v.hexes {
            assert!(svg.contains(&format!(">{},{}</text>", h.x, h.y)), "{h:?}");
        }
    }
}

#[test]
fn others_see_face_down_counters_and_a_spectator_sees_no_empire() {
    let s = midgame();
    let hidden_of_1 = s
        .groups
        .iter()
        .filter(|g| g.owner == 1 && !g.face_up)
        .count();
    assert!(hidden_of_1 > 0);
    let own = picture(&s, Viewer::Seat(1));
    let other = picture(&s, Viewer::Seat(0));
    let spectator = picture(&s, Viewer::Spectator);
    // Seat 1 sees its own counters open; seat 0 and a spectator see them face down.
    let open_of_others = |viewer: Seat| {
        s.groups
            .iter()
            .filter(|g| g.owner != viewer && !g.face_up)
            .count()
    };
    assert_eq!(
        count(&other, "class=\"counter face-down\""),
        open_of_others(0)
    );
    assert_eq!(
        count(&own, "class=\"counter face-down\""),
        open_of_others(1)
    );
    assert_eq!(
        count(&spectator, "class=\"counter face-down\""),
        s.groups.iter().filter(|g| !g.face_up).count()
    );
    // Only the seat itself gets its empire panel with CP and technology.
    assert_eq!(count(&own, "class=\"empire\""), 1);
    assert!(own.contains(&format!("{} CP banked", s.players[1].cp)));
    assert_eq!(count(&spectator, "class=\"empire\""), 0);
    assert_eq!(count(&spectator, "tech-pip"), 0);
    assert!(!spectator.contains("CP banked"));
    let levels: usize = s.players[1].tech.iter().map(|&l| usize::from(l)).sum();
    assert_eq!(count(&own, "class=\"tech-pip on\""), levels);
    assert!(own.contains("You (Seat 2)"));
    assert!(spectator.contains("spectator"));
}

#[test]
fn a_face_down_fleet_and_a_peeked_marker_stay_with_their_owner() {
    let mut s = started(2);
    let id = add(&mut s, 0, UnitKind::Destroyer, 3, 6, 3);
    let p = at(&s, 7, 3);
    s.cells[p].marker = Marker::Planet;
    s.cells[p].explored = false;
    s.players[0].peeks.push((p, Marker::Planet));
    let mine = picture(&s, Viewer::Seat(0));
    let theirs = picture(&s, Viewer::Seat(1));
    let spectator = picture(&s, Viewer::Spectator);
    assert!(mine.contains(">DD3</text>"), "the owner reads its fleet");
    assert!(mine.contains("Pl?</text>"), "the peeker reads its marker");
    for other in [&theirs, &spectator] {
        assert!(!other.contains("DD3"));
        assert!(!other.contains("destroyer"));
        assert!(!other.contains("Pl?</text>"));
        assert!(other.contains(&format!("#{id} Seat 1 face-down counter at (6,3)")));
    }
    // The owner's counter is marked as still hidden from the others.
    assert!(mine.contains("face down to the others"));
}

#[test]
fn the_picture_names_whose_turn_and_the_battle() {
    let mut s = started(2);
    let hw = s.players[1].homeworld.unwrap();
    let (x, y) = s.xy(hw);
    add(&mut s, 0, UnitKind::Destroyer, 2, x, y);
    s.phase = Phase::Combat;
    let s = G
        .apply(&s, 0, &Action::Fight { x, y, defender: 1 })
        .unwrap();
    let svg = picture(&s, Viewer::Seat(0));
    check_picture(&svg).unwrap();
    assert_eq!(count(&svg, "class=\"battle\""), 1);
    assert!(svg.contains(&format!("Battle at ({x},{y}): You (Seat 1) attacks Seat 2")));
    let desc = svg
        .split("<desc id=\"desc\">")
        .nth(1)
        .and_then(|d| d.split("</desc>").next())
        .unwrap();
    assert!(desc.contains("Waiting for"), "{desc}");
    assert!(desc.contains("You (Seat 1)"), "{desc}");
    assert!(desc.contains("CP banked"), "{desc}");
    // Same view, same bytes.
    assert_eq!(svg, picture(&s, Viewer::Seat(0)));
    let start = picture(&started(2), Viewer::Seat(0));
    assert!(start.contains("\u{25b6} to play"), "seat 1 moves first");
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

#[test]
fn the_picture_names_the_people_at_the_table() {
    let s = midgame();
    let svg = G.board_svg(&G.view(&s, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    check_picture(&svg).unwrap();
    assert!(svg.contains("You (Seat 1)"));
    assert!(svg.contains("Bo (Seat 2)") && svg.contains("Cy (Seat 3)"));
    // Every mention of another seat (players, counters, phase, events) names its person.
    for (bare, full) in [("Seat 2", "Bo (Seat 2)"), ("Seat 3", "Cy (Seat 3)")] {
        assert_eq!(count(&svg, bare), count(&svg, full), "{bare}");
    }
    let title = svg
        .split("<title id=\"title\">")
        .nth(1)
        .and_then(|t| t.split("</title>").next())
        .unwrap();
    assert!(
        ["You (Seat 1)", "Bo (Seat 2)", "Cy (Seat 3)"]
            .iter()
            .any(|n| title.contains(n)),
        "whose turn, by name: {title}"
    );
}

#[test]
fn moves_are_made_by_clicking_a_counter_and_a_hex() {
    let s = midgame();
    let seat = s.current_player();
    let legal = G.legal_actions(&s, seat);
    let svg = G.board_svg(&G.view(&s, Viewer::Seat(seat)), &named(Viewer::Seat(seat)));
    let moves: Vec<&Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Move { .. }))
        .collect();
    assert!(!moves.is_empty());
    for a in moves {
        let t = G.action_targets(&s, seat, a);
        assert!(t.len() >= 2, "{t:?}");
        assert!(t[0].starts_with("counter:") && t.last().unwrap().starts_with("hex:x"));
        for token in &t {
            assert!(svg.contains(&format!("data-target=\"{token}\"")), "{token}");
        }
    }
    // Every legal action but the plain steps (end movement) names something to click.
    for a in &legal {
        if !matches!(a, Action::EndMovement) {
            assert!(!G.action_targets(&s, seat, a).is_empty(), "{a:?}");
        }
    }
    // A Homeworld is placed by clicking its hex.
    let start = G
        .setup(&Options::default(), 2, GameRng::seed_from_u64(3))
        .unwrap();
    let choose = G.legal_actions(&start, 0);
    assert!(matches!(choose[0], Action::ChooseHomeworld { .. }));
    let svg = G.board_svg(&G.view(&start, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    for a in &choose {
        let t = G.action_targets(&start, 0, a);
        assert!(svg.contains(&format!("data-target=\"{}\"", t[0])));
    }
}

#[test]
fn the_log_tells_a_move_in_the_third_person() {
    let s = midgame();
    let seat = s.current_player();
    let legal = G.legal_actions(&s, seat);
    let mv = legal
        .iter()
        .find(|a| matches!(a, Action::Move { .. }))
        .unwrap();
    let text = G.log_text(&s, seat, mv);
    assert!(text.starts_with("moved #"), "{text}");
    let start = G
        .setup(&Options::default(), 2, GameRng::seed_from_u64(3))
        .unwrap();
    let home = G.legal_actions(&start, 0)[0].clone();
    assert!(G.describe_action(&start, 0, &home).contains("your"));
    let text = G.log_text(&start, 0, &home);
    assert!(text.starts_with("placed their Homeworld at ("), "{text}");
    for a in legal
        .iter()
        .chain([&home, &Action::EndMovement, &Action::SubmitOrders])
    {
        let text = G.log_text(&s, seat, a);
        assert!(!text.contains("your") && !text.contains("you "), "{text}");
        assert!(!text.contains('_'), "internal name in {text}");
    }
}

#[test]
fn every_text_is_at_least_10_units_high() {
    let s = midgame();
    for viewer in [Viewer::Seat(0), Viewer::Spectator] {
        let svg = G.board_svg(&G.view(&s, viewer), &named(viewer));
        assert!(smallest_font(&svg) >= 10.0, "{}", smallest_font(&svg));
    }
}

#[test]
fn save_the_mid_game_picture() {
    let s = midgame();
    let svg = G.board_svg(&G.view(&s, Viewer::Seat(0)), &named(Viewer::Seat(0)));
    turnpost_engine::svg::save_png("space-empires-4x-mid-game", &svg).unwrap();
}
