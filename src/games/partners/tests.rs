//! Contract playouts, the digest's worked examples (9.x), one test per house rule (hr_n_),
//! edge cases and leak checks.

use super::*;
use turnpost_engine::harness::{PlayoutConfig, assert_resample_covers, check_many};

fn d() -> &'static Data {
    data().unwrap()
}

fn card(s: &str) -> Card {
    s.parse().unwrap()
}

fn cards(list: &[&str]) -> Vec<Card> {
    let mut v: Vec<Card> = list.iter().map(|s| card(s)).collect();
    v.sort();
    v
}

/// A 4-seat (or 2-seat) table in the play phase with every piece in its circle, every
/// hand empty and yellow to play.
fn table(seats: usize) -> State {
    let mut st = Partners
        .setup(&Options::default(), seats, GameRng::seed_from_u64(7))
        .unwrap();
    st.phase = Phase::Play;
    st.hands = vec![Vec::new(); 4];
    st.pending = vec![None; 4];
    st.given = vec![None; 4];
    st.turn = 0;
    st
}

/// Puts colour `c`'s first pieces at `locs`; a piece on its own start field counts as just
/// entered (not yet left), any other as having left it.
fn place(st: &mut State, c: usize, locs: &[Loc]) {
    for (i, &loc) in locs.iter().enumerate() {
        st.pieces[c][i] = Piece {
            loc,
            left_start: loc != Loc::Track(d().start_field(c)),
        };
    }
}

fn locs(st: &State, c: usize) -> Vec<Loc> {
    let mut v: Vec<Loc> = st.pieces[c].iter().map(|p| p.loc).collect();
    v.sort();
    v
}

fn circle_count(st: &State, c: usize) -> usize {
    st.pieces[c].iter().filter(|p| p.loc == Loc::Circle).count()
}

fn fwd(c: &str, from: Spot, steps: u8, into_home: bool) -> Action {
    Action::Forward {
        card: card(c),
        from,
        steps,
        into_home,
    }
}

fn part(from: u8, steps: u8) -> Part {
    Part {
        from: Spot::Track(from),
        steps,
        into_home: false,
    }
}

const YELLOW: usize = 0;
const RED: usize = 1;
const BLUE: usize = 2;
const GREEN: usize = 3;
use Loc::{Home, Track};

// ---------------------------------------------------------------- contract

#[test]
fn data_is_valid() {
    assert!(Partners.check_data().is_ok());
    assert!(Data::parse("board = 1").is_err());
    let broken = include_str!("partners.toml").replace("rank = \"Q\"", "rank = \"K\"");
    let err = Data::parse(&broken).unwrap_err();
    assert!(err.contains("twice"), "{err}");
}

/// State fields everyone may see, so `resample_hidden` keeps them. Everything else (the
/// deck order, other hands, exchange choices and cards, the RNG) must be resampled.
const PUBLIC: &[&str] = &[
    "rules_version",
    "seats",
    "options",
    // Cards on the pile lie face up (HR-11 for laid-down hands).
    "played",
    "dealer",
    "deal_in_cycle",
    "deals",
    "discarded",
    "phase",
    "turn",
    "pieces",
    "winner",
    // The public event lines ("Yellow chose a card for Blue", never which).
    "log",
];

/// With two players there is no exchange (HR-5): `pending` and `given` stay empty, so
/// there is nothing in them to resample.
const PUBLIC_TWO_SEATS: &[&str] = &[
    "rules_version",
    "seats",
    "options",
    "played",
    "dealer",
    "deal_in_cycle",
    "deals",
    "discarded",
    "phase",
    "turn",
    "pieces",
    "winner",
    "log",
    "pending",
    "given",
];

#[test]
fn contract_four_seats() {
    let t = std::time::Instant::now();
    // Capped playouts (deal_limit), 670 of them with every check on every few steps.
    let capped = Options { deal_limit: 3 };
    let cfg = PlayoutConfig {
        deep_every: 3,
        ..PlayoutConfig::default()
    };
    let stats = check_many(&Partners, &capped, 4, 600, 1, &cfg);
    eprintln!(
        "4 seats, 600 capped, deep 3: {} actions at {:?}",
        stats.actions,
        t.elapsed()
    );
    assert_resample_covers(&stats, PUBLIC);
    assert!(stats.invariant_checks > stats.actions, "{stats:?}");
    assert!(stats.private_log_entries >= 600 * 4 * 3, "{stats:?}");
    assert!(stats.resamples_that_changed_state > 0 && stats.illegal_tried > 0);
    let deep = PlayoutConfig {
        deep_every: 1,
        ..PlayoutConfig::default()
    };
    let stats = check_many(&Partners, &capped, 4, 70, 5_000, &deep);
    eprintln!(
        "4 seats, 70 capped, deep 1: {} actions at {:?}",
        stats.actions,
        t.elapsed()
    );
    assert_resample_covers(&stats, PUBLIC);
    assert!(stats.private_log_entries >= 70 * 4 * 3, "{stats:?}");
    // Whole games, uncapped, to the win.
    let sparse = PlayoutConfig {
        deep_every: 20,
        ..PlayoutConfig::default()
    };
    let stats = check_many(&Partners, &Options::default(), 4, 30, 9_000, &sparse);
    assert!(stats.actions > 30 * 100, "{stats:?}");
    eprintln!(
        "4 seats, 30 whole games, deep 20: {} actions at {:?}",
        stats.actions,
        t.elapsed()
    );
}

#[test]
fn contract_two_seats() {
    let capped = Options { deal_limit: 3 };
    let cfg = PlayoutConfig {
        deep_every: 2,
        ..PlayoutConfig::default()
    };
    let t = std::time::Instant::now();
    let stats = check_many(&Partners, &capped, 2, 150, 20_000, &cfg);
    eprintln!(
        "2 seats, 150 capped, deep 2: {} actions at {:?}",
        stats.actions,
        t.elapsed()
    );
    assert_resample_covers(&stats, PUBLIC_TWO_SEATS);
    // HR-5: no exchange with two players, so nothing private in the log.
    assert_eq!(stats.private_log_entries, 0);
    assert!(stats.resamples_that_changed_state > 0);
    let sparse = PlayoutConfig {
        deep_every: 20,
        ..PlayoutConfig::default()
    };
    let stats = check_many(&Partners, &Options::default(), 2, 10, 30_000, &sparse);
    eprintln!(
        "2 seats, 10 whole games, deep 20: {} actions at {:?}",
        stats.actions,
        t.elapsed()
    );
    assert!(stats.actions > 10 * 100, "{stats:?}");
}

#[test]
fn finished_games_rank_both_teams() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Home(1), Home(2), Home(3), Home(4)]);
    place(&mut st, BLUE, &[Home(2), Home(3), Home(4), Track(30)]);
    st.hands[0] = cards(&["3H"]);
    let next = Partners
        .apply(&st, 0, &fwd("3H", Spot::Track(30), 3, true))
        .unwrap();
    let Status::Finished(outcome) = Partners.status(&next) else {
        panic!("not finished")
    };
    assert_eq!(outcome.teams.len(), 2);
    assert_eq!(outcome.teams[0].seats, vec![0, 2]);
    assert_eq!(outcome.teams[0].rank, 1);
    assert_eq!(outcome.teams[1].seats, vec![1, 3]);
    assert_eq!(outcome.teams[1].rank, 2);
    assert_eq!(outcome.winners(), vec![0, 2]);
    assert_eq!(
        Partners.apply(&next, 1, &Action::Discard).unwrap_err().code,
        "game_over"
    );
}

// ---------------------------------------------------------------- worked examples

#[test]
fn example_9_1_start_needs_a_start_card() {
    let mut st = table(4);
    st.hands[0] = cards(&["KS", "5H", "2C", "9D"]);
    assert_eq!(
        Partners.legal_actions(&st, 0),
        vec![Action::Start { card: card("KS") }]
    );
    let next = Partners
        .apply(&st, 0, &Action::Start { card: card("KS") })
        .unwrap();
    assert_eq!(circle_count(&next, YELLOW), 3);
    assert!(next.pieces[YELLOW].contains(&Piece {
        loc: Track(0),
        left_start: false
    }));
    assert_eq!(
        Partners
            .apply(&st, 0, &fwd("5H", Spot::Track(0), 5, false))
            .unwrap_err()
            .code,
        "no_piece_there"
    );
}

#[test]
fn example_9_2_four_back_from_the_start_field_then_home() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(0)]);
    st.hands[0] = cards(&["4S", "5H"]);
    let back = Action::Back {
        card: card("4S"),
        from: 0,
    };
    assert!(Partners.legal_actions(&st, 0).contains(&back));
    // Straight from the start field a five cannot enter the home: the piece has not left.
    assert!(!Partners.legal_actions(&st, 0).iter().any(|a| matches!(
        a,
        Action::Forward {
            into_home: true,
            ..
        }
    )));
    let st = Partners.apply(&st, 0, &back).unwrap();
    assert_eq!(locs(&st, YELLOW)[3], Track(60));
    let five_home = fwd("5H", Spot::Track(60), 5, true);
    assert!(Partners.legal_actions(&st, 0).contains(&five_home));
    assert!(
        Partners
            .legal_actions(&st, 0)
            .contains(&fwd("5H", Spot::Track(60), 5, false))
    );
    let st = Partners.apply(&st, 0, &five_home).unwrap();
    assert!(st.pieces[YELLOW].iter().any(|p| p.loc == Home(1)));
}

#[test]
fn example_9_3_split_seven_two_plus_five_captures() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10), Track(30)]);
    place(&mut st, RED, &[Track(35)]);
    st.hands[0] = cards(&["7H", "AC"]);
    let seven = Action::Seven {
        card: card("7H"),
        parts: vec![part(10, 2), part(30, 5)],
    };
    assert!(Partners.legal_actions(&st, 0).contains(&seven));
    let next = Partners.apply(&st, 0, &seven).unwrap();
    assert_eq!(locs(&next, YELLOW)[2..], [Track(12), Track(35)]);
    assert_eq!(circle_count(&next, RED), 4);
    let three_three = Action::Seven {
        card: card("7H"),
        parts: vec![part(10, 3), part(30, 3)],
    };
    assert_eq!(
        Partners.apply(&st, 0, &three_three).unwrap_err().code,
        "split_must_total_7"
    );
}

#[test]
fn example_9_4_landing_on_a_partner_single_or_an_enemy_pair() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(20)]);
    place(&mut st, BLUE, &[Track(23)]);
    st.hands[0] = cards(&["3H"]);
    let three = fwd("3H", Spot::Track(20), 3, false);
    let next = Partners.apply(&st, 0, &three).unwrap();
    assert_eq!(
        circle_count(&next, BLUE),
        4,
        "the partner's piece is knocked out too"
    );
    assert!(next.pieces[YELLOW].iter().any(|p| p.loc == Track(23)));

    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(20)]);
    place(&mut st, GREEN, &[Track(23), Track(23)]);
    st.hands[0] = cards(&["3H"]);
    let next = Partners.apply(&st, 0, &three).unwrap();
    assert_eq!(
        circle_count(&next, YELLOW),
        4,
        "the mover is knocked out by the pair"
    );
    assert_eq!(locs(&next, GREEN)[2..], [Track(23), Track(23)]);
}

#[test]
fn example_9_5_start_field_blockade() {
    let mut st = table(4);
    place(&mut st, RED, &[Track(16)]);
    place(&mut st, YELLOW, &[Track(14)]);
    st.hands[0] = cards(&["5H"]);
    assert_eq!(Partners.legal_actions(&st, 0), vec![Action::Discard]);
    assert_eq!(
        Partners
            .apply(&st, 0, &fwd("5H", Spot::Track(14), 5, false))
            .unwrap_err()
            .code,
        "blocked"
    );
    // Red's own pieces pass freely.
    let mut st = table(4);
    place(&mut st, RED, &[Track(16), Track(14)]);
    st.turn = 1;
    st.hands[1] = cards(&["5H"]);
    let legal = Partners.legal_actions(&st, 1);
    assert!(
        legal.contains(&fwd("5H", Spot::Track(14), 5, false)),
        "{legal:?}"
    );
    let next = Partners
        .apply(&st, 1, &fwd("5H", Spot::Track(14), 5, false))
        .unwrap();
    assert_eq!(locs(&next, RED)[2..], [Track(16), Track(19)]);
}

#[test]
fn example_9_6_swap_without_own_pieces() {
    let mut st = table(4);
    place(&mut st, GREEN, &[Track(40)]);
    place(&mut st, RED, &[Track(50)]);
    st.hands[0] = cards(&["JS"]);
    let swap = Action::Swap {
        card: card("JS"),
        a: 40,
        b: 50,
    };
    assert_eq!(Partners.legal_actions(&st, 0), vec![swap.clone()]);
    let next = Partners.apply(&st, 0, &swap).unwrap();
    assert_eq!(locs(&next, GREEN)[3], Track(50));
    assert_eq!(locs(&next, RED)[3], Track(40));
    // A green pair on 40 cannot be swapped.
    place(&mut st, GREEN, &[Track(40), Track(40)]);
    assert_eq!(Partners.legal_actions(&st, 0), vec![Action::Discard]);
}

#[test]
fn example_9_7_no_usable_card_lays_the_hand_down() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Home(1)]);
    st.hands[0] = cards(&["QH", "8C"]);
    st.hands[1] = cards(&["2C"]);
    assert_eq!(Partners.legal_actions(&st, 0), vec![Action::Discard]);
    let next = Partners.apply(&st, 0, &Action::Discard).unwrap();
    assert!(next.hands[0].is_empty());
    assert!(next.discarded[0]);
    assert!(next.played.contains(&card("QH")) && next.played.contains(&card("8C")));
    assert_eq!(next.turn, 1);
    // Yellow is skipped until the next deal: after red plays, the deal is over.
    let next = Partners.apply(&next, 1, &Action::Discard).unwrap();
    assert_ne!(next.deals, st.deals);
    assert_eq!(next.phase, Phase::Exchange);
}

#[test]
fn example_9_8_deck_cycle() {
    let mut st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(3))
        .unwrap();
    let dealer = st.dealer;
    assert_eq!((st.deal_in_cycle, st.deck.len()), (1, 36));
    st.deal(d());
    assert_eq!((st.deal_in_cycle, st.deck.len()), (2, 20));
    st.deal(d());
    assert_eq!((st.deal_in_cycle, st.deck.len()), (3, 4));
    st.played = vec![card("2C")];
    st.deal(d());
    assert_eq!(
        (st.deal_in_cycle, st.deck.len()),
        (1, 36),
        "all 52 cards reshuffled"
    );
    assert_eq!(st.dealer, (dealer + 1) % 4);
    assert!(st.played.is_empty());
    assert_eq!(st.hands.iter().map(Vec::len).sum::<usize>(), 16);
    // Play starts to the left of the dealer.
    assert_eq!(st.turn, (st.dealer + 1) % 4);
}

#[test]
fn example_9_9_finished_player_moves_the_partner() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Home(1), Home(2), Home(3), Home(4)]);
    place(&mut st, BLUE, &[Track(40)]);
    st.hands[0] = cards(&["AS"]);
    let legal = Partners.legal_actions(&st, 0);
    assert_eq!(
        legal,
        vec![
            Action::Start { card: card("AS") },
            fwd("AS", Spot::Track(40), 1, false),
            fwd("AS", Spot::Track(40), 14, false),
        ]
    );
    let next = Partners
        .apply(&st, 0, &Action::Start { card: card("AS") })
        .unwrap();
    assert!(next.pieces[BLUE].iter().any(|p| p.loc == Track(32)));
    assert!(
        Partners
            .render_text(&next, Viewer::Spectator)
            .contains("now moves Blue")
    );
}

#[test]
fn example_9_10_home_moves_are_exact_and_never_jump() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Home(2), Home(4)]);
    st.hands[0] = cards(&["AS", "2C", "3D"]);
    let legal = Partners.legal_actions(&st, 0);
    let forwards: Vec<&Action> = legal
        .iter()
        .filter(|a| matches!(a, Action::Forward { .. }))
        .collect();
    assert_eq!(forwards, vec![&fwd("AS", Spot::Home(2), 1, false)]);
    assert_eq!(
        Partners
            .apply(&st, 0, &fwd("2C", Spot::Home(2), 2, false))
            .unwrap_err()
            .code,
        "home_blocked"
    );
    assert_eq!(
        Partners
            .apply(&st, 0, &fwd("3D", Spot::Home(2), 3, false))
            .unwrap_err()
            .code,
        "home_overshoot"
    );
}

// ---------------------------------------------------------------- house rules

#[test]
fn hr_1_card_table_and_all_seven_steps_must_be_used() {
    let ace = d().card(1).unwrap();
    assert!(ace.start && ace.forward == vec![1, 14]);
    let king = d().card(13).unwrap();
    assert!(king.start && king.forward == vec![13]);
    assert_eq!(d().card(4).unwrap().back, 4);
    assert_eq!(d().card(7).unwrap().split, 7);
    assert!(d().card(11).unwrap().swap);
    assert_eq!(d().card(12).unwrap().forward, vec![12]);
    // Only 5 steps are possible before red's start blockade: the seven is not usable.
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10)]);
    place(&mut st, RED, &[Track(16)]);
    st.hands[0] = cards(&["7H"]);
    assert_eq!(Partners.legal_actions(&st, 0), vec![Action::Discard]);
    let err = Partners
        .apply(
            &st,
            0,
            &Action::Seven {
                card: card("7H"),
                parts: vec![part(10, 5)],
            },
        )
        .unwrap_err();
    assert_eq!(err.code, "split_must_total_7");
}

#[test]
fn hr_2_board_of_64_fields_wraps_and_start_fields() {
    assert_eq!(d().board.track_fields, 64);
    assert_eq!(
        (0..4).map(|c| d().start_field(c)).collect::<Vec<_>>(),
        vec![0, 16, 32, 48]
    );
    assert_eq!(d().board.home_fields, 4);
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(62)]);
    st.hands[0] = cards(&["3H"]);
    let next = Partners
        .apply(&st, 0, &fwd("3H", Spot::Track(62), 3, false))
        .unwrap();
    assert_eq!(locs(&next, YELLOW)[3], Track(1));
}

#[test]
fn hr_3_home_entry_is_optional_and_needs_the_piece_to_have_left() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(62)]);
    st.hands[0] = cards(&["3H"]);
    assert_eq!(
        Partners.legal_actions(&st, 0),
        vec![
            fwd("3H", Spot::Track(62), 3, false),
            fwd("3H", Spot::Track(62), 3, true)
        ]
    );
    // A piece just entered on its start field goes on along the track.
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(0)]);
    st.hands[0] = cards(&["2C"]);
    assert_eq!(
        Partners.legal_actions(&st, 0),
        vec![fwd("2C", Spot::Track(0), 2, false)]
    );
    assert_eq!(
        Partners
            .apply(&st, 0, &fwd("2C", Spot::Track(0), 2, true))
            .unwrap_err()
            .code,
        "no_home_entry"
    );
}

#[test]
fn hr_4_a_usable_card_must_be_played_even_to_self_knockout() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(20)]);
    place(&mut st, GREEN, &[Track(23), Track(23)]);
    st.hands[0] = cards(&["3H"]);
    assert_eq!(
        Partners.legal_actions(&st, 0),
        vec![fwd("3H", Spot::Track(20), 3, false)]
    );
    assert_eq!(
        Partners.apply(&st, 0, &Action::Discard).unwrap_err().code,
        "must_play_a_card"
    );
}

#[test]
fn hr_5_two_players_play_a_team_each_and_three_are_refused() {
    let err = Partners
        .setup(&Options::default(), 3, GameRng::seed_from_u64(1))
        .unwrap_err();
    assert_eq!(err.code, "invalid_player_count");
    assert!(err.message.contains("3-player"));
    assert!(
        Partners
            .setup(&Options::default(), 5, GameRng::seed_from_u64(1))
            .is_err()
    );
    let st = Partners
        .setup(&Options::default(), 2, GameRng::seed_from_u64(1))
        .unwrap();
    assert_eq!(st.phase, Phase::Play, "no exchange with two players");
    assert_eq!(Partners.seat_name(&st, 0), "Yellow & Blue");
    assert_eq!(Partners.seat_name(&st, 1), "Red & Green");
    assert_eq!(Partners.status(&st).to_act(), &[st.controller(st.turn)]);
    let view = serde_json::to_string(&Partners.view(&st, Viewer::Seat(0))).unwrap();
    for c in st.hands[0].iter().chain(&st.hands[2]) {
        assert!(
            view.contains(&format!("\"{c}\"")),
            "seat 0 sees both its hands"
        );
    }
    let text = Partners.render_text(&st, Viewer::Seat(0));
    assert!(text.contains("Your hand (Yellow)") && text.contains("Your hand (Blue)"));
    for c in st.hands[1].iter().chain(&st.hands[3]) {
        assert!(
            !view.contains(&format!("\"{c}\"")),
            "seat 0 must not see red or green"
        );
        assert!(
            !text.contains(&c.pretty()),
            "seat 0's text must not show red or green"
        );
    }
}

#[test]
fn hr_6_first_dealer_is_random_and_its_left_starts() {
    let dealers: std::collections::BTreeSet<usize> = (0..40)
        .map(|s| {
            Partners
                .setup(&Options::default(), 4, GameRng::seed_from_u64(s))
                .unwrap()
                .dealer
        })
        .collect();
    assert_eq!(dealers.len(), 4);
    let st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(11))
        .unwrap();
    let mut next = st.clone();
    for seat in 0..4 {
        let a = Partners.legal_actions(&next, seat)[0].clone();
        next = Partners.apply(&next, seat, &a).unwrap();
    }
    assert_eq!(next.phase, Phase::Play);
    assert_eq!(Partners.status(&next).to_act(), &[(st.dealer + 1) % 4]);
}

#[test]
fn hr_7_start_field_block_stops_backward_moves() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(18)]);
    place(&mut st, RED, &[Track(16)]);
    st.hands[0] = cards(&["4S"]);
    assert_eq!(Partners.legal_actions(&st, 0), vec![Action::Discard]);
    let back = Action::Back {
        card: card("4S"),
        from: 18,
    };
    assert_eq!(Partners.apply(&st, 0, &back).unwrap_err().code, "blocked");
}

#[test]
fn hr_8_own_pieces_pair_up_and_pairs_do_not_block() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10), Track(12)]);
    place(&mut st, BLUE, &[Track(15), Track(15)]);
    st.hands[0] = cards(&["2C", "5D"]);
    let legal = Partners.legal_actions(&st, 0);
    assert!(
        legal.contains(&fwd("5D", Spot::Track(12), 5, false)),
        "a pair does not block passing"
    );
    let next = Partners
        .apply(&st, 0, &fwd("2C", Spot::Track(10), 2, false))
        .unwrap();
    assert_eq!(locs(&next, YELLOW)[2..], [Track(12), Track(12)]);
}

#[test]
fn hr_9_each_split_part_captures_where_it_lands_twice() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10), Track(30)]);
    place(&mut st, RED, &[Track(13)]);
    place(&mut st, GREEN, &[Track(34)]);
    st.hands[0] = cards(&["7H"]);
    let seven = Action::Seven {
        card: card("7H"),
        parts: vec![part(10, 3), part(30, 4)],
    };
    assert!(Partners.legal_actions(&st, 0).contains(&seven));
    let next = Partners.apply(&st, 0, &seven).unwrap();
    assert_eq!(circle_count(&next, RED), 4);
    assert_eq!(circle_count(&next, GREEN), 4);
    assert_eq!(locs(&next, YELLOW)[2..], [Track(13), Track(34)]);
    // Passing over a piece does not capture it: 10 → 17 leaves red on 13 alone.
    let pass = Action::Seven {
        card: card("7H"),
        parts: vec![part(10, 7)],
    };
    let next = Partners.apply(&st, 0, &pass).unwrap();
    assert_eq!(locs(&next, RED)[3], Track(13));
}

#[test]
fn hr_10_swap_needs_two_colours_and_may_take_a_start_field_piece() {
    let mut st = table(4);
    place(&mut st, RED, &[Track(16), Track(20)]);
    place(&mut st, YELLOW, &[Track(5)]);
    st.hands[0] = cards(&["JS"]);
    let legal = Partners.legal_actions(&st, 0);
    let swap = |a, b| Action::Swap {
        card: card("JS"),
        a,
        b,
    };
    assert_eq!(legal, vec![swap(5, 16), swap(5, 20)]);
    assert_eq!(
        Partners.apply(&st, 0, &swap(16, 20)).unwrap_err().code,
        "same_colour"
    );
    let next = Partners.apply(&st, 0, &swap(5, 16)).unwrap();
    assert_eq!(locs(&next, YELLOW)[3], Track(16));
    assert_eq!(locs(&next, RED)[2..], [Track(5), Track(20)]);
}

#[test]
fn hr_11_a_laid_down_hand_is_shown_face_up() {
    let mut st = table(4);
    st.hands[0] = cards(&["QH", "8C"]);
    st.hands[1] = cards(&["2C"]);
    let next = Partners.apply(&st, 0, &Action::Discard).unwrap();
    let text = Partners.render_text(&next, Viewer::Seat(1));
    assert!(text.contains("lays down 8♣ Q♥"), "{text}");
    let view = serde_json::to_string(&Partners.view(&next, Viewer::Spectator)).unwrap();
    assert!(view.contains("\"QH\"") && view.contains("\"8C\""));
}

// ---------------------------------------------------------------- edge cases

#[test]
fn blockade_stops_the_partner() {
    let mut st = table(4);
    place(&mut st, BLUE, &[Track(32)]);
    place(&mut st, YELLOW, &[Track(30)]);
    st.hands[0] = cards(&["5H", "2C"]);
    assert_eq!(Partners.legal_actions(&st, 0), vec![Action::Discard]);
    assert_eq!(
        Partners
            .apply(&st, 0, &fwd("2C", Spot::Track(30), 2, false))
            .unwrap_err()
            .code,
        "blocked"
    );
}

#[test]
fn swap_refused_on_a_pair_or_a_home_piece() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Home(1), Track(8)]);
    place(&mut st, RED, &[Track(20), Track(20)]);
    st.hands[0] = cards(&["JS"]);
    assert_eq!(Partners.legal_actions(&st, 0), vec![Action::Discard]);
    let swap = Action::Swap {
        card: card("JS"),
        a: 8,
        b: 20,
    };
    assert_eq!(
        Partners.apply(&st, 0, &swap).unwrap_err().code,
        "pair_protected"
    );
    // The home piece has no track field to name; the nearest try finds no piece.
    let swap = Action::Swap {
        card: card("JS"),
        a: 0,
        b: 8,
    };
    assert_eq!(
        Partners.apply(&st, 0, &swap).unwrap_err().code,
        "no_piece_there"
    );
}

#[test]
fn exact_home_entry_refused_on_overshoot() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(62)]);
    st.hands[0] = cards(&["10H"]);
    let legal = Partners.legal_actions(&st, 0);
    assert_eq!(legal, vec![fwd("10H", Spot::Track(62), 10, false)]);
    assert_eq!(
        Partners
            .apply(&st, 0, &fwd("10H", Spot::Track(62), 10, true))
            .unwrap_err()
            .code,
        "home_overshoot"
    );
}

#[test]
fn win_inside_a_split_seven_ends_the_game() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Home(1), Home(2), Home(3), Home(4)]);
    place(&mut st, BLUE, &[Home(2), Home(3), Home(4), Track(30)]);
    st.hands[0] = cards(&["7H"]);
    let legal = Partners.legal_actions(&st, 0);
    let win = Action::Seven {
        card: card("7H"),
        parts: vec![Part {
            from: Spot::Track(30),
            steps: 3,
            into_home: true,
        }],
    };
    assert!(legal.contains(&win), "{legal:?}");
    let next = Partners.apply(&st, 0, &win).unwrap();
    assert_eq!(next.winner, Some(0));
}

#[test]
fn every_seven_split_is_listed_once_per_outcome() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10), Track(30)]);
    st.hands[0] = cards(&["7H"]);
    let legal = Partners.legal_actions(&st, 0);
    // Distinct outcomes: piece A moves k in 0..=7 and B the rest: 8 positions.
    assert_eq!(legal.len(), 8, "{legal:?}");
    let descriptions: std::collections::BTreeSet<String> = legal
        .iter()
        .map(|a| Partners.describe_action(&st, 0, a))
        .collect();
    assert_eq!(descriptions.len(), 8);
}

#[test]
fn hostile_actions_are_refused_without_panic() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10), Home(2)]);
    st.hands[0] = cards(&["7H", "AS", "JS", "4C"]);
    let bad = vec![
        fwd("AS", Spot::Track(255), 255, true),
        fwd("AS", Spot::Home(0), 1, false),
        fwd("AS", Spot::Home(250), 14, false),
        Action::Back {
            card: card("4C"),
            from: 255,
        },
        Action::Seven {
            card: card("7H"),
            parts: vec![],
        },
        Action::Seven {
            card: card("7H"),
            parts: vec![part(10, 255), part(10, 255)],
        },
        Action::Swap {
            card: card("JS"),
            a: 255,
            b: 255,
        },
        Action::Exchange { card: card("7H") },
        Action::Start { card: card("KD") },
    ];
    for a in &bad {
        assert!(Partners.apply(&st, 0, a).is_err(), "{a:?}");
        for seat in [1, 2, 3, 4, 99] {
            assert_eq!(
                Partners.apply(&st, seat, a).unwrap_err().code,
                "not_your_turn"
            );
        }
    }
}

// ---------------------------------------------------------------- hidden information

#[test]
fn exchanged_card_and_hands_do_not_leak_to_the_other_team() {
    let st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(5))
        .unwrap();
    assert_eq!(Partners.status(&st).to_act(), &[0, 1, 2, 3]);
    let give = st.hands[0][0];
    let action = Action::Exchange { card: give };
    let Visibility::Private {
        seen_by,
        public_form,
    } = Partners.action_visibility(&st, 0, &action)
    else {
        panic!("the exchange must be private")
    };
    // Blue has not chosen yet, so even Blue may not see Yellow's card.
    assert_eq!(seen_by, vec![0]);
    assert_eq!(
        public_form,
        serde_json::json!({"type": "exchange", "card": "hidden"})
    );
    let mut next = Partners.apply(&st, 0, &action).unwrap();
    assert_eq!(Partners.status(&next).to_act(), &[1, 2, 3]);
    let needle_json = format!("\"{give}\"");
    let needle_text = give.pretty();
    let check = |s: &State, stage: &str, partner_sees: bool| {
        for viewer in [Viewer::Seat(1), Viewer::Seat(3), Viewer::Spectator] {
            let view = serde_json::to_string(&Partners.view(s, viewer)).unwrap();
            let text = Partners.render_text(s, viewer);
            assert!(
                !view.contains(&needle_json),
                "{stage}: {viewer:?} sees the exchanged card"
            );
            assert!(
                !text.contains(&needle_text),
                "{stage}: {viewer:?} text shows the exchanged card"
            );
            for c in s.hands[0].iter().chain(&s.hands[2]) {
                assert!(
                    !view.contains(&format!("\"{c}\"")),
                    "{stage}: {viewer:?} sees a yellow/blue card"
                );
                assert!(
                    !text.contains(&c.pretty()),
                    "{stage}: {viewer:?} text shows a yellow/blue card"
                );
            }
        }
        let partner = serde_json::to_string(&Partners.view(s, Viewer::Seat(2))).unwrap();
        assert_eq!(
            partner.contains(&needle_json),
            partner_sees,
            "{stage}: the partner sees the card only once both have chosen"
        );
        assert_eq!(
            Partners
                .render_text(s, Viewer::Seat(2))
                .contains(&needle_text),
            partner_sees
        );
    };
    check(&next, "pending", false);
    for seat in 1..4 {
        let a = Partners.legal_actions(&next, seat)[0].clone();
        next = Partners.apply(&next, seat, &a).unwrap();
    }
    assert_eq!(next.phase, Phase::Play);
    assert!(next.hands[2].contains(&give));
    check(&next, "after the exchange", true);
}

/// 1,000 whole four-seat games, uncapped, each to a team's win: all finish, replay equals
/// the incremental state, serde round trips hold at every fourth step; views, leaks and
/// illegal actions are probed every 250th step. Split in four so the test threads share
/// the work.
fn whole_games(first_seed: u64) {
    let cfg = PlayoutConfig {
        deep_every: 250,
        ..PlayoutConfig::default()
    };
    let stats = check_many(&Partners, &Options::default(), 4, 250, first_seed, &cfg);
    assert!(stats.actions > 250 * 100, "{stats:?}");
    assert!(
        stats.private_log_entries > 0 && stats.views_checked > 0,
        "{stats:?}"
    );
}

#[test]
fn contract_1000_whole_games_part_1() {
    whole_games(100_000);
}

#[test]
fn contract_1000_whole_games_part_2() {
    whole_games(100_250);
}

#[test]
fn contract_1000_whole_games_part_3() {
    whole_games(100_500);
}

#[test]
fn contract_1000_whole_games_part_4() {
    whole_games(100_750);
}

// ----------------------------------------- the hidden exchange and rules version 2

/// The exchange is simultaneous and hidden, so a partner must not learn the card
/// meant for them before choosing their own (view, text, log, description).
#[test]
fn partner_sees_the_exchanged_card_only_after_choosing_their_own() {
    let st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(5))
        .unwrap();
    let give = st.hands[0][0];
    let action = Action::Exchange { card: give };
    // The first chooser's log entry is hidden from the partner too, with one public form
    // for every card.
    let forms: Vec<Visibility> = st.hands[0]
        .iter()
        .map(|&card| Partners.action_visibility(&st, 0, &Action::Exchange { card }))
        .collect();
    for v in &forms {
        let Visibility::Private {
            seen_by,
            public_form,
        } = v
        else {
            panic!("the exchange must be private")
        };
        assert_eq!(seen_by, &vec![0], "the partner has not chosen yet");
        assert_eq!(
            public_form,
            &serde_json::json!({"type": "exchange", "card": "hidden"})
        );
    }
    let next = Partners.apply(&st, 0, &action).unwrap();
    let view = serde_json::to_string(&Partners.view(&next, Viewer::Seat(2))).unwrap();
    let text = Partners.render_text(&next, Viewer::Seat(2));
    let yellow_hand_now: Vec<Card> = next.hands[0].clone();
    assert!(
        !view.contains(&format!("\"{give}\"")),
        "blue sees yellow's choice before choosing: {view}"
    );
    assert!(
        !text.contains(&give.pretty()),
        "blue's text shows yellow's choice: {text}"
    );
    // Blue's own legal exchange choices (and their descriptions) do not depend on it.
    for a in Partners.legal_actions(&next, 2) {
        assert!(
            !Partners
                .describe_action(&next, 2, &a)
                .contains(&give.pretty())
        );
    }
    // The giver still sees its own choice.
    let own = serde_json::to_string(&Partners.view(&next, Viewer::Seat(0))).unwrap();
    assert!(own.contains(&format!("\"{give}\"")));
    assert!(yellow_hand_now.iter().all(|c| *c != give));
    // Blue chooses second: now both have chosen, so blue's entry may be seen by yellow and
    // blue sees yellow's card.
    let blue_give = next.hands[2][0];
    let Visibility::Private { seen_by, .. } =
        Partners.action_visibility(&next, 2, &Action::Exchange { card: blue_give })
    else {
        panic!("the exchange must be private")
    };
    assert_eq!(seen_by, vec![0, 2]);
    let both = Partners
        .apply(&next, 2, &Action::Exchange { card: blue_give })
        .unwrap();
    let view = serde_json::to_string(&Partners.view(&both, Viewer::Seat(2))).unwrap();
    assert!(view.contains(&format!("\"{give}\"")), "{view}");
    assert!(
        Partners
            .render_text(&both, Viewer::Seat(0))
            .contains(&blue_give.pretty())
    );
    // Red and green still see neither.
    for viewer in [Viewer::Seat(1), Viewer::Seat(3), Viewer::Spectator] {
        let v = serde_json::to_string(&Partners.view(&both, viewer)).unwrap();
        assert!(!v.contains(&format!("\"{give}\"")) && !v.contains(&format!("\"{blue_give}\"")));
    }
}

/// Once all four have chosen, the card received shows in the receiver's view.
#[test]
fn received_card_shows_to_the_receiver_after_the_exchange() {
    let mut st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(9))
        .unwrap();
    let give = st.hands[0][0];
    st = Partners
        .apply(&st, 0, &Action::Exchange { card: give })
        .unwrap();
    for seat in 1..4 {
        let a = Partners.legal_actions(&st, seat)[0].clone();
        st = Partners.apply(&st, seat, &a).unwrap();
    }
    assert_eq!(st.phase, Phase::Play);
    let v = Partners.view(&st, Viewer::Seat(2));
    assert!(v.colours[2].hand.as_ref().unwrap().contains(&give));
    assert_eq!(v.colours[0].exchange_card, Some(give));
    assert!(
        Partners
            .render_text(&st, Viewer::Seat(2))
            .contains(&format!("gives {} to Blue", give.pretty()))
    );
}

/// A seven that brings the last own piece home goes on with the partner's.
#[test]
fn seven_split_into_home_then_for_the_partner() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Home(2), Home(3), Home(4), Track(62)]);
    place(&mut st, BLUE, &[Track(40)]);
    st.hands[0] = cards(&["7H"]);
    let seven = Action::Seven {
        card: card("7H"),
        parts: vec![
            Part {
                from: Spot::Track(62),
                steps: 3,
                into_home: true,
            },
            part(40, 4),
        ],
    };
    let legal = Partners.legal_actions(&st, 0);
    assert!(legal.contains(&seven), "{legal:?}");
    let next = Partners.apply(&st, 0, &seven).unwrap();
    assert!(next.colour_home(YELLOW));
    assert_eq!(locs(&next, BLUE)[3], Track(44));
    assert!(
        Partners
            .describe_action(&st, 0, &seven)
            .contains("Blue 40 → 44")
    );
}

/// The seed has no limit of two pieces per field.
#[test]
fn a_third_own_piece_may_join_a_pair() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10), Track(12), Track(12)]);
    st.hands[0] = cards(&["2C"]);
    let two = fwd("2C", Spot::Track(10), 2, false);
    assert!(Partners.legal_actions(&st, 0).contains(&two));
    let next = Partners.apply(&st, 0, &two).unwrap();
    assert_eq!(locs(&next, YELLOW)[1..], [Track(12), Track(12), Track(12)]);
    // A start card may bring a third piece onto the own start field.
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(0), Track(0)]);
    st.hands[0] = cards(&["KS"]);
    let start = Action::Start { card: card("KS") };
    assert!(Partners.legal_actions(&st, 0).contains(&start));
    let next = Partners.apply(&st, 0, &start).unwrap();
    assert_eq!(
        next.pieces[YELLOW]
            .iter()
            .filter(|p| p.loc == Track(0))
            .count(),
        3
    );
    // Three of a colour still knock out a single piece landing on them, and cannot be swapped.
    let mut st = table(4);
    place(&mut st, GREEN, &[Track(23), Track(23), Track(23)]);
    place(&mut st, YELLOW, &[Track(20), Track(30)]);
    st.hands[0] = cards(&["3H", "JS"]);
    let next = Partners
        .apply(&st, 0, &fwd("3H", Spot::Track(20), 3, false))
        .unwrap();
    assert_eq!(circle_count(&next, YELLOW), 3);
    assert_eq!(circle_count(&next, GREEN), 1);
    assert!(
        !Partners
            .legal_actions(&st, 0)
            .iter()
            .any(|a| matches!(a, Action::Swap { .. }))
    );
}

/// Every order of an equivalent split is accepted and gives the listed result.
#[test]
fn any_order_of_an_equivalent_seven_split_is_accepted() {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(10), Track(30)]);
    place(&mut st, RED, &[Track(35)]);
    st.hands[0] = cards(&["7H"]);
    let listed = Action::Seven {
        card: card("7H"),
        parts: vec![part(10, 2), part(30, 5)],
    };
    assert!(Partners.legal_actions(&st, 0).contains(&listed));
    let want = Partners.apply(&st, 0, &listed).unwrap();
    for parts in [
        vec![part(30, 5), part(10, 2)],
        vec![part(10, 1), part(30, 5), part(11, 1)],
        vec![part(30, 2), part(10, 2), part(32, 3)],
    ] {
        let other = Action::Seven {
            card: card("7H"),
            parts: parts.clone(),
        };
        assert!(!Partners.legal_actions(&st, 0).contains(&other));
        let got = Partners
            .apply(&st, 0, &other)
            .unwrap_or_else(|e| panic!("{parts:?} refused: {e}"));
        assert_eq!(got, want, "{parts:?} is normalised to the listed form");
    }
    // A split that is not equivalent to any legal one is still refused.
    let short = Action::Seven {
        card: card("7H"),
        parts: vec![part(30, 5), part(10, 1)],
    };
    assert_eq!(
        Partners.apply(&st, 0, &short).unwrap_err().code,
        "split_must_total_7"
    );
}

// ---------------------------------------------------------------- rules versions

#[test]
fn new_games_use_rules_version_2_and_old_snapshots_decode_as_version_1() {
    assert_eq!(Partners.info().rules_version, 2);
    assert_eq!(Partners.replays_rules_versions(), 1..=2);
    let st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(1))
        .unwrap();
    assert_eq!(st.rules_version, 2);
    let mut json = serde_json::to_value(&st).unwrap();
    json.as_object_mut().unwrap().remove("rules_version");
    let old: State = serde_json::from_value(json).unwrap();
    assert_eq!(old.rules_version, 1);
}

/// A version-1 game keeps its rules: no third piece on a field, and a seven moves only
/// the colour it started with.
#[test]
fn version_1_games_keep_the_old_rules() {
    let mut st = table(4);
    st.rules_version = 1;
    place(&mut st, YELLOW, &[Track(10), Track(12), Track(12)]);
    st.hands[0] = cards(&["2C"]);
    let two = fwd("2C", Spot::Track(10), 2, false);
    assert!(!Partners.legal_actions(&st, 0).contains(&two));
    assert_eq!(
        Partners.apply(&st, 0, &two).unwrap_err().code,
        "own_pair_full"
    );
    st.rules_version = 2;
    assert!(Partners.apply(&st, 0, &two).is_ok());

    let mut st = table(4);
    st.rules_version = 1;
    place(&mut st, YELLOW, &[Home(2), Home(3), Home(4), Track(62)]);
    place(&mut st, BLUE, &[Track(40)]);
    st.hands[0] = cards(&["7H"]);
    let carry = Action::Seven {
        card: card("7H"),
        parts: vec![
            Part {
                from: Spot::Track(62),
                steps: 3,
                into_home: true,
            },
            part(40, 4),
        ],
    };
    assert!(!Partners.legal_actions(&st, 0).contains(&carry));
    assert!(Partners.apply(&st, 0, &carry).is_err());
    assert!(Partners.legal_actions(&st, 0).contains(&Action::Seven {
        card: card("7H"),
        parts: vec![part(62, 7)],
    }));
}

// ---------------------------------------------------------------- invariants

#[test]
fn invariants_catch_broken_states() {
    let st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(3))
        .unwrap();
    assert_eq!(Partners.check_invariants(&st), Ok(()));
    let mut lost_piece = st.clone();
    lost_piece.pieces[2].pop();
    assert!(Partners.check_invariants(&lost_piece).is_err());
    let mut lost_card = st.clone();
    lost_card.deck.pop();
    assert!(
        Partners
            .check_invariants(&lost_card)
            .unwrap_err()
            .contains("cards")
    );
    let mut twice = st.clone();
    let c = twice.deck[0];
    twice.played.push(c);
    assert!(Partners.check_invariants(&twice).is_err());
    let mut two_colours = table(4);
    place(&mut two_colours, YELLOW, &[Track(10)]);
    place(&mut two_colours, RED, &[Track(10)]);
    two_colours.hands[0] = cards(&["2C"]);
    let rest: Vec<Card> = turnpost_engine::cards::standard_deck()
        .into_iter()
        .filter(|x| *x != card("2C"))
        .collect();
    two_colours.deck = rest;
    two_colours.played.clear();
    assert!(
        Partners
            .check_invariants(&two_colours)
            .unwrap_err()
            .contains("two colours")
    );
    let mut bad_turn = st.clone();
    bad_turn.phase = Phase::Play;
    bad_turn.turn = 7;
    assert!(Partners.check_invariants(&bad_turn).is_err());
    let mut home_unnoticed = table(4);
    place(
        &mut home_unnoticed,
        YELLOW,
        &[Home(1), Home(2), Home(3), Home(4)],
    );
    place(
        &mut home_unnoticed,
        BLUE,
        &[Home(1), Home(2), Home(3), Home(4)],
    );
    assert!(Partners.check_invariants(&home_unnoticed).is_err());

    // A step that takes a piece out of its home is caught.
    let mut before = table(4);
    place(&mut before, YELLOW, &[Home(1)]);
    before.hands[0] = cards(&["2C"]);
    let mut after = before.clone();
    after.pieces[YELLOW][0].loc = Track(5);
    assert!(
        Partners
            .check_step(&before, 0, &Action::Discard, &after)
            .unwrap_err()
            .contains("home")
    );
}

// ---------------------------------------------------------------- board picture

fn count(svg: &str, needle: &str) -> usize {
    svg.matches(needle).count()
}

/// Yellow has a pair on 5, one piece home and one in its circle; Red has just entered on
/// its start field 16; Blue is on 40 and 63; Green waits in its circle. Yellow holds 7♠ K♥,
/// Red 2♣, Blue 3♦ 4♦ 5♦, Green nothing; Red to play.
fn picture_table() -> State {
    let mut st = table(4);
    place(&mut st, YELLOW, &[Track(5), Track(5), Home(2)]);
    place(&mut st, RED, &[Track(16)]);
    place(&mut st, BLUE, &[Track(40), Track(63)]);
    st.hands[YELLOW] = cards(&["7S", "KH"]);
    st.hands[RED] = cards(&["2C"]);
    st.hands[BLUE] = cards(&["3D", "4D", "5D"]);
    st.played = cards(&["9C", "QS"]);
    st.turn = RED;
    st
}

#[test]
fn picture_draws_every_piece_and_only_the_viewers_hand_face_up() {
    let st = picture_table();
    let view = Partners.view(&st, Viewer::Seat(0));
    let svg = Partners.board_svg(&view, &turnpost_engine::People::unnamed(Viewer::Seat(0)));
    turnpost_engine::harness::check_picture(&svg).unwrap();
    // All 16 pieces, each where the view has it.
    assert_eq!(count(&svg, "class=\"piece\""), 16, "{svg}");
    let on_track: usize = view.colours.iter().map(|c| c.on_track.len()).sum();
    let home: usize = view
        .colours
        .iter()
        .map(|c| c.home.iter().filter(|&&h| h).count())
        .sum();
    let circle: usize = view.colours.iter().map(|c| c.in_circle).sum();
    assert_eq!((on_track, home, circle), (5, 1, 10));
    assert_eq!(count(&svg, "data-where=\"track\""), on_track);
    assert_eq!(count(&svg, "data-where=\"home\""), home);
    assert_eq!(count(&svg, "data-where=\"circle\""), circle);
    assert_eq!(
        count(&svg, "data-colour=\"Yellow\" data-where=\"track\""),
        2,
        "the yellow pair"
    );
    // Yellow's two cards face up; Red's one and Blue's three as backs, Green has none.
    assert_eq!(count(&svg, "class=\"hand-card\""), 2);
    assert!(svg.contains("data-card=\"7S\"") && svg.contains("data-card=\"KH\""));
    assert_eq!(count(&svg, "class=\"card-back\""), 1 + 3);
    for hidden in ["2C", "3D", "4D", "5D"] {
        assert!(
            !svg.contains(&format!("data-card=\"{hidden}\"")),
            "{hidden}"
        );
    }
    // The top of the played pile, the deck, whose turn and the race.
    assert!(
        svg.contains("class=\"pile-card\" data-card=\"QS\""),
        "{svg}"
    );
    assert!(svg.contains(&format!("deck {}", st.deck.len())));
    assert!(svg.contains("<title id=\"title\">Partners: Red to play</title>"));
    assert!(svg.contains("(Yellow + Blue): 1 of 8") && svg.contains("Red + Green: 0 of 8"));
    let desc = svg
        .split("<desc id=\"desc\">")
        .nth(1)
        .and_then(|d| d.split("</desc>").next())
        .unwrap_or_default();
    assert!(
        desc.contains("Red (start field 16): 3 in the start circle, on the track 16 (not yet left its start), home none; 1 card in hand"),
        "{desc}"
    );
    assert!(desc.contains("Your hand for Yellow: 7♠ K♥."), "{desc}");
}

#[test]
fn spectator_picture_shows_no_hand_and_two_player_seats_see_both_colours() {
    let st = picture_table();
    let svg = Partners.board_svg(
        &Partners.view(&st, Viewer::Spectator),
        &turnpost_engine::People::unnamed(Viewer::Spectator),
    );
    turnpost_engine::harness::check_picture(&svg).unwrap();
    assert_eq!(count(&svg, "class=\"hand-card\""), 0);
    assert_eq!(count(&svg, "class=\"card-back\""), 2 + 1 + 3);
    assert_eq!(count(&svg, "data-card="), 1, "only the pile's top card");
    assert_eq!(count(&svg, "class=\"piece\""), 16);

    // With two players, seat 1 plays Yellow and Blue: both hands face up.
    let mut two = picture_table();
    two.seats = 2;
    two.turn = YELLOW;
    let svg = Partners.board_svg(
        &Partners.view(&two, Viewer::Seat(0)),
        &turnpost_engine::People::unnamed(Viewer::Seat(0)),
    );
    assert_eq!(count(&svg, "class=\"hand-card\""), 2 + 3);
    assert_eq!(count(&svg, "class=\"card-back\""), 1);
    assert!(svg.contains("Your turn: play a card for Yellow"));
}

#[test]
fn picture_shows_the_exchange_step_as_the_view_gives_it() {
    let st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(5))
        .unwrap();
    let give = st.hands[0][0];
    let next = Partners
        .apply(&st, 0, &Action::Exchange { card: give })
        .unwrap();
    let picture = |s: &State, seat: Seat| {
        Partners.board_svg(
            &Partners.view(s, Viewer::Seat(seat)),
            &turnpost_engine::People::unnamed(Viewer::Seat(seat)),
        )
    };
    let needle = format!("data-card=\"{give}\"");
    // The giver sees its choice, marked as the exchange card; nobody else does yet.
    let yellow = picture(&next, 0);
    assert!(
        yellow.contains(&format!("class=\"exchange-card\" {needle}")),
        "{yellow}"
    );
    assert!(yellow.contains("Card exchange: waiting for Red, Blue, Green"));
    assert!(yellow.contains("exchange card chosen"));
    for seat in 1..4 {
        let svg = picture(&next, seat);
        assert!(!svg.contains(&needle), "seat {seat} sees the card");
        assert!(svg.contains("Card exchange: your turn to give your partner a card"));
        assert_eq!(count(&svg, "choosing a card for its partner"), 3);
    }
    // Once Blue has chosen too, Blue sees what Yellow gives; Red and Green never do.
    let mut after = next.clone();
    for seat in 1..4 {
        let a = Partners.legal_actions(&after, seat)[0].clone();
        after = Partners.apply(&after, seat, &a).unwrap();
    }
    assert!(picture(&after, 2).contains(&needle));
    for seat in [1, 3] {
        assert!(!picture(&after, seat).contains(&needle));
    }
}

/// Renders a few positions to PNG under `target/pictures/` for people to look at.
#[test]
fn pictures_render_to_png() {
    let start = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(5))
        .unwrap();
    let mid = picture_table();
    let p = turnpost_engine::harness::random_playout(&Partners, &Options::default(), 4, 11, 400)
        .unwrap();
    let end =
        turnpost_engine::harness::random_playout(&Partners, &Options::default(), 2, 3, 20_000)
            .unwrap();
    assert!(end.finished);
    let shots = [
        ("partners-start-seat1", &start, Viewer::Seat(0)),
        ("partners-mid-seat1", &mid, Viewer::Seat(0)),
        ("partners-mid-spectator", &mid, Viewer::Spectator),
        ("partners-played-seat3", &p.state, Viewer::Seat(2)),
        ("partners-end-seat2", &end.state, Viewer::Seat(1)),
    ];
    for (name, st, viewer) in shots {
        let svg = Partners.board_svg(
            &Partners.view(st, viewer),
            &turnpost_engine::People::unnamed(viewer),
        );
        turnpost_engine::svg::save_png(name, &svg).unwrap();
    }
}

#[test]
fn the_exchange_names_the_partner_who_gets_the_card() {
    let st = Partners
        .setup(&Options::default(), 4, GameRng::seed_from_u64(5))
        .unwrap();
    for seat in 0..4 {
        let partner = Partners.seat_name(&st, (seat + 2) % 4);
        for card in st.hands[seat].clone() {
            let text = Partners.describe_action(&st, seat, &Action::Exchange { card });
            assert_eq!(
                text,
                format!("give {} to your partner {partner}", card.pretty())
            );
        }
    }
}
