//! The invariant hooks are real checks: each broken state or step below is refused.

use super::*;

/// A named way to break a fresh state.
type Breaker = Box<dyn Fn(&mut State)>;

fn broken(f: impl Fn(&mut State)) -> Result<(), String> {
    let mut s = started(2);
    assert_eq!(G.check_invariants(&s), Ok(()));
    f(&mut s);
    G.check_invariants(&s)
}

#[test]
fn invariants_hold_on_a_fresh_game_and_refuse_broken_states() {
    let cases: Vec<(&str, Breaker)> = vec![
        ("negative CP", Box::new(|s| s.players[0].cp = -1)),
        (
            "CP above the carry-over cap",
            Box::new(|s| s.players[1].cp = 31),
        ),
        (
            "tech beyond its maximum",
            Box::new(|s| s.players[0].tech[Tech::Attack as usize] = 4),
        ),
        (
            "counter limit",
            Box::new(|s| {
                for _ in 0..3 {
                    add(s, 0, UnitKind::Scout, 1, 6, 1);
                }
            }),
        ),
        (
            "group of seven",
            Box::new(|s| {
                add(s, 0, UnitKind::Destroyer, 7, 6, 1);
            }),
        ),
        (
            "empty group",
            Box::new(|s| {
                add(s, 0, UnitKind::Destroyer, 0, 6, 1);
            }),
        ),
        (
            "damage left after a battle",
            Box::new(|s| {
                let g = add(s, 0, UnitKind::Cruiser, 1, 6, 1);
                s.group_mut(g).unwrap().damage = 1;
            }),
        ),
        (
            "reused id",
            Box::new(|s| {
                let mut g = s.groups[0].clone();
                g.pos = at(s, 6, 1);
                s.groups.push(g);
            }),
        ),
        (
            "colony worth 2",
            Box::new(|s| {
                let p = at(s, 3, 1);
                s.colonies.push(Colony {
                    owner: 0,
                    pos: p,
                    homeworld: false,
                    value: 2,
                    deposits: Vec::new(),
                });
            }),
        ),
        (
            "alive without a Homeworld",
            Box::new(|s| s.colonies.retain(|c| c.owner != 1)),
        ),
        (
            "fleets of two owners in one hex outside combat",
            Box::new(|s| {
                add(s, 0, UnitKind::Destroyer, 1, 6, 4);
                add(s, 1, UnitKind::Destroyer, 1, 6, 4);
                s.phase = Phase::Econ;
            }),
        ),
    ];
    for (what, f) in cases {
        assert!(broken(f).is_err(), "{what} was not caught");
    }
    // The same two fleets are fine while the mover's turn lasts.
    assert_eq!(
        broken(|s| {
            add(s, 0, UnitKind::Destroyer, 1, 6, 4);
            add(s, 1, UnitKind::Destroyer, 1, 6, 4);
        }),
        Ok(())
    );
}

#[test]
fn step_invariants_refuse_broken_transitions() {
    let s = started(2);
    let a = Action::EndMovement;
    let next = G.apply(&s, 0, &a).unwrap();
    assert_eq!(G.check_step(&s, 0, &a, &next), Ok(()));
    let mut up = s.clone();
    up.players[0].tech[Tech::Movement as usize] = 2;
    assert!(G.check_step(&up, 0, &a, &next).is_err(), "tech went down");
    let mut back = next.clone();
    back.round = 0;
    assert!(G.check_step(&s, 0, &a, &back).is_err(), "round went back");
    let mut reborn = s.clone();
    reborn.players[1].alive = false;
    assert!(G.check_step(&reborn, 0, &a, &next).is_err(), "back to life");
    let mut reused = next.clone();
    let mut g = reused.groups[0].clone();
    let old_id = g.id;
    reused.groups.retain(|h| h.id != old_id);
    let mut before = s.clone();
    before.groups.retain(|h| h.id != old_id);
    g.id = old_id;
    reused.groups.push(g);
    assert!(G.check_step(&before, 0, &a, &reused).is_err(), "id reused");
    let mut capped = next.clone();
    capped.round_cap = Some(99);
    assert!(
        G.check_step(&s, 0, &a, &capped).is_err(),
        "settings changed"
    );
}
