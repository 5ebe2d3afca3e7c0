//! A reply from another mail server, through a real Postfix set up as the hosts' guide's
//! "Connecting an MTA" says (`src/docs/hosting.md`), reaches the game by `turnpost deliver`;
//! while the server is down, Postfix keeps the reply queued (nothing bounces) and delivers it
//! once the server is back. And the guide's Postfix and systemd steps, in either order, leave
//! the inbound secret readable by the pipe's user.
//!
//! The test runs its own Postfix instance (its own configuration, queue and log under a
//! temporary directory, listening on loopback only on a free port) and stops it at the end,
//! failed or not. Postfix's master must start as root: without root, or without Postfix
//! installed (Debian: `apt-get install postfix`, as `.ci/run` does), the test says so and
//! passes without running.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use lettre::address::Envelope;
use lettre::transport::smtp::extension::ClientId;
use lettre::{SmtpTransport, Transport};
use serde_json::json;

use crate::email_play::first_choice_reply;
use crate::helpers::{
    INBOUND_SECRET, MAIL_PATIENCE_SECS, Player, TestApp, spawn_app_on, spawn_app_with,
};

const POSTFIX: &str = "/usr/sbin/postfix";
/// The reply domain of every test app (`play@turnpost.test`).
const REPLY_DOMAIN: &str = "turnpost.test";

/// The hosts' guide's Postfix lines, read from its "Connecting an MTA" block, for the test's
/// own domain, user and paths: (main.cf settings, the transport table's line, master.cf's
/// service). The test runs what the guide says, not a copy that could drift from it.
struct ReadmeLines {
    main_cf: Vec<String>,
    transport: String,
    master_cf: String,
}

/// Where the hosts' guide's Postfix commands follow.
const POSTFIX_SECTION: &str = "*Postfix* (tested: `tests/api/postfix.rs`";
/// Where the hosts' guide's systemd commands follow.
const SYSTEMD_SECTION: &str = "### As a systemd service";

/// The first `sh` block of the hosts' guide after `marker`.
fn readme_sh_block(marker: &str) -> String {
    let guide = include_str!("../../src/docs/hosting.md");
    let at = guide
        .find(marker)
        .unwrap_or_else(|| panic!("src/docs/hosting.md has no {marker:?}"));
    let block = &guide[at..];
    let block = &block[block.find("```sh").expect("its commands") + 5..];
    block[..block.find("```").expect("their end")].to_string()
}

fn readme_lines(substitutions: &[(&str, String)]) -> ReadmeLines {
    let mut text = readme_sh_block(POSTFIX_SECTION);
    for (from, to) in substitutions {
        assert!(
            text.contains(from),
            "the hosts' guide's Postfix lines name no {from}"
        );
        text = text.replace(from, to);
    }
    let lines: Vec<&str> = text.lines().collect();
    // `postconf -e 'name = value' \` and its continuation lines.
    let first = lines
        .iter()
        .position(|l| l.starts_with("postconf -e "))
        .expect("postconf -e");
    let mut main_cf = Vec::new();
    for line in &lines[first..] {
        let quoted: Vec<&str> = line.split('\'').collect();
        main_cf.extend(quoted.iter().skip(1).step_by(2).map(|q| q.to_string()));
        if !line.trim_end().ends_with('\\') {
            break;
        }
    }
    let transport = lines
        .iter()
        .find_map(|l| l.strip_prefix("echo '")?.split('\'').next())
        .expect("the transport line")
        .to_string();
    let start = lines
        .iter()
        .position(|l| l.ends_with("<<'END'"))
        .expect("the master.cf lines");
    let end = start
        + lines[start..]
            .iter()
            .position(|l| *l == "END")
            .expect("END");
    ReadmeLines {
        main_cf,
        transport,
        master_cf: lines[start + 1..end].join("\n") + "\n",
    }
}

/// A Postfix instance of the test's own; stopped when dropped.
struct Postfix {
    root: PathBuf,
    conf: PathBuf,
    port: u16,
}

impl Drop for Postfix {
    fn drop(&mut self) {
        let _ = self.postfix(&["stop"]);
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(program: &str, args: &[&str]) -> Output {
    Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"))
}

/// The numeric id of `user`'s group (`id -g`).
fn group_of(user: &str) -> u32 {
    let out = run("id", &["-g", user]);
    assert!(out.status.success(), "no user {user}");
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

impl Postfix {
    /// Starts Postfix with the hosts' guide's reply path: the reply domain relayed to the
    /// `turnpost` pipe transport, which runs `turnpost deliver` as `user` with the secret in
    /// `secret_file`, posting to `url`.
    fn start(url: &str, user: &str, secret_file: &Path, agent: &Path) -> Postfix {
        let root = std::env::temp_dir().join(format!(
            "turnpost-postfix-{}",
            hex::encode(rand::random::<[u8; 6]>())
        ));
        let conf = root.join("conf");
        let data = root.join("data");
        for d in [&conf, &data, &root.join("queue")] {
            std::fs::create_dir_all(d).unwrap();
        }
        // Postfix's daemons run as `postfix` (made by the Debian package) and keep their
        // state in the data directory.
        let out = run("chown", &["postfix", data.to_str().unwrap()]);
        assert!(out.status.success(), "chown postfix: {out:?}");
        let port = free_port();
        let transport = conf.join("transport");
        let readme = readme_lines(&[
            ("play.example.org", REPLY_DOMAIN.to_string()),
            ("/etc/postfix/transport", transport.display().to_string()),
            ("user=turnpost-mail", format!("user={user}")),
            ("/usr/local/bin/turnpost", agent.display().to_string()),
            ("http://127.0.0.1:8080", url.to_string()),
            (
                "/etc/turnpost/inbound-secret",
                secret_file.display().to_string(),
            ),
        ]);
        let root_s = root.display();
        let main_cf = format!(
            "# The test instance's own places, and loopback only.\n\
             compatibility_level = 3.6\n\
             queue_directory = {root_s}/queue\n\
             data_directory = {root_s}/data\n\
             maillog_file = {root_s}/maillog\n\
             maillog_file_prefixes = {root_s}\n\
             inet_interfaces = 127.0.0.1\n\
             inet_protocols = ipv4\n\
             myhostname = mx.{REPLY_DOMAIN}\n\
             mydestination =\n\
             alias_maps =\n\
             alias_database =\n\
             # No network is trusted (TEST-NET-1 is nobody's): the test's loopback client is\n\
             # a stranger like any mail server on the Internet, and may only send to domains\n\
             # this server takes mail for.\n\
             mynetworks = 192.0.2.0/24\n\
             # Nothing else ever leaves this instance (bounces included).\n\
             default_transport = discard\n\
             \n\
             # The hosts' guide's lines.\n{}\n",
            readme.main_cf.join("\n")
        );
        std::fs::write(conf.join("main.cf"), main_cf).unwrap();
        std::fs::write(&transport, format!("{}\n", readme.transport)).unwrap();
        let master_cf = format!(
            "{port}      inet  n       -       n       -       -       smtpd\n\
             pickup    unix  n       -       n       60      1       pickup\n\
             cleanup   unix  n       -       n       -       0       cleanup\n\
             qmgr      unix  n       -       n       300     1       qmgr\n\
             rewrite   unix  -       -       n       -       -       trivial-rewrite\n\
             bounce    unix  -       -       n       -       0       bounce\n\
             defer     unix  -       -       n       -       0       bounce\n\
             trace     unix  -       -       n       -       0       bounce\n\
             verify    unix  -       -       n       -       1       verify\n\
             flush     unix  n       -       n       1000?   0       flush\n\
             proxymap  unix  -       -       n       -       -       proxymap\n\
             showq     unix  n       -       n       -       -       showq\n\
             error     unix  -       -       n       -       -       error\n\
             retry     unix  -       -       n       -       -       error\n\
             discard   unix  -       -       n       -       -       discard\n\
             anvil     unix  -       -       n       -       1       anvil\n\
             scache    unix  -       -       n       -       1       scache\n\
             postlog   unix-dgram n  -       n       -       1       postlogd\n\
             # The hosts' guide's service.\n{}",
            readme.master_cf
        );
        std::fs::write(conf.join("master.cf"), master_cf).unwrap();
        let out = run(
            "/usr/sbin/postmap",
            &["-c", conf.to_str().unwrap(), transport.to_str().unwrap()],
        );
        assert!(out.status.success(), "postmap: {out:?}");
        let postfix = Postfix { root, conf, port };
        let out = postfix.postfix(&["start"]);
        assert!(
            out.status.success(),
            "postfix start: {out:?}\n{}",
            postfix.log()
        );
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "Postfix does not listen on {port}:\n{}",
                postfix.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        postfix
    }

    fn postfix(&self, args: &[&str]) -> Output {
        let mut all = vec!["-c", self.conf.to_str().unwrap()];
        all.extend_from_slice(args);
        run(POSTFIX, &all)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.root.join("maillog")).unwrap_or_default()
    }

    /// `postqueue -p`: the queue as an operator sees it.
    fn queue(&self) -> String {
        let out = run(
            "/usr/sbin/postqueue",
            &["-c", self.conf.to_str().unwrap(), "-p"],
        );
        String::from_utf8_lossy(&out.stdout).to_string()
    }

    /// `postqueue -f`: deliver everything queued now.
    fn flush(&self) {
        let out = run(
            "/usr/sbin/postqueue",
            &["-c", self.conf.to_str().unwrap(), "-f"],
        );
        assert!(out.status.success(), "postqueue -f: {out:?}");
    }

    /// Sends `raw` to this Postfix over SMTP, as another mail server would: from
    /// `mail.example.org`, for the envelope sender `from` and recipient `to`.
    fn receive(&self, from: &str, to: &str, raw: &[u8]) {
        let smtp = SmtpTransport::builder_dangerous("127.0.0.1")
            .port(self.port)
            .hello_name(ClientId::Domain("mail.example.org".into()))
            .timeout(Some(Duration::from_secs(30)))
            .build();
        let envelope =
            Envelope::new(Some(from.parse().unwrap()), vec![to.parse().unwrap()]).unwrap();
        if let Err(e) = smtp.send_raw(&envelope, raw) {
            panic!("Postfix refused the reply: {e}\n{}", self.log());
        }
    }

    /// Waits until the log says `what` of `recipient`.
    fn wait_log(&self, recipient: &str, what: &str) {
        let start = Instant::now();
        let to = format!("to=<{recipient}>");
        while !self
            .log()
            .lines()
            .any(|l| l.contains(&to) && l.contains(what))
        {
            assert!(
                start.elapsed() < Duration::from_secs(MAIL_PATIENCE_SECS),
                "no {what} for {recipient}:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

/// Waits until game `id` is past `version`.
fn wait_past(app: &TestApp, id: i64, p: &Player, version: i64, what: &str) {
    let start = Instant::now();
    while app.game(id, p)["version"].as_i64().unwrap() <= version {
        assert!(
            start.elapsed() < Duration::from_secs(MAIL_PATIENCE_SECS),
            "{what}: the game is still at version {version}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The agent where the pipe's user can run it: the build directory may be closed to
/// other users (a home directory), so a link (or copy) under an open temporary directory.
fn agent_for_others(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    let agent = dir.join("turnpost");
    let built = Path::new(env!("CARGO_BIN_EXE_turnpost"));
    if std::fs::hard_link(built, &agent).is_err() {
        std::fs::copy(built, &agent).unwrap();
    }
    std::fs::set_permissions(&agent, std::fs::Permissions::from_mode(0o755)).unwrap();
    agent
}

#[test]
fn a_reply_from_another_mail_server_reaches_the_game_through_postfix_and_waits_out_a_stopped_server()
 {
    if !Path::new(POSTFIX).exists() {
        eprintln!("SKIPPED: {POSTFIX} is not installed (Debian: apt-get install postfix)");
        return;
    }
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: Postfix's master must start as root");
        return;
    }
    // The server keeps its port across the restart: the pipe's --url names it.
    let port = free_port();
    let bind = format!("127.0.0.1:{port}");
    let app = spawn_app_with(|s| s.bind = bind.clone());
    let url = app.address.clone();
    let database_url = app.database_url.clone();

    // The hosts' guide's secret file: root:<the pipe user's group>, 0640. The pipe runs as
    // `nobody` here (the guide makes a user of its own, `turnpost-mail`).
    use std::os::unix::fs::PermissionsExt;
    let user = "nobody";
    let dir = std::env::temp_dir().join(format!(
        "turnpost-agent-{}",
        hex::encode(rand::random::<[u8; 6]>())
    ));
    let agent = agent_for_others(&dir);
    let secret = dir.join("inbound-secret");
    std::fs::write(&secret, format!("{INBOUND_SECRET}\n")).unwrap();
    std::os::unix::fs::chown(&secret, Some(0), Some(group_of(user))).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o640)).unwrap();
    let postfix = Postfix::start(&url, user, &secret, &agent);

    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);

    // A reply through Postfix is played.
    let (from, to, raw, version) =
        first_choice_reply(&app, id, &players, "postfix-1@mail.example.org");
    assert!(to.ends_with(&format!("@{REPLY_DOMAIN}")), "{to}");
    postfix.receive(&from, &to, &raw);
    wait_past(&app, id, &ada, version, "the first reply");
    postfix.wait_log(&to, "status=sent");

    // With the server stopped, the next reply stays in Postfix's queue; nothing bounces.
    let (from, to, raw, version) =
        first_choice_reply(&app, id, &players, "postfix-2@mail.example.org");
    drop(app);
    let start = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_ok() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the server does not stop"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    postfix.receive(&from, &to, &raw);
    postfix.wait_log(&to, "status=deferred");
    let queue = postfix.queue();
    assert!(
        queue.contains(&to),
        "not queued:\n{queue}\n{}",
        postfix.log()
    );
    assert!(
        !postfix.log().contains("status=bounced"),
        "{}",
        postfix.log()
    );

    // The server back (the same database, the same port): a flush plays the reply.
    let app = spawn_app_on(database_url, |s| s.bind = bind.clone());
    assert_eq!(app.address, url);
    postfix.flush();
    wait_past(&app, id, &ada, version, "the queued reply");
    postfix.wait_log(&to, "status=sent");
    let start = Instant::now();
    while !postfix.queue().contains("Mail queue is empty") {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{}",
            postfix.queue()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !postfix.log().contains("status=bounced"),
        "{}",
        postfix.log()
    );
    drop(postfix);
    let _ = std::fs::remove_dir_all(dir);
}

/// The hosts' guide's Postfix and systemd steps, each run as written (under a scratch root:
/// `/etc/...` and `/usr/local/bin` moved into it, the commands that reach the running
/// system stubbed, the users they make made for real), in both orders: whichever comes
/// first, the pipe's user reads the inbound secret, and the service's secrets stay closed
/// to it. A Postfix section then the systemd section once left `/etc/turnpost` closed to
/// the pipe, and every emailed move was deferred, then bounced.
#[test]
fn the_pipe_user_reads_the_secret_whichever_of_the_postfix_and_systemd_steps_come_first() {
    use std::os::unix::fs::PermissionsExt;
    // SAFETY: geteuid has no preconditions.
    assert_eq!(
        unsafe { libc::geteuid() },
        0,
        "the hosts' guide's steps make users and change owners: run the suite as root (CI does)"
    );
    let postfix = readme_sh_block(POSTFIX_SECTION);
    let systemd = readme_sh_block(SYSTEMD_SECTION);
    let pipe_user = postfix
        .split_whitespace()
        .find_map(|w| w.strip_prefix("user="))
        .expect("the pipe's user= in master.cf")
        .to_string();
    let unit = include_str!("../../config/turnpost.service");
    let service_user = unit
        .lines()
        .find_map(|l| l.strip_prefix("User="))
        .expect("the unit's User=")
        .to_string();

    let scratch = std::env::temp_dir().join(format!(
        "turnpost-install-{}",
        hex::encode(rand::random::<[u8; 6]>())
    ));
    // Commands that act on the running system, which these steps only ask to reload.
    let stubs = scratch.join("stubs");
    std::fs::create_dir_all(&stubs).unwrap();
    let stub = |name: &str, body: &str| {
        let path = stubs.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    for name in [
        "cargo",
        "systemctl",
        "journalctl",
        "postconf",
        "postmap",
        "postfix",
    ] {
        stub(name, "exit 0");
    }
    // The users are made once: a host follows each section once, this test both twice.
    stub(
        "useradd",
        "for name; do :; done\nid -u \"$name\" >/dev/null 2>&1 || exec /usr/sbin/useradd \"$@\"",
    );

    for (order, blocks) in [
        ("Postfix, then systemd", [&postfix, &systemd]),
        ("systemd, then Postfix", [&systemd, &postfix]),
    ] {
        let root = scratch.join(order.replace([',', ' '], ""));
        for d in ["etc/postfix", "etc/systemd/system", "bin"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for d in [&scratch, &root, &root.join("etc")] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let etc = root.join("etc").display().to_string();
        let bin = root.join("bin").display().to_string();
        let script: Vec<String> = blocks
            .iter()
            .map(|b| {
                b.replace("target/release/turnpost", env!("CARGO_BIN_EXE_turnpost"))
                    .replace("/etc/", &format!("{etc}/"))
                    .replace("/usr/local/bin", &bin)
            })
            .collect();
        let script = script.join("\n");
        assert!(
            !script.replace(&etc, "").contains("/etc/") && !script.contains("/usr/local"),
            "a step the test does not move into its scratch root:\n{script}"
        );
        let out = Command::new("bash")
            .args(["-e", "-c", &script])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env(
                "PATH",
                format!("{}:{}", stubs.display(), std::env::var("PATH").unwrap()),
            )
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{order}: the steps failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let as_user = |user: &str, args: &[&str]| {
            let mut all = vec!["-u", user, "--"];
            all.extend_from_slice(args);
            run("runuser", &all)
        };
        let dir = format!("{etc}/turnpost");
        let secret = format!("{dir}/inbound-secret");
        let read = as_user(&pipe_user, &["cat", &secret]);
        let modes = run("ls", &["-la", &dir]);
        let modes = String::from_utf8_lossy(&modes.stdout);
        assert!(
            read.status.success() && !read.stdout.is_empty(),
            "{order}: {pipe_user} cannot read {secret}: {}\n{modes}",
            String::from_utf8_lossy(&read.stderr)
        );
        // The server reaches its settings; the pipe's user does not read the server's.
        let config = as_user(&service_user, &["ls", &format!("{dir}/config")]);
        assert!(config.status.success(), "{order}: {config:?}\n{modes}");
        let env = as_user(&pipe_user, &["cat", &format!("{dir}/env")]);
        assert!(
            !env.status.success(),
            "{order}: {pipe_user} reads env\n{modes}"
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}
