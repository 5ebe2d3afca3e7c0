//! How the state changes: drawing, dealing, ending a game of the series, scoring.

use super::data::Tile;
use super::state::{GameRecord, Phase, State};
use turnpost_engine::{Outcome, Placing, Seat};

impl State {
    pub(super) fn draw_random(&mut self) -> Option<Tile> {
        if self.bag.is_empty() {
            return None;
        }
        let i = self.rng.below(self.bag.len());
        (i < self.bag.len()).then(|| self.bag.remove(i))
    }

    pub(super) fn give(&mut self, seat: Seat, t: Tile) {
        if let Some(rack) = self.racks.get_mut(seat) {
            let at = rack.partition_point(|&x| x < t);
            rack.insert(at, t);
        }
    }

    pub(super) fn take_from_rack(&mut self, seat: Seat, t: Tile) -> bool {
        let Some(rack) = self.racks.get_mut(seat) else {
            return false;
        };
        match rack.iter().position(|&x| x == t) {
            Some(i) => {
                rack.remove(i);
                true
            }
            None => false,
        }
    }

    pub(super) fn refill_display(&mut self) {
        while self.display.len() < self.rules.display_size {
            let Some(t) = self.draw_random() else { break };
            self.display.push(t);
        }
    }

    pub(super) fn note(&mut self, line: String) {
        self.events.push(line);
        // A short public memory of recent events for the email body.
        let keep = 2 * self.seats + 2;
        if self.events.len() > keep {
            let cut = self.events.len() - keep;
            self.events.drain(..cut);
        }
    }

    /// Deals a fresh game of the series (all tiles back in the bag).
    pub(super) fn deal(&mut self, starter: Seat) {
        self.bag = self.rules.all_tiles();
        self.display.clear();
        self.table.clear();
        self.racks = vec![Vec::new(); self.seats];
        self.opened = vec![false; self.seats];
        self.received = vec![Vec::new(); self.seats];
        self.played_actions.clear();
        self.passes_in_row = 0;
        for seat in 0..self.seats {
            for _ in 0..self.rules.rack_start {
                if let Some(t) = self.draw_random() {
                    self.give(seat, t);
                }
            }
        }
        self.refill_display();
        self.starter = starter;
        self.turn = starter;
        self.phase = Phase::Turn;
    }

    pub(super) fn rack_total(&self, seat: Seat) -> i64 {
        self.racks
            .get(seat)
            .map_or(0, |r| r.iter().map(|&t| self.rules.penalty(t)).sum())
    }

    /// Ends the current game: records it, then deals the next game or finishes the series.
    pub(super) fn end_game(&mut self, winners: Vec<Seat>, blocked: bool) {
        let points: Vec<i64> = (0..self.seats)
            .map(|s| {
                if winners.contains(&s) {
                    0
                } else {
                    self.rack_total(s)
                }
            })
            .collect();
        for (t, p) in self.totals.iter_mut().zip(&points) {
            *t += p;
        }
        let names: Vec<String> = winners.iter().map(|s| format!("Seat {}", s + 1)).collect();
        self.note(format!(
            "game {} ends{}: {} won",
            self.game_no,
            if blocked {
                " blocked (a full round of passes)"
            } else {
                ""
            },
            names.join(" and ")
        ));
        self.history.push(GameRecord {
            winners,
            blocked,
            points,
            racks: self.racks.clone(),
        });
        if self.game_no < self.options.games {
            self.game_no += 1;
            let next = (self.starter + 1) % self.seats.max(1);
            self.deal(next);
            self.note(format!(
                "game {} begins; Seat {} starts",
                self.game_no,
                next + 1
            ));
        } else {
            self.phase = Phase::Finished {
                outcome: series_outcome(&self.totals, self.options.games),
            };
        }
    }

    pub(super) fn next_turn(&mut self) {
        self.turn = (self.turn + 1) % self.seats.max(1);
    }
}

/// Lowest penalty total first; equal totals share a rank (HR-10).
pub fn series_outcome(totals: &[i64], games: u32) -> Outcome {
    let mut order: Vec<(Seat, i64)> = totals.iter().copied().enumerate().collect();
    order.sort_by_key(|&(s, p)| (p, s));
    let mut ranking: Vec<Placing> = Vec::with_capacity(order.len());
    for (i, &(seat, points)) in order.iter().enumerate() {
        let rank = match ranking.last() {
            Some(prev) if prev.score == Some(points) => prev.rank,
            _ => i as u32 + 1,
        };
        ranking.push(Placing {
            seat,
            rank,
            score: Some(points),
        });
    }
    let winners: Vec<String> = ranking
        .iter()
        .filter(|p| p.rank == 1)
        .map(|p| format!("Seat {}", p.seat + 1))
        .collect();
    let best = order.first().map_or(0, |&(_, p)| p);
    let summary = if games <= 1 {
        format!(
            "{} wins (penalty points, lower is better: winner {best})",
            winners.join(" and ")
        )
    } else {
        format!(
            "{} wins the {games}-game series with {best} penalty points (lower is better)",
            winners.join(" and ")
        )
    };
    Outcome {
        ranking,
        teams: Vec::new(),
        summary,
    }
}
