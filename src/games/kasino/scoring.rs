//! End of round (cleanup, scoring by the table in 2.3) and end of game (section 6).

use super::data::{Params, diamond_10, spade_2};
use super::state::{Item, RoundLine, State};
use turnpost_engine::cards::{Card, Suit};
use turnpost_engine::{Outcome, Seat, TeamResult};

/// What one side brings to the round's scoring.
pub struct SideTake<'a> {
    pub seats: Vec<Seat>,
    pub pile: &'a [Card],
    pub sweeps: u32,
    pub last_capture: bool,
}

/// Scores one round for every side (section 2.3; ties for most spades or most cards score
/// nothing; with `sweeps_cancel` every side's sweeps drop by the lowest count).
pub fn score_round(p: &Params, sides: &[SideTake<'_>], sweeps_cancel: bool) -> Vec<RoundLine> {
    let s = &p.scoring;
    let spades: Vec<usize> = sides
        .iter()
        .map(|t| t.pile.iter().filter(|c| c.suit == Suit::Spades).count())
        .collect();
    let cards: Vec<usize> = sides.iter().map(|t| t.pile.len()).collect();
    let unique_top = |v: &[usize], i: usize| {
        let top = v.iter().copied().max().unwrap_or(0);
        v.get(i) == Some(&top) && v.iter().filter(|&&x| x == top).count() == 1
    };
    let cancel = if sweeps_cancel {
        sides.iter().map(|t| t.sweeps).min().unwrap_or(0)
    } else {
        0
    };
    sides
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let mut items: Vec<(String, i64)> = Vec::new();
            if unique_top(&spades, i) {
                items.push(("most_spades".into(), s.most_spades));
            }
            if unique_top(&cards, i) {
                items.push(("most_cards".into(), s.most_cards));
            }
            if t.pile.contains(&diamond_10()) {
                items.push(("diamond_10".into(), s.diamond_10));
            }
            if t.pile.contains(&spade_2()) {
                items.push(("spade_2".into(), s.spade_2));
            }
            let aces = t.pile.iter().filter(|c| c.rank == 1).count() as i64;
            if aces > 0 {
                items.push(("aces".into(), aces * s.each_ace));
            }
            if t.last_capture {
                items.push(("last_capture".into(), s.last_capture));
            }
            let sweeps = t.sweeps - cancel;
            if sweeps > 0 {
                items.push(("sweeps".into(), i64::from(sweeps) * s.each_sweep));
            }
            RoundLine {
                seats: t.seats.clone(),
                cards: t.pile.len(),
                spades: spades.get(i).copied().unwrap_or(0),
                sweeps,
                points: items.iter().map(|(_, v)| v).sum(),
                items,
            }
        })
        .collect()
}

impl State {
    /// Cleanup, scoring, and either the end of the game or the next round.
    pub(super) fn end_round(&mut self) {
        // Cleanup: what is left goes to the last capturer, never as a sweep; if nobody
        // captured all round it is set aside (HR-6).
        let rest: Vec<Card> = std::mem::take(&mut self.table)
            .into_iter()
            .flat_map(|i| match i {
                Item::Loose { card } => vec![card],
                Item::Build(b) => b.cards,
            })
            .collect();
        if let Some(p) = self.last_capturer.and_then(|s| self.piles.get_mut(s)) {
            p.extend(rest);
        }
        let side_count = self.scores.len();
        let piles: Vec<Vec<Card>> = (0..side_count)
            .map(|side| {
                self.side_seats(side)
                    .iter()
                    .flat_map(|&s| self.piles.get(s).cloned().unwrap_or_default())
                    .collect()
            })
            .collect();
        let last_side = self.last_capturer.map(|s| self.side_of(s));
        let takes: Vec<SideTake<'_>> = (0..side_count)
            .map(|side| SideTake {
                seats: self.side_seats(side),
                pile: piles.get(side).map_or(&[], |p| p.as_slice()),
                sweeps: self
                    .side_seats(side)
                    .iter()
                    .map(|&s| self.sweeps.get(s).copied().unwrap_or(0))
                    .sum(),
                last_capture: last_side == Some(side),
            })
            .collect();
        let lines = score_round(&self.params, &takes, self.options.sweeps_cancel);
        for (score, line) in self.scores.iter_mut().zip(&lines) {
            *score += line.points;
        }
        self.history.push(lines);
        if game_over(&self.scores, self.params.game.target) {
            self.finished = true;
        } else {
            let dealer = self.left_of(self.dealer);
            self.start_round(dealer);
        }
    }

    pub fn outcome(&self) -> Outcome {
        let scores: Vec<(Seat, i64)> = (0..self.seats)
            .map(|s| (s, self.scores.get(self.side_of(s)).copied().unwrap_or(0)))
            .collect();
        let top = self.scores.iter().copied().max().unwrap_or(0);
        let winners: Vec<usize> = (0..self.scores.len())
            .filter(|&i| self.scores.get(i) == Some(&top))
            .collect();
        let names: Vec<String> = winners.iter().map(|&side| self.side_name(side)).collect();
        let verb = if self.options.teams || names.len() > 1 {
            "win"
        } else {
            "wins"
        };
        let summary = format!("{} {verb} with {top} points", names.join(" and "));
        let mut outcome = Outcome::by_score(&scores, summary);
        if self.options.teams {
            let mut teams: Vec<TeamResult> = (0..self.scores.len())
                .map(|side| TeamResult {
                    name: self.side_name(side),
                    seats: self.side_seats(side),
                    rank: 0,
                    score: self.scores.get(side).copied(),
                })
                .collect();
            let all: Vec<Option<i64>> = teams.iter().map(|t| t.score).collect();
            for t in &mut teams {
                t.rank = 1 + all.iter().filter(|&&s| s > t.score).count() as u32;
            }
            teams.sort_by_key(|t| t.rank);
            outcome.teams = teams;
        }
        outcome
    }

    /// "Seat 2", or "Seats 1 & 3" for a team.
    pub fn side_name(&self, side: usize) -> String {
        let seats: Vec<String> = self
            .side_seats(side)
            .iter()
            .map(|s| (s + 1).to_string())
            .collect();
        if seats.len() == 1 {
            format!("Seat {}", seats.join(""))
        } else {
            format!("Seats {}", seats.join(" & "))
        }
    }
}

/// Section 6 and HR-11: someone reached the target and the top is not tied.
pub fn game_over(scores: &[i64], target: i64) -> bool {
    let top = scores.iter().copied().max().unwrap_or(0);
    top >= target && scores.iter().filter(|&&s| s == top).count() == 1
}
