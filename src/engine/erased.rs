//! The typed games behind the registry's object-safe face: [`Erased`] wraps a [`Game`] as a
//! [`DynGame`], and a decoded state answers as a [`LoadedGame`]. Kept apart from the traits
//! so that the computer player (which takes any `&dyn LoadedGame`) and the traits do not
//! depend on each other.

use std::sync::Arc;

use serde_json::Value;

use super::budget::BotBudget;
use super::contract::{Game, GameInfo, RuleError, Seat, SetupError, Status, Viewer};
use super::dynamic::{
    Applied, DecodeError, DynGame, LoadedGame, SeatJson, SimulationReport, raw_json,
};
use super::people::People;
use super::rng::GameRng;

/// Wraps a typed game for the registry.
pub struct Erased<G: Game>(pub Arc<G>);

impl<G: Game> Erased<G> {
    pub fn new(game: G) -> Self {
        Erased(Arc::new(game))
    }
}

struct Loaded<G: Game> {
    game: Arc<G>,
    state: G::State,
}

fn parse_options<G: Game>(options: &Value) -> Result<G::Options, SetupError> {
    let value = match options {
        Value::Null => Value::Object(Default::default()),
        other => other.clone(),
    };
    serde_json::from_value(value).map_err(|e| SetupError::invalid_options(e.to_string()))
}

impl<G: Game> DynGame for Erased<G> {
    fn info(&self) -> GameInfo {
        self.0.info()
    }

    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32> {
        self.0.replays_rules_versions()
    }

    fn options_schema(&self) -> Value {
        serde_json::to_value(schemars::schema_for!(G::Options)).unwrap_or(Value::Null)
    }

    fn action_schema(&self) -> Value {
        serde_json::to_value(schemars::schema_for!(G::Action)).unwrap_or(Value::Null)
    }

    fn view_schema(&self) -> Value {
        serde_json::to_value(schemars::schema_for!(G::View)).unwrap_or(Value::Null)
    }

    fn normalize_options(&self, options: &Value) -> Result<Value, SetupError> {
        let parsed = parse_options::<G>(options)?;
        self.0.check_new_options(&parsed)?;
        serde_json::to_value(parsed).map_err(|e| SetupError::invalid_options(e.to_string()))
    }

    fn setup(
        &self,
        options: &Value,
        seats: usize,
        seed: [u8; 32],
    ) -> Result<Box<dyn LoadedGame>, SetupError> {
        let info = self.0.info();
        if seats < info.min_players || seats > info.max_players {
            return Err(SetupError::player_count(
                seats,
                info.min_players,
                info.max_players,
            ));
        }
        let options = parse_options::<G>(options)?;
        let state = self.0.setup(&options, seats, GameRng::from_seed(seed))?;
        Ok(Box::new(Loaded {
            game: Arc::clone(&self.0),
            state,
        }))
    }

    fn load(&self, state_json: &str) -> Result<Box<dyn LoadedGame>, DecodeError> {
        let state = serde_json::from_str(state_json).map_err(|e| DecodeError {
            game: self.0.info().id,
            reason: e.to_string(),
        })?;
        Ok(Box::new(Loaded {
            game: Arc::clone(&self.0),
            state,
        }))
    }

    fn legal_actions_complete(&self) -> bool {
        self.0.legal_actions_complete()
    }

    fn takebacks(&self) -> bool {
        self.0.takebacks()
    }

    fn check_data(&self) -> Result<(), String> {
        self.0.check_data()
    }

    fn simulate(
        &self,
        options: &Value,
        seats: usize,
        games: usize,
        seed: u64,
        max_actions: usize,
    ) -> Result<SimulationReport, String> {
        let options = parse_options::<G>(options).map_err(|e| e.to_string())?;
        let mut report = SimulationReport::default();
        for i in 0..games as u64 {
            let p = super::harness::random_playout(
                self.0.as_ref(),
                &options,
                seats,
                seed.wrapping_add(i),
                max_actions,
            )?;
            report.actions += p.log.len();
            report.finished += usize::from(p.finished);
        }
        Ok(report)
    }
}

/// The game's latest actions as its own type. An entry that does not parse (a takeback
/// marker) is left out: the game's rules then see less of the turn, and count anything
/// out of sight the cautious way.
fn typed_recent<G: Game>(recent: &[(Seat, Value)]) -> Vec<(Seat, G::Action)> {
    recent
        .iter()
        .filter_map(|(s, a)| Some((*s, serde_json::from_value(a.clone()).ok()?)))
        .collect()
}
impl<G: Game> LoadedGame for Loaded<G> {
    fn status(&self) -> Status {
        self.game.status(&self.state)
    }

    fn legal_actions(&self, seat: Seat) -> Vec<Value> {
        self.game
            .legal_actions(&self.state, seat)
            .iter()
            .filter_map(|a| serde_json::to_value(a).ok())
            .collect()
    }

    fn has_legal_actions(&self, seat: Seat) -> bool {
        !self.game.legal_actions(&self.state, seat).is_empty()
    }

    fn forced_action(&self, seat: Seat) -> Option<Value> {
        let action = self.game.forced_action(&self.state, seat)?;
        serde_json::to_value(action).ok()
    }

    fn apply(&self, seat: Seat, action: &Value) -> Result<Applied, RuleError> {
        let typed: G::Action = serde_json::from_value(action.clone())
            .map_err(|e| RuleError::new(RuleError::MALFORMED, e.to_string()))?;
        let visibility = self.game.action_visibility(&self.state, seat, &typed);
        let description = self.game.log_text(&self.state, seat, &typed);
        let chosen = self.game.describe_action(&self.state, seat, &typed);
        let next = self.game.apply(&self.state, seat, &typed)?;
        let canonical = serde_json::to_value(&typed)
            .map_err(|e| RuleError::new(RuleError::MALFORMED, e.to_string()))?;
        Ok(Applied {
            state: Box::new(Loaded {
                game: Arc::clone(&self.game),
                state: next,
            }),
            action: canonical,
            visibility,
            description,
            chosen,
        })
    }

    fn view(&self, viewer: Viewer) -> Value {
        serde_json::to_value(self.game.view(&self.state, viewer)).unwrap_or(Value::Null)
    }

    fn render_text(&self, viewer: Viewer) -> String {
        self.game.render_text(&self.state, viewer)
    }

    fn board_svg(&self, people: &People) -> String {
        let view = self.game.view(&self.state, people.viewer());
        self.game.board_svg(&view, people)
    }

    fn describe_action(&self, seat: Seat, action: &Value) -> Option<String> {
        let typed: G::Action = serde_json::from_value(action.clone()).ok()?;
        Some(self.game.describe_action(&self.state, seat, &typed))
    }

    fn seat_json(&self, viewer: Viewer, acting: Option<Seat>) -> SeatJson {
        let legal = acting.map_or_else(Vec::new, |s| self.game.legal_actions(&self.state, s));
        let texts: Vec<String> = match acting {
            Some(s) => legal
                .iter()
                .map(|a| self.game.describe_action(&self.state, s, a))
                .collect(),
            None => Vec::new(),
        };
        let targets: Vec<Vec<String>> = match acting {
            Some(s) => legal
                .iter()
                .map(|a| self.game.action_targets(&self.state, s, a))
                .collect(),
            None => Vec::new(),
        };
        SeatJson {
            view: raw_json(&self.game.view(&self.state, viewer)),
            legal_actions: raw_json(&legal),
            legal_action_texts: raw_json(&texts),
            legal_action_targets: raw_json(&targets),
        }
    }

    fn parse_notation(&self, seat: Seat, text: &str) -> Option<Result<Value, String>> {
        let parsed = self.game.parse_notation(&self.state, seat, text)?;
        Some(parsed.and_then(|a| serde_json::to_value(a).map_err(|e| e.to_string())))
    }

    fn notation_help(&self, seat: Seat) -> Option<String> {
        self.game.notation_help(&self.state, seat)
    }

    fn choice_group(&self, seat: Seat, action: &Value) -> Option<String> {
        let typed: G::Action = serde_json::from_value(action.clone()).ok()?;
        self.game.choice_group(&self.state, seat, &typed)
    }

    fn seat_name(&self, seat: Seat) -> String {
        self.game.seat_name(&self.state, seat)
    }

    fn decision_basis(&self, seat: Seat) -> Value {
        self.game.decision_basis(&self.state, seat)
    }

    fn resample_hidden(&self, viewer: Viewer, seed: [u8; 32]) -> Box<dyn LoadedGame> {
        let mut rng = GameRng::from_seed(seed);
        Box::new(Loaded {
            game: Arc::clone(&self.game),
            state: self.game.resample_hidden(&self.state, viewer, &mut rng),
        })
    }

    fn bot_action(
        &self,
        seat: Seat,
        seed: [u8; 32],
        budget: BotBudget,
        recent: &[(Seat, Value)],
    ) -> Option<Value> {
        let recent = typed_recent::<G>(recent);
        let action =
            super::bot::search(self.game.as_ref(), &self.state, seat, seed, budget, &recent)?;
        serde_json::to_value(action).ok()
    }

    fn bot_waits(&self, seat: Seat, recent: &[(Seat, Value)]) -> bool {
        let legal = self.game.legal_actions(&self.state, seat);
        !legal.is_empty()
            && self
                .game
                .bot_candidates(&self.state, seat, legal, &typed_recent::<G>(recent))
                .is_empty()
    }

    fn encode(&self) -> String {
        // Serialising plain data into a String cannot fail for our state types (no maps
        // with non-string keys); an empty string would be caught by `verify`.
        serde_json::to_string(&self.state).unwrap_or_default()
    }
}
