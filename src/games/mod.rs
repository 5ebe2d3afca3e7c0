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

fn erased<G: crate::engine::Game>(game: G) -> Arc<dyn DynGame> {
    Arc::new(Erased::new(game))
}
