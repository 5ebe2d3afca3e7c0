//! The rules of version 2, and that version 1 games keep version 1's rules.

use super::*;
use turnpost_engine::harness::random_playout;

/// A retreat hex farther from the nearest colony (the Homeworld) but no farther from a
/// second, more distant colony. Returns (state, group, battle hex, that neighbour).
fn retreat_case(version: u32) -> (State, u32, usize, usize) {
    let mut s = started(2);
    s.rules_version = version;
    s.groups.clear();
    let hw = s.players[0].homeworld.unwrap();
    let far = at(&s, 12, 3);
    s.colonies.push(Colony {
        owner: 0,
        pos: far,
        homeworld: false,
        value: 3,
        deposits: Vec::new(),
    });
    let h = at(&s, 6, 3);
    assert!(
        s.distance(h, hw) < s.distance(h, far),
        "the Homeworld is nearest"
    );
    for n in s.neighbours(h) {
        s.cells[n].explored = true;
        s.cells[n].marker = Marker::Empty;
    }
    let n = s
        .neighbours(h)
        .into_iter()
        .find(|n| {
            s.distance(*n, hw) > s.distance(h, hw) && s.distance(*n, far) <= s.distance(h, far)
        })
        .expect("a neighbour away from the Homeworld but toward the colony");
    let (x, y) = s.xy(h);
    let bc = add(&mut s, 0, UnitKind::Battlecruiser, 1, x, y);
    (s, bc, h, n)
}

#[test]
fn retreat_toward_any_own_colony_not_only_the_nearest() {
    let (s, bc, h, n) = retreat_case(RULES_VERSION);
    let hexes = combat::retreat_hexes(&s, d(), s.group(bc).unwrap());
    assert!(hexes.contains(&n), "{hexes:?}");
    // A hex that moves away from every colony stays closed.
    let cols: Vec<usize> = s
        .colonies
        .iter()
        .filter(|c| c.owner == 0)
        .map(|c| c.pos)
        .collect();
    for m in s.neighbours(h) {
        let toward = cols.iter().any(|c| s.distance(m, *c) <= s.distance(h, *c));
        assert_eq!(hexes.contains(&m), toward, "{m}");
    }
}

#[test]
fn version_1_games_retreat_only_toward_the_nearest_colony() {
    let (s, bc, _, n) = retreat_case(1);
    let hexes = combat::retreat_hexes(&s, d(), s.group(bc).unwrap());
    assert!(!hexes.contains(&n), "{hexes:?}");
}

/// Seat 0's 3-CP colony at (3,1) is blockaded by a seat 1 destroyer; seat 0 has CP.
fn blockaded_econ(version: u32) -> State {
    let mut s = started(2);
    s.rules_version = version;
    s.groups
        .retain(|g| g.owner == 0 && g.pos == s.players[0].homeworld.unwrap());
    let p = at(&s, 3, 1);
    s.colonies.push(Colony {
        owner: 0,
        pos: p,
        homeworld: false,
        value: 3,
        deposits: Vec::new(),
    });
    add(&mut s, 1, UnitKind::Destroyer, 1, 3, 1);
    s.players[0].cp = 30;
    s.players[0].tech[Tech::ShipSize as usize] = 2;
    econ::start_econ(&mut s, d());
    assert_eq!(s.drafts[0].blockaded, vec![p]);
    s
}

#[test]
fn no_base_or_shipyard_at_a_blockaded_colony() {
    let s = blockaded_econ(RULES_VERSION);
    let acts = G.legal_actions(&s, 0);
    for unit in [UnitKind::Base, UnitKind::Shipyard] {
        let build = Action::Build { unit, x: 3, y: 1 };
        assert!(!acts.contains(&build), "{unit:?}");
        let e = G.apply(&s, 0, &build).unwrap_err();
        assert!(e.message.contains("blockaded"), "{e}");
    }
    // Decoys need no income-producing colony; the Homeworld still takes a base.
    assert!(acts.contains(&Action::Build {
        unit: UnitKind::Decoy,
        x: 3,
        y: 1
    }));
    assert!(acts.contains(&Action::Build {
        unit: UnitKind::Base,
        x: 6,
        y: 0
    }));
}

#[test]
fn version_1_games_still_build_at_a_blockaded_colony() {
    let s = blockaded_econ(1);
    let acts = G.legal_actions(&s, 0);
    for unit in [UnitKind::Base, UnitKind::Shipyard] {
        assert!(
            acts.contains(&Action::Build { unit, x: 3, y: 1 }),
            "{unit:?}"
        );
    }
}

#[test]
fn default_options_cap_the_game_and_show_the_cap_in_the_schema() {
    assert_eq!(Options::default().round_cap, Some(DEFAULT_ROUND_CAP));
    let o: Options = serde_json::from_str("{}").unwrap();
    assert_eq!(o.round_cap, Some(DEFAULT_ROUND_CAP));
    // An explicit null still means "until one Homeworld remains".
    let o: Options = serde_json::from_str(r#"{"round_cap": null}"#).unwrap();
    assert_eq!(o.round_cap, None);
    let schema = serde_json::to_value(schemars::schema_for!(Options)).unwrap();
    assert_eq!(
        schema["properties"]["round_cap"]["default"],
        serde_json::json!(DEFAULT_ROUND_CAP),
        "{schema}"
    );
    let s = G
        .setup(&Options::default(), 2, GameRng::seed_from_u64(1))
        .unwrap();
    assert_eq!(s.round_cap, Some(DEFAULT_ROUND_CAP));
    assert_eq!(s.rules_version, RULES_VERSION);
}

#[test]
fn random_games_with_default_options_end() {
    for (seats, seed) in [(2, 1), (2, 2), (3, 3), (4, 4)] {
        let p = random_playout(&G, &Options::default(), seats, seed, 200_000).unwrap();
        assert!(
            p.finished,
            "{seats} seats, seed {seed}: round {} after {} actions",
            p.state.round,
            p.log.len()
        );
        assert!(p.state.round <= DEFAULT_ROUND_CAP);
    }
}

#[test]
fn rules_versions_old_snapshots_decode_as_version_1() {
    assert_eq!(G.info().rules_version, RULES_VERSION);
    assert_eq!(G.replays_rules_versions(), 1..=RULES_VERSION);
    let s = started(2);
    let mut v = serde_json::to_value(&s).unwrap();
    assert_eq!(v["rules_version"], RULES_VERSION);
    v.as_object_mut().unwrap().remove("rules_version");
    let old: State = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(old.rules_version, 1);
    // A version 1 snapshot re-encodes byte for byte.
    assert_eq!(serde_json::to_value(&old).unwrap(), v);
}
