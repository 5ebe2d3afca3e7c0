//! The meld validator: a submitted table is checked as a whole (digest 5.4, V1-V5). Every
//! refusal has a stable code and a message naming the rule and the cells at fault.

use turnpost_engine::{RuleError, Seat};

use super::data::{Face, Rules, Tile};
use super::state::{Placed, Placement};

/// Stable refusal codes, one per rule.
pub mod codes {
    /// V1: a tile id names no tile.
    pub const UNKNOWN_TILE: &str = "unknown_tile";
    /// V1: the same tile appears twice.
    pub const DUPLICATE_TILE: &str = "duplicate_tile";
    /// V1: an action tile was put on the table.
    pub const ACTION_TILE_ON_TABLE: &str = "action_tile_on_table";
    /// V1: a cell beyond the coordinate limit.
    pub const CELL_OUT_OF_RANGE: &str = "cell_out_of_range";
    /// V1: two tiles in one cell.
    pub const CELL_TAKEN_TWICE: &str = "cell_taken_twice";
    /// V2: a tile of the old table is missing.
    pub const TABLE_TILE_MISSING: &str = "table_tile_missing";
    /// V2: a new tile is not in the mover's rack.
    pub const TILE_NOT_IN_RACK: &str = "tile_not_in_rack";
    /// V2: nothing new was laid.
    pub const NO_TILE_LAID: &str = "no_tile_laid";
    /// V3: a line of exactly two tiles.
    pub const LINE_OF_TWO: &str = "line_of_two";
    /// V3: a line that is neither a sequence nor a run.
    pub const INVALID_LINE: &str = "invalid_line";
    /// V4: a tile in no line of three or more.
    pub const TILE_ALONE: &str = "tile_alone";
    /// V5: the mover has not opened and the meld opens no group of their own.
    pub const MUST_OPEN_OWN_GROUP: &str = "must_open_own_group";
    /// V5: an opening meld that starts more than the opening group.
    pub const TOO_MANY_NEW_GROUPS: &str = "too_many_new_groups";
    /// V5: a further group before every player has opened.
    pub const NOT_ALL_OPENED: &str = "new_group_before_all_opened";
    /// V5: more groups than the player count allows.
    pub const TOO_MANY_GROUPS: &str = "too_many_groups";
}

/// What the mover's meld is checked against.
#[derive(Clone, Copy, Debug)]
pub struct MeldContext<'a> {
    pub rules: &'a Rules,
    pub players: usize,
    pub table: &'a [Placed],
    pub rack: &'a [Tile],
    pub opened: &'a [bool],
    pub mover: Seat,
    /// The rules version of the game (see `State::rules_version`): version 1 lets a merge
    /// in the same move hide a new group before everyone has opened.
    pub rules_version: u32,
}

impl<'a> MeldContext<'a> {
    /// The context of a meld by `seat` on `state`: its rack, the table, who has opened.
    pub fn for_seat(state: &'a super::state::State, seat: Seat) -> MeldContext<'a> {
        MeldContext {
            rules: &state.rules,
            players: state.seats,
            table: &state.table,
            rack: state.racks.get(seat).map_or(&[][..], |r| &r[..]),
            opened: &state.opened,
            mover: seat,
            rules_version: state.rules_version,
        }
    }
}

/// An accepted meld.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The new table, sorted by tile.
    pub table: Vec<Placed>,
    /// Tiles that left the mover's rack, sorted.
    pub new_tiles: Vec<Tile>,
    pub groups_before: usize,
    pub groups_after: usize,
    /// This meld was the mover's opening.
    pub opens: bool,
}

/// What kind of line a run of touching tiles is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineKind {
    Sequence,
    Ascending,
    Descending,
}

/// Checks one line (two or more tiles, in reading order). Err holds why it is illegal.
pub fn line_kind(rules: &Rules, faces: &[Face]) -> Result<LineKind, String> {
    if faces.len() < rules.min_line {
        return Err(format!(
            "a line needs at least {} tiles, not {}",
            rules.min_line,
            faces.len()
        ));
    }
    let mut nums: Vec<(u8, u8)> = Vec::with_capacity(faces.len());
    for f in faces {
        match *f {
            Face::Number { colour, value } => nums.push((colour, value)),
            _ => return Err("action tiles cannot be laid".into()),
        }
    }
    let (c0, v0) = nums[0];
    if nums.iter().all(|&(_, v)| v == v0) {
        let mut colours: Vec<u8> = nums.iter().map(|&(c, _)| c).collect();
        colours.sort_unstable();
        colours.dedup();
        if colours.len() != nums.len() {
            return Err("a sequence needs a different colour on every tile".into());
        }
        return Ok(LineKind::Sequence);
    }
    if nums.iter().all(|&(c, _)| c == c0) {
        let step = |d: i16| nums.windows(2).all(|w| w[1].1 as i16 - w[0].1 as i16 == d);
        if step(1) {
            return Ok(LineKind::Ascending);
        }
        if step(-1) {
            return Ok(LineKind::Descending);
        }
        return Err("the values of a run must rise or fall by exactly 1 (no gaps, no wrap from the top value to 1)".into());
    }
    Err("a line must be a sequence (one value, different colours) or a run (one colour)".into())
}

fn cells(list: &[(i32, i32)]) -> String {
    let parts: Vec<String> = list
        .iter()
        .take(20)
        .map(|(x, y)| format!("({x},{y})"))
        .collect();
    let more = if list.len() > 20 {
        format!(" and {} more", list.len() - 20)
    } else {
        String::new()
    };
    format!("{}{more}", parts.join(" "))
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb)] = ra.min(rb);
    }
}

/// The lines and groups of a grid (cells must be distinct).
struct Analysis {
    /// Maximal lines of two or more tiles: indices in reading order.
    lines: Vec<Vec<usize>>,
    /// Group number of each tile (groups numbered by first tile in reading order).
    group_of: Vec<usize>,
    groups: usize,
}

/// Finds lines and groups; Err(cell) if two tiles share a cell.
fn analyse(grid: &[Placed]) -> Result<Analysis, (i32, i32)> {
    let n = grid.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut lines = Vec::new();
    let mut order: Vec<usize> = (0..n).collect();
    for horizontal in [true, false] {
        // Rows: sort by (y, x); columns: by (x, y). `along` is the coordinate in the line.
        let key = |i: usize| {
            let p = grid[i];
            if horizontal { (p.y, p.x) } else { (p.x, p.y) }
        };
        order.sort_unstable_by_key(|&i| key(i));
        let mut start = 0;
        for k in 1..=n {
            let joined = k < n && {
                let (a0, a1) = key(order[k - 1]);
                let (b0, b1) = key(order[k]);
                if a0 == b0 && a1 == b1 {
                    return Err((grid[order[k]].x, grid[order[k]].y));
                }
                a0 == b0 && i64::from(a1) + 1 == i64::from(b1)
            };
            if joined {
                union(&mut parent, order[k - 1], order[k]);
            } else {
                if k - start >= 2 {
                    lines.push(order[start..k].to_vec());
                }
                start = k;
            }
        }
    }
    // Number the groups in reading order so messages are stable.
    order.sort_unstable_by_key(|&i| (grid[i].y, grid[i].x));
    let mut number: Vec<usize> = vec![usize::MAX; n];
    let mut group_of = vec![0; n];
    let mut groups = 0;
    for &i in &order {
        let r = find(&mut parent, i);
        if number[r] == usize::MAX {
            number[r] = groups;
            groups += 1;
        }
        group_of[i] = number[r];
    }
    Ok(Analysis {
        lines,
        group_of,
        groups,
    })
}

/// How many groups of the new grid are new: groups that cannot each be traced back to a
/// distinct group of the old table through a tile they share. A group made only of rack
/// tiles is new; so is one half of a split group. A merge makes two old groups one, which
/// frees no trace for another group (the largest matching decides).
fn new_group_count(old: &TableAnalysis, grid: &[Placed], analysis: &Analysis) -> usize {
    let Some(before_groups) = old.old_groups else {
        return analysis.groups;
    };
    let old_group = &old.old_group;
    // Which old groups each new group shares a tile with.
    let mut links: Vec<Vec<usize>> = vec![Vec::new(); analysis.groups];
    for (i, p) in grid.iter().enumerate() {
        if let (Some(Some(g_old)), Some(g_new)) = (
            old_group.get(p.tile.0 as usize),
            analysis.group_of.get(i).copied(),
        ) && let Some(l) = links.get_mut(g_new)
            && !l.contains(g_old)
        {
            l.push(*g_old);
        }
    }
    // Largest matching of new groups to old groups (Kuhn's augmenting paths; a handful of
    // groups at most).
    fn augment(
        g: usize,
        links: &[Vec<usize>],
        seen: &mut [bool],
        owner: &mut [Option<usize>],
    ) -> bool {
        for &o in &links[g] {
            if seen[o] {
                continue;
            }
            seen[o] = true;
            if owner[o].is_none_or(|h| augment(h, links, seen, owner)) {
                owner[o] = Some(g);
                return true;
            }
        }
        false
    }
    let mut owner: Vec<Option<usize>> = vec![None; before_groups];
    let mut traced = 0;
    for g in 0..analysis.groups {
        let mut seen = vec![false; before_groups];
        if augment(g, &links, &mut seen, &mut owner) {
            traced += 1;
        }
    }
    analysis.groups - traced
}

/// Why a table on record is not a valid crossword (for the invariant checks): two tiles in
/// one cell, an action tile, a bad or short line, a lone tile, or too many groups.
pub fn table_problem(rules: &Rules, players: usize, table: &[Placed]) -> Option<String> {
    let analysis = match analyse(table) {
        Ok(a) => a,
        Err((x, y)) => return Some(format!("two tiles share the cell ({x},{y})")),
    };
    let mut covered = vec![false; table.len()];
    for line in &analysis.lines {
        let faces: Vec<Face> = line
            .iter()
            .filter_map(|&i| rules.face(table[i].tile))
            .collect();
        if faces.len() != line.len() {
            return Some("a table tile is not a tile".into());
        }
        if let Err(why) = line_kind(rules, &faces) {
            let at: Vec<(i32, i32)> = line.iter().map(|&i| (table[i].x, table[i].y)).collect();
            return Some(format!("the line at {} is not legal: {why}", cells(&at)));
        }
        for &i in line {
            covered[i] = true;
        }
    }
    if let Some(i) = covered.iter().position(|c| !c) {
        return Some(format!(
            "the tile at ({},{}) is in no line",
            table[i].x, table[i].y
        ));
    }
    let max = rules.max_groups(players);
    (analysis.groups > max).then(|| format!("{} groups, at most {max}", analysis.groups))
}

/// Number of groups on a (valid) table.
pub fn count_groups(table: &[Placed]) -> usize {
    analyse(table).map_or(0, |a| a.groups)
}

/// What a meld is checked against on the table it changes: its group count and the group
/// of each tile on it. Worked out once per table, so that checking many candidate melds on
/// one table (the meld generator does) does not analyse the table again for each.
#[derive(Clone, Debug)]
pub struct TableAnalysis {
    /// [`count_groups`] of the table.
    groups: usize,
    /// The table's group count, none when two of its tiles share a cell.
    old_groups: Option<usize>,
    /// The group of each tile id on the table (indexed by tile id).
    old_group: Vec<Option<usize>>,
}

impl TableAnalysis {
    pub fn of(table: &[Placed]) -> TableAnalysis {
        let Ok(before) = analyse(table) else {
            return TableAnalysis {
                groups: 0,
                old_groups: None,
                old_group: Vec::new(),
            };
        };
        let mut old_group: Vec<Option<usize>> = Vec::new();
        for (i, p) in table.iter().enumerate() {
            let t = p.tile.0 as usize;
            if old_group.len() <= t {
                old_group.resize(t + 1, None);
            }
            old_group[t] = before.group_of.get(i).copied();
        }
        TableAnalysis {
            groups: before.groups,
            old_groups: Some(before.groups),
            old_group,
        }
    }

    /// The number of groups on the table.
    pub fn groups(&self) -> usize {
        self.groups
    }
}

fn refuse(code: &'static str, rule: &str, message: String) -> RuleError {
    RuleError::new(code, format!("{rule}: {message}"))
}

/// Checks a submitted table against the rules (V1 shape, V2 conservation, V3 lines, V4
/// cover, V5 groups and opening) and returns the accepted table, or the first failing
/// rule with the cells at fault.
pub fn validate_table(
    ctx: &MeldContext<'_>,
    submitted: &[Placement],
) -> Result<Accepted, RuleError> {
    let rules = ctx.rules;
    let (grid, seen) = check_shape(
        rules,
        submitted
            .iter()
            .map(|p| (rules.parse_tile(&p.tile), p.x, p.y)),
        |i| submitted.get(i).map(|p| p.tile.clone()).unwrap_or_default(),
    )?;
    validate_grid(ctx, &TableAnalysis::of(ctx.table), grid, &seen)
}

/// [`validate_table`] for a table of tiles rather than tile ids, checked against `old`,
/// the analysis of `ctx.table`: the same checks and the same answer as `validate_table`
/// gives the table written with tile ids.
pub fn validate_placed(
    ctx: &MeldContext<'_>,
    old: &TableAnalysis,
    submitted: &[Placed],
) -> Result<Accepted, RuleError> {
    let rules = ctx.rules;
    // A tile names one of the rules' tiles only when it has a face.
    let (grid, seen) = check_shape(
        rules,
        submitted
            .iter()
            .map(|p| (rules.face(p.tile).map(|_| p.tile), p.x, p.y)),
        |i| {
            submitted
                .get(i)
                .map(|p| rules.tile_id(p.tile))
                .unwrap_or_default()
        },
    )?;
    validate_grid(ctx, old, grid, &seen)
}

/// V1 shape: each of `tiles` (a tile, or `None` for an id that names none, and its cell)
/// is a number tile within the grid limit, laid once. `id(i)` writes the `i`-th tile's id
/// for a refusal, only when one is written. Returns the grid and the tiles it holds.
fn check_shape(
    rules: &Rules,
    tiles: impl ExactSizeIterator<Item = (Option<Tile>, i32, i32)>,
    id: impl Fn(usize) -> String,
) -> Result<(Vec<Placed>, Vec<bool>), RuleError> {
    let total = rules.total_tiles();
    let mut grid: Vec<Placed> = Vec::with_capacity(tiles.len().min(total));
    let mut seen = vec![false; total];
    for (i, (tile, x, y)) in tiles.enumerate() {
        let Some(tile) = tile else {
            return Err(refuse(
                codes::UNKNOWN_TILE,
                "V1 shape",
                format!(
                    "{:?} at ({x},{y}) is not a tile id (ids look like red-5-a)",
                    id(i)
                ),
            ));
        };
        let lim = rules.coordinate_limit;
        if x.unsigned_abs() > lim.unsigned_abs() || y.unsigned_abs() > lim.unsigned_abs() {
            return Err(refuse(
                codes::CELL_OUT_OF_RANGE,
                "V1 shape",
                format!("{} at ({x},{y}) is beyond the grid limit of +-{lim}", id(i)),
            ));
        }
        if !matches!(rules.face(tile), Some(Face::Number { .. })) {
            return Err(refuse(
                codes::ACTION_TILE_ON_TABLE,
                "V1 shape",
                format!(
                    "{} at ({x},{y}) is an action tile; only number tiles are laid",
                    id(i)
                ),
            ));
        }
        let Some(slot) = seen.get_mut(tile.0 as usize) else {
            return Err(refuse(
                codes::UNKNOWN_TILE,
                "V1 shape",
                format!("{:?} is not a tile", id(i)),
            ));
        };
        if *slot {
            return Err(refuse(
                codes::DUPLICATE_TILE,
                "V1 shape",
                format!("{} appears twice (again at ({x},{y}))", id(i)),
            ));
        }
        *slot = true;
        grid.push(Placed { tile, x, y });
    }
    Ok((grid, seen))
}

/// V2 to V5 of [`validate_table`], on a grid that passed V1 (`seen` marks its tile ids).
fn validate_grid(
    ctx: &MeldContext<'_>,
    old: &TableAnalysis,
    mut grid: Vec<Placed>,
    seen: &[bool],
) -> Result<Accepted, RuleError> {
    let rules = ctx.rules;
    let total = rules.total_tiles();
    // V2 conservation.
    let mut on_table = vec![false; total];
    let mut missing: Vec<(i32, i32)> = Vec::new();
    let mut missing_ids: Vec<String> = Vec::new();
    for p in ctx.table {
        if let Some(slot) = on_table.get_mut(p.tile.0 as usize) {
            *slot = true;
        }
        if !seen.get(p.tile.0 as usize).copied().unwrap_or(false) {
            missing.push((p.x, p.y));
            missing_ids.push(rules.tile_id(p.tile));
        }
    }
    if !missing.is_empty() {
        return Err(refuse(
            codes::TABLE_TILE_MISSING,
            "V2 conservation",
            format!(
                "every tile on the table must stay on it; missing {} (was at {})",
                missing_ids.join(", "),
                cells(&missing)
            ),
        ));
    }
    let mut in_rack = vec![false; total];
    for t in ctx.rack {
        if let Some(slot) = in_rack.get_mut(t.0 as usize) {
            *slot = true;
        }
    }
    let mut new_tiles = Vec::new();
    let mut is_new = vec![false; grid.len()];
    for (i, p) in grid.iter().enumerate() {
        let t = p.tile.0 as usize;
        if on_table.get(t).copied().unwrap_or(false) {
            continue;
        }
        if !in_rack.get(t).copied().unwrap_or(false) {
            return Err(refuse(
                codes::TILE_NOT_IN_RACK,
                "V2 conservation",
                format!(
                    "{} at ({},{}) is neither on the table nor in your rack",
                    rules.tile_id(p.tile),
                    p.x,
                    p.y
                ),
            ));
        }
        is_new[i] = true;
        new_tiles.push(p.tile);
    }
    if new_tiles.is_empty() {
        return Err(refuse(
            codes::NO_TILE_LAID,
            "V2 conservation",
            "a meld must lay at least one tile from your rack".into(),
        ));
    }
    new_tiles.sort_unstable();
    // V3 lines.
    let analysis = match analyse(&grid) {
        Ok(a) => a,
        Err((x, y)) => {
            return Err(refuse(
                codes::CELL_TAKEN_TWICE,
                "V1 shape",
                format!("two tiles share the cell ({x},{y})"),
            ));
        }
    };
    let mut covered = vec![false; grid.len()];
    for line in &analysis.lines {
        let at: Vec<(i32, i32)> = line.iter().map(|&i| (grid[i].x, grid[i].y)).collect();
        if line.len() == 2 {
            return Err(refuse(
                codes::LINE_OF_TWO,
                "V3 lines",
                format!(
                    "the line at {} has only 2 tiles; a line needs {} or more",
                    cells(&at),
                    rules.min_line
                ),
            ));
        }
        let faces: Vec<Face> = line
            .iter()
            .filter_map(|&i| rules.face(grid[i].tile))
            .collect();
        if let Err(why) = line_kind(rules, &faces) {
            let labels: Vec<String> = line.iter().map(|&i| rules.label(grid[i].tile)).collect();
            return Err(refuse(
                codes::INVALID_LINE,
                "V3 lines",
                format!(
                    "the line {} at {} is not legal: {why}",
                    labels.join(" "),
                    cells(&at)
                ),
            ));
        }
        for &i in line {
            covered[i] = true;
        }
    }
    // V4 cover.
    let alone: Vec<(i32, i32)> = (0..grid.len())
        .filter(|&i| !covered[i])
        .map(|i| (grid[i].x, grid[i].y))
        .collect();
    if !alone.is_empty() {
        return Err(refuse(
            codes::TILE_ALONE,
            "V4 cover",
            format!(
                "every tile must be in a line of {} or more; alone at {}",
                rules.min_line,
                cells(&alone)
            ),
        ));
    }
    // V5 groups.
    let groups_before = old.groups;
    let groups_after = analysis.groups;
    let max = rules.max_groups(ctx.players);
    let group_cells = || {
        let mut first: Vec<Option<(i32, i32)>> = vec![None; groups_after];
        let mut order: Vec<usize> = (0..grid.len()).collect();
        order.sort_unstable_by_key(|&i| (grid[i].y, grid[i].x));
        for i in order {
            if let Some(slot @ None) = first.get_mut(analysis.group_of[i]) {
                *slot = Some((grid[i].x, grid[i].y));
            }
        }
        let list: Vec<(i32, i32)> = first.into_iter().flatten().collect();
        format!("groups start at {}", cells(&list))
    };
    let mover_opened = ctx.opened.get(ctx.mover).copied().unwrap_or(false);
    let all_opened =
        ctx.opened.iter().take(ctx.players).all(|&o| o) && ctx.opened.len() >= ctx.players;
    let mut opens = false;
    if !mover_opened {
        // The opening group: only the mover's new tiles, at least min_line, one line.
        let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups_after];
        for (i, &g) in analysis.group_of.iter().enumerate() {
            if let Some(m) = members.get_mut(g) {
                m.push(i);
            }
        }
        let is_opening = |m: &Vec<usize>| {
            m.len() >= rules.min_line
                && m.iter().all(|&i| is_new[i])
                && (m.iter().all(|&i| grid[i].y == grid[m[0]].y)
                    || m.iter().all(|&i| grid[i].x == grid[m[0]].x))
        };
        if !members.iter().any(is_opening) {
            return Err(refuse(
                codes::MUST_OPEN_OWN_GROUP,
                "V5 opening",
                format!(
                    "you have not opened yet: the meld must start a group of your own of at least {} of your tiles forming one sequence or run, touching no table tile",
                    rules.min_line
                ),
            ));
        }
        // Version 2: only the opening group itself may be new, even when a
        // merge keeps the count down. Version 1 compares the counts only.
        let too_many = if ctx.rules_version >= 2 {
            new_group_count(old, &grid, &analysis) > 1
        } else {
            groups_after > groups_before + 1
        };
        if too_many {
            return Err(refuse(
                codes::TOO_MANY_NEW_GROUPS,
                "V5 opening",
                format!(
                    "an opening meld may start only the opening group, and a merge frees no slot before everyone has opened: {groups_before} groups before, {groups_after} after ({})",
                    group_cells()
                ),
            ));
        }
        opens = true;
    } else if !all_opened
        && if ctx.rules_version >= 2 {
            // Seed: nobody lays a further group until everyone has opened. A merge in the
            // same move does not free a slot for one; version 1 lets it.
            new_group_count(old, &grid, &analysis) > 0
        } else {
            groups_after > groups_before
        }
    {
        return Err(refuse(
            codes::NOT_ALL_OPENED,
            "V5 groups",
            format!(
                "no further group may start until every player has opened, even when a merge keeps the count: {groups_before} groups before, {groups_after} after ({})",
                group_cells()
            ),
        ));
    }
    if groups_after > max {
        return Err(refuse(
            codes::TOO_MANY_GROUPS,
            "V5 groups",
            format!(
                "at most {max} groups with {} players, not {groups_after} ({})",
                ctx.players,
                group_cells()
            ),
        ));
    }
    grid.sort_unstable();
    Ok(Accepted {
        table: grid,
        new_tiles,
        groups_before,
        groups_after,
        opens,
    })
}

/// Everything a benchmark needs to validate a large table repeatedly.
#[derive(Clone, Debug)]
pub struct BenchFixture {
    pub rules: Rules,
    pub players: usize,
    pub table: Vec<Placed>,
    pub rack: Vec<Tile>,
    pub opened: Vec<bool>,
    pub submitted: Vec<Placement>,
}

impl BenchFixture {
    pub fn context(&self) -> MeldContext<'_> {
        MeldContext {
            rules: &self.rules,
            players: self.players,
            table: &self.table,
            rack: &self.rack,
            opened: &self.opened,
            mover: 0,
            rules_version: super::state::RULES_VERSION,
        }
    }
}

/// A 4-player table of 104 tiles in 4 groups and a valid meld that moves every one of them
/// and lays one more. For a criterion bench or a timing loop:
/// `validate_table(&f.context(), &f.submitted)`.
///
/// Block c (one per colour, rows 15c..15c+12): the copy-a run 1..=14 on row 15c at
/// x = 0..=13, and a descending copy-b run 12..=1 hanging from the a-run's 13 down column
/// 12, so column 12 reads 13-a, 12-b, ..., 1-b. The meld shifts every tile one column right
/// and lays the last colour's 14-b above its column, making a 14..1 run.
pub fn bench_fixture_large_table() -> Result<BenchFixture, String> {
    let rules = super::data::load()?;
    let tile = |colour: &str, value: u8, copy: char| {
        rules
            .parse_tile(&format!("{colour}-{value}-{copy}"))
            .ok_or_else(|| format!("fixture tile {colour}-{value}-{copy}"))
    };
    let mut table = Vec::new();
    for (c, colour) in rules.colours.iter().enumerate() {
        let y0 = (c as i32) * 15;
        for v in 1..=rules.max_value {
            table.push(Placed {
                tile: tile(colour, v, 'a')?,
                x: i32::from(v) - 1,
                y: y0,
            });
        }
        for v in 1..=12u8 {
            table.push(Placed {
                tile: tile(colour, v, 'b')?,
                x: 12,
                y: y0 + 13 - i32::from(v),
            });
        }
    }
    table.sort_unstable();
    let players = 4;
    let opened = vec![true; players];
    let last = rules.colours.last().cloned().unwrap_or_default();
    let rack = vec![tile(&last, 14, 'b')?, tile(&last, 13, 'b')?];
    let mut submitted: Vec<Placement> = table
        .iter()
        .map(|p| Placement {
            tile: rules.tile_id(p.tile),
            x: p.x + 1,
            y: p.y,
        })
        .collect();
    let y_last = (rules.colours.len() as i32 - 1) * 15;
    submitted.push(Placement {
        tile: rules.tile_id(rack[0]),
        x: 13,
        y: y_last - 1,
    });
    Ok(BenchFixture {
        rules,
        players,
        table,
        rack,
        opened,
        submitted,
    })
}
