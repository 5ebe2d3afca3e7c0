//! The game state: map, groups, colonies, players and the phase machine.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use turnpost_engine::hex::Hex;
use turnpost_engine::{GameRng, Seat};

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum UnitKind {
    Scout,
    Destroyer,
    Cruiser,
    Battlecruiser,
    Battleship,
    Dreadnought,
    Base,
    Shipyard,
    Decoy,
    ColonyShip,
    Miner,
}

impl UnitKind {
    pub const ALL: [UnitKind; 11] = [
        UnitKind::Scout,
        UnitKind::Destroyer,
        UnitKind::Cruiser,
        UnitKind::Battlecruiser,
        UnitKind::Battleship,
        UnitKind::Dreadnought,
        UnitKind::Base,
        UnitKind::Shipyard,
        UnitKind::Decoy,
        UnitKind::ColonyShip,
        UnitKind::Miner,
    ];

    pub fn name(self) -> &'static str {
        match self {
            UnitKind::Scout => "scout",
            UnitKind::Destroyer => "destroyer",
            UnitKind::Cruiser => "cruiser",
            UnitKind::Battlecruiser => "battlecruiser",
            UnitKind::Battleship => "battleship",
            UnitKind::Dreadnought => "dreadnought",
            UnitKind::Base => "base",
            UnitKind::Shipyard => "shipyard",
            UnitKind::Decoy => "decoy",
            UnitKind::ColonyShip => "colony ship",
            UnitKind::Miner => "miner",
        }
    }

    /// Ships that hide face down as counters (everything but the always-public units).
    pub fn hides(self) -> bool {
        !matches!(
            self,
            UnitKind::Base | UnitKind::Shipyard | UnitKind::ColonyShip | UnitKind::Miner
        )
    }

    /// Ships that always use their owner's current tech (seed).
    pub fn current_tech(self) -> bool {
        matches!(self, UnitKind::Base | UnitKind::Shipyard | UnitKind::Decoy)
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Tech {
    ShipSize,
    Attack,
    Defense,
    Tactics,
    Movement,
    Shipyard,
    Terraforming,
    Exploration,
}

impl Tech {
    pub const ALL: [Tech; 8] = [
        Tech::ShipSize,
        Tech::Attack,
        Tech::Defense,
        Tech::Tactics,
        Tech::Movement,
        Tech::Shipyard,
        Tech::Terraforming,
        Tech::Exploration,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tech::ShipSize => "ship size",
            Tech::Attack => "attack",
            Tech::Defense => "defense",
            Tech::Tactics => "tactics",
            Tech::Movement => "movement",
            Tech::Shipyard => "shipyard",
            Tech::Terraforming => "terraforming",
            Tech::Exploration => "exploration",
        }
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Marker {
    Empty,
    Planet,
    BarrenPlanet,
    #[serde(rename = "minerals_5")]
    Minerals5,
    #[serde(rename = "minerals_10")]
    Minerals10,
    Nebula,
    Asteroids,
    BlackHole,
    Danger,
    LostInSpace,
    Supernova,
    SpaceWreck,
    WarpPoint,
    DoomsdayMachine,
}

impl Marker {
    pub fn name(self) -> &'static str {
        match self {
            Marker::Empty => "empty",
            Marker::Planet => "planet",
            Marker::BarrenPlanet => "barren planet",
            Marker::Minerals5 => "minerals 5",
            Marker::Minerals10 => "minerals 10",
            Marker::Nebula => "nebula",
            Marker::Asteroids => "asteroids",
            Marker::BlackHole => "black hole",
            Marker::Danger => "danger",
            Marker::LostInSpace => "lost in space",
            Marker::Supernova => "supernova",
            Marker::SpaceWreck => "space wreck",
            Marker::WarpPoint => "warp point",
            Marker::DoomsdayMachine => "doomsday machine",
        }
    }

    /// Two letters for the text map.
    pub fn code(self) -> &'static str {
        match self {
            Marker::Empty | Marker::WarpPoint | Marker::DoomsdayMachine => "  ",
            Marker::Planet => "Pl",
            Marker::BarrenPlanet => "Ba",
            Marker::Minerals5 => "M5",
            Marker::Minerals10 => "MX",
            Marker::Nebula => "Ne",
            Marker::Asteroids => "As",
            Marker::BlackHole => "BH",
            Marker::Danger => "Dg",
            Marker::LostInSpace => "LS",
            Marker::Supernova => "SN",
            Marker::SpaceWreck => "Wr",
        }
    }

    pub fn is_cargo(self) -> bool {
        matches!(
            self,
            Marker::Minerals5 | Marker::Minerals10 | Marker::SpaceWreck
        )
    }
}

/// One hex of the map.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Cell {
    pub x: i32,
    pub y: i32,
    /// The Home System the hex belongs to (its markers have that player's border).
    pub home_of: Option<Seat>,
    /// The marker; hidden from everyone while `explored` is false.
    pub marker: Marker,
    pub explored: bool,
}

/// A counter on the map: 1-6 units of one type with the tech they were built with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    pub id: u32,
    pub owner: Seat,
    pub kind: UnitKind,
    pub count: u8,
    /// Damage on the one ship that takes hits (repaired after each battle).
    pub damage: u8,
    pub pos: usize,
    /// The hex it last came from (supernova bounces back there).
    pub prev: usize,
    pub face_up: bool,
    pub attack: u8,
    pub defense: u8,
    pub tactics: u8,
    pub movement: u8,
    /// Cruisers built at exploration 1 may peek; colony ships built at terraforming 1 may land on barren planets.
    pub special: bool,
    /// Hexes moved this turn.
    pub moved: u8,
    /// Movement over for this turn.
    pub done: bool,
    /// Split or merged this turn (bounds regrouping).
    pub regrouped: bool,
    pub peeked: bool,
    /// A miner's load.
    pub cargo: Option<Marker>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Colony {
    pub owner: Seat,
    pub pos: usize,
    pub homeworld: bool,
    /// CP value; 0 = a grounded colony ship.
    pub value: u8,
    /// Minerals and wrecks delivered, paid out at the next unblockaded ECON.
    pub deposits: Vec<Marker>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub cp: i64,
    pub tech: [u8; 8],
    pub alive: bool,
    /// Round in which the player was eliminated (ranking).
    pub eliminated_round: Option<u32>,
    pub homeworld: Option<usize>,
    /// Markers this player peeked at and left face down: (hex, marker). Only they see them.
    pub peeks: Vec<(usize, Marker)>,
}

impl Player {
    pub fn level(&self, t: Tech) -> u8 {
        self.tech[t as usize]
    }
}

/// One line of a secret economic order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OrderLine {
    Research { tech: Tech },
    Build { unit: UnitKind, pos: usize },
    Scuttle { group: u32 },
}

/// A seat's draft of its economic order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default, JsonSchema)]
pub struct Draft {
    /// CP available this phase after maintenance (income + carry - maintenance + scuttle relief).
    pub available: i64,
    pub income: i64,
    pub maintenance: i64,
    pub bid: Option<i64>,
    pub lines: Vec<OrderLine>,
    pub spent: i64,
    pub submitted: bool,
    /// Space wrecks delivered to unblockaded colonies: rolled at resolution.
    pub wrecks: u32,
    /// Colonies blockaded this phase (hexes).
    pub blockaded: Vec<usize>,
}

/// What everyone learns when the orders are revealed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reveal {
    pub seat: Seat,
    pub bid: i64,
    /// Counter ids placed this phase.
    pub new_counters: Vec<u32>,
}

/// A seat's plan for one combat round (HR-12).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default, JsonSchema)]
pub struct Plan {
    /// (group, ships screened)
    pub screened: Vec<(u32, u8)>,
    /// (group, hex, ships)
    pub retreats: Vec<(u32, usize, u8)>,
    pub targets: Vec<u32>,
    pub submitted: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Battle {
    pub pos: usize,
    pub attacker: Seat,
    pub defender: Seat,
    pub round: u32,
    /// Plans of [attacker, defender].
    pub plans: [Plan; 2],
}

/// Where the game stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// Players pick their Homeworld hex in seat order.
    ChooseHome {
        seat: Seat,
    },
    /// A player's turn: movement, combat, exploration.
    Move,
    Combat,
    Explore,
    /// Simultaneous secret orders.
    Econ,
    /// The bid winner sets the turn order.
    ChooseOrder {
        chooser: Seat,
    },
    Over,
}

/// A choice owed by someone other than the phase's player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Pending {
    /// A cruiser peeked; its owner reveals or hides the marker.
    Peek { seat: Seat, pos: usize },
    /// Lost in space: `chooser` moves `victim`'s units out of `pos`.
    LostInSpace {
        chooser: Seat,
        victim: Seat,
        pos: usize,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// None = public.
    pub seen_by: Option<Seat>,
    pub text: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub seats: usize,
    pub width: i32,
    pub height: i32,
    /// Indexed y * width + x; off-map hexes are absent from `on_map`.
    pub cells: Vec<Cell>,
    pub on_map: Vec<bool>,
    pub groups: Vec<Group>,
    pub colonies: Vec<Colony>,
    pub players: Vec<Player>,
    /// Home markers not yet placed (until the Homeworld is chosen), per seat.
    pub home_stock: Vec<Vec<Marker>>,
    pub round: u32,
    pub turn: u8,
    pub order: Vec<Seat>,
    /// Index into `order` of the player whose turn it is.
    pub current: usize,
    pub phase: Phase,
    pub pending: Option<Pending>,
    pub battle: Option<Battle>,
    /// Hexes the current player has already bombarded this COMBAT.
    pub bombarded: Vec<usize>,
    /// Hexes still to explore this EXPLORE (after a lost-in-space choice or battle).
    pub explore_queue: Vec<usize>,
    pub drafts: Vec<Draft>,
    pub last_reveal: Vec<Reveal>,
    /// The last order each seat submitted (shown to that seat only).
    pub last_orders: Vec<Vec<OrderLine>>,
    pub bids: Vec<i64>,
    pub next_id: u32,
    /// The groups moving together right now (finish one before moving another).
    pub active: Vec<u32>,
    pub events: Vec<Event>,
    pub round_cap: Option<u32>,
    pub instant_upgrades: bool,
    pub rng: GameRng,
    /// The rules version the game was set up under. Snapshots from before the field existed
    /// are version 1 games; version 1 is not written out, so they re-encode byte for byte.
    #[serde(default = "rules_v1", skip_serializing_if = "is_rules_v1")]
    pub rules_version: u32,
}

/// Rules version 2: retreat toward any own colony, no base or shipyard at a
/// blockaded colony, a default round cap.
pub const RULES_VERSION: u32 = 2;

fn rules_v1() -> u32 {
    1
}

fn is_rules_v1(v: &u32) -> bool {
    *v == 1
}

pub const MAX_EVENTS: usize = 60;

impl State {
    pub fn idx(&self, x: i32, y: i32) -> Option<usize> {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return None;
        }
        let i = (y * self.width + x) as usize;
        if self.on_map.get(i).copied().unwrap_or(false) {
            Some(i)
        } else {
            None
        }
    }

    pub fn xy(&self, i: usize) -> (i32, i32) {
        let w = self.width.max(1) as usize;
        ((i % w) as i32, (i / w) as i32)
    }

    /// Odd-r neighbours on the map (digest 2.8).
    pub fn neighbours(&self, i: usize) -> Vec<usize> {
        let (x, y) = self.xy(i);
        let d: [(i32, i32); 6] = if y % 2 == 0 {
            [(1, 0), (-1, 0), (-1, -1), (0, -1), (-1, 1), (0, 1)]
        } else {
            [(1, 0), (-1, 0), (0, -1), (1, -1), (0, 1), (1, 1)]
        };
        d.iter()
            .filter_map(|(dx, dy)| self.idx(x + dx, y + dy))
            .collect()
    }

    pub fn distance(&self, a: usize, b: usize) -> u32 {
        let (ax, ay) = self.xy(a);
        let (bx, by) = self.xy(b);
        Hex::from_offset(ax, ay).distance(Hex::from_offset(bx, by))
    }

    pub fn current_player(&self) -> Seat {
        self.order.get(self.current).copied().unwrap_or(0)
    }

    pub fn group(&self, id: u32) -> Option<&Group> {
        self.groups.iter().find(|g| g.id == id)
    }

    pub fn group_mut(&mut self, id: u32) -> Option<&mut Group> {
        self.groups.iter_mut().find(|g| g.id == id)
    }

    pub fn colony_at(&self, pos: usize) -> Option<&Colony> {
        self.colonies.iter().find(|c| c.pos == pos)
    }

    pub fn log(&mut self, text: impl Into<String>) {
        self.events.push(Event {
            seen_by: None,
            text: text.into(),
        });
        self.trim_events();
    }

    pub fn log_private(&mut self, seat: Seat, text: impl Into<String>) {
        self.events.push(Event {
            seen_by: Some(seat),
            text: text.into(),
        });
        self.trim_events();
    }

    fn trim_events(&mut self) {
        if self.events.len() > MAX_EVENTS {
            let cut = self.events.len() - MAX_EVENTS;
            self.events.drain(..cut);
        }
    }

    pub fn hex_name(&self, i: usize) -> String {
        let (x, y) = self.xy(i);
        format!("({x},{y})")
    }

    pub fn alive(&self) -> Vec<Seat> {
        (0..self.seats)
            .filter(|s| self.players.get(*s).is_some_and(|p| p.alive))
            .collect()
    }
}
