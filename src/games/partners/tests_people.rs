//! The picture names the people at the table and the partnerships, marks what each play
//! involves, stays legible on a phone; the log tells plays in the third person.

use super::*;
use turnpost_engine::harness::{check_picture, random_playout};

fn card(s: &str) -> Card {
    s.parse().unwrap()
}

fn people(viewer: Viewer, seats: usize) -> People {
    let names = ["Ada", "Bo", "Cy", "Dee"];
    People::new(
        viewer,
        names[..seats].iter().map(|n| n.to_string()).collect(),
    )
}

fn picture(st: &State, viewer: Viewer, people: &People) -> String {
    let svg = Partners.board_svg(&Partners.view(st, viewer), people);
    check_picture(&svg).unwrap();
    svg
}

/// Four seats in play: Yellow (Ada) to play A♠ 7♠ 4♣ J♦ 5♥ with a piece on 5 (left its
/// start) and one home on H1; Red has a piece on 20, Blue on 40.
fn table() -> State {
    let mut st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(7))
        .unwrap();
    st.phase = Phase::Play;
    st.hands = vec![Vec::new(); 4];
    st.hands[0] = ["AS", "7S", "4C", "JD", "5H"]
        .iter()
        .map(|c| card(c))
        .collect();
    st.hands[0].sort();
    st.hands[2] = vec![card("2C")];
    st.pending = vec![None; 4];
    st.given = vec![None; 4];
    st.turn = 0;
    let at = |loc| Piece {
        loc,
        left_start: true,
    };
    st.pieces[0][0] = at(Loc::Track(5));
    st.pieces[0][1] = at(Loc::Home(1));
    st.pieces[1][0] = at(Loc::Track(20));
    st.pieces[2][0] = at(Loc::Track(40));
    st
}

fn smallest_font(svg: &str) -> f64 {
    svg.match_indices("font-size=\"")
        .filter_map(|(i, m)| {
            let rest = &svg[i + m.len()..];
            rest[..rest.find('"')?].parse::<f64>().ok()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn the_picture_names_the_players_and_the_partnerships() {
    let st = table();
    let svg = picture(&st, Viewer::Seat(1), &people(Viewer::Seat(1), 4));
    assert!(svg.contains("Ada (Yellow) to play"), "{svg}");
    assert!(
        svg.contains("Partners: Ada (Yellow) to play</title>"),
        "{svg}"
    );
    assert!(
        svg.contains("Ada &amp; Cy (Yellow + Blue): 1 of 8 home"),
        "{svg}"
    );
    assert!(
        svg.contains("You &amp; Dee (Red + Green): 0 of 8 home"),
        "{svg}"
    );
    let desc = &svg[svg.find("<desc").unwrap()..svg.find("</desc>").unwrap()];
    assert!(
        desc.contains("Teams: Ada &amp; Cy (Yellow + Blue) against You &amp; Dee (Red + Green)"),
        "{desc}"
    );
    assert!(desc.contains("Cy (Blue) (start field 32)"), "{desc}");
    assert!(!svg.contains("Seat "), "a seat by number: {svg}");
    // The hand rows and start circles name the person beside the colour.
    assert!(
        svg.contains(">Dee</text>") && svg.contains(">You</text>"),
        "{svg}"
    );
    // Two seats: each plays a whole team.
    let mut two = table();
    two.seats = 2;
    let svg = picture(&two, Viewer::Seat(0), &people(Viewer::Seat(0), 2));
    assert!(svg.contains("You (Yellow + Blue): 1 of 8 home"), "{svg}");
    assert!(svg.contains("Bo (Red + Green): 0 of 8 home"), "{svg}");
}

#[test]
fn the_recent_lines_name_the_mover() {
    let st = table();
    let next = Partners
        .apply(
            &st,
            0,
            &Action::Forward {
                card: card("5H"),
                from: Spot::Track(5),
                steps: 5,
                into_home: false,
            },
        )
        .unwrap();
    let svg = picture(&next, Viewer::Seat(2), &people(Viewer::Seat(2), 4));
    assert!(svg.contains("Ada (Yellow) plays 5♥"), "{svg}");
}

#[test]
fn every_play_names_what_it_involves_on_the_picture() {
    let st = table();
    let svg = picture(&st, Viewer::Seat(0), &people(Viewer::Seat(0), 4));
    let legal = Partners.legal_actions(&st, 0);
    let mut kinds = std::collections::HashSet::new();
    for a in &legal {
        let t = Partners.action_targets(&st, 0, a);
        assert!(t.len() >= 2, "{a:?}: {t:?}");
        for token in &t {
            assert!(svg.contains(&format!("data-target=\"{token}\"")), "{token}");
        }
        kinds.insert(std::mem::discriminant(a));
    }
    assert!(
        kinds.len() >= 5,
        "start, forward, back, seven, swap: {legal:?}"
    );
    let five = Action::Forward {
        card: card("5H"),
        from: Spot::Track(5),
        steps: 5,
        into_home: false,
    };
    assert_eq!(
        Partners.action_targets(&st, 0, &five),
        ["card:5H", "field:5", "field:10"]
    );
    let start = Action::Start { card: card("AS") };
    assert_eq!(
        Partners.action_targets(&st, 0, &start),
        ["card:AS", "circle:Yellow", "field:0"]
    );
    let swap = Action::Swap {
        card: card("JD"),
        a: 5,
        b: 20,
    };
    assert!(legal.contains(&swap));
    assert_eq!(
        Partners.action_targets(&st, 0, &swap),
        ["card:JD", "field:5", "field:20"]
    );
    // The card and the piece narrow the choice to that card's moves of that piece.
    let picked: Vec<&Action> = legal
        .iter()
        .filter(|a| {
            let t = Partners.action_targets(&st, 0, a);
            t.contains(&"card:5H".into()) && t.contains(&"field:5".into())
        })
        .collect();
    assert_eq!(picked, [&five]);
    // Only the hand to play is clickable; a watcher's picture has no hand cards marked.
    let other = picture(&st, Viewer::Seat(1), &people(Viewer::Seat(1), 4));
    assert!(!other.contains("data-target=\"card:"));
}

#[test]
fn the_log_tells_plays_in_the_third_person() {
    let st = table();
    for a in Partners.legal_actions(&st, 0) {
        let text = Partners.log_text(&st, 0, &a);
        assert!(text.starts_with("played "), "{text}");
        assert!(
            !text.to_lowercase().contains("your") && !text.contains('_'),
            "{text}"
        );
    }
    let five = Action::Forward {
        card: card("5H"),
        from: Spot::Track(5),
        steps: 5,
        into_home: false,
    };
    assert!(
        Partners
            .log_text(&st, 0, &five)
            .starts_with("played 5♥ for Yellow: "),
        "{}",
        Partners.log_text(&st, 0, &five)
    );
    // The exchange: the giver's own entry names the card and the partner's colour.
    let dealt = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(9))
        .unwrap();
    let give = dealt.hands[1][0];
    assert_eq!(
        Partners.log_text(&dealt, 1, &Action::Exchange { card: give }),
        format!("gave {} to their partner (Green)", give.pretty())
    );
}

#[test]
fn no_text_is_smaller_than_10() {
    for (seats, seed) in [(4, 3), (2, 5)] {
        let p = random_playout(&Partners, &Options::default(), seats, seed, 80).unwrap();
        let svg = picture(&p.state, Viewer::Seat(0), &people(Viewer::Seat(0), seats));
        assert!(smallest_font(&svg) >= 10.0, "{}", smallest_font(&svg));
        turnpost_engine::svg::save_png(&format!("partners-people-{seats}"), &svg).unwrap();
    }
}
