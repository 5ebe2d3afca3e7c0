//! The turn actions and the passing step: applying them, listing them, describing melds.

use super::data::{Face, Tile};
use super::state::{Action, Phase, Placement, State};
use super::validate::{MeldContext, validate_table};
use super::{CrosswordRummy, generate};
use turnpost_engine::{RuleError, Seat};

/// Stable refusal codes of the non-meld actions (meld codes: [`validate::codes`]).
pub mod codes {
    pub const UNKNOWN_TILE: &str = "unknown_tile";
    pub const NOT_IN_DISPLAY: &str = "tile_not_in_display";
    pub const BAG_EMPTY: &str = "bag_empty";
    pub const NOT_IN_RACK: &str = "tile_not_in_rack";
    pub const NOT_AN_ACTION_TILE: &str = "not_an_action_tile";
    pub const LAST_TILE: &str = "action_tile_is_last_tile";
    pub const BAD_TARGET: &str = "invalid_target";
    pub const PASS_NOT_ALLOWED: &str = "pass_not_allowed";
    pub const PASSING_IN_PROGRESS: &str = "passing_in_progress";
    pub const NOT_PASSING: &str = "no_passing_now";
    pub const WRONG_PASS_COUNT: &str = "wrong_pass_count";
}

pub(super) fn err(code: &'static str, message: impl Into<String>) -> RuleError {
    RuleError::new(code, message)
}

impl CrosswordRummy {
    pub(super) fn parse(&self, state: &State, id: &str) -> Result<Tile, RuleError> {
        state.rules.parse_tile(id).ok_or_else(|| {
            err(
                codes::UNKNOWN_TILE,
                format!("{id:?} is not a tile id (ids look like red-5-a)"),
            )
        })
    }

    pub(super) fn apply_passing(
        &self,
        state: &State,
        seat: Seat,
        tiles: &[String],
    ) -> Result<State, RuleError> {
        let Phase::Passing { chosen, .. } = &state.phase else {
            return Err(err(
                codes::NOT_PASSING,
                "tiles are passed only after a pass_two action tile",
            ));
        };
        match chosen.get(seat) {
            Some(None) => {}
            _ => return Err(RuleError::not_your_turn(seat)),
        }
        let rack = state.racks.get(seat).map_or(&[][..], |r| &r[..]);
        let need = state.rules.pass_two_tiles.min(rack.len());
        if tiles.len() != need {
            return Err(err(
                codes::WRONG_PASS_COUNT,
                format!(
                    "pass exactly {need} tile(s) from your rack, not {}",
                    tiles.len()
                ),
            ));
        }
        let mut picked: Vec<Tile> = Vec::with_capacity(need);
        for id in tiles {
            let t = self.parse(state, id)?;
            if !rack.contains(&t) {
                return Err(err(codes::NOT_IN_RACK, format!("{id} is not in your rack")));
            }
            if picked.contains(&t) {
                return Err(err(codes::WRONG_PASS_COUNT, format!("{id} is named twice")));
            }
            picked.push(t);
        }
        picked.sort_unstable();
        let mut next = state.clone();
        let Phase::Passing { initiator, chosen } = &mut next.phase else {
            return Err(err(codes::NOT_PASSING, "no passing now"));
        };
        let initiator = *initiator;
        if let Some(slot) = chosen.get_mut(seat) {
            *slot = Some(picked);
        }
        if chosen.iter().all(Option::is_some) {
            // Everyone has chosen: each seat's tiles go to the next seat (the left).
            let moves: Vec<Vec<Tile>> = chosen
                .iter()
                .map(|c| c.clone().unwrap_or_default())
                .collect();
            let n = next.seats;
            for (giver, tiles) in moves.iter().enumerate() {
                for &t in tiles {
                    next.take_from_rack(giver, t);
                }
            }
            for (giver, tiles) in moves.into_iter().enumerate() {
                let receiver = (giver + 1) % n;
                for &t in &tiles {
                    next.give(receiver, t);
                }
                if let Some(r) = next.received.get_mut(receiver) {
                    *r = tiles;
                }
            }
            next.phase = Phase::Turn;
            next.turn = initiator;
            next.note("every player passed their tiles to the left".into());
            next.next_turn();
        }
        Ok(next)
    }

    pub(super) fn apply_turn(
        &self,
        state: &State,
        seat: Seat,
        action: &Action,
    ) -> Result<State, RuleError> {
        let mut next = state.clone();
        let who = format!("Seat {}", seat + 1);
        match action {
            Action::PassTiles { .. } => {
                return Err(err(
                    codes::NOT_PASSING,
                    "tiles are passed only after a pass_two action tile",
                ));
            }
            Action::TakeDisplay { tile } => {
                let t = self.parse(state, tile)?;
                let Some(i) = next.display.iter().position(|&d| d == t) else {
                    return Err(err(
                        codes::NOT_IN_DISPLAY,
                        format!("{tile} is not in the display"),
                    ));
                };
                next.display.remove(i);
                next.give(seat, t);
                next.refill_display();
                next.note(format!(
                    "{who} took {} from the display",
                    state.rules.label(t)
                ));
            }
            Action::DrawBag => {
                let Some(t) = next.draw_random() else {
                    return Err(err(codes::BAG_EMPTY, "the bag is empty (HR-4)"));
                };
                next.give(seat, t);
                next.note(format!("{who} drew 1 tile from the bag"));
            }
            Action::Pass => {
                if !state.bag.is_empty() || !state.display.is_empty() {
                    return Err(err(
                        codes::PASS_NOT_ALLOWED,
                        "you may pass only when the bag and the display are both empty (HR-4)",
                    ));
                }
                next.passes_in_row += 1;
                next.note(format!("{who} passed"));
                if next.passes_in_row >= next.seats {
                    let low = (0..next.seats)
                        .map(|s| next.rack_total(s))
                        .min()
                        .unwrap_or(0);
                    let winners: Vec<Seat> = (0..next.seats)
                        .filter(|&s| next.rack_total(s) == low)
                        .collect();
                    next.end_game(winners, true);
                    return Ok(next);
                }
                next.next_turn();
                return Ok(next);
            }
            Action::PlayAction { tile, target } => {
                let t = self.parse(state, tile)?;
                let rack = state.racks.get(seat).map_or(&[][..], |r| &r[..]);
                if !rack.contains(&t) {
                    return Err(err(
                        codes::NOT_IN_RACK,
                        format!("{tile} is not in your rack"),
                    ));
                }
                let face = state.rules.face(t);
                if !matches!(face, Some(Face::PassTwo | Face::DrawThree)) {
                    return Err(err(
                        codes::NOT_AN_ACTION_TILE,
                        format!("{tile} is not an action tile"),
                    ));
                }
                if rack.len() < 2 {
                    return Err(err(
                        codes::LAST_TILE,
                        "an action tile cannot be your last tile (HR-5)",
                    ));
                }
                match (face, target) {
                    (Some(Face::PassTwo), None) => {
                        next.take_from_rack(seat, t);
                        next.played_actions.push(t);
                        next.received = vec![Vec::new(); next.seats];
                        next.phase = Phase::Passing {
                            initiator: seat,
                            chosen: vec![None; next.seats],
                        };
                        next.note(format!(
                            "{who} played pass_two: everyone passes 2 tiles to the left"
                        ));
                    }
                    (Some(Face::PassTwo), Some(_)) => {
                        return Err(err(codes::BAD_TARGET, "pass_two takes no target"));
                    }
                    (_, Some(victim)) if *victim < state.seats && *victim != seat => {
                        next.take_from_rack(seat, t);
                        next.played_actions.push(t);
                        let mut drawn = 0;
                        for _ in 0..state.rules.draw_three_tiles {
                            let Some(d) = next.draw_random() else { break };
                            next.give(*victim, d);
                            drawn += 1;
                        }
                        next.note(format!(
                            "{who} played draw_three on Seat {}: they drew {drawn} tile(s)",
                            victim + 1
                        ));
                    }
                    _ => {
                        return Err(err(
                            codes::BAD_TARGET,
                            "draw_three needs a target: another seat's number (0-based)",
                        ));
                    }
                }
            }
            Action::Meld { table } => {
                let ctx = MeldContext::for_seat(state, seat);
                let accepted = validate_table(&ctx, table)?;
                for &t in &accepted.new_tiles {
                    next.take_from_rack(seat, t);
                }
                next.table = accepted.table;
                if let Some(o) = next.opened.get_mut(seat) {
                    *o = true;
                }
                let labels: Vec<String> = accepted
                    .new_tiles
                    .iter()
                    .map(|&t| state.rules.label(t))
                    .collect();
                next.note(format!(
                    "{who} {} {}",
                    if accepted.opens {
                        "opened with"
                    } else {
                        "laid"
                    },
                    labels.join(" ")
                ));
                next.passes_in_row = 0;
                if next.racks.get(seat).is_some_and(Vec::is_empty) {
                    next.end_game(vec![seat], false);
                    return Ok(next);
                }
            }
        }
        next.passes_in_row = 0;
        if matches!(next.phase, Phase::Turn) {
            next.next_turn();
        }
        Ok(next)
    }

    pub(super) fn pass_choices(&self, state: &State, seat: Seat) -> Vec<Action> {
        let rules = &state.rules;
        let Some(rack) = state.racks.get(seat) else {
            return Vec::new();
        };
        let id = |t: Tile| rules.tile_id(t);
        // One tile per face, plus a face's second copy for passing both copies.
        let mut firsts: Vec<Tile> = Vec::new();
        let mut seconds: Vec<Tile> = Vec::new();
        for &t in rack {
            if firsts.last().and_then(|&f| rules.face(f)) == rules.face(t) && !firsts.is_empty() {
                if seconds.last().and_then(|&f| rules.face(f)) != rules.face(t) {
                    seconds.push(t);
                }
            } else {
                firsts.push(t);
            }
        }
        let need = rules.pass_two_tiles.min(rack.len());
        let mut out = Vec::new();
        if need == 0 {
            // Cannot happen in play (racks are never empty while a game runs), but an empty
            // pass keeps the step resolvable rather than stuck.
            out.push(Action::PassTiles { tiles: Vec::new() });
        } else if need == 1 {
            for &t in &firsts {
                out.push(Action::PassTiles { tiles: vec![id(t)] });
            }
        } else if need == 2 {
            for (i, &a) in firsts.iter().enumerate() {
                if let Some(&b) = seconds.iter().find(|&&b| rules.face(b) == rules.face(a)) {
                    out.push(Action::PassTiles {
                        tiles: vec![id(a), id(b)],
                    });
                }
                for &b in &firsts[i + 1..] {
                    out.push(Action::PassTiles {
                        tiles: vec![id(a), id(b)],
                    });
                }
            }
        } else {
            // A rule file passing more than 2: offer the first `need` tiles in windows.
            for w in rack.windows(need) {
                out.push(Action::PassTiles {
                    tiles: w.iter().map(|&t| id(t)).collect(),
                });
            }
        }
        out
    }

    pub(super) fn turn_choices(&self, state: &State, seat: Seat) -> Vec<Action> {
        let rules = &state.rules;
        let mut out = Vec::new();
        let mut seen: Vec<Face> = Vec::new();
        for &t in &state.display {
            if let Some(f) = rules.face(t)
                && !seen.contains(&f)
            {
                seen.push(f);
                out.push(Action::TakeDisplay {
                    tile: rules.tile_id(t),
                });
            }
        }
        if !state.bag.is_empty() {
            out.push(Action::DrawBag);
        }
        let rack = state.racks.get(seat).map_or(&[][..], |r| &r[..]);
        if rack.len() >= 2 {
            let mut seen: Vec<Face> = Vec::new();
            for &t in rack {
                match rules.face(t) {
                    Some(Face::PassTwo) if !seen.contains(&Face::PassTwo) => {
                        seen.push(Face::PassTwo);
                        out.push(Action::PlayAction {
                            tile: rules.tile_id(t),
                            target: None,
                        });
                    }
                    Some(Face::DrawThree) if !seen.contains(&Face::DrawThree) => {
                        seen.push(Face::DrawThree);
                        for victim in (0..state.seats).filter(|&v| v != seat) {
                            out.push(Action::PlayAction {
                                tile: rules.tile_id(t),
                                target: Some(victim),
                            });
                        }
                    }
                    _ => {}
                }
            }
        }
        if state.bag.is_empty() && state.display.is_empty() {
            out.push(Action::Pass);
        }
        for new in generate::meld_placements(state, seat) {
            out.push(Action::Meld {
                table: generate::full_table(state, &new),
            });
        }
        out
    }

    /// "red 5 (1,0), red 6 (2,0)" for the tiles of a submitted table not on the table now,
    /// and how many table tiles moved.
    /// The action as the log tells it after the player's name: "took R5 from the display",
    /// "laid R5 at 2,3, R6 at 3,3 and R7 at 4,3".
    pub(super) fn log_line(&self, state: &State, seat: Seat, action: &Action) -> String {
        let rules = &state.rules;
        let name = |id: &str| {
            rules
                .parse_tile(id)
                .map_or_else(|| id.to_string(), |t| rules.label(t))
        };
        let seat_name = |s: Seat| format!("Seat {}", s.saturating_add(1));
        match action {
            Action::TakeDisplay { tile } => format!("took {} from the display", name(tile)),
            Action::DrawBag => "drew a tile from the bag".into(),
            Action::Pass => "passed".into(),
            Action::PlayAction { tile, target: None } => {
                format!("played the action tile {}", name(tile))
            }
            Action::PlayAction {
                tile,
                target: Some(v),
            } => format!("played the action tile {} on {}", name(tile), seat_name(*v)),
            Action::PassTiles { tiles } => {
                let names: Vec<String> = tiles.iter().map(|t| name(t)).collect();
                format!(
                    "passed {} to {}",
                    names.join(" and "),
                    seat_name(seat.saturating_add(1) % state.seats.max(1))
                )
            }
            Action::Meld { table } => {
                let mut laid: Vec<String> = Vec::new();
                let mut moved = 0;
                for p in table {
                    let on_table = rules
                        .parse_tile(&p.tile)
                        .and_then(|t| state.table.iter().find(|q| q.tile == t));
                    match on_table {
                        Some(q) if (q.x, q.y) != (p.x, p.y) => moved += 1,
                        Some(_) => {}
                        None => laid.push(format!("{} at {},{}", name(&p.tile), p.x, p.y)),
                    }
                }
                let mut s = match laid.len() {
                    0 => "laid nothing".to_string(),
                    1 => format!("laid {}", laid.join("")),
                    n => format!("laid {} and {}", laid[..n - 1].join(", "), laid[n - 1]),
                };
                match moved {
                    0 => {}
                    1 => s.push_str(", moving 1 table tile"),
                    n => s.push_str(&format!(", moving {n} table tiles")),
                }
                s
            }
        }
    }

    pub(super) fn describe_meld(&self, state: &State, table: &[Placement]) -> String {
        let rules = &state.rules;
        let mut laid: Vec<String> = Vec::new();
        let mut moved = 0;
        for p in table {
            match rules.parse_tile(&p.tile) {
                Some(t) => match state.table.iter().find(|q| q.tile == t) {
                    Some(q) => {
                        if (q.x, q.y) != (p.x, p.y) {
                            moved += 1;
                        }
                    }
                    None => laid.push(format!("{} ({},{})", rules.label(t), p.x, p.y)),
                },
                None => laid.push(format!("{:?} ({},{})", p.tile, p.x, p.y)),
            }
        }
        let kept = table.len().saturating_sub(laid.len());
        let missing = state.table.len().saturating_sub(kept);
        let mut s = format!(
            "meld: lay {}",
            if laid.is_empty() {
                "nothing".into()
            } else {
                laid.join(", ")
            }
        );
        if moved > 0 {
            s.push_str(&format!("; move {moved} table tile(s)"));
        }
        if missing > 0 {
            s.push_str(&format!("; leave out {missing} table tile(s)"));
        }
        s
    }
}
