//! A crowded table (players trailing hand after hand): the legal actions are a bounded
//! sample, each card's largest capture is always in it, any capture is still accepted, and
//! forced moves still play themselves where the list is whole.

use std::time::{Duration, Instant};

use super::tests::{GAME, build, capture, loose, loose_cards, play, position, trail};
use super::*;
use turnpost_engine::Game;

/// The table of the first crowded game found by play through the API: 28 loose cards.
const CROWDED: &str = "9C 5S 10C KD KC 9S 10H 8S 4D 8D AH 7C JC 9H 7S 6C 4S 2C 2D AC QC 6H \
                       JS 5H 6S 5C AS 2H";

/// The loose cards a listed capture with `card` takes, most first.
fn largest_listed(legal: &[Action], card: &str) -> usize {
    let card: turnpost_engine::cards::Card = card.parse().unwrap();
    legal
        .iter()
        .filter_map(|a| match a {
            Action::Capture { card: c, cards, .. } if *c == card => Some(cards.len()),
            _ => None,
        })
        .max()
        .unwrap_or(0)
}

/// Trailing hand after hand can leave dozens of loose cards, where one card's captures
/// number in the millions: listing them takes a request minutes and hundreds of megabytes.
/// The list is a bounded sample of valid actions, and a
/// capture outside it is still accepted.
#[test]
fn a_crowded_table_lists_a_bounded_sample_and_accepts_any_capture() {
    let st = position(&["AD 3C 10D 2S", "3D 3H 3S 4C"], loose(CROWDED), 0);
    let start = Instant::now();
    let legal = GAME.legal_actions(&st, 0);
    // Generous for a debug build on a shared machine; the hang was 30 s and more.
    assert!(
        start.elapsed() < Duration::from_secs(3),
        "{:?}",
        start.elapsed()
    );
    let captures = legal
        .iter()
        .filter(|a| matches!(a, Action::Capture { .. }))
        .count();
    assert!(captures > 100, "a useful sample: {captures}");
    assert!(
        legal.len() <= 4 * 4 * combos::MAX_SETS + 8,
        "bounded: {}",
        legal.len()
    );
    for a in legal.iter().step_by(37) {
        assert!(GAME.apply(&st, 0, a).is_ok(), "listed {a:?} refused");
    }
    // The ace (14 in the hand) takes eight groups of 14 (K+A, K+A, Q+2, J+2+A, 10+4,
    // 9+5, 8+6, 7+7): a capture of 17 cards that no bounded list need hold.
    let big = capture(
        "AD",
        "KD AH KC AC QC 2C JC 2D AS 10C 4S 9C 5S 8S 6C 7C 7S",
        &[],
    );
    let after = play(&st, 0, big);
    assert_eq!(loose_cards(&after).len(), 28 - 17);
    assert!(!GAME.legal_actions_complete());
    assert_eq!(GAME.forced_action(&st, 0), None);
}

/// Each card's largest capture is listed, however crowded the table: the sample alone
/// (drawn in table order) held captures of at most 7 cards here, where the 10♦ takes 27.
#[test]
fn each_cards_largest_capture_is_listed_on_a_crowded_table() {
    let st = position(&["AD 3C 10D 2S", "3D 3H 3S 4C"], loose(CROWDED), 0);
    let legal = GAME.legal_actions(&st, 0);
    // Found by an independent search over counts of each value (and, for the 3, by hand:
    // three aces with three twos). The table adds up to 187 = 11 × 16 + 11: the 10♦ can
    // leave no less than one jack.
    for (card, most) in [("AD", 26), ("3C", 6), ("10D", 27), ("2S", 27)] {
        assert_eq!(largest_listed(&legal, card), most, "{card}");
    }
    for a in &legal {
        if let Action::Capture { cards, .. } = a
            && cards.len() >= 26
        {
            assert!(GAME.apply(&st, 0, a).is_ok(), "listed {a:?} refused");
        }
    }
    // Where cards of one value give a choice, the scoring ones go first: of J♣ and J♠
    // the 10♦ leaves the club.
    let ten = legal
        .iter()
        .find_map(|a| match a {
            Action::Capture { card, cards, .. }
                if card.to_string() == "10D" && cards.len() == 27 =>
            {
                Some(cards.clone())
            }
            _ => None,
        })
        .unwrap();
    let left: Vec<_> = loose(CROWDED)
        .into_iter()
        .filter_map(|i| match i {
            Item::Loose { card } if !ten.contains(&card) => Some(card),
            _ => None,
        })
        .collect();
    assert_eq!(left, vec!["JC".parse().unwrap()]);
}

/// A sweep of 24 cards with the ace: twelve pairs worth 14 (K+A, Q+2, J+3, 10+4, 7+7).
/// Taking all the table is a sweep and the best play there is; it must be offered.
#[test]
fn a_sweep_of_24_cards_is_listed() {
    let table = "KC AC KD AD KH AH QC 2C QD 2D QH 2H JC 3C JD 3D JH 3H 10C 4C 10H 4D 7C 7D";
    let st = position(&["AS 5H 6H 8H", "5C 6C 8C 9C"], loose(table), 0);
    let legal = GAME.legal_actions(&st, 0);
    let sweep = capture("AS", table, &[]);
    assert!(legal.contains(&sweep), "the 24-card sweep is not listed");
    let after = play(&st, 0, sweep);
    assert!(after.table.is_empty());
    assert_eq!(after.sweeps[0], 1);
}

/// The largest capture takes the builds of the card's value along, and respects O3: with
/// the only card backing its own build, a player's largest capture includes that build.
#[test]
fn the_largest_capture_takes_matching_builds_and_keeps_o3() {
    let mut table = loose(CROWDED);
    // B1 (value 14, Seat 1's) is taken whole by an ace.
    table.push(build(1, 14, BuildKind::Multiple, 0, "KS 4H 10S"));
    let st = position(&["AD 3C 2S QS", "3D 3H 3S 4C"], table, 0);
    let legal = GAME.legal_actions(&st, 0);
    let ace = legal
        .iter()
        .filter_map(|a| match a {
            Action::Capture {
                card,
                cards,
                builds,
            } if card.to_string() == "AD" => Some((cards.len(), builds.clone())),
            _ => None,
        })
        .max()
        .unwrap();
    assert_eq!(ace, (26, vec![1]));
    // The ace is Seat 1's only card worth 14: any other play must keep it (O3), and every
    // listed capture with it takes the build.
    for a in &legal {
        if let Action::Capture { card, builds, .. } = a
            && card.to_string() == "AD"
        {
            assert_eq!(builds, &vec![1], "{a:?}");
        }
    }
}

/// Forced moves play themselves where the list is whole (a last card that can only be
/// trailed, HR-12), though the list may be a sample elsewhere.
#[test]
fn a_last_card_that_can_only_be_trailed_still_plays_itself() {
    let st = position(&["7H", "3D 3H"], loose("KC QD"), 0);
    assert_eq!(GAME.forced_action(&st, 0), Some(trail("7H")));
    let st = position(&["7H", "3D 3H"], loose("KC QD 7S"), 0);
    assert_eq!(GAME.forced_action(&st, 0), None);
}
