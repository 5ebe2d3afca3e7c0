//! Chat at the table: each game has a channel for its seated players, and team
//! games (Partners with four players, Kasino in teams) one per team that only the team
//! reads. Spectators, invitees and strangers neither read nor write: a public game's table
//! talk is between its players (see the players' guide, "Chat").
//!
//! - Text is neutralised before it is stored: NUL is refused, other control characters
//!   become spaces (a line break stays), bidirectional override characters are removed;
//!   at most [`MAX_CHARS`] characters remain. Clients render it as text, never as HTML.
//! - A player posts at most [`PER_MINUTE`] messages a minute, over all games (429).
//! - A player may mute another: the muted player's messages are left out of the muter's
//!   lists, unread counts and events, everywhere. Any reader may report a message; the
//!   operator lists reports with `turnpost chat reports`.
//! - Chat is not part of the game's action log: never replayed, untouched by takebacks.
//! - Each message is announced on the event stream (`chat_message`, to the accounts that
//!   may read it and have not muted its author) and to webhooks taking `chat_message`.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamptz};
use serde::{Deserialize, Serialize};
use serde_json::json;
use utoipa::{IntoParams, ToSchema};

use super::locked::LockedGame;
use super::{Domain, DomainError, DomainResult, ProblemCode};
use crate::store::kinds::{AccountId, ChatChannel, GameId};
use crate::store::models::GameRow;

/// Characters of a message, once neutralised.
pub const MAX_CHARS: usize = 1000;
/// Characters of a report's reason.
pub const MAX_REASON_CHARS: usize = 500;
/// Messages a player may post in a minute, over all games.
pub const PER_MINUTE: i64 = 20;
/// Messages listed per page by default, and at most.
pub const DEFAULT_PAGE: i64 = 50;
pub const MAX_PAGE: i64 = 200;

/// One chat message as its readers see it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema, QueryableByName)]
pub struct ChatMessage {
    /// Grows in the order messages were posted in the game.
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = BigInt)]
    pub game_id: GameId,
    #[diesel(sql_type = Text)]
    pub channel: ChatChannel,
    /// The author's seat (counted from 0).
    #[diesel(sql_type = Integer)]
    pub seat: i32,
    #[diesel(sql_type = BigInt)]
    pub author_id: AccountId,
    /// The author's name, as now.
    #[diesel(sql_type = Text)]
    pub author_name: String,
    /// Plain text (neutralised; may hold line breaks). Render it as text, never as HTML.
    #[diesel(sql_type = Text)]
    pub text: String,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
}

/// A page of a game's chat, oldest first.
#[derive(Debug, Serialize, ToSchema)]
pub struct ChatPage {
    pub messages: Vec<ChatMessage>,
    /// Pass as `before` for the page of older messages; absent on the oldest page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_before: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ChatParams {
    /// `table` (the default) or `team` (team games only: the caller's team).
    pub channel: Option<ChatChannel>,
    /// Only messages with an id below this (the page before): the cursor `next_before`.
    #[param(minimum = 0)]
    pub before: Option<i64>,
    /// Only messages with an id above this, oldest first (to catch up after a known one).
    /// With `before` too: the messages between the two.
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many (1 to 200; default 50).
    #[param(minimum = 1, maximum = 200)]
    pub limit: Option<i64>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewChatMessage {
    /// 1 to 1000 characters, at least one of them neither white space nor a control or
    /// bidi formatting character; no NUL. Other control characters become spaces, bidi
    /// controls are removed and outer white space is trimmed.
    #[schema(
        min_length = 1,
        max_length = 1000,
        pattern = r"^[^\x00]*[^\x00-\x20\x7F-\xA0\u1680\u2000-\u200A\u2028\u2029\u202A-\u202F\u205F\u2066-\u2069\u3000][^\x00]*$"
    )]
    pub text: String,
    /// `table` (the default) or `team`.
    #[serde(default)]
    pub channel: Option<ChatChannel>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatReadMark {
    /// The newest message the caller has read.
    #[serde(deserialize_with = "super::integral::int")]
    #[schema(minimum = 0)]
    pub last_read_id: i64,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChatReport {
    /// Why (at most 500 characters; may be empty; no NUL).
    #[serde(default)]
    #[schema(max_length = 500, pattern = r"^[^\x00]*$")]
    pub reason: String,
}

/// A game of the caller's with chat messages it has not read.
#[derive(Debug, Serialize, ToSchema, QueryableByName)]
pub struct ChatUnread {
    #[diesel(sql_type = BigInt)]
    pub game_id: GameId,
    #[diesel(sql_type = BigInt)]
    pub unread: i64,
}

/// A reported message, for the operator.
#[derive(Debug, QueryableByName)]
pub struct ReportRow {
    #[diesel(sql_type = BigInt)]
    pub id: i64,
    #[diesel(sql_type = Timestamptz)]
    pub created_at: DateTime<Utc>,
    #[diesel(sql_type = BigInt)]
    pub message_id: i64,
    #[diesel(sql_type = BigInt)]
    pub game_id: i64,
    #[diesel(sql_type = BigInt)]
    pub author_id: i64,
    #[diesel(sql_type = Text)]
    pub author_name: String,
    #[diesel(sql_type = BigInt)]
    pub reporter_id: i64,
    #[diesel(sql_type = Text)]
    pub reason: String,
    #[diesel(sql_type = Text)]
    pub text: String,
}

/// Whether `c` is a bidirectional embedding, override or isolate control: text holding
/// them can show itself reversed or spill its direction into what follows it.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The text to store: NUL refused, `\r\n` and `\r` made line breaks, other control
/// characters spaces, bidi controls removed, outer white space trimmed. At most `max`
/// characters are sent, and at least one remains (unless `may_be_empty`).
pub fn neutralise(raw: &str, max: usize, may_be_empty: bool) -> DomainResult<String> {
    if raw.contains('\0') {
        return Err(DomainError::invalid(
            ProblemCode::InvalidChatMessage,
            "the text holds a NUL character",
        ));
    }
    // The length counts what was sent, as the contract's `maxLength` does.
    if raw.chars().count() > max {
        return Err(DomainError::invalid(
            ProblemCode::ChatMessageTooLong,
            format!("at most {max} characters"),
        ));
    }
    let raw = raw.replace("\r\n", "\n");
    let text: String = raw
        .chars()
        .filter(|c| !is_bidi_control(*c))
        .map(|c| match c {
            '\n' => '\n',
            '\r' => '\n',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    let text = text.trim().to_string();
    if text.is_empty() && !may_be_empty {
        return Err(DomainError::invalid(
            ProblemCode::InvalidChatMessage,
            "the message holds no text",
        ));
    }
    Ok(text)
}

/// The team of `seat` in a team game, or `None` when the game has no teams.
pub fn team_of(row: &GameRow, seat: i32) -> Option<i32> {
    let teams = match row.game_type.as_str() {
        "partners" => row.players == 4,
        "kasino" => {
            row.players == 4
                && row
                    .options
                    .get("teams")
                    .and_then(serde_json::Value::as_bool)
                    .unwrap_or(false)
        }
        _ => false,
    };
    teams.then_some(seat % 2)
}

/// Who reads a channel of a game, by seat.
fn readers(game: &LockedGame, channel: ChatChannel, team: Option<i32>) -> Vec<(i32, AccountId)> {
    game.seats
        .iter()
        .filter(|s| channel == ChatChannel::Table || team_of(&game.row, s.seat) == team)
        .map(|s| (s.seat, s.account_id))
        .collect()
}

#[derive(QueryableByName)]
struct Wait {
    #[diesel(sql_type = BigInt)]
    recent: i64,
    #[diesel(sql_type = BigInt)]
    wait: i64,
}

#[derive(QueryableByName)]
struct Muter {
    #[diesel(sql_type = BigInt)]
    account_id: AccountId,
}

const MESSAGE_COLUMNS: &str = "m.id, m.game_id, m.channel, m.seat, m.account_id AS author_id, \
     a.name AS author_name, m.body AS text, m.created_at";

impl Domain {
    /// The caller's seat and, for the team channel, its team: `404` when the game is hidden
    /// from the caller, `403 not_a_player` without a seat, `422 no_team_channel`.
    fn chat_seat(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        account: AccountId,
        channel: ChatChannel,
    ) -> DomainResult<(i32, Option<i32>)> {
        let seat = self.seat_or_hidden(conn, game, account)?;
        match channel {
            ChatChannel::Table => Ok((seat, None)),
            ChatChannel::Team => match team_of(&game.row, seat) {
                Some(team) => Ok((seat, Some(team))),
                None => Err(DomainError::invalid(
                    ProblemCode::NoTeamChannel,
                    "this game has no teams",
                )),
            },
        }
    }

    /// A page of a channel of game `id`, as `account` may read it.
    pub fn list_chat(
        &self,
        account: AccountId,
        id: GameId,
        params: ChatParams,
    ) -> DomainResult<ChatPage> {
        let limit = params.limit.unwrap_or(DEFAULT_PAGE);
        if !(1..=MAX_PAGE).contains(&limit)
            || params.before.is_some_and(|b| b < 0)
            || params.after.is_some_and(|a| a < 0)
        {
            return Err(DomainError::invalid(
                ProblemCode::InvalidQuery,
                "limit is 1 to 200; before and after are ids ≥ 0",
            ));
        }
        let channel = params.channel.unwrap_or(ChatChannel::Table);
        let mut conn = self.conn()?;
        let game = LockedGame::read(&mut conn, id)?;
        let (_, team) = self.chat_seat(&mut conn, &game, account, channel)?;
        let filter = "m.game_id = $1 AND m.channel = $2 AND m.team IS NOT DISTINCT FROM $3 \
             AND (m.account_id = $4 OR NOT EXISTS (SELECT 1 FROM chat_mutes u \
                  WHERE u.account_id = $4 AND u.muted_id = m.account_id))";
        // One more than asked tells whether an older page exists.
        // After a known message: oldest first; otherwise newest first, turned round below.
        let order = if params.after.is_some() {
            "ASC"
        } else {
            "DESC"
        };
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS} FROM chat_messages m JOIN accounts a ON a.id = m.account_id \
             WHERE {filter} AND m.id > $5 AND m.id < $7 ORDER BY m.id {order} LIMIT $6"
        );
        let mut rows: Vec<ChatMessage> = diesel::sql_query(sql)
            .bind::<BigInt, _>(id)
            .bind::<Text, _>(channel.as_str())
            .bind::<Nullable<Integer>, _>(team)
            .bind::<BigInt, _>(account)
            .bind::<BigInt, _>(params.after.unwrap_or(-1))
            .bind::<BigInt, _>(limit + 1)
            .bind::<BigInt, _>(params.before.unwrap_or(i64::MAX))
            .load(&mut conn)?;
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next_before = if params.after.is_some() {
            None
        } else {
            rows.reverse();
            if more {
                rows.first().map(|m| m.id)
            } else {
                None
            }
        };
        Ok(ChatPage {
            messages: rows,
            next_before,
        })
    }

    /// Posts a message: stored, announced on the event stream, owed to webhooks, all in one
    /// transaction.
    pub fn post_chat(
        &self,
        account: AccountId,
        id: GameId,
        body: NewChatMessage,
    ) -> DomainResult<ChatMessage> {
        let channel = body.channel.unwrap_or(ChatChannel::Table);
        let text = neutralise(&body.text, MAX_CHARS, false)?;
        let mut conn = self.conn()?;
        self.retrying(&mut conn, |conn| {
            let game = LockedGame::read(conn, id)?;
            self.post_chat_on(conn, &game, account, channel, &text)
        })
    }

    /// Posts `text` (already neutralised) in the caller's transaction, on `game` as read
    /// or locked by the caller: an email reply posts its `say` lines with its moves.
    pub(crate) fn post_chat_on(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        account: AccountId,
        channel: ChatChannel,
        text: &str,
    ) -> DomainResult<ChatMessage> {
        let id = game.row.id;
        let (seat, team) = self.chat_seat(conn, game, account, channel)?;
        // The author's posts in line (the count below is then exact), and the game's
        // (ids are then drawn in the order the messages commit: a reader catching up
        // with `after` misses none).
        diesel::sql_query(
            "SELECT pg_advisory_xact_lock(hashtextextended('chat-author:' || $1, 0))",
        )
        .bind::<BigInt, _>(account)
        .execute(conn)?;
        let w: Wait = diesel::sql_query(
            "SELECT count(*) AS recent, COALESCE(GREATEST(1, CEIL(EXTRACT(EPOCH FROM \
                 min(created_at) + interval '1 minute' - clock_timestamp())))::BIGINT, 1) AS wait \
             FROM chat_messages WHERE account_id = $1 \
               AND created_at > clock_timestamp() - interval '1 minute'",
        )
        .bind::<BigInt, _>(account)
        .get_result(conn)?;
        if w.recent >= PER_MINUTE {
            return Err(DomainError::Limited {
                code: ProblemCode::RateLimited,
                message: format!("a player may post {PER_MINUTE} chat messages a minute"),
                retry_after_secs: w.wait.clamp(1, 60) as u64,
            });
        }
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended('chat-game:' || $1, 0))")
            .bind::<BigInt, _>(id)
            .execute(conn)?;
        let message: ChatMessage = diesel::sql_query(format!(
            "WITH m AS (INSERT INTO chat_messages (game_id, account_id, seat, channel, team, body, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, clock_timestamp()) RETURNING *) \
             SELECT {MESSAGE_COLUMNS} FROM m JOIN accounts a ON a.id = m.account_id"
        ))
        .bind::<BigInt, _>(id)
        .bind::<BigInt, _>(account)
        .bind::<Integer, _>(seat)
        .bind::<Text, _>(channel.as_str())
        .bind::<Nullable<Integer>, _>(team)
        .bind::<Text, _>(text)
        .get_result(conn)?;
        let readers = readers(game, channel, team);
        let reader_ids: Vec<i64> = readers.iter().map(|r| r.1.0).collect();
        let muters: Vec<Muter> = diesel::sql_query(
            "SELECT account_id FROM chat_mutes WHERE muted_id = $1 AND account_id = ANY($2)",
        )
        .bind::<BigInt, _>(account)
        .bind::<Array<BigInt>, _>(&reader_ids)
        .load(conn)?;
        let recipients: Vec<(i32, AccountId)> = readers
            .into_iter()
            .filter(|(_, a)| !muters.iter().any(|m| m.account_id == *a))
            .collect();
        let payload = json!({
            "game": id,
            "version": game.row.version,
            "status": game.row.status,
            "to_act": [],
            "accounts": [],
            "to_act_accounts": [],
            "lobby": false,
            "chat": {
                "message": message,
                "recipients": recipients.iter().map(|r| r.1).collect::<Vec<_>>(),
            },
        });
        diesel::sql_query("SELECT turnpost_store_event($1::jsonb)")
            .bind::<Text, _>(payload.to_string())
            .execute(conn)?;
        let others: Vec<(i32, AccountId)> =
            recipients.into_iter().filter(|r| r.1 != account).collect();
        owe_chat_webhooks(conn, &game.row, &message, &others)?;
        Ok(message)
    }

    /// Marks game `id`'s chat read up to `last_read_id` for a seated caller.
    pub fn mark_chat_read(
        &self,
        account: AccountId,
        id: GameId,
        mark: ChatReadMark,
    ) -> DomainResult<()> {
        if mark.last_read_id < 0 {
            return Err(DomainError::invalid(
                ProblemCode::InvalidBody,
                "last_read_id is an id ≥ 0",
            ));
        }
        let mut conn = self.conn()?;
        let game = LockedGame::read(&mut conn, id)?;
        self.seat_or_hidden(&mut conn, &game, account)?;
        diesel::sql_query(
            "INSERT INTO chat_reads (account_id, game_id, last_read_id) VALUES ($1, $2, $3) \
             ON CONFLICT (account_id, game_id) DO UPDATE \
             SET last_read_id = GREATEST(chat_reads.last_read_id, EXCLUDED.last_read_id)",
        )
        .bind::<BigInt, _>(account)
        .bind::<BigInt, _>(id)
        .bind::<BigInt, _>(mark.last_read_id)
        .execute(&mut conn)?;
        Ok(())
    }

    /// The caller's games with chat messages it has not read (its own and muted players'
    /// left out).
    pub fn chat_unread(&self, account: AccountId) -> DomainResult<Vec<ChatUnread>> {
        let mut conn = self.conn()?;
        Ok(diesel::sql_query(
            "SELECT s.game_id, count(m.id) AS unread FROM game_seats s \
             JOIN chat_messages m ON m.game_id = s.game_id \
             LEFT JOIN chat_reads r ON r.account_id = s.account_id AND r.game_id = s.game_id \
             WHERE s.account_id = $1 AND m.account_id <> $1 \
               AND m.id > COALESCE(r.last_read_id, 0) \
               AND (m.channel = 'table' OR m.team = s.seat % 2) \
               AND NOT EXISTS (SELECT 1 FROM chat_mutes u WHERE u.account_id = $1 \
                               AND u.muted_id = m.account_id) \
             GROUP BY s.game_id ORDER BY s.game_id",
        )
        .bind::<BigInt, _>(account)
        .load(&mut conn)?)
    }

    /// Mutes (or unmutes) `other` for `account`.
    pub fn set_mute(&self, account: AccountId, other: AccountId, mute: bool) -> DomainResult<()> {
        if account == other {
            // Nobody mutes themselves; unmuting yourself asks for what already holds.
            return if mute {
                Err(DomainError::invalid(
                    ProblemCode::CannotMuteYourself,
                    "you cannot mute yourself",
                ))
            } else {
                Ok(())
            };
        }
        let mut conn = self.conn()?;
        let exists = diesel::select(diesel::dsl::exists(
            crate::store::schema::accounts::table.find(other),
        ))
        .get_result::<bool>(&mut conn)?;
        if !exists {
            return Err(DomainError::not_found(format!("account {other}")));
        }
        let sql = if mute {
            "INSERT INTO chat_mutes (account_id, muted_id) VALUES ($1, $2) ON CONFLICT DO NOTHING"
        } else {
            "DELETE FROM chat_mutes WHERE account_id = $1 AND muted_id = $2"
        };
        diesel::sql_query(sql)
            .bind::<BigInt, _>(account)
            .bind::<BigInt, _>(other)
            .execute(&mut conn)?;
        Ok(())
    }

    /// Reports message `message` of game `id` to the operator; the caller must be able to
    /// read it. Reporting twice is reporting once.
    pub fn report_chat(
        &self,
        account: AccountId,
        id: GameId,
        message: i64,
        report: ChatReport,
    ) -> DomainResult<()> {
        let reason = neutralise(&report.reason, MAX_REASON_CHARS, true)?;
        let mut conn = self.conn()?;
        let game = LockedGame::read(&mut conn, id)?;
        let seat = self.seat_or_hidden(&mut conn, &game, account)?;
        let team = team_of(&game.row, seat);
        let inserted = diesel::sql_query(
            "INSERT INTO chat_reports (message_id, reporter_id, reason) \
             SELECT m.id, $3, $4 FROM chat_messages m \
             WHERE m.id = $1 AND m.game_id = $2 \
               AND (m.channel = 'table' OR m.team IS NOT DISTINCT FROM $5) \
             ON CONFLICT (message_id, reporter_id) DO NOTHING",
        )
        .bind::<BigInt, _>(message)
        .bind::<BigInt, _>(id)
        .bind::<BigInt, _>(account)
        .bind::<Text, _>(&reason)
        .bind::<Nullable<Integer>, _>(team)
        .execute(&mut conn);
        let n = match inserted {
            // The message was deleted (with its game, say) after the insert read it and
            // before its foreign key was checked: it is gone, as if never found.
            Err(diesel::result::Error::DatabaseError(
                diesel::result::DatabaseErrorKind::ForeignKeyViolation,
                _,
            )) => 0,
            other => other?,
        };
        if n == 0 {
            let known = diesel::sql_query(
                "SELECT 1::BIGINT AS recent, 1::BIGINT AS wait FROM chat_reports WHERE message_id = $1 AND reporter_id = $2",
            )
            .bind::<BigInt, _>(message)
            .bind::<BigInt, _>(account)
            .load::<Wait>(&mut conn)?;
            if known.is_empty() {
                return Err(DomainError::NotFound {
                    code: ProblemCode::ChatMessageNotFound,
                    what: format!("chat message {message}"),
                });
            }
        }
        Ok(())
    }
}

/// Reported messages, oldest report first, for the operator.
pub fn reports(conn: &mut PgConnection, limit: i64) -> QueryResult<Vec<ReportRow>> {
    diesel::sql_query(
        "SELECT r.id, r.created_at, m.id AS message_id, m.game_id, m.account_id AS author_id, \
                a.name AS author_name, r.reporter_id, r.reason, m.body AS text \
         FROM chat_reports r JOIN chat_messages m ON m.id = r.message_id \
         JOIN accounts a ON a.id = m.account_id ORDER BY r.id LIMIT $1",
    )
    .bind::<BigInt, _>(limit)
    .load(conn)
}

/// A `chat_message` delivery for every webhook of `recipients` taking it.
fn owe_chat_webhooks(
    conn: &mut PgConnection,
    row: &GameRow,
    message: &ChatMessage,
    recipients: &[(i32, AccountId)],
) -> DomainResult<()> {
    if recipients.is_empty() {
        return Ok(());
    }
    let seats: Vec<i32> = recipients.iter().map(|r| r.0).collect();
    let accounts: Vec<i64> = recipients.iter().map(|r| r.1.0).collect();
    diesel::sql_query(
        "INSERT INTO outbox (dedupe_key, account_id, game_id, to_address, kind, seat, version, detail) \
         SELECT 'webhook:' || w.id || ':chat_message:' || $4 || ':' || o.seat, \
                w.account_id, $1, w.url, 'webhook', o.seat, $2, \
                jsonb_build_object('webhook', w.id, 'event', 'chat_message', 'game_type', $3, \
                                   'message', $4, 'channel', $7) \
         FROM unnest($5::int[], $6::bigint[]) AS o (seat, account) \
         JOIN webhooks w ON w.account_id = o.account AND 'chat_message' = ANY (w.events) \
         ON CONFLICT (dedupe_key) DO NOTHING",
    )
    .bind::<BigInt, _>(row.id)
    .bind::<BigInt, _>(row.version)
    .bind::<Text, _>(&row.game_type)
    .bind::<BigInt, _>(message.id)
    .bind::<Array<Integer>, _>(&seats)
    .bind::<Array<BigInt>, _>(&accounts)
    .bind::<Text, _>(message.channel.as_str())
    .execute(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_neutralised() {
        assert_eq!(
            neutralise("  hi\u{202E}there\u{2066}\t!\r\nok ", 1000, false).unwrap(),
            "hithere !\nok"
        );
        assert_eq!(
            neutralise("a\0b", 1000, false).unwrap_err().code(),
            ProblemCode::InvalidChatMessage
        );
        assert_eq!(
            neutralise(" \u{202A}\u{7} ", 1000, false)
                .unwrap_err()
                .code(),
            ProblemCode::InvalidChatMessage
        );
        assert_eq!(
            neutralise(&"é".repeat(1001), 1000, false)
                .unwrap_err()
                .code(),
            ProblemCode::ChatMessageTooLong
        );
        assert_eq!(
            neutralise(&"é".repeat(1000), 1000, false)
                .unwrap()
                .chars()
                .count(),
            1000
        );
        assert_eq!(
            neutralise("<b>x</b>", 1000, false).unwrap(),
            "<b>x</b>",
            "HTML is text: clients render it as such"
        );
        assert_eq!(neutralise("", 500, true).unwrap(), "");
    }
}
