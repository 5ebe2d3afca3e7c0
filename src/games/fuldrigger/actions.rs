//! What players submit. Ships are named by their id (`#3`), places by their board id
//! (`LON`, `J_NS`, `L04:2`), goods by name (`tea`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::state::Bundle;
use turnpost_engine::Seat;

/// One Fuldrigger action. Members an action does not have are refused: what a spectator
/// reads of a secret offer (`redacted`, `terms`) must never pass for an offer of nothing.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Setup: choose a home city (CPH, AMS, LON or LIS), in order of the home-city roll.
    ChooseHome { port: String },
    /// Roll the three movement dice (ends the port actions before the roll).
    Roll,
    /// Move a ship along one lane towards `to` (a field within the ship's remaining
    /// allowance, reached without passing a junction or port). Hazards trigger on entering.
    /// Moving another ship finishes the previous one.
    Sail { ship: u32, to: String },
    /// Attack `defender` on the field where the named privateers all stand (they sailed
    /// there this turn). At sea: the defender's ships there; in a port: only where the
    /// defender owns the fort (fort plus ships). Needs at least as many privateers as
    /// defending ships plus fort.
    Attack { defender: Seat, ships: Vec<u32> },
    /// After a lost battle: which attacking privateer is lost.
    ChooseLoss { ship: u32 },
    /// After a won battle: capture this ship of the defender.
    CaptureShip { ship: u32 },
    /// After a won battle at a fort: capture the fort.
    CaptureFort,
    /// Finish movement and go on to the port actions after the roll.
    EndMovement,
    /// Buy a load of `good` onto an empty merchant ship in a port that sells it (K).
    BuyGood { ship: u32, good: String },
    /// Sell the ship's load in a port that buys it (S), after at least 10 fields.
    SellGood { ship: u32 },
    /// Buy a new ship; it appears empty in your home city.
    BuyShip,
    /// Sell a ship in a port back to the bank (its cargo is lost).
    SellShip { ship: u32 },
    /// Buy the fort in a port where one of your ships is.
    BuyFort { port: String },
    /// Fit out an empty merchant as a privateer (home city or own fort).
    FitPrivateer { ship: u32 },
    /// Turn a privateer back into a merchant (home city or own fort).
    UnfitPrivateer { ship: u32 },
    /// Isthmus variant: put the ship's load into your depot for this isthmus (pays the toll).
    TransshipDrop { ship: u32 },
    /// Isthmus variant: put depot load `load` (its id, as listed in your depot) onto an
    /// empty merchant on the other side of its isthmus.
    TransshipPickup { ship: u32, load: u32 },
    /// Offer a deal to another player: you hand over `give` and receive `get` if they accept.
    /// Only the active player may offer (HR-15). The offer stays open until accepted,
    /// declined, withdrawn, or your next turn begins.
    Offer {
        to: Seat,
        #[serde(default)]
        give: Bundle,
        #[serde(default)]
        get: Bundle,
    },
    /// Accept an offer made to you (any time, also outside your turn).
    Accept { offer: u32 },
    /// Decline an offer made to you.
    Decline { offer: u32 },
    /// Withdraw an offer you made.
    Withdraw { offer: u32 },
    /// End your turn.
    EndTurn,
}

#[cfg(test)]
mod tests {
    use super::Action;

    #[test]
    fn what_others_read_of_an_offer_is_no_action() {
        let redacted = r#"{"type":"offer","to":1,"redacted":true,"terms":"hidden"}"#;
        assert!(serde_json::from_str::<Action>(redacted).is_err());
        let offer: Action = serde_json::from_str(r#"{"type":"offer","to":1}"#).unwrap();
        assert!(matches!(offer, Action::Offer { to: 1, .. }));
        let extra = r#"{"type":"offer","to":1,"note":"hi"}"#;
        assert!(serde_json::from_str::<Action>(extra).is_err());
    }
}
