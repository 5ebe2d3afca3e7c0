//! What a viewer sees: the JSON view, the text for emails, and action descriptions.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;

use super::actions::Action;
use super::combos::partition;
use super::state::{BuildKind, Item, RoundLine, State};
use turnpost_engine::cards::Card;
use turnpost_engine::{Seat, Status, ViewCommon, Viewer};

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct View {
    #[serde(flatten)]
    pub common: ViewCommon,
    pub round: u32,
    /// Hand number within the round, and how many hands a round has.
    pub hand: u32,
    pub hands_per_round: u32,
    pub dealer: Seat,
    /// The stock is empty: this is the round's last hand ("sidsten").
    pub last_hand: bool,
    pub stock_count: usize,
    /// The viewer's own hand (players only).
    pub your_hand: Option<Vec<Card>>,
    pub seats: Vec<SeatView>,
    pub table: Vec<TableItem>,
    /// Game totals per side (one seat, or a team of partners).
    pub scores: Vec<SideScore>,
    pub target: i64,
    pub teams: bool,
    pub sweeps_cancel: bool,
    pub last_capturer: Option<Seat>,
    /// Scores of every finished round.
    pub rounds: Vec<Vec<RoundLine>>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SeatView {
    pub seat: Seat,
    pub hand_size: usize,
    /// Cards in the capture pile this round.
    pub pile_size: usize,
    pub sweeps: u32,
    /// The build this seat owns, by id.
    pub owns_build: Option<u32>,
    /// O2 applies: on its next turn this seat must capture.
    pub must_capture: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(tag = "item", rename_all = "snake_case")]
pub enum TableItem {
    Loose {
        card: Card,
        /// Table value.
        value: u32,
    },
    Build {
        id: u32,
        value: u32,
        kind: BuildKind,
        owner: Seat,
        cards: Vec<Card>,
    },
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct SideScore {
    pub seats: Vec<Seat>,
    pub score: i64,
}

pub fn hands_per_round(state: &State) -> u32 {
    let d = &state.params.deal;
    let n = state.seats.max(1);
    let opening = n * d.opening_rounds * d.opening_batch + d.opening_rounds * d.opening_batch;
    (1 + 52usize.saturating_sub(opening) / (n * d.later_hand).max(1)) as u32
}

pub fn view(state: &State, viewer: Viewer, status: &Status) -> View {
    let me = viewer.seat().filter(|&s| s < state.seats);
    View {
        common: ViewCommon::new(viewer, state.seats, status),
        round: state.round,
        hand: state.hand_no,
        hands_per_round: hands_per_round(state),
        dealer: state.dealer,
        last_hand: state.last_hand,
        stock_count: state.stock.len(),
        your_hand: me.map(|s| state.hand(s).to_vec()),
        seats: (0..state.seats)
            .map(|s| SeatView {
                seat: s,
                hand_size: state.hand(s).len(),
                pile_size: state.piles.get(s).map_or(0, |p| p.len()),
                sweeps: state.sweeps.get(s).copied().unwrap_or(0),
                owns_build: state.owned_build(s).map(|b| b.id),
                must_capture: state.must_capture(s),
            })
            .collect(),
        table: state
            .table
            .iter()
            .map(|i| match i {
                Item::Loose { card } => TableItem::Loose {
                    card: *card,
                    value: state.params.tv(*card),
                },
                Item::Build(b) => TableItem::Build {
                    id: b.id,
                    value: b.value,
                    kind: b.kind,
                    owner: b.owner,
                    cards: b.cards.clone(),
                },
            })
            .collect(),
        scores: (0..state.scores.len())
            .map(|side| SideScore {
                seats: state.side_seats(side),
                score: state.scores.get(side).copied().unwrap_or(0),
            })
            .collect(),
        target: state.params.game.target,
        teams: state.options.teams,
        sweeps_cancel: state.options.sweeps_cancel,
        last_capturer: state.last_capturer,
        rounds: state.history.clone(),
    }
}

fn cards_text(cards: &[Card]) -> String {
    cards
        .iter()
        .map(|c| c.pretty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn seat_label(state: &State, seat: Seat, me: Option<Seat>) -> String {
    let mut s = format!("Seat {}", seat + 1);
    if me == Some(seat) {
        s.push_str(" (you)");
    }
    if state.options.teams {
        let _ = write!(s, " [team {}]", state.side_name(state.side_of(seat)));
    }
    s
}

pub fn render_text(state: &State, viewer: Viewer) -> String {
    let me = viewer.seat().filter(|&s| s < state.seats);
    let mut t = String::new();
    let _ = writeln!(
        t,
        "Kasino - round {}, hand {} of {}{}",
        state.round,
        state.hand_no,
        hands_per_round(state),
        if state.last_hand {
            " - LAST HAND (sidsten)"
        } else {
            ""
        }
    );
    let _ = writeln!(
        t,
        "Dealer: Seat {}   Stock: {} cards",
        state.dealer + 1,
        state.stock.len()
    );
    if state.finished {
        let _ = writeln!(t, "Game over: {}", state.outcome().summary);
    } else if me == Some(state.turn) {
        let _ = writeln!(t, "Your turn (Seat {}).", state.turn + 1);
    } else {
        let _ = writeln!(t, "To play: Seat {}", state.turn + 1);
    }
    t.push('\n');
    t.push_str("Table:\n");
    if state.table.is_empty() {
        t.push_str("  (empty)\n");
    }
    let loose = state.loose();
    if !loose.is_empty() {
        let _ = writeln!(t, "  loose: {}", cards_text(&loose));
    }
    for b in state.builds() {
        let kind = match b.kind {
            BuildKind::Single => "single",
            BuildKind::Multiple => "multiple",
        };
        let _ = writeln!(
            t,
            "  build B{}: value {}, {kind}, owner Seat {} [{}]",
            b.id,
            b.value,
            b.owner + 1,
            cards_text(&b.cards)
        );
    }
    t.push('\n');
    t.push_str("Players:\n");
    let labels: Vec<String> = (0..state.seats).map(|s| seat_label(state, s, me)).collect();
    let width = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    for (s, label) in labels.iter().enumerate() {
        let mut line = format!(
            "  {label:<width$}  hand {}, pile {}, sweeps {}",
            plural(state.hand(s).len(), "card"),
            plural(state.piles.get(s).map_or(0, |p| p.len()), "card"),
            state.sweeps.get(s).copied().unwrap_or(0)
        );
        if let Some(b) = state.owned_build(s) {
            let _ = write!(line, ", owns B{}", b.id);
        }
        if state.must_capture(s) {
            line.push_str(", must capture");
        }
        if state.last_capturer == Some(s) {
            line.push_str(", last capture");
        }
        let _ = writeln!(t, "{line}");
    }
    t.push('\n');
    let _ = writeln!(t, "Scores (play to {}):", state.params.game.target);
    for side in 0..state.scores.len() {
        let _ = writeln!(
            t,
            "  {:<12} {}",
            state.side_name(side),
            state.scores.get(side).copied().unwrap_or(0)
        );
    }
    for (n, lines) in state.history.iter().enumerate() {
        let _ = writeln!(t, "Round {}:", n + 1);
        for l in lines {
            let names: Vec<String> = l.seats.iter().map(|s| (s + 1).to_string()).collect();
            let who = if names.len() == 1 { "Seat" } else { "Seats" };
            let _ = writeln!(
                t,
                "  {who} {}: {} cards, {} spades: {} = {}",
                names.join(" & "),
                l.cards,
                l.spades,
                items_words(&l.items),
                l.points
            );
        }
    }
    if let Some(s) = me {
        t.push('\n');
        match state.hand(s) {
            [] => t.push_str("Your hand is empty.\n"),
            hand => {
                let _ = writeln!(t, "Your hand: {}", cards_text(hand));
            }
        }
    }
    t
}

/// A scoring item as people say it: "most spades", "10♦", "2♠".
pub fn item_word(key: &str) -> &str {
    match key {
        "most_spades" => "most spades",
        "most_cards" => "most cards",
        "diamond_10" => "10♦",
        "spade_2" => "2♠",
        "aces" => "aces",
        "last_capture" => "last capture",
        "sweeps" => "sweeps",
        other => other,
    }
}

/// A round's scoring items, "most spades 2, 10♦ 2, aces 1", or "no points".
pub fn items_words(items: &[(String, i64)]) -> String {
    if items.is_empty() {
        return "no points".into();
    }
    items
        .iter()
        .map(|(k, v)| format!("{} {v}", item_word(k)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// "3♣+6♦, B2" — the table items taken, grouped as the values add up.
fn groups_text(state: &State, value: u32, played: Option<Card>, cards: &[Card]) -> String {
    let p = &state.params;
    let mut all: Vec<Card> = played.into_iter().collect();
    all.extend(cards.iter().copied());
    let vals: Vec<u32> = all.iter().map(|&c| p.tv(c)).collect();
    match partition(&vals, value) {
        Some(mut groups) => {
            // The played card's group first, then table order.
            for g in &mut groups {
                g.sort_unstable();
            }
            groups.sort();
            groups
                .iter()
                .map(|g| {
                    g.iter()
                        .filter_map(|&i| all.get(i).map(|c| c.pretty()))
                        .collect::<Vec<_>>()
                        .join("+")
                })
                .collect::<Vec<_>>()
                .join(", ")
        }
        None => cards_text(&all),
    }
}

/// The verbs of a move's words: as the player chooses it, or as the log tells it.
struct Verbs {
    trail: &'static str,
    clear: &'static str,
    take: &'static str,
    build: &'static str,
    raise: &'static str,
    add: &'static str,
}

const CHOOSE: Verbs = Verbs {
    trail: "trail",
    clear: "clear",
    take: "take",
    build: "build",
    raise: "raise",
    add: "add",
};

const TOLD: Verbs = Verbs {
    trail: "trailed",
    clear: "cleared",
    take: "captured",
    build: "built",
    raise: "raised",
    add: "added",
};

pub fn describe(state: &State, action: &Action) -> String {
    words(state, action, &CHOOSE)
}

/// The action as the log tells it after the player's name: "trailed 7♥", "captured 3♣+4♦
/// with 7♥".
pub fn log_text(state: &State, action: &Action) -> String {
    words(state, action, &TOLD)
}

fn words(state: &State, action: &Action, v: &Verbs) -> String {
    let p = &state.params;
    match action {
        Action::Trail { card } => format!("{} {}", v.trail, card.pretty()),
        Action::ClearTable => format!("{} the table with 5♠", v.clear),
        Action::Capture {
            card,
            cards,
            builds,
        } => {
            let mut parts = Vec::new();
            if !cards.is_empty() {
                parts.push(groups_text(state, p.cv(*card), None, cards));
            }
            for id in builds {
                parts.push(format!("build B{id}"));
            }
            format!("{} {} with {}", v.take, parts.join(", "), card.pretty())
        }
        Action::Build { card, value, cards } => {
            let total: u32 = p.tv(*card) + cards.iter().map(|&c| p.tv(c)).sum::<u32>();
            let kind = if total == *value { "" } else { " (multiple)" };
            format!(
                "{} {value}{kind} with {}: {}",
                v.build,
                card.pretty(),
                groups_text(state, *value, Some(*card), cards)
            )
        }
        Action::Raise { card, build, value } => {
            let from = state
                .build(*build)
                .map_or(String::new(), |b| format!(" ({})", b.value));
            format!(
                "{} build B{build}{from} to {value} with {}",
                v.raise,
                card.pretty()
            )
        }
        Action::AddToBuild { card, build, cards } => {
            let value = state.build(*build).map_or(0, |b| b.value);
            format!(
                "{} to build B{build} ({value}) with {}: {}",
                v.add,
                card.pretty(),
                groups_text(state, value, Some(*card), cards)
            )
        }
    }
}

/// What on the picture an action involves: the hand card played (`card:7H`), the loose
/// table cards (`table:3C`) and builds (`build:B2`) it takes or builds on.
pub fn targets(action: &Action) -> Vec<String> {
    let mut t = vec![format!("card:{}", action.card())];
    match action {
        Action::Trail { .. } | Action::ClearTable => {}
        Action::Capture { cards, builds, .. } => {
            t.extend(cards.iter().map(|c| format!("table:{c}")));
            t.extend(builds.iter().map(|b| format!("build:B{b}")));
        }
        Action::Build { cards, .. } => {
            t.extend(cards.iter().map(|c| format!("table:{c}")));
        }
        Action::Raise { build, .. } => t.push(format!("build:B{build}")),
        Action::AddToBuild { build, cards, .. } => {
            t.push(format!("build:B{build}"));
            t.extend(cards.iter().map(|c| format!("table:{c}")));
        }
    }
    t
}
