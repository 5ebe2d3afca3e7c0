//! Whether this node reaches its database, as its background work finds out. Every loop
//! (senders, sweeper, bot worker, event listener, announcer, the pools making connections)
//! retries on its own schedule, several times a second in all; logging each failed
//! attempt buried the log in identical lines during an outage. The tracker logs the change
//! instead: one line when the database becomes unreachable, one when it is back, with how
//! long it was gone and how many attempts failed meanwhile.

use std::fmt::Display;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The node's database, as every background loop sees it.
pub static DATABASE: Outage = Outage::new();

/// One outage tracker: reachable until told otherwise.
pub struct Outage {
    /// Read first on every success: the common case takes no lock.
    down: AtomicBool,
    state: Mutex<Down>,
}

#[derive(Default)]
struct Down {
    since: Option<Instant>,
    failures: u64,
}

impl Default for Outage {
    fn default() -> Self {
        Outage::new()
    }
}

impl Outage {
    pub const fn new() -> Outage {
        Outage {
            down: AtomicBool::new(false),
            state: Mutex::new(Down {
                since: None,
                failures: 0,
            }),
        }
    }

    /// `what` could not reach the database (`error` says how). Logged when the database
    /// was reachable until now; counted otherwise. Returns whether it was logged.
    pub fn lost(&self, what: &str, error: &dyn Display) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.failures += 1;
        if s.since.is_some() {
            return false;
        }
        s.since = Some(Instant::now());
        s.failures = 1;
        self.down.store(true, Ordering::Release);
        tracing::error!(
            by = what,
            error = %error,
            "the database is unreachable; background work waits for it (logged again only \
             when it is back)"
        );
        true
    }

    /// Something reached the database. Logged when it was unreachable until now.
    /// Returns whether it was logged.
    pub fn back(&self) -> bool {
        if !self.down.load(Ordering::Acquire) {
            return false;
        }
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let Some(since) = s.since.take() else {
            return false;
        };
        self.down.store(false, Ordering::Release);
        tracing::info!(
            down_secs = since.elapsed().as_secs(),
            failed_attempts = s.failures,
            "the database is reachable again"
        );
        s.failures = 0;
        true
    }

    pub fn is_down(&self) -> bool {
        self.down.load(Ordering::Acquire)
    }

    /// A background pass failed with `error`: one that says the database is unreachable
    /// goes to the tracker, any other is logged as a warning with `what`.
    pub fn failed(&self, what: &str, error: &(dyn std::error::Error + 'static)) {
        let chain = Chain(error);
        if unreachable(error) {
            self.lost(what, &chain);
        } else {
            tracing::warn!(error = %chain, "{what} failed");
        }
    }
}

/// An error with its causes, as `anyhow` prints them with `{:#}`.
struct Chain<'a>(&'a (dyn std::error::Error + 'static));

impl Display for Chain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(c) = cause {
            write!(f, ": {c}")?;
            cause = c.source();
        }
        Ok(())
    }
}

/// Whether `error` (or one of its causes) says the database could not be reached, as
/// opposed to a statement that failed: no connection to be had, one that broke, or a
/// server shutting down, starting up or in recovery.
pub fn unreachable(error: &(dyn std::error::Error + 'static)) -> bool {
    use diesel::result::{DatabaseErrorKind, Error};
    let mut cause = Some(error);
    while let Some(e) = cause {
        if e.is::<diesel::r2d2::PoolError>()
            || e.is::<diesel::ConnectionError>()
            || matches!(
                e.downcast_ref::<diesel::r2d2::Error>(),
                Some(diesel::r2d2::Error::ConnectionError(_))
            )
        {
            return true;
        }
        if let Some(Error::DatabaseError(
            DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
            _,
        )) = e.downcast_ref::<Error>()
        {
            return true;
        }
        if says_unreachable(&e.to_string()) {
            return true;
        }
        cause = e.source();
    }
    false
}

/// PostgreSQL's and libpq's words for a connection that is gone or cannot be had (the
/// server runs with C messages; see `embedded_pg`), for errors that carry no kind.
pub fn says_unreachable(message: &str) -> bool {
    const WORDS: &[&str] = &[
        "timed out waiting for connection",
        "server closed the connection",
        "terminating connection",
        "the database system is",
        "could not connect to server",
        "connection to server",
        "no connection to the server",
        "Connection refused",
        "connection reset",
        "Broken pipe",
    ];
    WORDS.iter().any(|w| message.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outage_is_logged_once_when_it_starts_and_once_when_it_ends() {
        let o = Outage::new();
        assert!(!o.back(), "reachable from the start: nothing to say");
        assert!(o.lost("test", &"connection refused"));
        for _ in 0..100 {
            assert!(!o.lost("test", &"connection refused"));
        }
        assert!(o.is_down());
        assert!(o.back());
        assert!(!o.back());
        assert!(!o.is_down());
        assert!(o.lost("test", &"again"), "a new outage is news again");
    }

    #[test]
    fn pool_timeouts_and_broken_connections_are_unreachable_and_sql_errors_are_not() {
        let closed = diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::ClosedConnection,
            Box::new("server closed the connection unexpectedly".to_string()),
        );
        assert!(unreachable(&closed));
        let anyhow_closed = anyhow::Error::from(closed).context("claiming");
        assert!(unreachable(anyhow_closed.as_ref()));
        let sql = diesel::result::Error::DatabaseError(
            diesel::result::DatabaseErrorKind::UniqueViolation,
            Box::new("duplicate key value".to_string()),
        );
        assert!(!unreachable(&sql));
        assert!(says_unreachable(
            "FATAL:  terminating connection due to administrator command"
        ));
        assert!(says_unreachable("timed out waiting for connection"));
        assert!(!says_unreachable("relation \"x\" does not exist"));
    }
}
