//! Chat by email: what of a game's chat a player has not yet had by email or
//! read on the page, carried by their next turn email, reminder or nudge; and, for a player
//! with no turn email coming, a short chat email once the table has been quiet for a while
//! (at most one an hour per game). Mute (of the author, or of the game), `stop`, quiet hours
//! and digest mode are respected: a digest reader gets the chat in the digest instead.
//!
//! `chat_mailed` records how far emails have carried each player's chat of each game: a
//! game email records it when it is sent (the worker), a digest when it is queued.

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Bool, Double, Integer, Nullable, SmallInt, Text, Timestamptz};

use super::chat::{ChatMessage, team_of};
use super::mail_events::enqueue;
use super::sweeper::in_quiet_hours;
use super::{Domain, DomainResult};
use crate::store::kinds::{AccountId, ChatChannel, GameId, OutboxKind};
use crate::store::models::{GameRow, NewOutbox};
use crate::store::schema::games;

/// How long the table must have been quiet before a chat email goes: a conversation in
/// progress is sent once, when it pauses.
pub const QUIET_PERIOD: Duration = Duration::minutes(10);
/// The least time between two chat emails about one game to one player.
pub const EMAIL_GAP: Duration = Duration::hours(1);
/// The most messages one email shows (the newest); the page has the rest.
const MOST_SHOWN: i64 = 30;

/// The messages of game `game` that `account` (at `seat`) reads and has had neither by
/// email nor on the page: the table's and its team's, from others, not from muted players,
/// oldest first; with the newest message id (which the email, once sent, records).
pub(crate) fn unmailed(
    conn: &mut PgConnection,
    game: &GameRow,
    seat: i32,
    account: AccountId,
) -> QueryResult<Vec<ChatMessage>> {
    let mut rows: Vec<ChatMessage> = diesel::sql_query(
        "SELECT m.id, m.game_id, m.channel, m.seat, m.account_id AS author_id, \
                a.name AS author_name, m.body AS text, m.created_at \
         FROM chat_messages m JOIN accounts a ON a.id = m.account_id \
         WHERE m.game_id = $1 AND m.account_id <> $2 \
           AND (m.channel = 'table' OR m.team IS NOT DISTINCT FROM $3) \
           AND m.id > GREATEST( \
                 COALESCE((SELECT last_mailed_id FROM chat_mailed WHERE account_id = $2 AND game_id = $1), 0), \
                 COALESCE((SELECT last_read_id FROM chat_reads WHERE account_id = $2 AND game_id = $1), 0)) \
           AND NOT EXISTS (SELECT 1 FROM chat_mutes u WHERE u.account_id = $2 AND u.muted_id = m.account_id) \
         ORDER BY m.id DESC LIMIT $4",
    )
    .bind::<BigInt, _>(game.id)
    .bind::<BigInt, _>(account)
    .bind::<Nullable<Integer>, _>(team_of(game, seat))
    .bind::<BigInt, _>(MOST_SHOWN)
    .load(conn)?;
    rows.reverse();
    Ok(rows)
}

/// Records that `account`'s emails about `game` have carried its chat up to `upto`.
pub fn record_mailed(
    conn: &mut PgConnection,
    account: AccountId,
    game: GameId,
    upto: i64,
) -> QueryResult<()> {
    diesel::sql_query(
        "INSERT INTO chat_mailed (account_id, game_id, last_mailed_id) VALUES ($1, $2, $3) \
         ON CONFLICT (account_id, game_id) DO UPDATE \
         SET last_mailed_id = GREATEST(chat_mailed.last_mailed_id, EXCLUDED.last_mailed_id)",
    )
    .bind::<BigInt, _>(account)
    .bind::<BigInt, _>(game)
    .bind::<BigInt, _>(upto)
    .execute(conn)?;
    Ok(())
}

/// The chat lines of an email: who said what, as text (the letter escapes it for HTML).
pub(crate) fn lines(messages: &[ChatMessage]) -> Vec<(String, String)> {
    messages
        .iter()
        .map(|m| {
            let who = match m.channel {
                ChatChannel::Team => format!("{} (to your team)", m.author_name),
                ChatChannel::Table => m.author_name.clone(),
            };
            (who, m.text.clone())
        })
        .collect()
}

/// A player who may be owed a chat email, as the sweep finds them.
#[derive(QueryableByName)]
struct Candidate {
    #[diesel(sql_type = BigInt)]
    game_id: GameId,
    #[diesel(sql_type = Integer)]
    seat: i32,
    #[diesel(sql_type = BigInt)]
    account_id: AccountId,
    #[diesel(sql_type = Text)]
    email: String,
    #[diesel(sql_type = Text)]
    time_zone: String,
    #[diesel(sql_type = Nullable<SmallInt>)]
    quiet_from: Option<i16>,
    #[diesel(sql_type = Nullable<SmallInt>)]
    quiet_until: Option<i16>,
}

impl Domain {
    /// Queues the chat emails due at `now`; returns how many were queued. A player is owed
    /// one for a game when it has chat they read and have not had (by email or on the page)
    /// whose newest message is at least [`QUIET_PERIOD`] old, no turn email of theirs about
    /// the game is waiting to be sent (it will carry the chat), no chat email about the game
    /// went to them in the last [`EMAIL_GAP`], they take game email (not `stop`ped, the game
    /// not muted, the address good, no digest), have not left the game (resigned or timed
    /// out) and it is not their quiet hours.
    pub fn send_chat_emails(&self, now: DateTime<Utc>) -> DomainResult<usize> {
        let mut conn = self.conn()?;
        // Who has unseen chat of others at all; which of it they read (the team's channel)
        // and whether it is quiet yet is decided below, per player.
        let candidates: Vec<Candidate> = diesel::sql_query(
            "SELECT s.game_id, s.seat, s.account_id, a.email, a.time_zone, a.quiet_from, a.quiet_until \
             FROM game_seats s \
             JOIN accounts a ON a.id = s.account_id \
             JOIN games g ON g.id = s.game_id \
             LEFT JOIN chat_mailed cm ON cm.account_id = s.account_id AND cm.game_id = s.game_id \
             LEFT JOIN chat_reads cr ON cr.account_id = s.account_id AND cr.game_id = s.game_id \
             WHERE NOT s.muted AND NOT (s.seat = ANY(g.forfeited)) \
               AND a.email_notifications AND NOT a.daily_digest AND a.deleted_at IS NULL \
               AND a.email_bouncing_at IS NULL \
               AND (NOT $2 OR a.email_verified_at IS NOT NULL) \
               AND EXISTS (SELECT 1 FROM chat_messages m WHERE m.game_id = s.game_id \
                   AND m.account_id <> s.account_id \
                   AND m.id > GREATEST(COALESCE(cm.last_mailed_id, 0), COALESCE(cr.last_read_id, 0))) \
               AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.game_id = s.game_id AND o.seat = s.seat \
                   AND o.kind IN ('turn', 'reminder', 'nudge', 'takeback') \
                   AND o.sent_at IS NULL AND o.dropped_at IS NULL AND o.failed_at IS NULL) \
               AND NOT EXISTS (SELECT 1 FROM outbox o WHERE o.kind = 'chat' AND o.game_id = s.game_id \
                   AND o.account_id = s.account_id \
                   AND (o.created_at > $1 - make_interval(secs => $3) \
                        OR (o.sent_at IS NULL AND o.dropped_at IS NULL AND o.failed_at IS NULL))) \
             ORDER BY s.game_id, s.seat",
        )
        .bind::<Timestamptz, _>(now)
        .bind::<Bool, _>(self.require_email_verification)
        .bind::<Double, _>(EMAIL_GAP.num_seconds() as f64)
        .load(&mut conn)?;
        let mut queued = 0;
        for c in candidates {
            let Some(game) = games::table
                .find(c.game_id)
                .select(GameRow::as_select())
                .first(&mut conn)
                .optional()?
            else {
                continue;
            };
            let chat = unmailed(&mut conn, &game, c.seat, c.account_id)?;
            let (Some(first), Some(last)) = (chat.first(), chat.last()) else {
                continue;
            };
            if last.created_at > now - QUIET_PERIOD
                || in_quiet_hours(&mut conn, &c.time_zone, c.quiet_from, c.quiet_until, now)?
            {
                continue;
            }
            let mail = NewOutbox {
                // One chat email per first message it carries: a second sweep finds it.
                dedupe_key: format!("chat:{}:{}:{}", c.game_id, c.account_id, first.id),
                account_id: Some(c.account_id),
                game_id: Some(c.game_id),
                to_address: c.email,
                kind: Some(OutboxKind::Chat),
                seat: Some(c.seat),
                version: Some(game.version),
                next_attempt_at: None,
                ..NewOutbox::default()
            };
            enqueue(&mut conn, vec![mail])?;
            queued += 1;
        }
        Ok(queued)
    }
}
