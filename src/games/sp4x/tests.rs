//! Unit tests: worked examples (9.x), house rules (hr_n_), leaks, and the contract.

use super::board::{age_end_value, move_dests, network_score};
use super::data::{FactionMode, data};
use super::state::{Job, Road, Step, Tile, edge};
use super::*;
use turnpost_engine::harness::{PlayoutConfig, assert_resample_covers, check_many, random_playout};

mod picture;
mod resample;

/// State fields everyone sees, so `resample_hidden` keeps them. Hidden and resampled: other
/// hands (`players[].hand`), the deck between its face-up top and the star, the tile stack
/// below its face-up top, the card of a steal the viewer was not party to, and the RNG.
const PUBLIC: &[&str] = &[
    "seats", "age", "current", "step",
    // The map: tiles, men, bases and roads are on the table.
    "tiles", "roads", // Discarded pairs and shown cards lie face up.
    "discard",
    // The action being resolved: the shown card and its pending steps are public.
    "frames", "events",
];

/// Coverage of every hidden field. An empty tile stack or steal list serialises as a bare
/// leaf (`tile_stack`, `steals`): its size is public and there is nothing in it to vary,
/// so those leaves are dropped rather than declaring the fields public (which would also
/// cover the hidden `tile_stack[]` and `steals[].card`).
fn assert_covers(mut stats: turnpost_engine::harness::PlayoutStats) {
    stats.state_paths.remove("tile_stack");
    stats.state_paths.remove("steals");
    assert_resample_covers(&stats, PUBLIC);
    for hidden in [
        "players[].hand[]",
        "deck[]",
        "tile_stack[]",
        "steals[].card",
        "rng.seed",
    ] {
        assert!(stats.varied_paths.contains(hidden), "{hidden} never varied");
    }
}

fn h(q: i32, r: i32) -> Hex {
    Hex::new(q, r)
}

/// A hand-made position: only the mothership, no pieces, empty hands, deck = [star],
/// seat 0 in MAIN.
fn blank(seats: usize) -> State {
    let mut st = Sp4x
        .setup(&Options::default(), seats, GameRng::seed_from_u64(7))
        .unwrap();
    st.tiles.retain(|t| t.kind == TileKind::Mothership);
    for t in st.tiles.iter_mut() {
        t.men = vec![0; seats];
        t.bases = vec![false; seats];
    }
    st.roads.clear();
    st.tile_stack.clear();
    for p in st.players.iter_mut() {
        p.hand.clear();
        p.res = [0; 3];
        p.score = 0;
        p.plan_out = false;
    }
    st.deck = vec![Card::Star];
    st.discard.clear();
    st.current = 0;
    st.step = Step::Main;
    st.frames.clear();
    st.events.clear();
    st.steals.clear();
    st
}

fn tile(st: &mut State, q: i32, r: i32, kind: TileKind) {
    let n = st.seats;
    st.tiles.push(Tile {
        hex: h(q, r),
        kind,
        men: vec![0; n],
        bases: vec![false; n],
    });
}

fn men(st: &mut State, q: i32, r: i32, s: Seat, k: u8) {
    st.add_men(h(q, r), s, k);
}

fn base(st: &mut State, q: i32, r: i32, s: Seat) {
    st.set_base(h(q, r), s, true);
}

fn road(st: &mut State, a: Hex, b: Hex, s: Seat) {
    let (a, b) = edge(a, b);
    st.roads.push(Road { a, b, owner: s });
}

fn hand(st: &mut State, s: Seat, cards: &[Card]) {
    st.players[s].hand = cards.to_vec();
    st.players[s].hand.sort_unstable();
}

fn play(st: &State, seat: Seat, a: Action) -> State {
    Sp4x.apply(st, seat, &a)
        .unwrap_or_else(|e| panic!("{a:?} by {seat} refused: {e}"))
}

fn to_act(st: &State) -> Vec<Seat> {
    Sp4x.status(st).to_act().to_vec()
}

fn legal(st: &State, s: Seat) -> Vec<Action> {
    Sp4x.legal_actions(st, s)
}

// ------------------------------------------------------------------ worked examples

/// 9.1: Ligpaverne's move & explore pair. Returns the final state.
fn ligpaverne(stop_on_mothership: bool) -> State {
    let mut st = blank(3);
    tile(&mut st, 0, -1, TileKind::PlasticSteppe); // man 1
    tile(&mut st, 1, 0, TileKind::PlasticSteppe); // man 2, road to the mothership
    tile(&mut st, 0, 1, TileKind::GlyHills); // man 3
    tile(&mut st, -1, 0, TileKind::GlyHills); // Chenar's tile
    men(&mut st, 0, -1, 0, 1);
    men(&mut st, 1, 0, 0, 1);
    men(&mut st, 0, 1, 0, 1);
    men(&mut st, -1, 0, 1, 1);
    road(&mut st, h(1, 0), h(0, 0), 0);
    st.tile_stack = vec![TileKind::SlimeSea, TileKind::NSwamp, TileKind::Mountain];
    hand(
        &mut st,
        0,
        &[Card::MoveExplore, Card::MoveExplore, Card::Build],
    );
    let st = play(
        &st,
        0,
        Action::Pair {
            card: Card::MoveExplore,
        },
    );
    // Man 1 explores: slime sea is placed, he stays.
    let st = play(
        &st,
        0,
        Action::Explore {
            from: h(0, -1),
            via: h(0, -1),
            at: h(0, -2),
        },
    );
    assert_eq!(st.tile(h(0, -2)).map(|t| t.kind), Some(TileKind::SlimeSea));
    assert_eq!(st.men_at(h(0, -1), 0), 1);
    // Man 2 travels along his road to the mothership, then steps into Chenar's tile.
    let to = if stop_on_mothership {
        h(0, 0)
    } else {
        h(-1, 0)
    };
    let st = play(&st, 0, Action::Move { from: h(1, 0), to });
    // Man 3 explores the n-swamp and moves onto it.
    let st = play(
        &st,
        0,
        Action::Explore {
            from: h(0, 1),
            via: h(0, 1),
            at: h(0, 2),
        },
    );
    assert_eq!(st.men_at(h(0, 2), 0), 1);
    // Every man has acted: the step ends by itself.
    assert_eq!(st.step, Step::Resources);
    st
}

#[test]
fn example_9_1_move_explore_pair_scores_one() {
    let st = ligpaverne(false);
    assert_eq!(st.players[0].score, 1);
    assert_eq!(st.men_at(h(-1, 0), 0), 1);
    assert_eq!(st.discard, vec![Card::MoveExplore, Card::MoveExplore]);
    assert_eq!(st.players[0].hand, vec![Card::Build]);
    assert_eq!(st.step, Step::Resources);
}

#[test]
fn example_9_1_variant_stop_on_mothership_scores_two() {
    let st = ligpaverne(true);
    assert_eq!(st.players[0].score, 2);
}

#[test]
fn example_9_2_build_pair_network_score() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::Mountain); // M
    tile(&mut st, 2, 0, TileKind::GlyHills); // T
    tile(&mut st, 0, 1, TileKind::NSwamp); // N, not joined
    base(&mut st, 1, 0, 0);
    base(&mut st, 2, 0, 0);
    road(&mut st, h(1, 0), h(2, 0), 0);
    men(&mut st, 0, 1, 0, 1);
    hand(&mut st, 0, &[Card::Build, Card::Build]);
    let st = play(&st, 0, Action::Pair { card: Card::Build });
    let st = play(&st, 0, Action::BuildBase);
    assert_eq!(legal(&st, 0), vec![Action::Base { at: h(0, 1) }]);
    let st = play(&st, 0, Action::Base { at: h(0, 1) });
    assert!(st.base_at(h(0, 1), 0));
    assert_eq!(st.players[0].score, 3 + 1);
}

#[test]
fn example_9_3_exploit_single_and_pair() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::Mountain); // M
    tile(&mut st, 2, 0, TileKind::NSwamp);
    tile(&mut st, 0, 1, TileKind::GlyHills);
    tile(&mut st, 0, -1, TileKind::GlyHills);
    men(&mut st, 1, 0, 0, 1);
    base(&mut st, 1, 0, 0);
    men(&mut st, 2, 0, 0, 1);
    men(&mut st, 0, 1, 0, 1);
    base(&mut st, 0, -1, 0);
    st.deck = vec![Card::War, Card::Star];
    hand(&mut st, 0, &[Card::Exploit, Card::Exploit]);
    let st = play(
        &st,
        0,
        Action::Show {
            card: Card::Exploit,
        },
    );
    let st = play(&st, 0, Action::Harvest { at: h(1, 0) });
    assert_eq!(st.players[0].res, [0, 0, 2]);
    assert_eq!(st.players[0].score, 0);
    // Next turn: the pair, naming food, with 4 of 5 food.
    let mut st = st;
    st.players[0].res[1] = 4;
    st.step = Step::Main;
    let st = play(
        &st,
        0,
        Action::Pair {
            card: Card::Exploit,
        },
    );
    let st = play(
        &st,
        0,
        Action::HarvestAll {
            resource: Resource::Food,
        },
    );
    assert_eq!(st.players[0].res[1], 5);
    assert_eq!(st.players[0].score, 4 + 1);
}

#[test]
fn example_9_4_ai_pair_scores_bonus_only() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::Mountain);
    tile(&mut st, 0, 1, TileKind::Mountain);
    tile(&mut st, -1, 0, TileKind::GlyHills);
    men(&mut st, 0, 0, 0, 1);
    base(&mut st, 1, 0, 0);
    base(&mut st, 0, 1, 0);
    hand(&mut st, 0, &[Card::Ai, Card::Build]);
    let mut st = play(&st, 0, Action::AiPair { card: Card::Build });
    st = play(&st, 0, Action::BuildRoads);
    while st.step == Step::Frames {
        let a = legal(&st, 0)[0].clone();
        st = play(&st, 0, a);
    }
    assert_eq!(st.roads.len(), 3, "the build pair placed 3 roads");
    assert_eq!(st.players[0].score, 3);
    assert_eq!(st.players[0].hand, vec![Card::Build, Card::Ai]);
    assert!(st.discard.is_empty());
}

#[test]
fn example_9_5_age_end_scoring() {
    let d = data().unwrap();
    // Sort (multiply): values 1, 1, 0 and all tracks non-empty → (1+1+0) × 3.
    assert_eq!(
        age_end_value(&d.faction_values, FactionMode::Multiply, [2, 3, 1]),
        6
    );
    // Rød (sum): values 1 and 2 → 3.
    assert_eq!(
        age_end_value(&d.faction_values, FactionMode::Sum, [2, 4, 0]),
        3
    );
}

#[test]
fn hr_26_example_9_6_ai_alone_ends_the_age_at_once() {
    let mut st = blank(3);
    hand(&mut st, 0, &[Card::Ai]);
    hand(&mut st, 1, &[Card::Build]);
    st.players[0].res = [5, 0, 0]; // vanilla: value 3
    assert_eq!(legal(&st, 0), vec![Action::Show { card: Card::Ai }]);
    let st = play(&st, 0, Action::Show { card: Card::Ai });
    assert_eq!(st.players[0].score, -3 + 3);
    assert_eq!(st.age, 2);
    assert_eq!(
        st.current, 1,
        "no RESOURCES step: the next age starts left of the ender"
    );
    let mut st2 = blank(3);
    hand(&mut st2, 0, &[Card::Ai, Card::Build]);
    let l = legal(&st2, 0);
    assert!(!l.contains(&Action::Show { card: Card::Ai }));
    assert!(l.contains(&Action::AiPair { card: Card::Build }));
    assert!(l.contains(&Action::Show { card: Card::Build }));
}

/// 9.7: deck holds only the star; p=0 shows exploit, a=1 has none, b=2 has two, c=3.
fn star_exploit() -> Vec<(Seat, State)> {
    let mut st = blank(4);
    for s in 0..4 {
        tile(&mut st, s as i32 + 1, 0, TileKind::NSwamp);
        men(&mut st, s as i32 + 1, 0, s, 1);
    }
    hand(&mut st, 0, &[Card::Exploit, Card::Build]);
    hand(&mut st, 1, &[Card::Men]);
    hand(&mut st, 2, &[Card::Exploit, Card::Exploit]);
    hand(&mut st, 3, &[Card::Exploit, Card::War]);
    let mut trace = vec![];
    let st = play(
        &st,
        0,
        Action::Show {
            card: Card::Exploit,
        },
    );
    assert_eq!(to_act(&st), vec![0]);
    let mut st = play(&st, 0, Action::ActLast);
    while st.step == Step::Frames {
        let s = to_act(&st)[0];
        trace.push((s, st.clone()));
        st = play(
            &st,
            s,
            Action::HarvestAll {
                resource: Resource::Food,
            },
        );
    }
    trace.push((usize::MAX, st));
    trace
}

#[test]
fn example_9_7_star_everyone_acts_only_p_and_b_score() {
    let trace = star_exploit();
    let st = &trace.last().unwrap().1;
    for s in 0..4 {
        assert_eq!(st.players[s].res[1], 2, "seat {s} harvested");
    }
    let scores: Vec<i64> = st.players.iter().map(|p| p.score).collect();
    assert_eq!(scores, vec![2, 0, 2, 0]);
    assert_eq!(st.discard, vec![Card::Exploit, Card::Exploit]);
    let sizes: Vec<usize> = st.players.iter().map(|p| p.hand.len()).collect();
    assert_eq!(
        sizes,
        vec![1, 1, 1, 2],
        "b laid one copy, c kept theirs, nobody drew"
    );
}

#[test]
fn hr_28_star_players_act_one_after_another_in_order() {
    let trace = star_exploit();
    let order: Vec<Seat> = trace
        .iter()
        .map(|(s, _)| *s)
        .filter(|&s| s != usize::MAX)
        .collect();
    assert_eq!(
        order,
        vec![1, 2, 3, 0],
        "p acts last; each resolves fully before the next"
    );
}

#[test]
fn example_9_8_steal_pair() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills);
    men(&mut st, 1, 0, 0, 1);
    men(&mut st, 1, 0, 1, 1);
    st.players[0].res[1] = 4;
    st.players[1].res[1] = 3;
    hand(&mut st, 0, &[Card::Steal, Card::Steal]);
    let mut st = play(&st, 0, Action::Pair { card: Card::Steal });
    st = play(
        &st,
        0,
        Action::Rob {
            at: h(1, 0),
            victim: 1,
        },
    );
    for _ in 0..3 {
        st = play(
            &st,
            0,
            Action::Take {
                resource: Resource::Food,
            },
        );
    }
    assert_eq!(st.players[1].res[1], 0);
    assert_eq!(st.players[0].res[1], 5);
    assert_eq!(st.players[0].score, -3);
    assert_eq!(st.step, Step::Resources);
}

fn war_position(metal: u8) -> State {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills); // T
    men(&mut st, 1, 0, 0, 1);
    men(&mut st, 1, 0, 1, 1);
    road(&mut st, h(1, 0), h(0, 0), 1);
    st.players[1].res[2] = metal;
    st.deck = vec![Card::Men, Card::Star];
    hand(&mut st, 0, &[Card::War]);
    let st = play(&st, 0, Action::Show { card: Card::War });
    play(
        &st,
        0,
        Action::Attack {
            at: h(1, 0),
            victim: 1,
        },
    )
}

#[test]
fn example_9_9_war_single_victim_pays_metal_or_chooses_loss() {
    let st = war_position(1);
    assert_eq!(to_act(&st), vec![1], "the victim decides");
    assert!(legal(&st, 0).is_empty());
    assert_eq!(
        st.players[0].hand,
        vec![Card::War],
        "the top card is drawn after the action"
    );
    let after = play(&st, 1, Action::PayMetal);
    assert_eq!(after.players[0].hand, vec![Card::Men, Card::War]);
    assert_eq!(after.players[1].res[2], 0);
    assert_eq!(after.men_at(h(1, 0), 1), 1);
    assert_eq!(after.roads.len(), 1);
    let st = war_position(0);
    let (a, b) = edge(h(1, 0), h(0, 0));
    assert_eq!(
        legal(&st, 1),
        vec![Action::LoseMan, Action::LoseRoad { a, b }]
    );
    let after = play(&st, 1, Action::LoseRoad { a, b });
    assert!(after.roads.is_empty());
    assert_eq!(after.men_at(h(1, 0), 1), 1);
}

#[test]
fn hr_11_example_9_10_grand_plan_show_protects_until_next_turn() {
    let mut st = blank(3);
    hand(&mut st, 0, &[Card::GrandPlan, Card::Build]);
    hand(&mut st, 1, &[Card::Men]);
    hand(&mut st, 2, &[Card::Exploit]);
    st.deck = vec![Card::War, Card::Steal, Card::Star];
    let st = play(
        &st,
        0,
        Action::Show {
            card: Card::GrandPlan,
        },
    );
    assert_eq!(
        st.players[0].hand,
        vec![Card::Build, Card::War],
        "p still draws"
    );
    assert!(st.players[0].plan_out);
    let st = play(&st, 0, Action::EndTurn);
    assert_eq!(st.current, 1);
    assert_eq!(
        legal(&st, 1),
        vec![Action::DrawFrom { victim: 2 }],
        "p cannot be robbed"
    );
    let mut st = st;
    st.step = Step::Resources;
    let st = play(&st, 1, Action::EndTurn);
    assert_eq!(legal(&st, 2), vec![Action::DrawFrom { victim: 1 }]);
    let mut st = st;
    st.step = Step::Resources;
    let st = play(&st, 2, Action::EndTurn);
    assert!(!st.players[0].plan_out);
    assert!(st.players[0].hand.contains(&Card::GrandPlan));
    let mut st = st;
    st.current = 1;
    st.step = Step::Resources;
    let st = play(&st, 1, Action::EndTurn);
    assert!(
        legal(&st, 2).contains(&Action::DrawFrom { victim: 0 }),
        "robbable again"
    );
}

// ------------------------------------------------------------------ house rules

#[test]
fn hr_1_tile_yields() {
    let d = data().unwrap();
    let y = |k| {
        let t = d.tile(k);
        [t.plastic, t.food, t.metal]
    };
    assert_eq!(y(TileKind::Mothership), [1, 1, 1]);
    assert_eq!(y(TileKind::PlasticSteppe), [2, 0, 0]);
    assert_eq!(y(TileKind::NSwamp), [0, 2, 0]);
    assert_eq!(y(TileKind::GlyHills), [1, 1, 0]);
    assert_eq!(y(TileKind::Mountain), [0, 0, 2]);
    assert_eq!(y(TileKind::SlimeSea), [0, 0, 0]);
}

#[test]
fn hr_2_piece_counts_per_colour() {
    let st = Sp4x
        .setup(&Options::default(), 4, GameRng::seed_from_u64(3))
        .unwrap();
    let v = Sp4x.view(&st, Viewer::Spectator);
    for p in &v.players {
        assert_eq!((p.men_pool, p.bases_pool, p.roads_pool), (10, 3, 7));
    }
}

#[test]
fn hr_3_vanilla_faction_sum() {
    let d = data().unwrap();
    assert_eq!(d.faction_values, vec![0, 0, 1, 1, 2, 3]);
    assert_eq!(d.faction_mode, FactionMode::Sum);
    assert_eq!(
        age_end_value(&d.faction_values, d.faction_mode, [5, 5, 1]),
        6
    );
}

#[test]
fn hr_4_start_tiles_geometry() {
    for (seats, dirs) in [(3usize, vec![0usize, 2, 4]), (4, vec![0, 1, 3, 4])] {
        for seed in 0..20 {
            let st = Sp4x
                .setup(&Options::default(), seats, GameRng::seed_from_u64(seed))
                .unwrap();
            assert_eq!(st.tiles[0].hex, h(0, 0));
            assert_eq!(st.tiles[0].kind, TileKind::Mothership);
            for (s, &dir) in dirs.iter().enumerate() {
                let hex = h(0, 0).neighbor(dir);
                let t = st.tile(hex).unwrap();
                assert!(!matches!(t.kind, TileKind::Mountain | TileKind::SlimeSea));
                assert_eq!(t.men[s], 2);
                assert!(t.bases[s]);
                assert!(st.has_road(s, hex, h(0, 0)));
            }
            assert_eq!(st.tile_stack.len(), 19 - seats);
            assert!(st.players.iter().all(|p| p.hand.len() == 5));
            assert_eq!(st.deck.last(), Some(&Card::Star));
        }
    }
}

#[test]
fn hr_5_steal_is_compulsory_when_possible() {
    let st = Sp4x
        .setup(&Options::default(), 3, GameRng::seed_from_u64(5))
        .unwrap();
    let p = st.current;
    assert_eq!(st.step, Step::Steal);
    let l = legal(&st, p);
    assert_eq!(l.len(), 2);
    assert!(l.iter().all(|a| matches!(a, Action::DrawFrom { .. })));
    // Nobody to rob: the step is skipped.
    let mut st = blank(3);
    hand(&mut st, 0, &[Card::Build]);
    st.step = Step::Resources;
    st.current = 2;
    let st = play(&st, 2, Action::EndTurn);
    assert_eq!(st.current, 0);
    assert_eq!(st.step, Step::Main);
    assert_ne!(st.step, Step::Steal);
}

#[test]
fn hr_6_move_is_one_step_plus_road_travel() {
    let mut st = blank(3);
    for q in 1..=4 {
        tile(&mut st, q, 0, TileKind::GlyHills);
    }
    men(&mut st, 1, 0, 0, 1);
    let d = data().unwrap();
    assert_eq!(move_dests(d, &st, 0, h(1, 0)), vec![h(0, 0), h(2, 0)]);
    road(&mut st, h(1, 0), h(2, 0), 0);
    road(&mut st, h(2, 0), h(3, 0), 0);
    assert_eq!(
        move_dests(d, &st, 0, h(1, 0)),
        vec![h(0, 0), h(2, 0), h(3, 0), h(4, 0)]
    );
    // Barrier: no non-road step into a mountain.
    tile(&mut st, 1, 1, TileKind::Mountain);
    assert!(!move_dests(d, &st, 0, h(1, 0)).contains(&h(1, 1)));
    road(&mut st, h(1, 0), h(1, 1), 0);
    assert!(move_dests(d, &st, 0, h(1, 0)).contains(&h(1, 1)));
}

#[test]
fn hr_7_food_man_only_on_base_tile() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills);
    tile(&mut st, 2, 0, TileKind::GlyHills);
    base(&mut st, 1, 0, 0);
    men(&mut st, 2, 0, 0, 1);
    st.players[0].res[1] = 1;
    st.step = Step::Resources;
    let mans: Vec<Action> = legal(&st, 0)
        .into_iter()
        .filter(|a| matches!(a, Action::SpendFoodMan { .. }))
        .collect();
    assert_eq!(mans, vec![Action::SpendFoodMan { at: h(1, 0) }]);
    let st = play(&st, 0, Action::SpendFoodMan { at: h(1, 0) });
    assert_eq!(st.men_at(h(1, 0), 0), 1);
    assert_eq!(st.players[0].res[1], 0);
}

#[test]
fn hr_8_plastic_road_touches_a_tile_with_own_man() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills);
    tile(&mut st, 2, 0, TileKind::GlyHills);
    tile(&mut st, 3, 0, TileKind::GlyHills);
    base(&mut st, 3, 0, 0); // a base alone does not allow a road
    men(&mut st, 1, 0, 0, 1);
    st.players[0].res[0] = 1;
    st.step = Step::Resources;
    let roads: Vec<Action> = legal(&st, 0)
        .into_iter()
        .filter(|a| matches!(a, Action::SpendPlasticRoad { .. }))
        .collect();
    let (a0, b0) = edge(h(0, 0), h(1, 0));
    let (a1, b1) = edge(h(1, 0), h(2, 0));
    assert_eq!(roads.len(), 2);
    assert!(roads.contains(&Action::SpendPlasticRoad { a: a0, b: b0 }));
    assert!(roads.contains(&Action::SpendPlasticRoad { a: a1, b: b1 }));
}

#[test]
fn hr_9_single_build_road_from_a_man_tile() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills);
    tile(&mut st, 3, 0, TileKind::GlyHills);
    men(&mut st, 1, 0, 0, 1);
    base(&mut st, 3, 0, 0);
    st.deck = vec![Card::Men, Card::Star];
    hand(&mut st, 0, &[Card::Build]);
    let st = play(&st, 0, Action::Show { card: Card::Build });
    let (a, b) = edge(h(0, 0), h(1, 0));
    assert_eq!(legal(&st, 0), vec![Action::Road { a, b }]);
    let st = play(&st, 0, Action::Road { a, b });
    assert!(st.has_road(0, h(0, 0), h(1, 0)));
    assert_eq!(
        st.players[0].hand,
        vec![Card::Build, Card::Men],
        "card back, top card drawn"
    );
}

#[test]
fn hr_10_network_score_triangle_numbers() {
    let mut st = blank(3);
    for q in 1..=4 {
        tile(&mut st, q, 0, TileKind::GlyHills);
        base(&mut st, q, 0, 0);
    }
    assert_eq!(network_score(&st, 0), 1);
    road(&mut st, h(1, 0), h(2, 0), 0);
    assert_eq!(network_score(&st, 0), 3);
    road(&mut st, h(2, 0), h(3, 0), 0);
    assert_eq!(network_score(&st, 0), 6);
    road(&mut st, h(3, 0), h(4, 0), 1); // another colour's road does not join
    assert_eq!(network_score(&st, 0), 6);
    road(&mut st, h(3, 0), h(4, 0), 0);
    assert_eq!(network_score(&st, 0), 10);
}

#[test]
fn hr_12_grand_plan_pair_scores_two_plus_bonus() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills);
    base(&mut st, 1, 0, 0);
    base(&mut st, 0, 0, 0); // base on the mothership: bonus 1
    hand(&mut st, 0, &[Card::GrandPlan, Card::GrandPlan]);
    let st = play(
        &st,
        0,
        Action::Pair {
            card: Card::GrandPlan,
        },
    );
    assert_eq!(legal(&st, 0).len(), 4);
    let st = play(&st, 0, Action::NameAction { card: Card::Men });
    // Men pair: 2 men on each base tile, automatically; scores 2 + 1, not the men points.
    assert_eq!(st.men_at(h(1, 0), 0), 2);
    assert_eq!(st.men_at(h(0, 0), 0), 2);
    assert_eq!(st.players[0].score, 2 + 2);
    assert_eq!(st.discard, vec![Card::GrandPlan, Card::GrandPlan]);
}

#[test]
fn hr_13_exploit_pair_alien_option_scores_resources_gained() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::AlienTransmogrifier);
    men(&mut st, 1, 0, 0, 1);
    st.players[0].res = [0, 2, 0];
    hand(&mut st, 0, &[Card::Exploit, Card::Exploit]);
    let st = play(
        &st,
        0,
        Action::Pair {
            card: Card::Exploit,
        },
    );
    let st = play(&st, 0, Action::AllAliens);
    let st = play(&st, 0, Action::UseAlien { at: h(1, 0) });
    assert_eq!(
        legal(&st, 0),
        vec![Action::Fill {
            resource: Resource::Food
        }]
    );
    let st = play(
        &st,
        0,
        Action::Fill {
            resource: Resource::Food,
        },
    );
    assert_eq!(st.players[0].res[1], 5);
    assert_eq!(st.players[0].score, 3);
}

#[test]
fn hr_14_cluster_bots_pay_mountain_and_telemorpher_obeys_barriers() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::AlienClusterBots);
    tile(&mut st, 2, 0, TileKind::Mountain);
    men(&mut st, 1, 0, 0, 1);
    men(&mut st, 2, 0, 0, 1);
    st.deck = vec![Card::Men, Card::Star];
    hand(&mut st, 0, &[Card::Exploit]);
    let st0 = st.clone();
    let st = play(
        &st,
        0,
        Action::Show {
            card: Card::Exploit,
        },
    );
    let st = play(&st, 0, Action::UseAlien { at: h(1, 0) });
    // No plastic: only the free tile.
    assert_eq!(
        legal(&st, 0),
        vec![Action::Base { at: h(1, 0) }, Action::Stop]
    );
    let mut st = st0.clone();
    st.players[0].res[0] = 2;
    let st = play(
        &st,
        0,
        Action::Show {
            card: Card::Exploit,
        },
    );
    let st = play(&st, 0, Action::UseAlien { at: h(1, 0) });
    let st = play(&st, 0, Action::Base { at: h(2, 0) });
    assert!(st.base_at(h(2, 0), 0));
    assert_eq!(st.players[0].res[0], 0);
    // Telemorpher: the mountain only with an own road touching it.
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::AlienTelemorpher);
    tile(&mut st, 3, 0, TileKind::Mountain);
    men(&mut st, 1, 0, 0, 2);
    st.deck = vec![Card::Men, Card::Star];
    hand(&mut st, 0, &[Card::Exploit]);
    let st = play(
        &st,
        0,
        Action::Show {
            card: Card::Exploit,
        },
    );
    let st = play(&st, 0, Action::UseAlien { at: h(1, 0) });
    assert!(!legal(&st, 0).contains(&Action::Teleport { to: h(3, 0) }));
    let st = play(&st, 0, Action::Teleport { to: h(0, 0) });
    assert_eq!(st.men_at(h(0, 0), 0), 1);
}

#[test]
fn hr_15_great_war_loop_until_nobody_can_nominate() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills);
    men(&mut st, 1, 0, 0, 1);
    men(&mut st, 1, 0, 1, 2);
    tile(&mut st, 2, 0, TileKind::PlasticSteppe);
    men(&mut st, 2, 0, 2, 1);
    hand(&mut st, 0, &[Card::War, Card::War]);
    let st = play(&st, 0, Action::Pair { card: Card::War });
    // p nominates first.
    assert_eq!(to_act(&st), vec![0]);
    assert_eq!(
        legal(&st, 0),
        vec![Action::Attack {
            at: h(1, 0),
            victim: 1
        }]
    );
    let st = play(
        &st,
        0,
        Action::Attack {
            at: h(1, 0),
            victim: 1,
        },
    );
    assert_eq!(to_act(&st), vec![1]);
    assert_eq!(
        legal(&st, 1),
        vec![Action::LoseMan],
        "the loss comes from the named tile"
    );
    let st = play(&st, 1, Action::LoseMan);
    // Seat 1 nominates next (compulsory); seat 2 has nobody to name.
    assert_eq!(to_act(&st), vec![1]);
    let st = play(
        &st,
        1,
        Action::Attack {
            at: h(1, 0),
            victim: 0,
        },
    );
    let st = play(&st, 0, Action::LoseMan);
    // Every tile holds one colour: the war ends and everyone scores 2 per tile.
    assert_eq!(st.step, Step::Resources);
    let scores: Vec<i64> = st.players.iter().map(|p| p.score).collect();
    assert_eq!(scores, vec![0, 2, 2]);
}

#[test]
fn hr_16_steal_pair_gets_the_bonus() {
    let mut st = blank(3);
    men(&mut st, 0, 0, 0, 1);
    men(&mut st, 0, 0, 1, 1);
    st.players[1].res = [1, 0, 0];
    hand(&mut st, 0, &[Card::Steal, Card::Steal]);
    let st = play(&st, 0, Action::Pair { card: Card::Steal });
    let st = play(
        &st,
        0,
        Action::Rob {
            at: h(0, 0),
            victim: 1,
        },
    );
    let st = play(
        &st,
        0,
        Action::Take {
            resource: Resource::Plastic,
        },
    );
    assert_eq!(st.players[0].score, -3 + 1);
}

#[test]
fn hr_17_star_without_copy_p_acts_alone_and_scores() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::NSwamp);
    men(&mut st, 1, 0, 0, 1);
    men(&mut st, 1, 0, 1, 1);
    hand(&mut st, 0, &[Card::Exploit, Card::Men]);
    hand(&mut st, 1, &[Card::Build]);
    let st = play(
        &st,
        0,
        Action::Show {
            card: Card::Exploit,
        },
    );
    assert_eq!(to_act(&st), vec![0]);
    let st = play(
        &st,
        0,
        Action::HarvestAll {
            resource: Resource::Food,
        },
    );
    assert_eq!(st.players[0].score, 2);
    assert_eq!(st.players[1].res, [0, 0, 0]);
    assert_eq!(st.discard, vec![Card::Exploit]);
    assert_eq!(st.players[0].hand, vec![Card::Men]);
}

#[test]
fn hr_18_first_holder_clockwise_lays_the_copy() {
    let mut st = blank(4);
    hand(&mut st, 0, &[Card::Build]);
    hand(&mut st, 1, &[Card::Men]);
    hand(&mut st, 2, &[Card::Build]);
    hand(&mut st, 3, &[Card::Build]);
    let st = play(&st, 0, Action::Show { card: Card::Build });
    assert!(st.players[2].hand.is_empty());
    assert_eq!(st.players[3].hand, vec![Card::Build]);
    assert!(matches!(
        st.frames[0].stack.last(),
        Some(Job::StarSetup { q: 2, .. })
    ));
}

#[test]
fn hr_19_no_cards_after_steal_skips_main() {
    let mut st = blank(3);
    hand(&mut st, 2, &[Card::Build]);
    st.players[2].plan_out = false;
    st.current = 2;
    st.step = Step::Resources;
    hand(&mut st, 2, &[]);
    let st = play(&st, 2, Action::EndTurn);
    assert_eq!(st.current, 0);
    assert_eq!(st.step, Step::Resources);
    assert_eq!(legal(&st, 0), vec![Action::EndTurn]);
}

#[test]
fn hr_20_steal_into_full_track_victim_still_loses() {
    let mut st = blank(3);
    men(&mut st, 0, 0, 0, 1);
    base(&mut st, 0, 0, 1);
    st.players[0].res = [0, 0, 5];
    st.players[1].res = [0, 0, 2];
    st.deck = vec![Card::Men, Card::Star];
    hand(&mut st, 0, &[Card::Steal]);
    let st = play(&st, 0, Action::Show { card: Card::Steal });
    let st = play(
        &st,
        0,
        Action::Rob {
            at: h(0, 0),
            victim: 1,
        },
    );
    let st = play(
        &st,
        0,
        Action::Take {
            resource: Resource::Metal,
        },
    );
    assert_eq!(st.players[0].res[2], 5);
    assert_eq!(st.players[1].res[2], 1);
}

#[test]
fn hr_21_between_ages_board_stays_and_left_player_gets_ai() {
    let mut st = blank(3);
    tile(&mut st, 1, 0, TileKind::GlyHills);
    men(&mut st, 1, 0, 2, 3);
    st.tile_stack = vec![TileKind::Mountain, TileKind::NSwamp];
    st.players[2].res = [1, 2, 3];
    st.players[0].score = 7;
    st.current = 2;
    hand(&mut st, 2, &[Card::Ai]);
    let st = play(&st, 2, Action::Show { card: Card::Ai });
    assert_eq!(st.age, 2);
    assert_eq!(st.current, 0);
    assert!(st.players[0].hand.contains(&Card::Ai));
    assert!(st.players.iter().all(|p| p.hand.len() == 5));
    assert_eq!(st.players[0].score, 7);
    assert_eq!(st.players[2].res, [1, 2, 3]);
    assert_eq!(st.men_at(h(1, 0), 2), 3);
    assert_eq!(st.tile_stack.len(), 2);
    assert_eq!(st.deck.len(), 31 - 15 + 1);
    assert_eq!(st.deck.last(), Some(&Card::Star));
}

#[test]
fn hr_22_scores_may_go_negative() {
    let mut st = blank(3);
    st.age = 2;
    hand(&mut st, 0, &[Card::Ai]);
    let st = play(&st, 0, Action::Show { card: Card::Ai });
    assert_eq!(st.players[0].score, -3);
    assert!(Sp4x.status(&st).is_finished());
}

#[test]
fn hr_23_no_exploring_with_an_empty_stack() {
    let mut st = blank(3);
    men(&mut st, 0, 0, 0, 1);
    hand(&mut st, 0, &[Card::MoveExplore, Card::MoveExplore]);
    let st = play(
        &st,
        0,
        Action::Pair {
            card: Card::MoveExplore,
        },
    );
    // Nothing to move to or explore: the step ends by itself, the pair still scores.
    assert_eq!(st.step, Step::Resources);
    assert_eq!(st.players[0].score, 1 + 1);
}

#[test]
fn hr_24_tie_on_score_and_tiles_is_a_shared_win() {
    let mut st = blank(3);
    st.step = Step::Over;
    st.players[0].score = 5;
    st.players[1].score = 5;
    st.players[2].score = 5;
    men(&mut st, 0, 0, 0, 1);
    men(&mut st, 0, 0, 1, 1);
    let Status::Finished(out) = Sp4x.status(&st) else {
        panic!("not finished")
    };
    assert_eq!(
        out.winners(),
        vec![0, 1],
        "tile count breaks the tie with seat 2; 0 and 1 share"
    );
    assert_eq!(out.ranking[2].rank, 3);
}

#[test]
fn hr_25_two_grand_plans_and_31_cards() {
    let cards = data().unwrap().action_cards();
    assert_eq!(cards.len(), 31);
    assert_eq!(cards.iter().filter(|&&c| c == Card::GrandPlan).count(), 2);
}

#[test]
fn hr_27_card_without_effect_still_flows() {
    let mut st = blank(3);
    st.deck = vec![Card::Men, Card::Star];
    hand(&mut st, 0, &[Card::War]);
    let st = play(&st, 0, Action::Show { card: Card::War });
    assert_eq!(st.step, Step::Resources);
    assert_eq!(st.players[0].hand, vec![Card::Men, Card::War]);
}

// ------------------------------------------------------------------ hidden information

#[test]
fn leak_hands_and_drawn_card_seen_only_by_thief_and_victim() {
    let mut st = blank(3);
    hand(&mut st, 0, &[Card::Build]);
    hand(&mut st, 1, &[Card::GrandPlan]);
    hand(&mut st, 2, &[Card::War]);
    st.step = Step::Steal;
    let st = play(&st, 0, Action::DrawFrom { victim: 1 });
    assert_eq!(st.players[0].hand, vec![Card::Build, Card::GrandPlan]);
    let json = |v: Viewer| serde_json::to_string(&Sp4x.view(&st, v)).unwrap();
    let text = |v: Viewer| Sp4x.render_text(&st, v);
    for v in [Viewer::Seat(0), Viewer::Seat(1)] {
        assert!(json(v).contains("\"grand_plan\""), "{v:?} knows the card");
        assert!(text(v).contains("grand plan"));
    }
    for v in [Viewer::Seat(2), Viewer::Spectator] {
        assert!(
            !json(v).contains("\"grand_plan\""),
            "{v:?} must not see the drawn card"
        );
        assert!(!text(v).contains("grand plan"));
        assert!(
            !json(v).contains("\"build\""),
            "{v:?} must not see seat 0's hand"
        );
        assert!(!text(v).contains("build"));
    }
    assert!(
        !json(Viewer::Seat(0)).contains("\"war\""),
        "seat 2's hand is hidden from seat 0"
    );
    assert!(text(Viewer::Seat(2)).contains("war"), "own hand shown");
    // The log entry is public and names no card.
    assert_eq!(
        Sp4x.describe_action(&st, 0, &Action::DrawFrom { victim: 1 }),
        "draw a random card from Blue"
    );
}

#[test]
fn render_shows_map_tracks_scores_and_hand() {
    let st = Sp4x
        .setup(&Options::default(), 4, GameRng::seed_from_u64(11))
        .unwrap();
    let t = Sp4x.render_text(&st, Viewer::Seat(1));
    for needle in [
        "MAP",
        "(0,0)",
        "mothership",
        "PLAYERS",
        "plastic",
        "YOUR HAND",
        "Red 2 men + base",
        "ROADS",
    ] {
        assert!(t.contains(needle), "missing {needle}:\n{t}");
    }
}

#[test]
fn hostile_actions_are_refused_without_panic() {
    let st = Sp4x
        .setup(&Options::default(), 3, GameRng::seed_from_u64(1))
        .unwrap();
    let p = st.current;
    let bad = [
        Action::DrawFrom { victim: 99 },
        Action::DrawFrom { victim: p },
        Action::Show { card: Card::Star },
        Action::Move {
            from: h(i32::MAX, i32::MIN),
            to: h(0, 0),
        },
        Action::Take {
            resource: Resource::Food,
        },
    ];
    for a in bad {
        let e = Sp4x.apply(&st, p, &a).unwrap_err();
        assert_eq!(e.code, "illegal_action");
    }
    assert_eq!(
        Sp4x.apply(&st, (p + 1) % 3, &Action::EndTurn)
            .unwrap_err()
            .code,
        "not_your_turn"
    );
    assert_eq!(
        Sp4x.apply(&st, 77, &Action::EndTurn).unwrap_err().code,
        "not_your_turn"
    );
    assert!(Sp4x.check_data().is_ok());
    assert!(super::data::Data::parse("men = 1").is_err());
}

// ------------------------------------------------------------------ contract

#[test]
fn contract_3_players() {
    let deep = PlayoutConfig {
        deep_every: 1,
        ..PlayoutConfig::default()
    };
    let s = check_many(&Sp4x, &Options::default(), 3, 10, 1, &deep);
    assert_covers(s.clone());
    assert!(s.resamples_that_changed_state > 0 && s.illegal_tried > 0);
    let light = PlayoutConfig {
        deep_every: 150,
        ..PlayoutConfig::default()
    };
    let s = check_many(&Sp4x, &Options::default(), 3, 330, 1_000, &light);
    assert!(s.views_checked > 0);
}

#[test]
fn contract_4_players() {
    let deep = PlayoutConfig {
        deep_every: 1,
        ..PlayoutConfig::default()
    };
    let s = check_many(&Sp4x, &Options::default(), 4, 10, 1, &deep);
    assert_covers(s.clone());
    assert!(s.resamples_that_changed_state > 0 && s.illegal_tried > 0);
    let light = PlayoutConfig {
        deep_every: 150,
        ..PlayoutConfig::default()
    };
    let s = check_many(&Sp4x, &Options::default(), 4, 330, 5_000, &light);
    assert!(s.views_checked > 0);
}

#[test]
fn random_games_finish_with_full_rankings() {
    for seed in 0..50 {
        let p = random_playout(
            &Sp4x,
            &Options::default(),
            3 + (seed as usize % 2),
            seed,
            20_000,
        )
        .unwrap();
        assert!(p.finished, "seed {seed} did not finish");
        assert_eq!(p.state.age, 2);
    }
}

#[test]
fn action_schema_and_wire_form() {
    let schema = serde_json::to_string(&schemars::schema_for!(Action)).unwrap();
    assert!(schema.contains("draw_from") && schema.contains("random card"));
    let a: Action =
        serde_json::from_str(r#"{"type":"attack","at":{"q":1,"r":-1},"victim":2}"#).unwrap();
    assert_eq!(
        a,
        Action::Attack {
            at: h(1, -1),
            victim: 2
        }
    );
    let o: Result<Options, _> = serde_json::from_str(r#"{"nope":1}"#);
    assert!(o.is_err(), "unknown options are refused");
}

#[test]
fn fuzz_random_actions_never_panic() {
    let mut rng = GameRng::seed_from_u64(99);
    let cards = [
        Card::MoveExplore,
        Card::Exploit,
        Card::Build,
        Card::Men,
        Card::Steal,
        Card::War,
        Card::GrandPlan,
        Card::Ai,
        Card::Star,
    ];
    for seed in 0..20 {
        let p = random_playout(
            &Sp4x,
            &Options::default(),
            3 + (seed as usize % 2),
            seed,
            20_000,
        )
        .unwrap();
        let mut st = Sp4x
            .setup(
                &Options::default(),
                p.state.seats,
                GameRng::seed_from_u64(seed),
            )
            .unwrap();
        for (i, (s, a)) in p.log.iter().enumerate() {
            if i % 7 == 0 {
                let hx = |r: &mut GameRng| h(r.below(9) as i32 - 4, r.below(9) as i32 - 4);
                let c = cards[rng.below(cards.len())];
                let res = Resource::ALL[rng.below(3)];
                let v = rng.below(6);
                let junk = [
                    Action::DrawFrom { victim: v },
                    Action::Show { card: c },
                    Action::Pair { card: c },
                    Action::AiPair { card: c },
                    Action::Move {
                        from: hx(&mut rng),
                        to: hx(&mut rng),
                    },
                    Action::Explore {
                        from: hx(&mut rng),
                        via: hx(&mut rng),
                        at: hx(&mut rng),
                    },
                    Action::Road {
                        a: hx(&mut rng),
                        b: hx(&mut rng),
                    },
                    Action::Base { at: hx(&mut rng) },
                    Action::Attack {
                        at: hx(&mut rng),
                        victim: v,
                    },
                    Action::Rob {
                        at: hx(&mut rng),
                        victim: v,
                    },
                    Action::Take { resource: res },
                    Action::LoseRoad {
                        a: hx(&mut rng),
                        b: hx(&mut rng),
                    },
                    Action::Teleport { to: hx(&mut rng) },
                    Action::SpendPlasticRoad {
                        a: hx(&mut rng),
                        b: hx(&mut rng),
                    },
                    Action::Stop,
                    Action::PayMetal,
                    Action::ActFirst,
                ];
                for seat in 0..6 {
                    for j in &junk {
                        if let Ok(next) = Sp4x.apply(&st, seat, j) {
                            assert!(
                                Sp4x.legal_actions(&st, seat).contains(j),
                                "accepted unlisted {j:?}"
                            );
                            let _ = next;
                        }
                    }
                }
            }
            st = Sp4x.apply(&st, *s, a).unwrap();
        }
    }
}

// ------------------------------------------------------------------ invariants

fn midgame() -> State {
    random_playout(&Sp4x, &Options::default(), 3, 21, 80)
        .unwrap()
        .state
}

#[test]
fn invariants_hold_in_play_and_catch_broken_states() {
    let d = super::data::data().unwrap();
    let s = midgame();
    super::invariants::check(d, &s).unwrap();
    let broken = |f: &dyn Fn(&mut State), what: &str| {
        let mut b = s.clone();
        f(&mut b);
        let e = super::invariants::check(d, &b).expect_err(what);
        eprintln!("{what}: {e}");
    };
    broken(
        &|b| {
            b.players[0].hand.pop();
        },
        "a card lost from a hand",
    );
    broken(
        &|b| {
            b.deck.insert(0, Card::War);
        },
        "a card added to the deck",
    );
    broken(
        &|b| {
            b.deck.pop();
        },
        "the star lost",
    );
    broken(
        &|b| {
            b.tile_stack.pop();
        },
        "a map tile lost",
    );
    broken(
        &|b| {
            let h = b.tiles[1].hex;
            b.tiles[2].hex = h;
        },
        "two tiles on one hex",
    );
    broken(
        &|b| {
            b.tiles[0].men[1] = 40;
        },
        "more men than the supply",
    );
    broken(
        &|b| {
            let r = b.roads[0];
            b.roads.push(r);
        },
        "a road twice",
    );
    broken(
        &|b| {
            b.players[2].res[1] = 9;
        },
        "a resource beyond its track",
    );
}

#[test]
fn step_invariant_catches_a_free_payment() {
    let s = midgame();
    let seat = 0;
    let mut before = s.clone();
    before.players[seat].res = [0, 0, 0];
    let after = before.clone();
    let pay = Action::SpendFoodMan {
        at: turnpost_engine::hex::Hex::new(0, 0),
    };
    assert!(super::invariants::check_step(&before, seat, &pay, &after).is_err());
    before.players[seat].res = [0, 2, 0];
    let mut after = before.clone();
    after.players[seat].res = [0, 1, 0];
    super::invariants::check_step(&before, seat, &pay, &after).unwrap();
}
