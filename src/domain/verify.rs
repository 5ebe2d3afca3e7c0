//! `turnpost verify`: every started game, replayed from seed and log, must equal its stored
//! snapshot byte for byte, and its version must equal its number of actions.

use std::sync::atomic::{AtomicUsize, Ordering};

use diesel::prelude::*;

use crate::games::Registry;
use crate::store::kinds::GameStatus;
use crate::store::models::{ActionRow, GameRow};
use crate::store::schema::{game_actions, games};

pub struct VerifyReport {
    pub games: usize,
    pub actions: usize,
    /// One line per game that does not replay to its snapshot.
    pub problems: Vec<String>,
}

/// Verifies every started game, on one worker per processor core, each with its own
/// database connection; games are handed out one at a time, so memory stays flat however
/// many games there are.
pub fn verify_all(url: &str, registry: &Registry) -> anyhow::Result<VerifyReport> {
    let ids: Vec<i64> = games::table
        .filter(games::status.ne(GameStatus::Open))
        .order(games::id.asc())
        .select(games::id)
        .load(&mut PgConnection::establish(url)?)?;
    let workers = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(ids.len().max(1));
    let next = AtomicUsize::new(0);
    let reports = std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| s.spawn(|| verify_some(url, registry, &ids, &next)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(anyhow::anyhow!("a verify worker panicked")))
            })
            .collect::<anyhow::Result<Vec<VerifyReport>>>()
    })?;
    let mut report = VerifyReport {
        games: 0,
        actions: 0,
        problems: Vec::new(),
    };
    for r in reports {
        report.games += r.games;
        report.actions += r.actions;
        report.problems.extend(r.problems);
    }
    // Workers finish in any order; the report lists games by id.
    report.problems.sort_by_key(|p| {
        p.split_whitespace()
            .nth(1)
            .and_then(|id| id.parse::<i64>().ok())
    });
    Ok(report)
}

/// One worker: takes the next game until none is left.
fn verify_some(
    url: &str,
    registry: &Registry,
    ids: &[i64],
    next: &AtomicUsize,
) -> anyhow::Result<VerifyReport> {
    let mut conn = PgConnection::establish(url)?;
    let mut report = VerifyReport {
        games: 0,
        actions: 0,
        problems: Vec::new(),
    };
    while let Some(&id) = ids.get(next.fetch_add(1, Ordering::Relaxed)) {
        let row: GameRow = games::table
            .find(id)
            .select(GameRow::as_select())
            .first(&mut conn)?;
        let actions: Vec<ActionRow> = game_actions::table
            .filter(game_actions::game_id.eq(id))
            .order(game_actions::seq.asc())
            .select(ActionRow::as_select())
            .load(&mut conn)?;
        report.games += 1;
        report.actions += actions.len();
        if let Err(problem) = verify_one(registry, &row, &actions) {
            report
                .problems
                .push(format!("game {id} ({}): {problem}", row.game_type));
        }
    }
    Ok(report)
}

fn verify_one(registry: &Registry, row: &GameRow, actions: &[ActionRow]) -> Result<(), String> {
    let engine = registry
        .get_version(&row.game_type, row.rules_version as u32)
        .ok_or_else(|| format!("no engine for rules version {}", row.rules_version))?;
    if actions.len() as i64 != row.version {
        return Err(format!(
            "version {} but {} actions in the log",
            row.version,
            actions.len()
        ));
    }
    if let Some((i, a)) = actions
        .iter()
        .enumerate()
        .find(|(i, a)| a.seq != *i as i64 + 1)
    {
        return Err(format!("log gap: entry {i} has seq {}", a.seq));
    }
    let state = super::replay::fold(engine.as_ref(), row, actions)?;
    let replayed = state.encode();
    match &row.snapshot {
        Some(stored) if *stored == replayed => Ok(()),
        // A snapshot written before a field existed reads back with its default: compare
        // the state it decodes to, in today's encoding.
        Some(stored) if engine.load(stored).is_ok_and(|s| s.encode() == replayed) => Ok(()),
        Some(_) => Err("replayed state differs from the stored snapshot".into()),
        None => Err("started game without a snapshot".into()),
    }
}
