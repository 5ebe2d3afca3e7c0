//! The game state: everything a replay rebuilds, hidden parts included.

use std::collections::BTreeSet;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::data::{Chip, Resources};
use turnpost_engine::{GameRng, Seat};

/// Options (`turn_limit` is a house rule so random playouts end).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// House rule: the game ends after this many turns (all players together); the most VP
    /// wins. `None` (the default) plays to 15 VP as the rules say. A new game's limit is
    /// 1 to 300.
    #[schemars(range(min = 1, max = 300))]
    pub turn_limit: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ShipKind {
    Colony,
    Trade,
}

impl ShipKind {
    pub fn name(self) -> &'static str {
        match self {
            ShipKind::Colony => "colony ship",
            ShipKind::Trade => "trade ship",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ship {
    pub id: u32,
    pub owner: Seat,
    pub kind: ShipKind,
    pub node: usize,
    /// Where it stood when the flight began (the colony-site rule).
    pub start: usize,
    #[serde(default, skip_serializing_if = "is_false")]
    pub moved: bool,
    /// It ended where it must found (a dock, or its own starting colony site) this turn.
    #[serde(default, skip_serializing_if = "is_false")]
    pub must_found: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Building {
    pub node: usize,
    /// A seat, or 3 for the neutral home in a 3-player game.
    pub owner: usize,
    pub spaceport: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Station {
    pub outpost: usize,
    pub dock: u32,
    pub owner: Seat,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlanetState {
    pub chip: Option<Chip>,
    /// Face up for everyone.
    #[serde(default, skip_serializing_if = "is_false")]
    pub revealed: bool,
    /// The chip came from the reserve pile (so it is known to be a number).
    #[serde(default, skip_serializing_if = "is_false")]
    pub from_reserve: bool,
    /// Seats that have looked at this chip (public fact; the value is private).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub seen_by: BTreeSet<Seat>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub hand: Resources,
    pub boosters: u32,
    pub cannons: u32,
    pub freight_rings: u32,
    pub fame: u32,
    pub pirates: u32,
    pub ice: u32,
    /// Indices into the friendship card list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cards: Vec<usize>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub broker_used: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    pub patronage_used: bool,
}

/// A trade offer from the active player to one other player.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    pub from: Seat,
    pub to: Seat,
    pub give: Resources,
    pub get: Resources,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// The active player rolls for production.
    Roll,
    /// After a 7: seats still owing cards, one card per action.
    Discard {
        owed: Vec<(Seat, u32)>,
    },
    /// After a 7: the roller may draw a random card from someone.
    Steal,
    /// Relief card holders whose roll gave nothing pick a card.
    Relief {
        seats: Vec<Seat>,
    },
    /// Supply from Earth for the active player.
    Supply,
    TradeBuild,
    /// tr_scouts: choose one of two encounter cards.
    ScoutChoice {
        cards: Vec<usize>,
    },
    /// An encounter card waits for the active player's choice.
    Encounter {
        card: usize,
    },
    Flying,
    /// After founding a trade station: pick a friendship card of that race.
    ChooseFriendship {
        race: usize,
    },
    Over,
}

/// A log line: public text, and optionally a fuller text for some seats.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub private: Option<(Vec<Seat>, String)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub rng: GameRng,
    pub options: Options,
    pub seats: usize,
    pub players: Vec<Player>,
    pub planets: Vec<PlanetState>,
    pub reserve: Vec<Chip>,
    pub deck: Vec<usize>,
    /// Cards at the bottom of the deck whose identity is public (tr_scouts).
    pub deck_known_bottom: usize,
    pub discard: Vec<usize>,
    pub buildings: Vec<Building>,
    pub stations: Vec<Station>,
    pub ships: Vec<Ship>,
    pub next_ship: u32,
    /// Owner of each friendship card, by index.
    pub card_owner: Vec<Option<Seat>>,
    /// Holder of each race's friendship token.
    pub token: Vec<Option<Seat>>,
    pub current: Seat,
    /// Turns started so far (1 = the first turn).
    pub turn: u32,
    pub phase: Phase,
    /// The pending offer. Left out of the serialised state when there is none, so that
    /// "no offer" is not a field of its own next to the offer's hidden terms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offer: Option<Offer>,
    pub dice: Option<(u8, u8)>,
    pub balls: Vec<usize>,
    pub speed: u32,
    pub warp_available: bool,
    pub winner: Option<Seat>,
    pub log: Vec<Event>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// How many log lines the state keeps (the email shows the recent ones).
pub const LOG_KEEP: usize = 16;

impl State {
    pub fn push_log(&mut self, text: impl Into<String>) {
        self.log.push(Event {
            text: text.into(),
            private: None,
        });
        self.trim_log();
    }

    pub fn push_private(
        &mut self,
        public: impl Into<String>,
        seen_by: Vec<Seat>,
        private: impl Into<String>,
    ) {
        self.log.push(Event {
            text: public.into(),
            private: Some((seen_by, private.into())),
        });
        self.trim_log();
    }

    fn trim_log(&mut self) {
        if self.log.len() > LOG_KEEP {
            let cut = self.log.len() - LOG_KEEP;
            self.log.drain(..cut);
        }
    }
}
