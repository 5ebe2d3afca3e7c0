//! The game's own invariants must be able to fail: each broken state or transition below
//! is refused with a message naming what broke.

use super::*;
use crate::starfarers::data::Resource;
use crate::starfarers::state::Station;

fn broken(g: &Starfarers, s: &State, says: &str) {
    match g.check_invariants(s) {
        Ok(()) => panic!("accepted a state that should break {says:?}"),
        Err(e) => assert!(e.contains(says), "expected {says:?}: {e}"),
    }
}

#[test]
fn broken_states_are_refused() {
    let (g, s) = start(4, Phase::TradeBuild);
    assert_eq!(g.check_invariants(&s), Ok(()));

    let mut ships = s.clone();
    for _ in 0..3 {
        let at = ships.ships[0].node;
        put_ship(&mut ships, 0, ShipKind::Trade, at);
    }
    broken(&g, &ships, "transporters");

    let mut boosters = s.clone();
    boosters.players[1].boosters = 7;
    broken(&g, &boosters, "boosters");

    let mut fame = s.clone();
    fame.players[2].fame = 12;
    broken(&g, &fame, "fame rings");

    // A chip that appears twice, and one that vanishes without a player keeping it.
    let mut twice = s.clone();
    let (a, b) = (planet(&g, "s1 T"), planet(&g, "s2 T"));
    twice.planets[b].chip = twice.planets[a].chip;
    broken(&g, &twice, "chip");
    let mut gone = s.clone();
    gone.planets[a].chip = None;
    broken(&g, &gone, "chips are off the board");
    // Kept by a player, a cleared pirate chip is accounted for.
    let mut cleared = s.clone();
    let p = cleared
        .planets
        .iter()
        .position(|x| matches!(x.chip, Some(Chip::Pirates(_))))
        .unwrap();
    cleared.planets[p].chip = None;
    cleared.players[0].pirates = 1;
    assert_eq!(g.check_invariants(&cleared), Ok(()));

    let mut lost_card = s.clone();
    lost_card.deck.pop();
    broken(&g, &lost_card, "encounter cards");

    let mut card = s.clone();
    card.card_owner[0] = Some(1);
    broken(&g, &card, "friendship card 0");

    // A station at an outpost whose token nobody holds.
    let mut token = s.clone();
    token.stations.push(Station {
        outpost: 0,
        dock: 1,
        owner: 2,
    });
    broken(&g, &token, "token of outpost 0");
    token.token[0] = Some(2);
    assert_eq!(g.check_invariants(&token), Ok(()));

    let mut winner = s.clone();
    winner.winner = Some(0);
    winner.phase = Phase::Over;
    broken(&g, &winner, "won without");
}

#[test]
fn broken_transitions_are_refused() {
    let (g, mut s) = start(4, Phase::TradeBuild);
    s.players[0].hand = hand(0, 0, 2, 0, 0);
    let build = Action::BuildBooster;
    let after = act(&g, &s, 0, build.clone());
    assert_eq!(g.check_step(&s, 0, &build, &after), Ok(()));
    // A booster that cost nothing, or one paid from another hand.
    let mut free = after.clone();
    free.players[0].hand = s.players[0].hand;
    assert!(g.check_step(&s, 0, &build, &free).is_err());
    let mut theft = after.clone();
    theft.players[1].hand.ore += 1;
    assert!(g.check_step(&s, 0, &build, &theft).is_err());
    // A bank trade at the wrong rate.
    s.players[0].hand = hand(0, 0, 0, 3, 0);
    let trade = Action::BankTrade {
        give: Resource::Ore,
        get: Resource::Food,
    };
    let after = act(&g, &s, 0, trade.clone());
    assert_eq!(g.check_step(&s, 0, &trade, &after), Ok(()));
    let mut cheap = after.clone();
    cheap.players[0].hand.ore += 1;
    assert!(g.check_step(&s, 0, &trade, &cheap).is_err());
    // A deal or a robbery that creates a card.
    let mut made = s.clone();
    made.players[2].hand.food += 1;
    assert!(g.check_step(&s, 2, &Action::AcceptOffer, &made).is_err());
    assert!(
        g.check_step(&s, 0, &Action::Steal { from: 2 }, &made)
            .is_err()
    );
    // Declining an offer moves no card.
    assert!(g.check_step(&s, 2, &Action::DeclineOffer, &made).is_err());
}
