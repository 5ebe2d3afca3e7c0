//! Your data is yours: everything about an account as one JSON
//! document, and deleting the account.
//!
//! A deleted account's row stays, emptied: its finished games name their seats by account,
//! and those games must still replay (`verify`) and read the same to the other players,
//! with a neutral name where the player's was. What identifies the person goes: address,
//! name, password, tokens, webhooks, calendar feed, vacations, their emails in the outbox,
//! their chat messages, notes, mutes and reports.
//! Logs need no rewriting: the rules engines describe actions without names (a seat's
//! name is joined in when read), and the log is append-only.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bytea, Text, Timestamptz};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::access_tokens::AccessTokenResponse;
use super::chat::ChatMessage;
use super::mutes::MutedPlayer;
use super::ratings::{AccountRatingsResponse, Page};
use super::sessions::SessionKey;
use super::shapes::{AccountResponse, GameResponse, LogEntry};
use super::webhooks::WebhookResponse;
use super::{Domain, DomainError, DomainResult, ProblemCode};
use crate::store::kinds::{AccountId, GameId, GameStatus};
use crate::store::schema::{accounts, game_notes, game_seats, games};

/// The name a deleted account's seats show.
pub const DELETED_NAME: &str = "Deleted player";

/// Everything the server keeps about an account that its owner may read.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountExport {
    pub exported_at: DateTime<Utc>,
    pub account: AccountResponse,
    /// Every game with a seat of the account's, as that seat sees it, with its log.
    pub games: Vec<ExportedGame>,
    pub ratings: AccountRatingsResponse,
    /// Personal access tokens (never their secrets).
    pub access_tokens: Vec<AccessTokenResponse>,
    /// Webhooks (never their signing secrets).
    pub webhooks: Vec<WebhookResponse>,
    /// Players the account muted in chat.
    pub muted: Vec<MutedPlayer>,
    /// Chat messages the account reported, with its reasons.
    pub reports: Vec<ExportedReport>,
}

/// A report the account made.
#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ExportedReport {
    #[diesel(sql_type = BigInt)]
    pub message_id: i64,
    #[diesel(sql_type = BigInt)]
    pub game_id: GameId,
    #[diesel(sql_type = Text)]
    pub reason: String,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ExportedGame {
    pub game: GameResponse,
    pub log: Vec<LogEntry>,
    /// The account's private note on the game, if it wrote one.
    pub note: Option<String>,
    /// The chat messages the account wrote in the game (table and team), oldest first.
    pub chat: Vec<ChatMessage>,
}

/// Deleting the caller's account: its password, so that a token left on a shared computer
/// cannot delete it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteAccountRequest {
    pub password: String,
}

/// What deleting the account did.
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountDeleted {
    /// Games in progress the account resigned.
    pub resigned: Vec<i64>,
    /// Games not yet started it left.
    pub left: Vec<i64>,
}

/// The most games an export holds (the newest first); a player with more gets these and
/// `games_truncated` would be needed: no account comes near it today.
const MOST_GAMES: i64 = 10_000;

impl Domain {
    pub fn export_account(&self, account: AccountId) -> DomainResult<AccountExport> {
        let me = self.account(account)?;
        let ids: Vec<GameId> = {
            let mut conn = self.conn()?;
            game_seats::table
                .inner_join(games::table)
                .filter(game_seats::account_id.eq(account))
                .order(games::id.desc())
                .limit(MOST_GAMES)
                .select(games::id)
                .load(&mut conn)?
        };
        let mut exported = Vec::with_capacity(ids.len());
        for id in ids {
            let game = {
                let mut conn = self.conn()?;
                match self.game_for(&mut conn, Some(account), id) {
                    Ok(g) => g,
                    // Gone between the list and the read (a lobby game left): not exported.
                    Err(DomainError::NotFound { .. }) => continue,
                    Err(e) => return Err(e),
                }
            };
            let log = self.game_log(account, id, 0, i64::MAX)?;
            let mut conn = self.conn()?;
            let note = game_notes::table
                .filter(game_notes::game_id.eq(id))
                .filter(game_notes::account_id.eq(account))
                .select(game_notes::body)
                .first::<String>(&mut conn)
                .optional()?;
            let chat = diesel::sql_query(
                "SELECT m.id, m.game_id, m.channel, m.seat, m.account_id AS author_id, \
                 a.name AS author_name, m.body AS text, m.created_at \
                 FROM chat_messages m JOIN accounts a ON a.id = m.account_id \
                 WHERE m.game_id = $1 AND m.account_id = $2 ORDER BY m.id",
            )
            .bind::<BigInt, _>(id)
            .bind::<BigInt, _>(account)
            .load(&mut conn)?;
            exported.push(ExportedGame {
                game,
                log,
                note,
                chat,
            });
        }
        let muted = self.list_mutes(account)?;
        let mut conn = self.conn()?;
        let reports = diesel::sql_query(
            "SELECT r.message_id, m.game_id, r.reason, r.created_at \
             FROM chat_reports r JOIN chat_messages m ON m.id = r.message_id \
             WHERE r.reporter_id = $1 ORDER BY r.id",
        )
        .bind::<BigInt, _>(account)
        .load(&mut conn)?;
        Ok(AccountExport {
            exported_at: Utc::now(),
            account: super::accounts::to_response(&me),
            games: exported,
            ratings: self.account_ratings(
                account,
                Some(account),
                Page {
                    page: 1,
                    per_page: 1000,
                },
            )?,
            access_tokens: self.list_access_tokens(account)?,
            webhooks: self.list_webhooks(account)?,
            muted,
            reports,
        })
    }

    /// Deletes the account after checking its password: resigns its games in progress,
    /// leaves those not started, then erases what identifies it, in one transaction under
    /// the account's row lock (so that of requests racing, one deletes and the others find
    /// the account gone).
    pub fn delete_account(
        &self,
        account: AccountId,
        password: &str,
    ) -> DomainResult<AccountDeleted> {
        let (hash, deleted_at): (String, Option<DateTime<Utc>>) = {
            let mut conn = self.conn()?;
            accounts::table
                .find(account)
                .select((accounts::password_hash, accounts::deleted_at))
                .first(&mut conn)
                .optional()?
                .ok_or_else(gone)?
        };
        if deleted_at.is_some() {
            return Err(gone());
        }
        if !self.hashes.verify(password, Some(&hash))? {
            return Err(DomainError::forbidden(
                ProblemCode::CurrentPasswordWrong,
                "that is not the account's password: deleting the account needs it in password",
            ));
        }
        // Claim the deletion: of requests racing, one goes on and the others find the
        // account gone. Should a later step fail, the claim is given back (games already
        // resigned stay resigned) and the request may be repeated.
        let claimed = {
            let mut conn = self.conn()?;
            diesel::update(
                accounts::table
                    .find(account)
                    .filter(accounts::deleted_at.is_null()),
            )
            .set(accounts::deleted_at.eq(diesel::dsl::now))
            .execute(&mut conn)?
        };
        if claimed == 0 {
            return Err(gone());
        }
        match self.resign_and_erase(account) {
            Ok(done) => Ok(done),
            Err(e) => {
                if let Ok(mut conn) = self.conn() {
                    let _ = diesel::update(accounts::table.find(account))
                        .set(accounts::deleted_at.eq(None::<DateTime<Utc>>))
                        .execute(&mut conn);
                }
                Err(e)
            }
        }
    }

    fn resign_and_erase(&self, account: AccountId) -> DomainResult<AccountDeleted> {
        let seated: Vec<(GameId, GameStatus)> = {
            let mut conn = self.conn()?;
            game_seats::table
                .inner_join(games::table)
                .filter(game_seats::account_id.eq(account))
                .filter(game_seats::bot.eq(false))
                .filter(games::status.ne(GameStatus::Finished))
                .order(games::id.asc())
                .select((games::id, games::status))
                .load(&mut conn)?
        };
        let mut done = AccountDeleted {
            resigned: Vec::new(),
            left: Vec::new(),
        };
        for (id, status) in seated {
            // A game may have moved on since the list (finished, or started): what counts
            // is that the account is no longer in play.
            let result = match status {
                GameStatus::Open => self.leave_game(account, id).map(|_| &mut done.left),
                _ => self.resign(account, id).map(|_| &mut done.resigned),
            };
            match result {
                Ok(list) => list.push(id.0),
                Err(DomainError::Conflict { .. } | DomainError::NotFound { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        let mut conn = self.conn()?;
        let pats = conn.transaction::<_, DomainError, _>(|conn| erase(conn, account))?;
        self.sessions.forget(account);
        for key in pats {
            self.sessions.forget_session(&SessionKey::Pat(key));
        }
        Ok(done)
    }
}

/// The account's name taken out of what others at its tables still have: its games'
/// results (older ones were written with names) and the emails to others not yet sent.
/// Results written now name seats only, and read the names in as they are.
fn forget_name(conn: &mut PgConnection, account: AccountId, name: &str) -> DomainResult<()> {
    if name.trim().is_empty() || name == DELETED_NAME {
        return Ok(());
    }
    // The whole name as a word of its own ("Eve", not "Evelyn"), in a PostgreSQL regular
    // expression with every character taken literally.
    let literal: String = name
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == ' ' {
                c.to_string()
            } else {
                format!("\\{c}")
            }
        })
        .collect();
    let pattern = format!("(^|[^[:alnum:]]){literal}(?=[^[:alnum:]]|$)");
    let replacement = format!("\\1{DELETED_NAME}");
    diesel::sql_query(
        "UPDATE games SET result = jsonb_set(result, '{summary}', \
         to_jsonb(regexp_replace(result->>'summary', $2, $3, 'g'))) \
         WHERE result ? 'summary' AND id IN (SELECT game_id FROM game_seats WHERE account_id = $1) \
         AND result->>'summary' ~ $2",
    )
    .bind::<BigInt, _>(account)
    .bind::<Text, _>(&pattern)
    .bind::<Text, _>(&replacement)
    .execute(conn)?;
    // Others' words at the tables the account sat at (its own messages are deleted).
    diesel::sql_query(
        "UPDATE chat_messages SET body = regexp_replace(body, $2, $3, 'g') \
         WHERE account_id IS DISTINCT FROM $1 AND game_id IN \
         (SELECT game_id FROM game_seats WHERE account_id = $1) AND body ~ $2",
    )
    .bind::<BigInt, _>(account)
    .bind::<Text, _>(&pattern)
    .bind::<Text, _>(&replacement)
    .execute(conn)?;
    diesel::sql_query(
        "UPDATE outbox SET subject = regexp_replace(subject, $2, $3, 'g'), \
         body_text = regexp_replace(body_text, $2, $3, 'g'), \
         body_html = regexp_replace(body_html, $2, $3, 'g') \
         WHERE sent_at IS NULL AND account_id IS DISTINCT FROM $1 AND game_id IN \
         (SELECT game_id FROM game_seats WHERE account_id = $1) \
         AND (subject ~ $2 OR body_text ~ $2 OR body_html ~ $2)",
    )
    .bind::<BigInt, _>(account)
    .bind::<Text, _>(&pattern)
    .bind::<Text, _>(&replacement)
    .execute(conn)?;
    Ok(())
}

fn gone() -> DomainError {
    DomainError::Unauthorized {
        code: ProblemCode::UnknownAccount,
        message: "the token's account no longer exists".into(),
    }
}

#[derive(QueryableByName)]
struct Hash {
    #[diesel(sql_type = Bytea)]
    token_hash: Vec<u8>,
}

/// Erases what identifies `account`; returns the keys of the personal
/// access tokens it deleted.
fn erase(conn: &mut PgConnection, account: AccountId) -> DomainResult<Vec<[u8; 32]>> {
    // The address becomes one that can never receive mail (RFC 2606 `.invalid`), unique
    // per account, so the real one is free for a new account.
    let tombstone = format!("deleted-{account}@deleted.invalid");
    let name: String = accounts::table
        .find(account)
        .select(accounts::name)
        .first(conn)?;
    forget_name(conn, account, &name)?;
    diesel::update(accounts::table.find(account))
        .set((
            accounts::email.eq(&tombstone),
            accounts::email_lower.eq(&tombstone),
            accounts::name.eq(DELETED_NAME),
            // No PHC string: no password verifies against it.
            accounts::password_hash.eq("!deleted"),
            accounts::email_notifications.eq(false),
            accounts::reminders.eq(false),
            accounts::daily_digest.eq(false),
            accounts::email_verified_at.eq(None::<DateTime<Utc>>),
            accounts::email_bouncing_at.eq(None::<DateTime<Utc>>),
            accounts::email_bounce_status.eq(None::<String>),
            accounts::email_failing_at.eq(None::<DateTime<Utc>>),
            accounts::token_generation.eq(accounts::token_generation + 1),
            accounts::time_zone.eq("UTC"),
            accounts::quiet_from.eq(None::<i16>),
            accounts::quiet_until.eq(None::<i16>),
        ))
        .execute(conn)?;
    let pats: Vec<Hash> =
        diesel::sql_query("DELETE FROM access_tokens WHERE account_id = $1 RETURNING token_hash")
            .bind::<BigInt, _>(account)
            .load(conn)?;
    for statement in [
        "DELETE FROM webhooks WHERE account_id = $1",
        "DELETE FROM calendar_feeds WHERE account_id = $1",
        "DELETE FROM vacations WHERE account_id = $1",
        // What the person wrote: their chat messages (reports of them go with them), notes,
        // mutes and reports. Other players' messages stay.
        "DELETE FROM chat_messages WHERE account_id = $1",
        "DELETE FROM game_notes WHERE account_id = $1",
        "DELETE FROM chat_mutes WHERE account_id = $1 OR muted_id = $1",
        "DELETE FROM chat_reports WHERE reporter_id = $1",
        "DELETE FROM chat_reads WHERE account_id = $1",
        // Emails to the account: those not sent go; those sent keep their row (a bounce
        // or a duplicate is still matched by its Message-ID) without address or content.
        "DELETE FROM outbox WHERE account_id = $1 AND sent_at IS NULL",
        "UPDATE outbox SET to_address = 'deleted@deleted.invalid', subject = '', \
         body_text = '', body_html = '' WHERE account_id = $1",
        // Invitations the account was sent keep the game's record without the address.
        "UPDATE invitations SET email = 'deleted@deleted.invalid', \
         email_lower = 'deleted-' || id || '@deleted.invalid' WHERE account_id = $1",
    ] {
        diesel::sql_query(statement)
            .bind::<BigInt, _>(account)
            .execute(conn)?;
    }
    Ok(pats
        .into_iter()
        .filter_map(|h| <[u8; 32]>::try_from(h.token_hash.as_slice()).ok())
        .collect())
}
