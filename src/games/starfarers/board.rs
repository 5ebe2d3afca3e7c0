//! The board picture (`Game::board_svg`): the hex map of space with its systems, planets and
//! chips, the alien outposts with their trade stations, colonies, spaceports and ships; each
//! player's VP and open pieces; the viewer's hand face up (other hands as counts); and the
//! pending trade offer as far as the viewer may see it. Drawn from the view alone; the board
//! layout is the public data file.

use std::collections::BTreeMap;

use super::data::{Chip, Data, Resource, Resources};
use super::render::{PlayerView, ShipView, View};
use super::state::ShipKind;
use turnpost_engine::hex::Hex;
use turnpost_engine::svg::{Svg, WIDTH, fit_text, num, recent_events, text_width, wrap_chars};
use turnpost_engine::{People, Seat};

/// Seat colours, in seat order (players A to D), and the neutral home's grey.
const SEAT_FILL: [&str; 4] = ["#e53935", "#1e88e5", "#f4f4f4", "#fb8c00"];
const NEUTRAL: &str = "#9e9e9e";
const SPACE: &str = "#0e1a2b";
const GRID: &str = "#263a55";
const INK: &str = "#1b2530";
const MUTED: &str = "#52606d";
const SQRT3: f64 = 1.732_050_807_568_877_2;
/// Margins of the map for the coordinate numbers along its edges.
const EDGE_X: f64 = 16.0;
const EDGE_Y: f64 = 13.0;

/// An intersection's click target: `node:r12c30`, its name on the map's coordinates.
pub fn node_target(d: &Data, n: usize) -> String {
    format!("node:{}", super::render::node_label(d, n))
}

/// A ship's click target: `ship:3`.
pub fn ship_target(id: u32) -> String {
    format!("ship:{id}")
}

/// A planet's click target: `planet:7`.
pub fn planet_target(p: usize) -> String {
    format!("planet:{p}")
}

/// A player's click target (their panel): `seat:1`.
pub fn seat_target(seat: Seat) -> String {
    format!("seat:{seat}")
}

fn seat_fill(owner: usize) -> &'static str {
    SEAT_FILL.get(owner).copied().unwrap_or(NEUTRAL)
}

fn resource_fill(r: Resource) -> &'static str {
    match r {
        Resource::Carbon => "#8a939e",
        Resource::Food => "#7cb342",
        Resource::Fuel => "#fdd835",
        Resource::Ore => "#a1775f",
        Resource::TradeGoods => "#ab47bc",
    }
}

/// Text on a resource's colour.
fn resource_ink(r: Resource) -> &'static str {
    match r {
        Resource::Fuel | Resource::Food | Resource::Carbon => "#1b1b1b",
        Resource::Ore | Resource::TradeGoods => "#ffffff",
    }
}

/// "green_folk" → "Green Folk".
fn race_name(race: &str) -> String {
    race.split('_')
        .map(|w| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_uppercase().collect::<String>() + c.as_str()
            })
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// "green_folk" → "GF", "merchants" → "ME".
fn race_short(race: &str) -> String {
    let initials: String = race
        .split('_')
        .filter_map(|w| w.chars().next())
        .collect::<String>()
        .to_uppercase();
    if initials.chars().count() >= 2 {
        initials
    } else {
        race.chars().take(2).collect::<String>().to_uppercase()
    }
}

/// Pixel layout of the hex map: pointy-top cells of size `s`, shifted by (ox, oy).
struct Geometry {
    s: f64,
    ox: f64,
    oy: f64,
    height: f64,
}

impl Geometry {
    fn new(d: &Data, top: f64) -> Geometry {
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &c in &d.cells {
            let (x, y) = unit_centre(c);
            x0 = x0.min(x - SQRT3 / 2.0);
            x1 = x1.max(x + SQRT3 / 2.0);
            y0 = y0.min(y - 1.0);
            y1 = y1.max(y + 1.0);
        }
        if d.cells.is_empty() {
            (x0, x1, y0, y1) = (0.0, 1.0, 0.0, 1.0);
        }
        // Room around the map for the row (left, right) and column (top, bottom) numbers.
        let s = (WIDTH - 12.0 - 2.0 * EDGE_X) / (x1 - x0);
        Geometry {
            s,
            ox: 6.0 + EDGE_X - x0 * s,
            oy: top + 6.0 + EDGE_Y - y0 * s,
            height: (y1 - y0) * s + 12.0 + 2.0 * EDGE_Y,
        }
    }

    fn cell(&self, c: Hex) -> (f64, f64) {
        let (x, y) = unit_centre(c);
        (self.ox + x * self.s, self.oy + y * self.s)
    }

    /// An intersection: the centre of the three cells meeting there.
    fn corner(&self, cells: &[Hex; 3]) -> (f64, f64) {
        let mut sum = (0.0, 0.0);
        for &c in cells {
            let p = self.cell(c);
            sum = (sum.0 + p.0, sum.1 + p.1);
        }
        (sum.0 / 3.0, sum.1 / 3.0)
    }

    fn node(&self, d: &Data, n: usize) -> Option<(f64, f64)> {
        d.nodes.get(n).map(|x| self.corner(&x.cells))
    }

    fn hexagon(&self, c: Hex, scale: f64) -> Vec<(f64, f64)> {
        let (x, y) = self.cell(c);
        let (a, b) = (self.s * scale * SQRT3 / 2.0, self.s * scale);
        vec![
            (x, y - b),
            (x + a, y - b / 2.0),
            (x + a, y + b / 2.0),
            (x, y + b),
            (x - a, y + b / 2.0),
            (x - a, y - b / 2.0),
        ]
    }
}

fn unit_centre(c: Hex) -> (f64, f64) {
    (
        SQRT3 * (f64::from(c.q) + f64::from(c.r) / 2.0),
        1.5 * f64::from(c.r),
    )
}

/// Text outlined in the map's colour, readable on any planet colour.
fn map_text(svg: &mut Svg, x: f64, y: f64, size: f64, fill: &str, s: &str) {
    svg.text_el(
        "text",
        &[
            ("x", x.into()),
            ("y", y.into()),
            ("font-size", size.into()),
            ("font-weight", "bold".into()),
            ("text-anchor", "middle".into()),
            ("fill", fill.into()),
            ("stroke", SPACE.into()),
            ("stroke-width", 2.5.into()),
            ("paint-order", "stroke".into()),
        ],
        s,
    );
}

/// A seat as the game calls it ("Player A") with the person there: "Ada (Player A)".
fn player_name(v: &View, people: &People, owner: usize) -> String {
    v.players.iter().find(|p| p.seat == owner).map_or_else(
        || "the neutral home".to_string(),
        |p| people.label(p.seat, &p.name),
    )
}

/// A log line (written with the game's "Player A") with every player named as
/// [`player_name`] does, in one pass so a name is never replaced twice.
fn with_names(v: &View, people: &People, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(i) = rest.find("Player ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 7..];
        let seat = after
            .chars()
            .next()
            .filter(char::is_ascii_uppercase)
            .map(|c| (c as u8 - b'A') as usize)
            .filter(|&s| v.players.iter().any(|p| p.seat == s))
            .filter(|_| !after.chars().nth(1).is_some_and(char::is_alphanumeric));
        match seat {
            Some(s) => {
                out.push_str(&player_name(v, people, s));
                rest = &after[1..];
            }
            None => {
                out.push_str("Player ");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn names(v: &View, people: &People, seats: &[Seat]) -> String {
    seats
        .iter()
        .map(|&s| player_name(v, people, s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Over by the rules, or ended outside them (a resignation).
fn is_over(v: &View, people: &People) -> bool {
    v.common.finished || people.ending().is_some()
}

/// Whose move it is, or who won.
fn status_line(v: &View, people: &People) -> String {
    if let Some(over) = people.game_over() {
        return over;
    }
    if is_over(v, people) {
        return match v.winner {
            Some(w) => format!(
                "Game over: {} wins with {} VP",
                player_name(v, people, w),
                v.players.iter().find(|p| p.seat == w).map_or(0, |p| p.vp)
            ),
            None => {
                let best = v.players.iter().map(|p| p.vp).max().unwrap_or(0);
                let top: Vec<Seat> = v
                    .players
                    .iter()
                    .filter(|p| p.vp == best)
                    .map(|p| p.seat)
                    .collect();
                format!(
                    "Game over at the turn limit: best {} with {best} VP",
                    names(v, people, &top)
                )
            }
        };
    }
    if v.common.to_act == [v.current] || v.common.to_act.is_empty() {
        format!("{} to play: {}", player_name(v, people, v.current), v.phase)
    } else {
        format!(
            "{} to act: {} ({}'s turn)",
            names(v, people, &v.common.to_act),
            v.phase,
            player_name(v, people, v.current)
        )
    }
}

fn chip_words(c: Chip) -> String {
    match c {
        Chip::Number(n) => n.to_string(),
        Chip::Pirates(n) => format!("pirates {n}"),
        Chip::Ice(n) => format!("ice {n}"),
    }
}

fn offer_words(v: &View, people: &People) -> Option<String> {
    let o = v.offer.as_ref()?;
    Some(match (&o.give, &o.get) {
        // The recipient is told plainly that the offer waits for their answer.
        (Some(give), Some(get)) if v.common.viewer == Some(o.to) => format!(
            "Trade offer to you from {}: you get {} for {}. It awaits your answer: accept or decline",
            player_name(v, people, o.from),
            give.describe(),
            get.describe()
        ),
        (Some(give), Some(get)) => format!(
            "Trade offer: {} gives {} to {} for {}",
            player_name(v, people, o.from),
            give.describe(),
            player_name(v, people, o.to),
            get.describe()
        ),
        _ => format!(
            "Trade offer pending from {} to {} (terms seen only by them)",
            player_name(v, people, o.from),
            player_name(v, people, o.to)
        ),
    })
}

fn title_and_desc(v: &View, people: &People) -> (String, String) {
    let awaits = match &v.offer {
        Some(o) if v.common.viewer == Some(o.to) && !is_over(v, people) => {
            "; a trade offer awaits your answer"
        }
        _ => "",
    };
    let short = if is_over(v, people) {
        status_line(v, people)
    } else {
        format!("turn {}, {}{awaits}", v.turn, status_line(v, people))
    };
    let title = format!("The Starfarers of Catan: {short}");
    let mut s: Vec<String> = Vec::new();
    s.push(format!(
        "The Starfarers of Catan, turn {}{}.",
        v.turn,
        v.turn_limit.map_or(String::new(), |l| format!(" of {l}"))
    ));
    s.push(format!("{}.", status_line(v, people)));
    if let Some((a, b)) = v.dice {
        s.push(format!("Dice {a} and {b}."));
    }
    if !v.balls.is_empty() {
        s.push(format!(
            "Mothership balls {}, speed {}.",
            v.balls.join(" and "),
            v.speed
        ));
    }
    if let Some(e) = &v.encounter {
        s.push(format!("Encounter: {e}."));
    }
    for p in &v.players {
        let mut line = format!(
            "{}: {} VP, {} cards, {} colonies, {} spaceports, {} trade stations, boosters {}, cannons {}, freight rings {}, fame {}",
            player_name(v, people, p.seat),
            p.vp,
            p.cards_in_hand,
            p.colonies,
            p.spaceports,
            p.trade_stations,
            p.boosters,
            p.cannons,
            p.freight_rings,
            p.fame_rings
        );
        if !p.friendship_tokens.is_empty() {
            line.push_str(&format!(
                ", friendship of {}",
                p.friendship_tokens
                    .iter()
                    .map(|r| race_name(r))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
        }
        s.push(format!("{line}."));
    }
    if let Some(me) = v.common.viewer
        && let Some(hand) = v.players.iter().find(|p| p.seat == me).and_then(|p| p.hand)
    {
        s.push(format!(
            "You are {}; your hand: {}.",
            v.players
                .iter()
                .find(|p| p.seat == me)
                .map_or(String::new(), |p| p.name.clone()),
            hand.describe()
        ));
    }
    if let Some(o) = offer_words(v, people) {
        s.push(format!("{o}."));
    }
    let mut places: Vec<String> = v
        .places
        .iter()
        .map(|p| format!("{} at {}", with_names(v, people, &p.what), p.label))
        .collect();
    places.extend(v.ships.iter().map(|x| {
        format!(
            "{} #{} of {} at {}",
            x.kind.name(),
            x.id,
            player_name(v, people, x.owner),
            x.label
        )
    }));
    if !places.is_empty() {
        s.push(format!("On the map: {}.", places.join("; ")));
    }
    let planets: Vec<String> = v
        .planets
        .iter()
        .map(|p| {
            let chip = match p.chip {
                Some(c) => chip_words(c),
                None if !p.has_chip => "no chip".into(),
                None => "face down".into(),
            };
            format!("{} ({}) {chip}", p.name, p.resource.name())
        })
        .collect();
    if !planets.is_empty() {
        s.push(format!("Planets: {}.", planets.join(", ")));
    }
    for o in &v.outposts {
        let stations: Vec<String> = o
            .docks
            .iter()
            .enumerate()
            .filter_map(|(i, st)| {
                st.owner
                    .map(|x| format!("dock {} {}", i + 1, player_name(v, people, x)))
            })
            .collect();
        s.push(format!(
            "{} outpost: {}, friendship token {}.",
            race_name(&o.race),
            if stations.is_empty() {
                "no stations".to_string()
            } else {
                stations.join(", ")
            },
            o.token_holder.map_or("not held".to_string(), |h| format!(
                "held by {}",
                player_name(v, people, h)
            ))
        ));
    }
    (title, s.join(" "))
}

/// The whole picture.
pub fn picture(d: &Data, v: &View, people: &People) -> String {
    let (title, desc) = title_and_desc(v, people);
    let mut svg = Svg::new(100.0, &title, &desc);
    let mut y = header(&mut svg, v, people);
    y = map(&mut svg, d, v, y + 6.0);
    y = outposts(&mut svg, v, people, y + 10.0);
    y = players(&mut svg, d, v, people, y + 8.0);
    y = hand(&mut svg, v, y + 6.0);
    y = offer(&mut svg, v, people, y + 4.0);
    y = ships(&mut svg, d, v, people, y + 6.0);
    let log: Vec<String> = v.log.iter().map(|e| with_names(v, people, e)).collect();
    y = recent_events(&mut svg, &log, y + 6.0, INK, MUTED);
    svg.set_height(y + 10.0);
    svg.finish()
}

fn header(svg: &mut Svg, v: &View, people: &People) -> f64 {
    svg.text_bold(
        10.0,
        24.0,
        18.0,
        "start",
        INK,
        &format!(
            "The Starfarers of Catan · turn {}{}",
            v.turn,
            v.turn_limit.map_or(String::new(), |l| format!(" of {l}"))
        ),
    );
    let mut y = 44.0;
    let who = if is_over(v, people) {
        v.winner
    } else {
        v.common.to_act.first().copied().or(Some(v.current))
    };
    svg.el(
        "rect",
        &[
            ("x", 10.0.into()),
            ("y", (y - 11.0).into()),
            ("width", 12.0.into()),
            ("height", 12.0.into()),
            ("fill", who.map_or(INK, seat_fill).into()),
            ("stroke", INK.into()),
        ],
    );
    svg.text_bold(28.0, y, 14.0, "start", INK, &status_line(v, people));
    let mut facts = Vec::new();
    if let Some((a, b)) = v.dice {
        facts.push(format!("Dice {a} + {b} = {}", u32::from(a) + u32::from(b)));
    }
    if !v.balls.is_empty() {
        facts.push(format!(
            "mothership balls {}, speed {}",
            v.balls.join(" + "),
            v.speed
        ));
    }
    facts.push(format!(
        "encounter deck {}, reserve chips {}",
        v.encounter_deck, v.reserve_chips
    ));
    y += 17.0;
    svg.text(10.0, y, 12.0, "start", MUTED, &facts.join(" · "));
    if let Some(e) = &v.encounter {
        for part in wrap_chars(&format!("Encounter: {e}"), 84) {
            y += 16.0;
            svg.text_bold(10.0, y, 12.0, "start", "#8a3b00", &part);
        }
    }
    y + 4.0
}

/// A small five-pointed star at (x, y).
fn star(svg: &mut Svg, x: f64, y: f64, r: f64) {
    let pts: Vec<(f64, f64)> = (0..10)
        .map(|k| {
            let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::PI * k as f64 / 5.0;
            let rr = if k % 2 == 0 { r } else { r * 0.45 };
            (x + rr * a.cos(), y + rr * a.sin())
        })
        .collect();
    svg.polygon(&pts, "#ffe082", "none");
}

fn ship_shape(svg: &mut Svg, x: f64, y: f64, r: f64, kind: ShipKind, fill: &str, class: &str) {
    let pts = match kind {
        // A colony ship points up; a trade ship is a diamond.
        ShipKind::Colony => vec![
            (x, y - r),
            (x + r * 0.9, y + r * 0.7),
            (x - r * 0.9, y + r * 0.7),
        ],
        ShipKind::Trade => vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y)],
    };
    let pts: Vec<String> = pts
        .iter()
        .map(|&(a, b)| {
            format!(
                "{},{}",
                turnpost_engine::svg::num(a),
                turnpost_engine::svg::num(b)
            )
        })
        .collect();
    let pts = pts.join(" ");
    svg.el(
        "polygon",
        &[
            ("class", class.into()),
            ("points", pts.as_str().into()),
            ("fill", fill.into()),
            ("stroke", "#000000".into()),
            ("stroke-width", 1.5.into()),
        ],
    );
}

fn building(svg: &mut Svg, x: f64, y: f64, owner: usize, spaceport: bool) {
    if spaceport {
        svg.el(
            "rect",
            &[
                ("class", "spaceport".into()),
                ("x", (x - 6.5).into()),
                ("y", (y - 6.5).into()),
                ("width", 13.0.into()),
                ("height", 13.0.into()),
                ("rx", 2.0.into()),
                ("fill", seat_fill(owner).into()),
                ("stroke", "#000000".into()),
                ("stroke-width", 1.5.into()),
            ],
        );
        svg.circle(x, y, 2.5, "#000000", "none");
    } else {
        svg.el(
            "circle",
            &[
                ("class", "colony".into()),
                ("cx", x.into()),
                ("cy", y.into()),
                ("r", 5.5.into()),
                ("fill", seat_fill(owner).into()),
                ("stroke", "#000000".into()),
                ("stroke-width", 1.5.into()),
            ],
        );
    }
}

fn map(svg: &mut Svg, d: &Data, v: &View, top: f64) -> f64 {
    let g = Geometry::new(d, top);
    svg.el(
        "rect",
        &[
            ("x", 2.0.into()),
            ("y", top.into()),
            ("width", (WIDTH - 4.0).into()),
            ("height", g.height.into()),
            ("rx", 6.0.into()),
            ("fill", SPACE.into()),
        ],
    );
    // The grid as one path: a few hundred cells in one element keep the picture light.
    let mut grid = String::new();
    for &c in &d.cells {
        for (k, (x, y)) in g.hexagon(c, 1.0).into_iter().enumerate() {
            grid.push(if k == 0 { 'M' } else { 'L' });
            grid.push_str(&format!("{},{}", num(x), num(y)));
        }
        grid.push('Z');
    }
    svg.el(
        "path",
        &[
            ("d", grid.as_str().into()),
            ("fill", "none".into()),
            ("stroke", GRID.into()),
        ],
    );
    // Systems: a sun between the three planets.
    for sys in &d.systems {
        let cells: Vec<Hex> = sys
            .planets
            .iter()
            .filter_map(|&p| d.planets.get(p).map(|x| x.cell))
            .collect();
        if let [a, b, c] = cells[..] {
            let (x, y) = g.corner(&[a, b, c]);
            star(svg, x, y, g.s * 0.45);
        }
    }
    coordinates(svg, d, &g, top);
    // Outposts.
    for o in &d.outposts {
        svg.polygon(&g.hexagon(o.cell, 0.95), "#4a3a78", "#b9a6ff");
        let (x, y) = g.cell(o.cell);
        map_text(svg, x, y + 4.0, 11.0, "#ffffff", &race_short(&o.race));
    }
    // Planets with their chips as the viewer knows them.
    let r = g.s * 0.74;
    for p in &v.planets {
        let Some(dp) = d.planets.get(p.planet) else {
            continue;
        };
        let (x, y) = g.cell(dp.cell);
        let (ring, width) = match p.chip {
            Some(Chip::Pirates(_)) => ("#ff1744", 3.0),
            Some(Chip::Ice(_)) => ("#80deea", 3.0),
            _ => ("#000000", 1.0),
        };
        let target = planet_target(p.planet);
        svg.open("g", &[("data-target", (&target).into())]);
        svg.el(
            "circle",
            &[
                ("class", "planet".into()),
                ("cx", x.into()),
                ("cy", y.into()),
                ("r", r.into()),
                ("fill", resource_fill(p.resource).into()),
                ("stroke", ring.into()),
                ("stroke-width", width.into()),
            ],
        );
        let label = match p.chip {
            Some(Chip::Number(n)) => n.to_string(),
            Some(Chip::Pirates(n)) => format!("P{n}"),
            Some(Chip::Ice(n)) => format!("I{n}"),
            None if !p.has_chip => String::new(),
            None => "?".into(),
        };
        // The likeliest numbers in red, as on the printed chips.
        let fill = match p.chip {
            Some(Chip::Number(6 | 8)) => "#ff5252",
            _ => "#ffffff",
        };
        if !label.is_empty() {
            map_text(svg, x, y + 4.0, 11.0, fill, &label);
        }
        // Who has peeked at a face-down chip: a pip per seat under the planet.
        if !p.face_up && p.has_chip {
            for (k, &s) in p.seen_by.iter().enumerate() {
                svg.circle(
                    x - 6.0 + 4.0 * k as f64,
                    y + r - 1.0,
                    1.8,
                    seat_fill(s),
                    "#000000",
                );
            }
        }
        svg.close("g");
    }
    // System names, above their top planet: the names places are told by.
    for sys in &d.systems {
        if let Some(top) = d.planets.get(sys.planets[1]) {
            let (x, y) = g.cell(top.cell);
            map_text(svg, x, y - r - 2.0, 10.0, "#ffe082", &system_label(&sys.id));
        }
    }
    // Every intersection is a click target (a flight's destination, a new ship's place):
    // an invisible disc under the pieces drawn on it.
    for n in 0..d.nodes.len() {
        let Some((x, y)) = g.node(d, n) else { continue };
        let target = node_target(d, n);
        svg.el(
            "circle",
            &[
                ("data-target", (&target).into()),
                ("cx", x.into()),
                ("cy", y.into()),
                ("r", (g.s * 0.42).into()),
                ("fill", "#ffffff".into()),
                ("fill-opacity", 0.0.into()),
            ],
        );
    }
    // Free colony sites and docks.
    let taken: Vec<usize> = v.places.iter().map(|p| p.node).collect();
    for (i, n) in d.nodes.iter().enumerate() {
        if n.site.is_some() && !taken.contains(&i) {
            let (x, y) = g.corner(&n.cells);
            svg.circle(x, y, 3.0, "none", "#cfd8e3");
        }
    }
    for (o, ov) in d.outposts.iter().zip(&v.outposts) {
        for (&n, dock) in o.docks.iter().zip(&ov.docks) {
            let Some((x, y)) = g.node(d, n) else { continue };
            match dock.owner {
                Some(s) => {
                    svg.el(
                        "rect",
                        &[
                            ("class", "station".into()),
                            ("x", (x - 5.0).into()),
                            ("y", (y - 5.0).into()),
                            ("width", 10.0.into()),
                            ("height", 10.0.into()),
                            ("fill", seat_fill(s).into()),
                            ("stroke", "#000000".into()),
                            ("stroke-width", 1.5.into()),
                        ],
                    );
                }
                None => {
                    svg.el(
                        "rect",
                        &[
                            ("x", (x - 3.0).into()),
                            ("y", (y - 3.0).into()),
                            ("width", 6.0.into()),
                            ("height", 6.0.into()),
                            ("fill", "none".into()),
                            ("stroke", "#b9a6ff".into()),
                        ],
                    );
                }
            }
        }
    }
    for p in &v.places {
        if let Some((x, y)) = g.node(d, p.node) {
            // The neutral home of a 3-player game has the number of an absent seat.
            let owner = if p.owner < v.players.len() {
                p.owner
            } else {
                usize::MAX
            };
            let target = node_target(d, p.node);
            svg.open("g", &[("data-target", (&target).into())]);
            building(svg, x, y, owner, p.spaceport);
            svg.close("g");
        }
    }
    // Ships; several on one intersection stand side by side.
    let mut by_node: BTreeMap<usize, Vec<&ShipView>> = BTreeMap::new();
    for x in &v.ships {
        by_node.entry(x.node).or_default().push(x);
    }
    for (&n, ships) in &by_node {
        let Some((x, y)) = g.node(d, n) else { continue };
        let k = ships.len() as f64;
        for (i, s) in ships.iter().enumerate() {
            let dx = (i as f64 - (k - 1.0) / 2.0) * 10.0;
            let target = ship_target(s.id);
            svg.open("g", &[("data-target", (&target).into())]);
            ship_shape(svg, x + dx, y, 7.0, s.kind, seat_fill(s.owner), "ship");
            svg.close("g");
        }
    }
    let mut y = top + g.height + 16.0;
    let mut x = 10.0;
    for res in Resource::ALL {
        svg.circle(x + 6.0, y - 4.0, 6.0, resource_fill(res), "#000000");
        svg.text(x + 15.0, y, 11.0, "start", MUTED, res.name());
        x += text_width(res.name(), 11.0) + 26.0;
    }
    svg.text(x, y, 11.0, "start", MUTED, "? face down, P pirates, I ice");
    y += 18.0;
    let mut x = 10.0;
    let key: [(&str, u8); 6] = [
        ("colony", 0),
        ("spaceport", 1),
        ("colony ship", 2),
        ("trade ship", 3),
        ("trade station", 4),
        ("free colony site", 5),
    ];
    for (label, k) in key {
        let (cx, cy) = (x + 6.0, y - 4.0);
        match k {
            // Outlines only: a filled key would look like some seat's piece.
            0 => {
                svg.circle(cx, cy, 5.5, "none", INK);
            }
            1 => {
                svg.rect(cx - 6.0, cy - 6.0, 12.0, 12.0, "none", INK);
                svg.circle(cx, cy, 2.5, INK, "none");
            }
            2 => ship_shape(svg, cx, cy, 6.5, ShipKind::Colony, "none", "key"),
            3 => ship_shape(svg, cx, cy, 6.5, ShipKind::Trade, "none", "key"),
            4 => {
                svg.rect(cx - 5.0, cy - 5.0, 10.0, 10.0, "none", INK);
            }
            _ => {
                svg.circle(cx, cy, 3.0, "none", MUTED);
            }
        }
        svg.text(x + 15.0, y, 11.0, "start", MUTED, label);
        x += text_width(label, 11.0) + 26.0;
    }
    if v.places.iter().any(|p| p.owner >= v.players.len()) {
        y += 16.0;
        svg.text(
            10.0,
            y,
            11.0,
            "start",
            MUTED,
            "Grey pieces: the neutral home (it blocks, but never produces or scores)",
        );
    }
    y
}

fn outposts(svg: &mut Svg, v: &View, people: &People, top: f64) -> f64 {
    if v.outposts.is_empty() {
        return top;
    }
    let n = v.outposts.len() as f64;
    let w = (WIDTH - 12.0 - 6.0 * (n - 1.0)) / n;
    for (i, o) in v.outposts.iter().enumerate() {
        let x = 6.0 + i as f64 * (w + 6.0);
        svg.el(
            "rect",
            &[
                ("x", x.into()),
                ("y", top.into()),
                ("width", w.into()),
                ("height", 66.0.into()),
                ("rx", 5.0.into()),
                ("fill", "#efeaff".into()),
                ("stroke", "#8d7bd1".into()),
            ],
        );
        svg.text_bold(
            x + 6.0,
            top + 16.0,
            12.0,
            "start",
            INK,
            &format!("{} ({})", race_name(&o.race), race_short(&o.race)),
        );
        let token = o.token_holder.map_or("token: not held".to_string(), |h| {
            format!("token: {}", player_name(v, people, h))
        });
        svg.text(
            x + 6.0,
            top + 31.0,
            11.0,
            "start",
            INK,
            &fit_text(&token, 11.0, w - 10.0),
        );
        for (k, st) in o.docks.iter().enumerate() {
            let dx = x + 6.0 + k as f64 * 22.0;
            let fill = st.owner.map_or("#ffffff", seat_fill);
            svg.rect(dx, top + 39.0, 19.0, 19.0, fill, "#5a4a9a");
            svg.text(
                dx + 9.5,
                top + 53.0,
                11.0,
                "middle",
                if st.owner == Some(1) || st.owner == Some(0) {
                    "#ffffff"
                } else {
                    INK
                },
                &(k + 1).to_string(),
            );
        }
    }
    top + 66.0
}

/// A face-down card with the count of cards on it.
fn card_back(svg: &mut Svg, x: f64, y: f64, count: u32) {
    svg.el(
        "rect",
        &[
            ("class", "card-back".into()),
            ("x", x.into()),
            ("y", y.into()),
            ("width", 22.0.into()),
            ("height", 28.0.into()),
            ("rx", 3.0.into()),
            ("fill", "#34495e".into()),
            ("stroke", "#1b2530".into()),
        ],
    );
    svg.text_bold(
        x + 11.0,
        y + 19.0,
        12.0,
        "middle",
        "#ffffff",
        &count.to_string(),
    );
}

fn players(svg: &mut Svg, d: &Data, v: &View, people: &People, top: f64) -> f64 {
    let mut y = top + 14.0;
    svg.text_bold(10.0, y, 14.0, "start", INK, "Players");
    svg.text(
        590.0,
        y,
        11.0,
        "end",
        MUTED,
        &format!(
            "first to {} VP on their own turn wins",
            d.rules.victory_points
        ),
    );
    let over = is_over(v, people);
    for p in &v.players {
        let cards: Vec<String> = p
            .friendship_cards
            .iter()
            .map(|c| super::data::friendship_title(c))
            .collect();
        let mut lines = vec![
            format!(
                "colonies {} · spaceports {} · trade stations {} · pirate chips {} · ice chips {}",
                p.colonies, p.spaceports, p.trade_stations, p.pirate_chips, p.ice_chips
            ),
            format!(
                "mothership: boosters {} · cannons {} · freight rings {} · fame {}",
                p.boosters, p.cannons, p.freight_rings, p.fame_rings
            ),
        ];
        if !cards.is_empty() || !p.friendship_tokens.is_empty() {
            let mut f = String::from("friendship:");
            if !p.friendship_tokens.is_empty() {
                f.push_str(&format!(
                    " token of {}",
                    p.friendship_tokens
                        .iter()
                        .map(|r| race_name(r))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if !cards.is_empty() {
                if !p.friendship_tokens.is_empty() {
                    f.push(';');
                }
                f.push_str(&format!(" cards {}", cards.join(", ")));
            }
            lines.extend(wrap_chars(&f, 80));
        }
        y += 14.0;
        let height = 26.0 + 15.0 * lines.len() as f64;
        let target = seat_target(p.seat);
        svg.open(
            "g",
            &[
                ("class", "player".into()),
                ("data-target", (&target).into()),
            ],
        );
        let acting = !over && v.common.to_act.contains(&p.seat);
        svg.el(
            "rect",
            &[
                ("x", 4.0.into()),
                ("y", y.into()),
                ("width", (WIDTH - 8.0).into()),
                ("height", height.into()),
                ("rx", 5.0.into()),
                ("fill", if acting { "#fff4c8" } else { "#f1f3f5" }.into()),
            ],
        );
        let base = y + 18.0;
        svg.el(
            "rect",
            &[
                ("class", "seat".into()),
                ("x", 10.0.into()),
                ("y", (base - 12.0).into()),
                ("width", 14.0.into()),
                ("height", 14.0.into()),
                ("rx", 3.0.into()),
                ("fill", seat_fill(p.seat).into()),
                ("stroke", INK.into()),
            ],
        );
        let name = fit_text(&player_name(v, people, p.seat), 14.0, 250.0);
        svg.text_bold(30.0, base, 14.0, "start", INK, &name);
        if acting {
            svg.text_bold(290.0, base, 12.0, "start", "#8a5a00", "to act");
        }
        if v.winner == Some(p.seat) {
            svg.text_bold(290.0, base, 12.0, "start", "#1b5e20", "winner");
        }
        svg.text_bold(590.0, base, 16.0, "end", INK, &format!("{} VP", p.vp));
        // The hand: a count for everyone; the owner's own cards are shown face up below.
        if p.hand.is_some() {
            svg.text(
                500.0,
                base,
                12.0,
                "end",
                INK,
                &format!("{} cards", p.cards_in_hand),
            );
        } else {
            svg.text(470.0, base, 12.0, "end", MUTED, "cards");
            card_back(svg, 476.0, base - 18.0, p.cards_in_hand);
        }
        let mut ly = base;
        for l in &lines {
            ly += 15.0;
            svg.text(30.0, ly, 11.0, "start", INK, l);
        }
        svg.close("g");
        y += height;
    }
    y
}

fn resource_card(svg: &mut Svg, x: f64, y: f64, r: Resource) {
    svg.el(
        "rect",
        &[
            ("class", "card face-up".into()),
            ("x", x.into()),
            ("y", y.into()),
            ("width", 42.0.into()),
            ("height", 56.0.into()),
            ("rx", 4.0.into()),
            ("fill", resource_fill(r).into()),
            ("stroke", "#1b2530".into()),
            ("stroke-width", 1.5.into()),
        ],
    );
    let words: Vec<&str> = r.name().split(' ').collect();
    let first = y + if words.len() > 1 { 25.0 } else { 32.0 };
    for (i, w) in words.iter().enumerate() {
        svg.text_bold(
            x + 21.0,
            first + 13.0 * i as f64,
            11.0,
            "middle",
            resource_ink(r),
            w,
        );
    }
}

/// The viewer's own hand, card by card, face up.
fn hand(svg: &mut Svg, v: &View, top: f64) -> f64 {
    let Some(me) = v.common.viewer else {
        return top;
    };
    let Some(p): Option<&PlayerView> = v.players.iter().find(|p| p.seat == me) else {
        return top;
    };
    let hand: Resources = p.hand.unwrap_or_default();
    let mut y = top + 16.0;
    svg.text_bold(
        10.0,
        y,
        14.0,
        "start",
        INK,
        &format!("Your hand: {}", hand.describe()),
    );
    let cards = hand.cards();
    y += 8.0;
    let per_row = 13;
    for (i, &r) in cards.iter().enumerate() {
        let (row, col) = (i / per_row, i % per_row);
        resource_card(svg, 10.0 + 44.0 * col as f64, y + 60.0 * row as f64, r);
    }
    if !cards.is_empty() {
        y += 60.0 * cards.len().div_ceil(per_row) as f64;
    }
    y
}

fn offer(svg: &mut Svg, v: &View, people: &People, top: f64) -> f64 {
    let Some(words) = offer_words(v, people) else {
        return top;
    };
    let mut y = top;
    for part in wrap_chars(&words, 80) {
        y += 17.0;
        svg.text_bold(10.0, y, 13.0, "start", "#0b4f8a", &part);
    }
    y
}

fn ships(svg: &mut Svg, d: &Data, v: &View, people: &People, top: f64) -> f64 {
    if v.ships.is_empty() {
        return top;
    }
    let mut y = top + 14.0;
    svg.text_bold(10.0, y, 14.0, "start", INK, "Ships");
    for x in &v.ships {
        y += 17.0;
        let target = ship_target(x.id);
        svg.open("g", &[("data-target", (&target).into())]);
        ship_shape(
            svg,
            17.0,
            y - 4.0,
            6.5,
            x.kind,
            seat_fill(x.owner),
            "ship-key",
        );
        let line = format!(
            "#{} {} of {} at {} ({}){}",
            x.id,
            x.kind.name(),
            player_name(v, people, x.owner),
            x.label,
            super::render::node_place(d, x.node),
            if x.moved { ", has flown" } else { "" }
        );
        svg.text(30.0, y, 11.0, "start", INK, &fit_text(&line, 11.0, 560.0));
        svg.close("g");
    }
    y
}

/// "home_a" → "home A", "s3" → "s3": a system's name on the map and in texts.
pub fn system_label(id: &str) -> String {
    super::render::system_name(id)
}

/// Row numbers along the left and right edges, column numbers along the top and bottom:
/// intersection r12c30 is at row 12, column 30. Neighbouring rows (and columns) lie close,
/// so they alternate between the two edges.
fn coordinates(svg: &mut Svg, d: &Data, g: &Geometry, top: f64) {
    let mut rows: BTreeMap<i32, f64> = BTreeMap::new();
    let mut cols: BTreeMap<i32, f64> = BTreeMap::new();
    for (i, n) in d.nodes.iter().enumerate() {
        if let Some((x, y)) = g.node(d, i) {
            rows.insert(n.gy, y);
            cols.insert(n.gx, x);
        }
    }
    let bottom = top + g.height;
    for (k, (gy, y)) in rows.iter().enumerate() {
        let x = if k % 2 == 0 {
            4.0 + EDGE_X / 2.0
        } else {
            WIDTH - 4.0 - EDGE_X / 2.0
        };
        svg.text(x, y + 3.5, 10.0, "middle", "#c7d3e3", &(gy + 2).to_string());
    }
    for (k, (gx, x)) in cols.iter().enumerate() {
        let y = if k % 2 == 0 { top + 11.0 } else { bottom - 3.0 };
        svg.text(*x, y, 10.0, "middle", "#c7d3e3", &(gx + 3).to_string());
    }
}
