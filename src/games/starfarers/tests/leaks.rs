//! Hidden information, trade offers, the data file and hostile input.

use super::*;
use crate::starfarers::data::{DATA_TOML, parse_and_validate};

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

#[test]
fn leak_hands_are_seen_only_by_their_owner() {
    let (g, mut s) = start(4, Phase::TradeBuild);
    s.players[1].hand = hand(0, 0, 3, 5, 0);
    let own = g.view(&s, Viewer::Seat(1));
    assert_eq!(own.players[1].hand, Some(hand(0, 0, 3, 5, 0)));
    assert!(
        g.render_text(&s, Viewer::Seat(1))
            .contains("YOUR HAND: 3 fuel, 5 ore")
    );
    for viewer in [Viewer::Seat(0), Viewer::Seat(2), Viewer::Spectator] {
        let v = g.view(&s, viewer);
        assert_eq!(v.players[1].hand, None);
        assert_eq!(v.players[1].cards_in_hand, 8, "counts are public");
        assert!(!json(&v.players[1]).contains("\"ore\""));
        let text = g.render_text(&s, viewer);
        assert!(!text.contains("3 fuel, 5 ore"), "{viewer:?}");
    }
    assert!(!g.render_text(&s, Viewer::Spectator).contains("YOUR HAND"));
}

#[test]
fn leak_peeked_chips_are_seen_only_by_the_peeker() {
    let (g, mut s) = start(4, Phase::Roll);
    let t = planet(&g, "s1 T");
    set_chip(&mut s, t, Chip::Pirates(4));
    s.ships.clear();
    let corner = site(&g, "s1", 1);
    let id = put_ship(&mut s, 0, ShipKind::Colony, plain_neighbour(&g, corner));
    fly_phase(&mut s, 3);
    let before_b = g.render_text(&s, Viewer::Seat(1));
    s = act(
        &g,
        &s,
        0,
        Action::Fly {
            ship: id,
            to: corner,
            via: vec![],
        },
    );
    let a = g.view(&s, Viewer::Seat(0));
    assert_eq!(a.planets[t].chip, Some(Chip::Pirates(4)));
    assert!(
        g.render_text(&s, Viewer::Seat(0))
            .contains("s1 T food pirates 4")
    );
    for viewer in [Viewer::Seat(1), Viewer::Seat(2), Viewer::Spectator] {
        let v = g.view(&s, viewer);
        assert_eq!(v.planets[t].chip, None);
        assert_eq!(v.planets[t].seen_by, vec![0], "who peeked is public");
        let text = g.render_text(&s, viewer);
        assert!(
            !text.contains("pirates 4") && !text.contains("fP4"),
            "{viewer:?}"
        );
        assert!(
            v.log
                .iter()
                .any(|l| l.contains("peeks at") && !l.contains("pirates"))
        );
    }
    assert!(before_b.contains("s1 T food ?"));
    // Resampling for B changes the chip, and B cannot tell.
    let mut rng = GameRng::seed_from_u64(9);
    let changed = (0..20).any(|_| {
        let other = g.resample_hidden(&s, Viewer::Seat(1), &mut rng);
        assert_eq!(
            json(&g.view(&other, Viewer::Seat(1))),
            json(&g.view(&s, Viewer::Seat(1)))
        );
        other.planets[t].chip != s.planets[t].chip
    });
    assert!(changed);
    // For A the peeked chip is fixed.
    for _ in 0..10 {
        let other = g.resample_hidden(&s, Viewer::Seat(0), &mut rng);
        assert_eq!(other.planets[t].chip, Some(Chip::Pirates(4)));
    }
}

#[test]
fn leak_encounter_deck_order_and_stolen_card() {
    let (g, mut s) = start(3, Phase::Steal);
    s.players[1].hand = hand(0, 0, 0, 0, 1);
    let v = json(&g.view(&s, Viewer::Seat(0)));
    assert!(!v.contains("\"deck\""));
    let s2 = act(&g, &s, 0, Action::Steal { from: 1 });
    assert_eq!(s2.players[0].hand.trade_goods, 1);
    let line = |viewer| g.view(&s2, viewer).log.last().cloned().unwrap_or_default();
    assert!(line(Viewer::Seat(0)).contains("1 trade goods"));
    assert!(line(Viewer::Seat(1)).contains("1 trade goods"));
    assert!(!line(Viewer::Seat(2)).contains("trade goods"));
    assert!(!line(Viewer::Spectator).contains("trade goods"));
    // The deck is reshuffled by resampling.
    let mut rng = GameRng::seed_from_u64(3);
    let other = g.resample_hidden(&s, Viewer::Seat(0), &mut rng);
    assert_ne!(other.deck, s.deck);
}

#[test]
fn offers_are_answered_in_the_recipients_own_time() {
    let (g, mut s) = start(3, Phase::TradeBuild);
    s.players[0].hand = hand(0, 0, 0, 2, 0);
    s.players[1].hand = hand(0, 1, 0, 0, 0);
    // A free-form offer (2 ore for 1 food) is not in the 1:1 list but is accepted.
    let offer = Action::OfferTrade {
        to: 1,
        give: hand(0, 0, 0, 2, 0),
        get: hand(0, 1, 0, 0, 0),
    };
    assert!(!g.legal_actions(&s, 0).contains(&offer));
    let vis = g.action_visibility(&s, 0, &offer);
    match vis {
        Visibility::Private {
            seen_by,
            public_form,
        } => {
            assert_eq!(seen_by, vec![0, 1]);
            assert!(!public_form.to_string().contains("ore"));
        }
        Visibility::Public => panic!("offers are private"),
    }
    s = act(&g, &s, 0, offer);
    // B is not in to_act but may answer; C may not; A keeps playing.
    assert_eq!(g.status(&s).to_act(), &[0]);
    assert_eq!(
        g.legal_actions(&s, 1),
        vec![Action::AcceptOffer, Action::DeclineOffer]
    );
    assert!(g.legal_actions(&s, 2).is_empty());
    assert!(g.apply(&s, 2, &Action::AcceptOffer).is_err());
    let c_text = g.render_text(&s, Viewer::Seat(2));
    assert!(c_text.contains("trade offer pending") && !c_text.contains("2 ore"));
    assert!(
        g.render_text(&s, Viewer::Seat(1))
            .contains("offers Player B 2 ore for 1 food")
    );
    let done = act(&g, &s, 1, Action::AcceptOffer);
    assert_eq!(done.players[0].hand, hand(0, 1, 0, 0, 0));
    assert_eq!(done.players[1].hand, hand(0, 0, 0, 2, 0));
    assert!(done.offer.is_none());
    // Never blocking: A launches, and the offer lapses.
    let launched = act(&g, &s, 0, Action::Launch);
    assert!(launched.offer.is_none());
    assert!(g.apply(&launched, 1, &Action::AcceptOffer).is_err());
    // Spending the offered cards withdraws the offer.
    let mut t = s.clone();
    t.players[0].hand = hand(0, 0, 0, 2, 0);
    let spent = act(&g, &t, 0, Action::BuildFreightRing);
    assert!(spent.offer.is_none());
}

#[test]
fn corrupted_data_is_refused() {
    assert!(parse_and_validate(DATA_TOML).is_ok());
    let broken = [
        ("expect_intersections = 577", "expect_intersections = 578"),
        ("anchor = [8, 5]", "anchor = [80, 5]"),
        ("\"pirates_2\",", ""),
        ("name = \"slipstream\"", "name = \"slipstream\"\nbogus = 1"),
        ("id = \"E32\"", "id = \"E31\""),
        (
            "race = \"travelers\"\neffect = \"warp\"",
            "race = \"pilots\"\neffect = \"warp\"",
        ),
        ("reserve = [\"3\",", "reserve = [\"ice_3\","),
        (
            "docks = [\"S\", \"SE\", \"NE\", \"N\", \"NW\"]",
            "docks = [\"S\", \"S\", \"NE\", \"N\", \"NW\"]",
        ),
        ("resource = \"carbon\" },", "resource = \"plutonium\" },"),
        (
            "colony_ship = { carbon = 1, food = 1, fuel = 1, ore = 1 }",
            "colony_ship = {}",
        ),
    ];
    for (from, to) in broken {
        assert!(DATA_TOML.contains(from), "{from}");
        let text = DATA_TOML.replacen(from, to, 1);
        let e = parse_and_validate(&text)
            .err()
            .unwrap_or_else(|| panic!("accepted: {to}"));
        assert!(e.starts_with("starfarers data:"), "{e}");
    }
    assert!(parse_and_validate("not toml [").is_err());
    // A game over broken data refuses to start.
    let g = Starfarers {
        data: Data::default(),
        error: Some("broken".into()),
    };
    assert!(g.check_data().is_err());
    assert!(
        g.setup(&Options::default(), 3, GameRng::seed_from_u64(1))
            .is_err()
    );
}

#[test]
fn hostile_actions_are_refused_without_panic() {
    let (g, s) = start(4, Phase::TradeBuild);
    let big = Resources {
        carbon: u32::MAX,
        food: u32::MAX,
        fuel: u32::MAX,
        ore: u32::MAX,
        trade_goods: u32::MAX,
    };
    let actions = [
        Action::OfferTrade {
            to: 1,
            give: big,
            get: big,
        },
        Action::OfferTrade {
            to: usize::MAX,
            give: hand(1, 0, 0, 0, 0),
            get: hand(0, 1, 0, 0, 0),
        },
        Action::Steal { from: usize::MAX },
        Action::Fly {
            ship: u32::MAX,
            to: usize::MAX,
            via: vec![],
        },
        Action::BuildColonyShip { at: usize::MAX },
        Action::BuildSpaceport { at: usize::MAX },
        Action::ClearPirates { planet: usize::MAX },
        Action::Terraform { planet: usize::MAX },
        Action::FoundColony { ship: u32::MAX },
        Action::FoundTradeStation { ship: 0 },
        Action::EncounterPay { cards: big },
        Action::EncounterTake { cards: big },
        Action::ChooseEncounter { card: "E99".into() },
        Action::TakeFriendshipCard {
            card: "nope".into(),
        },
        Action::Discard {
            resource: Resource::Ore,
        },
        Action::AcceptOffer,
    ];
    for phase in [
        Phase::TradeBuild,
        Phase::Flying,
        Phase::Encounter { card: 12 },
        Phase::Steal,
        Phase::Roll,
    ] {
        let mut t = s.clone();
        t.phase = phase;
        for a in &actions {
            for seat in [0, 1, 7, usize::MAX] {
                let r = g.apply(&t, seat, a);
                if let Err(e) = r {
                    assert!(!e.code.is_empty() && !e.message.is_empty());
                } else {
                    panic!("{a:?} by {seat} accepted in {:?}", t.phase);
                }
            }
        }
    }
}

#[test]
fn email_text_shows_the_board() {
    let (g, s) = start(4, Phase::Roll);
    let text = g.render_text(&s, Viewer::Seat(0));
    for needle in [
        "MAP",
        "home_a",
        "alpha ore 5",
        "[GF]",
        "OUTPOSTS",
        "Player A",
        "VP  4",
        "SHIPS",
        "fame 1",
    ] {
        assert!(text.contains(needle), "missing {needle}\n{text}");
    }
    // Every legal description is unique and mentions a place for flights.
    let (g, mut s) = start(4, Phase::Roll);
    fly_phase(&mut s, 4);
    let legal = g.legal_actions(&s, 0);
    let texts: std::collections::BTreeSet<String> =
        legal.iter().map(|a| g.describe_action(&s, 0, a)).collect();
    assert_eq!(texts.len(), legal.len());
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("fly colony ship #1 to r"))
    );
}

#[test]
fn action_and_options_schemas_are_documented() {
    let a = serde_json::to_string(&schemars::schema_for!(Action)).unwrap();
    for needle in [
        "offer_trade",
        "accept_offer",
        "fly",
        "via",
        "found_trade_station",
        "trade_goods",
        "Roll the two dice",
    ] {
        assert!(
            a.contains(needle) || a.to_lowercase().contains(&needle.to_lowercase()),
            "{needle}"
        );
    }
    let o = serde_json::to_string(&schemars::schema_for!(Options)).unwrap();
    assert!(o.contains("turn_limit"));
    // Unknown options are refused; the defaults play to 15 VP.
    assert!(serde_json::from_str::<Options>(r#"{"turns": 3}"#).is_err());
    assert_eq!(
        serde_json::from_str::<Options>("{}").unwrap().turn_limit,
        None
    );
    // Clients may omit `via`.
    let fly: Action = serde_json::from_str(r#"{"type":"fly","ship":1,"to":5}"#).unwrap();
    assert_eq!(
        fly,
        Action::Fly {
            ship: 1,
            to: 5,
            via: vec![]
        }
    );
}
