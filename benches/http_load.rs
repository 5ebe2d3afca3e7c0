//! Load measurement: move submissions over real HTTP against a real PostgreSQL.
//!
//! `cargo bench --bench http_load` starts a throwaway cluster and the server (release
//! build), opens GAMES concurrent two-player Kasino games and drives each from its own
//! client thread: read the game as the player to act, submit a random legal action.
//! Reports moves/s and the p50/p99 latency of the submissions (POST .../actions).
//! Environment: LOAD_GAMES (default 32), LOAD_MOVES (moves per game, default 100).

use std::time::{Duration, Instant};

use reqwest::blocking::Client;
use secrecy::SecretString;
use serde_json::{Value, json};
use turnpost::embedded_pg::ThrowawayCluster;
use turnpost::engine::GameRng;
use turnpost::settings::Settings;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() -> anyhow::Result<()> {
    let games = env_usize("LOAD_GAMES", 32);
    let moves_per_game = env_usize("LOAD_MOVES", 100);
    let cluster = ThrowawayCluster::start()?;
    let url = cluster.new_database()?;
    let mut settings = Settings::load()?;
    settings.bind = "127.0.0.1:0".into();
    settings.var_dir = std::env::temp_dir().join(format!("turnpost-bench-{}", std::process::id()));
    settings.smtp_url = None;
    settings.db_pool_size = 32;
    let port = turnpost::app::spawn_in_background(
        settings,
        url,
        SecretString::from("bench-secret-".repeat(3)),
    )?;
    let base = format!("http://127.0.0.1:{port}/api/v1");
    let client = Client::builder()
        .timeout(Duration::from_secs(60))
        .pool_max_idle_per_host(games * 2)
        .build()?;

    let token = |email: &str| -> anyhow::Result<String> {
        client
            .post(format!("{base}/accounts"))
            .json(&json!({"email": email, "name": "Bench", "password": "correct horse battery"}))
            .send()?;
        let t: Value = client
            .post(format!("{base}/auth/token"))
            .json(&json!({"email": email, "password": "correct horse battery"}))
            .send()?
            .json()?;
        Ok(t["access_token"].as_str().unwrap_or_default().to_string())
    };
    let mut tables = Vec::new();
    for g in 0..games {
        let a = token(&format!("a{g}@bench.example"))?;
        let b = token(&format!("b{g}@bench.example"))?;
        let created: Value = client
            .post(format!("{base}/games"))
            .bearer_auth(&a)
            .json(&json!({"game_type": "kasino", "players": 2}))
            .send()?
            .json()?;
        let id = created["id"].as_i64().unwrap_or_default();
        client
            .post(format!("{base}/games/{id}/join"))
            .bearer_auth(&b)
            .json(&json!({}))
            .send()?;
        tables.push((id, [a, b]));
    }

    let start = Instant::now();
    let results: Vec<Vec<Duration>> = std::thread::scope(|s| {
        let handles: Vec<_> = tables
            .iter()
            .enumerate()
            .map(|(i, (id, tokens))| {
                let client = client.clone();
                let base = base.clone();
                s.spawn(move || {
                    let mut rng = GameRng::seed_from_u64(i as u64);
                    let mut lat = Vec::with_capacity(moves_per_game);
                    let mut seat = None::<usize>;
                    let mut game: Value = Value::Null;
                    for _ in 0..moves_per_game {
                        // The previous response tells whose turn it is; read the game as them.
                        let s = match seat {
                            Some(s) => s,
                            None => {
                                let g: Value = match client
                                    .get(format!("{base}/games/{id}"))
                                    .bearer_auth(&tokens[0])
                                    .send()
                                    .and_then(|r| r.json())
                                {
                                    Ok(g) => g,
                                    Err(e) => {
                                        eprintln!("game {id}: {e}");
                                        break;
                                    }
                                };
                                g["to_act"][0].as_u64().unwrap_or(0) as usize
                            }
                        };
                        if game.is_null() || game["your_seat"] != s {
                            game = match client
                                .get(format!("{base}/games/{id}"))
                                .bearer_auth(&tokens[s])
                                .send()
                                .and_then(|r| r.json())
                            {
                                Ok(g) => g,
                                Err(e) => {
                                    eprintln!("game {id}: {e}");
                                    break;
                                }
                            };
                        }
                        if game["status"] != "active" {
                            // Finished before its quota: a short Kasino game, not an error.
                            eprintln!("game {id} finished after {} moves", lat.len());
                            break;
                        }
                        let legal = game["legal_actions"]
                            .as_array()
                            .cloned()
                            .unwrap_or_default();
                        if legal.is_empty() {
                            break;
                        }
                        let action = legal[rng.below(legal.len())].clone();
                        let t = Instant::now();
                        let r = client
                            .post(format!("{base}/games/{id}/actions"))
                            .bearer_auth(&tokens[s])
                            .json(&json!({"expected_version": game["version"], "action": action}))
                            .send();
                        let elapsed = t.elapsed();
                        let Ok(r) = r else { break };
                        if r.status() != 200 {
                            eprintln!("game {id}: {}", r.status());
                            break;
                        }
                        lat.push(elapsed);
                        let after: Value = r.json().unwrap_or(Value::Null);
                        seat = after["to_act"][0].as_u64().map(|v| v as usize);
                        game = Value::Null;
                    }
                    lat
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    let wall = start.elapsed();
    // The cost of a move must not grow with the game: compare early and late moves.
    let early = median(
        results
            .iter()
            .flat_map(|l| l.iter().take(10).copied())
            .collect(),
    );
    let late = median(
        results
            .iter()
            .flat_map(|l| l.iter().skip(l.len().saturating_sub(10)).copied())
            .collect(),
    );
    let mut all: Vec<Duration> = results.into_iter().flatten().collect();
    all.sort();
    let n = all.len();
    let pct = |p: f64| {
        all.get(
            ((n as f64 * p).ceil() as usize)
                .saturating_sub(1)
                .min(n.saturating_sub(1)),
        )
        .copied()
        .unwrap_or_default()
    };
    println!(
        "concurrent games: {games}, moves submitted: {n}, wall time: {:.2} s",
        wall.as_secs_f64()
    );
    println!(
        "throughput: {:.0} moves/s (each move = GET as the mover + POST action)",
        n as f64 / wall.as_secs_f64()
    );
    println!(
        "POST /actions latency: p50 {:.1} ms, p90 {:.1} ms, p99 {:.1} ms, max {:.1} ms",
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.90).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        all.last().copied().unwrap_or_default().as_secs_f64() * 1e3
    );
    println!(
        "median POST latency of each game's first 10 moves: {:.1} ms; of its last 10 moves: {:.1} ms",
        early.as_secs_f64() * 1e3,
        late.as_secs_f64() * 1e3
    );
    Ok(())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}
