//! The bounded meld generator behind `legal_actions`: every sequence or run the rack can
//! lay as a new group (where a new group is allowed), every single-tile extension of a
//! line end, a few longer extensions (one line end extended tile by tile), and pairs of rack
//! tiles crossing a table tile at right angles (a new line of 3 through it, crossword
//! style). The full meld space is much larger (any rearrangement); `apply` accepts it all.

use std::collections::BTreeMap;

use super::data::{Face, Rules, Tile};
use super::state::{Placed, Placement, State};
use super::validate::{LineKind, MeldContext, TableAnalysis, line_kind, validate_placed};
use turnpost_engine::Seat;

/// A rack's number tiles by face: the first tile of each face in rack order (copies of one
/// face give the same melds). A flat table indexed by colour and value, since the
/// generator looks faces up thousands of times per listing.
struct FaceTiles {
    max_value: usize,
    tiles: Vec<Option<Tile>>,
}

impl FaceTiles {
    fn index(max_value: usize, colours: usize, f: &Face) -> Option<usize> {
        match *f {
            Face::Number { colour, value }
                if usize::from(colour) < colours
                    && (1..=max_value).contains(&usize::from(value)) =>
            {
                Some(usize::from(colour) * max_value + usize::from(value) - 1)
            }
            _ => None,
        }
    }

    fn get(&self, f: &Face) -> Option<Tile> {
        let colours = self.tiles.len() / self.max_value.max(1);
        Self::index(self.max_value, colours, f).and_then(|i| self.tiles.get(i).copied().flatten())
    }
}

/// One copy per face from a rack, in rack order (copies of one face give the same melds).
fn distinct_faces(rules: &Rules, rack: &[Tile]) -> FaceTiles {
    let max_value = usize::from(rules.max_value);
    let colours = rules.colours.len();
    let mut tiles = vec![None; max_value * colours];
    for &t in rack {
        if let Some(f @ Face::Number { .. }) = rules.face(t)
            && let Some(slot) =
                FaceTiles::index(max_value, colours, &f).and_then(|i| tiles.get_mut(i))
            && slot.is_none()
        {
            *slot = Some(t);
        }
    }
    FaceTiles { max_value, tiles }
}

/// The tiles of a table by cell: a flat array over the table's bounding box with a margin,
/// so that the generator's many lookups of a cell and its neighbours index an array.
/// Cells outside the box are empty.
struct Grid {
    x0: i64,
    y0: i64,
    w: i64,
    h: i64,
    cells: Vec<Option<Tile>>,
}

impl Grid {
    /// Empty cells kept around the table's tiles (the generator looks up to three cells
    /// beyond a tile); lookups farther out are answered without the array too.
    const MARGIN: i64 = 3;

    fn new(table: &[Placed]) -> Grid {
        let (Some(x0), Some(x1), Some(y0), Some(y1)) = (
            table.iter().map(|p| p.x).min(),
            table.iter().map(|p| p.x).max(),
            table.iter().map(|p| p.y).min(),
            table.iter().map(|p| p.y).max(),
        ) else {
            return Grid {
                x0: 0,
                y0: 0,
                w: 0,
                h: 0,
                cells: Vec::new(),
            };
        };
        let x0 = i64::from(x0) - Self::MARGIN;
        let y0 = i64::from(y0) - Self::MARGIN;
        let w = i64::from(x1) + Self::MARGIN + 1 - x0;
        let h = i64::from(y1) + Self::MARGIN + 1 - y0;
        let mut grid = Grid {
            x0,
            y0,
            w,
            h,
            cells: vec![None; usize::try_from(w * h).unwrap_or(0)],
        };
        // A later tile in the same cell replaces an earlier one, as a map from cells would.
        for p in table {
            if let Some(i) = grid.index((p.x, p.y))
                && let Some(slot) = grid.cells.get_mut(i)
            {
                *slot = Some(p.tile);
            }
        }
        grid
    }

    fn index(&self, (x, y): (i32, i32)) -> Option<usize> {
        let (dx, dy) = (i64::from(x) - self.x0, i64::from(y) - self.y0);
        if dx < 0 || dy < 0 || dx >= self.w || dy >= self.h {
            return None;
        }
        usize::try_from(dy * self.w + dx).ok()
    }

    fn get(&self, c: (i32, i32)) -> Option<Tile> {
        self.index(c)
            .and_then(|i| self.cells.get(i).copied().flatten())
    }

    fn contains(&self, c: (i32, i32)) -> bool {
        self.get(c).is_some()
    }
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
    // The table is analysed once for every meld checked on it below.
    let table = TableAnalysis::of(&state.table);
    let groups = table.groups();
    let room = groups < rules.max_groups(state.seats);
    let mut out = Vec::new();
    if room && (!opened || all_opened) {
        out.extend(openings(state, &faces));
    }
    if opened {
        let singles = extensions(state, &faces);
        let mut longer = chains(state, seat, &table, &singles);
        longer.extend(crossings(state, seat, &table, &faces));
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
/// `table` is the analysis of `state.table`.
fn accepted(state: &State, seat: Seat, table: &TableAnalysis, new: &[Placed]) -> bool {
    let ctx = MeldContext::for_seat(state, seat);
    let grid: Vec<Placed> = state.table.iter().chain(new).copied().collect();
    validate_placed(&ctx, table, &grid).is_ok()
}

/// Extends a line end tile by tile: from each single extension, keep adding the first
/// extension that the grown table allows, while the rack has one.
fn chains(
    state: &State,
    seat: Seat,
    table: &TableAnalysis,
    singles: &[Placed],
) -> Vec<Vec<Placed>> {
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
        if laid.len() >= 2 && accepted(state, seat, table, &laid) {
            out.push(laid);
        }
    }
    out
}

/// Two rack tiles laid at right angles through a table tile so the three form a sequence or
/// a run, with the table tile at the start, the middle or the end.
fn crossings(
    state: &State,
    seat: Seat,
    table: &TableAnalysis,
    faces: &FaceTiles,
) -> Vec<Vec<Placed>> {
    let rules = &state.rules;
    let grid = Grid::new(&state.table);
    let taken = |c: &(i32, i32)| grid.contains(*c);
    let mut out: Vec<Vec<Placed>> = Vec::new();
    for p in &state.table {
        let Some(Face::Number { colour, value }) = rules.face(p.tile) else {
            continue;
        };
        for dir in [(1, 0), (0, 1)] {
            // The table tile's line must not already run this way.
            if taken(&(p.x - dir.0, p.y - dir.1)) || taken(&(p.x + dir.0, p.y + dir.1)) {
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
                    let (Some(ta), Some(tb)) = (faces.get(&fa), faces.get(&fb)) else {
                        continue;
                    };
                    let at = |k: i32| (p.x + dir.0 * k, p.y + dir.1 * k);
                    let (ca, cb) = (at(offsets[0]), at(offsets[1]));
                    if taken(&ca) || taken(&cb) {
                        continue;
                    }
                    // Cheap local check first (every line through a new tile legal); the
                    // validator then confirms the few that pass. The two new tiles are
                    // looked up over the table's grid.
                    let with_new = |c: (i32, i32)| {
                        if c == cb {
                            Some(tb)
                        } else if c == ca {
                            Some(ta)
                        } else {
                            grid.get(c)
                        }
                    };
                    let local_ok = [(ca, ta), (cb, tb)].iter().all(|&(c, t)| {
                        line_ok(rules, &line_through(&with_new, c, dir, t))
                            && line_ok(rules, &line_through(&with_new, c, (dir.1, dir.0), t))
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
                    if accepted(state, seat, table, &new) {
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
fn openings(state: &State, faces: &FaceTiles) -> Vec<Vec<Placed>> {
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
            .filter_map(|colour| faces.get(&Face::Number { colour, value }))
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
                let Some(t) = faces.get(&Face::Number { colour, value }) else {
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
/// reading order; `tile_at` says what lies in a cell.
fn line_through(
    tile_at: &impl Fn((i32, i32)) -> Option<Tile>,
    at: (i32, i32),
    dir: (i32, i32),
    extra: Tile,
) -> Vec<Tile> {
    let step =
        |c: (i32, i32), k: i32| (c.0.saturating_add(dir.0 * k), c.1.saturating_add(dir.1 * k));
    let mut first = at;
    while tile_at(step(first, -1)).is_some() {
        first = step(first, -1);
    }
    let mut out = Vec::new();
    let mut c = first;
    loop {
        if c == at {
            out.push(extra);
        } else if let Some(t) = tile_at(c) {
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
fn extensions(state: &State, faces: &FaceTiles) -> Vec<Placed> {
    extensions_of(&state.rules, &state.table, faces)
}

fn extensions_of(rules: &Rules, table: &[Placed], faces: &FaceTiles) -> Vec<Placed> {
    let lim = rules.coordinate_limit;
    let grid = Grid::new(table);
    let tile_at = |c: (i32, i32)| grid.get(c);
    // Found extensions, sorted and without repeats: the answer does not depend on the
    // order in which the table's cells are visited.
    let mut found: BTreeMap<(Tile, i32, i32), ()> = BTreeMap::new();
    for dir in [(1, 0), (0, 1)] {
        for p in table {
            let (x, y) = (p.x, p.y);
            // A line starts where the cell before it is empty and the cell after it is not.
            if grid.contains((x - dir.0, y - dir.1)) || !grid.contains((x + dir.0, y + dir.1)) {
                continue;
            }
            let mut cells = vec![(x, y)];
            while let Some(&(cx, cy)) = cells.last() {
                let next = (cx + dir.0, cy + dir.1);
                if !grid.contains(next) {
                    break;
                }
                cells.push(next);
            }
            let line_faces: Vec<Face> = cells
                .iter()
                .filter_map(|&c| grid.get(c))
                .filter_map(|t| rules.face(t))
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
                let Some(tile) = faces.get(&face) else {
                    continue;
                };
                if at.0.abs() > lim || at.1.abs() > lim {
                    continue;
                }
                let along = line_through(&tile_at, at, dir, tile);
                let across = line_through(&tile_at, at, (dir.1, dir.0), tile);
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
