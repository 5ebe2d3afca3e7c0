//! Partners: the Danish team race game driven by playing cards (rules digest
//! RULES.md beside this file). Four colours in two teams sitting opposite; with two
//! players each plays one team's two colours (HR-5).

pub mod actions;
mod board;
mod bot;
pub mod data;
mod invariants;
pub mod moves;
pub mod rules;
pub mod state;
mod targets;
pub mod view;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_people;

use turnpost_engine::People;
use turnpost_engine::cards::Card;
use turnpost_engine::{
    Game, GameInfo, GameRng, Outcome, Placing, RuleError, Seat, SetupError, Status, TeamResult,
    Viewer, Visibility,
};

pub use actions::{Action, Part, Spot};
use data::{COLOURS, Data, data};
pub use state::{Loc, Options, Phase, Piece, State};
use view::{View, cap, team_name};

pub const ID: &str = "partners";

/// The deal limits a new game may have (0: none, the game runs until a team is home).
pub const DEAL_LIMITS: std::ops::RangeInclusive<u32> = 0..=100;

pub struct Partners;

fn data_error(e: String) -> RuleError {
    RuleError::new(
        "data_error",
        format!("the Partners data file is broken: {e}"),
    )
}

/// Every legal play for the hand at position `p` (the discard exactly when nothing else).
pub fn play_actions(d: &Data, st: &State, p: usize) -> Vec<Action> {
    let r = st.rules();
    let mut out: Vec<Action> = st
        .hands
        .get(p)
        .map(|h| {
            h.iter()
                .flat_map(|&card| moves::card_actions(d, r, &st.pieces, p, card))
                .collect()
        })
        .unwrap_or_default();
    if out.is_empty() && st.hands.get(p).is_some_and(|h| !h.is_empty()) {
        out.push(Action::Discard);
    }
    out
}

/// Why a play that is not in the legal list is refused, in words for a person.
fn diagnose(d: &Data, st: &State, p: usize, action: &Action) -> RuleError {
    let hand = st.hands.get(p).cloned().unwrap_or_default();
    if let Action::Exchange { .. } = action {
        return RuleError::new("wrong_phase", "cards are exchanged only right after a deal");
    }
    let Some(card) = action.card() else {
        return RuleError::new(
            "must_play_a_card",
            "you hold a card that can be used, so you must play one (HR-4); the hand may be laid down only when no card is usable",
        );
    };
    if !hand.contains(&card) {
        return RuleError::new(
            "card_not_in_hand",
            format!("{} is not in your hand", card.pretty()),
        );
    }
    let info = d.card(card.rank);
    let fits = match action {
        Action::Start { .. } => info.is_some_and(|i| i.start),
        Action::Forward { steps, .. } => info.is_some_and(|i| i.forward.contains(steps)),
        Action::Back { .. } => info.is_some_and(|i| i.back > 0),
        Action::Seven { .. } => info.is_some_and(|i| i.split > 0),
        Action::Swap { .. } => info.is_some_and(|i| i.swap),
        Action::Exchange { .. } | Action::Discard => false,
    };
    if !fits {
        return RuleError::new(
            "wrong_card",
            format!(
                "{} cannot be used for that kind of move (see the card table)",
                card.pretty()
            ),
        );
    }
    let mut pieces = st.pieces.clone();
    match moves::perform(d, st.rules(), &mut pieces, p, action, &mut Vec::new()) {
        Err(e) => e,
        Ok(()) => RuleError::new("not_listed", "that move is not among the legal ones"),
    }
}

/// The listed seven that ends in the same position as `action`, a split of the same card
/// in another order or with other parts: equivalent splits are one play,
/// carried out in the listed form so every order gives the same state and log.
fn listed_equivalent(
    d: &Data,
    st: &State,
    p: usize,
    action: &Action,
    legal: &[Action],
) -> Option<Action> {
    let Action::Seven { card, .. } = action else {
        return None;
    };
    let r = st.rules();
    let outcome = |a: &Action| {
        let mut pieces = st.pieces.clone();
        moves::perform(d, r, &mut pieces, p, a, &mut Vec::new())
            .ok()
            .map(|()| moves::key(&pieces, p))
    };
    let want = outcome(action)?;
    legal
        .iter()
        .filter(|a| matches!(a, Action::Seven { card: c, .. } if c == card))
        .find(|a| outcome(a) == Some(want))
        .cloned()
}

impl Partners {
    fn outcome(&self, d: &Data, st: &State) -> Outcome {
        let teams: Vec<TeamResult> = (0..2)
            .map(|t| {
                let mut seats: Vec<Seat> = [t, t + 2].iter().map(|&p| st.controller(p)).collect();
                seats.dedup();
                let rank = match st.winner {
                    Some(w) if w != t => 2,
                    _ => 1,
                };
                TeamResult {
                    name: team_name(d, t),
                    seats,
                    rank,
                    score: Some(st.pieces_home(t) as i64),
                }
            })
            .collect();
        let mut ranking: Vec<Placing> = (0..st.seats)
            .map(|s| {
                let t = teams.iter().find(|t| t.seats.contains(&s));
                Placing {
                    seat: s,
                    rank: t.map_or(2, |t| t.rank),
                    score: t.and_then(|t| t.score),
                }
            })
            .collect();
        ranking.sort_by_key(|p| (p.rank, p.seat));
        let summary = match st.winner {
            Some(w) => format!(
                "Team {} wins with all pieces home ({} against {})",
                team_name(d, w),
                st.pieces_home(w),
                st.pieces_home(1 - w)
            ),
            None => format!(
                "Tie at the deal limit: {} pieces home each",
                st.pieces_home(0)
            ),
        };
        Outcome {
            ranking,
            teams,
            summary,
        }
    }
}

impl Game for Partners {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;

    fn info(&self) -> GameInfo {
        GameInfo {
            id: ID,
            name: "Partners",
            min_players: 2,
            max_players: 4,
            rules_version: rules::CURRENT,
        }
    }

    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32> {
        rules::FIRST..=rules::CURRENT
    }

    /// Every move gives or plays a card from a hand the others cannot see.
    fn takebacks(&self) -> bool {
        false
    }

    /// A deal limit is for unattended play and ends a game early; a larger one than
    /// [`DEAL_LIMITS`] only lets the computer play on (stored games keep theirs).
    fn check_new_options(&self, options: &Options) -> Result<(), SetupError> {
        if !DEAL_LIMITS.contains(&options.deal_limit) {
            return Err(SetupError::out_of_range(
                "deal_limit",
                DEAL_LIMITS,
                options.deal_limit,
            ));
        }
        Ok(())
    }

    fn setup(&self, options: &Options, seats: usize, rng: GameRng) -> Result<State, SetupError> {
        let d = data().map_err(|e| SetupError::new("data_error", e))?;
        if seats == 3 {
            // HR-5: three players have no team structure.
            return Err(SetupError::new(
                "invalid_player_count",
                "Partners is played by 4 (two teams) or 2 (each plays a team's two colours); there is no 3-player game (HR-5)",
            ));
        }
        if seats != 2 && seats != 4 {
            return Err(SetupError::player_count(seats, 2, 4));
        }
        Ok(State::new(d, options, seats, rng))
    }

    fn status(&self, st: &State) -> Status {
        match st.phase {
            Phase::Finished => match data() {
                Ok(d) => Status::Finished(self.outcome(d, st)),
                Err(e) => Status::Finished(Outcome {
                    ranking: Vec::new(),
                    teams: Vec::new(),
                    summary: e,
                }),
            },
            Phase::Exchange => {
                let mut to_act: Vec<Seat> = (0..COLOURS)
                    .filter(|&p| st.pending.get(p).is_some_and(Option::is_none))
                    .map(|p| st.controller(p))
                    .collect();
                to_act.sort_unstable();
                to_act.dedup();
                Status::Active { to_act }
            }
            Phase::Play => Status::Active {
                to_act: vec![st.controller(st.turn)],
            },
        }
    }

    fn legal_actions(&self, st: &State, seat: Seat) -> Vec<Action> {
        let Ok(d) = data() else {
            return Vec::new();
        };
        if seat >= st.seats {
            return Vec::new();
        }
        match st.phase {
            Phase::Finished => Vec::new(),
            Phase::Exchange => st
                .positions_of(seat)
                .into_iter()
                .filter(|&p| st.pending.get(p).is_some_and(Option::is_none))
                .flat_map(|p| st.hands.get(p).cloned().unwrap_or_default())
                .map(|card| Action::Exchange { card })
                .collect(),
            Phase::Play => {
                if st.controller(st.turn) == seat {
                    play_actions(d, st, st.turn)
                } else {
                    Vec::new()
                }
            }
        }
    }

    fn apply(&self, st: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
        let d = data().map_err(data_error)?;
        if st.phase == Phase::Finished {
            return Err(RuleError::game_over());
        }
        if seat >= st.seats {
            return Err(RuleError::not_your_turn(seat));
        }
        if st.phase == Phase::Exchange {
            let Some(p) = st
                .positions_of(seat)
                .into_iter()
                .find(|&p| st.pending.get(p).is_some_and(Option::is_none))
            else {
                return Err(RuleError::not_your_turn(seat));
            };
            let Action::Exchange { card } = action else {
                return Err(RuleError::new(
                    "exchange_first",
                    "first give one card to your partner (the exchange after the deal)",
                ));
            };
            let mut next = st.clone();
            let Some(i) = next
                .hands
                .get(p)
                .and_then(|h| h.iter().position(|c| c == card))
            else {
                return Err(RuleError::new(
                    "card_not_in_hand",
                    format!("{} is not in your hand", card.pretty()),
                ));
            };
            if let Some(h) = next.hands.get_mut(p) {
                h.remove(i);
            }
            if let Some(slot) = next.pending.get_mut(p) {
                *slot = Some(*card);
            }
            // Public: that a card was chosen, never which.
            next.note(format!(
                "{} chose a card for {}",
                cap(d.colour(p)),
                cap(d.colour(State::partner(p)))
            ));
            next.resolve_exchange();
            return Ok(next);
        }

        let p = st.turn;
        if st.controller(p) != seat {
            return Err(RuleError::not_your_turn(seat));
        }
        // Only the named card's plays need listing (the discard needs them all).
        let legal = match action.card() {
            Some(card) if st.hands.get(p).is_some_and(|h| h.contains(&card)) => {
                moves::card_actions(d, st.rules(), &st.pieces, p, card)
            }
            _ => play_actions(d, st, p),
        };
        let normalised;
        let action = if legal.contains(action) {
            action
        } else if let Some(listed) = listed_equivalent(d, st, p, action, &legal) {
            normalised = listed;
            &normalised
        } else {
            return Err(diagnose(d, st, p, action));
        };
        let mut next = st.clone();
        let who = cap(d.colour(p));
        match action {
            Action::Discard => {
                let cards: Vec<Card> = next
                    .hands
                    .get_mut(p)
                    .map(std::mem::take)
                    .unwrap_or_default();
                let text: Vec<String> = cards.iter().map(|c| c.pretty()).collect();
                next.played.extend(cards);
                if let Some(x) = next.discarded.get_mut(p) {
                    *x = true;
                }
                // HR-11: the unusable hand is shown face up.
                next.note(format!(
                    "{who} can use no card and lays down {}",
                    text.join(" ")
                ));
            }
            _ => {
                let Some(card) = action.card() else {
                    return Err(RuleError::new(
                        RuleError::MALFORMED,
                        "this action names no card",
                    ));
                };
                if let Some(h) = next.hands.get_mut(p) {
                    h.retain(|c| *c != card);
                }
                next.played.push(card);
                let mut events = Vec::new();
                moves::perform(d, st.rules(), &mut next.pieces, p, action, &mut events)?;
                next.note(format!(
                    "{who} plays {}: {}",
                    card.pretty(),
                    events.join(", ")
                ));
            }
        }
        let team = State::team_of(p);
        if moves::team_home(&next.pieces, team) {
            next.phase = Phase::Finished;
            next.winner = Some(team);
            next.note(format!(
                "Team {} has all pieces home and wins",
                team_name(d, team)
            ));
        } else {
            next.advance(d);
        }
        Ok(next)
    }

    /// Who else has already chosen an exchange card cannot bear on one's own choice: an
    /// exchange card chosen while partners and opponents were still choosing stays valid
    /// (so neither the choices made nor `to_act`, which shrinks with them, count).
    /// The `recent` lines only narrate what the rest of the view shows, and during the
    /// exchange a hand that shrinks by one only says that its owner has chosen.
    fn decision_basis(&self, st: &State, seat: Seat) -> serde_json::Value {
        fn blank(v: &mut serde_json::Value, keys: &[&str]) {
            match v {
                serde_json::Value::Object(m) => {
                    for k in keys {
                        if let Some(x) = m.get_mut(*k) {
                            *x = serde_json::Value::Null;
                        }
                    }
                    m.values_mut().for_each(|x| blank(x, keys));
                }
                serde_json::Value::Array(items) => items.iter_mut().for_each(|x| blank(x, keys)),
                _ => {}
            }
        }
        let mut view = serde_json::to_value(self.view(st, Viewer::Seat(seat))).unwrap_or_default();
        if st.phase == state::Phase::Exchange {
            blank(&mut view, &["exchange_chosen", "cards_in_hand", "to_act"]);
        }
        if let Some(recent) = view.get_mut("recent") {
            *recent = serde_json::Value::Null;
        }
        serde_json::json!({
            "view": view,
            "legal": serde_json::to_value(self.legal_actions(st, seat)).unwrap_or_default(),
        })
    }

    fn view(&self, st: &State, viewer: Viewer) -> View {
        let status = self.status(st);
        match data() {
            Ok(d) => view::build(d, st, viewer, &status),
            Err(e) => view::unavailable(st, viewer, &status, e),
        }
    }

    fn action_visibility(&self, st: &State, seat: Seat, action: &Action) -> Visibility {
        match action {
            Action::Exchange { .. } => {
                // The card is seen by the giver, and by the partner only if the partner has
                // already chosen: the exchange is simultaneous and hidden (4.1, 7).
                // The entry of the first of two partners stays the giver's alone.
                let mut seen_by: Vec<Seat> = st
                    .positions_of(seat)
                    .into_iter()
                    .filter(|&p| st.pending.get(p).is_some_and(Option::is_none))
                    .take(1)
                    .filter(|&p| {
                        st.pending
                            .get(State::partner(p))
                            .is_some_and(Option::is_some)
                    })
                    .map(|p| st.controller(State::partner(p)))
                    .collect();
                seen_by.push(seat);
                seen_by.sort_unstable();
                seen_by.dedup();
                Visibility::Private {
                    seen_by,
                    public_form: serde_json::json!({"type": "exchange", "card": "hidden"}),
                }
            }
            _ => Visibility::Public,
        }
    }

    fn describe_action(&self, st: &State, seat: Seat, action: &Action) -> String {
        let Ok(d) = data() else {
            return format!("{action:?}");
        };
        let p = st.turn;
        match action {
            // The partner by their colour, which the server shows with their name.
            Action::Exchange { card } => format!(
                "give {} to your partner {}",
                card.pretty(),
                self.seat_name(st, State::partner(seat))
            ),
            Action::Discard => {
                let hand: Vec<String> = st
                    .hands
                    .get(p)
                    .map(|h| h.iter().map(|c| c.pretty()).collect())
                    .unwrap_or_default();
                format!(
                    "lay down your hand, no card can be used: {}",
                    hand.join(" ")
                )
            }
            _ => {
                let card = action.card().map_or_else(String::new, |c| c.pretty());
                let mut pieces = st.pieces.clone();
                let mut events = Vec::new();
                match moves::perform(d, st.rules(), &mut pieces, p, action, &mut events) {
                    Ok(()) => format!("{card}: {}", events.join(", ")),
                    Err(e) => format!("{card}: not possible ({})", e.message),
                }
            }
        }
    }

    fn render_text(&self, st: &State, viewer: Viewer) -> String {
        match data() {
            Ok(d) => view::render(d, &view::build(d, st, viewer, &self.status(st))),
            Err(e) => format!("Partners cannot be shown: {e}"),
        }
    }

    /// Drawn for the viewer the view was made for (`view.viewer`).
    fn board_svg(&self, view: &View, people: &People) -> String {
        match data() {
            Ok(d) => board::board_svg(d, view, people),
            Err(e) => board::unavailable(&e),
        }
    }

    /// The card played, the piece's place and where a single move ends (see
    /// `targets.rs`).
    fn action_targets(&self, st: &State, _seat: Seat, action: &Action) -> Vec<String> {
        match data() {
            Ok(d) => targets::targets(d, st, action),
            Err(_) => Vec::new(),
        }
    }

    fn log_text(&self, st: &State, seat: Seat, action: &Action) -> String {
        let Ok(d) = data() else {
            return self.describe_action(st, seat, action);
        };
        let giver = st
            .positions_of(seat)
            .into_iter()
            .find(|&p| st.pending.get(p).is_some_and(Option::is_none))
            .unwrap_or(st.turn);
        targets::log_text(d, st, giver, action)
    }

    fn seat_name(&self, st: &State, seat: Seat) -> String {
        let Ok(d) = data() else {
            return format!("Seat {}", seat + 1);
        };
        let names: Vec<String> = st
            .positions_of(seat)
            .iter()
            .map(|&p| cap(d.colour(p)))
            .collect();
        names.join(" & ")
    }

    fn bot_standing(&self, st: &State, seat: Seat) -> Option<f64> {
        bot::standing(st, seat)
    }

    fn resample_hidden(&self, st: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        let mut out = st.clone();
        let seat = viewer.seat();
        let sees_hand = |p: usize| seat == Some(st.controller(p));
        let sees_exchange = |p: usize| st.sees_exchange_of(p, seat);
        let mut pool: Vec<Card> = std::mem::take(&mut out.deck);
        let mut fixed: Vec<Vec<Card>> = vec![Vec::new(); COLOURS];
        let mut sizes = [0usize; COLOURS];
        for p in 0..COLOURS {
            if sees_hand(p) {
                continue;
            }
            let hand = out.hands.get_mut(p).map(std::mem::take).unwrap_or_default();
            // The card the viewer gave this hand is known to still be in it.
            let known = if sees_exchange(State::partner(p)) {
                st.given.get(State::partner(p)).copied().flatten()
            } else {
                None
            };
            sizes[p] = hand.len();
            for c in hand {
                if Some(c) == known {
                    fixed[p].push(c);
                } else {
                    pool.push(c);
                }
            }
            if !sees_exchange(p)
                && let Some(c) = out.pending.get_mut(p).and_then(Option::take)
            {
                pool.push(c);
            }
        }
        // Sorted first, so the world drawn depends only on what is unseen, not on where it lay:
        // the same seed gives the same world for states the viewer cannot tell apart.
        pool.sort();
        rng.shuffle(&mut pool);
        for p in 0..COLOURS {
            if sees_hand(p) {
                continue;
            }
            let mut hand = std::mem::take(&mut fixed[p]);
            while hand.len() < sizes[p] {
                match pool.pop() {
                    Some(c) => hand.push(c),
                    None => break,
                }
            }
            hand.sort();
            if let Some(h) = out.hands.get_mut(p) {
                *h = hand;
            }
            if !sees_exchange(p)
                && st.pending.get(p).is_some_and(Option::is_some)
                && let Some(slot) = out.pending.get_mut(p)
            {
                *slot = pool.pop();
            }
        }
        out.deck = pool;
        // Another side's exchanged cards: any card now in the receiver's hand will do.
        for q in 0..COLOURS {
            if !sees_exchange(q) && st.given.get(q).is_some_and(Option::is_some) {
                let receiver = out
                    .hands
                    .get(State::partner(q))
                    .cloned()
                    .unwrap_or_default();
                if let (Some(c), Some(slot)) = (rng.pick(&receiver).copied(), out.given.get_mut(q))
                {
                    *slot = Some(c);
                }
            }
        }
        out.rng = rng.fork();
        out
    }

    fn check_invariants(&self, st: &State) -> Result<(), String> {
        invariants::check_state(data()?, st)
    }

    fn check_step(
        &self,
        before: &State,
        _seat: Seat,
        action: &Action,
        after: &State,
    ) -> Result<(), String> {
        invariants::check_step(before, action, after)
    }

    fn check_data(&self) -> Result<(), String> {
        data().map(|_| ())
    }
}
