//! The content pack (board, chips, costs, balls, encounter and friendship cards): parsed from
//! `starfarers.toml`, validated, and turned into the intersection graph the rules use.

use std::collections::{BTreeMap, BTreeSet};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use turnpost_engine::graph::Graph;
use turnpost_engine::hex::Hex;

/// The shipped data file.
pub const DATA_TOML: &str = include_str!("starfarers.toml");

/// One of the five resources.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Carbon,
    Food,
    Fuel,
    Ore,
    TradeGoods,
}

impl Resource {
    pub const ALL: [Resource; 5] = [
        Resource::Carbon,
        Resource::Food,
        Resource::Fuel,
        Resource::Ore,
        Resource::TradeGoods,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Resource::Carbon => "carbon",
            Resource::Food => "food",
            Resource::Fuel => "fuel",
            Resource::Ore => "ore",
            Resource::TradeGoods => "trade goods",
        }
    }

    /// One letter for the map.
    pub fn letter(self) -> char {
        match self {
            Resource::Carbon => 'c',
            Resource::Food => 'f',
            Resource::Fuel => 'u',
            Resource::Ore => 'o',
            Resource::TradeGoods => 't',
        }
    }
}

/// A bundle of resource cards (a hand, a cost, one side of a trade).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(default, deny_unknown_fields)]
pub struct Resources {
    pub carbon: u32,
    pub food: u32,
    pub fuel: u32,
    pub ore: u32,
    pub trade_goods: u32,
}

impl Resources {
    pub fn get(&self, r: Resource) -> u32 {
        match r {
            Resource::Carbon => self.carbon,
            Resource::Food => self.food,
            Resource::Fuel => self.fuel,
            Resource::Ore => self.ore,
            Resource::TradeGoods => self.trade_goods,
        }
    }

    pub fn slot(&mut self, r: Resource) -> &mut u32 {
        match r {
            Resource::Carbon => &mut self.carbon,
            Resource::Food => &mut self.food,
            Resource::Fuel => &mut self.fuel,
            Resource::Ore => &mut self.ore,
            Resource::TradeGoods => &mut self.trade_goods,
        }
    }

    pub fn one(r: Resource, n: u32) -> Resources {
        let mut x = Resources::default();
        *x.slot(r) = n;
        x
    }

    /// Total card count, saturating (client data may be huge).
    pub fn total(&self) -> u32 {
        Resource::ALL
            .iter()
            .fold(0u32, |a, &r| a.saturating_add(self.get(r)))
    }

    pub fn covers(&self, other: &Resources) -> bool {
        Resource::ALL.iter().all(|&r| self.get(r) >= other.get(r))
    }

    /// `self - other`, or None if `other` is not covered.
    pub fn minus(&self, other: &Resources) -> Option<Resources> {
        let mut out = *self;
        for r in Resource::ALL {
            *out.slot(r) = self.get(r).checked_sub(other.get(r))?;
        }
        Some(out)
    }

    pub fn plus(&self, other: &Resources) -> Resources {
        let mut out = *self;
        for r in Resource::ALL {
            *out.slot(r) = self.get(r).saturating_add(other.get(r));
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// "2 ore, 1 fuel"; "nothing" when empty.
    pub fn describe(&self) -> String {
        let parts: Vec<String> = Resource::ALL
            .iter()
            .filter(|&&r| self.get(r) > 0)
            .map(|&r| format!("{} {}", self.get(r), r.name()))
            .collect();
        if parts.is_empty() {
            "nothing".into()
        } else {
            parts.join(", ")
        }
    }

    /// The cards one by one, in resource order.
    pub fn cards(&self) -> Vec<Resource> {
        let mut v = Vec::new();
        for r in Resource::ALL {
            for _ in 0..self.get(r).min(1000) {
                v.push(r);
            }
        }
        v
    }

    /// Every sub-bundle of exactly `n` cards (stable order).
    pub fn subsets_of_size(&self, n: u32) -> Vec<Resources> {
        let mut out = Vec::new();
        fn rec(
            hand: &Resources,
            i: usize,
            left: u32,
            cur: &mut Resources,
            out: &mut Vec<Resources>,
        ) {
            if i == Resource::ALL.len() {
                if left == 0 {
                    out.push(*cur);
                }
                return;
            }
            let r = Resource::ALL[i];
            for k in 0..=hand.get(r).min(left) {
                *cur.slot(r) = k;
                rec(hand, i + 1, left - k, cur, out);
            }
            *cur.slot(r) = 0;
        }
        rec(self, 0, n, &mut Resources::default(), &mut out);
        out
    }
}

/// A planet chip: a production number, pirates or ice (with the strength needed).
/// Serialised in the data file's form: "5", "pirates_2", "ice_3".
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(into = "String", try_from = "String")]
pub enum Chip {
    Number(u8),
    Pirates(u8),
    Ice(u8),
}

impl From<Chip> for String {
    fn from(c: Chip) -> String {
        match c {
            Chip::Number(n) => n.to_string(),
            Chip::Pirates(n) => format!("pirates_{n}"),
            Chip::Ice(n) => format!("ice_{n}"),
        }
    }
}

impl TryFrom<String> for Chip {
    type Error = String;
    fn try_from(s: String) -> Result<Chip, String> {
        Chip::parse(&s)
    }
}

impl Chip {
    pub fn parse(s: &str) -> Result<Chip, String> {
        let num = |t: &str| t.parse::<u8>().map_err(|_| format!("bad chip {s:?}"));
        let chip = if let Some(n) = s.strip_prefix("pirates_") {
            Chip::Pirates(num(n)?)
        } else if let Some(n) = s.strip_prefix("ice_") {
            Chip::Ice(num(n)?)
        } else {
            Chip::Number(num(s)?)
        };
        match chip {
            Chip::Number(n) if (2..=12).contains(&n) && n != 7 => Ok(chip),
            Chip::Pirates(n) | Chip::Ice(n) if (1..=6).contains(&n) => Ok(chip),
            _ => Err(format!("chip {s:?} is out of range")),
        }
    }

    pub fn describe(self) -> String {
        match self {
            Chip::Number(n) => n.to_string(),
            Chip::Pirates(n) => format!("pirates {n}"),
            Chip::Ice(n) => format!("ice {n}"),
        }
    }
}

// ---------------------------------------------------------------- raw file shapes

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    board: RawBoard,
    rules: Rules,
    limits: Limits,
    pieces: Pieces,
    costs: Costs,
    balls: Vec<Ball>,
    systems: Vec<RawSystem>,
    chips: RawChips,
    outposts: Vec<RawOutpost>,
    encounters: Vec<Encounter>,
    friendship: Vec<FriendshipCard>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBoard {
    row_min: i32,
    row_max: i32,
    x_min: i32,
    x_max: i32,
    expect_cells: usize,
    expect_intersections: usize,
    expect_lines: usize,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub victory_points: u32,
    pub supply_below_vp: u32,
    pub discard_above: u32,
    pub fame_start: u32,
    pub fame_max: u32,
    pub fame_per_vp: u32,
    pub encounter_base_speed: u32,
    pub bank_rate: u32,
    pub trade_goods_rate: u32,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    pub booster: u32,
    pub cannon: u32,
    pub freight_ring: u32,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pieces {
    pub transporters: u32,
    pub colonies: u32,
    pub spaceports: u32,
    pub trade_modules: u32,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Costs {
    pub colony_ship: Resources,
    pub trade_ship: Resources,
    pub spaceport: Resources,
    pub booster: Resources,
    pub cannon: Resources,
    pub freight_ring: Resources,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ball {
    pub name: String,
    #[serde(default)]
    pub black: bool,
    pub value: u32,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSystem {
    id: String,
    anchor: [i32; 2],
    #[serde(default)]
    home_seat: Option<usize>,
    #[serde(default)]
    colonies: Vec<String>,
    #[serde(default)]
    spaceport: Option<String>,
    #[serde(default)]
    ship: Option<[[i32; 2]; 3]>,
    planets: Vec<RawPlanet>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlanet {
    at: String,
    resource: Resource,
    #[serde(default)]
    chip: Option<u8>,
    #[serde(default)]
    name: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawChips {
    outer: Vec<String>,
    reserve: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOutpost {
    race: String,
    cell: [i32; 2],
    entrance: String,
    docks: Vec<String>,
}

/// What an encounter card gives or takes (one side of its effect).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Gain {
    pub carbon: u32,
    pub food: u32,
    pub fuel: u32,
    pub ore: u32,
    pub trade_goods: u32,
    pub fame: i32,
    pub booster: u32,
    pub cannon: u32,
    pub freight_ring: u32,
    /// At the limit an upgrade becomes its resource instead (booster→fuel, cannon→carbon,
    /// ring→ore); without it, the upgrade is simply not gained.
    pub fallback: bool,
}

impl Gain {
    pub fn resources(&self) -> Resources {
        Resources {
            carbon: self.carbon,
            food: self.food,
            fuel: self.fuel,
            ore: self.ore,
            trade_goods: self.trade_goods,
        }
    }

    pub fn is_nothing(&self) -> bool {
        self.resources().is_empty()
            && self.fame == 0
            && self.booster == 0
            && self.cannon == 0
            && self.freight_ring == 0
    }

    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.resources().is_empty() {
            parts.push(self.resources().describe());
        }
        if self.fame != 0 {
            parts.push(format!("{:+} fame", self.fame));
        }
        for (n, what) in [
            (self.booster, "booster"),
            (self.cannon, "cannon"),
            (self.freight_ring, "freight ring"),
        ] {
            if n > 0 {
                parts.push(format!("+{n} {what}"));
            }
        }
        if parts.is_empty() {
            "nothing".into()
        } else {
            parts.join(", ")
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EncounterKind {
    Gain,
    ChooseResources,
    Offer,
    Fight,
    SpeedSet,
    SpeedBonus,
    LoseBooster,
    DiscardRandom,
}

/// One encounter card (HR-8), as structured data.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Encounter {
    pub id: String,
    pub name: String,
    pub kind: EncounterKind,
    #[serde(default)]
    pub gain: Gain,
    /// choose_resources / discard_random: how many cards.
    #[serde(default)]
    pub count: u32,
    /// offer: a fixed payment...
    #[serde(default)]
    pub pay: Resources,
    /// ...or between min and max cards of any type.
    #[serde(default)]
    pub pay_any: Option<[u32; 2]>,
    #[serde(default)]
    pub reward: Gain,
    #[serde(default)]
    pub decline: Gain,
    /// offer: the paid cards go to the player with the fewest VP.
    #[serde(default)]
    pub to_poorest: bool,
    /// offer: the paid cards come back as the same number of this resource.
    #[serde(default)]
    pub convert_to: Option<Resource>,
    #[serde(default)]
    pub strength: u32,
    /// fight: tribute in cards instead of fighting (0: must fight).
    #[serde(default)]
    pub tribute: u32,
    /// fight: what a win gives (default +1 fame).
    #[serde(default)]
    pub win: Option<Gain>,
    #[serde(default)]
    pub speed: u32,
}

impl Encounter {
    pub fn win_gain(&self) -> Gain {
        self.win.clone().unwrap_or(Gain {
            fame: 1,
            ..Gain::default()
        })
    }

    /// A line for the log and the email.
    pub fn describe(&self) -> String {
        let what = match self.kind {
            EncounterKind::Gain => format!("gain {}", self.gain.describe()),
            EncounterKind::ChooseResources => {
                format!("take {} resources of your choice", self.count)
            }
            EncounterKind::Offer => {
                let pay = match self.pay_any {
                    Some([a, b]) if a == b => format!("{a} card(s) of any type"),
                    Some([a, b]) => format!("{a}-{b} cards of any type"),
                    None => self.pay.describe(),
                };
                let reward = match self.convert_to {
                    Some(r) => format!("the same number of {}", r.name()),
                    None => self.reward.describe(),
                };
                let to = if self.to_poorest {
                    " to the player with the fewest VP"
                } else {
                    ""
                };
                let decline = if self.decline.is_nothing() {
                    String::new()
                } else {
                    format!("; refusing: {}", self.decline.describe())
                };
                format!("may pay {pay}{to} for {reward}{decline}")
            }
            EncounterKind::Fight => {
                let t = if self.tribute == 0 {
                    "must fight".to_string()
                } else {
                    format!("tribute {}", self.tribute)
                };
                format!(
                    "pirates, strength {}, {t}; a win gives {}",
                    self.strength,
                    self.win_gain().describe()
                )
            }
            EncounterKind::SpeedSet => format!("every ship has speed {} this flight", self.speed),
            EncounterKind::SpeedBonus => format!("+{} speed this flight", self.speed),
            EncounterKind::LoseBooster => "lose 1 booster (or 1 fuel)".into(),
            EncounterKind::DiscardRandom => {
                format!("discard {} resource cards at random", self.count)
            }
        };
        format!("{} {} ({what})", self.id, self.name)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FriendshipEffect {
    Harvest,
    Market,
    Storehouse,
    Relief,
    Speed,
    Cannons,
    FreightRings,
    Broker,
    Patronage,
    Pathfinder,
    Scouts,
    Warp,
}

/// One friendship card (HR-9).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FriendshipCard {
    pub id: String,
    pub race: String,
    pub effect: FriendshipEffect,
    #[serde(default)]
    pub resource: Option<Resource>,
    pub amount: u32,
}

impl FriendshipCard {
    pub fn describe(&self) -> String {
        let a = self.amount;
        let text = match self.effect {
            FriendshipEffect::Harvest => format!("+{a} food when your colonies produce food"),
            FriendshipEffect::Market => format!(
                "bank trade {} at {a}:1",
                self.resource.map_or("?", Resource::name)
            ),
            FriendshipEffect::Storehouse => format!("on a 7 discard only above {a} cards"),
            FriendshipEffect::Relief => {
                format!("a roll that gives you nothing: take {a} resource of your choice")
            }
            FriendshipEffect::Speed => format!("+{a} speed"),
            FriendshipEffect::Cannons => format!("+{a} cannons against pirates"),
            FriendshipEffect::FreightRings => format!("+{a} freight ring for ice and docks"),
            FriendshipEffect::Broker => "once per turn swap 1 trade goods for any resource".into(),
            FriendshipEffect::Patronage => format!("once per turn pay {a} trade goods for +1 fame"),
            FriendshipEffect::Pathfinder => "may end next to other spaceports".into(),
            FriendshipEffect::Scouts => format!("draw {a} encounter cards, resolve one"),
            FriendshipEffect::Warp => format!("once per flight one ship +{a} speed"),
        };
        format!("{} ({text})", friendship_title(&self.id))
    }
}

/// A friendship card's id as people read it: "gf_harvest" → "Green Folk harvest".
pub fn friendship_title(id: &str) -> String {
    let (race, rest) = id.split_once('_').unwrap_or(("", id));
    let race = match race {
        "gf" => "Green Folk",
        "me" => "Merchants",
        "sc" => "Scientists",
        "tr" => "Travelers",
        other => other,
    };
    let rest = rest.replace('_', " ");
    if race.is_empty() {
        rest
    } else {
        format!("{race} {rest}")
    }
}

// ---------------------------------------------------------------- built data

/// An intersection of the travel graph.
#[derive(Clone, Debug)]
pub struct Node {
    /// The three cells meeting here, sorted.
    pub cells: [Hex; 3],
    /// Grid position for drawing: 2·x and 3·y of the corner's pixel position.
    pub gx: i32,
    pub gy: i32,
    /// Planets whose cell has this corner.
    pub planets: Vec<usize>,
    /// Colony site: (system, site 0 = left-top, 1 = right-top, 2 = bottom).
    pub site: Option<(usize, usize)>,
    /// Dock: (outpost, dock number 1..=5).
    pub dock: Option<(usize, u32)>,
}

#[derive(Clone, Debug)]
pub struct Planet {
    pub system: usize,
    pub cell: Hex,
    pub resource: Resource,
    /// Home planets have a fixed, public chip.
    pub home_chip: Option<Chip>,
    pub name: String,
    /// The colony sites (nodes) touching this planet.
    pub sites: Vec<usize>,
    /// Every corner (node) of the planet's cell.
    pub corners: Vec<usize>,
}

#[derive(Clone, Debug)]
pub struct System {
    pub id: String,
    /// Planets BL, T, BR.
    pub planets: [usize; 3],
    /// Site nodes: left-top, right-top, bottom.
    pub sites: [usize; 3],
    /// The two planets each site touches.
    pub site_planets: [[usize; 2]; 3],
    pub home_seat: Option<usize>,
    pub colony_sites: Vec<usize>,
    pub spaceport_site: usize,
    pub ship_node: usize,
}

#[derive(Clone, Debug)]
pub struct Outpost {
    pub race: String,
    pub cell: Hex,
    pub entrance: usize,
    /// Nodes of docks 1..=5.
    pub docks: Vec<usize>,
}

/// Everything the rules read from the content pack, validated.
#[derive(Clone, Debug, Default)]
pub struct Data {
    pub rules: Rules,
    pub limits: Limits,
    pub pieces: Pieces,
    pub costs: Costs,
    pub balls: Vec<Ball>,
    pub nodes: Vec<Node>,
    pub graph: Graph,
    pub lines: usize,
    pub planets: Vec<Planet>,
    pub systems: Vec<System>,
    pub outposts: Vec<Outpost>,
    pub outer_chips: Vec<Chip>,
    pub reserve_chips: Vec<Chip>,
    pub encounters: Vec<Encounter>,
    pub friendship: Vec<FriendshipCard>,
    pub races: Vec<String>,
    pub cells: BTreeSet<Hex>,
}

type Key = [Hex; 3];

fn key(mut cells: [Hex; 3]) -> Key {
    cells.sort();
    cells
}

/// The corner of cell (q,r) named N, NE, SE, S, SW or NW (rules 2.3).
pub fn corner(c: Hex, dir: &str) -> Option<Key> {
    let (q, r) = (c.q, c.r);
    let h = Hex::new;
    let cells = match dir {
        "N" => [h(q, r), h(q, r - 1), h(q + 1, r - 1)],
        "NE" => [h(q, r), h(q + 1, r - 1), h(q + 1, r)],
        "SE" => [h(q, r), h(q + 1, r), h(q, r + 1)],
        "S" => [h(q, r), h(q, r + 1), h(q - 1, r + 1)],
        "SW" => [h(q, r), h(q - 1, r + 1), h(q - 1, r)],
        "NW" => [h(q, r), h(q - 1, r), h(q, r - 1)],
        _ => return None,
    };
    Some(key(cells))
}

const DIRS: [&str; 6] = ["N", "NE", "SE", "S", "SW", "NW"];

/// Parses and validates a content pack. Every broken rule is a clear error.
pub fn parse_and_validate(text: &str) -> Result<Data, String> {
    let raw: RawFile = toml::from_str(text).map_err(|e| format!("starfarers data: {e}"))?;
    build(raw).map_err(|e| format!("starfarers data: {e}"))
}

fn build(raw: RawFile) -> Result<Data, String> {
    let b = &raw.board;
    // Cells: 2x = 2q + r must lie in [2·x_min, 2·x_max].
    let mut cells = BTreeSet::new();
    for r in b.row_min..=b.row_max {
        for q in (2 * b.x_min - r - 2) / 2 - 1..=(2 * b.x_max - r) / 2 + 1 {
            let x2 = 2 * q + r;
            if x2 >= 2 * b.x_min && x2 <= 2 * b.x_max {
                cells.insert(Hex::new(q, r));
            }
        }
    }
    if cells.len() != b.expect_cells {
        return Err(format!(
            "board has {} cells, expected {}",
            cells.len(),
            b.expect_cells
        ));
    }
    let on_board = |c: Hex| cells.contains(&c);

    // Star corners of the systems are not part of the travel graph.
    let mut stars = BTreeSet::new();
    for s in &raw.systems {
        let a = Hex::new(s.anchor[0], s.anchor[1]);
        stars.insert(corner(a, "NE").ok_or("internal corner")?);
    }

    let mut keys: BTreeSet<Key> = BTreeSet::new();
    let mut edges: BTreeSet<(Key, Key)> = BTreeSet::new();
    for &c in &cells {
        let cs: Vec<Key> = DIRS.iter().filter_map(|d| corner(c, d)).collect();
        for i in 0..6 {
            let (a, b2) = (cs[i], cs[(i + 1) % 6]);
            if stars.contains(&a) || stars.contains(&b2) {
                continue;
            }
            keys.insert(a);
            keys.insert(b2);
            edges.insert(if a < b2 { (a, b2) } else { (b2, a) });
        }
    }
    let pos = |k: &Key| {
        let gy: i32 = k.iter().map(|h| h.r).sum();
        let gx: i32 = k.iter().map(|h| 2 * h.q + h.r).sum::<i32>() / 3;
        (gy, gx)
    };
    let mut ordered: Vec<Key> = keys.into_iter().collect();
    ordered.sort_by_key(|k| pos(k));
    if ordered.len() != b.expect_intersections {
        return Err(format!(
            "travel graph has {} intersections, expected {}",
            ordered.len(),
            b.expect_intersections
        ));
    }
    if edges.len() != b.expect_lines {
        return Err(format!(
            "travel graph has {} lines, expected {}",
            edges.len(),
            b.expect_lines
        ));
    }
    let index: BTreeMap<Key, usize> = ordered.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let mut graph = Graph::new(ordered.len());
    for (a, b2) in &edges {
        graph.add_edge(index[a], index[b2]);
    }
    if !graph.is_connected() {
        return Err("travel graph is not connected".into());
    }
    let mut nodes: Vec<Node> = ordered
        .iter()
        .map(|k| {
            let (gy, gx) = pos(k);
            Node {
                cells: *k,
                gx,
                gy,
                planets: Vec::new(),
                site: None,
                dock: None,
            }
        })
        .collect();
    let node_of = |c: Hex, d: &str| -> Result<usize, String> {
        corner(c, d)
            .and_then(|k| index.get(&k).copied())
            .ok_or(format!("corner {d} of {c} is not an intersection"))
    };

    // Systems and planets.
    let mut used_cells = BTreeSet::new();
    let mut systems = Vec::new();
    let mut planets: Vec<Planet> = Vec::new();
    let mut ids = BTreeSet::new();
    let mut home_seats = BTreeSet::new();
    for s in &raw.systems {
        if !ids.insert(s.id.clone()) {
            return Err(format!("system {} appears twice", s.id));
        }
        let a = Hex::new(s.anchor[0], s.anchor[1]);
        let cell_of = |at: &str| match at {
            "BL" => Some(a),
            "BR" => Some(Hex::new(a.q + 1, a.r)),
            "T" => Some(Hex::new(a.q + 1, a.r - 1)),
            _ => None,
        };
        let mut idx = [usize::MAX; 3];
        for p in &s.planets {
            let slot = match p.at.as_str() {
                "BL" => 0,
                "T" => 1,
                "BR" => 2,
                other => {
                    return Err(format!(
                        "system {}: planet position {other:?} is not BL, T or BR",
                        s.id
                    ));
                }
            };
            if idx[slot] != usize::MAX {
                return Err(format!("system {}: two planets at {}", s.id, p.at));
            }
            let cell = cell_of(&p.at).ok_or("internal planet position")?;
            if !on_board(cell) {
                return Err(format!(
                    "system {}: planet {} at {cell} is off the board",
                    s.id, p.at
                ));
            }
            if !used_cells.insert(cell) {
                return Err(format!("system {}: cell {cell} is used twice", s.id));
            }
            let home_chip = match (s.home_seat, p.chip) {
                (Some(_), Some(n)) => {
                    Some(Chip::parse(&n.to_string()).map_err(|e| format!("system {}: {e}", s.id))?)
                }
                (Some(_), None) => {
                    return Err(format!(
                        "system {}: home planet {} needs a chip",
                        s.id, p.at
                    ));
                }
                (None, Some(_)) => {
                    return Err(format!("system {}: outer planets get random chips", s.id));
                }
                (None, None) => None,
            };
            idx[slot] = planets.len();
            let corners = DIRS
                .iter()
                .map(|d| node_of(cell, d))
                .filter_map(Result::ok)
                .collect();
            planets.push(Planet {
                system: systems.len(),
                cell,
                resource: p.resource,
                home_chip,
                name: p.name.clone().unwrap_or(format!("{} {}", s.id, p.at)),
                sites: Vec::new(),
                corners,
            });
        }
        if idx.contains(&usize::MAX) {
            return Err(format!("system {} needs planets BL, T and BR", s.id));
        }
        let bl = a;
        let br = Hex::new(a.q + 1, a.r);
        let sites = [node_of(bl, "N")?, node_of(br, "N")?, node_of(bl, "SE")?];
        let site_planets = [[idx[0], idx[1]], [idx[1], idx[2]], [idx[0], idx[2]]];
        for (i, &n) in sites.iter().enumerate() {
            nodes[n].site = Some((systems.len(), i));
            for &p in &site_planets[i] {
                planets[p].sites.push(n);
            }
        }
        let site_index = |name: &str| match name {
            "left_top" => Ok(0usize),
            "right_top" => Ok(1),
            "bottom" => Ok(2),
            other => Err(format!("system {}: unknown site {other:?}", s.id)),
        };
        let (colony_sites, spaceport_site, ship_node) = match s.home_seat {
            Some(seat) => {
                if seat > 3 || !home_seats.insert(seat) {
                    return Err(format!(
                        "system {}: home seat {seat} is invalid or used twice",
                        s.id
                    ));
                }
                let cols = s
                    .colonies
                    .iter()
                    .map(|c| site_index(c))
                    .collect::<Result<Vec<_>, _>>()?;
                let sp = site_index(s.spaceport.as_deref().unwrap_or(""))?;
                let distinct: BTreeSet<usize> = cols.iter().copied().chain([sp]).collect();
                if cols.len() != 2 || distinct.len() != 3 {
                    return Err(format!(
                        "system {}: a home needs 2 colonies and 1 spaceport on distinct sites",
                        s.id
                    ));
                }
                let ship = s
                    .ship
                    .ok_or(format!("system {}: home needs a ship position", s.id))?;
                let k = key(ship.map(|[q, r]| Hex::new(q, r)));
                let n = *index.get(&k).ok_or(format!(
                    "system {}: ship position is not an intersection",
                    s.id
                ))?;
                if !graph.is_adjacent(n, sites[sp]) {
                    return Err(format!(
                        "system {}: the ship must be next to the spaceport",
                        s.id
                    ));
                }
                (cols.iter().map(|&c| sites[c]).collect(), sites[sp], n)
            }
            None => {
                if !s.colonies.is_empty() || s.spaceport.is_some() || s.ship.is_some() {
                    return Err(format!("system {}: only homes have starting pieces", s.id));
                }
                (Vec::new(), usize::MAX, usize::MAX)
            }
        };
        systems.push(System {
            id: s.id.clone(),
            planets: idx,
            sites,
            site_planets,
            home_seat: s.home_seat,
            colony_sites,
            spaceport_site,
            ship_node,
        });
    }
    if home_seats != (0..4).collect() {
        return Err("there must be exactly four homes, for seats 0-3".into());
    }

    // Chips.
    let outer_chips = raw
        .chips
        .outer
        .iter()
        .map(|c| Chip::parse(c))
        .collect::<Result<Vec<_>, _>>()?;
    let reserve_chips = raw
        .chips
        .reserve
        .iter()
        .map(|c| Chip::parse(c))
        .collect::<Result<Vec<_>, _>>()?;
    let outer_planets = planets.iter().filter(|p| p.home_chip.is_none()).count();
    if outer_chips.len() != outer_planets {
        return Err(format!(
            "{} outer chips for {} outer planets",
            outer_chips.len(),
            outer_planets
        ));
    }
    if reserve_chips.iter().any(|c| !matches!(c, Chip::Number(_))) {
        return Err("reserve chips must all be numbers".into());
    }

    // Outposts.
    let mut outposts = Vec::new();
    let mut races = Vec::new();
    for o in &raw.outposts {
        if races.contains(&o.race) {
            return Err(format!("race {} appears twice", o.race));
        }
        let cell = Hex::new(o.cell[0], o.cell[1]);
        if !on_board(cell) || !used_cells.insert(cell) {
            return Err(format!(
                "outpost {}: cell {cell} is off the board or taken",
                o.race
            ));
        }
        let mut dirs: BTreeSet<&str> = BTreeSet::new();
        dirs.insert(o.entrance.as_str());
        for d in &o.docks {
            dirs.insert(d.as_str());
        }
        if o.docks.len() != 5 || dirs.len() != 6 {
            return Err(format!(
                "outpost {}: entrance and 5 docks must be its 6 distinct corners",
                o.race
            ));
        }
        let entrance = node_of(cell, &o.entrance)?;
        let mut docks = Vec::new();
        for (i, d) in o.docks.iter().enumerate() {
            let n = node_of(cell, d)?;
            if nodes[n].site.is_some() || nodes[n].dock.is_some() {
                return Err(format!(
                    "outpost {}: dock {} is also a colony site or another dock",
                    o.race,
                    i + 1
                ));
            }
            nodes[n].dock = Some((outposts.len(), i as u32 + 1));
            docks.push(n);
        }
        races.push(o.race.clone());
        outposts.push(Outpost {
            race: o.race.clone(),
            cell,
            entrance,
            docks,
        });
    }
    if outposts.len() != 4 {
        return Err("there must be 4 alien outposts".into());
    }
    for (i, p) in planets.iter().enumerate() {
        for &n in &p.corners {
            nodes[n].planets.push(i);
        }
    }

    // Balls.
    if raw.balls.iter().filter(|b| b.black).count() != 1 || raw.balls.len() < 3 {
        return Err("the mothership needs exactly one black ball and at least 3 balls".into());
    }

    // Encounters.
    if raw.encounters.len() != 32 {
        return Err(format!(
            "{} encounter cards, expected 32",
            raw.encounters.len()
        ));
    }
    let mut eids = BTreeSet::new();
    for e in &raw.encounters {
        if !eids.insert(e.id.clone()) {
            return Err(format!("encounter {} appears twice", e.id));
        }
        let bad = |m: &str| Err(format!("encounter {} ({}): {m}", e.id, e.name));
        match e.kind {
            EncounterKind::Gain if e.gain.is_nothing() => {
                return bad("a gain card must give something");
            }
            EncounterKind::ChooseResources | EncounterKind::DiscardRandom
                if e.count == 0 || e.count > 5 =>
            {
                return bad("count must be 1-5");
            }
            EncounterKind::Offer => {
                match e.pay_any {
                    Some([a, b2]) if a >= 1 && a <= b2 && b2 <= 5 && e.pay.is_empty() => {}
                    None if !e.pay.is_empty() => {}
                    _ => return bad("an offer needs either pay or pay_any = [min, max] (1-5)"),
                }
                if e.reward.is_nothing() && e.convert_to.is_none() {
                    return bad("an offer needs a reward or convert_to");
                }
            }
            EncounterKind::Fight if e.strength == 0 || e.tribute > 5 => {
                return bad("a fight needs strength > 0 and tribute 0-5");
            }
            EncounterKind::SpeedSet | EncounterKind::SpeedBonus if e.speed == 0 => {
                return bad("speed must be > 0");
            }
            _ => {}
        }
    }

    // Friendship cards.
    let mut fids = BTreeSet::new();
    for f in &raw.friendship {
        if !fids.insert(f.id.clone()) {
            return Err(format!("friendship card {} appears twice", f.id));
        }
        if !races.contains(&f.race) {
            return Err(format!("friendship card {}: unknown race {}", f.id, f.race));
        }
        if (f.effect == FriendshipEffect::Market) != f.resource.is_some() {
            return Err(format!(
                "friendship card {}: only market cards name a resource",
                f.id
            ));
        }
        if f.amount == 0 {
            return Err(format!("friendship card {}: amount must be > 0", f.id));
        }
    }
    for r in &races {
        if raw.friendship.iter().filter(|f| &f.race == r).count() != 4 {
            return Err(format!("race {r} needs exactly 4 friendship cards"));
        }
    }
    let c = &raw.costs;
    if [
        c.colony_ship,
        c.trade_ship,
        c.spaceport,
        c.booster,
        c.cannon,
        c.freight_ring,
    ]
    .iter()
    .any(Resources::is_empty)
    {
        return Err("every cost must be non-empty".into());
    }
    let r = &raw.rules;
    if r.victory_points == 0
        || r.bank_rate < 2
        || r.trade_goods_rate < 1
        || r.fame_per_vp == 0
        || r.fame_max == 0
    {
        return Err(
            "rules: victory_points, bank rates, fame_per_vp and fame_max must be positive".into(),
        );
    }
    if raw.limits.booster == 0 || raw.limits.cannon == 0 || raw.limits.freight_ring == 0 {
        return Err("limits must be positive".into());
    }
    let p = &raw.pieces;
    if p.transporters == 0 || p.colonies < 3 || p.spaceports < 2 || p.trade_modules == 0 {
        return Err("pieces: too few for the setup".into());
    }

    Ok(Data {
        rules: raw.rules,
        limits: raw.limits,
        pieces: raw.pieces,
        costs: raw.costs,
        balls: raw.balls,
        nodes,
        graph,
        lines: edges.len(),
        planets,
        systems,
        outposts,
        outer_chips,
        reserve_chips,
        encounters: raw.encounters,
        friendship: raw.friendship,
        races,
        cells,
    })
}
