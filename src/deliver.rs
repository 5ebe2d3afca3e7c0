//! `turnpost deliver <recipient>`: the delivery agent a mail server pipes each reply to.
//! It reads one raw message on standard input, posts it to the server's inbound endpoint
//! and tells the mail server what became of it by its exit status (sysexits.h), with a
//! one-line reason on standard error, which the mail server writes into its log and into
//! the defer or bounce notice:
//!
//! - 0: the server processed the message (a refused move is answered by email, so any
//!   `200` is a delivery);
//! - 75 (`EX_TEMPFAIL`): try again later. Everything that may pass by itself or by an
//!   operator's fix: the server down or slow, any 5xx, 429, and also a refused secret or a
//!   missing URL or secret: a misconfigured agent must make the mail server keep players'
//!   moves queued, not bounce them;
//! - 65 (`EX_DATAERR`): this message can never be processed (empty, too large, not a
//!   message: 413, 415, 422): the mail server bounces it to its sender.
//!
//! Any other status would be read by Postfix as a bounce, so argument errors exit 75 too
//! (see `cli::main`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};

use crate::api::inbound::MAX_MESSAGE_BYTES;

/// Processed: the mail server's job is done.
pub const EX_OK: u8 = 0;
/// The message can never be processed: bounce it.
pub const EX_DATAERR: u8 = 65;
/// Not now: keep it queued and try again.
pub const EX_TEMPFAIL: u8 = 75;

/// What the agent was asked to do, from its command line and environment.
pub struct DeliverArgs {
    /// The envelope recipient (Postfix: `${recipient}`), passed on as `?to=`.
    pub recipient: String,
    /// The server's base address (the inbound endpoint's path is added).
    pub url: Option<String>,
    /// A file holding the inbound secret; else `TURNPOST_INBOUND_SECRET`.
    pub secret_file: Option<PathBuf>,
    /// The whole exchange with the server may take this long.
    pub timeout: Duration,
}

/// A decision: the exit status, and the line for standard error (none on success).
#[derive(Debug, PartialEq, Eq)]
pub struct Verdict {
    pub code: u8,
    pub reason: String,
}

impl Verdict {
    fn temp(reason: impl Into<String>) -> Verdict {
        Verdict {
            code: EX_TEMPFAIL,
            reason: reason.into(),
        }
    }

    fn data(reason: impl Into<String>) -> Verdict {
        Verdict {
            code: EX_DATAERR,
            reason: reason.into(),
        }
    }
}

/// Runs the agent: reads standard input, posts it, and returns the exit status.
pub fn run(args: DeliverArgs) -> ExitCode {
    let verdict = deliver(&args, &mut std::io::stdin().lock());
    if !verdict.reason.is_empty() {
        // One line: the mail server quotes it in its log and notices.
        eprintln!("turnpost deliver: {}", verdict.reason.replace('\n', " "));
    }
    ExitCode::from(verdict.code)
}

/// The longest envelope address SMTP can carry (RFC 5321: a path of 256 octets, less
/// its angle brackets).
const MAX_RECIPIENT_CHARS: usize = 254;

fn deliver(args: &DeliverArgs, input: &mut impl Read) -> Verdict {
    // No server could take it, today or after any number of retries.
    if args.recipient.chars().count() > MAX_RECIPIENT_CHARS {
        return Verdict::data(format!(
            "the recipient is longer than an address can be ({MAX_RECIPIENT_CHARS} characters)"
        ));
    }
    let url = match endpoint(args) {
        Ok(u) => u,
        Err(v) => return v,
    };
    let secret = match secret(args.secret_file.as_deref()) {
        Ok(s) => s,
        Err(v) => return v,
    };
    let mut message = Vec::new();
    // One byte over the limit is enough to know it is too large.
    let limit = u64::try_from(MAX_MESSAGE_BYTES).unwrap_or(u64::MAX) + 1;
    if let Err(e) = input.take(limit).read_to_end(&mut message) {
        return Verdict::temp(format!("reading the message: {e}"));
    }
    if message.iter().all(u8::is_ascii_whitespace) {
        return Verdict::data("empty message");
    }
    if message.len() > MAX_MESSAGE_BYTES {
        return Verdict::data(format!(
            "message larger than the server accepts ({MAX_MESSAGE_BYTES} bytes)"
        ));
    }
    let client = match client(args.timeout) {
        Ok(c) => c,
        Err(e) => return Verdict::temp(format!("cannot make an HTTP client: {e}")),
    };
    let mut target = url.clone();
    target.query_pairs_mut().append_pair("to", &args.recipient);
    let sent = client
        .post(target)
        .bearer_auth(secret.expose_secret())
        .header("content-type", "message/rfc822")
        .body(message)
        .send();
    match sent {
        Ok(r) => {
            let status = r.status().as_u16();
            let body = r.text().unwrap_or_default();
            for_status(status, &body)
        }
        Err(e) => Verdict::temp(format!("{url}: {}", without_url(&e))),
    }
}

/// The exit status for the server's answer `status` with its `body` (a problem document
/// for errors: its `code` and `detail` go into the reason).
pub fn for_status(status: u16, body: &str) -> Verdict {
    let said = problem_words(body);
    match status {
        200..=299 => Verdict {
            code: EX_OK,
            reason: String::new(),
        },
        401 | 403 => Verdict::temp(format!(
            "the server refused the inbound secret ({status}{said}): check --secret-file or \
             TURNPOST_INBOUND_SECRET against the server's TURNPOST_INBOUND_SECRET"
        )),
        // Never processable, whenever tried: the mail server bounces it to its sender. (A
        // 400 is not among them: the server says it when the upload broke off, which the
        // next attempt may not repeat.)
        413 | 414 | 415 | 422 => Verdict::data(format!(
            "the server cannot take this message ({status}{said})"
        )),
        429 => Verdict::temp(format!("the server asks to slow down ({status}{said})")),
        500..=599 => Verdict::temp(format!("the server is unavailable ({status}{said})")),
        // A wrong URL (404), a proxy's answer: the agent's setting, not the message.
        _ => Verdict::temp(format!("unexpected answer {status}{said}: check --url")),
    }
}

/// `: code: detail` from a problem document, or nothing.
fn problem_words(body: &str) -> String {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return String::new();
    };
    let code = v["code"].as_str().unwrap_or("");
    let detail = v["detail"].as_str().unwrap_or("");
    match (code.is_empty(), detail.is_empty()) {
        (true, true) => String::new(),
        (false, true) => format!(" {code}"),
        (true, false) => format!(": {detail}"),
        (false, false) => format!(" {code}: {detail}"),
    }
}

/// Why a request failed, without reqwest's repetition of the URL (said once by the caller).
fn without_url(e: &reqwest::Error) -> String {
    let kind = if e.is_timeout() {
        "timed out"
    } else if e.is_connect() {
        "cannot connect"
    } else {
        "request failed"
    };
    let mut cause = String::new();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        cause = s.to_string();
        source = s.source();
    }
    if cause.is_empty() {
        kind.to_string()
    } else {
        format!("{kind}: {cause}")
    }
}

/// `<base>/api/v1/inbound/email`, from `--url` (or `TURNPOST_PUBLIC_URL`), else the
/// settings' public address.
fn endpoint(args: &DeliverArgs) -> Result<url::Url, Verdict> {
    let base = match &args.url {
        Some(u) if !u.trim().is_empty() => u.trim().trim_end_matches('/').to_string(),
        _ => match crate::settings::Settings::load() {
            Ok(s) => s.public_url(),
            Err(e) => return Err(Verdict::temp(format!("no --url, and the settings: {e}"))),
        },
    };
    url::Url::parse(&format!("{base}/api/v1/inbound/email"))
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| Verdict::temp(format!("--url {base:?} is not an http(s) address")))
}

/// The inbound secret: the file's first line, else `TURNPOST_INBOUND_SECRET`. A file that
/// anyone may read (or write) is refused: the secret lets whoever holds it play any reply
/// sent to the server.
fn secret(file: Option<&Path>) -> Result<SecretString, Verdict> {
    let Some(path) = file else {
        return match std::env::var("TURNPOST_INBOUND_SECRET") {
            Ok(s) if !s.trim().is_empty() => Ok(SecretString::from(s.trim().to_string())),
            _ => Err(Verdict::temp(
                "no inbound secret: pass --secret-file or set TURNPOST_INBOUND_SECRET",
            )),
        };
    };
    use std::os::unix::fs::PermissionsExt;
    let shown = path.display();
    let mode = std::fs::metadata(path)
        .map_err(|e| Verdict::temp(format!("secret file {shown}: {e}")))?
        .permissions()
        .mode();
    if mode & 0o006 != 0 {
        return Err(Verdict::temp(format!(
            "secret file {shown} is open to every user (mode {:o}): make it 0640 or 0600",
            mode & 0o7777
        )));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| Verdict::temp(format!("secret file {shown}: {e}")))?;
    let line = text.lines().next().unwrap_or("").trim();
    if line.is_empty() {
        return Err(Verdict::temp(format!("secret file {shown} is empty")));
    }
    Ok(SecretString::from(line.to_string()))
}

/// A client with timeouts, TLS by rustls with the webpki roots (as the webhook client),
/// and no redirects (a POST body is not sent twice).
fn client(timeout: Duration) -> anyhow::Result<reqwest::blocking::Client> {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let tls = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(reqwest::blocking::Client::builder()
        .tls_backend_preconfigured(tls)
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(timeout.min(Duration::from_secs(10)))
        .timeout(timeout)
        .user_agent(concat!("Turnpost-Deliver/", env!("CARGO_PKG_VERSION")))
        .build()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_answer_maps_to_the_status_a_mail_server_acts_on() {
        let problem = r#"{"code":"invalid_message","detail":"no From address","status":422}"#;
        let cases = [
            (200, EX_OK),
            (202, EX_OK),
            (400, EX_TEMPFAIL),
            (401, EX_TEMPFAIL),
            (403, EX_TEMPFAIL),
            (404, EX_TEMPFAIL),
            (408, EX_TEMPFAIL),
            (413, EX_DATAERR),
            (414, EX_DATAERR),
            (415, EX_DATAERR),
            (422, EX_DATAERR),
            (429, EX_TEMPFAIL),
            (500, EX_TEMPFAIL),
            (502, EX_TEMPFAIL),
            (503, EX_TEMPFAIL),
            (504, EX_TEMPFAIL),
            (301, EX_TEMPFAIL),
        ];
        for (status, code) in cases {
            assert_eq!(for_status(status, problem).code, code, "{status}");
        }
        assert_eq!(for_status(200, "{}").reason, "");
        let v = for_status(422, problem);
        assert!(
            v.reason.contains("422 invalid_message: no From address"),
            "{}",
            v.reason
        );
        assert!(for_status(401, "").reason.contains("secret"));
    }

    fn args(secret_file: Option<PathBuf>) -> DeliverArgs {
        DeliverArgs {
            recipient: "play+1@example.org".into(),
            // Nothing listens on port 9 of loopback (discard, never served here).
            url: Some("http://127.0.0.1:9".into()),
            secret_file,
            timeout: Duration::from_secs(5),
        }
    }

    fn secret_file(mode: u32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let path = std::env::temp_dir().join(format!(
            "turnpost-secret-{}",
            hex::encode(rand::random::<[u8; 6]>())
        ));
        std::fs::write(&path, "s3cret\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    #[test]
    fn a_secret_file_anyone_may_read_is_refused_for_now() {
        let open = secret_file(0o644);
        let v = deliver(&args(Some(open.clone())), &mut &b"From: a@b\r\n\r\nx"[..]);
        assert_eq!(v.code, EX_TEMPFAIL);
        assert!(v.reason.contains("open to every user"), "{}", v.reason);
        let closed = secret_file(0o640);
        assert_eq!(secret(Some(&closed)).unwrap().expose_secret(), "s3cret");
        let _ = std::fs::remove_file(open);
        let _ = std::fs::remove_file(closed);
    }

    #[test]
    fn an_empty_message_bounces_and_a_server_not_there_defers() {
        let file = secret_file(0o600);
        let v = deliver(&args(Some(file.clone())), &mut &b" \r\n"[..]);
        assert_eq!(v.code, EX_DATAERR, "{v:?}");
        let v = deliver(&args(Some(file.clone())), &mut &b"From: a@b\r\n\r\nx"[..]);
        assert_eq!(v.code, EX_TEMPFAIL, "{v:?}");
        assert!(v.reason.contains("cannot connect"), "{}", v.reason);
        let mut bad = args(Some(file.clone()));
        bad.url = Some("ftp://example.org".into());
        assert_eq!(deliver(&bad, &mut &b"x"[..]).code, EX_TEMPFAIL);
        let _ = std::fs::remove_file(file);
    }
}
