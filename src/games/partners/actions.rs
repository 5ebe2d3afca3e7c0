//! The action shape clients submit. Every play names the card it uses; pieces are named by
//! where they stand (pieces of one colour on one field are interchangeable).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use turnpost_engine::cards::Card;

/// Where a piece of the colour you move stands.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Spot {
    /// A track field, 0 to 63 (yellow's start field is 0, red's 16, blue's 32, green's 48).
    Track(u8),
    /// A home field, 1 (H1, the entry) to 4 (H4, the deepest).
    Home(u8),
}

/// One part of a split seven: one piece moves `steps` fields forward.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Part {
    /// Where the piece stands when this part starts.
    pub from: Spot,
    /// Steps of this part (at least 1; the parts add up to 7).
    pub steps: u8,
    /// For a track piece that passes its own start field: turn into the home there
    /// instead of going on along the track.
    #[serde(default)]
    pub into_home: bool,
}

/// A Partners action.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Give one card of your hand to your partner (secret; after every deal, 4 seats only).
    Exchange { card: Card },
    /// Play an ace or king to bring a piece from the start circle onto its start field.
    Start { card: Card },
    /// Move one piece forward: ace 1 or 14, king 13, queen 12, ten to two their value
    /// (not four or seven).
    Forward {
        card: Card,
        /// Where the piece stands.
        from: Spot,
        /// Steps forward: the card's value (an ace says 1 or 14).
        steps: u8,
        /// For a track piece that passes its own start field: turn into the home there.
        #[serde(default)]
        into_home: bool,
    },
    /// Play a four: move one track piece 4 fields backwards.
    Back {
        card: Card,
        /// The track field (0 to 63) of the piece that moves back.
        from: u8,
    },
    /// Play a seven split into parts that add up to 7, carried out in order. Once the
    /// own pieces are all home, later parts move the partner's pieces. Any order of a split
    /// equivalent to a listed one (same end position) is accepted as that one.
    Seven {
        card: Card,
        /// The parts in the order they are carried out; each lands (and captures) before
        /// the next starts.
        parts: Vec<Part>,
    },
    /// Play a jack: swap the fields of two single track pieces of different colours
    /// (`a` and `b` are their track fields).
    Swap {
        card: Card,
        /// Track field of the first piece (the lower field number in listed actions).
        a: u8,
        /// Track field of the second piece.
        b: u8,
    },
    /// Lay the whole hand down face up: allowed exactly when no card can be used.
    Discard,
}

impl Action {
    pub fn card(&self) -> Option<Card> {
        match self {
            Action::Exchange { card }
            | Action::Start { card }
            | Action::Forward { card, .. }
            | Action::Back { card, .. }
            | Action::Seven { card, .. }
            | Action::Swap { card, .. } => Some(*card),
            Action::Discard => None,
        }
    }
}
