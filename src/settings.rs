//! Configuration: compiled-in defaults (`config/default.toml`), then
//! `config/<TURNPOST_ENV>.toml` and `config/local.toml` if present, then `TURNPOST_*`
//! environment variables. `DATABASE_URL` is read without a prefix, as everyone expects.
//!
//! Loading refuses what it cannot mean: a key or `TURNPOST_*` variable that
//! names no setting (a misspelling otherwise leaves the default in force, silently), and
//! any value out of its range (see `validate`). Serialising a `Settings` masks its
//! secrets: that is what `turnpost config check` prints.

mod mask;
mod sources;
mod validate;

use std::path::PathBuf;

use secrecy::SecretString;
use serde::{Deserialize, Serialize};

pub use sources::{SettingsError, Sourced};

/// Who sends the outbox's email.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EmailSenders {
    /// The server's own sender threads: what every server runs.
    #[default]
    Running,
    /// Nobody: queued email stays queued until its caller drives a worker itself. Tests that
    /// read no mail use it, since rendering a turn email's picture after every move of a
    /// whole game costs more than the game.
    Driven,
}

/// The header in which trusted proxies name the client. Only one is read: a proxy sets
/// the header it is told to and passes every other through as the client wrote it, so
/// reading a second one would let a client pick its own address.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClientAddressHeader {
    /// `X-Forwarded-For`: what nginx, Caddy and HAProxy set.
    #[default]
    XForwardedFor,
    /// `Forwarded` (RFC 7239) `for=`.
    Forwarded,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    pub bind: String,
    /// Proxies whose forwarding header names the client (comma-separated CIDRs or
    /// addresses); empty: trust nobody, the TCP peer is the client.
    #[serde(default)]
    pub trusted_proxies: String,
    /// The one header those proxies name the client in; any other is ignored.
    #[serde(default)]
    pub client_address_header: ClientAddressHeader,
    /// Browser origins allowed to call the API (CORS), comma-separated; `*` for any.
    #[serde(default)]
    pub cors_origins: String,
    /// Base address of links in emails; unset: derived from `bind`.
    #[serde(default)]
    pub public_url: Option<String>,
    pub mail_from: String,
    #[serde(default, serialize_with = "mask::url")]
    pub smtp_url: Option<SecretString>,
    /// Shared secret of `POST /api/v1/inbound/email` (sent as `Authorization: Bearer`);
    /// unset: the inbound endpoint refuses every request.
    #[serde(default, serialize_with = "mask::secret")]
    pub inbound_secret: Option<SecretString>,
    /// Address players reply to; a reply token is added as `local+token@domain`.
    /// Unset: the address of `mail_from`.
    #[serde(default)]
    pub reply_address: Option<String>,
    #[serde(default, serialize_with = "mask::secret")]
    pub jwt_secret: Option<SecretString>,
    /// The secret before the last rotation: what it signed (login tokens, reply
    /// addresses, links in emails) is still accepted until `jwt_secret_previous_until`.
    #[serde(default, serialize_with = "mask::secret")]
    pub jwt_secret_previous: Option<SecretString>,
    /// When the previous secret stops counting (RFC 3339, e.g. 2027-01-31T00:00:00Z).
    #[serde(default)]
    pub jwt_secret_previous_until: Option<chrono::DateTime<chrono::Utc>>,
    /// The Bearer token a Prometheus scraper sends to `GET /metrics`; unset: no metrics.
    #[serde(default, serialize_with = "mask::secret")]
    pub metrics_token: Option<SecretString>,
    #[serde(default, serialize_with = "mask::url")]
    pub database_url: Option<SecretString>,
    pub var_dir: PathBuf,
    pub jwt_ttl_hours: u64,
    /// Failed logins per (account, client address) in the window before that pair is
    /// refused (429).
    pub login_max_failures: u32,
    /// Failed logins per client address, across accounts, in the window before its
    /// logins go through a slow lane (paced, not refused).
    pub login_max_failures_per_address: u32,
    /// Failed logins per account, across addresses, in the window before its logins go
    /// through a slow lane (paced, not refused).
    #[serde(default = "default_failures_per_account")]
    pub login_max_failures_per_account: u32,
    pub login_window_secs: u64,
    /// A slow lane lets one login through per this many milliseconds.
    #[serde(default = "default_slow_lane_ms")]
    pub login_slow_lane_ms: u64,
    /// Password reset emails asked for one address (from one client, or across clients)
    /// per `password_reset_window_secs` before further requests get 429.
    #[serde(default = "default_resets_per_email")]
    pub password_reset_max_per_email: u32,
    /// Password reset requests from one client address, across addresses, per window.
    #[serde(default = "default_resets_per_client")]
    pub password_reset_max_per_client: u32,
    #[serde(default = "default_reset_window_secs")]
    pub password_reset_window_secs: u64,
    /// Password hashes computed at once (0: one per core): each takes 19 MiB.
    pub password_hash_slots: usize,
    /// How long a login waits for a hashing slot before 503.
    pub password_queue_secs: u64,
    /// What a new password hash costs: always the production parameters, except where
    /// code (the test suite) says otherwise; no file or variable reaches it.
    #[serde(skip)]
    pub password_hash_cost: crate::auth::password::HashCost,
    /// Time allowed for a request's head and body to arrive.
    pub request_timeout_secs: u64,
    pub db_pool_size: u32,
    /// Time allowed to get a database connection before 503.
    pub db_checkout_timeout_ms: u64,
    pub outbox_poll_ms: u64,
    pub outbox_max_attempts: i32,
    /// How long a claimed outbox message is left alone before it may be sent again.
    pub outbox_lease_secs: u64,
    /// Sender threads of the outbox worker (each claims, renders and sends on its own;
    /// they share one pool of SMTP connections).
    pub outbox_senders: usize,
    /// Whether those senders run at all: always, except where code (the test suite) says
    /// otherwise; no file or variable reaches it.
    #[serde(skip)]
    pub email_senders: EmailSenders,
    /// A turn email waits this long and is dropped if the seat has acted (or the turn has
    /// passed) by then; pending ones for the same game and seat are coalesced.
    pub turn_email_grace_secs: u64,
    /// New accounts confirm their address by a signed link before any game email goes
    /// to them.
    pub require_email_verification: bool,
    /// Game emails carry the seat's board picture (PNG, inline).
    pub email_pictures: bool,
    /// How often the clock sweeper looks for reminders and timeouts.
    pub sweep_interval_secs: u64,
    /// How often the bot worker looks for computer moves left over by requests, when it
    /// found none the last time.
    pub bot_poll_ms: u64,
    /// Moves the computer (and forfeited seats) make per account and 24 hours, in the games
    /// the account created, counted by the hour; past it those games wait until the window
    /// allows again. 0: no limit.
    #[serde(default = "default_bot_moves_per_day")]
    pub bot_moves_per_account_per_day: u32,
    /// Vacation days each account may take per calendar year.
    pub vacation_days_per_year: i64,
    /// Games not yet finished (open or in play) an account may hold a seat in; creating or
    /// joining one more is refused with `409 too_many_active_games`.
    #[serde(default = "default_max_active_games")]
    pub max_active_games_per_account: i64,
    /// Emails sent or dropped, webhook deliveries and processed replies are kept this many
    /// days, then pruned by the sweep (the first email of each game thread stays, emptied:
    /// its Message-ID roots the thread).
    #[serde(default = "default_outbox_retention_days")]
    pub outbox_retention_days: i64,
    /// Webhooks may post to loopback, private and link-local addresses (off: refused, so
    /// a webhook cannot reach the server's own network).
    #[serde(default)]
    pub webhook_allow_private: bool,
    /// A webhook receiver must answer within this time, else the delivery is retried.
    pub webhook_timeout_secs: u64,
    /// Sender threads for webhooks (apart from the email senders; each receiver gets one
    /// at a time).
    #[serde(default = "default_webhook_senders")]
    pub webhook_senders: usize,
    /// Event streams (SSE) this node holds open at most; 0: as many as its open-file
    /// limit allows after a reserve for everything else.
    #[serde(default)]
    pub max_event_streams: usize,
    /// Event streams one client address may hold open.
    #[serde(default = "default_streams_per_address")]
    pub max_event_streams_per_address: usize,
    /// API requests per minute per account, across all its tokens (login and personal),
    /// spendable at once and coming back steadily; 0: no limit. `TURNPOST_RATE_LIMIT_PER_TOKEN`
    /// is read as this setting too.
    #[serde(default = "default_rate_limit_per_account")]
    pub rate_limit_per_account: u32,
    /// API requests per minute per client address, for requests without a token; 0: no
    /// limit.
    #[serde(default = "default_rate_limit_per_address")]
    pub rate_limit_per_address: u32,
    /// A live-update stream that has sent nothing for this long sends a comment, so that
    /// proxies keep it open and the server notices a client that left.
    pub sse_keep_alive_ms: u64,
    /// The reconnection delay every stream asks of its client (`retry:`).
    pub sse_retry_ms: u64,
}

fn default_webhook_senders() -> usize {
    4
}

fn default_streams_per_address() -> usize {
    64
}

fn default_max_active_games() -> i64 {
    100
}

fn default_outbox_retention_days() -> i64 {
    30
}

fn default_rate_limit_per_account() -> u32 {
    600
}

fn default_bot_moves_per_day() -> u32 {
    20_000
}

fn default_rate_limit_per_address() -> u32 {
    300
}

fn default_failures_per_account() -> u32 {
    20
}

fn default_slow_lane_ms() -> u64 {
    3000
}

fn default_resets_per_email() -> u32 {
    3
}

fn default_resets_per_client() -> u32 {
    20
}

fn default_reset_window_secs() -> u64 {
    3600
}

impl Settings {
    /// The settings from every source, checked (see the module's description).
    pub fn load() -> Result<Settings, SettingsError> {
        sources::load().map(|s| s.settings)
    }

    /// [`Settings::load`], with where each setting came from (`turnpost config check`).
    pub fn load_sourced() -> Result<Sourced, SettingsError> {
        sources::load()
    }

    /// The address players use: `public_url`, else `http://<bind>` (a wildcard host
    /// becomes 127.0.0.1, the address a browser on this machine can open).
    pub fn public_url(&self) -> String {
        match &self.public_url {
            Some(u) if !u.trim().is_empty() => u.trim().trim_end_matches('/').to_string(),
            _ => {
                let bind = self.bind.replacen("0.0.0.0:", "127.0.0.1:", 1).replacen(
                    "[::]:",
                    "127.0.0.1:",
                    1,
                );
                format!("http://{bind}")
            }
        }
    }

    /// The configured CORS origins; empty: CORS is off.
    pub fn cors_origins(&self) -> Vec<String> {
        self.cors_origins
            .split(',')
            .map(|o| o.trim().trim_end_matches('/').to_string())
            .filter(|o| !o.is_empty())
            .collect()
    }

    pub fn mail_dir(&self) -> PathBuf {
        self.var_dir.join("mail")
    }

    pub fn pg_dir(&self) -> PathBuf {
        self.var_dir.join("pg")
    }
}

#[cfg(test)]
mod tests {
    use super::Settings;

    #[test]
    fn links_follow_the_bound_port_unless_a_public_url_is_set() {
        let mut s = Settings::load().unwrap();
        s.public_url = None;
        s.bind = "127.0.0.1:9191".into();
        assert_eq!(s.public_url(), "http://127.0.0.1:9191");
        s.bind = "0.0.0.0:8081".into();
        assert_eq!(s.public_url(), "http://127.0.0.1:8081");
        s.public_url = Some("https://games.example.org/".into());
        assert_eq!(s.public_url(), "https://games.example.org");
    }
}
