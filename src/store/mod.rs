//! PostgreSQL through diesel: the pool, embedded migrations (run by `migrations`), the
//! replaceable functions and triggers, and the rows.

pub mod announcer;
pub mod kinds;
pub mod libcrypto_exit;
pub mod migrations;
pub mod models;
pub mod outage;
pub mod pool_events;
pub mod replaceable;
pub mod schema;

pub use libcrypto_exit::keep_libcrypto_through_exit;
pub use migrations::{MIGRATION_LOCK_KEY, MigrationError, migrate, revert};

use std::sync::atomic::{AtomicI64, Ordering};

use anyhow::Result;
use diesel::PgConnection;
use diesel::r2d2::{ConnectionManager, ManageConnection, Pool, PooledConnection};
use diesel_migrations::{EmbeddedMigrations, embed_migrations};

pub type PgPool = Pool<Manager>;
pub type PgConn = PooledConnection<Manager>;

/// Until when (Unix milliseconds) every connection is tested before it is handed out.
static SUSPECT_UNTIL_MS: AtomicI64 = AtomicI64::new(0);

/// How long connections stay suspect after one was found dead: time for the pool to meet,
/// test and replace every connection a database restart left behind.
const SUSPECT_FOR_MS: i64 = 60_000;

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// A connection was found closed (the database restarted, or an administrator ended the
/// session): test every connection before use for a while, so that the dead ones are
/// replaced instead of failing one request each, again and again.
pub fn connection_lost() {
    SUSPECT_UNTIL_MS.fetch_max(now_ms() + SUSPECT_FOR_MS, Ordering::Relaxed);
}

/// diesel's connection manager, except that a connection is tested (`SELECT 1`) on
/// checkout only after some connection was found dead. Testing every checkout cost a
/// round trip per request, a quarter of a move's statements.
pub struct Manager(ConnectionManager<PgConnection>, Option<&'static str>);

/// What every connection of the requests' pool is set to: a lock wait, a statement and an
/// abandoned transaction end in seconds, so that one request waiting on a busy game (or a
/// runaway one) cannot hold a connection for long (without these, fifteen nudges waiting
/// on a held game row take every connection for as long as the row is held).
pub const REQUEST_SESSION: &str = "SET lock_timeout = '5s'; SET statement_timeout = '20s'; \
     SET idle_in_transaction_session_timeout = '60s'";

impl ManageConnection for Manager {
    type Connection = PgConnection;
    type Error = diesel::r2d2::Error;

    fn connect(&self) -> Result<PgConnection, Self::Error> {
        use diesel::connection::SimpleConnection;
        let mut conn = self.0.connect()?;
        if let Some(sql) = self.1 {
            conn.batch_execute(sql)
                .map_err(diesel::r2d2::Error::QueryError)?;
        }
        Ok(conn)
    }

    fn is_valid(&self, conn: &mut PgConnection) -> Result<(), Self::Error> {
        if SUSPECT_UNTIL_MS.load(Ordering::Relaxed) > now_ms() {
            self.0.is_valid(conn)
        } else {
            Ok(())
        }
    }

    fn has_broken(&self, conn: &mut PgConnection) -> bool {
        self.0.has_broken(conn)
    }
}

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

/// A pool of `size` connections. A request waits at most `checkout` for one: when the
/// database is down, answering 503 at once beats hanging every client.
pub fn pool(url: &str, size: u32, checkout: std::time::Duration) -> Result<PgPool> {
    pool_with(url, size, checkout, None)
}

/// [`pool`] whose connections first run `session` (e.g. [`REQUEST_SESSION`]).
pub fn pool_with(
    url: &str,
    size: u32,
    checkout: std::time::Duration,
    session: Option<&'static str>,
) -> Result<PgPool> {
    keep_libcrypto_through_exit();
    Ok(Pool::builder()
        .max_size(size)
        // Open connections as needed rather than all at start.
        .min_idle(Some(1))
        .connection_timeout(checkout)
        .event_handler(Box::new(pool_events::PoolEvents))
        .error_handler(Box::new(pool_events::PoolErrors))
        // Connections are made on demand: a database that is down at start-up or later
        // gives 503s, not a server that will not start.
        .build_unchecked(Manager(ConnectionManager::new(url), session)))
}

/// Opens `connections` of `pool` (at most its size) and leaves them idle in it, waiting up
/// to `patience` for each. For a pool whose threads are about to start: each would
/// otherwise ask for its first connection at the same moment, and on a busy machine wait
/// longer than the pool's checkout allows ("timed out waiting for connection" at every
/// start). A database gone meanwhile is the outage tracker's to report; the threads retry.
pub fn warm(pool: &PgPool, connections: u32, patience: std::time::Duration) {
    let mut held = Vec::new();
    for _ in 0..connections.min(pool.max_size()) {
        match pool.get_timeout(patience) {
            Ok(c) => held.push(c),
            Err(e) => {
                outage::DATABASE.failed("warming a connection pool", &e);
                return;
            }
        }
    }
}

/// Reverts the newest applied migration (its `down.sql`), under the migration lock;
/// returns its name. For tests that take a schema down and up again.
pub fn revert_last(conn: &mut PgConnection) -> Result<String, MigrationError> {
    let mut reverted = revert(conn, 1, |_| {})?;
    reverted.pop().ok_or(MigrationError::TooMany {
        asked: 1,
        applied: 0,
    })
}
