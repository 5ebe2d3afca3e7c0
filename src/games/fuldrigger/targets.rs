//! What an action involves on the board picture (`data-target` tokens), and the log's
//! third-person form of the action texts.

use super::actions::Action;
use super::board::{depot_target, good_target, offer_target, place_target, ship_target};
use super::data::Board;
use super::state::{Pending, State};

/// The ships (`ship:3`), places (`port:LON`, `junction:J_NS`, `lane:L04.2`), market
/// columns (`good:tea`), depot loads and offers an action names.
pub fn targets(b: &Board, st: &State, action: &Action) -> Vec<String> {
    let place = |id: &str| b.node(id).map(|n| place_target(b, n));
    match action {
        Action::ChooseHome { port } | Action::BuyFort { port } => place(port).into_iter().collect(),
        Action::Sail { ship, to } => {
            let mut t = vec![ship_target(*ship)];
            t.extend(place(to));
            t
        }
        Action::Attack { defender, ships } => {
            let mut t: Vec<String> = ships.iter().map(|&s| ship_target(s)).collect();
            if let Some(at) = ships.first().and_then(|&s| st.ship(s)).map(|s| s.at) {
                t.extend(
                    st.ships
                        .iter()
                        .filter(|s| s.owner == *defender && s.at == at)
                        .map(|s| ship_target(s.id)),
                );
                if b.port_of(at).is_some() {
                    t.push(place_target(b, at));
                }
            }
            t
        }
        Action::ChooseLoss { ship }
        | Action::CaptureShip { ship }
        | Action::SellGood { ship }
        | Action::SellShip { ship }
        | Action::FitPrivateer { ship }
        | Action::UnfitPrivateer { ship }
        | Action::TransshipDrop { ship } => vec![ship_target(*ship)],
        Action::CaptureFort => match &st.pending {
            Some(Pending::ChooseCapture { field, .. }) => vec![place_target(b, *field)],
            _ => Vec::new(),
        },
        Action::BuyGood { ship, good } => vec![ship_target(*ship), good_target(good)],
        Action::TransshipPickup { ship, load } => vec![ship_target(*ship), depot_target(*load)],
        Action::Accept { offer } | Action::Decline { offer } | Action::Withdraw { offer } => {
            vec![offer_target(*offer)]
        }
        Action::Roll
        | Action::EndMovement
        | Action::BuyShip
        | Action::Offer { .. }
        | Action::EndTurn => Vec::new(),
    }
}

/// An action text ("sail ship #3 …", in the imperative of the choice lists) as the log
/// tells it after the player's name: "sailed ship #3 …".
pub fn past_tense(text: &str) -> String {
    const VERBS: [(&str, &str); 19] = [
        ("choose ", "chose "),
        ("roll the dice", "rolled the dice"),
        ("sail ", "sailed "),
        ("attack ", "attacked "),
        ("give up ", "gave up "),
        ("capture ", "captured "),
        ("end movement", "ended movement"),
        ("buy ", "bought "),
        ("sell ", "sold "),
        ("build ", "built "),
        ("fit out ", "fitted out "),
        ("make ", "made "),
        ("drop ", "dropped "),
        ("load ", "loaded "),
        ("offer ", "offered "),
        ("accept ", "accepted "),
        ("decline ", "declined "),
        ("withdraw ", "withdrew "),
        ("end turn", "ended the turn"),
    ];
    for (now, then) in VERBS {
        if let Some(rest) = text.strip_prefix(now) {
            return format!("{then}{rest}");
        }
    }
    text.to_string()
}
