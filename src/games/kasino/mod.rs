//! Kasino, the Danish fishing card game (rules: RULES.md beside this file): capture table
//! cards by matching and adding up, build, sweep, and play rounds to 21.

mod actions;
mod board;
mod bot;
mod combos;
mod data;
mod invariants;
mod largest;
mod notation;
mod render;
mod scoring;
mod state;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_crowded;
#[cfg(test)]
mod tests_notation;
#[cfg(test)]
mod tests_people;

pub use actions::Action;
pub use data::Params;
pub use render::View;
pub use state::{Build, BuildKind, CURRENT_RULES, FIRST_RULES, Item, Options, RoundLine, State};

use turnpost_engine::People;
use turnpost_engine::{Game, GameInfo, GameRng, RuleError, Seat, SetupError, Status, Viewer};

pub const ID: &str = "kasino";

/// The Kasino rules engine.
#[derive(Clone, Copy, Debug, Default)]
pub struct Kasino;

impl Game for Kasino {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;

    fn info(&self) -> GameInfo {
        GameInfo {
            id: ID,
            name: "Kasino",
            min_players: 2,
            max_players: 4,
            rules_version: CURRENT_RULES,
        }
    }

    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32> {
        FIRST_RULES..=CURRENT_RULES
    }

    /// Every move plays a card from a hand the others cannot see.
    fn takebacks(&self) -> bool {
        false
    }

    fn check_invariants(&self, state: &State) -> Result<(), String> {
        invariants::check_state(state)
    }

    fn check_step(
        &self,
        before: &State,
        seat: Seat,
        action: &Action,
        after: &State,
    ) -> Result<(), String> {
        invariants::check_step(before, seat, action, after)
    }

    fn setup(&self, options: &Options, seats: usize, rng: GameRng) -> Result<State, SetupError> {
        let params = Params::load().map_err(|e| SetupError::new("broken_game_data", e))?;
        State::new(params, options, seats, rng)
    }

    fn status(&self, state: &State) -> Status {
        if state.finished {
            Status::Finished(state.outcome())
        } else {
            Status::Active {
                to_act: vec![state.turn],
            }
        }
    }

    fn legal_actions(&self, state: &State, seat: Seat) -> Vec<Action> {
        actions::legal(state, seat)
    }

    /// On a crowded table the captures and builds are a bounded sample (each card's
    /// largest capture always among them); `apply` accepts any the rules allow.
    fn legal_actions_complete(&self) -> bool {
        false
    }

    /// The only listed action plays itself when the list is known to be whole: a sample
    /// is only drawn from thousands of ways, so a forced last card (HR-12) is never one.
    fn forced_action(&self, state: &State, seat: Seat) -> Option<Action> {
        let listed = actions::listing(state, seat);
        if !listed.complete {
            return None;
        }
        turnpost_engine::only_choice(listed.actions)
    }

    fn parse_notation(
        &self,
        state: &State,
        seat: Seat,
        text: &str,
    ) -> Option<Result<Action, String>> {
        notation::parse(state, seat, text)
    }

    /// Only on the seat's own turn, with its own hand in the example.
    fn notation_help(&self, state: &State, seat: Seat) -> Option<String> {
        (!state.finished && state.turn == seat).then(|| notation::help(state, seat))
    }

    fn apply(&self, state: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
        actions::apply(state, seat, action)
    }

    fn view(&self, state: &State, viewer: Viewer) -> View {
        render::view(state, viewer, &self.status(state))
    }

    fn describe_action(&self, state: &State, _seat: Seat, action: &Action) -> String {
        render::describe(state, action)
    }

    fn render_text(&self, state: &State, viewer: Viewer) -> String {
        render::render_text(state, viewer)
    }

    fn board_svg(&self, view: &View, people: &People) -> String {
        board::board_svg(view, people)
    }

    fn action_targets(&self, _state: &State, _seat: Seat, action: &Action) -> Vec<String> {
        render::targets(action)
    }

    fn log_text(&self, state: &State, _seat: Seat, action: &Action) -> String {
        render::log_text(state, action)
    }

    /// Other hands and the stock are dealt afresh from the cards the viewer cannot see,
    /// keeping every hand size; the RNG is reseeded.
    fn bot_standing(&self, state: &State, seat: Seat) -> Option<f64> {
        bot::standing(state, seat)
    }

    fn resample_hidden(&self, state: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        let me = viewer.seat();
        let mut next = state.clone();
        let mut unseen: Vec<_> = next.stock.clone();
        for (s, h) in next.hands.iter().enumerate() {
            if Some(s) != me {
                unseen.extend(h.iter().copied());
            }
        }
        // Sorted first, so the world drawn depends only on what is unseen, not on where it lay:
        // the same seed gives the same world for states the viewer cannot tell apart.
        unseen.sort();
        rng.shuffle(&mut unseen);
        for (s, h) in next.hands.iter_mut().enumerate() {
            if Some(s) != me {
                let n = h.len();
                *h = unseen.drain(..n.min(unseen.len())).collect();
                h.sort();
            }
        }
        next.stock = unseen;
        next.rng = rng.fork();
        next
    }

    fn check_data(&self) -> Result<(), String> {
        Params::load().map(|_| ())
    }
}
