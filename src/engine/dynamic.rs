//! The object-safe face of [`Game`], speaking JSON, so the server can hold every game in one
//! registry. A stored state is decoded once per request into a [`LoadedGame`], which keeps
//! the typed state and answers every question without re-parsing.

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::bot::BotBudget;
use super::contract::{Game, GameInfo, RuleError, Seat, SetupError, Status, Viewer, Visibility};
use super::rng::GameRng;

/// A stored state could not be read back: data corruption or a rules-version mismatch.
#[derive(Debug, thiserror::Error)]
#[error("stored state of {game} does not decode: {reason}")]
pub struct DecodeError {
    pub game: &'static str,
    pub reason: String,
}

pub trait DynGame: Send + Sync {
    fn info(&self) -> GameInfo;
    /// Rules versions of stored games this build replays exactly.
    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32>;
    /// JSON Schema of the options object (defaults included).
    fn options_schema(&self) -> Value;
    /// JSON Schema of one action.
    fn action_schema(&self) -> Value;
    /// JSON Schema of a viewer's view (the `view` member of a game resource).
    fn view_schema(&self) -> Value;
    /// Options parsed, defaults filled in and written back: what a new game is stored
    /// with (refused when the game takes them no longer for new games: see
    /// [`Game::check_new_options`]).
    fn normalize_options(&self, options: &Value) -> Result<Value, SetupError>;
    fn setup(
        &self,
        options: &Value,
        seats: usize,
        seed: [u8; 32],
    ) -> Result<Box<dyn LoadedGame>, SetupError>;
    /// [`DynGame::setup`] for a stored game of an older rules version: the set-up state
    /// records `rules_version` (a top-level `rules_version` member, by convention), so a
    /// replay from the log follows the rules the game started with.
    fn setup_version(
        &self,
        options: &Value,
        seats: usize,
        seed: [u8; 32],
        rules_version: u32,
    ) -> Result<Box<dyn LoadedGame>, SetupError> {
        let state = self.setup(options, seats, seed)?;
        if rules_version == self.info().rules_version {
            return Ok(state);
        }
        let mut json: Value = serde_json::from_str(&state.encode())
            .map_err(|e| SetupError::invalid_options(e.to_string()))?;
        if let Some(v) = json.get_mut("rules_version") {
            *v = Value::from(rules_version);
        }
        self.load(&json.to_string())
            .map_err(|e| SetupError::invalid_options(e.to_string()))
    }
    fn load(&self, state_json: &str) -> Result<Box<dyn LoadedGame>, DecodeError>;
    fn legal_actions_complete(&self) -> bool;
    fn check_data(&self) -> Result<(), String>;
    /// Plays `games` random legal games (seeds `seed`, `seed + 1`, ...) on the typed engine,
    /// without JSON in the loop: for `turnpost simulate` and benchmarks.
    fn simulate(
        &self,
        options: &Value,
        seats: usize,
        games: usize,
        seed: u64,
        max_actions: usize,
    ) -> Result<SimulationReport, String>;
}

/// What `DynGame::simulate` counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SimulationReport {
    pub finished: usize,
    pub actions: usize,
}

/// One game state in memory, typed underneath.
pub trait LoadedGame: Send + Sync {
    fn status(&self) -> Status;
    /// Legal actions as JSON, in the game's stable order.
    fn legal_actions(&self, seat: Seat) -> Vec<Value>;
    /// Whether `seat` has any legal action, without writing them all out as JSON.
    fn has_legal_actions(&self, seat: Seat) -> bool {
        !self.legal_actions(seat).is_empty()
    }
    /// The action the server plays for `seat` because it is no decision (see
    /// [`Game::forced_action`]).
    fn forced_action(&self, seat: Seat) -> Option<Value>;
    /// Parse and apply. A malformed action is a [`RuleError`] with code `malformed_action`.
    fn apply(&self, seat: Seat, action: &Value) -> Result<Applied, RuleError>;
    fn view(&self, viewer: Viewer) -> Value;
    fn render_text(&self, viewer: Viewer) -> String;
    /// The board picture for `viewer`, drawn from their view (see [`Game::board_svg`]).
    fn board_svg(&self, viewer: Viewer) -> String;
    fn describe_action(&self, seat: Seat, action: &Value) -> Option<String>;
    /// An action written in the game's notation (see [`Game::parse_notation`]).
    fn parse_notation(&self, seat: Seat, text: &str) -> Option<Result<Value, String>>;
    /// How to write moves in the notation (see [`Game::notation_help`]).
    fn notation_help(&self, seat: Seat) -> Option<String>;
    /// The heading `action` is listed under in a long list (see [`Game::choice_group`]).
    fn choice_group(&self, seat: Seat, action: &Value) -> Option<String>;
    fn seat_name(&self, seat: Seat) -> String;
    /// What `seat` decides on (see [`Game::decision_basis`]).
    fn decision_basis(&self, seat: Seat) -> Value;
    /// A state `viewer` cannot tell apart from this one, with everything hidden from them
    /// (the random stream included) drawn afresh from `seed`: for previews that must not
    /// foretell hidden or random outcomes.
    fn resample_hidden(&self, viewer: Viewer, seed: [u8; 32]) -> Box<dyn LoadedGame>;
    /// The computer player's action for `seat` (see [`crate::engine::bot::choose_action`]),
    /// `recent` being the game's latest actions as logged, oldest first. Every typed game
    /// searches; the default, for stand-ins in tests that have no rules to search with,
    /// plays the first legal action.
    fn bot_action(
        &self,
        seat: Seat,
        seed: [u8; 32],
        budget: BotBudget,
        recent: &[(Seat, Value)],
    ) -> Option<Value> {
        let _ = (seed, budget, recent);
        self.legal_actions(seat).into_iter().next()
    }
    /// Whether the computer, playing `seat`, waits for another seat's answer rather than
    /// act: it has legal actions but weighs none of them (see [`Game::bot_candidates`]).
    fn bot_waits(&self, seat: Seat, recent: &[(Seat, Value)]) -> bool {
        let _ = (seat, recent);
        false
    }
    /// What a reader is shown, as the JSON text it is sent as: `viewer`'s view and, for
    /// `acting` (a seat of a game in play), its legal actions and their descriptions, in
    /// the order of [`LoadedGame::legal_actions`]. Typed games write it straight from
    /// their own types; going through [`Value`]s, as this default does, built every view
    /// and action twice and parsed each action back to describe it.
    fn seat_json(&self, viewer: Viewer, acting: Option<Seat>) -> SeatJson {
        let legal = acting.map(|s| self.legal_actions(s)).unwrap_or_default();
        let texts: Vec<String> = match acting {
            Some(s) => legal
                .iter()
                .map(|a| self.describe_action(s, a).unwrap_or_default())
                .collect(),
            None => Vec::new(),
        };
        SeatJson {
            view: raw_json(&self.view(viewer)),
            legal_actions: raw_json(&legal),
            legal_action_texts: raw_json(&texts),
        }
    }
    /// Deterministic serialisation: the snapshot stored in the database.
    fn encode(&self) -> String;

    /// The seats of `seats` that have something to decide: those in `to_act`, and any
    /// other with legal actions (an offer to answer, a simultaneous step). Each is owed a
    /// notification when it joins this set.
    fn actors(&self, seats: usize) -> Vec<Seat> {
        let to_act = self.status().to_act().to_vec();
        (0..seats)
            .filter(|s| to_act.contains(s) || self.has_legal_actions(*s))
            .collect()
    }
}

/// The result of a successful apply: the next state and how to log the action.
pub struct Applied {
    pub state: Box<dyn LoadedGame>,
    /// The action re-serialised in canonical form (what the log stores).
    pub action: Value,
    pub visibility: Visibility,
    /// The action in words, as the actor and those in `seen_by` see it.
    pub description: String,
}

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

/// A reader's view, legal actions and their descriptions as JSON text (see
/// [`LoadedGame::seat_json`]).
pub struct SeatJson {
    pub view: Box<RawValue>,
    pub legal_actions: Box<RawValue>,
    pub legal_action_texts: Box<RawValue>,
}

/// `value` as JSON text. Values built in memory always serialise; `null` stands in if one
/// ever did not.
pub fn raw_json<T: serde::Serialize + ?Sized>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_default()
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
        let description = self.game.describe_action(&self.state, seat, &typed);
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
        })
    }

    fn view(&self, viewer: Viewer) -> Value {
        serde_json::to_value(self.game.view(&self.state, viewer)).unwrap_or(Value::Null)
    }

    fn render_text(&self, viewer: Viewer) -> String {
        self.game.render_text(&self.state, viewer)
    }

    fn board_svg(&self, viewer: Viewer) -> String {
        let view = self.game.view(&self.state, viewer);
        self.game.board_svg(&view, viewer)
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
        SeatJson {
            view: raw_json(&self.game.view(&self.state, viewer)),
            legal_actions: raw_json(&legal),
            legal_action_texts: raw_json(&texts),
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
