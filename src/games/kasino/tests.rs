//! Contract runs, the digest's worked examples (9.x), one test per house rule (HR-n), edge
//! cases and leak checks.

use super::scoring::{SideTake, score_round};
use super::*;
use turnpost_engine::cards::{Card, standard_deck};
use turnpost_engine::harness::{PlayoutConfig, assert_resample_covers, check_many, random_playout};

pub(super) const GAME: Kasino = Kasino;

pub(super) fn c(s: &str) -> Card {
    s.parse().unwrap()
}

pub(super) fn cards(s: &str) -> Vec<Card> {
    s.split_whitespace().map(c).collect()
}

pub(super) fn loose(s: &str) -> Vec<Item> {
    cards(s)
        .into_iter()
        .map(|card| Item::Loose { card })
        .collect()
}

pub(super) fn build(id: u32, value: u32, kind: BuildKind, owner: Seat, cs: &str) -> Item {
    Item::Build(Build {
        id,
        value,
        kind,
        owner,
        cards: cards(cs),
    })
}

/// A mid-round position: the given hands and table, `turn` to play, every other card in
/// the stock, empty capture piles.
pub(super) fn position(hands: &[&str], table: Vec<Item>, turn: Seat) -> State {
    let mut st = GAME
        .setup(&Options::default(), hands.len(), GameRng::seed_from_u64(7))
        .unwrap();
    st.hands = hands.iter().map(|h| cards(h)).collect();
    for h in &mut st.hands {
        h.sort();
    }
    st.table = table;
    st.turn = turn;
    st.dealer = (turn + hands.len() - 1) % hands.len();
    st.piles = vec![Vec::new(); hands.len()];
    let mut used: Vec<Card> = st.hands.concat();
    for i in &st.table {
        match i {
            Item::Loose { card } => used.push(*card),
            Item::Build(b) => used.extend(b.cards.iter().copied()),
        }
    }
    st.stock = standard_deck()
        .into_iter()
        .filter(|x| !used.contains(x))
        .collect();
    st.last_hand = false;
    st.next_build_id = 1 + st.builds().map(|b| b.id).max().unwrap_or(0);
    st
}

pub(super) fn play(st: &State, seat: Seat, a: Action) -> State {
    match GAME.apply(st, seat, &a) {
        Ok(s) => s,
        Err(e) => panic!("{a:?} refused: {e}"),
    }
}

pub(super) fn refused(st: &State, seat: Seat, a: Action) -> String {
    let before = st.clone();
    let e = GAME.apply(st, seat, &a).expect_err("must be refused");
    assert_eq!(st, &before);
    assert!(
        !GAME.legal_actions(st, seat).contains(&a),
        "{a:?} refused but listed as legal"
    );
    e.code.into_owned()
}

pub(super) fn capture(card: &str, cs: &str, builds: &[u32]) -> Action {
    Action::Capture {
        card: c(card),
        cards: cards(cs),
        builds: builds.to_vec(),
    }
}

pub(super) fn trail(card: &str) -> Action {
    Action::Trail { card: c(card) }
}

pub(super) fn loose_cards(st: &State) -> Vec<Card> {
    st.table
        .iter()
        .filter_map(|i| match i {
            Item::Loose { card } => Some(*card),
            Item::Build(_) => None,
        })
        .collect()
}

// ---------------------------------------------------------------- contract runs

/// State fields everyone may see, so `resample_hidden` keeps them. The other hands, the
/// stock order and the RNG are hidden and must be resampled.
const PUBLIC: &[&str] = &[
    "rules_version",
    // The rule numbers of data.toml, copied into the state.
    "params",
    "options",
    "seats",
    "round",
    "hand_no",
    "dealer",
    "turn",
    "table",
    // Capture piles lie face down, but every card in them was taken face up in a public
    // capture (digest 7), so their contents are public knowledge.
    "piles",
    "sweeps",
    "last_capturer",
    "last_hand",
    "built_last_turn",
    "next_build_id",
    "scores",
    "history",
    "finished",
];

#[test]
fn contract_two_players_1000_playouts() {
    let opts = Options::default();
    let deep = PlayoutConfig::default();
    let a = check_many(&GAME, &opts, 2, 150, 1, &deep);
    let light = PlayoutConfig {
        deep_every: 7,
        ..PlayoutConfig::default()
    };
    let b = check_many(&GAME, &opts, 2, 850, 10_001, &light);
    assert_resample_covers(&a, PUBLIC);
    assert!(a.invariant_checks > a.actions && b.invariant_checks > b.actions);
    assert!(a.actions + b.actions > 1000 * 100, "{a:?} {b:?}");
    assert!(a.illegal_tried > 0 && b.illegal_tried > 0);
    assert!(a.resamples_that_changed_state > 0);
    // Kasino has no secret choices: every play is public.
    assert_eq!(a.private_log_entries + b.private_log_entries, 0);
}

#[test]
fn contract_three_players() {
    let cfg = PlayoutConfig {
        deep_every: 3,
        ..PlayoutConfig::default()
    };
    let s = check_many(&GAME, &Options::default(), 3, 120, 20_001, &cfg);
    assert_resample_covers(&s, PUBLIC);
    assert!(s.views_checked > 0 && s.illegal_tried > 0);
}

#[test]
fn contract_four_players_alone_and_in_teams() {
    let cfg = PlayoutConfig {
        deep_every: 3,
        ..PlayoutConfig::default()
    };
    let s = check_many(&GAME, &Options::default(), 4, 100, 30_001, &cfg);
    assert!(s.views_checked > 0);
    let teams = Options {
        teams: true,
        ..Options::default()
    };
    let t = check_many(&GAME, &teams, 4, 100, 40_001, &cfg);
    assert_resample_covers(&t, PUBLIC);
    assert!(t.views_checked > 0);
}

#[test]
fn contract_sweeps_cancel() {
    let opts = Options {
        sweeps_cancel: true,
        ..Options::default()
    };
    let cfg = PlayoutConfig {
        deep_every: 5,
        ..PlayoutConfig::default()
    };
    let s = check_many(&GAME, &opts, 2, 100, 50_001, &cfg);
    assert!(s.views_checked > 0);
}

#[test]
fn team_games_rank_partners_together() {
    let opts = Options {
        teams: true,
        ..Options::default()
    };
    let p = random_playout(&GAME, &opts, 4, 3, 20_000).unwrap();
    assert!(p.finished);
    let Status::Finished(o) = GAME.status(&p.state) else {
        panic!("not finished")
    };
    assert_eq!(o.teams.len(), 2);
    let rank = |s: Seat| o.ranking.iter().find(|p| p.seat == s).unwrap().rank;
    assert_eq!(rank(0), rank(2));
    assert_eq!(rank(1), rank(3));
    assert_ne!(rank(0), rank(1));
    assert_eq!(o.teams[0].rank, 1);
    assert!(o.teams[0].score.unwrap() >= 21);
}

/// Every listed action applies, and (on small tables) every action a brute-force search
/// finds acceptable is listed: the enumeration is complete and exact.
#[test]
fn legal_actions_match_brute_force() {
    let mut states_checked = 0;
    let (mut brute, mut with_builds) = (0, 0);
    for seed in 0..20u64 {
        let p = random_playout(
            &GAME,
            &Options::default(),
            2 + (seed as usize % 3),
            seed,
            20_000,
        )
        .unwrap();
        let mut st = GAME
            .setup(
                &Options::default(),
                2 + (seed as usize % 3),
                GameRng::seed_from_u64(seed),
            )
            .unwrap();
        for (seat, a) in p.log.iter().take(120) {
            if states_checked % 2 == 0 && check_against_brute_force(&st, *seat) {
                brute += 1;
                with_builds += usize::from(st.builds().next().is_some());
            }
            states_checked += 1;
            st = play(&st, *seat, a.clone());
        }
    }
    assert!(states_checked > 1000);
    eprintln!("brute-force checks: {brute}, with builds: {with_builds}");
    assert!(brute > 300 && with_builds > 20, "{brute} {with_builds}");
}

/// True when the brute-force comparison ran (small tables only).
fn check_against_brute_force(st: &State, seat: Seat) -> bool {
    let legal = GAME.legal_actions(st, seat);
    for a in &legal {
        assert!(GAME.apply(st, seat, a).is_ok(), "listed {a:?} refused");
    }
    let loose = loose_cards(st);
    if loose.len() > 7 {
        return false;
    }
    let ids: Vec<u32> = st.builds().map(|b| b.id).collect();
    let subsets = |n: usize| (0u32..(1 << n)).collect::<Vec<_>>();
    let pick = |m: u32| -> Vec<Card> {
        (0..loose.len())
            .filter(|i| m & (1 << i) != 0)
            .map(|i| loose[i])
            .collect()
    };
    let mut candidates = vec![Action::ClearTable];
    let mut values: Vec<u32> = st.hand(seat).iter().map(|&x| st.params.cv(x)).collect();
    values.extend([0, 17]);
    values.sort_unstable();
    values.dedup();
    for &card in st.hand(seat) {
        candidates.push(Action::Trail { card });
        for m in subsets(loose.len()) {
            for bm in subsets(ids.len()) {
                let builds = (0..ids.len())
                    .filter(|i| bm & (1 << i) != 0)
                    .map(|i| ids[i])
                    .collect();
                candidates.push(Action::Capture {
                    card,
                    cards: pick(m),
                    builds,
                });
            }
            // Values no card in hand is worth are refused by O3 anyway; 0 and 17 probe edges.
            for &value in &values {
                candidates.push(Action::Build {
                    card,
                    value,
                    cards: pick(m),
                });
            }
            for &build in &ids {
                candidates.push(Action::AddToBuild {
                    card,
                    build,
                    cards: pick(m),
                });
            }
        }
        for &build in &ids {
            for value in 1..=30 {
                candidates.push(Action::Raise { card, build, value });
            }
        }
    }
    let accepted = candidates
        .iter()
        .filter(|a| GAME.apply(st, seat, a).is_ok())
        .count();
    assert_eq!(
        accepted,
        legal.len(),
        "brute force and legal_actions disagree"
    );
    for a in candidates
        .iter()
        .filter(|a| GAME.apply(st, seat, a).is_ok())
    {
        assert!(legal.contains(a), "{a:?} is accepted but not listed");
    }
    true
}

// ---------------------------------------------------------------- worked examples

#[test]
fn ex_9_1_three_and_six_with_a_nine() {
    let st = position(&["9H 2C", "4D 5D"], loose("3C 6D KH"), 0);
    let a = capture("9H", "3C 6D", &[]);
    assert!(GAME.legal_actions(&st, 0).contains(&a));
    let next = play(&st, 0, a);
    assert_eq!(next.piles[0].len(), 3);
    assert_eq!(loose_cards(&next), cards("KH"));
    assert_eq!(next.sweeps[0], 0);
    assert_eq!(next.last_capturer, Some(0));
}

#[test]
fn ex_9_2_two_four_four_with_a_ten_is_a_sweep() {
    let st = position(&["10H 2C", "4D 5D"], loose("2D 4C 4S"), 0);
    let next = play(&st, 0, capture("10H", "2D 4C 4S", &[]));
    assert!(next.table.is_empty());
    assert_eq!(next.sweeps[0], 1);
    assert_eq!(next.piles[0].len(), 4);
}

#[test]
fn ex_9_3_match_and_combine_with_your_own_seven() {
    let st = position(&["7H 2C", "4D 5D"], loose("3C 4H 7D 9S"), 0);
    let a = capture("7H", "3C 4H 7D", &[]);
    assert!(GAME.legal_actions(&st, 0).contains(&a));
    assert!(GAME.describe_action(&st, 0, &a).contains("3♣+4♥"));
    let next = play(&st, 0, a);
    assert_eq!(loose_cards(&next), cards("9S"));
}

#[test]
fn ex_9_4_bygger_ni_and_the_capture_obligation() {
    let st = position(&["2C 9H 4S", "KD 9D 3H"], loose("7D 5H"), 0);
    let b = Action::Build {
        card: c("2C"),
        value: 9,
        cards: cards("7D"),
    };
    let next = play(&st, 0, b);
    let bl = next.owned_build(0).unwrap().clone();
    assert_eq!((bl.value, bl.kind, bl.owner), (9, BuildKind::Single, 0));
    // Q trails; at P's next turn O2 applies.
    let after_q = play(&next, 1, trail("KD"));
    assert!(after_q.must_capture(0));
    assert_eq!(refused(&after_q, 0, trail("4S")), "must_capture");
    let take = capture("9H", "", &[bl.id]);
    assert!(GAME.legal_actions(&after_q, 0).contains(&take));
    assert!(
        GAME.legal_actions(&after_q, 0)
            .iter()
            .all(|a| matches!(a, Action::Capture { .. } | Action::ClearTable))
    );
    // If Q takes it first with a 9, P's obligation ends.
    let q_took = play(&next, 1, capture("9D", "", &[bl.id]));
    assert!(q_took.owned_build(0).is_none());
    assert!(!q_took.must_capture(0));
    assert!(GAME.legal_actions(&q_took, 0).contains(&trail("4S")));
}

#[test]
fn ex_9_5_bygger_videre_with_an_ace() {
    let st = position(
        &["9C 3S", "AH 10C 4D"],
        vec![build(1, 9, BuildKind::Single, 0, "2C 7D")],
        1,
    );
    let r = Action::Raise {
        card: c("AH"),
        build: 1,
        value: 10,
    };
    assert!(GAME.legal_actions(&st, 1).contains(&r));
    let next = play(&st, 1, r);
    let b = next.build(1).unwrap();
    assert_eq!((b.value, b.kind, b.owner), (10, BuildKind::Single, 1));
    assert!(next.owned_build(0).is_none());
    let after_p = play(&next, 0, trail("3S"));
    assert!(after_p.must_capture(1));
    assert_eq!(refused(&after_p, 1, trail("4D")), "must_capture");
}

#[test]
fn ex_9_6_mere_syv() {
    let st = position(&["7H 7C AS", "7S AD 8D"], loose("7D"), 0);
    let b = Action::Build {
        card: c("7H"),
        value: 7,
        cards: cards("7D"),
    };
    assert!(GAME.legal_actions(&st, 0).contains(&b));
    let next = play(&st, 0, b);
    let bl = next.owned_build(0).unwrap().clone();
    assert_eq!((bl.value, bl.kind), (7, BuildKind::Multiple));
    assert!(
        GAME.legal_actions(&next, 1)
            .contains(&capture("7S", "", &[bl.id]))
    );
    let raise = Action::Raise {
        card: c("AD"),
        build: bl.id,
        value: 8,
    };
    assert_eq!(refused(&next, 1, raise), "cannot_raise_multiple");
}

#[test]
fn ex_9_7_no_raise_after_mere() {
    let st = position(
        &["9C 3S", "AH 10C 4D"],
        vec![build(1, 9, BuildKind::Multiple, 0, "2C 7D 9D")],
        1,
    );
    let raise = Action::Raise {
        card: c("AH"),
        build: 1,
        value: 10,
    };
    assert_eq!(refused(&st, 1, raise), "cannot_raise_multiple");
    assert!(
        !GAME
            .legal_actions(&st, 1)
            .iter()
            .any(|a| matches!(a, Action::Raise { .. }))
    );
}

#[test]
fn ex_9_8_ace_values() {
    let st = position(&["AH 3C", "4D 5D"], loose("AC KD"), 0);
    let a = capture("AH", "AC KD", &[]);
    assert!(GAME.legal_actions(&st, 0).contains(&a));
    assert_eq!(play(&st, 0, a).sweeps[0], 1);

    let st = position(&["AH 3C", "4D 5D"], loose("AC"), 0);
    assert_eq!(refused(&st, 0, capture("AH", "AC", &[])), "bad_capture_sum");
    assert!(
        !GAME
            .legal_actions(&st, 0)
            .iter()
            .any(|a| matches!(a, Action::Capture { card, .. } if *card == c("AH")))
    );
    let next = play(&st, 0, trail("AH"));
    assert_eq!(loose_cards(&next), cards("AC AH"));
    let v = GAME.view(&next, Viewer::Spectator);
    let json = serde_json::to_value(&v).unwrap();
    assert_eq!(json["table"][1]["value"], 1);
}

#[test]
fn ex_9_9_the_casinos() {
    let st = position(&["10D 2S 3C", "4D 5D"], loose("9C 7H 8S 7D"), 0);
    let legal = GAME.legal_actions(&st, 0);
    assert!(legal.contains(&capture("10D", "9C 7H", &[])));
    assert!(legal.contains(&capture("2S", "7H 8S", &[])));
    let st = position(&["10D 3C", "4D 5D"], loose("10C"), 0);
    assert_eq!(
        refused(&st, 0, capture("10D", "10C", &[])),
        "bad_capture_sum"
    );
    let st = position(&["10C 3C", "4D 5D"], loose("10D"), 0);
    let next = play(&st, 0, capture("10C", "10D", &[]));
    assert!(next.piles[0].contains(&c("10D")));
}

#[test]
fn ex_9_10_spade_5_clears_the_table() {
    let st = position(
        &["5S 3C", "9C 4D"],
        {
            let mut t = loose("3H 8D KC");
            t.push(build(1, 9, BuildKind::Single, 1, "2C 7D"));
            t
        },
        0,
    );
    let mut st = st;
    st.built_last_turn[1] = true;
    assert!(GAME.legal_actions(&st, 0).contains(&Action::ClearTable));
    let next = play(&st, 0, Action::ClearTable);
    assert!(next.table.is_empty());
    assert_eq!(next.piles[0].len(), 6);
    assert_eq!(next.sweeps[0], 1);
    assert!(next.owned_build(1).is_none());
    assert!(!next.must_capture(1));
    assert!(GAME.legal_actions(&next, 1).contains(&trail("4D")));
}

#[test]
fn ex_9_11_last_capture_takes_the_rest() {
    let mut st = position(&["2H", "9C"], loose("4D 5C KH"), 0);
    st.stock.clear();
    st.last_hand = true;
    st.scores = vec![0, 0];
    let st = play(&st, 0, trail("2H"));
    let round = st.round;
    let after = play(&st, 1, capture("9C", "4D 5C", &[]));
    assert_eq!(
        after.round,
        round + 1,
        "the round ended and a new one was dealt"
    );
    let lines = after.history.last().unwrap();
    assert_eq!(
        lines[1].cards, 5,
        "Q gets the K and the 2 left on the table"
    );
    assert_eq!(lines[1].sweeps, 0);
    assert!(lines[1].items.contains(&("last_capture".to_string(), 1)));
    assert_eq!(lines[0].cards, 0);
}

fn pile_from(spec: &[Card], filler: &mut Vec<Card>, size: usize) -> Vec<Card> {
    let mut p = spec.to_vec();
    while p.len() < size {
        p.push(filler.pop().unwrap());
    }
    p
}

#[test]
fn ex_9_12_round_scoring_two_players() {
    let params = Params::load().unwrap();
    let spades_a = cards("3S 4S 5S 6S 7S 8S 9S 10S");
    let spades_b = cards("AS 2S JS QS KS");
    let mut filler: Vec<Card> = standard_deck()
        .into_iter()
        .filter(|x| x.suit != turnpost_engine::cards::Suit::Spades && x.rank != 1 && *x != c("10D"))
        .collect();
    let mut a_spec = spades_a.clone();
    a_spec.extend(cards("10D AD AH"));
    let mut b_spec = spades_b.clone();
    b_spec.extend(cards("AC"));
    let a = pile_from(&a_spec, &mut filler, 27);
    let b = pile_from(&b_spec, &mut filler, 25);
    assert!(filler.is_empty());
    let lines = score_round(
        &params,
        &[
            SideTake {
                seats: vec![0],
                pile: &a,
                sweeps: 1,
                last_capture: false,
            },
            SideTake {
                seats: vec![1],
                pile: &b,
                sweeps: 0,
                last_capture: true,
            },
        ],
        false,
    );
    assert_eq!(lines[0].points, 8);
    assert_eq!(lines[1].points, 4);
    assert_eq!(lines[0].points + lines[1].points, 12);
}

#[test]
fn ex_9_13_tied_spades_score_nothing() {
    let params = Params::load().unwrap();
    let a = cards("AS 2S 3S 4S 5S 2H");
    let b = cards("6S 7S 8S 9S 10S 3H");
    let cc = cards("JS QS KS 4H");
    let takes: Vec<SideTake> = [&a, &b, &cc]
        .iter()
        .enumerate()
        .map(|(i, p)| SideTake {
            seats: vec![i],
            pile: p,
            sweeps: 0,
            last_capture: false,
        })
        .collect();
    let lines = score_round(&params, &takes, false);
    assert!(
        lines
            .iter()
            .all(|l| l.items.iter().all(|(k, _)| k != "most_spades"))
    );
    assert!(
        lines
            .iter()
            .all(|l| l.items.iter().all(|(k, _)| k != "most_cards"))
    );
    assert_eq!(lines[0].spades, 5);
}

#[test]
fn ex_9_14_keep_rule_o3() {
    let st = position(
        &["9H 4C", "KD 3H"],
        {
            let mut t = loose("9C 5D");
            t.push(build(1, 9, BuildKind::Single, 0, "2C 7D"));
            t
        },
        0,
    );
    assert_eq!(refused(&st, 0, trail("9H")), "must_keep_build_card");
    assert_eq!(
        refused(&st, 0, capture("9H", "9C", &[])),
        "must_keep_build_card"
    );
    let legal = GAME.legal_actions(&st, 0);
    assert!(legal.contains(&capture("9H", "9C", &[1])));
    assert!(legal.contains(&capture("9H", "", &[1])));
    assert!(legal.contains(&trail("4C")));
    // With O2 in force, trailing the 4 is refused too.
    let mut o2 = st.clone();
    o2.built_last_turn[0] = true;
    assert_eq!(refused(&o2, 0, trail("4C")), "must_capture");
}

// ---------------------------------------------------------------- house rules

#[test]
fn hr_1_dual_values_hand_and_table() {
    // From hand an ace takes 14 (A + K), the ♠2 takes 15 (8 + 7), the ♦10 takes 16 (9 + 7);
    // none of them takes its face value.
    let st = position(
        &["AH 2S 10D", "4D 5D"],
        loose("AC KD 8C 7H 9S 7D 2H 10C"),
        0,
    );
    let legal = GAME.legal_actions(&st, 0);
    assert!(legal.contains(&capture("AH", "AC KD", &[])));
    assert!(legal.contains(&capture("2S", "8C 7H", &[])));
    assert!(legal.contains(&capture("10D", "9S 7D", &[])));
    assert_eq!(refused(&st, 0, capture("2S", "2H", &[])), "bad_capture_sum");
    assert_eq!(
        refused(&st, 0, capture("10D", "10C", &[])),
        "bad_capture_sum"
    );
    // On the table they count 1, 2 and 10: a 3 takes A + ♠2, a plain 10 the ♦10.
    let st = position(&["3H 10C", "4D 5D"], loose("AC 2S 10D"), 0);
    let legal = GAME.legal_actions(&st, 0);
    assert!(legal.contains(&capture("3H", "AC 2S", &[])));
    assert!(legal.contains(&capture("10C", "10D", &[])));
    // Played onto the table the ♠2 counts 2: built with a 7 it makes 9.
    let st = position(&["2S 9H", "4D 5D"], loose("7C"), 0);
    let b = Action::Build {
        card: c("2S"),
        value: 9,
        cards: cards("7C"),
    };
    let next = play(&st, 0, b);
    assert_eq!(next.owned_build(0).map(|b| b.value), Some(9));
}

#[test]
fn hr_2_spade_5_clears_or_plays_as_a_five() {
    let st = position(&["5S 9H", "4D 6D"], loose("2C 3H KC"), 0);
    let legal = GAME.legal_actions(&st, 0);
    assert!(legal.contains(&Action::ClearTable));
    assert!(legal.contains(&capture("5S", "2C 3H", &[])));
    assert!(legal.contains(&trail("5S")));
    let empty = position(&["5S 9H", "4D 6D"], vec![], 0);
    assert_eq!(refused(&empty, 0, Action::ClearTable), "empty_table");
    assert_eq!(refused(&st, 1, Action::ClearTable), "not_your_turn");
}

#[test]
fn hr_3_face_cards_are_11_12_13() {
    let st = position(&["JH QH KH", "4D 6D"], loose("5C 6C 4S 8H"), 0);
    let legal = GAME.legal_actions(&st, 0);
    assert!(legal.contains(&capture("JH", "5C 6C", &[])));
    assert!(legal.contains(&capture("QH", "4S 8H", &[])));
    assert!(legal.contains(&capture("KH", "5C 8H", &[])));
}

#[test]
fn hr_4_random_first_dealer_and_the_deal_passes_left() {
    let dealers: std::collections::BTreeSet<Seat> = (0..30)
        .map(|s| {
            GAME.setup(&Options::default(), 4, GameRng::seed_from_u64(s))
                .unwrap()
                .dealer
        })
        .collect();
    assert!(dealers.len() > 1);
    let st = GAME
        .setup(&Options::default(), 3, GameRng::seed_from_u64(1))
        .unwrap();
    assert!(st.hands.iter().all(|h| h.len() == 4));
    assert_eq!(st.table.len(), 4);
    assert_eq!(st.stock.len(), 52 - 4 - 12);
    assert_eq!(st.turn, (st.dealer + 1) % 3);
    // Play the first round to its end: the next dealer is one seat to the left.
    let p = random_playout(&GAME, &Options::default(), 3, 1, 20_000).unwrap();
    let mut s = st.clone();
    for (seat, a) in &p.log {
        s = play(&s, *seat, a.clone());
        if s.round == 2 {
            assert_eq!(s.dealer, (st.dealer + 1) % 3);
            assert_eq!(s.turn, (s.dealer + 1) % 3);
            return;
        }
    }
    panic!("the game never reached round 2");
}

#[test]
fn hr_5_play_order_continues_across_hands() {
    // Two players, dealer seat 0: seat 1 plays the last card of the hand, then a new deal.
    let mut st = position(&["", "3C"], loose("KH"), 1);
    st.dealer = 0;
    let stock_before = st.stock.len();
    let next = play(&st, 1, trail("3C"));
    assert_eq!(next.hand_no, st.hand_no + 1);
    assert!(next.hands.iter().all(|h| h.len() == 4));
    assert_eq!(next.stock.len(), stock_before - 8);
    assert_eq!(next.turn, 0, "play simply continues with the next seat");
}

#[test]
fn hr_6_leftovers_go_to_nobody_without_a_capture() {
    let mut st = position(&["2H", "9C"], loose("4D 5C KH"), 0);
    st.stock.clear();
    st.last_capturer = None;
    let st = play(&st, 0, trail("2H"));
    let after = play(&st, 1, trail("9C"));
    let lines = after.history.last().unwrap();
    assert_eq!(lines[0].cards + lines[1].cards, 0);
    assert!(
        lines
            .iter()
            .all(|l| l.items.iter().all(|(k, _)| k != "last_capture"))
    );
}

#[test]
fn hr_7_build_taken_only_as_match() {
    let st = position(
        &["9H 3C", "4D 6D"],
        {
            let mut t = loose("5C");
            t.push(build(1, 4, BuildKind::Single, 1, "AC 3D"));
            t
        },
        0,
    );
    assert_eq!(
        refused(&st, 0, capture("9H", "5C", &[1])),
        "build_not_matched"
    );
    assert_eq!(refused(&st, 0, capture("9H", "5C AC", &[])), "not_on_table");
}

#[test]
fn hr_8_add_to_another_players_build() {
    let st = position(
        &["3H 7S 2D", "7C 6D"],
        {
            let mut t = loose("4C");
            t.push(build(1, 7, BuildKind::Single, 1, "2C 5D"));
            t
        },
        0,
    );
    let add = Action::AddToBuild {
        card: c("3H"),
        build: 1,
        cards: cards("4C"),
    };
    assert!(GAME.legal_actions(&st, 0).contains(&add));
    let next = play(&st, 0, add);
    let b = next.build(1).unwrap();
    assert_eq!((b.value, b.kind, b.owner), (7, BuildKind::Multiple, 0));
    assert_eq!(b.cards.len(), 4);
    assert!(next.owned_build(1).is_none());
}

#[test]
fn hr_9_obligations_end_when_the_build_changes_hands() {
    let st = position(&["2C 9H 4S", "AH 10C 3D"], loose("7D"), 0);
    let next = play(
        &st,
        0,
        Action::Build {
            card: c("2C"),
            value: 9,
            cards: cards("7D"),
        },
    );
    let raised = play(
        &next,
        1,
        Action::Raise {
            card: c("AH"),
            build: 1,
            value: 10,
        },
    );
    assert!(!raised.must_capture(0));
    let legal = GAME.legal_actions(&raised, 0);
    assert!(legal.contains(&trail("4S")));
    assert!(legal.contains(&trail("9H")), "P no longer has to keep a 9");
}

#[test]
fn hr_10_teams_only_with_four_and_partners_pool_piles() {
    let teams = Options {
        teams: true,
        ..Options::default()
    };
    let e = GAME
        .setup(&teams, 3, GameRng::seed_from_u64(1))
        .unwrap_err();
    assert_eq!(e.code, "invalid_options");
    let mut st = GAME.setup(&teams, 4, GameRng::seed_from_u64(1)).unwrap();
    assert_eq!(st.scores.len(), 2);
    // Seats 0 and 2 each hold 3 spades, seats 1 and 3 two each: team 0+2 has most spades.
    st.piles = vec![
        cards("AS 2S 3S"),
        cards("4S 5S"),
        cards("6S 7S 8S"),
        cards("9S 10S"),
    ];
    st.table.clear();
    st.hands = vec![vec![]; 4];
    st.stock.clear();
    st.last_capturer = Some(1);
    st.end_round();
    let lines = st.history.last().unwrap();
    assert_eq!(lines[0].seats, vec![0, 2]);
    assert_eq!(lines[0].spades, 6);
    assert!(lines[0].items.contains(&("most_spades".to_string(), 2)));
    assert!(lines[1].items.contains(&("last_capture".to_string(), 1)));
    assert!(st.render_text_for_test().contains("Seats 1 & 3"));
}

impl State {
    fn render_text_for_test(&self) -> String {
        GAME.render_text(self, Viewer::Spectator)
    }
}

#[test]
fn hr_11_tie_at_the_top_plays_another_round() {
    let mut st = position(&["3C", "4C"], vec![], 0);
    st.stock.clear();
    st.scores = vec![20, 20];
    st.last_capturer = None;
    // Each side scores 3: ♦10 + an ace against most spades + ♠2; cards tie 2-2.
    st.piles = vec![cards("10D AH"), cards("2S 4H")];
    let round = st.round;
    let s = play(&st, 0, trail("3C"));
    let s = play(&s, 1, trail("4C"));
    assert_eq!(s.scores, vec![23, 23]);
    assert!(!s.finished);
    assert_eq!(s.round, round + 1);
    assert!(!GAME.status(&s).is_finished());
}

// ---------------------------------------------------------------- edge cases

#[test]
fn capture_several_groups_at_once_listed_once() {
    let st = position(&["10H 3S", "4D 6D"], loose("2C 8D 3H 7C 10S"), 0);
    let all = capture("10H", "2C 8D 3H 7C 10S", &[]);
    let legal = GAME.legal_actions(&st, 0);
    assert_eq!(legal.iter().filter(|a| **a == all).count(), 1);
    let next = play(&st, 0, all);
    assert_eq!(next.sweeps[0], 1);
    // A set that splits several ways (1+2+3 | 3+3) is one action.
    let st = position(&["6H 3S", "4D 6D"], loose("AC 2D 3H 3C 3D"), 0);
    let legal = GAME.legal_actions(&st, 0);
    let takes_all = legal
        .iter()
        .filter(|a| matches!(a, Action::Capture { card, cards, .. } if *card == c("6H") && cards.len() == 5))
        .count();
    assert_eq!(takes_all, 1);
    // Any order of the same cards is accepted.
    assert!(
        GAME.apply(&st, 0, &capture("6H", "3D 3C 3H 2D AC", &[]))
            .is_ok()
    );
}

#[test]
fn o1_one_build_at_a_time() {
    let st = position(
        &["2C 9H 4S 8C", "AH 10C 3D"],
        {
            let mut t = loose("7D 4H");
            t.push(build(1, 9, BuildKind::Single, 0, "6C 3C"));
            t.push(build(2, 5, BuildKind::Single, 1, "2H 3H"));
            t
        },
        0,
    );
    let new = Action::Build {
        card: c("4S"),
        value: 8,
        cards: cards("4H"),
    };
    assert_eq!(refused(&st, 0, new), "already_own_build");
    let raise_other = Action::Raise {
        card: c("4S"),
        build: 2,
        value: 9,
    };
    assert_eq!(refused(&st, 0, raise_other), "already_own_build");
    let add_other = Action::AddToBuild {
        card: c("4S"),
        build: 2,
        cards: vec![],
    };
    assert_eq!(refused(&st, 0, add_other), "already_own_build");
    // The own build may still be changed: adding 2+7 makes it a multiple 9.
    let add_own = Action::AddToBuild {
        card: c("2C"),
        build: 1,
        cards: cards("7D"),
    };
    assert!(GAME.legal_actions(&st, 0).contains(&add_own));
}

#[test]
fn o2_must_capture_after_building() {
    let mut st = position(
        &["9H 4C", "KD"],
        vec![build(1, 9, BuildKind::Single, 0, "2C 7D")],
        0,
    );
    st.built_last_turn[0] = true;
    assert_eq!(refused(&st, 0, trail("4C")), "must_capture");
    let b = Action::AddToBuild {
        card: c("4C"),
        build: 1,
        cards: vec![],
    };
    assert_eq!(refused(&st, 0, b), "must_capture");
    assert_eq!(GAME.legal_actions(&st, 0), vec![capture("9H", "", &[1])]);
}

#[test]
fn o3_build_needs_a_backing_card() {
    let st = position(&["2C 4S", "KD"], loose("7D"), 0);
    let b = Action::Build {
        card: c("2C"),
        value: 9,
        cards: cards("7D"),
    };
    assert_eq!(refused(&st, 0, b), "no_card_for_build");
    let st = position(&["2C 9S", "KD"], loose("7D"), 0);
    let wrong = Action::Build {
        card: c("2C"),
        value: 8,
        cards: cards("7D"),
    };
    assert_eq!(refused(&st, 0, wrong), "bad_build_sum");
    let none = Action::Build {
        card: c("2C"),
        value: 9,
        cards: vec![],
    };
    assert_eq!(refused(&st, 0, none), "build_needs_table_cards");
}

#[test]
fn raise_value_must_add_up() {
    let st = position(
        &["9C 3S", "AH 10C 4D"],
        vec![build(1, 9, BuildKind::Single, 0, "2C 7D")],
        1,
    );
    let r = Action::Raise {
        card: c("AH"),
        build: 1,
        value: 11,
    };
    assert_eq!(refused(&st, 1, r), "wrong_build_value");
    let r = Action::Raise {
        card: c("AH"),
        build: 7,
        value: 10,
    };
    assert_eq!(refused(&st, 1, r), "no_such_build");
}

#[test]
fn sweeps_cancel_variant() {
    let params = Params::load().unwrap();
    let a = cards("3H");
    let b = cards("4H");
    let takes = |sa, sb| {
        vec![
            SideTake {
                seats: vec![0],
                pile: &a,
                sweeps: sa,
                last_capture: false,
            },
            SideTake {
                seats: vec![1],
                pile: &b,
                sweeps: sb,
                last_capture: false,
            },
        ]
    };
    let plain = score_round(&params, &takes(3, 1), false);
    assert_eq!((plain[0].sweeps, plain[1].sweeps), (3, 1));
    let cancel = score_round(&params, &takes(3, 1), true);
    assert_eq!((cancel[0].sweeps, cancel[1].sweeps), (2, 0));
    assert_eq!(cancel[0].points, 2);
    assert_eq!(cancel[1].points, 0);
}

#[test]
fn hostile_actions_are_refused_without_panic() {
    let st = position(&["9H 4C", "KD 3D"], loose("9C 5D"), 0);
    assert_eq!(refused(&st, 0, trail("KD")), "card_not_in_hand");
    assert_eq!(refused(&st, 1, trail("KD")), "not_your_turn");
    assert_eq!(refused(&st, 7, trail("9H")), "not_your_turn");
    assert_eq!(
        refused(&st, 0, capture("9H", "", &[])),
        "nothing_to_capture"
    );
    assert_eq!(
        refused(&st, 0, capture("9H", "9C 9C", &[])),
        "duplicate_item"
    );
    assert_eq!(
        refused(&st, 0, capture("9H", "", &[u32::MAX])),
        "no_such_build"
    );
    let zero = Action::Build {
        card: c("4C"),
        value: 0,
        cards: cards("9C"),
    };
    assert_eq!(refused(&st, 0, zero), "bad_build_sum");
    let huge = Action::Raise {
        card: c("4C"),
        build: u32::MAX,
        value: u32::MAX,
    };
    assert_eq!(refused(&st, 0, huge), "no_such_build");
    let flood = Action::Capture {
        card: c("9H"),
        cards: vec![c("9C"); 100_000],
        builds: vec![1; 100_000],
    };
    assert_eq!(refused(&st, 0, flood), "not_on_table");
    let mut over = st.clone();
    over.finished = true;
    assert_eq!(refused(&over, 0, trail("9H")), "game_over");
    assert!(GAME.legal_actions(&over, 0).is_empty());
    // Actions that are not Kasino actions do not parse.
    assert!(serde_json::from_str::<Action>(r#"{"type":"fold"}"#).is_err());
    let a: Action = serde_json::from_str(r#"{"type":"clear_table"}"#).unwrap();
    assert_eq!(a, Action::ClearTable);
    let a: Action =
        serde_json::from_str(r#"{"type":"capture","card":"9H","cards":["9C"]}"#).unwrap();
    assert_eq!(a, capture("9H", "9C", &[]));
}

#[test]
fn options_and_player_counts_are_validated() {
    assert!(
        GAME.setup(&Options::default(), 1, GameRng::seed_from_u64(1))
            .is_err()
    );
    assert!(
        GAME.setup(&Options::default(), 5, GameRng::seed_from_u64(1))
            .is_err()
    );
    assert!(serde_json::from_str::<Options>(r#"{"teams":true,"bogus":1}"#).is_err());
    let o: Options = serde_json::from_str("{}").unwrap();
    assert_eq!(o, Options::default());
    assert!(GAME.check_data().is_ok());
    assert!(Params::parse("[players]\nmin = 2").is_err());
    let broken = include_str!("data.toml").replace("later_hand = 4", "later_hand = 5");
    assert!(Params::parse(&broken).unwrap_err().contains("divide"));
    assert_eq!(GAME.info().rules_version, 2);
    assert_eq!(GAME.replays_rules_versions(), 1..=2);
}

// ---------------------------------------------------------------- hidden information

#[test]
fn leak_other_hands_absent_from_view_and_text() {
    let st = position(&["9H 4C QS", "KD 3D JC"], loose("9C 2H"), 0);
    let view = serde_json::to_string(&GAME.view(&st, Viewer::Seat(0))).unwrap();
    let text = GAME.render_text(&st, Viewer::Seat(0));
    for secret in ["KD", "3D", "JC"] {
        assert!(
            !view.contains(&format!("\"{secret}\"")),
            "{secret} leaks in view"
        );
        let pretty = c(secret).pretty();
        assert!(!text.contains(&pretty), "{pretty} leaks in text");
    }
    assert!(
        view.contains("\"QS\"") && text.contains("Q♠"),
        "own hand shown"
    );
    assert!(text.contains("9♣") && text.contains("2♥"), "table shown");
    // The stock order is never shown, to anyone.
    let spectator = serde_json::to_string(&GAME.view(&st, Viewer::Spectator)).unwrap();
    for card in st.stock.iter().chain(st.hands.concat().iter()) {
        assert!(
            !spectator.contains(&format!("\"{card}\"")),
            "{card} leaks to spectators"
        );
    }
    let v = GAME.view(&st, Viewer::Seat(1));
    assert_eq!(v.seats[0].hand_size, 3);
    assert_eq!(v.stock_count, st.stock.len());
}

#[test]
fn render_text_shows_table_builds_scores_and_turn() {
    let mut st = position(
        &["9H 4C", "KD 3D"],
        {
            let mut t = loose("9C 5D");
            t.push(build(3, 9, BuildKind::Single, 0, "2C 7D"));
            t
        },
        0,
    );
    st.last_hand = true;
    st.sweeps[1] = 2;
    st.built_last_turn[0] = true;
    let text = GAME.render_text(&st, Viewer::Seat(0));
    assert!(
        text.contains("build B3: value 9, single, owner Seat 1"),
        "{text}"
    );
    assert!(text.contains("LAST HAND"));
    assert!(text.contains("Your turn"));
    assert!(text.contains("sweeps 2"));
    assert!(text.contains("must capture"));
    assert!(text.contains("Your hand: 4♣ 9♥"), "{text}");
    assert!(text.contains("Scores (play to 21)"));
}

#[test]
fn action_and_options_schemas_are_documented() {
    let a = serde_json::to_string(&schemars::schema_for!(Action)).unwrap();
    for word in [
        "trail",
        "capture",
        "clear_table",
        "build",
        "raise",
        "add_to_build",
        "bygger videre",
    ] {
        assert!(a.contains(word), "action schema lacks {word}");
    }
    let o = serde_json::to_string(&schemars::schema_for!(Options)).unwrap();
    assert!(o.contains("sweeps_cancel") && o.contains("teams") && o.contains("HR-10"));
}

// --------------------------------------------------- rules version 2 and invariants

/// A "mere" build (the played card alone worth N) lays the card on one loose
/// card of value N, as the seed's "mere syv"; a 7 put on 3 + 4 is not a build.
#[test]
fn mere_build_lays_the_card_on_one_loose_card_of_its_value() {
    let st = position(&["7H 7C 2D", "KD 3D"], loose("3C 4D 7S"), 0);
    let on_combination = Action::Build {
        card: c("7H"),
        value: 7,
        cards: cards("3C 4D"),
    };
    assert_eq!(refused(&st, 0, on_combination), "mere_needs_equal_card");
    let legal = GAME.legal_actions(&st, 0);
    let mere = Action::Build {
        card: c("7H"),
        value: 7,
        cards: cards("7S"),
    };
    assert!(legal.contains(&mere), "{legal:?}");
    // HR-8: a further group of 7 may join the mere build.
    let with_group = Action::Build {
        card: c("7H"),
        value: 7,
        cards: cards("3C 4D 7S"),
    };
    assert!(legal.contains(&with_group), "{legal:?}");
    let next = play(&st, 0, with_group);
    let b = next.owned_build(0).unwrap();
    assert_eq!(
        (b.value, b.kind, b.cards.len()),
        (7, BuildKind::Multiple, 4)
    );
}

/// A 2-player position in the last hand: `hands` still to play, the table empty, seat 0's
/// and seat 1's capture piles as given and every other card in seat 2's (or seat 1's with
/// two players) pile, seat 2 the last capturer.
fn last_hand(st: &State, hands: &[&str], a: &str, b: &str) -> State {
    let mut s = st.clone();
    s.hands = hands.iter().map(|h| cards(h)).collect();
    s.table.clear();
    s.stock.clear();
    s.last_hand = true;
    s.turn = 0;
    s.built_last_turn = vec![false; s.seats];
    s.sweeps = vec![0; s.seats];
    let (pa, pb) = (cards(a), cards(b));
    let held = s.hands.concat();
    let rest: Vec<Card> = standard_deck()
        .into_iter()
        .filter(|x| !pa.contains(x) && !pb.contains(x) && !held.contains(x))
        .collect();
    s.piles = vec![pa, pb, rest];
    s.last_capturer = Some(2);
    s
}

/// Example 9.15 played out: round 3 ends 22 / 22 / 15 (tie at the top: round 4), round 4
/// ends 25 / 23 / 22 and the game is over, all by playing the last cards of each round.
#[test]
fn ex_9_15_game_end_tie_then_winner_by_play() {
    let mut st = GAME
        .setup(&Options::default(), 3, GameRng::seed_from_u64(4))
        .unwrap();
    st.round = 3;
    st.scores = vec![18, 18, 12];
    // A: ♦10 and two aces (4); B: most spades, ♠2 and an ace (4); C: most cards, the ace
    // of spades and the last capture (3).
    st = last_hand(
        &st,
        &["3C", "4C", "5C"],
        "10D AH AD",
        "2S 3S 4S 5S 6S 7S 8S 9S AC",
    );
    for seat in 0..3 {
        assert!(!GAME.status(&st).is_finished());
        st = play(&st, seat, trail(["3C", "4C", "5C"][seat]));
    }
    assert_eq!(st.scores, vec![22, 22, 15]);
    assert_eq!(st.round, 4, "the top is tied: another round");
    assert!(!GAME.status(&st).is_finished());
    // Round 4: A ♦10 and an ace (3); B ♠2 (1); C the rest (7).
    st = last_hand(&st, &["3C", "4C", "5C"], "10D AH", "2S");
    for seat in 0..3 {
        st = play(&st, seat, trail(["3C", "4C", "5C"][seat]));
    }
    assert_eq!(st.scores, vec![25, 23, 22]);
    let Status::Finished(o) = GAME.status(&st) else {
        panic!("the game must be over")
    };
    assert_eq!(o.winners(), vec![0]);
    assert!(o.summary.contains("Seat 1 wins with 25"), "{}", o.summary);
    assert_eq!(refused(&st, 0, trail("3C")), "game_over");
}

/// The invariants catch lost or duplicated cards and doctored scores.
#[test]
fn invariants_catch_broken_states() {
    let st = GAME
        .setup(&Options::default(), 3, GameRng::seed_from_u64(2))
        .unwrap();
    assert_eq!(GAME.check_invariants(&st), Ok(()));
    let mut lost = st.clone();
    lost.stock.pop();
    assert!(GAME.check_invariants(&lost).unwrap_err().contains("52"));
    let mut twice = st.clone();
    let extra = twice.stock[0];
    twice.piles[1].push(extra);
    assert!(GAME.check_invariants(&twice).is_err());
    let mut score = st.clone();
    score.scores[2] += 1;
    assert!(GAME.check_invariants(&score).unwrap_err().contains("score"));
    let mut bad_build = position(
        &["9H 4C", "KD 3D"],
        vec![build(1, 9, BuildKind::Single, 0, "2C 6D")],
        0,
    );
    assert!(
        GAME.check_invariants(&bad_build)
            .unwrap_err()
            .contains("B1")
    );
    bad_build.table = vec![build(1, 8, BuildKind::Single, 0, "2C 6D")];
    assert_eq!(GAME.check_invariants(&bad_build), Ok(()));
}

/// The points a round adds are recomputed from the captured cards.
#[test]
fn round_end_points_are_recomputed_in_check_step() {
    let mut st = position(&["2H", "9C"], loose("4D 5C KH"), 0);
    st.stock.clear();
    st.last_hand = true;
    let rest: Vec<Card> = standard_deck()
        .into_iter()
        .filter(|x| !cards("2H 9C 4D 5C KH").contains(x))
        .collect();
    st.piles = vec![rest[..20].to_vec(), rest[20..].to_vec()];
    st.last_capturer = Some(0);
    assert_eq!(GAME.check_invariants(&st), Ok(()));
    let st = play(&st, 0, trail("2H"));
    let a = capture("9C", "4D 5C", &[]);
    let after = play(&st, 1, a.clone());
    assert_eq!(after.history.len(), 1);
    assert_eq!(GAME.check_invariants(&after), Ok(()));
    assert_eq!(GAME.check_step(&st, 1, &a, &after), Ok(()));
    // Points moved from one side to the other, consistently in scores and history: only
    // the recomputation from the piles can tell.
    let mut doctored = after.clone();
    doctored.scores[0] += 1;
    doctored.scores[1] -= 1;
    doctored.history[0][0].points += 1;
    doctored.history[0][1].points -= 1;
    doctored.history[0][0].items.push(("aces".into(), 1));
    doctored.history[0][1].items.push(("aces".into(), -1));
    assert!(GAME.check_step(&st, 1, &a, &doctored).is_err());
}

/// A game set up under rules version 1 keeps the old build rule: a 7 could be built on
/// 3 + 4 as a "mere" build.
#[test]
fn version_1_games_keep_the_old_mere_rule() {
    let mut st = position(&["7H 7C 2D", "KD 3D"], loose("3C 4D 7S"), 0);
    assert_eq!(st.rules_version, 2);
    let on_combination = Action::Build {
        card: c("7H"),
        value: 7,
        cards: cards("3C 4D"),
    };
    st.rules_version = 1;
    assert!(GAME.legal_actions(&st, 0).contains(&on_combination));
    let next = play(&st, 0, on_combination);
    assert_eq!(
        next.owned_build(0).map(|b| b.kind),
        Some(BuildKind::Multiple)
    );
    // A snapshot from before the version was recorded decodes as version 1.
    let mut json = serde_json::to_value(&st).unwrap();
    json.as_object_mut().unwrap().remove("rules_version");
    let old: State = serde_json::from_value(json).unwrap();
    assert_eq!(old.rules_version, 1);
}

// ---------------------------------------------------------------- board picture

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

/// A mid-round position with two loose cards, a build of Seat 1 and a multiple build of
/// Seat 3, three players holding 3, 2 and 4 cards.
fn picture_position() -> State {
    let mut table = loose("9C 5D");
    table.push(build(3, 9, BuildKind::Single, 0, "2C 7D"));
    table.push(build(4, 8, BuildKind::Multiple, 2, "8H 3S 5H"));
    let mut st = position(&["9H 4C QS", "KD 3D", "8S 6C JC AH"], table, 1);
    st.piles[0] = cards("2H 3H 4H");
    st.sweeps[2] = 1;
    st.built_last_turn[2] = true;
    st.scores = vec![7, 12, 3];
    st
}

#[test]
fn picture_draws_the_viewers_hand_face_up_and_other_hands_as_backs() {
    let st = picture_position();
    let view = GAME.view(&st, Viewer::Seat(1));
    let svg = GAME.board_svg(&view, &turnpost_engine::People::unnamed(Viewer::Seat(1)));
    turnpost_engine::harness::check_picture(&svg).unwrap();
    // The table: two loose cards, two builds of 2 and 3 cards.
    assert_eq!(count(&svg, "class=\"table-card\""), 2, "{svg}");
    assert_eq!(count(&svg, "class=\"build\""), 2);
    assert_eq!(count(&svg, "class=\"build-card\""), 5);
    assert!(svg.contains("B3 = 9") && svg.contains("B4 = 8"), "{svg}");
    assert!(
        svg.contains("Seat 3 · multiple"),
        "build owner and kind shown"
    );
    // The viewer's two cards face up, the others' 3 + 4 as backs.
    assert_eq!(count(&svg, "class=\"hand-card\""), 2);
    assert!(svg.contains("data-card=\"KD\"") && svg.contains("data-card=\"3D\""));
    assert_eq!(count(&svg, "class=\"card-back\""), 3 + 4);
    for hidden in ["9H", "4C", "QS", "8S", "6C", "JC", "AH"] {
        assert!(
            !svg.contains(&format!("data-card=\"{hidden}\"")),
            "{hidden} leaks into Seat 2's picture"
        );
    }
    // Turn, scores, stock, piles, sweeps and obligations.
    assert!(svg.contains("<title id=\"title\">Kasino: Your turn (Seat 2)</title>"));
    for text in [
        "Seat 1: 7",
        "You (Seat 2): 12",
        "Seat 3: 3",
        &format!("stock {} cards", st.stock.len()),
        "pile 3 · sweeps 0",
        "pile 0 · sweeps 1",
        "owns B4 · must capture",
    ] {
        assert!(svg.contains(text), "{text:?} missing from\n{svg}");
    }
    let desc = svg
        .split("<desc id=\"desc\">")
        .nth(1)
        .and_then(|d| d.split("</desc>").next())
        .unwrap_or_default();
    assert!(desc.contains("Your turn (Seat 2)"), "{desc}");
    assert!(desc.contains("Your hand: 3♦ K♦."), "{desc}");
    assert!(
        desc.contains("Build B4 worth 8 (multiple), owned by Seat 3: 8♥ 3♠ 5♥"),
        "{desc}"
    );
    assert!(desc.contains("Loose on the table: 9♣ 5♦"), "{desc}");
}

#[test]
fn spectator_picture_has_no_face_up_hand() {
    let st = picture_position();
    let svg = GAME.board_svg(
        &GAME.view(&st, Viewer::Spectator),
        &turnpost_engine::People::unnamed(Viewer::Spectator),
    );
    turnpost_engine::harness::check_picture(&svg).unwrap();
    assert_eq!(count(&svg, "class=\"hand-card\""), 0);
    assert_eq!(count(&svg, "class=\"card-back\""), 3 + 2 + 4);
    // Only the seven table cards are face up.
    assert_eq!(count(&svg, "data-card="), 7);
    assert!(svg.contains("Seat 2 to play"));
    assert!(!svg.contains("Your hand"));
}

#[test]
fn picture_is_the_same_bytes_for_the_same_view_and_follows_the_play() {
    let st = picture_position();
    let a = GAME.board_svg(
        &GAME.view(&st, Viewer::Seat(0)),
        &turnpost_engine::People::unnamed(Viewer::Seat(0)),
    );
    let b = GAME.board_svg(
        &GAME.view(&st.clone(), Viewer::Seat(0)),
        &turnpost_engine::People::unnamed(Viewer::Seat(0)),
    );
    assert_eq!(a, b);
    // Seat 2 trails the 3♦: the table grows by one card, its hand shrinks by one.
    let next = play(&st, 1, trail("3D"));
    let c = GAME.board_svg(
        &GAME.view(&next, Viewer::Seat(0)),
        &turnpost_engine::People::unnamed(Viewer::Seat(0)),
    );
    assert_ne!(a, c);
    assert_eq!(count(&c, "class=\"table-card\""), 3);
    assert_eq!(count(&c, "class=\"card-back\""), 1 + 4);
    assert!(c.contains("Seat 3 to play"));
}

#[test]
fn finished_picture_names_the_winner() {
    let p = random_playout(&GAME, &Options::default(), 2, 5, 5000).unwrap();
    assert!(p.finished);
    let view = GAME.view(&p.state, Viewer::Seat(0));
    let svg = GAME.board_svg(&view, &turnpost_engine::People::unnamed(Viewer::Seat(0)));
    turnpost_engine::harness::check_picture(&svg).unwrap();
    let Status::Finished(o) = GAME.status(&p.state) else {
        panic!("finished")
    };
    let winner = o.winners()[0];
    let top = view.scores.iter().map(|s| s.score).max().unwrap();
    assert!(
        svg.contains(&format!(
            "Game over: {} wins with {top}",
            if winner == 0 {
                "You (Seat 1)".to_string()
            } else {
                format!("Seat {}", winner + 1)
            }
        )),
        "{svg}"
    );
    assert!(!svg.contains("to play"));
}

/// Renders a few positions to PNG under `target/pictures/` for people to look at, and
/// checks that they rasterise.
#[test]
fn pictures_render_to_png() {
    let mid = picture_position();
    let start = GAME
        .setup(&Options::default(), 2, GameRng::seed_from_u64(3))
        .unwrap();
    let teams = Options {
        teams: true,
        ..Options::default()
    };
    let four = random_playout(&GAME, &teams, 4, 8, 30).unwrap().state;
    let end = random_playout(&GAME, &Options::default(), 2, 5, 5000)
        .unwrap()
        .state;
    let shots = [
        ("kasino-start-seat1", &start, Viewer::Seat(0)),
        ("kasino-mid-seat2", &mid, Viewer::Seat(1)),
        ("kasino-mid-spectator", &mid, Viewer::Spectator),
        ("kasino-teams-seat4", &four, Viewer::Seat(3)),
        ("kasino-teams-spectator", &four, Viewer::Spectator),
        ("kasino-end-seat1", &end, Viewer::Seat(0)),
    ];
    for (name, st, viewer) in shots {
        let svg = GAME.board_svg(
            &GAME.view(st, viewer),
            &turnpost_engine::People::unnamed(viewer),
        );
        turnpost_engine::svg::save_png(name, &svg).unwrap();
    }
}

/// HR-12 in RULES.md says how often a move plays itself; this keeps the text true (a word
/// like "rare" is wrong where random play measures 19 %). Counted over random two-player
/// games: the moves a seat to act had to make, and of those the ones forced.
#[test]
fn forced_moves_are_as_frequent_as_rules_md_says() {
    let (mut moves, mut forced) = (0usize, 0usize);
    for seed in 0..200u64 {
        let p = random_playout(&GAME, &Options::default(), 2, seed, 5_000).unwrap();
        let mut st = GAME
            .setup(&Options::default(), 2, GameRng::seed_from_u64(seed))
            .unwrap();
        for (seat, a) in &p.log {
            moves += 1;
            if GAME.forced_action(&st, *seat).is_some() {
                forced += 1;
            }
            st = GAME.apply(&st, *seat, a).unwrap();
        }
    }
    let share = forced as f64 / moves as f64;
    eprintln!("forced moves: {forced} of {moves} ({:.1} %)", share * 100.0);
    // RULES.md: "about one move in five".
    assert!((0.12..0.28).contains(&share), "{share}");
}
