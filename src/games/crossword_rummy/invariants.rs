//! Invariants the contract harness checks after every action: every tile exactly once
//! (bag, display, racks, table, played action tiles), a valid crossword on the table, and
//! scores that equal their recomputation from the revealed racks.

use super::data::Tile;
use super::state::{Action, Phase, State};
use super::validate::table_problem;
use turnpost_engine::Seat;

/// Every state the engine produces satisfies these.
pub fn check(s: &State) -> Result<(), String> {
    let rules = &s.rules;
    let n = s.seats;
    if n == 0 || s.racks.len() != n || s.opened.len() != n || s.totals.len() != n {
        return Err(format!(
            "{n} seats but {} racks, {} opened flags, {} totals",
            s.racks.len(),
            s.opened.len(),
            s.totals.len()
        ));
    }
    if s.turn >= n || s.starter >= n {
        return Err(format!(
            "turn {} / starter {} of {n} seats",
            s.turn, s.starter
        ));
    }
    // Conservation: each tile of the set in exactly one place. Tiles chosen in a pending
    // pass stay in their racks until everyone has chosen, so they are counted there.
    let total = rules.total_tiles();
    let mut place: Vec<Option<String>> = vec![None; total];
    let mut put = |t: Tile, at: String| -> Result<(), String> {
        match place.get_mut(t.0 as usize) {
            None => Err(format!("{at} holds tile {} outside the set", t.0)),
            Some(Some(first)) => Err(format!(
                "{} is both in {first} and in {at}",
                rules.tile_id(t)
            )),
            Some(slot) => {
                *slot = Some(at);
                Ok(())
            }
        }
    };
    for &t in &s.bag {
        put(t, "the bag".into())?;
    }
    for &t in &s.display {
        put(t, "the display".into())?;
    }
    for (seat, rack) in s.racks.iter().enumerate() {
        for &t in rack {
            put(t, format!("rack {seat}"))?;
        }
    }
    for p in &s.table {
        put(p.tile, "the table".into())?;
    }
    for &t in &s.played_actions {
        put(t, "the played action tiles".into())?;
    }
    if let Some(t) = place.iter().position(Option::is_none) {
        return Err(format!(
            "tile {} is nowhere (bag, display, racks, table, played)",
            rules.tile_id(Tile(t as u8))
        ));
    }
    // Orders the engine keeps (the bag's order must tell nothing; racks and the table
    // serialise deterministically).
    if !s.bag.is_sorted() || s.racks.iter().any(|r| !r.is_sorted()) || !s.table.is_sorted() {
        return Err("the bag, a rack or the table is not kept sorted".into());
    }
    if s.display.len() > rules.display_size
        || (s.display.len() < rules.display_size && !s.bag.is_empty())
    {
        return Err(format!(
            "the display holds {} tiles while the bag holds {}",
            s.display.len(),
            s.bag.len()
        ));
    }
    if let Some(why) = table_problem(rules, n, &s.table) {
        return Err(format!("the table is not a valid crossword: {why}"));
    }
    if !s.table.is_empty() && !s.opened.iter().any(|&o| o) {
        return Err("tiles on the table but nobody has opened".into());
    }
    if let Phase::Passing { initiator, chosen } = &s.phase {
        if *initiator >= n || chosen.len() != n {
            return Err("a pass_two step with a bad initiator or seat list".into());
        }
        for (seat, c) in chosen.iter().enumerate() {
            let rack = &s.racks[seat];
            if let Some(c) = c
                && (c.len() != rules.pass_two_tiles.min(rack.len())
                    || c.iter().any(|t| !rack.contains(t)))
            {
                return Err(format!("seat {seat} passes tiles it does not hold"));
            }
        }
    }
    scores(s)
}

/// Totals equal the sum of the recorded games; each record's points equal the penalty of
/// its revealed racks (winners 0).
fn scores(s: &State) -> Result<(), String> {
    let finished = matches!(s.phase, Phase::Finished { .. });
    let played = s.history.len() + usize::from(!finished);
    if s.game_no as usize != played || s.game_no > s.options.games.max(1) {
        return Err(format!(
            "game {} of {} with {} recorded",
            s.game_no,
            s.options.games,
            s.history.len()
        ));
    }
    for (g, rec) in s.history.iter().enumerate() {
        if rec.winners.is_empty() || rec.points.len() != s.seats || rec.racks.len() != s.seats {
            return Err(format!("game {} has a malformed record", g + 1));
        }
        for seat in 0..s.seats {
            let expect = if rec.winners.contains(&seat) {
                0
            } else {
                rec.racks[seat].iter().map(|&t| s.rules.penalty(t)).sum()
            };
            if rec.points[seat] != expect {
                return Err(format!(
                    "game {}: seat {seat} scored {} but its rack is worth {expect}",
                    g + 1,
                    rec.points[seat]
                ));
            }
        }
        if !rec.blocked && (rec.winners.len() != 1 || !rec.racks[rec.winners[0]].is_empty()) {
            return Err(format!(
                "game {} was won by an empty rack, but the winner's rack is not empty",
                g + 1
            ));
        }
    }
    for seat in 0..s.seats {
        let sum: i64 = s.history.iter().map(|r| r.points[seat]).sum();
        if s.totals[seat] != sum {
            return Err(format!(
                "seat {seat} totals {} but its games add up to {sum}",
                s.totals[seat]
            ));
        }
    }
    Ok(())
}

/// One transition: within a game the table only grows (tiles never leave it), a meld lays
/// only the mover's tiles and opens the mover, and only a meld or a pass ends a game.
pub fn check_step(
    before: &State,
    seat: Seat,
    action: &Action,
    after: &State,
) -> Result<(), String> {
    let same_game = after.history.len() == before.history.len();
    if same_game {
        for p in &before.table {
            if !after.table.iter().any(|q| q.tile == p.tile) {
                return Err(format!("{} left the table", before.rules.tile_id(p.tile)));
            }
        }
    } else if !matches!(action, Action::Meld { .. } | Action::Pass) {
        return Err("a game ended on an action that cannot end it".into());
    }
    if let Action::Meld { .. } = action {
        let laid: Vec<Tile> = after
            .table
            .iter()
            .map(|p| p.tile)
            .filter(|t| !before.table.iter().any(|p| p.tile == *t))
            .collect();
        let rack = before.racks.get(seat).map_or(&[][..], |r| &r[..]);
        if same_game {
            if laid.is_empty() || laid.iter().any(|t| !rack.contains(t)) {
                return Err(format!("seat {seat}'s meld laid tiles not from its rack"));
            }
            if !after.opened.get(seat).copied().unwrap_or(false) {
                return Err(format!("seat {seat} melded but is not marked opened"));
            }
        } else if after
            .history
            .last()
            .is_none_or(|r| r.blocked || r.winners != [seat])
        {
            return Err(format!(
                "a meld ended the game but seat {seat} did not win it"
            ));
        }
    }
    Ok(())
}
