//! Real examples of a game's data for its reference page (`GET /docs/games/{id}`): one
//! seeded game played by random legal moves, from which every kind of action is taken the
//! first time it is legal, with a view at the start and one later on. Taken from play, not
//! written by hand, so they cannot drift from what the server sends.

use serde_json::Value;

use crate::engine::{DynGame, GameRng, Seat, Viewer, Visibility};

/// Moves played at most while looking for examples.
const MAX_MOVES: usize = 1500;

/// One action kind as it was first met.
pub struct ActionExample {
    /// The action's `type`.
    pub kind: String,
    pub seat: Seat,
    pub action: Value,
    /// The log's words for it.
    pub text: String,
    /// What others see in the log in its place, for a secret action.
    pub public_form: Option<Value>,
}

pub struct GameExamples {
    pub players: usize,
    pub options: Value,
    /// Seat 0's view before the first move.
    pub first_view: Value,
    /// A spectator's view of the same moment.
    pub spectator_view: Value,
    /// Seat 0's view some moves later.
    pub later_view: Option<(usize, Value)>,
    pub actions: Vec<ActionExample>,
    /// Moves played.
    pub moves: usize,
}

fn kind(action: &Value) -> String {
    action
        .get("type")
        .and_then(Value::as_str)
        .map_or_else(|| "action".to_string(), str::to_string)
}

/// Plays one game of `game` with its fewest players and default options.
pub fn sample(game: &dyn DynGame) -> Result<GameExamples, String> {
    let info = game.info();
    let players = info.min_players;
    let options = game
        .normalize_options(&Value::Object(Default::default()))
        .map_err(|e| e.to_string())?;
    let mut state = game
        .setup(&options, players, [7; 32])
        .map_err(|e| e.to_string())?;
    let first_view = state.view(Viewer::Seat(0));
    let spectator_view = state.view(Viewer::Spectator);
    let mut rng = GameRng::seed_from_u64(7);
    let mut actions: Vec<ActionExample> = Vec::new();
    let mut later_view = None;
    let mut moves = 0;
    while moves < MAX_MOVES {
        let to_act = state.status().to_act().to_vec();
        let Some(&seat) = to_act.get(rng.below(to_act.len().max(1))) else {
            break;
        };
        let legal = state.legal_actions(seat);
        if legal.is_empty() {
            break;
        }
        // Prefer an action of a kind not met yet, so that a short game shows them all.
        let fresh: Vec<&Value> = legal
            .iter()
            .filter(|a| !actions.iter().any(|e| e.kind == kind(a)))
            .collect();
        let choice = if fresh.is_empty() || rng.chance(1, 4) {
            &legal[rng.below(legal.len())]
        } else {
            fresh[rng.below(fresh.len())]
        };
        let applied = state.apply(seat, choice).map_err(|e| e.message)?;
        if !actions.iter().any(|e| e.kind == kind(&applied.action)) {
            actions.push(ActionExample {
                kind: kind(&applied.action),
                seat,
                public_form: match &applied.visibility {
                    Visibility::Public => None,
                    Visibility::Private { public_form, .. } => Some(public_form.clone()),
                },
                action: applied.action.clone(),
                text: applied.description.clone(),
            });
        }
        state = applied.state;
        moves += 1;
        if moves == 12 {
            later_view = Some((moves, state.view(Viewer::Seat(0))));
        }
        if state.status().to_act().is_empty() {
            break;
        }
    }
    Ok(GameExamples {
        players,
        options,
        first_view,
        spectator_view,
        later_view,
        actions,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_yields_examples_of_several_kinds_of_action() {
        for game in crate::games::Registry::standard().all() {
            let ex = sample(game.as_ref()).unwrap();
            let id = game.info().id;
            assert!(ex.actions.len() >= 2, "{id}: {}", ex.actions.len());
            assert!(ex.first_view.is_object(), "{id}");
            // Every example is an action the game's schema names.
            let schema = game.action_schema().to_string();
            for a in &ex.actions {
                assert!(
                    schema.contains(&format!("\"{}\"", a.kind)),
                    "{id}: {}",
                    a.kind
                );
                assert!(!a.text.is_empty(), "{id}: {}", a.kind);
            }
        }
    }
}
