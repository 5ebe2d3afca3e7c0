//! Black-box test support: one throwaway PostgreSQL cluster per test run, a fresh database
//! per test, the real application on a random port, real HTTP with reqwest.

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use reqwest::blocking::{Client, Response};
use secrecy::SecretString;
use serde_json::{Value, json};
use turnpost::app::BackgroundApp;
use turnpost::embedded_pg::ThrowawayCluster;
use turnpost::settings::Settings;

/// The inbound email secret of every test app.
pub const INBOUND_SECRET: &str = "inbound-test-secret";

/// The suite's cluster, holding the migrated [`TEMPLATE`].
static CLUSTER: OnceLock<ThrowawayCluster> = OnceLock::new();

/// The name of the migrated database every test's database is copied from.
const TEMPLATE: &str = "turnpost_template";

fn cluster() -> &'static ThrowawayCluster {
    CLUSTER.get_or_init(|| {
        // Before the first connection: a test process exits with pools still connecting.
        turnpost::store::keep_libcrypto_through_exit();
        let made = match std::env::var("NEXTEST_RUN_ID") {
            Ok(run) => shared_cluster(&run),
            Err(_) => own_cluster(),
        };
        match made {
            Ok(c) => c,
            Err(e) => panic!("cannot start the test PostgreSQL cluster: {e:#}"),
        }
    })
}

/// `cargo test` runs a binary's tests as threads of one process: the cluster is this
/// process's, and ends with it.
fn own_cluster() -> anyhow::Result<ThrowawayCluster> {
    let cluster = ThrowawayCluster::start()?;
    migrate_template(&cluster)?;
    Ok(cluster)
}

/// cargo-nextest runs every test in a process of its own: the first one of a run starts
/// the cluster and migrates the template, under a lock, for all the others; the cluster
/// lives as long as the runner (this process's parent) and then removes itself.
fn shared_cluster(run: &str) -> anyhow::Result<ThrowawayCluster> {
    use std::io::Write;
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let run: String = run
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let dir = std::env::temp_dir().join(format!("turnpost-tests-{run}"));
    // The cluster's own directory inside is the postgres user's, who must reach it; what
    // is secret here (the cluster's password) is in a file only its owner reads.
    match std::fs::DirBuilder::new().mode(0o755).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e.into()),
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(dir.join("lock"))?;
    // SAFETY: flock on a descriptor this function owns; released when `lock` closes.
    if unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(std::io::Error::last_os_error().into());
    }
    let info = dir.join("cluster");
    if let Ok(text) = std::fs::read_to_string(&info) {
        let mut words = text.split_whitespace();
        if let (Some(port), Some(password)) = (words.next(), words.next()) {
            return Ok(ThrowawayCluster::attach(
                port.parse()?,
                password.to_string(),
            ));
        }
    }
    let cluster = ThrowawayCluster::start_while_running(std::os::unix::process::parent_id(), &dir)?;
    migrate_template(&cluster)?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(true)
        .write(true)
        .mode(0o600)
        .open(&info)?;
    writeln!(f, "{} {}", cluster.port(), cluster.password())?;
    drop(lock);
    Ok(cluster)
}

/// Creates the template and runs every migration on it once; the connection closes
/// before any copy is made (a template nobody is connected to).
fn migrate_template(cluster: &ThrowawayCluster) -> anyhow::Result<()> {
    use diesel::Connection;
    let admin = cluster.database_url("postgres");
    turnpost::embedded_pg::create_database(&admin, TEMPLATE)?;
    let mut conn = diesel::PgConnection::establish(&cluster.database_url(TEMPLATE))?;
    turnpost::store::migrate(&mut conn)?;
    Ok(())
}

pub struct TestApp {
    pub address: String,
    pub database_url: String,
    pub mail_dir: PathBuf,
    pub client: Client,
    pub settings: Settings,
    server: BackgroundApp,
}

/// A finished test's server stops: a full run starts about a hundred, and their senders,
/// polling every 20 ms, made later tests several times slower.
impl Drop for TestApp {
    fn drop(&mut self) {
        self.server.stop();
        // Its mail, secrets and files go with it: a run starts hundreds.
        if self.settings.var_dir.starts_with(std::env::temp_dir()) {
            let _ = std::fs::remove_dir_all(&self.settings.var_dir);
        }
    }
}

pub struct Player {
    pub id: i64,
    pub email: String,
    pub token: String,
}

/// Settings for a test app, with `adjust` applied before the build.
/// How long a test waits for email, in seconds: the suite's patience, because a full run
/// on 2 cores keeps the senders (which draw PNG pictures) busy.
pub const MAIL_PATIENCE_SECS: u64 = PATIENCE.as_secs();

/// With `TEST_LOG` set (to a filter such as `warn` or `turnpost=debug`), the servers'
/// logs go to standard error: how to see what lies behind a 500 in a failing test.
fn init_test_log() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        if let Ok(filter) = std::env::var("TEST_LOG") {
            let _ = tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
                .with_writer(std::io::stderr)
                .try_init();
        }
    });
}

/// A new, empty database on the test cluster (no migrations run), for tests that migrate
/// it themselves.
pub fn fresh_database() -> String {
    cluster().new_database().expect("create test database")
}

/// A new database with every migration applied, copied from the suite's template.
pub fn migrated_database() -> String {
    cluster()
        .copy_of(TEMPLATE)
        .expect("copy the template database")
}

pub fn spawn_app_with(adjust: impl FnOnce(&mut Settings)) -> TestApp {
    let database_url = migrated_database();
    spawn_app_on(database_url, adjust)
}

/// Another server node on an existing test database (e.g. `other.database_url`).
pub fn spawn_app_on(database_url: String, adjust: impl FnOnce(&mut Settings)) -> TestApp {
    spawn_node(database_url, test_secret(), adjust)
}

/// The server secret every test app signs with unless it says otherwise.
pub fn test_secret() -> SecretString {
    SecretString::from(JWT_SECRET.repeat(4))
}

/// A server node on an existing test database with a secret of its own.
pub fn spawn_node(
    database_url: String,
    secret: SecretString,
    adjust: impl FnOnce(&mut Settings),
) -> TestApp {
    init_test_log();
    let mut settings = Settings::load().expect("default settings load");
    let var = std::env::temp_dir().join(format!(
        "turnpost-test-{}",
        hex::encode(rand::random::<[u8; 8]>())
    ));
    settings.bind = "127.0.0.1:0".into();
    settings.var_dir = var.clone();
    settings.smtp_url = None;
    settings.outbox_poll_ms = 20;
    // Many apps share one test cluster: keep each pool small.
    settings.db_pool_size = 4;
    // The suite runs many apps at once on two cores: connecting may take a while.
    settings.db_checkout_timeout_ms = 10_000;
    settings.public_url = Some("http://turnpost.test".into());
    settings.inbound_secret = Some(SecretString::from(INBOUND_SECRET));
    settings.reply_address = Some("play@turnpost.test".into());
    // Tests drive the clock sweep themselves, with chosen times.
    settings.sweep_interval_secs = 3600;
    // Turn emails go out at once (a test that measures the grace period sets it), to
    // addresses nobody confirmed (a test of confirmation turns it on).
    settings.turn_email_grace_secs = 0;
    settings.require_email_verification = false;
    settings.outbox_senders = 2;
    settings.webhook_senders = 2;
    // Tests play whole games from one address as fast as they can: budgets far above the
    // defaults, still counted (tests/api/rate_limits.rs sets small ones).
    settings.rate_limit_per_account = 1_000_000;
    settings.rate_limit_per_address = 1_000_000;
    // A thousand sign-ups per run: hashed at Argon2's smallest cost (the login flood test
    // in hardening.rs runs the real binary, at the production cost).
    settings.password_hash_cost = turnpost::auth::password::HashCost::Minimal;
    adjust(&mut settings);
    let mail_dir = settings.mail_dir();
    let server =
        match turnpost::app::spawn_in_background(settings.clone(), database_url.clone(), secret) {
            Ok(s) => s,
            Err(e) => panic!("app did not start: {e:#}"),
        };
    TestApp {
        address: format!("http://127.0.0.1:{}", server.port),
        database_url,
        mail_dir,
        client: Client::builder()
            .timeout(Duration::from_secs(60))
            // The server closes a connection idle for 5 s (actix-web's keep-alive). A
            // request sent on a pooled connection at that moment fails as an incomplete
            // message, which a test that waits on a browser between requests met under
            // load: idle connections are dropped well before the server would close them.
            .pool_idle_timeout(Duration::from_secs(2))
            .build()
            .expect("client"),
        settings,
        server,
    }
}

const JWT_SECRET: &str = "test-secret-";

/// An address nobody has used yet: `name-<random>@example.org`.
pub fn fresh_email(name: &str) -> String {
    format!(
        "{}-{}@example.org",
        name.to_lowercase(),
        hex::encode(rand::random::<[u8; 4]>())
    )
}

pub fn spawn_app() -> TestApp {
    spawn_app_with(|_| {})
}

/// A test app whose email senders do not run, for tests that read no mail: a whole game
/// queues a turn email (and its board picture) after every move, and rendering them cost
/// more than the game. The moves still queue their email in the same transaction.
pub fn spawn_app_without_mail() -> TestApp {
    spawn_app_with(|s| s.email_senders = turnpost::settings::EmailSenders::Driven)
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.address, path)
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: &Value) -> Response {
        let mut r = self.client.post(self.url(path)).json(body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send().expect("request")
    }

    pub fn put(&self, path: &str, token: Option<&str>, body: &Value) -> Response {
        let mut r = self.client.put(self.url(path)).json(body);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send().expect("request")
    }

    /// A stream ticket for `token`: what a browser passes as `?ticket=` to an event stream.
    pub fn ticket(&self, token: &str) -> String {
        let r = self.post("/api/v1/me/stream-tickets", Some(token), &Value::Null);
        assert_eq!(r.status(), 200, "stream ticket");
        r.json::<Value>().expect("json")["ticket"]
            .as_str()
            .expect("ticket")
            .to_string()
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> Response {
        let mut r = self.client.get(self.url(path));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send().expect("request")
    }

    /// Signs up and logs in.
    pub fn player(&self, name: &str) -> Player {
        let email = fresh_email(name);
        let r = self.post(
            "/api/v1/accounts",
            None,
            &json!({"email": email, "name": name, "password": "correct horse battery"}),
        );
        // The answer's body says why, should a loaded CI machine refuse a sign-up.
        let status = r.status();
        let body = r.text().unwrap_or_default();
        assert_eq!(status, 201, "sign-up: {body}");
        let id = serde_json::from_str::<Value>(&body).expect("json")["id"]
            .as_i64()
            .expect("id");
        let token = self.token_for(&email, "correct horse battery");
        Player { id, email, token }
    }

    /// Creates a game of `game_type` for `players` and seats them all; returns its id.
    pub fn start_game(&self, game_type: &str, options: Value, players: &[&Player]) -> i64 {
        let r = self.post(
            "/api/v1/games",
            Some(&players[0].token),
            &json!({"game_type": game_type, "players": players.len(), "options": options}),
        );
        assert_eq!(
            r.status(),
            201,
            "create game: {}",
            r.text().unwrap_or_default()
        );
        let id = r.json::<Value>().expect("json")["id"].as_i64().expect("id");
        for p in &players[1..] {
            let r = self.post(
                &format!("/api/v1/games/{id}/join"),
                Some(&p.token),
                &json!({}),
            );
            assert_eq!(r.status(), 200, "join");
        }
        id
    }

    /// `GET /metrics` with the metrics token `token`: the answer, checked to be 200.
    pub fn metrics(&self, token: &str) -> Response {
        let r = self
            .client
            .get(self.url("/metrics"))
            .bearer_auth(token)
            .send()
            .expect("scrape");
        assert_eq!(r.status(), 200);
        r
    }

    /// The whole log of game `id` as `p` sees it.
    pub fn log(&self, id: i64, p: &Player) -> Vec<Value> {
        let r = self.get(
            &format!("/api/v1/games/{id}/log?limit=1000"),
            Some(&p.token),
        );
        assert_eq!(r.status(), 200);
        let log: Value = r.json().expect("json");
        log.as_array().cloned().unwrap_or_default()
    }

    pub fn game(&self, id: i64, p: &Player) -> Value {
        let r = self.get(&format!("/api/v1/games/{id}"), Some(&p.token));
        assert_eq!(r.status(), 200);
        r.json().expect("json")
    }

    /// A domain over the app's database, built afresh: what a (re)started server runs. For
    /// calling the domain directly, e.g. `sweep(now)` with a chosen time.
    pub fn domain(&self) -> turnpost::domain::Domain {
        self.domain_with(&self.settings)
    }

    /// [`TestApp::domain`] with other settings: what another server on the same database
    /// would run.
    pub fn domain_with(&self, settings: &Settings) -> turnpost::domain::Domain {
        let pool =
            turnpost::store::pool(&self.database_url, 2, Duration::from_secs(10)).expect("pool");
        turnpost::app::domain(
            settings,
            pool,
            turnpost::games::Registry::standard(),
            &SecretString::from(JWT_SECRET.repeat(4)),
        )
        .expect("domain")
    }

    /// A signed-in player whose address is not confirmed, with a confirmation email on its
    /// way, on a server that requires confirmed addresses. Its account was made as if by
    /// a server that did not require them (where this one requires them, a sign-up makes
    /// the account only when its address is confirmed): accounts from before the setting
    /// was turned on, say.
    pub fn unconfirmed_player(&self, name: &str) -> Player {
        use turnpost::domain::sign_ups::SignUp;
        let email = fresh_email(name);
        let mut at_once = self.settings.clone();
        at_once.require_email_verification = false;
        let made = self
            .domain_with(&at_once)
            .create_account(turnpost::domain::shapes::NewAccountRequest {
                email: email.clone(),
                name: name.into(),
                password: "correct horse battery".into(),
            })
            .expect("sign-up");
        let SignUp::Created(account) = made else {
            panic!("no account made");
        };
        let token = self.token_for(&email, "correct horse battery");
        let r = self.post("/api/v1/me/verify-email", Some(&token), &json!({}));
        assert_eq!(r.status(), 202, "ask for the confirmation email");
        Player {
            id: account.id.0,
            email,
            token,
        }
    }

    /// Signs in: the access token for `email` and `password`.
    pub fn token_for(&self, email: &str, password: &str) -> String {
        let r = self.post(
            "/api/v1/auth/token",
            None,
            &json!({"email": email, "password": password}),
        );
        let status = r.status();
        let body = r.text().unwrap_or_default();
        assert_eq!(status, 200, "login: {body}");
        serde_json::from_str::<Value>(&body).expect("json")["access_token"]
            .as_str()
            .expect("token")
            .to_string()
    }

    /// Delivers a raw email to the inbound endpoint, as an MTA would.
    pub fn inbound(&self, raw: &[u8]) -> Response {
        self.client
            .post(self.url("/api/v1/inbound/email"))
            .bearer_auth(INBOUND_SECRET)
            .header("content-type", "message/rfc822")
            .body(raw.to_vec())
            .send()
            .expect("request")
    }

    /// The .eml files written so far, parsed as MIME.
    pub fn mails(&self) -> Vec<Mail> {
        let Ok(rd) = std::fs::read_dir(&self.mail_dir) else {
            return Vec::new();
        };
        rd.filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
            .filter_map(|e| std::fs::read(e.path()).ok())
            .filter_map(|raw| Mail::parse(&raw))
            .collect()
    }

    /// Confirms `p`'s address as its owner does: asks for the confirmation email and
    /// follows its link. (A seat kept for an invited address goes only to an account that
    /// confirmed it.)
    pub fn confirm_email(&self, p: &Player) {
        let r = self.post("/api/v1/me/verify-email", Some(&p.token), &json!({}));
        assert_eq!(r.status(), 202, "ask for the confirmation email");
        let subject = "[Turnpost] Confirm your email address";
        let mails = self.wait_for_mails("a confirmation email", |m| {
            m.iter().any(|x| x.to == p.email && x.subject == subject)
        });
        let link = mails
            .iter()
            .filter(|x| x.to == p.email && x.subject == subject)
            .find_map(|m| {
                m.text
                    .lines()
                    .find_map(|l| l.trim().split_once("/api/v1/verify-email/"))
                    .map(|(_, token)| token.to_string())
            })
            .expect("a link in the confirmation email");
        let r = self.get(&format!("/api/v1/verify-email/{link}"), None);
        assert_eq!(r.status(), 200, "follow the confirmation link");
        let me: Value = self.get("/api/v1/me", Some(&p.token)).json().expect("me");
        assert_eq!(me["email_status"], "verified", "{me}");
    }

    /// Waits until `pred` holds for the mails written so far (the outbox worker is
    /// asynchronous), or panics after a generous timeout.
    pub fn wait_for_mails(&self, what: &str, pred: impl Fn(&[Mail]) -> bool) -> Vec<Mail> {
        let start = Instant::now();
        loop {
            let mails = self.mails();
            if pred(&mails) {
                return mails;
            }
            if start.elapsed() > PATIENCE {
                panic!(
                    "timed out waiting for mails: {what} ({} mails so far); the outbox:\n{}",
                    mails.len(),
                    self.outbox_rows()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The outbox as the workers see it, one row a line: what a failed wait for mail
    /// prints, to tell a message never owed from one dropped, failing or still claimed.
    pub fn outbox_rows(&self) -> String {
        use diesel::{Connection, RunQueryDsl};
        #[derive(diesel::QueryableByName)]
        struct Line {
            #[diesel(sql_type = diesel::sql_types::Text)]
            line: String,
        }
        let Ok(mut conn) = diesel::PgConnection::establish(&self.database_url) else {
            return "(the database does not answer)".into();
        };
        diesel::sql_query(
            "SELECT concat_ws(' ', id, kind, 'game', game_id, 'seat', seat, 'v', version, \
                    dedupe_key, to_address, 'next', next_attempt_at, 'due', due_at, \
                    'claimed', claimed_until, 'sent', sent_at, 'dropped', dropped_at, \
                    drop_reason, 'failed', failed_at, 'attempts', attempts, last_error) AS line \
             FROM outbox ORDER BY id",
        )
        .load::<Line>(&mut conn)
        .map(|rows| {
            rows.into_iter()
                .map(|r| r.line)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_else(|e| format!("(the outbox cannot be read: {e})"))
    }
}

/// One email as a player's mail client would show it.
#[derive(Debug, Clone)]
pub struct Mail {
    pub to: String,
    pub subject: String,
    pub message_id: String,
    pub text: String,
    pub html: String,
    /// The Reply-To address (carrying a reply token), or empty.
    pub reply_to: String,
    /// The In-Reply-To header (the message this answers), or empty.
    pub in_reply_to: String,
}

impl Mail {
    pub fn parse(raw: &[u8]) -> Option<Mail> {
        let m = mail_parser::MessageParser::default().parse(raw)?;
        let to = m.to()?.first()?.address()?.to_string();
        Some(Mail {
            to,
            subject: m.subject()?.to_string(),
            message_id: m.message_id().unwrap_or_default().to_string(),
            text: m.body_text(0)?.to_string(),
            html: m.body_html(0).map(|h| h.to_string()).unwrap_or_default(),
            reply_to: m
                .reply_to()
                .and_then(|a| a.first())
                .and_then(|a| a.address())
                .unwrap_or_default()
                .to_string(),
            in_reply_to: m
                .header_raw("In-Reply-To")
                .unwrap_or_default()
                .trim()
                .to_string(),
        })
    }
}

/// Plays `game` to the end, each seat choosing uniformly among its legal actions with a
/// seeded generator; returns the number of actions. Uses nothing but the public API.
pub fn play_random(
    app: &TestApp,
    id: i64,
    players: &[&Player],
    seed: u64,
    max_actions: usize,
) -> usize {
    let mut rng = turnpost::engine::GameRng::seed_from_u64(seed);
    let mut actions = 0;
    let mut g = app.game(id, players[0]);
    loop {
        if g["status"] == "finished" {
            return actions;
        }
        assert!(
            actions < max_actions,
            "game {id} did not finish in {max_actions} actions"
        );
        let to_act: Vec<usize> = g["to_act"]
            .as_array()
            .expect("to_act")
            .iter()
            .filter_map(|v| v.as_u64())
            .map(|v| v as usize)
            .collect();
        assert!(!to_act.is_empty(), "active game with nobody to act");
        let seat = to_act[rng.below(to_act.len())];
        let p = players.iter().find(|p| {
            g["seats"]
                .as_array()
                .expect("seats")
                .iter()
                .any(|s| s["seat"] == seat && s["account_id"] == p.id)
        });
        let p = p.expect("seat's player");
        let mine = app.game(id, p);
        let legal = mine["legal_actions"].as_array().expect("legal").clone();
        assert!(
            !legal.is_empty(),
            "seat {seat} must act but has no legal action"
        );
        let action = legal[rng.below(legal.len())].clone();
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&p.token),
            &json!({"expected_version": mine["version"], "action": action}),
        );
        assert_eq!(
            r.status(),
            200,
            "legal action refused: {}",
            r.text().unwrap_or_default()
        );
        // The answer is the game after the move, as the mover sees it: who acts next.
        g = r.json().expect("the game after the move");
        actions += 1;
    }
}

/// Runs the real `turnpost verify` binary against the test database.
pub fn run_verify(app: &TestApp) -> (bool, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_turnpost"))
        .arg("verify")
        .env("DATABASE_URL", &app.database_url)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run turnpost verify");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), format!("{}\n{text}", out.status))
}

/// Fails when a JSON document repeats a key in any object (serde_json keeps the last,
/// other parsers the first: a client cannot know which value it got).
pub fn assert_no_duplicate_keys(body: &str) {
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    struct Strict;
    impl<'de> Deserialize<'de> for Strict {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
            d.deserialize_any(StrictVisitor)
        }
    }
    struct StrictVisitor;
    impl<'de> Visitor<'de> for StrictVisitor {
        type Value = Strict;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("JSON")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
            let mut seen = std::collections::BTreeSet::new();
            while let Some(k) = map.next_key::<String>()? {
                if !seen.insert(k.clone()) {
                    return Err(serde::de::Error::custom(format!("duplicate key {k:?}")));
                }
                map.next_value::<Strict>()?;
            }
            Ok(Strict)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
            while seq.next_element::<Strict>()?.is_some() {}
            Ok(Strict)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_str<E>(self, _: &str) -> Result<Strict, E> {
            Ok(Strict)
        }
        fn visit_unit<E>(self) -> Result<Strict, E> {
            Ok(Strict)
        }
    }
    if let Err(e) = serde_json::from_str::<Strict>(body) {
        panic!("{e}: {body}");
    }
}

/// The response's `Content-Type`, or "".
pub fn content_type(r: &Response) -> String {
    r.headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string()
}

/// Checks an error response: a 4xx problem document with a `code`, no key twice.
pub fn assert_problem(r: Response, what: &str) -> (u16, Value) {
    let status = r.status().as_u16();
    let ct = content_type(&r);
    let body = r.text().unwrap_or_default();
    assert!(
        (400..500).contains(&status),
        "{what}: expected a 4xx, got {status}: {body}"
    );
    assert_eq!(ct, "application/problem+json", "{what}: {body}");
    assert_no_duplicate_keys(&body);
    let v: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    assert!(v["code"].is_string(), "{what}: no code in {body}");
    assert_eq!(v["status"], status, "{what}: {body}");
    (status, v)
}

/// How many log entries the server played because they were a seat's only choice.
pub fn forced_moves(log: &[Value]) -> usize {
    log.iter()
        .filter(|e| {
            e["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("[forced] "))
        })
        .count()
}

/// The token of the invitation emailed to `address` (waits for the email).
pub fn invitation_token(app: &TestApp, address: &str) -> String {
    let invitation = |m: &&Mail| {
        m.to.eq_ignore_ascii_case(address)
            && m.subject.starts_with("[Turnpost] An invitation to play")
    };
    let mails = app.wait_for_mails(&format!("invitation to {address}"), |m| {
        m.iter().any(|m| invitation(&m))
    });
    let mail = mails.iter().find(invitation).unwrap();
    // The inviter's name is free text: never in the subject.
    assert!(!mail.subject.contains("Ada"), "{}", mail.subject);
    let marker = "http://turnpost.test/api/v1/invitations/";
    let at = mail.text.find(marker).expect("a link in the email") + marker.len();
    let token: String = mail.text[at..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    assert_eq!(token.len(), 64, "{}", mail.text);
    assert!(mail.html.contains(&token), "the HTML part has the link too");
    token
}

/// A PostgreSQL client program (`pg_dump`, `pg_restore`) of the same installation as the
/// server the tests run: beside the real `postgres` binary, which may be reached through a
/// symlink on PATH (`/usr/local/bin/postgres` here) that has no client programs beside it.
pub fn pg_tool(name: &str) -> PathBuf {
    let server = turnpost::embedded_pg::find_bin_dir()
        .expect("PostgreSQL binaries")
        .join("postgres");
    let real = std::fs::canonicalize(&server).unwrap_or(server);
    let tool = real.parent().expect("a bin directory").join(name);
    assert!(tool.is_file(), "no {} beside {}", name, real.display());
    tool
}

/// Reverts migrations newest first until one refuses, and returns its refusal (newer
/// migrations that hold nothing go down on the way).
pub fn revert_until_refused(conn: &mut diesel::PgConnection) -> turnpost::store::MigrationError {
    for _ in 0..64 {
        if let Err(e) = turnpost::store::revert_last(conn) {
            return e;
        }
    }
    panic!("no migration refused to go down")
}

/// How long a test waits for something the server does by itself (a row, a message, an
/// event): generous, because a full run on two shared cores can be slow; a passing wait
/// returns as soon as it sees what it waits for.
pub const PATIENCE: Duration = Duration::from_secs(120);

/// Waits until the outbox of `app` (whose senders run) holds no email that is due and
/// unsent: each one queued so far is sent, dropped or given up. A sender writes a message
/// before it marks its row, so the mails on disk by then are all that will go out for what
/// was queued: a test can say what was not mailed without waiting a while and hoping.
pub fn wait_for_outbox_settled(app: &TestApp) {
    use diesel::{Connection, RunQueryDsl};
    #[derive(diesel::QueryableByName)]
    struct Unsent {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = diesel::PgConnection::establish(&app.database_url).expect("connect");
    let until = Instant::now() + PATIENCE;
    loop {
        let unsent = diesel::sql_query(
            "SELECT count(*) AS n FROM outbox WHERE kind IS DISTINCT FROM 'webhook' \
               AND sent_at IS NULL AND dropped_at IS NULL AND failed_at IS NULL \
               AND next_attempt_at <= now() AND (due_at IS NULL OR due_at <= now())",
        )
        .get_result::<Unsent>(&mut conn)
        .expect("count the unsent emails")
        .n;
        if unsent == 0 {
            return;
        }
        assert!(
            Instant::now() < until,
            "{unsent} emails due and still unsent after {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every game type with a seat count that shows its whole table: Partners with four, so
/// that its secret card exchange happens.
pub const EVERY_GAME: [(&str, usize); 7] = [
    ("kasino", 2),
    ("crossword-rummy", 2),
    ("partners", 4),
    ("fuldrigger", 2),
    ("sp4x", 3),
    ("space-empires-4x", 2),
    ("starfarers", 3),
];
