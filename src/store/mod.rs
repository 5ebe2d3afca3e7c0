//! PostgreSQL through diesel: the pool, embedded migrations, and the rows.

pub mod models;
pub mod schema;

use anyhow::{Context, Result, anyhow};
use diesel::PgConnection;
use diesel::r2d2::{ConnectionManager, Pool, PooledConnection};
use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

pub type PgPool = Pool<ConnectionManager<PgConnection>>;
pub type PgConn = PooledConnection<ConnectionManager<PgConnection>>;

pub const MIGRATIONS: EmbeddedMigrations = embed_migrations!("migrations");

pub fn pool(url: &str, size: u32) -> Result<PgPool> {
    Pool::builder()
        .max_size(size)
        // Open connections as needed rather than all at start.
        .min_idle(Some(1))
        .connection_timeout(std::time::Duration::from_secs(10))
        .build(ConnectionManager::new(url))
        .context("connecting to the database")
}

/// Applies pending migrations; returns the names of those applied.
pub fn migrate(conn: &mut PgConnection) -> Result<Vec<String>> {
    let applied = conn
        .run_pending_migrations(MIGRATIONS)
        .map_err(|e| anyhow!("migrations failed: {e}"))?;
    Ok(applied.iter().map(|v| v.to_string()).collect())
}
