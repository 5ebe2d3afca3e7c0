//! A ship counts in the fortune at what was paid for it, and games set up under
//! rules version 1 keep counting every ship at the standard price.

use super::*;

fn card(game: &Fuldrigger, id: &str) -> usize {
    board(game).cards.iter().position(|c| c.id == id).unwrap()
}

/// Seat 0 before the roll with 1000 ducats, no ships and the shipyards card (C25) in force.
fn shipyards(game: &Fuldrigger, rules_version: u32) -> State {
    let mut st = blank(game, 2);
    st.rules_version = rules_version;
    st.active_card = Some(card(game, "C25"));
    st
}

#[test]
fn a_ship_bought_at_the_shipyards_price_counts_at_that_price() {
    let game = g();
    let st = shipyards(&game, 2);
    assert_eq!(rules::fortune(board(&game), &st, 0), 1000);
    let st = apply(&game, &st, 0, Action::BuyShip);
    assert_eq!(st.players[0].cash, 920);
    // Buying turns 80 ducats into a ship worth 80: the fortune does not grow.
    assert_eq!(rules::fortune(board(&game), &st, 0), 1000);
    // It keeps its price after the card is gone, and when it changes hands.
    let mut later = st.clone();
    later.active_card = None;
    assert_eq!(rules::fortune(board(&game), &later, 0), 1000);
    let id = later.ships[0].id;
    later.ship_mut(id).unwrap().owner = 1;
    assert_eq!(rules::fortune(board(&game), &later, 1), 1000 + 80);
}

#[test]
fn a_replacement_fleet_bought_under_shipyards_counts_at_that_price() {
    let game = g();
    let mut st = shipyards(&game, 2);
    ship_at(&game, &mut st, 0, "LON");
    st.phase = Phase::After;
    st.first = 0;
    // Seat 1 has no ships when its turn begins: it must buy one, at 80 this round.
    let st = apply(&game, &st, 0, Action::EndTurn);
    assert_eq!(st.current, 1);
    assert_eq!((st.ship_count(1), st.players[1].cash), (1, 920));
    assert_eq!(rules::fortune(board(&game), &st, 1), 1000);
}

#[test]
fn a_version_1_game_still_counts_every_ship_at_the_standard_price() {
    let game = g();
    let st = apply(&game, &shipyards(&game, 1), 0, Action::BuyShip);
    assert_eq!(st.players[0].cash, 920);
    assert_eq!(rules::fortune(board(&game), &st, 0), 1020);
    assert_eq!(st.ships[0].paid, None, "a version-1 game records no price");
}

#[test]
fn old_snapshots_decode_as_version_1_and_new_games_are_version_2() {
    let game = g();
    let st = started(&game, 2, &Options::default());
    assert_eq!(st.rules_version, 2);
    assert_eq!(game.info().rules_version, 2);
    assert_eq!(game.replays_rules_versions(), 1..=2);
    let mut json = serde_json::to_value(&st).unwrap();
    json.as_object_mut().unwrap().remove("rules_version");
    let old: State = serde_json::from_value(json).unwrap();
    assert_eq!(old.rules_version, 1);
    // A version-1 snapshot with no `paid` on its ships round-trips unchanged.
    let text = serde_json::to_string(&old).unwrap();
    assert!(!text.contains("\"paid\""));
    assert_eq!(serde_json::from_str::<State>(&text).unwrap(), old);
}
