//! The content pack (HR-1): board, markets, hazards, chance cards and constants, parsed from
//! `fuldrigger.toml` and validated so that a broken file is refused at server start.

use std::collections::BTreeMap;

use serde::Deserialize;

use turnpost_engine::graph::Graph;

/// The shipped data file.
pub const DATA: &str = include_str!("fuldrigger.toml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constants {
    pub start_cash: u32,
    pub start_ships: u32,
    pub ship_price: u32,
    pub ship_sellback: u32,
    pub max_ships: usize,
    pub max_forts: usize,
    pub fort_price: u32,
    pub fort_duty: u32,
    pub fort_owner_sell_bonus: u32,
    pub min_transport_fields: u32,
    pub repeat_sale_drop: u32,
    pub isthmus_toll: u32,
    pub rounds: u32,
    pub supply_per_good: usize,
    pub tailwind_bonus: u32,
    pub headwind_penalty: u32,
    pub pirate_fort_radius: u32,
    pub storm_sinks: Vec<u32>,
    pub iceberg_sinks: Vec<u32>,
    pub doldrums_stop_at_most: u32,
    pub reef_wrecks: Vec<u32>,
    pub pirates_take_ship: Vec<u32>,
    pub pirates_take_cargo: Vec<u32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttackTable {
    /// Per column (1, 2, 3, 4+ attackers): the attacker loses a privateer if roll < value.
    pub loss_below: Vec<u32>,
    /// Per column: the target is captured if roll > value.
    pub capture_above: Vec<u32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    goods: usize,
    chance_cards: usize,
    base_fields: usize,
    isthmus_fields: usize,
    routes: Vec<ExpectRoute>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectRoute {
    from: String,
    to: String,
    steps: u32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawIsthmus {
    id: String,
    name: String,
    sides: Vec<String>,
    toll_forts: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPort {
    id: String,
    name: String,
    x: i32,
    y: i32,
    buy: BTreeMap<String, u32>,
    sell: BTreeMap<String, u32>,
    #[serde(default)]
    variant: bool,
    #[serde(default = "yes")]
    fort_allowed: bool,
}

fn yes() -> bool {
    true
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJunction {
    id: String,
    x: i32,
    y: i32,
    region: String,
    #[serde(default)]
    variant: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLane {
    id: String,
    a: String,
    b: String,
    length: usize,
    region: String,
    #[serde(default)]
    variant: bool,
    #[serde(default)]
    wraps: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawHazard {
    id: String,
    field: String,
    kind: HazardKind,
    #[serde(default)]
    reef: Option<String>,
    #[serde(default)]
    variant: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCard {
    id: String,
    kind: String,
    text: String,
    #[serde(default)]
    port: Option<String>,
    #[serde(default)]
    good: Option<String>,
    #[serde(default)]
    region: Option<String>,
    #[serde(default)]
    amount: Option<i32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawData {
    isthmuses: Vec<RawIsthmus>,
    goods: Vec<String>,
    home_cities: Vec<String>,
    lanes: Vec<RawLane>,
    hazards: Vec<RawHazard>,
    chance_cards: Vec<RawCard>,
    constants: Constants,
    attack: AttackTable,
    expect: Expect,
    ports: Vec<RawPort>,
    junctions: Vec<RawJunction>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HazardKind {
    Tailwind,
    Headwind,
    Storm,
    Iceberg,
    Doldrums,
    Reef,
    Pirates,
}

impl HazardKind {
    pub fn name(self) -> &'static str {
        match self {
            HazardKind::Tailwind => "tailwind",
            HazardKind::Headwind => "headwind",
            HazardKind::Storm => "storm",
            HazardKind::Iceberg => "iceberg",
            HazardKind::Doldrums => "doldrums",
            HazardKind::Reef => "reef",
            HazardKind::Pirates => "pirates",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Port {
    pub id: String,
    pub name: String,
    pub node: usize,
    /// (good index, price): K, can only be bought here.
    pub buy: Vec<(usize, u32)>,
    /// (good index, price): S, can only be sold here.
    pub sell: Vec<(usize, u32)>,
    pub variant: bool,
    pub fort_allowed: bool,
}

impl Port {
    pub fn buy_price(&self, good: usize) -> Option<u32> {
        self.buy.iter().find(|(g, _)| *g == good).map(|(_, p)| *p)
    }
    pub fn sell_price(&self, good: usize) -> Option<u32> {
        self.sell.iter().find(|(g, _)| *g == good).map(|(_, p)| *p)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NodeKind {
    Port(usize),
    Junction,
    Lane,
}

#[derive(Clone, Debug)]
pub struct Node {
    pub id: String,
    pub kind: NodeKind,
    /// Sea region (empty for ports, which are not at sea).
    pub region: String,
    pub variant: bool,
    pub hazard: Option<usize>,
    pub x: i32,
    pub y: i32,
}

#[derive(Clone, Debug)]
pub struct Hazard {
    pub id: String,
    pub node: usize,
    pub kind: HazardKind,
    pub reef: Option<String>,
    pub variant: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CardEffect {
    FirstArrival { port: usize, amount: u32 },
    PriceMod { good: usize, amount: i32 },
    PortClosed { port: usize },
    RollBonus { amount: u32 },
    RollHalve,
    Gale { region: String },
    PirateRaid { region: String },
    FortTax { amount: u32 },
    ShipSubsidy { amount: u32 },
    Inheritance { amount: u32 },
    ShipPrice { amount: u32 },
    Peace,
    Marque { amount: u32 },
    Spoil { good: usize },
}

#[derive(Clone, Debug)]
pub struct Card {
    pub id: String,
    pub text: String,
    pub effect: CardEffect,
}

#[derive(Clone, Debug)]
pub struct Isthmus {
    pub id: String,
    pub name: String,
    /// Port indices of the two sides.
    pub sides: [usize; 2],
    pub toll_forts: Vec<usize>,
}

/// The validated content pack.
#[derive(Clone, Debug)]
pub struct Board {
    pub c: Constants,
    pub attack: AttackTable,
    pub goods: Vec<String>,
    pub ports: Vec<Port>,
    pub home_cities: Vec<usize>,
    pub nodes: Vec<Node>,
    pub hazards: Vec<Hazard>,
    pub cards: Vec<Card>,
    pub isthmuses: Vec<Isthmus>,
    /// [base map, isthmus map].
    pub graphs: [Graph; 2],
    pub node_index: BTreeMap<String, usize>,
    /// Lanes in file order, for drawing.
    pub lanes: Vec<Lane>,
}

#[derive(Clone, Debug)]
pub struct Lane {
    pub id: String,
    pub a: String,
    pub b: String,
    pub variant: bool,
    /// Runs off one edge of the map and in at the other (drawn apart).
    pub wraps: bool,
    pub fields: Vec<usize>,
}

const REGIONS: &[&str] = &[
    "europe",
    "mediterranean",
    "north_atlantic",
    "caribbean",
    "south_atlantic",
    "indian_ocean",
    "red_sea",
    "east_indies",
    "pacific",
];

impl Board {
    pub fn node(&self, id: &str) -> Option<usize> {
        self.node_index.get(id).copied()
    }
    pub fn port_of(&self, node: usize) -> Option<usize> {
        match self.nodes.get(node).map(|n| &n.kind) {
            Some(NodeKind::Port(p)) => Some(*p),
            _ => None,
        }
    }
    pub fn port_index(&self, id: &str) -> Option<usize> {
        self.ports.iter().position(|p| p.id == id)
    }
    pub fn good_index(&self, id: &str) -> Option<usize> {
        self.goods.iter().position(|g| g == id)
    }
    pub fn graph(&self, isthmus: bool) -> &Graph {
        &self.graphs[usize::from(isthmus)]
    }
    pub fn node_id(&self, node: usize) -> &str {
        self.nodes.get(node).map_or("?", |n| n.id.as_str())
    }
    pub fn at_sea(&self, node: usize) -> bool {
        self.port_of(node).is_none()
    }
    /// Attack column index (0-based) for a number of attackers: 4 or more use the last.
    pub fn attack_column(&self, attackers: usize) -> usize {
        attackers.clamp(1, self.attack.loss_below.len()) - 1
    }
}

/// Parses and validates a data file. Every problem names what is wrong and where.
pub fn parse_and_validate(text: &str) -> Result<Board, String> {
    let raw: RawData =
        toml::from_str(text).map_err(|e| format!("fuldrigger data: not valid: {e}"))?;
    let err = |m: String| Err(format!("fuldrigger data: {m}"));
    let c = raw.constants;
    // Goods.
    if raw.goods.len() != raw.expect.goods {
        return err(format!(
            "expected {} goods, found {}",
            raw.expect.goods,
            raw.goods.len()
        ));
    }
    for (i, g) in raw.goods.iter().enumerate() {
        if raw.goods[..i].contains(g) {
            return err(format!("good {g} listed twice"));
        }
    }
    let good = |g: &str, ctx: &str| -> Result<usize, String> {
        raw.goods
            .iter()
            .position(|x| x == g)
            .ok_or_else(|| format!("fuldrigger data: {ctx} names unknown good {g:?}"))
    };
    if c.max_ships == 0 || c.max_forts == 0 || c.supply_per_good == 0 || c.rounds == 0 {
        return err("max_ships, max_forts, supply_per_good and rounds must be positive".into());
    }
    if c.start_ships == 0 || c.start_ships as usize > c.max_ships {
        return err(format!("start_ships must be 1..={}", c.max_ships));
    }
    if raw.attack.loss_below.is_empty()
        || raw.attack.loss_below.len() != raw.attack.capture_above.len()
    {
        return err(
            "attack table: loss_below and capture_above need the same, non-zero number of columns"
                .into(),
        );
    }
    for (l, k) in raw.attack.loss_below.iter().zip(&raw.attack.capture_above) {
        if l > k {
            return err(format!(
                "attack table: a loss below {l} overlaps a capture above {k}"
            ));
        }
    }

    let mut nodes: Vec<Node> = Vec::new();
    let mut node_index: BTreeMap<String, usize> = BTreeMap::new();
    let mut add = |nodes: &mut Vec<Node>, n: Node| -> Result<usize, String> {
        if node_index.contains_key(&n.id) {
            return Err(format!("fuldrigger data: field id {} used twice", n.id));
        }
        node_index.insert(n.id.clone(), nodes.len());
        nodes.push(n);
        Ok(nodes.len() - 1)
    };
    // Ports.
    let mut ports = Vec::new();
    for (pi, p) in raw.ports.iter().enumerate() {
        let node = add(
            &mut nodes,
            Node {
                id: p.id.clone(),
                kind: NodeKind::Port(pi),
                region: String::new(),
                variant: p.variant,
                hazard: None,
                x: p.x,
                y: p.y,
            },
        )?;
        let mut buy = Vec::new();
        for (g, price) in &p.buy {
            buy.push((good(g, &format!("port {}", p.id))?, *price));
        }
        let mut sell = Vec::new();
        for (g, price) in &p.sell {
            let gi = good(g, &format!("port {}", p.id))?;
            if buy.iter().any(|(b, _)| *b == gi) {
                return err(format!("port {} lists {g} as both K and S", p.id));
            }
            sell.push((gi, *price));
        }
        buy.sort_unstable();
        sell.sort_unstable();
        if buy
            .iter()
            .chain(&sell)
            .any(|(_, price)| *price == 0 || *price > 10_000)
        {
            return err(format!("port {} has a price outside 1..=10000", p.id));
        }
        ports.push(Port {
            id: p.id.clone(),
            name: p.name.clone(),
            node,
            buy,
            sell,
            variant: p.variant,
            fort_allowed: p.fort_allowed,
        });
    }
    for j in &raw.junctions {
        if !REGIONS.contains(&j.region.as_str()) {
            return err(format!(
                "junction {} has unknown region {:?}",
                j.id, j.region
            ));
        }
        add(
            &mut nodes,
            Node {
                id: j.id.clone(),
                kind: NodeKind::Junction,
                region: j.region.clone(),
                variant: j.variant,
                hazard: None,
                x: j.x,
                y: j.y,
            },
        )?;
    }
    // Lanes: n-1 fields, evenly spaced (the wrapping lane is drawn off the map edge).
    let mut edges: Vec<(usize, usize, bool)> = Vec::new();
    let mut lanes: Vec<Lane> = Vec::new();
    let junction_or_port =
        |id: &str, nodes: &[Node], index: &BTreeMap<String, usize>| -> Option<usize> {
            index
                .get(id)
                .copied()
                .filter(|&i| nodes[i].kind != NodeKind::Lane)
        };
    for l in &raw.lanes {
        if !REGIONS.contains(&l.region.as_str()) {
            return err(format!("lane {} has unknown region {:?}", l.id, l.region));
        }
        if l.length < 2 || l.length > 100 {
            return err(format!(
                "lane {} has length {}, must be 2..=100",
                l.id, l.length
            ));
        }
        let index_snapshot = node_index_snapshot(&nodes);
        let (Some(a), Some(b)) = (
            junction_or_port(&l.a, &nodes, &index_snapshot),
            junction_or_port(&l.b, &nodes, &index_snapshot),
        ) else {
            return err(format!(
                "lane {} joins unknown ports or junctions {}–{}",
                l.id, l.a, l.b
            ));
        };
        if a == b {
            return err(format!("lane {} joins {} to itself", l.id, l.a));
        }
        if (nodes[a].variant || nodes[b].variant) && !l.variant {
            return err(format!(
                "lane {} touches a variant-only place but is not marked variant",
                l.id
            ));
        }
        let (ax, ay, bx, by) = (nodes[a].x, nodes[a].y, nodes[b].x, nodes[b].y);
        let n = l.length as i32;
        let mut prev = a;
        let mut fields = Vec::new();
        for k in 1..l.length {
            let k = k as i32;
            let (x, y) = if l.wraps {
                // West off the map edge and back in from the east edge.
                let span = ax + (1000 - bx);
                let x = (ax - span * k / n).rem_euclid(1000);
                (x, ay + (by - ay) * k / n)
            } else {
                (ax + (bx - ax) * k / n, ay + (by - ay) * k / n)
            };
            let f = add(
                &mut nodes,
                Node {
                    id: format!("{}:{k}", l.id),
                    kind: NodeKind::Lane,
                    region: l.region.clone(),
                    variant: l.variant,
                    hazard: None,
                    x,
                    y,
                },
            )?;
            edges.push((prev, f, l.variant));
            fields.push(f);
            prev = f;
        }
        edges.push((prev, b, l.variant));
        lanes.push(Lane {
            id: l.id.clone(),
            a: l.a.clone(),
            b: l.b.clone(),
            variant: l.variant,
            wraps: l.wraps,
            fields,
        });
    }
    // Hazards.
    let mut hazards = Vec::new();
    for h in &raw.hazards {
        let Some(&node) = node_index.get(&h.field) else {
            return err(format!("hazard {} is on unknown field {}", h.id, h.field));
        };
        if nodes[node].kind != NodeKind::Lane {
            return err(format!(
                "hazard {} must be on a lane field, not {}",
                h.id, h.field
            ));
        }
        if nodes[node].hazard.is_some() {
            return err(format!("field {} has two hazards", h.field));
        }
        if nodes[node].variant && !h.variant {
            return err(format!(
                "hazard {} is on a variant-only field but is not marked variant",
                h.id
            ));
        }
        if (h.kind == HazardKind::Reef) != h.reef.is_some() {
            return err(format!(
                "hazard {}: a reef needs a letter, and only reefs have one",
                h.id
            ));
        }
        nodes[node].hazard = Some(hazards.len());
        hazards.push(Hazard {
            id: h.id.clone(),
            node,
            kind: h.kind,
            reef: h.reef.clone(),
            variant: h.variant,
        });
    }
    // Graphs.
    let all_edges: Vec<(usize, usize)> = edges.iter().map(|&(a, b, _)| (a, b)).collect();
    let base_edges: Vec<(usize, usize)> = edges
        .iter()
        .filter(|e| !e.2)
        .map(|&(a, b, _)| (a, b))
        .collect();
    let (Some(base), Some(full)) = (
        Graph::from_edges(nodes.len(), &base_edges),
        Graph::from_edges(nodes.len(), &all_edges),
    ) else {
        return err("lane graph could not be built".into());
    };
    let base_count = nodes.iter().filter(|n| !n.variant).count();
    if base_count != raw.expect.base_fields {
        return err(format!(
            "base map has {base_count} fields, expected {}",
            raw.expect.base_fields
        ));
    }
    if nodes.len() != raw.expect.isthmus_fields {
        return err(format!(
            "isthmus map has {} fields, expected {}",
            nodes.len(),
            raw.expect.isthmus_fields
        ));
    }
    // Connectivity: every base field reaches every other without variant lanes, and every
    // field reaches every other with them.
    let d0 = base.distances(0);
    if let Some(n) = nodes
        .iter()
        .enumerate()
        .find(|(i, n)| !n.variant && d0[*i].is_none())
    {
        return err(format!(
            "base map is not connected: {} cannot be reached",
            n.1.id
        ));
    }
    if !full.is_connected() {
        return err("isthmus map is not connected".into());
    }
    for r in &raw.expect.routes {
        let (Some(&a), Some(&b)) = (node_index.get(&r.from), node_index.get(&r.to)) else {
            return err(format!(
                "route check names unknown place {}–{}",
                r.from, r.to
            ));
        };
        let got = base.distances(a)[b];
        if got != Some(r.steps) {
            return err(format!(
                "shortest route {}–{} is {:?} steps, expected {}",
                r.from, r.to, got, r.steps
            ));
        }
    }
    // Home cities.
    let mut home_cities = Vec::new();
    for h in &raw.home_cities {
        let Some(p) = ports.iter().position(|p| &p.id == h) else {
            return err(format!("home city {h} is not a port"));
        };
        if ports[p].variant || home_cities.contains(&p) {
            return err(format!("home city {h} is a variant port or listed twice"));
        }
        home_cities.push(p);
    }
    if home_cities.len() < 4 {
        return err("need at least 4 home cities for 4 players".into());
    }
    // Isthmuses.
    let mut isthmuses = Vec::new();
    for i in &raw.isthmuses {
        let find = |id: &String| ports.iter().position(|p| &p.id == id);
        let sides: Vec<Option<usize>> = i.sides.iter().map(find).collect();
        let forts: Vec<Option<usize>> = i.toll_forts.iter().map(find).collect();
        if sides.len() != 2
            || sides.iter().chain(&forts).any(Option::is_none)
            || sides[0] == sides[1]
        {
            return err(format!(
                "isthmus {} needs two distinct known side ports and known fort ports",
                i.id
            ));
        }
        let sides: Vec<usize> = sides.into_iter().flatten().collect();
        let toll_forts: Vec<usize> = forts.into_iter().flatten().collect();
        if toll_forts.iter().any(|&p| !ports[p].fort_allowed) {
            return err(format!(
                "isthmus {} names a toll fort in a port without forts",
                i.id
            ));
        }
        isthmuses.push(Isthmus {
            id: i.id.clone(),
            name: i.name.clone(),
            sides: [sides[0], sides[1]],
            toll_forts,
        });
    }
    // Chance cards.
    if raw.chance_cards.len() != raw.expect.chance_cards {
        return err(format!(
            "expected {} chance cards, found {}",
            raw.expect.chance_cards,
            raw.chance_cards.len()
        ));
    }
    let mut cards = Vec::new();
    for rc in &raw.chance_cards {
        if cards.iter().any(|c: &Card| c.id == rc.id) {
            return err(format!("chance card {} listed twice", rc.id));
        }
        let missing = |what: &str| {
            format!(
                "fuldrigger data: chance card {} ({}) needs {what}",
                rc.id, rc.kind
            )
        };
        let port = || -> Result<usize, String> {
            let id = rc.port.as_ref().ok_or_else(|| missing("a port"))?;
            ports
                .iter()
                .position(|p| &p.id == id && !p.variant)
                .ok_or_else(|| {
                    format!(
                        "fuldrigger data: chance card {} names unknown port {id}",
                        rc.id
                    )
                })
        };
        let goodi = || -> Result<usize, String> {
            let g = rc.good.as_ref().ok_or_else(|| missing("a good"))?;
            good(g, &format!("chance card {}", rc.id))
        };
        let region = || -> Result<String, String> {
            let r = rc.region.as_ref().ok_or_else(|| missing("a region"))?;
            if REGIONS.contains(&r.as_str()) {
                Ok(r.clone())
            } else {
                Err(format!(
                    "fuldrigger data: chance card {} names unknown region {r}",
                    rc.id
                ))
            }
        };
        let amount = || -> Result<i32, String> {
            rc.amount
                .filter(|a| a.unsigned_abs() <= 10_000)
                .ok_or_else(|| missing("an amount within ±10000"))
        };
        let positive = || -> Result<u32, String> {
            u32::try_from(amount()?).map_err(|_| missing("a non-negative amount"))
        };
        let effect = match rc.kind.as_str() {
            "first_arrival" => CardEffect::FirstArrival {
                port: port()?,
                amount: positive()?,
            },
            "price_mod" => CardEffect::PriceMod {
                good: goodi()?,
                amount: amount()?,
            },
            "port_closed" => CardEffect::PortClosed { port: port()? },
            "roll_bonus" => CardEffect::RollBonus {
                amount: positive()?,
            },
            "roll_halve" => CardEffect::RollHalve,
            "gale" => CardEffect::Gale { region: region()? },
            "pirate_raid" => CardEffect::PirateRaid { region: region()? },
            "fort_tax" => CardEffect::FortTax {
                amount: positive()?,
            },
            "ship_subsidy" => CardEffect::ShipSubsidy {
                amount: positive()?,
            },
            "inheritance" => CardEffect::Inheritance {
                amount: positive()?,
            },
            "ship_price" => CardEffect::ShipPrice {
                amount: positive()?,
            },
            "peace" => CardEffect::Peace,
            "marque" => CardEffect::Marque {
                amount: positive()?,
            },
            "spoil" => CardEffect::Spoil { good: goodi()? },
            other => return err(format!("chance card {} has unknown kind {other:?}", rc.id)),
        };
        cards.push(Card {
            id: rc.id.clone(),
            text: rc.text.clone(),
            effect,
        });
    }
    Ok(Board {
        c,
        attack: raw.attack,
        goods: raw.goods.clone(),
        ports,
        home_cities,
        nodes,
        hazards,
        cards,
        isthmuses,
        graphs: [base, full],
        node_index,
        lanes,
    })
}

fn node_index_snapshot(nodes: &[Node]) -> BTreeMap<String, usize> {
    nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.clone(), i))
        .collect()
}
