//! The one source of randomness a game may use: a ChaCha20 stream that lives inside the
//! game state, so that a serde round trip of the state resumes the stream exactly.
//!
//! Why not `rand::Rng::random_range` or `SliceRandom::shuffle`? rand only promises that a
//! given seed yields the same values within one minor version. Our games are replayed from
//! their logs for years, so the mapping from the ChaCha stream (fixed by its specification)
//! to dice, draws and shuffles is written down here and must never change.

use rand::SeedableRng;
use rand::rand_core::Rng;
use rand_chacha::ChaCha20Rng;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A portable, seedable, serialisable random stream owned by a game state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameRng(ChaCha20Rng);

impl GameRng {
    /// A stream from a full 256-bit seed (the server keeps the seed secret).
    pub fn from_seed(seed: [u8; 32]) -> Self {
        GameRng(ChaCha20Rng::from_seed(seed))
    }

    /// A stream from a small number: for tests, simulations and benchmarks.
    pub fn seed_from_u64(seed: u64) -> Self {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_le_bytes());
        Self::from_seed(bytes)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A uniform integer in `0..n` (`n` > 0), by rejection sampling so there is no bias.
    /// Returns 0 for `n == 0` rather than panicking: callers check emptiness themselves.
    pub fn below(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let n = n as u64;
        // The largest multiple of n that fits; values at or above it are redrawn.
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.0.next_u64();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }

    /// A uniform integer in `lo..=hi`.
    pub fn range_inclusive(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + self.below((hi - lo + 1) as usize) as i64
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: usize, den: usize) -> bool {
        self.below(den) < num
    }

    /// One die with `sides` faces: 1..=sides.
    pub fn die(&mut self, sides: u8) -> u8 {
        1 + self.below(sides as usize) as u8
    }

    /// One six-sided die.
    pub fn d6(&mut self) -> u8 {
        self.die(6)
    }

    /// `count` dice with `sides` faces each.
    pub fn roll(&mut self, count: usize, sides: u8) -> Vec<u8> {
        (0..count).map(|_| self.die(sides)).collect()
    }

    /// Fisher–Yates shuffle, from the last element down.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// A uniformly chosen element, or `None` for an empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        if items.is_empty() {
            None
        } else {
            items.get(self.below(items.len()))
        }
    }

    /// An independent stream derived from this one (advances this one by 32 bytes).
    pub fn fork(&mut self) -> GameRng {
        let mut seed = [0u8; 32];
        self.0.fill_bytes(&mut seed);
        GameRng::from_seed(seed)
    }
}

/// The wire form: the seed, the stream number and the position as a decimal string,
/// because JSON numbers lose precision past 2^53 and the position is a u128.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RngWire {
    seed: String,
    stream: u64,
    word_pos: String,
}

impl Serialize for GameRng {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        RngWire {
            seed: hex::encode(self.0.get_seed()),
            stream: self.0.get_stream(),
            word_pos: self.0.get_word_pos().to_string(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for GameRng {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = RngWire::deserialize(d)?;
        let bytes = hex::decode(&wire.seed).map_err(D::Error::custom)?;
        let seed: [u8; 32] = bytes
            .try_into()
            .map_err(|_| D::Error::custom("rng seed must be 32 bytes"))?;
        let pos: u128 = wire.word_pos.parse().map_err(D::Error::custom)?;
        let mut inner = ChaCha20Rng::from_seed(seed);
        inner.set_stream(wire.stream);
        inner.set_word_pos(pos);
        Ok(GameRng(inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_round_trip_resumes_the_stream() {
        let mut a = GameRng::seed_from_u64(7);
        for _ in 0..13 {
            a.next_u64();
        }
        let json = serde_json::to_string(&a).unwrap();
        let mut b: GameRng = serde_json::from_str(&json).unwrap();
        assert_eq!(a, b);
        let xs: Vec<u64> = (0..50).map(|_| a.next_u64()).collect();
        let ys: Vec<u64> = (0..50).map(|_| b.next_u64()).collect();
        assert_eq!(xs, ys);
    }

    #[test]
    fn the_stream_is_pinned() {
        // If this changes, every stored game would replay differently: never update these
        // values casually. ChaCha20 keystream, mapped through `below` and `shuffle`.
        let mut r = GameRng::seed_from_u64(42);
        assert_eq!(r.roll(10, 6), vec![4, 3, 1, 5, 6, 5, 1, 4, 3, 2]);
        let mut deck: Vec<u8> = (0..10).collect();
        r.shuffle(&mut deck);
        assert_eq!(deck, vec![3, 4, 9, 0, 1, 6, 5, 2, 8, 7]);
        assert_eq!(r.next_u64(), 2070966210215758661);
    }

    #[test]
    fn below_is_roughly_uniform() {
        let mut r = GameRng::seed_from_u64(1);
        let mut counts = [0usize; 6];
        for _ in 0..60_000 {
            counts[r.below(6)] += 1;
        }
        for c in counts {
            assert!((9_000..11_000).contains(&c), "{counts:?}");
        }
    }

    #[test]
    fn corrupt_wire_forms_are_refused() {
        assert!(
            serde_json::from_str::<GameRng>(r#"{"seed":"zz","stream":0,"word_pos":"0"}"#).is_err()
        );
        assert!(
            serde_json::from_str::<GameRng>(r#"{"seed":"00","stream":0,"word_pos":"0"}"#).is_err()
        );
    }
}
