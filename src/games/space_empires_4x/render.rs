//! Views (what each viewer may see), action descriptions and the text map for emails.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::Serialize;

use turnpost_engine::{Seat, Status, ViewCommon, Viewer};

use super::actions::Action;
use super::econ;
use super::rules::{allowance, eff_tech, public_tech};
use super::state::*;

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct HexView {
    pub x: i32,
    pub y: i32,
    /// The border colour: whose Home System this hex belongs to (None = deep space).
    pub home_of: Option<Seat>,
    pub explored: bool,
    pub marker: Option<Marker>,
    /// What the viewer saw when peeking at this face-down marker (only the peeker).
    pub peeked: Option<Marker>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct GroupView {
    pub id: u32,
    pub owner: Seat,
    pub x: i32,
    pub y: i32,
    pub face_up: bool,
    /// None for another player's face-down counter.
    pub kind: Option<UnitKind>,
    pub count: Option<u8>,
    pub attack_tech: Option<u8>,
    pub defense_tech: Option<u8>,
    pub tactics: Option<u8>,
    pub movement: Option<u8>,
    pub damage: Option<u8>,
    pub cargo: Option<Marker>,
    /// The owner's view: hexes moved this turn and the allowance.
    pub moved: Option<(u8, u8)>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct ColonyView {
    pub owner: Seat,
    pub x: i32,
    pub y: i32,
    pub homeworld: bool,
    pub value: u8,
    pub deposits: Vec<Marker>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct MyView {
    pub cp: i64,
    pub tech: Vec<(Tech, u8)>,
    pub draft: Option<Draft>,
    pub last_orders: Vec<OrderLine>,
    pub combat_plan: Option<Plan>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct BattleView {
    pub x: i32,
    pub y: i32,
    pub attacker: Seat,
    pub defender: Seat,
    pub round: u32,
    pub plan_submitted: [bool; 2],
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct View {
    #[serde(flatten)]
    pub common: ViewCommon,
    pub round: u32,
    /// The turn within the round (movement turns are numbered 1 to 3).
    pub turn: u8,
    pub phase: String,
    pub order: Vec<Seat>,
    /// The seat whose turn it is in the turn order (`order`).
    pub current: Seat,
    pub width: i32,
    pub height: i32,
    pub hexes: Vec<HexView>,
    pub colonies: Vec<ColonyView>,
    pub groups: Vec<GroupView>,
    pub alive: Vec<bool>,
    pub orders_submitted: Vec<bool>,
    pub last_reveal: Vec<Reveal>,
    pub battle: Option<BattleView>,
    pub pending: Option<String>,
    pub me: Option<MyView>,
    pub events: Vec<String>,
    pub round_cap: Option<u32>,
}

/// The phase text of the Economic Phase and of a finished game, which the board picture
/// recognises in a view.
pub const ECON_PHASE: &str = "Economic Phase (secret orders)";
pub const OVER_PHASE: &str = "game over";

/// Whether a phase text (of `phase_name`) is a player's turn: movement, combat or
/// exploration of `current`.
pub fn is_turn_phase(phase: &str) -> bool {
    phase.starts_with("turn ")
}

fn phase_name(s: &State) -> String {
    let p = s.current_player() + 1;
    match &s.phase {
        Phase::ChooseHome { seat } => format!("Seat {} chooses a Homeworld", seat + 1),
        Phase::Move => format!("turn {}: Seat {p} moves", s.turn),
        Phase::Combat => format!("turn {}: Seat {p}'s combat", s.turn),
        Phase::Explore => format!("turn {}: Seat {p} explores", s.turn),
        Phase::Econ => ECON_PHASE.into(),
        Phase::ChooseOrder { chooser } => format!("Seat {} sets the turn order", chooser + 1),
        Phase::Over => OVER_PHASE.into(),
    }
}

fn pending_text(s: &State) -> Option<String> {
    s.pending.as_ref().map(|p| match p {
        Pending::Peek { seat, pos } => format!(
            "Seat {} decides about the peeked marker in {}",
            seat + 1,
            s.hex_name(*pos)
        ),
        Pending::LostInSpace {
            chooser,
            victim,
            pos,
        } => format!(
            "Seat {} moves Seat {}'s ships lost in space at {}",
            chooser + 1,
            victim + 1,
            s.hex_name(*pos)
        ),
    })
}

fn group_view(s: &State, g: &Group, me: Option<Seat>) -> GroupView {
    let (x, y) = s.xy(g.pos);
    let mine = me == Some(g.owner);
    let open = mine || g.face_up;
    // Others see built-in tech of revealed ships, never the owner's current levels (HR-24).
    let tech = |t: Tech, _built: u8| {
        if mine {
            Some(eff_tech(s, g, t))
        } else {
            public_tech(s, g, t)
        }
    };
    GroupView {
        id: g.id,
        owner: g.owner,
        x,
        y,
        face_up: g.face_up,
        kind: open.then_some(g.kind),
        count: open.then_some(g.count),
        attack_tech: tech(Tech::Attack, g.attack),
        defense_tech: tech(Tech::Defense, g.defense),
        tactics: tech(Tech::Tactics, g.tactics),
        movement: tech(Tech::Movement, g.movement),
        damage: open.then_some(g.damage),
        cargo: if open { g.cargo } else { None },
        moved: mine.then(|| {
            let allow = super::data::load().map(|d| allowance(s, d, g)).unwrap_or(0);
            (g.moved, allow)
        }),
    }
}

pub fn view(s: &State, viewer: Viewer, status: &Status) -> View {
    let me = viewer.seat().filter(|m| *m < s.seats);
    let hexes = s
        .cells
        .iter()
        .enumerate()
        .filter(|(i, _)| s.on_map[*i])
        .map(|(i, c)| HexView {
            x: c.x,
            y: c.y,
            home_of: c.home_of,
            explored: c.explored,
            marker: c.explored.then_some(c.marker),
            peeked: me.and_then(|m| {
                s.players[m]
                    .peeks
                    .iter()
                    .find(|(p, _)| *p == i)
                    .map(|(_, mk)| *mk)
            }),
        })
        .collect();
    let colonies = s
        .colonies
        .iter()
        .map(|c| {
            let (x, y) = s.xy(c.pos);
            ColonyView {
                owner: c.owner,
                x,
                y,
                homeworld: c.homeworld,
                value: c.value,
                deposits: c.deposits.clone(),
            }
        })
        .collect();
    let groups = s.groups.iter().map(|g| group_view(s, g, me)).collect();
    let battle = s.battle.as_ref().map(|b| {
        let (x, y) = s.xy(b.pos);
        BattleView {
            x,
            y,
            attacker: b.attacker,
            defender: b.defender,
            round: b.round,
            plan_submitted: [b.plans[0].submitted, b.plans[1].submitted],
        }
    });
    let me_view = me.map(|m| {
        let p = &s.players[m];
        let plan = s.battle.as_ref().and_then(|b| {
            if b.attacker == m {
                Some(b.plans[0].clone())
            } else if b.defender == m {
                Some(b.plans[1].clone())
            } else {
                None
            }
        });
        MyView {
            cp: p.cp,
            tech: Tech::ALL.iter().map(|t| (*t, p.level(*t))).collect(),
            draft: (s.phase == Phase::Econ).then(|| s.drafts[m].clone()),
            last_orders: s.last_orders[m].clone(),
            combat_plan: plan,
        }
    });
    View {
        common: ViewCommon::new(viewer, s.seats, status),
        round: s.round,
        turn: s.turn,
        phase: phase_name(s),
        order: s.order.clone(),
        current: s.current_player(),
        width: s.width,
        height: s.height,
        hexes,
        colonies,
        groups,
        alive: s.players.iter().map(|p| p.alive).collect(),
        orders_submitted: s
            .drafts
            .iter()
            .map(|d| d.submitted && s.phase == Phase::Econ)
            .collect(),
        last_reveal: s.last_reveal.clone(),
        battle,
        pending: pending_text(s),
        me: me_view,
        events: visible_events(s, me),
        round_cap: s.round_cap,
    }
}

fn visible_events(s: &State, me: Option<Seat>) -> Vec<String> {
    s.events
        .iter()
        .filter(|e| e.seen_by.is_none() || e.seen_by == me)
        .map(|e| match e.seen_by {
            Some(_) => format!("(private) {}", e.text),
            None => e.text.clone(),
        })
        .collect()
}

fn xy(s: &State, pos: usize) -> String {
    s.hex_name(pos)
}

pub fn describe(s: &State, a: &Action) -> String {
    let gname = |id: &u32| match s.group(*id) {
        Some(g) => format!("#{id} ({})", g.kind.name()),
        None => format!("#{id}"),
    };
    match a {
        Action::ChooseHomeworld { x, y } => format!("place your Homeworld at ({x},{y})"),
        Action::Move { groups, x, y } => {
            let l: Vec<String> = groups.iter().map(|g| format!("#{g}")).collect();
            format!("move {} to ({x},{y})", l.join("+"))
        }
        Action::Split { group, count } => format!("split {count} ship(s) off {}", gname(group)),
        Action::Merge { group, into } => format!("merge #{group} into #{into}"),
        Action::Peek { group, x, y } => format!("cruiser #{group} peeks at ({x},{y})"),
        Action::RevealPeek => "reveal the peeked marker".into(),
        Action::HidePeek => "leave the peeked marker face down".into(),
        Action::PickUp { group } => format!("miner #{group} picks up the marker"),
        Action::Deposit { group } => format!("miner #{group} delivers its load"),
        Action::EndMovement => "end movement".into(),
        Action::Fight { x, y, defender } => format!("fight Seat {} at ({x},{y})", defender + 1),
        Action::Bombard { x, y } => format!("bombard the colony at ({x},{y})"),
        Action::EndCombat => "end combat".into(),
        Action::Screen { group } => format!("screen one ship of {}", gname(group)),
        Action::Retreat { group, count, x, y } => {
            format!("{count} ship(s) of {} retreat to ({x},{y})", gname(group))
        }
        Action::Target { group } => format!("fire at {} first", gname(group)),
        Action::SubmitPlan => "fire (plan complete)".into(),
        Action::LostInSpace { x, y } => format!("send the lost ships to ({x},{y})"),
        Action::Explore { x, y } => format!("explore ({x},{y}) next"),
        Action::Colonise { group } => format!("colony ship #{group} lands"),
        Action::EndExploration => "end turn".into(),
        Action::Bid { cp } => format!("bid {cp} CP"),
        Action::Research { tech } => format!("research {}", tech.name()),
        Action::Build { unit, x, y } => format!("build a {} at ({x},{y})", unit.name()),
        Action::Scuttle { group } => format!("scuttle one ship of {}", gname(group)),
        Action::SubmitOrders => "submit orders".into(),
        Action::SetTurnOrder { order } => {
            let l: Vec<String> = order.iter().map(|p| format!("Seat {}", p + 1)).collect();
            format!("turn order {}", l.join(", "))
        }
    }
}

/// `a` as the log tells it after the mover's name: third person, past tense.
pub fn log_text(s: &State, a: &Action) -> String {
    let gname = |id: &u32| match s.group(*id) {
        Some(g) => format!("#{id} ({})", g.kind.name()),
        None => format!("#{id}"),
    };
    match a {
        Action::ChooseHomeworld { x, y } => format!("placed their Homeworld at ({x},{y})"),
        Action::Move { groups, x, y } => {
            let l: Vec<String> = groups.iter().map(|g| format!("#{g}")).collect();
            format!("moved {} to ({x},{y})", l.join("+"))
        }
        Action::Split { group, count } => {
            format!("split {count} ship(s) off {}", gname(group))
        }
        Action::Merge { group, into } => format!("merged #{group} into #{into}"),
        Action::Peek { group, x, y } => format!("peeked at ({x},{y}) with cruiser #{group}"),
        Action::RevealPeek => "revealed the peeked marker".into(),
        Action::HidePeek => "left the peeked marker face down".into(),
        Action::PickUp { group } => format!("picked up the marker with miner #{group}"),
        Action::Deposit { group } => format!("delivered the load of miner #{group}"),
        Action::EndMovement => "ended movement".into(),
        Action::Fight { x, y, defender } => {
            format!("chose to fight Seat {} at ({x},{y})", defender + 1)
        }
        Action::Bombard { x, y } => format!("bombarded the colony at ({x},{y})"),
        Action::EndCombat => "ended combat".into(),
        Action::Screen { group } => format!("screened one ship of {}", gname(group)),
        Action::Retreat { group, count, x, y } => {
            format!(
                "ordered {count} ship(s) of {} to retreat to ({x},{y})",
                gname(group)
            )
        }
        Action::Target { group } => format!("chose to fire at {} first", gname(group)),
        Action::SubmitPlan => "completed the battle plan".into(),
        Action::LostInSpace { x, y } => format!("sent the lost ships to ({x},{y})"),
        Action::Explore { x, y } => format!("explored ({x},{y})"),
        Action::Colonise { group } => format!("landed colony ship #{group}"),
        Action::EndExploration => "ended the turn".into(),
        Action::Bid { cp } => format!("bid {cp} CP"),
        Action::Research { tech } => format!("ordered research in {}", tech.name()),
        Action::Build { unit, x, y } => format!("ordered a {} built at ({x},{y})", unit.name()),
        Action::Scuttle { group } => format!("ordered one ship of {} scuttled", gname(group)),
        Action::SubmitOrders => "submitted the orders".into(),
        Action::SetTurnOrder { order } => {
            let l: Vec<String> = order.iter().map(|p| format!("Seat {}", p + 1)).collect();
            format!("set the turn order {}", l.join(", "))
        }
    }
}

/// What on the board picture `a` involves: its counters and hexes.
pub fn targets(a: &Action) -> Vec<String> {
    use super::board::{counter_target as c, hex_target as h};
    match a {
        Action::ChooseHomeworld { x, y }
        | Action::Fight { x, y, .. }
        | Action::Bombard { x, y }
        | Action::LostInSpace { x, y }
        | Action::Explore { x, y }
        | Action::Build { x, y, .. } => vec![h(*x, *y)],
        Action::Move { groups, x, y } => {
            let mut v: Vec<String> = groups.iter().map(|g| c(*g)).collect();
            v.push(h(*x, *y));
            v
        }
        Action::Peek { group, x, y } | Action::Retreat { group, x, y, .. } => {
            vec![c(*group), h(*x, *y)]
        }
        Action::Merge { group, into } => vec![c(*group), c(*into)],
        Action::Split { group, .. }
        | Action::PickUp { group }
        | Action::Deposit { group }
        | Action::Screen { group }
        | Action::Target { group }
        | Action::Colonise { group }
        | Action::Scuttle { group } => vec![c(*group)],
        Action::RevealPeek
        | Action::HidePeek
        | Action::EndMovement
        | Action::EndCombat
        | Action::SubmitPlan
        | Action::EndExploration
        | Action::Bid { .. }
        | Action::Research { .. }
        | Action::SubmitOrders
        | Action::SetTurnOrder { .. } => Vec::new(),
    }
}

/// Five characters for one hex: terrain/colony (3) and whose units are there (2).
fn cell_text(s: &State, i: usize, me: Option<Seat>) -> String {
    let c = &s.cells[i];
    let terrain = if let Some(col) = s.colony_at(i) {
        format!("{}{}", if col.homeworld { 'H' } else { 'C' }, col.owner + 1)
    } else if c.explored {
        c.marker.code().to_string()
    } else if let Some(m) = me.and_then(|m| {
        s.players[m]
            .peeks
            .iter()
            .find(|(p, _)| *p == i)
            .map(|(_, mk)| *mk)
    }) {
        // Lower case: only this viewer knows it.
        m.code().to_lowercase()
    } else {
        match c.home_of {
            Some(h) => format!("?{}", h + 1),
            None => "? ".into(),
        }
    };
    let mut owners: Vec<Seat> = s
        .groups
        .iter()
        .filter(|g| g.pos == i)
        .map(|g| g.owner)
        .collect();
    owners.sort_unstable();
    owners.dedup();
    let units: String = match owners.len() {
        0 => String::new(),
        1 | 2 => owners.iter().map(|o| char::from(b'a' + *o as u8)).collect(),
        _ => "++".into(),
    };
    format!("{:<2} {:<2}", terrain, units)
}

pub fn text(s: &State, viewer: Viewer, status: &Status) -> String {
    let me = viewer.seat().filter(|m| *m < s.seats);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "SPACE EMPIRES 4X - round {} - {}",
        s.round,
        phase_name(s)
    );
    if let Some(cap) = s.round_cap {
        let _ = writeln!(o, "The game ends after round {cap}.");
    }
    let order: Vec<String> = s.order.iter().map(|p| format!("Seat {}", p + 1)).collect();
    let _ = writeln!(o, "Turn order: {}", order.join(", "));
    match status {
        Status::Active { to_act } => {
            let w: Vec<String> = to_act.iter().map(|p| format!("Seat {}", p + 1)).collect();
            let _ = writeln!(o, "Waiting for: {}", w.join(", "));
        }
        Status::Finished(out) => {
            let _ = writeln!(o, "Game over: {}", out.summary);
        }
    }
    if let Some(p) = pending_text(s) {
        let _ = writeln!(o, "Pending: {p}");
    }
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "MAP (x across, y down; odd rows are shifted right). Each hex: [terrain units].\n\
         Terrain: Hn/Cn Homeworld/colony of seat n; ?n unexplored (home border of seat n); ? unexplored\n\
         deep space; Pl planet, Ba barren, M5/MX minerals 5/10, Ne nebula, As asteroids, BH black hole,\n\
         SN supernova, Wr space wreck; lower case = a face-down marker you peeked at.\n\
         Units: a = Seat 1, b = Seat 2, c = Seat 3, d = Seat 4 (++ = three or more players)."
    );
    let mut head = String::from("    ");
    for x in 0..s.width {
        let _ = write!(head, "{:<7}", x);
    }
    let _ = writeln!(o, "{}", head.trim_end());
    for y in 0..s.height {
        let mut line = format!("{y:>2} ");
        if y % 2 == 1 {
            line.push_str("   ");
        }
        for x in 0..s.width {
            match s.idx(x, y) {
                Some(i) => {
                    let _ = write!(line, "[{}]", cell_text(s, i, me));
                }
                None => line.push_str("       "),
            }
        }
        let _ = writeln!(o, "{}", line.trim_end());
    }
    let _ = writeln!(o);
    // Colonies (public).
    let _ = writeln!(o, "COLONIES");
    for c in &s.colonies {
        let dep = if c.deposits.is_empty() {
            String::new()
        } else {
            let l: Vec<&str> = c.deposits.iter().map(|m| m.name()).collect();
            format!(", delivered: {}", l.join(", "))
        };
        let _ = writeln!(
            o,
            "  Seat {} {} at {}: {} CP{}",
            c.owner + 1,
            if c.homeworld { "Homeworld" } else { "colony" },
            xy(s, c.pos),
            c.value,
            dep
        );
    }
    // Own units in full, others as far as they are visible.
    if let Some(m) = me {
        let _ = writeln!(o, "\nYOUR UNITS");
        for g in s.groups.iter().filter(|g| g.owner == m) {
            let gv = group_view(s, g, me);
            let armed = super::data::load().is_ok_and(|d| d.unit(g.kind).combat);
            let tech = if armed {
                format!(
                    " [att {} def {} tac {}]",
                    gv.attack_tech.unwrap_or(0),
                    gv.defense_tech.unwrap_or(0),
                    gv.tactics.unwrap_or(0)
                )
            } else {
                String::new()
            };
            let moved = match gv.moved {
                Some((a, b)) if b > 0 && g.kind.hides() => format!(
                    ", moved {a} of {b} (movement tech {})",
                    gv.movement.unwrap_or(0)
                ),
                Some((a, b)) if b > 0 => format!(", moved {a} of {b}"),
                _ => String::new(),
            };
            let _ = writeln!(
                o,
                "  #{} {} x{} at {}{}{}{}{}{}",
                g.id,
                g.kind.name(),
                g.count,
                xy(s, g.pos),
                if g.face_up && g.kind.hides() {
                    " (revealed)"
                } else {
                    ""
                },
                tech,
                moved,
                if g.damage > 0 {
                    format!(", damaged {}", g.damage)
                } else {
                    String::new()
                },
                g.cargo
                    .map(|c| format!(", carrying {}", c.name()))
                    .unwrap_or_default()
            );
        }
    }
    let _ = writeln!(o, "\nOTHER PLAYERS' UNITS");
    for g in s.groups.iter().filter(|g| Some(g.owner) != me) {
        if g.face_up {
            let _ = writeln!(
                o,
                "  #{} Seat {} {} x{} at {}",
                g.id,
                g.owner + 1,
                g.kind.name(),
                g.count,
                xy(s, g.pos)
            );
        } else {
            let _ = writeln!(
                o,
                "  #{} Seat {} face-down counter at {}",
                g.id,
                g.owner + 1,
                xy(s, g.pos)
            );
        }
    }
    if let Some(b) = &s.battle {
        let _ = writeln!(
            o,
            "\nBATTLE at {}: Seat {} attacks Seat {}, combat round {}.",
            xy(s, b.pos),
            b.attacker + 1,
            b.defender + 1,
            b.round
        );
        for (i, seat) in [b.attacker, b.defender].into_iter().enumerate() {
            if Some(seat) == me {
                let p = &b.plans[i];
                let _ = writeln!(
                    o,
                    "  Your plan so far: screened {:?}, retreats {:?}, targets {:?}",
                    p.screened,
                    p.retreats
                        .iter()
                        .map(|(g, h, n)| (*g, xy(s, *h), *n))
                        .collect::<Vec<_>>(),
                    p.targets
                );
            }
        }
    }
    if let Some(m) = me {
        let p = &s.players[m];
        let _ = writeln!(o, "\nYOUR EMPIRE (secret)");
        let _ = writeln!(o, "  CP banked: {}", p.cp);
        let techs: Vec<String> = Tech::ALL
            .iter()
            .map(|t| format!("{} {}", t.name(), p.level(*t)))
            .collect();
        let _ = writeln!(o, "  Tech: {}", techs.join(", "));
        if s.phase == Phase::Econ {
            let d = &s.drafts[m];
            let _ = writeln!(
                o,
                "  This phase: income {} - maintenance {} + carried {} => {} CP available; bid {}; spent {}; left {}{}",
                d.income,
                d.maintenance,
                p.cp,
                d.available,
                d.bid.map_or("none yet".into(), |b| b.to_string()),
                d.spent,
                econ::remaining(d),
                if d.submitted { " (submitted)" } else { "" }
            );
            if !d.blockaded.is_empty() {
                let l: Vec<String> = d.blockaded.iter().map(|b| xy(s, *b)).collect();
                let _ = writeln!(o, "  Blockaded: {}", l.join(", "));
            }
            for l in &d.lines {
                let t = match l {
                    OrderLine::Research { tech } => format!("research {}", tech.name()),
                    OrderLine::Build { unit, pos } => {
                        format!("build a {} at {}", unit.name(), xy(s, *pos))
                    }
                    OrderLine::Scuttle { group } => format!("scuttle one ship of #{group}"),
                };
                let _ = writeln!(o, "  order: {t}");
            }
        }
        if !p.peeks.is_empty() {
            let l: Vec<String> = p
                .peeks
                .iter()
                .map(|(h, m)| format!("{} = {}", xy(s, *h), m.name()))
                .collect();
            let _ = writeln!(o, "  Peeked markers: {}", l.join(", "));
        }
    }
    if s.phase == Phase::Econ {
        let w: Vec<String> = (0..s.seats)
            .filter(|i| s.players[*i].alive)
            .map(|i| {
                format!(
                    "Seat {}: {}",
                    i + 1,
                    if s.drafts[i].submitted {
                        "submitted"
                    } else {
                        "not yet"
                    }
                )
            })
            .collect();
        let _ = writeln!(o, "\nOrders: {}", w.join(", "));
    }
    let ev = visible_events(s, me);
    if !ev.is_empty() {
        let _ = writeln!(o, "\nRECENT EVENTS");
        for e in ev.iter().rev().take(20).rev() {
            let _ = writeln!(o, "  {e}");
        }
    }
    o
}
