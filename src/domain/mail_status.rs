//! What the outbox's results say about an account's address, and the operator's view of
//! messages given up.
//!
//! A message is given up after its last attempt (`outbox_max_attempts`) and never tried
//! again by itself. That is reported three ways: the account's `email_status` becomes
//! `failing` (until a later email to it goes out), the counter
//! `turnpost_outbox_given_up_total` and the gauge `turnpost_outbox_failed` (see
//! `api::metrics`), and `turnpost outbox failed` lists them; `turnpost outbox requeue`
//! gives them their attempts back, once the cause (say, the mail server's settings) is
//! fixed. A mailbox the receiving server refuses for good is not retried at all: the
//! address is marked bouncing at once ([`refused`]).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Text};

use crate::store::kinds::{AccountId, OutboxKind};
use crate::store::models::OutboxRow;
use crate::store::schema::accounts;

/// Records that `row` was given up: an email's address is failing. Webhook rows say
/// nothing of the address (their deliveries list shows them).
pub fn gave_up(conn: &mut PgConnection, row: &OutboxRow) -> QueryResult<()> {
    metrics::counter!(
        "turnpost_outbox_given_up_total",
        "kind" => outbox_kind(row.kind)
    )
    .increment(1);
    if let (Some(account), false) = (row.account_id, is_webhook(row)) {
        diesel::update(accounts::table.find(account))
            .set(accounts::email_failing_at.eq(diesel::dsl::now))
            .execute(conn)?;
    }
    Ok(())
}

/// Records that an email to `row`'s account went out: its address works again.
pub fn reached(conn: &mut PgConnection, row: &OutboxRow) -> QueryResult<()> {
    if let (Some(account), false) = (row.account_id, is_webhook(row)) {
        diesel::update(
            accounts::table
                .find(account)
                .filter(accounts::email_failing_at.is_not_null()),
        )
        .set(accounts::email_failing_at.eq(None::<DateTime<Utc>>))
        .execute(conn)?;
    }
    Ok(())
}

/// Marks `address` bouncing because its mail server refused the mailbox at send time
/// (`status`, e.g. `5.1.1`; see `notify::refusal`): the same state a delivery-status report
/// sets, so nothing more goes to it until its owner confirms it again. Returns whether an
/// account has that address.
pub fn refused(conn: &mut PgConnection, address: &str, status: &str) -> QueryResult<bool> {
    let n = diesel::update(
        accounts::table.filter(accounts::email_lower.eq(address.trim().to_lowercase())),
    )
    .set((
        accounts::email_bouncing_at.eq(diesel::dsl::now),
        accounts::email_bounce_status.eq(Some(status)),
        accounts::updated_at.eq(diesel::dsl::now),
    ))
    .execute(conn)?;
    if n > 0 {
        metrics::counter!("turnpost_emails_bounced_total", "reported_by" => "smtp").increment(1);
        tracing::info!(
            status,
            "the mail server refused an address; mail to it is stopped"
        );
    }
    Ok(n > 0)
}

fn is_webhook(row: &OutboxRow) -> bool {
    row.kind == Some(OutboxKind::Webhook)
}

/// The label of a row without a kind (mail stored rendered before kinds existed).
pub const RENDERED: &str = "rendered";

/// Every label [`outbox_kind`] gives: the kinds' words, and [`RENDERED`].
pub fn kind_labels() -> impl Iterator<Item = &'static str> {
    OutboxKind::ALL
        .iter()
        .map(|k| k.as_str())
        .chain(std::iter::once(RENDERED))
}

/// An outbox row's kind as a metric label: one of [`kind_labels`], never free text (the
/// column holds only the kinds' words).
pub fn outbox_kind(kind: Option<OutboxKind>) -> &'static str {
    kind.map_or(RENDERED, OutboxKind::as_str)
}

/// A message given up, as `turnpost outbox failed` lists it.
#[derive(Debug, QueryableByName)]
pub struct GivenUp {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub kind: Option<OutboxKind>,
    #[diesel(sql_type = Text)]
    pub to_address: String,
    #[diesel(sql_type = diesel::sql_types::Integer)]
    pub attempts: i32,
    #[diesel(sql_type = diesel::sql_types::Timestamptz)]
    pub failed_at: DateTime<Utc>,
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub last_error: Option<String>,
}

/// Messages given up and not requeued, oldest first.
pub fn given_up(conn: &mut PgConnection, limit: i64) -> QueryResult<Vec<GivenUp>> {
    diesel::sql_query(
        "SELECT id, kind, to_address, attempts, failed_at, last_error FROM outbox \
         WHERE failed_at IS NOT NULL AND sent_at IS NULL AND dropped_at IS NULL \
         ORDER BY failed_at, id LIMIT $1",
    )
    .bind::<BigInt, _>(limit)
    .load(conn)
}

/// Given-up messages by kind, for the `turnpost_outbox_failed` gauge.
#[derive(Debug, QueryableByName)]
pub struct FailedCount {
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub kind: Option<OutboxKind>,
    #[diesel(sql_type = BigInt)]
    pub count: i64,
}

pub fn failed_counts(conn: &mut PgConnection) -> QueryResult<Vec<FailedCount>> {
    diesel::sql_query(
        "SELECT kind, count(*) AS count FROM outbox \
         WHERE failed_at IS NOT NULL AND sent_at IS NULL AND dropped_at IS NULL \
         GROUP BY kind",
    )
    .load(conn)
}

/// Gives given-up messages (all of them, or those with the given ids) their attempts back
/// and makes them due now; returns how many. A message sent or dropped meanwhile is left
/// alone. The address's `failing` state stays until one of them goes out.
pub fn requeue(conn: &mut PgConnection, ids: Option<&[i64]>) -> QueryResult<usize> {
    diesel::sql_query(
        "UPDATE outbox SET failed_at = NULL, attempts = 0, next_attempt_at = now(), \
           claimed_until = NULL \
         WHERE failed_at IS NOT NULL AND sent_at IS NULL AND dropped_at IS NULL \
           AND ($1::BIGINT[] IS NULL OR id = ANY ($1))",
    )
    .bind::<diesel::sql_types::Nullable<Array<BigInt>>, _>(ids.map(<[i64]>::to_vec))
    .execute(conn)
}

/// Whether `account`'s address is failing (for tests and the account view).
pub fn is_failing(conn: &mut PgConnection, account: AccountId) -> QueryResult<bool> {
    accounts::table
        .find(account)
        .select(accounts::email_failing_at.is_not_null())
        .first(conn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_its_own_label_and_a_row_without_one_is_rendered() {
        for k in OutboxKind::ALL {
            assert_eq!(outbox_kind(Some(*k)), k.as_str());
        }
        assert_eq!(outbox_kind(None), "rendered");
        let labels: Vec<&str> = kind_labels().collect();
        assert_eq!(labels.len(), OutboxKind::ALL.len() + 1);
        assert_eq!(OutboxKind::from_word("Cheap pills"), None);
    }
}

/// Messages waiting to go out, by kind, and how long the oldest has waited: the outbox
/// gauges `turnpost_outbox_pending` and `turnpost_outbox_oldest_pending_seconds`. A growing
/// age with a steady count says the senders are stuck, not busy.
#[derive(Debug, QueryableByName)]
pub struct PendingCount {
    #[diesel(sql_type = diesel::sql_types::Nullable<Text>)]
    pub kind: Option<OutboxKind>,
    #[diesel(sql_type = BigInt)]
    pub count: i64,
    #[diesel(sql_type = diesel::sql_types::Double)]
    pub oldest_secs: f64,
}

pub fn pending_counts(conn: &mut PgConnection) -> QueryResult<Vec<PendingCount>> {
    diesel::sql_query(
        "SELECT kind, count(*) AS count, \
                GREATEST(0, EXTRACT(EPOCH FROM now() - min(created_at)))::float8 AS oldest_secs \
         FROM outbox WHERE sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL \
         GROUP BY kind",
    )
    .load(conn)
}
