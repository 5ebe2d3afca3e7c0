//! The web client (`src/web/`) in a real browser: Debian's Chromium, driven over WebDriver
//! (chromedriver, started here on a free port) with fantoccini, against the real server and
//! a real database. People click; the tests read what the page shows, and the browser's
//! own log must hold no error (a failed request, a script error or a blocked resource is
//! one). Screenshots of every game page go to `target/screenshots/`.

use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, fresh_email, spawn_app, spawn_app_with};

mod chat;
mod email_pages;
mod history;
mod kasino_editor;
mod lobby;
mod notes;
mod password_reset;
mod reference;
mod replacement;
mod tabs;
mod your_data;

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "/usr/bin/chromedriver";
/// How long a page may take to show what a step waits for (generous: two shared cores).
const PATIENCE: Duration = Duration::from_secs(120);

/// A chromedriver process on a free port, in a process group of its own with the browsers
/// it starts: dropping it (also when a test fails) ends them all.
struct Driver {
    child: Child,
    url: String,
    profiles: Vec<PathBuf>,
}

impl Driver {
    fn start() -> Driver {
        for bin in [CHROMIUM, CHROMEDRIVER] {
            assert!(
                std::path::Path::new(bin).exists(),
                "{bin} is missing: apt-get install chromium chromium-driver (.ci/run does)"
            );
        }
        // Chromedriver picks its own free port and says which: a port found free here and
        // handed over could be taken by another test's driver first, and the two tests
        // would then share one driver and kill each other's browsers.
        use std::io::BufRead;
        use std::os::unix::process::CommandExt;
        let mut child = Command::new(CHROMEDRIVER)
            .arg("--port=0")
            .process_group(0)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start chromedriver");
        let mut lines = std::io::BufReader::new(child.stdout.take().expect("its output")).lines();
        let port: u16 = lines
            .by_ref()
            .map_while(Result::ok)
            .find_map(|l| {
                l.split_once("started successfully on port ")
                    .and_then(|(_, p)| p.trim_end_matches('.').parse().ok())
            })
            .expect("chromedriver names its port");
        // The rest of its output is read and dropped, so the pipe never fills.
        std::thread::spawn(move || lines.for_each(drop));
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(start.elapsed() < PATIENCE, "chromedriver did not listen");
            std::thread::sleep(Duration::from_millis(50));
        }
        Driver {
            child,
            url: format!("http://127.0.0.1:{port}"),
            profiles: Vec::new(),
        }
    }

    /// A new browser (its own profile, so its own storage): one person at one screen.
    async fn browser(&mut self) -> Client {
        let profile = std::env::temp_dir().join(format!(
            "turnpost-chromium-{}",
            hex::encode(rand::random::<[u8; 8]>())
        ));
        self.profiles.push(profile.clone());
        let caps = json!({
            "goog:chromeOptions": {
                "binary": CHROMIUM,
                // As root, with no network but loopback: no sandbox, no background traffic.
                "args": [
                    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                    "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    "--disable-dev-shm-usage", "--window-size=1100,1000",
                    format!("--user-data-dir={}", profile.display()),
                ],
            },
            "goog:loggingPrefs": {"browser": "ALL"},
        });
        let Value::Object(caps) = caps else {
            unreachable!("a JSON object literal")
        };
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        ClientBuilder::new(connector)
            .capabilities(caps)
            .connect(&self.url)
            .await
            .expect("a Chromium session")
    }

    /// A Chrome DevTools command through chromedriver.
    async fn cdp(&self, c: &Client, cmd: &str, params: Value) -> Value {
        let sid = c.session_id().await.ok().flatten().expect("session id");
        let r: Value = reqwest::Client::new()
            .post(format!("{}/session/{sid}/goog/cdp/execute", self.url))
            .json(&json!({"cmd": cmd, "params": params}))
            .send()
            .await
            .expect("cdp request")
            .json()
            .await
            .expect("cdp json");
        r["value"].clone()
    }

    /// The browser's log entries at level SEVERE since the last call (console errors,
    /// failed loads, blocked resources).
    async fn severe(&self, c: &Client) -> Vec<String> {
        let sid = c.session_id().await.ok().flatten().expect("session id");
        let log: Value = reqwest::Client::new()
            .post(format!("{}/session/{sid}/se/log", self.url))
            .json(&json!({"type": "browser"}))
            .send()
            .await
            .expect("log request")
            .json()
            .await
            .expect("log json");
        log["value"]
            .as_array()
            .expect("log entries")
            .iter()
            .filter(|e| e["level"] == "SEVERE")
            .map(|e| e["message"].as_str().unwrap_or_default().to_string())
            .collect()
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        // The group's id is chromedriver's pid; Chromium's processes are in it too.
        if let Ok(group) = i32::try_from(self.child.id()) {
            // SAFETY: killpg only sends a signal; the group is the one made for this driver.
            unsafe {
                libc::killpg(group, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
        for p in &self.profiles {
            let _ = std::fs::remove_dir_all(p);
        }
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime")
}

/// Evaluates `script` (a function body) in the page.
async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![]).await.expect(script)
}

/// Waits until `script` returns something truthy, and returns it.
async fn wait_for(c: &Client, what: &str, script: &str) -> Value {
    let start = Instant::now();
    loop {
        // A page still busy drawing (Redoc's reference, on a loaded machine) can hold a
        // check past WebDriver's script timeout: that is one more wait, not a failure.
        let v = match c.execute(script, vec![]).await {
            Ok(v) => v,
            Err(e) if e.to_string().contains("script timeout") => Value::Null,
            Err(e) => panic!("{script}: {e}"),
        };
        let done = match &v {
            Value::Null | Value::Bool(false) => false,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if done {
            return v;
        }
        assert!(start.elapsed() < PATIENCE, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Counts, in every page `c` loads from now on (and the one it shows), the requests the
/// page made with `fetch` that are still under way: from the call until the page has read
/// the answer's body (at once for an answer without one), a task later, so that the code
/// that awaited it has run and a request it makes next is counted first. See [`settled`].
async fn watch_requests(driver: &Driver, c: &Client) {
    const WATCH: &str = "(() => {
      if (window.__turnpostOpen) return;
      let open = 0;
      const end = () => setTimeout(() => { open -= 1; }, 0);
      const fetch0 = window.fetch.bind(window);
      window.fetch = (...args) => {
        open += 1;
        return fetch0(...args).then((resp) => {
          let ended = false;
          const once = () => { if (!ended) { ended = true; end(); } };
          if (resp.status === 204 || resp.status === 304 || !resp.body) {
            once();
            return resp;
          }
          for (const m of ['json', 'text', 'arrayBuffer', 'blob', 'formData']) {
            const read = resp[m].bind(resp);
            resp[m] = () => read().finally(once);
          }
          return resp;
        }, (e) => { end(); throw e; });
      };
      window.__turnpostOpen = () => open;
    })();";
    driver
        .cdp(
            c,
            "Page.addScriptToEvaluateOnNewDocument",
            json!({ "source": WATCH }),
        )
        .await;
    js(c, &format!("{WATCH}\nreturn true;")).await;
}

/// Waits until the page has no request under way (see [`watch_requests`]) and still none
/// after two animation frames: what it asked the server for has come and been drawn,
/// including what a page that a quicker navigation replaced was still drawing.
async fn settled(c: &Client, what: &str) {
    let start = Instant::now();
    loop {
        let open = c
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 const open = window.__turnpostOpen;
                 if (!open) { done(-1); return; }
                 if (open() !== 0) { done(open()); return; }
                 requestAnimationFrame(() => requestAnimationFrame(() => done(open())));",
                vec![],
            )
            .await
            .expect("count the page's requests");
        match open.as_i64() {
            Some(0) => return,
            Some(-1) => panic!("{what}: the page's requests are not watched (watch_requests)"),
            _ => {}
        }
        assert!(
            start.elapsed() < PATIENCE,
            "timed out waiting for {what}: {open} requests under way"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Waits for the page's next two animation frames: by then it has handled what came
/// before (a resize, a scroll) and drawn the result.
async fn next_frames(c: &Client) {
    c.execute_async(
        "const done = arguments[arguments.length - 1];
         requestAnimationFrame(() => requestAnimationFrame(() => done(true)));",
        vec![],
    )
    .await
    .expect("two animation frames");
}

async fn css(c: &Client, selector: &str) -> fantoccini::elements::Element {
    c.wait()
        .at_most(PATIENCE)
        .for_element(Locator::Css(selector))
        .await
        .unwrap_or_else(|e| panic!("no {selector}: {e}"))
}

async fn type_into(c: &Client, selector: &str, text: &str) {
    css(c, selector)
        .await
        .send_keys(text)
        .await
        .expect(selector);
}

/// The game page's version and status, from its `data-*` attributes.
async fn shown(c: &Client) -> (i64, String) {
    let v = js(
        c,
        "const g = document.getElementById('game'); \
         return g && g.dataset.version ? [Number(g.dataset.version), g.dataset.status] : null;",
    )
    .await;
    (
        v[0].as_i64().unwrap_or(-1),
        v[1].as_str().unwrap_or("").to_string(),
    )
}

fn screenshots() -> PathBuf {
    // CARGO_TARGET_TMPDIR is <target>/tmp.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .map(|p| p.join("screenshots"))
        .expect("target dir");
    std::fs::create_dir_all(&dir).expect("screenshot dir");
    dir
}

/// A screenshot of the whole page, beyond the window's height.
async fn screenshot(driver: &Driver, c: &Client, name: &str) {
    use base64::Engine;
    let size = js(
        c,
        // The whole window's width: the capture drops the scroll bar, and the page widens.
        "return [window.innerWidth, document.documentElement.scrollHeight];",
    )
    .await;
    let shot = driver
        .cdp(
            c,
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "captureBeyondViewport": true,
                "clip": {"x": 0, "y": 0, "width": size[0], "height": size[1], "scale": 1},
            }),
        )
        .await;
    let png = base64::engine::general_purpose::STANDARD
        .decode(shot["data"].as_str().expect("screenshot data"))
        .expect("base64 png");
    std::fs::write(screenshots().join(name), png).expect("write screenshot");
}

/// On a phone the game page is one column as wide as the screen: only the board scrolls
/// sideways, inside its own frame; no panel, button or text sticks out past the edge.
async fn page_fits_the_phone(c: &Client, kind: &str) {
    wait_for(c, "the phone's width", "return window.innerWidth === 390;").await;
    let v = js(
        c,
        "const board = document.getElementById('board'); \
         return [document.documentElement.scrollWidth, window.innerWidth, \
           [...document.querySelectorAll('main *')] \
             .filter((e) => e.offsetParent && !board.contains(e) \
               && e.getBoundingClientRect().right > window.innerWidth + 1) \
             .map((e) => e.outerHTML.slice(0, 80))];",
    )
    .await;
    assert!(
        v[0].as_i64() <= v[1].as_i64() && v[2] == json!([]),
        "{kind}: wider than the phone: {v}"
    );
}

async fn sign_up(c: &Client, app: &TestApp, name: &str) -> String {
    let email = format!(
        "{}-{}@example.org",
        name.to_lowercase(),
        hex::encode(rand::random::<[u8; 4]>())
    );
    c.goto(&app.url("/#/signup")).await.expect("open sign-up");
    type_into(c, "input[name=name]", name).await;
    type_into(c, "input[name=email]", &email).await;
    type_into(c, "input[name=password]", "correct horse battery").await;
    css(c, "form button[type=submit]")
        .await
        .click()
        .await
        .expect("sign up");
    wait_for(
        c,
        "the lobby",
        "return location.hash === '#/lobby' && document.querySelector('#open-games');",
    )
    .await;
    email
}

#[test]
fn two_people_sign_up_open_join_and_play_kasino_to_the_end_by_clicking() {
    let app = spawn_app();
    let started = Instant::now();
    let (id, token, moves) = runtime().block_on(async {
        let mut driver = Driver::start();
        let ada = driver.browser().await;
        let bo = driver.browser().await;

        sign_up(&ada, &app, "Ada").await;
        css(&ada, "select[name=game_type]")
            .await
            .select_by_value("kasino")
            .await
            .expect("choose Kasino");
        css(&ada, "select[name=players]")
            .await
            .select_by_value("2")
            .await
            .expect("two players");
        css(&ada, "form[aria-labelledby=new-game] button[type=submit]")
            .await
            .click()
            .await
            .expect("create");
        let id = wait_for(
            &ada,
            "the new game's page",
            "const m = /^#\\/game\\/(\\d+)$/.exec(location.hash); \
             return m && document.getElementById('game')?.dataset.status === 'open' ? Number(m[1]) : null;",
        )
        .await
        .as_i64()
        .expect("game id");

        sign_up(&bo, &app, "Bo").await;
        css(&bo, &format!("li[data-game='{id}'] button"))
            .await
            .click()
            .await
            .expect("join");
        // Both pages turn to the started game: Bo's from the join, Ada's from the event stream.
        for c in [&ada, &bo] {
            wait_for(c, "the game to start", "return document.getElementById('game')?.dataset.status === 'active' && document.querySelector('#board svg.picture');").await;
        }
        let setup = started.elapsed();

        let players = [&ada, &bo];
        let mut moves = 0i64;
        let play_started = Instant::now();
        loop {
            let (va, sa) = shown(&ada).await;
            let (vb, sb) = shown(&bo).await;
            assert_eq!(va, vb, "both pages show the same move");
            if sa == "finished" {
                assert_eq!(sb, "finished");
                break;
            }
            assert!(moves < 1000, "the game did not end");
            // Whoever's page offers enabled action buttons moves; any of them will do.
            let mut mover = None;
            for c in players {
                let pick = js(
                    c,
                    &format!(
                        // A long list comes in groups, some folded: open them, as a player
                        // clicks a group's summary to see its moves.
                        "document.querySelectorAll('#actions details').forEach(d => d.open = true); \
                         const b = [...document.querySelectorAll('#actions button.action')]; \
                         const ok = b.map((x, i) => [x, i]).filter(([x]) => !x.disabled && x.checkVisibility()); \
                         return ok.length ? ok[{moves} % ok.length][1] : null;"
                    ),
                )
                .await;
                if let Some(i) = pick.as_u64() {
                    mover = Some((c, i as usize));
                }
            }
            let Some((c, i)) = mover else {
                let mut pages = Vec::new();
                for p in players {
                    screenshot(&driver, p, "no-action.png").await;
                    pages.push(js(p, "return document.getElementById('game')?.outerHTML;").await);
                }
                panic!("move {moves}: nobody has an action button at version {va}: {pages:#?}");
            };
            let buttons = c
                .find_all(Locator::Css("#actions button.action"))
                .await
                .expect("buttons");
            if let Err(e) = buttons[i].click().await {
                screenshot(&driver, c, "failure.png").await;
                let html = js(c, "return document.getElementById('game').outerHTML;").await;
                panic!("move {moves}: choosing action {i} failed: {e}\n{html}");
            }
            // The preview comes first; then the move is played.
            css(c, "#preview button.play:not([disabled])")
                .await
                .click()
                .await
                .expect("play");
            let want = va + 1;
            let start = Instant::now();
            for p in players {
                while shown(p).await.0 < want {
                    if start.elapsed() > PATIENCE {
                        let mut state = Vec::new();
                        for p in players {
                            state.push(js(p, "return [document.getElementById('game')?.dataset.version, \
                                document.getElementById('preview')?.textContent, \
                                document.getElementById('flash')?.textContent];").await);
                        }
                        panic!("move {moves} (to version {want}) did not show on both pages: {state:?}");
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
            moves += 1;
        }
        let playing = play_started.elapsed();

        for c in players {
            let text = css(c, ".status-line").await.text().await.expect("status");
            assert!(text.starts_with("Game over."), "{text}");
            let log_entries = js(c, "return document.querySelectorAll('#log li').length;").await;
            // Every click, and every move the server played because it was the only
            // choice, is one entry.
            let (version, _) = shown(c).await;
            assert!(version >= moves, "{version} versions for {moves} clicks");
            assert_eq!(log_entries.as_i64(), Some(version), "every move is in the log");
            assert_eq!(driver.severe(c).await, Vec::<String>::new(), "browser errors");
        }
        let token = js(&ada, "return sessionStorage.getItem('turnpost.token');").await;
        let token = token.as_str().expect("token kept in sessionStorage").to_string();
        screenshot(&driver, &ada, "kasino-finished.png").await;
        eprintln!(
            "browser Kasino: set-up {setup:?}, {moves} moves clicked in {playing:?} ({:?} per move)",
            playing / moves.max(1) as u32
        );
        for c in [ada, bo] {
            let _ = c.close().await;
        }
        (id, token, moves)
    });
    // The server agrees: the game is over after the moves clicked and those it played
    // because they were a seat's only choice (marked in the log).
    let g: Value = app
        .get(&format!("/api/v1/games/{id}"), Some(&token))
        .json()
        .expect("game");
    assert_eq!(g["status"], "finished");
    let log: Value = app
        .get(&format!("/api/v1/games/{id}/log?limit=1000"), Some(&token))
        .json()
        .expect("log");
    let forced = log
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| {
            e["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("[forced] "))
        })
        .count() as i64;
    assert_eq!(g["version"], moves + forced);
}

/// Where addresses must be confirmed, sign-up answers every address alike (202) and makes
/// the account once the mailed link is followed: the page says to check the mailbox
/// rather than signing in, and the link's button lands the newcomer in the web client,
/// signed in.
#[test]
fn a_sign_up_that_waits_for_its_address_lands_signed_in_from_the_mailed_link() {
    let app = spawn_app_with(|s| s.require_email_verification = true);
    let email = fresh_email("cy");
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        c.goto(&app.url("/#/signup")).await.expect("open sign-up");
        type_into(&c, "input[name=name]", "Cy").await;
        type_into(&c, "input[name=email]", &email).await;
        type_into(&c, "input[name=password]", "correct horse battery").await;
        css(&c, "form button[type=submit]")
            .await
            .click()
            .await
            .expect("sign up");
        let text = wait_for(
            &c,
            "the check-your-email page",
            "const s = document.getElementById('check-your-email'); return s && s.textContent;",
        )
        .await;
        assert!(text.as_str().unwrap_or("").contains(&email), "{text}");
        let token = js(&c, "return sessionStorage.getItem('turnpost.token');").await;
        assert_eq!(token, Value::Null, "not signed in");

        // The mailed link, then its page's button.
        let mails = tokio::task::block_in_place(|| {
            app.wait_for_mails("the sign-up link", |m| {
                m.iter().any(|m| {
                    m.to == email && m.subject == "[Turnpost] Finish creating your account"
                })
            })
        });
        let mail = mails.iter().find(|m| m.to == email).expect("the link");
        let marker = "http://turnpost.test/api/v1/sign-ups/";
        let at = mail.text.find(marker).expect("a link") + marker.len();
        let link: String = mail.text[at..]
            .chars()
            .take_while(char::is_ascii_hexdigit)
            .collect();
        c.goto(&app.url(&format!("/api/v1/sign-ups/{link}")))
            .await
            .expect("follow the link");
        css(&c, "form button[type=submit]")
            .await
            .click()
            .await
            .expect("make the account");
        let landed = wait_for(
            &c,
            "the web client, signed in",
            "const f = document.querySelector('.flash');              return location.hash === '#/games' && sessionStorage.getItem('turnpost.token')                && f && f.textContent.includes('signed in') ? [location.pathname, f.textContent] : null;",
        )
        .await;
        assert_eq!(landed[0], "/", "{landed}");
        screenshot(&driver, &c, "signed-up.png").await;
        let me = js(
            &c,
            "return fetch('/api/v1/me', { headers: { authorization:                'Bearer ' + sessionStorage.getItem('turnpost.token') } }).then((r) => r.json());",
        )
        .await;
        assert_eq!(
            (me["name"].as_str(), me["email_status"].as_str()),
            (Some("Cy"), Some("verified")),
            "{me}"
        );
        assert_eq!(
            driver.severe(&c).await,
            Vec::<String>::new(),
            "browser errors"
        );
        let _ = c.close().await;
    });
}

/// The player of `players` the game waits for first, with their view of it.
pub(super) fn mover<'a>(
    app: &TestApp,
    id: i64,
    players: &[&'a Player],
) -> Option<(&'a Player, Value)> {
    let g = app.game(id, players[0]);
    if g["status"] != "active" {
        return None;
    }
    let seat = g["to_act"][0].clone();
    let p = players.iter().find(|p| {
        g["seats"]
            .as_array()
            .expect("seats")
            .iter()
            .any(|s| s["seat"] == seat && s["account_id"] == p.id)
    })?;
    Some((p, app.game(id, p)))
}

/// Plays the first legal action of the seat to act, through the API.
fn play_first(app: &TestApp, id: i64, players: &[&Player]) -> bool {
    let Some((p, mine)) = mover(app, id, players) else {
        return false;
    };
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"expected_version": mine["version"], "action": mine["legal_actions"][0]}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    true
}

/// [`advance`], for other test modules.
pub fn advance_public(app: &TestApp, id: i64, players: &[&Player], n: usize) {
    advance(app, id, players, n);
}

/// Plays `n` actions through the API, each the first legal action of a seat to act.
fn advance(app: &TestApp, id: i64, players: &[&Player], n: usize) {
    for _ in 0..n {
        if !play_first(app, id, players) {
            return;
        }
    }
}

/// The game types with a move editor (`src/web/editors/`), and action kinds each one
/// composes: its page is checked at a point where one of them is legal, so the editor
/// shows.
const EDITED: [(&str, &[&str]); 5] = [
    ("crossword-rummy", &["take_display", "draw_bag", "meld"]),
    ("fuldrigger", &["offer"]),
    (
        "kasino",
        &[
            "trail",
            "capture",
            "clear_table",
            "build",
            "raise",
            "add_to_build",
        ],
    ),
    ("space-empires-4x", &["move", "build", "research", "bid"]),
    ("starfarers", &["offer_trade", "fly"]),
];

#[test]
fn every_game_types_page_shows_its_board_and_actions_without_browser_errors() {
    let app = spawn_app();
    let types: Value = app.get("/api/v1/game-types", None).json().expect("types");
    let types = types.as_array().expect("type list").clone();
    assert_eq!(types.len(), 7, "seven game types");
    let editors: Value = app
        .get("/web/editors.json", None)
        .json()
        .expect("editor list");
    let mut edited: Vec<&str> = EDITED.iter().map(|(k, _)| *k).collect();
    edited.sort_unstable();
    assert_eq!(editors, json!(edited), "the editors this test knows");
    let people: Vec<Player> = ["Ada", "Bo", "Cy", "Di"]
        .iter()
        .map(|n| app.player(n))
        .collect();
    // Each type's game, filled and a few moves in, through the API (an edited type's on
    // until its editor has something to compose); the page is opened as the player to act.
    let games: Vec<(String, i64, String, i64, bool, Value)> = types
        .iter()
        .map(|t| {
            let kind = t["id"].as_str().expect("type id").to_string();
            let n = t["player_counts"][0].as_u64().expect("player count") as usize;
            let seated: Vec<&Player> = people.iter().take(n).collect();
            let id = app.start_game(&kind, json!({}), &seated);
            advance(&app, id, &seated, 3);
            let composes = EDITED.iter().find(|(k, _)| *k == kind).map(|(_, c)| *c);
            if let Some(composes) = composes {
                let mut moves = 0;
                while !mover(&app, id, &seated).is_some_and(|(_, g)| {
                    g["legal_actions"]
                        .as_array()
                        .expect("legal actions")
                        .iter()
                        .any(|a| composes.iter().any(|c| a["type"] == *c))
                }) {
                    assert!(moves < 60, "{kind}: nothing for the editor in 60 moves");
                    assert!(play_first(&app, id, &seated), "{kind}: the game ended");
                    moves += 1;
                }
            }
            let (p, g) = mover(&app, id, &seated).expect("a player to act");
            let version = g["version"].as_i64().expect("version");
            (kind, id, p.token.clone(), version, composes.is_some(), g)
        })
        .collect();
    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        // The origin's storage is reachable once a page of it is open.
        c.goto(&app.url("/")).await.expect("open the client");
        for (kind, id, token, version, edited, game) in &games {
            let (kind, version) = (kind.as_str(), *version);
            let started = Instant::now();
            js(
                &c,
                &format!(
                    "sessionStorage.setItem('turnpost.token', {}); return true;",
                    json!(token)
                ),
            )
            .await;
            c.set_window_size(1100, 1000).await.expect("resize");
            c.goto(&app.url(&format!("/#/game/{id}")))
                .await
                .expect("open the game");
            // goto() to another fragment of the same page does not reload it.
            c.refresh().await.expect("reload");
            wait_for(
                &c,
                &format!("{kind}: the board picture"),
                "return document.querySelector('#board svg.picture');",
            )
            .await;
            let buttons = wait_for(
                &c,
                &format!("{kind}: the action buttons"),
                "return document.querySelectorAll('#actions button.action').length;",
            )
            .await;
            wait_for(
                &c,
                &format!("{kind}: the log"),
                &format!("return document.querySelectorAll('#log li').length === {version};"),
            )
            .await;
            let (shown_version, status) = shown(&c).await;
            assert_eq!(
                (shown_version, status.as_str()),
                (version, "active"),
                "{kind}"
            );
            if *edited {
                wait_for(
                    &c,
                    &format!("{kind}: the move editor"),
                    "return document.querySelector('#editor .editor')?.childElementCount;",
                )
                .await;
            } else {
                assert_eq!(
                    js(
                        &c,
                        "return document.getElementById('editor').childElementCount;"
                    )
                    .await,
                    json!(0),
                    "{kind}: no editor"
                );
            }
            names_are_shown(&c, kind, game).await;
            assert_eq!(axe(&c).await, Vec::<String>::new(), "{kind}: accessibility");
            screenshot(&driver, &c, &format!("{kind}.png")).await;
            // A phone: the board's smallest text is readable (it scrolls sideways instead).
            c.set_window_size(390, 844).await.expect("phone size");
            let smallest = smallest_board_text(&c).await;
            assert!(
                smallest >= 11.0,
                "{kind}: board text {smallest:.1} px high on a phone"
            );
            page_fits_the_phone(&c, kind).await;
            screenshot(&driver, &c, &format!("{kind}-phone.png")).await;
            c.set_window_size(1100, 1000).await.expect("resize");
            // A move is chosen by clicking on the board picture, previewed and played.
            play_on_the_board(&driver, &c, kind, game).await;
            wait_for(
                &c,
                &format!("{kind}: the preview"),
                "return document.querySelector('#preview button.play:not([disabled])') || \
                 document.querySelector('#preview .error')?.textContent;",
            )
            .await;
            let error = js(
                &c,
                "return document.querySelector('#preview .error')?.textContent || null;",
            )
            .await;
            assert_eq!(error, Value::Null, "{kind}: the preview failed");
            css(&c, "#preview button.play:not([disabled])")
                .await
                .click()
                .await
                .expect("play");
            wait_for(
                &c,
                &format!("{kind}: the move played"),
                &format!(
                    "return Number(document.getElementById('game').dataset.version) > {version};"
                ),
            )
            .await;
            assert_eq!(
                driver.severe(&c).await,
                Vec::<String>::new(),
                "{kind}: browser errors"
            );
            eprintln!(
                "browser {kind}: {} action buttons, page checked in {:?}",
                buttons,
                started.elapsed()
            );
        }
        let _ = c.close().await;
    });
}

/// The seat list names every player with the game's name for their seat, and the board
/// picture names the viewer "You" and the other players by name.
async fn names_are_shown(c: &Client, kind: &str, game: &Value) {
    let seats = game["seats"].as_array().expect("seats");
    let list = js(
        c,
        "return document.querySelector('#game .seats').textContent;",
    )
    .await;
    let list = list.as_str().unwrap_or_default();
    let picture = js(
        c,
        "return document.querySelector('#board svg.picture').textContent;",
    )
    .await;
    let picture = picture.as_str().unwrap_or_default();
    for s in seats {
        let name = s["name"].as_str().expect("name");
        let label = s["label"]
            .as_str()
            .expect("a started game labels its seats");
        assert!(
            list.contains(name) && list.contains(label),
            "{kind}: the seat list names {name} ({label}): {list}"
        );
        if s["seat"] == game["your_seat"] {
            assert!(
                picture.contains("You"),
                "{kind}: the picture calls the viewer You"
            );
        } else {
            assert!(
                picture.contains(name),
                "{kind}: the picture names {name}: {picture}"
            );
        }
    }
}

/// The smallest text of the board picture as drawn, in CSS px.
async fn smallest_board_text(c: &Client) -> f64 {
    wait_for(
        c,
        "the board at its phone size",
        "const svg = document.querySelector('#board svg.picture');          if (!svg) return null;          const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;          const sizes = [...svg.querySelectorAll('text')]            .map((t) => parseFloat(getComputedStyle(t).fontSize) * scale).filter((n) => n > 0);          return sizes.length ? Math.min(...sizes) : null;",
    )
    .await
    .as_f64()
    .expect("a size")
}

/// Chooses the first legal action that involves something on the picture by clicking on
/// it there (each element it names, then among the moves listed if several are left),
/// and waits for its preview.
async fn play_on_the_board(driver: &Driver, c: &Client, kind: &str, game: &Value) {
    let targets = game["legal_action_targets"].as_array().expect("targets");
    let Some((index, names)) = targets
        .iter()
        .enumerate()
        .find(|(_, t)| !t.as_array().expect("a list").is_empty())
    else {
        panic!("{kind}: no legal action can be chosen on the board");
    };
    let mut first = true;
    for t in names.as_array().expect("a list") {
        let t = t.as_str().expect("a token");
        let selector = format!("#board [data-target=\"{t}\"]");
        let el = css(c, &selector).await;
        // A real click where the element can take one; a label drawn over it would
        // take the click instead, so then the element is clicked as a script would.
        if el.click().await.is_err() {
            js(
                c,
                &format!(
                    "document.querySelector({}).dispatchEvent(new MouseEvent('click', {{bubbles: true}})); return true;",
                    json!(selector)
                ),
            )
            .await;
        }
        let left = js(c, "return document.querySelector('#preview .preview') ? 1 : document.querySelectorAll('.board-choices button.action').length;").await;
        if left == json!(1) {
            break;
        }
        if !std::mem::replace(&mut first, false) {
            continue;
        }
        // What the pick makes possible is drawn at once, not on hover (phones have none):
        // every other target of the moves that involve it, painted so that it shows.
        let possible: std::collections::BTreeSet<&str> = targets
            .iter()
            .filter_map(|ts| ts.as_array())
            .filter(|ts| ts.iter().any(|x| x == t))
            .flatten()
            .filter_map(|x| x.as_str())
            .filter(|x| *x != t)
            .collect();
        let marked = js(
            c,
            "return [...document.querySelectorAll('#board [data-target].possible')].map((el) => [el.dataset.target, el.localName === 'g' ? 1 : Number(getComputedStyle(el).fillOpacity), getComputedStyle(el).filter]);",
        )
        .await;
        let marked = marked.as_array().expect("a list");
        screenshot(driver, c, &format!("{kind}-picked.png")).await;
        for want in &possible {
            let Some(m) = marked.iter().find(|m| m[0] == *want) else {
                panic!("{kind}: {want} is possible after picking {t} but not drawn so: {marked:?}");
            };
            assert!(
                m[1].as_f64().unwrap_or(0.0) > 0.0 && m[2] != "none",
                "{kind}: {want} is marked possible but not painted: {m}"
            );
        }
    }
    let previewing = js(c, "return !!document.querySelector('#preview .preview');").await;
    if previewing != json!(true) {
        css(
            c,
            &format!(".board-choices button.action[data-index=\"{index}\"]"),
        )
        .await
        .click()
        .await
        .expect("choose among the moves picked on the board");
    }
}

/// Runs axe-core (vendored) on the page: its serious and critical violations.
async fn axe(c: &Client) -> Vec<String> {
    const AXE: &str = include_str!("../vendor/axe-core/axe.min.js");
    c.execute(&format!("{AXE}\nreturn true;"), vec![])
        .await
        .expect("inject axe");
    let found = c
        .execute_async(
            "const done = arguments[arguments.length - 1];              axe.run(document, {resultTypes: ['violations']}).then((r) => done(r.violations                .filter((v) => v.impact === 'serious' || v.impact === 'critical')                .map((v) => `${v.id} (${v.impact}): ${v.help}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`)),                (e) => done([`axe failed: ${e}`]));",
            vec![],
        )
        .await
        .expect("run axe");
    found
        .as_array()
        .expect("a list")
        .iter()
        .map(|v| v.as_str().unwrap_or_default().to_string())
        .collect()
}

/// Opens game `id` in `c` as the holder of `token`, and waits for its board.
pub(super) async fn open_game(c: &Client, app: &TestApp, id: i64, token: &str) {
    // The origin's storage is reachable once a page of it is open.
    c.goto(&app.url("/")).await.expect("open the client");
    js(
        c,
        &format!(
            "sessionStorage.setItem('turnpost.token', {}); return true;",
            json!(token)
        ),
    )
    .await;
    c.goto(&app.url(&format!("/#/game/{id}")))
        .await
        .expect("open the game");
    // goto() to another fragment of the same page does not reload it.
    c.refresh().await.expect("reload");
    wait_for(
        c,
        "the board picture",
        "return document.querySelector('#board svg.picture');",
    )
    .await;
}

/// The editor's verdict once the server has answered (not "Checking…").
async fn verdict(c: &Client, what: &str) -> String {
    wait_for(
        c,
        what,
        "const s = document.querySelector('#editor .check'); \
         return s && !s.textContent.startsWith('Checking') ? s.textContent : null;",
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_string()
}

#[test]
fn a_crossword_rummy_meld_is_laid_in_the_editor_by_picking_tiles_and_cells() {
    let app = spawn_app();
    let people = [app.player("Ada"), app.player("Bo")];
    let id = app.start_game("crossword-rummy", json!({}), &[&people[0], &people[1]]);
    // Draw from the bag until the player to act holds an opening the game lists (a rack of
    // 15 usually does at once); that meld is the one to build by hand.
    let mut found = None;
    for _ in 0..40 {
        let mover = people
            .iter()
            .find(|p| app.game(id, p)["to_act"][0] == app.game(id, p)["your_seat"])
            .expect("someone to act");
        let g = app.game(id, mover);
        let legal = g["legal_actions"].as_array().expect("legal actions");
        if let Some(meld) = legal.iter().find(|a| a["type"] == "meld") {
            found = Some((mover, meld.clone(), g["version"].as_i64().expect("version")));
            break;
        }
        let r = app.post(
            &format!("/api/v1/games/{id}/actions"),
            Some(&mover.token),
            &json!({"expected_version": g["version"], "action": {"type": "draw_bag"}}),
        );
        assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    }
    let (mover, meld, version) = found.expect("an opening meld within 40 draws");
    let cells: Vec<(String, i64, i64)> = meld["table"]
        .as_array()
        .expect("placements")
        .iter()
        .map(|p| {
            (
                p["tile"].as_str().expect("tile").to_string(),
                p["x"].as_i64().expect("x"),
                p["y"].as_i64().expect("y"),
            )
        })
        .collect();
    assert!(cells.len() >= 3, "{meld}");

    runtime().block_on(async {
        let mut driver = Driver::start();
        let c = driver.browser().await;
        open_game(&c, &app, id, &mover.token).await;
        wait_for(
            &c,
            "the meld editor",
            "return document.querySelector('#editor .cr-grid button.cell');",
        )
        .await;
        let click = |sel: String| {
            let c = c.clone();
            async move {
                css(&c, &sel)
                    .await
                    .click()
                    .await
                    .unwrap_or_else(|e| panic!("click {sel}: {e}"))
            }
        };
        let rack = |t: &str| format!("#editor .cr-rack button[data-tile='{t}']");
        let cell = |x: i64, y: i64| format!("#editor .cr-grid button[data-x='{x}'][data-y='{y}']");

        // One tile alone is no meld: the server's reason shows, and nothing can be played.
        // It goes on an empty cell away from every tile on the table and every cell of
        // the meld (next to a table tile it could join a group, and on one it would pick
        // that tile up instead).
        let (t0, x0, y0) = &cells[0];
        let avoid: Vec<String> = cells.iter().map(|(_, x, y)| format!("{x},{y}")).collect();
        let probe = js(
            &c,
            &format!(
                "const taken = new Set([...document.querySelectorAll('#editor .cr-grid button.cell[data-tile]')] \
                     .map((b) => `${{b.dataset.x}},${{b.dataset.y}}`).concat({avoid:?})); \
                 for (const b of document.querySelectorAll('#editor .cr-grid button.cell.empty')) {{ \
                   const x = Number(b.dataset.x), y = Number(b.dataset.y); \
                   const near = [[0, 0], [1, 0], [-1, 0], [0, 1], [0, -1]] \
                     .some(([dx, dy]) => taken.has(`${{x + dx}},${{y + dy}}`)); \
                   if (!near) return [x, y]; \
                 }} \
                 return null;"
            ),
        )
        .await;
        let (px, py) = (
            probe[0].as_i64().expect("an empty cell away from the tiles"),
            probe[1].as_i64().expect("an empty cell away from the tiles"),
        );
        click(rack(t0)).await;
        click(cell(px, py)).await;
        let said = verdict(&c, "the verdict on one tile").await;
        assert!(said.starts_with("Not valid: "), "{said}");
        let play_disabled = js(
            &c,
            "return [...document.querySelectorAll('#editor button')].find((b) => b.textContent === 'Play meld').disabled;",
        )
        .await;
        assert_eq!(play_disabled, Value::Bool(true), "{said}");
        // Pick the laid tile up again and move it to its cell.
        click(cell(px, py)).await;
        click(cell(*x0, *y0)).await;
        // The middle tiles by mouse.
        for (t, x, y) in &cells[1..cells.len() - 1] {
            click(rack(t)).await;
            click(cell(*x, *y)).await;
        }
        // The last by keyboard: picking a rack tile puts the focus in the grid; the arrow
        // keys walk to the cell and Enter lays the tile.
        let (tn, xn, yn) = cells.last().expect("a last tile");
        click(rack(tn)).await;
        let at = js(
            &c,
            "const b = document.activeElement; return b && b.dataset.x !== undefined ? [Number(b.dataset.x), Number(b.dataset.y)] : null;",
        )
        .await;
        let (mut x, mut y) = (
            at[0].as_i64().expect("focus on a cell"),
            at[1].as_i64().expect("focus on a cell"),
        );
        while (x, y) != (*xn, *yn) {
            let key = if x < *xn {
                x += 1;
                Key::Right
            } else if x > *xn {
                x -= 1;
                Key::Left
            } else if y < *yn {
                y += 1;
                Key::Down
            } else {
                y -= 1;
                Key::Up
            };
            c.active_element()
                .await
                .expect("focus")
                .send_keys(&key)
                .await
                .expect("arrow key");
        }
        c.active_element()
            .await
            .expect("focus")
            .send_keys(&Key::Enter)
            .await
            .expect("enter");

        let said = verdict(&c, "the verdict on the meld").await;
        assert!(said.starts_with("Valid: "), "{said}");
        // The grid holds the meld, each tile on its cell.
        for (t, x, y) in &cells {
            let on = js(
                &c,
                &format!("return document.querySelector(\"{}\")?.dataset.tile || null;", cell(*x, *y)),
            )
            .await;
            assert_eq!(on.as_str(), Some(t.as_str()), "cell ({x},{y})");
        }
        screenshot(&driver, &c, "crossword-rummy-meld.png").await;
        // The editor checks its meld again whenever the page redraws it (a refresh of the
        // game, an event), and keeps "Play meld" disabled for that check: a click that
        // lands then does nothing, which is what failed this test in full runs. Clicked
        // when enabled, in the page's own turn, as a person clicks again once it is.
        let start = Instant::now();
        while js(
            &c,
            "const b = document.querySelector('#editor .check-row button.primary'); \
             if (!b || b.disabled) return false; b.click(); return true;",
        )
        .await
            != Value::Bool(true)
        {
            assert!(start.elapsed() < PATIENCE, "Play meld never enabled");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        // Waited for by hand: when the move does not arrive (seen once in a while in full
        // runs, never alone), the failure says what the page showed and what it logged.
        let played = format!(
            "return Number(document.getElementById('game')?.dataset.version) >= {};",
            version + 1
        );
        let start = Instant::now();
        while js(&c, &played).await != Value::Bool(true) {
            if start.elapsed() > PATIENCE {
                let page = js(
                    &c,
                    "return ['.flash', '#editor .check', '#preview', '#game'].map((s) => \
                       `${s}: ${(document.querySelector(s)?.textContent || '').slice(0, 300)}`).join(' | ') \
                       + ` | version ${document.getElementById('game')?.dataset.version}`;",
                )
                .await;
                let errors = driver.severe(&c).await;
                panic!("timed out waiting for the meld played: {page} | browser errors: {errors:?}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // The refusals of the lone tile are the only errors: the browser logs every 4xx
        // answer, and the preview answers an illegal meld with 409 (`illegal_action`).
        for e in driver.severe(&c).await {
            assert!(
                e.contains(&format!("/api/v1/games/{id}/preview")) && e.contains("409"),
                "browser error: {e}"
            );
        }
        let _ = c.close().await;
    });
    // The server's table now holds exactly the meld's tiles, on its cells.
    let g = app.game(id, mover);
    assert_eq!(g["version"].as_i64(), Some(version + 1));
    let mut table: Vec<(String, i64, i64)> = g["view"]["table"]
        .as_array()
        .expect("table")
        .iter()
        .map(|p| {
            (
                p["tile"].as_str().expect("tile").to_string(),
                p["x"].as_i64().expect("x"),
                p["y"].as_i64().expect("y"),
            )
        })
        .collect();
    let mut want = cells.clone();
    table.sort();
    want.sort();
    assert_eq!(table, want);
}

#[test]
fn a_visitor_watches_a_public_game_live_and_a_creator_invites_from_the_form() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let invitee = format!(
        "friend-{}@example.org",
        hex::encode(rand::random::<[u8; 4]>())
    );
    let created = runtime().block_on(async {
        let mut driver = Driver::start();
        // Nobody signed in: the page of a public game shows it, read-only.
        let visitor = driver.browser().await;
        visitor
            .goto(&app.url(&format!("/#/game/{id}")))
            .await
            .expect("open the game");
        wait_for(
            &visitor,
            "the spectator's board",
            "return document.querySelector('#board svg.picture');",
        )
        .await;
        wait_for(
            &visitor,
            "the spectator's status line",
            "const s = document.querySelector('.status-line'); \
             return s && s.textContent.includes('You are watching');",
        )
        .await;
        let buttons = js(
            &visitor,
            "return document.querySelectorAll('button.action').length;",
        )
        .await;
        assert_eq!(buttons, 0, "a spectator has no moves");
        // A move made meanwhile arrives by the game's stream.
        // (Blocking HTTP from inside the browser's runtime: on a thread that may block.)
        assert!(tokio::task::block_in_place(|| play_first(
            &app,
            id,
            &[&ada, &bo]
        )));
        wait_for(
            &visitor,
            "the move, live",
            "const g = document.querySelector('#game'); return g && g.dataset.version !== '0';",
        )
        .await;

        // A signed-in creator opens a private game with an invitation by the form.
        let creator = driver.browser().await;
        sign_up(&creator, &app, "Cy").await;
        css(&creator, "select[name=game_type]")
            .await
            .select_by_value("kasino")
            .await
            .expect("choose Kasino");
        css(&creator, "select[name=players]")
            .await
            .select_by_value("2")
            .await
            .expect("two players");
        css(&creator, "input[name=private]")
            .await
            .click()
            .await
            .expect("private");
        type_into(&creator, "textarea[name=invite]", &invitee).await;
        css(
            &creator,
            "form[aria-labelledby=new-game] button[type=submit]",
        )
        .await
        .click()
        .await
        .expect("create");
        let pending = wait_for(
            &creator,
            "the pending invitation on the game's page",
            "const li = document.querySelector('#invitations li[data-status=pending]'); \
             return li && li.textContent;",
        )
        .await;
        assert!(
            pending.as_str().unwrap_or("").contains(&invitee),
            "{pending}"
        );
        let created = wait_for(
            &creator,
            "the game's id",
            "const m = location.hash.match(/game\\/(\\d+)/); return m && Number(m[1]);",
        )
        .await;
        created.as_i64().expect("id")
    });
    // The server has it as the form said: private, with the invitation.
    let g: Value = app
        .get(&format!("/api/v1/games/{created}"), None)
        .json()
        .expect("json");
    assert_eq!(g["code"], "game_not_found", "private: hidden from visitors");
    app.wait_for_mails("the invitation", |m| m.iter().any(|m| m.to == invitee));
}

/// Keeps `token` for every tab of the browser (as "keep me signed in" does).
async fn remember(c: &Client, app: &TestApp, token: &str) {
    c.goto(&app.url("/")).await.expect("open the client");
    js(
        c,
        &format!(
            "localStorage.setItem('turnpost.token', {}); return true;",
            json!(token)
        ),
    )
    .await;
}
