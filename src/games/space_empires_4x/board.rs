//! The board picture: the hex map (in bands of at most 14 columns, so hexes stay readable
//! at 600 px), every counter by hex, the players, and the viewer's own empire. Drawn from
//! a view alone, so a face-down counter or marker can only ever be drawn face down.

use std::collections::BTreeMap;

use turnpost_engine::hex::Hex;
use turnpost_engine::svg::{
    self, Attr, Svg, WIDTH, points_attr, pointy_hex_center, pointy_hex_corners, recent_events,
    text_width, wrap_chars,
};
use turnpost_engine::{People, Seat};

use super::data::{self, Data};
use super::render::{
    ColonyView, ECON_PHASE, GroupView, HexView, MyView, OVER_PHASE, View, is_turn_phase,
};
use super::state::{Marker, OrderLine, UnitKind};

const MARGIN: f64 = 10.0;
/// Columns per map band: 14 columns of a 27-wide map make hexes about 40 px wide.
const BAND_COLS: i32 = 14;
const COUNTER_W: f64 = 38.0;
const COUNTER_H: f64 = 30.0;
const LINE: f64 = 16.0;

const SEAT_COLOURS: [&str; 4] = ["#d9453b", "#2f74d0", "#2e9d57", "#e0a21a"];
const SPACE: &str = "#1b2540";
const FACE_DOWN: &str = "#454d62";

fn colour(seat: Seat) -> &'static str {
    SEAT_COLOURS.get(seat).copied().unwrap_or("#888888")
}

/// Text colour on a seat-coloured fill (dark on the light amber).
fn ink(seat: Seat) -> &'static str {
    if seat == 3 { "#1a1a1a" } else { "#ffffff" }
}

/// The seat as the game calls it ("Seat 2"), with the person there: "Ada (Seat 2)".
fn seat_label(people: &People, seat: Seat) -> String {
    people.label(seat, &format!("Seat {}", seat + 1))
}

/// `text` (a phase, pending step or event, written with the game's "Seat N") with every
/// seat named as [`seat_label`] does, in one pass so a name is never replaced again.
fn with_names(people: &People, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(i) = rest.find("Seat ") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 5..];
        let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
        match digits.parse::<usize>() {
            Ok(n) if n >= 1 && !digits.is_empty() => {
                out.push_str(&seat_label(people, n - 1));
                rest = &after[digits.len()..];
            }
            _ => {
                out.push_str("Seat ");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A hex's click target on the picture: `hex:x3y4`.
pub fn hex_target(x: i32, y: i32) -> String {
    format!("hex:x{x}y{y}")
}

/// A counter's click target on the picture: `counter:12`.
pub fn counter_target(id: u32) -> String {
    format!("counter:{id}")
}

/// Fill, label and label colour of an explored marker.
fn marker_style(m: Marker) -> (&'static str, &'static str, &'static str) {
    match m {
        Marker::Empty => (SPACE, "", "#ffffff"),
        Marker::Planet => (SPACE, "Pl", "#86e08f"),
        Marker::BarrenPlanet => (SPACE, "Ba", "#c8c8c8"),
        Marker::Minerals5 => (SPACE, "M5", "#f2c94c"),
        Marker::Minerals10 => (SPACE, "M10", "#f2c94c"),
        Marker::Nebula => ("#4a3868", "Neb", "#e6d0ff"),
        Marker::Asteroids => ("#5a4632", "Ast", "#f3dfbd"),
        Marker::BlackHole => ("#05050a", "BH", "#ffffff"),
        Marker::Danger => (SPACE, "Dgr", "#ff9a90"),
        Marker::LostInSpace => (SPACE, "Lost", "#a4d6ff"),
        Marker::Supernova => ("#6b2a12", "SN", "#ffc27a"),
        Marker::SpaceWreck => (SPACE, "Wrk", "#d8d8d8"),
        Marker::WarpPoint => (SPACE, "WP", "#a4d6ff"),
        Marker::DoomsdayMachine => (SPACE, "DM", "#ff9a90"),
    }
}

fn unit_code(d: Option<&Data>, kind: UnitKind) -> String {
    match d {
        Some(d) => d.unit(kind).code.clone(),
        None => kind
            .name()
            .chars()
            .take(2)
            .collect::<String>()
            .to_uppercase(),
    }
}

fn hex_name(x: i32, y: i32) -> String {
    format!("({x},{y})")
}

/// (x, y) of a cell index of the state, as order lines and plans name hexes.
fn index_xy(view: &View, pos: usize) -> (i32, i32) {
    let w = view.width.max(1) as usize;
    ((pos % w) as i32, (pos / w) as i32)
}

/// The seats waiting to act, as far as the view tells.
fn acting(view: &View, people: &People) -> Vec<Seat> {
    if view.phase == OVER_PHASE || people.ending().is_some() {
        return Vec::new();
    }
    if let Some(b) = &view.battle {
        let mut v: Vec<Seat> = [b.attacker, b.defender]
            .into_iter()
            .zip(b.plan_submitted)
            .filter(|(_, done)| !done)
            .map(|(s, _)| s)
            .collect();
        v.sort_unstable();
        return v;
    }
    if view.phase == ECON_PHASE {
        return (0..view.alive.len())
            .filter(|&s| view.alive[s] && !view.orders_submitted.get(s).copied().unwrap_or(false))
            .collect();
    }
    Vec::new()
}

/// Homeworld value, colony count and colony value per seat (public).
fn colony_totals(view: &View, seat: Seat) -> (u32, usize, u32) {
    let mine: Vec<&ColonyView> = view.colonies.iter().filter(|c| c.owner == seat).collect();
    let hw: u32 = mine
        .iter()
        .filter(|c| c.homeworld)
        .map(|c| u32::from(c.value))
        .sum();
    let others: Vec<&&ColonyView> = mine.iter().filter(|c| !c.homeworld).collect();
    let value: u32 = others.iter().map(|c| u32::from(c.value)).sum();
    (hw, others.len(), value)
}

/// "value 24 (Homeworld 20, 2 colonies worth 4)": what decides the game at the round cap.
fn standing_text(view: &View, seat: Seat) -> String {
    let (hw, n, value) = colony_totals(view, seat);
    let has_home = view.colonies.iter().any(|c| c.owner == seat && c.homeworld);
    let colonies = match n {
        0 => "no colonies".to_string(),
        1 => format!("1 colony worth {value}"),
        _ => format!("{n} colonies worth {value}"),
    };
    if has_home {
        format!("value {} (Homeworld {hw}, {colonies})", hw + value)
    } else {
        format!("value {value} (no Homeworld yet, {colonies})")
    }
}

/// Who won a finished game, as far as public facts tell: the last Homeworld standing, or
/// the highest value at the round cap (a tie there is broken by secret banked CP).
fn verdict(view: &View, people: &People) -> String {
    let alive: Vec<Seat> = (0..view.alive.len()).filter(|&s| view.alive[s]).collect();
    if let [one] = alive.as_slice() {
        return format!(
            "Game over: {} wins, the last Homeworld standing",
            seat_label(people, *one)
        );
    }
    let total = |s: Seat| {
        let (hw, _, value) = colony_totals(view, s);
        hw + value
    };
    let best = alive.iter().map(|&s| total(s)).max().unwrap_or(0);
    let leaders: Vec<String> = alive
        .iter()
        .filter(|&&s| total(s) == best)
        .map(|&s| seat_label(people, s))
        .collect();
    match leaders.as_slice() {
        [one] => format!("Game over: {one} wins on value {best}"),
        _ => format!(
            "Game over: {} tie on value {best}; banked CP decides",
            leaders.join(" and ")
        ),
    }
}

fn tech_line(me: &MyView) -> String {
    let parts: Vec<String> = me
        .tech
        .iter()
        .map(|(t, l)| format!("{} {l}", t.name()))
        .collect();
    parts.join(", ")
}

fn order_text(view: &View, line: &OrderLine) -> String {
    match line {
        OrderLine::Research { tech } => format!("research {}", tech.name()),
        OrderLine::Build { unit, pos } => {
            let (x, y) = index_xy(view, *pos);
            format!("build a {} at {}", unit.name(), hex_name(x, y))
        }
        OrderLine::Scuttle { group } => format!("scuttle one ship of #{group}"),
    }
}

fn group_text(people: &People, g: &GroupView) -> String {
    let what = match (g.kind, g.count) {
        (Some(k), Some(n)) => format!("{} x{n}", k.name()),
        _ => "face-down counter".to_string(),
    };
    format!(
        "#{} {} {what} at {}",
        g.id,
        seat_label(people, g.owner),
        hex_name(g.x, g.y)
    )
}

/// The screen-reader description: whose turn, every seat's standing, the viewer's secrets
/// (CP, technology, orders) and the key facts of the map.
fn describe(view: &View, people: &People) -> String {
    let viewer = people.viewer();
    let mut parts = Vec::new();
    let cap = view.round_cap.map_or(String::new(), |c| format!(" of {c}"));
    parts.push(format!(
        "Space Empires 4X, round {}{cap}, {}.",
        view.round,
        with_names(people, &view.phase)
    ));
    if !view.order.is_empty() {
        let order: Vec<String> = view.order.iter().map(|&s| seat_label(people, s)).collect();
        parts.push(format!("Turn order {}.", order.join(", ")));
    }
    if let Some(over) = people.game_over() {
        parts.push(format!("{over}."));
    } else if view.phase == OVER_PHASE {
        parts.push(format!("{}.", verdict(view, people)));
    }
    let waiting: Vec<String> = acting(view, people)
        .into_iter()
        .map(|s| seat_label(people, s))
        .collect();
    if !waiting.is_empty() {
        parts.push(format!("Waiting for {}.", waiting.join(", ")));
    }
    if let Some(p) = &view.pending {
        parts.push(format!("{}.", with_names(people, p)));
    }
    if let Some(b) = &view.battle {
        parts.push(format!(
            "Battle at {}: {} attacks {}, combat round {}.",
            hex_name(b.x, b.y),
            seat_label(people, b.attacker),
            seat_label(people, b.defender),
            b.round
        ));
    }
    for (seat, &alive) in view.alive.iter().enumerate() {
        let counters = view.groups.iter().filter(|g| g.owner == seat).count();
        if alive {
            parts.push(format!(
                "{}: {}, {counters} counters.",
                seat_label(people, seat),
                standing_text(view, seat)
            ));
        } else {
            parts.push(format!("{}: eliminated.", seat_label(people, seat)));
        }
    }
    match &view.me {
        Some(me) => {
            parts.push(format!(
                "You have {} CP banked. Your technology: {}.",
                me.cp,
                tech_line(me)
            ));
            if let Some(d) = &me.draft {
                let lines: Vec<String> = d.lines.iter().map(|l| order_text(view, l)).collect();
                parts.push(format!(
                    "This Economic Phase: {} CP available, {} spent{}{}.",
                    d.available,
                    d.spent,
                    if lines.is_empty() {
                        String::new()
                    } else {
                        format!(", orders: {}", lines.join("; "))
                    },
                    if d.submitted { ", submitted" } else { "" }
                ));
            }
            let mine: Vec<String> = view
                .groups
                .iter()
                .filter(|g| Some(g.owner) == viewer.seat())
                .map(|g| group_text(people, g))
                .collect();
            if !mine.is_empty() {
                parts.push(format!("Your counters: {}.", mine.join("; ")));
            }
        }
        None => parts.push("Spectator view: no empire's secrets are shown.".into()),
    }
    let others: Vec<String> = view
        .groups
        .iter()
        .filter(|g| Some(g.owner) != viewer.seat())
        .map(|g| group_text(people, g))
        .collect();
    if !others.is_empty() {
        parts.push(format!("Other counters: {}.", others.join("; ")));
    }
    let explored = view.hexes.iter().filter(|h| h.explored).count();
    parts.push(format!(
        "{explored} of {} hexes explored.",
        view.hexes.len()
    ));
    parts.join(" ")
}

/// Column ranges of the map bands, west to east.
fn bands(width: i32) -> Vec<(i32, i32)> {
    let n = (width.max(1) + BAND_COLS - 1) / BAND_COLS;
    let per = (width.max(1) + n - 1) / n;
    (0..n)
        .map(|i| (i * per, ((i + 1) * per).min(width) - 1))
        .filter(|(a, b)| a <= b)
        .collect()
}

struct Geometry {
    /// Circumradius of a hex.
    size: f64,
    hex_w: f64,
}

impl Geometry {
    fn for_width(width: i32) -> Geometry {
        let cols = bands(width)
            .iter()
            .map(|(a, b)| b - a + 1)
            .max()
            .unwrap_or(1);
        let hex_w = ((WIDTH - 2.0 * MARGIN) / (f64::from(cols) + 0.5)).min(46.0);
        Geometry {
            size: hex_w / svg::SQRT_3,
            hex_w,
        }
    }

    /// Centre of offset hex (x, y) in a band whose first column is `x0` and top is `top`.
    fn centre(&self, x: i32, y: i32, x0: i32, top: f64) -> (f64, f64) {
        let (px, py) = pointy_hex_center(Hex::from_offset(x, y), self.size);
        let (ox, _) = pointy_hex_center(Hex::from_offset(x0, 0), self.size);
        (MARGIN + self.hex_w / 2.0 + px - ox, top + self.size + py)
    }

    fn band_height(&self, rows: i32) -> f64 {
        self.size * 2.0 + self.size * 1.5 * f64::from((rows - 1).max(0))
    }
}

fn draw_hex(svg: &mut Svg, g: &Geometry, h: &HexView, cx: f64, cy: f64) {
    let (fill, class) = match (h.explored, h.marker) {
        (true, Some(m)) => (marker_style(m).0, "hex"),
        _ => (FACE_DOWN, "hex unexplored"),
    };
    let (stroke, stroke_w) = match h.home_of {
        Some(s) => (colour(s), 2.5),
        None => ("#6b7590", 1.0),
    };
    let pts = points_attr(&pointy_hex_corners(cx, cy, g.size - stroke_w / 2.0));
    svg.el(
        "polygon",
        &[
            ("class", class.into()),
            ("points", (&pts).into()),
            ("fill", fill.into()),
            ("stroke", stroke.into()),
            ("stroke-width", stroke_w.into()),
        ],
    );
}

fn draw_hex_content(svg: &mut Svg, g: &Geometry, view: &View, h: &HexView, (cx, cy): (f64, f64)) {
    svg.text(
        cx,
        cy - g.size * 0.36,
        11.0,
        "middle",
        "#c3cce0",
        &format!("{},{}", h.x, h.y),
    );
    let colony = view.colonies.iter().find(|c| c.x == h.x && c.y == h.y);
    if let Some(c) = colony {
        if c.homeworld {
            svg.el(
                "circle",
                &[
                    ("class", "homeworld".into()),
                    ("cx", cx.into()),
                    ("cy", (cy + 2.0).into()),
                    ("r", 10.5.into()),
                    ("fill", "none".into()),
                    ("stroke", colour(c.owner).into()),
                    ("stroke-width", 2.0.into()),
                ],
            );
        }
        svg.el(
            "circle",
            &[
                ("class", "colony".into()),
                ("cx", cx.into()),
                ("cy", (cy + 2.0).into()),
                ("r", 8.0.into()),
                ("fill", colour(c.owner).into()),
                ("stroke", "#ffffff".into()),
            ],
        );
        svg.text_el(
            "text",
            &[
                ("x", cx.into()),
                ("y", (cy + 6.0).into()),
                ("font-size", 11.0.into()),
                ("font-weight", "bold".into()),
                ("text-anchor", "middle".into()),
                ("fill", ink(c.owner).into()),
            ],
            &c.value.to_string(),
        );
    } else {
        let (label, fill, italic) = match (h.explored, h.marker, h.peeked) {
            (true, Some(m), _) => (marker_style(m).1.to_string(), marker_style(m).2, false),
            (_, _, Some(p)) => {
                let l = marker_style(p).1;
                let l = if l.is_empty() { "Em" } else { l };
                (format!("{l}?"), "#ffe28a", true)
            }
            // The grey face-down fill says it; no label keeps ~200 elements out of the picture.
            _ => (String::new(), "#aab3c7", false),
        };
        if !label.is_empty() {
            svg.text_el(
                "text",
                &[
                    ("x", cx.into()),
                    ("y", (cy + 5.0).into()),
                    ("font-size", 11.0.into()),
                    ("font-weight", "bold".into()),
                    (
                        "font-style",
                        if italic { "italic" } else { "normal" }.into(),
                    ),
                    ("text-anchor", "middle".into()),
                    ("fill", fill.into()),
                ],
                &label,
            );
        }
    }
    let mut owners: Vec<Seat> = view
        .groups
        .iter()
        .filter(|gr| gr.x == h.x && gr.y == h.y)
        .map(|gr| gr.owner)
        .collect();
    owners.sort_unstable();
    owners.dedup();
    let chip = 7.0;
    let total = owners.len() as f64 * (chip + 2.0) - 2.0;
    for (i, &o) in owners.iter().enumerate() {
        let x = cx - total / 2.0 + i as f64 * (chip + 2.0);
        svg.el(
            "rect",
            &[
                ("class", "presence".into()),
                ("x", x.into()),
                ("y", (cy + g.size * 0.44).into()),
                ("width", chip.into()),
                ("height", chip.into()),
                ("fill", colour(o).into()),
                ("stroke", "#ffffff".into()),
                ("stroke-width", 1.0.into()),
            ],
        );
    }
}

/// The map, band by band; returns the y below it.
fn draw_map(svg: &mut Svg, view: &View, top: f64) -> f64 {
    let g = Geometry::for_width(view.width);
    let band_list = bands(view.width);
    let mut y = top;
    for (i, &(x0, x1)) in band_list.iter().enumerate() {
        let cells: Vec<&HexView> = view
            .hexes
            .iter()
            .filter(|h| h.x >= x0 && h.x <= x1)
            .collect();
        // Rows without a hex in this band (an off-map block) take no room.
        let y_min = cells.iter().map(|h| h.y).min().unwrap_or(0);
        let y_max = cells.iter().map(|h| h.y).max().unwrap_or(0);
        let label = if band_list.len() > 1 {
            format!(
                "Map, part {} of {}: columns x = {x0} to {x1}, rows y = {y_min} to {y_max}",
                i + 1,
                band_list.len()
            )
        } else {
            format!(
                "Map: columns x = {x0} to {x1}, rows y = {y_min} to {y_max} (odd rows shifted right)"
            )
        };
        svg.text(MARGIN, y + 13.0, 12.0, "start", "#333333", &label);
        let band_top = y + 20.0;
        let band_h = g.band_height(y_max - y_min + 1);
        let rows_top = band_top - g.size * 1.5 * f64::from(y_min);
        svg.el(
            "rect",
            &[
                ("x", (MARGIN - 4.0).into()),
                ("y", (band_top - 4.0).into()),
                ("width", (WIDTH - 2.0 * MARGIN + 8.0).into()),
                ("height", (band_h + 8.0).into()),
                ("rx", 6.0.into()),
                ("fill", "#0e1424".into()),
            ],
        );
        // Each hex with its labels is one click target.
        for h in &cells {
            let (cx, cy) = g.centre(h.x, h.y, x0, rows_top);
            let target = hex_target(h.x, h.y);
            svg.open("g", &[("data-target", (&target).into())]);
            draw_hex(svg, &g, h, cx, cy);
            draw_hex_content(svg, &g, view, h, (cx, cy));
            svg.close("g");
        }
        if let Some(b) = &view.battle
            && b.x >= x0
            && b.x <= x1
        {
            let (cx, cy) = g.centre(b.x, b.y, x0, rows_top);
            let pts = points_attr(&pointy_hex_corners(cx, cy, g.size - 2.0));
            svg.el(
                "polygon",
                &[
                    ("class", "battle".into()),
                    ("points", (&pts).into()),
                    ("fill", "none".into()),
                    ("stroke", "#ffd23f".into()),
                    ("stroke-width", 3.0.into()),
                ],
            );
        }
        y = band_top + band_h + 10.0;
    }
    y
}

fn draw_counter(svg: &mut Svg, d: Option<&Data>, people: &People, gr: &GroupView, x: f64, y: f64) {
    let mine = people.is_viewer(gr.owner);
    let open = gr.kind.is_some() && gr.count.is_some();
    let class = if open { "counter" } else { "counter face-down" };
    let mut tip = group_text(people, gr);
    if mine {
        if !gr.face_up && gr.kind.is_some_and(UnitKind::hides) {
            tip.push_str(", face down to the others");
        }
        if let (Some(a), Some(df), Some(t)) = (gr.attack_tech, gr.defense_tech, gr.tactics) {
            tip.push_str(&format!(", attack {a} defense {df} tactics {t}"));
        }
        if let Some((moved, allow)) = gr.moved {
            tip.push_str(&format!(", moved {moved} of {allow}"));
        }
    }
    if let Some(dmg) = gr.damage.filter(|&d| d > 0) {
        tip.push_str(&format!(", damaged {dmg}"));
    }
    if let Some(c) = gr.cargo {
        tip.push_str(&format!(", carrying {}", c.name()));
    }
    let target = counter_target(gr.id);
    svg.open(
        "g",
        &[("class", class.into()), ("data-target", (&target).into())],
    );
    svg.text_el("title", &[], &tip);
    let (fill, stroke, text_fill) = if open {
        (colour(gr.owner), "#111111", ink(gr.owner))
    } else {
        ("#262b36", colour(gr.owner), "#f2f2f2")
    };
    let dashed = mine && !gr.face_up && gr.kind.is_some_and(UnitKind::hides);
    let mut rect: Vec<(&str, Attr<'_>)> = vec![
        ("x", x.into()),
        ("y", y.into()),
        ("width", COUNTER_W.into()),
        ("height", COUNTER_H.into()),
        ("rx", 3.0.into()),
        ("fill", fill.into()),
        ("stroke", if dashed { "#ffffff" } else { stroke }.into()),
        ("stroke-width", 2.0.into()),
    ];
    if dashed {
        rect.push(("stroke-dasharray", "4 2".into()));
    }
    svg.el("rect", &rect);
    svg.text(
        x + COUNTER_W / 2.0,
        y + 12.0,
        11.0,
        "middle",
        text_fill,
        &format!("#{}", gr.id),
    );
    let second = match (gr.kind, gr.count) {
        (Some(k), Some(n)) => format!("{}{n}", unit_code(d, k)),
        _ => "?".to_string(),
    };
    svg.text_el(
        "text",
        &[
            ("x", (x + COUNTER_W / 2.0).into()),
            ("y", (y + 26.0).into()),
            ("font-size", 12.0.into()),
            ("font-weight", "bold".into()),
            ("text-anchor", "middle".into()),
            (
                "fill",
                if open { text_fill } else { colour(gr.owner) }.into(),
            ),
        ],
        &second,
    );
    if gr.damage.is_some_and(|dmg| dmg > 0) {
        svg.el(
            "rect",
            &[
                ("x", (x + COUNTER_W - 8.0).into()),
                ("y", (y + 2.0).into()),
                ("width", 6.0.into()),
                ("height", 6.0.into()),
                ("fill", "#ff3b30".into()),
            ],
        );
    }
    if gr.cargo.is_some() {
        svg.el(
            "rect",
            &[
                ("x", (x + COUNTER_W - 8.0).into()),
                ("y", (y + COUNTER_H - 8.0).into()),
                ("width", 6.0.into()),
                ("height", 6.0.into()),
                ("fill", "#f2c94c".into()),
            ],
        );
    }
    svg.close("g");
}

/// Every counter, grouped by hex (west to east within each row, rows top to bottom).
fn draw_counters(svg: &mut Svg, d: Option<&Data>, view: &View, people: &People, top: f64) -> f64 {
    svg.text(
        MARGIN,
        top + 14.0,
        13.0,
        "start",
        "#222222",
        "Counters by hex (#id, type and size; ? = face down)",
    );
    let mut by_hex: BTreeMap<(i32, i32), Vec<&GroupView>> = BTreeMap::new();
    for gr in &view.groups {
        by_hex.entry((gr.y, gr.x)).or_default().push(gr);
    }
    let right = WIDTH - MARGIN;
    let row_h = COUNTER_H + 6.0;
    let mut x = MARGIN;
    let mut y = top + 22.0;
    if by_hex.is_empty() {
        svg.text(
            MARGIN,
            y + 12.0,
            12.0,
            "start",
            "#555555",
            "none on the map",
        );
        return y + 20.0;
    }
    for ((hy, hx), mut groups) in by_hex {
        groups.sort_by_key(|g| (g.owner, g.id));
        let label = hex_name(hx, hy);
        let label_w = text_width(&label, 12.0) + 4.0;
        if x > MARGIN && x + label_w + COUNTER_W > right {
            x = MARGIN;
            y += row_h;
        }
        svg.text_el(
            "text",
            &[
                ("x", x.into()),
                ("y", (y + 19.0).into()),
                ("font-size", 12.0.into()),
                ("font-weight", "bold".into()),
                ("fill", "#222222".into()),
            ],
            &label,
        );
        x += label_w;
        for gr in groups {
            if x + COUNTER_W > right {
                x = MARGIN + 16.0;
                y += row_h;
            }
            draw_counter(svg, d, people, gr, x, y);
            x += COUNTER_W + 3.0;
        }
        x += 12.0;
    }
    y + row_h + 4.0
}

fn draw_header(svg: &mut Svg, view: &View, people: &People) -> f64 {
    let viewer = people.viewer();
    let cap = view.round_cap.map_or(String::new(), |c| format!(" of {c}"));
    svg.text_el(
        "text",
        &[
            ("x", MARGIN.into()),
            ("y", 24.0.into()),
            ("font-size", 18.0.into()),
            ("font-weight", "bold".into()),
            ("fill", "#1a1a1a".into()),
        ],
        &format!("Space Empires 4X \u{2013} round {}{cap}", view.round),
    );
    let who = match viewer.seat() {
        Some(s) if s < view.alive.len() => format!("your view: Seat {}", s + 1),
        _ => "spectator's view".to_string(),
    };
    svg.text(WIDTH - MARGIN, 24.0, 12.0, "end", "#555555", &who);
    let mut y = 44.0;
    let mut lines = vec![if let Some(over) = people.game_over() {
        over
    } else if view.phase == OVER_PHASE {
        verdict(view, people)
    } else {
        format!("Now: {}", with_names(people, &view.phase))
    }];
    if let Some(p) = &view.pending {
        lines.push(format!("Pending: {}", with_names(people, p)));
    }
    if let Some(b) = &view.battle {
        let plans: Vec<String> = [b.attacker, b.defender]
            .into_iter()
            .zip(b.plan_submitted)
            .map(|(s, done)| {
                format!(
                    "{} {}",
                    seat_label(people, s),
                    if done { "has planned" } else { "plans" }
                )
            })
            .collect();
        lines.push(format!(
            "Battle at {}: {} attacks {}, combat round {} ({})",
            hex_name(b.x, b.y),
            seat_label(people, b.attacker),
            seat_label(people, b.defender),
            b.round,
            plans.join(", ")
        ));
    }
    if !view.order.is_empty() {
        let order: Vec<String> = view.order.iter().map(|&s| seat_label(people, s)).collect();
        lines.push(format!("Turn order: {}", order.join(", ")));
    }
    for line in lines {
        for part in wrap_chars(&line, 82) {
            svg.text(MARGIN, y, 13.0, "start", "#222222", &part);
            y += LINE + 1.0;
        }
    }
    y
}

fn draw_players(svg: &mut Svg, view: &View, people: &People, top: f64) -> f64 {
    let viewer = people.viewer();
    let waiting = acting(view, people);
    let turn_of = (view.pending.is_none()
        && view.battle.is_none()
        && is_turn_phase(&view.phase)
        && people.ending().is_none())
    .then_some(view.current);
    let mut y = top;
    for seat in 0..view.alive.len() {
        let row_top = y;
        let you = viewer.seat() == Some(seat);
        if you {
            svg.el(
                "rect",
                &[
                    ("x", (MARGIN - 4.0).into()),
                    ("y", row_top.into()),
                    ("width", (WIDTH - 2.0 * MARGIN + 8.0).into()),
                    ("height", 34.0.into()),
                    ("rx", 4.0.into()),
                    ("fill", "#ece8da".into()),
                ],
            );
        }
        svg.el(
            "rect",
            &[
                ("class", "seat-swatch".into()),
                ("x", MARGIN.into()),
                ("y", (row_top + 3.0).into()),
                ("width", 14.0.into()),
                ("height", 14.0.into()),
                ("rx", 3.0.into()),
                ("fill", colour(seat).into()),
            ],
        );
        let name = svg::fit_text(&seat_label(people, seat), 12.0, 400.0);
        svg.text_el(
            "text",
            &[
                ("x", (MARGIN + 20.0).into()),
                ("y", (row_top + 15.0).into()),
                ("font-size", 12.0.into()),
                ("font-weight", "bold".into()),
                ("fill", "#1a1a1a".into()),
            ],
            &name,
        );
        let counters = view.groups.iter().filter(|g| g.owner == seat).count();
        let standing = if view.alive.get(seat).copied().unwrap_or(false) {
            format!("{} \u{b7} {counters} counters", standing_text(view, seat))
        } else {
            "eliminated".to_string()
        };
        svg.text(
            MARGIN + 20.0,
            row_top + 30.0,
            11.0,
            "start",
            "#222222",
            &svg::fit_text(&standing, 11.0, WIDTH - 2.0 * MARGIN - 20.0),
        );
        let status = if waiting.contains(&seat) {
            if view.battle.is_some() {
                "\u{25b6} battle plan".to_string()
            } else {
                "\u{25b6} writing orders".to_string()
            }
        } else if view.phase == ECON_PHASE && view.orders_submitted.get(seat) == Some(&true) {
            "orders in".to_string()
        } else if turn_of == Some(seat) {
            "\u{25b6} to play".to_string()
        } else if let Some(r) = view.last_reveal.iter().find(|r| r.seat == seat) {
            format!("last bid {}", r.bid)
        } else {
            String::new()
        };
        svg.text(
            WIDTH - MARGIN,
            row_top + 15.0,
            12.0,
            "end",
            "#222222",
            &status,
        );
        y += 36.0;
    }
    y + 4.0
}

/// The viewer's own secrets: CP, technology, the order being written and the battle plan.
fn draw_empire(svg: &mut Svg, d: Option<&Data>, view: &View, me: &MyView, top: f64) -> f64 {
    let mut y = top;
    svg.el(
        "rect",
        &[
            ("class", "empire".into()),
            ("x", (MARGIN - 4.0).into()),
            ("y", y.into()),
            ("width", (WIDTH - 2.0 * MARGIN + 8.0).into()),
            ("height", 1.0.into()),
            ("fill", "#999999".into()),
        ],
    );
    y += 18.0;
    svg.text_el(
        "text",
        &[
            ("x", MARGIN.into()),
            ("y", y.into()),
            ("font-size", 13.0.into()),
            ("font-weight", "bold".into()),
            ("fill", "#1a1a1a".into()),
        ],
        &format!("Your empire (secret): {} CP banked", me.cp),
    );
    y += 8.0;
    let col_w = (WIDTH - 2.0 * MARGIN) / 2.0;
    for (i, (tech, level)) in me.tech.iter().enumerate() {
        let col = (i % 2) as f64;
        let row = (i / 2) as f64;
        let x = MARGIN + col * col_w;
        let ty = y + 16.0 + row * 18.0;
        svg.text(x, ty, 12.0, "start", "#222222", tech.name());
        let max = d.map_or(*level, |d| d.tech(*tech).max).max(*level);
        for k in 0..max {
            let filled = k < *level;
            svg.el(
                "rect",
                &[
                    (
                        "class",
                        if filled { "tech-pip on" } else { "tech-pip" }.into(),
                    ),
                    ("x", (x + 92.0 + f64::from(k) * 13.0).into()),
                    ("y", (ty - 10.0).into()),
                    ("width", 10.0.into()),
                    ("height", 10.0.into()),
                    ("rx", 2.0.into()),
                    ("fill", if filled { "#2f74d0" } else { "#ffffff" }.into()),
                    ("stroke", "#555555".into()),
                ],
            );
        }
        svg.text(
            x + 92.0 + f64::from(max) * 13.0 + 4.0,
            ty,
            12.0,
            "start",
            "#222222",
            &format!("{level}/{max}"),
        );
    }
    y += 4.0 + ((me.tech.len() as f64) / 2.0).ceil() * 18.0;
    let mut para: Vec<String> = Vec::new();
    if let Some(dr) = &me.draft {
        para.push(format!(
            "This Economic Phase: income {} \u{2212} maintenance {} (with carried CP) = {} CP available; bid {}; spent {}; left {}{}.",
            dr.income,
            dr.maintenance,
            dr.available,
            dr.bid.map_or("none yet".to_string(), |b| b.to_string()),
            dr.spent,
            super::econ::remaining(dr),
            if dr.submitted { "; submitted" } else { "" }
        ));
        if !dr.blockaded.is_empty() {
            let l: Vec<String> = dr
                .blockaded
                .iter()
                .map(|p| {
                    let (x, y) = index_xy(view, *p);
                    hex_name(x, y)
                })
                .collect();
            para.push(format!("Blockaded: {}.", l.join(", ")));
        }
        let lines: Vec<String> = dr.lines.iter().map(|l| order_text(view, l)).collect();
        para.push(format!(
            "Orders so far: {}.",
            if lines.is_empty() {
                "none".to_string()
            } else {
                lines.join("; ")
            }
        ));
    } else if !me.last_orders.is_empty() {
        let lines: Vec<String> = me.last_orders.iter().map(|l| order_text(view, l)).collect();
        para.push(format!("Your last orders: {}.", lines.join("; ")));
    }
    if let Some(p) = &me.combat_plan {
        let screened: Vec<String> = p
            .screened
            .iter()
            .map(|(g, n)| format!("{n} of #{g}"))
            .collect();
        let retreats: Vec<String> = p
            .retreats
            .iter()
            .map(|(g, pos, n)| {
                let (x, y) = index_xy(view, *pos);
                format!("{n} of #{g} to {}", hex_name(x, y))
            })
            .collect();
        let targets: Vec<String> = p.targets.iter().map(|g| format!("#{g}")).collect();
        let none = |v: &[String]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.join(", ")
            }
        };
        para.push(format!(
            "Your battle plan: screened {}; retreating {}; targets first {}{}.",
            none(&screened),
            none(&retreats),
            none(&targets),
            if p.submitted { " (submitted)" } else { "" }
        ));
    }
    for p in para {
        for line in wrap_chars(&p, 88) {
            y += LINE;
            svg.text(MARGIN, y, 12.0, "start", "#222222", &line);
        }
    }
    y + 8.0
}

fn draw_legend(svg: &mut Svg, top: f64) -> f64 {
    let mut y = top + 14.0;
    svg.text_el(
        "text",
        &[
            ("x", MARGIN.into()),
            ("y", y.into()),
            ("font-size", 13.0.into()),
            ("font-weight", "bold".into()),
            ("fill", "#1a1a1a".into()),
        ],
        "Legend",
    );
    y += 8.0;
    // Swatches: unexplored hex, home border, colony, Homeworld, face-down counter.
    let s = 11.0;
    let items: [(&str, &str); 4] = [
        ("unexplored hex: its marker lies face down", FACE_DOWN),
        ("a Home System hex (border in its colour)", SPACE),
        ("a colony with its CP value", SPACE),
        ("a Homeworld (ringed) with its CP value", SPACE),
    ];
    let col_w = (WIDTH - 2.0 * MARGIN) / 2.0;
    for (i, (label, fill)) in items.iter().enumerate() {
        let cx = MARGIN + s + col_w * (i % 2) as f64;
        let cy = y + s + 2.0 + (i / 2) as f64 * (2.0 * s + 4.0);
        let stroke_w = if i == 1 { 2.5 } else { 1.0 };
        let stroke = if i == 1 { colour(0) } else { "#6b7590" };
        let pts = points_attr(&pointy_hex_corners(cx, cy, s));
        svg.el(
            "polygon",
            &[
                ("points", (&pts).into()),
                ("fill", (*fill).into()),
                ("stroke", stroke.into()),
                ("stroke-width", stroke_w.into()),
            ],
        );
        if i >= 2 {
            svg.circle(cx, cy, 5.0, colour(1), "#ffffff");
        }
        if i == 3 {
            svg.el(
                "circle",
                &[
                    ("cx", cx.into()),
                    ("cy", cy.into()),
                    ("r", 7.5.into()),
                    ("fill", "none".into()),
                    ("stroke", colour(1).into()),
                    ("stroke-width", 1.5.into()),
                ],
            );
        }
        svg.text(cx + s + 5.0, cy + 4.0, 11.0, "start", "#222222", label);
    }
    y += 4.0 * s + 12.0;
    let lines = [
        "Markers: Pl planet, Ba barren, M5/M10 minerals, Neb nebula, Ast asteroids, BH black hole,",
        "Dgr danger, Lost lost in space, SN supernova, Wrk space wreck; Pl? = a marker you peeked at.",
        "Small squares on a hex: whose counters are there. Counters: a dashed edge is yours and still",
        "face down to the others; a red corner means damaged, a gold corner a miner's load.",
    ];
    for l in lines {
        y += LINE - 1.0;
        svg.text(MARGIN, y, 11.0, "start", "#333333", l);
    }
    y + 10.0
}

/// Where the game stands in a few words: the result, whose step it is, or who is awaited.
fn status_text(view: &View, people: &People) -> String {
    if let Some(over) = people.game_over() {
        return over;
    }
    if view.phase == OVER_PHASE {
        return verdict(view, people);
    }
    if let Some(p) = &view.pending {
        return with_names(people, p);
    }
    let waiting: Vec<String> = acting(view, people)
        .into_iter()
        .map(|s| seat_label(people, s))
        .collect();
    if view.battle.is_some() && !waiting.is_empty() {
        return format!("battle plans awaited from {}", waiting.join(" and "));
    }
    if view.phase == ECON_PHASE {
        return if waiting.is_empty() {
            "Economic Phase: every order is in".to_string()
        } else {
            format!("Economic Phase: orders awaited from {}", waiting.join(", "))
        };
    }
    with_names(people, &view.phase)
}

/// The picture of `view` for the viewer of `people`, naming every seat's person.
pub fn picture(view: &View, people: &People) -> String {
    let d = data::load().ok();
    let title = format!(
        "Space Empires 4X \u{2013} round {}: {}",
        view.round,
        status_text(view, people)
    );
    let mut svg = Svg::new(100.0, &title, &describe(view, people));
    let mut y = draw_header(&mut svg, view, people);
    y = draw_players(&mut svg, view, people, y);
    y = draw_map(&mut svg, view, y);
    y = draw_counters(&mut svg, d, view, people, y);
    if let Some(me) = &view.me {
        y = draw_empire(&mut svg, d, view, me, y);
    }
    let events: Vec<String> = view.events.iter().map(|e| with_names(people, e)).collect();
    y = recent_events(&mut svg, &events, y, "#1a1a1a", "#333333") + 8.0;
    y = draw_legend(&mut svg, y);
    svg.set_height(y.ceil());
    svg.finish()
}
