//! Views and the text (email) rendering: the table drawn group by group as a grid with
//! row/column coordinates, the display, and the viewer's own rack.

use schemars::JsonSchema;
use serde::Serialize;

use super::data::Tile;
use super::state::{Phase, State};
use turnpost_engine::{Seat, Status, ViewCommon, Viewer};

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct TileView {
    pub tile: String,
    /// Colour initial and value (`R5`), or `P2`/`D3` for the action tiles.
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CellView {
    pub tile: String,
    pub label: String,
    pub x: i32,
    pub y: i32,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct PassingView {
    pub initiator: Seat,
    /// Which seats have chosen (the choices themselves are hidden).
    pub chosen: Vec<bool>,
    /// Your own choice, once made.
    pub your_choice: Option<Vec<TileView>>,
    /// What your right-hand neighbour passes you: shown once both of you have chosen.
    pub incoming: Option<Vec<TileView>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct GameRecordView {
    pub winners: Vec<Seat>,
    pub blocked: bool,
    pub points: Vec<i64>,
    pub racks: Vec<Vec<TileView>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct View {
    #[serde(flatten)]
    pub common: ViewCommon,
    pub game_no: u32,
    pub games: u32,
    /// The seat whose turn it is, or who played pass two while the seats pass.
    pub current: Seat,
    /// Every tile on the table with its cell.
    pub table: Vec<CellView>,
    pub groups: usize,
    pub max_groups: usize,
    pub display: Vec<TileView>,
    pub bag_count: usize,
    pub rack_sizes: Vec<usize>,
    pub opened: Vec<bool>,
    pub passes_in_row: usize,
    pub played_action_tiles: Vec<TileView>,
    /// Your rack (players only).
    pub your_rack: Option<Vec<TileView>>,
    /// What you received in the last pass_two.
    pub last_received: Option<Vec<TileView>>,
    pub passing: Option<PassingView>,
    pub events: Vec<String>,
    pub totals: Vec<i64>,
    pub history: Vec<GameRecordView>,
    /// How the series ended, once it has.
    pub result: Option<String>,
}

fn tiles(state: &State, list: &[Tile]) -> Vec<TileView> {
    list.iter()
        .map(|&t| TileView {
            tile: state.rules.tile_id(t),
            label: state.rules.label(t),
        })
        .collect()
}

/// The right-hand neighbour's chosen tiles, if `me` may see them.
fn incoming(state: &State, me: Seat) -> Option<Vec<Tile>> {
    let Phase::Passing { chosen, .. } = &state.phase else {
        return None;
    };
    let right = (me + state.seats - 1) % state.seats.max(1);
    match (chosen.get(me), chosen.get(right)) {
        (Some(Some(_)), Some(Some(theirs))) if right != me => Some(theirs.clone()),
        _ => None,
    }
}

pub fn view(state: &State, viewer: Viewer, status: &Status) -> View {
    let me = viewer.seat().filter(|&s| s < state.seats);
    let passing = match &state.phase {
        Phase::Passing { initiator, chosen } => Some(PassingView {
            initiator: *initiator,
            chosen: chosen.iter().map(Option::is_some).collect(),
            your_choice: me
                .and_then(|s| chosen.get(s).cloned().flatten())
                .map(|c| tiles(state, &c)),
            incoming: me
                .and_then(|s| incoming(state, s))
                .map(|c| tiles(state, &c)),
        }),
        _ => None,
    };
    View {
        common: ViewCommon::new(viewer, state.seats, status),
        game_no: state.game_no,
        games: state.options.games,
        current: state.turn,
        table: state
            .table
            .iter()
            .map(|p| CellView {
                tile: state.rules.tile_id(p.tile),
                label: state.rules.label(p.tile),
                x: p.x,
                y: p.y,
            })
            .collect(),
        groups: super::validate::count_groups(&state.table),
        max_groups: state.rules.max_groups(state.seats),
        display: tiles(state, &state.display),
        bag_count: state.bag.len(),
        rack_sizes: state.racks.iter().map(Vec::len).collect(),
        opened: state.opened.clone(),
        passes_in_row: state.passes_in_row,
        played_action_tiles: tiles(state, &state.played_actions),
        your_rack: me.and_then(|s| state.racks.get(s)).map(|r| tiles(state, r)),
        last_received: me
            .and_then(|s| state.received.get(s))
            .filter(|r| !r.is_empty())
            .map(|r| tiles(state, r)),
        passing,
        events: state.events.clone(),
        totals: state.totals.clone(),
        history: state
            .history
            .iter()
            .map(|g| GameRecordView {
                winners: g.winners.clone(),
                blocked: g.blocked,
                points: g.points.clone(),
                racks: g.racks.iter().map(|r| tiles(state, r)).collect(),
            })
            .collect(),
        result: match status {
            Status::Finished(o) => Some(o.summary.clone()),
            Status::Active { .. } => None,
        },
    }
}

/// The table as grids, one per group (a group's bounding box is at most as wide as its tile
/// count, so far-apart groups never make a huge empty drawing).
pub fn table_grid(state: &State) -> String {
    if state.table.is_empty() {
        return "  (the table is empty)\n".into();
    }
    // Groups by flood fill over the sorted table.
    let cells: std::collections::BTreeMap<(i32, i32), Tile> =
        state.table.iter().map(|p| ((p.x, p.y), p.tile)).collect();
    let mut done: std::collections::BTreeSet<(i32, i32)> = std::collections::BTreeSet::new();
    let mut order: Vec<(i32, i32)> = cells.keys().map(|&(x, y)| (y, x)).collect();
    order.sort_unstable();
    let mut out = String::new();
    let mut number = 0;
    for (y, x) in order {
        if done.contains(&(x, y)) {
            continue;
        }
        number += 1;
        let mut stack = vec![(x, y)];
        let mut group = Vec::new();
        done.insert((x, y));
        while let Some(c) = stack.pop() {
            group.push(c);
            for d in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                let n = (c.0.saturating_add(d.0), c.1.saturating_add(d.1));
                if cells.contains_key(&n) && done.insert(n) {
                    stack.push(n);
                }
            }
        }
        let (x0, x1) = (
            group.iter().map(|c| c.0).min().unwrap_or(0),
            group.iter().map(|c| c.0).max().unwrap_or(0),
        );
        let (y0, y1) = (
            group.iter().map(|c| c.1).min().unwrap_or(0),
            group.iter().map(|c| c.1).max().unwrap_or(0),
        );
        out.push_str(&format!(
            "  Group {number} ({} tiles, columns {x0}..{x1}, rows {y0}..{y1})\n",
            group.len()
        ));
        let label_w = [y0, y1]
            .iter()
            .map(|v| v.to_string().len())
            .max()
            .unwrap_or(1);
        let cell_w = (x0..=x1)
            .map(|v| v.to_string().len())
            .max()
            .unwrap_or(1)
            .max(3)
            + 1;
        let lw = label_w.max(3);
        let mut header = format!("  {:>lw$}|", "y\\x");
        for x in x0..=x1 {
            header.push_str(&format!("{x:>cell_w$}"));
        }
        out.push_str(&header);
        out.push('\n');
        out.push_str(&format!(
            "  {}+{}\n",
            "-".repeat(lw),
            "-".repeat(cell_w * (x1 - x0 + 1) as usize)
        ));
        for y in y0..=y1 {
            let mut row = format!("  {y:>lw$}|");
            for x in x0..=x1 {
                let s = match cells.get(&(x, y)) {
                    Some(&t) if done.contains(&(x, y)) && group.contains(&(x, y)) => {
                        state.rules.label(t)
                    }
                    _ => ".".into(),
                };
                row.push_str(&format!("{s:>cell_w$}"));
            }
            out.push_str(row.trim_end());
            out.push('\n');
        }
        out.push('\n');
    }
    out
}

fn labels(state: &State, list: &[Tile]) -> String {
    if list.is_empty() {
        return "(none)".into();
    }
    list.iter()
        .map(|&t| state.rules.label(t))
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn text(state: &State, viewer: Viewer, status: &Status) -> String {
    let me = viewer.seat().filter(|&s| s < state.seats);
    let mut out = String::new();
    if state.options.games > 1 {
        out.push_str(&format!(
            "Crossword Rummy - game {} of {}\n\n",
            state.game_no, state.options.games
        ));
    } else {
        out.push_str("Crossword Rummy\n\n");
    }
    match status {
        Status::Finished(o) => out.push_str(&format!("The game is over. {}\n\n", o.summary)),
        Status::Active { to_act } => {
            if let Phase::Passing { initiator, .. } = &state.phase {
                out.push_str(&format!(
                    "Seat {} played pass_two: every player passes 2 tiles to the left. Waiting for: {}\n\n",
                    initiator + 1,
                    to_act.iter().map(|s| format!("Seat {}", s + 1)).collect::<Vec<_>>().join(", ")
                ));
            } else {
                out.push_str(&format!("Seat {} to play.\n\n", state.turn + 1));
            }
        }
    }
    out.push_str(&format!(
        "Table ({} of at most {} groups; cells are colour initial + value: R red, Y yellow, B blue, G green):\n",
        super::validate::count_groups(&state.table),
        state.rules.max_groups(state.seats)
    ));
    out.push_str(&table_grid(state));
    out.push_str(&format!("Display: {}\n", labels(state, &state.display)));
    out.push_str(&format!("Bag: {} tiles\n", state.bag.len()));
    out.push_str("Players:\n");
    for s in 0..state.seats {
        out.push_str(&format!(
            "  Seat {}: {} tiles, {}{}{}\n",
            s + 1,
            state.racks.get(s).map_or(0, Vec::len),
            if state.opened.get(s).copied().unwrap_or(false) {
                "opened"
            } else {
                "not opened"
            },
            if state.options.games > 1 {
                format!(
                    ", {} penalty points so far",
                    state.totals.get(s).copied().unwrap_or(0)
                )
            } else {
                String::new()
            },
            if Some(s) == me { " (you)" } else { "" },
        ));
    }
    if !state.played_actions.is_empty() {
        out.push_str(&format!(
            "Action tiles played: {}\n",
            labels(state, &state.played_actions)
        ));
    }
    if let Some(s) = me {
        let rack = state.racks.get(s).map_or(&[][..], |r| &r[..]);
        out.push_str(&format!(
            "\nYour rack ({}): {}\n",
            rack.len(),
            labels(state, rack)
        ));
        if let Some(r) = state.received.get(s).filter(|r| !r.is_empty()) {
            out.push_str(&format!(
                "Received in the last pass: {}\n",
                labels(state, r)
            ));
        }
        if let Phase::Passing { chosen, .. } = &state.phase {
            if let Some(Some(c)) = chosen.get(s) {
                out.push_str(&format!("You pass: {}\n", labels(state, c)));
            }
            if let Some(inc) = incoming(state, s) {
                out.push_str(&format!("You will receive: {}\n", labels(state, &inc)));
            }
        }
    }
    if !state.events.is_empty() {
        out.push_str("\nRecently:\n");
        for e in &state.events {
            out.push_str(&format!("  {e}\n"));
        }
    }
    if !state.history.is_empty() {
        out.push_str("\nFinished games:\n");
        for (i, g) in state.history.iter().enumerate() {
            let pts: Vec<String> = g
                .points
                .iter()
                .enumerate()
                .map(|(s, p)| format!("Seat {} {p}", s + 1))
                .collect();
            out.push_str(&format!("  game {}: {}\n", i + 1, pts.join(", ")));
        }
        // Racks are revealed for scoring at the end of each game.
        if let Some(last) = state.history.last() {
            out.push_str("Racks at the end of the last game:\n");
            for (s, rack) in last.racks.iter().enumerate() {
                out.push_str(&format!("  Seat {}: {}\n", s + 1, labels(state, rack)));
            }
        }
    }
    // How to write a meld is the notation's help (`notation_help`), beside the choices:
    // the position says nothing of JSON, which is the API's business.
    out
}
