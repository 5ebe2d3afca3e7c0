//! The board picture: the hex map of tiles with men, bases and roads, the players with their
//! resources, scores and hand sizes, the viewer's own hand face up, and the public cards.
//! Drawn from a view alone, so other hands can only ever be drawn as card backs.

use turnpost_engine::hex::Hex;
use turnpost_engine::svg::{
    SQRT_3, Svg, WIDTH, fit_text, points_attr, pointy_hex_center, pointy_hex_corners,
    recent_events, wrap_chars,
};
use turnpost_engine::{People, Seat};

use super::data::{self, Data};
use super::render::job_text;
use super::state::{Card, Road, Step, TileKind};
use super::{TileView, View};

const MARGIN: f64 = 10.0;
const LINE: f64 = 16.0;
const CARD_W: f64 = 66.0;
const CARD_H: f64 = 46.0;
/// Largest hex circumradius: a small map is drawn large, a sprawling one shrinks to fit.
const MAX_SIZE: f64 = 44.0;

const SEAT_COLOURS: [&str; 4] = ["#d23b30", "#2f6fd0", "#2e9a4c", "#e8b90e"];

fn colour(seat: Seat) -> &'static str {
    SEAT_COLOURS.get(seat).copied().unwrap_or("#888888")
}

/// Text (and outline) colour on a seat's colour: dark on yellow.
fn ink(seat: Seat) -> &'static str {
    if seat == 3 { "#1a1a1a" } else { "#ffffff" }
}

/// The seat as the game calls it (its colour) with the person there: "Ada (Red)".
fn name(people: &People, seat: Seat) -> String {
    people.label(seat, super::state::seat_name(seat))
}

/// An event of the log (written with the seats' colour names) with every seat of the game
/// named as [`name`] does: each colour word, as a whole word, becomes its seat's label.
fn with_names(view: &View, people: &People, text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        match (0..view.players.len()).find(|&s| super::state::seat_name(s) == word.as_str()) {
            Some(s) => out.push_str(&name(people, s)),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// A tile's (or an open position's) click target: `hex:q0r-1`.
pub fn hex_target(h: Hex) -> String {
    format!("hex:q{}r{}", h.q, h.r)
}

/// A player's click target (their row of the players' table): `seat:2`.
pub fn seat_target(seat: Seat) -> String {
    format!("seat:{seat}")
}

/// A card of the viewer's hand: `card:move_explore`.
pub fn card_target(c: Card) -> String {
    format!("card:{}", c.name())
}

fn tile_fill(k: TileKind) -> &'static str {
    match k {
        TileKind::Mothership => "#c9ccd8",
        TileKind::PlasticSteppe => "#f3da8e",
        TileKind::NSwamp => "#a3d18b",
        TileKind::GlyHills => "#d9b98f",
        TileKind::Mountain => "#a0a0a0",
        TileKind::SlimeSea => "#82c6d6",
        TileKind::AlienTransmogrifier
        | TileKind::AlienClusterBots
        | TileKind::AlienTelemorpher
        | TileKind::AlienClonePool => "#cfa6e0",
    }
}

/// A tile's name for people ("plastic steppe", "alien: clone pool").
fn tile_name(k: TileKind) -> String {
    k.label()
}

/// What a tile yields when exploited, from the public data file.
fn yield_text(d: Option<&Data>, k: TileKind) -> String {
    let Some(d) = d else {
        return String::new();
    };
    let t = d.tile(k);
    let parts: Vec<String> = [(t.plastic, "plastic"), (t.food, "food"), (t.metal, "metal")]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, what)| format!("{n} {what}"))
        .collect();
    let mut s = if parts.is_empty() {
        "no yield".to_string()
    } else {
        parts.join(", ")
    };
    if t.barrier {
        s.push_str(", barrier");
    }
    s
}

fn card_label(c: Card) -> (&'static str, &'static str) {
    match c {
        Card::MoveExplore => ("move &", "explore"),
        Card::Exploit => ("exploit", ""),
        Card::Build => ("build", ""),
        Card::Men => ("men", ""),
        Card::Steal => ("steal", ""),
        Card::War => ("war", ""),
        Card::GrandPlan => ("grand", "plan"),
        Card::Ai => ("AI", ""),
        Card::Star => ("star", ""),
    }
}

fn card_text(c: Card) -> String {
    c.label().to_string()
}

fn card_fill(c: Card) -> (&'static str, &'static str) {
    match c {
        Card::MoveExplore => ("#cfe3f7", "#1a1a1a"),
        Card::Exploit => ("#f7e3b5", "#1a1a1a"),
        Card::Build => ("#e3d3f2", "#1a1a1a"),
        Card::Men => ("#d3edcc", "#1a1a1a"),
        Card::Steal => ("#f6cfcf", "#1a1a1a"),
        Card::War => ("#ef9f86", "#1a1a1a"),
        Card::GrandPlan => ("#fff0a0", "#1a1a1a"),
        Card::Ai => ("#333333", "#ffffff"),
        Card::Star => ("#ffd54a", "#1a1a1a"),
    }
}

/// A face-up card; `class` says whose it is (`hand-card` for the viewer's hand).
fn draw_card(svg: &mut Svg, c: Card, x: f64, y: f64, class: &str) {
    let (fill, text) = card_fill(c);
    // A card of the viewer's hand is what a click plays.
    let target = card_target(c);
    let mut attrs = vec![("class", class.into())];
    if class == "hand-card" {
        attrs.push(("data-target", (&target).into()));
    }
    svg.open("g", &attrs);
    svg.el(
        "rect",
        &[
            ("x", x.into()),
            ("y", y.into()),
            ("width", CARD_W.into()),
            ("height", CARD_H.into()),
            ("rx", 5.0.into()),
            ("fill", fill.into()),
            ("stroke", "#444444".into()),
            ("stroke-width", 1.5.into()),
        ],
    );
    let (a, b) = card_label(c);
    let cx = x + CARD_W / 2.0;
    if b.is_empty() {
        bold(svg, cx, y + CARD_H / 2.0 + 4.0, 12.0, "middle", text, a);
    } else {
        bold(svg, cx, y + CARD_H / 2.0 - 3.0, 12.0, "middle", text, a);
        bold(svg, cx, y + CARD_H / 2.0 + 12.0, 12.0, "middle", text, b);
    }
    svg.close("g");
}

fn card_back(svg: &mut Svg, x: f64, y: f64) {
    svg.el(
        "rect",
        &[
            ("class", "card-back".into()),
            ("x", x.into()),
            ("y", y.into()),
            ("width", 10.0.into()),
            ("height", 14.0.into()),
            ("rx", 2.0.into()),
            ("fill", "#5b4a8a".into()),
            ("stroke", "#2b2245".into()),
        ],
    );
}

fn bold(svg: &mut Svg, x: f64, y: f64, size: f64, anchor: &str, fill: &str, text: &str) {
    svg.text_el(
        "text",
        &[
            ("x", x.into()),
            ("y", y.into()),
            ("font-size", size.into()),
            ("font-weight", "bold".into()),
            ("text-anchor", anchor.into()),
            ("fill", fill.into()),
        ],
        text,
    );
}

/// Tiles where `seat` has a man, a base or a road: the tie-break after the score.
fn presence(view: &View, seat: Seat) -> usize {
    view.tiles
        .iter()
        .filter(|t| {
            t.men.get(seat).is_some_and(|&m| m > 0)
                || t.bases.get(seat).copied().unwrap_or(false)
                || view
                    .roads
                    .iter()
                    .any(|r| r.owner == seat && (r.a == t.hex || r.b == t.hex))
        })
        .count()
}

/// Who won a finished game, by the public scores and the presence tie-break (HR-24).
fn verdict(view: &View, people: &People) -> String {
    let key = |seat: Seat| {
        let score = view.players.get(seat).map_or(i64::MIN, |p| p.score);
        (score, presence(view, seat))
    };
    let Some(best) = (0..view.players.len()).map(key).max() else {
        return "The game is over".to_string();
    };
    let winners: Vec<String> = (0..view.players.len())
        .filter(|&s| key(s) == best)
        .map(|s| name(people, s))
        .collect();
    match winners.as_slice() {
        [one] => format!("Game over: {one} wins with {} points", best.0),
        _ => format!(
            "Game over: {} share the win with {} points",
            winners.join(" and "),
            best.0
        ),
    }
}

/// What the seats in `to_act` are to do, as the text emails say it.
fn waiting_text(view: &View, people: &People) -> String {
    if let Some(over) = people.game_over() {
        return over;
    }
    if view.step == Step::Over {
        return verdict(view, people);
    }
    let who: Vec<String> = view
        .common
        .to_act
        .iter()
        .map(|&s| name(people, s))
        .collect();
    let what = match view.step {
        Step::Steal => "draw a card from an opponent".to_string(),
        Step::Main => "show a card or play a pair".to_string(),
        Step::Resources => "spend resources or end the turn".to_string(),
        Step::Frames => view
            .frames
            .first()
            .and_then(|f| {
                f.stack.last().map(|j| {
                    format!(
                        "{} ({}'s {}{})",
                        job_text(j),
                        name(people, f.actor),
                        card_text(f.card),
                        if f.pair { " pair" } else { "" }
                    )
                })
            })
            .unwrap_or_default(),
        Step::Over => String::new(),
    };
    format!("Waiting for {}: {what}", who.join(", "))
}

/// "1 man", "3 men", "no cards".
fn count_of(n: impl Into<u64>, one: &str, many: &str) -> String {
    match n.into() {
        0 => format!("no {many}"),
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

fn pieces_text(view: &View, people: &People, t: &TileView) -> Vec<String> {
    let mut out = Vec::new();
    for seat in 0..view.players.len() {
        let men = t.men.get(seat).copied().unwrap_or(0);
        let base = t.bases.get(seat).copied().unwrap_or(false);
        let what = match (men, base) {
            (0, false) => continue,
            (0, true) => "a base".to_string(),
            (m, true) => format!("{} and a base", count_of(m, "man", "men")),
            (m, false) => count_of(m, "man", "men"),
        };
        out.push(format!("{} {what}", name(people, seat)));
    }
    out
}

/// The screen-reader description: whose turn, the scores and resources, the viewer's hand,
/// and the map tile by tile.
fn describe(view: &View, people: &People) -> String {
    let mut parts = vec![
        format!("SP4X, age {}.", view.age),
        format!("{}.", waiting_text(view, people)),
    ];
    for p in &view.players {
        parts.push(format!(
            "{}: score {}, plastic {}, food {}, metal {}, {} in hand{}; pool {}, {}, {}.",
            name(people, p.seat),
            p.score,
            p.plastic,
            p.food,
            p.metal,
            count_of(p.hand_size as u64, "card", "cards"),
            if p.grand_plan_out {
                ", grand plan lying out"
            } else {
                ""
            },
            count_of(p.men_pool, "man", "men"),
            count_of(p.bases_pool, "base", "bases"),
            count_of(p.roads_pool, "road", "roads")
        ));
    }
    match &view.hand {
        Some(hand) if hand.is_empty() => parts.push("Your hand is empty.".into()),
        Some(hand) => {
            let cards: Vec<String> = hand.iter().map(|&c| card_text(c)).collect();
            parts.push(format!("Your hand: {}.", cards.join(", ")));
        }
        None => parts.push("Spectator view: every hand is hidden.".into()),
    }
    for s in &view.my_steals {
        parts.push(steal_text(people, s));
    }
    parts.push(format!(
        "Deck: {}, top {}{}. Tile stack: {}{}.",
        count_of(view.deck_size as u64, "card", "cards"),
        view.deck_top.map_or("none".into(), card_text),
        if view.star_active {
            ", the star is active"
        } else {
            ""
        },
        count_of(view.tile_stack_size as u64, "tile", "tiles"),
        view.tile_stack_top
            .map_or(String::new(), |k| format!(", top {}", tile_name(k)))
    ));
    let mut tiles: Vec<&TileView> = view.tiles.iter().collect();
    tiles.sort_by_key(|t| (t.hex.r, t.hex.q));
    let tile_parts: Vec<String> = tiles
        .iter()
        .map(|t| {
            let pieces = pieces_text(view, people, t);
            format!(
                "{} at {}{}",
                tile_name(t.kind),
                t.hex,
                if pieces.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", pieces.join(", "))
                }
            )
        })
        .collect();
    parts.push(format!(
        "Map, {} tiles: {}.",
        view.tiles.len(),
        tile_parts.join("; ")
    ));
    for seat in 0..view.players.len() {
        let roads: Vec<String> = view
            .roads
            .iter()
            .filter(|r| r.owner == seat)
            .map(|r| format!("{}-{}", r.a, r.b))
            .collect();
        if !roads.is_empty() {
            parts.push(format!(
                "{} roads: {}.",
                name(people, seat),
                roads.join(", ")
            ));
        }
    }
    parts.join(" ")
}

fn steal_text(people: &People, s: &super::StealView) -> String {
    if people.is_viewer(s.thief) {
        format!(
            "You drew {} from {} (age {}).",
            card_text(s.card),
            name(people, s.victim),
            s.age
        )
    } else {
        format!(
            "{} drew your {} (age {}).",
            name(people, s.thief),
            card_text(s.card),
            s.age
        )
    }
}

fn draw_header(svg: &mut Svg, view: &View, people: &People) -> f64 {
    let viewer = people.viewer();
    bold(
        svg,
        MARGIN,
        24.0,
        18.0,
        "start",
        "#1a1a1a",
        &format!("SP4X \u{2013} age {}", view.age),
    );
    let who = match viewer.seat().filter(|&s| s < view.players.len()) {
        Some(s) => format!("your view: {}", super::state::seat_name(s)),
        None => "spectator's view".to_string(),
    };
    svg.text(WIDTH - MARGIN, 24.0, 12.0, "end", "#555555", &who);
    let mut y = 44.0;
    for line in wrap_chars(&waiting_text(view, people), 80) {
        svg.text(MARGIN, y, 13.0, "start", "#222222", &line);
        y += LINE + 1.0;
    }
    if view.star_active && view.step != Step::Over {
        svg.text(
            MARGIN,
            y,
            12.0,
            "start",
            "#8a5a00",
            "\u{2605} The deck is down to the star: a shown card makes everybody act.",
        );
        y += LINE;
    }
    y + 2.0
}

fn draw_players(svg: &mut Svg, view: &View, people: &People, top: f64) -> f64 {
    let mut y = top;
    for p in &view.players {
        let you = people.is_viewer(p.seat);
        // The whole row is the player's click target (drawing a card from them, robbing).
        let target = seat_target(p.seat);
        svg.open(
            "g",
            &[
                ("class", "player".into()),
                ("data-target", (&target).into()),
            ],
        );
        svg.el(
            "rect",
            &[
                ("x", (MARGIN - 4.0).into()),
                ("y", y.into()),
                ("width", (WIDTH - 2.0 * MARGIN + 8.0).into()),
                ("height", 38.0.into()),
                ("rx", 4.0.into()),
                ("fill", if you { "#ece8da" } else { "#fbfaf5" }.into()),
            ],
        );
        svg.el(
            "rect",
            &[
                ("class", "seat-swatch".into()),
                ("x", MARGIN.into()),
                ("y", (y + 4.0).into()),
                ("width", 14.0.into()),
                ("height", 14.0.into()),
                ("rx", 3.0.into()),
                ("fill", colour(p.seat).into()),
                ("stroke", "#333333".into()),
            ],
        );
        let label = fit_text(&name(people, p.seat), 13.0, 205.0);
        bold(
            svg,
            MARGIN + 20.0,
            y + 16.0,
            13.0,
            "start",
            "#1a1a1a",
            &label,
        );
        bold(
            svg,
            MARGIN + 230.0,
            y + 16.0,
            13.0,
            "start",
            "#1a1a1a",
            &format!("score {}", p.score),
        );
        svg.text(
            MARGIN + 310.0,
            y + 16.0,
            11.0,
            "start",
            "#222222",
            &format!("plastic {}  food {}  metal {}", p.plastic, p.food, p.metal),
        );
        if people.acting(&view.common.to_act).contains(&p.seat) {
            bold(
                svg,
                WIDTH - MARGIN,
                y + 16.0,
                12.0,
                "end",
                "#8a1c1c",
                "\u{25b6} to act",
            );
        } else if view.current == p.seat && view.step != Step::Over && people.ending().is_none() {
            svg.text(
                WIDTH - MARGIN,
                y + 16.0,
                12.0,
                "end",
                "#555555",
                "their turn",
            );
        }
        // Second line: the hand as backs (its size is public), a grand plan lying out, the pool.
        let ly = y + 33.0;
        svg.text(MARGIN + 20.0, ly, 11.0, "start", "#333333", "hand");
        let mut x = MARGIN + 54.0;
        // The viewer's own hand is drawn face up below; others' only as backs.
        if !you {
            for _ in 0..p.hand_size {
                card_back(svg, x, ly - 11.0);
                x += 12.0;
            }
        }
        let cards = format!(
            "{} card{}{}",
            p.hand_size,
            if p.hand_size == 1 { "" } else { "s" },
            if you { " (face up below)" } else { "" }
        );
        svg.text(x + 2.0, ly, 11.0, "start", "#333333", &cards);
        x += if you { 120.0 } else { 0.0 };
        if p.grand_plan_out {
            let bx = x + 52.0;
            svg.el(
                "rect",
                &[
                    ("class", "plan-out".into()),
                    ("x", bx.into()),
                    ("y", (ly - 12.0).into()),
                    ("width", 104.0.into()),
                    ("height", 16.0.into()),
                    ("rx", 3.0.into()),
                    ("fill", card_fill(Card::GrandPlan).0.into()),
                    ("stroke", "#444444".into()),
                ],
            );
            svg.text(bx + 52.0, ly, 11.0, "middle", "#1a1a1a", "grand plan out");
        }
        svg.text(
            WIDTH - MARGIN,
            ly,
            11.0,
            "end",
            "#333333",
            &format!(
                "pool: {}, {}, {}",
                count_of(p.men_pool, "man", "men"),
                count_of(p.bases_pool, "base", "bases"),
                count_of(p.roads_pool, "road", "roads")
            ),
        );
        svg.close("g");
        y += 42.0;
    }
    y + 2.0
}

/// Pixel layout of the map: hex size and the offset that puts it inside the picture.
struct MapLayout {
    size: f64,
    ox: f64,
    oy: f64,
    height: f64,
}

impl MapLayout {
    fn new(hexes: &[Hex], top: f64) -> MapLayout {
        let (mut minx, mut maxx, mut miny, mut maxy) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
        for (i, &h) in hexes.iter().enumerate() {
            let (x, y) = pointy_hex_center(h, 1.0);
            let (x0, x1, y0, y1) = (x - SQRT_3 / 2.0, x + SQRT_3 / 2.0, y - 1.0, y + 1.0);
            if i == 0 {
                (minx, maxx, miny, maxy) = (x0, x1, y0, y1);
            } else {
                minx = minx.min(x0);
                maxx = maxx.max(x1);
                miny = miny.min(y0);
                maxy = maxy.max(y1);
            }
        }
        let span = (maxx - minx).max(SQRT_3);
        let size = ((WIDTH - 2.0 * MARGIN) / span).min(MAX_SIZE);
        let used = span * size;
        MapLayout {
            size,
            ox: (WIDTH - used) / 2.0 - minx * size,
            oy: top - miny * size,
            height: (maxy - miny).max(2.0) * size,
        }
    }

    fn centre(&self, h: Hex) -> (f64, f64) {
        let (x, y) = pointy_hex_center(h, self.size);
        (self.ox + x, self.oy + y)
    }
}

/// Empty positions next to the map where exploring may place the next tile.
fn open_slots(view: &View) -> Vec<Hex> {
    if view.tile_stack_size == 0 {
        return Vec::new();
    }
    let mut out: Vec<Hex> = Vec::new();
    for t in &view.tiles {
        for n in t.hex.neighbors() {
            if !view.tiles.iter().any(|o| o.hex == n) && !out.contains(&n) {
                out.push(n);
            }
        }
    }
    out.sort_unstable();
    out
}

fn draw_road(svg: &mut Svg, m: &MapLayout, r: &Road, slot: f64) {
    let (ax, ay) = m.centre(r.a);
    let (bx, by) = m.centre(r.b);
    let len = SQRT_3 * m.size;
    let (ux, uy) = ((bx - ax) / len, (by - ay) / len);
    let (px, py) = (-uy, ux);
    let half = m.size * 0.4;
    let (mx, my) = ((ax + bx) / 2.0 + ux * slot, (ay + by) / 2.0 + uy * slot);
    let (x1, y1, x2, y2) = (
        mx + px * half,
        my + py * half,
        mx - px * half,
        my - py * half,
    );
    svg.line(x1, y1, x2, y2, "#222222", 7.0);
    svg.el(
        "line",
        &[
            ("class", "road".into()),
            ("x1", x1.into()),
            ("y1", y1.into()),
            ("x2", x2.into()),
            ("y2", y2.into()),
            ("stroke", colour(r.owner).into()),
            ("stroke-width", 4.0.into()),
        ],
    );
}

/// A seat's pieces on a tile: a base (house) or a man disc, with the number of men.
fn draw_pieces(svg: &mut Svg, view: &View, t: &TileView, cx: f64, cy: f64) {
    let present: Vec<(Seat, u8, bool)> = (0..view.players.len())
        .map(|s| {
            (
                s,
                t.men.get(s).copied().unwrap_or(0),
                t.bases.get(s).copied().unwrap_or(false),
            )
        })
        .filter(|(_, men, base)| *men > 0 || *base)
        .collect();
    let slot = 17.0;
    let total = present.len() as f64 * slot;
    for (i, &(seat, men, base)) in present.iter().enumerate() {
        let x = cx - total / 2.0 + slot * (i as f64 + 0.5);
        let y = cy + 9.0;
        if base {
            let pts = points_attr(&[
                (x, y - 9.0),
                (x + 8.0, y - 3.0),
                (x + 8.0, y + 8.0),
                (x - 8.0, y + 8.0),
                (x - 8.0, y - 3.0),
            ]);
            svg.el(
                "polygon",
                &[
                    ("class", "base".into()),
                    ("points", (&pts).into()),
                    ("fill", colour(seat).into()),
                    ("stroke", "#1a1a1a".into()),
                    ("stroke-width", 1.5.into()),
                ],
            );
        } else {
            svg.el(
                "circle",
                &[
                    ("class", "man".into()),
                    ("cx", x.into()),
                    ("cy", y.into()),
                    ("r", 7.5.into()),
                    ("fill", colour(seat).into()),
                    ("stroke", "#1a1a1a".into()),
                    ("stroke-width", 1.5.into()),
                ],
            );
        }
        if men > 0 {
            svg.text_el(
                "text",
                &[
                    ("class", "men".into()),
                    ("x", x.into()),
                    ("y", (y + 4.5).into()),
                    ("font-size", 11.0.into()),
                    ("font-weight", "bold".into()),
                    ("text-anchor", "middle".into()),
                    ("fill", ink(seat).into()),
                ],
                &men.to_string(),
            );
        }
    }
}

fn draw_map(svg: &mut Svg, view: &View, top: f64) -> f64 {
    bold(
        svg,
        MARGIN,
        top + 14.0,
        13.0,
        "start",
        "#1a1a1a",
        "Map (axial q,r; dashed: where exploring can place a tile)",
    );
    let slots = open_slots(view);
    let all: Vec<Hex> = view
        .tiles
        .iter()
        .map(|t| t.hex)
        .chain(slots.iter().copied())
        .collect();
    let m = MapLayout::new(&all, top + 24.0);
    for &h in &slots {
        let (cx, cy) = m.centre(h);
        let pts = points_attr(&pointy_hex_corners(cx, cy, m.size - 1.5));
        let target = hex_target(h);
        svg.open("g", &[("data-target", (&target).into())]);
        svg.el(
            "polygon",
            &[
                ("class", "slot".into()),
                ("points", (&pts).into()),
                ("fill", "#ffffff".into()),
                ("fill-opacity", 0.0.into()),
                ("stroke", "#b5b0a0".into()),
                ("stroke-dasharray", "4 3".into()),
            ],
        );
        svg.text(
            cx,
            cy + 4.0,
            11.0,
            "middle",
            "#8c8778",
            &format!("{},{}", h.q, h.r),
        );
        svg.close("g");
    }
    for t in &view.tiles {
        let (cx, cy) = m.centre(t.hex);
        let barrier = data::data().is_ok_and(|d| d.tile(t.kind).barrier);
        let pts = points_attr(&pointy_hex_corners(cx, cy, m.size - 1.0));
        let target = hex_target(t.hex);
        svg.open("g", &[("data-target", (&target).into())]);
        svg.el(
            "polygon",
            &[
                ("class", "tile".into()),
                ("points", (&pts).into()),
                ("fill", tile_fill(t.kind).into()),
                ("stroke", if barrier { "#3a3a3a" } else { "#7a7566" }.into()),
                ("stroke-width", if barrier { 3.0 } else { 1.5 }.into()),
            ],
        );
        svg.text(
            cx,
            cy - m.size * 0.5,
            11.0,
            "middle",
            "#333333",
            &format!("{},{}", t.hex.q, t.hex.r),
        );
        bold(svg, cx, cy - 3.0, 12.0, "middle", "#1a1a1a", t.kind.code());
        svg.close("g");
    }
    // Roads on the shared edges; several colours on one edge sit side by side.
    let mut edges: Vec<(Hex, Hex)> = view.roads.iter().map(|r| (r.a, r.b)).collect();
    edges.sort_unstable();
    edges.dedup();
    for (a, b) in edges {
        let on_edge: Vec<&Road> = view.roads.iter().filter(|r| r.a == a && r.b == b).collect();
        let n = on_edge.len() as f64;
        for (k, r) in on_edge.iter().enumerate() {
            draw_road(svg, &m, r, (k as f64 - (n - 1.0) / 2.0) * 5.0);
        }
    }
    for t in &view.tiles {
        let (cx, cy) = m.centre(t.hex);
        let target = hex_target(t.hex);
        svg.open("g", &[("data-target", (&target).into())]);
        draw_pieces(svg, view, t, cx, cy);
        svg.close("g");
    }
    top + 24.0 + m.height + 8.0
}

fn draw_cards(svg: &mut Svg, view: &View, people: &People, top: f64) -> f64 {
    let mut y = top;
    if let Some(hand) = &view.hand {
        y += 14.0;
        bold(
            svg,
            MARGIN,
            y,
            13.0,
            "start",
            "#1a1a1a",
            &format!("Your hand ({} cards, secret)", hand.len()),
        );
        y += 6.0;
        let per_row = ((WIDTH - 2.0 * MARGIN + 6.0) / (CARD_W + 6.0))
            .floor()
            .max(1.0) as usize;
        for (i, &c) in hand.iter().enumerate() {
            let x = MARGIN + (i % per_row) as f64 * (CARD_W + 6.0);
            let cy = y + (i / per_row) as f64 * (CARD_H + 6.0);
            draw_card(svg, c, x, cy, "hand-card");
        }
        let rows = hand.len().div_ceil(per_row).max(1) as f64;
        if hand.is_empty() {
            svg.text(MARGIN, y + 18.0, 12.0, "start", "#555555", "(empty)");
        }
        y += rows * (CARD_H + 6.0);
        for s in &view.my_steals {
            y += LINE - 1.0;
            svg.text(MARGIN, y, 12.0, "start", "#333333", &steal_text(people, s));
        }
        y += 6.0;
    } else {
        y += 16.0;
        svg.text(
            MARGIN,
            y,
            12.0,
            "start",
            "#333333",
            "Spectator: every hand is hidden; the backs above show how many cards each holds.",
        );
        y += 8.0;
    }
    // The public cards: the deck's top card, the tile stack's top tile, the discard pile.
    y += 6.0;
    bold(svg, MARGIN, y + 12.0, 12.0, "start", "#1a1a1a", "Deck");
    svg.text(
        MARGIN,
        y + 28.0,
        11.0,
        "start",
        "#333333",
        &format!(
            "{} card{}",
            view.deck_size,
            if view.deck_size == 1 { "" } else { "s" }
        ),
    );
    if let Some(c) = view.deck_top {
        draw_card(svg, c, MARGIN + 70.0, y, "open-card");
    }
    let tx = MARGIN + 160.0;
    bold(svg, tx, y + 12.0, 12.0, "start", "#1a1a1a", "Tile stack");
    svg.text(
        tx,
        y + 28.0,
        11.0,
        "start",
        "#333333",
        &format!(
            "{} tile{}",
            view.tile_stack_size,
            if view.tile_stack_size == 1 { "" } else { "s" }
        ),
    );
    if let Some(k) = view.tile_stack_top {
        let (cx, cy) = (tx + 100.0, y + 23.0);
        let pts = points_attr(&pointy_hex_corners(cx, cy, 22.0));
        svg.el(
            "polygon",
            &[
                ("class", "stack-top".into()),
                ("points", (&pts).into()),
                ("fill", tile_fill(k).into()),
                ("stroke", "#7a7566".into()),
                ("stroke-width", 1.5.into()),
            ],
        );
        bold(svg, cx, cy + 4.0, 12.0, "middle", "#1a1a1a", k.code());
        svg.text(
            tx,
            y + 43.0,
            11.0,
            "start",
            "#333333",
            &format!("top: {}", tile_name(k)),
        );
    }
    let dx = MARGIN + 330.0;
    bold(svg, dx, y + 12.0, 12.0, "start", "#1a1a1a", "Discard pile");
    let mut kinds: Vec<(Card, usize)> = Vec::new();
    for &c in &view.discard {
        match kinds.iter_mut().find(|(k, _)| *k == c) {
            Some((_, n)) => *n += 1,
            None => kinds.push((c, 1)),
        }
    }
    kinds.sort_unstable();
    let text = if kinds.is_empty() {
        "empty".to_string()
    } else {
        let l: Vec<String> = kinds
            .iter()
            .map(|(c, n)| format!("{} \u{d7}{n}", card_text(*c)))
            .collect();
        l.join(", ")
    };
    let mut ly = y + 12.0;
    for line in wrap_chars(&text, 36) {
        ly += 15.0;
        svg.text(dx, ly, 11.0, "start", "#333333", &line);
    }
    y + (CARD_H + 10.0).max(ly - y + 8.0)
}

fn draw_legend(svg: &mut Svg, top: f64) -> f64 {
    let d = data::data().ok();
    let mut y = top + 14.0;
    bold(svg, MARGIN, y, 13.0, "start", "#1a1a1a", "Legend");
    // Tiles: two columns of swatch, code, name and yield.
    let kinds: [TileKind; 7] = [
        TileKind::Mothership,
        TileKind::PlasticSteppe,
        TileKind::NSwamp,
        TileKind::GlyHills,
        TileKind::Mountain,
        TileKind::SlimeSea,
        TileKind::AlienClonePool,
    ];
    let col_w = (WIDTH - 2.0 * MARGIN) / 2.0;
    for (i, &k) in kinds.iter().enumerate() {
        let x = MARGIN + (i % 2) as f64 * col_w;
        let ly = y + 18.0 + (i / 2) as f64 * 17.0;
        let pts = points_attr(&pointy_hex_corners(x + 7.0, ly - 4.0, 7.5));
        svg.el(
            "polygon",
            &[
                ("points", (&pts).into()),
                ("fill", tile_fill(k).into()),
                ("stroke", "#7a7566".into()),
            ],
        );
        let label = if k == TileKind::AlienClonePool {
            "AT AB AM AC alien: transmogrifier, cluster bots, telemorpher, clone pool".to_string()
        } else {
            format!("{} {}: {}", k.code(), tile_name(k), yield_text(d, k))
        };
        svg.text(x + 18.0, ly, 11.0, "start", "#222222", &label);
    }
    y += 18.0 + 4.0 * 17.0;
    let lines = [
        "Barrier tiles (thick edge) are entered only along your own road.",
        "A disc is a colour's men on a tile, a house its base (the number counts its men there);",
        "a coloured bar on an edge is a road. Card backs show hand sizes; only you see your hand.",
    ];
    for l in lines {
        svg.text(MARGIN, y, 11.0, "start", "#333333", l);
        y += LINE - 1.0;
    }
    y + 6.0
}

/// The picture of `view` for the viewer of `people`, naming every seat's person.
pub fn picture(view: &View, people: &People) -> String {
    let standing: Vec<String> = view
        .players
        .iter()
        .map(|p| format!("{} {}", name(people, p.seat), p.score))
        .collect();
    let title = format!(
        "SP4X \u{2013} age {}, {} ({})",
        view.age,
        match (people.game_over(), view.step) {
            (Some(over), _) => over,
            (None, Step::Over) => "game over".to_string(),
            (None, _) => format!("{}'s turn", name(people, view.current)),
        },
        standing.join(", ")
    );
    let mut svg = Svg::new(100.0, &title, &describe(view, people));
    let mut y = draw_header(&mut svg, view, people);
    y = draw_players(&mut svg, view, people, y);
    y = draw_map(&mut svg, view, y);
    y = draw_cards(&mut svg, view, people, y);
    let events: Vec<String> = view
        .events
        .iter()
        .map(|e| with_names(view, people, e))
        .collect();
    y = recent_events(&mut svg, &events, y, "#1a1a1a", "#333333") + 8.0;
    y = draw_legend(&mut svg, y);
    svg.set_height(y.ceil());
    svg.finish()
}
