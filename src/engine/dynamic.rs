//! The object-safe face of [`Game`], speaking JSON, so the server can hold every game in one
//! registry. A stored state is decoded once per request into a [`LoadedGame`], which keeps
//! the typed state and answers every question without re-parsing.

use serde_json::Value;
use serde_json::value::RawValue;

use super::budget::BotBudget;
use super::contract::{GameInfo, RuleError, Seat, SetupError, Status, Viewer, Visibility};
use super::people::People;

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
    /// See [`Game::takebacks`].
    fn takebacks(&self) -> bool;
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
    /// The board picture for `people.viewer()`, drawn from their view, naming the people
    /// at the table (see [`Game::board_svg`]).
    fn board_svg(&self, people: &People) -> String;
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
    /// The computer player's action for `seat` (see [`crate::bot::choose_action`]),
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
        let targets: Vec<Vec<String>> = vec![Vec::new(); texts.len()];
        SeatJson {
            view: raw_json(&self.view(viewer)),
            legal_actions: raw_json(&legal),
            legal_action_texts: raw_json(&texts),
            legal_action_targets: raw_json(&targets),
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
    /// The action in words for the log, after the mover's name, as the actor and those in
    /// `seen_by` see it ([`crate::contract::Game::log_text`]).
    pub description: String,
    /// The action as its player chose it ([`crate::contract::Game::describe_action`]): what a preview or an
    /// email answer echoes back to them.
    pub chosen: String,
}

/// A reader's view, legal actions and their descriptions as JSON text (see
/// [`LoadedGame::seat_json`]).
pub struct SeatJson {
    pub view: Box<RawValue>,
    pub legal_actions: Box<RawValue>,
    pub legal_action_texts: Box<RawValue>,
    /// For each legal action, what on the board picture it involves (see
    /// [`Game::action_targets`]).
    pub legal_action_targets: Box<RawValue>,
}

/// `value` as JSON text. Values built in memory always serialise; `null` stands in if one
/// ever did not.
pub fn raw_json<T: serde::Serialize + ?Sized>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).unwrap_or_default()
}
