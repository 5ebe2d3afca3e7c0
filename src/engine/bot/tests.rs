//! The bot on a toy game where peeking would pay (the real games are in turnpost-games'
//! `bot_tests`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;
use crate::{GameInfo, RuleError, SetupError, Status};

/// Two seats each hold a secret card 1..=9. Seat 0 either folds (a shared result) or calls
/// (the higher card wins). Calling pays on average only with a high card; a bot that saw
/// seat 1's card would call a low card against a lower one and fold a high one against a
/// higher one.
struct Showdown;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct St {
    cards: Vec<u8>,
    choice: Option<Move>,
    rng: GameRng,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
enum Move {
    Fold,
    Call,
}

impl Game for Showdown {
    type Options = ();
    type State = St;
    type Action = Move;
    type View = serde_json::Value;

    fn info(&self) -> GameInfo {
        GameInfo {
            id: "showdown",
            name: "Showdown",
            min_players: 2,
            max_players: 2,
            rules_version: 1,
        }
    }

    fn setup(&self, _: &(), _: usize, mut rng: GameRng) -> Result<St, SetupError> {
        Ok(St {
            cards: vec![rng.die(9), rng.die(9)],
            choice: None,
            rng,
        })
    }

    fn status(&self, s: &St) -> Status {
        match s.choice {
            None => Status::Active { to_act: vec![0] },
            Some(Move::Fold) => Status::Finished(Outcome::by_score(&[(0, 0), (1, 0)], "fold")),
            Some(Move::Call) => Status::Finished(Outcome::by_score(
                &[(0, i64::from(s.cards[0])), (1, i64::from(s.cards[1]))],
                "call",
            )),
        }
    }

    fn legal_actions(&self, s: &St, seat: Seat) -> Vec<Move> {
        if seat == 0 && s.choice.is_none() {
            vec![Move::Fold, Move::Call]
        } else {
            Vec::new()
        }
    }

    fn apply(&self, s: &St, seat: Seat, a: &Move) -> Result<St, RuleError> {
        if !self.legal_actions(s, seat).contains(a) {
            return Err(RuleError::not_your_turn(seat));
        }
        let mut next = s.clone();
        next.choice = Some(*a);
        Ok(next)
    }

    fn view(&self, s: &St, viewer: Viewer) -> serde_json::Value {
        let mine = viewer.seat().and_then(|v| s.cards.get(v).copied());
        serde_json::json!({ "mine": mine, "choice": s.choice })
    }

    fn describe_action(&self, _: &St, _: Seat, a: &Move) -> String {
        format!("{a:?}")
    }

    fn render_text(&self, _: &St, _: Viewer) -> String {
        String::new()
    }

    fn resample_hidden(&self, s: &St, viewer: Viewer, rng: &mut GameRng) -> St {
        let mut t = s.clone();
        for (i, c) in t.cards.iter_mut().enumerate() {
            if viewer.seat() != Some(i) {
                *c = rng.die(9);
            }
        }
        t.rng = rng.fork();
        t
    }
}

fn showdown(mine: u8, theirs: u8) -> St {
    St {
        cards: vec![mine, theirs],
        choice: None,
        rng: GameRng::seed_from_u64(u64::from(mine) * 10 + u64::from(theirs)),
    }
}

const SMALL: BotBudget = BotBudget {
    playouts: 400,
    depth: 10,
    candidates: 8,
};

#[test]
fn the_choice_follows_the_seats_own_card_and_ignores_the_hidden_one() {
    // Fold is worth 0.55 (a shared first place); a call with 5 wins 4 in 9: about 0.5.
    for theirs in 1..=9 {
        let low = search(&Showdown, &showdown(5, theirs), 0, [1; 32], SMALL, &[]);
        assert_eq!(low, Some(Move::Fold), "a 5 against a hidden {theirs}");
        let high = search(&Showdown, &showdown(8, theirs), 0, [1; 32], SMALL, &[]);
        assert_eq!(high, Some(Move::Call), "an 8 against a hidden {theirs}");
    }
}

#[test]
fn a_seat_with_nothing_to_do_gets_none() {
    assert_eq!(
        search(&Showdown, &showdown(5, 5), 1, [1; 32], SMALL, &[]),
        None
    );
    let mut over = showdown(5, 5);
    over.choice = Some(Move::Call);
    assert_eq!(search(&Showdown, &over, 0, [1; 32], SMALL, &[]), None);
}

#[test]
fn outcome_values_rank_a_win_over_a_tie_over_a_loss() {
    let win = Outcome::by_score(&[(0, 3), (1, 1)], "");
    let tie = Outcome::by_score(&[(0, 2), (1, 2)], "");
    assert!(outcome_value(&win, 0) > outcome_value(&tie, 0));
    assert!(outcome_value(&tie, 0) > outcome_value(&win, 1));
    assert_eq!(outcome_value(&win, 7), 0.0);
    let lead = standing_from_scores(&[10, 4, 6], 0, 2.0).unwrap_or(0.0);
    let behind = standing_from_scores(&[10, 4, 6], 1, 2.0).unwrap_or(1.0);
    assert!(lead > 0.9 && behind < 0.1, "{lead} {behind}");
}
