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
    assert!(own.contains("Seat 2 (you)"));
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
    assert!(svg.contains(&format!("Battle at ({x},{y}): Seat 1 attacks Seat 2")));
    let desc = svg
        .split("<desc id=\"desc\">")
        .nth(1)
        .and_then(|d| d.split("</desc>").next())
        .unwrap();
    assert!(desc.contains("Waiting for"), "{desc}");
    assert!(desc.contains("Seat 1 (you)"), "{desc}");
    assert!(desc.contains("CP banked"), "{desc}");
    // Same view, same bytes.
    assert_eq!(svg, picture(&s, Viewer::Seat(0)));
    let start = picture(&started(2), Viewer::Seat(0));
    assert!(start.contains("\u{25b6} to play"), "seat 1 moves first");
}
