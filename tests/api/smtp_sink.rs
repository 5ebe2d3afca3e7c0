//! Turn emails over real SMTP into a local sink (Python's aiosmtpd, writing a Maildir), and
//! the reply loop closed through the inbound endpoint.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::helpers::MAIL_PATIENCE_SECS;

use secrecy::SecretString;
use serde_json::{Value, json};

use crate::email_play::{choices, reply};
use crate::helpers::{Mail, forced_moves, spawn_app_with};

/// The aiosmtpd process; killed when dropped.
pub struct Sink {
    child: Child,
    pub port: u16,
    dir: PathBuf,
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Sink {
    pub fn start() -> Sink {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        Sink::start_on(port)
    }

    /// A sink on `port` (one nothing listens on yet).
    pub fn start_on(port: u16) -> Sink {
        Sink::start_with(port, "aiosmtpd.handlers.Mailbox", None)
    }

    /// A sink that refuses recipients whose local part starts with `unknown` for good
    /// (`550 5.1.1`, as a mail server answers for a mailbox that does not exist) and those
    /// starting with `busy` for now (`450 4.2.1`), and keeps the rest.
    pub fn start_refusing() -> Sink {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let module = std::env::temp_dir().join(format!(
            "turnpost-refusing-{}",
            hex::encode(rand::random::<[u8; 6]>())
        ));
        std::fs::create_dir_all(&module).unwrap();
        std::fs::write(module.join("refusing.py"), REFUSING_HANDLER).unwrap();
        Sink::start_with(port, "refusing.Refusing", Some(&module))
    }

    fn start_with(port: u16, handler: &str, python_path: Option<&Path>) -> Sink {
        let dir = std::env::temp_dir().join(format!(
            "turnpost-smtp-{}",
            hex::encode(rand::random::<[u8; 6]>())
        ));
        // aiosmtpd's Mailbox handler creates the Maildir (new/, cur/, tmp/) itself.
        let mut command = Command::new("python3");
        if let Some(p) = python_path {
            command.env("PYTHONPATH", p);
        }
        let child = command
            .args([
                "-m",
                "aiosmtpd",
                "-n",
                "-l",
                &format!("127.0.0.1:{port}"),
                "-c",
                handler,
            ])
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("python3 with aiosmtpd (pip install aiosmtpd; .ci/run installs it)");
        let sink = Sink { child, port, dir };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(MAIL_PATIENCE_SECS),
                "aiosmtpd did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        sink
    }

    /// Every message the sink received over SMTP, as received.
    pub fn raw_mails(&self) -> Vec<Vec<u8>> {
        let new = self.dir.join("new");
        let Ok(rd) = std::fs::read_dir(&new) else {
            return Vec::new();
        };
        rd.filter_map(|e| e.ok())
            .filter_map(|e| std::fs::read(e.path()).ok())
            .collect()
    }

    pub fn wait_for(&self, what: &str, pred: impl Fn(&Mail) -> bool) -> Mail {
        self.wait_for_raw(what, |m| pred(m)).0
    }

    /// The first message for which `pred` holds, parsed and as received.
    pub fn wait_for_raw(&self, what: &str, pred: impl Fn(&Mail) -> bool) -> (Mail, Vec<u8>) {
        let start = Instant::now();
        loop {
            let found = self
                .raw_mails()
                .into_iter()
                .find_map(|raw| Mail::parse(&raw).filter(|m| pred(m)).map(|m| (m, raw)));
            if let Some(m) = found {
                return m;
            }
            assert!(
                start.elapsed() < Duration::from_secs(MAIL_PATIENCE_SECS),
                "no mail over SMTP: {what}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// aiosmtpd's Maildir handler, refusing some recipients at RCPT (see
/// [`Sink::start_refusing`]).
const REFUSING_HANDLER: &str = r#"
from aiosmtpd.handlers import Mailbox

class Refusing(Mailbox):
    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        local = address.split("@")[0].lower()
        if local.startswith("unknown"):
            return "550 5.1.1 <%s>: Recipient address rejected: User unknown" % address
        if local.startswith("busy"):
            return "450 4.2.1 <%s>: Mailbox busy, try again later" % address
        envelope.rcpt_tos.append(address)
        return "250 OK"
"#;

fn files_in(dir: &Path) -> usize {
    std::fs::read_dir(dir).map(|r| r.count()).unwrap_or(0)
}

#[test]
fn turn_emails_arrive_over_smtp_and_replies_close_the_loop() {
    let sink = Sink::start();
    let url = format!("smtp://127.0.0.1:{}", sink.port);
    let app = spawn_app_with(|s| s.smtp_url = Some(SecretString::from(url)));
    let ada = app.player("Ada");
    let bo = app.player("Bo");
    let players = [&ada, &bo];
    let id = app.start_game("kasino", json!({}), &players);
    for round in 0..4 {
        let g = app.game(id, &ada);
        let version = g["version"].as_i64().unwrap();
        let seat = g["to_act"][0].as_i64().unwrap();
        let p = players[seat as usize];
        let marker = format!("play+{id}-{seat}-{version}-");
        let mail = sink.wait_for(&marker, |m| {
            m.to == p.email && m.reply_to.starts_with(&marker)
        });
        assert!(
            mail.subject == format!("[Turnpost] Kasino #{id}: your turn") || round > 0,
            "{}",
            mail.subject
        );
        let list = choices(&mail);
        assert!(!list.is_empty());
        let mid = format!("smtp-loop-{round}@mail.example.org");
        let raw = reply(
            &p.email,
            &mail.reply_to,
            &mail.subject,
            "1",
            &mail.text,
            &mid,
        );
        let r = app.inbound(&raw);
        assert_eq!(r.status(), 200);
        let v: Value = r.json().unwrap();
        assert_eq!(v["outcome"], "applied", "{v}");
        assert_eq!(v["applied"][0], list[0]);
        // The answer comes back over SMTP too, threaded under the reply.
        let answer = sink.wait_for("the answer", |m| m.in_reply_to == format!("<{mid}>"));
        assert_eq!(answer.to, p.email);
        assert!(answer.text.contains("Played:"));
    }
    // Four replies played, and any move that was a seat's only choice played itself.
    let log = app.log(id, &ada);
    let chosen = log.len() - forced_moves(&log);
    assert_eq!(chosen, 4, "{log:?}");
    assert_eq!(app.game(id, &ada)["version"], log.len());
    // Nothing went to files: the SMTP transport carried everything.
    assert_eq!(files_in(&app.mail_dir), 0);
}
