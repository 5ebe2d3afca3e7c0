//! The largest capture of one card: the most loose table cards that split into groups each
//! worth the card's value. On a crowded table the listed captures are a bounded sample
//! ([`super::combos`]), and a sample drawn in table order can miss the capture a player
//! wants most (a sweep of 26 cards was left out). This search finds it directly.
//!
//! Cards of one table value are interchangeable for the sums, so the search runs on how
//! many cards of each value are left, not on which: a table of 40 cards has millions of
//! subsets but only thousands of such count vectors. It takes the highest value left and
//! either puts one card of it in a group with smaller ones or leaves it out, remembering
//! the best for every count vector, and stops early once nothing better is possible.

use std::collections::HashMap;

/// Count vectors the search may remember before it settles for the best found so far. The
/// worst tables tried (every value four times, random tables of up to 44 cards) need under
/// 30,000; the bound only keeps a hostile or impossible table from costing a request more
/// than a few milliseconds.
const MAX_STATES: usize = 200_000;

/// How many cards of each value the largest split uses (`used[v]` for value `v`), and
/// whether the search finished (`false` when it stopped at [`MAX_STATES`]: the split is
/// still valid, but maybe not the largest).
#[derive(Debug, PartialEq, Eq)]
pub struct Largest {
    pub used: Vec<u32>,
    pub complete: bool,
}

/// The largest sub-multiset of `vals` that splits into groups each summing to `target`.
pub fn largest_split(vals: &[u32], target: u32) -> Largest {
    let size = usize::try_from(target).unwrap_or(0).saturating_add(1);
    // Values beyond any card's (a target of 1000 from broken data) would make the count
    // vectors huge: nothing adds up to such a target with table cards anyway.
    if target == 0 || size > 64 {
        return Largest {
            used: Vec::new(),
            complete: true,
        };
    }
    let mut counts = vec![0u8; size];
    for &v in vals {
        if let Some(n) = usize::try_from(v)
            .ok()
            .filter(|&v| v > 0)
            .and_then(|v| counts.get_mut(v))
        {
            *n = n.saturating_add(1);
        }
    }
    let mut search = Search {
        target,
        memo: HashMap::new(),
        cut: false,
    };
    search.best(&counts);
    // Follow the remembered steps from the whole table, adding up the groups taken.
    let mut used = vec![0u32; size];
    let mut cur = counts;
    while let Some(Entry {
        step: Some((next, took)),
        ..
    }) = search.memo.get(&cur)
    {
        if *took {
            for (u, (a, b)) in used.iter_mut().zip(cur.iter().zip(next.iter())) {
                *u += u32::from(a.saturating_sub(*b));
            }
        }
        cur = next.clone();
    }
    Largest {
        used,
        complete: !search.cut,
    }
}

struct Entry {
    /// The most cards usable from this count vector.
    best: u32,
    /// The step that reaches it: the count vector after it, and whether the cards it
    /// removed were taken (a group) or left on the table. `None` when nothing is usable.
    step: Option<(Vec<u8>, bool)>,
}

struct Search {
    target: u32,
    memo: HashMap<Vec<u8>, Entry>,
    /// The search stopped at [`MAX_STATES`].
    cut: bool,
}

impl Search {
    fn best(&mut self, counts: &[u8]) -> u32 {
        if let Some(e) = self.memo.get(counts) {
            return e.best;
        }
        if self.memo.len() >= MAX_STATES {
            // Using none of these cards is always possible: the answer stays a valid split.
            self.cut = true;
            return 0;
        }
        let Some(high) = (1..counts.len()).rev().find(|&v| counts[v] > 0) else {
            self.memo.insert(
                counts.to_vec(),
                Entry {
                    best: 0,
                    step: None,
                },
            );
            return 0;
        };
        let entry = if high as u32 == self.target {
            // A card worth the target is a group alone: taking it never costs another.
            let mut next = counts.to_vec();
            let n = u32::from(next[high]);
            next[high] = 0;
            let rest = self.best(&next);
            Entry {
                best: n + rest,
                step: Some((next, true)),
            }
        } else {
            self.choose(counts, high)
        };
        let best = entry.best;
        self.memo.insert(counts.to_vec(), entry);
        best
    }

    /// One card of value `high` either joins a group of smaller (or equal) cards, or stays.
    fn choose(&mut self, counts: &[u8], high: usize) -> Entry {
        let cards: u32 = counts.iter().map(|&n| u32::from(n)).sum();
        let sum: u64 = counts
            .iter()
            .enumerate()
            .map(|(v, &n)| v as u64 * u64::from(n))
            .sum();
        // The cards used add up to a multiple of the target: when all of them do not, at
        // least one stays, and a split that leaves only one is already the best.
        let bound = if sum.is_multiple_of(u64::from(self.target)) {
            cards
        } else {
            cards.saturating_sub(1)
        };
        let mut found = Found {
            best: 0,
            step: None,
            bound,
        };
        let mut rest = counts.to_vec();
        rest[high] -= 1;
        let remaining = self.target - high as u32;
        self.partners(&mut rest, remaining, high, 1, &mut found);
        if found.best < bound {
            let left = self.best(&rest);
            if left > found.best || found.step.is_none() {
                found.best = left;
                found.step = Some((rest, false));
            }
        }
        Entry {
            best: found.best,
            step: found.step,
        }
    }

    /// Completes a group that still needs `remaining` with cards of value `top` or less
    /// (descending, so each group is tried once); true when the bound is reached.
    fn partners(
        &mut self,
        rest: &mut Vec<u8>,
        remaining: u32,
        top: usize,
        size: u32,
        found: &mut Found,
    ) -> bool {
        if remaining == 0 {
            let total = size + self.best(rest);
            if total > found.best {
                found.best = total;
                found.step = Some((rest.clone(), true));
            }
            return found.best >= found.bound;
        }
        let top = top.min(remaining as usize);
        for v in (1..=top).rev() {
            if rest[v] == 0 {
                continue;
            }
            rest[v] -= 1;
            let done = self.partners(rest, remaining - v as u32, v, size + 1, found);
            rest[v] += 1;
            if done {
                return true;
            }
        }
        false
    }
}

struct Found {
    best: u32,
    step: Option<(Vec<u8>, bool)>,
    bound: u32,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kasino::combos::partition;

    /// The largest split by trying every subset, for tables small enough to do so.
    fn brute(vals: &[u32], target: u32) -> u32 {
        let mut best = 0;
        for mask in 0u32..(1 << vals.len()) {
            let pick: Vec<u32> = (0..vals.len())
                .filter(|i| mask & (1 << i) != 0)
                .map(|i| vals[i])
                .collect();
            if pick.len() as u32 > best && partition(&pick, target).is_some() {
                best = pick.len() as u32;
            }
        }
        best
    }

    #[test]
    fn the_largest_split_matches_every_subset_tried() {
        let mut rng = turnpost_engine::GameRng::seed_from_u64(28);
        for round in 0..300 {
            let n = 4 + round % 11;
            let vals: Vec<u32> = (0..n).map(|_| 1 + rng.below(13) as u32).collect();
            let target = 2 + rng.below(15) as u32;
            let got = largest_split(&vals, target);
            assert!(got.complete);
            let total: u32 = got.used.iter().sum();
            assert_eq!(total, brute(&vals, target), "{vals:?} into {target}s");
            // The counts name a real split of cards that lie there.
            let mut pick = Vec::new();
            for (v, &k) in got.used.iter().enumerate() {
                assert!(k as usize <= vals.iter().filter(|&&x| x as usize == v).count());
                pick.extend(std::iter::repeat_n(v as u32, k as usize));
            }
            assert!(
                partition(&pick, target).is_some(),
                "{pick:?} into {target}s"
            );
        }
    }

    #[test]
    fn a_full_table_is_searched_quickly() {
        // Every value four times, every target a card can have: the hardest count vectors.
        for target in 2..=16 {
            let vals: Vec<u32> = (1..=13).flat_map(|v| [v; 4]).collect();
            let got = largest_split(&vals, target);
            assert!(got.complete, "{target}");
            let total: u32 = got.used.iter().sum();
            // Found by an independent search: 14 takes all 52, 15 and 16 leave one card.
            let want = match target {
                ..=13 => 4 * target,
                14 => 52,
                _ => 51,
            };
            assert_eq!(total, want, "{target}");
        }
        assert_eq!(largest_split(&[5, 5, 5], 0).used, Vec::<u32>::new());
        assert_eq!(largest_split(&[], 9).used.iter().sum::<u32>(), 0);
    }
}
