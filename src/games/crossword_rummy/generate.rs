//! The bounded meld generator behind `legal_actions`: every sequence or run the rack can
//! lay as a new group (where a new group is allowed), every single-tile extension of a
//! line end, a few longer extensions (one line end extended tile by tile), and pairs of rack
//! tiles crossing a table tile at right angles (a new line of 3 through it, crossword
//! style). The full meld space is much larger (any rearrangement); `apply` accepts it all.

use std::collections::BTreeMap;

use super::data::{Face, Rules, Tile};
use super::state::{Placed, Placement, State};
use super::validate::{LineKind, MeldContext, count_groups, line_kind, validate_table};
use turnpost_engine::Seat;

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
        let singles = extensions(state, &faces);
        let mut longer = chains(state, seat, &singles);
        longer.extend(crossings(state, seat, &faces));
        out.extend(singles.into_iter().map(|p| vec![p]));
        // A chain and a crossing may lay the same tiles on the same cells: offer it once
        // (descriptions must be unique).
        let mut seen: std::collections::BTreeSet<Vec<Placed>> = std::collections::BTreeSet::new();
        for m in longer {
            let mut key = m.clone();
            key.sort_unstable();
            if seen.insert(key) {
                out.push(m);
            }
        }
    }
    out
}

/// Multi-tile melds are offered at most this many times per turn (the list is a sample;
/// emails number every entry).
const MAX_LONGER: usize = 12;

/// Whether the current table plus `new` is a meld `seat` may submit (the validator decides,
/// so a generated multi-tile meld is never refused).
fn accepted(state: &State, seat: Seat, new: &[Placed]) -> bool {
    let ctx = MeldContext::for_seat(state, seat);
    validate_table(&ctx, &full_table(state, new)).is_ok()
}

/// Extends a line end tile by tile: from each single extension, keep adding the first
/// extension that the grown table allows, while the rack has one.
fn chains(state: &State, seat: Seat, singles: &[Placed]) -> Vec<Vec<Placed>> {
    let mut out: Vec<Vec<Placed>> = Vec::new();
    for &first in singles {
        if out.len() >= MAX_LONGER {
            break;
        }
        let mut laid = vec![first];
        loop {
            let grown: Vec<Placed> = state.table.iter().chain(laid.iter()).copied().collect();
            let rack: Vec<Tile> = state
                .racks
                .get(seat)
                .map_or(Vec::new(), |r| r.clone())
                .into_iter()
                .filter(|t| !laid.iter().any(|p| p.tile == *t))
                .collect();
            let faces = distinct_faces(&state.rules, &rack);
            let next = extensions_of(&state.rules, &grown, &faces)
                .into_iter()
                .find(|p| {
                    // Continue the same line: the new tile touches the last one laid.
                    let last = laid[laid.len() - 1];
                    (p.x - last.x).abs() + (p.y - last.y).abs() == 1
                });
            match next {
                Some(p) if laid.len() < 6 => laid.push(p),
                _ => break,
            }
        }
        if laid.len() >= 2 && accepted(state, seat, &laid) {
            out.push(laid);
        }
    }
    out
}

/// Two rack tiles laid at right angles through a table tile so the three form a sequence or
/// a run, with the table tile at the start, the middle or the end.
fn crossings(state: &State, seat: Seat, faces: &BTreeMap<Face, Tile>) -> Vec<Vec<Placed>> {
    let rules = &state.rules;
    let table_map: BTreeMap<(i32, i32), Tile> =
        state.table.iter().map(|p| ((p.x, p.y), p.tile)).collect();
    let taken: std::collections::BTreeSet<(i32, i32)> = table_map.keys().copied().collect();
    let mut out: Vec<Vec<Placed>> = Vec::new();
    for p in &state.table {
        let Some(Face::Number { colour, value }) = rules.face(p.tile) else {
            continue;
        };
        for dir in [(1, 0), (0, 1)] {
            // The table tile's line must not already run this way.
            if taken.contains(&(p.x - dir.0, p.y - dir.1))
                || taken.contains(&(p.x + dir.0, p.y + dir.1))
            {
                continue;
            }
            for offsets in [[-2, -1], [-1, 1], [1, 2]] {
                // Faces wanted at the two offsets: a rising run, a falling run, or the same
                // value in two other colours.
                let mut wants: Vec<[Face; 2]> = Vec::new();
                for sign in [1i16, -1] {
                    let v = |k: i32| value as i16 + sign * k as i16;
                    let (a, b) = (v(offsets[0]), v(offsets[1]));
                    if (1..=rules.max_value as i16).contains(&a)
                        && (1..=rules.max_value as i16).contains(&b)
                    {
                        wants.push([
                            Face::Number {
                                colour,
                                value: a as u8,
                            },
                            Face::Number {
                                colour,
                                value: b as u8,
                            },
                        ]);
                    }
                }
                let colours = rules.colours.len() as u8;
                for c1 in (0..colours).filter(|&c| c != colour) {
                    for c2 in (0..colours).filter(|&c| c != colour && c != c1) {
                        wants.push([
                            Face::Number { colour: c1, value },
                            Face::Number { colour: c2, value },
                        ]);
                    }
                }
                for [fa, fb] in wants {
                    if out.len() >= MAX_LONGER {
                        return out;
                    }
                    let (Some(&ta), Some(&tb)) = (faces.get(&fa), faces.get(&fb)) else {
                        continue;
                    };
                    let at = |k: i32| (p.x + dir.0 * k, p.y + dir.1 * k);
                    let (ca, cb) = (at(offsets[0]), at(offsets[1]));
                    if taken.contains(&ca) || taken.contains(&cb) {
                        continue;
                    }
                    // Cheap local check first (every line through a new tile legal); the
                    // validator then confirms the few that pass.
                    let mut map = table_map.clone();
                    map.insert(ca, ta);
                    map.insert(cb, tb);
                    let local_ok = [(ca, ta), (cb, tb)].iter().all(|&(c, t)| {
                        line_ok(rules, &line_through(&map, c, dir, t))
                            && line_ok(rules, &line_through(&map, c, (dir.1, dir.0), t))
                    });
                    if !local_ok {
                        continue;
                    }
                    let new = vec![
                        Placed {
                            tile: ta,
                            x: ca.0,
                            y: ca.1,
                        },
                        Placed {
                            tile: tb,
                            x: cb.0,
                            y: cb.1,
                        },
                    ];
                    if accepted(state, seat, &new) {
                        out.push(new);
                    }
                }
            }
        }
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
    extensions_of(&state.rules, &state.table, faces)
}

fn extensions_of(rules: &Rules, table: &[Placed], faces: &BTreeMap<Face, Tile>) -> Vec<Placed> {
    let lim = rules.coordinate_limit;
    let map: BTreeMap<(i32, i32), Tile> = table.iter().map(|p| ((p.x, p.y), p.tile)).collect();
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
