//! The bounded meld generator behind `legal_actions`: every sequence or run the rack can
//! lay as a new group (where a new group is allowed), and every single-tile extension of a
//! line end. The full meld space is much larger (any rearrangement); `apply` accepts it all.

use std::collections::BTreeMap;

use super::data::{Face, Rules, Tile};
use super::state::{Placed, Placement, State};
use super::validate::{LineKind, count_groups, line_kind};
use crate::engine::Seat;

/// One copy per face from a rack, in tile order (copies of one face give the same melds).
fn distinct_faces(rules: &Rules, rack: &[Tile]) -> BTreeMap<Face, Tile> {
    let mut out = BTreeMap::new();
    for &t in rack {
        if let Some(f @ Face::Number { .. }) = rules.face(t) {
            out.entry(f).or_insert(t);
        }
    }
    out
}

/// New-tile placements (tile, x, y) of each generated meld, openings first.
pub fn meld_placements(state: &State, seat: Seat) -> Vec<Vec<Placed>> {
    let rules = &state.rules;
    let Some(rack) = state.racks.get(seat) else {
        return Vec::new();
    };
    let faces = distinct_faces(rules, rack);
    let opened = state.opened.get(seat).copied().unwrap_or(false);
    let all_opened = state.opened.iter().all(|&o| o);
    let groups = count_groups(&state.table);
    let room = groups < rules.max_groups(state.seats);
    let mut out = Vec::new();
    if room && (!opened || all_opened) {
        out.extend(openings(state, &faces));
    }
    if opened {
        out.extend(extensions(state, &faces).into_iter().map(|p| vec![p]));
    }
    out
}

/// Each sequence and run the rack can lay as a new group, laid left to right two rows below
/// the table so it touches nothing.
fn openings(state: &State, faces: &BTreeMap<Face, Tile>) -> Vec<Vec<Placed>> {
    let rules = &state.rules;
    let y = state
        .table
        .iter()
        .map(|p| p.y)
        .max()
        .map_or(0, |m| m.saturating_add(2));
    let x0 = state.table.iter().map(|p| p.x).min().unwrap_or(0);
    let lay = |tiles: Vec<Tile>| -> Vec<Placed> {
        tiles
            .into_iter()
            .enumerate()
            .map(|(i, tile)| Placed {
                tile,
                x: x0.saturating_add(i as i32),
                y,
            })
            .collect()
    };
    let mut out = Vec::new();
    let colours = rules.colours.len() as u8;
    // Sequences: every subset of min_line or more of the colours present, per value.
    for value in 1..=rules.max_value {
        let present: Vec<Tile> = (0..colours)
            .filter_map(|colour| faces.get(&Face::Number { colour, value }).copied())
            .collect();
        if present.len() < rules.min_line || present.len() > 16 {
            continue;
        }
        for mask in 1u32..(1 << present.len()) {
            if (mask.count_ones() as usize) < rules.min_line {
                continue;
            }
            let pick: Vec<Tile> = (0..present.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| present[i])
                .collect();
            out.push(lay(pick));
        }
    }
    // Runs: every stretch of min_line or more consecutive values of one colour, ascending.
    for colour in 0..colours {
        for start in 1..=rules.max_value {
            let mut run = Vec::new();
            for value in start..=rules.max_value {
                let Some(&t) = faces.get(&Face::Number { colour, value }) else {
                    break;
                };
                run.push(t);
                if run.len() >= rules.min_line {
                    out.push(lay(run.clone()));
                }
            }
        }
    }
    out
}

/// The tiles of the line through `at` along (dx, dy), with `extra` placed at `at`, in
/// reading order.
fn line_through(
    map: &BTreeMap<(i32, i32), Tile>,
    at: (i32, i32),
    dir: (i32, i32),
    extra: Tile,
) -> Vec<Tile> {
    let step =
        |c: (i32, i32), k: i32| (c.0.saturating_add(dir.0 * k), c.1.saturating_add(dir.1 * k));
    let mut first = at;
    while map.contains_key(&step(first, -1)) {
        first = step(first, -1);
    }
    let mut out = Vec::new();
    let mut c = first;
    loop {
        if c == at {
            out.push(extra);
        } else if let Some(&t) = map.get(&c) {
            out.push(t);
        } else {
            break;
        }
        c = step(c, 1);
    }
    out
}

fn line_ok(rules: &Rules, tiles: &[Tile]) -> bool {
    if tiles.len() == 1 {
        return true;
    }
    let faces: Vec<Face> = tiles.iter().filter_map(|&t| rules.face(t)).collect();
    faces.len() == tiles.len() && line_kind(rules, &faces).is_ok()
}

/// Every single rack tile that legally extends the end of a line on the table.
fn extensions(state: &State, faces: &BTreeMap<Face, Tile>) -> Vec<Placed> {
    let rules = &state.rules;
    let lim = rules.coordinate_limit;
    let map: BTreeMap<(i32, i32), Tile> =
        state.table.iter().map(|p| ((p.x, p.y), p.tile)).collect();
    let mut found: BTreeMap<(Tile, i32, i32), ()> = BTreeMap::new();
    for dir in [(1, 0), (0, 1)] {
        for (&(x, y), _) in map.iter() {
            // A line starts where the cell before it is empty and the cell after it is not.
            if map.contains_key(&(x - dir.0, y - dir.1))
                || !map.contains_key(&(x + dir.0, y + dir.1))
            {
                continue;
            }
            let mut cells = vec![(x, y)];
            while let Some(&(cx, cy)) = cells.last() {
                let next = (cx + dir.0, cy + dir.1);
                if !map.contains_key(&next) {
                    break;
                }
                cells.push(next);
            }
            let line_faces: Vec<Face> = cells
                .iter()
                .filter_map(|c| map.get(c))
                .filter_map(|&t| rules.face(t))
                .collect();
            let Ok(kind) = line_kind(rules, &line_faces) else {
                continue;
            };
            let (Some(&first), Some(&last)) = (line_faces.first(), line_faces.last()) else {
                continue;
            };
            let (Some(&c_first), Some(&c_last)) = (cells.first(), cells.last()) else {
                continue;
            };
            let before = (c_first.0 - dir.0, c_first.1 - dir.1);
            let after = (c_last.0 + dir.0, c_last.1 + dir.1);
            let mut wanted: Vec<(Face, (i32, i32))> = Vec::new();
            let num = |f: Face| match f {
                Face::Number { colour, value } => (colour, value as i16),
                _ => (0, 0),
            };
            let (colour, v_first) = num(first);
            let (_, v_last) = num(last);
            let mut push_value = |v: i16, at: (i32, i32)| {
                if (1..=rules.max_value as i16).contains(&v) {
                    wanted.push((
                        Face::Number {
                            colour,
                            value: v as u8,
                        },
                        at,
                    ));
                }
            };
            match kind {
                LineKind::Ascending => {
                    push_value(v_first - 1, before);
                    push_value(v_last + 1, after);
                }
                LineKind::Descending => {
                    push_value(v_first + 1, before);
                    push_value(v_last - 1, after);
                }
                LineKind::Sequence => {
                    for c in 0..rules.colours.len() as u8 {
                        if !line_faces.iter().any(|&f| num(f).0 == c) {
                            let f = Face::Number {
                                colour: c,
                                value: v_first as u8,
                            };
                            wanted.push((f, before));
                            wanted.push((f, after));
                        }
                    }
                }
            }
            for (face, at) in wanted {
                let Some(&tile) = faces.get(&face) else {
                    continue;
                };
                if at.0.abs() > lim || at.1.abs() > lim {
                    continue;
                }
                let along = line_through(&map, at, dir, tile);
                let across = line_through(&map, at, (dir.1, dir.0), tile);
                if line_ok(rules, &along) && line_ok(rules, &across) {
                    found.insert((tile, at.0, at.1), ());
                }
            }
        }
    }
    found
        .into_keys()
        .map(|(tile, x, y)| Placed { tile, x, y })
        .collect()
}

/// The complete table a meld submits: the current table (unmoved) plus the new tiles.
pub fn full_table(state: &State, new: &[Placed]) -> Vec<Placement> {
    state
        .table
        .iter()
        .chain(new.iter())
        .map(|p| Placement {
            tile: state.rules.tile_id(p.tile),
            x: p.x,
            y: p.y,
        })
        .collect()
}
