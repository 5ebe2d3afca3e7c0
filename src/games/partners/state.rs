//! The game state, options and dealing. Colours 0..4 (yellow, red, blue, green) are also the
//! hand positions; with 4 seats seat s plays colour s, with 2 seats seat s plays colours s
//! and s + 2 (HR-5).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::data::{COLOURS, Data};
use super::rules::{self, Rules};
use super::view::cap;
use turnpost_engine::GameRng;
use turnpost_engine::cards::{Card, standard_deck};

/// Options of a Partners game.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// House-rule cap for unattended play (simulations, tests): after this many deals the
    /// game ends and the team with more pieces home wins (equal counts tie). 0 (the
    /// default) means no cap: the game runs until a team is home, as the rules say. A new
    /// game's cap is 0 to 100.
    #[schemars(range(max = 100))]
    pub deal_limit: u32,
}

/// Where a piece is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loc {
    /// Off the board, waiting for a start card.
    Circle,
    /// A track field 0..63.
    Track(u8),
    /// A home field 1..=4 (H1 entry, H4 deepest).
    Home(u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    pub loc: Loc,
    /// The piece has left its start field since it last came into play, so it may turn
    /// into its home when it reaches the start field again (HR-3).
    pub left_start: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Partners secretly pick one card each for each other (4 seats only).
    Exchange,
    Play,
    Finished,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The rules version the game was set up under (absent in version-1 snapshots).
    #[serde(default = "rules::first")]
    pub rules_version: u32,
    pub seats: usize,
    pub options: Options,
    pub rng: GameRng,
    /// Undealt cards (hidden from everyone).
    pub deck: Vec<Card>,
    /// Cards played or laid down face up since the last shuffle (public).
    pub played: Vec<Card>,
    /// Colour position of the dealer of the current deck cycle.
    pub dealer: usize,
    /// 1-based number of the current deal within the deck cycle.
    pub deal_in_cycle: u8,
    /// Deals so far in the whole game.
    pub deals: u32,
    /// Hands per colour position.
    pub hands: Vec<Vec<Card>>,
    /// The position laid its hand down unused this deal.
    pub discarded: Vec<bool>,
    pub phase: Phase,
    /// Exchange choices made so far this deal (hidden from the other team).
    pub pending: Vec<Option<Card>>,
    /// The cards each position gave its partner in this deal's exchange.
    pub given: Vec<Option<Card>>,
    /// The position to play.
    pub turn: usize,
    /// Pieces per colour.
    pub pieces: Vec<Vec<Piece>>,
    /// The winning team (0 = colours 0 + 2, 1 = colours 1 + 3) once decided; `None` with
    /// phase Finished is a tie at the deal limit.
    pub winner: Option<usize>,
    /// What happened lately, in public words (newest last).
    pub log: Vec<String>,
}

/// How many recent public events a state keeps for the email.
const LOG_KEEP: usize = 16;

impl State {
    pub fn new(d: &Data, options: &Options, seats: usize, mut rng: GameRng) -> State {
        // HR-6: the first dealer is random.
        let dealer = rng.below(COLOURS);
        let pieces = (0..COLOURS)
            .map(|_| {
                (0..d.board.pieces_per_colour)
                    .map(|_| Piece {
                        loc: Loc::Circle,
                        left_start: false,
                    })
                    .collect()
            })
            .collect();
        let mut st = State {
            rules_version: rules::CURRENT,
            seats,
            options: options.clone(),
            rng,
            deck: Vec::new(),
            played: Vec::new(),
            dealer,
            deal_in_cycle: 0,
            deals: 0,
            hands: vec![Vec::new(); COLOURS],
            discarded: vec![false; COLOURS],
            phase: Phase::Play,
            pending: vec![None; COLOURS],
            given: vec![None; COLOURS],
            turn: 0,
            pieces,
            winner: None,
            log: Vec::new(),
        };
        st.new_cycle(d, false);
        st.deal(d);
        st
    }

    pub fn rules(&self) -> Rules {
        Rules::new(self.rules_version)
    }

    /// The seat that plays colour position `p`.
    pub fn controller(&self, p: usize) -> usize {
        p % self.seats.max(1)
    }

    /// Colour positions played by `seat`.
    pub fn positions_of(&self, seat: usize) -> Vec<usize> {
        (0..COLOURS)
            .filter(|&p| self.controller(p) == seat)
            .collect()
    }

    /// May `seat` know the card colour `p` chose for its partner this deal? The giver
    /// always; the receiver only once both partners have chosen, since the exchange is
    /// simultaneous and hidden (seed). Nobody else, ever.
    pub fn sees_exchange_of(&self, p: usize, seat: Option<usize>) -> bool {
        let Some(s) = seat else {
            return false;
        };
        let q = State::partner(p);
        s == self.controller(p)
            || (s == self.controller(q)
                && (self.given.get(p).is_some_and(Option::is_some)
                    || self.pending.get(q).is_some_and(Option::is_some)))
    }

    pub fn team_of(p: usize) -> usize {
        p % 2
    }

    pub fn partner(p: usize) -> usize {
        (p + 2) % COLOURS
    }

    pub fn colour_home(&self, c: usize) -> bool {
        self.pieces
            .get(c)
            .is_some_and(|ps| ps.iter().all(|p| matches!(p.loc, Loc::Home(_))))
    }

    /// The colour position `p` moves now: its own, or its partner's once its own pieces
    /// are all home (seed, 5.4).
    pub fn controlled(&self, p: usize) -> usize {
        if self.colour_home(p) {
            State::partner(p)
        } else {
            p
        }
    }

    pub fn pieces_home(&self, team: usize) -> usize {
        [team, team + 2]
            .iter()
            .filter_map(|&c| self.pieces.get(c))
            .flatten()
            .filter(|p| matches!(p.loc, Loc::Home(_)))
            .count()
    }

    pub fn note(&mut self, line: String) {
        self.log.push(line);
        if self.log.len() > LOG_KEEP {
            let cut = self.log.len() - LOG_KEEP;
            self.log.drain(..cut);
        }
    }

    /// A new deck cycle: all 52 cards shuffled, the dealer moves on unless it is the first.
    fn new_cycle(&mut self, d: &Data, move_dealer: bool) {
        if move_dealer {
            self.dealer = (self.dealer + 1) % COLOURS;
        }
        let mut deck = standard_deck();
        self.rng.shuffle(&mut deck);
        self.deck = deck;
        self.played.clear();
        self.deal_in_cycle = 0;
        let dealer = cap(d.colour(self.dealer));
        self.note(format!("{dealer} shuffles all 52 cards"));
    }

    /// Deals the next hands (starting a new deck cycle when this one is used up), then
    /// opens the exchange (4 seats) or play (2 seats, HR-5).
    pub fn deal(&mut self, d: &Data) {
        if self.deal_in_cycle >= d.deal.deals_per_cycle {
            // The left-over cards go face down to the pile and are reshuffled with the rest.
            self.new_cycle(d, true);
        }
        self.deal_in_cycle += 1;
        self.deals += 1;
        for p in 0..COLOURS {
            let pos = (self.dealer + 1 + p) % COLOURS;
            let take = usize::from(d.deal.cards_per_deal).min(self.deck.len());
            let at = self.deck.len() - take;
            let mut hand: Vec<Card> = self.deck.split_off(at);
            hand.sort();
            if let Some(h) = self.hands.get_mut(pos) {
                *h = hand;
            }
        }
        self.discarded = vec![false; COLOURS];
        self.pending = vec![None; COLOURS];
        self.given = vec![None; COLOURS];
        self.turn = (self.dealer + 1) % COLOURS;
        self.phase = if self.seats == 2 {
            Phase::Play
        } else {
            Phase::Exchange
        };
        self.note(format!(
            "Deal {} of {} (dealer {})",
            self.deal_in_cycle,
            d.deal.deals_per_cycle,
            cap(d.colour(self.dealer))
        ));
    }

    /// Swaps the chosen cards between partners once all four have chosen.
    pub fn resolve_exchange(&mut self) {
        let chosen: Vec<Card> = self.pending.iter().flatten().copied().collect();
        if chosen.len() != COLOURS {
            return;
        }
        for (p, &card) in chosen.iter().enumerate() {
            if let Some(h) = self.hands.get_mut(State::partner(p)) {
                h.push(card);
                h.sort();
            }
            if let Some(g) = self.given.get_mut(p) {
                *g = Some(card);
            }
        }
        self.pending = vec![None; COLOURS];
        self.phase = Phase::Play;
        self.note("Partners exchanged one card each".into());
    }

    /// After a play: the next position clockwise that still holds cards, or a new deal.
    pub fn advance(&mut self, d: &Data) {
        for i in 1..=COLOURS {
            let p = (self.turn + i) % COLOURS;
            if self.hands.get(p).is_some_and(|h| !h.is_empty()) {
                self.turn = p;
                return;
            }
        }
        if self.options.deal_limit > 0 && self.deals >= self.options.deal_limit {
            let (a, b) = (self.pieces_home(0), self.pieces_home(1));
            self.winner = match a.cmp(&b) {
                std::cmp::Ordering::Greater => Some(0),
                std::cmp::Ordering::Less => Some(1),
                std::cmp::Ordering::Equal => None,
            };
            self.phase = Phase::Finished;
            self.note(format!(
                "The deal limit of {} is reached",
                self.options.deal_limit
            ));
            return;
        }
        self.deal(d);
    }
}
