//! The game's own invariants must be able to fail: each broken state or transition below
//! is refused.

use super::*;
use crate::fuldrigger::state::DepotToken;

fn ok_state(game: &Fuldrigger) -> State {
    let st = started(game, 3, &Options::default());
    assert_eq!(game.check_invariants(&st), Ok(()));
    st
}

/// The state is refused with an error mentioning `says`.
fn broken(game: &Fuldrigger, st: &State, what: &str, says: &str) {
    let e = game.check_invariants(st).expect_err(what);
    assert!(e.contains(says), "{what}: {e}");
}

#[test]
fn broken_states_are_refused() {
    let game = g();
    let st = ok_state(&game);

    let mut twice = st.clone();
    let dup = twice.ships[0].clone();
    twice.ships.push(dup);
    broken(&game, &twice, "a ship twice", "exists twice");

    let mut unissued = st.clone();
    unissued.ships[0].id = unissued.next_ship + 5;
    broken(&game, &unissued, "a ship id never issued", "never issued");

    let mut too_many = st.clone();
    let home = board(&game).ports[too_many.players[0].home.unwrap()]
        .id
        .clone();
    for _ in 0..4 {
        ship_at(&game, &mut too_many, 0, &home);
    }
    broken(&game, &too_many, "seven ships", "7 ships");

    // Nine tea loads on the nine ships and four in a depot: one more than the supply.
    let mut tea = st.clone();
    let ids: Vec<u32> = tea.ships.iter().map(|s| s.id).collect();
    for id in ids {
        load(&game, &mut tea, id, "tea", 30, "CAN", 0);
    }
    let token = tea.ships[0].cargo.clone().unwrap();
    for id in 0..3 {
        tea.players[1].depot.push(DepotToken {
            id,
            isthmus: 0,
            dropped_at: port(&game, "SUZ"),
            token: token.clone(),
        });
    }
    assert_eq!(game.check_invariants(&tea), Ok(()), "twelve are fine");
    tea.players[1].depot.push(DepotToken {
        id: 3,
        isthmus: 0,
        dropped_at: port(&game, "SUZ"),
        token,
    });
    broken(&game, &tea, "thirteen tea tokens", "tokens of tea");

    let mut armed = st.clone();
    let id = armed.ships[0].id;
    load(&game, &mut armed, id, "tea", 30, "CAN", 0);
    assert_eq!(game.check_invariants(&armed), Ok(()));
    armed.ship_mut(id).unwrap().privateer = true;
    broken(&game, &armed, "a privateer with cargo", "carries cargo");

    let mut cheap = st.clone();
    load(&game, &mut cheap, id, "tea", 5, "CAN", 0);
    broken(
        &game,
        &cheap,
        "tea bought at a price CAN does not ask",
        "records price 5",
    );

    let mut odd_price = st.clone();
    odd_price.ships[0].paid = Some(55);
    broken(&game, &odd_price, "a ship bought at 55", "impossible price");

    let mut out = st.clone();
    out.players[0].out = true;
    broken(&game, &out, "an out player with ships", "is out");

    let mut fort = st.clone();
    fort.forts[0] = Some(9);
    broken(&game, &fort, "a fort of seat 9", "seat 9");
}

#[test]
fn broken_transitions_are_refused() {
    let game = g();
    let mut st = blank(&game, 2);
    st.active_card = board(&game).cards.iter().position(|c| c.id == "C25");
    let after = apply(&game, &st, 0, Action::BuyShip);
    assert_eq!(game.check_step(&st, 0, &Action::BuyShip, &after), Ok(()));
    // A ship bought at 80 counted at 100 would make 20 ducats from nothing.
    let mut bug = after.clone();
    bug.ships[0].paid = None;
    assert!(game.check_step(&st, 0, &Action::BuyShip, &bug).is_err());
    // A version-1 game has that rule, and keeps it.
    let mut v1 = st.clone();
    v1.rules_version = 1;
    let v1_after = apply(&game, &v1, 0, Action::BuyShip);
    assert_eq!(game.check_step(&v1, 0, &Action::BuyShip, &v1_after), Ok(()));

    // A deal that creates money, and a decline that moves it.
    let accept = Action::Accept { offer: 1 };
    let mut richer = st.clone();
    richer.players[1].cash += 50;
    assert!(game.check_step(&st, 1, &accept, &richer).is_err());
    assert!(
        game.check_step(&st, 1, &Action::Decline { offer: 1 }, &richer)
            .is_err()
    );
    // A sunk ship that comes back.
    let mut with_ship = st.clone();
    let id = ship_at(&game, &mut with_ship, 0, "LON");
    let mut sunk = with_ship.clone();
    sunk.remove_ship(id);
    assert_eq!(
        game.check_step(&with_ship, 0, &Action::EndMovement, &sunk),
        Ok(())
    );
    assert!(
        game.check_step(&sunk, 0, &Action::EndMovement, &with_ship)
            .is_err()
    );
    // A goods token out of nowhere.
    let mut laden = with_ship.clone();
    load(&game, &mut laden, id, "timber", 30, "LON", 0);
    assert!(
        game.check_step(&with_ship, 0, &Action::EndTurn, &laden)
            .is_err()
    );
    // Selling a ship pays exactly the sell-back price.
    let sold = apply(&game, &with_ship, 0, Action::SellShip { ship: id });
    let sell = Action::SellShip { ship: id };
    assert_eq!(game.check_step(&with_ship, 0, &sell, &sold), Ok(()));
    let mut overpaid = sold.clone();
    overpaid.players[0].cash += 25;
    assert!(game.check_step(&with_ship, 0, &sell, &overpaid).is_err());
}
