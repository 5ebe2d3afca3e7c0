//! Hexagonal boards in axial coordinates (q, r), pointy-top. See
//! <https://www.redblobgames.com/grids/hexagons/> for the conventions.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub struct Hex {
    pub q: i32,
    pub r: i32,
}

impl Hex {
    /// The six directions, clockwise from east.
    pub const DIRECTIONS: [Hex; 6] = [
        Hex { q: 1, r: 0 },
        Hex { q: 1, r: -1 },
        Hex { q: 0, r: -1 },
        Hex { q: -1, r: 0 },
        Hex { q: -1, r: 1 },
        Hex { q: 0, r: 1 },
    ];

    pub const fn new(q: i32, r: i32) -> Hex {
        Hex { q, r }
    }

    pub fn s(self) -> i32 {
        -self.q - self.r
    }

    pub fn neighbor(self, direction: usize) -> Hex {
        let d = Hex::DIRECTIONS[direction % 6];
        Hex::new(self.q + d.q, self.r + d.r)
    }

    pub fn neighbors(self) -> [Hex; 6] {
        std::array::from_fn(|i| self.neighbor(i))
    }

    pub fn distance(self, other: Hex) -> u32 {
        let dq = (self.q - other.q).abs();
        let dr = (self.r - other.r).abs();
        let ds = (self.s() - other.s()).abs();
        ((dq + dr + ds) / 2) as u32
    }

    pub fn is_adjacent(self, other: Hex) -> bool {
        self.distance(other) == 1
    }

    /// Every hex within `radius` of `self`, in a stable order.
    pub fn spiral(self, radius: i32) -> Vec<Hex> {
        let mut out = Vec::new();
        for q in -radius..=radius {
            for r in (-radius).max(-q - radius)..=radius.min(-q + radius) {
                out.push(Hex::new(self.q + q, self.r + r));
            }
        }
        out
    }

    /// Odd-row offset coordinates (col, row) for drawing maps in text.
    pub fn to_offset(self) -> (i32, i32) {
        let col = self.q + (self.r - (self.r & 1)) / 2;
        (col, self.r)
    }

    pub fn from_offset(col: i32, row: i32) -> Hex {
        Hex::new(col - (row - (row & 1)) / 2, row)
    }
}

impl std::fmt::Display for Hex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({},{})", self.q, self.r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neighbors_are_at_distance_one_and_offsets_round_trip() {
        let h = Hex::new(2, -3);
        for n in h.neighbors() {
            assert_eq!(h.distance(n), 1);
        }
        assert_eq!(Hex::new(0, 0).spiral(2).len(), 19);
        for x in Hex::new(0, 0).spiral(3) {
            let (c, r) = x.to_offset();
            assert_eq!(Hex::from_offset(c, r), x);
        }
        assert_eq!(Hex::new(0, 0).distance(Hex::new(3, -1)), 3);
    }
}
