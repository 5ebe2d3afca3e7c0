//! The picture names the people at the table, marks what each move involves, stays
//! legible on a phone; the log tells moves in the third person; a finished game shows
//! every round's points.

use super::tests::{GAME, build, loose, position};
use super::*;
use turnpost_engine::harness::{check_picture, random_playout};
use turnpost_engine::{Game, People, Status};

fn people(viewer: Viewer) -> People {
    People::new(viewer, vec!["Ada".into(), "Bo".into(), "Cy".into()])
}

fn picture(st: &State, viewer: Viewer, people: &People) -> String {
    let svg = GAME.board_svg(&GAME.view(st, viewer), people);
    check_picture(&svg).unwrap();
    svg
}

/// Seat 1 to play 9♥ 4♣ 5♣ against loose 9♣ 5♦ 4♦ and Bo's build of 9; Cy waits.
fn table() -> State {
    let mut t = loose("9C 5D 4D");
    t.push(build(3, 9, BuildKind::Single, 1, "2C 7D"));
    position(&["9H 4C 5C", "KD 3D 9S", "8S 6C JC"], t, 0)
}

/// Every "Seat N" the picture's text shows stands in brackets after a person's name.
fn bare_seats(svg: &str) -> Vec<String> {
    let mut bare = Vec::new();
    for n in 1..=4 {
        let word = format!("Seat {n}");
        for (i, _) in svg.match_indices(&word) {
            if !svg[..i].ends_with('(') {
                let from = i.saturating_sub(30);
                bare.push(svg[from..(i + 10).min(svg.len())].to_string());
            }
        }
    }
    bare
}

pub(super) fn smallest_font(svg: &str) -> f64 {
    svg.match_indices("font-size=\"")
        .filter_map(|(i, m)| {
            let rest = &svg[i + m.len()..];
            rest[..rest.find('"')?].parse::<f64>().ok()
        })
        .fold(f64::INFINITY, f64::min)
}

#[test]
fn the_picture_names_every_seat_with_its_person() {
    let st = table();
    let svg = picture(&st, Viewer::Seat(1), &people(Viewer::Seat(1)));
    for name in ["Ada (Seat 1)", "You (Seat 2)", "Cy (Seat 3)"] {
        assert!(svg.contains(name), "{name} missing:\n{svg}");
    }
    assert!(svg.contains("Ada (Seat 1) to play"), "{svg}");
    // The build's owner, and the title and description say who plays.
    assert!(
        svg.contains("Kasino: Ada (Seat 1) to play</title>"),
        "{svg}"
    );
    let desc = &svg[svg.find("<desc").unwrap()..svg.find("</desc>").unwrap()];
    assert!(desc.contains("owned by You (Seat 2)"), "{desc}");
    assert!(desc.contains("Cy (Seat 3): 3 in hand"), "{desc}");
    assert_eq!(bare_seats(&svg), Vec::<String>::new());
    // A spectator sees every seat by name, nobody as "you".
    let spectator = picture(&st, Viewer::Spectator, &people(Viewer::Spectator));
    assert!(spectator.contains("Bo (Seat 2)") && !spectator.contains("You ("));
    assert_eq!(bare_seats(&spectator), Vec::<String>::new());
}

#[test]
fn partners_show_as_a_side_and_long_names_keep_the_seat() {
    let mut st = GAME
        .setup(
            &Options {
                teams: true,
                ..Options::default()
            },
            4,
            GameRng::seed_from_u64(3),
        )
        .unwrap();
    st.turn = 2;
    let long = "Wolfeschlegelsteinhausenbergerdorff";
    let p = People::new(
        Viewer::Seat(0),
        vec!["Ada".into(), "Bo".into(), long.into(), "Dee".into()],
    );
    let svg = picture(&st, Viewer::Seat(0), &p);
    assert!(
        svg.contains("You &amp; Wolfeschlegelstei… (Seats 1 &amp; 3)"),
        "{svg}"
    );
    assert!(svg.contains("Bo &amp; Dee (Seats 2 &amp; 4)"), "{svg}");
    // The long name is cut, the seat it sits at is not.
    assert!(svg.contains("(Seat 3)"), "{svg}");
    assert!(!svg.contains(long));
}

#[test]
fn every_move_names_what_it_involves_on_the_picture() {
    let st = table();
    let svg = picture(&st, Viewer::Seat(0), &people(Viewer::Seat(0)));
    let legal = GAME.legal_actions(&st, 0);
    let mut kinds = std::collections::HashSet::new();
    for a in &legal {
        let t = GAME.action_targets(&st, 0, a);
        assert!(!t.is_empty(), "{a:?}");
        assert_eq!(t[0], format!("card:{}", a.card()), "{a:?}");
        for token in &t {
            assert!(svg.contains(&format!("data-target=\"{token}\"")), "{token}");
        }
        kinds.insert(std::mem::discriminant(a));
    }
    assert!(kinds.len() >= 3, "trail, capture and build: {legal:?}");
    // 9♥ taking the 9♣, the 5♦ + 4♦ and Bo's build: the card, the loose cards, the build.
    let take_all = Action::Capture {
        card: "9H".parse().unwrap(),
        cards: vec![
            "9C".parse().unwrap(),
            "5D".parse().unwrap(),
            "4D".parse().unwrap(),
        ],
        builds: vec![3],
    };
    assert!(legal.contains(&take_all));
    assert_eq!(
        GAME.action_targets(&st, 0, &take_all),
        ["card:9H", "table:9C", "table:5D", "table:4D", "build:B3"]
    );
    // A click on the hand card and then the build narrows to the captures of that build.
    let both: Vec<&Action> = legal
        .iter()
        .filter(|a| {
            let t = GAME.action_targets(&st, 0, a);
            t.contains(&"card:9H".to_string()) && t.contains(&"build:B3".to_string())
        })
        .collect();
    assert!(!both.is_empty() && both.len() < legal.len());
    // Another seat's picture shows no face-up hand, so it marks no hand card.
    let other = picture(&st, Viewer::Seat(1), &people(Viewer::Seat(1)));
    assert!(!other.contains("data-target=\"card:9H\""));
}

#[test]
fn the_log_tells_moves_in_the_third_person() {
    let st = table();
    let nine = |s: &str| s.parse().unwrap();
    let take = Action::Capture {
        card: nine("9H"),
        cards: vec![nine("9C")],
        builds: vec![3],
    };
    assert_eq!(
        GAME.log_text(&st, 0, &take),
        "captured 9♣, build B3 with 9♥"
    );
    assert_eq!(
        GAME.log_text(&st, 0, &Action::Trail { card: nine("4C") }),
        "trailed 4♣"
    );
    for a in GAME.legal_actions(&st, 0) {
        let text = GAME.log_text(&st, 0, &a);
        let first = text.split_whitespace().next().unwrap_or("");
        assert!(
            ["trailed", "captured", "built", "raised", "added", "cleared"].contains(&first),
            "{text}"
        );
        assert!(
            !text.to_lowercase().contains("your") && !text.contains('_'),
            "{text}"
        );
    }
}

#[test]
fn a_finished_game_shows_every_rounds_points_in_words() {
    let p = random_playout(&GAME, &Options::default(), 2, 5, 5000).unwrap();
    assert!(p.finished);
    let rounds = p.state.history.len();
    assert!(rounds >= 2, "{rounds}");
    let text = GAME.render_text(&p.state, Viewer::Seat(0));
    for n in 1..=rounds {
        assert!(text.contains(&format!("Round {n}:")), "{text}");
    }
    let svg = picture(&p.state, Viewer::Seat(0), &people(Viewer::Seat(0)));
    let raw = [
        "diamond_10",
        "spade_2",
        "most_spades",
        "most_cards",
        "last_capture",
    ];
    let Status::Finished(o) = GAME.status(&p.state) else {
        panic!("finished")
    };
    for key in raw {
        assert!(!text.contains(key), "{key} in\n{text}");
        assert!(!svg.contains(key), "{key} in the picture");
        assert!(!o.summary.contains(key));
    }
    assert!(text.contains("10♦") || text.contains("2♠") || text.contains("aces"));
    assert!(svg.contains("Points by round"));
    for n in 1..=rounds {
        assert!(svg.contains(&format!(">Round {n}<")), "round {n}");
    }
    // One row per side per round, each with its round total.
    assert_eq!(
        svg.matches("font-weight=\"bold\" text-anchor=\"middle\" fill=\"#222222\">+")
            .count(),
        2 * rounds
    );
    let desc = &svg[svg.find("<desc").unwrap()..svg.find("</desc>").unwrap()];
    assert!(desc.contains("Round 1: You (Seat 1)"), "{desc}");
}

#[test]
fn no_text_is_smaller_than_10() {
    let p = random_playout(&GAME, &Options::default(), 3, 9, 60).unwrap();
    let svg = picture(&p.state, Viewer::Seat(0), &people(Viewer::Seat(0)));
    assert!(smallest_font(&svg) >= 10.0, "{}", smallest_font(&svg));
    let end = random_playout(&GAME, &Options::default(), 2, 5, 5000).unwrap();
    let svg = picture(&end.state, Viewer::Spectator, &people(Viewer::Spectator));
    assert!(smallest_font(&svg) >= 10.0, "{}", smallest_font(&svg));
    assert!(smallest_font(&svg).is_finite());
}

#[test]
fn mid_game_picture_to_png() {
    let p = random_playout(&GAME, &Options::default(), 3, 9, 40).unwrap();
    let svg = picture(&p.state, Viewer::Seat(0), &people(Viewer::Seat(0)));
    turnpost_engine::svg::save_png("kasino-people-mid", &svg).unwrap();
    let end = random_playout(&GAME, &Options::default(), 2, 5, 5000).unwrap();
    let svg = picture(&end.state, Viewer::Seat(1), &people(Viewer::Seat(1)));
    turnpost_engine::svg::save_png("kasino-people-end", &svg).unwrap();
}
