//! Hidden levels, face-down fleets, orders and plans stay hidden from other
//! seats and spectators, in views, texts, the log and descriptions; and `resample_hidden`
//! varies every one of them, so the contract's leak check can catch a leak.

use super::*;
use turnpost_engine::harness::{PlayoutConfig, check_playout};
use turnpost_engine::{RuleError, SetupError};

/// Seat 0's destroyers attack seat 1's Homeworld, guarded by its starting shipyards x4.
/// Seat 1's secret levels are set as given.
fn shipyard_battle(tactics: u8, attack: u8) -> State {
    let mut s = started(2);
    s.groups
        .retain(|g| g.owner == 1 && g.kind == UnitKind::Shipyard);
    s.players[1].tech[Tech::Tactics as usize] = tactics;
    s.players[1].tech[Tech::Attack as usize] = attack;
    let hw = s.players[1].homeworld.unwrap();
    let (x, y) = s.xy(hw);
    add(&mut s, 0, UnitKind::Destroyer, 3, x, y);
    s.phase = Phase::Combat;
    let fight = Action::Fight { x, y, defender: 1 };
    assert!(G.legal_actions(&s, 0).contains(&fight));
    G.apply(&s, 0, &fight).unwrap()
}

/// Both sides submit their first plan as it stands, so round 1 is fought.
fn first_round_fought(mut s: State) -> State {
    while s.battle.as_ref().is_some_and(|b| b.round == 1) {
        let seat = G.status(&s).to_act()[0];
        s = G.apply(&s, seat, &Action::SubmitPlan).unwrap();
    }
    s
}

fn others_see(s: &State) -> Vec<String> {
    [Viewer::Seat(0), Viewer::Spectator]
        .into_iter()
        .flat_map(|v| [json(&G.view(s, v)), G.render_text(s, v)])
        .collect()
}

#[test]
fn leak_battle_log_hides_current_levels_of_shipyards() {
    // Shipyards (class C) fire before destroyers (class D) whatever the tactics, so a
    // different secret tactics level changes nothing anyone may see.
    let low = shipyard_battle(0, 0);
    let high = shipyard_battle(2, 0);
    assert!(
        low.events.iter().any(|e| e.text.contains("Battle at")),
        "{:?}",
        low.events
    );
    assert_eq!(others_see(&low), others_see(&high));
    for e in &high.events {
        assert!(!e.text.contains("tac 2"), "{}", e.text);
        assert!(!e.text.contains("shipyardx4 ("), "{}", e.text);
    }
}

#[test]
fn leak_to_hit_numbers_that_tell_current_levels_stay_out_of_the_log() {
    let s = first_round_fought(shipyard_battle(0, 1));
    let fire: Vec<&Event> = s
        .events
        .iter()
        .filter(|e| e.text.contains("fires at"))
        .collect();
    assert!(!fire.is_empty(), "{:?}", s.events);
    // A shipyard's attack and defense are its owner's current levels.
    for e in fire {
        assert!(!e.text.contains(" vs "), "{}", e.text);
    }
    // Revealed ships with built tech keep their public to-hit numbers.
    let (mut t, _, _) = battle_state(
        &[(UnitKind::Destroyer, 3, 0)],
        &[(UnitKind::Scout, 1, 0)],
        Marker::Empty,
    );
    let fight = Action::Fight {
        x: 6,
        y: 3,
        defender: 1,
    };
    t = first_round_fought(G.apply(&t, 0, &fight).unwrap());
    assert!(
        t.events
            .iter()
            .any(|e| e.text.contains("fires at") && e.text.contains(" vs ")),
        "{:?}",
        t.events
    );
    assert!(
        t.events
            .iter()
            .any(|e| e.text.contains("destroyerx3 (att 0 def 0 tac 0)")),
        "{:?}",
        t.events
    );
}

#[test]
fn leak_bombardment_by_face_down_ships_hides_their_to_hit() {
    let mut s = started(2);
    s.groups.retain(|g| g.owner == 0);
    let hw = s.players[1].homeworld.unwrap();
    let (x, y) = s.xy(hw);
    add(&mut s, 0, UnitKind::Cruiser, 2, x, y);
    s.phase = Phase::Combat;
    let n = G.apply(&s, 0, &Action::Bombard { x, y }).unwrap();
    let lines: Vec<&Event> = n
        .events
        .iter()
        .filter(|e| e.text.contains("Bombardment"))
        .collect();
    assert_eq!(lines.len(), 2, "one public roll per ship");
    assert!(lines.iter().all(|e| !e.text.contains(" vs ")));
}

#[test]
fn leak_which_counter_peeks_stays_with_its_owner() {
    let mut s = started(2);
    let c = add(&mut s, 0, UnitKind::Cruiser, 1, 6, 2);
    s.group_mut(c).unwrap().special = true;
    let a = G
        .legal_actions(&s, 0)
        .into_iter()
        .find(|a| matches!(a, Action::Peek { .. }))
        .unwrap();
    let Visibility::Private { public_form, .. } = G.action_visibility(&s, 0, &a) else {
        panic!("a peek names its cruiser")
    };
    assert_eq!(public_form, serde_json::json!({"type": "secret_move_step"}));
}

// ------------------------------------------------------------ resample coverage

#[test]
fn resample_varies_levels_fleets_orders_and_plans_of_others_only() {
    let mut s = shipyard_battle(1, 1);
    // Give the defender a plan and a face-down fleet elsewhere, and seat 1 a draft.
    let hidden = add(&mut s, 1, UnitKind::Cruiser, 2, 3, 5);
    s.drafts[1].lines = vec![OrderLine::Research { tech: Tech::Attack }];
    s.last_orders[1] = vec![OrderLine::Research {
        tech: Tech::Defense,
    }];
    s.log_private(1, "Your orders: research attack 2.");
    let mut rng = GameRng::seed_from_u64(5);
    let (mut tech, mut fleet, mut drafts, mut orders, mut lines) = (0, 0, 0, 0, 0);
    for _ in 0..50 {
        let r = G.resample_hidden(&s, Viewer::Seat(0), &mut rng);
        tech += usize::from(r.players[1].tech != s.players[1].tech);
        let g = r.group(hidden).unwrap();
        fleet += usize::from(g.kind != UnitKind::Cruiser || g.count != 2);
        drafts += usize::from(r.drafts[1] != s.drafts[1]);
        orders += usize::from(r.last_orders[1] != s.last_orders[1]);
        lines += usize::from(r.events != s.events);
        // The viewer's own world is untouched.
        assert_eq!(r.players[0], s.players[0]);
        assert_eq!(r.drafts[0], s.drafts[0]);
        assert_eq!(r.last_orders[0], s.last_orders[0]);
        assert_eq!(
            json(&G.view(&r, Viewer::Seat(0))),
            json(&G.view(&s, Viewer::Seat(0)))
        );
        assert_eq!(
            G.render_text(&r, Viewer::Seat(0)),
            G.render_text(&s, Viewer::Seat(0))
        );
        assert_eq!(G.legal_actions(&r, 0), G.legal_actions(&s, 0));
        // Revealed groups stay as everyone saw them.
        for g in s.groups.iter().filter(|g| g.face_up) {
            assert_eq!(
                r.group(g.id).map(|h| (h.kind, h.count)),
                Some((g.kind, g.count))
            );
        }
    }
    assert!(tech > 40 && fleet > 40 && drafts > 40 && orders > 20 && lines > 40);
}

#[test]
fn resample_varies_the_other_sides_combat_plan() {
    let (mut s, _, _) = battle_state(
        &[(UnitKind::Scout, 4, 0), (UnitKind::Scout, 1, 0)],
        &[(UnitKind::Destroyer, 1, 0), (UnitKind::Scout, 1, 0)],
        Marker::Empty,
    );
    s = G
        .apply(
            &s,
            0,
            &Action::Fight {
                x: 6,
                y: 3,
                defender: 1,
            },
        )
        .unwrap();
    let b = s
        .battle
        .as_ref()
        .expect("a battle with choices on both sides");
    assert!(!b.plans[0].submitted);
    let mut rng = GameRng::seed_from_u64(3);
    let changed = (0..30)
        .filter(|_| {
            let r = G.resample_hidden(&s, Viewer::Seat(1), &mut rng);
            let rb = r.battle.as_ref().unwrap();
            assert_eq!(rb.plans[1], b.plans[1], "the viewer's own plan stays");
            rb.plans[0] != b.plans[0]
        })
        .count();
    assert!(changed > 10);
}

// ------------------------------------- the leak check catches a log with current levels

/// A battle line that leaks: the owner's current levels for every group, shipyards
/// included.
fn old_battle_line(s: &State, g: &Group) -> String {
    format!(
        "#{} Seat {} {}x{} (att {} def {} tac {})",
        g.id,
        g.owner + 1,
        g.kind.name(),
        g.count,
        rules::eff_tech(s, g, Tech::Attack),
        rules::eff_tech(s, g, Tech::Defense),
        rules::eff_tech(s, g, Tech::Tactics)
    )
}

/// Space Empires 4X whose views also show one battle-log line for every shipyard on the
/// map, written by `line`. With `old_battle_line` this leaks the owner's secret levels.
struct PlantedLog(fn(&State, &Group) -> String);

/// The game's view with the planted lines beside it (flattened, so the view keeps its
/// common fields where the contract harness reads them).
#[derive(serde::Serialize, schemars::JsonSchema)]
struct PlantedView {
    #[serde(flatten)]
    view: render::View,
    planted: Vec<String>,
}

impl Game for PlantedLog {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = PlantedView;

    fn info(&self) -> GameInfo {
        G.info()
    }
    fn setup(&self, _: &Options, seats: usize, _: GameRng) -> Result<State, SetupError> {
        let mut s = started(seats);
        s.round_cap = Some(1);
        Ok(s)
    }
    fn status(&self, s: &State) -> Status {
        G.status(s)
    }
    fn legal_actions(&self, s: &State, seat: Seat) -> Vec<Action> {
        G.legal_actions(s, seat)
    }
    fn apply(&self, s: &State, seat: Seat, a: &Action) -> Result<State, RuleError> {
        G.apply(s, seat, a)
    }
    fn view(&self, s: &State, viewer: Viewer) -> Self::View {
        let lines = s
            .groups
            .iter()
            .filter(|g| g.kind == UnitKind::Shipyard)
            .map(|g| (self.0)(s, g))
            .collect();
        PlantedView {
            view: G.view(s, viewer),
            planted: lines,
        }
    }
    fn action_visibility(&self, s: &State, seat: Seat, a: &Action) -> Visibility {
        G.action_visibility(s, seat, a)
    }
    fn describe_action(&self, s: &State, seat: Seat, a: &Action) -> String {
        G.describe_action(s, seat, a)
    }
    fn render_text(&self, s: &State, viewer: Viewer) -> String {
        G.render_text(s, viewer)
    }
    fn resample_hidden(&self, s: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        G.resample_hidden(s, viewer, rng)
    }
}

#[test]
fn contract_run_fails_with_the_old_battle_log_and_passes_with_the_new() {
    let cfg = PlayoutConfig {
        max_actions: 20_000,
        optional_action_percent: 5,
        deep_every: 1,
        round_trip_every: 1,
        has_hidden_information: true,
    };
    let old = check_playout(
        &PlantedLog(old_battle_line),
        &Options::default(),
        2,
        1,
        &cfg,
    );
    let e = old.expect_err("a log with current levels shows what resampling varies");
    assert!(
        e.contains("changed when only hidden information changed"),
        "{e}"
    );
    let new = check_playout(
        &PlantedLog(combat::describe_group),
        &Options::default(),
        2,
        1,
        &cfg,
    );
    assert!(new.is_ok(), "{new:?}");
}
