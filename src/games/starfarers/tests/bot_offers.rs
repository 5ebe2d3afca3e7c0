//! The computer's trade offers over whole games: an offer withdrawn within the request that
//! made it is one the person it was made to can never answer, so the computer offers at
//! most `OFFERS_PER_TURN` times a turn and leaves an offer open until its recipient answers
//! it.

use super::*;
use crate::starfarers::bot::OFFERS_PER_TURN;
use turnpost_engine::bot::{BotBudget, RECENT, search};

const QUICK: BotBudget = BotBudget {
    playouts: 6,
    depth: 6,
    candidates: 6,
};

/// What the games showed.
#[derive(Default)]
struct Seen {
    offers: usize,
    answered: usize,
    most_in_a_turn: usize,
}

/// Plays a game with seat 0 a person (random legal moves) and the others the computer,
/// as the server does: while a computer seat waits for the answer to its offer, the
/// recipient acts. Checks every action taken while a computer's offer is open.
fn play(seed: u64, seen: &mut Seen) {
    let g = game();
    let options = Options {
        turn_limit: Some(24),
    };
    let mut s = g.setup(&options, 3, GameRng::seed_from_u64(seed)).unwrap();
    let mut rng = GameRng::seed_from_u64(seed ^ 0x5eed);
    let mut recent: Vec<(Seat, Action)> = Vec::new();
    let mut in_turn = (s.turn, 0usize);
    for _ in 0..20_000 {
        let Status::Active { to_act } = g.status(&s) else {
            break;
        };
        let seat = to_act[rng.below(to_act.len())];
        let open = s.offer.clone().filter(|o| o.from != 0);
        let (seat, action) = if let Some(o) = &open {
            // The computer weighs nothing while its own offer stands: its turn waits.
            let mine = g.bot_candidates(&s, o.from, g.legal_actions(&s, o.from), &recent);
            assert!(mine.is_empty(), "{seed}: the computer would play {mine:?}");
            let answers = g.legal_actions(&s, o.to);
            let pick = if o.to == 0 {
                rng.pick(&answers).cloned()
            } else {
                search(&g, &s, o.to, [rng.below(256) as u8; 32], QUICK, &recent)
            };
            (o.to, pick.unwrap())
        } else if seat == 0 {
            let legal = g.legal_actions(&s, 0);
            (0, rng.pick(&legal).cloned().unwrap())
        } else {
            let seed32 = [rng.below(256) as u8; 32];
            (seat, search(&g, &s, seat, seed32, QUICK, &recent).unwrap())
        };
        if open.is_some() {
            assert!(
                matches!(action, Action::AcceptOffer | Action::DeclineOffer),
                "{seed}: {action:?} by seat {seat} while the computer's offer was open"
            );
            seen.answered += 1;
        }
        if s.turn != in_turn.0 {
            in_turn = (s.turn, 0);
        }
        if let Action::OfferTrade { .. } = action
            && seat != 0
        {
            seen.offers += 1;
            in_turn.1 += 1;
            assert!(
                in_turn.1 <= OFFERS_PER_TURN,
                "{seed}: offer {} in turn {}",
                in_turn.1,
                s.turn
            );
            seen.most_in_a_turn = seen.most_in_a_turn.max(in_turn.1);
        }
        s = g.apply(&s, seat, &action).unwrap();
        recent.push((seat, action));
        if recent.len() > RECENT {
            recent.remove(0);
        }
    }
}

#[test]
fn the_computer_offers_at_most_twice_a_turn_and_waits_for_each_answer() {
    let mut seen = Seen::default();
    for seed in 1..=4 {
        play(seed, &mut seen);
    }
    // The games did make offers, each answered by its recipient (not withdrawn).
    assert!(seen.offers > 0, "no offers were made");
    assert_eq!(seen.answered, seen.offers);
    assert!(seen.most_in_a_turn <= OFFERS_PER_TURN);
}

#[test]
fn an_offer_out_of_a_turn_whose_roll_is_out_of_sight_is_not_made() {
    let (g, mut s) = start(3, Phase::TradeBuild);
    s.players[0].hand = Resources::one(Resource::Ore, 2);
    // Offers go to players holding cards.
    s.players[1].hand = Resources::one(Resource::Food, 1);
    let legal = g.legal_actions(&s, 0);
    assert!(legal.iter().any(|a| matches!(a, Action::OfferTrade { .. })));
    let offers = |recent: &[(Seat, Action)]| {
        g.bot_candidates(&s, 0, legal.clone(), recent)
            .iter()
            .filter(|a| matches!(a, Action::OfferTrade { .. }))
            .count()
    };
    // The start of the turn is not in sight: no offer.
    assert_eq!(offers(&[]), 0);
    let offer = Action::OfferTrade {
        to: 1,
        give: Resources::one(Resource::Ore, 1),
        get: Resources::one(Resource::Food, 1),
    };
    let mut recent = vec![(0, Action::Roll)];
    assert!(offers(&recent) > 0);
    recent.push((0, offer.clone()));
    recent.push((1, Action::DeclineOffer));
    assert!(offers(&recent) > 0, "one offer made, one more allowed");
    recent.push((0, offer));
    recent.push((1, Action::DeclineOffer));
    assert_eq!(offers(&recent), 0, "two offers made this turn");
    // Another seat's roll does not start this seat's turn.
    recent.push((1, Action::Roll));
    assert_eq!(offers(&recent), 0);
}

#[test]
fn no_offer_goes_to_a_player_holding_no_cards() {
    let (g, mut s) = start(3, Phase::TradeBuild);
    s.players[0].hand = Resources::one(Resource::Ore, 2);
    s.players[1].hand = Resources::default();
    s.players[2].hand = Resources::one(Resource::Food, 1);
    let to: Vec<usize> = g
        .legal_actions(&s, 0)
        .iter()
        .filter_map(|a| match a {
            Action::OfferTrade { to, .. } => Some(*to),
            _ => None,
        })
        .collect();
    assert!(to.contains(&2) && !to.contains(&1), "{to:?}");
    let asking = |to, n| Action::OfferTrade {
        to,
        give: Resources::one(Resource::Ore, 1),
        get: Resources::one(Resource::Food, n),
    };
    let refused = g.apply(&s, 0, &asking(1, 1)).map(|_| ()).unwrap_err();
    assert_eq!(refused.code, "cannot_pay", "{refused:?}");
    assert!(refused.message.contains("holds 0 cards"), "{refused:?}");
    // One card held, two asked for: refused too; one asked for is an offer.
    assert!(g.apply(&s, 0, &asking(2, 2)).is_err());
    assert!(g.apply(&s, 0, &asking(2, 1)).is_ok());
}

#[test]
fn an_offer_of_any_terms_can_be_written_out() {
    let (g, s) = start(3, Phase::TradeBuild);
    let read = |text: &str| g.parse_notation(&s, 0, text);
    let mut give = Resources::one(Resource::Food, 2);
    *give.slot(Resource::Ore) = 1;
    let want = Action::OfferTrade {
        to: 1,
        give,
        get: Resources::one(Resource::Carbon, 1),
    };
    assert_eq!(
        read("offer Player B: your 2 food, 1 ore for their 1 carbon"),
        Some(Ok(want.clone()))
    );
    assert_eq!(
        read("Offer Bo (Player B) 2 food and 1 ore for 1 carbon"),
        Some(Ok(want))
    );
    assert_eq!(
        read("offer C: 3 trade goods for fuel"),
        Some(Ok(Action::OfferTrade {
            to: 2,
            give: Resources::one(Resource::TradeGoods, 3),
            get: Resources::one(Resource::Fuel, 1),
        }))
    );
    assert!(matches!(
        read("offer Player Z: 1 food for 1 ore"),
        Some(Err(_))
    ));
    assert!(matches!(read("offer B 1 gold for 1 ore"), Some(Err(e)) if e.contains("resource")));
    assert_eq!(read("withdraw your trade offer"), None);
}
