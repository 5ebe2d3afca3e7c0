//! Views and the plain-text table for turn emails. Everything on the table is public; only
//! the chance deck order (nobody) and open offers (their two parties) are hidden.

use schemars::JsonSchema;
use serde::Serialize;

use super::data::{Board, HazardKind, NodeKind};
use super::rules::{self, fortune, good_name, seat_name};
use super::state::{Bundle, Pending, Phase, State, Token};
use turnpost_engine::{Seat, Status, ViewCommon, Viewer};

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct TokenView {
    pub good: String,
    pub price: u32,
    pub bought_at: String,
    pub fields: u32,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ShipView {
    pub id: u32,
    pub owner: Seat,
    pub at: String,
    pub privateer: bool,
    pub cargo: Option<TokenView>,
    pub sailed: u32,
    pub remaining: u32,
    pub becalmed: bool,
    pub stuck: bool,
    pub left_port: bool,
    pub done: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct DepotView {
    pub id: u32,
    pub isthmus: String,
    pub dropped_at: String,
    pub token: TokenView,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PlayerView {
    pub seat: Seat,
    pub name: String,
    pub cash: u32,
    pub home: Option<String>,
    pub fortune: i64,
    pub out: bool,
    pub known_reefs: Vec<String>,
    pub forts: Vec<String>,
    pub depot: Vec<DepotView>,
    pub home_roll: Vec<u32>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct PortView {
    pub id: String,
    pub name: String,
    pub fort: Option<Seat>,
    pub closed: bool,
    /// K: buy prices.
    pub buy: Vec<(String, u32)>,
    /// S: sell prices this round (chance modifiers applied, before repeat-sale drops).
    pub sell: Vec<(String, i64)>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct CardView {
    pub id: String,
    pub text: String,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct OfferView {
    pub id: u32,
    pub from: Seat,
    pub to: Seat,
    pub give: Bundle,
    pub get: Bundle,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct View {
    #[serde(flatten)]
    pub common: ViewCommon,
    pub round: u32,
    pub rounds: u32,
    pub isthmus: bool,
    pub phase: Phase,
    pub current: Seat,
    pub first: Seat,
    pub roll: Option<u32>,
    pub dice: Vec<u32>,
    pub players: Vec<PlayerView>,
    pub ships: Vec<ShipView>,
    pub ports: Vec<PortView>,
    pub active_card: Option<CardView>,
    pub unclaimed_arrivals: Vec<CardView>,
    pub deck_left: usize,
    pub turned: Vec<String>,
    pub pending: Option<Pending>,
    pub attacked_fields: Vec<String>,
    /// Offers the viewer made or received.
    pub offers: Vec<OfferView>,
    pub supply: Vec<(String, usize)>,
    pub events: Vec<String>,
}

fn token_view(b: &Board, t: &Token) -> TokenView {
    TokenView {
        good: good_name(b, t.good).to_string(),
        price: t.price,
        bought_at: b
            .ports
            .get(t.bought_at)
            .map_or("?".into(), |p| p.id.clone()),
        fields: t.fields,
    }
}

fn card_view(b: &Board, c: usize) -> Option<CardView> {
    b.cards.get(c).map(|c| CardView {
        id: c.id.clone(),
        text: c.text.clone(),
    })
}

pub fn view(b: &Board, st: &State, viewer: Viewer, status: &Status) -> View {
    let me = viewer.seat();
    View {
        common: ViewCommon::new(viewer, st.seats, status),
        round: st.round,
        rounds: st.rounds,
        isthmus: st.isthmus,
        phase: st.phase,
        current: st.current,
        first: st.first,
        roll: st.roll,
        dice: st.dice.clone(),
        players: (0..st.seats)
            .map(|s| {
                let p = &st.players[s];
                PlayerView {
                    seat: s,
                    name: seat_name(s),
                    cash: p.cash,
                    home: p.home.map(|h| b.ports[h].id.clone()),
                    fortune: fortune(b, st, s),
                    out: p.out,
                    known_reefs: p.known_reefs.clone(),
                    forts: st
                        .forts
                        .iter()
                        .enumerate()
                        .filter(|(_, f)| **f == Some(s))
                        .map(|(i, _)| b.ports[i].id.clone())
                        .collect(),
                    depot: p
                        .depot
                        .iter()
                        .map(|d| DepotView {
                            id: d.id,
                            isthmus: b
                                .isthmuses
                                .get(d.isthmus)
                                .map_or("?".into(), |i| i.id.clone()),
                            dropped_at: b
                                .ports
                                .get(d.dropped_at)
                                .map_or("?".into(), |p| p.id.clone()),
                            token: token_view(b, &d.token),
                        })
                        .collect(),
                    home_roll: p.home_roll.clone(),
                }
            })
            .collect(),
        ships: st
            .ships
            .iter()
            .map(|s| ShipView {
                id: s.id,
                owner: s.owner,
                at: b.node_id(s.at).to_string(),
                privateer: s.privateer,
                cargo: s.cargo.as_ref().map(|t| token_view(b, t)),
                sailed: s.sailed,
                remaining: s.remaining,
                becalmed: s.becalmed,
                stuck: s.stuck,
                left_port: s.left_port,
                done: s.done,
            })
            .collect(),
        ports: b
            .ports
            .iter()
            .enumerate()
            .filter(|(_, p)| st.isthmus || !p.variant)
            .map(|(i, p)| PortView {
                id: p.id.clone(),
                name: p.name.clone(),
                fort: st.forts[i],
                closed: rules::port_closed(b, st, i),
                buy: p
                    .buy
                    .iter()
                    .map(|&(g, pr)| (b.goods[g].clone(), pr))
                    .collect(),
                sell: p
                    .sell
                    .iter()
                    .map(|&(g, pr)| {
                        (
                            b.goods[g].clone(),
                            (i64::from(pr) + rules::price_mod(b, st, g)).max(0),
                        )
                    })
                    .collect(),
            })
            .collect(),
        active_card: st.active_card.and_then(|c| card_view(b, c)),
        unclaimed_arrivals: st
            .arrivals
            .iter()
            .filter_map(|&c| card_view(b, c))
            .collect(),
        deck_left: st.deck.len(),
        turned: st
            .turned
            .iter()
            .filter_map(|&c| b.cards.get(c).map(|c| c.id.clone()))
            .collect(),
        pending: st.pending.clone(),
        attacked_fields: st
            .attacked_fields
            .iter()
            .map(|&f| b.node_id(f).to_string())
            .collect(),
        offers: st
            .offers
            .iter()
            .filter(|o| Some(o.from) == me || Some(o.to) == me)
            .map(|o| OfferView {
                id: o.id,
                from: o.from,
                to: o.to,
                give: o.give.clone(),
                get: o.get.clone(),
            })
            .collect(),
        supply: (0..b.goods.len())
            .map(|g| {
                (
                    b.goods[g].clone(),
                    b.c.supply_per_good
                        .saturating_sub(rules::tokens_in_play(st, g)),
                )
            })
            .collect(),
        events: st.events.clone(),
    }
}

fn hazard_char(k: HazardKind) -> char {
    match k {
        HazardKind::Tailwind => 't',
        HazardKind::Headwind => 'h',
        HazardKind::Storm => 's',
        HazardKind::Iceberg => 'i',
        HazardKind::Doldrums => 'd',
        HazardKind::Reef => 'r',
        HazardKind::Pirates => 'p',
    }
}

fn phase_text(p: Phase) -> &'static str {
    match p {
        Phase::ChooseHome => "choosing home cities",
        Phase::Before => "port actions before the roll",
        Phase::Movement => "movement",
        Phase::After => "port actions after movement",
        Phase::Over => "game over",
    }
}

pub fn render(b: &Board, st: &State, viewer: Viewer, status: &Status) -> String {
    let v = view(b, st, viewer, status);
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(format!(
        "FULDRIGGER  round {}/{}  {}{}",
        v.round,
        v.rounds,
        if v.isthmus { "(isthmus variant)  " } else { "" },
        match v.phase {
            Phase::Over => "GAME OVER".to_string(),
            Phase::ChooseHome => format!(
                "{} chooses a home city",
                rules::home_chooser(st).map_or("-".into(), seat_name)
            ),
            p => format!("{} to play: {}", seat_name(v.current), phase_text(p)),
        }
    ));
    if let Some(r) = v.roll {
        line(format!(
            "Roll: {} = {r} fields",
            v.dice
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join("+")
        ));
    }
    match &v.active_card {
        Some(c) => line(format!("Chance card this round: {} {}", c.id, c.text)),
        None => line("Chance card this round: none yet".into()),
    }
    for c in &v.unclaimed_arrivals {
        line(format!("  unclaimed: {} {}", c.id, c.text));
    }
    line(format!(
        "Chance deck: {} cards left (order hidden)",
        v.deck_left
    ));
    if let Some(p) = &v.pending {
        match p {
            Pending::ChooseLoss { .. } => line(format!(
                "{} must choose which privateer is lost",
                seat_name(v.current)
            )),
            Pending::ChooseCapture { .. } => line(format!(
                "{} must choose what to capture",
                seat_name(v.current)
            )),
        }
    }
    line(String::new());
    line("PLAYERS".into());
    for p in &v.players {
        line(format!(
            "  {:<7}{} cash {:>5}  fortune {:>5}  home {:<4} forts: {}  reefs known: {}{}",
            p.name,
            if Some(p.seat) == v.common.viewer {
                "*"
            } else {
                " "
            },
            p.cash,
            p.fortune,
            p.home.clone().unwrap_or("-".into()),
            if p.forts.is_empty() {
                "-".into()
            } else {
                p.forts.join(",")
            },
            if p.known_reefs.is_empty() {
                "-".into()
            } else {
                p.known_reefs.join(",")
            },
            if p.out { "  (OUT)" } else { "" }
        ));
        for d in &p.depot {
            line(format!(
                "      depot load {} ({}): {} (paid {}, {} fields) dropped at {}",
                d.id, d.isthmus, d.token.good, d.token.price, d.token.fields, d.dropped_at
            ));
        }
    }
    line(String::new());
    line(
        "SHIPS  (id owner at / kind / cargo: good, paid, bought at, fields carried / miles sailed)"
            .into(),
    );
    for s in &v.ships {
        let cargo = s.cargo.as_ref().map_or("empty".to_string(), |t| {
            format!(
                "{} (paid {}, from {}, {} fields)",
                t.good, t.price, t.bought_at, t.fields
            )
        });
        let mut notes = Vec::new();
        if s.becalmed || s.stuck {
            notes.push("becalmed".to_string());
        }
        if s.owner == v.current && v.phase == Phase::Movement && s.remaining > 0 && !s.done {
            notes.push(format!("{} fields left", s.remaining));
        }
        if s.left_port {
            notes.push("left port".into());
        }
        line(format!(
            "  #{:<3} {:<7} {:<20} {:<9} {:<40} {:>4} miles {}",
            s.id,
            seat_name(s.owner),
            place_words(b, &s.at),
            if s.privateer { "PRIVATEER" } else { "merchant" },
            cargo,
            s.sailed,
            notes.join(", ")
        ));
    }
    line(String::new());
    line("PORTS  (K = buy here, S = sell here; fort owner)".into());
    for p in &v.ports {
        let k: Vec<String> = p.buy.iter().map(|(g, pr)| format!("{g} {pr}")).collect();
        let s: Vec<String> = p.sell.iter().map(|(g, pr)| format!("{g} {pr}")).collect();
        line(format!(
            "  {:<4}{:<15} fort {:<7} K: {:<34} S: {}{}",
            p.id,
            p.name,
            p.fort.map_or("-".into(), seat_name),
            if k.is_empty() {
                "-".into()
            } else {
                k.join(", ")
            },
            if s.is_empty() {
                "-".into()
            } else {
                s.join(", ")
            },
            if p.closed { "  CLOSED" } else { "" }
        ));
    }
    line(format!(
        "Supply: {}",
        v.supply
            .iter()
            .map(|(g, n)| format!("{g} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    line(String::new());
    line(
        "SEA LANES  (one mark per field from the first end; t tailwind, h headwind, s storm,"
            .into(),
    );
    line("            i iceberg, d doldrums, r reef, p pirates; R/B/G/Y ships, * several)".into());
    for lane in b.lanes.iter().filter(|l| st.isthmus || !l.variant) {
        let marks: String = lane
            .fields
            .iter()
            .map(|&f| {
                let mut owners = st.ships.iter().filter(|s| s.at == f).map(|s| s.owner);
                match (owners.next(), owners.next()) {
                    (None, _) => b.nodes[f]
                        .hazard
                        .and_then(|h| b.hazards.get(h))
                        .map_or('.', |h| hazard_char(h.kind)),
                    (Some(o), None) => rules::COLOURS
                        .get(o)
                        .and_then(|c| c.chars().next())
                        .unwrap_or('?'),
                    _ => '*',
                }
            })
            .collect();
        line(format!("  {} {:>6} {marks} {}", lane.id, lane.a, lane.b));
    }
    let ports_with_ships: Vec<String> = v
        .ports
        .iter()
        .map(|p| p.id.clone())
        .chain(
            b.nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Junction && (st.isthmus || !n.variant))
                .map(|n| n.id.clone()),
        )
        .filter_map(|id| {
            let n = b.node(&id)?;
            let here: Vec<String> = st
                .ships
                .iter()
                .filter(|s| s.at == n)
                .map(|s| format!("#{}", s.id))
                .collect();
            (!here.is_empty()).then(|| format!("{id}: {}", here.join(" ")))
        })
        .collect();
    if !ports_with_ships.is_empty() {
        line(format!(
            "In ports and at junctions: {}",
            ports_with_ships.join("; ")
        ));
    }
    if !v.offers.is_empty() {
        line(String::new());
        line("OPEN OFFERS (seen only by the two parties)".into());
        for o in &v.offers {
            line(format!(
                "  #{} {} -> {}: {} gives {}; {} gives {}",
                o.id,
                seat_name(o.from),
                seat_name(o.to),
                seat_name(o.from),
                rules::bundle_text(b, st, &o.give),
                seat_name(o.to),
                rules::bundle_text(b, st, &o.get)
            ));
        }
    }
    if !v.events.is_empty() {
        line(String::new());
        line("RECENT EVENTS".into());
        let skip = v.events.len().saturating_sub(25);
        for e in &v.events[skip..] {
            line(format!("  {}", event_words(b, e)));
        }
    }
    out
}

impl View {
    /// The view when the data file is broken (the server refuses such games at start).
    pub fn empty(common: ViewCommon) -> View {
        View {
            common,
            round: 0,
            rounds: 0,
            isthmus: false,
            phase: Phase::Over,
            current: 0,
            first: 0,
            roll: None,
            dice: Vec::new(),
            players: Vec::new(),
            ships: Vec::new(),
            ports: Vec::new(),
            active_card: None,
            unclaimed_arrivals: Vec::new(),
            deck_left: 0,
            turned: Vec::new(),
            pending: None,
            attacked_fields: Vec::new(),
            offers: Vec::new(),
            supply: Vec::new(),
            events: Vec::new(),
        }
    }
}

/// A place as the map shows it: a port or a junction by its id (`LON`, `J_NS`), an open-sea
/// field by the lane's two ends and its count from the first: "field 3 of LON–J_NS".
pub fn place_words(b: &Board, id: &str) -> String {
    if let Some((lane, k)) = id.split_once(':')
        && let Some(l) = b.lanes.iter().find(|l| l.id == lane)
    {
        return format!("field {k} of {}–{}", l.a, l.b);
    }
    id.to_string()
}

/// `line` with every lane field code in it (`L04:2`) named as the map shows it.
pub fn event_words(b: &Board, line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !chars[i - 1].is_ascii_alphanumeric();
        if starts_word && chars[i] == 'L' {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            if j > i + 1 && j < chars.len() && chars[j] == ':' {
                let mut k = j + 1;
                while k < chars.len() && chars[k].is_ascii_digit() {
                    k += 1;
                }
                let code: String = chars[i..k].iter().collect();
                let words = place_words(b, &code);
                if k > j + 1 && words != code {
                    out.push_str(&words);
                    i = k;
                    continue;
                }
            }
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}
