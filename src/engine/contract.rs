//! The rules contract every game implements. A game is pure: a seeded setup plus a fold of
//! actions. No I/O, no clock, no ambient randomness (the state owns its [`GameRng`]).

use std::borrow::Cow;
use std::fmt::Debug;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::people::People;
use super::rng::GameRng;

/// A seat at the table, numbered from 0 in turn order as the server seated the players.
pub type Seat = usize;

/// Who is looking. A seat's view may include what its team shares (e.g. a partner's
/// exchanged card); a spectator sees only public information.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Viewer {
    Seat(Seat),
    Spectator,
}

impl Viewer {
    /// The seat, if this viewer is a player.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        }
    }
}

/// Static facts about a game type, served by `GET /api/v1/game-types`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GameInfo {
    /// Stable identifier used in URLs and the database (`kasino`, `space-empires-4x`).
    pub id: &'static str,
    pub name: &'static str,
    pub min_players: usize,
    pub max_players: usize,
    /// Bumped whenever a rule change would make an old log replay differently. Stored per
    /// game, so a live game keeps the rules it started with.
    pub rules_version: u32,
}

/// Why an action was refused. `code` is stable and machine-readable (snake_case); the
/// message explains it to a person. The state is untouched (apply takes `&State`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{code}: {message}")]
pub struct RuleError {
    pub code: Cow<'static, str>,
    pub message: String,
}

impl RuleError {
    /// The code the HTTP layer maps to 409 `not_your_turn` rather than 422.
    pub const NOT_YOUR_TURN: &'static str = "not_your_turn";
    /// The action is not of this game's action shape.
    pub const MALFORMED: &'static str = "malformed_action";
    /// The game has ended.
    pub const GAME_OVER: &'static str = "game_over";

    pub fn new(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        RuleError {
            code: code.into(),
            message: message.into(),
        }
    }

    pub fn not_your_turn(seat: Seat) -> Self {
        RuleError::new(
            Self::NOT_YOUR_TURN,
            format!("seat {seat} has nothing to do at this point"),
        )
    }

    pub fn game_over() -> Self {
        RuleError::new(Self::GAME_OVER, "the game has ended")
    }
}

/// Why a game could not be set up (bad options or player count).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize)]
#[error("{code}: {message}")]
pub struct SetupError {
    pub code: Cow<'static, str>,
    pub message: String,
}

impl SetupError {
    pub fn new(code: impl Into<Cow<'static, str>>, message: impl Into<String>) -> Self {
        SetupError {
            code: code.into(),
            message: message.into(),
        }
    }

    pub fn player_count(n: usize, min: usize, max: usize) -> Self {
        SetupError::new(
            "invalid_player_count",
            format!("this game takes {min} to {max} players, not {n}"),
        )
    }

    pub fn invalid_options(message: impl Into<String>) -> Self {
        SetupError::new("invalid_options", message)
    }

    /// A number option outside the range a new game may be created with.
    pub fn out_of_range(option: &str, range: std::ops::RangeInclusive<u32>, got: u32) -> Self {
        SetupError::new(
            "option_out_of_range",
            format!(
                "{option} must be {} to {}, not {got}",
                range.start(),
                range.end()
            ),
        )
    }
}

/// Where a game stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Status {
    /// The game waits for these seats (several at once in simultaneous steps). Other seats
    /// may still have optional actions (offers, answers to deals): see `legal_actions`.
    Active {
        to_act: Vec<Seat>,
    },
    Finished(Outcome),
}

impl Status {
    pub fn to_act(&self) -> &[Seat] {
        match self {
            Status::Active { to_act } => to_act,
            Status::Finished(_) => &[],
        }
    }

    pub fn is_finished(&self) -> bool {
        matches!(self, Status::Finished(_))
    }
}

/// What every game's view carries under the same names, types and meaning, so that a
/// client reads who the view is for, who may act and whether the game is over alike in
/// every game. A view embeds it with `#[serde(flatten)]`: its fields then sit at the top
/// of the view's JSON and of its published schema, documented here once. The contract
/// harness checks them against [`Game::status`] on every view of a checked playout.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
// Every view has all three, `viewer` as null for a spectator: required, so generated
// clients type it `number | null` rather than an optional field (schemars leaves an
// `Option` out of `required` on its own).
#[schemars(extend("required" = ["viewer", "to_act", "finished"]))]
// Flattened into a view without a description of its own, this text would become the
// view's description in the published schema.
#[schemars(transform = without_description)]
pub struct ViewCommon {
    /// The seat the view is for (the game's `your_seat`), or null for a spectator.
    pub viewer: Option<Seat>,
    /// The seats the game waits for now, as the game's `to_act`; empty once it has
    /// finished. Another seat may still have optional actions (answering an offer).
    pub to_act: Vec<Seat>,
    /// The game has ended; its result is the game's `result`.
    pub finished: bool,
}

fn without_description(schema: &mut schemars::Schema) {
    schema.remove("description");
}

impl ViewCommon {
    /// The common fields of `viewer`'s view of a game with `seats` seats in `status`. A
    /// seat number that is not at the table views as a spectator does.
    pub fn new(viewer: Viewer, seats: usize, status: &Status) -> ViewCommon {
        ViewCommon {
            viewer: viewer.seat().filter(|&s| s < seats),
            to_act: status.to_act().to_vec(),
            finished: status.is_finished(),
        }
    }
}

/// The result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Outcome {
    /// Every seat, best first. Equal `rank` means a tie (team-mates share a rank).
    pub ranking: Vec<Placing>,
    /// Teams, for team games; empty otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<TeamResult>,
    /// One line for people: "Seat 2 wins with 23 points" as the game writes it; the API
    /// answers it with the people beside their seats, as the caller knows them ("Bo (Seat 2)
    /// wins with 23 points", "You (Seat 2) win with 23 points" to Bo).
    pub summary: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Placing {
    pub seat: Seat,
    /// 1 is the winner; ties share a rank.
    pub rank: u32,
    pub score: Option<i64>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamResult {
    pub name: String,
    pub seats: Vec<Seat>,
    pub rank: u32,
    pub score: Option<i64>,
}

impl Outcome {
    /// Ranks seats by score, highest first, ties sharing a rank (standard competition
    /// ranking: 1, 1, 3).
    pub fn by_score(scores: &[(Seat, i64)], summary: impl Into<String>) -> Outcome {
        let mut sorted: Vec<(Seat, i64)> = scores.to_vec();
        sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut ranking = Vec::with_capacity(sorted.len());
        for (i, &(seat, score)) in sorted.iter().enumerate() {
            let rank = match i {
                0 => 1,
                _ if sorted[i - 1].1 == score => ranking.last().map_or(1, |p: &Placing| p.rank),
                _ => i as u32 + 1,
            };
            ranking.push(Placing {
                seat,
                rank,
                score: Some(score),
            });
        }
        Outcome {
            ranking,
            teams: Vec::new(),
            summary: summary.into(),
        }
    }

    /// The seats ranked first.
    pub fn winners(&self) -> Vec<Seat> {
        self.ranking
            .iter()
            .filter(|p| p.rank == 1)
            .map(|p| p.seat)
            .collect()
    }
}

/// Who may see an action in the log as it was submitted.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Visibility {
    /// Everyone sees the action as submitted.
    Public,
    /// Only `seen_by` (always including the actor) see it as submitted; everyone else sees
    /// `public_form`. Alternatives of one secret choice must share one public form, so the
    /// form itself tells nothing (the contract harness checks this).
    Private {
        seen_by: Vec<Seat>,
        public_form: serde_json::Value,
    },
}

/// A game's rules. Implement this for a unit struct (or one holding validated data) in
/// `src/games/<id>/`, then add one line to the registry in `src/games/mod.rs`.
///
/// Conventions that the server, the email layer and the harness rely on:
/// * `State` serialises deterministically (no `HashMap`; use `Vec`/`BTreeMap`), so the same
///   seed and log give the same bytes.
/// * `Action` is a serde enum, preferably `#[serde(tag = "type", rename_all = "snake_case")]`,
///   with a `JsonSchema` derive: clients build actions from it.
/// * `Options` is `#[serde(default, deny_unknown_fields)]`: defaults fill gaps, unknown
///   options are refused.
pub trait Game: Send + Sync + 'static {
    type Options: Serialize + DeserializeOwned + Default + JsonSchema + Clone + Debug;
    type State: Serialize + DeserializeOwned + Clone + Debug + PartialEq + Send + Sync;
    type Action: Serialize + DeserializeOwned + Clone + Debug + PartialEq + JsonSchema;
    /// What a viewer sees; its JSON Schema is published per game type, so clients get
    /// typed models. It embeds a [`ViewCommon`] with `#[serde(flatten)]` (the harness
    /// checks its fields).
    type View: Serialize + JsonSchema;

    fn info(&self) -> GameInfo;

    /// Deal, shuffle, place. `rng` is moved into the state.
    fn setup(
        &self,
        options: &Self::Options,
        seats: usize,
        rng: GameRng,
    ) -> Result<Self::State, SetupError>;

    fn status(&self, state: &Self::State) -> Status;

    /// Everything `seat` may submit now, each element valid as is. Empty when the seat has
    /// nothing to do. May be non-empty for a seat outside `to_act` (optional actions such as
    /// answering a deal). Order is stable: emails number the actions in this order.
    fn legal_actions(&self, state: &Self::State, seat: Seat) -> Vec<Self::Action>;

    /// False when `legal_actions` is a useful bounded sample of a larger space (e.g. melds
    /// on a grid) and `apply` accepts actions outside it.
    fn legal_actions_complete(&self) -> bool {
        true
    }

    /// False when no move of this game can ever be taken back, because every move shows
    /// someone something hidden before (a card played from a hand): clients then offer no
    /// takeback. The server judges each request on its own either way.
    fn takebacks(&self) -> bool {
        true
    }

    /// The action the server plays for `seat` now, because it is the seat's only choice and
    /// involves no decision (an `end_turn`-only step, a single legal capture), so the player
    /// is not asked for a round trip by email. `None` leaves the seat to act. The default
    /// plays the only legal action when `legal_actions` is complete (a sampled list may hide
    /// other choices) and [`Game::plays_itself`] allows it.
    fn forced_action(&self, state: &Self::State, seat: Seat) -> Option<Self::Action> {
        if !self.legal_actions_complete() {
            return None;
        }
        only_choice(self.legal_actions(state, seat)).filter(|a| self.plays_itself(state, a))
    }

    /// Whether the server may play `action` when it is a seat's only choice. A game says no
    /// for a step it wants players to take themselves (e.g. a dice roll, where that is its
    /// house rule).
    fn plays_itself(&self, _state: &Self::State, _action: &Self::Action) -> bool {
        true
    }

    /// The state after `seat` plays `action`, or why not. Never panics on any input.
    fn apply(
        &self,
        state: &Self::State,
        seat: Seat,
        action: &Self::Action,
    ) -> Result<Self::State, RuleError>;

    /// What `viewer` may see. Must not depend on anything hidden from `viewer`.
    fn view(&self, state: &Self::State, viewer: Viewer) -> Self::View;

    /// Who may see `action` (played by `seat` on `before`) in the log.
    fn action_visibility(
        &self,
        _before: &Self::State,
        _seat: Seat,
        _action: &Self::Action,
    ) -> Visibility {
        Visibility::Public
    }

    /// One line a person understands ("capture 7♥ with the 3 and the 4"), unique among the
    /// seat's legal actions. Email replies may quote it back as the action's text form.
    fn describe_action(&self, state: &Self::State, seat: Seat, action: &Self::Action) -> String;

    /// The state as plain text for `viewer`, readable in a monospace font: the body of a
    /// turn email. Shows only what `viewer` may see.
    fn render_text(&self, state: &Self::State, viewer: Viewer) -> String;

    /// The board as an SVG picture, drawn from `view` alone (so it can never show more than
    /// the view), 600 px wide, with `<title>` and `<desc>` for screen readers that say the
    /// position in words (see [`crate::svg`]). Same view and people, same bytes. `people`
    /// says whose picture it is (e.g. to draw that seat's hand at the bottom) and who sits
    /// where: every seat the picture shows is named with [`People::label`].
    ///
    /// Whatever a legal action involves ([`Game::action_targets`]) is drawn with a
    /// `data-target` attribute naming it, so a click on the picture can select the actions
    /// that involve what was clicked; the picture must read as well without them.
    fn board_svg(&self, view: &Self::View, people: &People) -> String {
        let _ = people;
        let text = serde_json::to_string_pretty(view).unwrap_or_default();
        super::svg::text_picture(self.info().name, &text)
    }

    /// What on the board picture `action` involves: the `data-target` values of the
    /// picture's elements (a card, a hex, a ship, a port) that a click selects it by. A
    /// click on one element selects the actions naming it; a second click narrows them to
    /// those naming both. Empty (the default) when nothing on the picture stands for it.
    fn action_targets(
        &self,
        _state: &Self::State,
        _seat: Seat,
        _action: &Self::Action,
    ) -> Vec<String> {
        Vec::new()
    }

    /// `action`, played by `seat`, as the log tells it to everyone who may see it, after
    /// the mover's name: third person ("placed a Homeworld at B4"), naming places as the
    /// picture does. Defaults to [`Game::describe_action`], which suits only texts that
    /// read as well after a name.
    fn log_text(&self, state: &Self::State, seat: Seat, action: &Self::Action) -> String {
        self.describe_action(state, seat, action)
    }

    /// An action in the game's notation for people, for moves too big to list as choices
    /// (a Crossword Rummy meld: `lay R5 R6 R7 at 2,3 right`). `None` when `text` is not in
    /// the notation; `Some(Err(why))` when it is but cannot be read on this position.
    /// Consecutive lines of an email reply that are each in the notation are read together,
    /// as one action.
    fn parse_notation(
        &self,
        _state: &Self::State,
        _seat: Seat,
        _text: &str,
    ) -> Option<Result<Self::Action, String>> {
        None
    }

    /// A heading that gathers `action` with others of the seat's legal actions into one
    /// choice, so that a long list in an email becomes two steps (a Starfarers flight:
    /// first ship and destination, then the route). `None` keeps it a choice of its own.
    fn choice_group(
        &self,
        _state: &Self::State,
        _seat: Seat,
        _action: &Self::Action,
    ) -> Option<String> {
        None
    }

    /// How to write moves in the notation, with an example from `seat`'s own position;
    /// `None` for a game without one.
    fn notation_help(&self, _state: &Self::State, _seat: Seat) -> Option<String> {
        None
    }

    /// A name for a seat in this game ("South", "Red"). Defaults to "Seat N".
    fn seat_name(&self, _state: &Self::State, seat: Seat) -> String {
        format!("Seat {}", seat.saturating_add(1))
    }

    /// A state that `viewer` cannot tell apart from `state`: every piece of information
    /// hidden from `viewer` (other hands, deck order, face-down markers, secret orders, the
    /// RNG) replaced by another consistent choice. It need not be reachable by play. The
    /// harness checks that `view` and `legal_actions` for `viewer` do not change. A game
    /// without hidden information keeps the default.
    fn resample_hidden(
        &self,
        state: &Self::State,
        _viewer: Viewer,
        _rng: &mut GameRng,
    ) -> Self::State {
        state.clone()
    }

    /// How well `seat` stands in an unfinished game, from 0 (losing) to 1 (winning), for
    /// the computer player ([`crate::bot`]) when a playout stops before the end.
    /// Usually the seat's score against the best other (see
    /// [`crate::bot::standing_from_scores`]). `None` scores every unfinished
    /// position alike, which suits games that the playouts finish.
    fn bot_standing(&self, _state: &Self::State, _seat: Seat) -> Option<f64> {
        None
    }

    /// The actions the computer player weighs for `seat`, out of its `legal` ones: all of
    /// them by default. A game narrows them where a legal action would be unfair play from
    /// a machine that decides in microseconds (a Starfarers offer withdrawn before its
    /// recipient could answer, or offered thousands of times a turn). `recent` is the
    /// game's latest actions, oldest first (at most [`crate::bot::RECENT`]; fewer
    /// at the start of a game), for rules that count what the seat did this turn. An empty
    /// answer while `legal` is not empty means the seat waits for another seat's answer;
    /// the server then lets that seat act, or plays from `legal` if nobody else can.
    fn bot_candidates(
        &self,
        _state: &Self::State,
        _seat: Seat,
        legal: Vec<Self::Action>,
        _recent: &[(Seat, Self::Action)],
    ) -> Vec<Self::Action> {
        legal
    }

    /// Options a new game may not be created with, though stored games keep them (their
    /// set-up and replay must not change): checked when a game is created or a rematch
    /// asked for, never at replay.
    fn check_new_options(&self, _options: &Self::Options) -> Result<(), SetupError> {
        Ok(())
    }

    /// What `seat` decides on: an action it chose on an earlier state is still accepted
    /// when this is the same then as now, though others moved in between (simultaneous
    /// steps). By default the seat's whole view and its legal actions; a game may leave out
    /// what cannot bear on the decision (e.g. who else has already chosen).
    fn decision_basis(&self, state: &Self::State, seat: Seat) -> serde_json::Value {
        serde_json::json!({
            "view": serde_json::to_value(self.view(state, Viewer::Seat(seat))).unwrap_or_default(),
            "legal": serde_json::to_value(self.legal_actions(state, seat)).unwrap_or_default(),
        })
    }

    /// Validate shipped data files (boards, card lists); called once at server start.
    fn check_data(&self) -> Result<(), String> {
        Ok(())
    }

    /// Rules versions whose stored games this implementation still replays exactly (the
    /// state records which rules it was set up under and branches on it). A stored game
    /// whose version is outside the range is refused rather than replayed differently.
    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32> {
        let v = self.info().rules_version;
        v..=v
    }

    /// Game-specific invariants of one state: cards, tiles and pieces conserved, money never
    /// negative, scores consistent. The contract harness calls it after setup and after
    /// every action of every random playout; an `Err` names the broken invariant.
    fn check_invariants(&self, _state: &Self::State) -> Result<(), String> {
        Ok(())
    }

    /// Game-specific invariants of one transition (`seat` played `action` on `before`,
    /// giving `after`): e.g. the points a finished round adds equal their recomputation
    /// from the captured cards. Called by the harness after every action.
    fn check_step(
        &self,
        _before: &Self::State,
        _seat: Seat,
        _action: &Self::Action,
        _after: &Self::State,
    ) -> Result<(), String> {
        Ok(())
    }
}

/// The single element of `legal`, if it has exactly one.
pub fn only_choice<A>(mut legal: Vec<A>) -> Option<A> {
    if legal.len() == 1 { legal.pop() } else { None }
}
