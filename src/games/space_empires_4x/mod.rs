//! Space Empires 4X, Basic rules: exploration with hidden markers, face-down fleets, a
//! simultaneous secret economy and d10 combat. Rules: the digest `space-empires-4x.md`
//! (house rules HR-n); every table and number lives in `data.toml`.

pub mod actions;
pub mod board;
mod bot;
pub mod combat;
pub mod data;
pub mod econ;
pub mod hidden;
pub mod invariants;
pub mod render;
pub mod rules;
pub mod state;
#[cfg(test)]
mod tests;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use turnpost_engine::People;

use turnpost_engine::{
    Game, GameInfo, GameRng, Outcome, Placing, RuleError, Seat, SetupError, Status, Viewer,
    Visibility,
};

pub use actions::Action;
use data::Data;
pub use state::State;
use state::*;

pub const ID: &str = "space-empires-4x";

pub struct SpaceEmpires4x;

/// HR-17: the round cap a table gets when it names none. A play-by-email game needs an
/// end; uniform random play destroys no Homeworld in 200,000 actions.
pub const DEFAULT_ROUND_CAP: u32 = 20;

/// The round caps a new game may have: five times the default is a long game already, and
/// a larger one only lets the computer play for days (stored games keep theirs).
pub const ROUND_CAPS: std::ops::RangeInclusive<u32> = 1..=100;

/// Table options (digest 5.7 and 6).
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// HR-17: end the game after the Economic Phase of this round; the highest Homeworld +
    /// colony value wins (ties: more CP banked). Left out, the cap is 20 rounds. A new
    /// game with `null` is refused (`round_cap_required`): without a cap a game may never
    /// end. Games stored with `null` before that play on until one Homeworld remains.
    /// A new game's cap is 1 to 100.
    #[schemars(range(min = 1, max = 100))]
    pub round_cap: Option<u32>,
    /// All ships use their owner's current tech instead of the tech they were built with.
    pub instant_upgrades: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            round_cap: Some(DEFAULT_ROUND_CAP),
            instant_upgrades: false,
        }
    }
}

fn data_err(e: String) -> RuleError {
    RuleError::new("data_error", e)
}

impl SpaceEmpires4x {
    fn to_act(&self, s: &State) -> Vec<Seat> {
        if s.phase == Phase::Over {
            return Vec::new();
        }
        if let Some(p) = &s.pending {
            return match p {
                Pending::Peek { seat, .. } => vec![*seat],
                Pending::LostInSpace { chooser, .. } => vec![*chooser],
            };
        }
        if let Some(b) = &s.battle {
            let mut v = Vec::new();
            for (i, seat) in [b.attacker, b.defender].into_iter().enumerate() {
                if !b.plans[i].submitted {
                    v.push(seat);
                }
            }
            v.sort_unstable();
            return v;
        }
        match &s.phase {
            Phase::ChooseHome { seat } => vec![*seat],
            Phase::Move | Phase::Combat | Phase::Explore => vec![s.current_player()],
            Phase::Econ => (0..s.seats)
                .filter(|i| !s.drafts[*i].submitted && s.players[*i].alive)
                .collect(),
            Phase::ChooseOrder { chooser } => vec![*chooser],
            Phase::Over => Vec::new(),
        }
    }

    fn legal(&self, s: &State, d: &Data, seat: Seat) -> Vec<Action> {
        if !self.to_act(s).contains(&seat) {
            return Vec::new();
        }
        if let Some(p) = &s.pending {
            return match p {
                Pending::Peek { .. } => vec![Action::RevealPeek, Action::HidePeek],
                Pending::LostInSpace { pos, .. } => rules::lost_targets(s, *pos)
                    .into_iter()
                    .map(|h| {
                        let (x, y) = s.xy(h);
                        Action::LostInSpace { x, y }
                    })
                    .collect(),
            };
        }
        if s.battle.is_some() {
            return combat::plan_actions(s, d, seat);
        }
        match &s.phase {
            Phase::ChooseHome { .. } => s
                .cells
                .iter()
                .enumerate()
                .filter(|(i, c)| c.home_of == Some(seat) && s.on_map[*i])
                .map(|(_, c)| Action::ChooseHomeworld { x: c.x, y: c.y })
                .collect(),
            Phase::Move => {
                let mut v = vec![Action::EndMovement];
                v.extend(rules::move_actions(s, d, seat));
                v.extend(rules::misc_move_actions(s, seat));
                v.extend(rules::regroup_actions(s, d, seat));
                v
            }
            Phase::Combat => {
                let battles = rules::battle_options(s, d, seat);
                if !battles.is_empty() {
                    return fight_actions(s, &battles);
                }
                let mut v = vec![Action::EndCombat];
                for p in rules::bombard_options(s, d, seat) {
                    let (x, y) = s.xy(p);
                    v.push(Action::Bombard { x, y });
                }
                v
            }
            Phase::Explore => {
                let battles = rules::battle_options(s, d, seat);
                if !battles.is_empty() {
                    return fight_actions(s, &battles);
                }
                if s.explore_queue.len() >= 2 {
                    return s
                        .explore_queue
                        .iter()
                        .map(|h| {
                            let (x, y) = s.xy(*h);
                            Action::Explore { x, y }
                        })
                        .collect();
                }
                let mut v = vec![Action::EndExploration];
                v.extend(
                    rules::colonise_options(s, seat)
                        .into_iter()
                        .map(|group| Action::Colonise { group }),
                );
                v
            }
            Phase::Econ => econ::econ_actions(s, d, seat),
            Phase::ChooseOrder { .. } => econ::orders(s)
                .into_iter()
                .map(|order| Action::SetTurnOrder { order })
                .collect(),
            Phase::Over => Vec::new(),
        }
    }

    fn step(&self, s: &mut State, d: &Data, seat: Seat, a: &Action) -> Result<(), RuleError> {
        if let Some(p) = s.pending.clone() {
            return match (p, a) {
                (Pending::Peek { .. }, Action::RevealPeek) => {
                    rules::finish_peek(s, true);
                    Ok(())
                }
                (Pending::Peek { .. }, Action::HidePeek) => {
                    rules::finish_peek(s, false);
                    Ok(())
                }
                (Pending::LostInSpace { .. }, Action::LostInSpace { x, y }) => {
                    rules::do_lost(s, d, seat, *x, *y)
                }
                _ => Err(rules::err("wrong_step", "answer the pending choice first")),
            };
        }
        if s.battle.is_some() {
            return combat::apply_plan(s, d, seat, a);
        }
        let wrong = || rules::err("wrong_phase", "that action does not belong to this phase");
        match (&s.phase, a) {
            (Phase::ChooseHome { .. }, Action::ChooseHomeworld { x, y }) => {
                rules::choose_home(s, d, seat, *x, *y)
            }
            (Phase::Move, Action::Move { groups, x, y }) => {
                rules::do_move(s, d, seat, groups, *x, *y)
            }
            (Phase::Move, Action::Split { group, count }) => {
                rules::do_split(s, d, seat, *group, *count)
            }
            (Phase::Move, Action::Merge { group, into }) => {
                rules::do_merge(s, d, seat, *group, *into)
            }
            (Phase::Move, Action::Peek { group, x, y }) => rules::do_peek(s, seat, *group, *x, *y),
            (Phase::Move, Action::PickUp { group }) => rules::do_pick_up(s, seat, *group),
            (Phase::Move, Action::Deposit { group }) => rules::do_deposit(s, seat, *group),
            (Phase::Move, Action::EndMovement) => {
                rules::end_movement(s, seat);
                Ok(())
            }
            (Phase::Combat | Phase::Explore, Action::Fight { x, y, defender }) => {
                let pos = s.idx(*x, *y);
                match pos.filter(|p| rules::battle_options(s, d, seat).contains(&(*p, *defender))) {
                    Some(p) => {
                        combat::start_battle(s, d, seat, *defender, p);
                        Ok(())
                    }
                    None => Err(rules::err("no_battle", "there is no such battle to fight")),
                }
            }
            (Phase::Combat, Action::Bombard { x, y }) => match s.idx(*x, *y) {
                Some(p) if rules::battle_options(s, d, seat).is_empty() => {
                    rules::bombard(s, d, seat, p)
                }
                _ => Err(rules::err(
                    "illegal_bombard",
                    "you cannot bombard there now",
                )),
            },
            (Phase::Combat, Action::EndCombat) => {
                if !rules::battle_options(s, d, seat).is_empty() {
                    return Err(rules::err("battles_pending", "fight your battles first"));
                }
                rules::start_explore(s);
                Ok(())
            }
            (Phase::Explore, Action::Explore { x, y }) => {
                if !rules::battle_options(s, d, seat).is_empty() {
                    return Err(rules::err("battles_pending", "fight your battles first"));
                }
                rules::explore_choice(s, d, *x, *y)
            }
            (Phase::Explore, Action::Colonise { group }) => {
                if s.explore_queue.len() >= 2 {
                    return Err(rules::err(
                        "explore_first",
                        "choose which hex to explore next",
                    ));
                }
                if !rules::battle_options(s, d, seat).is_empty() {
                    return Err(rules::err("battles_pending", "fight your battles first"));
                }
                rules::colonise(s, seat, *group)
            }
            (Phase::Explore, Action::EndExploration) if s.explore_queue.len() >= 2 => Err(
                rules::err("explore_first", "choose which hex to explore next"),
            ),
            (Phase::Explore, Action::EndExploration) => {
                if !rules::battle_options(s, d, seat).is_empty() {
                    return Err(rules::err("battles_pending", "fight your battles first"));
                }
                rules::next_player(s, d);
                Ok(())
            }
            (Phase::Econ, _) => econ::apply_econ(s, d, seat, a),
            (Phase::ChooseOrder { .. }, Action::SetTurnOrder { order }) => {
                econ::set_order(s, seat, order)
            }
            _ => Err(wrong()),
        }
    }

    /// Runs the steps nobody has a choice in (single battles, empty phases, exploration).
    fn advance(&self, s: &mut State, d: &Data) {
        for _ in 0..10_000 {
            if s.phase == Phase::Over || s.pending.is_some() || s.battle.is_some() {
                return;
            }
            let p = s.current_player();
            if matches!(s.phase, Phase::Move | Phase::Combat | Phase::Explore)
                && !s.players[p].alive
            {
                rules::next_player(s, d);
                continue;
            }
            match s.phase {
                Phase::Move => {
                    if self.legal(s, d, p).len() > 1 {
                        return;
                    }
                    rules::end_movement(s, p);
                }
                Phase::Combat | Phase::Explore => {
                    let battles = rules::battle_options(s, d, p);
                    if battles.len() == 1 {
                        let (pos, e) = battles[0];
                        combat::start_battle(s, d, p, e, pos);
                        continue;
                    }
                    if battles.len() > 1 {
                        return;
                    }
                    if s.phase == Phase::Explore {
                        rules::clean_queue(s);
                        match s.explore_queue.len() {
                            0 => {}
                            1 => {
                                let pos = s.explore_queue.remove(0);
                                rules::explore_hex(s, d, pos);
                                continue;
                            }
                            // Several hexes: the player chooses the order.
                            _ => return,
                        }
                    }
                    if s.phase == Phase::Combat {
                        if !rules::bombard_options(s, d, p).is_empty() {
                            return;
                        }
                        rules::start_explore(s);
                    } else {
                        if !rules::colonise_options(s, p).is_empty() {
                            return;
                        }
                        rules::next_player(s, d);
                    }
                }
                _ => return,
            }
        }
    }

    fn outcome(&self, s: &State) -> Outcome {
        let value = |seat: Seat| -> i64 {
            s.colonies
                .iter()
                .filter(|c| c.owner == seat)
                .map(|c| c.value as i64)
                .sum()
        };
        // Living players by (colony value, banked CP); the eliminated after them, later first.
        let mut keys: Vec<(Seat, (i64, i64, i64))> = (0..s.seats)
            .map(|seat| {
                let p = &s.players[seat];
                let key = if p.alive {
                    (1, value(seat), p.cp)
                } else {
                    (0, p.eliminated_round.map_or(0, |r| r as i64), 0)
                };
                (seat, key)
            })
            .collect();
        keys.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut ranking: Vec<Placing> = Vec::new();
        for (i, (seat, key)) in keys.iter().enumerate() {
            let rank = match i {
                0 => 1,
                _ if keys[i - 1].1 == *key => ranking.last().map_or(1, |p| p.rank),
                _ => i as u32 + 1,
            };
            ranking.push(Placing {
                seat: *seat,
                rank,
                score: Some(if key.0 == 1 { key.1 } else { 0 }),
            });
        }
        let winners: Vec<String> = ranking
            .iter()
            .filter(|p| p.rank == 1)
            .map(|p| format!("Seat {}", p.seat + 1))
            .collect();
        let summary = if s.alive().len() == 1 {
            format!("{} wins: the last Homeworld standing", winners.join(", "))
        } else {
            format!(
                "{} win(s) on colony value at the round cap",
                winners.join(", ")
            )
        };
        Outcome {
            ranking,
            teams: Vec::new(),
            summary,
        }
    }
}

fn fight_actions(s: &State, battles: &[(usize, Seat)]) -> Vec<Action> {
    battles
        .iter()
        .map(|(p, e)| {
            let (x, y) = s.xy(*p);
            Action::Fight { x, y, defender: *e }
        })
        .collect()
}

impl Game for SpaceEmpires4x {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = render::View;

    fn info(&self) -> GameInfo {
        GameInfo {
            id: ID,
            name: "Space Empires 4X",
            min_players: 2,
            max_players: 4,
            rules_version: RULES_VERSION,
        }
    }

    /// A new game needs an end: without a round cap, computer players can run one game
    /// for over ten minutes. Games stored with `null` still set up and replay: only
    /// creation (and a rematch) checks this.
    fn check_new_options(&self, options: &Options) -> Result<(), SetupError> {
        match options.round_cap {
            None => Err(SetupError::new(
                "round_cap_required",
                format!(
                    "round_cap must be a number of rounds (at least 1); leave it out for the \
                     default of {DEFAULT_ROUND_CAP}. A game without a cap may never end"
                ),
            )),
            Some(cap) if !ROUND_CAPS.contains(&cap) => {
                Err(SetupError::out_of_range("round_cap", ROUND_CAPS, cap))
            }
            Some(_) => Ok(()),
        }
    }

    /// Version 1 games replay with version 1's retreat and build rules.
    fn replays_rules_versions(&self) -> std::ops::RangeInclusive<u32> {
        1..=RULES_VERSION
    }

    fn setup(&self, options: &Options, seats: usize, rng: GameRng) -> Result<State, SetupError> {
        if !(2..=4).contains(&seats) {
            return Err(SetupError::player_count(seats, 2, 4));
        }
        if options.round_cap == Some(0) {
            return Err(SetupError::invalid_options("round_cap must be at least 1"));
        }
        let d = data::load().map_err(SetupError::invalid_options)?;
        rules::setup(d, seats, options.round_cap, options.instant_upgrades, rng)
            .ok_or_else(|| SetupError::player_count(seats, 2, 4))
    }

    fn status(&self, state: &State) -> Status {
        if state.phase == Phase::Over {
            return Status::Finished(self.outcome(state));
        }
        Status::Active {
            to_act: self.to_act(state),
        }
    }

    fn legal_actions(&self, state: &State, seat: Seat) -> Vec<Action> {
        match data::load() {
            Ok(d) => self.legal(state, d, seat),
            Err(_) => Vec::new(),
        }
    }

    fn apply(&self, state: &State, seat: Seat, action: &Action) -> Result<State, RuleError> {
        if state.phase == Phase::Over {
            return Err(RuleError::game_over());
        }
        if seat >= state.seats || !self.to_act(state).contains(&seat) {
            return Err(RuleError::not_your_turn(seat));
        }
        let d = data::load().map_err(data_err)?;
        let mut s = state.clone();
        self.step(&mut s, d, seat, action)?;
        self.advance(&mut s, d);
        Ok(s)
    }

    fn view(&self, state: &State, viewer: Viewer) -> render::View {
        render::view(state, viewer, &self.status(state))
    }

    fn action_visibility(&self, _before: &State, seat: Seat, action: &Action) -> Visibility {
        let form = match action {
            Action::Screen { .. }
            | Action::Retreat { .. }
            | Action::Target { .. }
            | Action::SubmitPlan => "combat_plan",
            Action::Bid { .. }
            | Action::Research { .. }
            | Action::Build { .. }
            | Action::Scuttle { .. }
            | Action::SubmitOrders => "econ_order",
            // The size of a face-down group is secret: how it is split stays with its owner.
            // A peek names the counter, and only cruisers peek: which counter peeked stays
            // with its owner too (the public log says where). One form for all three, as
            // they are alternatives of the same movement step.
            Action::Split { .. } | Action::Merge { .. } | Action::Peek { .. } => "secret_move_step",
            _ => return Visibility::Public,
        };
        Visibility::Private {
            seen_by: vec![seat],
            public_form: serde_json::json!({ "type": form }),
        }
    }

    fn board_svg(&self, view: &render::View, people: &People) -> String {
        board::picture(view, people)
    }

    /// Counters as `counter:<id>`, hexes as `hex:x<x>y<y>` (see the picture).
    fn action_targets(&self, _state: &State, _seat: Seat, action: &Action) -> Vec<String> {
        render::targets(action)
    }

    fn describe_action(&self, state: &State, seat: Seat, action: &Action) -> String {
        let text = render::describe(state, action);
        // An order that spends CP says what it costs, so players need no price list.
        let cost = data::load().ok().and_then(|d| match action {
            Action::Build { unit, .. } => Some(d.unit(*unit).cost),
            Action::Research { tech } if state.players.get(seat).is_some() => {
                Some(econ::research_cost(d, state, seat, *tech))
            }
            _ => None,
        });
        match cost {
            Some(cp) if cp < i64::MAX => format!("{text} for {cp} CP"),
            _ => text,
        }
    }

    fn log_text(&self, state: &State, _seat: Seat, action: &Action) -> String {
        render::log_text(state, action)
    }

    fn render_text(&self, state: &State, viewer: Viewer) -> String {
        render::text(state, viewer, &self.status(state))
    }

    fn seat_name(&self, _state: &State, seat: Seat) -> String {
        format!("Seat {}", seat + 1)
    }

    fn bot_standing(&self, state: &State, seat: Seat) -> Option<f64> {
        bot::standing(state, seat)
    }

    fn resample_hidden(&self, state: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        hidden::resample(state, data::load().ok(), viewer, rng)
    }

    fn check_invariants(&self, state: &State) -> Result<(), String> {
        invariants::check_state(state, data::load()?)
    }

    fn check_step(
        &self,
        before: &State,
        _seat: Seat,
        _action: &Action,
        after: &State,
    ) -> Result<(), String> {
        invariants::check_step(before, after)
    }

    fn check_data(&self) -> Result<(), String> {
        data::load().map(|_| ())
    }
}

/// A late-game position and a legal action in it, for benchmarking one `apply`: 3 players
/// in round 8, reached by a seeded player that builds instead of scuttling, and a move.
pub fn late_game_fixture() -> (SpaceEmpires4x, State, Seat, Action) {
    let game = SpaceEmpires4x;
    let options = Options {
        round_cap: Some(60),
        instant_upgrades: false,
    };
    let seats = 3;
    let mut state = match game.setup(&options, seats, GameRng::seed_from_u64(4242)) {
        Ok(s) => s,
        Err(_) => return (game, fallback_state(), 0, Action::EndMovement),
    };
    let mut agent = GameRng::seed_from_u64(99);
    for _ in 0..20_000 {
        let to_act = game.status(&state).to_act().to_vec();
        let Some(&seat) = agent.pick(&to_act) else {
            break;
        };
        let legal = game.legal_actions(&state, seat);
        if state.round >= 8
            && state.phase == Phase::Move
            && state.battle.is_none()
            && state.pending.is_none()
            && let Some(a) = legal.iter().find(|a| matches!(a, Action::Move { .. }))
        {
            return (game, state, seat, a.clone());
        }
        // A builder: no voluntary scuttling, no bids, builds before submitting.
        let forced = legal.iter().all(|a| matches!(a, Action::Scuttle { .. }));
        let builds: Vec<&Action> = legal
            .iter()
            .filter(|a| matches!(a, Action::Build { .. }))
            .collect();
        let choice = if !builds.is_empty() && agent.chance(4, 5) {
            builds.get(agent.below(builds.len())).map(|a| (*a).clone())
        } else {
            let pool: Vec<&Action> = legal
                .iter()
                .filter(|a| forced || !matches!(a, Action::Scuttle { .. }))
                .filter(|a| !matches!(a, Action::Bid { cp } if *cp > 0))
                .collect();
            pool.get(agent.below(pool.len())).map(|a| (*a).clone())
        };
        let Some(a) = choice else { break };
        match game.apply(&state, seat, &a) {
            Ok(next) => state = next,
            Err(_) => break,
        }
    }
    let seat = game.status(&state).to_act().first().copied().unwrap_or(0);
    let a = game
        .legal_actions(&state, seat)
        .into_iter()
        .next()
        .unwrap_or(Action::EndMovement);
    (game, state, seat, a)
}

fn fallback_state() -> State {
    // Only reached if the embedded data file were broken; check_data reports that at start.
    let d = data::load();
    match d
        .ok()
        .and_then(|d| rules::setup(d, 2, None, false, GameRng::seed_from_u64(0)))
    {
        Some(s) => s,
        None => State {
            seats: 0,
            width: 0,
            height: 0,
            cells: Vec::new(),
            on_map: Vec::new(),
            groups: Vec::new(),
            colonies: Vec::new(),
            players: Vec::new(),
            home_stock: Vec::new(),
            round: 1,
            turn: 1,
            order: Vec::new(),
            current: 0,
            phase: Phase::Over,
            pending: None,
            battle: None,
            bombarded: Vec::new(),
            explore_queue: Vec::new(),
            drafts: Vec::new(),
            last_reveal: Vec::new(),
            last_orders: Vec::new(),
            bids: Vec::new(),
            next_id: 1,
            active: Vec::new(),
            events: Vec::new(),
            round_cap: None,
            instant_upgrades: false,
            rng: GameRng::seed_from_u64(0),
            rules_version: RULES_VERSION,
        },
    }
}
