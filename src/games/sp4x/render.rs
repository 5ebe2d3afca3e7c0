//! Text for emails: the hex map, tracks, scores, hands; and action descriptions.

use std::fmt::Write as _;

use super::Sp4x;
use super::actions::Action;
use super::board;
use super::data;
use super::rules;
use super::state::{Card, Job, State, Step, seat_name};
use turnpost_engine::{Game, Seat, Viewer};

fn n(s: Seat) -> &'static str {
    seat_name(s)
}

pub fn describe(st: &State, _seat: Seat, a: &Action) -> String {
    match a {
        Action::DrawFrom { victim } => format!("draw a random card from {}", n(*victim)),
        Action::Show { card: Card::Ai } => "show AI: end the age (-3)".into(),
        Action::Show { card } if st.star_active() => {
            format!("show {} (star: everybody acts)", card.label())
        }
        Action::Show { card } => format!("show {}", card.label()),
        Action::Pair { card } => format!("play a pair of {}", card.label()),
        Action::AiPair { card } => {
            format!("play AI + {} (its pair action, bonus only)", card.label())
        }
        Action::Move { from, to } => format!("move a man {from} -> {to}"),
        Action::Explore { from, via, at } if from == via => format!("man at {from} explores {at}"),
        Action::Explore { from, via, at } => {
            format!("man at {from} travels to {via} and explores {at}")
        }
        Action::Stop => "stop here".into(),
        Action::Road { a, b } => format!("road {a}-{b}"),
        Action::BuildRoads => "build roads".into(),
        Action::BuildBase => "build a base".into(),
        Action::Base { at } => format!("base at {at}"),
        Action::Harvest { at } => format!("harvest the tile {at}"),
        Action::HarvestAll { resource } => format!("harvest all {}", resource.name()),
        Action::AllAliens => "use all your alien abilities".into(),
        Action::UseAlien { at } => format!("use the alien ability at {at}"),
        Action::Fill { resource } => format!("fill the {} track", resource.name()),
        Action::Teleport { to } => format!("teleport a man to {to}"),
        Action::MenAt { at } => format!("men onto {at}"),
        Action::Rob { at, victim } => format!("rob {} at {at}", n(*victim)),
        Action::Take { resource } => format!("take 1 {}", resource.name()),
        Action::Attack { at, victim } => format!("attack {} at {at}", n(*victim)),
        Action::PayMetal => "pay 1 metal".into(),
        Action::LoseMan => "lose a man".into(),
        Action::LoseBase => "lose the base".into(),
        Action::LoseRoad { a, b } => format!("lose the road {a}-{b}"),
        Action::NameAction { card } => format!("name {}", card.label()),
        Action::ActFirst => "act first".into(),
        Action::ActLast => "act last".into(),
        Action::SpendFoodMove { from, to } => format!("1 food: move a man {from} -> {to}"),
        Action::SpendFoodMan { at } => format!("1 food: a man onto {at}"),
        Action::SpendPlasticRoad { a, b } => format!("1 plastic: road {a}-{b}"),
        Action::EndTurn => "end the turn".into(),
    }
}

/// `a` as the log tells it after the mover's name: third person, past tense.
pub fn log_text(st: &State, a: &Action) -> String {
    match a {
        Action::DrawFrom { victim } => format!("drew a random card from {}", n(*victim)),
        Action::Show { card: Card::Ai } => "showed AI: the age ends (-3)".into(),
        Action::Show { card } if st.star_active() => {
            format!("showed {} (star: everybody acts)", card.label())
        }
        Action::Show { card } => format!("showed {}", card.label()),
        Action::Pair { card } => format!("played a pair of {}", card.label()),
        Action::AiPair { card } => format!("played AI + {} (its pair action)", card.label()),
        Action::Move { from, to } => format!("moved a man {from} -> {to}"),
        Action::Explore { from, via, at } if from == via => {
            format!("explored {at} with the man at {from}")
        }
        Action::Explore { from, via, at } => {
            format!("moved the man at {from} to {via} and explored {at}")
        }
        Action::Stop => "stopped there".into(),
        Action::Road { a, b } => format!("placed a road {a}-{b}"),
        Action::BuildRoads => "chose to build roads".into(),
        Action::BuildBase => "chose to build a base".into(),
        Action::Base { at } => format!("placed a base at {at}"),
        Action::Harvest { at } => format!("harvested the tile {at}"),
        Action::HarvestAll { resource } => format!("harvested all {}", resource.name()),
        Action::AllAliens => "used all their alien abilities".into(),
        Action::UseAlien { at } => format!("used the alien ability at {at}"),
        Action::Fill { resource } => format!("filled the {} track", resource.name()),
        Action::Teleport { to } => format!("teleported a man to {to}"),
        Action::MenAt { at } => format!("put men onto {at}"),
        Action::Rob { at, victim } => format!("robbed {} at {at}", n(*victim)),
        Action::Take { resource } => format!("took 1 {}", resource.name()),
        Action::Attack { at, victim } => format!("attacked {} at {at}", n(*victim)),
        Action::PayMetal => "paid 1 metal".into(),
        Action::LoseMan => "lost a man".into(),
        Action::LoseBase => "lost the base".into(),
        Action::LoseRoad { a, b } => format!("lost the road {a}-{b}"),
        Action::NameAction { card } => format!("named {}", card.label()),
        Action::ActFirst => "chose to act first".into(),
        Action::ActLast => "chose to act last".into(),
        Action::SpendFoodMove { from, to } => format!("paid 1 food to move a man {from} -> {to}"),
        Action::SpendFoodMan { at } => format!("paid 1 food for a man onto {at}"),
        Action::SpendPlasticRoad { a, b } => format!("paid 1 plastic for a road {a}-{b}"),
        Action::EndTurn => "ended the turn".into(),
    }
}

/// What on the board picture `a` involves: tiles and open positions (`hex:q<q>r<r>`),
/// players (`seat:<n>`) and cards of the mover's hand (`card:<name>`).
pub fn targets(a: &Action) -> Vec<String> {
    use super::picture::{card_target, hex_target as h, seat_target};
    let mut out: Vec<String> = match a {
        Action::DrawFrom { victim } => vec![seat_target(*victim)],
        Action::Show { card } | Action::Pair { card } => vec![card_target(*card)],
        Action::AiPair { card } => vec![card_target(Card::Ai), card_target(*card)],
        Action::Move { from, to } | Action::SpendFoodMove { from, to } => vec![h(*from), h(*to)],
        Action::Explore { from, via, at } => vec![h(*from), h(*via), h(*at)],
        Action::Road { a, b } | Action::LoseRoad { a, b } | Action::SpendPlasticRoad { a, b } => {
            vec![h(*a), h(*b)]
        }
        Action::Base { at }
        | Action::Harvest { at }
        | Action::UseAlien { at }
        | Action::MenAt { at }
        | Action::SpendFoodMan { at } => vec![h(*at)],
        Action::Teleport { to } => vec![h(*to)],
        Action::Rob { at, victim } | Action::Attack { at, victim } => {
            vec![h(*at), seat_target(*victim)]
        }
        Action::Stop
        | Action::BuildRoads
        | Action::BuildBase
        | Action::HarvestAll { .. }
        | Action::AllAliens
        | Action::Fill { .. }
        | Action::Take { .. }
        | Action::PayMetal
        | Action::LoseMan
        | Action::LoseBase
        | Action::NameAction { .. }
        | Action::ActFirst
        | Action::ActLast
        | Action::EndTurn => Vec::new(),
    };
    out.dedup();
    out
}

pub(super) fn job_text(job: &Job) -> String {
    match job {
        Job::MoveExplore { left: Some(k), .. } => format!("move or explore ({k} men left)"),
        Job::MoveExplore { left: None, .. } => "move or explore with each man".into(),
        Job::Roads { left } => format!("place roads ({left} left)"),
        Job::BuildChoice => "build: roads or a base".into(),
        Job::Base { .. } => "place a base".into(),
        Job::ExploitSingle | Job::ExploitPair => "exploit".into(),
        Job::AlienOrder { .. } => "choose the next alien ability".into(),
        Job::Transmogrify => "transmogrifier: choose a track".into(),
        Job::Telemorph { at } => format!("telemorpher at {at}: send men away"),
        Job::MenSingle | Job::MenPair { .. } => "place men on base tiles".into(),
        Job::StealTarget { .. } => "steal: choose tile and victim".into(),
        Job::StealTake { victim, left, .. } => {
            format!("take resources from {} ({left} left)", n(*victim))
        }
        Job::WarTarget => "war: choose tile and victim".into(),
        Job::GreatWar { next } => format!("great war: {} nominates", n(*next)),
        Job::WarLoss {
            attacker,
            victim,
            at,
        } => {
            format!(
                "{} chooses a loss at {at} (attacked by {})",
                n(*victim),
                n(*attacker)
            )
        }
        Job::NameBasic => "grand plan: name a basic action".into(),
        Job::StarSetup { action: None, .. } => "star: name the basic action".into(),
        Job::StarSetup { q, .. } => format!("star ({} laid a copy): act first or last?", n(*q)),
    }
}

/// Staggered map: two lines per row (tile code, coordinates).
fn map(st: &State) -> String {
    let (mut minx, mut maxx, mut minr, mut maxr) = (i32::MAX, i32::MIN, i32::MAX, i32::MIN);
    for t in &st.tiles {
        let x = 2 * t.hex.q + t.hex.r;
        minx = minx.min(x);
        maxx = maxx.max(x);
        minr = minr.min(t.hex.r);
        maxr = maxr.max(t.hex.r);
    }
    let mut out = String::new();
    if st.tiles.is_empty() {
        return out;
    }
    let width = ((maxx - minx) as usize) * 4 + 8;
    for r in minr..=maxr {
        let mut l1 = vec![b' '; width];
        let mut l2 = vec![b' '; width];
        for t in st.tiles.iter().filter(|t| t.hex.r == r) {
            let col = ((2 * t.hex.q + r - minx) as usize) * 4;
            let code = t.kind.code();
            let who: String = (0..st.seats)
                .filter(|&s| st.present(t.hex, s))
                .map(|s| n(s).chars().next().unwrap_or('?'))
                .collect();
            let label = format!("{code}{who}");
            let coord = format!("{},{}", t.hex.q, t.hex.r);
            for (i, ch) in label.bytes().take(7).enumerate() {
                if let Some(c) = l1.get_mut(col + i) {
                    *c = ch;
                }
            }
            for (i, ch) in coord.bytes().take(7).enumerate() {
                if let Some(c) = l2.get_mut(col + i) {
                    *c = ch;
                }
            }
        }
        let _ = writeln!(out, "  {}", String::from_utf8_lossy(&l1).trim_end());
        let _ = writeln!(out, "  {}", String::from_utf8_lossy(&l2).trim_end());
    }
    out
}

pub fn render(game: &Sp4x, st: &State, viewer: Viewer) -> String {
    let mut o = String::new();
    let me = viewer.seat();
    let _ = writeln!(o, "SP4X - age {} - {} to play", st.age, n(st.current));
    match game.status(st) {
        turnpost_engine::Status::Finished(out) => {
            let _ = writeln!(o, "GAME OVER: {}", out.summary);
        }
        turnpost_engine::Status::Active { to_act } => {
            let who: Vec<&str> = to_act.iter().map(|&s| n(s)).collect();
            let what = match st.step {
                Step::Steal => "draw a card from an opponent".to_string(),
                Step::Main => "show a card or play a pair".to_string(),
                Step::Resources => "spend resources or end the turn".to_string(),
                Step::Frames => st
                    .frames
                    .first()
                    .and_then(|f| {
                        f.stack.last().map(|j| {
                            format!("{} ({}'s {})", job_text(j), n(f.actor), f.card.label())
                        })
                    })
                    .unwrap_or_default(),
                Step::Over => String::new(),
            };
            let _ = writeln!(o, "Waiting for {}: {what}", who.join(", "));
        }
    }
    let _ = writeln!(o, "\nMAP (tile code + colours present; axial q,r below)");
    o.push_str(&map(st));
    let _ = writeln!(
        o,
        "Codes: MS mothership, PS plastic steppe, NS n-swamp, GH gly hills, MO mountain, SS slime sea,"
    );
    let _ = writeln!(
        o,
        "       AT/AB/AM/AC alien civ: transmogrifier/cluster bots/telemorpher/clone pool"
    );
    let _ = writeln!(o, "\nTILES");
    let mut tiles: Vec<_> = st.tiles.iter().collect();
    tiles.sort_by_key(|t| (t.hex.r, t.hex.q));
    for t in tiles {
        let mut pieces = Vec::new();
        for s in 0..st.seats {
            let m = t.men.get(s).copied().unwrap_or(0);
            let b = t.bases.get(s).copied().unwrap_or(false);
            if m > 0 || b {
                pieces.push(format!(
                    "{} {m} men{}",
                    n(s),
                    if b { " + base" } else { "" }
                ));
            }
        }
        let _ = writeln!(
            o,
            "  {:>8} {:<26} {}",
            t.hex.to_string(),
            t.kind.label(),
            pieces.join(", ")
        );
    }
    let _ = writeln!(o, "ROADS");
    for s in 0..st.seats {
        let rs: Vec<String> = st
            .roads
            .iter()
            .filter(|r| r.owner == s)
            .map(|r| format!("{}-{}", r.a, r.b))
            .collect();
        let _ = writeln!(
            o,
            "  {:<6} {}",
            n(s),
            if rs.is_empty() {
                "-".to_string()
            } else {
                rs.join(" ")
            }
        );
    }
    let _ = writeln!(
        o,
        "\nPLAYERS        score plastic food metal  hand  pool men/bases/roads"
    );
    for (s, p) in st.players.iter().enumerate() {
        let (m, b, r) = match data::data() {
            Ok(d) => (
                board::men_pool(d, st, s),
                board::bases_pool(d, st, s),
                board::roads_pool(d, st, s),
            ),
            Err(_) => (0, 0, 0),
        };
        let _ = writeln!(
            o,
            "  {:<6}{:<6} {:>5} {:>7} {:>4} {:>5} {:>5}  {m}/{b}/{r}{}",
            n(s),
            if Some(s) == me { "(you)" } else { "" },
            p.score,
            p.res[0],
            p.res[1],
            p.res[2],
            p.hand.len(),
            if p.plan_out { "  [grand plan out]" } else { "" }
        );
    }
    let top = st.deck.first().map_or("-", |c| c.label());
    let _ = writeln!(
        o,
        "\nDeck: {} cards, top {}{}. Tile stack: {} tiles, top {}.",
        st.deck.len(),
        top,
        if st.star_active() {
            " (STAR ACTIVE)"
        } else {
            ""
        },
        st.tile_stack.len(),
        st.tile_stack.first().map_or("-".to_string(), |t| t.label())
    );
    let disc: Vec<&str> = st.discard.iter().map(|c| c.label()).collect();
    let _ = writeln!(
        o,
        "Discard: {}",
        if disc.is_empty() {
            "-".into()
        } else {
            disc.join(", ")
        }
    );
    if let Some(s) = me {
        let hand: Vec<&str> = st
            .players
            .get(s)
            .map(|p| p.hand.iter().map(|c| c.label()).collect())
            .unwrap_or_default();
        let _ = writeln!(
            o,
            "\nYOUR HAND: {}",
            if hand.is_empty() {
                "(empty)".into()
            } else {
                hand.join(", ")
            }
        );
        for r in st
            .steals
            .iter()
            .rev()
            .filter(|r| r.thief == s || r.victim == s)
            .take(3)
        {
            if r.thief == s {
                let _ = writeln!(
                    o,
                    "  you drew {} from {} (age {})",
                    r.card.label(),
                    n(r.victim),
                    r.age
                );
            } else {
                let _ = writeln!(
                    o,
                    "  {} drew your {} (age {})",
                    n(r.thief),
                    r.card.label(),
                    r.age
                );
            }
        }
        if let Ok(d) = data::data() {
            let legal = rules::legal(d, st, s);
            if !legal.is_empty() {
                let _ = writeln!(o, "\nYOUR CHOICES");
                for (i, a) in legal.iter().enumerate() {
                    let _ = writeln!(o, "  {:>3}. {}", i + 1, describe(st, s, a));
                }
            }
        }
    }
    let _ = writeln!(o, "\nRECENT");
    for e in st.events.iter().rev().take(10).rev() {
        let _ = writeln!(o, "  {e}");
    }
    o
}
