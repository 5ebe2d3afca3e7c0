//! Options, the game state, table items and the deal.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::data::Params;
use turnpost_engine::cards::{Card, standard_deck};
use turnpost_engine::{GameRng, Seat, SetupError};

/// Game options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Play in two teams of partners sitting opposite (seats 1+3 against 2+4). Only with 4
    /// players (house rule HR-10). Partners' capture piles are counted together.
    #[schemars(extend("x-players" = [4]))]
    pub teams: bool,
    /// Sweeps cancel out: each side's sweep count is reduced by the lowest sweep count
    /// among all sides before scoring (the seed: "most people play it this way").
    pub sweeps_cancel: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum BuildKind {
    /// One group of value N: may still be raised.
    Single,
    /// Two or more groups of value N ("mere"): can never be raised.
    Multiple,
}

/// A build on the table: handled as one item of value `value`, never split.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Build {
    /// Public number, unique within the game ("B3").
    pub id: u32,
    pub value: u32,
    pub kind: BuildKind,
    /// The last seat that created or changed it.
    pub owner: Seat,
    pub cards: Vec<Card>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum Item {
    Loose { card: Card },
    Build(Build),
}

/// What one side scored in a finished round (public).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RoundLine {
    /// The seats of this side (one seat, or two partners).
    pub seats: Vec<Seat>,
    pub cards: usize,
    pub spades: usize,
    /// Sweeps after `sweeps_cancel`, if that variant is on.
    pub sweeps: u32,
    /// `(item, points)`: most_spades, most_cards, diamond_10, spade_2, aces, last_capture, sweeps.
    pub items: Vec<(String, i64)>,
    pub points: i64,
}

/// Rules of games set up before the version was recorded in the state.
pub const FIRST_RULES: u32 = 1;

/// Rules of new games. Version 2: a "mere" build, where the played card alone
/// is worth the build value, must lay it on a loose card of that value.
pub const CURRENT_RULES: u32 = 2;

/// The serde default of `State::rules_version`: snapshots without it are version 1.
fn first_rules() -> u32 {
    FIRST_RULES
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The rules version the game was set up under (absent in version-1 snapshots).
    #[serde(default = "first_rules")]
    pub rules_version: u32,
    pub params: Params,
    pub options: Options,
    pub seats: usize,
    /// 1-based round number.
    pub round: u32,
    /// 1-based hand number within the round.
    pub hand_no: u32,
    pub dealer: Seat,
    pub turn: Seat,
    pub hands: Vec<Vec<Card>>,
    /// Drawn from the end. Hidden from everyone.
    pub stock: Vec<Card>,
    pub table: Vec<Item>,
    /// Capture piles of this round, per seat.
    pub piles: Vec<Vec<Card>>,
    /// Sweeps of this round, per seat.
    pub sweeps: Vec<u32>,
    pub last_capturer: Option<Seat>,
    /// The last deal of the round has been made ("sidsten").
    pub last_hand: bool,
    /// O2: the seat built, raised or added on its last turn.
    pub built_last_turn: Vec<bool>,
    pub next_build_id: u32,
    /// Game totals per side (per seat, or per team).
    pub scores: Vec<i64>,
    /// Scores of every finished round, per side.
    pub history: Vec<Vec<RoundLine>>,
    pub finished: bool,
    pub rng: GameRng,
}

impl State {
    pub fn new(
        params: Params,
        options: &Options,
        seats: usize,
        mut rng: GameRng,
    ) -> Result<State, SetupError> {
        if seats < params.players.min || seats > params.players.max {
            return Err(SetupError::player_count(
                seats,
                params.players.min,
                params.players.max,
            ));
        }
        if options.teams && seats != params.players.team_count {
            return Err(SetupError::invalid_options(format!(
                "teams are only played with {} players",
                params.players.team_count
            )));
        }
        // HR-4: the first dealer is random.
        let dealer = rng.below(seats);
        let sides = if options.teams { 2 } else { seats };
        let mut state = State {
            rules_version: CURRENT_RULES,
            params,
            options: options.clone(),
            seats,
            round: 0,
            hand_no: 0,
            dealer,
            turn: dealer,
            hands: vec![Vec::new(); seats],
            stock: Vec::new(),
            table: Vec::new(),
            piles: vec![Vec::new(); seats],
            sweeps: vec![0; seats],
            last_capturer: None,
            last_hand: false,
            built_last_turn: vec![false; seats],
            next_build_id: 1,
            scores: vec![0; sides],
            history: Vec::new(),
            finished: false,
            rng,
        };
        state.start_round(dealer);
        Ok(state)
    }

    /// Shuffle a fresh deck and make the opening deal (section 3).
    pub fn start_round(&mut self, dealer: Seat) {
        self.round += 1;
        self.hand_no = 1;
        self.dealer = dealer;
        self.turn = self.left_of(dealer);
        let mut deck = standard_deck();
        self.rng.shuffle(&mut deck);
        self.stock = deck;
        self.table.clear();
        for h in &mut self.hands {
            h.clear();
        }
        for p in &mut self.piles {
            p.clear();
        }
        self.sweeps = vec![0; self.seats];
        self.last_capturer = None;
        self.last_hand = false;
        self.built_last_turn = vec![false; self.seats];
        let batch = self.params.deal.opening_batch;
        for _ in 0..self.params.deal.opening_rounds {
            for i in 1..=self.seats {
                let seat = (dealer + i) % self.seats;
                self.draw_to_hand(seat, batch);
            }
            for _ in 0..batch {
                if let Some(c) = self.stock.pop() {
                    self.table.push(Item::Loose { card: c });
                }
            }
        }
        self.last_hand = self.stock.is_empty();
        for h in &mut self.hands {
            h.sort();
        }
    }

    /// Later deals: `later_hand` cards to each player, none to the table.
    pub fn deal_hand(&mut self) {
        self.hand_no += 1;
        let n = self.params.deal.later_hand;
        for i in 1..=self.seats {
            let seat = (self.dealer + i) % self.seats;
            self.draw_to_hand(seat, n);
        }
        for h in &mut self.hands {
            h.sort();
        }
        // The dealer announces "sidsten" when this deal empties the stock.
        self.last_hand = self.stock.is_empty();
    }

    fn draw_to_hand(&mut self, seat: Seat, n: usize) {
        for _ in 0..n {
            if let (Some(c), Some(h)) = (self.stock.pop(), self.hands.get_mut(seat)) {
                h.push(c);
            }
        }
    }

    pub fn left_of(&self, seat: Seat) -> Seat {
        (seat + 1) % self.seats.max(1)
    }

    /// The side (team index, or the seat itself) a seat scores for.
    pub fn side_of(&self, seat: Seat) -> usize {
        if self.options.teams { seat % 2 } else { seat }
    }

    pub fn side_seats(&self, side: usize) -> Vec<Seat> {
        (0..self.seats)
            .filter(|&s| self.side_of(s) == side)
            .collect()
    }

    pub fn hand(&self, seat: Seat) -> &[Card] {
        self.hands.get(seat).map_or(&[], |h| h.as_slice())
    }

    /// The build `seat` owns (O1: at most one).
    pub fn owned_build(&self, seat: Seat) -> Option<&Build> {
        self.builds().find(|b| b.owner == seat)
    }

    pub fn builds(&self) -> impl Iterator<Item = &Build> {
        self.table.iter().filter_map(|i| match i {
            Item::Build(b) => Some(b),
            Item::Loose { .. } => None,
        })
    }

    pub fn build(&self, id: u32) -> Option<&Build> {
        self.builds().find(|b| b.id == id)
    }

    /// Loose table cards, in table order.
    pub fn loose(&self) -> Vec<Card> {
        self.table
            .iter()
            .filter_map(|i| match i {
                Item::Loose { card } => Some(*card),
                Item::Build(_) => None,
            })
            .collect()
    }

    /// O2 applies to `seat` now: it built, raised or added last turn and still owns a build.
    pub fn must_capture(&self, seat: Seat) -> bool {
        self.built_last_turn.get(seat).copied().unwrap_or(false) && self.owned_build(seat).is_some()
    }
}
