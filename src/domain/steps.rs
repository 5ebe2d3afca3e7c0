//! An applied action on its way into the log, and the marks of moves nobody chose.

use serde_json::Value;

use crate::engine::{Applied, LoadedGame, Seat, Visibility};

/// How the log marks an action a bot chose for a seat that forfeited or timed out.
pub const BOT_MARK: &str = crate::notify::compose::BOT_PREFIX;
/// Marks a log entry the server played for a seat because it was the seat's only choice.
pub const FORCED_MARK: &str = crate::notify::compose::FORCED_PREFIX;

/// One applied action on its way into the log.
pub struct Step {
    pub seat: i32,
    pub action: Value,
    pub visibility: Visibility,
    /// The log's words for it (third person, after the mover's name).
    pub description: String,
    /// The action as its player chose it, for answers to that player.
    pub chosen: String,
}

impl Step {
    pub fn from_applied(seat: i32, applied: Applied) -> (Step, Box<dyn LoadedGame>) {
        (
            Step {
                seat,
                action: applied.action,
                visibility: applied.visibility,
                description: applied.description,
                chosen: applied.chosen,
            },
            applied.state,
        )
    }
}

/// Who had something to decide before a change and after it, and who acted in it (see
/// [`crate::engine::LoadedGame::actors`]); all empty at the start of a game.
#[derive(Clone, Copy, Default)]
pub struct Actors<'a> {
    pub before: &'a [Seat],
    /// The seats the game waited for before the change (its `to_act`).
    pub awaited_before: &'a [Seat],
    pub after: &'a [Seat],
    pub acted: &'a [Seat],
}

impl Actors<'_> {
    /// The seats a change gives a decision to tell them about (a turn email, a `your_turn`
    /// or `offer` webhook), given the seats the game waits for after it: those with
    /// something to decide that had nothing before; those that acted and must decide again
    /// (what they were told is stale); and those that only had an answer to give (an
    /// offer made to them) and now have the move, whose last word was about the offer.
    pub fn told(&self, awaited_after: &[Seat]) -> Vec<Seat> {
        self.after
            .iter()
            .copied()
            .filter(|s| {
                !self.before.contains(s)
                    || self.acted.contains(s)
                    || (awaited_after.contains(s) && !self.awaited_before.contains(s))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Actors;

    #[test]
    fn a_seat_is_told_of_a_decision_that_is_new_to_it() {
        let told = |before: &[usize],
                    awaited_before: &[usize],
                    after: &[usize],
                    acted: &[usize],
                    awaited_after: &[usize]| {
            Actors {
                before,
                awaited_before,
                after,
                acted,
            }
            .told(awaited_after)
        };
        // Seat 0 moves and the turn passes to seat 1.
        assert_eq!(told(&[0], &[0], &[1], &[0], &[1]), vec![1]);
        // Seat 0 makes seat 1 an offer: seat 1 has an answer to give.
        assert_eq!(told(&[0], &[0], &[0, 1], &[0], &[0]), vec![0, 1]);
        // Seat 0 moves on with the offer open: seat 1 has heard of it already.
        assert_eq!(told(&[0, 1], &[0], &[0, 1], &[0], &[0]), vec![0]);
        // Seat 0 ends its turn with the offer open: seat 1 now has the move.
        assert_eq!(told(&[0, 1], &[0], &[1], &[0], &[1]), vec![1]);
        // Two seats decide at once; one answers: the other has been told.
        assert_eq!(
            told(&[0, 1], &[0, 1], &[1], &[0], &[1]),
            Vec::<usize>::new()
        );
    }
}
