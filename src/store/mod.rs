//! PostgreSQL through diesel: the pool, embedded migrations, and the rows.

pub mod models;
pub mod schema;

use anyhow::{Result, anyhow};
use diesel::PgConnection;
use diesel::r2d2::{ConnectionManager, Pool, PooledConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

pub type PgPool = Pool<ConnectionManager<PgConnection>>;
pub type PgConn = PooledConnection<ConnectionManager<PgConnection>>;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

/// A pool of `size` connections. A request waits at most `checkout` for one: when the
/// database is down, answering 503 at once beats hanging every client.
pub fn pool(url: &str, size: u32, checkout: std::time::Duration) -> Result<PgPool> {
    Ok(Pool::builder()
        .max_size(size)
        // Open connections as needed rather than all at start.
        .min_idle(Some(1))
        .connection_timeout(checkout)
        // Connections are made on demand: a database that is down at start-up or later
        // gives 503s, not a server that will not start.
        .build_unchecked(ConnectionManager::new(url)))
}

/// Applies pending migrations; returns the names of those applied.
pub fn migrate(conn: &mut PgConnection) -> Result<Vec<String>> {
    let applied = conn
        .run_pending_migrations(MIGRATIONS)
        .map_err(|e| anyhow!("migrations failed: {e}"))?;
    Ok(applied.iter().map(|v| v.to_string()).collect())
}
