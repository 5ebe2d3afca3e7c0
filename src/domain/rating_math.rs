//! Who beat whom in a finished game, as Glicko-2 sees it. The formulas are the
//! `skillratings` crate's; this module only decides which results each player gets.
//!
//! `skillratings` has Glicko-2 for two players (`glicko2`) and for one player against a
//! list of opponents in one rating period (`glicko2_rating_period`), but no team or
//! multi-team Glicko-2 (its `TeamRatingSystem`/`MultiTeamRatingSystem` exist only for
//! TrueSkill and Weng-Lin). So a game with placings is read as the set of pairwise results
//! it contains, all in one rating period, which is what Glicko-2 is defined over:
//!
//! - each player is rated against every player of every other side: a better rank is a
//!   win, a worse one a loss, an equal one a draw; every opponent's rating is taken from
//!   before the game, so the order players are processed in does not matter;
//! - a side is a team (`Outcome::teams`) or, without teams, a single seat; team-mates are
//!   never each other's opponents, so members of a team share the team's results.
//!
//! A two-player game is then exactly `glicko2` of the two (one result each).

use skillratings::Outcomes;
use skillratings::glicko2::{Glicko2Config, Glicko2Rating, glicko2_rating_period};
use std::cmp::Ordering;

use crate::engine::{Outcome, Seat};

/// One seat of a finished game: its side and its rank (1 is best).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Placed {
    pub seat: Seat,
    pub side: usize,
    pub rank: u32,
}

/// Every ranked seat of `outcome` with its side: the index of its team, or (without teams,
/// or for a seat in none) a side of its own.
pub fn placings(outcome: &Outcome) -> Vec<Placed> {
    outcome
        .ranking
        .iter()
        .map(|p| {
            let team = outcome.teams.iter().position(|t| t.seats.contains(&p.seat));
            Placed {
                seat: p.seat,
                side: team.unwrap_or(outcome.teams.len() + p.seat),
                rank: p.rank,
            }
        })
        .collect()
}

/// Whether the placings have at least two sides (anything less is not a contest).
pub fn is_contest(placed: &[Placed]) -> bool {
    placed
        .first()
        .is_some_and(|first| placed.iter().any(|p| p.side != first.side))
}

/// The new rating of each player (same order as `players`), each `(placing, rating before)`.
pub fn rate(players: &[(Placed, Glicko2Rating)]) -> Vec<Glicko2Rating> {
    let config = Glicko2Config::new();
    players
        .iter()
        .map(|(me, before)| {
            let results: Vec<(Glicko2Rating, Outcomes)> = players
                .iter()
                .filter(|(other, _)| other.side != me.side)
                .map(|(other, theirs)| {
                    let outcome = match me.rank.cmp(&other.rank) {
                        Ordering::Less => Outcomes::WIN,
                        Ordering::Greater => Outcomes::LOSS,
                        Ordering::Equal => Outcomes::DRAW,
                    };
                    (*theirs, outcome)
                })
                .collect();
            if results.is_empty() {
                *before
            } else {
                glicko2_rating_period(before, &results, &config)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{Placing, TeamResult};
    use skillratings::glicko2::glicko2;

    fn placing(seat: Seat, rank: u32) -> Placing {
        Placing {
            seat,
            rank,
            score: None,
        }
    }

    #[test]
    fn two_players_are_the_crates_two_player_glicko2() {
        let outcome = Outcome {
            ranking: vec![placing(1, 1), placing(0, 2)],
            teams: Vec::new(),
            summary: String::new(),
        };
        let a = Glicko2Rating {
            rating: 1620.0,
            deviation: 80.0,
            volatility: 0.06,
        };
        let b = Glicko2Rating::new();
        let placed = placings(&outcome);
        let rated = rate(&[(placed[0], a), (placed[1], b)]);
        let (win, loss) = glicko2(&a, &b, &Outcomes::WIN, &Glicko2Config::new());
        assert_eq!(rated, vec![win, loss]);
    }

    #[test]
    fn team_mates_share_results_and_are_not_opponents() {
        let outcome = Outcome {
            ranking: vec![placing(0, 1), placing(2, 1), placing(1, 2), placing(3, 2)],
            teams: vec![
                TeamResult {
                    name: "A".into(),
                    seats: vec![0, 2],
                    rank: 1,
                    score: None,
                },
                TeamResult {
                    name: "B".into(),
                    seats: vec![1, 3],
                    rank: 2,
                    score: None,
                },
            ],
            summary: String::new(),
        };
        let placed = placings(&outcome);
        assert!(is_contest(&placed));
        let fresh = Glicko2Rating::new();
        let rated = rate(&placed.iter().map(|&p| (p, fresh)).collect::<Vec<_>>());
        // Equal ratings before: both winners gain the same, both losers lose the same.
        assert_eq!(rated[0], rated[1]);
        assert_eq!(rated[2], rated[3]);
        assert!(rated[0].rating > 1500.0 && rated[2].rating < 1500.0);
        let two_wins = glicko2_rating_period(
            &fresh,
            &[(fresh, Outcomes::WIN), (fresh, Outcomes::WIN)],
            &Glicko2Config::new(),
        );
        assert_eq!(rated[0], two_wins);
    }

    #[test]
    fn a_free_for_all_orders_new_ratings_by_placing() {
        let outcome = Outcome {
            ranking: vec![placing(2, 1), placing(0, 2), placing(1, 2), placing(3, 4)],
            teams: Vec::new(),
            summary: String::new(),
        };
        let fresh = Glicko2Rating::new();
        let placed = placings(&outcome);
        let rated = rate(&placed.iter().map(|&p| (p, fresh)).collect::<Vec<_>>());
        assert!(rated[0].rating > rated[1].rating);
        assert_eq!(rated[1], rated[2], "a tie is a tie");
        assert!(rated[2].rating > rated[3].rating);
        assert!(
            (rated[1].rating - 1500.0).abs() < 1e-9,
            "one win, one loss, one draw"
        );
    }

    #[test]
    fn one_side_is_no_contest() {
        let outcome = Outcome {
            ranking: vec![placing(0, 1)],
            teams: Vec::new(),
            summary: String::new(),
        };
        assert!(!is_contest(&placings(&outcome)));
    }
}
