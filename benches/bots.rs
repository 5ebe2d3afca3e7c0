//! The computer player against random players: `cargo bench --bench bots`.
//!
//! For each game type, plays BOT_GAMES (default 1,000) games with one bot seat (seat
//! `game % seats`, so it sits everywhere in turn) and random players in the others, and
//! prints the bot's win rate with a 95 % (Wilson) interval next to what a random player
//! wins (1 / players, or 1 / teams), the games per second and the median decision time.
//! A shared first place counts as a share of a win; a game still running after
//! BOT_MAX_ACTIONS actions counts as no win and is reported.
//!
//! Environment: BOT_GAMES (games per type), BOT_ONLY (comma-separated game ids),
//! BOT_THREADS (default: every core), BOT_SECONDS (wall-clock allowance per game type,
//! default 150: a type that cannot play all its games in it says how many it played),
//! BOT_MAX_ACTIONS (default 20,000).

// A benchmark is a test: it may panic on what it set up itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use turnpost::engine::bot::{BotBudget, RECENT, choose_action};
use turnpost::engine::{DynGame, GameRng, Outcome, Seat, Status};
use turnpost::games::Registry;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What one game gave the bot.
struct Result1 {
    /// 1 for a win, 1/k for a first place shared by k, else 0.
    win: f64,
    finished: bool,
    actions: usize,
    decisions: Vec<Duration>,
}

/// How many seats a game type is benchmarked with, and how many sides that makes.
fn table(id: &str, min: usize) -> (usize, usize) {
    match id {
        // Two teams of two.
        "partners" => (4, 2),
        _ => {
            let n = min.max(2);
            (n, n)
        }
    }
}

fn bot_share(outcome: &Outcome, seat: Seat) -> f64 {
    if outcome.teams.is_empty() {
        let winners = outcome.winners();
        if winners.contains(&seat) {
            1.0 / winners.len() as f64
        } else {
            0.0
        }
    } else {
        let first: Vec<_> = outcome.teams.iter().filter(|t| t.rank == 1).collect();
        if first.iter().any(|t| t.seats.contains(&seat)) {
            1.0 / first.len() as f64
        } else {
            0.0
        }
    }
}

fn play_one(g: &dyn DynGame, seats: usize, index: usize, max_actions: usize) -> Result1 {
    let id = g.info().id;
    let bot = index % seats;
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&(index as u64).to_le_bytes());
    seed[8] = 0xb0;
    let mut state = match g.setup(&Value::Null, seats, seed) {
        Ok(s) => s,
        Err(e) => panic!("{id}: setup: {e}"),
    };
    let mut rng = GameRng::from_seed(seed);
    let mut decisions = Vec::new();
    let mut actions = 0;
    let budget = BotBudget::for_game(id);
    // The game's latest actions, which the computer is shown as the server shows them.
    let mut recent: Vec<(usize, Value)> = Vec::new();
    while actions < max_actions {
        let Status::Active { to_act } = state.status() else {
            break;
        };
        let Some(&actor) = rng.pick(&to_act) else {
            break;
        };
        // The computer waiting for an answer to its offer: the recipient (a random
        // player here) answers, as the server lets it.
        let actor = if actor == bot && state.bot_waits(actor, &recent) {
            let others: Vec<usize> = (0..seats)
                .filter(|&s| s != bot && state.has_legal_actions(s))
                .collect();
            match rng.pick(&others) {
                Some(&s) => s,
                None => panic!("{id}: the bot waits for nobody"),
            }
        } else {
            actor
        };
        let legal = state.legal_actions(actor);
        let action = if actor == bot {
            let mut bot_seed = [0u8; 32];
            for chunk in bot_seed.chunks_mut(8) {
                chunk.copy_from_slice(&rng.next_u64().to_le_bytes());
            }
            let started = Instant::now();
            let chosen = choose_action(state.as_ref(), actor, bot_seed, budget, &recent);
            if legal.len() > 1 {
                decisions.push(started.elapsed());
            }
            match chosen {
                Some(a) => a,
                None => panic!("{id}: the bot had nothing for seat {actor} with {legal:?}"),
            }
        } else {
            match rng.pick(&legal) {
                Some(a) => a.clone(),
                None => panic!("{id}: seat {actor} to act with no legal action"),
            }
        };
        state = match state.apply(actor, &action) {
            Ok(a) => a.state,
            Err(e) => panic!("{id}: {action} refused: {e}"),
        };
        recent.push((actor, action));
        if recent.len() > RECENT {
            recent.remove(0);
        }
        actions += 1;
    }
    match state.status() {
        Status::Finished(outcome) => Result1 {
            win: bot_share(&outcome, bot),
            finished: true,
            actions,
            decisions,
        },
        Status::Active { .. } => Result1 {
            win: 0.0,
            finished: false,
            actions,
            decisions,
        },
    }
}

/// Wilson score interval for a proportion, 95 %.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    if n == 0.0 {
        return (0.0, 1.0);
    }
    let z = 1.96;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

fn main() {
    let games = env_usize("BOT_GAMES", 1000);
    let threads = env_usize(
        "BOT_THREADS",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
    )
    .max(1);
    let allowance = Duration::from_secs(env_usize("BOT_SECONDS", 150) as u64);
    let max_actions = env_usize("BOT_MAX_ACTIONS", 20_000);
    let only: Option<Vec<String>> = std::env::var("BOT_ONLY")
        .ok()
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let registry = Registry::standard();
    println!(
        "bot vs random: {games} games per type, {threads} threads, {}s allowance per type",
        allowance.as_secs()
    );
    println!(
        "{:<17} {:>6} {:>5} {:>9} {:>16} {:>8} {:>7} {:>10} {:>10} {:>9}",
        "game",
        "played",
        "seats",
        "bot wins",
        "95% interval",
        "random",
        "games/s",
        "decide p50",
        "decide max",
        "unfinished"
    );
    for g in registry.all() {
        let info = g.info();
        if only
            .as_ref()
            .is_some_and(|o| !o.iter().any(|x| x == info.id))
        {
            continue;
        }
        let (seats, sides) = table(info.id, info.min_players);
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Result1>> = Mutex::new(Vec::new());
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    loop {
                        if started.elapsed() > allowance {
                            break;
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= games {
                            break;
                        }
                        let r = play_one(g.as_ref(), seats, i, max_actions);
                        if let Ok(mut all) = results.lock() {
                            all.push(r);
                        }
                    }
                });
            }
        });
        let elapsed = started.elapsed();
        let results = results.into_inner().unwrap_or_default();
        let n = results.len();
        let wins: f64 = results.iter().map(|r| r.win).sum();
        let unfinished = results.iter().filter(|r| !r.finished).count();
        let actions: usize = results.iter().map(|r| r.actions).sum();
        let mut times: Vec<Duration> = results
            .iter()
            .flat_map(|r| r.decisions.iter().copied())
            .collect();
        times.sort_unstable();
        let median = times.get(times.len() / 2).copied().unwrap_or_default();
        let max = times.last().copied().unwrap_or_default();
        let rate = if n > 0 { wins / n as f64 } else { 0.0 };
        let (lo, hi) = wilson(rate, n as f64);
        println!(
            "{:<17} {:>6} {:>5} {:>8.1}% {:>7.1}–{:>5.1}% {:>7.1}% {:>7.2} {:>8.1}ms {:>8.1}ms {:>9}",
            info.id,
            n,
            seats,
            100.0 * rate,
            100.0 * lo,
            100.0 * hi,
            100.0 / sides as f64,
            n as f64 / elapsed.as_secs_f64(),
            median.as_secs_f64() * 1000.0,
            max.as_secs_f64() * 1000.0,
            unfinished,
        );
        if n < games {
            println!(
                "  {}: only {n} of {games} games in the {}s allowance ({} decisions, {:.0} actions per game)",
                info.id,
                allowance.as_secs(),
                times.len(),
                actions as f64 / n.max(1) as f64
            );
        } else {
            println!(
                "  {}: {} decisions, {:.0} actions per game, {:.0}s",
                info.id,
                times.len(),
                actions as f64 / n.max(1) as f64,
                elapsed.as_secs_f64()
            );
        }
    }
}
