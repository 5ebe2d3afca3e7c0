//! The board picture (`Game::board_svg`): the world map with its ports, sea lanes, hazards
//! and ships; each company's cash, fortune and fleet; the market prices; and the open
//! offers the viewer is party to. It is drawn from the view alone (the map layout is the
//! public data file), so it can never show what the view hides.

use std::collections::BTreeMap;

use super::data::{Board, HazardKind, NodeKind};
use super::render::{OfferView, PlayerView, ShipView, View, event_words, place_words};
use super::state::{Bundle, Pending, Phase};
use turnpost_engine::svg::{
    Svg, WIDTH, fit_text, recent_events, text_width, wrap_chars, wrap_text,
};
use turnpost_engine::{People, Seat, Viewer};

/// Seat colours, in seat order: the seats are named Red, Blue, Green and Yellow.
const SEAT_FILL: [&str; 4] = ["#d62728", "#1f5fbf", "#238b45", "#e3b200"];
const SEA: &str = "#d5e8f4";
const LANE: &str = "#86aac4";
const FIELD: &str = "#4f7ea0";
const INK: &str = "#1d2a33";
const MUTED: &str = "#51606b";

/// The map projection: data coordinates to pixels, piecewise linear per axis, so that the
/// crowded European waters get more room than the open oceans.
const X_STOPS: [(f64, f64); 5] = [
    (230.0, 16.0),
    (300.0, 86.0),
    (440.0, 176.0),
    (600.0, 426.0),
    (850.0, 588.0),
];
const Y_STOPS: [(f64, f64); 3] = [(80.0, 10.0), (200.0, 210.0), (510.0, 510.0)];
const MAP_HEIGHT: f64 = 522.0;
/// Ship markers: a disc this big, with the ship number in it.
const SHIP_R: f64 = 9.0;

fn seat_fill(seat: Seat) -> &'static str {
    SEAT_FILL.get(seat).copied().unwrap_or("#777777")
}

/// Text colour on a seat's fill: dark on yellow, white on the others.
fn seat_text(seat: Seat) -> &'static str {
    if seat == 3 { "#1d1d1d" } else { "#ffffff" }
}

fn stretch(stops: &[(f64, f64)], v: f64) -> f64 {
    let last = stops.len().saturating_sub(2);
    let i = stops.windows(2).position(|w| v <= w[1].0).unwrap_or(last);
    match (stops.get(i), stops.get(i + 1)) {
        (Some(a), Some(b)) if b.0 != a.0 => a.1 + (v - a.0) * (b.1 - a.1) / (b.0 - a.0),
        _ => v,
    }
}

fn hazard_colour(k: HazardKind) -> &'static str {
    match k {
        HazardKind::Tailwind => "#2e9d4f",
        HazardKind::Headwind => "#e07b00",
        HazardKind::Storm => "#6a2c91",
        HazardKind::Iceberg => "#35b6e6",
        HazardKind::Doldrums => "#9a9a9a",
        HazardKind::Reef => "#8b5a2b",
        HazardKind::Pirates => "#111111",
    }
}

const HAZARD_KINDS: [HazardKind; 7] = [
    HazardKind::Tailwind,
    HazardKind::Headwind,
    HazardKind::Storm,
    HazardKind::Iceberg,
    HazardKind::Doldrums,
    HazardKind::Reef,
    HazardKind::Pirates,
];

/// A box on the picture, for keeping labels off what is already drawn.
#[derive(Clone, Copy, Debug)]
struct Rect {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Rect {
    fn around(x: f64, y: f64, r: f64) -> Rect {
        Rect {
            x0: x - r,
            y0: y - r,
            x1: x + r,
            y1: y + r,
        }
    }

    fn overlap(&self, o: &Rect) -> f64 {
        let w = (self.x1.min(o.x1) - self.x0.max(o.x0)).max(0.0);
        let h = (self.y1.min(o.y1) - self.y0.max(o.y0)).max(0.0);
        w * h
    }

    fn inside(&self, o: &Rect) -> bool {
        self.x0 >= o.x0 && self.y0 >= o.y0 && self.x1 <= o.x1 && self.y1 <= o.y1
    }
}

/// Where a `w`×`h` label next to (x, y) covers least of `taken`: the box and the area it
/// covers. Candidates are tried at each distance in `gaps` (nearest first): right, left,
/// above, below, then diagonally; the first of equally good ones wins, so the choice is
/// deterministic.
fn place_label(
    taken: &[Rect],
    bounds: &Rect,
    x: f64,
    y: f64,
    gaps: &[f64],
    w: f64,
    h: f64,
) -> (Rect, f64) {
    let mut best: Option<(Rect, f64)> = None;
    for &gap in gaps {
        let d = gap * 0.75;
        let spots = [
            (x + gap, y - h / 2.0),
            (x - gap - w, y - h / 2.0),
            (x - w / 2.0, y - gap - h),
            (x - w / 2.0, y + gap),
            (x + d, y - d - h),
            (x + d, y + d),
            (x - d - w, y - d - h),
            (x - d - w, y + d),
        ];
        for (x0, y0) in spots {
            let r = Rect {
                x0,
                y0,
                x1: x0 + w,
                y1: y0 + h,
            };
            let mut cost: f64 = taken.iter().map(|t| r.overlap(t)).sum();
            if !r.inside(bounds) {
                cost += 1e6;
            }
            if best.is_none_or(|(_, c)| cost < c) {
                best = Some((r, cost));
            }
        }
    }
    best.unwrap_or((Rect::around(x, y, 0.0), f64::MAX))
}

/// Pixel positions of the places and fields drawn in this game (variant-only places are
/// left out of a base game), and the height the map takes.
struct MapLayout {
    at: Vec<Option<(f64, f64)>>,
    /// The wrapping Pacific lane, drawn as a strip under the map: its fields' y.
    strip_y: Option<f64>,
    height: f64,
}

fn layout(b: &Board, isthmus: bool, top: f64) -> MapLayout {
    let mut at: Vec<Option<(f64, f64)>> = vec![None; b.nodes.len()];
    for (i, n) in b.nodes.iter().enumerate() {
        if n.kind != NodeKind::Lane && (isthmus || !n.variant) {
            at[i] = Some((
                stretch(&X_STOPS, f64::from(n.x)),
                top + stretch(&Y_STOPS, f64::from(n.y)),
            ));
        }
    }
    let mut strip_y = None;
    let mut height = MAP_HEIGHT;
    for lane in b.lanes.iter().filter(|l| isthmus || !l.variant) {
        let (Some(a), Some(z)) = (
            b.node(&lane.a).and_then(|i| at[i]),
            b.node(&lane.b).and_then(|i| at[i]),
        ) else {
            continue;
        };
        let n = lane.fields.len() as f64 + 1.0;
        // A lane that runs off one edge of the world and in at the other is drawn as a
        // straight strip under the map, from its first end on the left to its last.
        let wraps = lane.wraps;
        let (a, z) = if wraps {
            let y = top + MAP_HEIGHT + 16.0;
            strip_y = Some(y);
            height = MAP_HEIGHT + 40.0;
            ((30.0, y), (WIDTH - 30.0, y))
        } else {
            (a, z)
        };
        for (k, &f) in lane.fields.iter().enumerate() {
            let t = if wraps {
                k as f64 / (n - 2.0).max(1.0)
            } else {
                (k as f64 + 1.0) / n
            };
            at[f] = Some((a.0 + (z.0 - a.0) * t, a.1 + (z.1 - a.1) * t));
        }
    }
    MapLayout {
        at,
        strip_y,
        height,
    }
}

/// How far from a place the ring of its `n` ship markers stands.
fn ring_radius(n: usize) -> f64 {
    (SHIP_R * 1.1 / (std::f64::consts::PI / n.max(2) as f64).sin()).max(15.0)
}

/// Offsets of `n` ship markers around a place: one ship at sea sits on its field; in a port
/// it sits beside the port; several stand in a ring.
fn ship_offsets(n: usize, port: bool) -> Vec<(f64, f64)> {
    if n == 1 {
        return vec![if port { (12.0, -12.0) } else { (0.0, 0.0) }];
    }
    let r = ring_radius(n);
    (0..n)
        .map(|k| {
            let a = -std::f64::consts::FRAC_PI_2 + std::f64::consts::TAU * k as f64 / n as f64;
            (r * a.cos(), r * a.sin())
        })
        .collect()
}

/// The `data-target` of a ship, a place on the map (`port:LON`, `junction:J_NS`,
/// `lane:L04.2`), a good's market column, a depot load and an offer.
pub fn ship_target(id: u32) -> String {
    format!("ship:{id}")
}

pub fn place_target(b: &Board, node: usize) -> String {
    let id = b.node_id(node);
    match b.nodes.get(node).map(|n| &n.kind) {
        Some(NodeKind::Port(_)) => format!("port:{id}"),
        Some(NodeKind::Junction) => format!("junction:{id}"),
        _ => format!("lane:{}", id.replace(':', ".")),
    }
}

pub fn good_target(good: &str) -> String {
    format!("good:{good}")
}

pub fn depot_target(id: u32) -> String {
    format!("depot:{id}")
}

pub fn offer_target(id: u32) -> String {
    format!("offer:{id}")
}

/// An invisible disc over a small mark, `r` wide, that a finger can hit: it carries the
/// mark's `data-target`.
fn hit_area(svg: &mut Svg, x: f64, y: f64, r: f64, target: &str) {
    svg.el(
        "circle",
        &[
            ("class", "hit".into()),
            ("cx", x.into()),
            ("cy", y.into()),
            ("r", r.into()),
            ("fill", "#ffffff".into()),
            ("fill-opacity", 0.0.into()),
            ("data-target", target.into()),
        ],
    );
}

fn ship_marker(svg: &mut Svg, x: f64, y: f64, r: f64, s: &ShipView, class: &str) {
    let target = ship_target(s.id);
    svg.open("g", &[("data-target", (&target).into())]);
    let (stroke, width) = if s.privateer {
        ("#000000", 2.5)
    } else {
        ("#ffffff", 1.5)
    };
    svg.el(
        "circle",
        &[
            ("class", class.into()),
            ("cx", x.into()),
            ("cy", y.into()),
            ("r", r.into()),
            ("fill", seat_fill(s.owner).into()),
            ("stroke", stroke.into()),
            ("stroke-width", width.into()),
        ],
    );
    svg.text_bold(
        x,
        y + 4.0,
        11.0,
        "middle",
        seat_text(s.owner),
        &s.id.to_string(),
    );
    if s.cargo.is_some() {
        // A crate on the ship's shoulder: it carries a load.
        svg.el(
            "rect",
            &[
                ("class", "cargo".into()),
                ("x", (x + r * 0.45).into()),
                ("y", (y - r * 1.25).into()),
                ("width", 6.0.into()),
                ("height", 6.0.into()),
                ("fill", "#a0641e".into()),
                ("stroke", "#ffffff".into()),
            ],
        );
    }
    svg.close("g");
}

fn player_name(v: &View, seat: Seat) -> String {
    v.players
        .iter()
        .find(|p| p.seat == seat)
        .map_or_else(|| format!("Seat {}", seat + 1), |p| p.name.clone())
}

/// Who picks a home city now: the highest home-city roll among those without one (ties were
/// re-rolled, so the rolls compare as sequences).
fn home_chooser(v: &View) -> Option<Seat> {
    v.players
        .iter()
        .filter(|p| p.home.is_none())
        .max_by(|a, b| a.home_roll.cmp(&b.home_roll).then(b.seat.cmp(&a.seat)))
        .map(|p| p.seat)
}

/// The winners of a finished game as the view shows them: the last company afloat when all
/// others are out, else the largest fortune, ties going to more cash and then shared.
fn winners(v: &View) -> Vec<Seat> {
    let afloat: Vec<&PlayerView> = v.players.iter().filter(|p| !p.out).collect();
    if afloat.len() == 1 && v.players.len() > 1 {
        return vec![afloat[0].seat];
    }
    let best = v.players.iter().map(|p| (p.fortune, p.cash)).max();
    v.players
        .iter()
        .filter(|p| Some((p.fortune, p.cash)) == best)
        .map(|p| p.seat)
        .collect()
}

fn phase_words(p: Phase) -> &'static str {
    match p {
        Phase::ChooseHome => "choosing home cities",
        Phase::Before => "port actions before the roll",
        Phase::Movement => "movement",
        Phase::After => "port actions after movement",
        Phase::Over => "game over",
    }
}

/// The one-line state of play: whose turn and what they do, or who won.
fn status_line(v: &View, people: &People) -> String {
    if let Some(over) = people.game_over() {
        return over;
    }
    match v.phase {
        Phase::Over => {
            let w = winners(v);
            let names: Vec<String> = w.iter().map(|&s| player_name(v, s)).collect();
            let fortune = w
                .first()
                .and_then(|&s| v.players.iter().find(|p| p.seat == s))
                .map_or(0, |p| p.fortune);
            match names.len() {
                0 => "Game over".into(),
                1 => format!("Game over: {} wins with a fortune of {fortune}", names[0]),
                _ => format!(
                    "Game over: {} share the win with a fortune of {fortune}",
                    names.join(" and ")
                ),
            }
        }
        Phase::ChooseHome => format!(
            "{} chooses a home city",
            home_chooser(v).map_or("-".into(), |s| player_name(v, s))
        ),
        p => {
            let mut line = format!("{} to play: {}", player_name(v, v.current), phase_words(p));
            if let Some(r) = v.roll {
                let dice: Vec<String> = v.dice.iter().map(u32::to_string).collect();
                line.push_str(&format!(", rolled {} = {r} fields", dice.join(" + ")));
            }
            line
        }
    }
}

fn pending_line(v: &View) -> Option<String> {
    let who = player_name(v, v.current);
    v.pending.as_ref().map(|p| match p {
        Pending::ChooseLoss { attackers } => format!(
            "{who} must choose which privateer is lost ({})",
            attackers
                .iter()
                .map(|a| format!("#{a}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Pending::ChooseCapture { defender, .. } => format!(
            "{who} won the battle and chooses what to capture from {}",
            player_name(v, *defender)
        ),
    })
}

fn cargo_words(s: &ShipView) -> String {
    match &s.cargo {
        Some(t) => format!(
            "{}, paid {} at {}, {} fields",
            t.good, t.price, t.bought_at, t.fields
        ),
        None => "empty".into(),
    }
}

fn ship_notes(v: &View, s: &ShipView) -> Vec<String> {
    let mut notes = Vec::new();
    if s.becalmed || s.stuck {
        notes.push("becalmed".to_string());
    }
    if s.owner == v.current && v.phase == Phase::Movement && s.remaining > 0 && !s.done {
        notes.push(format!("{} fields left", s.remaining));
    }
    if s.left_port {
        notes.push("left port".into());
    }
    notes
}

fn bundle_words(board: &Board, v: &View, b: &Bundle) -> String {
    let mut parts = Vec::new();
    if b.cash > 0 {
        parts.push(format!("{} ducats", b.cash));
    }
    for id in &b.ships {
        match v.ships.iter().find(|s| s.id == *id) {
            Some(s) => parts.push(format!(
                "ship #{id} (at {}, {})",
                place_words(board, &s.at),
                s.cargo.as_ref().map_or("empty", |t| t.good.as_str())
            )),
            None => parts.push(format!("ship #{id}")),
        }
    }
    for f in &b.forts {
        parts.push(format!("the fort at {f}"));
    }
    for id in &b.depot {
        parts.push(format!("depot load {id}"));
    }
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(", ")
    }
}

fn offer_words(b: &Board, v: &View, o: &OfferView) -> String {
    format!(
        "Offer #{}: {} gives {}; {} gives {}",
        o.id,
        player_name(v, o.from),
        bundle_words(b, v, &o.give),
        player_name(v, o.to),
        bundle_words(b, v, &o.get)
    )
}

/// The picture's title and the position in words for a screen reader.
fn title_and_desc(
    b: &Board,
    v: &View,
    viewer: Viewer,
    you: Option<&str>,
    people: &People,
) -> (String, String) {
    let short = match v.phase {
        _ if people.ending().is_some() => status_line(v, people),
        Phase::Over => status_line(v, people),
        Phase::ChooseHome => status_line(v, people),
        _ => format!(
            "round {} of {}, {} to play",
            v.round,
            v.rounds,
            player_name(v, v.current)
        ),
    };
    let title = format!("Fuldrigger: {short}");
    let mut d: Vec<String> = Vec::new();
    d.push(format!(
        "Fuldrigger, round {} of {}{}.",
        v.round,
        v.rounds,
        if v.isthmus { ", isthmus variant" } else { "" }
    ));
    d.push(format!("{}.", status_line(v, people)));
    if let Some(p) = pending_line(v) {
        d.push(format!("{p}."));
    }
    if let Some(colour) = you {
        d.push(format!("You play {colour}."));
    }
    match &v.active_card {
        Some(c) => d.push(format!("Chance card this round: {}.", c.text)),
        None => d.push("No chance card in force.".into()),
    }
    for p in &v.players {
        let ships: Vec<String> = v
            .ships
            .iter()
            .filter(|s| s.owner == p.seat)
            .map(|s| {
                format!(
                    "#{} at {} ({}, {})",
                    s.id,
                    place_words(b, &s.at),
                    if s.privateer { "privateer" } else { "merchant" },
                    match &s.cargo {
                        Some(t) => format!("carrying {} paid {}", t.good, t.price),
                        None => "empty".into(),
                    }
                )
            })
            .collect();
        d.push(format!(
            "{}: cash {}, fortune {}, home {}, forts {}, {}{}.",
            p.name,
            p.cash,
            p.fortune,
            p.home
                .as_ref()
                .and_then(|h| b.port_index(h))
                .map_or("not chosen".to_string(), |i| b.ports[i].name.clone()),
            if p.forts.is_empty() {
                "none".into()
            } else {
                p.forts.join(", ")
            },
            if ships.is_empty() {
                "no ships".into()
            } else {
                format!("ships {}", ships.join("; "))
            },
            if p.out { ", out of the game" } else { "" }
        ));
    }
    let closed: Vec<&str> = v
        .ports
        .iter()
        .filter(|p| p.closed)
        .map(|p| p.name.as_str())
        .collect();
    if !closed.is_empty() {
        d.push(format!("Closed this round: {}.", closed.join(", ")));
    }
    match viewer.seat() {
        Some(_) if v.offers.is_empty() => d.push("You have no open offers.".into()),
        Some(_) => {
            for o in &v.offers {
                d.push(format!("{}.", offer_words(b, v, o)));
            }
        }
        None => {}
    }
    (title, d.join(" "))
}

/// The view with every company named with its person ("Ada (Red)") and the events' lane
/// codes named as the map shows them, so every line below reads as the players know it.
fn labelled(b: &Board, v: &View, people: &People) -> View {
    let mut v = v.clone();
    let labels: Vec<(String, String)> = v
        .players
        .iter()
        .map(|p| (p.name.clone(), people.label(p.seat, &p.name)))
        .collect();
    for p in &mut v.players {
        p.name = people.label(p.seat, &p.name);
    }
    v.events = v
        .events
        .iter()
        .map(|e| name_colours(&event_words(b, e), &labels))
        .collect();
    v
}

/// `line` with each company's colour word ("Red") replaced by its label ("Ada (Red)").
fn name_colours(line: &str, labels: &[(String, String)]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match labels.iter().find(|(c, _)| c == word) {
            Some((_, label)) => out.push_str(label),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in line.chars() {
        if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The whole picture.
pub fn picture(b: &Board, view: &View, people: &People) -> String {
    let viewer = people.viewer();
    let colour_of = |seat: Seat| {
        view.players
            .iter()
            .find(|p| p.seat == seat)
            .map_or_else(|| format!("Seat {}", seat + 1), |p| p.name.clone())
    };
    let you = viewer.seat().map(colour_of);
    let v = &labelled(b, view, people);
    let (title, desc) = title_and_desc(b, v, viewer, you.as_deref(), people);
    let mut svg = Svg::new(100.0, &title, &desc);
    let mut y = header(&mut svg, v, people);
    y = map(&mut svg, b, v, y + 6.0);
    y = companies(&mut svg, b, v, people, y + 10.0);
    y = markets(&mut svg, v, y + 12.0);
    y = offers(&mut svg, b, v, viewer, y + 6.0);
    y = recent_events(&mut svg, &v.events, y + 6.0, INK, MUTED);
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
        &format!("Fuldrigger · round {} of {}", v.round, v.rounds),
    );
    if v.isthmus {
        svg.text(590.0, 24.0, 12.0, "end", MUTED, "isthmus variant");
    }
    let mut y = 44.0;
    let status = status_line(v, people);
    let colour = match v.phase {
        _ if people.ending().is_some() => INK,
        Phase::Over => match winners(v).as_slice() {
            [w] => seat_fill(*w),
            _ => INK,
        },
        Phase::ChooseHome => home_chooser(v).map_or(INK, seat_fill),
        _ => seat_fill(v.current),
    };
    svg.el(
        "rect",
        &[
            ("x", 10.0.into()),
            ("y", (y - 11.0).into()),
            ("width", 12.0.into()),
            ("height", 12.0.into()),
            ("fill", colour.into()),
        ],
    );
    // Long names make a long line: it wraps (bold runs wider than the estimate).
    for (i, line) in wrap_text(&status, 14.0, 500.0).iter().enumerate() {
        if i > 0 {
            y += 18.0;
        }
        svg.text_bold(28.0, y, 14.0, "start", INK, line);
    }
    if let Some(p) = pending_line(v) {
        for line in wrap_text(&p, 12.0, 510.0) {
            y += 18.0;
            svg.text_bold(28.0, y, 12.0, "start", "#b00020", &line);
        }
    }
    let mut lines: Vec<(String, &str)> = Vec::new();
    match &v.active_card {
        Some(c) => lines.push((format!("Chance card {}: {}", c.id, c.text), INK)),
        None => lines.push(("No chance card in force yet".into(), MUTED)),
    }
    // The card in force is also among the unclaimed arrivals until a ship claims it.
    let active = v.active_card.as_ref().map(|c| c.id.as_str());
    for c in v
        .unclaimed_arrivals
        .iter()
        .filter(|c| Some(c.id.as_str()) != active)
    {
        lines.push((format!("Unclaimed {}: {}", c.id, c.text), INK));
    }
    lines.push((
        format!(
            "Chance deck: {} cards left, order hidden; {} turned",
            v.deck_left,
            v.turned.len()
        ),
        MUTED,
    ));
    for (line, fill) in lines {
        for part in wrap_chars(&line, 86) {
            y += 16.0;
            svg.text(10.0, y, 12.0, "start", fill, &part);
        }
    }
    y + 4.0
}

fn map(svg: &mut Svg, b: &Board, v: &View, top: f64) -> f64 {
    let m = layout(b, v.isthmus, top);
    svg.el(
        "rect",
        &[
            ("x", 4.0.into()),
            ("y", top.into()),
            ("width", (WIDTH - 8.0).into()),
            ("height", m.height.into()),
            ("rx", 8.0.into()),
            ("fill", SEA.into()),
            ("stroke", "#9dbbd0".into()),
        ],
    );
    let pos = |i: usize| m.at.get(i).copied().flatten();
    // Lanes, then their fields.
    for lane in b.lanes.iter().filter(|l| v.isthmus || !l.variant) {
        let mut points: Vec<(f64, f64)> = Vec::new();
        points.extend(b.node(&lane.a).and_then(pos));
        points.extend(lane.fields.iter().filter_map(|&f| pos(f)));
        points.extend(b.node(&lane.b).and_then(pos));
        let last = points.len().saturating_sub(2);
        for (k, w) in points.windows(2).enumerate() {
            let (p, q) = (w[0], w[1]);
            // The wrapping lane's ends join the strip with dashed leaders.
            let leader = lane.wraps && (k == 0 || k == last);
            svg.el(
                "line",
                &[
                    ("x1", p.0.into()),
                    ("y1", p.1.into()),
                    ("x2", q.0.into()),
                    ("y2", q.1.into()),
                    ("stroke", LANE.into()),
                    ("stroke-width", 2.0.into()),
                    (
                        "stroke-dasharray",
                        if leader { "4 3" } else { "none" }.into(),
                    ),
                ],
            );
        }
    }
    if let Some(sy) = m.strip_y {
        svg.text(
            WIDTH / 2.0,
            sy + 18.0,
            11.0,
            "middle",
            MUTED,
            "Pacific crossing (lane L37 runs off the map edge and round the world)",
        );
    }
    let mut taken: Vec<Rect> = Vec::new();
    for (i, n) in b.nodes.iter().enumerate() {
        let Some((x, y)) = pos(i) else { continue };
        if n.kind != NodeKind::Lane {
            continue;
        }
        match n.hazard.and_then(|h| b.hazards.get(h)) {
            Some(h) => {
                svg.el(
                    "circle",
                    &[
                        ("class", "hazard".into()),
                        ("cx", x.into()),
                        ("cy", y.into()),
                        ("r", 5.0.into()),
                        ("fill", hazard_colour(h.kind).into()),
                        ("stroke", "#ffffff".into()),
                    ],
                );
                taken.push(Rect::around(x, y, 5.0));
            }
            None => {
                svg.circle(x, y, 2.5, FIELD, "none");
                taken.push(Rect::around(x, y, 2.5));
            }
        }
        hit_area(svg, x, y, 6.0, &place_target(b, i));
    }
    for f in &v.attacked_fields {
        if let Some((x, y)) = b.node(f).and_then(pos) {
            svg.el(
                "circle",
                &[
                    ("cx", x.into()),
                    ("cy", y.into()),
                    ("r", 12.0.into()),
                    ("fill", "none".into()),
                    ("stroke", "#b00020".into()),
                    ("stroke-width", 2.0.into()),
                    ("stroke-dasharray", "3 2".into()),
                ],
            );
        }
    }
    // Junctions and ports.
    for (i, n) in b.nodes.iter().enumerate() {
        let Some((x, y)) = pos(i) else { continue };
        if n.kind == NodeKind::Junction {
            svg.el(
                "circle",
                &[
                    ("cx", x.into()),
                    ("cy", y.into()),
                    ("r", 4.0.into()),
                    ("fill", "#ffffff".into()),
                    ("stroke", "#34566f".into()),
                    ("stroke-width", 1.5.into()),
                    ("data-target", place_target(b, i).as_str().into()),
                ],
            );
            hit_area(svg, x, y, 8.0, &place_target(b, i));
            taken.push(Rect::around(x, y, 4.0));
        }
    }
    for p in &v.ports {
        let Some((x, y)) = b.node(&p.id).and_then(pos) else {
            continue;
        };
        let fill = p.fort.map_or("#ffffff", seat_fill);
        let target = b
            .node(&p.id)
            .map(|n| place_target(b, n))
            .unwrap_or_default();
        svg.el(
            "rect",
            &[
                ("class", "port".into()),
                ("data-target", (&target).into()),
                ("x", (x - 6.0).into()),
                ("y", (y - 6.0).into()),
                ("width", 12.0.into()),
                ("height", 12.0.into()),
                ("fill", fill.into()),
                ("stroke", "#1d1d1d".into()),
                ("stroke-width", 1.5.into()),
            ],
        );
        if p.fort.is_some() {
            // Battlements on top of the port square: a fort, in its owner's colour.
            for dx in [-6.0, -1.5, 3.0] {
                svg.el(
                    "rect",
                    &[
                        ("x", (x + dx).into()),
                        ("y", (y - 9.0).into()),
                        ("width", 3.0.into()),
                        ("height", 3.0.into()),
                        ("fill", fill.into()),
                        ("stroke", "#1d1d1d".into()),
                    ],
                );
            }
        }
        if p.closed {
            svg.line(x - 8.0, y - 8.0, x + 8.0, y + 8.0, "#b00020", 2.5);
            svg.line(x - 8.0, y + 8.0, x + 8.0, y - 8.0, "#b00020", 2.5);
        }
        taken.push(Rect::around(x, y, 7.0));
    }
    // Ships, grouped by where they are, in the view's order.
    let mut by_place: BTreeMap<usize, Vec<&ShipView>> = BTreeMap::new();
    for s in &v.ships {
        if let Some(n) = b.node(&s.at) {
            by_place.entry(n).or_default().push(s);
        }
    }
    let mut markers: Vec<(f64, f64, &ShipView)> = Vec::new();
    for (&n, ships) in &by_place {
        let Some((x, y)) = pos(n) else { continue };
        let port = b.port_of(n).is_some();
        for (s, (dx, dy)) in ships.iter().zip(ship_offsets(ships.len(), port)) {
            markers.push((x + dx, y + dy, s));
            taken.push(Rect::around(x + dx, y + dy, SHIP_R + 1.0));
        }
    }
    // Labels: every port, then the junctions where there is room.
    let bounds = Rect {
        x0: 6.0,
        y0: top + 2.0,
        x1: WIDTH - 6.0,
        y1: top + MAP_HEIGHT - 2.0,
    };
    // (box, text, is a port, data-target)
    let mut labels: Vec<(Rect, String, bool, String)> = Vec::new();
    for p in &v.ports {
        let Some((x, y)) = b.node(&p.id).and_then(pos) else {
            continue;
        };
        let w = text_width(&p.id, 11.0) + 4.0;
        // Past the ring of ships in port when there is no room right beside the port.
        let ships = b
            .node(&p.id)
            .and_then(|n| by_place.get(&n))
            .map_or(0, Vec::len);
        let gaps = [9.0, ring_radius(ships) + SHIP_R + 3.0];
        let (r, _) = place_label(
            &taken,
            &bounds,
            x,
            y,
            &gaps[..if ships > 0 { 2 } else { 1 }],
            w,
            14.0,
        );
        taken.push(r);
        let target = b
            .node(&p.id)
            .map(|n| place_target(b, n))
            .unwrap_or_default();
        labels.push((r, p.id.clone(), true, target));
    }
    for (i, n) in b.nodes.iter().enumerate() {
        let Some((x, y)) = pos(i) else { continue };
        if n.kind != NodeKind::Junction {
            continue;
        }
        // Every junction is labelled (moves and events name them), where it covers least.
        let w = text_width(&n.id, 11.0) + 4.0;
        let (r, _) = place_label(&taken, &bounds, x, y, &[6.0, 12.0], w, 14.0);
        taken.push(r);
        labels.push((r, n.id.clone(), false, place_target(b, i)));
    }
    for (r, label, port, target) in &labels {
        svg.el(
            "rect",
            &[
                ("data-target", target.as_str().into()),
                ("x", r.x0.into()),
                ("y", r.y0.into()),
                ("width", (r.x1 - r.x0).into()),
                ("height", (r.y1 - r.y0).into()),
                ("rx", 3.0.into()),
                ("fill", "#ffffff".into()),
                ("fill-opacity", if *port { 0.85 } else { 0.6 }.into()),
            ],
        );
        if *port {
            svg.text_bold(
                r.x0 + 2.0,
                r.y1 - 3.5,
                11.0,
                "start",
                if *port { INK } else { MUTED },
                label,
            )
        } else {
            svg.text(
                r.x0 + 2.0,
                r.y1 - 3.5,
                11.0,
                "start",
                if *port { INK } else { MUTED },
                label,
            )
        };
    }
    for (x, y, s) in markers {
        ship_marker(svg, x, y, SHIP_R, s, "ship");
    }
    // The key to the symbols.
    let mut y = top + m.height + 16.0;
    let mut x = 10.0;
    for k in HAZARD_KINDS {
        let w = text_width(k.name(), 11.0) + 22.0;
        if x + w > WIDTH - 6.0 {
            x = 10.0;
            y += 16.0;
        }
        svg.circle(x + 5.0, y - 4.0, 5.0, hazard_colour(k), "#ffffff");
        svg.text(x + 13.0, y, 11.0, "start", MUTED, k.name());
        x += w;
    }
    y += 16.0;
    svg.text(
        10.0,
        y,
        11.0,
        "start",
        MUTED,
        "Ships: number on the owner's colour; black ring = privateer; brown crate = cargo aboard.",
    );
    y += 15.0;
    svg.text(
        10.0,
        y,
        11.0,
        "start",
        MUTED,
        "Ports: square, filled and battlemented in the owner's colour where a fort stands; red X = closed.",
    );
    y
}

fn companies(svg: &mut Svg, b: &Board, v: &View, people: &People, top: f64) -> f64 {
    let mut y = top + 14.0;
    svg.text_bold(10.0, y, 14.0, "start", INK, "Companies");
    let over = v.phase == Phase::Over || people.ending().is_some();
    for p in &v.players {
        y += 24.0;
        let to_play = !over
            && if v.phase == Phase::ChooseHome {
                home_chooser(v) == Some(p.seat)
            } else {
                v.current == p.seat
            };
        let fleet: Vec<&ShipView> = v.ships.iter().filter(|s| s.owner == p.seat).collect();
        // The name (the person and the colour), then the facts beside it or, for a long
        // name, on a line of their own.
        let name = fit_text(&p.name, 14.0, 300.0);
        let mut facts = format!(
            "cash {}  ·  fortune {}  ·  home {}  ·  forts {}",
            p.cash,
            p.fortune,
            p.home.as_deref().unwrap_or("-"),
            if p.forts.is_empty() {
                "-".to_string()
            } else {
                p.forts.join(", ")
            }
        );
        if p.out {
            facts.push_str("  ·  OUT");
        }
        let right = if to_play { 530.0 } else { 590.0 };
        let beside = (30.0 + text_width(&name, 14.0) * 1.05 + 12.0).max(130.0);
        let facts_at = if beside + text_width(&facts, 12.0) <= right {
            None
        } else {
            Some(y + 18.0)
        };
        let ship_lines: Vec<Vec<String>> = fleet
            .iter()
            .map(|s| {
                let mut line = format!(
                    "{} · {} · {}",
                    place_words(b, &s.at),
                    if s.privateer { "privateer" } else { "merchant" },
                    cargo_words(s)
                );
                let notes = ship_notes(v, s);
                if !notes.is_empty() {
                    line.push_str(&format!(" · {}", notes.join(", ")));
                }
                wrap_chars(&line, 70)
            })
            .collect();
        let below = ship_lines
            .iter()
            .map(|l| 20.0 + 15.0 * l.len().saturating_sub(1) as f64)
            .sum::<f64>()
            + 18.0 * p.depot.len() as f64
            + if facts_at.is_some() { 18.0 } else { 0.0 };
        if to_play {
            svg.el(
                "rect",
                &[
                    ("x", 4.0.into()),
                    ("y", (y - 16.0).into()),
                    ("width", (WIDTH - 8.0).into()),
                    ("height", (22.0 + below).into()),
                    ("rx", 5.0.into()),
                    ("fill", "#fff4c8".into()),
                ],
            );
        }
        svg.el(
            "rect",
            &[
                ("class", "seat".into()),
                ("x", 10.0.into()),
                ("y", (y - 12.0).into()),
                ("width", 14.0.into()),
                ("height", 14.0.into()),
                ("rx", 3.0.into()),
                ("fill", seat_fill(p.seat).into()),
            ],
        );
        svg.text_bold(30.0, y, 14.0, "start", INK, &name);
        if to_play {
            svg.text_bold(590.0, y, 12.0, "end", "#8a5a00", "to play");
        }
        match facts_at {
            None => {
                svg.text(beside, y, 12.0, "start", INK, &facts);
            }
            Some(fy) => {
                y = fy;
                svg.text(30.0, y, 12.0, "start", INK, &fit_text(&facts, 12.0, 555.0));
            }
        }
        for (s, lines) in fleet.iter().zip(&ship_lines) {
            y += 20.0;
            ship_marker(svg, 38.0, y - 4.0, SHIP_R, s, "fleet-ship");
            for (i, line) in lines.iter().enumerate() {
                if i > 0 {
                    y += 15.0;
                }
                svg.text(52.0, y, 12.0, "start", INK, line);
            }
        }
        for d in &p.depot {
            y += 18.0;
            let target = depot_target(d.id);
            svg.open("g", &[("data-target", (&target).into())]);
            svg.text(
                52.0,
                y,
                12.0,
                "start",
                INK,
                &format!(
                    "depot load {} ({}): {}, paid {}, {} fields, dropped at {}",
                    d.id, d.isthmus, d.token.good, d.token.price, d.token.fields, d.dropped_at
                ),
            );
            svg.close("g");
        }
    }
    y + 6.0
}

fn markets(svg: &mut Svg, v: &View, top: f64) -> f64 {
    let mut y = top + 14.0;
    svg.text_bold(10.0, y, 14.0, "start", INK, "Markets");
    svg.text(
        590.0,
        y,
        11.0,
        "end",
        MUTED,
        "K: buy here at this price · S: sell here, this round",
    );
    let goods: Vec<&str> = v.supply.iter().map(|(g, _)| g.as_str()).collect();
    let (x0, col) = (112.0, 48.0);
    let status_x = x0 + col * goods.len() as f64 + 4.0;
    // Good names alternate between two header lines, so long names do not collide.
    y += 16.0;
    for (i, g) in goods.iter().enumerate() {
        let cx = x0 + col * (i as f64 + 0.5);
        let target = good_target(g);
        svg.open("g", &[("data-target", (&target).into())]);
        svg.text_bold(
            cx,
            y + if i % 2 == 1 { 13.0 } else { 0.0 },
            11.0,
            "middle",
            INK,
            g,
        );
        svg.close("g");
    }
    svg.text_bold(status_x, y + 13.0, 11.0, "start", INK, "fort");
    y += 17.0;
    for p in &v.ports {
        y += 19.0;
        if p.closed {
            svg.el(
                "rect",
                &[
                    ("x", 4.0.into()),
                    ("y", (y - 14.0).into()),
                    ("width", (WIDTH - 8.0).into()),
                    ("height", 18.0.into()),
                    ("fill", "#eeeeee".into()),
                ],
            );
        }
        svg.text_bold(10.0, y, 11.0, "start", INK, &p.id);
        svg.text(44.0, y, 11.0, "start", INK, &p.name);
        for (i, g) in goods.iter().enumerate() {
            let cell = p
                .buy
                .iter()
                .find(|(b, _)| b == g)
                .map(|(_, pr)| (format!("K {pr}"), "#dff0d8", "#1e5a1e"))
                .or_else(|| {
                    p.sell
                        .iter()
                        .find(|(s, _)| s == g)
                        .map(|(_, pr)| (format!("S {pr}"), "#dbe8fa", "#173f7a"))
                });
            if let Some((label, bg, fg)) = cell {
                let cx = x0 + col * i as f64;
                svg.el(
                    "rect",
                    &[
                        ("class", "price".into()),
                        ("x", (cx + 2.0).into()),
                        ("y", (y - 13.0).into()),
                        ("width", (col - 4.0).into()),
                        ("height", 17.0.into()),
                        ("rx", 3.0.into()),
                        ("fill", bg.into()),
                    ],
                );
                svg.text(cx + col / 2.0, y, 11.0, "middle", fg, &label);
            }
        }
        let mut x = status_x;
        if let Some(owner) = p.fort {
            svg.el(
                "rect",
                &[
                    ("x", x.into()),
                    ("y", (y - 10.0).into()),
                    ("width", 10.0.into()),
                    ("height", 10.0.into()),
                    ("fill", seat_fill(owner).into()),
                    ("stroke", "#1d1d1d".into()),
                ],
            );
            x += 14.0;
        }
        if p.closed {
            svg.text_bold(x, y, 11.0, "start", "#b00020", "closed");
        }
    }
    y += 19.0;
    svg.text_bold(10.0, y, 11.0, "start", MUTED, "left in supply");
    for (i, (_, n)) in v.supply.iter().enumerate() {
        let cx = x0 + col * (i as f64 + 0.5);
        svg.text(cx, y, 11.0, "middle", MUTED, &n.to_string());
    }
    y
}

fn offers(svg: &mut Svg, b: &Board, v: &View, viewer: Viewer, top: f64) -> f64 {
    if viewer.seat().is_none() {
        return top;
    }
    let mut y = top + 16.0;
    svg.text_bold(10.0, y, 14.0, "start", INK, "Your open offers");
    if v.offers.is_empty() {
        y += 17.0;
        svg.text(10.0, y, 12.0, "start", MUTED, "none");
    }
    for o in &v.offers {
        let target = offer_target(o.id);
        svg.open("g", &[("data-target", (&target).into())]);
        for (i, part) in wrap_chars(&offer_words(b, v, o), 84).iter().enumerate() {
            y += 17.0;
            if i == 0 {
                svg.el(
                    "rect",
                    &[
                        ("class", "offer".into()),
                        ("x", 10.0.into()),
                        ("y", (y - 10.0).into()),
                        ("width", 10.0.into()),
                        ("height", 10.0.into()),
                        ("fill", seat_fill(o.from).into()),
                    ],
                );
            }
            svg.text(26.0, y, 12.0, "start", INK, part);
        }
        svg.close("g");
    }
    y
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn the_projection_is_monotone_and_keeps_the_map_inside_the_picture() {
        let mut last = f64::MIN;
        for x in (200..=900).step_by(10) {
            let px = stretch(&X_STOPS, f64::from(x));
            assert!(px > last, "{x} -> {px}");
            last = px;
        }
        assert!(stretch(&X_STOPS, 230.0) >= 10.0 && stretch(&X_STOPS, 850.0) <= 590.0);
        assert_eq!(stretch(&Y_STOPS, 200.0), 210.0);
    }

    #[test]
    fn long_lines_wrap_at_spaces() {
        let lines = wrap_chars("Gale in the North Atlantic: every ship at sea rolls", 20);
        assert_eq!(
            lines,
            ["Gale in the North", "Atlantic: every ship", "at sea rolls"]
        );
        assert!(lines.iter().all(|l| l.chars().count() <= 20));
        assert_eq!(
            wrap_chars("a-very-long-word x", 5),
            ["a-very-long-word", "x"]
        );
        assert!(text_width("CPH", 11.0) > text_width("cph", 11.0));
    }

    #[test]
    fn labels_avoid_what_is_drawn() {
        let bounds = Rect::around(50.0, 50.0, 50.0);
        // Something right of the point: the label goes left.
        let taken = [Rect::around(62.0, 50.0, 5.0)];
        let (r, cost) = place_label(&taken, &bounds, 50.0, 50.0, &[6.0], 20.0, 10.0);
        assert_eq!(cost, 0.0);
        assert!(r.x1 <= 50.0, "{r:?}");
    }
}
