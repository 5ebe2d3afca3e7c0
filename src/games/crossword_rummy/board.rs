//! The board picture: whose turn and every seat's rack count, the table as a grid with
//! its column numbers along the top and row numbers down the left (so a player can name a
//! cell in a meld), the open display, the bag, and the viewer's own rack face up. Drawn
//! from the view alone.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::render::{CellView, TileView, View};
use turnpost_engine::svg::{Svg, WIDTH, fit_text, panel, status_banner};
use turnpost_engine::{People, Seat};

const INK: &str = "#222222";
const MUTED: &str = "#555555";
const MARGIN: f64 = 10.0;
/// A grid cell (narrower, down to `MIN_CELL`, when that saves cutting a group in
/// bands), and a tile in the display and the rack.
const CELL: f64 = 30.0;
const MIN_CELL: f64 = 26.0;
const RACK_TILE: f64 = 32.0;
/// A single grid panel is used while the whole table fits in this many rows; a table
/// spread wider or taller is drawn group by group.
const MAX_ROWS: i32 = 16;

const SEAT_COLOURS: [&str; 4] = ["#1f5fbf", "#b03a2e", "#2a7d3a", "#7b3fa0"];

fn seat_colour(seat: Seat) -> &'static str {
    SEAT_COLOURS
        .get(seat % SEAT_COLOURS.len())
        .copied()
        .unwrap_or(INK)
}

/// The game's name for a seat ("Seat 2"), which [`People::label`] puts the person to.
fn seat_word(seat: Seat) -> String {
    format!("Seat {}", seat + 1)
}

/// The people at the table as the picture names them: "Ada (Seat 1)", "You (Seat 2)".
struct Names<'a>(&'a People);

impl Names<'_> {
    fn seat(&self, seat: Seat) -> String {
        self.0.label(seat, &seat_word(seat))
    }

    /// A seat's label cut to `width` px at `size`, shortening the person's name first so
    /// the seat's own name stays.
    fn seat_fit(&self, seat: Seat, size: f64, width: f64) -> String {
        let full = self.seat(seat);
        if fit_text(&full, size, width) == full {
            return full;
        }
        let tail = format!(" ({})", seat_word(seat));
        let room = width - size * 0.62 * tail.chars().count() as f64;
        if room < size * 3.0 {
            return fit_text(&full, size, width);
        }
        let who = self.0.who(seat, &seat_word(seat));
        format!("{}{tail}", fit_text(&who, size, room))
    }

    /// An event line as people read it: each "Seat N" with its person, action tiles by
    /// their names ("pass two").
    fn event(&self, line: &str, seats: usize) -> String {
        let mut out = action_words(line);
        for s in (0..seats).rev() {
            let word = seat_word(s);
            if out.contains(&word) {
                out = out.replace(&word, &self.seat(s));
            }
        }
        out
    }
}

/// Action tiles by their names rather than their ids: "pass_two" → "pass two".
fn action_words(text: &str) -> String {
    text.replace("pass_two", "pass two")
        .replace("draw_three", "draw three")
}

/// The `data-target` of a tile in the viewer's rack, a tile in the display, a table cell,
/// a seat (the target of a draw three) and the bag.
pub fn rack_target(id: &str) -> String {
    format!("tile:{id}")
}

pub fn display_target(id: &str) -> String {
    format!("display:{id}")
}

pub fn cell_target(x: i32, y: i32) -> String {
    format!("cell:{x}.{y}")
}

pub fn seat_target(seat: Seat) -> String {
    format!("seat:{}", seat + 1)
}

pub const BAG_TARGET: &str = "bag";

/// What a tile looks like: fill, border and text colour, from the colour in its id
/// (`red-5-a`); action tiles (`pass_two-a`, `draw_three-b`) are dark with a gold border.
fn tile_style(id: &str) -> (&'static str, &'static str, &'static str, bool) {
    match id.split('-').next().unwrap_or("") {
        "red" => ("#c62828", "#7f1212", "#ffffff", false),
        "yellow" => ("#f2c200", "#9a7b00", "#222222", false),
        "blue" => ("#1f5fbf", "#0f3a7a", "#ffffff", false),
        "green" => ("#2a8a3a", "#17561f", "#ffffff", false),
        "pass_two" | "draw_three" => ("#2b2b2b", "#d4a017", "#ffd75e", true),
        _ => ("#8a8a8a", "#555555", "#ffffff", false),
    }
}

/// A person's name for a tile: "red 5", "pass_two".
fn tile_words(id: &str) -> String {
    let mut parts: Vec<&str> = id.split('-').collect();
    if parts.len() > 1 {
        parts.pop();
    }
    action_words(&parts.join(" "))
}

fn tiles_words(tiles: &[TileView]) -> String {
    if tiles.is_empty() {
        return "none".into();
    }
    tiles
        .iter()
        .map(|t| t.label.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

#[allow(clippy::too_many_arguments)]
/// One tile, `size` square, its label in the middle. The group carries `class`, the tile
/// id and (on the grid) the cell, so tests and scripts can find what is drawn.
fn tile(
    svg: &mut Svg,
    (x, y): (f64, f64),
    size: f64,
    id: &str,
    label: &str,
    class: &str,
    cell: Option<(i32, i32)>,
    target: Option<&str>,
) {
    let (fill, border, ink, action) = tile_style(id);
    let (cx, cy) = cell.map_or((String::new(), String::new()), |(x, y)| {
        (x.to_string(), y.to_string())
    });
    let mut attrs = vec![("class", class.into()), ("data-tile", id.into())];
    if cell.is_some() {
        attrs.push(("data-x", (&cx).into()));
        attrs.push(("data-y", (&cy).into()));
    }
    if let Some(t) = target {
        attrs.push(("data-target", t.into()));
    }
    svg.open("g", &attrs);
    svg.text_el("title", &[], &tile_words(id));
    panel(
        svg,
        x + 1.0,
        y + 1.0,
        size - 2.0,
        size - 2.0,
        4.0,
        fill,
        border,
        if action { 2.0 } else { 1.0 },
    );
    let text_size = if label.chars().count() > 2 {
        11.0
    } else {
        12.0
    };
    let text_size = (text_size * size / CELL).max(11.0);
    svg.text_bold(
        x + size / 2.0,
        y + size / 2.0 + text_size * 0.36,
        text_size,
        "middle",
        ink,
        label,
    );
    svg.close("g");
}

fn tile_back(svg: &mut Svg, x: f64, y: f64, size: f64) {
    svg.open("g", &[("class", "tile-back".into())]);
    panel(svg, x, y, size, size, 3.0, "#d9cfb8", "#8c7f62", 1.0);
    panel(
        svg,
        x + 3.0,
        y + 3.0,
        size - 6.0,
        size - 6.0,
        2.0,
        "none",
        "#b3a684",
        1.0,
    );
    svg.close("g");
}

fn status_line(view: &View, names: &Names) -> String {
    if let Some(over) = names.0.game_over() {
        return over;
    }
    let me = view.common.viewer;
    if let Some(f) = &view.result {
        return format!("Game over: {}", names.event(f, view.rack_sizes.len()));
    }
    if let Some(p) = &view.passing {
        let waiting: Vec<String> = view.common.to_act.iter().map(|&s| names.seat(s)).collect();
        let yours = me.is_some_and(|s| view.common.to_act.contains(&s));
        return if yours {
            format!(
                "{} played pass two: choose tiles to pass left (waiting for {})",
                names.seat(p.initiator),
                waiting.join(", ")
            )
        } else {
            format!(
                "{} played pass two: waiting for {}",
                names.seat(p.initiator),
                waiting.join(", ")
            )
        };
    }
    if me == Some(view.current) {
        format!("Your turn ({})", seat_word(view.current))
    } else {
        format!("{} to play", names.seat(view.current))
    }
}

/// Series scores are penalty points, shown once they can be non-zero.
fn shows_totals(view: &View) -> bool {
    view.games > 1 || !view.history.is_empty()
}

fn description(view: &View, names: &Names) -> String {
    let mut d = String::from("Crossword Rummy");
    if view.games > 1 {
        let _ = write!(d, ", game {} of {}", view.game_no, view.games);
    }
    let _ = write!(d, ". {}. ", status_line(view, names));
    for (s, n) in view.rack_sizes.iter().enumerate() {
        let opened = if view.opened.get(s).copied().unwrap_or(false) {
            "opened"
        } else {
            "not opened"
        };
        let _ = write!(d, "{}: {n} tiles, {opened}", names.seat(s));
        if shows_totals(view) {
            let _ = write!(
                d,
                ", {} penalty points",
                view.totals.get(s).copied().unwrap_or(0)
            );
        }
        d.push_str(". ");
    }
    let _ = write!(
        d,
        "Bag: {} tiles. Display: {}. Table: {} tiles in {} of at most {} groups",
        view.bag_count,
        tiles_words(&view.display),
        view.table.len(),
        view.groups,
        view.max_groups
    );
    if view.table.is_empty() {
        d.push_str(". ");
    } else {
        let cells: Vec<String> = view
            .table
            .iter()
            .map(|c| format!("{} at column {} row {}", c.label, c.x, c.y))
            .collect();
        let _ = write!(d, ": {}. ", cells.join(", "));
    }
    if !view.played_action_tiles.is_empty() {
        let _ = write!(
            d,
            "Action tiles played: {}. ",
            tiles_words(&view.played_action_tiles)
        );
    }
    if let Some(rack) = &view.your_rack {
        let _ = write!(d, "Your rack: {}. ", tiles_words(rack));
    }
    if let Some(p) = &view.passing {
        if let Some(c) = &p.your_choice {
            let _ = write!(d, "You pass: {}. ", tiles_words(c));
        }
        if let Some(c) = &p.incoming {
            let _ = write!(d, "You receive: {}. ", tiles_words(c));
        }
    }
    d.trim_end().to_string()
}

/// A rectangle of grid cells drawn together, with its own coordinate labels.
struct GridPanel<'a> {
    /// "Group 2" when the table is drawn group by group.
    heading: Option<String>,
    x0: i32,
    x1: i32,
    y0: i32,
    y1: i32,
    cells: Vec<&'a CellView>,
}

fn bounds(cells: &[&CellView]) -> (i32, i32, i32, i32) {
    let x0 = cells.iter().map(|c| c.x).min().unwrap_or(0);
    let x1 = cells.iter().map(|c| c.x).max().unwrap_or(0);
    let y0 = cells.iter().map(|c| c.y).min().unwrap_or(0);
    let y1 = cells.iter().map(|c| c.y).max().unwrap_or(0);
    (x0, x1, y0, y1)
}

/// Room for the grid beside a row-label column `label_w` wide.
fn grid_room(label_w: f64) -> f64 {
    WIDTH - 2.0 * MARGIN - 20.0 - label_w
}

/// Columns that fit beside a row-label column `label_w` wide.
fn max_cols(label_w: f64) -> i32 {
    ((grid_room(label_w) / MIN_CELL).floor() as i32).max(1)
}

/// The cell size of a panel: full size when its columns fit, else narrower.
fn cell_size(p: &GridPanel<'_>) -> f64 {
    let cols = f64::from(p.x1 - p.x0 + 1);
    (grid_room(label_width(p.y0, p.y1)) / cols).clamp(MIN_CELL, CELL)
}

fn label_width(y0: i32, y1: i32) -> f64 {
    let digits = y0.to_string().len().max(y1.to_string().len()) as f64;
    digits * 7.0 + 10.0
}

/// The table as one grid when it is compact, else one grid per group (in reading order),
/// each cut into column bands that fit the width. Every tile is in exactly one panel.
fn panels(table: &[CellView]) -> Vec<GridPanel<'_>> {
    let all: Vec<&CellView> = table.iter().collect();
    if all.is_empty() {
        return Vec::new();
    }
    let (x0, x1, y0, y1) = bounds(&all);
    let cols = i64::from(x1) - i64::from(x0) + 1;
    if cols <= i64::from(max_cols(label_width(y0, y1)))
        && i64::from(y1) - i64::from(y0) < i64::from(MAX_ROWS)
    {
        return vec![GridPanel {
            heading: None,
            x0,
            x1,
            y0,
            y1,
            cells: all,
        }];
    }
    // Groups by flood fill over side-touching cells.
    let at: BTreeMap<(i32, i32), &CellView> = table.iter().map(|c| ((c.x, c.y), c)).collect();
    let mut seen: BTreeSet<(i32, i32)> = BTreeSet::new();
    let mut order: Vec<(i32, i32)> = at.keys().map(|&(x, y)| (y, x)).collect();
    order.sort_unstable();
    let mut out = Vec::new();
    let mut number = 0;
    for (y, x) in order {
        if !seen.insert((x, y)) {
            continue;
        }
        number += 1;
        let mut group: Vec<&CellView> = Vec::new();
        let mut stack = vec![(x, y)];
        while let Some(c) = stack.pop() {
            if let Some(cell) = at.get(&c) {
                group.push(cell);
            }
            for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let n = (c.0.saturating_add(dx), c.1.saturating_add(dy));
                if at.contains_key(&n) && seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        let (gx0, gx1, gy0, gy1) = bounds(&group);
        let band = max_cols(label_width(gy0, gy1));
        let mut from = gx0;
        loop {
            let to = from.saturating_add(band - 1).min(gx1);
            let cells: Vec<&CellView> = group
                .iter()
                .copied()
                .filter(|c| c.x >= from && c.x <= to)
                .collect();
            if !cells.is_empty() {
                let (_, _, by0, by1) = bounds(&cells);
                out.push(GridPanel {
                    heading: Some(if from == gx0 && to == gx1 {
                        format!("Group {number}")
                    } else {
                        format!("Group {number}, columns {from} to {to}")
                    }),
                    x0: from,
                    x1: to,
                    y0: by0,
                    y1: by1,
                    cells,
                });
            }
            if to >= gx1 {
                break;
            }
            from = to + 1;
        }
    }
    out
}

/// The height [`draw_panel`] takes.
fn panel_height(p: &GridPanel<'_>) -> f64 {
    let heading = if p.heading.is_some() { 20.0 } else { 0.0 };
    heading + 18.0 + cell_size(p) * f64::from(p.y1 - p.y0 + 1) + 8.0
}

/// Draws one grid panel at `top`; returns the y below it (`top + panel_height`).
fn draw_panel(svg: &mut Svg, p: &GridPanel<'_>, top: f64) -> f64 {
    let mut y = top;
    if let Some(h) = &p.heading {
        svg.text_bold(MARGIN + 10.0, y + 14.0, 12.0, "start", INK, h);
        y += 20.0;
    }
    let label_w = label_width(p.y0, p.y1);
    let cell = cell_size(p);
    let cols = (p.x1 - p.x0 + 1) as f64;
    let rows = (p.y1 - p.y0 + 1) as f64;
    let gx = MARGIN + 10.0 + label_w;
    let gy = y + 18.0;
    // Column numbers, thinned out when they are wider than a cell.
    let widest = p.x0.to_string().len().max(p.x1.to_string().len()) as f64 * 7.0;
    let step = ((widest + 4.0) / cell).ceil().max(1.0) as i32;
    for (i, x) in (p.x0..=p.x1).enumerate() {
        if (x - p.x0) % step == 0 {
            svg.text(
                gx + cell * (i as f64 + 0.5),
                y + 13.0,
                11.0,
                "middle",
                MUTED,
                &x.to_string(),
            );
        }
    }
    for (j, row) in (p.y0..=p.y1).enumerate() {
        svg.text(
            gx - 6.0,
            gy + cell * (j as f64 + 0.5) + 4.0,
            11.0,
            "end",
            MUTED,
            &row.to_string(),
        );
    }
    // The empty grid, so a cell can be counted out by eye.
    panel(
        svg,
        gx,
        gy,
        cell * cols,
        cell * rows,
        0.0,
        "#ffffff",
        "#b8b8b8",
        1.0,
    );
    for i in 1..(p.x1 - p.x0 + 1) {
        let x = gx + cell * f64::from(i);
        svg.line(x, gy, x, gy + cell * rows, "#e2e2e2", 1.0);
    }
    for j in 1..(p.y1 - p.y0 + 1) {
        let yy = gy + cell * f64::from(j);
        svg.line(gx, yy, gx + cell * cols, yy, "#e2e2e2", 1.0);
    }
    for c in &p.cells {
        let x = gx + cell * f64::from(c.x - p.x0);
        let yy = gy + cell * f64::from(c.y - p.y0);
        tile(
            svg,
            (x, yy),
            cell,
            &c.tile,
            &c.label,
            "table-tile",
            Some((c.x, c.y)),
            Some(&cell_target(c.x, c.y)),
        );
    }
    gy + cell * rows + 8.0
}

fn draw_table(svg: &mut Svg, view: &View, top: f64) -> f64 {
    let heading = format!(
        "Table · {} tiles in {} of at most {} groups · x grows right, y grows down",
        view.table.len(),
        view.groups,
        view.max_groups
    );
    let ps = panels(&view.table);
    // The frame goes under the grids, so their height is added up first.
    let grids: f64 = ps.iter().map(|p| panel_height(p) + 4.0).sum();
    let bottom = if ps.is_empty() {
        top + 64.0
    } else {
        top + 26.0 + grids + 4.0
    };
    panel(
        svg,
        MARGIN,
        top,
        WIDTH - 2.0 * MARGIN,
        bottom - top,
        8.0,
        "#f1ede3",
        "#b9ad8f",
        1.5,
    );
    svg.text_bold(
        MARGIN + 10.0,
        top + 18.0,
        12.0,
        "start",
        INK,
        &fit_text(&heading, 12.0, WIDTH - 2.0 * MARGIN - 20.0),
    );
    if ps.is_empty() {
        svg.text(
            WIDTH / 2.0,
            top + 46.0,
            13.0,
            "middle",
            MUTED,
            "The table is empty",
        );
    }
    let mut y = top + 26.0;
    for p in &ps {
        y = draw_panel(svg, p, y) + 4.0;
    }
    bottom
}

/// A row of tiles under a heading, wrapped to the width; returns the y below it. `target`
/// gives each tile's `data-target`, if a click on it means something.
fn draw_tiles(
    svg: &mut Svg,
    heading: &str,
    tiles: &[TileView],
    class: &str,
    top: f64,
    target: Option<fn(&str) -> String>,
) -> f64 {
    svg.text_bold(MARGIN, top + 14.0, 13.0, "start", INK, heading);
    let per_row = (((WIDTH - 2.0 * MARGIN) / (RACK_TILE + 4.0)) as usize).max(1);
    if tiles.is_empty() {
        svg.text(MARGIN, top + 36.0, 12.0, "start", MUTED, "(none)");
        return top + 46.0;
    }
    for (i, t) in tiles.iter().enumerate() {
        let x = MARGIN + (RACK_TILE + 4.0) * (i % per_row) as f64;
        let y = top + 22.0 + (RACK_TILE + 4.0) * (i / per_row) as f64;
        let token = target.map(|f| f(&t.tile));
        tile(
            svg,
            (x, y),
            RACK_TILE,
            &t.tile,
            &t.label,
            class,
            None,
            token.as_deref(),
        );
    }
    top + 22.0 + (RACK_TILE + 4.0) * tiles.len().div_ceil(per_row) as f64 + 6.0
}

/// One box per seat: name, rack count (a tile back with the number), opened or not, and
/// series penalty points.
fn draw_seats(svg: &mut Svg, view: &View, top: f64, names: &Names) -> f64 {
    let n = view.rack_sizes.len().max(1) as f64;
    let gap = 8.0;
    let w = (WIDTH - 2.0 * MARGIN - gap * (n - 1.0)) / n;
    let h = 66.0;
    for (s, &size) in view.rack_sizes.iter().enumerate() {
        let x = MARGIN + (w + gap) * s as f64;
        let colour = seat_colour(s);
        let to_act = names.0.acting(&view.common.to_act).contains(&s);
        let target = seat_target(s);
        svg.open(
            "g",
            &[
                ("class", "seat".into()),
                ("data-seat", s.into()),
                ("data-target", (&target).into()),
            ],
        );
        panel(
            svg,
            x,
            top,
            w,
            h,
            8.0,
            if to_act { "#fff6d6" } else { "#ffffff" },
            colour,
            if to_act { 3.0 } else { 1.5 },
        );
        svg.text_bold(
            x + 8.0,
            top + 17.0,
            13.0,
            "start",
            colour,
            &names.seat_fit(s, 13.0, w - 16.0),
        );
        tile_back(svg, x + 8.0, top + 25.0, 22.0);
        svg.text_bold(
            x + 36.0,
            top + 41.0,
            12.0,
            "start",
            INK,
            &if size == 1 {
                "1 tile".to_string()
            } else {
                format!("{size} tiles")
            },
        );
        let mut facts = vec![if view.opened.get(s).copied().unwrap_or(false) {
            "opened".to_string()
        } else {
            "not opened".to_string()
        }];
        if shows_totals(view) {
            facts.push(format!(
                "penalty {}",
                view.totals.get(s).copied().unwrap_or(0)
            ));
        }
        svg.text(
            x + 8.0,
            top + 59.0,
            11.0,
            "start",
            MUTED,
            &fit_text(&facts.join(" · "), 11.0, w - 16.0),
        );
        svg.close("g");
    }
    top + h
}

pub fn board_svg(view: &View, people: &People) -> String {
    let names = &Names(people);
    let status = status_line(view, names);
    let title = format!("Crossword Rummy: {status}");
    let mut svg = Svg::new(600.0, &title, &description(view, names));
    let mut heading = String::from("Crossword Rummy");
    if view.games > 1 {
        let _ = write!(heading, " · game {} of {}", view.game_no, view.games);
    }
    svg.text_bold(MARGIN, 24.0, 18.0, "start", INK, &heading);
    // The bag, a click on which draws from it.
    svg.open("g", &[("data-target", BAG_TARGET.into())]);
    tile_back(&mut svg, WIDTH - MARGIN - 24.0, 8.0, 22.0);
    svg.text(
        WIDTH - MARGIN - 30.0,
        24.0,
        12.0,
        "end",
        MUTED,
        &format!("bag {} tiles", view.bag_count),
    );
    svg.close("g");
    let colour = if view.common.finished || view.passing.is_some() || names.0.ending().is_some() {
        INK
    } else {
        seat_colour(view.current)
    };
    let below = status_banner(&mut svg, 34.0, &status, colour);
    let mut y = draw_seats(&mut svg, view, below + 8.0, names) + 10.0;
    y = draw_table(&mut svg, view, y) + 8.0;
    y = draw_tiles(
        &mut svg,
        &format!("Display ({}) · bag {}", view.display.len(), view.bag_count),
        &view.display,
        "display-tile",
        y,
        Some(display_target),
    );
    if let Some(rack) = &view.your_rack {
        y = draw_tiles(
            &mut svg,
            &format!("Your rack ({})", rack.len()),
            rack,
            "rack-tile",
            y,
            Some(rack_target),
        );
    } else {
        svg.text(
            MARGIN,
            y + 14.0,
            12.0,
            "start",
            MUTED,
            "Spectator view: every rack is hidden.",
        );
        y += 22.0;
    }
    if let Some(p) = &view.passing {
        if let Some(c) = &p.your_choice {
            y = draw_tiles(&mut svg, "You pass to the left", c, "pass-tile", y, None);
        }
        if let Some(c) = &p.incoming {
            y = draw_tiles(
                &mut svg,
                "You receive from the right",
                c,
                "incoming-tile",
                y,
                None,
            );
        }
    }
    let mut notes: Vec<String> = Vec::new();
    if !view.played_action_tiles.is_empty() {
        notes.push(format!(
            "Action tiles played: {}",
            tiles_words(&view.played_action_tiles)
        ));
    }
    if let Some(r) = &view.last_received {
        notes.push(format!("Received in the last pass: {}", tiles_words(r)));
    }
    for (i, g) in view.history.iter().enumerate() {
        let pts: Vec<String> = g
            .points
            .iter()
            .enumerate()
            .map(|(s, p)| format!("{} {p}", names.seat(s)))
            .collect();
        notes.push(format!("Game {}: {}", i + 1, pts.join(", ")));
    }
    if let Some(last) = view.history.last() {
        for (s, rack) in last.racks.iter().enumerate() {
            notes.push(format!(
                "  {} ended with {}",
                names.seat(s),
                tiles_words(rack)
            ));
        }
    }
    notes.extend(
        view.events
            .iter()
            .rev()
            .take(3)
            .rev()
            .map(|e| format!("· {}", names.event(e, view.rack_sizes.len()))),
    );
    for line in notes {
        y += 16.0;
        svg.text(
            MARGIN,
            y,
            11.0,
            "start",
            MUTED,
            &fit_text(&line, 11.0, WIDTH - 2.0 * MARGIN),
        );
    }
    svg.set_height(y + 12.0);
    svg.finish()
}
