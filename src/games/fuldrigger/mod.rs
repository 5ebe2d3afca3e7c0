//! Fuldrigger: sea trade and trade war with full-rigged ships on an authored world map.
//! Rules as players read them: `RULES.md` here; board and cards: `fuldrigger.toml` (HR-1).

pub mod actions;
mod board;
mod bot;
pub mod data;
mod invariants;
mod notation;
pub mod render;
pub mod rules;
pub mod state;
mod targets;

#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use turnpost_engine::People;

use turnpost_engine::{
    Game, GameInfo, GameRng, Outcome, Placing, RuleError, Seat, SetupError, Status, ViewCommon,
    Viewer, Visibility,
};

pub use actions::Action;
pub use data::{Board, parse_and_validate};
pub use state::State;

use state::Phase;

pub const ID: &str = "fuldrigger";

/// Game options.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// Number of rounds to play, 1 to 200; omitted means the data file's default (20, HR-2).
    #[schemars(range(min = 1, max = 200))]
    pub rounds: Option<u32>,
    /// The isthmus variant: transship goods over Suez and Panama (adds PAN, J_PAC, L36, L37).
    pub isthmus: bool,
}

/// The Fuldrigger rules engine, holding the validated content pack.
pub struct Fuldrigger {
    board: Result<Board, String>,
}

impl Fuldrigger {
    /// Loads the shipped data file. A broken file is reported by `check_data` and refuses
    /// every setup rather than panicking.
    pub fn new() -> Self {
        Fuldrigger {
            board: parse_and_validate(data::DATA),
        }
    }

    /// An engine over another data file (tests, content packs).
    pub fn with_data(text: &str) -> Result<Self, String> {
        parse_and_validate(text).map(|b| Fuldrigger { board: Ok(b) })
    }

    pub fn board(&self) -> Option<&Board> {
        self.board.as_ref().ok()
    }
}

impl Default for Fuldrigger {
    fn default() -> Self {
        Self::new()
    }
}

fn broken() -> RuleError {
    RuleError::new("broken_data", "the Fuldrigger data file failed validation")
}

impl Game for Fuldrigger {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = render::View;

    fn info(&self) -> GameInfo {
        GameInfo {
            id: ID,
            name: "Fuldrigger",
            min_players: 2,
            max_players: 4,
            rules_version: state::RULES_VERSION,
        }
    }

    fn setup(&self, options: &Options, seats: usize, rng: GameRng) -> Result<State, SetupError> {
        let b = self
            .board
            .as_ref()
            .map_err(|e| SetupError::new("broken_data", e.clone()))?;
        if !(2..=4).contains(&seats) {
            return Err(SetupError::player_count(seats, 2, 4));
        }
        let rounds = options.rounds.unwrap_or(b.c.rounds);
        if !(1..=200).contains(&rounds) {
            return Err(SetupError::invalid_options(
                "rounds must be between 1 and 200",
            ));
        }
        Ok(rules::setup(b, seats, options.isthmus, rounds, rng))
    }

    fn status(&self, st: &State) -> Status {
        let Ok(b) = self.board.as_ref() else {
            return Status::Finished(Outcome::by_score(&[], "broken data"));
        };
        if st.phase != Phase::Over {
            let seat = if st.phase == Phase::ChooseHome {
                rules::home_chooser(st).unwrap_or(st.current)
            } else {
                st.current
            };
            return Status::Active { to_act: vec![seat] };
        }
        // Highest fortune first; ties on fortune go to more cash, then shared (HR-16). An
        // early winner (all others out) ranks first.
        let mut rows: Vec<(Seat, i64, u32, bool)> = (0..st.seats)
            .map(|s| {
                (
                    s,
                    rules::fortune(b, st, s),
                    st.cash(s),
                    st.early_winner == Some(s),
                )
            })
            .collect();
        rows.sort_by(|a, b| {
            b.3.cmp(&a.3)
                .then(b.1.cmp(&a.1))
                .then(b.2.cmp(&a.2))
                .then(a.0.cmp(&b.0))
        });
        let mut ranking: Vec<Placing> = Vec::new();
        for (i, r) in rows.iter().enumerate() {
            let rank = match i {
                0 => 1,
                _ if rows[i - 1].1 == r.1 && rows[i - 1].2 == r.2 && rows[i - 1].3 == r.3 => {
                    ranking.last().map_or(1, |p| p.rank)
                }
                _ => i as u32 + 1,
            };
            ranking.push(Placing {
                seat: r.0,
                rank,
                score: Some(r.1),
            });
        }
        let winners: Vec<String> = ranking
            .iter()
            .filter(|p| p.rank == 1)
            .map(|p| rules::seat_name(p.seat))
            .collect();
        let top = rows.first().map_or(0, |r| r.1);
        let summary = match st.early_winner {
            Some(w) => format!(
                "{} wins: every other company has lost its fleet",
                rules::seat_name(w)
            ),
            None if winners.len() > 1 => format!(
                "{} share the win with a fortune of {top}",
                winners.join(" and ")
            ),
            None => format!("{} wins with a fortune of {top}", winners.join("")),
        };
        Status::Finished(Outcome {
            ranking,
            teams: Vec::new(),
            summary,
        })
    }

    fn legal_actions(&self, st: &State, seat: Seat) -> Vec<Action> {
        match self.board.as_ref() {
            Ok(b) => rules::legal(b, st, seat),
            Err(_) => Vec::new(),
        }
    }

    fn legal_actions_complete(&self) -> bool {
        // Offers and attack groups are listed as a bounded menu; apply takes any valid one.
        false
    }

    /// Offers are sampled, so a single listed action may hide others where offers may be
    /// made (before the roll and after movement): there the roll and the end of the turn
    /// stay the player's. Elsewhere the list is whole (every sail, and an attack group for
    /// every attack there is), so a single choice plays itself (HR-17): the answer to a
    /// battle question, the end of a movement with no ship able to sail or attack, the last
    /// home city.
    fn forced_action(&self, st: &State, seat: Seat) -> Option<Action> {
        let whole = st.pending.is_some() || matches!(st.phase, Phase::Movement | Phase::ChooseHome);
        if !whole || st.phase == Phase::Over {
            return None;
        }
        turnpost_engine::only_choice(self.legal_actions(st, seat))
    }

    fn apply(&self, st: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
        let b = self.board.as_ref().map_err(|_| broken())?;
        let mut next = st.clone();
        rules::apply(b, &mut next, seat, action)?;
        Ok(next)
    }

    fn view(&self, st: &State, viewer: Viewer) -> render::View {
        let status = self.status(st);
        match self.board.as_ref() {
            Ok(b) => render::view(b, st, viewer, &status),
            Err(_) => render::View::empty(ViewCommon::new(viewer, st.seats, &status)),
        }
    }

    fn board_svg(&self, view: &render::View, people: &People) -> String {
        match self.board.as_ref() {
            Ok(b) => board::picture(b, view, people),
            Err(e) => turnpost_engine::svg::text_picture("Fuldrigger", &format!("data error: {e}")),
        }
    }

    fn action_targets(&self, st: &State, _seat: Seat, action: &Action) -> Vec<String> {
        match self.board.as_ref() {
            Ok(b) => targets::targets(b, st, action),
            Err(_) => Vec::new(),
        }
    }

    fn log_text(&self, st: &State, seat: Seat, action: &Action) -> String {
        targets::past_tense(&self.describe_action(st, seat, action))
    }

    fn action_visibility(&self, _before: &State, seat: Seat, action: &Action) -> Visibility {
        match action {
            // Terms stay between the two parties until accepted (then the transfer is logged).
            Action::Offer { to, .. } => Visibility::Private {
                seen_by: if *to == seat {
                    vec![seat]
                } else {
                    vec![seat.min(*to), seat.max(*to)]
                },
                public_form: serde_json::json!({"type": "offer", "to": to, "terms": "hidden"}),
            },
            _ => Visibility::Public,
        }
    }

    /// Any deal, written out (email players bargain too).
    fn parse_notation(
        &self,
        st: &State,
        _seat: Seat,
        text: &str,
    ) -> Option<Result<Action, String>> {
        notation::parse_offer(st, text)
    }

    fn notation_help(&self, st: &State, seat: Seat) -> Option<String> {
        self.legal_actions(st, seat)
            .iter()
            .any(|a| matches!(a, Action::Offer { .. }))
            .then(|| notation::help(seat))
    }

    fn describe_action(&self, st: &State, seat: Seat, action: &Action) -> String {
        let Ok(b) = self.board.as_ref() else {
            return format!("{action:?}");
        };
        describe(b, st, seat, action)
    }

    fn render_text(&self, st: &State, viewer: Viewer) -> String {
        match self.board.as_ref() {
            Ok(b) => render::render(b, st, viewer, &self.status(st)),
            Err(e) => format!("Fuldrigger data error: {e}"),
        }
    }

    fn seat_name(&self, _st: &State, seat: Seat) -> String {
        rules::seat_name(seat)
    }

    fn bot_standing(&self, st: &State, seat: Seat) -> Option<f64> {
        bot::standing(self.board.as_ref().ok()?, st, seat)
    }

    fn resample_hidden(&self, st: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        let mut out = st.clone();
        // Nobody sees the deck order or the RNG.
        // Sorted first, so the world drawn depends only on what is unseen, not on where it lay:
        // the same seed gives the same world for states the viewer cannot tell apart.
        out.deck.sort_unstable();
        rng.shuffle(&mut out.deck);
        out.rng = rng.fork();
        // Offers the viewer is not party to may hold any other terms: any cash, and any of
        // each side's ships, forts and depot loads (their existence is public, their terms
        // are not).
        let me = viewer.seat();
        for o in out.offers.iter_mut() {
            let (from, to) = (o.from, o.to);
            if Some(from) == me || Some(to) == me {
                continue;
            }
            let give = random_bundle(self.board(), st, from, rng);
            let mut get = random_bundle(self.board(), st, to, rng);
            if give.is_empty() && get.is_empty() {
                // An offer always holds something.
                get.cash = 1 + rng.below(300) as u32;
            }
            o.give = give;
            o.get = get;
        }
        out
    }

    fn check_data(&self) -> Result<(), String> {
        self.board.as_ref().map(|_| ()).map_err(Clone::clone)
    }

    /// Version 1 counted every ship at the standard price in the fortune (changing who
    /// inherits under C24 and the final ranking); its games still replay as they were.
    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32> {
        1..=state::RULES_VERSION
    }

    fn check_invariants(&self, st: &State) -> Result<(), String> {
        let b = self.board.as_ref().map_err(Clone::clone)?;
        invariants::check_state(b, st)
    }

    fn check_step(
        &self,
        before: &State,
        seat: Seat,
        action: &Action,
        after: &State,
    ) -> Result<(), String> {
        let b = self.board.as_ref().map_err(Clone::clone)?;
        invariants::check_transition(b, before, seat, action, after)
    }
}

/// Some of `owner`'s cash, ships, forts and depot loads, for resampled offer terms.
fn random_bundle(b: Option<&Board>, st: &State, owner: Seat, rng: &mut GameRng) -> state::Bundle {
    let mut bundle = state::Bundle {
        cash: rng.below(st.cash(owner) as usize + 1) as u32,
        ..state::Bundle::default()
    };
    for s in st.ships_of(owner) {
        if rng.below(3) == 0 {
            bundle.ships.push(s.id);
        }
    }
    if let Some(b) = b {
        for (p, f) in st.forts.iter().enumerate() {
            if *f == Some(owner) && rng.below(3) == 0 {
                bundle.forts.push(b.ports[p].id.clone());
            }
        }
    }
    if let Some(p) = st.players.get(owner) {
        for d in &p.depot {
            if rng.below(3) == 0 {
                bundle.depot.push(d.id);
            }
        }
    }
    bundle
}

/// A deal's side in few words: "50 ducats + ship #7 + fort LIS", or "nothing".
fn short_bundle(bundle: &state::Bundle) -> String {
    let mut parts = Vec::new();
    if bundle.cash > 0 {
        parts.push(format!("{} ducats", bundle.cash));
    }
    parts.extend(bundle.ships.iter().map(|id| format!("ship #{id}")));
    parts.extend(bundle.forts.iter().map(|f| format!("fort {f}")));
    parts.extend(bundle.depot.iter().map(|id| format!("depot load {id}")));
    if parts.is_empty() {
        "nothing".into()
    } else {
        parts.join(" + ")
    }
}

fn describe(b: &Board, st: &State, seat: Seat, action: &Action) -> String {
    let port_name = |id: &str| {
        b.port_index(id)
            .map_or(id.to_string(), |p| format!("{} ({id})", b.ports[p].name))
    };
    let ship_at = |id: u32| {
        st.ship(id).map_or(String::new(), |s| {
            format!(" at {}", render::place_words(b, b.node_id(s.at)))
        })
    };
    match action {
        Action::ChooseHome { port } => format!("choose {} as home city", port_name(port)),
        Action::Roll => "roll the dice".into(),
        Action::Sail { ship, to } => format!(
            "sail ship #{ship}{} to {}",
            ship_at(*ship),
            render::place_words(b, to)
        ),
        Action::Attack { defender, ships } => format!(
            "attack {}{} with privateer{} {}",
            rules::seat_name(*defender),
            ships.first().map_or(String::new(), |&s| ship_at(s)),
            if ships.len() == 1 { "" } else { "s" },
            ships
                .iter()
                .map(|s| format!("#{s}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Action::ChooseLoss { ship } => format!("give up privateer #{ship}"),
        Action::CaptureShip { ship } => format!("capture {}", rules::ship_name(st, *ship)),
        Action::CaptureFort => "capture the fort".into(),
        Action::EndMovement => "end movement".into(),
        Action::BuyGood { ship, good } => {
            let price = st
                .ship(*ship)
                .and_then(|s| b.port_of(s.at))
                .and_then(|p| b.good_index(good).and_then(|g| b.ports[p].buy_price(g)));
            format!(
                "buy {good} onto ship #{ship}{}{}",
                ship_at(*ship),
                price.map_or(String::new(), |p| format!(" for {p}"))
            )
        }
        Action::SellGood { ship } => {
            let detail = st.ship(*ship).and_then(|s| {
                let t = s.cargo.as_ref()?;
                let p = b.port_of(s.at)?;
                let (price, duty, _) = rules::sale_price(b, st, seat, p, t.good)?;
                Some(format!(
                    " {} at {} for {price}{}",
                    rules::good_name(b, t.good),
                    b.ports[p].id,
                    if duty > 0 {
                        format!(" (pay {duty} duty)")
                    } else {
                        String::new()
                    }
                ))
            });
            format!(
                "sell the cargo of ship #{ship}{}",
                detail.unwrap_or_default()
            )
        }
        Action::BuyShip => format!("buy a ship for {}", rules::ship_price(b, st)),
        Action::SellShip { ship } => format!(
            "sell ship #{ship}{} to the bank for {}",
            ship_at(*ship),
            b.c.ship_sellback
        ),
        Action::BuyFort { port } => {
            format!("build a fort at {} for {}", port_name(port), b.c.fort_price)
        }
        Action::FitPrivateer { ship } => {
            format!("fit out ship #{ship}{} as a privateer", ship_at(*ship))
        }
        Action::UnfitPrivateer { ship } => {
            format!("make privateer #{ship}{} a merchant again", ship_at(*ship))
        }
        Action::TransshipDrop { ship } => format!(
            "drop the cargo of ship #{ship}{} in the isthmus depot",
            ship_at(*ship)
        ),
        Action::TransshipPickup { ship, load } => {
            let what = st
                .players
                .get(seat)
                .and_then(|p| p.depot.iter().find(|d| d.id == *load))
                .map_or(String::new(), |d| {
                    format!(
                        " ({}, {} fields)",
                        rules::good_name(b, d.token.good),
                        d.token.fields
                    )
                });
            format!(
                "load depot load {load}{what} onto ship #{ship}{}",
                ship_at(*ship)
            )
        }
        // Short, for a list of deals: the terms only ("offer Blue 50 ducats for ship #7").
        Action::Offer { to, give, get } => format!(
            "offer {} {} for {}",
            rules::seat_name(*to),
            short_bundle(give),
            short_bundle(get)
        ),
        Action::Accept { offer } | Action::Decline { offer } | Action::Withdraw { offer } => {
            let verb = match action {
                Action::Accept { .. } => "accept",
                Action::Decline { .. } => "decline",
                _ => "withdraw",
            };
            match st.offers.iter().find(|o| o.id == *offer) {
                // Declines and withdrawals name no terms: they stay between the parties.
                Some(o) if verb != "accept" => {
                    format!(
                        "{verb} offer #{offer} ({} to {})",
                        rules::seat_name(o.from),
                        rules::seat_name(o.to)
                    )
                }
                Some(o) => format!(
                    "{verb} offer #{offer} ({} gives {}; {} gives {})",
                    rules::seat_name(o.from),
                    rules::bundle_text(b, st, &o.give),
                    rules::seat_name(o.to),
                    rules::bundle_text(b, st, &o.get)
                ),
                None => format!("{verb} offer #{offer}"),
            }
        }
        Action::EndTurn => "end turn".into(),
    }
}
