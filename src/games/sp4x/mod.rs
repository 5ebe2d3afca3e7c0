//! SP4X: Old Maid meets 4X on a hex map (Fastaval). Rules: RULES.md beside this file.

mod actions;
mod board;
mod bot;
mod data;
mod invariants;
mod jobs;
mod picture;
mod render;
mod rules;
mod state;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use turnpost_engine::People;

pub use actions::Action;
pub use state::{Card, Resource, State, TileKind};

use state::{Frame, Road, Step, seat_name};
use turnpost_engine::hex::Hex;
use turnpost_engine::{
    Game, GameInfo, GameRng, RuleError, Seat, SetupError, Status, ViewCommon, Viewer,
};

pub const ID: &str = "sp4x";

pub struct Sp4x;

/// SP4X has no variants: 3–4 players, vanilla factions (HR-3).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub name: &'static str,
    pub score: i64,
    pub plastic: u8,
    pub food: u8,
    pub metal: u8,
    pub hand_size: usize,
    pub grand_plan_out: bool,
    pub men_pool: u32,
    pub bases_pool: u32,
    pub roads_pool: u32,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TileView {
    pub hex: Hex,
    pub kind: TileKind,
    pub men: Vec<u8>,
    pub bases: Vec<bool>,
}

/// A card drawn from an opponent, shown only to the two players concerned.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct StealView {
    pub age: u8,
    pub thief: Seat,
    pub victim: Seat,
    pub card: Card,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct View {
    #[serde(flatten)]
    pub common: ViewCommon,
    pub age: u8,
    pub current: Seat,
    pub step: Step,
    pub players: Vec<PlayerView>,
    /// The viewer's own hand (players only).
    pub hand: Option<Vec<Card>>,
    /// Cards the viewer drew from, or lost to, an opponent.
    pub my_steals: Vec<StealView>,
    pub tiles: Vec<TileView>,
    pub roads: Vec<Road>,
    pub deck_size: usize,
    pub deck_top: Option<Card>,
    pub star_active: bool,
    pub tile_stack_size: usize,
    pub tile_stack_top: Option<TileKind>,
    pub discard: Vec<Card>,
    /// The action being resolved (public).
    pub frames: Vec<Frame>,
    pub events: Vec<String>,
}

impl Game for Sp4x {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;

    fn info(&self) -> GameInfo {
        GameInfo {
            id: ID,
            name: "SP4X",
            min_players: 3,
            max_players: 4,
            rules_version: 1,
        }
    }

    fn setup(&self, _options: &Options, seats: usize, rng: GameRng) -> Result<State, SetupError> {
        let d = data::data().map_err(|e| SetupError::new("bad_data", e))?;
        rules::setup(d, seats, rng)
    }

    fn status(&self, st: &State) -> Status {
        if st.step == Step::Over {
            return Status::Finished(rules::outcome(st));
        }
        Status::Active {
            to_act: rules::decider(st).into_iter().collect(),
        }
    }

    fn legal_actions(&self, st: &State, seat: Seat) -> Vec<Action> {
        match data::data() {
            Ok(d) => rules::legal(d, st, seat),
            Err(_) => Vec::new(),
        }
    }

    fn apply(&self, st: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
        let d = data::data().map_err(|e| RuleError::new("bad_data", e))?;
        rules::apply(d, st, seat, action)
    }

    fn view(&self, st: &State, viewer: Viewer) -> View {
        let me = viewer.seat();
        let pools = |s: Seat| match data::data() {
            Ok(d) => (
                board::men_pool(d, st, s),
                board::bases_pool(d, st, s),
                board::roads_pool(d, st, s),
            ),
            Err(_) => (0, 0, 0),
        };
        View {
            common: ViewCommon::new(viewer, st.seats, &self.status(st)),
            age: st.age,
            current: st.current,
            step: st.step,
            players: st
                .players
                .iter()
                .enumerate()
                .map(|(s, p)| {
                    let (men_pool, bases_pool, roads_pool) = pools(s);
                    PlayerView {
                        seat: s,
                        name: seat_name(s),
                        score: p.score,
                        plastic: p.res[0],
                        food: p.res[1],
                        metal: p.res[2],
                        hand_size: p.hand.len(),
                        grand_plan_out: p.plan_out,
                        men_pool,
                        bases_pool,
                        roads_pool,
                    }
                })
                .collect(),
            hand: me.and_then(|s| st.players.get(s)).map(|p| p.hand.clone()),
            my_steals: st
                .steals
                .iter()
                .filter(|r| me.is_some_and(|s| s == r.thief || s == r.victim))
                .map(|r| StealView {
                    age: r.age,
                    thief: r.thief,
                    victim: r.victim,
                    card: r.card,
                })
                .collect(),
            tiles: st
                .tiles
                .iter()
                .map(|t| TileView {
                    hex: t.hex,
                    kind: t.kind,
                    men: t.men.clone(),
                    bases: t.bases.clone(),
                })
                .collect(),
            roads: st.roads.clone(),
            deck_size: st.deck.len(),
            deck_top: st.deck.first().copied(),
            star_active: st.star_active(),
            tile_stack_size: st.tile_stack.len(),
            tile_stack_top: st.tile_stack.first().copied(),
            discard: st.discard.clone(),
            frames: st.frames.clone(),
            events: st.events.clone(),
        }
    }

    fn board_svg(&self, view: &View, people: &People) -> String {
        picture::picture(view, people)
    }

    /// Tiles and open positions as `hex:q<q>r<r>`, players as `seat:<n>`, the mover's cards
    /// as `card:<name>` (see the picture).
    fn action_targets(&self, _st: &State, _seat: Seat, action: &Action) -> Vec<String> {
        render::targets(action)
    }

    fn describe_action(&self, st: &State, seat: Seat, action: &Action) -> String {
        render::describe(st, seat, action)
    }

    fn log_text(&self, st: &State, _seat: Seat, action: &Action) -> String {
        render::log_text(st, action)
    }

    fn render_text(&self, st: &State, viewer: Viewer) -> String {
        render::render(self, st, viewer)
    }

    fn seat_name(&self, _st: &State, seat: Seat) -> String {
        seat_name(seat).to_string()
    }

    fn bot_standing(&self, st: &State, seat: Seat) -> Option<f64> {
        bot::standing(st, seat)
    }

    fn resample_hidden(&self, st: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        let mut out = st.clone();
        let me = viewer.seat();
        // Other hands and the deck between its visible top and the star are one hidden pool,
        // dealt afresh keeping every hand size. A card the viewer lost to a thief is not kept
        // in the thief's hand: whether the thief still holds it depends on later draws from
        // the thief that the viewer did not see, and a world that keeps it exactly while the
        // thief really does tells the viewer what those draws were.
        let mut pool: Vec<Card> = Vec::new();
        let mut sizes = Vec::new();
        for (s, p) in out.players.iter_mut().enumerate() {
            if Some(s) == me {
                sizes.push(0);
            } else {
                sizes.push(p.hand.len());
                pool.append(&mut p.hand);
            }
        }
        let deck_mid = if out.deck.len() > 2 {
            out.deck.len() - 2
        } else {
            0
        };
        pool.extend(out.deck.drain(1..1 + deck_mid));
        // Sorted first, so the world drawn depends only on what is unseen, not on where it lay.
        pool.sort_unstable();
        rng.shuffle(&mut pool);
        let mut mid: Vec<Card> = pool.split_off(pool.len().saturating_sub(deck_mid));
        for (s, p) in out.players.iter_mut().enumerate() {
            if Some(s) == me {
                continue;
            }
            let k = sizes.get(s).copied().unwrap_or(0).min(pool.len());
            p.hand = pool.split_off(pool.len() - k);
            p.hand.sort_unstable();
        }
        let tail = out.deck.split_off(out.deck.len().min(1));
        mid.extend(tail);
        out.deck.extend(mid);
        if out.tile_stack.len() > 2 {
            out.tile_stack[1..].sort_unstable();
            rng.shuffle(&mut out.tile_stack[1..]);
        }
        // Drawn cards the viewer was not party to are unknown to them.
        let cards = [
            Card::MoveExplore,
            Card::Exploit,
            Card::Build,
            Card::Men,
            Card::Steal,
            Card::War,
            Card::GrandPlan,
            Card::Ai,
        ];
        for r in out.steals.iter_mut() {
            if me != Some(r.thief)
                && me != Some(r.victim)
                && let Some(&c) = rng.pick(&cards)
            {
                r.card = c;
            }
        }
        out.rng = rng.fork();
        out
    }

    fn check_data(&self) -> Result<(), String> {
        data::data().map(|_| ())
    }

    fn check_invariants(&self, st: &State) -> Result<(), String> {
        invariants::check(data::data()?, st)
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
