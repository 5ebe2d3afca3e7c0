//! What a computer player's decision may cost, per game type: a leaf both the computer
//! player and the registry's traits name.

/// How much a decision may cost. The work is about `playouts` × `depth` applications of an
/// action (plus one `legal_actions` per step).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BotBudget {
    /// Playouts per decision, shared out evenly over the candidates (at least one each).
    pub playouts: u32,
    /// Actions per playout after the candidate, before the position is scored.
    pub depth: u32,
    /// At most this many of the legal actions are weighed (a seeded choice of them when
    /// there are more); the rest are never played.
    pub candidates: u32,
}

impl Default for BotBudget {
    fn default() -> Self {
        BotBudget {
            playouts: 240,
            depth: 60,
            candidates: 16,
        }
    }
}

impl BotBudget {
    /// The budget measured in `benches/bots.rs` for a game type: a decision takes a few
    /// milliseconds on one core (the computer moves inside the request of the move that
    /// hands it the turn, under the game's lock), and still wins clearly more often than
    /// a random player (`benches/README.md` has the figures).
    pub fn for_game(id: &str) -> BotBudget {
        match id {
            "kasino" => BotBudget {
                playouts: 24,
                depth: 60,
                candidates: 8,
            },
            "partners" => BotBudget {
                playouts: 16,
                depth: 20,
                candidates: 6,
            },
            "crossword-rummy" => BotBudget {
                playouts: 8,
                depth: 4,
                candidates: 4,
            },
            "sp4x" => BotBudget {
                playouts: 16,
                depth: 20,
                candidates: 6,
            },
            "space-empires-4x" => BotBudget {
                playouts: 16,
                depth: 20,
                candidates: 6,
            },
            "fuldrigger" => BotBudget {
                playouts: 16,
                depth: 20,
                candidates: 6,
            },
            "starfarers" => BotBudget {
                playouts: 16,
                depth: 20,
                candidates: 6,
            },
            _ => BotBudget::default(),
        }
    }
}
