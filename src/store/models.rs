//! Row types. Conversions to API shapes live in the domain layer.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde_json::Value;

use super::kinds::{
    AccountId, GameId, GameStatus, InvitationStatus, OutboxKind, TimeoutPolicy, WebhookEvent,
};
use super::schema::{accounts, game_actions, game_seats, games, invitations, outbox};

#[derive(Clone, Debug, Queryable, Selectable, Identifiable)]
#[diesel(table_name = accounts)]
pub struct Account {
    pub id: AccountId,
    pub email: String,
    pub email_lower: String,
    pub name: String,
    pub password_hash: String,
    pub email_notifications: bool,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub reminders: bool,
    pub time_zone: String,
    pub quiet_from: Option<i16>,
    pub quiet_until: Option<i16>,
    pub daily_digest: bool,
    pub digest_hour: i16,
    pub last_digest_on: Option<chrono::NaiveDate>,
    pub token_generation: i32,
    pub email_verified_at: Option<DateTime<Utc>>,
    pub email_bouncing_at: Option<DateTime<Utc>>,
    pub email_bounce_status: Option<String>,
    /// A computer player: no password, no mail.
    pub bot: bool,
    /// Our last email to the address was given up after its last attempt.
    pub email_failing_at: Option<DateTime<Utc>>,
}

#[derive(Insertable)]
#[diesel(table_name = accounts)]
pub struct NewAccount<'a> {
    pub email: &'a str,
    pub email_lower: &'a str,
    pub name: &'a str,
    pub password_hash: &'a str,
}

#[derive(Clone, Debug, Queryable, QueryableByName, Selectable, Identifiable)]
#[diesel(table_name = games)]
pub struct GameRow {
    pub id: GameId,
    pub game_type: String,
    pub rules_version: i32,
    pub options: Value,
    pub players: i32,
    pub status: GameStatus,
    pub version: i64,
    pub seed: Vec<u8>,
    pub snapshot: Option<String>,
    pub to_act: Vec<i32>,
    pub result: Option<Value>,
    pub created_by: AccountId,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub forfeited: Vec<i32>,
    pub time_control: Option<Value>,
    pub timeout_policy: TimeoutPolicy,
    pub last_nudge_at: Option<DateTime<Utc>>,
    /// Seen only by its seats and invitees; never in the lobby.
    pub private: bool,
    /// The rematch of this finished game, once someone asked for one.
    pub rematch_id: Option<GameId>,
    pub rated: bool,
    /// A pending takeback request (see `domain::takeback`), valid at its `at_version` only.
    pub takeback: Option<Value>,
    /// The seats with something to decide: `to_act` and any other with legal actions (the
    /// recipient of an offer). Lists and `your_turn` events go by it; clocks by `to_act`.
    pub deciding: Vec<i32>,
    /// Until when the computer waits here, the creator's daily allowance of its moves
    /// being spent (see `domain::computer_budget`).
    pub computer_paused_until: Option<DateTime<Utc>>,
}

#[derive(Insertable)]
#[diesel(table_name = games)]
pub struct NewGame<'a> {
    pub game_type: &'a str,
    pub rules_version: i32,
    pub options: &'a Value,
    pub players: i32,
    pub status: GameStatus,
    pub seed: &'a [u8],
    pub created_by: AccountId,
    pub time_control: Option<&'a Value>,
    pub timeout_policy: TimeoutPolicy,
    pub private: bool,
    pub rated: bool,
}

#[derive(Clone, Debug, Queryable, Selectable, Insertable)]
#[diesel(table_name = game_seats)]
pub struct SeatRow {
    pub game_id: GameId,
    pub seat: i32,
    pub account_id: AccountId,
    pub joined_at: DateTime<Utc>,
}

#[derive(Clone, Debug, Queryable, Selectable)]
#[diesel(table_name = game_actions)]
pub struct ActionRow {
    pub game_id: GameId,
    pub seq: i64,
    pub seat: i32,
    pub action: Value,
    pub public_action: Option<Value>,
    pub seen_by: Vec<i32>,
    pub description: String,
    pub created_at: DateTime<Utc>,
    /// A takeback entry: the game went back to this version (its action is not the
    /// game's; replay skips the entries it undid).
    pub takeback_to: Option<i64>,
}

#[derive(Insertable)]
#[diesel(table_name = game_actions)]
pub struct NewAction<'a> {
    pub game_id: GameId,
    pub seq: i64,
    pub seat: i32,
    pub action: &'a Value,
    pub public_action: Option<&'a Value>,
    pub seen_by: &'a [i32],
    pub description: &'a str,
    pub takeback_to: Option<i64>,
}

#[derive(Clone, Debug, Queryable, QueryableByName, Selectable)]
#[diesel(table_name = outbox)]
pub struct OutboxRow {
    pub id: i64,
    pub dedupe_key: String,
    pub account_id: Option<AccountId>,
    pub game_id: Option<GameId>,
    pub to_address: String,
    pub subject: String,
    pub body_text: String,
    pub body_html: String,
    pub created_at: DateTime<Utc>,
    pub attempts: i32,
    pub next_attempt_at: DateTime<Utc>,
    pub sent_at: Option<DateTime<Utc>>,
    pub failed_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub reply_to: Option<String>,
    pub in_reply_to: Option<String>,
    pub claimed_until: Option<DateTime<Utc>>,
    /// `turn`, `reminder`, `nudge`, `over` (events, rendered when sent), `answer`, `digest`,
    /// `verify`, `sign_up`, `sign_up_taken`, `password_reset` (stored rendered), or NULL
    /// (rendered, from before events).
    pub kind: Option<OutboxKind>,
    pub seat: Option<i32>,
    pub version: Option<i64>,
    pub detail: Option<Value>,
    pub message_id: Option<String>,
    pub dropped_at: Option<DateTime<Utc>>,
    pub drop_reason: Option<String>,
    /// A pending turn email's due time once it took a newer turn (`next_attempt_at`, which
    /// is indexed, stays; the worker moves it here when it finds the row).
    pub due_at: Option<DateTime<Utc>>,
}

#[derive(Clone, Debug, Default, Insertable)]
#[diesel(table_name = outbox)]
pub struct NewOutbox {
    pub dedupe_key: String,
    pub account_id: Option<AccountId>,
    pub game_id: Option<GameId>,
    pub to_address: String,
    pub subject: String,
    pub body_text: String,
    pub body_html: String,
    /// Reply-To header: a reply address carrying a reply token, for turn emails.
    pub reply_to: Option<String>,
    /// In-Reply-To header: the inbound message this email answers.
    pub in_reply_to: Option<String>,
    /// See [`OutboxRow::kind`].
    pub kind: Option<OutboxKind>,
    pub seat: Option<i32>,
    pub version: Option<i64>,
    pub detail: Option<Value>,
    /// When it is due (`None`: at once). A turn email waits out the grace period.
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// A seat with its player's details, as a change to a game and its emails need them (read by
/// `domain::locked`).
#[derive(Clone, Debug)]
pub struct SeatInfo {
    pub seat: i32,
    pub account_id: AccountId,
    pub name: String,
    pub email: String,
    pub email_notifications: bool,
    /// Turn emails are replaced by the daily digest.
    pub daily_digest: bool,
    /// The seat's clock: milliseconds left as of `clock_since` (running) or now (stopped).
    pub clock_ms: Option<i64>,
    pub clock_since: Option<DateTime<Utc>>,
    /// Milliseconds left on the clock now (vacations deducted).
    pub clock_left_ms: Option<i64>,
    /// The end of the player's current vacation.
    pub vacation_until: Option<DateTime<Utc>>,
    /// The address was confirmed by the link sent to it.
    pub email_verified: bool,
    /// A delivery-status report said mail to the address fails.
    pub email_bouncing: bool,
    /// The player muted this game (no email about it).
    pub muted: bool,
    /// The computer plays this seat (a bot account's, or one it took over on a timeout).
    pub bot: bool,
}

/// The people at the table as `viewer` knows them (names by seat, the viewer as "you"),
/// for the board pictures that name them.
pub fn people(seats: &[SeatInfo], viewer: crate::engine::Viewer) -> crate::engine::People {
    let count = seats
        .iter()
        .map(|s| s.seat.max(0) as usize + 1)
        .max()
        .unwrap_or(0);
    let mut names = vec![String::new(); count];
    for s in seats {
        if let Some(slot) = names.get_mut(s.seat.max(0) as usize) {
            slot.clone_from(&s.name);
        }
    }
    crate::engine::People::new(viewer, names)
}

/// The people at `row`'s table as `viewer` knows them, for the picture of the game's
/// current position `state`. A game that ended outside its rules (a resignation, a player
/// out of time) still waits for a move in that position, so its picture is told how the
/// game ended, in the result's words with the people named.
pub fn people_now(
    row: &GameRow,
    seats: &[SeatInfo],
    viewer: crate::engine::Viewer,
    state: &dyn crate::engine::LoadedGame,
) -> crate::engine::People {
    let table = people(seats, viewer);
    let summary = row
        .result
        .as_ref()
        .and_then(|r| r.get("summary"))
        .and_then(Value::as_str);
    match summary {
        Some(text) if row.status == GameStatus::Finished && !state.status().is_finished() => {
            let labels: Vec<String> = (0..row.players.max(0) as usize)
                .map(|s| state.seat_name(s))
                .collect();
            let how = table.name_seats(text, &labels, crate::engine::Mentions::Every, None);
            table.ended(how)
        }
        _ => table,
    }
}

/// A seat kept for someone invited by email (see `domain::invitations`).
#[derive(Clone, Debug, Queryable, Selectable)]
#[diesel(table_name = invitations)]
pub struct InvitationRow {
    pub id: i64,
    pub game_id: GameId,
    pub email: String,
    pub email_lower: String,
    pub token_hash: Vec<u8>,
    /// `pending`, `accepted`, `declined` or `cancelled` (never `expired`).
    pub status: InvitationStatus,
    pub invited_by: AccountId,
    pub account_id: Option<AccountId>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub answered_at: Option<DateTime<Utc>>,
}

#[derive(Insertable)]
#[diesel(table_name = invitations)]
pub struct NewInvitation<'a> {
    pub game_id: GameId,
    pub email: &'a str,
    pub email_lower: &'a str,
    pub token_hash: &'a [u8],
    pub invited_by: AccountId,
    pub expires_at: DateTime<Utc>,
}

/// An account's webhook (see `domain::webhooks`).
#[derive(Clone, Debug, Queryable, Selectable)]
#[diesel(table_name = super::schema::webhooks)]
pub struct WebhookRow {
    pub id: i64,
    pub account_id: AccountId,
    pub url: String,
    pub events: Vec<WebhookEvent>,
    /// Signs each delivery (HMAC-SHA256); shown to the owner once.
    pub secret: String,
    pub created_at: DateTime<Utc>,
}

#[cfg(test)]
impl GameRow {
    /// An active two-player game `id` at `version` with no snapshot, for unit tests.
    pub(crate) fn sample(id: GameId, version: i64) -> GameRow {
        GameRow {
            id,
            game_type: "kasino".into(),
            rules_version: 1,
            options: Value::Object(Default::default()),
            players: 2,
            status: GameStatus::Active,
            version,
            seed: Vec::new(),
            snapshot: None,
            to_act: vec![0],
            result: None,
            created_by: AccountId(1),
            created_at: Utc::now(),
            updated_at: Utc::now(),
            forfeited: Vec::new(),
            time_control: None,
            timeout_policy: TimeoutPolicy::ALL[0],
            last_nudge_at: None,
            private: false,
            rematch_id: None,
            rated: true,
            takeback: None,
            deciding: vec![0],
            computer_paused_until: None,
        }
    }
}
