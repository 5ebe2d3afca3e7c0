//! Which rules a game follows. A stored game keeps the rules version it was set up under,
//! so its log replays exactly; the differences between versions are named here.

use serde::{Deserialize, Serialize};

/// Rules of games set up before the version was recorded in the state.
pub const FIRST: u32 = 1;

/// Rules of new games. Version 2: a seven that brings the last own piece home
/// goes on with the partner's pieces, and a field may hold any number of pieces of one
/// colour (version 1 refuses a third; no seed or digest rule says so).
pub const CURRENT: u32 = 2;

/// The serde default of `State::rules_version`: snapshots without the field are version 1.
pub fn first() -> u32 {
    FIRST
}

/// The rule switches of one version, passed to move generation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rules {
    pub version: u32,
}

impl Rules {
    pub fn new(version: u32) -> Rules {
        Rules { version }
    }

    /// Version 1 refuses to put a third piece of a colour on a field.
    pub fn two_per_field(self) -> bool {
        self.version < 2
    }

    /// From version 2 the rest of a seven moves the partner's pieces as soon as the own
    /// are all home (seed: a finished player helps the partner).
    pub fn seven_carries_over(self) -> bool {
        self.version >= 2
    }
}
