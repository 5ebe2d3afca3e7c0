//! Moves written in the notation of the list (email replies): every listed action read
//! back from its own text, letter forms, unlisted captures on a crowded table, and a clear
//! reason for each kind of slip.

use super::tests::{GAME, build, capture, loose, position};
use super::*;
use turnpost_engine::Game;
use turnpost_engine::harness::random_playout;

fn read(st: &State, text: &str) -> Result<Action, String> {
    GAME.parse_notation(st, st.turn, text)
        .unwrap_or_else(|| panic!("{text:?} is not read as notation"))
}

/// Every action listed along random games, written as the log writes it, reads back as
/// the same action: the notation covers every move the list can offer.
#[test]
fn every_listed_action_reads_back_from_its_description() {
    let mut checked = [0usize; 6];
    for seed in 0..12u64 {
        let seats = 2 + (seed as usize % 3);
        let p = random_playout(&GAME, &Options::default(), seats, seed, 20_000).unwrap();
        let mut st = GAME
            .setup(&Options::default(), seats, GameRng::seed_from_u64(seed))
            .unwrap();
        for (seat, a) in p.log.iter().take(150) {
            for listed in GAME.legal_actions(&st, *seat) {
                let text = GAME.describe_action(&st, *seat, &listed);
                let got = GAME.parse_notation(&st, *seat, &text);
                assert_eq!(got, Some(Ok(listed.clone())), "{text:?}");
                checked[match listed {
                    Action::Trail { .. } => 0,
                    Action::Capture { .. } => 1,
                    Action::ClearTable => 2,
                    Action::Build { .. } => 3,
                    Action::Raise { .. } => 4,
                    Action::AddToBuild { .. } => 5,
                }] += 1;
            }
            st = GAME.apply(&st, *seat, a).unwrap();
        }
    }
    assert!(
        checked.iter().all(|&n| n > 0),
        "every kind read back: {checked:?}"
    );
}

#[test]
fn cards_are_read_with_symbols_or_letters_in_any_case() {
    let st = position(&["9D 5S 2H 7H", "3D 3H"], loose("5H 4D 9C 3C 6D"), 0);
    let want = capture("9D", "5H 4D 9C 3C 6D", &[]);
    for text in [
        "take 5♥+4♦, 9♣, 3♣+6♦ with 9♦",
        "TAKE 5h+4d 9c 3c+6d WITH 9D",
        "take 5H + 4D, 9C and 3C+6D with 9d.",
        "capture 9c, 6d+3c, 4d+5h with 9♦\u{fe0f}",
        "take 5♡+4♢, 9♧, 3♧+6♢ with 9♢",
    ] {
        assert_eq!(read(&st, text), Ok(want.clone()), "{text}");
    }
    // Cards in any order come out in table order, as the list names them.
    assert_eq!(
        read(&st, "take 6d+3c with 9d"),
        Ok(capture("9D", "3C 6D", &[]))
    );
    assert_eq!(
        read(&st, "trail 7h"),
        Ok(Action::Trail {
            card: "7H".parse().unwrap()
        })
    );
    assert_eq!(read(&st, "clear the table with 5s"), Ok(Action::ClearTable));
    assert_eq!(
        read(&st, "build 9 with 2h: 2h+3c+4d"),
        Ok(Action::Build {
            card: "2H".parse().unwrap(),
            value: 9,
            cards: vec!["4D".parse().unwrap(), "3C".parse().unwrap()],
        })
    );
    assert_eq!(GAME.parse_notation(&st, 0, "hello"), None);
    assert_eq!(GAME.parse_notation(&st, 0, "3"), None);
}

#[test]
fn builds_are_named_by_number() {
    let mut table = loose("5H 4D");
    table.push(build(2, 9, BuildKind::Single, 1, "6C 3C"));
    table.push(build(3, 5, BuildKind::Single, 1, "2C 3S"));
    let st = position(&["9D 9S 4H 9H", "3D 3H"], table, 0);
    assert_eq!(
        read(&st, "take 5h+4d, build B2 with 9d"),
        Ok(capture("9D", "5H 4D", &[2]))
    );
    assert_eq!(read(&st, "take b2 with 9d"), Ok(capture("9D", "", &[2])));
    assert_eq!(
        read(&st, "raise build B3 (5) to 9 with 4h"),
        Ok(Action::Raise {
            card: "4H".parse().unwrap(),
            build: 3,
            value: 9
        })
    );
    assert_eq!(
        read(&st, "add to build B2 (9) with 9s"),
        Ok(Action::AddToBuild {
            card: "9S".parse().unwrap(),
            build: 2,
            cards: vec![]
        })
    );
    assert_eq!(
        read(&st, "add to B2 with 9s: 9s, 5h+4d"),
        Ok(Action::AddToBuild {
            card: "9S".parse().unwrap(),
            build: 2,
            cards: vec!["5H".parse().unwrap(), "4D".parse().unwrap()]
        })
    );
}

/// On a crowded table the notation plays a capture the list leaves out.
#[test]
fn an_unlisted_capture_is_played_from_its_notation() {
    let table = "9C 5S 10C KD KC 9S 10H 8S 4D 8D AH 7C JC 9H 7S 6C 4S 2C 2D AC QC 6H JS 5H \
                 6S 5C AS 2H";
    let st = position(&["AD 3C 10D 2S", "3D 3H 3S 4C"], loose(table), 0);
    let text = "take K♦+A♥, K♣+A♣, Q♣+2♣, J♣+2♦+A♠, 10♣+4♠, 9♣+5♠, 8♠+6♣, 7♣+7♠ with A♦";
    let a = read(&st, text).unwrap();
    assert!(!GAME.legal_actions(&st, 0).contains(&a), "listed after all");
    let after = GAME.apply(&st, 0, &a).unwrap();
    assert_eq!(after.loose().len(), 28 - 17);
    // Its description reads back as the same action.
    assert_eq!(read(&st, &GAME.describe_action(&st, 0, &a)), Ok(a));
}

#[test]
fn slips_are_explained() {
    let st = position(&["9D 5S 2H 7H", "3D 3H"], loose("5H 4D 9C 3C 6D"), 0);
    let why = |text: &str| read(&st, text).unwrap_err();
    assert!(why("take 5h+6d with 9d").contains("5♥+6♦ adds up to 11, not 9"));
    assert!(why("take 5x with 9d").contains("\"5x\" is not a card"));
    assert!(why("take with 9d").contains("name the table cards"));
    assert!(why("take 5h 4d").contains("with"));
    assert!(why("take 5h with 9d 9s").contains("one card"));
    assert!(why("build with 2h: 3c+4d").contains("value of the build"));
    assert!(why("build 9 with 2h: 2h+3c").contains("adds up to 5, not 9"));
    assert!(why("raise B7 with 2h").contains("new value"));
    assert!(why("clear the table with 5h").contains("only the 5♠"));
    assert!(why("take 5h+4d with 9d\ntake 9c with 9d").contains("one move"));
    // Read, then refused by the rules, with their reason.
    let a = read(&st, "take 5h+4d, 8s with 9d").unwrap();
    let e = GAME.apply(&st, 0, &a).unwrap_err();
    assert_eq!(e.code, "not_on_table");
    assert!(e.message.contains("8♠"));
}

#[test]
fn help_is_given_on_the_seats_turn_with_its_largest_capture() {
    let st = position(&["9D 5S 2H 7H", "3D 3H"], loose("5H 4D 9C 3C 6D"), 0);
    let help = GAME.notation_help(&st, 0).unwrap();
    assert!(help.contains("take 5♥+4♦"), "{help}");
    assert!(
        help.contains("your largest capture now:\n  take 5♥+4♦, 9♣, 3♣+6♦ with 9♦"),
        "{help}"
    );
    assert_eq!(GAME.notation_help(&st, 1), None);
}
