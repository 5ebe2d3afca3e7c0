//! What a viewer sees, and the turn-email text drawn from it (so the text cannot show
//! more than the view).

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;

use super::data::{COLOURS, Data};
use super::state::{Loc, Phase, State};
use turnpost_engine::cards::Card;
use turnpost_engine::{Seat, Status, ViewCommon, Viewer};

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PieceView {
    pub field: u8,
    /// False while the piece has not left its start field since it came into play: it
    /// cannot turn into its home yet (HR-3).
    pub may_enter_home: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ColourView {
    pub colour: String,
    pub seat: Seat,
    pub start_field: u8,
    /// The colour this hand moves now: its own, or its partner's once its own are home.
    pub moves_for: String,
    pub in_circle: usize,
    pub on_track: Vec<PieceView>,
    /// H1..H4: occupied or not.
    pub home: Vec<bool>,
    pub cards_in_hand: usize,
    /// The hand, to the seat that plays it only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hand: Option<Vec<Card>>,
    /// The hand was laid down unused this deal (its cards are in `played`, HR-11).
    pub laid_down: bool,
    /// This deal's exchange choice has been made (public; the card is not).
    pub exchange_chosen: bool,
    /// The card chosen for the partner: to its giver, and to the partner once both have
    /// chosen (the exchange is simultaneous and hidden).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange_card: Option<Card>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct View {
    #[serde(flatten)]
    pub common: ViewCommon,
    pub seats: usize,
    pub phase: Phase,
    pub deal: u32,
    pub deal_in_cycle: u8,
    pub deals_per_cycle: u8,
    pub dealer: String,
    /// The colour whose hand plays next (play phase).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_play: Option<String>,
    pub colours: Vec<ColourView>,
    /// Cards face up on the pile since the last shuffle.
    pub played: Vec<Card>,
    pub cards_in_deck: usize,
    /// Pieces home per team (yellow + blue, red + green).
    pub team_home: Vec<usize>,
    pub recent: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<String>,
}

pub fn team_name(d: &Data, team: usize) -> String {
    format!("{} + {}", cap(d.colour(team)), cap(d.colour(team + 2)))
}

pub fn cap(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

pub fn build(d: &Data, st: &State, viewer: Viewer, status: &Status) -> View {
    let sees_hand = |p: usize| viewer.seat() == Some(st.controller(p));
    let sees_exchange = |p: usize| st.sees_exchange_of(p, viewer.seat());
    let colours = (0..COLOURS)
        .map(|p| {
            let ps = st.pieces.get(p).cloned().unwrap_or_default();
            let mut on_track: Vec<PieceView> = ps
                .iter()
                .filter_map(|pc| match pc.loc {
                    Loc::Track(f) => Some(PieceView {
                        field: f,
                        may_enter_home: pc.left_start,
                    }),
                    _ => None,
                })
                .collect();
            on_track.sort_by_key(|v| (v.field, v.may_enter_home));
            let hand = st.hands.get(p).cloned().unwrap_or_default();
            let pending = st.pending.get(p).copied().flatten();
            let given = st.given.get(p).copied().flatten();
            ColourView {
                colour: cap(d.colour(p)),
                seat: st.controller(p),
                start_field: d.start_field(p),
                moves_for: cap(d.colour(st.controlled(p))),
                in_circle: ps.iter().filter(|pc| pc.loc == Loc::Circle).count(),
                on_track,
                home: (1..=d.board.home_fields)
                    .map(|h| ps.iter().any(|pc| pc.loc == Loc::Home(h)))
                    .collect(),
                cards_in_hand: hand.len(),
                hand: sees_hand(p).then_some(hand),
                laid_down: st.discarded.get(p).copied().unwrap_or(false),
                exchange_chosen: pending.is_some() || given.is_some(),
                exchange_card: if sees_exchange(p) {
                    pending.or(given)
                } else {
                    None
                },
            }
        })
        .collect();
    let result = (st.phase == Phase::Finished).then(|| match st.winner {
        Some(t) => format!("Team {} wins", team_name(d, t)),
        None => "The game ends in a tie at the deal limit".to_string(),
    });
    View {
        common: ViewCommon::new(viewer, st.seats, status),
        seats: st.seats,
        phase: st.phase,
        deal: st.deals,
        deal_in_cycle: st.deal_in_cycle,
        deals_per_cycle: d.deal.deals_per_cycle,
        dealer: cap(d.colour(st.dealer)),
        to_play: (st.phase == Phase::Play).then(|| cap(d.colour(st.turn))),
        colours,
        played: st.played.clone(),
        cards_in_deck: st.deck.len(),
        team_home: vec![st.pieces_home(0), st.pieces_home(1)],
        recent: st.log.clone(),
        result,
    }
}

/// The view when the data file is broken (setup refuses new games then): public counts only.
pub fn unavailable(st: &State, viewer: Viewer, status: &Status, error: String) -> View {
    View {
        common: ViewCommon::new(viewer, st.seats, status),
        seats: st.seats,
        phase: st.phase,
        deal: st.deals,
        deal_in_cycle: st.deal_in_cycle,
        deals_per_cycle: 0,
        dealer: String::new(),
        to_play: None,
        colours: Vec::new(),
        played: st.played.clone(),
        cards_in_deck: st.deck.len(),
        team_home: vec![st.pieces_home(0), st.pieces_home(1)],
        recent: vec![error],
        result: None,
    }
}

fn cards_text(cards: &[Card]) -> String {
    if cards.is_empty() {
        return "(none)".into();
    }
    cards
        .iter()
        .map(|c| c.pretty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The email body: the track drawn as 4 rows of 16 fields, each colour's circle, track
/// and home, the viewer's own hand(s) and what happened lately.
pub fn render(d: &Data, v: &View) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "PARTNERS — deal {} of {} in this deck (dealer {})",
        v.deal_in_cycle, v.deals_per_cycle, v.dealer
    );
    if let Some(r) = &v.result {
        let _ = writeln!(out, "GAME OVER: {r}");
    }
    match v.phase {
        Phase::Exchange => {
            let waiting: Vec<&str> = v
                .colours
                .iter()
                .filter(|c| !c.exchange_chosen)
                .map(|c| c.colour.as_str())
                .collect();
            let _ = writeln!(out, "Card exchange: waiting for {}", waiting.join(", "));
        }
        Phase::Play => {
            if let Some(t) = &v.to_play {
                let _ = writeln!(out, "To play: {t}");
            }
        }
        Phase::Finished => {}
    }
    let _ = writeln!(
        out,
        "Pieces home: {} {}, {} {}",
        team_name(d, 0),
        v.team_home.first().copied().unwrap_or(0),
        team_name(d, 1),
        v.team_home.get(1).copied().unwrap_or(0)
    );
    out.push('\n');

    // The track: a letter per piece (doubled for a pair), '*' marks a start field.
    let letter = |c: usize| {
        d.colour(c)
            .chars()
            .next()
            .map_or('?', |ch| ch.to_ascii_uppercase())
    };
    let mut cell: Vec<String> = vec![".".into(); usize::from(d.board.track_fields)];
    for (c, cv) in v.colours.iter().enumerate() {
        for pv in &cv.on_track {
            if let Some(s) = cell.get_mut(usize::from(pv.field)) {
                if s == "." {
                    s.clear();
                }
                s.push(letter(c));
            }
        }
    }
    let _ = writeln!(
        out,
        "Track, clockwise (63 → 0); * = start field; YY = doubled pair:"
    );
    let section = usize::from(d.board.section);
    for row in 0..COLOURS {
        let mut nums = String::from("  field");
        let mut marks = String::from("       ");
        for i in 0..section {
            let f = row * section + i;
            let star = if f % section == 0 { '*' } else { ' ' };
            let _ = write!(nums, "{f:>3}{star}");
            let _ = write!(marks, "{:>3} ", cell.get(f).map_or(".", String::as_str));
        }
        let _ = writeln!(out, "{}\n{}", nums.trim_end(), marks.trim_end());
    }
    out.push('\n');
    for cv in &v.colours {
        let track: Vec<String> = cv
            .on_track
            .iter()
            .map(|p| {
                if p.may_enter_home {
                    p.field.to_string()
                } else {
                    format!("{} (not yet left start)", p.field)
                }
            })
            .collect();
        let home: String = cv
            .home
            .iter()
            .enumerate()
            .map(|(i, &o)| {
                format!(
                    "[H{} {}]",
                    i + 1,
                    if o { letter_of(&cv.colour) } else { '.' }
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "{:<6} (seat {}, start {:>2}): start circle {}, track {}, home {}",
            cv.colour,
            cv.seat + 1,
            cv.start_field,
            cv.in_circle,
            if track.is_empty() {
                "-".into()
            } else {
                track.join(", ")
            },
            home
        );
        let mut extra = format!("       cards in hand {}", cv.cards_in_hand);
        if cv.moves_for != cv.colour {
            let _ = write!(extra, "; all home, now moves {}", cv.moves_for);
        }
        if cv.laid_down {
            extra.push_str("; laid its hand down this deal");
        }
        let _ = writeln!(out, "{extra}");
    }
    if let Some(s) = v.common.viewer {
        out.push('\n');
        for cv in v.colours.iter().filter(|c| c.seat == s) {
            if let Some(h) = &cv.hand {
                let _ = writeln!(out, "Your hand ({}): {}", cv.colour, cards_text(h));
            }
        }
        for (i, cv) in v.colours.iter().enumerate() {
            let partner = v
                .colours
                .get((i + 2) % COLOURS)
                .map_or("?", |o| o.colour.as_str());
            if let Some(card) = cv.exchange_card {
                if cv.seat == s {
                    let _ = writeln!(
                        out,
                        "{} gives {} to {partner} in this deal's exchange",
                        cv.colour,
                        card.pretty()
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "{} (your partner) gives {} to {partner}",
                        cv.colour,
                        card.pretty()
                    );
                }
            }
        }
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "Cards on the pile since the shuffle: {}",
        cards_text(&v.played)
    );
    let _ = writeln!(out, "Cards left in the deck: {}", v.cards_in_deck);
    if !v.recent.is_empty() {
        out.push_str("\nRecently:\n");
        for line in &v.recent {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}

fn letter_of(colour: &str) -> char {
    colour
        .chars()
        .next()
        .map_or('?', |c| c.to_ascii_uppercase())
}
