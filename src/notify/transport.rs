//! Where mail goes: a pooled SMTP transport, or `.eml` files when no SMTP server is set.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use lettre::transport::smtp::PoolConfig;
use lettre::{FileTransport, Message, SmtpTransport, Transport};

use crate::notify::nodelay::NoDelay;

/// Where mail goes.
pub enum Mailer {
    /// The pooled transport, and its sockets' `TCP_NODELAY` (see `notify::nodelay`).
    Smtp(Box<SmtpTransport>, NoDelay),
    Files(FileTransport),
}

impl Mailer {
    /// SMTP when a URL is configured (`smtp://host:port`, `smtps://user:pass@host`), with a
    /// pool of up to `connections` open connections shared by the senders; else `.eml`
    /// files under `dir`.
    pub fn from_settings(
        smtp_url: Option<&str>,
        dir: PathBuf,
        connections: usize,
    ) -> Result<Mailer> {
        match smtp_url {
            Some(url) => Ok(Mailer::Smtp(
                Box::new(
                    SmtpTransport::from_url(url)
                        .with_context(|| "invalid TURNPOST_SMTP_URL")?
                        .timeout(Some(Duration::from_secs(20)))
                        .pool_config(
                            PoolConfig::new()
                                .max_size(connections.max(1) as u32)
                                .idle_timeout(Duration::from_secs(60)),
                        )
                        .build(),
                ),
                NoDelay::for_url(url),
            )),
            None => {
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("creating {}", dir.display()))?;
                Ok(Mailer::Files(FileTransport::new(dir)))
            }
        }
    }

    /// Sends one message (through the pool, or as a file).
    pub fn send(&self, message: &Message) -> Result<()> {
        match self {
            Mailer::Smtp(t, nodelay) => {
                nodelay.apply();
                t.send(message).map(|_| ()).context("SMTP send")
            }
            Mailer::Files(t) => t.send(message).map(|_| ()).context("writing .eml"),
        }
    }
}
