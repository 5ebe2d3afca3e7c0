//! Combinatorics on table values: which loose cards add up to a value, and which sets of
//! them split into groups that each add up to it. Table sizes stay small (a few dozen cards
//! at most), so sets are `u64` bit masks over the loose cards in table order.

use std::collections::BTreeSet;

/// Splits `vals` into groups each summing to `target`, or `None`. Groups are lists of
/// indices into `vals`. An empty input splits into no groups.
pub fn partition(vals: &[u32], target: u32) -> Option<Vec<Vec<usize>>> {
    if vals.is_empty() {
        return Some(Vec::new());
    }
    if target == 0 || vals.len() > 64 {
        return None;
    }
    let total: u64 = vals.iter().map(|&v| u64::from(v)).sum();
    if !total.is_multiple_of(u64::from(target)) || vals.iter().any(|&v| v > target || v == 0) {
        return None;
    }
    // Largest first: big cards have the fewest partners, so dead ends show early.
    let mut order: Vec<usize> = (0..vals.len()).collect();
    order.sort_by(|&a, &b| vals[b].cmp(&vals[a]).then(a.cmp(&b)));
    let mut search = Search {
        vals,
        order: &order,
        target,
        failed: BTreeSet::new(),
        groups: Vec::new(),
    };
    if search.solve(0) {
        Some(search.groups)
    } else {
        None
    }
}

struct Search<'a> {
    vals: &'a [u32],
    order: &'a [usize],
    target: u32,
    /// Sets of used cards from which no split of the rest exists.
    failed: BTreeSet<u64>,
    groups: Vec<Vec<usize>>,
}

impl Search<'_> {
    fn solve(&mut self, used: u64) -> bool {
        let Some(k) = (0..self.order.len()).find(|&k| used & (1u64 << self.order[k]) == 0) else {
            return true;
        };
        if self.failed.contains(&used) {
            return false;
        }
        let first = self.order[k];
        let mut group = vec![first];
        let remaining = self.target - self.vals[first];
        if self.fill(k + 1, used | (1u64 << first), remaining, &mut group) {
            return true;
        }
        self.failed.insert(used);
        false
    }

    fn fill(&mut self, start: usize, used: u64, remaining: u32, group: &mut Vec<usize>) -> bool {
        if remaining == 0 {
            self.groups.push(group.clone());
            if self.solve(used) {
                return true;
            }
            self.groups.pop();
            return false;
        }
        for k in start..self.order.len() {
            let i = self.order[k];
            let v = self.vals[i];
            if used & (1u64 << i) != 0 || v > remaining {
                continue;
            }
            // An equal value just skipped here would give the same sums: try each value once.
            if k > start {
                let prev = self.order[k - 1];
                if self.vals[prev] == v && used & (1u64 << prev) == 0 {
                    continue;
                }
            }
            group.push(i);
            if self.fill(k + 1, used | (1u64 << i), remaining - v, group) {
                return true;
            }
            group.pop();
        }
        false
    }
}

/// How many subsets [`subsets_summing`], and how many sets [`unions`], list at most. On a
/// table of dozens of loose cards (every player trailing, hand after hand) the captures of
/// one card number in the millions: listing them all takes a request minutes and hundreds
/// of megabytes. Beyond these bounds the legal actions are a sample, each one valid, to
/// which each card's largest capture is added ([`super::largest`]); `apply` checks a
/// capture or build by its sums, so it accepts any the rules allow, listed or not. Below
/// them (every table of the brute-force test, and of real play short of a pathological
/// round) nothing changes.
pub const MAX_GROUPS: usize = 1024;
pub const MAX_SETS: usize = 256;
/// The subsets tried by [`subsets_summing`] before it stops, found or not.
const MAX_TRIED: usize = 100_000;

/// What a bounded enumeration found, and whether that is everything (`false` when it
/// stopped at its bound with more left to find).
#[derive(Debug)]
pub struct Found<T> {
    pub items: T,
    pub complete: bool,
}

/// Subsets (as masks) of `vals` summing to exactly `target`, every one of them up to
/// [`MAX_GROUPS`]; `{}` when `target` is 0.
pub fn subsets_summing(vals: &[u32], target: u32) -> Found<Vec<u64>> {
    if vals.len() > 64 {
        return Found {
            items: Vec::new(),
            complete: false,
        };
    }
    struct Walk<'a> {
        vals: &'a [u32],
        out: Vec<u64>,
        tried: usize,
        cut: bool,
    }
    fn go(w: &mut Walk<'_>, i: usize, mask: u64, remaining: u32) {
        w.tried += 1;
        if remaining == 0 {
            w.out.push(mask);
            return;
        }
        for j in i..w.vals.len() {
            if w.out.len() >= MAX_GROUPS || w.tried >= MAX_TRIED {
                w.cut = true;
                return;
            }
            let v = w.vals[j];
            if v != 0 && v <= remaining {
                go(w, j + 1, mask | (1u64 << j), remaining - v);
            }
        }
    }
    let mut walk = Walk {
        vals,
        out: Vec::new(),
        tried: 0,
        cut: false,
    };
    go(&mut walk, 0, 0, target);
    Found {
        items: walk.out,
        complete: !walk.cut,
    }
}

/// Distinct sets reachable from one of `starts` by adding disjoint `groups`, the starts
/// included, every one of them up to [`MAX_SETS`]. Each set is produced once however many
/// ways it splits into groups.
pub fn unions(starts: &[u64], groups: &[u64]) -> Found<BTreeSet<u64>> {
    let mut seen: BTreeSet<u64> = starts.iter().copied().take(MAX_SETS).collect();
    let mut complete = starts.len() <= MAX_SETS;
    let mut queue: Vec<u64> = seen.iter().copied().collect();
    'all: while let Some(mask) = queue.pop() {
        for &g in groups {
            if g & mask == 0 {
                let m = g | mask;
                if !seen.contains(&m) {
                    if seen.len() >= MAX_SETS {
                        complete = false;
                        break 'all;
                    }
                    seen.insert(m);
                    queue.push(m);
                }
            }
        }
    }
    Found {
        items: seen,
        complete,
    }
}

/// The indices set in `mask`, ascending.
pub fn bits(mask: u64) -> impl Iterator<Item = usize> {
    (0..64).filter(move |i| mask & (1u64 << i) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_find_splits_and_refuse_impossible_ones() {
        assert!(partition(&[3, 6], 9).is_some());
        assert_eq!(partition(&[3, 4, 7], 7).map(|g| g.len()), Some(2));
        assert!(partition(&[2, 4, 4], 10).is_some());
        assert!(partition(&[5, 5, 5], 10).is_none());
        assert!(partition(&[1, 2, 3, 3, 3], 6).is_some());
        assert!(partition(&[10], 9).is_none());
        assert!(partition(&[1], 0).is_none());
        assert_eq!(partition(&[], 9), Some(vec![]));
    }

    #[test]
    fn unions_dedupe_sets_with_several_splits() {
        // 1+2+3 | 3+3 and 1+2+3' | 3+3'' cover the same five cards: one set.
        let vals = [1, 2, 3, 3, 3];
        let groups = subsets_summing(&vals, 6);
        assert!(groups.complete);
        let all = unions(&[0], &groups.items);
        assert!(all.complete);
        let all = all.items;
        assert!(all.contains(&0b11111));
        assert_eq!(all.iter().filter(|&&m| m == 0b11111).count(), 1);
        for m in &all {
            let v: Vec<u32> = bits(*m).map(|i| vals[i]).collect();
            assert!(partition(&v, 6).is_some());
        }
    }

    #[test]
    fn enumerations_say_when_they_stop_at_their_bound() {
        // Twenty ones make C(20, 10) subsets of ten: far beyond MAX_GROUPS.
        let ones = [1u32; 20];
        let many = subsets_summing(&ones, 10);
        assert!(!many.complete);
        assert_eq!(many.items.len(), MAX_GROUPS);
        let few = subsets_summing(&ones[..4], 2);
        assert!(few.complete);
        assert_eq!(few.items.len(), 6);
        let singles: Vec<u64> = (0..20).map(|i| 1u64 << i).collect();
        let sets = unions(&[0], &singles);
        assert!(!sets.complete);
        assert_eq!(sets.items.len(), MAX_SETS);
        let sets = unions(&[0], &singles[..5]);
        assert!(sets.complete);
        assert_eq!(sets.items.len(), 32);
    }
}
