//! Piece movement: walking, blocking, landing, home entry, swaps, and the enumeration of
//! every legal play of a card (including every distinct split of a seven).

use std::collections::HashSet;

use super::actions::{Action, Part, Spot};
use super::data::{COLOURS, Data};
use super::rules::Rules;
use super::state::{Loc, Piece};
use super::view::cap;
use turnpost_engine::RuleError;
use turnpost_engine::cards::Card;

pub type Pieces = Vec<Vec<Piece>>;

/// Why a move is impossible, formatted only when a person will read it (move generation
/// tries and drops many impossible moves).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Why {
    pub code: &'static str,
    text: &'static str,
    n: u16,
}

impl From<Why> for RuleError {
    fn from(w: Why) -> RuleError {
        RuleError::new(w.code, w.text.replacen("{}", &w.n.to_string(), 1))
    }
}

fn refuse(code: &'static str, text: &'static str, n: u16) -> Why {
    Why { code, text, n }
}

pub fn spot_loc(s: Spot) -> Loc {
    match s {
        Spot::Track(f) => Loc::Track(f),
        Spot::Home(h) => Loc::Home(h),
    }
}

pub fn loc_text(l: Loc) -> String {
    match l {
        Loc::Circle => "the start circle".into(),
        Loc::Track(f) => f.to_string(),
        Loc::Home(h) => format!("H{h}"),
    }
}

/// The colour and number of pieces on track field `f` (a field holds one colour at most:
/// a piece landing on another colour knocks one of them out).
pub fn occupant(pieces: &Pieces, f: u8) -> Option<(usize, usize)> {
    let mut found: Option<(usize, usize)> = None;
    for (c, ps) in pieces.iter().enumerate() {
        let n = ps.iter().filter(|p| p.loc == Loc::Track(f)).count();
        if n > 0 {
            found = Some((c, n));
        }
    }
    found
}

/// A field holding a piece of another colour on that colour's own start field cannot be
/// passed or landed on by colour `c`, forwards or backwards (seed; HR-7).
pub fn blocked_for(d: &Data, pieces: &Pieces, c: usize, f: u8) -> bool {
    (0..COLOURS).any(|e| {
        e != c
            && d.start_field(e) == f
            && pieces
                .get(e)
                .is_some_and(|ps| ps.iter().any(|p| p.loc == Loc::Track(f)))
    })
}

fn home_taken(pieces: &Pieces, c: usize, h: u8) -> bool {
    pieces
        .get(c)
        .is_some_and(|ps| ps.iter().any(|p| p.loc == Loc::Home(h)))
}

fn piece_index(pieces: &Pieces, c: usize, loc: Loc) -> Option<usize> {
    pieces.get(c)?.iter().position(|p| p.loc == loc)
}

pub fn colour_home(pieces: &Pieces, c: usize) -> bool {
    pieces
        .get(c)
        .is_some_and(|ps| ps.iter().all(|p| matches!(p.loc, Loc::Home(_))))
}

pub fn team_home(pieces: &Pieces, team: usize) -> bool {
    [team, team + 2].iter().all(|&c| colour_home(pieces, c))
}

/// The colour the hand of colour `p` moves: its own, or its partner's once its own pieces
/// are all home (seed; digest 5.4).
pub fn mover(pieces: &Pieces, p: usize) -> usize {
    if colour_home(pieces, p) {
        (p + 2) % COLOURS
    } else {
        p
    }
}

/// The landing field must not be blocked; under rules version 1 it also must not hold a
/// pair of the mover's own colour (version 2 has no such limit: the seed sets none).
fn check_landing(d: &Data, r: Rules, pieces: &Pieces, c: usize, f: u8) -> Result<(), Why> {
    if blocked_for(d, pieces, c, f) {
        return Err(refuse(
            "blocked",
            "field {} is blocked by a piece on its own start field",
            u16::from(f),
        ));
    }
    if r.two_per_field() && occupant(pieces, f) == Some((c, 2)) {
        return Err(refuse(
            "own_pair_full",
            "field {} already holds a pair of your pieces",
            u16::from(f),
        ));
    }
    Ok(())
}

/// Where a forward move of `steps` from `from` ends for colour `c`, or why it cannot.
/// `into_home` takes the branch into the home at the own start field (HR-3).
pub fn walk_forward(
    d: &Data,
    r: Rules,
    pieces: &Pieces,
    c: usize,
    from: Loc,
    steps: u8,
    into_home: bool,
) -> Result<Loc, Why> {
    let track = d.board.track_fields;
    let homes = d.board.home_fields;
    let Some(i) = piece_index(pieces, c, from) else {
        return Err(refuse(
            "no_piece_there",
            "no piece of yours stands on the field you named",
            0,
        ));
    };
    let left = pieces
        .get(c)
        .and_then(|ps| ps.get(i))
        .is_some_and(|p| p.left_start);
    if steps == 0 {
        return Err(refuse("bad_steps", "a move needs at least one step", 0));
    }
    match from {
        Loc::Circle => Err(refuse(
            "no_piece_there",
            "pieces in the start circle need a start card",
            0,
        )),
        Loc::Home(h) => {
            if into_home {
                return Err(refuse(
                    "already_home",
                    "the piece is already in its home",
                    0,
                ));
            }
            let target = u16::from(h) + u16::from(steps);
            if target > u16::from(homes) {
                return Err(refuse(
                    "home_overshoot",
                    "that would go past the last home field H{}",
                    u16::from(homes),
                ));
            }
            for k in h + 1..=target as u8 {
                if home_taken(pieces, c, k) {
                    return Err(refuse(
                        "home_blocked",
                        "H{} is taken: pieces cannot jump in the home",
                        u16::from(k),
                    ));
                }
            }
            Ok(Loc::Home(target as u8))
        }
        Loc::Track(pos) => {
            if pos >= track {
                return Err(refuse(
                    "no_piece_there",
                    "there is no field {}",
                    u16::from(pos),
                ));
            }
            let start = d.start_field(c);
            if !into_home {
                for k in 1..=steps {
                    let f = ((u16::from(pos) + u16::from(k)) % u16::from(track)) as u8;
                    if blocked_for(d, pieces, c, f) {
                        return Err(refuse(
                            "blocked",
                            "field {} is blocked by a piece on its own start field",
                            u16::from(f),
                        ));
                    }
                }
                let f = ((u16::from(pos) + u16::from(steps)) % u16::from(track)) as u8;
                check_landing(d, r, pieces, c, f)?;
                return Ok(Loc::Track(f));
            }
            // Track steps to reach the own start field; a piece that has not yet left it
            // would need a whole lap.
            let mut to_start =
                (u16::from(start) + u16::from(track) - u16::from(pos)) % u16::from(track);
            if to_start == 0 && !left {
                to_start = u16::from(track);
            }
            if u16::from(steps) <= to_start {
                return Err(refuse(
                    "no_home_entry",
                    "the piece does not pass its start field {} with this card",
                    u16::from(start),
                ));
            }
            let in_home = u16::from(steps) - to_start;
            if in_home > u16::from(homes) {
                return Err(refuse(
                    "home_overshoot",
                    "that would go past H{}: home entry must be exact",
                    u16::from(homes),
                ));
            }
            for k in 1..=to_start {
                let f = ((u16::from(pos) + k) % u16::from(track)) as u8;
                if blocked_for(d, pieces, c, f) {
                    return Err(refuse(
                        "blocked",
                        "field {} is blocked by a piece on its own start field",
                        u16::from(f),
                    ));
                }
            }
            for k in 1..=in_home as u8 {
                if home_taken(pieces, c, k) {
                    return Err(refuse(
                        "home_blocked",
                        "H{} is taken: pieces cannot jump in the home",
                        u16::from(k),
                    ));
                }
            }
            Ok(Loc::Home(in_home as u8))
        }
    }
}

/// Where a backward move ends (never into home; home pieces are protected).
pub fn walk_back(
    d: &Data,
    r: Rules,
    pieces: &Pieces,
    c: usize,
    from: u8,
    steps: u8,
) -> Result<u8, Why> {
    let track = u16::from(d.board.track_fields);
    if piece_index(pieces, c, Loc::Track(from)).is_none() {
        return Err(refuse(
            "no_piece_there",
            "no piece of yours stands on track field {} (home and circle pieces cannot move back)",
            u16::from(from),
        ));
    }
    for k in 1..=u16::from(steps) {
        let f = ((u16::from(from) + track * 2 - k % track) % track) as u8;
        if blocked_for(d, pieces, c, f) {
            return Err(refuse(
                "blocked",
                "field {} is blocked by a piece on its own start field",
                u16::from(f),
            ));
        }
    }
    let f = ((u16::from(from) + track * 2 - u16::from(steps) % track) % track) as u8;
    check_landing(d, r, pieces, c, f)?;
    Ok(f)
}

pub fn check_start(d: &Data, r: Rules, pieces: &Pieces, c: usize) -> Result<(), Why> {
    if piece_index(pieces, c, Loc::Circle).is_none() {
        return Err(refuse(
            "no_piece_in_circle",
            "no piece waits in the start circle",
            0,
        ));
    }
    let f = d.start_field(c);
    if r.two_per_field() && occupant(pieces, f) == Some((c, 2)) {
        return Err(refuse(
            "own_pair_full",
            "your start field {} already holds a pair",
            u16::from(f),
        ));
    }
    Ok(())
}

/// The colours of two swappable pieces on fields `a` and `b`.
pub fn check_swap(pieces: &Pieces, a: u8, b: u8) -> Result<(usize, usize), Why> {
    let (Some((ca, na)), Some((cb, nb))) = (occupant(pieces, a), occupant(pieces, b)) else {
        return Err(refuse(
            "no_piece_there",
            "a swap needs a piece on both track fields (home and circle pieces cannot be swapped)",
            0,
        ));
    };
    if na > 1 || nb > 1 {
        return Err(refuse(
            "pair_protected",
            "a doubled pair cannot be swapped",
            0,
        ));
    }
    if ca == cb {
        return Err(refuse(
            "same_colour",
            "a swap needs two pieces of different colours (HR-10)",
            0,
        ));
    }
    Ok((ca, cb))
}

/// Moves the piece of colour `c` at `from` to `dest` and resolves the landing (5.2).
pub fn move_piece(
    d: &Data,
    pieces: &mut Pieces,
    c: usize,
    from: Loc,
    dest: Loc,
    events: &mut Vec<String>,
) {
    let Some(i) = piece_index(pieces, c, from) else {
        return;
    };
    if let Loc::Track(f) = dest {
        land(d, pieces, c, i, f, events);
    } else if let Some(p) = pieces.get_mut(c).and_then(|ps| ps.get_mut(i)) {
        p.loc = dest;
        p.left_start = true;
    }
}

/// Puts piece `i` of colour `c` on field `f`: a single piece of another colour there goes
/// back to its circle; two or more of another colour send the mover back instead.
fn land(d: &Data, pieces: &mut Pieces, c: usize, i: usize, f: u8, events: &mut Vec<String>) {
    let before = occupant(pieces, f);
    let Some(p) = pieces.get_mut(c).and_then(|ps| ps.get_mut(i)) else {
        return;
    };
    let was = p.loc;
    p.loc = Loc::Track(f);
    // A piece entering from the circle sits on its start field and has not left it yet;
    // any other move means it has left (HR-3).
    p.left_start = was != Loc::Circle;
    match before {
        Some((e, n)) if e != c && n >= 2 => {
            p.loc = Loc::Circle;
            p.left_start = false;
            events.push(format!(
                "{}'s piece is knocked out by {}'s pair on {f}",
                cap(d.colour(c)),
                cap(d.colour(e))
            ));
        }
        Some((e, _)) if e != c => {
            if let Some(q) = pieces
                .get_mut(e)
                .and_then(|ps| ps.iter_mut().find(|q| q.loc == Loc::Track(f)))
            {
                q.loc = Loc::Circle;
                q.left_start = false;
            }
            events.push(format!("knocks out {} on {f}", cap(d.colour(e))));
        }
        _ => {}
    }
}

pub fn start_piece(d: &Data, pieces: &mut Pieces, c: usize, events: &mut Vec<String>) {
    if let Some(i) = piece_index(pieces, c, Loc::Circle) {
        land(d, pieces, c, i, d.start_field(c), events);
    }
}

pub fn swap_pieces(pieces: &mut Pieces, a: u8, b: u8) {
    for ps in pieces.iter_mut() {
        for p in ps.iter_mut() {
            if p.loc == Loc::Track(a) {
                p.loc = Loc::Track(b);
                p.left_start = true;
            } else if p.loc == Loc::Track(b) {
                p.loc = Loc::Track(a);
                p.left_start = true;
            }
        }
    }
}

/// Distinct fields holding pieces of colour `c` that can move forward, in a stable order.
fn movable_spots(pieces: &Pieces, c: usize) -> Vec<Spot> {
    let mut spots: Vec<Spot> = pieces
        .get(c)
        .map(|ps| {
            ps.iter()
                .filter_map(|p| match p.loc {
                    Loc::Track(f) => Some(Spot::Track(f)),
                    Loc::Home(h) => Some(Spot::Home(h)),
                    Loc::Circle => None,
                })
                .collect()
        })
        .unwrap_or_default();
    spots.sort();
    spots.dedup();
    spots
}

/// Every legal play of `card` from the hand of colour `p` (which moves its own colour, or
/// its partner's once its own are home).
pub fn card_actions(d: &Data, r: Rules, pieces: &Pieces, p: usize, card: Card) -> Vec<Action> {
    let mut out = Vec::new();
    let Some(info) = d.card(card.rank) else {
        return out;
    };
    let c = mover(pieces, p);
    if info.start && check_start(d, r, pieces, c).is_ok() {
        out.push(Action::Start { card });
    }
    for &steps in &info.forward {
        for from in movable_spots(pieces, c) {
            for into_home in [false, true] {
                if walk_forward(d, r, pieces, c, spot_loc(from), steps, into_home).is_ok() {
                    out.push(Action::Forward {
                        card,
                        from,
                        steps,
                        into_home,
                    });
                }
            }
        }
    }
    if info.back > 0 {
        for from in movable_spots(pieces, c) {
            if let Spot::Track(f) = from
                && walk_back(d, r, pieces, c, f, info.back).is_ok()
            {
                out.push(Action::Back { card, from: f });
            }
        }
    }
    if info.split > 0 {
        out.extend(seven_actions(d, r, pieces, p, card, info.split));
    }
    if info.swap {
        // One pass over the pieces: the single track pieces and their colours.
        let mut cells: Vec<(usize, usize)> = vec![(0, 0); usize::from(d.board.track_fields)];
        for (e, ps) in pieces.iter().enumerate() {
            for p in ps {
                if let Loc::Track(f) = p.loc
                    && let Some(cell) = cells.get_mut(usize::from(f))
                {
                    *cell = (e, cell.1 + 1);
                }
            }
        }
        let singles: Vec<(u8, usize)> = cells
            .iter()
            .enumerate()
            .filter(|(_, cell)| cell.1 == 1)
            .map(|(f, cell)| (f as u8, cell.0))
            .collect();
        for (i, &(a, ca)) in singles.iter().enumerate() {
            for &(b, cb) in singles.iter().skip(i + 1) {
                if ca != cb {
                    out.push(Action::Swap { card, a, b });
                }
            }
        }
    }
    out
}

/// A compact key of a position reached inside a split: the pieces of the hand's team (both
/// colours, since the rest of a seven may move the partner's) as sorted (location, flag)
/// codes of 9 bits, and which opponent pieces have been knocked out (opponents only ever
/// change that way during a split). Needs at most 4 pieces per colour and a track of at
/// most 200 fields (checked in `data.rs`).
pub fn key(pieces: &Pieces, p: usize) -> u128 {
    let mut k = 0u128;
    for c in [p % COLOURS, (p + 2) % COLOURS] {
        let mut codes: Vec<u128> = pieces
            .get(c)
            .map(|ps| {
                ps.iter()
                    .map(|pc| {
                        let l = match pc.loc {
                            Loc::Circle => 0,
                            Loc::Track(f) => 1 + u128::from(f),
                            Loc::Home(h) => 202 + u128::from(h),
                        };
                        l * 2 + u128::from(pc.left_start)
                    })
                    .collect()
            })
            .unwrap_or_default();
        codes.sort_unstable();
        // Pad to four codes so the two colours never run into each other.
        for i in 0..4 {
            k = (k << 9) | (codes.get(i).copied().unwrap_or(0x1ff) & 0x1ff);
        }
    }
    let mut bit = 72;
    for (e, ps) in pieces.iter().enumerate() {
        if e % 2 == p % 2 {
            continue;
        }
        for pc in ps {
            if pc.loc == Loc::Circle && bit < 128 {
                k |= 1 << bit;
            }
            bit += 1;
        }
    }
    k
}

struct SevenSearch<'a> {
    d: &'a Data,
    r: Rules,
    /// The colour of the hand playing the seven.
    p: usize,
    /// Under rules version 1 the colour moved is fixed when the seven is played.
    fixed: Option<usize>,
    card: Card,
    nodes: HashSet<(u128, u8)>,
    finals: HashSet<u128>,
    path: Vec<Part>,
    out: Vec<Action>,
}

impl SevenSearch<'_> {
    fn dfs(&mut self, pieces: &Pieces, rem: u8) {
        // The game ends the moment a team is home, even inside a split (6).
        if rem == 0 || (!self.path.is_empty() && team_home(pieces, self.p % 2)) {
            if self.finals.insert(key(pieces, self.p)) {
                self.out.push(Action::Seven {
                    card: self.card,
                    parts: self.path.clone(),
                });
            }
            return;
        }
        if !self.nodes.insert((key(pieces, self.p), rem)) {
            return;
        }
        let c = self.fixed.unwrap_or_else(|| mover(pieces, self.p));
        for from in movable_spots(pieces, c) {
            for steps in (1..=rem).rev() {
                for into_home in [false, true] {
                    let Ok(dest) =
                        walk_forward(self.d, self.r, pieces, c, spot_loc(from), steps, into_home)
                    else {
                        continue;
                    };
                    let mut next = pieces.clone();
                    move_piece(self.d, &mut next, c, spot_loc(from), dest, &mut Vec::new());
                    self.path.push(Part {
                        from,
                        steps,
                        into_home,
                    });
                    self.dfs(&next, rem - steps);
                    self.path.pop();
                }
            }
        }
    }
}

/// Every distinct outcome of splitting the card's steps among the pieces the hand of
/// colour `p` moves (HR-1, HR-9; from rules version 2 the partner's once the own are all
/// home, even within the split). Splits that end in the same position are one play; the one
/// listed is the first in search order (pieces by field, larger parts first), so "one
/// piece moves 7" is preferred over seven parts of 1. `apply` accepts any other order of an
/// equivalent split and carries out the listed one.
pub fn seven_actions(
    d: &Data,
    r: Rules,
    pieces: &Pieces,
    p: usize,
    card: Card,
    total: u8,
) -> Vec<Action> {
    let mut s = SevenSearch {
        d,
        r,
        p,
        fixed: (!r.seven_carries_over()).then(|| mover(pieces, p)),
        card,
        nodes: HashSet::new(),
        finals: HashSet::new(),
        path: Vec::new(),
        out: Vec::new(),
    };
    s.dfs(pieces, total);
    s.out
}

/// Carries out a play action from the hand of colour `p` (validating each step); events
/// describe what happened. Exchange and discard are handled by the caller.
pub fn perform(
    d: &Data,
    r: Rules,
    pieces: &mut Pieces,
    p: usize,
    action: &Action,
    events: &mut Vec<String>,
) -> Result<(), RuleError> {
    let c = mover(pieces, p);
    let info = action.card().and_then(|card| d.card(card.rank));
    let back = info.map_or(0, |i| i.back);
    let split = info.map_or(0, |i| i.split);
    match action {
        Action::Start { .. } => {
            check_start(d, r, pieces, c)?;
            events.push(format!(
                "{} enters on {}",
                cap(d.colour(c)),
                d.start_field(c)
            ));
            start_piece(d, pieces, c, events);
        }
        Action::Forward {
            from,
            steps,
            into_home,
            ..
        } => {
            let from = spot_loc(*from);
            let dest = walk_forward(d, r, pieces, c, from, *steps, *into_home)?;
            events.push(format!(
                "{} {} → {}",
                cap(d.colour(c)),
                loc_text(from),
                loc_text(dest)
            ));
            move_piece(d, pieces, c, from, dest, events);
        }
        Action::Back { from, .. } => {
            if back == 0 {
                return Err(RuleError::new("wrong_card", "only a four moves backwards"));
            }
            let dest = walk_back(d, r, pieces, c, *from, back)?;
            events.push(format!("{} {from} → {dest} (backwards)", cap(d.colour(c))));
            move_piece(d, pieces, c, Loc::Track(*from), Loc::Track(dest), events);
        }
        Action::Seven { parts, .. } => {
            if split == 0 {
                return Err(RuleError::new("wrong_card", "only a seven can be split"));
            }
            let total: u32 = parts.iter().map(|p| u32::from(p.steps)).sum();
            if total > u32::from(split) || parts.is_empty() || parts.iter().any(|q| q.steps == 0) {
                return Err(RuleError::new(
                    "split_must_total_7",
                    format!("the parts of a seven must each be at least 1 and add up to {split}"),
                ));
            }
            for (i, part) in parts.iter().enumerate() {
                // From version 2 the colour moved is decided part by part.
                let c = if r.seven_carries_over() {
                    mover(pieces, p)
                } else {
                    c
                };
                let from = spot_loc(part.from);
                let dest = walk_forward(d, r, pieces, c, from, part.steps, part.into_home)?;
                events.push(format!(
                    "{} {} → {}",
                    cap(d.colour(c)),
                    loc_text(from),
                    loc_text(dest)
                ));
                move_piece(d, pieces, c, from, dest, events);
                // The game ends the moment a team is home, even inside a split (6).
                if team_home(pieces, p % 2) && i + 1 < parts.len() {
                    return Err(RuleError::new(
                        "game_already_won",
                        "the team is home before the last part",
                    ));
                }
            }
            if total != u32::from(split) && !team_home(pieces, p % 2) {
                return Err(RuleError::new(
                    "split_must_total_7",
                    format!("the parts of a seven must add up to {split}: all steps must be used"),
                ));
            }
        }
        Action::Swap { a, b, .. } => {
            let (ca, cb) = check_swap(pieces, *a, *b)?;
            events.push(format!(
                "swaps {} on {a} with {} on {b}",
                cap(d.colour(ca)),
                cap(d.colour(cb))
            ));
            swap_pieces(pieces, *a, *b);
        }
        Action::Exchange { .. } | Action::Discard => {
            return Err(RuleError::new("not_a_move", "this action moves no piece"));
        }
    }
    Ok(())
}
