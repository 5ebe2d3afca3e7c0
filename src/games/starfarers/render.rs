//! What a viewer may see: the JSON view, the email text, and the hidden-information resample.

use schemars::JsonSchema;
use serde::Serialize;

use super::data::{Chip, Data, Resource, Resources};
use super::rules::{letter, player_name, vp};
use super::state::{Phase, ShipKind, State};
use turnpost_engine::{GameRng, Seat, Status, ViewCommon, Viewer};

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub name: String,
    pub vp: u32,
    pub cards_in_hand: u32,
    /// Only in the owner's own view.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Resources>,
    pub boosters: u32,
    pub cannons: u32,
    pub freight_rings: u32,
    pub fame_rings: u32,
    pub pirate_chips: u32,
    pub ice_chips: u32,
    pub friendship_cards: Vec<String>,
    pub friendship_tokens: Vec<String>,
    pub colonies: u32,
    pub spaceports: u32,
    pub trade_stations: u32,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlanetView {
    pub planet: usize,
    pub name: String,
    pub system: String,
    pub resource: Resource,
    /// The chip if the viewer knows it (face up, home, or peeked by the viewer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chip: Option<Chip>,
    pub face_up: bool,
    pub has_chip: bool,
    /// The chip came from the reserve pile (a number, value unknown unless seen).
    pub reserve_chip: bool,
    /// Seats that have peeked at the face-down chip.
    pub seen_by: Vec<Seat>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct NodeView {
    pub node: usize,
    pub label: String,
    pub what: String,
    /// The building's owner: a seat, or 3 for the neutral home of a 3-player game.
    pub owner: usize,
    pub spaceport: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ShipView {
    pub id: u32,
    pub owner: Seat,
    pub kind: ShipKind,
    pub node: usize,
    pub label: String,
    pub moved: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OutpostView {
    pub race: String,
    pub token_holder: Option<Seat>,
    /// The docks 1..=5 in turn, each with the station on it.
    pub docks: Vec<DockView>,
    pub dock_nodes: Vec<usize>,
}

/// One dock of an outpost. An object rather than a bare nullable seat: openapi-generator's
/// Rust client cannot read a list whose members may be null.
#[derive(Clone, Copy, Debug, Serialize, JsonSchema)]
pub struct DockView {
    /// The seat whose station stands on the dock, or null while it is free.
    pub owner: Option<Seat>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OfferView {
    pub from: Seat,
    pub to: Seat,
    /// Only for the two players involved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub give: Option<Resources>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub get: Option<Resources>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct View {
    #[serde(flatten)]
    pub common: ViewCommon,
    pub turn: u32,
    /// The seat whose turn it is (others may act in it: discards, relief, answers).
    pub current: Seat,
    pub phase: String,
    pub dice: Option<(u8, u8)>,
    pub balls: Vec<String>,
    pub speed: u32,
    pub players: Vec<PlayerView>,
    pub planets: Vec<PlanetView>,
    pub ships: Vec<ShipView>,
    pub places: Vec<NodeView>,
    pub outposts: Vec<OutpostView>,
    pub free_friendship_cards: Vec<String>,
    pub offer: Option<OfferView>,
    pub encounter: Option<String>,
    pub encounter_deck: usize,
    pub encounter_discards: Vec<String>,
    pub reserve_chips: usize,
    pub turn_limit: Option<u32>,
    pub winner: Option<Seat>,
    pub log: Vec<String>,
}

/// "r12c30": row and column of the intersection on the text map.
pub fn node_label(d: &Data, n: usize) -> String {
    d.nodes
        .get(n)
        .map_or(format!("#{n}"), |x| format!("r{}c{}", x.gy + 2, x.gx + 3))
}

/// A system's name as the map labels it: "home_a" → "home A", "s3" → "s3".
pub fn system_name(id: &str) -> String {
    let words: Vec<String> = id
        .split('_')
        .map(|w| {
            if w.chars().count() == 1 {
                w.to_uppercase()
            } else {
                w.to_string()
            }
        })
        .collect();
    words.join(" ")
}

/// What is notable about an intersection (site, dock, planets next to it).
pub fn node_place(d: &Data, n: usize) -> String {
    let Some(x) = d.nodes.get(n) else {
        return String::new();
    };
    if let Some((sys, site)) = x.site {
        let sname = d
            .systems
            .get(sys)
            .map_or("?".to_string(), |s| system_name(&s.id));
        let which = ["left-top", "right-top", "bottom"]
            .get(site)
            .copied()
            .unwrap_or("?");
        return format!("{sname} {which} colony site");
    }
    if let Some((o, k)) = x.dock {
        return format!(
            "dock {k} of the {}",
            d.outposts
                .get(o)
                .map_or("?".to_string(), |o| o.race.replace('_', " "))
        );
    }
    if let Some(o) = d.outposts.iter().find(|o| o.entrance == n) {
        return format!("entrance of the {} outpost", o.race.replace('_', " "));
    }
    // Each planet with its system, which the map labels (s1, home A): a player finds the
    // place by the system first.
    let near: Vec<String> = x
        .planets
        .iter()
        .filter_map(|&p| d.planets.get(p))
        .map(|p| match d.systems.get(p.system) {
            Some(sys) => format!("{} in {}", p.name, system_name(&sys.id)),
            None => p.name.clone(),
        })
        .collect();
    if near.is_empty() {
        "open space".into()
    } else {
        format!("next to {}", near.join(", "))
    }
}

fn knows_chip(d: &Data, s: &State, viewer: Viewer, p: usize) -> Option<Chip> {
    let ps = s.planets.get(p)?;
    let home = d.planets.get(p).is_some_and(|x| x.home_chip.is_some());
    let peeked = viewer.seat().is_some_and(|v| ps.seen_by.contains(&v));
    if ps.revealed || home || peeked {
        ps.chip
    } else {
        None
    }
}

fn phase_text(d: &Data, s: &State) -> String {
    match &s.phase {
        Phase::Roll => "production: roll".into(),
        Phase::Discard { .. } => "discarding after a 7".into(),
        Phase::Steal => "drawing a card after a 7".into(),
        Phase::Relief { .. } => "relief pick".into(),
        Phase::Supply => "supply from Earth".into(),
        Phase::TradeBuild => "trade and build".into(),
        Phase::ScoutChoice { .. } => "choosing an encounter (scouts)".into(),
        Phase::Encounter { card } => format!(
            "encounter {}",
            d.encounters
                .get(*card)
                .map_or(String::new(), |e| e.id.clone())
        ),
        Phase::Flying => "flight".into(),
        Phase::ChooseFriendship { .. } => "choosing a friendship card".into(),
        Phase::Over => "game over".into(),
    }
}

pub fn view(d: &Data, s: &State, viewer: Viewer, status: &Status) -> View {
    let me = viewer.seat();
    let players = (0..s.seats)
        .map(|seat| {
            let p = &s.players[seat];
            PlayerView {
                seat,
                name: player_name(s, seat),
                vp: vp(d, s, seat),
                cards_in_hand: p.hand.total(),
                hand: (me == Some(seat)).then_some(p.hand),
                boosters: p.boosters,
                cannons: p.cannons,
                freight_rings: p.freight_rings,
                fame_rings: p.fame,
                pirate_chips: p.pirates,
                ice_chips: p.ice,
                friendship_cards: p
                    .cards
                    .iter()
                    .filter_map(|&c| d.friendship.get(c))
                    .map(|c| c.id.clone())
                    .collect(),
                friendship_tokens: s
                    .token
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| **t == Some(seat))
                    .filter_map(|(i, _)| d.races.get(i).cloned())
                    .collect(),
                colonies: s
                    .buildings
                    .iter()
                    .filter(|b| b.owner == seat && !b.spaceport)
                    .count() as u32,
                spaceports: s
                    .buildings
                    .iter()
                    .filter(|b| b.owner == seat && b.spaceport)
                    .count() as u32,
                trade_stations: s.stations.iter().filter(|x| x.owner == seat).count() as u32,
            }
        })
        .collect();
    let planets = d
        .planets
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let ps = &s.planets[i];
            PlanetView {
                planet: i,
                name: p.name.clone(),
                system: d
                    .systems
                    .get(p.system)
                    .map_or(String::new(), |x| x.id.clone()),
                resource: p.resource,
                chip: knows_chip(d, s, viewer, i),
                face_up: ps.revealed || p.home_chip.is_some(),
                has_chip: ps.chip.is_some(),
                reserve_chip: ps.from_reserve,
                seen_by: ps.seen_by.iter().copied().collect(),
            }
        })
        .collect();
    let mut places = Vec::new();
    for b in &s.buildings {
        places.push(NodeView {
            node: b.node,
            label: node_label(d, b.node),
            what: format!(
                "{} of {} ({})",
                if b.spaceport { "spaceport" } else { "colony" },
                player_name(s, b.owner),
                node_place(d, b.node)
            ),
            owner: b.owner,
            spaceport: b.spaceport,
        });
    }
    let ships = s
        .ships
        .iter()
        .map(|x| ShipView {
            id: x.id,
            owner: x.owner,
            kind: x.kind,
            node: x.node,
            label: node_label(d, x.node),
            moved: x.moved,
        })
        .collect();
    let outposts = d
        .outposts
        .iter()
        .enumerate()
        .map(|(i, o)| OutpostView {
            race: o.race.clone(),
            token_holder: s.token.get(i).copied().flatten(),
            docks: (1..=o.docks.len() as u32)
                .map(|k| {
                    let owner = s
                        .stations
                        .iter()
                        .find(|st| st.outpost == i && st.dock == k)
                        .map(|st| st.owner);
                    DockView { owner }
                })
                .collect(),
            dock_nodes: o.docks.clone(),
        })
        .collect();
    let offer = s.offer.as_ref().map(|o| {
        let inside = me == Some(o.from) || me == Some(o.to);
        OfferView {
            from: o.from,
            to: o.to,
            give: inside.then_some(o.give),
            get: inside.then_some(o.get),
        }
    });
    let encounter = match &s.phase {
        Phase::Encounter { card } => d.encounters.get(*card).map(|e| e.describe()),
        Phase::ScoutChoice { cards } => Some(
            cards
                .iter()
                .filter_map(|&c| d.encounters.get(c))
                .map(|e| e.describe())
                .collect::<Vec<_>>()
                .join(" / "),
        ),
        _ => None,
    };
    let log = s
        .log
        .iter()
        .map(|e| match (&e.private, me) {
            (Some((seen, text)), Some(v)) if seen.contains(&v) => text.clone(),
            _ => e.text.clone(),
        })
        .collect();
    View {
        common: ViewCommon::new(viewer, s.seats, status),
        turn: s.turn,
        current: s.current,
        phase: phase_text(d, s),
        dice: s.dice,
        balls: s
            .balls
            .iter()
            .filter_map(|&b| d.balls.get(b))
            .map(|b| b.name.clone())
            .collect(),
        speed: s.speed,
        players,
        planets,
        ships,
        places,
        outposts,
        free_friendship_cards: d
            .friendship
            .iter()
            .enumerate()
            .filter(|(i, _)| s.card_owner.get(*i) == Some(&None))
            .map(|(_, c)| c.id.clone())
            .collect(),
        offer,
        encounter,
        encounter_deck: s.deck.len(),
        encounter_discards: s
            .discard
            .iter()
            .filter_map(|&c| d.encounters.get(c))
            .map(|e| e.id.clone())
            .collect(),
        reserve_chips: s.reserve.len(),
        turn_limit: s.options.turn_limit,
        winner: s.winner,
        log,
    }
}

/// The text map: rows and columns of intersections, planets at cell centres.
fn map_text(d: &Data, s: &State, viewer: Viewer) -> String {
    let (mut min_x, mut max_x, mut min_y, mut max_y) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for n in &d.nodes {
        min_x = min_x.min(n.gx);
        max_x = max_x.max(n.gx);
        min_y = min_y.min(n.gy);
        max_y = max_y.max(n.gy);
    }
    if d.nodes.is_empty() {
        return String::new();
    }
    let w = ((max_x - min_x + 1) * 2 + 2) as usize;
    let h = (max_y - min_y + 1) as usize;
    let mut grid = vec![vec![' '; w]; h];
    let put = |grid: &mut Vec<Vec<char>>, gx: i32, gy: i32, text: &str| {
        let (row, col) = ((gy - min_y) as usize, ((gx - min_x) * 2) as usize);
        if let Some(line) = grid.get_mut(row) {
            for (i, ch) in text.chars().enumerate() {
                if let Some(c) = line.get_mut(col + i) {
                    *c = ch;
                }
            }
        }
    };
    for (i, n) in d.nodes.iter().enumerate() {
        let mut t = if n.site.is_some() { "+" } else { "." }.to_string();
        if let Some((_, k)) = n.dock {
            t = k.to_string();
        }
        if let Some(b) = s.buildings.iter().find(|b| b.node == i) {
            t = format!(
                "{}{}",
                if b.spaceport { 'P' } else { 'C' },
                letter(b.owner).to_ascii_lowercase()
            );
        }
        if let Some((o, k)) = n.dock
            && let Some(st) = s.stations.iter().find(|st| st.outpost == o && st.dock == k)
        {
            t = format!("S{}", letter(st.owner).to_ascii_lowercase());
        }
        if let Some(x) = s.ships.iter().find(|x| x.node == i) {
            let k = if x.kind == ShipKind::Colony { 'k' } else { 't' };
            t = format!("{k}{}", letter(x.owner).to_ascii_lowercase());
        }
        put(&mut grid, n.gx, n.gy, &t);
    }
    for (i, p) in d.planets.iter().enumerate() {
        let num = match knows_chip(d, s, viewer, i) {
            Some(Chip::Number(n)) => n.to_string(),
            Some(Chip::Pirates(n)) => format!("P{n}"),
            Some(Chip::Ice(n)) => format!("I{n}"),
            None if s.planets[i].chip.is_none() => "-".into(),
            None => "?".into(),
        };
        let label = format!("{}{num}", p.resource.letter());
        put(&mut grid, 2 * p.cell.q + p.cell.r, 3 * p.cell.r, &label);
    }
    for o in &d.outposts {
        let short: String = o
            .race
            .split('_')
            .filter_map(|w| w.chars().next())
            .collect::<String>()
            .to_uppercase();
        let short = if short.len() < 2 {
            o.race.chars().take(2).collect::<String>().to_uppercase()
        } else {
            short
        };
        put(
            &mut grid,
            2 * o.cell.q + o.cell.r,
            3 * o.cell.r,
            &format!("[{short}]"),
        );
    }
    let mut out = String::new();
    // Column header: c = gx + 3, every other column labelled.
    let mut tens = String::from("     ");
    let mut units = String::from("     ");
    for gx in min_x..=max_x {
        let c = gx + 3;
        tens.push(if c >= 10 {
            char::from_digit((c / 10) as u32 % 10, 10).unwrap_or(' ')
        } else {
            ' '
        });
        tens.push(' ');
        units.push(char::from_digit((c % 10) as u32, 10).unwrap_or(' '));
        units.push(' ');
    }
    out.push_str(tens.trim_end());
    out.push('\n');
    out.push_str(units.trim_end());
    out.push('\n');
    for (row, line) in grid.iter().enumerate() {
        let text: String = line.iter().collect();
        out.push_str(&format!(
            "r{:<3} {}\n",
            row as i32 + min_y + 2,
            text.trim_end()
        ));
    }
    out
}

pub fn render(d: &Data, s: &State, viewer: Viewer, status: &Status) -> String {
    let v = view(d, s, viewer, status);
    let mut o = String::new();
    o.push_str(&format!(
        "THE STARFARERS OF CATAN - turn {}{}, {} to play ({})\n",
        s.turn,
        s.options
            .turn_limit
            .map_or(String::new(), |l| format!(" of {l}")),
        player_name(s, s.current),
        v.phase
    ));
    if let Some(w) = s.winner {
        o.push_str(&format!(
            "GAME OVER: {} wins with {} VP.\n",
            player_name(s, w),
            vp(d, s, w)
        ));
    } else if matches!(s.phase, Phase::Over) {
        o.push_str("GAME OVER (turn limit).\n");
    }
    if let Some((a, b)) = s.dice {
        o.push_str(&format!("Dice: {a}+{b} = {}", a + b));
        if !v.balls.is_empty() {
            o.push_str(&format!(
                "   Balls: {}   Speed: {}",
                v.balls.join(" + "),
                s.speed
            ));
        }
        o.push('\n');
    }
    if let Some(e) = &v.encounter {
        o.push_str(&format!("Encounter: {e}\n"));
    }
    o.push_str(&format!(
        "\nPLAYERS (first to {} VP on their own turn wins)\n",
        d.rules.victory_points
    ));
    for p in &v.players {
        o.push_str(&format!(
            "  {:<9} VP {:>2} | cards {:>2} | boosters {} cannons {} freight rings {} fame {} | colonies {} spaceports {} stations {} | pirates {} ice {}\n",
            p.name, p.vp, p.cards_in_hand, p.boosters, p.cannons, p.freight_rings, p.fame_rings,
            p.colonies, p.spaceports, p.trade_stations, p.pirate_chips, p.ice_chips
        ));
        if !p.friendship_cards.is_empty() || !p.friendship_tokens.is_empty() {
            o.push_str(&format!(
                "            friendship cards: {}; tokens: {}\n",
                p.friendship_cards.join(", "),
                p.friendship_tokens.join(", ")
            ));
        }
    }
    if let Some(seat) = viewer.seat()
        && let Some(p) = s.players.get(seat)
    {
        o.push_str(&format!("\nYOUR HAND: {}\n", p.hand.describe()));
        let cards: Vec<String> = p
            .cards
            .iter()
            .filter_map(|&c| d.friendship.get(c))
            .map(|c| c.describe())
            .collect();
        if !cards.is_empty() {
            o.push_str(&format!("Your friendship cards: {}\n", cards.join("; ")));
        }
    }
    if let Some(of) = &v.offer {
        match (&of.give, &of.get) {
            (Some(g), Some(t)) => o.push_str(&format!(
                "\nOFFER: {} offers {} {} for {}\n",
                player_name(s, of.from),
                player_name(s, of.to),
                g.describe(),
                t.describe()
            )),
            _ => o.push_str(&format!(
                "\nOFFER: {} has a trade offer pending with {}\n",
                player_name(s, of.from),
                player_name(s, of.to)
            )),
        }
    }
    o.push_str(
        "\nMAP  (kX colony ship, tX trade ship, CX colony, PX spaceport, SX station of player X;\n",
    );
    o.push_str("      + free colony site, 1-5 free dock, . open; planets: resource letter c/f/u(fuel)/o/t + number,\n");
    o.push_str("      ? unknown, Pn pirates, In ice; [GF] etc. alien outposts)\n");
    if s.seats == 3 {
        o.push_str("      (d = the neutral home: it blocks but never produces or scores)\n");
    }
    o.push_str(&map_text(d, s, viewer));
    o.push_str("\nSYSTEMS\n");
    for sys in &d.systems {
        let parts: Vec<String> = sys
            .planets
            .iter()
            .map(|&p| {
                let pv = &v.planets[p];
                let chip = match pv.chip {
                    Some(c) => c.describe(),
                    None if !pv.has_chip => "no chip".into(),
                    None if pv.reserve_chip => "? (reserve number)".into(),
                    None => "?".into(),
                };
                let seen = if pv.seen_by.is_empty() || pv.face_up {
                    String::new()
                } else {
                    format!(
                        " seen by {}",
                        pv.seen_by.iter().map(|&x| letter(x)).collect::<String>()
                    )
                };
                format!("#{p} {} {} {chip}{seen}", pv.name, pv.resource.name())
            })
            .collect();
        o.push_str(&format!("  {:<7} {}\n", sys.id, parts.join(" | ")));
    }
    o.push_str("\nOUTPOSTS\n");
    for ov in &v.outposts {
        let docks: Vec<String> = ov
            .docks
            .iter()
            .enumerate()
            .map(|(i, st)| {
                let label = ov
                    .dock_nodes
                    .get(i)
                    .map_or(String::new(), |&n| node_label(d, n));
                format!("{}:{}({label})", i + 1, st.owner.map_or('-', letter))
            })
            .collect();
        o.push_str(&format!(
            "  {:<11} token {}  docks {}\n",
            ov.race,
            ov.token_holder
                .map_or("-".to_string(), |h| letter(h).to_string()),
            docks.join(" ")
        ));
    }
    o.push_str(&format!(
        "  free friendship cards: {}\n",
        v.free_friendship_cards.join(", ")
    ));
    if !v.ships.is_empty() {
        o.push_str("\nSHIPS\n");
        for x in &v.ships {
            o.push_str(&format!(
                "  #{} {} of {} at {} ({}){}\n",
                x.id,
                x.kind.name(),
                player_name(s, x.owner),
                x.label,
                node_place(d, x.node),
                if x.moved { ", moved" } else { "" }
            ));
        }
    }
    o.push_str("\nRECENT EVENTS\n");
    for line in v
        .log
        .iter()
        .rev()
        .take(12)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        o.push_str(&format!("  {line}\n"));
    }
    o
}

/// Another state the viewer cannot tell from `s` (see `Game::resample_hidden`).
pub fn resample(d: &Data, s: &State, viewer: Viewer, rng: &mut GameRng) -> State {
    let mut t = s.clone();
    let me = viewer.seat();
    // Other hands: same counts, new contents (an offer the viewer knows stays payable).
    for seat in 0..t.seats {
        if Some(seat) == me {
            continue;
        }
        let keep = match &t.offer {
            Some(o) if o.from == seat && me == Some(o.to) => o.give,
            _ => Resources::default(),
        };
        let n = t.players[seat].hand.total().saturating_sub(keep.total());
        let mut hand = keep;
        for _ in 0..n {
            let r = Resource::ALL[rng.below(5)];
            *hand.slot(r) += 1;
        }
        t.players[seat].hand = hand;
    }
    // Face-down chips the viewer has not seen: outer ones among themselves, reserve-born
    // ones with the reserve pile.
    let unseen = |i: usize| {
        let ps = &s.planets[i];
        !ps.revealed && ps.chip.is_some() && me.is_none_or(|v| !ps.seen_by.contains(&v))
    };
    let outer: Vec<usize> = (0..t.planets.len())
        .filter(|&i| unseen(i) && !s.planets[i].from_reserve)
        .collect();
    let mut chips: Vec<Chip> = outer.iter().filter_map(|&i| s.planets[i].chip).collect();
    // Sorted before each shuffle, so the world drawn depends only on what is unknown, not
    // on where it really lies (the contract's resample check).
    chips.sort_unstable();
    rng.shuffle(&mut chips);
    for (&i, c) in outer.iter().zip(chips) {
        t.planets[i].chip = Some(c);
    }
    let born: Vec<usize> = (0..t.planets.len())
        .filter(|&i| unseen(i) && s.planets[i].from_reserve)
        .collect();
    let mut pool: Vec<Chip> = born.iter().filter_map(|&i| s.planets[i].chip).collect();
    pool.extend(s.reserve.iter().copied());
    pool.sort_unstable();
    rng.shuffle(&mut pool);
    let mut it = pool.into_iter();
    for &i in &born {
        t.planets[i].chip = it.next();
    }
    t.reserve = it.collect();
    // The unknown part of the encounter deck.
    let unknown = t.deck.len().saturating_sub(t.deck_known_bottom);
    if let Some(part) = t.deck.get_mut(..unknown) {
        part.sort_unstable();
        rng.shuffle(part);
    }
    // A third party does not know the offer's terms: any cards the offerer now holds
    // (at least one) for any one or two cards.
    if let Some(o) = &mut t.offer
        && me != Some(o.from)
        && me != Some(o.to)
    {
        let held = t.players.get(o.from).map_or(0, |p| p.hand.total());
        let mut give = Resources::default();
        if let Some(p) = t.players.get(o.from) {
            let want = 1 + rng.below(held.clamp(1, 3) as usize) as u32;
            for r in Resource::ALL {
                let take = p.hand.get(r).min(want - give.total());
                *give.slot(r) = take;
            }
        }
        if give.is_empty() {
            give = Resources::one(Resource::ALL[rng.below(5)], 1);
        }
        o.give = give;
        o.get = Resources::one(Resource::ALL[rng.below(5)], 1 + rng.below(2) as u32);
    }
    resample_private_log(d, &mut t, me, rng);
    t.rng = rng.fork();
    t
}

/// The fuller texts of log lines the viewer may not read, rewritten to match another
/// choice of what they hide: peeks name the (resampled) chips, a robbery another card, an
/// offer other terms.
fn resample_private_log(d: &Data, t: &mut State, me: Option<Seat>, rng: &mut GameRng) {
    let planets = t.planets.clone();
    // Only the newest offer line can be the pending offer.
    let mut pending = t.offer.clone();
    for e in t.log.iter_mut().rev() {
        let terms = if e.text.ends_with(" a trade offer") {
            pending.take()
        } else {
            None
        };
        let Some((seen, text)) = &mut e.private else {
            continue;
        };
        if me.is_some_and(|v| seen.contains(&v)) {
            continue;
        }
        let public = &e.text;
        if let Some((who, names)) = public.split_once(" peeks at ") {
            let vals: Vec<String> = names
                .split(", ")
                .map(|n| {
                    let chip = d
                        .planets
                        .iter()
                        .position(|p| p.name == n)
                        .and_then(|i| planets.get(i)?.chip);
                    format!("{n}: {}", chip.map_or("?".into(), |c| c.describe()))
                })
                .collect();
            *text = format!("{who} peeks at {}", vals.join(", "));
        } else if let Some((who, victim)) = public.split_once(" draws a random card from ") {
            let r = Resource::ALL[rng.below(5)];
            *text = format!("{who} draws 1 {} from {victim}", r.name());
        } else if let Some(parties) = public.strip_suffix(" a trade offer") {
            let (give, get) = match terms {
                Some(o) => (o.give, o.get),
                None => (
                    Resources::one(Resource::ALL[rng.below(5)], 1),
                    Resources::one(Resource::ALL[rng.below(5)], 1),
                ),
            };
            let parties = parties.replacen(" makes ", " offers ", 1);
            *text = format!("{parties} {} for {}", give.describe(), get.describe());
        }
    }
}
