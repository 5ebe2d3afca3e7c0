//! Whether the SMTP server answers, for `/readyz`: a server that cannot send mail still
//! serves games, so it is reported (ready, but degraded), not made unready.
//!
//! A probe opens an SMTP session (greeting, EHLO, TLS for `smtps`) with a short timeout;
//! its outcome is kept a few seconds so that frequent readiness checks cost nothing and
//! never pile up connections on the mail server.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use lettre::SmtpTransport;
use lettre::transport::smtp::PoolConfig;

/// How long an outcome is reused.
const KEEP: Duration = Duration::from_secs(10);
/// How long a probe may take: `/readyz` answers within it.
const TIMEOUT: Duration = Duration::from_secs(3);

/// What the last probe found: `Ok`, or why the server cannot be used.
pub type Outcome = Result<(), String>;

pub struct SmtpProbe {
    transport: SmtpTransport,
    /// `host:port`, for the reason (the URL may hold a password).
    server: String,
    last: Mutex<Option<(Instant, Outcome)>>,
}

impl SmtpProbe {
    /// A probe of the server at `url`; `None` when the URL cannot be read (the settings
    /// refuse such a URL before this is made).
    pub fn new(url: &str) -> Option<SmtpProbe> {
        let parsed = url::Url::parse(url).ok()?;
        let server = format!(
            "{}:{}",
            parsed.host_str().unwrap_or("?"),
            parsed
                .port()
                .map_or_else(|| "default port".to_string(), |p| p.to_string())
        );
        let transport = SmtpTransport::from_url(url)
            .ok()?
            .timeout(Some(TIMEOUT))
            // One connection at most, closed soon after: a probe, not a sender.
            .pool_config(
                PoolConfig::new()
                    .max_size(1)
                    .min_idle(0)
                    .idle_timeout(Duration::from_secs(5)),
            )
            .build();
        Some(SmtpProbe {
            transport,
            server,
            last: Mutex::new(None),
        })
    }

    /// The server's state, probed at most once per [`KEEP`]. Blocking.
    pub fn check(&self) -> Outcome {
        if let Ok(last) = self.last.lock()
            && let Some((at, outcome)) = last.as_ref()
            && at.elapsed() < KEEP
        {
            return outcome.clone();
        }
        let outcome = match self.transport.test_connection() {
            Ok(true) => Ok(()),
            Ok(false) => Err(format!(
                "the SMTP server {} did not answer a NOOP",
                self.server
            )),
            Err(e) => Err(format!(
                "the SMTP server {} cannot be reached: {e}",
                self.server
            )),
        };
        if let Ok(mut last) = self.last.lock() {
            *last = Some((Instant::now(), outcome.clone()));
        }
        outcome
    }
}
