//! Running the migrations: forwards at start, backwards for an operator, always one node
//! at a time.

use diesel::PgConnection;
use diesel::connection::SimpleConnection;
use diesel::migration::MigrationSource;
use diesel::pg::Pg;
use diesel_migrations::MigrationHarness;

use super::MIGRATIONS;
use super::replaceable;

/// The key of the session advisory lock every migration run holds (`pg_advisory_lock`).
/// Without it, two nodes started at once on a fresh database would both create the same
/// tables and one would die on `duplicate key … pg_type_typname_nsp_index`: with the lock
/// the second waits, then finds nothing to do. Fixed, so that every version of the server
/// takes the same one; distinct from the event lock of `turnpost_store_event`
/// (7733100025).
pub const MIGRATION_LOCK_KEY: i64 = 7_733_100_000;

/// Why migrating or reverting failed.
#[derive(Debug, thiserror::Error)]
pub enum MigrationError {
    #[error("migration lock: {0}")]
    Lock(#[source] diesel::result::Error),
    #[error("migrations failed: {0}")]
    Apply(String),
    #[error("revert failed: {0}")]
    Revert(String),
    #[error("cannot revert {asked} migration(s): only {applied} are applied")]
    TooMany { asked: usize, applied: usize },
    #[error("replaceable schema: {0}")]
    Replaceable(#[source] diesel::result::Error),
    #[error("reading the applied migrations: {0}")]
    Status(String),
}

/// Runs `f` holding the migration lock on `conn`, and releases it whatever `f` returned
/// (a connection that broke lets go of it anyway, as the session ends).
fn locked<T>(
    conn: &mut PgConnection,
    f: impl FnOnce(&mut PgConnection) -> Result<T, MigrationError>,
) -> Result<T, MigrationError> {
    conn.batch_execute(&format!("SELECT pg_advisory_lock({MIGRATION_LOCK_KEY})"))
        .map_err(MigrationError::Lock)?;
    let result = f(conn);
    let unlocked = conn
        .batch_execute(&format!("SELECT pg_advisory_unlock({MIGRATION_LOCK_KEY})"))
        .map_err(MigrationError::Lock);
    let value = result?;
    unlocked?;
    Ok(value)
}

/// Applies pending migrations, then the replaceable functions and triggers if their text
/// changed; returns the names of the migrations applied.
pub fn migrate(conn: &mut PgConnection) -> Result<Vec<String>, MigrationError> {
    locked(conn, |conn| {
        let applied = conn
            .run_pending_migrations(MIGRATIONS)
            .map_err(|e| MigrationError::Apply(e.to_string()))?;
        let names = applied.iter().map(|v| name_of(&v.to_string())).collect();
        if knows_every_applied(conn)? {
            replaceable::apply_if_changed(conn)?;
        } else {
            // A newer server migrated this database: its functions are the ones its
            // tables need, and an older node starting now must not put its own back.
            tracing::warn!(
                "the database has migrations this server does not know: its replaceable \
                 functions are left as they are"
            );
        }
        Ok(names)
    })
}

/// Whether every migration applied to the database is one of this build's.
fn knows_every_applied(conn: &mut PgConnection) -> Result<bool, MigrationError> {
    let applied = conn
        .applied_migrations()
        .map_err(|e| MigrationError::Apply(e.to_string()))?;
    let known: Vec<String> = MigrationSource::<Pg>::migrations(&MIGRATIONS)
        .map_err(|e| MigrationError::Apply(e.to_string()))?
        .iter()
        .map(|m| m.name().version().to_string())
        .collect();
    Ok(applied.iter().all(|v| known.contains(&v.to_string())))
}

/// How many migrations the database has applied.
pub fn applied_count(conn: &mut PgConnection) -> Result<usize, MigrationError> {
    conn.applied_migrations()
        .map(|v| v.len())
        .map_err(|e| MigrationError::Apply(e.to_string()))
}

/// The directory name of the migration with `version` (`2026-11-26-000014_takeback`),
/// which says what it is; the version itself when this build does not have it.
fn name_of(version: &str) -> String {
    MigrationSource::<Pg>::migrations(&MIGRATIONS)
        .ok()
        .and_then(|all| {
            all.iter()
                .find(|m| m.name().version().to_string() == version)
                .map(|m| m.name().to_string())
        })
        .unwrap_or_else(|| version.to_string())
}

/// Reverts the newest `n` migrations, newest first, each with its `down.sql` in a
/// transaction of its own; `on_reverted` hears each name once its down committed. A down
/// that would destroy data its up cannot bring back refuses (RAISE EXCEPTION) and changes
/// nothing; those reverted before it stay reverted. Refuses `n` larger than the number
/// applied before reverting anything.
pub fn revert(
    conn: &mut PgConnection,
    n: usize,
    mut on_reverted: impl FnMut(&str),
) -> Result<Vec<String>, MigrationError> {
    locked(conn, |conn| {
        let applied = conn
            .applied_migrations()
            .map_err(|e| MigrationError::Revert(e.to_string()))?
            .len();
        if n > applied {
            return Err(MigrationError::TooMany { asked: n, applied });
        }
        let mut reverted = Vec::with_capacity(n);
        for _ in 0..n {
            let name = name_of(&revert_newest(conn)?);
            // The functions now may be older ones a down put back: the next run applies
            // the replaceable file again.
            replaceable::forget_applied(conn)?;
            on_reverted(&name);
            reverted.push(name);
        }
        Ok(reverted)
    })
}

/// How often a down that lost a deadlock is run again before its error stands.
const DEADLOCK_RETRIES: usize = 5;

/// Reverts the newest applied migration, and returns its version. A running node's
/// transactions can take the same tables' locks in another order than a down does, and
/// PostgreSQL then cancels one of the two: the down's transaction rolled back whole, so
/// it runs again rather than failing a revert that nothing refused.
fn revert_newest(conn: &mut PgConnection) -> Result<String, MigrationError> {
    let mut attempt = 0;
    loop {
        match conn.revert_last_migration(MIGRATIONS) {
            Ok(version) => return Ok(version.to_string()),
            Err(e) => {
                let message = e.to_string();
                attempt += 1;
                if attempt > DEADLOCK_RETRIES || !message.contains("deadlock detected") {
                    return Err(MigrationError::Revert(message));
                }
                tracing::warn!(attempt, error = %message, "a migration's down lost a deadlock; running it again");
            }
        }
    }
}

/// Where one migration stands on a database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MigrationState {
    /// Applied, at the time the database recorded (`run_on`, in its own time zone).
    Applied(chrono::NaiveDateTime),
    /// One of this build's migrations, not applied yet.
    Pending,
    /// Applied, but not one of this build's: a newer release migrated the database.
    NotInThisBuild(chrono::NaiveDateTime),
}

/// A migration and where it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MigrationStatus {
    /// The directory name (`2026-11-26-000014_takeback`); the bare version for one this
    /// build does not have.
    pub name: String,
    pub state: MigrationState,
}

/// Every migration of this build, oldest first, each applied (with when) or pending,
/// followed by those applied that this build does not have. Read in a read-only
/// transaction, so that it changes nothing, not even on a database never migrated: the
/// migration harness's own listing creates its table when it is missing.
pub fn status(conn: &mut PgConnection) -> Result<Vec<MigrationStatus>, MigrationError> {
    use diesel::prelude::*;

    #[derive(QueryableByName)]
    struct Exists {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        present: bool,
    }
    #[derive(QueryableByName)]
    struct Applied {
        #[diesel(sql_type = diesel::sql_types::Text)]
        version: String,
        #[diesel(sql_type = diesel::sql_types::Timestamp)]
        run_on: chrono::NaiveDateTime,
    }

    let applied: Vec<Applied> = conn
        .build_transaction()
        .read_only()
        .run(|conn| {
            let table = diesel::sql_query(
                "SELECT to_regclass('__diesel_schema_migrations') IS NOT NULL AS present",
            )
            .get_result::<Exists>(conn)?;
            if !table.present {
                return Ok(Vec::new());
            }
            diesel::sql_query(
                "SELECT version::text AS version, run_on FROM __diesel_schema_migrations \
                 ORDER BY version",
            )
            .load(conn)
        })
        .map_err(|e: diesel::result::Error| MigrationError::Status(e.to_string()))?;

    let mut known: Vec<(String, String)> = MigrationSource::<Pg>::migrations(&MIGRATIONS)
        .map_err(|e| MigrationError::Status(e.to_string()))?
        .iter()
        .map(|m| (m.name().version().to_string(), m.name().to_string()))
        .collect();
    known.sort();
    let mut listed: Vec<MigrationStatus> = known
        .iter()
        .map(|(version, name)| MigrationStatus {
            name: name.clone(),
            state: applied
                .iter()
                .find(|a| &a.version == version)
                .map_or(MigrationState::Pending, |a| {
                    MigrationState::Applied(a.run_on)
                }),
        })
        .collect();
    listed.extend(
        applied
            .iter()
            .filter(|a| !known.iter().any(|(version, _)| *version == a.version))
            .map(|a| MigrationStatus {
                name: a.version.clone(),
                state: MigrationState::NotInThisBuild(a.run_on),
            }),
    );
    Ok(listed)
}
