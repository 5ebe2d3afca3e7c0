//! `resample_hidden` may use only what the viewer can know. A resample that keeps a card
//! stolen from the viewer in the thief's hand "while the thief still holds it", checked
//! against the thief's real hand, uses more; it is planted here, so the contract's generic
//! check is shown to catch it, and the game's own resample to pass the same playouts.

use super::super::state::StealRecord;
use super::*;
use turnpost_engine::harness::check_playout;
use turnpost_engine::{RuleError, SetupError, Status};

/// SP4X with that resample pinning the real hand (everything else delegated).
struct PinsRealHand;

fn resample_pinning_the_real_hand(st: &State, viewer: Viewer, rng: &mut GameRng) -> State {
    let mut out = st.clone();
    let me = viewer.seat();
    let mut pinned: Vec<Vec<Card>> = vec![Vec::new(); out.players.len()];
    if let Some(m) = me {
        let mine = |r: &&StealRecord| r.age == st.age && r.victim == m && r.thief != m;
        for r in st.steals.iter().filter(mine) {
            let held = st.players[r.thief]
                .hand
                .iter()
                .filter(|&&c| c == r.card)
                .count();
            let pin = &mut pinned[r.thief];
            if pin.iter().filter(|&&c| c == r.card).count() < held {
                pin.push(r.card);
            }
        }
    }
    let mut pool: Vec<Card> = Vec::new();
    let mut sizes = Vec::new();
    for (s, p) in out.players.iter_mut().enumerate() {
        if Some(s) == me {
            sizes.push(0);
            continue;
        }
        sizes.push(p.hand.len() - pinned[s].len());
        let mut kept = pinned[s].clone();
        for c in p.hand.drain(..) {
            match kept.iter().position(|&k| k == c) {
                Some(i) => {
                    kept.swap_remove(i);
                }
                None => pool.push(c),
            }
        }
    }
    let deck_mid = out.deck.len().saturating_sub(2);
    pool.extend(out.deck.drain(1..1 + deck_mid));
    pool.sort_unstable();
    rng.shuffle(&mut pool);
    let mut mid: Vec<Card> = pool.split_off(pool.len() - deck_mid);
    for (s, p) in out.players.iter_mut().enumerate() {
        if Some(s) != me {
            p.hand = pool.split_off(pool.len() - sizes[s]);
            p.hand.extend(&pinned[s]);
            p.hand.sort_unstable();
        }
    }
    mid.extend(out.deck.split_off(out.deck.len().min(1)));
    out.deck.extend(mid);
    // The rest as the game's own resample does it.
    let today = Sp4x.resample_hidden(st, viewer, rng);
    out.tile_stack = today.tile_stack;
    out.steals = today.steals;
    out.rng = today.rng;
    out
}

impl Game for PinsRealHand {
    type Options = Options;
    type State = State;
    type Action = Action;
    type View = View;

    fn info(&self) -> turnpost_engine::GameInfo {
        Sp4x.info()
    }
    fn setup(&self, o: &Options, seats: usize, rng: GameRng) -> Result<State, SetupError> {
        Sp4x.setup(o, seats, rng)
    }
    fn status(&self, s: &State) -> Status {
        Sp4x.status(s)
    }
    fn legal_actions(&self, s: &State, seat: Seat) -> Vec<Action> {
        Sp4x.legal_actions(s, seat)
    }
    fn apply(&self, s: &State, seat: Seat, a: &Action) -> Result<State, RuleError> {
        Sp4x.apply(s, seat, a)
    }
    fn view(&self, s: &State, viewer: Viewer) -> View {
        Sp4x.view(s, viewer)
    }
    fn describe_action(&self, s: &State, seat: Seat, a: &Action) -> String {
        Sp4x.describe_action(s, seat, a)
    }
    fn render_text(&self, s: &State, viewer: Viewer) -> String {
        Sp4x.render_text(s, viewer)
    }
    fn resample_hidden(&self, s: &State, viewer: Viewer, rng: &mut GameRng) -> State {
        resample_pinning_the_real_hand(s, viewer, rng)
    }
}

#[test]
fn the_contract_catches_a_resample_that_reads_the_thiefs_real_hand() {
    let cfg = PlayoutConfig::default();
    let caught = (1..=10u64)
        .find_map(|seed| check_playout(&PinsRealHand, &Options::default(), 3, seed, &cfg).err());
    let e = caught.expect("the planted resample is caught in one of ten playouts");
    assert!(
        e.contains("depends on more than the viewer can know"),
        "{e}"
    );
    // The game's own resample passes the same playouts (the contract tests run many more).
    for seed in 1..=3u64 {
        let today = check_playout(&Sp4x, &Options::default(), 3, seed, &cfg);
        assert!(today.is_ok(), "{today:?}");
    }
}

/// Two positions the same to the victim, the thief still holding the stolen
/// card in one and not in the other. The victim's worlds are drawn alike from both.
#[test]
fn the_victims_worlds_do_not_follow_the_thiefs_real_hand() {
    let (st, rec) = (0..60u64)
        .find_map(|seed| {
            let p = random_playout(&Sp4x, &Options::default(), 3, seed, 400).ok()?;
            let mut s = Sp4x
                .setup(&Options::default(), 3, GameRng::seed_from_u64(seed))
                .ok()?;
            for (seat, a) in &p.log {
                s = Sp4x.apply(&s, *seat, a).ok()?;
                if let Action::DrawFrom { .. } = a {
                    let r = s.steals.last()?.clone();
                    // The thief holds one such card, and a third player another card to
                    // swap it for.
                    let copies = s.players[r.thief].hand.iter().filter(|&&c| c == r.card);
                    let third = (0..3).find(|&t| t != r.thief && t != r.victim)?;
                    let swappable = s.players[third].hand.iter().any(|&c| c != r.card);
                    if copies.count() == 1 && swappable {
                        return Some((s, r));
                    }
                }
            }
            None
        })
        .expect("a steal in random play");
    // The same position to the victim, but a third player holds the stolen card instead.
    let third = (0..3).find(|&t| t != rec.thief && t != rec.victim).unwrap();
    let mut moved = st.clone();
    let swap = *moved.players[third]
        .hand
        .iter()
        .find(|&&c| c != rec.card)
        .unwrap();
    let at = moved.players[rec.thief]
        .hand
        .iter()
        .position(|&c| c == rec.card)
        .unwrap();
    moved.players[rec.thief].hand[at] = swap;
    moved.players[rec.thief].hand.sort_unstable();
    let at = moved.players[third]
        .hand
        .iter()
        .position(|&c| c == swap)
        .unwrap();
    moved.players[third].hand[at] = rec.card;
    moved.players[third].hand.sort_unstable();
    let view = |s: &State| serde_json::to_string(&Sp4x.view(s, Viewer::Seat(rec.victim))).unwrap();
    assert_eq!(view(&st), view(&moved));
    let holds = |s: &State, seed: u64, game: &dyn Fn(&State, &mut GameRng) -> State| {
        let w = game(s, &mut GameRng::seed_from_u64(seed));
        w.players[rec.thief].hand.contains(&rec.card)
    };
    let today = |s: &State, r: &mut GameRng| Sp4x.resample_hidden(s, Viewer::Seat(rec.victim), r);
    let planted =
        |s: &State, r: &mut GameRng| resample_pinning_the_real_hand(s, Viewer::Seat(rec.victim), r);
    let count = |s: &State, g: &dyn Fn(&State, &mut GameRng) -> State| {
        (0..64).filter(|&seed| holds(s, seed, g)).count()
    };
    // The planted resample tells the two positions apart: always in one world set.
    assert_eq!(count(&st, &planted), 64);
    assert!(count(&moved, &planted) < 64);
    // The game's own resample draws the same worlds from both.
    for seed in 0..64 {
        let a = today(&st, &mut GameRng::seed_from_u64(seed));
        let b = today(&moved, &mut GameRng::seed_from_u64(seed));
        assert_eq!(a, b, "seed {seed}");
    }
}
