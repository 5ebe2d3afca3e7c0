//! The players an account muted in chat, for its settings page: the list
//! beside `POST`/`DELETE /accounts/{id}/mute` (`chat.rs`).

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Text, Timestamptz};
use serde::Serialize;
use utoipa::ToSchema;

use super::{Domain, DomainResult};
use crate::store::kinds::AccountId;

/// A player the caller muted.
#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct MutedPlayer {
    #[diesel(sql_type = BigInt)]
    pub account_id: AccountId,
    /// Their name, as other players see it.
    #[diesel(sql_type = Text)]
    pub name: String,
    /// When the caller muted them.
    #[diesel(sql_type = Timestamptz)]
    pub muted_at: DateTime<Utc>,
}

impl Domain {
    /// The players `account` muted, most recently muted first.
    pub fn list_mutes(&self, account: AccountId) -> DomainResult<Vec<MutedPlayer>> {
        let mut conn = self.conn()?;
        Ok(diesel::sql_query(
            "SELECT u.muted_id AS account_id, a.name, u.created_at AS muted_at \
             FROM chat_mutes u JOIN accounts a ON a.id = u.muted_id \
             WHERE u.account_id = $1 ORDER BY u.created_at DESC, u.muted_id",
        )
        .bind::<BigInt, _>(account)
        .load(&mut conn)?)
    }
}
