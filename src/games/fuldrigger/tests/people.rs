//! The picture names the people at the table, labels and marks every place and ship an
//! action names, stays legible on a phone; the log tells actions in the third person.

use super::*;
use turnpost_engine::People;
use turnpost_engine::harness::{check_picture, random_playout};

fn people(viewer: Viewer) -> People {
    People::new(viewer, vec!["Ada".into(), "Bo".into(), "Cy".into()])
}

fn picture(game: &Fuldrigger, st: &State, viewer: Viewer) -> String {
    let svg = game.board_svg(&game.view(st, viewer), &people(viewer));
    check_picture(&svg).unwrap_or_else(|e| panic!("{viewer:?}: {e}\n{svg}"));
    svg
}

fn smallest_font(svg: &str) -> f64 {
    svg.match_indices("font-size=\"")
        .filter_map(|(i, m)| {
            let rest = &svg[i + m.len()..];
            rest[..rest.find('"')?].parse::<f64>().ok()
        })
        .fold(f64::INFINITY, f64::min)
}

/// Red (Ada) moving with 5 fields: one merchant in London, one at sea on L34:1 with
/// spice; Blue (Bo) has a ship in Batavia.
fn sailing(game: &Fuldrigger) -> (State, u32, u32) {
    let mut st = blank(game, 3);
    let home = ship_at(game, &mut st, 0, "LON");
    let at_sea = ship_at(game, &mut st, 0, "L34:1");
    load(game, &mut st, at_sea, "spice", 30, "BAT", 4);
    ship_at(game, &mut st, 1, "BAT");
    moving(&mut st, 5);
    (st, home, at_sea)
}

#[test]
fn the_picture_names_every_company_with_its_person() {
    let game = g();
    let (st, _, at_sea) = sailing(&game);
    let svg = picture(&game, &st, Viewer::Seat(1));
    for name in ["Ada (Red)", "You (Blue)", "Cy (Green)"] {
        assert!(svg.contains(name), "{name}");
    }
    assert!(svg.contains("Ada (Red) to play: movement"), "{svg}");
    assert!(
        svg.contains("<title id=\"title\">Fuldrigger: round 1 of 20, Ada (Red) to play</title>")
    );
    let desc = svg
        .split("<desc id=\"desc\">")
        .nth(1)
        .and_then(|d| d.split("</desc>").next())
        .unwrap();
    assert!(desc.contains("You play Blue."), "{desc}");
    assert!(desc.contains("Cy (Green): cash 1000"), "{desc}");
    assert!(desc.contains("at field 1 of "), "{desc}");
    // The events name the people, and no lane code is left in the picture's text.
    let next = apply(&game, &st, 0, sail(at_sea, "L34:2"));
    let svg = picture(&game, &next, Viewer::Seat(2));
    assert!(
        svg.contains(&format!("Ada (Red) ship #{at_sea} sails from field 1 of ")),
        "{svg}"
    );
    assert!(!svg.contains(">L34:"), "{svg}");
}

#[test]
fn sailing_attacking_and_trading_name_ships_and_places_on_the_map() {
    let game = g();
    let (st, home, at_sea) = sailing(&game);
    let svg = picture(&game, &st, Viewer::Seat(0));
    let legal = game.legal_actions(&st, 0);
    let sails: Vec<&Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Sail { .. }))
        .collect();
    assert!(sails.len() > 4, "{legal:?}");
    for a in &legal {
        let t = game.action_targets(&st, 0, a);
        for token in &t {
            assert!(svg.contains(&format!("data-target=\"{token}\"")), "{token}");
        }
        if let Action::Sail { ship, .. } = a {
            assert_eq!(t.len(), 2, "{a:?}");
            assert_eq!(t[0], format!("ship:{ship}"));
        }
    }
    assert_eq!(
        game.action_targets(&st, 0, &sail(at_sea, "L34:2")),
        [format!("ship:{at_sea}"), "lane:L34.2".to_string()]
    );
    // Every sail of the London ship leads somewhere on the map, each to its own place.
    let home_sails: Vec<Vec<String>> = sails
        .iter()
        .filter(|a| matches!(a, Action::Sail { ship, .. } if *ship == home))
        .map(|a| game.action_targets(&st, 0, a))
        .collect();
    let mut places: Vec<&String> = home_sails.iter().map(|t| &t[1]).collect();
    places.sort();
    places.dedup();
    assert_eq!(places.len(), home_sails.len());
    // The action text names the lane field as the map shows it.
    let text = game.describe_action(&st, 0, &sail(at_sea, "L34:2"));
    assert!(!text.contains("L34"), "{text}");
    assert!(text.contains("to field 2 of "), "{text}");
    // Trading: the ship and the good's column; choosing a home city: the port.
    let mut port_st = st.clone();
    port_st.phase = Phase::Before;
    let buy = Action::BuyGood {
        ship: home,
        good: "timber".into(),
    };
    assert_eq!(
        game.action_targets(&port_st, 0, &buy),
        [format!("ship:{home}"), "good:timber".to_string()]
    );
    let svg = picture(&game, &port_st, Viewer::Seat(0));
    for a in game.legal_actions(&port_st, 0) {
        for token in game.action_targets(&port_st, 0, &a) {
            assert!(svg.contains(&format!("data-target=\"{token}\"")), "{token}");
        }
    }
    let fresh = game
        .setup(&Options::default(), 3, GameRng::seed_from_u64(7))
        .unwrap();
    let chooser = rules::home_chooser(&fresh).unwrap();
    let svg = picture(&game, &fresh, Viewer::Seat(chooser));
    for a in game.legal_actions(&fresh, chooser) {
        let t = game.action_targets(&fresh, chooser, &a);
        assert!(t.len() == 1 && t[0].starts_with("port:"), "{t:?}");
        assert!(svg.contains(&format!("data-target=\"{}\"", t[0])));
    }
}

#[test]
fn the_log_tells_actions_in_the_third_person() {
    let game = g();
    let (st, _, at_sea) = sailing(&game);
    let text = game.log_text(&st, 0, &sail(at_sea, "L34:2"));
    assert!(
        text.starts_with(&format!("sailed ship #{at_sea} at field 1 of ")),
        "{text}"
    );
    let offer = Action::Offer {
        to: 1,
        give: Bundle {
            cash: 50,
            ..Bundle::default()
        },
        get: Bundle::default(),
    };
    assert_eq!(
        game.log_text(&st, 0, &offer),
        "offered Blue 50 ducats for nothing"
    );
    let mut before = st.clone();
    before.phase = Phase::Before;
    for s in [&st, &before] {
        for a in game.legal_actions(s, 0) {
            let text = game.log_text(s, 0, &a);
            assert!(!text.to_lowercase().contains("you"), "{text}");
            let first = text.split_whitespace().next().unwrap_or("");
            assert!(
                first.ends_with("ed")
                    || [
                        "sold", "bought", "built", "made", "chose", "gave", "withdrew"
                    ]
                    .contains(&first),
                "{text}"
            );
        }
    }
}

#[test]
fn no_text_is_smaller_than_10() {
    let game = g();
    let p = random_playout(&game, &Options::default(), 3, 11, 120).unwrap();
    let svg = picture(&game, &p.state, Viewer::Seat(0));
    assert!(smallest_font(&svg) >= 10.0, "{}", smallest_font(&svg));
    turnpost_engine::svg::save_png("fuldrigger-people-mid", &svg).unwrap();
}
