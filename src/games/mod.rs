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

use turnpost_engine::{DynGame, Erased};

// The contract tests play thousands of random games and allocate at every step: with
// glibc's malloc, allocating and freeing take a fifth of their time. The server's binary
// uses jemalloc for the same reason.
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

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

fn erased<G: turnpost_engine::Game>(game: G) -> Arc<dyn DynGame> {
    Arc::new(Erased::new(game))
}

#[cfg(test)]
mod bot_tests;

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

    /// Every option that sets how long a game lasts is bounded for a new game: the options
    /// schema publishes the bounds, a new game may have them and not one past them. A
    /// stored game beyond them still sets up (its replay must not change), except where the
    /// set-up always had the bound.
    #[test]
    fn length_options_are_bounded_for_new_games() {
        use serde_json::json;
        let registry = Registry::standard();
        for (id, option, min, max, replays_beyond) in [
            ("space-empires-4x", "round_cap", 1, 100, true),
            ("starfarers", "turn_limit", 1, 300, true),
            ("partners", "deal_limit", 0, 100, true),
            ("fuldrigger", "rounds", 1, 200, false),
            ("crossword-rummy", "games", 1, 20, false),
        ] {
            let g = registry.get(id).unwrap();
            let schema = g.options_schema();
            let p = &schema["properties"][option];
            assert_eq!(
                (&p["minimum"], &p["maximum"]),
                (&json!(min), &json!(max)),
                "{id}: {p}"
            );
            let seats = g.info().min_players.max(2);
            let new = |v: u64| {
                g.normalize_options(&json!({ option: v }))
                    .and_then(|o| g.setup(&o, seats, [1; 32]).map(|_| ()))
            };
            assert!(new(min).is_ok() && new(max).is_ok(), "{id}");
            let refused = new(max + 1).unwrap_err();
            assert!(refused.message.contains(option), "{id}: {refused}");
            assert!(new(4_000_000_000).is_err(), "{id}");
            let stored = g.setup(&json!({ option: 4_000_000_000u64 }), seats, [1; 32]);
            assert_eq!(stored.is_ok(), replays_beyond, "{id}");
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

    /// Plays random games through the erased interface and counts, per game, the steps at
    /// which a seat's move would play itself, by action type. Forced moves must exist where
    /// the rules make them common (SP4X, Starfarers), never where the choices are sampled
    /// (Crossword Rummy), and always be the seat's single legal action.
    #[test]
    fn forced_moves_are_found_where_the_rules_make_them() {
        use std::collections::BTreeMap;
        let registry = Registry::standard();
        let mut forced_by_game: BTreeMap<&str, (usize, usize, BTreeMap<String, usize>)> =
            BTreeMap::new();
        for g in registry.all() {
            let id = g.info().id;
            let seats = g.info().min_players.max(2);
            let entry = forced_by_game.entry(id).or_default();
            for game in 0..4u8 {
                let mut state = g
                    .setup(&serde_json::Value::Null, seats, [game; 32])
                    .unwrap_or_else(|e| panic!("{id}: {e}"));
                // A small deterministic stream picks the random moves.
                let mut pick: u64 = 0x9e37_79b9_7f4a_7c15 ^ u64::from(game);
                for _ in 0..3_000 {
                    let turnpost_engine::Status::Active { to_act } = state.status() else {
                        break;
                    };
                    entry.0 += 1;
                    for &s in &to_act {
                        if let Some(a) = state.forced_action(s) {
                            assert_eq!(state.legal_actions(s), vec![a.clone()], "{id}");
                            let kind = match (a.get("type").and_then(|t| t.as_str()), a.as_object())
                            {
                                (Some(t), _) => t.to_string(),
                                (None, Some(o)) => o.keys().next().cloned().unwrap_or_default(),
                                (None, None) => a.to_string(),
                            };
                            *entry.2.entry(kind).or_default() += 1;
                            entry.1 += 1;
                        }
                    }
                    pick = pick
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    let seat = to_act[(pick >> 33) as usize % to_act.len()];
                    let legal = state.legal_actions(seat);
                    let action = &legal[(pick >> 40) as usize % legal.len()];
                    state = state
                        .apply(seat, action)
                        .unwrap_or_else(|e| panic!("{id}: {e}"))
                        .state;
                }
            }
        }
        for (id, (steps, forced, kinds)) in &forced_by_game {
            println!("{id}: {forced} forced of {steps} steps {kinds:?}");
        }
        assert!(forced_by_game["sp4x"].1 > 0);
        assert!(forced_by_game["starfarers"].1 > 0);
        assert_eq!(forced_by_game["crossword-rummy"].1, 0);
    }
}
