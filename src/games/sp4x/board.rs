//! Board queries: movement, road and base options, presence and the scoring formulas.

use super::data::{Data, FactionMode};
use super::state::{Resource, State, edge};
use turnpost_engine::Seat;
use turnpost_engine::hex::Hex;

pub fn is_barrier(d: &Data, st: &State, h: Hex) -> bool {
    st.tile(h).is_some_and(|t| d.tile(t.kind).barrier)
}

/// Tiles reachable from `from` along own roads (including `from`), in discovery order.
pub fn road_reach(st: &State, s: Seat, from: Hex) -> Vec<Hex> {
    let mut seen = vec![from];
    let mut queue = vec![from];
    while let Some(h) = queue.pop() {
        for r in st.roads.iter().filter(|r| r.owner == s) {
            let other = if r.a == h {
                r.b
            } else if r.b == h {
                r.a
            } else {
                continue;
            };
            if !seen.contains(&other) {
                seen.push(other);
                queue.push(other);
            }
        }
    }
    seen
}

/// Destinations of a `move` (HR-6): own-road travel plus at most one non-road step, which
/// may not enter a barrier tile (5.1). Sorted, without `from`.
pub fn move_dests(d: &Data, st: &State, s: Seat, from: Hex) -> Vec<Hex> {
    let mut seen: Vec<(Hex, bool)> = vec![(from, false)];
    let mut queue = vec![(from, false)];
    while let Some((h, stepped)) = queue.pop() {
        for n in h.neighbors() {
            if st.tile(n).is_none() {
                continue;
            }
            let next = if st.has_road(s, h, n) {
                (n, stepped)
            } else if !stepped && !is_barrier(d, st, n) {
                (n, true)
            } else {
                continue;
            };
            if !seen.contains(&next) {
                seen.push(next);
                queue.push(next);
            }
        }
    }
    let mut out: Vec<Hex> = seen
        .into_iter()
        .map(|(h, _)| h)
        .filter(|&h| h != from)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Explore options of a man at `from`: (via, at) with `via` road-reachable and `at` empty.
pub fn explore_options(st: &State, s: Seat, from: Hex) -> Vec<(Hex, Hex)> {
    if st.tile_stack.is_empty() {
        return Vec::new(); // HR-23
    }
    let mut reach = road_reach(st, s, from);
    reach.sort_unstable();
    let mut out = Vec::new();
    for via in reach {
        for n in via.neighbors() {
            if st.tile(n).is_none() {
                out.push((via, n));
            }
        }
    }
    out
}

pub fn men_pool(d: &Data, st: &State, s: Seat) -> u32 {
    u32::from(d.men).saturating_sub(st.men_on_board(s))
}

pub fn bases_pool(d: &Data, st: &State, s: Seat) -> u32 {
    u32::from(d.bases).saturating_sub(st.bases_on_board(s))
}

pub fn roads_pool(d: &Data, st: &State, s: Seat) -> u32 {
    u32::from(d.roads).saturating_sub(st.roads_on_board(s))
}

/// Edges where `s` may build a road: touching a tile with an own man, both ends placed,
/// no own road there yet (HR-8, HR-9).
pub fn road_options(d: &Data, st: &State, s: Seat) -> Vec<(Hex, Hex)> {
    if roads_pool(d, st, s) == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for t in st
        .tiles
        .iter()
        .filter(|t| t.men.get(s).copied().unwrap_or(0) > 0)
    {
        for n in t.hex.neighbors() {
            if st.tile(n).is_some() && !st.has_road(s, t.hex, n) {
                out.push(edge(t.hex, n));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Tiles where `s` may place a base: own man, no own base yet, the tile's plastic cost payable.
pub fn base_options(d: &Data, st: &State, s: Seat) -> Vec<Hex> {
    if bases_pool(d, st, s) == 0 {
        return Vec::new();
    }
    let plastic = st.players.get(s).map_or(0, |p| p.res[0]);
    st.tiles
        .iter()
        .filter(|t| {
            t.men.get(s).copied().unwrap_or(0) > 0
                && !t.bases.get(s).copied().unwrap_or(false)
                && plastic >= d.tile(t.kind).base_plastic
        })
        .map(|t| t.hex)
        .collect()
}

pub fn base_tiles(st: &State, s: Seat) -> Vec<Hex> {
    st.tiles
        .iter()
        .filter(|t| t.bases.get(s).copied().unwrap_or(false))
        .map(|t| t.hex)
        .collect()
}

/// Tiles where `s` has a man or a base ("your tiles" for exploit).
pub fn held_tiles(st: &State, s: Seat) -> Vec<Hex> {
    st.tiles
        .iter()
        .filter(|t| {
            t.men.get(s).copied().unwrap_or(0) > 0 || t.bases.get(s).copied().unwrap_or(false)
        })
        .map(|t| t.hex)
        .collect()
}

/// Number of tiles with any piece of `s` (War scoring, tie-break).
pub fn presence_tiles(st: &State, s: Seat) -> i64 {
    st.tiles.iter().filter(|t| st.present(t.hex, s)).count() as i64
}

/// Bonus points (5.9) on the board as it stands.
pub fn bonus(d: &Data, st: &State, s: Seat) -> i64 {
    let mut b = 0;
    for t in &st.tiles {
        let td = d.tile(t.kind);
        if t.men.get(s).copied().unwrap_or(0) > 0 {
            b += td.bonus_man;
        }
        if t.bases.get(s).copied().unwrap_or(false) {
            b += td.bonus_base;
        }
    }
    b
}

/// HR-10: n(n+1)/2 for the largest set of own bases joined by own roads.
pub fn network_score(st: &State, s: Seat) -> i64 {
    let bases = base_tiles(st, s);
    let mut best = 0i64;
    let mut done: Vec<Hex> = Vec::new();
    for &b in &bases {
        if done.contains(&b) {
            continue;
        }
        let reach = road_reach(st, s, b);
        let n = bases.iter().filter(|x| reach.contains(x)).count() as i64;
        done.extend(reach);
        best = best.max(n);
    }
    best * (best + 1) / 2
}

/// Tiles where `s` has a man or base together with a man or base of another colour.
pub fn shared_tiles(st: &State, s: Seat) -> i64 {
    let held = |t: &super::state::Tile, x: Seat| {
        t.men.get(x).copied().unwrap_or(0) > 0 || t.bases.get(x).copied().unwrap_or(false)
    };
    st.tiles
        .iter()
        .filter(|t| held(t, s) && (0..st.seats).any(|o| o != s && held(t, o)))
        .count() as i64
}

/// 6.1: faction value per track position; sum, or sum × non-empty tracks.
pub fn age_end_value(values: &[i64], mode: FactionMode, res: [u8; 3]) -> i64 {
    let sum: i64 = res
        .iter()
        .map(|&r| values.get(usize::from(r)).copied().unwrap_or(0))
        .sum();
    match mode {
        FactionMode::Sum => sum,
        FactionMode::Multiply => sum * res.iter().filter(|&&r| r > 0).count() as i64,
    }
}

/// Adds up to `n` of `r` to `s`'s track, capped; returns what was actually gained.
pub fn gain(d: &Data, st: &mut State, s: Seat, r: Resource, n: u32) -> u8 {
    let Some(p) = st.players.get_mut(s) else {
        return 0;
    };
    let cur = p.res[r.idx()];
    let room = u32::from(d.track_max.saturating_sub(cur));
    let g = room.min(n) as u8;
    p.res[r.idx()] = cur + g;
    g
}

/// War/steal targets: (tile, victim) where `s` has a man and the victim qualifies.
pub fn attack_options(st: &State, s: Seat) -> Vec<(Hex, Seat)> {
    let mut out = Vec::new();
    for t in st
        .tiles
        .iter()
        .filter(|t| t.men.get(s).copied().unwrap_or(0) > 0)
    {
        for v in (0..st.seats).filter(|&v| v != s) {
            if st.present(t.hex, v) {
                out.push((t.hex, v));
            }
        }
    }
    out
}

pub fn rob_options(st: &State, s: Seat) -> Vec<(Hex, Seat)> {
    let mut out = Vec::new();
    for t in st
        .tiles
        .iter()
        .filter(|t| t.men.get(s).copied().unwrap_or(0) > 0)
    {
        for v in (0..st.seats).filter(|&v| v != s) {
            let held =
                t.men.get(v).copied().unwrap_or(0) > 0 || t.bases.get(v).copied().unwrap_or(false);
            let rich = st
                .players
                .get(v)
                .is_some_and(|p| p.res.iter().any(|&r| r > 0));
            if held && rich {
                out.push((t.hex, v));
            }
        }
    }
    out
}
