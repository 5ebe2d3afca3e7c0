//! What an operator watches (issue 34, item 4): Prometheus metrics read with the
//! reference text-format parser (the Python client's, `prometheus_client.parser`), an
//! access-log line per request carrying its id, JSON logs on request, and no colour codes
//! in a log that is not a terminal.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use secrecy::SecretString;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::hardening::{free_port, serve};
use crate::helpers::{TestApp, play_random, spawn_app_with};

const METRICS_TOKEN: &str = "observability-metrics-token-0123456789";

/// One sample as the parser read it.
#[derive(Debug, Deserialize)]
struct Sample {
    /// The family's type: `counter`, `gauge`, `histogram`…
    #[serde(rename = "type")]
    kind: String,
    name: String,
    labels: HashMap<String, String>,
    value: f64,
}

/// Parses Prometheus text with `prometheus_client.parser`, which refuses what the format
/// does not allow (a crate tried first cut label values at their first `}`, so every
/// route with a `{id}` in it was lost).
const PARSE: &str = r#"
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for family in text_string_to_metric_families(sys.stdin.read()):
    for s in family.samples:
        out.append({"type": family.type, "name": s.name, "labels": s.labels, "value": s.value})
print(json.dumps(out))
"#;

fn scrape(app: &TestApp) -> Vec<Sample> {
    let text = app.metrics(METRICS_TOKEN).text().expect("metrics text");
    let mut parser = Command::new("python3")
        .args(["-c", PARSE])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 with prometheus_client (see .ci/run)");
    parser
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write metrics");
    let out = parser.wait_with_output().expect("parser");
    assert!(
        out.status.success(),
        "not Prometheus text: {}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("the parser's JSON")
}

fn samples<'a>(m: &'a [Sample], name: &str) -> Vec<&'a Sample> {
    m.iter().filter(|s| s.name == name).collect()
}

/// The value of the one sample of `name` whose labels include all of `labels`.
fn find(m: &[Sample], name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    m.iter()
        .find(|s| {
            s.name == name
                && labels
                    .iter()
                    .all(|(k, v)| s.labels.get(*k).map(String::as_str) == Some(*v))
        })
        .map(|s| s.value)
}

#[test]
fn metrics_count_requests_moves_mail_streams_pool_and_sweeper_and_parse_as_prometheus_text() {
    let app = spawn_app_with(|s| s.metrics_token = Some(SecretString::from(METRICS_TOKEN)));
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let moves = play_random(&app, id, &[&ada, &bo], 7, 400);
    // A live-update stream held open while the metrics are read.
    let stream = app
        .client
        .get(app.url(&format!(
            "/api/v1/games/{id}/events?ticket={}",
            app.ticket(&ada.token)
        )))
        .send()
        .expect("stream");
    assert_eq!(stream.status(), 200);
    app.wait_for_mails("a turn email", |m| !m.is_empty());
    let m = scrape(&app);

    // Requests, by route pattern (never the raw path) and status.
    let moved = find(
        &m,
        "turnpost_http_requests_total",
        &[
            ("method", "POST"),
            ("route", "/api/v1/games/{id}/actions"),
            ("status", "200"),
        ],
    )
    .unwrap_or_else(|| {
        let routes: Vec<_> = samples(&m, "turnpost_http_requests_total")
            .iter()
            .map(|s| format!("{:?}", s.labels))
            .collect();
        panic!("moves not counted by route; counted: {routes:#?}")
    });
    assert!(moved >= moves as f64, "{moved} < {moves}");
    assert!(
        samples(&m, "turnpost_http_requests_total").iter().all(|s| {
            !s.labels
                .get("route")
                .is_some_and(|r| r.contains(&format!("/{id}/")))
        }),
        "a route label holds a raw path"
    );
    // Latency as a histogram with buckets, per route.
    let buckets: Vec<&Sample> = samples(&m, "turnpost_http_request_duration_seconds_bucket")
        .into_iter()
        .filter(|s| {
            s.labels.get("route").map(String::as_str) == Some("/api/v1/games/{id}/actions")
                // Other tests send other methods to the route (405s): their own series.
                && s.labels.get("method").map(String::as_str) == Some("POST")
        })
        .collect();
    assert!(buckets.len() >= 10, "{buckets:?}");
    assert!(buckets.iter().all(|b| b.kind == "histogram"), "{buckets:?}");
    let all = buckets
        .iter()
        .find(|b| b.labels.get("le").map(String::as_str) == Some("+Inf"))
        .expect("the +Inf bucket");
    assert!(all.value >= moves as f64, "{} < {moves}", all.value);
    // Moves by game type.
    let kasino = find(&m, "turnpost_moves_total", &[("game_type", "kasino")]).expect("moves");
    assert!(kasino >= moves as f64, "{kasino} < {moves}");
    // Mail: sent, and the outbox's depth and age by kind.
    assert!(find(&m, "turnpost_emails_total", &[("outcome", "sent")]).expect("sent") >= 1.0);
    for kind in ["turn", "over", "webhook"] {
        assert!(
            find(&m, "turnpost_outbox_pending", &[("kind", kind)]).is_some(),
            "no outbox depth for {kind}"
        );
        assert!(
            find(
                &m,
                "turnpost_outbox_oldest_pending_seconds",
                &[("kind", kind)]
            )
            .is_some(),
            "no outbox age for {kind}"
        );
    }
    // This node's open streams, its request pool, and its waits for connections.
    assert_eq!(find(&m, "turnpost_sse_streams_open", &[]), Some(1.0));
    let in_use = find(&m, "turnpost_db_pool_connections", &[("state", "in_use")]);
    let idle = find(&m, "turnpost_db_pool_connections", &[("state", "idle")]);
    let max = find(&m, "turnpost_db_pool_max_connections", &[]).expect("pool size");
    assert_eq!(max, f64::from(app.settings.db_pool_size));
    assert!(in_use.expect("in use") + idle.expect("idle") <= max);
    let waited = find(&m, "turnpost_db_pool_wait_seconds_count", &[]).expect("pool waits");
    assert!(waited >= 1.0, "{waited}");
    // The sweeper ran its first pass at start. (Its value is the process's: other test
    // apps' sweepers share it, so only its presence and sign are this test's to check.)
    let lag = find(&m, "turnpost_sweeper_lag_seconds", &[]).expect("sweeper lag");
    assert!(lag >= 0.0, "{lag}");
    drop(stream);
}

/// The log lines of `turnpost serve` with `envs`, after one request with `request_id`.
fn log_after_one_request(envs: &[(&str, String)], request_id: &str) -> String {
    let app = spawn_app_with(|_| {});
    let dir = tempfile_dir();
    let log = dir.join("serve.log");
    let port = free_port();
    let mut all = vec![
        ("DATABASE_URL", app.database_url.clone()),
        ("TURNPOST_JWT_SECRET", "j".repeat(40)),
        ("TURNPOST_VAR_DIR", dir.display().to_string()),
        ("RUST_LOG", "info".to_string()),
    ];
    all.extend(envs.iter().cloned());
    let mut server = serve(&all, port, Duration::from_secs(60), Some(&log));
    let r = reqwest::blocking::Client::new()
        .get(format!("http://127.0.0.1:{port}/api/v1/game-types"))
        .header("X-Request-Id", request_id)
        .send()
        .expect("request");
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["x-request-id"], request_id);
    // The line is written as the answer leaves; give the writer a moment.
    let start = Instant::now();
    let text = loop {
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        if text.contains(request_id) && text.contains("/api/v1/game-types")
            || start.elapsed() > crate::helpers::PATIENCE
        {
            break text;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = server.kill();
    let _ = server.wait();
    text
}

fn tempfile_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "turnpost-observability-{}",
        hex::encode(rand::random::<[u8; 6]>())
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn each_request_has_an_access_line_with_its_id_and_a_log_file_has_no_colour_codes() {
    let text = log_after_one_request(&[], "trace-me-42");
    let line = text
        .lines()
        .find(|l| l.contains("turnpost::access") && l.contains("trace-me-42"))
        .unwrap_or_else(|| panic!("no access line with the request id in:\n{text}"));
    assert!(line.contains("status=200"), "{line}");
    assert!(line.contains("duration_ms="), "{line}");
    assert!(line.contains("/api/v1/game-types"), "{line}");
    assert!(
        !text.contains('\u{1b}'),
        "colour codes in a log file:\n{text}"
    );
}

#[test]
fn json_logs_are_one_object_a_line_with_the_request_id() {
    let text = log_after_one_request(&[("TURNPOST_LOG_FORMAT", "json".into())], "json-me-7");
    let mut access = None;
    for line in BufReader::new(text.as_bytes()).lines() {
        let line = line.expect("utf-8");
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("a log line that is not JSON ({e}): {line}"));
        if v["target"] == "turnpost::access" && v["span"]["request_id"] == "json-me-7" {
            access = Some(v);
        }
    }
    let access = access.unwrap_or_else(|| panic!("no JSON access line in:\n{text}"));
    assert_eq!(access["status"], 200, "{access}");
    assert_eq!(
        access["span"]["http.target"], "/api/v1/game-types",
        "{access}"
    );
    assert!(access["duration_ms"].is_number(), "{access}");
}

#[test]
fn an_unknown_log_format_is_refused_in_one_line() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .arg("serve")
        .env("TURNPOST_LOG_FORMAT", "xml")
        .output()
        .expect("run turnpost");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("TURNPOST_LOG_FORMAT must be text or json"),
        "{err}"
    );
    assert_eq!(err.trim().lines().count(), 1, "{err}");
}

/// A TCP forwarder between a server and the test cluster, to take the database away from
/// under a running node (and give it back), or make each new connection slow to open.
struct DbProxy {
    /// The database's URL through the proxy.
    url: String,
    state: Arc<ProxyState>,
}

#[derive(Default)]
struct ProxyState {
    down: AtomicBool,
    /// Each new connection waits this long before it is forwarded.
    delay_ms: AtomicU64,
    /// Connections hung up on at once while down: the node's attempts to reach it.
    refused: AtomicUsize,
    /// Connections forwarded.
    forwarded: AtomicUsize,
    live: Mutex<Vec<TcpStream>>,
}

fn db_proxy(database_url: &str, delay: Duration) -> DbProxy {
    let mut url = url::Url::parse(database_url).expect("database URL");
    let target = format!(
        "{}:{}",
        url.host_str().expect("host"),
        url.port().expect("port")
    );
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    url.set_port(Some(listener.local_addr().expect("addr").port()))
        .expect("port");
    let state = Arc::new(ProxyState::default());
    state
        .delay_ms
        .store(delay.as_millis() as u64, Ordering::SeqCst);
    let s = Arc::clone(&state);
    std::thread::spawn(move || {
        for client in listener.incoming() {
            let Ok(client) = client else { continue };
            if s.down.load(Ordering::SeqCst) {
                s.refused.fetch_add(1, Ordering::SeqCst);
                continue;
            }
            let s = Arc::clone(&s);
            let target = target.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(s.delay_ms.load(Ordering::SeqCst)));
                let Ok(server) = TcpStream::connect(&target) else {
                    return;
                };
                {
                    let mut live = s.live.lock().unwrap();
                    live.push(client.try_clone().expect("clone"));
                    live.push(server.try_clone().expect("clone"));
                }
                s.forwarded.fetch_add(1, Ordering::SeqCst);
                for (mut from, mut to) in [
                    (
                        client.try_clone().expect("clone"),
                        server.try_clone().expect("clone"),
                    ),
                    (server, client),
                ] {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                        let _ = from.shutdown(Shutdown::Both);
                    });
                }
            });
        }
    });
    DbProxy {
        url: url.to_string(),
        state,
    }
}

impl DbProxy {
    /// The database is gone: every connection through the proxy is cut, new ones are
    /// hung up on.
    fn cut(&self) {
        self.state.down.store(true, Ordering::SeqCst);
        for s in self.state.live.lock().unwrap().drain(..) {
            let _ = s.shutdown(Shutdown::Both);
        }
    }

    fn restore(&self) {
        self.state.down.store(false, Ordering::SeqCst);
    }

    fn refused(&self) -> usize {
        self.state.refused.load(Ordering::SeqCst)
    }

    fn forwarded(&self) -> usize {
        self.state.forwarded.load(Ordering::SeqCst)
    }
}

/// `turnpost serve` on `database_url`, logging at `info` to a file; returns the child and
/// the log's path.
fn serve_logged(database_url: &str) -> (std::process::Child, std::path::PathBuf) {
    let dir = tempfile_dir();
    let log = dir.join("serve.log");
    let envs = vec![
        ("DATABASE_URL", database_url.to_string()),
        ("TURNPOST_JWT_SECRET", "j".repeat(40)),
        ("TURNPOST_VAR_DIR", dir.display().to_string()),
        ("RUST_LOG", "info".to_string()),
    ];
    let server = serve(&envs, free_port(), crate::helpers::PATIENCE, Some(&log));
    (server, log)
}

fn read_log(log: &std::path::Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// Waits until the log holds `what` (patiently); returns the log.
fn wait_for_line(log: &std::path::Path, what: &str) -> String {
    let until = Instant::now() + crate::helpers::PATIENCE;
    loop {
        let text = read_log(log);
        if text.contains(what) {
            return text;
        }
        assert!(Instant::now() < until, "no {what:?} in the log:\n{text}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn complaints(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .collect()
}

#[test]
fn a_database_outage_is_logged_once_when_it_starts_and_once_when_it_ends() {
    let app = spawn_app_with(|_| {});
    let proxy = db_proxy(&app.database_url, Duration::ZERO);
    let (mut server, log) = serve_logged(&proxy.url);
    wait_for_line(&log, "Turnpost is listening");
    let before = read_log(&log).len();
    proxy.cut();
    // The node's loops and pools keep trying: forty attempts are forty log lines unless
    // only the change is logged.
    let until = Instant::now() + crate::helpers::PATIENCE;
    while proxy.refused() < 40 {
        assert!(Instant::now() < until, "the node stopped trying");
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = read_log(&log);
    let during = &text[before..];
    let said = complaints(during);
    assert!(
        said.len() <= 3,
        "{} warnings and errors over {} attempts to reach the database:\n{}",
        said.len(),
        proxy.refused(),
        said.join("\n")
    );
    assert_eq!(
        during.matches("the database is unreachable").count(),
        1,
        "{during}"
    );
    proxy.restore();
    let text = wait_for_line(&log, "the database is reachable again");
    let after = &text[before..];
    assert_eq!(
        after.matches("the database is reachable again").count(),
        1,
        "{after}"
    );
    let _ = server.kill();
    let _ = server.wait();
}

#[test]
fn a_start_names_the_migrations_it_applied_and_waits_for_its_connections_without_warnings() {
    // A new database, and a connection that takes 1.5 s to open (longer than a pool's
    // checkout waits): every background thread asking for its first one at once timed out.
    let database = crate::helpers::fresh_database();
    let proxy = db_proxy(&database, Duration::from_millis(1500));
    let (mut server, log) = serve_logged(&proxy.url);
    wait_for_line(&log, "Turnpost is listening");
    // The background threads' first connections are made (the 4 email and 4 webhook
    // senders', the bot worker's, the requests' two, the migration's): any wait for them
    // given up is in the log by now.
    let until = Instant::now() + crate::helpers::PATIENCE;
    while proxy.forwarded() < 12 {
        assert!(
            Instant::now() < until,
            "only {} connections",
            proxy.forwarded()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let text = read_log(&log);
    assert!(
        !text.contains("timed out waiting for connection"),
        "warnings at start:\n{}",
        complaints(&text).join("\n")
    );
    let line = text
        .lines()
        .find(|l| l.contains("migrations applied"))
        .unwrap_or_else(|| panic!("no migrations named:\n{text}"));
    for name in [
        "2026-11-21-000001_core",
        "2026-12-03-000034_webhook_isolation",
    ] {
        assert!(line.contains(name), "{name} not in {line}");
    }
    let _ = server.kill();
    let _ = server.wait();
    // Started again, the node says it had nothing to apply.
    let (mut again, log) = serve_logged(&proxy.url);
    wait_for_line(&log, "no pending migrations");
    let _ = again.kill();
    let _ = again.wait();
}

#[test]
fn a_fresh_server_describes_every_family_and_shows_the_readmes_counters_at_zero() {
    let app = spawn_app_with(|s| s.metrics_token = Some(SecretString::from(METRICS_TOKEN)));
    // One request first: `turnpost_http_requests_total` counts answered requests.
    let _ = app.player("Ada");
    let text = app.metrics(METRICS_TOKEN).text().expect("metrics text");
    for line in text.lines().filter(|l| l.starts_with("# TYPE ")) {
        let name = line.split_whitespace().nth(2).expect("a name");
        assert!(
            text.contains(&format!("# HELP {name} ")),
            "{name} has no HELP:\n{text}"
        );
    }
    let m = scrape(&app);
    let guide = include_str!("../../src/docs/hosting.md");
    let table = &guide[guide.find("### Metrics").expect("the guide's metrics")..];
    let table = &table[..table.find("### Retention").expect("the next section")];
    let counters: std::collections::BTreeSet<&str> = table
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("turnpost_") && w.ends_with("_total"))
        .collect();
    assert!(counters.len() >= 7, "{counters:?}");
    for name in &counters {
        assert!(
            !samples(&m, name).is_empty(),
            "{name} is not shown before its first event"
        );
    }
    // Closed label sets are all there, at 0 while nothing happened.
    for (name, label, value) in [
        ("turnpost_emails_total", "outcome", "failed"),
        ("turnpost_webhook_deliveries_total", "outcome", "failed"),
        ("turnpost_webhook_deliveries_total", "outcome", "delivered"),
        ("turnpost_emails_bounced_total", "reported_by", "smtp"),
        ("turnpost_outbox_given_up_total", "kind", "webhook"),
        ("turnpost_moves_total", "game_type", "kasino"),
    ] {
        assert_eq!(
            find(&m, name, &[(label, value)]),
            Some(0.0),
            "{name}{{{label}={value}}}"
        );
    }
    assert_eq!(find(&m, "turnpost_db_pool_timeouts_total", &[]), Some(0.0));
}
