//! The Starfarers of Catan (Klaus Teuber): production, trade, flight, colonies and alien
//! friendship. Rules as players read them: `RULES.md` here. The authored content pack (board,
//! chips, costs, balls, encounter and friendship cards) is `starfarers.toml`, validated at
//! start.
//!
//! Readings where the rules leave room (all documented on the actions too):
//! * A flight follows the shortest route, or one through the player's `via` waypoints; every
//!   face-down chip next to the route is peeked at (looking is free, HR-14).
//! * The active player has at most one pending offer; it lapses when they launch or end the
//!   turn, and is withdrawn if they spend the offered cards. `legal_actions` lists offers as
//!   one-for-one swaps, `apply` takes any offer (`legal_actions_complete` is false).
//! * Ships that have not flown stay where they are when the turn ends, if they may end there.
//! * A cleared planet with the reserve pile empty keeps no chip and never produces.
//! * `turn_limit` (house rule, off by default) ends the game after that many turns, the
//!   most VP winning: random playouts use it.

pub mod actions;
mod actions_text;
mod board;
pub mod bot;
pub mod data;
mod invariants;
mod notation;
pub mod render;
pub mod rules;
pub mod state;
#[cfg(test)]
mod tests;

use turnpost_engine::People;
use turnpost_engine::{
    Game, GameInfo, GameRng, Outcome, RuleError, Seat, SetupError, Status, Viewer, Visibility,
};

pub use actions::Action;
pub use data::{Data, parse_and_validate};
pub use state::{Options, State};

pub const ID: &str = "starfarers";

/// The turn limits a new game may have: a game to 15 VP takes far fewer turns, and a
/// larger limit only lets the computer play on (stored games keep theirs).
pub const TURN_LIMITS: std::ops::RangeInclusive<u32> = 1..=300;

/// The game, holding its validated content pack.
pub struct Starfarers {
    data: Data,
    error: Option<String>,
}

impl Starfarers {
    /// Loads the shipped data file. A broken file is kept as an error: `check_data` reports
    /// it at server start and `setup` refuses to start a game.
    pub fn new() -> Self {
        match parse_and_validate(data::DATA_TOML) {
            Ok(data) => Starfarers { data, error: None },
            Err(e) => Starfarers {
                data: Data::default(),
                error: Some(e),
            },
        }
    }

    /// A game over another content pack (tests, variants).
    pub fn with_data(data: Data) -> Self {
        Starfarers { data, error: None }
    }

    pub fn data(&self) -> &Data {
        &self.data
    }
}

impl Default for Starfarers {
    fn default() -> Self {
        Self::new()
    }
}

impl Game for Starfarers {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = render::View;

    fn info(&self) -> GameInfo {
        GameInfo {
            id: ID,
            name: "The Starfarers of Catan",
            min_players: 3,
            max_players: 4,
            rules_version: 1,
        }
    }

    fn check_new_options(&self, options: &Options) -> Result<(), SetupError> {
        match options.turn_limit {
            Some(l) if !TURN_LIMITS.contains(&l) => {
                Err(SetupError::out_of_range("turn_limit", TURN_LIMITS, l))
            }
            _ => Ok(()),
        }
    }

    fn setup(&self, options: &Options, seats: usize, rng: GameRng) -> Result<State, SetupError> {
        if let Some(e) = &self.error {
            return Err(SetupError::new("invalid_data", e.clone()));
        }
        rules::setup(&self.data, options, seats, rng)
    }

    fn status(&self, state: &State) -> Status {
        if !matches!(state.phase, state::Phase::Over) {
            return Status::Active {
                to_act: rules::to_act(state),
            };
        }
        let d = &self.data;
        let scores: Vec<(Seat, i64)> = (0..state.seats)
            .map(|s| (s, i64::from(rules::vp(d, state, s))))
            .collect();
        Status::Finished(match state.winner {
            Some(w) => {
                let others: Vec<(Seat, i64)> =
                    scores.iter().copied().filter(|x| x.0 != w).collect();
                let mut out = Outcome::by_score(&others, "");
                for p in &mut out.ranking {
                    p.rank += 1;
                }
                let wv = scores.iter().find(|x| x.0 == w).map_or(0, |x| x.1);
                out.ranking.insert(
                    0,
                    turnpost_engine::Placing {
                        seat: w,
                        rank: 1,
                        score: Some(wv),
                    },
                );
                out.summary = format!("{} wins with {wv} VP", rules::player_name(state, w));
                out
            }
            None => {
                let best = scores.iter().map(|x| x.1).max().unwrap_or(0);
                Outcome::by_score(&scores, format!("turn limit reached; best score {best} VP"))
            }
        })
    }

    fn legal_actions(&self, state: &State, seat: Seat) -> Vec<Action> {
        rules::legal(&self.data, state, seat)
    }

    /// Trade offers are listed as one-for-one swaps; `apply` also takes any other offer.
    fn legal_actions_complete(&self) -> bool {
        false
    }

    /// Only trade offers are sampled, and whenever one is possible at least one is listed,
    /// so a single listed action really is the only choice: a forced roll or the end of a
    /// turn with nothing left to do is played for the seat (house rule in RULES.md).
    fn forced_action(&self, state: &State, seat: Seat) -> Option<Action> {
        turnpost_engine::only_choice(self.legal_actions(state, seat))
    }

    fn apply(&self, state: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
        rules::apply(&self.data, state, seat, action)
    }

    fn view(&self, state: &State, viewer: Viewer) -> render::View {
        render::view(&self.data, state, viewer, &self.status(state))
    }

    fn action_visibility(&self, _before: &State, seat: Seat, action: &Action) -> Visibility {
        match action {
            // A pending offer is for the two players involved (rules 7).
            Action::OfferTrade { to, .. } => Visibility::Private {
                seen_by: if *to == seat {
                    vec![seat]
                } else {
                    vec![seat, *to]
                },
                public_form: serde_json::json!({"type": "offer_trade", "to": to}),
            },
            _ => Visibility::Public,
        }
    }

    /// Flights are listed by ship and destination first, the route second: a position
    /// may have hundreds of them.
    fn choice_group(&self, state: &State, seat: Seat, action: &Action) -> Option<String> {
        let Action::Fly { ship, to, via } = action else {
            return None;
        };
        let direct = Action::Fly {
            ship: *ship,
            to: *to,
            via: Vec::new(),
        };
        let text = self.describe_action(state, seat, &direct);
        (!via.is_empty() || text.starts_with("fly ")).then_some(text)
    }

    fn describe_action(&self, state: &State, seat: Seat, action: &Action) -> String {
        actions_text::describe(&self.data, state, seat, action)
    }

    /// Any trade offer, written out (email players bargain too).
    fn parse_notation(
        &self,
        state: &State,
        _seat: Seat,
        text: &str,
    ) -> Option<Result<Action, String>> {
        notation::parse_offer(state, text)
    }

    fn notation_help(&self, state: &State, seat: Seat) -> Option<String> {
        self.legal_actions(state, seat)
            .iter()
            .any(|a| matches!(a, Action::OfferTrade { .. }))
            .then(|| notation::help(state, seat))
    }

    fn render_text(&self, state: &State, viewer: Viewer) -> String {
        render::render(&self.data, state, viewer, &self.status(state))
    }

    fn board_svg(&self, view: &render::View, people: &People) -> String {
        board::picture(&self.data, view, people)
    }

    /// Ships `ship:<id>`, intersections `node:r12c30` (as the map's row and column numbers
    /// name them), planets `planet:<n>`, players `seat:<n>`.
    fn action_targets(&self, _state: &State, _seat: Seat, action: &Action) -> Vec<String> {
        actions_text::targets(&self.data, action)
    }

    fn log_text(&self, state: &State, seat: Seat, action: &Action) -> String {
        actions_text::log_text(&self.data, state, seat, action)
    }

    fn seat_name(&self, state: &State, seat: Seat) -> String {
        rules::player_name(state, seat)
    }

    fn bot_standing(&self, state: &State, seat: Seat) -> Option<f64> {
        bot::standing(&self.data, state, seat)
    }

    /// At most a few offers a turn, each left open until its recipient answered it.
    fn bot_candidates(
        &self,
        state: &State,
        seat: Seat,
        legal: Vec<Action>,
        recent: &[(Seat, Action)],
    ) -> Vec<Action> {
        bot::candidates(state, seat, legal, recent)
    }

    fn resample_hidden(&self, state: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        render::resample(&self.data, state, viewer, rng)
    }

    fn check_invariants(&self, state: &State) -> Result<(), String> {
        invariants::check_state(&self.data, state)
    }

    fn check_step(
        &self,
        before: &State,
        seat: Seat,
        action: &Action,
        after: &State,
    ) -> Result<(), String> {
        invariants::check_transition(&self.data, before, seat, action, after)
    }

    fn check_data(&self) -> Result<(), String> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}
