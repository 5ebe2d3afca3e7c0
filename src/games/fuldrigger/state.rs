//! The game state: everything on the table plus the deck order and the RNG.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use turnpost_engine::{GameRng, Seat};

/// A goods token on a ship or in an isthmus depot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Token {
    /// Good index in the data file's `goods` list.
    pub good: usize,
    /// Purchase price (counts towards the fortune).
    pub price: u32,
    /// Port index where it was bought (HR-9: it cannot be sold there).
    pub bought_at: usize,
    /// Fields moved with this token aboard (HR-8).
    pub fields: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ship {
    pub id: u32,
    pub owner: Seat,
    /// Node index on the board.
    pub at: usize,
    pub cargo: Option<Token>,
    pub privateer: bool,
    /// Hit doldrums: skips its owner's next movement (HR-5).
    pub becalmed: bool,
    /// Skipping this turn's movement (was becalmed when the turn began).
    pub stuck: bool,
    /// Left a port this turn: it cannot trade this turn.
    pub left_port: bool,
    /// Fields of allowance left this turn.
    pub remaining: u32,
    /// Finished moving this turn (another ship was moved, or it attacked).
    pub done: bool,
    /// Hazard fields that already triggered for this ship this turn (HR-5).
    pub hazards_met: Vec<usize>,
    /// Took part in an attack this turn.
    pub attacked: bool,
    /// Total fields sailed in the game ("miles").
    pub sailed: u32,
    /// What was paid for the ship when it was bought under rules version 2 or later (a
    /// shipyards card makes it cheaper). `None`: the standard ship price (starting ships,
    /// and every ship of a version-1 game, which counted all ships at the standard price).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paid: Option<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepotToken {
    /// Load id, unique in the game (named in pickups and deals).
    pub id: u32,
    /// Isthmus index.
    pub isthmus: usize,
    /// Port index where it was dropped; it is picked up on the other side.
    pub dropped_at: usize,
    pub token: Token,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub cash: u32,
    /// Port index of the home city, once chosen.
    pub home: Option<usize>,
    pub known_reefs: Vec<String>,
    /// Lost the fleet and could not replace it (HR-13).
    pub out: bool,
    pub depot: Vec<DepotToken>,
    /// Home-city roll (3 dice, re-rolls appended).
    pub home_roll: Vec<u32>,
}

/// One side of a deal.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Bundle {
    /// Ducats.
    pub cash: u32,
    /// Ship ids (ships change hands where they are, with their cargo).
    pub ships: Vec<u32>,
    /// Port ids of forts.
    pub forts: Vec<String>,
    /// Ids of loads in isthmus depots (isthmus variant).
    pub depot: Vec<u32>,
}

impl Bundle {
    pub fn is_empty(&self) -> bool {
        self.cash == 0 && self.ships.is_empty() && self.forts.is_empty() && self.depot.is_empty()
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Offer {
    pub id: u32,
    pub from: Seat,
    pub to: Seat,
    /// What the offerer gives.
    pub give: Bundle,
    /// What the offerer asks for in return.
    pub get: Bundle,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    ChooseHome,
    /// Port actions before the roll.
    Before,
    Movement,
    /// Port actions after movement.
    After,
    Over,
}

/// A choice the active player owes after a battle.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pending {
    /// Which attacking privateer is lost.
    ChooseLoss { attackers: Vec<u32> },
    /// Which of the defender's ships (or the fort) is captured.
    ChooseCapture { field: usize, defender: Seat },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sale {
    pub port: usize,
    pub good: usize,
    pub count: u32,
}

/// Rules version 1 counts every ship at the standard price in the fortune; version 2
/// counts a ship at what was paid for it.
pub const RULES_VERSION: u32 = 2;
/// The first rules version whose fortune counts ships at their purchase price.
pub const SHIP_PAID_PRICE_SINCE: u32 = 2;

/// Snapshots from before the state recorded its rules version are version-1 games.
fn rules_v1() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// The rules version this game was set up under; it keeps those rules for its whole life.
    #[serde(default = "rules_v1")]
    pub rules_version: u32,
    pub seats: usize,
    pub isthmus: bool,
    pub rounds: u32,
    pub players: Vec<Player>,
    pub ships: Vec<Ship>,
    pub next_ship: u32,
    /// Fort owner per port index.
    pub forts: Vec<Option<Seat>>,
    /// Seats in home-choosing order (highest roll first).
    pub home_order: Vec<Seat>,
    pub first: Seat,
    pub round: u32,
    pub current: Seat,
    pub phase: Phase,
    /// This turn's movement allowance and the dice behind it.
    pub roll: Option<u32>,
    pub dice: Vec<u32>,
    /// Remaining chance cards, top last. Hidden from everyone.
    pub deck: Vec<usize>,
    /// Cards turned since the last reshuffle.
    pub turned: Vec<usize>,
    /// The card in force this round.
    pub active_card: Option<usize>,
    /// First-arrival cards not yet claimed.
    pub arrivals: Vec<usize>,
    /// Loads sold this turn by the active player, per port and good.
    pub sales: Vec<Sale>,
    /// Fields attacked this turn (HR-10).
    pub attacked_fields: Vec<usize>,
    /// The ship being moved now.
    pub moving: Option<u32>,
    pub pending: Option<Pending>,
    /// Open offers. Left out of the serialised state when there are none, so that "no
    /// offer" is not a field of its own next to the offers' hidden terms.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub offers: Vec<Offer>,
    pub next_offer: u32,
    pub next_load: u32,
    /// Seat that won early (all others out).
    pub early_winner: Option<Seat>,
    /// Recent public events, newest last.
    pub events: Vec<String>,
    pub rng: GameRng,
}

/// How many public events the state keeps (enough for one round of turn emails).
pub const EVENT_MEMORY: usize = 30;

impl State {
    pub fn ship(&self, id: u32) -> Option<&Ship> {
        self.ships.iter().find(|s| s.id == id)
    }
    pub fn ship_mut(&mut self, id: u32) -> Option<&mut Ship> {
        self.ships.iter_mut().find(|s| s.id == id)
    }
    pub fn ships_of(&self, seat: Seat) -> impl Iterator<Item = &Ship> {
        self.ships.iter().filter(move |s| s.owner == seat)
    }
    pub fn ship_count(&self, seat: Seat) -> usize {
        self.ships_of(seat).count()
    }
    pub fn fort_count(&self, seat: Seat) -> usize {
        self.forts.iter().filter(|f| **f == Some(seat)).count()
    }
    pub fn remove_ship(&mut self, id: u32) {
        self.ships.retain(|s| s.id != id);
        if self.moving == Some(id) {
            self.moving = None;
        }
    }
    pub fn event(&mut self, text: String) {
        self.events.push(text);
        if self.events.len() > EVENT_MEMORY {
            let cut = self.events.len() - EVENT_MEMORY;
            self.events.drain(..cut);
        }
    }
    pub fn pay(&mut self, seat: Seat, amount: u32) -> u32 {
        let Some(p) = self.players.get_mut(seat) else {
            return 0;
        };
        let paid = amount.min(p.cash);
        p.cash -= paid;
        paid
    }
    pub fn receive(&mut self, seat: Seat, amount: u32) {
        if let Some(p) = self.players.get_mut(seat) {
            p.cash = p.cash.saturating_add(amount);
        }
    }
    pub fn cash(&self, seat: Seat) -> u32 {
        self.players.get(seat).map_or(0, |p| p.cash)
    }
}
