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
    pub after: &'a [Seat],
    pub acted: &'a [Seat],
}
