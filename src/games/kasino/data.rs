//! The rule parameters from `data.toml`: card values, deal sizes, the scoring table and the
//! target. A copy is stored in every game state, so a live game keeps the numbers it started
//! with even if the file changes.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use turnpost_engine::cards::{Card, Suit};

const DATA: &str = include_str!("data.toml");

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    pub players: Players,
    pub deal: Deal,
    pub values: Values,
    pub scoring: Scoring,
    pub game: GameEnd,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Players {
    pub min: usize,
    pub max: usize,
    pub team_count: usize,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deal {
    pub opening_rounds: usize,
    pub opening_batch: usize,
    pub later_hand: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Dual {
    /// Capture value: the card played from hand, or held to back a build.
    pub hand: u32,
    /// Value once the card lies on the table.
    pub table: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Values {
    pub ace: Dual,
    pub spade_2: Dual,
    pub diamond_10: Dual,
    pub jack: Dual,
    pub queen: Dual,
    pub king: Dual,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Scoring {
    pub most_spades: i64,
    pub most_cards: i64,
    pub diamond_10: i64,
    pub spade_2: i64,
    pub each_ace: i64,
    pub last_capture: i64,
    pub each_sweep: i64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameEnd {
    pub target: i64,
}

impl Params {
    /// The embedded parameters, parsed and validated.
    pub fn load() -> Result<Params, String> {
        Params::parse(DATA)
    }

    pub fn parse(text: &str) -> Result<Params, String> {
        let p: Params = toml::from_str(text).map_err(|e| format!("kasino data.toml: {e}"))?;
        p.validate()?;
        Ok(p)
    }

    fn validate(&self) -> Result<(), String> {
        let err = |m: String| Err(format!("kasino data.toml: {m}"));
        let pl = &self.players;
        if pl.min < 2 || pl.min > pl.max {
            return err(format!(
                "players: need 2 <= min <= max, got {}..{}",
                pl.min, pl.max
            ));
        }
        let d = &self.deal;
        if d.opening_rounds == 0 || d.opening_batch == 0 || d.later_hand == 0 {
            return err("deal: every deal size must be positive".into());
        }
        let table = d.opening_rounds * d.opening_batch;
        for n in pl.min..=pl.max {
            // Every hand must be dealt in full, so the rest of the deck divides evenly.
            let opening = n * table + table;
            if opening > 52 || !(52 - opening).is_multiple_of(n * d.later_hand) {
                return err(format!(
                    "deal: 52 cards do not divide into full hands for {n} players"
                ));
            }
        }
        let v = &self.values;
        for (name, dual) in [
            ("ace", v.ace),
            ("spade_2", v.spade_2),
            ("diamond_10", v.diamond_10),
            ("jack", v.jack),
            ("queen", v.queen),
            ("king", v.king),
        ] {
            // Values stay small: sums of a few cards must fit comfortably and zero-valued
            // cards would make builds of any size possible.
            if !(1..=40).contains(&dual.hand) || !(1..=40).contains(&dual.table) {
                return err(format!("values.{name}: values must be between 1 and 40"));
            }
        }
        let s = &self.scoring;
        for (name, pts) in [
            ("most_spades", s.most_spades),
            ("most_cards", s.most_cards),
            ("diamond_10", s.diamond_10),
            ("spade_2", s.spade_2),
            ("each_ace", s.each_ace),
            ("last_capture", s.last_capture),
            ("each_sweep", s.each_sweep),
        ] {
            if !(0..=100).contains(&pts) {
                return err(format!("scoring.{name}: points must be between 0 and 100"));
            }
        }
        if !(1..=1000).contains(&self.game.target) {
            return err("game.target must be between 1 and 1000".into());
        }
        Ok(())
    }

    /// Capture value (cv): the card played from hand or held for a build (HR-1, HR-3).
    pub fn cv(&self, c: Card) -> u32 {
        self.dual(c).hand
    }

    /// Table value (tv): the card on the table, including when it is put there (HR-1).
    pub fn tv(&self, c: Card) -> u32 {
        self.dual(c).table
    }

    fn dual(&self, c: Card) -> Dual {
        let v = &self.values;
        match (c.rank, c.suit) {
            (1, _) => v.ace,
            (2, Suit::Spades) => v.spade_2,
            (10, Suit::Diamonds) => v.diamond_10,
            (11, _) => v.jack,
            (12, _) => v.queen,
            (13, _) => v.king,
            (n, _) => Dual {
                hand: u32::from(n),
                table: u32::from(n),
            },
        }
    }
}

/// The ♠5, which may clear the table (HR-2).
pub fn spade_5() -> Card {
    Card::new(5, Suit::Spades)
}

pub fn spade_2() -> Card {
    Card::new(2, Suit::Spades)
}

pub fn diamond_10() -> Card {
    Card::new(10, Suit::Diamonds)
}
