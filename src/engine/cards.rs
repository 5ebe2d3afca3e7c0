//! A standard 52-card deck. Cards serialise as short strings (`"AS"`, `"10H"`, `"QD"`), which
//! keeps states, actions and logs readable.

use std::fmt;
use std::str::FromStr;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Suit {
    Clubs,
    Diamonds,
    Hearts,
    Spades,
}

impl Suit {
    pub const ALL: [Suit; 4] = [Suit::Clubs, Suit::Diamonds, Suit::Hearts, Suit::Spades];

    pub fn letter(self) -> char {
        match self {
            Suit::Clubs => 'C',
            Suit::Diamonds => 'D',
            Suit::Hearts => 'H',
            Suit::Spades => 'S',
        }
    }

    pub fn symbol(self) -> char {
        match self {
            Suit::Clubs => '♣',
            Suit::Diamonds => '♦',
            Suit::Hearts => '♥',
            Suit::Spades => '♠',
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Suit::Clubs => "clubs",
            Suit::Diamonds => "diamonds",
            Suit::Hearts => "hearts",
            Suit::Spades => "spades",
        }
    }
}

/// A card: rank 1 (ace) to 13 (king) and a suit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Card {
    pub rank: u8,
    pub suit: Suit,
}

impl Card {
    pub fn new(rank: u8, suit: Suit) -> Card {
        Card { rank, suit }
    }

    fn rank_text(self) -> String {
        match self.rank {
            1 => "A".into(),
            11 => "J".into(),
            12 => "Q".into(),
            13 => "K".into(),
            n => n.to_string(),
        }
    }

    /// `"10♥"`, for people.
    pub fn pretty(self) -> String {
        format!("{}{}", self.rank_text(), self.suit.symbol())
    }
}

/// The 52 cards, clubs to spades, ace to king (unshuffled).
pub fn standard_deck() -> Vec<Card> {
    Suit::ALL
        .iter()
        .flat_map(|&s| (1..=13).map(move |r| Card::new(r, s)))
        .collect()
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.rank_text(), self.suit.letter())
    }
}

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("not a card: {0:?} (expected e.g. \"AS\", \"10H\", \"QD\")")]
pub struct ParseCardError(String);

impl FromStr for Card {
    type Err = ParseCardError;

    fn from_str(s: &str) -> Result<Card, ParseCardError> {
        let err = || ParseCardError(s.to_string());
        let t = s.trim().to_ascii_uppercase();
        let suit_char = t.chars().last().ok_or_else(err)?;
        let suit = match suit_char {
            'C' | '♣' => Suit::Clubs,
            'D' | '♦' => Suit::Diamonds,
            'H' | '♥' => Suit::Hearts,
            'S' | '♠' => Suit::Spades,
            _ => return Err(err()),
        };
        let rank_text = &t[..t.len() - suit_char.len_utf8()];
        let rank = match rank_text {
            "A" | "1" => 1,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            n => n
                .parse::<u8>()
                .ok()
                .filter(|r| (2..=10).contains(r))
                .ok_or_else(err)?,
        };
        Ok(Card::new(rank, suit))
    }
}

impl Serialize for Card {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Card {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Card, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

impl JsonSchema for Card {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Card".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^(A|[2-9]|10|J|Q|K)[CDHS]$",
            "description": "A playing card: rank (A, 2-10, J, Q, K) then suit (C, D, H, S)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_card_round_trips_through_its_text() {
        let deck = standard_deck();
        assert_eq!(deck.len(), 52);
        for c in deck {
            let text = serde_json::to_string(&c).unwrap();
            assert_eq!(serde_json::from_str::<Card>(&text).unwrap(), c);
        }
    }

    #[test]
    fn bad_cards_are_refused() {
        for bad in ["", "1", "11S", "0H", "ZS", "AX", "10"] {
            assert!(bad.parse::<Card>().is_err(), "{bad}");
        }
        assert_eq!("10♥".parse::<Card>().unwrap(), Card::new(10, Suit::Hearts));
    }
}
