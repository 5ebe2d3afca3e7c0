//! One line per action for emails (unique among a seat's legal actions).

use super::actions::Action;
use super::data::Data;
use super::render::{node_label, node_place};
use super::rules::{bank_rate, player_name, ship_of};
use super::state::State;
use turnpost_engine::Seat;

pub fn describe(d: &Data, s: &State, seat: Seat, action: &Action) -> String {
    let planet = |p: usize| {
        d.planets.get(p).map_or(format!("planet #{p}"), |x| {
            format!("{} ({})", x.name, x.resource.name())
        })
    };
    let ship = |id: u32| {
        ship_of(s, id).map_or(format!("ship #{id}"), |x| {
            format!("{} #{id}", x.kind.name())
        })
    };
    let place = |n: usize| format!("{} ({})", node_label(d, n), node_place(d, n));
    match action {
        Action::Roll => "roll the dice".into(),
        Action::Discard { resource } => format!("discard 1 {}", resource.name()),
        Action::Steal { from } => format!("draw a random card from {}", player_name(s, *from)),
        Action::NoSteal => "draw no card".into(),
        Action::TakeRelief { resource } => format!("take 1 {} (relief)", resource.name()),
        Action::TakeSupply { resource } => format!("take 1 {} from Earth", resource.name()),
        Action::BankTrade { give, get } => format!(
            "bank: {} {} for 1 {}",
            bank_rate(d, s, seat, *give),
            give.name(),
            get.name()
        ),
        Action::OfferTrade { to, give, get } => format!(
            "offer {}: your {} for their {}",
            player_name(s, *to),
            give.describe(),
            get.describe()
        ),
        Action::WithdrawOffer => "withdraw your trade offer".into(),
        Action::AcceptOffer => match &s.offer {
            Some(o) => format!(
                "accept {}'s offer: get {} for {}",
                player_name(s, o.from),
                o.give.describe(),
                o.get.describe()
            ),
            None => "accept the offer".into(),
        },
        Action::DeclineOffer => "decline the offer".into(),
        Action::BuildColonyShip { at } => format!("build a colony ship at {}", place(*at)),
        Action::BuildTradeShip { at } => format!("build a trade ship at {}", place(*at)),
        Action::BuildSpaceport { at } => {
            format!("build a spaceport on your colony at {}", place(*at))
        }
        Action::BuildBooster => "build a booster".into(),
        Action::BuildCannon => "build a cannon".into(),
        Action::BuildFreightRing => "build a freight ring".into(),
        Action::Broker { get } => format!("broker: 1 trade goods for 1 {}", get.name()),
        Action::Patronage => "patronage: pay trade goods for 1 fame ring".into(),
        Action::Launch => "end trading and launch (shake the mothership)".into(),
        Action::ChooseEncounter { card } => {
            let text = d
                .encounters
                .iter()
                .find(|e| &e.id == card)
                .map_or(card.clone(), |e| e.describe());
            format!("resolve {text}")
        }
        Action::EncounterPay { cards } => format!("pay {}", cards.describe()),
        Action::EncounterDecline => "refuse".into(),
        Action::EncounterFight => "fight".into(),
        Action::EncounterTake { cards } => format!("take {}", cards.describe()),
        Action::Fly { ship: id, to, via } => {
            let stay = ship_of(s, *id).is_some_and(|x| x.node == *to) && via.is_empty();
            let through = if via.is_empty() {
                String::new()
            } else {
                let labels: Vec<String> = via.iter().map(|&n| node_label(d, n)).collect();
                format!(" via {}", labels.join(", "))
            };
            if stay {
                format!("keep {} at {}", ship(*id), place(*to))
            } else {
                format!("fly {}{through} to {}", ship(*id), place(*to))
            }
        }
        Action::ClearPirates { planet: p } => format!("defeat the pirates on {}", planet(*p)),
        Action::Terraform { planet: p } => format!("terraform {}", planet(*p)),
        Action::FoundColony { ship: id } => format!("found a colony with {}", ship(*id)),
        Action::FoundTradeStation { ship: id } => {
            format!("found a trade station with {}", ship(*id))
        }
        Action::TakeFriendshipCard { card } => {
            let text = d
                .friendship
                .iter()
                .find(|c| &c.id == card)
                .map_or(card.clone(), |c| c.describe());
            format!("take friendship card {text}")
        }
        Action::EndTurn => "end your turn".into(),
    }
}

/// `action` as the log tells it after the mover's name: third person, past tense, places
/// named as the map shows them. A trade offer's terms are only in the private log of the
/// two players (see `action_visibility`).
pub fn log_text(d: &Data, s: &State, seat: Seat, action: &Action) -> String {
    let planet = |p: usize| {
        d.planets.get(p).map_or(format!("planet #{p}"), |x| {
            format!("{} ({})", x.name, x.resource.name())
        })
    };
    let ship = |id: u32| {
        ship_of(s, id).map_or(format!("ship #{id}"), |x| {
            format!("{} #{id}", x.kind.name())
        })
    };
    let place = |n: usize| format!("{} ({})", node_label(d, n), node_place(d, n));
    match action {
        Action::Roll => "rolled the dice".into(),
        Action::Discard { resource } => format!("discarded 1 {}", resource.name()),
        Action::Steal { from } => format!("drew a random card from {}", player_name(s, *from)),
        Action::NoSteal => "drew no card".into(),
        Action::TakeRelief { resource } => format!("took 1 {} (relief)", resource.name()),
        Action::TakeSupply { resource } => format!("took 1 {} from Earth", resource.name()),
        Action::BankTrade { give, get } => format!(
            "traded {} {} with the bank for 1 {}",
            bank_rate(d, s, seat, *give),
            give.name(),
            get.name()
        ),
        Action::OfferTrade { to, give, get } => format!(
            "offered {} {} for {}",
            player_name(s, *to),
            give.describe(),
            get.describe()
        ),
        Action::WithdrawOffer => "withdrew their trade offer".into(),
        Action::AcceptOffer => match &s.offer {
            Some(o) => format!(
                "accepted {}'s offer: {} for {}",
                player_name(s, o.from),
                o.give.describe(),
                o.get.describe()
            ),
            None => "accepted the offer".into(),
        },
        Action::DeclineOffer => "declined the offer".into(),
        Action::BuildColonyShip { at } => format!("built a colony ship at {}", place(*at)),
        Action::BuildTradeShip { at } => format!("built a trade ship at {}", place(*at)),
        Action::BuildSpaceport { at } => {
            format!("built a spaceport on their colony at {}", place(*at))
        }
        Action::BuildBooster => "built a booster".into(),
        Action::BuildCannon => "built a cannon".into(),
        Action::BuildFreightRing => "built a freight ring".into(),
        Action::Broker { get } => format!("brokered 1 trade goods for 1 {}", get.name()),
        Action::Patronage => "paid trade goods for 1 fame ring".into(),
        Action::Launch => "launched (shook the mothership)".into(),
        Action::ChooseEncounter { card } => {
            let text = d
                .encounters
                .iter()
                .find(|e| &e.id == card)
                .map_or(card.clone(), |e| e.describe());
            format!("chose to resolve {text}")
        }
        Action::EncounterPay { cards } => format!("paid {}", cards.describe()),
        Action::EncounterDecline => "refused".into(),
        Action::EncounterFight => "fought".into(),
        Action::EncounterTake { cards } => format!("took {}", cards.describe()),
        Action::Fly { ship: id, to, via } => {
            let stay = ship_of(s, *id).is_some_and(|x| x.node == *to) && via.is_empty();
            let through = if via.is_empty() {
                String::new()
            } else {
                let labels: Vec<String> = via.iter().map(|&n| node_label(d, n)).collect();
                format!(" via {}", labels.join(", "))
            };
            if stay {
                format!("kept {} at {}", ship(*id), place(*to))
            } else {
                format!("flew {}{through} to {}", ship(*id), place(*to))
            }
        }
        Action::ClearPirates { planet: p } => format!("defeated the pirates on {}", planet(*p)),
        Action::Terraform { planet: p } => format!("terraformed {}", planet(*p)),
        Action::FoundColony { ship: id } => format!("founded a colony with {}", ship(*id)),
        Action::FoundTradeStation { ship: id } => {
            format!("founded a trade station with {}", ship(*id))
        }
        Action::TakeFriendshipCard { card } => {
            let text = d
                .friendship
                .iter()
                .find(|c| &c.id == card)
                .map_or(card.clone(), |c| c.describe());
            format!("took friendship card {text}")
        }
        Action::EndTurn => "ended their turn".into(),
    }
}

/// What on the board picture `action` involves: ships (`ship:<id>`), intersections
/// (`node:r12c30`), planets (`planet:<n>`) and players (`seat:<n>`).
pub fn targets(d: &Data, action: &Action) -> Vec<String> {
    use super::board::{node_target, planet_target, seat_target, ship_target};
    match action {
        Action::Steal { from } => vec![seat_target(*from)],
        Action::OfferTrade { to, .. } => vec![seat_target(*to)],
        Action::BuildColonyShip { at }
        | Action::BuildTradeShip { at }
        | Action::BuildSpaceport { at } => vec![node_target(d, *at)],
        Action::Fly { ship, to, via } => {
            let mut v = vec![ship_target(*ship), node_target(d, *to)];
            for &n in via {
                let t = node_target(d, n);
                if !v.contains(&t) {
                    v.push(t);
                }
            }
            v
        }
        Action::ClearPirates { planet } | Action::Terraform { planet } => {
            vec![planet_target(*planet)]
        }
        Action::FoundColony { ship } | Action::FoundTradeStation { ship } => {
            vec![ship_target(*ship)]
        }
        _ => Vec::new(),
    }
}
