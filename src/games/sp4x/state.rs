//! Game state: board, pieces, cards, and the pending-decision machinery.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use turnpost_engine::GameRng;
use turnpost_engine::Seat;
use turnpost_engine::hex::Hex;

/// An action card (or the star card, which never enters a hand).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Card {
    MoveExplore,
    Exploit,
    Build,
    Men,
    Steal,
    War,
    GrandPlan,
    Ai,
    Star,
}

impl Card {
    /// The basic actions ("grundhandlinger") a grand plan may name.
    pub const BASIC: [Card; 4] = [Card::MoveExplore, Card::Exploit, Card::Build, Card::Men];

    /// The card as people call it ("move & explore"), for texts and the log.
    pub fn label(self) -> &'static str {
        match self {
            Card::MoveExplore => "move & explore",
            Card::Exploit => "exploit",
            Card::Build => "build",
            Card::Men => "men",
            Card::Steal => "steal",
            Card::War => "war",
            Card::GrandPlan => "grand plan",
            Card::Ai => "AI",
            Card::Star => "star",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Card::MoveExplore => "move_explore",
            Card::Exploit => "exploit",
            Card::Build => "build",
            Card::Men => "men",
            Card::Steal => "steal",
            Card::War => "war",
            Card::GrandPlan => "grand_plan",
            Card::Ai => "ai",
            Card::Star => "star",
        }
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Plastic,
    Food,
    Metal,
}

impl Resource {
    pub const ALL: [Resource; 3] = [Resource::Plastic, Resource::Food, Resource::Metal];

    pub fn idx(self) -> usize {
        match self {
            Resource::Plastic => 0,
            Resource::Food => 1,
            Resource::Metal => 2,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Resource::Plastic => "plastic",
            Resource::Food => "food",
            Resource::Metal => "metal",
        }
    }
}

/// The tile types. The four alien CIV tiles each carry one ability (5.8).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TileKind {
    Mothership,
    PlasticSteppe,
    NSwamp,
    GlyHills,
    Mountain,
    SlimeSea,
    AlienTransmogrifier,
    AlienClusterBots,
    AlienTelemorpher,
    AlienClonePool,
}

impl TileKind {
    pub const ALL: [TileKind; 10] = [
        TileKind::Mothership,
        TileKind::PlasticSteppe,
        TileKind::NSwamp,
        TileKind::GlyHills,
        TileKind::Mountain,
        TileKind::SlimeSea,
        TileKind::AlienTransmogrifier,
        TileKind::AlienClusterBots,
        TileKind::AlienTelemorpher,
        TileKind::AlienClonePool,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TileKind::Mothership => "mothership",
            TileKind::PlasticSteppe => "plastic_steppe",
            TileKind::NSwamp => "n_swamp",
            TileKind::GlyHills => "gly_hills",
            TileKind::Mountain => "mountain",
            TileKind::SlimeSea => "slime_sea",
            TileKind::AlienTransmogrifier => "alien_civ:transmogrifier",
            TileKind::AlienClusterBots => "alien_civ:cluster_bots",
            TileKind::AlienTelemorpher => "alien_civ:telemorpher",
            TileKind::AlienClonePool => "alien_civ:clone_pool",
        }
    }

    /// Two-letter code for the text map.
    /// The tile as people call it ("plastic steppe", "alien clone pool").
    pub fn label(self) -> String {
        self.name()
            .replace("alien_civ:", "alien ")
            .replace('_', " ")
    }

    pub fn code(self) -> &'static str {
        match self {
            TileKind::Mothership => "MS",
            TileKind::PlasticSteppe => "PS",
            TileKind::NSwamp => "NS",
            TileKind::GlyHills => "GH",
            TileKind::Mountain => "MO",
            TileKind::SlimeSea => "SS",
            TileKind::AlienTransmogrifier => "AT",
            TileKind::AlienClusterBots => "AB",
            TileKind::AlienTelemorpher => "AM",
            TileKind::AlienClonePool => "AC",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ability {
    Transmogrifier,
    ClusterBots,
    Telemorpher,
    ClonePool,
}

/// A placed tile and the pieces on it (per seat).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Tile {
    pub hex: Hex,
    pub kind: TileKind,
    pub men: Vec<u8>,
    pub bases: Vec<bool>,
}

/// A road on the edge a–b (a < b), of one colour.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
pub struct Road {
    pub a: Hex,
    pub b: Hex,
    pub owner: Seat,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    /// Secret; kept sorted so its order tells nothing.
    pub hand: Vec<Card>,
    /// plastic, food, metal.
    pub res: [u8; 3],
    pub score: i64,
    /// A shown grand plan lies out: nobody may draw from this player (5.6).
    pub plan_out: bool,
}

/// A card drawn from an opponent: only thief and victim may see `card`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StealRecord {
    pub age: u8,
    pub thief: Seat,
    pub victim: Seat,
    pub card: Card,
}

/// Where the turn stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Step {
    /// The active player draws a card from an opponent.
    Steal,
    /// The active player shows a card or plays a pair.
    Main,
    /// Resolving `frames`.
    Frames,
    /// The active player spends resources, then ends the turn.
    Resources,
    Over,
}

/// How a frame scores when it ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scoring {
    /// A single action, or a star participant who is not a scorer.
    Nothing,
    /// The pair's own points + bonus.
    Points,
    /// `ai_pair`: the bonus only.
    BonusOnly,
    /// Fixed points + bonus (grand plan, HR-12).
    Fixed(i64),
}

/// One player resolving one action (single or pair), with its pending steps.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Frame {
    pub actor: Seat,
    pub card: Card,
    pub pair: bool,
    pub scoring: Scoring,
    /// Accumulated points (harvest amount, resources gained by abilities).
    pub acc: i64,
    /// Pending steps; the last one is decided next.
    pub stack: Vec<Job>,
    /// A shown card: the actor draws the top deck card once the action is resolved (4.2).
    #[serde(default)]
    pub draw_after: bool,
}

/// A pending step of an action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "job", rename_all = "snake_case")]
pub enum Job {
    /// Men move or explore; `left` is None for a pair (every man may). `done` counts men per
    /// tile that have already acted.
    MoveExplore {
        left: Option<u8>,
        done: Vec<(Hex, u8)>,
    },
    /// Place roads on edges touching a tile with an own man.
    Roads {
        left: u8,
    },
    /// Build pair: roads or a base.
    BuildChoice,
    /// Place a base on a tile with an own man (optional for cluster bots).
    Base {
        optional: bool,
    },
    ExploitSingle,
    ExploitPair,
    /// Exploit pair, alien option: use the remaining abilities in a chosen order.
    AlienOrder {
        remaining: Vec<Hex>,
    },
    Transmogrify,
    Telemorph {
        at: Hex,
    },
    MenSingle,
    /// Men pair when the pool is short: place men one by one (at most `per_base` per tile).
    MenPair {
        placed: Vec<(Hex, u8)>,
    },
    StealTarget {
        pair: bool,
    },
    StealTake {
        victim: Seat,
        left: u8,
        pair: bool,
    },
    WarTarget,
    /// Great war: `next` is the seat to nominate.
    GreatWar {
        next: Seat,
    },
    /// The victim chooses a loss (or pays a metal).
    WarLoss {
        attacker: Seat,
        victim: Seat,
        at: Hex,
    },
    /// Grand plan: name a basic action.
    NameBasic,
    /// Star procedure for the shown card: name the action (grand plan), then first/last.
    StarSetup {
        q: Seat,
        action: Option<Card>,
        plan: bool,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub seats: usize,
    pub age: u8,
    pub current: Seat,
    pub step: Step,
    pub tiles: Vec<Tile>,
    pub roads: Vec<Road>,
    /// Face-up tile stack; index 0 is the top (public), the rest hidden.
    pub tile_stack: Vec<TileKind>,
    pub players: Vec<Player>,
    /// Face-up deck; index 0 is the top (public), the last is the star card.
    pub deck: Vec<Card>,
    pub discard: Vec<Card>,
    pub frames: Vec<Frame>,
    pub steals: Vec<StealRecord>,
    /// Public event lines (most recent last), for the text view.
    pub events: Vec<String>,
    pub rng: GameRng,
}

pub const SEAT_NAMES: [&str; 4] = ["Red", "Blue", "Green", "Yellow"];

pub fn seat_name(s: Seat) -> &'static str {
    SEAT_NAMES.get(s).copied().unwrap_or("?")
}

/// Normalised edge (smaller hex first).
pub fn edge(a: Hex, b: Hex) -> (Hex, Hex) {
    if a <= b { (a, b) } else { (b, a) }
}

impl State {
    pub fn tile_idx(&self, h: Hex) -> Option<usize> {
        self.tiles.iter().position(|t| t.hex == h)
    }

    pub fn tile(&self, h: Hex) -> Option<&Tile> {
        self.tiles.iter().find(|t| t.hex == h)
    }

    pub fn men_at(&self, h: Hex, s: Seat) -> u8 {
        self.tile(h)
            .and_then(|t| t.men.get(s).copied())
            .unwrap_or(0)
    }

    pub fn base_at(&self, h: Hex, s: Seat) -> bool {
        self.tile(h)
            .and_then(|t| t.bases.get(s).copied())
            .unwrap_or(false)
    }

    pub fn has_road(&self, s: Seat, a: Hex, b: Hex) -> bool {
        let (a, b) = edge(a, b);
        self.roads
            .iter()
            .any(|r| r.owner == s && r.a == a && r.b == b)
    }

    pub fn road_touches(&self, s: Seat, h: Hex) -> bool {
        self.roads
            .iter()
            .any(|r| r.owner == s && (r.a == h || r.b == h))
    }

    /// Any piece of `s` on `h` (a road counts on both its tiles).
    pub fn present(&self, h: Hex, s: Seat) -> bool {
        self.men_at(h, s) > 0 || self.base_at(h, s) || self.road_touches(s, h)
    }

    pub fn men_on_board(&self, s: Seat) -> u32 {
        self.tiles
            .iter()
            .map(|t| u32::from(t.men.get(s).copied().unwrap_or(0)))
            .sum()
    }

    pub fn bases_on_board(&self, s: Seat) -> u32 {
        self.tiles
            .iter()
            .filter(|t| t.bases.get(s).copied().unwrap_or(false))
            .count() as u32
    }

    pub fn roads_on_board(&self, s: Seat) -> u32 {
        self.roads.iter().filter(|r| r.owner == s).count() as u32
    }

    pub fn add_men(&mut self, h: Hex, s: Seat, n: u8) {
        if let Some(i) = self.tile_idx(h)
            && let Some(m) = self.tiles[i].men.get_mut(s)
        {
            *m = m.saturating_add(n);
        }
    }

    pub fn remove_man(&mut self, h: Hex, s: Seat) {
        if let Some(i) = self.tile_idx(h)
            && let Some(m) = self.tiles[i].men.get_mut(s)
        {
            *m = m.saturating_sub(1);
        }
    }

    pub fn set_base(&mut self, h: Hex, s: Seat, v: bool) {
        if let Some(i) = self.tile_idx(h)
            && let Some(b) = self.tiles[i].bases.get_mut(s)
        {
            *b = v;
        }
    }

    pub fn event(&mut self, line: String) {
        self.events.push(line);
        // Only the recent past is shown; the full history is the action log.
        if self.events.len() > 16 {
            self.events.remove(0);
        }
    }

    pub fn star_active(&self) -> bool {
        self.deck.len() <= 1
    }
}
