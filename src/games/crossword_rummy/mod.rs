//! Crossword Rummy (working title): Thade Precht's tile game on a grid. Digest:
//! RULES.md beside this file.

pub mod actions;
mod board;
mod bot;
pub mod data;
pub mod generate;
pub mod invariants;
pub mod notation;
pub mod play;
pub mod render;
pub mod state;
pub mod steer;
pub mod validate;

#[cfg(test)]
mod tests;

use serde_json::json;
use turnpost_engine::People;

use turnpost_engine::{
    Game, GameInfo, GameRng, RuleError, Seat, SetupError, Status, Viewer, Visibility,
};

pub use actions::codes;
use actions::err;
pub use data::{Face, Rules, Tile};
pub use state::{Action, GameRecord, Options, Phase, Placed, Placement, State};
pub use validate::{BenchFixture, MeldContext, bench_fixture_large_table, validate_table};

pub const ID: &str = "crossword-rummy";

/// The game type. Its numbers come from `rules.toml` (copied into each state at setup).
#[derive(Clone, Copy, Debug, Default)]
pub struct CrosswordRummy;

impl Game for CrosswordRummy {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = render::View;

    fn info(&self) -> GameInfo {
        let (min_players, max_players) =
            data::load().map_or((2, 4), |r| (r.min_players, r.max_players));
        GameInfo {
            id: ID,
            name: "Crossword Rummy",
            min_players,
            max_players,
            rules_version: state::RULES_VERSION,
        }
    }

    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32> {
        1..=state::RULES_VERSION
    }

    fn setup(
        &self,
        options: &Options,
        seats: usize,
        mut rng: GameRng,
    ) -> Result<State, SetupError> {
        let rules = data::load().map_err(|e| SetupError::new("broken_data", e))?;
        if seats < rules.min_players || seats > rules.max_players {
            return Err(SetupError::player_count(
                seats,
                rules.min_players,
                rules.max_players,
            ));
        }
        if options.games == 0 || options.games > rules.max_series_games {
            return Err(SetupError::invalid_options(format!(
                "games must be 1 to {}, not {}",
                rules.max_series_games, options.games
            )));
        }
        let starter = match options.first_player {
            Some(s) if s < seats => s,
            Some(s) => {
                return Err(SetupError::invalid_options(format!(
                    "first_player {s} is not a seat (0 to {})",
                    seats - 1
                )));
            }
            None => rng.below(seats),
        };
        let mut state = State {
            rules_version: state::RULES_VERSION,
            rules,
            options: options.clone(),
            seats,
            rng,
            bag: Vec::new(),
            display: Vec::new(),
            racks: Vec::new(),
            table: Vec::new(),
            opened: Vec::new(),
            turn: starter,
            phase: Phase::Turn,
            passes_in_row: 0,
            played_actions: Vec::new(),
            received: Vec::new(),
            events: Vec::new(),
            game_no: 1,
            starter,
            totals: vec![0; seats],
            history: Vec::new(),
        };
        state.deal(starter);
        state.note(format!("game 1 begins; Seat {} starts", starter + 1));
        Ok(state)
    }

    fn status(&self, state: &State) -> Status {
        match &state.phase {
            Phase::Turn => Status::Active {
                to_act: vec![state.turn],
            },
            Phase::Passing { chosen, .. } => Status::Active {
                to_act: chosen
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.is_none())
                    .map(|(s, _)| s)
                    .collect(),
            },
            Phase::Finished { outcome } => Status::Finished(outcome.clone()),
        }
    }

    fn legal_actions(&self, state: &State, seat: Seat) -> Vec<Action> {
        match &state.phase {
            Phase::Finished { .. } => Vec::new(),
            Phase::Passing { chosen, .. } => match chosen.get(seat) {
                Some(None) => self.pass_choices(state, seat),
                _ => Vec::new(),
            },
            Phase::Turn if seat == state.turn => self.turn_choices(state, seat),
            Phase::Turn => Vec::new(),
        }
    }

    fn legal_actions_complete(&self) -> bool {
        // Melds are a generated sample; any valid rearrangement is accepted by apply.
        false
    }

    fn parse_notation(
        &self,
        state: &State,
        seat: Seat,
        text: &str,
    ) -> Option<Result<Action, String>> {
        notation::parse(state, seat, text)
    }

    /// Only on the seat's own turn: that is when it may meld.
    fn notation_help(&self, state: &State, seat: Seat) -> Option<String> {
        (matches!(state.phase, Phase::Turn) && state.turn == seat)
            .then(|| notation::help(state, seat, &self.legal_actions(state, seat)))
    }

    fn apply(&self, state: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
        if seat >= state.seats {
            return Err(RuleError::not_your_turn(seat));
        }
        match &state.phase {
            Phase::Finished { .. } => Err(RuleError::game_over()),
            Phase::Passing { chosen, .. } => match (action, chosen.get(seat)) {
                (Action::PassTiles { tiles }, _) => self.apply_passing(state, seat, tiles),
                (_, Some(None)) => Err(err(
                    codes::PASSING_IN_PROGRESS,
                    "a pass_two is being resolved: choose the tiles to pass to your left",
                )),
                _ => Err(RuleError::not_your_turn(seat)),
            },
            Phase::Turn if seat != state.turn => Err(RuleError::not_your_turn(seat)),
            Phase::Turn => self.apply_turn(state, seat, action),
        }
    }

    fn view(&self, state: &State, viewer: Viewer) -> render::View {
        render::view(state, viewer, &self.status(state))
    }

    fn action_visibility(&self, before: &State, seat: Seat, action: &Action) -> Visibility {
        match (action, &before.phase) {
            (Action::PassTiles { .. }, Phase::Passing { chosen, .. }) => {
                let receiver = seat.saturating_add(1) % before.seats.max(1);
                // The receiver may look only after submitting their own tiles (seed), so a
                // receiver who has not chosen yet does not see this entry.
                let mut seen_by = vec![seat];
                if receiver != seat && chosen.get(receiver).is_some_and(Option::is_some) {
                    seen_by.push(receiver);
                }
                Visibility::Private {
                    seen_by,
                    public_form: json!({"type": "pass_tiles", "tiles": "hidden"}),
                }
            }
            _ => Visibility::Public,
        }
    }

    fn describe_action(&self, state: &State, seat: Seat, action: &Action) -> String {
        let rules = &state.rules;
        let name = |id: &str| {
            rules
                .parse_tile(id)
                .map_or_else(|| format!("{id:?}"), |t| rules.label(t))
        };
        match action {
            Action::TakeDisplay { tile } => format!("take {} from the display", name(tile)),
            Action::DrawBag => "draw a tile from the bag".into(),
            Action::Pass => "pass".into(),
            Action::PlayAction { tile, target: None } => format!("play {}", name(tile)),
            Action::PlayAction {
                tile,
                target: Some(v),
            } => {
                format!("play {} on {}", name(tile), self.seat_name(state, *v))
            }
            Action::PassTiles { tiles } => {
                let names: Vec<String> = tiles.iter().map(|t| name(t)).collect();
                format!(
                    "pass {} to {}",
                    names.join(" and "),
                    self.seat_name(state, seat.saturating_add(1) % state.seats.max(1))
                )
            }
            Action::Meld { table } => self.describe_meld(state, table),
        }
    }

    fn seat_name(&self, _state: &State, seat: Seat) -> String {
        format!("Seat {}", seat.saturating_add(1))
    }

    /// Drawn for the viewer the view was made for (`view.viewer`).
    fn board_svg(&self, view: &render::View, people: &People) -> String {
        board::board_svg(view, people)
    }

    /// Rack tiles `tile:<id>`, display tiles `display:<id>`, table tiles a meld moves by
    /// their cell `cell:<x>.<y>`, the seat a draw three hits `seat:<n>`, and the `bag`.
    fn action_targets(&self, state: &State, _seat: Seat, action: &Action) -> Vec<String> {
        let rules = &state.rules;
        let canonical = |id: &str| {
            rules
                .parse_tile(id)
                .map_or_else(|| id.to_string(), |t| rules.tile_id(t))
        };
        match action {
            Action::TakeDisplay { tile } => vec![board::display_target(&canonical(tile))],
            Action::DrawBag => vec![board::BAG_TARGET.to_string()],
            Action::Pass => Vec::new(),
            Action::PlayAction { tile, target } => {
                let mut t = vec![board::rack_target(&canonical(tile))];
                t.extend(target.map(board::seat_target));
                t
            }
            Action::PassTiles { tiles } => tiles
                .iter()
                .map(|id| board::rack_target(&canonical(id)))
                .collect(),
            Action::Meld { table } => {
                let mut laid = Vec::new();
                let mut moved = Vec::new();
                for p in table {
                    let on_table = rules
                        .parse_tile(&p.tile)
                        .and_then(|t| state.table.iter().find(|q| q.tile == t));
                    match on_table {
                        Some(q) if (q.x, q.y) != (p.x, p.y) => {
                            moved.push(board::cell_target(q.x, q.y));
                        }
                        Some(_) => {}
                        None => laid.push(board::rack_target(&canonical(&p.tile))),
                    }
                }
                laid.extend(moved);
                laid
            }
        }
    }

    fn log_text(&self, state: &State, seat: Seat, action: &Action) -> String {
        self.log_line(state, seat, action)
    }

    fn render_text(&self, state: &State, viewer: Viewer) -> String {
        render::text(state, viewer, &self.status(state))
    }

    fn bot_standing(&self, state: &State, seat: Seat) -> Option<f64> {
        bot::standing(state, seat)
    }

    fn resample_hidden(&self, state: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        let mut next = state.clone();
        let me = viewer.seat();
        // Tiles the viewer may see in another seat's rack: what its right-hand neighbour
        // chose to pass it, once both have chosen.
        let mut pinned: Vec<Vec<Tile>> = vec![Vec::new(); state.seats];
        if let (Some(me), Phase::Passing { chosen, .. }) = (me, &state.phase) {
            let right = (me + state.seats - 1) % state.seats.max(1);
            if right != me
                && let (Some(Some(_)), Some(Some(theirs))) = (chosen.get(me), chosen.get(right))
                && let Some(slot) = pinned.get_mut(right)
            {
                *slot = theirs.clone();
            }
        }
        // After a pass resolves, the viewer knows that its left-hand neighbour holds what
        // the viewer passed it (`received` of that seat), until the neighbour lays them.
        if let (Some(me), Phase::Turn) = (me, &state.phase) {
            let left = (me + 1) % state.seats.max(1);
            if left != me
                && let (Some(given), Some(rack), Some(slot)) = (
                    state.received.get(left),
                    state.racks.get(left),
                    pinned.get_mut(left),
                )
            {
                slot.extend(given.iter().filter(|t| rack.contains(t)));
            }
        }
        // The bag is kept sorted and drawn from at random, so its hidden part is its
        // contents: they are pooled with the other racks' unknown tiles and dealt anew. A
        // fresh RNG below then makes every later draw (bag, refill, draw_three) differ.
        let mut pool: Vec<Tile> = next.bag.clone();
        let mut hidden_count: Vec<usize> = vec![0; state.seats];
        for s in (0..state.seats).filter(|&s| Some(s) != me) {
            let rack = &state.racks[s];
            let keep = &pinned[s];
            for &t in rack {
                if !keep.contains(&t) {
                    pool.push(t);
                    hidden_count[s] += 1;
                }
            }
        }
        // Sorted first, so the world drawn depends only on what is unseen, not on where it lay:
        // the same seed gives the same world for states the viewer cannot tell apart.
        pool.sort();
        rng.shuffle(&mut pool);
        for s in (0..state.seats).filter(|&s| Some(s) != me) {
            let take = hidden_count[s].min(pool.len());
            let fresh: Vec<Tile> = pool.drain(..take).collect();
            let mut rack = pinned[s].clone();
            rack.extend(fresh.iter().copied());
            rack.sort_unstable();
            next.racks[s] = rack;
            // A hidden pending pass is re-chosen among the new tiles.
            if let Phase::Passing { chosen, .. } = &mut next.phase
                && let Some(Some(c)) = chosen.get_mut(s)
                && pinned[s].is_empty()
            {
                let mut pick: Vec<Tile> = fresh.iter().copied().take(c.len()).collect();
                pick.sort_unstable();
                *c = pick;
            }
            // What another seat received is hidden from the viewer unless the viewer gave it.
            if (me.map(|m| (m + 1) % state.seats.max(1)) != Some(s))
                && let Some(r) = next.received.get_mut(s)
            {
                r.clear();
            }
        }
        pool.sort_unstable();
        next.bag = pool;
        next.rng = rng.fork();
        next
    }

    fn check_data(&self) -> Result<(), String> {
        data::load().map(|_| ())
    }

    fn check_invariants(&self, state: &State) -> Result<(), String> {
        invariants::check(state)
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
}
