use super::data::{Board, parse_and_validate};
use super::rules;
use super::state::{Bundle, Pending, Phase, State, Token};
use super::*;
use turnpost_engine::{Game, GameRng, Status, Viewer};

mod board_picture;
mod fortune_value;
mod invariant_checks;
mod people;

// ------------------------------------------------------------------ helpers

fn g() -> Fuldrigger {
    Fuldrigger::new()
}

fn board(game: &Fuldrigger) -> &Board {
    game.board().expect("shipped data validates")
}

fn node(game: &Fuldrigger, id: &str) -> usize {
    board(game).node(id).expect("known field")
}

fn port(game: &Fuldrigger, id: &str) -> usize {
    board(game).port_index(id).expect("known port")
}

fn good(game: &Fuldrigger, id: &str) -> usize {
    board(game).good_index(id).expect("known good")
}

/// A started game: homes chosen in turn (CPH, AMS, LON, LIS as offered), first player to move.
fn started(game: &Fuldrigger, seats: usize, options: &Options) -> State {
    let mut st = game
        .setup(options, seats, GameRng::seed_from_u64(7))
        .unwrap();
    while st.phase == Phase::ChooseHome {
        let seat = rules::home_chooser(&st).unwrap();
        let a = game.legal_actions(&st, seat)[0].clone();
        st = game.apply(&st, seat, &a).unwrap();
    }
    st
}

/// A started game with no ships, no card in force, and seat 0 to act before the roll.
fn blank(game: &Fuldrigger, seats: usize) -> State {
    let mut st = started(game, seats, &Options::default());
    st.ships.clear();
    st.active_card = None;
    st.arrivals.clear();
    st.current = 0;
    st.phase = Phase::Before;
    st.events.clear();
    for p in st.players.iter_mut() {
        p.cash = 1000;
    }
    st
}

fn ship_at(game: &Fuldrigger, st: &mut State, owner: usize, at: &str) -> u32 {
    let n = node(game, at);
    rules::new_ship(st, owner, n)
}

fn load(game: &Fuldrigger, st: &mut State, id: u32, g_: &str, price: u32, from: &str, fields: u32) {
    let t = Token {
        good: good(game, g_),
        price,
        bought_at: port(game, from),
        fields,
    };
    st.ship_mut(id).unwrap().cargo = Some(t);
}

fn roll2_of(rng: &GameRng) -> u32 {
    let mut st_rng = rng.clone();
    st_rng.roll(2, 6).iter().map(|&d| u32::from(d)).sum()
}

/// An RNG whose next 2-dice rolls are `rolls`.
fn rigged(rolls: &[u32]) -> GameRng {
    for seed in 0..1_000_000u64 {
        let mut r = GameRng::seed_from_u64(seed);
        let ok = rolls.iter().all(|&want| {
            let got: u32 = r.roll(2, 6).iter().map(|&d| u32::from(d)).sum();
            got == want
        });
        if ok {
            let fresh = GameRng::seed_from_u64(seed);
            assert_eq!(roll2_of(&fresh), rolls[0]);
            return fresh;
        }
    }
    panic!("no seed for {rolls:?}");
}

/// An RNG whose next 3-dice roll sums to `sum`.
fn rigged3(sum: u32) -> GameRng {
    for seed in 0..100_000u64 {
        let mut r = GameRng::seed_from_u64(seed);
        let got: u32 = r.roll(3, 6).iter().map(|&d| u32::from(d)).sum();
        if got == sum {
            return GameRng::seed_from_u64(seed);
        }
    }
    panic!("no seed for {sum}");
}

fn apply(game: &Fuldrigger, st: &State, seat: usize, a: Action) -> State {
    match game.apply(st, seat, &a) {
        Ok(s) => s,
        Err(e) => panic!("{a:?} refused: {e}"),
    }
}

fn refused(game: &Fuldrigger, st: &State, seat: usize, a: Action) -> String {
    match game.apply(st, seat, &a) {
        Ok(_) => panic!("{a:?} was accepted"),
        Err(e) => e.code.to_string(),
    }
}

fn sail(ship: u32, to: &str) -> Action {
    Action::Sail {
        ship,
        to: to.to_string(),
    }
}

/// Seat 0 in the movement phase with `allowance` for every ship.
fn moving(st: &mut State, allowance: u32) {
    st.phase = Phase::Movement;
    st.roll = Some(allowance);
    for s in st.ships.iter_mut().filter(|s| s.owner == 0) {
        s.remaining = allowance;
        s.done = false;
    }
}

fn privateer(st: &mut State, id: u32) {
    st.ship_mut(id).unwrap().privateer = true;
}

// ------------------------------------------------------------------ data

#[test]
fn shipped_data_validates() {
    let game = g();
    assert_eq!(game.check_data(), Ok(()));
    let b = board(&game);
    assert_eq!(b.cards.len(), 28);
    assert_eq!(b.goods.len(), 9);
    assert_eq!(b.hazards.len(), 24);
    assert_eq!(b.nodes.iter().filter(|n| !n.variant).count(), 176);
    assert_eq!(b.nodes.len(), 218);
}

#[test]
fn corrupted_data_is_refused_with_a_clear_message() {
    // A lane one field longer breaks the digest's route LON–LIS = 7.
    let bad = data::DATA.replace(
        r#"{ id = "L05", a = "LON", b = "J_BIS", length = 3"#,
        r#"{ id = "L05", a = "LON", b = "J_BIS", length = 4"#,
    );
    assert_ne!(bad, data::DATA);
    let e = parse_and_validate(&bad).unwrap_err();
    assert!(e.contains("fields") || e.contains("LON–LIS"), "{e}");
    // A missing chance card.
    let bad = data::DATA.replace(r#"  { id = "C28", kind = "spoil", good = "tea", text = "Spoiled tea: every ship carrying tea loses it" },"#, "");
    let e = parse_and_validate(&bad).unwrap_err();
    assert!(e.contains("28 chance cards"), "{e}");
    // A price list naming an unknown good.
    let bad = data::DATA.replace("buy = { timber = 20 }", "buy = { lumber = 20 }");
    let e = parse_and_validate(&bad).unwrap_err();
    assert!(e.contains("unknown good") && e.contains("lumber"), "{e}");
    // A hazard on a field that does not exist.
    let bad = data::DATA.replace(r#"field = "L14:3""#, r#"field = "L14:9""#);
    let e = parse_and_validate(&bad).unwrap_err();
    assert!(e.contains("H01") && e.contains("L14:9"), "{e}");
    // Not TOML at all.
    assert!(
        parse_and_validate("ports = [")
            .unwrap_err()
            .contains("not valid")
    );
    // An engine over broken data refuses setup instead of panicking.
    assert!(Fuldrigger::with_data(&bad).is_err());
    let broken = Fuldrigger {
        board: Err("x".into()),
    };
    assert!(broken.check_data().is_err());
    assert!(
        broken
            .setup(&Options::default(), 2, GameRng::seed_from_u64(1))
            .is_err()
    );
}

// ------------------------------------------------------------------ worked examples

#[test]
fn example_9_1_attack_table_two_privateers_against_a_merchant() {
    let game = g();
    let mut base = blank(&game, 2);
    let a1 = ship_at(&game, &mut base, 0, "L09:2");
    let a2 = ship_at(&game, &mut base, 0, "L09:2");
    let m = ship_at(&game, &mut base, 1, "L09:2");
    privateer(&mut base, a1);
    privateer(&mut base, a2);
    moving(&mut base, 10);
    let attack = Action::Attack {
        defender: 1,
        ships: vec![a1, a2],
    };
    // Roll 4: p loses one privateer (and chooses which).
    let mut st = base.clone();
    st.rng = rigged(&[4]);
    let st = apply(&game, &st, 0, attack.clone());
    assert_eq!(
        st.pending,
        Some(Pending::ChooseLoss {
            attackers: vec![a1, a2]
        })
    );
    assert_eq!(
        game.legal_actions(&st, 0),
        vec![
            Action::ChooseLoss { ship: a1 },
            Action::ChooseLoss { ship: a2 }
        ]
    );
    let st = apply(&game, &st, 0, Action::ChooseLoss { ship: a2 });
    assert!(st.ship(a2).is_none() && st.ship(a1).is_some());
    // Roll 9: the merchant is captured.
    let mut st = base.clone();
    st.rng = rigged(&[9]);
    let st = apply(&game, &st, 0, attack.clone());
    assert_eq!(st.ship(m).unwrap().owner, 0);
    // Roll 5–8: draw.
    for r in 5..=8 {
        let mut st = base.clone();
        st.rng = rigged(&[r]);
        let st = apply(&game, &st, 0, attack.clone());
        assert_eq!(st.ship(m).unwrap().owner, 1);
        assert_eq!(st.ships.len(), 3);
        assert!(st.pending.is_none());
    }
}

#[test]
fn example_9_1_one_privateer_against_two_ships_is_illegal() {
    let game = g();
    let mut st = blank(&game, 2);
    let a1 = ship_at(&game, &mut st, 0, "L09:2");
    ship_at(&game, &mut st, 1, "L09:2");
    ship_at(&game, &mut st, 1, "L09:2");
    privateer(&mut st, a1);
    moving(&mut st, 10);
    let code = refused(
        &game,
        &st,
        0,
        Action::Attack {
            defender: 1,
            ships: vec![a1],
        },
    );
    assert_eq!(code, "too_few_attackers");
    assert!(
        !game
            .legal_actions(&st, 0)
            .iter()
            .any(|a| matches!(a, Action::Attack { .. }))
    );
}

#[test]
fn example_9_1_three_privateers_against_a_fort_with_a_ship() {
    let game = g();
    let mut base = blank(&game, 2);
    let ids: Vec<u32> = (0..3)
        .map(|_| ship_at(&game, &mut base, 0, "BAT"))
        .collect();
    for &i in &ids {
        privateer(&mut base, i);
    }
    let d = ship_at(&game, &mut base, 1, "BAT");
    base.forts[port(&game, "BAT")] = Some(1);
    moving(&mut base, 10);
    let attack = Action::Attack {
        defender: 1,
        ships: ids.clone(),
    };
    let mut st = base.clone();
    st.rng = rigged(&[8]);
    let st = apply(&game, &st, 0, attack.clone());
    let legal = game.legal_actions(&st, 0);
    assert_eq!(
        legal,
        vec![Action::CaptureFort, Action::CaptureShip { ship: d }]
    );
    let fort = apply(&game, &st, 0, Action::CaptureFort);
    assert_eq!(fort.forts[port(&game, "BAT")], Some(0));
    let ship = apply(&game, &st, 0, Action::CaptureShip { ship: d });
    assert_eq!(ship.ship(d).unwrap().owner, 0);
    assert_eq!(ship.forts[port(&game, "BAT")], Some(1));
    // Roll 3: p loses a privateer.
    let mut st = base.clone();
    st.rng = rigged(&[3]);
    let st = apply(&game, &st, 0, attack);
    assert!(matches!(st.pending, Some(Pending::ChooseLoss { .. })));
}

#[test]
fn example_9_1_five_privateers_use_the_four_column() {
    let game = g();
    let mut base = blank(&game, 2);
    let ids: Vec<u32> = (0..5)
        .map(|_| ship_at(&game, &mut base, 0, "L09:2"))
        .collect();
    for &i in &ids {
        privateer(&mut base, i);
    }
    let m = ship_at(&game, &mut base, 1, "L09:2");
    moving(&mut base, 10);
    let attack = Action::Attack {
        defender: 1,
        ships: ids,
    };
    for r in 2..=12 {
        let mut st = base.clone();
        st.rng = rigged(&[r]);
        let st = apply(&game, &st, 0, attack.clone());
        let lost = matches!(st.pending, Some(Pending::ChooseLoss { .. }));
        let captured = st.ship(m).unwrap().owner == 0;
        assert_eq!(lost, r == 2, "roll {r}");
        assert_eq!(captured, r >= 7, "roll {r}");
    }
}

/// Sails `ship` from `from` into the next field `to` (a hazard) with the given rolls.
fn hazard_run(
    game: &Fuldrigger,
    from: &str,
    to: &str,
    rolls: &[u32],
    allowance: u32,
) -> (State, u32) {
    let mut st = blank(game, 2);
    let id = ship_at(game, &mut st, 0, from);
    load(game, &mut st, id, "spice", 40, "BOM", 3);
    moving(&mut st, allowance);
    st.rng = rigged(rolls);
    (apply(game, &st, 0, sail(id, to)), id)
}

#[test]
fn example_9_2_hazard_rolls() {
    let game = g();
    // Storm H06 at L04:2: 3 sinks ship and cargo, 4 does nothing.
    let (st, id) = hazard_run(&game, "L04:1", "L04:2", &[3], 5);
    assert!(st.ship(id).is_none());
    assert_eq!(rules::tokens_in_play(&st, good(&game, "spice")), 0);
    let (st, id) = hazard_run(&game, "L04:1", "L04:2", &[4], 5);
    assert_eq!(st.ship(id).unwrap().at, node(&game, "L04:2"));
    // Iceberg H11 at L13:7: only 5 sinks.
    for r in 2..=12 {
        let (st, id) = hazard_run(&game, "L13:6", "L13:7", &[r], 5);
        assert_eq!(st.ship(id).is_none(), r == 5, "iceberg roll {r}");
    }
    // Doldrums H13 at L19:5: 7 stops and skips the next turn; 8 goes on.
    let (st, id) = hazard_run(&game, "L19:4", "L19:6", &[7], 5);
    let s = st.ship(id).unwrap();
    assert_eq!(s.at, node(&game, "L19:5"));
    assert!(s.becalmed && s.remaining == 0);
    let (st, id) = hazard_run(&game, "L19:4", "L19:6", &[8], 5);
    assert_eq!(st.ship(id).unwrap().at, node(&game, "L19:6"));
    // Reef A (H15 at L32:2): 2 wrecks; 9 teaches A and p's ships ignore it from then on.
    let (st, id) = hazard_run(&game, "L32:1", "L32:2", &[2], 5);
    assert!(st.ship(id).is_none());
    let (mut st, id) = hazard_run(&game, "L32:1", "L32:2", &[9], 5);
    assert_eq!(st.players[0].known_reefs, vec!["A".to_string()]);
    // Another ship of p crosses A with a roll that would wreck: no roll is made.
    let other = ship_at(&game, &mut st, 0, "L32:1");
    st.ship_mut(other).unwrap().remaining = 5;
    st.ship_mut(id).unwrap().done = true;
    st.rng = rigged(&[2]);
    let before = st.rng.clone();
    let st = apply(&game, &st, 0, sail(other, "L32:3"));
    assert_eq!(st.ship(other).unwrap().at, node(&game, "L32:3"));
    assert_eq!(st.rng, before, "no reef roll for a known reef");
}

#[test]
fn example_9_3_pirates_and_fort_protection() {
    let game = g();
    // L34:2 is H19; BAT is 2 fields away.
    let (st, id) = hazard_run(&game, "L34:1", "L34:2", &[4], 5);
    assert!(
        st.ship(id).unwrap().cargo.is_none(),
        "roll 4: the spice is lost"
    );
    let mut st = blank(&game, 2);
    let id = ship_at(&game, &mut st, 0, "L34:1");
    load(&game, &mut st, id, "spice", 40, "BOM", 3);
    st.forts[port(&game, "BAT")] = Some(0);
    moving(&mut st, 5);
    st.rng = rigged(&[4]);
    let before = st.rng.clone();
    let st = apply(&game, &st, 0, sail(id, "L34:2"));
    assert!(st.ship(id).unwrap().cargo.is_some());
    assert_eq!(st.rng, before, "no roll is made");
}

/// Seat `seller` sells three tea loads at LON (each carried 12 fields); returns cash of 0 and 1.
fn three_teas(fort: Option<usize>) -> (u32, u32) {
    let game = g();
    let mut st = blank(&game, 2);
    st.forts[port(&game, "LON")] = fort;
    st.phase = Phase::After;
    let ids: Vec<u32> = (0..3).map(|_| ship_at(&game, &mut st, 0, "LON")).collect();
    for &i in &ids {
        load(&game, &mut st, i, "tea", 30, "CAN", 12);
    }
    for &i in &ids {
        st = apply(&game, &st, 0, Action::SellGood { ship: i });
    }
    (st.players[0].cash - 1000, st.players[1].cash)
}

#[test]
fn example_9_4_repeat_sales_and_forts() {
    assert_eq!(three_teas(None), (390, 1000));
    assert_eq!(three_teas(Some(0)), (420, 1000));
    // q owns it: p gets 390 and pays q 30.
    assert_eq!(three_teas(Some(1)), (390 - 30, 1030));
}

#[test]
fn example_9_5_the_ten_field_rule() {
    let game = g();
    let mut st = blank(&game, 2);
    st.phase = Phase::After;
    let id = ship_at(&game, &mut st, 0, "AMS");
    load(&game, &mut st, id, "timber", 20, "CPH", 6);
    assert_eq!(
        refused(&game, &st, 0, Action::SellGood { ship: id }),
        "not_bought_here"
    );
    st.ship_mut(id).unwrap().at = node(&game, "ALX");
    st.ship_mut(id).unwrap().cargo.as_mut().unwrap().fields = 22;
    let after = apply(&game, &st, 0, Action::SellGood { ship: id });
    assert_eq!(after.players[0].cash, 1060);
    st.ship_mut(id).unwrap().cargo.as_mut().unwrap().fields = 9;
    assert_eq!(
        refused(&game, &st, 0, Action::SellGood { ship: id }),
        "too_short"
    );
}

#[test]
fn example_9_6_port_stop() {
    let game = g();
    let mut st = blank(&game, 2);
    let id = ship_at(&game, &mut st, 0, "LIS");
    st.rng = rigged3(12);
    st = apply(&game, &st, 0, Action::Roll);
    assert_eq!(st.roll, Some(12));
    st = apply(&game, &st, 0, sail(id, "J_GIB"));
    assert_eq!(st.ship(id).unwrap().remaining, 10);
    st = apply(&game, &st, 0, sail(id, "J_MED"));
    assert_eq!(st.ship(id).unwrap().remaining, 5);
    // ALX is 4 further: the ship stops there and the 12th field is lost.
    st = apply(&game, &st, 0, sail(id, "ALX"));
    let s = st.ship(id).unwrap();
    assert_eq!((s.at, s.remaining), (node(&game, "ALX"), 0));
    assert!(
        !game
            .legal_actions(&st, 0)
            .iter()
            .any(|a| matches!(a, Action::Sail { .. }))
    );
    // It cannot pass through ALX either: no lane walk goes beyond a port.
    let mut st2 = st.clone();
    st2.ship_mut(id).unwrap().at = node(&game, "L10:3");
    st2.ship_mut(id).unwrap().remaining = 5;
    let targets: Vec<Action> = game
        .legal_actions(&st2, 0)
        .into_iter()
        .filter(|a| matches!(a, Action::Sail { .. }))
        .collect();
    assert!(targets.contains(&sail(id, "ALX")));
    assert!(targets.iter().all(|a| matches!(a, Action::Sail { to, .. } if to.starts_with("L10") || to == "ALX" || to == "J_MED")));
}

#[test]
fn example_9_7_tailwind_and_headwind() {
    let game = g();
    // H01 at L14:3: entering with 4 left (5 before the step) leaves 3 + 4 = 7.
    let mut st = blank(&game, 2);
    let id = ship_at(&game, &mut st, 0, "L14:2");
    moving(&mut st, 5);
    let st = apply(&game, &st, 0, sail(id, "L14:3"));
    assert_eq!(st.ship(id).unwrap().remaining, 7);
    // Headwind H04 at L13:5 entered with 2 left afterwards: the ship stops there.
    let mut st = blank(&game, 2);
    let id = ship_at(&game, &mut st, 0, "L13:4");
    moving(&mut st, 3);
    let st = apply(&game, &st, 0, sail(id, "L13:6"));
    let s = st.ship(id).unwrap();
    assert_eq!((s.at, s.remaining), (node(&game, "L13:5"), 0));
}

fn isthmus_state(game: &Fuldrigger) -> State {
    let mut st = started(
        game,
        3,
        &Options {
            rounds: None,
            isthmus: true,
        },
    );
    st.ships.clear();
    st.active_card = None;
    st.current = 0;
    st.phase = Phase::After;
    for p in st.players.iter_mut() {
        p.cash = 1000;
    }
    st
}

#[test]
fn example_9_8_isthmus_toll_and_transfer() {
    let game = g();
    let mut st = isthmus_state(&game);
    let a = ship_at(&game, &mut st, 0, "SUZ");
    let b2 = ship_at(&game, &mut st, 0, "ALX");
    load(&game, &mut st, a, "spice", 40, "BOM", 13);
    let dropped = apply(&game, &st, 0, Action::TransshipDrop { ship: a });
    assert_eq!(dropped.players[0].cash, 990, "toll 10 to the bank");
    assert_eq!(dropped.players[0].depot.len(), 1);
    // Picked up on the other side, keeping price and field count.
    let picked = apply(
        &game,
        &dropped,
        0,
        Action::TransshipPickup { ship: b2, load: 1 },
    );
    let t = picked.ship(b2).unwrap().cargo.clone().unwrap();
    assert_eq!((t.price, t.fields), (40, 13));
    assert!(picked.players[0].depot.is_empty());
    // Not on the same side.
    let c = {
        let mut s = dropped.clone();
        ship_at(&game, &mut s, 0, "SUZ");
        s
    };
    assert_eq!(
        refused(&game, &c, 0, Action::TransshipPickup { ship: a, load: 1 }),
        "wrong_side"
    );
    // q owns ALX, r owns SUZ: p pays 10, 5 each; q and r pay nothing.
    let mut st2 = st.clone();
    st2.forts[port(&game, "ALX")] = Some(1);
    st2.forts[port(&game, "SUZ")] = Some(2);
    let d = apply(&game, &st2, 0, Action::TransshipDrop { ship: a });
    assert_eq!(
        (d.players[0].cash, d.players[1].cash, d.players[2].cash),
        (990, 1005, 1005)
    );
    assert_eq!(rules::isthmus_toll(board(&game), &st2, 0, 1).0, 0);
    assert_eq!(rules::isthmus_toll(board(&game), &st2, 0, 2).0, 0);
}

#[test]
fn example_9_9_fortune() {
    let game = g();
    let mut st = blank(&game, 2);
    st.players[0].cash = 140;
    let ids: Vec<u32> = (0..4).map(|_| ship_at(&game, &mut st, 0, "LON")).collect();
    load(&game, &mut st, ids[0], "tea", 30, "CAN", 0);
    st.forts[port(&game, "BAT")] = Some(0);
    st.forts[port(&game, "CAN")] = Some(0);
    assert_eq!(rules::fortune(board(&game), &st, 0), 770);
}

#[test]
fn example_9_10_privateer_rules() {
    let game = g();
    let mut st = blank(&game, 2);
    let home = st.players[0].home.unwrap();
    let home_id = board(&game).ports[home].id.clone();
    let laden = ship_at(&game, &mut st, 0, &home_id);
    load(&game, &mut st, laden, "tea", 30, "CAN", 0);
    assert_eq!(
        refused(&game, &st, 0, Action::FitPrivateer { ship: laden }),
        "not_empty_merchant"
    );
    let bom = ship_at(&game, &mut st, 0, "BOM");
    assert_eq!(
        refused(&game, &st, 0, Action::FitPrivateer { ship: bom }),
        "wrong_port"
    );
    st.forts[port(&game, "BOM")] = Some(0);
    let st2 = apply(&game, &st, 0, Action::FitPrivateer { ship: bom });
    assert!(st2.ship(bom).unwrap().privateer);
    // A privateer cannot load goods.
    assert_eq!(
        refused(
            &game,
            &st2,
            0,
            Action::BuyGood {
                ship: bom,
                good: "spice".into()
            }
        ),
        "not_empty_merchant"
    );
    let empty_home = ship_at(&game, &mut st, 0, &home_id);
    let st3 = apply(&game, &st, 0, Action::FitPrivateer { ship: empty_home });
    assert!(st3.ship(empty_home).unwrap().privateer);
}

// ------------------------------------------------------------------ house rules

#[test]
fn hr_1_the_authored_map_sets_sailing_distances() {
    // LON to LIS is 7 fields on the authored map (L05 of 3, then L06 of 4): a roll of 7
    // gets a ship there, a roll of 6 leaves it one field short.
    let game = g();
    for (roll, arrives) in [(7, true), (6, false)] {
        let mut st = blank(&game, 2);
        let id = ship_at(&game, &mut st, 0, "LON");
        st.rng = rigged3(roll);
        st = apply(&game, &st, 0, Action::Roll);
        assert_eq!(st.roll, Some(roll));
        st = apply(&game, &st, 0, sail(id, "J_BIS"));
        let legal = game.legal_actions(&st, 0).contains(&sail(id, "LIS"));
        assert_eq!(legal, arrives, "roll {roll}");
        if arrives {
            st = apply(&game, &st, 0, sail(id, "LIS"));
            assert_eq!(st.ship(id).unwrap().at, node(&game, "LIS"));
        } else {
            assert_eq!(refused(&game, &st, 0, sail(id, "LIS")), "unreachable");
        }
    }
}

#[test]
fn hr_2_game_ends_after_the_configured_rounds() {
    // Played through actions: a one-round game ends after each seat's turn, and a game
    // without options plays exactly 20 rounds.
    let game = g();
    let mut st = started(
        &game,
        2,
        &Options {
            rounds: Some(1),
            isthmus: false,
        },
    );
    assert_eq!(st.round, 1);
    for _ in 0..2 {
        let seat = st.current;
        st = apply(&game, &st, seat, Action::Roll);
        st = apply(&game, &st, seat, Action::EndMovement);
        st = apply(&game, &st, seat, Action::EndTurn);
    }
    assert!(game.status(&st).is_finished());
    let mut st = started(&game, 2, &Options::default());
    let mut turns = 0;
    while !game.status(&st).is_finished() {
        assert!(turns < 100, "the game did not end");
        let seat = st.current;
        st = apply(&game, &st, seat, Action::Roll);
        st = apply(&game, &st, seat, Action::EndMovement);
        let last_round = st.round;
        st = apply(&game, &st, seat, Action::EndTurn);
        turns += 1;
        if game.status(&st).is_finished() {
            assert_eq!(last_round, 20);
        }
    }
    assert_eq!(turns, 40, "20 rounds of two turns");
}

#[test]
fn hr_3_the_bank_has_unlimited_money() {
    // The bank holds no purse: in a real game it pays out more than all the money in play.
    // Two companies start with 100 each (200 in play); one sells its whole fleet for 225.
    let game = g();
    let mut st = started(&game, 2, &Options::default());
    let p = st.current;
    let q = 1 - p;
    let in_play: u32 = st.players.iter().map(|pl| pl.cash).sum();
    assert_eq!(in_play, 200);
    let fleet: Vec<u32> = st.ships_of(p).map(|s| s.id).collect();
    assert_eq!(fleet.len(), 3);
    for id in fleet {
        st = apply(&game, &st, p, Action::SellShip { ship: id });
    }
    assert_eq!(st.players[p].cash, 325);
    assert_eq!(st.players[q].cash, 100, "nobody else paid for it");
    let now: u32 = st.players.iter().map(|pl| pl.cash).sum();
    assert!(
        now - in_play > in_play,
        "the bank paid more than all money in play"
    );
    // The bank also keeps paying the other company, turn after turn.
    st = apply(&game, &st, p, Action::Roll);
    st = apply(&game, &st, p, Action::EndMovement);
    st = apply(&game, &st, p, Action::EndTurn);
    assert_eq!(st.current, q);
    let fleet: Vec<u32> = st.ships_of(q).map(|s| s.id).collect();
    for id in fleet {
        st = apply(&game, &st, q, Action::SellShip { ship: id });
    }
    assert_eq!(st.players[q].cash, 325);
}

#[test]
fn hr_4_duty_goes_to_the_fort_owner() {
    let game = g();
    let mut st = blank(&game, 2);
    st.forts[port(&game, "CAN")] = Some(1);
    let id = ship_at(&game, &mut st, 0, "CAN");
    let st = apply(
        &game,
        &st,
        0,
        Action::BuyGood {
            ship: id,
            good: "tea".into(),
        },
    );
    assert_eq!(st.players[0].cash, 1000 - 30 - 10);
    assert_eq!(st.players[1].cash, 1010);
}

#[test]
fn hr_5_hazards_once_per_field_per_turn_and_doldrums_skip_a_move() {
    let game = g();
    // Back and forth over the tailwind: only the first entry counts.
    let mut st = blank(&game, 2);
    let id = ship_at(&game, &mut st, 0, "L14:2");
    moving(&mut st, 6);
    st = apply(&game, &st, 0, sail(id, "L14:3"));
    assert_eq!(st.ship(id).unwrap().remaining, 8);
    st = apply(&game, &st, 0, sail(id, "L14:2"));
    st = apply(&game, &st, 0, sail(id, "L14:3"));
    assert_eq!(st.ship(id).unwrap().remaining, 6);
    // A becalmed ship cannot move in its owner's next turn, then recovers.
    let (mut st, id) = hazard_run(&game, "L19:4", "L19:6", &[7], 5);
    st = apply(&game, &st, 0, Action::EndMovement);
    st = apply(&game, &st, 0, Action::EndTurn);
    let seat = st.current;
    assert_eq!(seat, 1);
    st.ships.retain(|s| s.owner != 1);
    ship_at(&game, &mut st, 1, "LON");
    st = apply(&game, &st, 1, Action::Roll);
    st = apply(&game, &st, 1, Action::EndMovement);
    st = apply(&game, &st, 1, Action::EndTurn);
    assert!(st.ship(id).unwrap().stuck);
    st = apply(&game, &st, 0, Action::Roll);
    assert_eq!(st.ship(id).unwrap().remaining, 0);
    assert!(!game.legal_actions(&st, 0).contains(&sail(id, "L19:6")));
    st = apply(&game, &st, 0, Action::EndMovement);
    st = apply(&game, &st, 0, Action::EndTurn);
    st = apply(&game, &st, 1, Action::Roll);
    st = apply(&game, &st, 1, Action::EndMovement);
    st = apply(&game, &st, 1, Action::EndTurn);
    assert!(!st.ship(id).unwrap().stuck);
    st = apply(&game, &st, 0, Action::Roll);
    assert!(st.ship(id).unwrap().remaining > 0);
    // The field a ship starts its turn on does not trigger, even when it comes back to it.
    let mut st = blank(&game, 2);
    let id = ship_at(&game, &mut st, 0, "L14:3");
    st.current = 1;
    st.phase = Phase::After;
    st.first = 0;
    ship_at(&game, &mut st, 1, "LON");
    st = apply(&game, &st, 1, Action::EndTurn);
    assert_eq!(st.current, 0);
    st.rng = rigged3(6);
    st = apply(&game, &st, 0, Action::Roll);
    let r = st.ship(id).unwrap().remaining;
    st = apply(&game, &st, 0, sail(id, "L14:2"));
    st = apply(&game, &st, 0, sail(id, "L14:3"));
    assert_eq!(st.ship(id).unwrap().remaining, r - 2);
}

#[test]
fn hr_6_home_cities_chosen_in_roll_order() {
    let game = g();
    for seed in 0..20 {
        let st = game
            .setup(&Options::default(), 4, GameRng::seed_from_u64(seed))
            .unwrap();
        let first_rolls: Vec<u32> = st
            .home_order
            .iter()
            .map(|&s| st.players[s].home_roll[0])
            .collect();
        assert!(
            first_rolls.windows(2).all(|w| w[0] >= w[1]),
            "{first_rolls:?}"
        );
        let chooser = rules::home_chooser(&st).unwrap();
        assert_eq!(chooser, st.home_order[0]);
        let legal = game.legal_actions(&st, chooser);
        assert_eq!(legal.len(), 4);
        let other = (chooser + 1) % 4;
        assert!(game.legal_actions(&st, other).is_empty());
    }
    let st = started(&game, 3, &Options::default());
    assert_eq!(st.current, st.home_order[0], "the first chooser starts");
    let homes: Vec<usize> = st.players.iter().map(|p| p.home.unwrap()).collect();
    assert!(homes.iter().all(|h| board(&game).home_cities.contains(h)));
    assert_eq!(st.ships.len(), 9);
}

#[test]
fn hr_7_one_fort_per_port() {
    let game = g();
    let mut st = blank(&game, 2);
    st.forts[port(&game, "BAT")] = Some(1);
    ship_at(&game, &mut st, 0, "BAT");
    assert_eq!(
        refused(&game, &st, 0, Action::BuyFort { port: "BAT".into() }),
        "fort_taken"
    );
    st.forts[port(&game, "BAT")] = None;
    let st = apply(&game, &st, 0, Action::BuyFort { port: "BAT".into() });
    assert_eq!(st.forts[port(&game, "BAT")], Some(0));
    assert_eq!(st.players[0].cash, 900);
}

#[test]
fn hr_8_field_count_is_fields_moved_with_cargo_tailwind_included() {
    let game = g();
    let mut st = blank(&game, 2);
    let id = ship_at(&game, &mut st, 0, "L14:1");
    load(&game, &mut st, id, "sugar", 20, "HAV", 0);
    moving(&mut st, 2);
    // Two steps reach the tailwind at L14:3, which gives 3 more: all 5 fields count.
    st = apply(&game, &st, 0, sail(id, "L14:3"));
    assert_eq!(st.ship(id).unwrap().remaining, 3);
    st = apply(&game, &st, 0, sail(id, "J_ATL"));
    let s = st.ship(id).unwrap();
    assert_eq!(s.cargo.as_ref().unwrap().fields, 5);
    assert_eq!(s.sailed, 5);
}

#[test]
fn hr_9_no_sale_in_the_port_of_purchase() {
    let game = g();
    let mut st = blank(&game, 2);
    st.phase = Phase::After;
    let id = ship_at(&game, &mut st, 0, "ALX");
    // Contrived: a token bought at ALX coming back there (ALX sells spice).
    load(&game, &mut st, id, "spice", 30, "ALX", 40);
    assert_eq!(
        refused(&game, &st, 0, Action::SellGood { ship: id }),
        "same_port"
    );
    assert!(
        !game
            .legal_actions(&st, 0)
            .contains(&Action::SellGood { ship: id })
    );
}

#[test]
fn hr_10_one_attack_per_field_and_four_column() {
    let game = g();
    let mut st = blank(&game, 2);
    let ids: Vec<u32> = (0..2)
        .map(|_| ship_at(&game, &mut st, 0, "L09:2"))
        .collect();
    let extra = ship_at(&game, &mut st, 0, "L09:2");
    for &i in ids.iter().chain([extra].iter()) {
        privateer(&mut st, i);
    }
    ship_at(&game, &mut st, 1, "L09:2");
    moving(&mut st, 10);
    st.rng = rigged(&[6]);
    let st = apply(
        &game,
        &st,
        0,
        Action::Attack {
            defender: 1,
            ships: ids,
        },
    );
    assert_eq!(
        refused(
            &game,
            &st,
            0,
            Action::Attack {
                defender: 1,
                ships: vec![extra]
            }
        ),
        "already_attacked"
    );
    // Four or more attackers use the 4+ column: a 3 is a draw for four privateers (only a
    // 2 loses) but a loss for three, and five privateers capture on a 7.
    for (n, roll, lost, captured) in [
        (4, 3, false, false),
        (3, 3, true, false),
        (5, 7, false, true),
    ] {
        let mut st = blank(&game, 2);
        let ids: Vec<u32> = (0..n)
            .map(|_| ship_at(&game, &mut st, 0, "L09:2"))
            .collect();
        for &i in &ids {
            privateer(&mut st, i);
        }
        let m = ship_at(&game, &mut st, 1, "L09:2");
        moving(&mut st, 10);
        st.rng = rigged(&[roll]);
        let st = apply(
            &game,
            &st,
            0,
            Action::Attack {
                defender: 1,
                ships: ids,
            },
        );
        let what = format!("{n} privateers, roll {roll}");
        assert_eq!(
            matches!(st.pending, Some(Pending::ChooseLoss { .. })),
            lost,
            "{what}"
        );
        assert_eq!(st.ship(m).map(|s| s.owner) == Some(0), captured, "{what}");
    }
}

#[test]
fn hr_11_captures_keep_cargo_and_limits_sink_or_raze() {
    let game = g();
    let mut base = blank(&game, 2);
    let a = ship_at(&game, &mut base, 0, "L09:2");
    privateer(&mut base, a);
    let m = ship_at(&game, &mut base, 1, "L09:2");
    load(&game, &mut base, m, "spice", 40, "BOM", 17);
    moving(&mut base, 10);
    let mut st = base.clone();
    st.rng = rigged(&[11]);
    let st = apply(
        &game,
        &st,
        0,
        Action::Attack {
            defender: 1,
            ships: vec![a],
        },
    );
    let s = st.ship(m).unwrap();
    assert_eq!((s.owner, s.privateer), (0, false));
    let t = s.cargo.clone().unwrap();
    assert_eq!((t.price, t.fields), (40, 17));
    // With six ships already the capture is sunk.
    let mut full = base.clone();
    for _ in 0..5 {
        ship_at(&game, &mut full, 0, "LON");
    }
    full.rng = rigged(&[11]);
    let st = apply(
        &game,
        &full,
        0,
        Action::Attack {
            defender: 1,
            ships: vec![a],
        },
    );
    assert!(st.ship(m).is_none());
    // A fort over the limit is razed.
    let mut fort = blank(&game, 2);
    let a = ship_at(&game, &mut fort, 0, "BAT");
    privateer(&mut fort, a);
    fort.forts[port(&game, "BAT")] = Some(1);
    for p in ["CPH", "AMS", "LON", "LIS", "ALX", "SUZ"] {
        fort.forts[port(&game, p)] = Some(0);
    }
    moving(&mut fort, 10);
    fort.rng = rigged(&[11]);
    let st = apply(
        &game,
        &fort,
        0,
        Action::Attack {
            defender: 1,
            ships: vec![a],
        },
    );
    assert_eq!(st.forts[port(&game, "BAT")], None);
}

#[test]
fn hr_12_a_chance_card_is_turned_each_round() {
    let game = g();
    let mut st = started(&game, 2, &Options::default());
    assert_eq!((st.round, st.turned.len(), st.deck.len()), (1, 1, 27));
    for _ in 0..2 {
        let seat = st.current;
        st = apply(&game, &st, seat, Action::Roll);
        st = apply(&game, &st, seat, Action::EndMovement);
        st = apply(&game, &st, seat, Action::EndTurn);
    }
    assert_eq!((st.round, st.turned.len(), st.deck.len()), (2, 2, 26));
    // An empty deck is reshuffled with all 28 cards, and unclaimed arrivals end.
    let mut st2 = st.clone();
    st2.deck.clear();
    st2.arrivals = vec![0];
    for _ in 0..2 {
        let seat = st2.current;
        st2 = apply(&game, &st2, seat, Action::Roll);
        st2 = apply(&game, &st2, seat, Action::EndMovement);
        st2 = apply(&game, &st2, seat, Action::EndTurn);
    }
    assert_eq!(st2.deck.len(), 27);
    assert!(!st2.arrivals.contains(&0) || st2.active_card == Some(0));
}

#[test]
fn hr_13_a_player_who_cannot_replace_the_fleet_is_out_but_forts_count() {
    let game = g();
    let mut st = blank(&game, 3);
    ship_at(&game, &mut st, 0, "LON");
    ship_at(&game, &mut st, 2, "LIS");
    st.players[1].cash = 50;
    st.forts[port(&game, "BAT")] = Some(1);
    st.phase = Phase::After;
    st.current = 0;
    st.first = 0;
    let st = apply(&game, &st, 0, Action::EndTurn);
    assert!(st.players[1].out);
    assert_eq!(st.current, 2);
    assert_eq!(rules::fortune(board(&game), &st, 1), 150);
    assert!(game.legal_actions(&st, 1).is_empty());
    // With enough cash the ship is bought instead.
    let mut st = blank(&game, 3);
    ship_at(&game, &mut st, 0, "LON");
    ship_at(&game, &mut st, 2, "LIS");
    st.phase = Phase::After;
    st.first = 0;
    let st = apply(&game, &st, 0, Action::EndTurn);
    assert!(!st.players[1].out);
    assert_eq!((st.ship_count(1), st.players[1].cash), (1, 900));
}

#[test]
fn hr_13_last_company_with_ships_wins_at_once() {
    let game = g();
    let mut st = blank(&game, 2);
    ship_at(&game, &mut st, 0, "LON");
    st.players[1].cash = 0;
    st.phase = Phase::After;
    st.first = 0;
    let st = apply(&game, &st, 0, Action::EndTurn);
    let Status::Finished(o) = game.status(&st) else {
        panic!("not finished")
    };
    assert_eq!(o.winners(), vec![0]);
}

#[test]
fn hr_14_isthmus_transfers_pay_no_duty_and_pan_has_no_fort() {
    let game = g();
    let mut st = isthmus_state(&game);
    let a = ship_at(&game, &mut st, 0, "PBL");
    load(&game, &mut st, a, "sugar", 20, "HAV", 12);
    st.forts[port(&game, "PBL")] = Some(1);
    let d = apply(&game, &st, 0, Action::TransshipDrop { ship: a });
    // Toll 10 to the PBL fort owner, and no 10 duty on top.
    assert_eq!((d.players[0].cash, d.players[1].cash), (990, 1010));
    ship_at(&game, &mut st, 0, "PAN");
    assert_eq!(
        refused(&game, &st, 0, Action::BuyFort { port: "PAN".into() }),
        "no_fort_here"
    );
}

#[test]
fn hr_15_only_the_active_player_makes_offers_and_answers_never_block() {
    let game = g();
    let mut st = started(&game, 3, &Options::default());
    let p = st.current;
    let q = (p + 1) % 3;
    let r = (p + 2) % 3;
    let offer = Action::Offer {
        to: q,
        give: Bundle {
            cash: 50,
            ..Bundle::default()
        },
        get: Bundle::default(),
    };
    assert_eq!(
        refused(
            &game,
            &st,
            r,
            Action::Offer {
                to: q,
                give: Bundle {
                    cash: 10,
                    ..Bundle::default()
                },
                get: Bundle::default()
            }
        ),
        "not_your_turn"
    );
    assert!(game.legal_actions(&st, p).contains(&offer));
    st = apply(&game, &st, p, offer);
    // q is not to act, but may answer; the game goes on meanwhile.
    assert_eq!(game.status(&st).to_act(), &[p]);
    let id = st.offers[0].id;
    assert!(
        game.legal_actions(&st, q)
            .contains(&Action::Accept { offer: id })
    );
    st = apply(&game, &st, p, Action::Roll);
    st = apply(&game, &st, p, Action::EndMovement);
    let cash_q = st.players[q].cash;
    st = apply(&game, &st, q, Action::Accept { offer: id });
    assert_eq!(st.players[q].cash, cash_q + 50);
    assert!(st.events.iter().any(|e| e.contains("accepts")));
    assert_eq!(
        refused(&game, &st, q, Action::Accept { offer: id }),
        "no_such_offer"
    );
}

#[test]
fn hr_16_fortune_ties_go_to_cash_then_are_shared() {
    let game = g();
    let mut st = blank(&game, 3);
    // Equal fortunes 300: seat 0 all cash, seat 1 cash 200 + ship, seat 2 all cash.
    st.players[0].cash = 300;
    st.players[1].cash = 200;
    ship_at(&game, &mut st, 1, "LON");
    st.players[2].cash = 300;
    st.phase = Phase::Over;
    let Status::Finished(o) = game.status(&st) else {
        panic!()
    };
    let rank = |s: usize| o.ranking.iter().find(|p| p.seat == s).unwrap().rank;
    assert_eq!((rank(0), rank(2), rank(1)), (1, 1, 3));
    assert_eq!(o.winners(), vec![0, 2]);
}

// ------------------------------------------------------------------ other edge cases

#[test]
fn deals_move_ships_forts_and_check_limits() {
    let game = g();
    let mut st = blank(&game, 2);
    let s0 = ship_at(&game, &mut st, 0, "LON");
    let s1 = ship_at(&game, &mut st, 1, "BAT");
    st.forts[port(&game, "BAT")] = Some(1);
    let offer = Action::Offer {
        to: 1,
        give: Bundle {
            cash: 120,
            ships: vec![s0],
            forts: vec![],
            depot: vec![],
        },
        get: Bundle {
            cash: 0,
            ships: vec![s1],
            forts: vec!["BAT".into()],
            depot: vec![],
        },
    };
    st = apply(&game, &st, 0, offer);
    let id = st.offers[0].id;
    let done = apply(&game, &st, 1, Action::Accept { offer: id });
    assert_eq!(done.ship(s0).unwrap().owner, 1);
    assert_eq!(done.ship(s1).unwrap().owner, 0);
    assert_eq!(done.forts[port(&game, "BAT")], Some(0));
    assert_eq!((done.players[0].cash, done.players[1].cash), (880, 1120));
    // If an item changed hands meanwhile, acceptance is refused (and not listed).
    let mut gone = st.clone();
    gone.forts[port(&game, "BAT")] = None;
    assert!(
        !game
            .legal_actions(&gone, 1)
            .contains(&Action::Accept { offer: id })
    );
    assert_eq!(
        refused(&game, &gone, 1, Action::Accept { offer: id }),
        "bad_offer"
    );
    // Offers lapse when the offerer's next turn begins.
    let mut lapse = st.clone();
    ship_at(&game, &mut lapse, 0, "LON");
    lapse.phase = Phase::After;
    lapse = apply(&game, &lapse, 0, Action::EndTurn);
    lapse = apply(&game, &lapse, 1, Action::Roll);
    lapse = apply(&game, &lapse, 1, Action::EndMovement);
    assert_eq!(lapse.offers.len(), 1);
    lapse = apply(&game, &lapse, 1, Action::EndTurn);
    assert!(lapse.offers.is_empty());
}

#[test]
fn deals_can_hand_over_depot_loads() {
    let game = g();
    let mut st = isthmus_state(&game);
    let a = ship_at(&game, &mut st, 0, "SUZ");
    load(&game, &mut st, a, "coffee", 30, "BAT", 20);
    st = apply(&game, &st, 0, Action::TransshipDrop { ship: a });
    let load_id = st.players[0].depot[0].id;
    let offer = Action::Offer {
        to: 1,
        give: Bundle {
            depot: vec![load_id],
            ..Bundle::default()
        },
        get: Bundle {
            cash: 60,
            ..Bundle::default()
        },
    };
    st = apply(&game, &st, 0, offer);
    let id = st.offers[0].id;
    let st = apply(&game, &st, 1, Action::Accept { offer: id });
    assert!(st.players[0].depot.is_empty());
    assert_eq!(st.players[1].depot[0].id, load_id);
    assert_eq!(st.players[1].depot[0].token.fields, 20);
    assert_eq!(rules::fortune(board(&game), &st, 1), 1000 - 60 + 30);
}

/// The state after turning chance card `id` at the start of the next round.
fn turn(game: &Fuldrigger, mut st: State, id: &str) -> State {
    let c = board(game).cards.iter().position(|c| c.id == id).unwrap();
    st.deck = vec![c];
    rules::turn_card(board(game), &mut st);
    assert_eq!(st.active_card, Some(c));
    st
}

#[test]
fn chance_cards_take_effect() {
    let game = g();
    let b = board(&game);
    let mut st = blank(&game, 2);
    let at_sea = ship_at(&game, &mut st, 0, "L14:1");
    let in_port = ship_at(&game, &mut st, 0, "HAV");
    let indian = ship_at(&game, &mut st, 1, "L28:3");
    load(&game, &mut st, indian, "tea", 30, "CAN", 5);
    st.forts[port(&game, "BAT")] = Some(0);
    st.forts[port(&game, "CAN")] = Some(0);
    st.players[1].cash = 0;
    // C19: ships at sea in the North Atlantic roll as for a storm (port ships do not).
    let mut s = st.clone();
    s.rng = rigged(&[2]);
    let s = turn(&game, s, "C19");
    assert!(s.ship(at_sea).is_none() && s.ship(in_port).is_some() && s.ship(indian).is_some());
    // C21: merchants at sea in the Caribbean roll for pirates.
    let mut s = st.clone();
    let carib = ship_at(&game, &mut s, 1, "L16:2");
    load(&game, &mut s, carib, "sugar", 20, "HAV", 3);
    s.rng = rigged(&[4]);
    let s = turn(&game, s, "C21");
    assert!(s.ship(carib).unwrap().cargo.is_none());
    // C22: 10 per fort; C23: 10 per ship; C24: the lowest fortune gets 100.
    let s = turn(&game, st.clone(), "C22");
    assert_eq!(s.players[0].cash, 980);
    let s = turn(&game, st.clone(), "C23");
    assert_eq!((s.players[0].cash, s.players[1].cash), (1020, 10));
    let s = turn(&game, st.clone(), "C24");
    assert_eq!((s.players[0].cash, s.players[1].cash), (1000, 100));
    // C28: tea spoils.
    let s = turn(&game, st.clone(), "C28");
    assert!(s.ship(indian).unwrap().cargo.is_none());
    // C17 / C18 change the movement roll; C25 the ship price.
    let s = turn(&game, st.clone(), "C17");
    assert_eq!(rules::allowance(b, &s, 10), 13);
    let s = turn(&game, st.clone(), "C18");
    assert_eq!(rules::allowance(b, &s, 11), 6);
    let s = turn(&game, st.clone(), "C25");
    assert_eq!(rules::ship_price(b, &s), 80);
    // C26: no attacks; C27: +1 on attack rolls (a 9 with one privateer captures).
    let mut war = blank(&game, 2);
    let p = ship_at(&game, &mut war, 0, "L09:2");
    privateer(&mut war, p);
    let m = ship_at(&game, &mut war, 1, "L09:2");
    moving(&mut war, 5);
    let peace = turn(&game, war.clone(), "C26");
    let attack = Action::Attack {
        defender: 1,
        ships: vec![p],
    };
    assert_eq!(refused(&game, &peace, 0, attack.clone()), "peace_treaty");
    let mut marque = turn(&game, war.clone(), "C27");
    marque.rng = rigged(&[9]);
    let won = apply(&game, &marque, 0, attack);
    assert_eq!(won.ship(m).unwrap().owner, 0);
}

#[test]
fn ships_bought_before_the_roll_move_and_ships_that_left_port_cannot_trade() {
    let game = g();
    let mut st = blank(&game, 2);
    let home = board(&game).ports[st.players[0].home.unwrap()].id.clone();
    st = apply(&game, &st, 0, Action::BuyShip);
    let id = st.ships.last().unwrap().id;
    assert_eq!(st.players[0].cash, 900);
    st.rng = rigged3(10);
    st = apply(&game, &st, 0, Action::Roll);
    assert!(st.ship(id).unwrap().remaining > 0);
    // Sail out and back into the home port: the ship left port, so it cannot trade.
    let first_field = game
        .legal_actions(&st, 0)
        .into_iter()
        .find_map(|a| match a {
            Action::Sail { ship, to } if ship == id => Some(to),
            _ => None,
        })
        .unwrap();
    st = apply(&game, &st, 0, sail(id, &first_field));
    st = apply(&game, &st, 0, sail(id, &home));
    st = apply(&game, &st, 0, Action::EndMovement);
    assert!(st.ship(id).unwrap().left_port);
    assert_eq!(
        refused(
            &game,
            &st,
            0,
            Action::BuyGood {
                ship: id,
                good: "timber".into()
            }
        ),
        "left_port"
    );
    // A ship bought after movement stays put this turn.
    let st = apply(&game, &st, 0, Action::BuyShip);
    assert!(st.ships.last().unwrap().done);
}

#[test]
fn supply_limit_sell_back_and_protected_targets() {
    let game = g();
    let mut st = blank(&game, 2);
    st.phase = Phase::After;
    let buyer = ship_at(&game, &mut st, 0, "CAN");
    for _ in 0..12 {
        let s = ship_at(&game, &mut st, 1, "L35:1");
        load(&game, &mut st, s, "tea", 30, "CAN", 1);
    }
    assert_eq!(
        refused(
            &game,
            &st,
            0,
            Action::BuyGood {
                ship: buyer,
                good: "tea".into()
            }
        ),
        "no_supply"
    );
    // Selling a laden ship back returns its token to the supply and pays 75.
    let laden = st.ships.iter().find(|s| s.owner == 1).unwrap().id;
    st.ship_mut(laden).unwrap().at = node(&game, "CAN");
    st.current = 1;
    let sold = apply(&game, &st, 1, Action::SellShip { ship: laden });
    assert_eq!(sold.players[1].cash, 1075);
    assert_eq!(rules::tokens_in_play(&sold, good(&game, "tea")), 11);
    // Ships in a port without the defender's fort cannot be attacked.
    let mut war = blank(&game, 2);
    let p = ship_at(&game, &mut war, 0, "HAV");
    privateer(&mut war, p);
    ship_at(&game, &mut war, 1, "HAV");
    moving(&mut war, 5);
    assert_eq!(
        refused(
            &game,
            &war,
            0,
            Action::Attack {
                defender: 1,
                ships: vec![p]
            }
        ),
        "no_target"
    );
    // Privateers ignore pirates: no roll is made.
    let mut sea = blank(&game, 2);
    let p = ship_at(&game, &mut sea, 0, "L34:1");
    privateer(&mut sea, p);
    moving(&mut sea, 5);
    let before = sea.rng.clone();
    let after = apply(&game, &sea, 0, sail(p, "L34:3"));
    assert_eq!(after.rng, before);
    assert_eq!(after.ship(p).unwrap().at, node(&game, "L34:3"));
}

#[test]
fn first_arrival_card_pays_the_first_ship_in() {
    let game = g();
    let mut st = blank(&game, 2);
    let c01 = board(&game)
        .cards
        .iter()
        .position(|c| c.id == "C01")
        .unwrap();
    st.arrivals = vec![c01];
    let id = ship_at(&game, &mut st, 0, "L35:3");
    moving(&mut st, 5);
    st.rng = rigged(&[7]);
    let st = apply(&game, &st, 0, sail(id, "CAN"));
    assert_eq!(st.players[0].cash, 1100);
    assert!(st.arrivals.is_empty());
}

#[test]
fn hostile_actions_are_refused_without_panic() {
    let game = g();
    let st = started(&game, 2, &Options::default());
    let p = st.current;
    let bad = [
        sail(u32::MAX, "LON"),
        sail(1, "nowhere"),
        sail(1, ""),
        Action::Attack {
            defender: usize::MAX,
            ships: vec![],
        },
        Action::Attack {
            defender: 1 - p,
            ships: vec![1, 1],
        },
        Action::BuyGood {
            ship: 1,
            good: "gold".into(),
        },
        Action::BuyFort { port: "XXX".into() },
        Action::TransshipPickup {
            ship: 1,
            load: u32::MAX,
        },
        Action::Offer {
            to: usize::MAX,
            give: Bundle::default(),
            get: Bundle::default(),
        },
        Action::Offer {
            to: 1 - p,
            give: Bundle {
                cash: u32::MAX,
                ..Bundle::default()
            },
            get: Bundle::default(),
        },
        Action::Offer {
            to: 1 - p,
            give: Bundle::default(),
            get: Bundle {
                forts: vec!["??".into()],
                ..Bundle::default()
            },
        },
        Action::Accept { offer: 99 },
        Action::ChooseLoss { ship: 3 },
        Action::CaptureFort,
        Action::ChooseHome { port: "LON".into() },
        Action::EndTurn,
    ];
    for a in bad {
        assert!(game.apply(&st, p, &a).is_err(), "{a:?}");
    }
    assert!(game.apply(&st, 99, &Action::Roll).is_err());
    assert_eq!(refused(&game, &st, 1 - p, Action::Roll), "not_your_turn");
}

#[test]
fn closed_port_and_price_cards_apply_this_round() {
    let game = g();
    let b = board(&game);
    let mut st = blank(&game, 2);
    st.phase = Phase::After;
    let id = ship_at(&game, &mut st, 0, "LON");
    load(&game, &mut st, id, "tea", 30, "CAN", 20);
    st.active_card = b.cards.iter().position(|c| c.id == "C15");
    assert_eq!(
        refused(&game, &st, 0, Action::SellGood { ship: id }),
        "port_closed"
    );
    st.active_card = b.cards.iter().position(|c| c.id == "C10");
    let sold = apply(&game, &st, 0, Action::SellGood { ship: id });
    assert_eq!(sold.players[0].cash, 1170);
}

// ------------------------------------------------------------------ hidden information

#[test]
fn leak_deck_order_is_in_no_view_or_text() {
    let game = g();
    let st = started(&game, 3, &Options::default());
    let b = board(&game);
    let next_card = &b.cards[*st.deck.last().unwrap()];
    for v in [
        Viewer::Seat(0),
        Viewer::Seat(1),
        Viewer::Seat(2),
        Viewer::Spectator,
    ] {
        let json = serde_json::to_string(&game.view(&st, v)).unwrap();
        let text = game.render_text(&st, v);
        assert!(
            !json.contains(&next_card.text) && !json.contains(&format!("\"{}\"", next_card.id))
        );
        assert!(!text.contains(&next_card.text));
        assert!(!json.contains("\"deck\""));
    }
}

#[test]
fn leak_offer_terms_only_reach_the_two_parties() {
    let game = g();
    let mut st = started(&game, 3, &Options::default());
    let p = st.current;
    let q = (p + 1) % 3;
    let r = (p + 2) % 3;
    let offer = Action::Offer {
        to: q,
        give: Bundle {
            cash: 77,
            ..Bundle::default()
        },
        get: Bundle::default(),
    };
    match game.action_visibility(&st, p, &offer) {
        Visibility::Private {
            seen_by,
            public_form,
        } => {
            assert!(seen_by.contains(&p) && seen_by.contains(&q) && !seen_by.contains(&r));
            assert!(!public_form.to_string().contains("77"));
        }
        Visibility::Public => panic!("offer terms must be private"),
    }
    st = apply(&game, &st, p, offer);
    for (v, sees) in [
        (Viewer::Seat(p), true),
        (Viewer::Seat(q), true),
        (Viewer::Seat(r), false),
        (Viewer::Spectator, false),
    ] {
        let json = serde_json::to_string(&game.view(&st, v)).unwrap();
        let text = game.render_text(&st, v);
        assert_eq!(json.contains("\"cash\":77"), sees, "{v:?}");
        assert_eq!(text.contains("77 ducats"), sees, "{v:?}");
    }
}

// ------------------------------------------------------------------ contract

mod contract {
    use super::*;
    use turnpost_engine::harness::{PlayoutConfig, assert_resample_covers, check_many};

    /// State fields everyone sees. Everything else (the chance deck order, the RNG, and the
    /// terms of offers a viewer is not party to) must be varied by `resample_hidden`.
    const PUBLIC: &[&str] = &[
        "rules_version",
        "seats",
        "isthmus",
        "rounds",
        // Cash, home, known reefs, depots, home-city rolls: all on the open table.
        "players",
        // Ships with position, cargo, purchase price, privateer marker and turn flags.
        "ships",
        "next_ship",
        "forts",
        "home_order",
        "first",
        "round",
        "current",
        "phase",
        "roll",
        "dice",
        // Cards already turned (the deck's content follows from them; its order does not).
        "turned",
        "active_card",
        "arrivals",
        "sales",
        "attacked_fields",
        "moving",
        "pending",
        // That an offer exists between two seats is public (its log entry is); its terms
        // (`give`, `get`) are not.
        "offers[].id",
        "offers[].from",
        "offers[].to",
        "next_offer",
        "next_load",
        "early_winner",
        "events",
    ];

    fn cfg(deep: usize) -> PlayoutConfig {
        PlayoutConfig {
            deep_every: deep,
            ..PlayoutConfig::default()
        }
    }

    fn run(seats: usize, options: Options, count: usize, seed: u64, deep: usize) {
        let game = Fuldrigger::new();
        let s = check_many(&game, &options, seats, count, seed, &cfg(deep));
        assert!(s.views_checked > 0);
        assert!(
            s.private_log_entries > 0,
            "offers were made and logged privately"
        );
        assert!(s.resamples_that_changed_state > 0);
        assert!(s.invariant_checks > s.actions, "the invariants ran");
        assert_resample_covers(&s, PUBLIC);
    }

    /// Fuldrigger whose view names the seat in turn (`current`) as the one to act, as a
    /// view of its own making could: wrong once the game is over, when
    /// `status` waits for nobody.
    struct CurrentAsToAct(Fuldrigger);

    impl Game for CurrentAsToAct {
        type Options = Options;
        type State = State;
        type Action = Action;
        type View = render::View;

        fn info(&self) -> turnpost_engine::GameInfo {
            self.0.info()
        }
        fn setup(
            &self,
            o: &Options,
            seats: usize,
            rng: GameRng,
        ) -> Result<State, turnpost_engine::SetupError> {
            self.0.setup(o, seats, rng)
        }
        fn status(&self, st: &State) -> Status {
            self.0.status(st)
        }
        fn legal_actions(&self, st: &State, seat: Seat) -> Vec<Action> {
            self.0.legal_actions(st, seat)
        }
        fn legal_actions_complete(&self) -> bool {
            self.0.legal_actions_complete()
        }
        fn apply(
            &self,
            st: &State,
            seat: Seat,
            a: &Action,
        ) -> Result<State, turnpost_engine::RuleError> {
            self.0.apply(st, seat, a)
        }
        fn view(&self, st: &State, viewer: Viewer) -> render::View {
            let mut v = self.0.view(st, viewer);
            v.common.to_act = vec![st.current];
            v
        }
        fn describe_action(&self, st: &State, seat: Seat, a: &Action) -> String {
            self.0.describe_action(st, seat, a)
        }
        fn render_text(&self, st: &State, viewer: Viewer) -> String {
            self.0.render_text(st, viewer)
        }
        fn resample_hidden(&self, st: &State, viewer: Viewer, rng: &mut GameRng) -> State {
            self.0.resample_hidden(st, viewer, rng)
        }
    }

    #[test]
    fn the_contract_catches_a_view_whose_to_act_is_not_the_rules() {
        let e = turnpost_engine::harness::check_playout(
            &CurrentAsToAct(Fuldrigger::new()),
            &Options::default(),
            3,
            1,
            &cfg(1),
        )
        .expect_err("a finished game waits for nobody, not for `current`");
        assert!(e.contains("`to_act`"), "{e}");
        // The game itself passes the same playout.
        assert!(
            turnpost_engine::harness::check_playout(
                &Fuldrigger::new(),
                &Options::default(),
                3,
                1,
                &cfg(1)
            )
            .is_ok()
        );
    }

    #[test]
    fn contract_deep_every_step() {
        run(2, Options::default(), 4, 1, 1);
        run(3, Options::default(), 4, 11, 1);
        run(4, Options::default(), 3, 21, 1);
        run(
            3,
            Options {
                rounds: None,
                isthmus: true,
            },
            3,
            31,
            1,
        );
    }

    #[test]
    fn contract_two_players() {
        run(2, Options::default(), 230, 1_000, 40);
    }

    #[test]
    fn contract_three_players() {
        run(3, Options::default(), 200, 2_000, 40);
    }

    #[test]
    fn contract_four_players() {
        run(4, Options::default(), 170, 3_000, 40);
    }

    #[test]
    fn contract_isthmus_variant() {
        run(
            3,
            Options {
                rounds: None,
                isthmus: true,
            },
            100,
            4_000,
            40,
        );
    }
}

#[test]
fn render_shows_ports_ships_forts_and_cash() {
    let game = g();
    let mut st = blank(&game, 2);
    st.players[0].cash = 123;
    let id = ship_at(&game, &mut st, 0, "L34:1");
    load(&game, &mut st, id, "spice", 30, "BAT", 4);
    st.ship_mut(id).unwrap().sailed = 17;
    st.forts[port(&game, "BAT")] = Some(1);
    let text = game.render_text(&st, Viewer::Spectator);
    assert!(text.contains("BAT Batavia         fort Blue"), "{text}");
    assert!(text.contains("spice 30, coffee 30"), "{text}");
    assert!(text.contains("cash   123"), "{text}");
    let ship_line = text
        .lines()
        .find(|l| l.contains(&format!("#{id} ")))
        .unwrap();
    assert!(
        ship_line.contains("Red")
            && ship_line.contains("field 1 of BAT–J_MAL")
            && ship_line.contains("spice (paid 30, from BAT, 4 fields)")
    );
    assert!(ship_line.contains("17 miles"));
    assert!(text.contains("L34    BAT Rp. J_MAL"), "{text}");
}

// ------------------------------------------------------------------ forced steps

/// One-choice steps are 2.3 % of decisions in random play (an `end_movement` with nothing
/// to sail, the last home city). Every step where a seat to act has a single listed choice
/// plays itself, except the roll and the end of the turn, before which offers the list
/// only samples may be made (HR-17).
#[test]
fn every_single_choice_outside_the_offer_phases_plays_itself() {
    let game = g();
    let (mut decisions, mut forced) = (0usize, 0usize);
    for seed in 0..12u64 {
        let p = turnpost_engine::harness::random_playout(
            &game,
            &Options::default(),
            2 + (seed as usize % 3),
            seed,
            4_000,
        )
        .expect("playout");
        let mut st = game
            .setup(
                &Options::default(),
                2 + (seed as usize % 3),
                GameRng::seed_from_u64(seed),
            )
            .unwrap();
        for (seat, a) in &p.log {
            if let Status::Active { to_act } = game.status(&st) {
                for &s in &to_act {
                    decisions += 1;
                    let legal = game.legal_actions(&st, s);
                    let offers_possible =
                        st.pending.is_none() && matches!(st.phase, Phase::Before | Phase::After);
                    if legal.len() == 1 && !offers_possible {
                        assert_eq!(
                            game.forced_action(&st, s).as_ref(),
                            legal.first(),
                            "seed {seed}: seat {s}'s only choice {:?} in {:?} is sent to the player",
                            legal[0],
                            st.phase
                        );
                        forced += 1;
                    }
                }
            }
            st = game.apply(&st, *seat, a).unwrap();
        }
    }
    assert!(decisions > 1_000, "{decisions}");
    assert!(forced > 0, "no single choice met in {decisions} decisions");
}

#[test]
fn a_deal_of_any_terms_can_be_written_out() {
    let game = g();
    let st = blank(&game, 3);
    let read = |text: &str| game.parse_notation(&st, 0, text);
    assert_eq!(
        read(&format!(
            "offer {} 70 ducats for nothing",
            rules::seat_name(0)
        )),
        Some(Ok(Action::Offer {
            to: 0,
            give: Bundle {
                cash: 70,
                ..Bundle::default()
            },
            get: Bundle::default(),
        }))
    );
    let colour = rules::seat_name(1);
    let Some(Ok(Action::Offer { to, give, get })) = read(&format!(
        "offer Bo ({colour}) 50 ducats + ship #7 for fort lon and depot load 2"
    )) else {
        panic!("a deal with a person's name beside the colour");
    };
    assert_eq!((to, give.cash, give.ships), (1, 50, vec![7]));
    assert_eq!((get.forts, get.depot), (vec!["LON".to_string()], vec![2]));
    assert!(matches!(
        read("offer Mauve 5 ducats for nothing"),
        Some(Err(_))
    ));
    assert!(
        matches!(read(&format!("offer {colour} 5 gold for nothing")), Some(Err(e)) if e.contains("ducats"))
    );
    assert_eq!(read("offered Red 5 ducats for nothing"), None);
    assert_eq!(read("accept offer #3"), None);
}
