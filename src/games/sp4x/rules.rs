//! The turn machine: setup, whose turn, MAIN and RESOURCES, the star procedure, scoring, ages.

use super::actions::Action;
use super::board::*;
use super::data::Data;
use super::jobs::{exec_job, job_actions};
use super::state::*;
use turnpost_engine::hex::Hex;
use turnpost_engine::{GameRng, RuleError, Seat, SetupError};

pub(super) fn name(s: Seat) -> &'static str {
    seat_name(s)
}

// ---------------------------------------------------------------- setup

pub fn setup(d: &Data, seats: usize, mut rng: GameRng) -> Result<State, SetupError> {
    if !(3..=4).contains(&seats) {
        return Err(SetupError::player_count(seats, 3, 4));
    }
    let dirs = if seats == 3 {
        &d.start_directions_3
    } else {
        &d.start_directions_4
    };
    let blank = |hex: Hex, kind: TileKind| Tile {
        hex,
        kind,
        men: vec![0; seats],
        bases: vec![false; seats],
    };
    let mut tiles = vec![blank(Hex::new(0, 0), TileKind::Mothership)];
    let mut others: Vec<TileKind> = Vec::new();
    for t in d.tiles.iter().filter(|t| t.kind != TileKind::Mothership) {
        for _ in 0..t.count {
            others.push(t.kind);
        }
    }
    let mut roads = Vec::new();
    for s in 0..seats {
        // Drawing again after a barrier tile = a uniform draw among the non-barrier tiles.
        let candidates: Vec<usize> = (0..others.len())
            .filter(|&i| !d.tile(others[i]).barrier)
            .collect();
        let Some(&i) = rng.pick(&candidates) else {
            return Err(SetupError::new("bad_data", "no start tile available"));
        };
        let kind = others.remove(i);
        let hex = Hex::new(0, 0).neighbor(dirs.get(s).copied().unwrap_or(s));
        let mut t = blank(hex, kind);
        t.men[s] = 2;
        t.bases[s] = true;
        tiles.push(t);
        let (a, b) = edge(hex, Hex::new(0, 0));
        roads.push(Road { a, b, owner: s });
    }
    rng.shuffle(&mut others);
    let mut cards = d.action_cards();
    rng.shuffle(&mut cards);
    let first = rng.below(seats);
    let mut players: Vec<Player> = (0..seats)
        .map(|_| Player {
            hand: Vec::new(),
            res: [0; 3],
            score: 0,
            plan_out: false,
        })
        .collect();
    for p in players.iter_mut() {
        p.hand = cards.drain(..d.hand_size.min(cards.len())).collect();
        p.hand.sort_unstable();
    }
    cards.push(Card::Star);
    let mut st = State {
        seats,
        age: 1,
        current: first,
        step: Step::Main,
        tiles,
        roads,
        tile_stack: others,
        players,
        deck: cards,
        discard: Vec::new(),
        frames: Vec::new(),
        steals: Vec::new(),
        events: Vec::new(),
        rng,
    };
    st.event(format!("Age 1 begins; {} starts", name(first)));
    begin_turn(&mut st, first);
    Ok(st)
}

// ---------------------------------------------------------------- whose turn

/// The one seat that must decide now.
pub fn decider(st: &State) -> Option<Seat> {
    match st.step {
        Step::Steal | Step::Main | Step::Resources => Some(st.current),
        Step::Over => None,
        Step::Frames => st.frames.first().map(|f| match f.stack.last() {
            Some(Job::WarLoss { victim, .. }) => *victim,
            Some(Job::GreatWar { next }) => *next,
            _ => f.actor,
        }),
    }
}

pub fn steal_targets(st: &State, p: Seat) -> Vec<Seat> {
    (0..st.seats)
        .filter(|&v| {
            v != p
                && st
                    .players
                    .get(v)
                    .is_some_and(|pl| !pl.hand.is_empty() && !pl.plan_out)
        })
        .collect()
}

fn begin_turn(st: &mut State, p: Seat) {
    st.current = p;
    st.frames.clear();
    if let Some(pl) = st.players.get_mut(p)
        && pl.plan_out
    {
        // HR-11: the grand plan returns at the start of the owner's next turn.
        pl.plan_out = false;
        pl.hand.push(Card::GrandPlan);
        pl.hand.sort_unstable();
        st.event(format!("{}'s grand plan returns to hand", name(p)));
    }
    if steal_targets(st, p).is_empty() {
        enter_main(st); // HR-5: skipped when nobody can be robbed
    } else {
        st.step = Step::Steal;
    }
}

fn enter_main(st: &mut State) {
    let p = st.current;
    if st.players.get(p).is_none_or(|pl| pl.hand.is_empty()) {
        st.event(format!(
            "{} has no cards and skips the main action",
            name(p)
        )); // HR-19
        st.step = Step::Resources;
    } else {
        st.step = Step::Main;
    }
}

// ---------------------------------------------------------------- legal actions

pub fn legal(d: &Data, st: &State, seat: Seat) -> Vec<Action> {
    if decider(st) != Some(seat) {
        return Vec::new();
    }
    match st.step {
        Step::Steal => steal_targets(st, seat)
            .into_iter()
            .map(|victim| Action::DrawFrom { victim })
            .collect(),
        Step::Main => main_actions(st, seat),
        Step::Resources => resource_actions(d, st, seat),
        Step::Frames => st
            .frames
            .first()
            .map(|f| job_actions(d, st, f))
            .unwrap_or_default(),
        Step::Over => Vec::new(),
    }
}

fn main_actions(st: &State, p: Seat) -> Vec<Action> {
    let Some(pl) = st.players.get(p) else {
        return Vec::new();
    };
    let hand = &pl.hand;
    let mut distinct: Vec<Card> = hand.clone();
    distinct.dedup();
    let has_ai = hand.contains(&Card::Ai);
    let mut out = Vec::new();
    for &c in &distinct {
        if c == Card::Ai {
            if hand.len() == 1 {
                out.push(Action::Show { card: c }); // 5.7: only as the last card
            }
        } else if c != Card::Star {
            out.push(Action::Show { card: c });
        }
    }
    for &c in &distinct {
        if c != Card::Ai && c != Card::Star && hand.iter().filter(|&&x| x == c).count() >= 2 {
            out.push(Action::Pair { card: c });
        }
    }
    if has_ai {
        for &c in &distinct {
            if c != Card::Ai && c != Card::Star {
                out.push(Action::AiPair { card: c });
            }
        }
    }
    out
}

fn resource_actions(d: &Data, st: &State, p: Seat) -> Vec<Action> {
    let Some(pl) = st.players.get(p) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if pl.res[Resource::Food.idx()] >= 1 {
        for t in st
            .tiles
            .iter()
            .filter(|t| t.men.get(p).copied().unwrap_or(0) > 0)
        {
            for to in move_dests(d, st, p, t.hex) {
                out.push(Action::SpendFoodMove { from: t.hex, to });
            }
        }
        if men_pool(d, st, p) > 0 {
            for at in base_tiles(st, p) {
                out.push(Action::SpendFoodMan { at });
            }
        }
    }
    if pl.res[Resource::Plastic.idx()] >= 1 {
        for (a, b) in road_options(d, st, p) {
            out.push(Action::SpendPlasticRoad { a, b });
        }
    }
    out.push(Action::EndTurn);
    out
}

// ---------------------------------------------------------------- apply

pub fn apply(d: &Data, st: &State, seat: Seat, a: &Action) -> Result<State, RuleError> {
    if st.step == Step::Over {
        return Err(RuleError::game_over());
    }
    if seat >= st.seats || decider(st) != Some(seat) {
        return Err(RuleError::not_your_turn(seat));
    }
    if !legal(d, st, seat).contains(a) {
        return Err(illegal(st, a));
    }
    let mut st = st.clone();
    match st.step {
        Step::Steal => exec_steal(&mut st, a),
        Step::Main => exec_main(d, &mut st, a),
        Step::Resources => exec_resources(&mut st, a),
        Step::Frames => exec_job(d, &mut st, a)?,
        Step::Over => {}
    }
    settle(d, &mut st);
    Ok(st)
}

pub(super) fn illegal(st: &State, a: &Action) -> RuleError {
    let what = serde_json::to_string(a).unwrap_or_default();
    // The most common mistakes get their own codes.
    if st.step == Step::Main {
        let hand = st
            .players
            .get(st.current)
            .map(|p| p.hand.clone())
            .unwrap_or_default();
        let count = |c: Card| hand.iter().filter(|&&x| x == c).count();
        match *a {
            Action::Show { card: Card::Ai } if count(Card::Ai) == 1 => {
                return RuleError::new(
                    "ai_not_last_card",
                    "the ai may be shown alone only when it is your last card; play it with another card (ai_pair) instead",
                );
            }
            Action::Show { card } | Action::AiPair { card }
                if count(card) == 0 || card == Card::Star =>
            {
                return RuleError::new(
                    "card_not_in_hand",
                    format!("you hold no {} card", card.label()),
                );
            }
            Action::AiPair { .. } if count(Card::Ai) == 0 => {
                return RuleError::new("card_not_in_hand", "you do not hold the ai card");
            }
            Action::Pair { card } if count(card) < 2 || card == Card::Ai => {
                return RuleError::new(
                    "no_pair",
                    format!("you do not hold two {} cards", card.label()),
                );
            }
            _ => {}
        }
    }
    let step = match st.step {
        Step::Steal => "you must draw a card from an opponent (draw_from)",
        Step::Main => "you must show a card or play a pair (show / pair / ai_pair) from your hand",
        Step::Resources => "you may spend resources or end_turn",
        Step::Frames => "an action is being resolved; see the legal actions for this step",
        Step::Over => "the game is over",
    };
    RuleError::new(
        "illegal_action",
        format!("{what} is not possible now: {step}"),
    )
}

fn exec_steal(st: &mut State, a: &Action) {
    let Action::DrawFrom { victim } = *a else {
        return;
    };
    let p = st.current;
    let len = st.players.get(victim).map_or(0, |v| v.hand.len());
    if len > 0 {
        let i = st.rng.below(len);
        let card = st.players[victim].hand.remove(i);
        if let Some(pl) = st.players.get_mut(p) {
            pl.hand.push(card);
            pl.hand.sort_unstable();
        }
        let age = st.age;
        st.steals.push(StealRecord {
            age,
            thief: p,
            victim,
            card,
        });
        // Only recent draws are shown; older ones live in the players' memories.
        if st.steals.len() > 8 {
            st.steals.remove(0);
        }
        st.event(format!("{} drew a card from {}", name(p), name(victim)));
    }
    enter_main(st);
}

fn remove_card(st: &mut State, p: Seat, c: Card) -> bool {
    let Some(pl) = st.players.get_mut(p) else {
        return false;
    };
    match pl.hand.iter().position(|&x| x == c) {
        Some(i) => {
            pl.hand.remove(i);
            true
        }
        None => false,
    }
}

fn draw_top(st: &mut State, p: Seat) {
    // The last deck card is the star, which never enters a hand.
    if st.deck.len() > 1 {
        let c = st.deck.remove(0);
        if let Some(pl) = st.players.get_mut(p) {
            pl.hand.push(c);
            pl.hand.sort_unstable();
        }
        st.event(format!("{} draws the face-up {}", name(p), c.label()));
    }
}

pub fn single_stack(d: &Data, c: Card) -> Vec<Job> {
    match c {
        Card::MoveExplore => vec![Job::MoveExplore {
            left: Some(d.points.single_move_explore_men),
            done: Vec::new(),
        }],
        Card::Exploit => vec![Job::ExploitSingle],
        Card::Build => vec![Job::Roads { left: 1 }],
        Card::Men => vec![Job::MenSingle],
        Card::Steal => vec![Job::StealTarget { pair: false }],
        Card::War => vec![Job::WarTarget],
        Card::GrandPlan | Card::Ai | Card::Star => Vec::new(),
    }
}

pub fn pair_stack(c: Card, actor: Seat) -> Vec<Job> {
    match c {
        Card::MoveExplore => vec![Job::MoveExplore {
            left: None,
            done: Vec::new(),
        }],
        Card::Exploit => vec![Job::ExploitPair],
        Card::Build => vec![Job::BuildChoice],
        Card::Men => vec![Job::MenPair { placed: Vec::new() }],
        Card::Steal => vec![Job::StealTarget { pair: true }],
        Card::War => vec![Job::GreatWar { next: actor }],
        Card::GrandPlan => vec![Job::NameBasic],
        Card::Ai | Card::Star => Vec::new(),
    }
}

pub(super) fn frame(
    actor: Seat,
    card: Card,
    pair: bool,
    scoring: Scoring,
    stack: Vec<Job>,
) -> Frame {
    Frame {
        actor,
        card,
        pair,
        scoring,
        acc: 0,
        stack,
        draw_after: false,
    }
}

fn pair_scoring(d: &Data, c: Card) -> Scoring {
    if c == Card::GrandPlan {
        Scoring::Fixed(d.points.grand_plan_pair)
    } else {
        Scoring::Points
    }
}

fn exec_main(d: &Data, st: &mut State, a: &Action) {
    let p = st.current;
    match *a {
        Action::Show { card: Card::Ai } => {
            remove_card(st, p, Card::Ai);
            st.discard.push(Card::Ai);
            add_score(st, p, d.points.ai_alone, "shows the ai as the last card");
            end_age(d, st, p); // HR-26
        }
        Action::Show { card } if st.star_active() => star_procedure(d, st, p, card),
        Action::Show {
            card: Card::GrandPlan,
        } => {
            remove_card(st, p, Card::GrandPlan);
            if let Some(pl) = st.players.get_mut(p) {
                pl.plan_out = true;
            }
            st.event(format!(
                "{} shows a grand plan: protected until their next turn",
                name(p)
            ));
            draw_top(st, p);
            st.step = Step::Resources;
        }
        Action::Show { card } => {
            st.event(format!("{} shows {}", name(p), card.label()));
            let mut f = frame(p, card, false, Scoring::Nothing, single_stack(d, card));
            f.draw_after = true;
            st.frames = vec![f];
            st.step = Step::Frames;
        }
        Action::Pair { card } => {
            remove_card(st, p, card);
            remove_card(st, p, card);
            st.discard.push(card);
            st.discard.push(card);
            st.event(format!("{} plays a pair of {}", name(p), card.label()));
            st.frames = vec![frame(
                p,
                card,
                true,
                pair_scoring(d, card),
                pair_stack(card, p),
            )];
            st.step = Step::Frames;
        }
        Action::AiPair { card } => {
            st.event(format!("{} plays ai with {}", name(p), card.label()));
            st.frames = vec![frame(
                p,
                card,
                true,
                Scoring::BonusOnly,
                pair_stack(card, p),
            )];
            st.step = Step::Frames;
        }
        _ => {}
    }
}

/// 4.4: the deck holds only the star when `c` is shown.
fn star_procedure(d: &Data, st: &mut State, p: Seat, c: Card) {
    remove_card(st, p, c);
    st.discard.push(c);
    let n = st.seats;
    // HR-18: the first holder clockwise from p's left lays a copy.
    let q = (1..n)
        .map(|i| (p + i) % n)
        .find(|&s| st.players.get(s).is_some_and(|pl| pl.hand.contains(&c)));
    match q {
        Some(q) => {
            remove_card(st, q, c);
            st.discard.push(c);
            st.event(format!(
                "Star: {} shows {}; {} lays a copy",
                name(p),
                c.label(),
                name(q)
            ));
        }
        None => st.event(format!(
            "Star: {} shows {}; nobody else holds one",
            name(p),
            c.label()
        )),
    }
    st.step = Step::Frames;
    st.frames = if c == Card::War {
        // The great war is fought once, everyone taking part; everyone scores.
        vec![frame(
            p,
            Card::War,
            true,
            Scoring::Points,
            pair_stack(Card::War, p),
        )]
    } else if let Some(q) = q {
        let plan = c == Card::GrandPlan;
        let action = if plan { None } else { Some(c) };
        vec![frame(
            p,
            c,
            false,
            Scoring::Nothing,
            vec![Job::StarSetup { q, action, plan }],
        )]
    } else {
        // HR-17: p alone performs the pair action and scores it.
        vec![frame(p, c, true, pair_scoring(d, c), pair_stack(c, p))]
    };
}

fn exec_resources(st: &mut State, a: &Action) {
    let p = st.current;
    match *a {
        Action::SpendFoodMove { from, to } => {
            pay(st, p, Resource::Food, 1);
            st.remove_man(from, p);
            st.add_men(to, p, 1);
            st.event(format!(
                "{} pays 1 food: a man moves {from} -> {to}",
                name(p)
            ));
        }
        Action::SpendFoodMan { at } => {
            pay(st, p, Resource::Food, 1);
            st.add_men(at, p, 1);
            st.event(format!("{} pays 1 food: a man arrives at {at}", name(p)));
        }
        Action::SpendPlasticRoad { a, b } => {
            pay(st, p, Resource::Plastic, 1);
            add_road(st, p, a, b);
            st.event(format!("{} pays 1 plastic: road {a}-{b}", name(p)));
        }
        Action::EndTurn => {
            let next = (p + 1) % st.seats.max(1);
            begin_turn(st, next);
        }
        _ => {}
    }
}

pub(super) fn pay(st: &mut State, p: Seat, r: Resource, n: u8) {
    if let Some(pl) = st.players.get_mut(p) {
        pl.res[r.idx()] = pl.res[r.idx()].saturating_sub(n);
    }
}

pub(super) fn add_road(st: &mut State, p: Seat, a: Hex, b: Hex) {
    let (a, b) = edge(a, b);
    st.roads.push(Road { a, b, owner: p });
    st.roads.sort_unstable();
}

fn add_score(st: &mut State, p: Seat, pts: i64, why: &str) {
    if let Some(pl) = st.players.get_mut(p) {
        pl.score += pts;
    }
    st.event(format!("{} {why}: {pts:+}", name(p)));
}

// ---------------------------------------------------------------- resolution

/// Pops finished steps, runs automatic ones, scores finished frames, until someone must decide.
pub fn settle(d: &Data, st: &mut State) {
    // Bounded: every pass pops a step or a frame, or stops.
    for _ in 0..10_000 {
        if st.step != Step::Frames {
            return;
        }
        let Some(f) = st.frames.first() else {
            st.step = Step::Resources;
            return;
        };
        let p = f.actor;
        match f.stack.last() {
            None => {
                let f = st.frames.remove(0);
                finish_frame(d, st, &f);
                continue;
            }
            Some(Job::GreatWar { next }) => {
                let next = *next;
                let n = st.seats.max(1);
                // HR-15: players without a legal nomination pass; nobody can → the war ends.
                let who = (0..n)
                    .map(|i| (next + i) % n)
                    .find(|&s| !attack_options(st, s).is_empty());
                if let Some(f) = st.frames.first_mut() {
                    f.stack.pop();
                    if let Some(s) = who {
                        f.stack.push(Job::GreatWar { next: s });
                        return;
                    }
                }
                continue;
            }
            Some(Job::MenPair { placed }) if placed.is_empty() => {
                let bases = base_tiles(st, p);
                let per = d.points.pair_men_per_base;
                if men_pool(d, st, p) >= u32::from(per) * bases.len() as u32 {
                    for b in bases {
                        st.add_men(b, p, per);
                    }
                    st.event(format!("{} puts {per} men on each base tile", name(p)));
                    if let Some(f) = st.frames.first_mut() {
                        f.stack.pop();
                    }
                    continue;
                }
            }
            _ => {}
        }
        let empty = st
            .frames
            .first()
            .is_none_or(|f| job_actions(d, st, f).is_empty());
        if !empty {
            return;
        }
        if let Some(f) = st.frames.first_mut() {
            f.stack.pop();
        }
    }
}

fn finish_frame(d: &Data, st: &mut State, f: &Frame) {
    if f.draw_after {
        draw_top(st, f.actor);
    }
    if f.card == Card::War && f.pair && f.scoring != Scoring::Nothing {
        for s in 0..st.seats {
            let b = bonus(d, st, s);
            if s == f.actor && f.scoring == Scoring::BonusOnly {
                add_score(st, s, b, "scores the war bonus (ai)");
            } else {
                let pts = d.points.war_per_tile * presence_tiles(st, s) + b;
                add_score(st, s, pts, "scores the war");
            }
        }
        return;
    }
    let p = f.actor;
    let b = bonus(d, st, p);
    let pts = match f.scoring {
        Scoring::Nothing => return,
        Scoring::BonusOnly => b,
        Scoring::Fixed(k) => k + b,
        Scoring::Points => {
            let base = match f.card {
                Card::MoveExplore => d.points.move_explore_pair,
                Card::Exploit => f.acc,
                Card::Build => network_score(st, p),
                Card::Men => d.points.men_per_shared_tile * shared_tiles(st, p),
                Card::Steal => d.points.steal_pair,
                Card::GrandPlan => d.points.grand_plan_pair,
                Card::War | Card::Ai | Card::Star => 0,
            };
            base + b
        }
    };
    add_score(st, p, pts, &format!("scores {}", f.card.label()));
}

fn end_age(d: &Data, st: &mut State, ender: Seat) {
    st.frames.clear();
    for s in 0..st.seats {
        let res = st.players.get(s).map_or([0; 3], |p| p.res);
        let v = age_end_value(&d.faction_values, d.faction_mode, res);
        add_score(st, s, v, &format!("age {} scoring", st.age));
    }
    if st.age >= 2 {
        st.step = Step::Over;
        st.event("The game is over".into());
        return;
    }
    // HR-21: board, resources and scores stay; the player left of the ender gets the ai.
    st.age = 2;
    let n = st.seats.max(1);
    let starter = (ender + 1) % n;
    let mut cards: Vec<Card> = d
        .action_cards()
        .into_iter()
        .filter(|&c| c != Card::Ai)
        .collect();
    st.rng.shuffle(&mut cards);
    for (s, pl) in st.players.iter_mut().enumerate() {
        pl.plan_out = false;
        pl.hand = if s == starter {
            vec![Card::Ai]
        } else {
            Vec::new()
        };
        while pl.hand.len() < d.hand_size {
            match cards.pop() {
                Some(c) => pl.hand.push(c),
                None => break,
            }
        }
        pl.hand.sort_unstable();
    }
    cards.push(Card::Star);
    st.deck = cards;
    st.discard.clear();
    st.event(format!(
        "Age 2 begins; {} holds the ai and starts",
        name(starter)
    ));
    begin_turn(st, starter);
}

/// Ranking: score, then tiles present on (tie-break), then shared (HR-24).
pub fn outcome(st: &State) -> turnpost_engine::Outcome {
    use turnpost_engine::{Outcome, Placing};
    let mut rows: Vec<(Seat, i64, i64)> = (0..st.seats)
        .map(|s| {
            (
                s,
                st.players.get(s).map_or(0, |p| p.score),
                presence_tiles(st, s),
            )
        })
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then(b.2.cmp(&a.2)).then(a.0.cmp(&b.0)));
    let mut ranking: Vec<Placing> = Vec::new();
    for (i, r) in rows.iter().enumerate() {
        let rank = match i.checked_sub(1).and_then(|j| rows.get(j)) {
            Some(prev) if prev.1 == r.1 && prev.2 == r.2 => ranking.last().map_or(1, |p| p.rank),
            _ => i as u32 + 1,
        };
        ranking.push(Placing {
            seat: r.0,
            rank,
            score: Some(r.1),
        });
    }
    let winners: Vec<&str> = ranking
        .iter()
        .filter(|p| p.rank == 1)
        .map(|p| name(p.seat))
        .collect();
    let top = rows.first().map_or(0, |r| r.1);
    let summary = if winners.len() == 1 {
        format!("{} wins with {top} points", winners.join(""))
    } else {
        format!("{} share the win with {top} points", winners.join(" and "))
    };
    Outcome {
        ranking,
        teams: Vec::new(),
        summary,
    }
}
