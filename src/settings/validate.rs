//! Every setting's value checked at load, so that a wrong one stops the server at start
//! with a sentence instead of misbehaving later (`db_pool_size = 0` panics in the pool,
//! a public URL without a scheme makes links that go nowhere).

use std::ops::RangeInclusive;
use std::str::FromStr;

use secrecy::ExposeSecret;

use super::Settings;

/// A problem with one setting: its name, and what is wrong in words that follow it.
pub type Problem = (&'static str, String);

fn range<T: PartialOrd + std::fmt::Display + Copy>(
    out: &mut Vec<Problem>,
    key: &'static str,
    value: T,
    allowed: RangeInclusive<T>,
) {
    if !allowed.contains(&value) {
        out.push((
            key,
            format!(
                "must be between {} and {}, not {value}",
                allowed.start(),
                allowed.end()
            ),
        ));
    }
}

/// `http(s)://host[:port]`, nothing else: what a browser sends as `Origin`; or `*`.
pub fn is_origin(origin: &str) -> bool {
    if origin == "*" {
        return true;
    }
    let Ok(url) = url::Url::parse(origin) else {
        return false;
    };
    matches!(url.scheme(), "http" | "https")
        && url.host_str().is_some_and(|h| !h.is_empty())
        && url.query().is_none()
        && url.fragment().is_none()
        // `Url` reads `https://a.org/` and `https://a.org` alike (a trailing `/` was
        // trimmed by `Settings::cors_origins`); anything after the authority is a path,
        // and an `@` is a user name.
        && origin
            .split_once("://")
            .is_some_and(|(_, rest)| !rest.contains(['/', '?', '#', '@']))
}

impl Settings {
    /// Every value that cannot be used, with what is wrong with it; empty: all good.
    pub fn problems(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let p = &mut out;

        match self.bind.rsplit_once(':') {
            Some((host, port)) if !host.is_empty() && port.parse::<u16>().is_ok() => {}
            _ => p.push(("bind", format!("must be host:port, not {:?}", self.bind))),
        }
        if let Some(u) = self
            .public_url
            .as_deref()
            .map(str::trim)
            .filter(|u| !u.is_empty())
        {
            let ok = url::Url::parse(u).is_ok_and(|url| {
                matches!(url.scheme(), "http" | "https")
                    && url.host_str().is_some_and(|h| !h.is_empty())
            });
            if !ok {
                p.push((
                    "public_url",
                    format!("must be an absolute http(s) URL such as https://games.example.org, not {u:?}"),
                ));
            }
        }
        for origin in self.cors_origins() {
            if !is_origin(&origin) {
                p.push((
                    "cors_origins",
                    format!(
                        "must list origins (scheme://host[:port], no path) or *; \
                         {origin:?} is not one"
                    ),
                ));
            }
        }
        if let Err(e) = crate::api::client_addr::TrustedProxies::parse(&self.trusted_proxies) {
            p.push((
                "trusted_proxies",
                format!("must list CIDRs or addresses; {e}"),
            ));
        }
        if lettre::message::Mailbox::from_str(&self.mail_from).is_err() {
            p.push((
                "mail_from",
                format!(
                    "must be an address such as \"Turnpost <games@example.org>\", not {:?}",
                    self.mail_from
                ),
            ));
        }
        if let Some(r) = &self.reply_address
            && lettre::Address::from_str(r).is_err()
        {
            p.push(("reply_address", format!("must be an address, not {r:?}")));
        }
        if let Some(smtp) = &self.smtp_url {
            // The secret may hold a password: the message does not repeat the value.
            let ok = url::Url::parse(smtp.expose_secret())
                .is_ok_and(|u| matches!(u.scheme(), "smtp" | "smtps") && u.host_str().is_some())
                && lettre::SmtpTransport::from_url(smtp.expose_secret()).is_ok();
            if !ok {
                p.push((
                    "smtp_url",
                    "must be a URL such as smtp://host:25 or smtps://user:password@host".into(),
                ));
            }
        }
        if let Some(s) = &self.jwt_secret
            && s.expose_secret().len() < 32
        {
            p.push(("jwt_secret", "must have at least 32 characters".into()));
        }
        match (&self.jwt_secret_previous, &self.jwt_secret_previous_until) {
            (Some(s), _) if s.expose_secret().len() < 32 => p.push((
                "jwt_secret_previous",
                "must have at least 32 characters".into(),
            )),
            (Some(s), _)
                if self
                    .jwt_secret
                    .as_ref()
                    .is_some_and(|c| c.expose_secret() == s.expose_secret()) =>
            {
                p.push((
                    "jwt_secret_previous",
                    "is the same as jwt_secret: set jwt_secret to a new secret".into(),
                ))
            }
            (Some(_), None) => p.push((
                "jwt_secret_previous_until",
                "must be set with jwt_secret_previous: the end of its grace period \
                 (RFC 3339, e.g. 2027-01-31T00:00:00Z)"
                    .into(),
            )),
            (None, Some(_)) => p.push((
                "jwt_secret_previous_until",
                "is set without jwt_secret_previous".into(),
            )),
            _ => {}
        }
        for (key, secret) in [
            ("inbound_secret", &self.inbound_secret),
            ("metrics_token", &self.metrics_token),
            ("database_url", &self.database_url),
        ] {
            if secret
                .as_ref()
                .is_some_and(|s| s.expose_secret().trim().is_empty())
            {
                p.push((key, "is empty: set a value or leave it out".into()));
            }
        }
        if self.var_dir.as_os_str().is_empty() {
            p.push(("var_dir", "must name a directory".into()));
        }

        const DAY: u64 = 86_400;
        range(p, "jwt_ttl_hours", self.jwt_ttl_hours, 1..=24 * 366);
        range(
            p,
            "login_max_failures",
            self.login_max_failures,
            1..=1_000_000,
        );
        range(
            p,
            "login_max_failures_per_address",
            self.login_max_failures_per_address,
            1..=1_000_000,
        );
        range(
            p,
            "login_max_failures_per_account",
            self.login_max_failures_per_account,
            1..=1_000_000,
        );
        range(p, "login_window_secs", self.login_window_secs, 1..=30 * DAY);
        range(
            p,
            "login_slow_lane_ms",
            self.login_slow_lane_ms,
            1..=600_000,
        );
        range(
            p,
            "password_reset_max_per_email",
            self.password_reset_max_per_email,
            1..=1_000_000,
        );
        range(
            p,
            "password_reset_max_per_client",
            self.password_reset_max_per_client,
            1..=1_000_000,
        );
        range(
            p,
            "password_reset_window_secs",
            self.password_reset_window_secs,
            1..=30 * DAY,
        );
        range(p, "password_hash_slots", self.password_hash_slots, 0..=1024);
        range(p, "password_queue_secs", self.password_queue_secs, 0..=3600);
        range(
            p,
            "request_timeout_secs",
            self.request_timeout_secs,
            1..=3600,
        );
        range(p, "db_pool_size", self.db_pool_size, 1..=1000);
        range(
            p,
            "db_checkout_timeout_ms",
            self.db_checkout_timeout_ms,
            1..=600_000,
        );
        range(p, "outbox_poll_ms", self.outbox_poll_ms, 1..=3_600_000);
        range(p, "outbox_max_attempts", self.outbox_max_attempts, 1..=1000);
        range(p, "outbox_lease_secs", self.outbox_lease_secs, 1..=DAY);
        range(p, "outbox_senders", self.outbox_senders, 1..=256);
        range(
            p,
            "turn_email_grace_secs",
            self.turn_email_grace_secs,
            0..=7 * DAY,
        );
        range(p, "sweep_interval_secs", self.sweep_interval_secs, 1..=DAY);
        range(p, "bot_poll_ms", self.bot_poll_ms, 1..=3_600_000);
        range(
            p,
            "vacation_days_per_year",
            self.vacation_days_per_year,
            0..=366,
        );
        range(
            p,
            "webhook_timeout_secs",
            self.webhook_timeout_secs,
            1..=600,
        );
        range(p, "webhook_senders", self.webhook_senders, 1..=256);
        range(
            p,
            "max_event_streams",
            self.max_event_streams,
            0..=10_000_000,
        );
        range(
            p,
            "max_active_games_per_account",
            self.max_active_games_per_account,
            1..=100_000,
        );
        range(
            p,
            "outbox_retention_days",
            self.outbox_retention_days,
            1..=3650,
        );
        range(
            p,
            "max_event_streams_per_address",
            self.max_event_streams_per_address,
            1..=1_000_000,
        );
        range(
            p,
            "sse_keep_alive_ms",
            self.sse_keep_alive_ms,
            1..=3_600_000,
        );
        range(p, "sse_retry_ms", self.sse_retry_ms, 0..=3_600_000);
        range(
            p,
            "bot_moves_per_account_per_day",
            self.bot_moves_per_account_per_day,
            0..=100_000_000,
        );
        // rate_limit_per_account and rate_limit_per_address: any u32, 0 meaning no limit.
        out
    }
}

#[cfg(test)]
mod tests {
    use super::is_origin;

    #[test]
    fn origins_are_scheme_host_and_port() {
        for good in ["*", "https://a.example.org", "http://localhost:3000"] {
            assert!(is_origin(good), "{good}");
        }
        for bad in [
            "a.example.org",
            "https://a.example.org/app",
            "ftp://a.example.org",
            "https://user@a.example.org",
            "https://a.example.org?x=1",
            "https://",
        ] {
            assert!(!is_origin(bad), "{bad}");
        }
    }

    #[test]
    fn the_shipped_defaults_are_valid() {
        let defaults: super::Settings = config::Config::builder()
            .add_source(config::File::from_str(
                include_str!("../../config/default.toml"),
                config::FileFormat::Toml,
            ))
            .build()
            .unwrap()
            .try_deserialize()
            .unwrap();
        assert_eq!(defaults.problems(), Vec::new());
    }
}
