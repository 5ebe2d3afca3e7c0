//! The games Turnpost hosts, and the registry the server looks them up in. Adding a game
//! is one module here plus one line in `Registry::standard`.

use std::sync::Arc;

pub mod crossword_rummy;
pub mod fuldrigger;
pub mod kasino;
pub mod partners;
pub mod sp4x;
pub mod space_empires_4x;
pub mod starfarers;

use crate::engine::{DynGame, Erased};

/// Every hosted game type, by id and rules version.
#[derive(Clone)]
pub struct Registry {
    games: Vec<Arc<dyn DynGame>>,
}

impl Registry {
    /// The games this build serves.
    pub fn standard() -> Registry {
        let games: Vec<Arc<dyn DynGame>> = vec![
            erased(kasino::Kasino),
            erased(crossword_rummy::CrosswordRummy),
            erased(partners::Partners),
            erased(fuldrigger::Fuldrigger::default()),
            erased(sp4x::Sp4x),
            erased(space_empires_4x::SpaceEmpires4x),
            erased(starfarers::Starfarers::default()),
        ];
        Registry { games }
    }

    /// Checks every game's shipped data (boards, card lists). A broken file stops start-up.
    pub fn check_data(&self) -> Result<(), String> {
        for g in &self.games {
            g.check_data()
                .map_err(|e| format!("game {}: {e}", g.info().id))?;
        }
        Ok(())
    }

    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn DynGame>> {
        self.games.iter()
    }

    /// The current implementation of a game type.
    pub fn get(&self, id: &str) -> Option<&Arc<dyn DynGame>> {
        self.games.iter().find(|g| g.info().id == id)
    }

    /// The implementation for a stored game: same id and the rules version it started
    /// with. `None` means this build can no longer run that game's rules.
    pub fn get_version(&self, id: &str, rules_version: u32) -> Option<&Arc<dyn DynGame>> {
        self.games
            .iter()
            .find(|g| g.info().id == id && g.replays_rules_versions().contains(&rules_version))
    }
}

/// Each game's rules as players read them (`src/games/<id>/RULES.md`), compiled in.
pub fn rules_text(id: &str) -> Option<&'static str> {
    Some(match id {
        "kasino" => include_str!("kasino/RULES.md"),
        "crossword-rummy" => include_str!("crossword_rummy/RULES.md"),
        "partners" => include_str!("partners/RULES.md"),
        "fuldrigger" => include_str!("fuldrigger/RULES.md"),
        "sp4x" => include_str!("sp4x/RULES.md"),
        "space-empires-4x" => include_str!("space_empires_4x/RULES.md"),
        "starfarers" => include_str!("starfarers/RULES.md"),
        _ => return None,
    })
}

fn erased<G: crate::engine::Game>(game: G) -> Arc<dyn DynGame> {
    Arc::new(Erased::new(game))
}

#[cfg(test)]
mod tests {
    use super::Registry;

    /// A stored game of an older rules version replays under that version: its set-up
    /// state says so, whatever the current version is.
    #[test]
    fn every_game_has_its_rules_document() {
        for g in Registry::standard().all() {
            let text = super::rules_text(g.info().id).unwrap_or_default();
            assert!(text.len() > 1000, "{} has no RULES.md", g.info().id);
            assert!(text.contains("HR-"), "{} names no house rule", g.info().id);
        }
    }

    #[test]
    fn setup_version_records_the_stored_rules_version() {
        let registry = Registry::standard();
        for g in registry.all() {
            let current = g.info().rules_version;
            let oldest = *g.replays_rules_versions().start();
            let seats = g.info().min_players.max(2);
            for v in oldest..=current {
                let state = g
                    .setup_version(&serde_json::Value::Null, seats, [7; 32], v)
                    .unwrap_or_else(|e| panic!("{}: {e}", g.info().id));
                let json: serde_json::Value = serde_json::from_str(&state.encode()).unwrap();
                // Games that branch on the version record it (version 1 may be left out).
                if let Some(recorded) = json.get("rules_version") {
                    assert_eq!(recorded, v, "{}", g.info().id);
                } else if current > 1 {
                    assert_eq!(v, 1, "{} dropped version {v}", g.info().id);
                }
            }
        }
    }
}
