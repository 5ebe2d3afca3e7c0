//! The database's functions and triggers, kept in one file (`sql/replaceable.sql`) and
//! applied after the migrations whenever its text changed, as Lemmy's "replaceable
//! schema" is. Migrations keep tables and data; a function is edited in that one place
//! instead of copied whole into a new migration each time it changes. The running code
//! calls the functions by their names, which stay the same when their text changes.

use diesel::PgConnection;
use diesel::connection::SimpleConnection;
use diesel::prelude::*;
use diesel::sql_types::{Nullable, Text};
use sha2::{Digest, Sha256};

use super::migrations::MigrationError;

/// Every function and trigger, as the newest migrations left them. The file first drops
/// the functions it defines (with their triggers), so a changed signature leaves no stale
/// overload behind.
pub const SQL: &str = include_str!("sql/replaceable.sql");

/// SHA-256 of [`SQL`], hex: what the database records once the file is applied.
pub fn sha256_hex() -> String {
    hex::encode(Sha256::digest(SQL.as_bytes()))
}

/// The hash recorded by the last application, if any.
pub fn recorded(conn: &mut PgConnection) -> Result<Option<String>, diesel::result::Error> {
    diesel::select(diesel::dsl::sql::<Nullable<Text>>(
        "(SELECT sha256 FROM turnpost_replaceable_schema)",
    ))
    .get_result(conn)
}

/// Applies the file in one transaction unless the database records its hash already;
/// true when it was applied. Called under the migration lock, after the migrations.
pub fn apply_if_changed(conn: &mut PgConnection) -> Result<bool, MigrationError> {
    let hash = sha256_hex();
    conn.transaction(|conn| {
        if recorded(conn)?.as_deref() == Some(hash.as_str()) {
            return Ok(false);
        }
        conn.batch_execute(SQL)?;
        diesel::sql_query(
            "INSERT INTO turnpost_replaceable_schema (id, sha256, applied_at) \
             VALUES (TRUE, $1, now()) \
             ON CONFLICT (id) DO UPDATE SET sha256 = EXCLUDED.sha256, applied_at = now()",
        )
        .bind::<Text, _>(&hash)
        .execute(conn)?;
        Ok(true)
    })
    .map_err(MigrationError::Replaceable)
}

/// Forgets the recorded hash (when its table exists), so the next run applies the file
/// again: after a down migration put older function bodies back.
pub fn forget_applied(conn: &mut PgConnection) -> Result<(), MigrationError> {
    conn.batch_execute(
        "DO $$ BEGIN
             IF to_regclass('turnpost_replaceable_schema') IS NOT NULL THEN
                 DELETE FROM turnpost_replaceable_schema;
             END IF;
         END $$",
    )
    .map_err(MigrationError::Replaceable)
}

/// The function names the file drops before creating them again.
pub fn dropped_names() -> Vec<&'static str> {
    const MARKER: &str = "replaceable_names TEXT[] := ARRAY[";
    let Some(start) = SQL.find(MARKER) else {
        return Vec::new();
    };
    let rest = &SQL[start + MARKER.len()..];
    let list = rest.find(']').map_or("", |end| &rest[..end]);
    list.split(',')
        .map(|n| n.trim().trim_matches('\''))
        .filter(|n| !n.is_empty())
        .collect()
}

/// The function names the file creates.
pub fn created_names() -> Vec<&'static str> {
    SQL.split("CREATE OR REPLACE FUNCTION ")
        .skip(1)
        .filter_map(|rest| rest.split('(').next())
        .map(str::trim)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_drops_exactly_the_functions_it_creates() {
        let mut dropped = dropped_names();
        let mut created = created_names();
        dropped.sort();
        created.sort();
        assert_eq!(dropped.len(), 15, "{dropped:?}");
        assert_eq!(dropped, created);
    }

    #[test]
    fn a_generated_column_s_function_is_not_replaceable() {
        // webhooks.receiver is stored from webhook_receiver_of: dropping it would drop
        // the column, and a new body would disagree with the stored values.
        assert!(!SQL.contains("FUNCTION webhook_receiver_of"));
    }
}
