use super::data::{Chip, Resource, Resources};
use super::state::{Phase, Ship, ShipKind};
use super::*;
use turnpost_engine::People;
use turnpost_engine::harness::{PlayoutConfig, assert_resample_covers, check_many, random_playout};
use turnpost_engine::{
    Game, GameInfo, GameRng, RuleError, Seat, SetupError, Status, Viewer, Visibility,
};

mod board_picture;
mod bot_offers;
mod examples;
mod house_rules;
mod invariant_checks;
mod leaks;

pub(super) fn game() -> Starfarers {
    Starfarers::new()
}

/// A fresh game with seat 0 (player A) to act, in the given phase.
pub(super) fn start(seats: usize, phase: Phase) -> (Starfarers, State) {
    let g = game();
    let mut s = g
        .setup(&Options::default(), seats, GameRng::seed_from_u64(1))
        .unwrap();
    s.current = 0;
    s.phase = phase;
    (g, s)
}

/// A planet by name ("beta", "s1 T").
pub(super) fn planet(g: &Starfarers, name: &str) -> usize {
    g.data()
        .planets
        .iter()
        .position(|p| p.name == name)
        .unwrap()
}

/// A colony site: 0 left-top, 1 right-top, 2 bottom.
pub(super) fn site(g: &Starfarers, system: &str, i: usize) -> usize {
    g.data()
        .systems
        .iter()
        .find(|x| x.id == system)
        .unwrap()
        .sites[i]
}

pub(super) fn outpost(g: &Starfarers, race: &str) -> usize {
    g.data()
        .outposts
        .iter()
        .position(|o| o.race == race)
        .unwrap()
}

pub(super) fn card(g: &Starfarers, id: &str) -> usize {
    g.data().friendship.iter().position(|c| c.id == id).unwrap()
}

pub(super) fn encounter(g: &Starfarers, id: &str) -> usize {
    g.data().encounters.iter().position(|e| e.id == id).unwrap()
}

/// Puts a ship of `owner` on `node`, ready to fly this turn.
pub(super) fn put_ship(s: &mut State, owner: Seat, kind: ShipKind, node: usize) -> u32 {
    let id = s.next_ship;
    s.next_ship += 1;
    s.ships.push(Ship {
        id,
        owner,
        kind,
        node,
        start: node,
        moved: false,
        must_found: false,
    });
    id
}

/// A neighbour of `node` that is neither a site nor a dock.
pub(super) fn plain_neighbour(g: &Starfarers, node: usize) -> usize {
    let d = g.data();
    *d.graph
        .neighbors(node)
        .iter()
        .find(|&&m| d.nodes[m].site.is_none() && d.nodes[m].dock.is_none())
        .unwrap()
}

pub(super) fn fly_phase(s: &mut State, speed: u32) {
    s.phase = Phase::Flying;
    s.speed = speed;
    s.warp_available = false;
}

pub(super) fn act(g: &Starfarers, s: &State, seat: Seat, a: Action) -> State {
    match g.apply(s, seat, &a) {
        Ok(n) => n,
        Err(e) => panic!("{a:?} refused: {e}\nlegal: {:?}", g.legal_actions(s, seat)),
    }
}

pub(super) fn hand(carbon: u32, food: u32, fuel: u32, ore: u32, trade_goods: u32) -> Resources {
    Resources {
        carbon,
        food,
        fuel,
        ore,
        trade_goods,
    }
}

pub(super) fn set_chip(s: &mut State, p: usize, c: Chip) {
    s.planets[p].chip = Some(c);
    s.planets[p].revealed = false;
    s.planets[p].seen_by.clear();
}

pub(super) fn rng_with_d6(value: u8) -> GameRng {
    (0..10_000u64)
        .map(GameRng::seed_from_u64)
        .find(|r| r.clone().d6() == value)
        .unwrap()
}

#[test]
fn shipped_data_validates() {
    let g = game();
    assert_eq!(g.check_data(), Ok(()));
    let d = g.data();
    assert_eq!(d.nodes.len(), 577);
    assert_eq!(d.lines, 813);
    assert!(d.graph.is_connected());
}

/// The game with `legal_actions_complete` = true, so the harness also tries illegal
/// actions (offers outside the listed 1:1 swaps never appear in its samples).
struct Strict(Starfarers);

impl Game for Strict {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = render::View;
    fn info(&self) -> GameInfo {
        self.0.info()
    }
    fn setup(&self, o: &Options, n: usize, r: GameRng) -> Result<State, SetupError> {
        self.0.setup(o, n, r)
    }
    fn status(&self, s: &State) -> Status {
        self.0.status(s)
    }
    fn legal_actions(&self, s: &State, seat: Seat) -> Vec<Action> {
        self.0.legal_actions(s, seat)
    }
    fn apply(&self, s: &State, seat: Seat, a: &Action) -> Result<State, RuleError> {
        self.0.apply(s, seat, a)
    }
    fn view(&self, s: &State, v: Viewer) -> render::View {
        self.0.view(s, v)
    }
    fn action_visibility(&self, b: &State, seat: Seat, a: &Action) -> Visibility {
        self.0.action_visibility(b, seat, a)
    }
    fn describe_action(&self, s: &State, seat: Seat, a: &Action) -> String {
        self.0.describe_action(s, seat, a)
    }
    fn render_text(&self, s: &State, v: Viewer) -> String {
        self.0.render_text(s, v)
    }
    fn board_svg(&self, view: &render::View, people: &People) -> String {
        self.0.board_svg(view, people)
    }
    fn resample_hidden(&self, s: &State, v: Viewer, r: &mut GameRng) -> State {
        self.0.resample_hidden(s, v, r)
    }
}

/// State fields everyone sees. Everything else must be varied by `resample_hidden`: other
/// hands, face-down chips a viewer has not seen, the reserve pile and the unknown part of the
/// encounter deck, a pending offer's terms (for third parties), the fuller texts of private
/// log lines (peeked values, robbed cards, offer terms), and the RNG.
const PUBLIC: &[&str] = &[
    "options",
    "seats",
    // Mothership, fame, kept chips and friendship cards lie open; hands do not.
    "players[].boosters",
    "players[].cannons",
    "players[].freight_rings",
    "players[].fame",
    "players[].pirates",
    "players[].ice",
    // Whether a chip is face up, came from the reserve, and who has looked at it.
    "planets[].revealed",
    "deck_known_bottom",
    "discard",
    "buildings",
    "stations",
    "ships",
    "next_ship",
    "card_owner",
    "token",
    "current",
    "turn",
    "phase",
    "dice",
    "balls",
    "speed",
    "warp_available",
    "winner",
    // The public text of every log line, and who may read its fuller text.
    "log[].text",
    "log[].private[][]",
];

/// Public fields that are left out of the serialised state while empty or false (so a
/// short playout may never show them): friendship cards, the once-per-turn card flags,
/// reserve-born chips, who has looked at a chip, and who offers to whom (the log says so;
/// the terms are not public).
const PUBLIC_WHEN_PRESENT: &[&str] = &[
    "players[].cards",
    "players[].broker_used",
    "players[].patronage_used",
    "planets[].from_reserve",
    "planets[].seen_by",
    "offer.from",
    "offer.to",
];

/// `assert_resample_covers` with `PUBLIC` and those of `PUBLIC_WHEN_PRESENT` the playouts
/// met (the harness refuses a declared field that never occurs, to catch typos).
fn assert_covers(stats: &turnpost_engine::harness::PlayoutStats) {
    let met = |pre: &str| {
        stats.state_paths.iter().any(|p| {
            p == pre
                || p.strip_prefix(pre)
                    .is_some_and(|rest| rest.starts_with(['.', '[', '{']))
        })
    };
    let mut public = PUBLIC.to_vec();
    public.extend(PUBLIC_WHEN_PRESENT.iter().copied().filter(|p| met(p)));
    assert_resample_covers(stats, &public);
}

fn cfg(deep_every: usize) -> PlayoutConfig {
    PlayoutConfig {
        deep_every,
        ..PlayoutConfig::default()
    }
}

#[test]
fn contract_deep_3p_and_4p() {
    let g = Strict(game());
    let o = Options {
        turn_limit: Some(40),
    };
    let a = check_many(&g, &o, 3, 5, 1, &cfg(1));
    let b = check_many(&g, &o, 4, 5, 100, &cfg(1));
    eprintln!("{a:?}\n{b:?}");
    let mut all = a.clone();
    all.merge(b.clone());
    assert_covers(&all);
    assert!(all.invariant_checks > all.actions, "the invariants ran");
    // The game itself (offers beyond the list allowed) passes too.
    let c = check_many(&game(), &o, 4, 2, 300, &cfg(1));
    assert!(c.views_checked > 0);
    assert!(a.illegal_tried > 0 && b.illegal_tried > 0);
    assert!(a.private_log_entries > 0 && b.private_log_entries > 0);
}

#[test]
fn contract_many_3p() {
    let g = Strict(game());
    let o = Options {
        turn_limit: Some(TURNS),
    };
    let t = std::time::Instant::now();
    let a = check_many(&g, &o, 3, 160, 1000, &cfg(DEEP));
    eprintln!("3p {a:?} {:?}", t.elapsed());
    assert_covers(&a);
    assert!(a.views_checked > 0 && a.private_log_entries > 0);
}

#[test]
fn contract_many_4p() {
    let g = Strict(game());
    let o = Options {
        turn_limit: Some(TURNS),
    };
    let t = std::time::Instant::now();
    let a = check_many(&g, &o, 4, 160, 5000, &cfg(DEEP));
    eprintln!("4p {a:?} {:?}", t.elapsed());
    assert_covers(&a);
    assert!(a.views_checked > 0 && a.private_log_entries > 0);
}

const TURNS: u32 = 45;
const DEEP: usize = 25;

/// A few games without a turn limit: random play does reach 15 VP and wins.
#[test]
fn contract_natural_end() {
    let g = Strict(game());
    let o = Options::default();
    let a = check_many(&g, &o, 4, 4, 77, &cfg(200));
    let b = check_many(&g, &o, 3, 4, 88, &cfg(200));
    assert!(a.actions > 0 && b.actions > 0);
    let mut wins = 0;
    for seed in 77..81 {
        let p = random_playout(&g.0, &o, 4, seed, 20_000).unwrap_or_else(|e| panic!("{e}"));
        if p.state.winner.is_some() {
            wins += 1;
            let w = p.state.winner.unwrap_or(0);
            assert!(rules::vp(g.0.data(), &p.state, w) >= 15);
        }
    }
    assert!(wins > 0, "no random game reached 15 VP");
}

/// Long random games (400-turn cap) reach every kind of action and mostly end at 15 VP.
#[test]
fn random_play_reaches_every_feature() {
    let g = game();
    let o = Options {
        turn_limit: Some(400),
    };
    let mut counts = std::collections::BTreeMap::new();
    let mut wins = 0;
    let t = std::time::Instant::now();
    let mut actions = 0;
    for seed in 0..40 {
        let p = random_playout(&g, &o, 3 + (seed as usize % 2), seed, 20_000).unwrap();
        assert!(p.finished);
        actions += p.log.len();
        for (_, a) in &p.log {
            let k = serde_json::to_value(a).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string();
            *counts.entry(k).or_insert(0) += 1;
        }
        if let Some(w) = p.state.winner {
            wins += 1;
            assert!(rules::vp(g.data(), &p.state, w) >= 15);
        }
    }
    eprintln!(
        "{actions} actions in {:?}; {wins} wins; {counts:?}",
        t.elapsed()
    );
    assert!(wins >= 20, "only {wins} of 40 games reached 15 VP");
    for kind in [
        "roll",
        "discard",
        "steal",
        "no_steal",
        "take_supply",
        "bank_trade",
        "offer_trade",
        "accept_offer",
        "decline_offer",
        "withdraw_offer",
        "build_colony_ship",
        "build_trade_ship",
        "build_spaceport",
        "build_booster",
        "build_cannon",
        "build_freight_ring",
        "launch",
        "encounter_pay",
        "encounter_fight",
        "encounter_decline",
        "encounter_take",
        "fly",
        "clear_pirates",
        "terraform",
        "found_colony",
        "found_trade_station",
        "take_friendship_card",
        "end_turn",
    ] {
        assert!(
            counts.get(kind).copied().unwrap_or(0) > 0,
            "random play never used {kind}"
        );
    }
}
