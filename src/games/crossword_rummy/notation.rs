//! The meld as a person writes it in an email reply, instead of the whole table as JSON:
//!
//! ```text
//! lay R5 R6 R7 at 2,3 right
//! move 4,5 to 6,5
//! lay B8 at 6,6
//! ```
//!
//! Clauses go on lines of their own or are separated by `;`, and are read in order on the
//! table as it stands: `lay` puts rack tiles (by label, `R5`, or id, `red-5-a`) on
//! consecutive cells from `x,y` going `right` (the default) or `down`; `move` takes the
//! table tile on one cell to another. Whether the resulting table is legal is the rules'
//! business ([`super::CrosswordRummy::apply`]); this only reads the words.

use std::collections::BTreeMap;

use super::data::Tile;
use super::state::{Action, Placement, State};
use turnpost_engine::Seat;

/// Coordinates a person may write; the rules allow ±10000.
const LIMIT: i32 = 10_000;

/// True when `text` is written in the meld notation (its first word is `lay` or `move`).
pub fn is_notation(text: &str) -> bool {
    matches!(
        text.split_whitespace()
            .next()
            .map(str::to_ascii_lowercase)
            .as_deref(),
        Some("lay" | "move")
    )
}

/// Reads a meld written in the notation on `state`, for `seat`; `None` when `text` is not
/// in the notation.
pub fn parse(state: &State, seat: Seat, text: &str) -> Option<Result<Action, String>> {
    if !is_notation(text) {
        return None;
    }
    Some(read(state, seat, text))
}

fn read(state: &State, seat: Seat, text: &str) -> Result<Action, String> {
    let rack = state
        .racks
        .get(seat)
        .ok_or_else(|| format!("seat {} is not in this game", seat.saturating_add(1)))?;
    let mut unused: Vec<Tile> = rack.clone();
    let mut table: BTreeMap<(i32, i32), Tile> =
        state.table.iter().map(|p| ((p.x, p.y), p.tile)).collect();
    let clauses = text
        .split(['\n', ';'])
        .map(str::trim)
        .filter(|c| !c.is_empty());
    for (n, clause) in clauses.enumerate() {
        let words: Vec<String> = clause
            .replace(['(', ')'], " ")
            .replace(", ", ",")
            .replace(" ,", ",")
            .split_whitespace()
            .map(str::to_ascii_lowercase)
            .collect();
        let at = |why: String| format!("clause {} ({clause:?}): {why}", n + 1);
        match words.first().map(String::as_str) {
            Some("lay") => lay(state, &words[1..], &mut unused, &mut table).map_err(at)?,
            Some("move") => shift(state, &words[1..], &mut table).map_err(at)?,
            _ => return Err(at("a clause starts with `lay` or `move`".into())),
        }
    }
    let table = table
        .into_iter()
        .map(|((x, y), t)| Placement {
            tile: state.rules.tile_id(t),
            x,
            y,
        })
        .collect();
    Ok(Action::Meld { table })
}

/// `lay R5 R6 R7 at 2,3 [right|down]`.
fn lay(
    state: &State,
    words: &[String],
    unused: &mut Vec<Tile>,
    table: &mut BTreeMap<(i32, i32), Tile>,
) -> Result<(), String> {
    let at = words
        .iter()
        .position(|w| w == "at")
        .ok_or("write where the tiles go: `lay R5 R6 R7 at 2,3 right`")?;
    if at == 0 {
        return Err("name at least one tile from your rack before `at`".into());
    }
    let (mut x, mut y) = cell(words.get(at + 1))?;
    let (dx, dy) = match words.get(at + 2).map(String::as_str) {
        None | Some("right") => (1, 0),
        Some("down") => (0, 1),
        Some(other) => return Err(format!("{other:?}: the direction is `right` or `down`")),
    };
    if words.len() > at + 3 {
        return Err(format!(
            "{:?} after the direction is not understood",
            words[at + 3]
        ));
    }
    for name in &words[..at] {
        let i = unused
            .iter()
            .position(|&t| names(state, t, name))
            .ok_or_else(|| {
                format!(
                    "{} is not in your rack (or already laid)",
                    name.to_uppercase()
                )
            })?;
        if x.abs() > LIMIT || y.abs() > LIMIT {
            return Err(format!("the tiles run off the table (beyond ±{LIMIT})"));
        }
        if let Some(&there) = table.get(&(x, y)) {
            return Err(format!(
                "cell {x},{y} already holds {}",
                state.rules.label(there)
            ));
        }
        table.insert((x, y), unused.remove(i));
        (x, y) = (x + dx, y + dy);
    }
    Ok(())
}

/// `move 4,5 to 6,5` (optionally naming the tile: `move B3 4,5 to 6,5`).
fn shift(
    state: &State,
    words: &[String],
    table: &mut BTreeMap<(i32, i32), Tile>,
) -> Result<(), String> {
    let to = words
        .iter()
        .position(|w| w == "to")
        .ok_or("write where the tile goes: `move 4,5 to 6,5`")?;
    let (from_words, rest) = words.split_at(to);
    let from_words: Vec<&String> = from_words
        .iter()
        .filter(|w| *w != "from" && *w != "at")
        .collect();
    let (label, from) = match from_words.as_slice() {
        [c] => (None, cell(Some(c))?),
        [l, c] => (Some(l.as_str()), cell(Some(c))?),
        _ => return Err("write `move x,y to x,y`".into()),
    };
    if rest.len() != 2 {
        return Err("write one cell after `to`, like `to 6,5`".into());
    }
    let dest = cell(rest.get(1))?;
    let tile = *table
        .get(&from)
        .ok_or_else(|| format!("no tile on cell {},{}", from.0, from.1))?;
    if let Some(l) = label
        && !names(state, tile, l)
    {
        return Err(format!(
            "cell {},{} holds {}, not {}",
            from.0,
            from.1,
            state.rules.label(tile),
            l.to_uppercase()
        ));
    }
    if dest != from && table.contains_key(&dest) {
        return Err(format!(
            "cell {},{} is taken; move that tile away first",
            dest.0, dest.1
        ));
    }
    table.remove(&from);
    table.insert(dest, tile);
    Ok(())
}

/// Whether the person's `name` (`r5`, `red-5-a`, lower case) names tile `t`.
fn names(state: &State, t: Tile, name: &str) -> bool {
    state.rules.label(t).eq_ignore_ascii_case(name) || state.rules.tile_id(t) == name
}

/// `2,3` or `-1,0`.
fn cell(word: Option<&String>) -> Result<(i32, i32), String> {
    let word = word.ok_or("a cell is written `x,y`, like `2,3`")?;
    let (x, y) = word
        .split_once(',')
        .ok_or_else(|| format!("{word:?} is not a cell; write `x,y`, like `2,3`"))?;
    let n = |s: &str| {
        s.parse::<i32>()
            .ok()
            .filter(|v| v.abs() <= LIMIT)
            .ok_or_else(|| {
                format!("{word:?} is not a cell: x and y are whole numbers within ±{LIMIT}")
            })
    };
    Ok((n(x)?, n(y)?))
}

/// `table` (a meld) written in the notation on `state`: the tiles from the rack as `lay`
/// clauses (runs of neighbours in one clause) after the `move`s of table tiles, in an order
/// that never puts a tile on a taken cell. `None` when no such order exists (tiles
/// swapping places) or the meld names unknown tiles.
pub fn write(state: &State, table: &[Placement]) -> Option<String> {
    let mut current: BTreeMap<(i32, i32), Tile> =
        state.table.iter().map(|p| ((p.x, p.y), p.tile)).collect();
    let at: BTreeMap<Tile, (i32, i32)> = current.iter().map(|(&c, &t)| (t, c)).collect();
    let mut moves: Vec<((i32, i32), (i32, i32))> = Vec::new();
    let mut laid: BTreeMap<(i32, i32), Tile> = BTreeMap::new();
    for p in table {
        let t = state.rules.parse_tile(&p.tile)?;
        match at.get(&t) {
            Some(&from) if from != (p.x, p.y) => moves.push((from, (p.x, p.y))),
            Some(_) => {}
            None => {
                laid.insert((p.x, p.y), t);
            }
        }
    }
    let mut clauses = Vec::new();
    while !moves.is_empty() {
        let i = moves.iter().position(|(_, to)| !current.contains_key(to))?;
        let (from, to) = moves.remove(i);
        let t = current.remove(&from)?;
        current.insert(to, t);
        clauses.push(format!("move {},{} to {},{}", from.0, from.1, to.0, to.1));
    }
    // Rack tiles in rows: each run of horizontal neighbours is one clause.
    let mut row: Vec<((i32, i32), Tile)> = Vec::new();
    let flush = |row: &mut Vec<((i32, i32), Tile)>, clauses: &mut Vec<String>| {
        if let Some(&((x, y), _)) = row.first() {
            let labels: Vec<String> = row.iter().map(|(_, t)| state.rules.label(*t)).collect();
            let dir = if row.len() > 1 { " right" } else { "" };
            clauses.push(format!("lay {} at {x},{y}{dir}", labels.join(" ")));
        }
        row.clear();
    };
    let mut by_row: Vec<((i32, i32), Tile)> = laid.into_iter().collect();
    by_row.sort_by_key(|((x, y), _)| (*y, *x));
    for (c, t) in by_row {
        if let Some(&(last, _)) = row.last()
            && (last.1 != c.1 || last.0 + 1 != c.0)
        {
            flush(&mut row, &mut clauses);
        }
        row.push((c, t));
    }
    flush(&mut row, &mut clauses);
    (!clauses.is_empty()).then(|| clauses.join("\n"))
}

/// How to write a meld, with an example from `seat`'s position: one of the melds the
/// server lists, written in the notation, when there is one.
pub fn help(state: &State, seat: Seat, listed: &[Action]) -> String {
    let mut text = String::from(
        "Writing a meld: one clause a line (or separated by `;`), read in order on the table as it \
         stands.\n  lay R5 R6 R7 at 2,3 right   puts rack tiles on 2,3, 3,3 and 4,3 (`down` goes down)\n  \
         move 4,5 to 6,5             moves the table tile on 4,5 to 6,5\n\
         x grows to the right and y downwards, as in the grid's numbers. The table that results \
         must be legal as a whole.\n",
    );
    let example = listed.iter().find_map(|a| match a {
        Action::Meld { table } => write(state, table),
        _ => None,
    });
    match example {
        Some(e) => {
            text.push_str("For example, one meld you could make now:\n");
            for line in e.lines() {
                text.push_str("  ");
                text.push_str(line);
                text.push('\n');
            }
        }
        None => {
            let rack: Vec<String> = state
                .racks
                .get(seat)
                .map(|r| r.iter().map(|&t| state.rules.label(t)).collect())
                .unwrap_or_default();
            if !rack.is_empty() {
                text.push_str(&format!("Your rack: {}\n", rack.join(" ")));
            }
        }
    }
    text
}
