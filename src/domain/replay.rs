//! A game's state from its seed and log. Most entries are the game's own actions, folded
//! in order; a takeback entry (`takeback_to`) returns the game to an earlier version, so the
//! entries after that version no longer count. The log keeps them: replay skips them.

use crate::engine::{DynGame, LoadedGame};
use crate::store::models::{ActionRow, GameRow};

/// The entries that make the state at the end of `actions` (a prefix of a game's log, seq
/// 1, 2, …, in order): every game action, less those a later takeback undid.
pub fn effective(actions: &[ActionRow]) -> Result<Vec<&ActionRow>, String> {
    let mut kept: Vec<&ActionRow> = Vec::with_capacity(actions.len());
    // How many kept entries the state at each version is made of (version 0: none).
    let mut kept_at: Vec<usize> = Vec::with_capacity(actions.len() + 1);
    kept_at.push(0);
    for a in actions {
        match a.takeback_to {
            None => kept.push(a),
            Some(to) => {
                let at = usize::try_from(to)
                    .ok()
                    .filter(|&v| (v as i64) < a.seq)
                    .and_then(|v| kept_at.get(v).copied())
                    .ok_or_else(|| {
                        format!("takeback {} returns to version {to}, not before it", a.seq)
                    })?;
                kept.truncate(at);
            }
        }
        kept_at.push(kept.len());
    }
    Ok(kept)
}

/// Replays `actions` on the game's seeded set-up (see [`effective`]).
pub fn fold(
    engine: &dyn DynGame,
    row: &GameRow,
    actions: &[ActionRow],
) -> Result<Box<dyn LoadedGame>, String> {
    let seed: [u8; 32] = row
        .seed
        .as_slice()
        .try_into()
        .map_err(|_| "malformed seed".to_string())?;
    let mut state = engine
        .setup_version(
            &row.options,
            row.players as usize,
            seed,
            row.rules_version as u32,
        )
        .map_err(|e| format!("set-up refused: {e}"))?;
    for a in effective(actions)? {
        state = state
            .apply(a.seat as usize, &a.action)
            .map_err(|e| format!("action {} refused on replay: {e}", a.seq))?
            .state;
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::kinds::GameId;
    use serde_json::json;

    fn entry(seq: i64, takeback_to: Option<i64>) -> ActionRow {
        ActionRow {
            game_id: GameId(1),
            seq,
            seat: 0,
            action: json!(seq),
            public_action: None,
            seen_by: Vec::new(),
            description: String::new(),
            created_at: chrono::Utc::now(),
            takeback_to,
        }
    }

    fn seqs(log: &[ActionRow]) -> Result<Vec<i64>, String> {
        Ok(effective(log)?.iter().map(|a| a.seq).collect())
    }

    #[test]
    fn a_takeback_drops_the_entries_after_its_version_and_keeps_later_ones() {
        let log = vec![
            entry(1, None),
            entry(2, None),
            entry(3, None),
            entry(4, Some(1)),
            entry(5, None),
        ];
        assert_eq!(seqs(&log).unwrap(), [1, 5]);
        // The state at version 3 is made of the first three entries, at 4 of the first.
        assert_eq!(seqs(&log[..3]).unwrap(), [1, 2, 3]);
        assert_eq!(seqs(&log[..4]).unwrap(), [1]);
    }

    #[test]
    fn a_takeback_to_a_version_that_was_itself_taken_back_counts_that_versions_state() {
        // Version 4 is the state of version 1; going back to 4 is going back to [1].
        let log = vec![
            entry(1, None),
            entry(2, None),
            entry(3, None),
            entry(4, Some(1)),
            entry(5, None),
            entry(6, None),
            entry(7, Some(4)),
        ];
        assert_eq!(seqs(&log).unwrap(), [1]);
        let log = vec![entry(1, None), entry(2, Some(0))];
        assert_eq!(seqs(&log).unwrap(), Vec::<i64>::new());
    }

    #[test]
    fn a_takeback_forward_or_to_itself_is_refused() {
        for bad in [2, 3, -1, i64::MAX] {
            let log = vec![entry(1, None), entry(2, Some(bad))];
            assert!(effective(&log).is_err(), "{bad}");
        }
    }
}
