//! The actions a seat may submit.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::data::{Resource, Resources};
use turnpost_engine::Seat;

/// One step of a turn. Intersections (`at`, `to`) and planets are numbered as in the view
/// (`nodes` / `planets`); ships by their `id`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Production: roll the two dice.
    Roll,
    /// After a 7, a player holding too many cards discards one card (repeat until done).
    Discard {
        resource: Resource,
    },
    /// After your 7: draw one random card from this player.
    Steal {
        from: Seat,
    },
    /// After your 7: draw no card.
    NoSteal,
    /// gf_relief: your roll gave you nothing; take this resource.
    TakeRelief {
        resource: Resource,
    },
    /// Supply from Earth (under 9 VP): take this resource.
    TakeSupply {
        resource: Resource,
    },
    /// Trade with the bank at your best rate for `give` (3:1, 2:1 for trade goods or markets).
    BankTrade {
        give: Resource,
        get: Resource,
    },
    /// Offer a trade to another player; they accept or decline in their own time.
    OfferTrade {
        to: Seat,
        give: Resources,
        get: Resources,
    },
    /// Take back your pending offer.
    WithdrawOffer,
    /// Accept the offer made to you.
    AcceptOffer,
    /// Decline the offer made to you.
    DeclineOffer,
    /// Build a colony ship on this free intersection next to one of your spaceports.
    BuildColonyShip {
        at: usize,
    },
    /// Build a trade ship on this free intersection next to one of your spaceports.
    BuildTradeShip {
        at: usize,
    },
    /// Upgrade your colony on this intersection to a spaceport.
    BuildSpaceport {
        at: usize,
    },
    BuildBooster,
    BuildCannon,
    BuildFreightRing,
    /// me_broker: swap 1 trade goods for this resource (once per turn).
    Broker {
        get: Resource,
    },
    /// me_patronage: pay trade goods for +1 fame (once per turn).
    Patronage,
    /// End trading and building; shake the mothership (draw two balls) and start the flight.
    Launch,
    /// tr_scouts: resolve this encounter card (by id); the other goes under the deck.
    ChooseEncounter {
        card: String,
    },
    /// Pay these cards to the encounter (an offer's price or a tribute).
    EncounterPay {
        cards: Resources,
    },
    /// Refuse the encounter's offer.
    EncounterDecline,
    /// Fight the encounter's pirates (one die + cannons).
    EncounterFight,
    /// Take these resources from the encounter (supply drop).
    EncounterTake {
        cards: Resources,
    },
    /// Move this ship to `to`, passing through the `via` intersections in order (optional;
    /// without them it takes the shortest route, lowest-numbered intersections first). The
    /// whole route must fit the speed; chips next to it are peeked at. `to` = where it stands
    /// means staying put.
    Fly {
        ship: u32,
        to: usize,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        via: Vec<usize>,
    },
    /// Defeat the pirates on this planet (a ship of yours next to it, enough cannons).
    ClearPirates {
        planet: usize,
    },
    /// Terraform this ice planet (a ship of yours next to it, enough freight rings).
    Terraform {
        planet: usize,
    },
    /// Found a colony with this colony ship where it stands.
    FoundColony {
        ship: u32,
    },
    /// Found a trade station with this trade ship on its dock.
    FoundTradeStation {
        ship: u32,
    },
    /// Take this friendship card (by id) after founding a trade station.
    TakeFriendshipCard {
        card: String,
    },
    /// End your turn.
    EndTurn,
}
