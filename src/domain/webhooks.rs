//! Webhooks: an account's receivers of signed POSTs about its games, so chat bots and
//! third-party clients can tell players what happened.
//!
//! Events, per seat of the account (decided where the turn emails are, see
//! `mail_events::owe_for_transition`, but whatever the account's email settings):
//! - `your_turn`: the game now waits for the seat (it is among the seats to act, alone or
//!   in a simultaneous step), and did not before, or the seat acted and must act again;
//! - `offer`: the seat now has something to decide although the game does not wait for it:
//!   it has legal actions without being among the seats to act (an offer or a deal
//!   proposed to it, which it may answer or let lapse);
//! - `game_finished`: the game ended (by its rules, a resignation or a timeout).
//!
//! Each is an outbox row of kind `webhook`, written in the transaction that changed the game,
//! with the webhook and the event in `detail`; the outbox's webhook lane posts it (see
//! `outbox::webhooks`, signed by `notify::webhook`), retries it with backoff, and marks it
//! sent or failed. The body is built from the row, so every retry sends the same bytes. It
//! never holds hidden information: only which game, which seat, which version, and links.

use crate::domain::ProblemCode;
use crate::store::kinds::OutboxKind;
use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Integer, Nullable, Text, Timestamptz};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::steps::Actors;
use super::{Domain, DomainError, DomainResult};
use crate::engine::Status;
use crate::notify::webhook::WebhookPolicy;
use crate::store::kinds::{
    AccountId, DeliveryEvent, DeliveryStatus, GameId, GameStatus, WebhookEvent,
};
use crate::store::models::{GameRow, NewOutbox, OutboxRow, SeatInfo, WebhookRow};
use crate::store::schema::{accounts, outbox, webhooks};

/// The outbox kind of a webhook delivery.
pub const WEBHOOK: OutboxKind = OutboxKind::Webhook;
/// Webhooks per account.
pub const MAX_WEBHOOKS: i64 = 10;
/// Characters of a webhook URL.
pub const MAX_URL_CHARS: usize = 2048;
/// Test pings an account may ask for in an hour (and one per webhook a minute).
pub const PINGS_PER_HOUR: i64 = 20;
const PING_GAP_SECS: i64 = 60;

#[derive(QueryableByName)]
struct PingCounts {
    /// Seconds until this webhook may be pinged again (0: now).
    #[diesel(sql_type = BigInt)]
    hook_wait: i64,
    #[diesel(sql_type = BigInt)]
    hour: i64,
    /// Seconds until the account's oldest ping of the hour leaves it.
    #[diesel(sql_type = BigInt)]
    hour_wait: i64,
}

/// Refuses a ping sooner than a minute after the webhook's last one, or past the
/// account's hourly budget (429 with the wait).
fn check_ping_limits(conn: &mut PgConnection, account: AccountId, hook: i64) -> DomainResult<()> {
    let c: PingCounts = diesel::sql_query(
        "SELECT \
           COALESCE((SELECT GREATEST(0, CEIL(EXTRACT(EPOCH FROM \
               max(created_at) + make_interval(secs => $3) - now())))::BIGINT \
             FROM outbox WHERE kind = 'webhook' AND detail->>'event' = 'ping' \
               AND (detail->>'webhook')::BIGINT = $2), 0) AS hook_wait, \
           count(*) AS hour, \
           COALESCE(GREATEST(0, CEIL(EXTRACT(EPOCH FROM \
               min(created_at) + interval '1 hour' - now())))::BIGINT, 0) AS hour_wait \
         FROM outbox WHERE kind = 'webhook' AND detail->>'event' = 'ping' \
           AND account_id = $1 AND created_at > now() - interval '1 hour'",
    )
    .bind::<BigInt, _>(account)
    .bind::<BigInt, _>(hook)
    .bind::<diesel::sql_types::Double, _>(PING_GAP_SECS as f64)
    .get_result(conn)?;
    if c.hook_wait > 0 {
        return Err(DomainError::Limited {
            code: ProblemCode::TooManyPings,
            message: format!(
                "this webhook was pinged less than {PING_GAP_SECS} seconds ago: \
                 see its deliveries for the answer, or ping again later"
            ),
            // A ping committed by a transaction that began after this one may stand a
            // moment in this one's future (`now()` is each transaction's start): the wait
            // is never more than the gap itself.
            retry_after_secs: c.hook_wait.clamp(1, PING_GAP_SECS) as u64,
        });
    }
    if c.hour >= PINGS_PER_HOUR {
        return Err(DomainError::Limited {
            code: ProblemCode::TooManyPings,
            message: format!("an account may ping its webhooks {PINGS_PER_HOUR} times an hour"),
            retry_after_secs: c.hour_wait.clamp(1, 3600) as u64,
        });
    }
    Ok(())
}

/// A webhook delivery still pending this long after it was owed is dropped (`expired`):
/// news that old is no use, and a receiver paused for days must not pile up work.
pub const DELIVERY_EXPIRY_HOURS: i64 = 72;

/// Drops webhook deliveries pending longer than [`DELIVERY_EXPIRY_HOURS`] at `now`;
/// returns how many.
pub fn expire_deliveries(conn: &mut PgConnection, now: DateTime<Utc>) -> DomainResult<usize> {
    Ok(diesel::sql_query(
        "UPDATE outbox SET dropped_at = now(), drop_reason = 'expired', claimed_until = NULL \
         WHERE kind = 'webhook' AND sent_at IS NULL AND failed_at IS NULL \
           AND dropped_at IS NULL AND created_at < $1 \
           AND (claimed_until IS NULL OR claimed_until <= now())",
    )
    .bind::<Timestamptz, _>(now - chrono::Duration::hours(DELIVERY_EXPIRY_HOURS))
    .execute(conn)?)
}

/// Locks the account's row until the transaction ends: puts its registrations (or pings)
/// in line for the counts that limit them.
fn lock_account(conn: &mut PgConnection, account: AccountId) -> DomainResult<()> {
    accounts::table
        .find(account)
        .select(accounts::id)
        .for_no_key_update()
        .first::<AccountId>(conn)
        .optional()?
        .ok_or_else(|| DomainError::not_found("account"))?;
    Ok(())
}

/// Deliveries listed per webhook (the newest).
pub const DELIVERIES_LISTED: i64 = 50;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewWebhookRequest {
    /// Where to POST: an absolute `http` or `https` URL, at most 2048 characters, without
    /// user name or password, not at a loopback, private or link-local address.
    // The pattern states what the server checks before it resolves anything
    // (`parse_url`): the scheme, no user name or password, a host name that is not an
    // address literal nor `localhost` (an address is checked when the name is resolved),
    // no punycode label the URL parser could refuse, a port up to 65535, and only
    // characters the URL parser keeps as they are (so the stored URL is no longer than
    // the one sent), as an RFC 3986 URI (`format: uri`). Any public address also has a
    // name that fits. A URL with no path gets `/` when stored: 2047 characters then.
    #[schema(
        example = "https://bot.example.org/turnpost",
        max_length = 2048,
        format = "uri",
        pattern = r"^(?=[\s\S]{0,2047}$|[^/]*//[^/?#]*/)[Hh][Tt][Tt][Pp][Ss]?://(?!(?:[A-Za-z0-9-]+\.)*[Ll][Oo][Cc][Aa][Ll][Hh][Oo][Ss][Tt]\.?(?:[:/?#]|$))(?:(?![Xx][Nn]--)[A-Za-z0-9][A-Za-z0-9-]*\.)*(?![Xx][Nn]--)[A-Za-z][A-Za-z0-9-]*\.?(?::(?:[0-9]{1,4}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?(?:/(?:[A-Za-z0-9._~!$&()*+,;=:@/-]|%[0-9A-Fa-f]{2})*)?(?:\?(?:[A-Za-z0-9._~!$&()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?(?:#(?:[A-Za-z0-9._~!$&()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*)?$"
    )]
    pub url: String,
    /// Which events to send: any of `your_turn`, `offer`, `game_finished`, `chat_message`
    /// (at least one).
    // Read as words and parsed by `parse_events`, so that a stranger is refused as
    // `invalid_webhook_events` (not as a body of the wrong shape); documented as the enum.
    // `min_items`: an empty list is refused, so the description must not offer it.
    #[schema(value_type = Vec<WebhookEvent>, min_items = 1, example = json!(["your_turn", "game_finished"]))]
    pub events: Vec<String>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookResponse {
    pub id: i64,
    pub url: String,
    #[schema(example = json!(["your_turn", "game_finished"]))]
    pub events: Vec<WebhookEvent>,
    pub created_at: DateTime<Utc>,
    /// The signing secret (HMAC-SHA256 key, its UTF-8 bytes): only in the answer that
    /// created the webhook. Keep it; it is not shown again.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "whsec_5f0c2a9e1b7d3c445f0c2a9e1b7d3c445f0c2a9e1b7d3c44")]
    pub secret: Option<String>,
    /// Set while nothing is posted to this webhook: it failed 3 deliveries in a row, so it
    /// is left alone until then (30 s, doubling with each further failure up to an hour).
    /// Deliveries wait meanwhile without using their attempts; the next one that succeeds
    /// ends the pause. Other webhooks at the same host are not paused with it.
    pub paused_until: Option<DateTime<Utc>>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookDeliveryResponse {
    /// The delivery's id, sent as `Turnpost-Delivery` (the same on every retry).
    pub id: i64,
    /// `your_turn`, `offer`, `game_finished`, `chat_message` or `ping`.
    pub event: DeliveryEvent,
    pub game_id: Option<i64>,
    pub seat: Option<i32>,
    pub version: Option<i64>,
    /// `pending` (waiting for its first or next attempt), `delivered` (the receiver
    /// answered 2xx), `failed` (given up after the last attempt), or `dropped` (no longer
    /// worth sending: the seat acted, the game ended, the webhook was deleted, or it was
    /// still pending 72 hours after it was owed: `expired`).
    pub status: DeliveryStatus,
    /// Failed attempts so far.
    pub attempts: i32,
    /// Why the last attempt failed, or why the delivery was dropped.
    pub last_error: Option<String>,
    pub created_at: DateTime<Utc>,
    pub delivered_at: Option<DateTime<Utc>>,
    /// When a pending delivery is tried next.
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// The body of every webhook POST (the schema receivers can check it by). Its members
/// are written in this order.
#[derive(Debug, Serialize, ToSchema)]
pub struct WebhookPayload {
    pub event: DeliveryEvent,
    /// The delivery's id, as in `Turnpost-Delivery` (the same on every retry).
    pub delivery: i64,
    /// The webhook this is delivered for, as `POST /api/v1/me/webhooks` answered it: a
    /// receiver serving several webhooks tells by it which secret signed the body.
    pub webhook_id: i64,
    /// When the event happened (the delivery was owed).
    pub created_at: DateTime<Utc>,
    /// `ping` only: the webhook pinged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub webhook: Option<PingedWebhook>,
    /// Every event but `ping`: the game.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<PayloadGame>,
    /// Every event but `ping`: the account's seat in the game (counted from 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<i32>,
    /// `chat_message` only: which message (its text is read with
    /// `GET /api/v1/games/{id}/chat?channel=<channel>&after=<message - 1>&limit=1`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chat: Option<PayloadChat>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PayloadChat {
    /// The message's id.
    pub message: i64,
    /// `table` or `team`.
    pub channel: crate::store::kinds::ChatChannel,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PingedWebhook {
    pub id: i64,
    pub url: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct PayloadGame {
    pub id: GameId,
    /// The game type, as in `/api/v1/game-types`.
    #[serde(rename = "type")]
    pub game_type: String,
    /// The game's version when the event happened.
    pub version: i64,
    /// The game in the API.
    pub url: String,
    /// The game in the web client.
    pub web_url: String,
}

diesel::define_sql_function! {
    /// Owes the given seats' webhooks their events (a function of the database: see the
    /// `webhooks` migration).
    fn owe_webhooks(
        game: BigInt,
        version: BigInt,
        game_type: Text,
        seats: Array<Integer>,
        accounts: Array<BigInt>,
        events: Array<Text>,
    ) -> Integer;
}

/// A due webhook row's fate.
pub enum WebhookDelivery {
    Send {
        url: String,
        secret: String,
        event: String,
        delivery: String,
        body: Vec<u8>,
    },
    /// Nothing to send after all, and why.
    Drop(&'static str),
}

fn invalid_url(why: impl Into<String>) -> DomainError {
    DomainError::invalid(ProblemCode::InvalidWebhookUrl, why)
}

fn not_allowed(what: &str) -> DomainError {
    DomainError::invalid(
        ProblemCode::WebhookAddressNotAllowed,
        format!(
            "{what} is a loopback, private, link-local or otherwise internal address; \
             webhooks only go to public addresses"
        ),
    )
}

/// A webhook URL as stored: absolute, `http` or `https`, no credentials, not at an
/// address webhooks may not reach (host names are checked again when resolved, see
/// `notify::webhook`).
pub fn parse_url(raw: &str, policy: &WebhookPolicy) -> DomainResult<url::Url> {
    if raw.chars().count() > MAX_URL_CHARS {
        return Err(invalid_url(format!(
            "a webhook URL has at most {MAX_URL_CHARS} characters"
        )));
    }
    // The URL parser would quietly drop tabs and line breaks and trim spaces.
    if raw.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(invalid_url(
            "a webhook URL has no spaces or control characters",
        ));
    }
    let url = url::Url::parse(raw).map_err(|e| invalid_url(format!("not an absolute URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid_url("a webhook URL is http or https"));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(invalid_url(
            "a webhook URL carries no user name or password (check the signature instead)",
        ));
    }
    match url.host() {
        None => return Err(invalid_url("a webhook URL names a host")),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            if !policy.allow_private && (name == "localhost" || name.ends_with(".localhost")) {
                return Err(not_allowed(&name));
            }
        }
        Some(url::Host::Ipv4(a)) if !policy.allows(a.into()) => {
            return Err(not_allowed(&a.to_string()));
        }
        Some(url::Host::Ipv6(a)) if !policy.allows(a.into()) => {
            return Err(not_allowed(&a.to_string()));
        }
        Some(_) => {}
    }
    if url.as_str().chars().count() > MAX_URL_CHARS {
        return Err(invalid_url(format!(
            "a webhook URL has at most {MAX_URL_CHARS} characters"
        )));
    }
    Ok(url)
}

/// The events asked for, each once, in the order of [`WebhookEvent::ALL`].
pub fn parse_events(asked: &[String]) -> DomainResult<Vec<WebhookEvent>> {
    let parsed = asked
        .iter()
        .map(|e| e.parse::<WebhookEvent>())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|unknown| {
            let shown: String = unknown.word.chars().take(40).collect();
            DomainError::invalid(
                ProblemCode::InvalidWebhookEvents,
                format!("unknown event {shown:?}: events are your_turn, offer, game_finished and chat_message"),
            )
        })?;
    let events: Vec<WebhookEvent> = WebhookEvent::ALL
        .iter()
        .copied()
        .filter(|e| parsed.contains(e))
        .collect();
    if events.is_empty() {
        return Err(DomainError::invalid(
            ProblemCode::InvalidWebhookEvents,
            "events lists at least one of your_turn, offer, game_finished and chat_message",
        ));
    }
    Ok(events)
}

fn response(w: WebhookRow, secret: bool) -> WebhookResponse {
    WebhookResponse {
        id: w.id,
        url: w.url,
        events: w.events,
        created_at: w.created_at,
        secret: secret.then_some(w.secret),
        paused_until: None,
    }
}

fn no_webhook() -> DomainError {
    DomainError::not_found("webhook")
}

#[derive(QueryableByName)]
struct DeliveryRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    // Written by this server only: a row without a known event is corrupt (an error).
    #[diesel(sql_type = Text)]
    event: DeliveryEvent,
    #[diesel(sql_type = Nullable<BigInt>)]
    game_id: Option<i64>,
    #[diesel(sql_type = Nullable<Integer>)]
    seat: Option<i32>,
    #[diesel(sql_type = Nullable<BigInt>)]
    version: Option<i64>,
    #[diesel(sql_type = Integer)]
    attempts: i32,
    #[diesel(sql_type = Nullable<Text>)]
    last_error: Option<String>,
    #[diesel(sql_type = Nullable<Text>)]
    drop_reason: Option<String>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    sent_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    failed_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    dropped_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Timestamptz)]
    next_attempt_at: DateTime<Utc>,
}

impl From<DeliveryRow> for WebhookDeliveryResponse {
    fn from(r: DeliveryRow) -> Self {
        let status = if r.sent_at.is_some() {
            DeliveryStatus::Delivered
        } else if r.failed_at.is_some() {
            DeliveryStatus::Failed
        } else if r.dropped_at.is_some() {
            DeliveryStatus::Dropped
        } else {
            DeliveryStatus::Pending
        };
        WebhookDeliveryResponse {
            id: r.id,
            event: r.event,
            game_id: r.game_id,
            seat: r.seat,
            version: r.version,
            status,
            attempts: r.attempts,
            last_error: if status == DeliveryStatus::Dropped {
                r.drop_reason
            } else {
                r.last_error
            },
            created_at: r.created_at,
            delivered_at: r.sent_at,
            next_attempt_at: (status == DeliveryStatus::Pending).then_some(r.next_attempt_at),
        }
    }
}

const DELIVERY_COLUMNS: &str = "id, detail->>'event' AS event, game_id, seat, version, attempts, \
     last_error, drop_reason, created_at, sent_at, failed_at, dropped_at, next_attempt_at";

#[derive(QueryableByName)]
struct GameNow {
    #[diesel(sql_type = Text)]
    status: GameStatus,
    #[diesel(sql_type = Text)]
    game_type: String,
    #[diesel(sql_type = diesel::sql_types::Bool)]
    acted: bool,
}

impl Domain {
    /// Registers a webhook for the caller; the answer carries its secret (the only time).
    pub fn create_webhook(
        &self,
        account: AccountId,
        req: NewWebhookRequest,
    ) -> DomainResult<WebhookResponse> {
        let url = parse_url(&req.url, &self.webhooks)?;
        let events = parse_events(&req.events)?;
        let secret = format!("whsec_{}", hex::encode(rand::random::<[u8; 24]>()));
        let mut conn = self.conn()?;
        let row = conn.transaction::<_, DomainError, _>(|conn| {
            // The account row's lock puts concurrent registrations in line for the count.
            lock_account(conn, account)?;
            let n: i64 = webhooks::table
                .filter(webhooks::account_id.eq(account))
                .count()
                .get_result(conn)?;
            if n >= MAX_WEBHOOKS {
                return Err(DomainError::conflict(
                    ProblemCode::TooManyWebhooks,
                    format!("an account has at most {MAX_WEBHOOKS} webhooks; delete one first"),
                ));
            }
            Ok(diesel::insert_into(webhooks::table)
                .values((
                    webhooks::account_id.eq(account),
                    webhooks::url.eq(url.as_str()),
                    webhooks::events.eq(&events),
                    webhooks::secret.eq(&secret),
                ))
                .returning(WebhookRow::as_returning())
                .get_result(conn)?)
        })?;
        Ok(response(row, true))
    }

    /// The caller's webhooks, oldest first, without their secrets.
    pub fn list_webhooks(&self, account: AccountId) -> DomainResult<Vec<WebhookResponse>> {
        let rows: Vec<(WebhookRow, Option<DateTime<Utc>>)> = webhooks::table
            .filter(webhooks::account_id.eq(account))
            .order(webhooks::id.asc())
            .select((WebhookRow::as_select(), webhooks::paused_until))
            .load(&mut *self.conn()?)?;
        let now = Utc::now();
        Ok(rows
            .into_iter()
            .map(|(w, paused)| WebhookResponse {
                paused_until: paused.filter(|p| *p > now),
                ..response(w, false)
            })
            .collect())
    }

    fn own_webhook(
        conn: &mut PgConnection,
        account: AccountId,
        id: i64,
    ) -> DomainResult<WebhookRow> {
        webhooks::table
            .filter(webhooks::id.eq(id).and(webhooks::account_id.eq(account)))
            .select(WebhookRow::as_select())
            .first(conn)
            .optional()?
            .ok_or_else(no_webhook)
    }

    /// Deletes one of the caller's webhooks; its pending deliveries are dropped with it.
    /// Another account's webhook is `not_found`, as if it did not exist.
    pub fn delete_webhook(&self, account: AccountId, id: i64) -> DomainResult<()> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let n = diesel::delete(
                webhooks::table.filter(webhooks::id.eq(id).and(webhooks::account_id.eq(account))),
            )
            .execute(conn)?;
            if n == 0 {
                return Err(no_webhook());
            }
            diesel::sql_query(
                "UPDATE outbox SET dropped_at = now(), drop_reason = 'webhook_deleted' \
                 WHERE kind = 'webhook' AND (detail->>'webhook')::bigint = $1 \
                   AND sent_at IS NULL AND failed_at IS NULL AND dropped_at IS NULL",
            )
            .bind::<BigInt, _>(id)
            .execute(conn)?;
            Ok(())
        })
    }

    /// Queues a `ping` delivery to one of the caller's webhooks: one per webhook a minute
    /// and [`PINGS_PER_HOUR`] an hour per account, so that test pings cannot make the
    /// server knock on a receiver's door over and over.
    pub fn ping_webhook(
        &self,
        account: AccountId,
        id: i64,
    ) -> DomainResult<WebhookDeliveryResponse> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            // The account's row puts its pings in line for both counts.
            lock_account(conn, account)?;
            let hook = Self::own_webhook(conn, account, id)?;
            check_ping_limits(conn, account, hook.id)?;
            let row: OutboxRow = diesel::insert_into(outbox::table)
                .values(&NewOutbox {
                    dedupe_key: format!(
                        "webhook:{}:ping:{}",
                        hook.id,
                        hex::encode(rand::random::<[u8; 12]>())
                    ),
                    account_id: Some(account),
                    to_address: hook.url.clone(),
                    kind: Some(WEBHOOK),
                    detail: Some(json!({ "webhook": hook.id, "event": DeliveryEvent::Ping })),
                    ..NewOutbox::default()
                })
                .returning(OutboxRow::as_returning())
                .get_result(conn)?;
            let delivered = diesel::sql_query(format!(
                "SELECT {DELIVERY_COLUMNS} FROM outbox WHERE id = $1"
            ))
            .bind::<BigInt, _>(row.id)
            .get_result::<DeliveryRow>(conn)?;
            Ok(delivered.into())
        })
    }

    /// The newest deliveries of one of the caller's webhooks, newest first.
    pub fn webhook_deliveries(
        &self,
        account: AccountId,
        id: i64,
    ) -> DomainResult<Vec<WebhookDeliveryResponse>> {
        let mut conn = self.conn()?;
        let hook = Self::own_webhook(&mut conn, account, id)?;
        let rows = diesel::sql_query(format!(
            "SELECT {DELIVERY_COLUMNS} FROM outbox \
             WHERE kind = 'webhook' AND (detail->>'webhook')::bigint = $1 \
             ORDER BY id DESC LIMIT $2"
        ))
        .bind::<BigInt, _>(hook.id)
        .bind::<BigInt, _>(DELIVERIES_LISTED)
        .load::<DeliveryRow>(&mut conn)?;
        Ok(rows.into_iter().map(Into::into).collect())
    }

    /// An `offer` for each of `seats`: something to decide outside the game's turns (a
    /// takeback to answer). Call in the transaction that made it.
    pub(crate) fn owe_offer_webhooks(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[&SeatInfo],
    ) -> DomainResult<()> {
        let owed: Vec<(i32, AccountId, WebhookEvent)> = seats
            .iter()
            .map(|s| (s.seat, s.account_id, WebhookEvent::Offer))
            .collect();
        owe(conn, row, row.version, &owed)
    }

    /// What a due webhook row becomes: the signed POST to make, or nothing (the webhook
    /// was deleted, the seat has acted, the game is gone or over).
    pub fn render_webhook(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
    ) -> DomainResult<WebhookDelivery> {
        let detail = row.detail.clone().unwrap_or(Value::Null);
        let (Some(hook_id), Some(event)) = (
            detail["webhook"].as_i64(),
            detail["event"]
                .as_str()
                .and_then(|e| e.parse::<DeliveryEvent>().ok()),
        ) else {
            return Ok(WebhookDelivery::Drop("malformed_event"));
        };
        let hook: Option<WebhookRow> = webhooks::table
            .find(hook_id)
            .select(WebhookRow::as_select())
            .first(conn)
            .optional()?;
        let Some(hook) = hook.filter(|h| Some(h.account_id) == row.account_id) else {
            return Ok(WebhookDelivery::Drop("webhook_deleted"));
        };
        let base = self.public_url.trim_end_matches('/');
        let mut body = WebhookPayload {
            event,
            delivery: row.id,
            webhook_id: hook.id,
            created_at: row.created_at,
            webhook: None,
            game: None,
            seat: None,
            chat: None,
        };
        if event == DeliveryEvent::Ping {
            body.webhook = Some(PingedWebhook {
                id: hook.id,
                url: hook.url.clone(),
            });
        } else {
            let (Some(game_id), Some(seat), Some(version)) = (row.game_id, row.seat, row.version)
            else {
                return Ok(WebhookDelivery::Drop("malformed_event"));
            };
            let now = diesel::sql_query(
                "SELECT status, game_type, EXISTS (SELECT 1 FROM game_actions \
                     WHERE game_id = $1 AND seq > $2 AND seat = $3) AS acted \
                 FROM games WHERE id = $1",
            )
            .bind::<BigInt, _>(game_id)
            .bind::<BigInt, _>(version)
            .bind::<Integer, _>(seat)
            .get_result::<GameNow>(conn)
            .optional()?;
            let Some(now) = now else {
                return Ok(WebhookDelivery::Drop("game_gone"));
            };
            // A turn or an offer already answered (or ended with the game) is not news.
            if event == DeliveryEvent::ChatMessage {
                let (Some(message), Some(channel)) = (
                    detail["message"].as_i64(),
                    detail["channel"]
                        .as_str()
                        .and_then(crate::store::kinds::ChatChannel::from_word),
                ) else {
                    return Ok(WebhookDelivery::Drop("malformed_event"));
                };
                body.chat = Some(PayloadChat { message, channel });
            } else if event != DeliveryEvent::GameFinished {
                if now.status != GameStatus::Active {
                    return Ok(WebhookDelivery::Drop("game_over"));
                }
                if now.acted {
                    return Ok(WebhookDelivery::Drop("seat_acted"));
                }
            }
            body.game = Some(PayloadGame {
                id: game_id,
                game_type: now.game_type,
                version,
                url: format!("{base}/api/v1/games/{game_id}"),
                web_url: format!("{base}/#/game/{game_id}"),
            });
            body.seat = Some(seat);
        }
        let body = serde_json::to_vec(&body).map_err(anyhow::Error::from)?;
        Ok(WebhookDelivery::Send {
            url: hook.url,
            secret: hook.secret,
            event: event.to_string(),
            delivery: row.id.to_string(),
            body,
        })
    }
}

/// The webhook deliveries a change owes: (seat, account, event). `your_turn` or `offer`
/// to the seats owed a turn email (the same rule as in `Domain::owed`), `game_finished`
/// to every seat at the end.
pub(crate) fn webhooks_owed(
    actors: Actors,
    after: &Status,
    seats: &[SeatInfo],
    forfeited: &[i32],
) -> Vec<(i32, AccountId, WebhookEvent)> {
    match after {
        Status::Active { to_act } => actors
            .told(to_act)
            .into_iter()
            .filter_map(|s| seats.iter().find(|i| i.seat as usize == s))
            .filter(|p| !forfeited.contains(&p.seat))
            .map(|p| {
                let event = if to_act.contains(&(p.seat as usize)) {
                    WebhookEvent::YourTurn
                } else {
                    WebhookEvent::Offer
                };
                (p.seat, p.account_id, event)
            })
            .collect(),
        Status::Finished(_) => seats
            .iter()
            .map(|p| (p.seat, p.account_id, WebhookEvent::GameFinished))
            .collect(),
    }
}

/// Writes the deliveries owed: (seat, account, event) at `version`, for every webhook of
/// each account that takes the event.
pub(crate) fn owe(
    conn: &mut PgConnection,
    row: &GameRow,
    version: i64,
    owed: &[(i32, AccountId, WebhookEvent)],
) -> DomainResult<()> {
    if owed.is_empty() {
        return Ok(());
    }
    let seat_list: Vec<i32> = owed.iter().map(|o| o.0).collect();
    let account_list: Vec<i64> = owed.iter().map(|o| o.1.0).collect();
    let event_list: Vec<&str> = owed.iter().map(|o| o.2.as_str()).collect();
    diesel::select(owe_webhooks(
        row.id,
        version,
        &row.game_type,
        &seat_list,
        &account_list,
        &event_list,
    ))
    .get_result::<i32>(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn strict() -> WebhookPolicy {
        WebhookPolicy::new(false, Duration::from_secs(1))
    }

    #[test]
    fn urls_are_checked_before_they_are_stored() {
        let ok = parse_url("https://bot.example.org/hook?x=1", &strict()).unwrap();
        assert_eq!(ok.as_str(), "https://bot.example.org/hook?x=1");
        for (raw, code) in [
            ("ftp://example.org/", ProblemCode::InvalidWebhookUrl),
            ("/relative", ProblemCode::InvalidWebhookUrl),
            (
                "https://user:pw@example.org/",
                ProblemCode::InvalidWebhookUrl,
            ),
            ("https://exa mple.org/", ProblemCode::InvalidWebhookUrl),
            ("https://example.org/\0", ProblemCode::InvalidWebhookUrl),
            ("https://example.org/\thook", ProblemCode::InvalidWebhookUrl),
            (
                "http://127.0.0.1:8080/",
                ProblemCode::WebhookAddressNotAllowed,
            ),
            ("http://2130706433/", ProblemCode::WebhookAddressNotAllowed),
            ("http://[::1]/", ProblemCode::WebhookAddressNotAllowed),
            (
                "http://169.254.169.254/latest",
                ProblemCode::WebhookAddressNotAllowed,
            ),
            ("http://10.0.0.8/", ProblemCode::WebhookAddressNotAllowed),
            ("http://LOCALHOST./", ProblemCode::WebhookAddressNotAllowed),
            (
                "http://api.localhost/",
                ProblemCode::WebhookAddressNotAllowed,
            ),
        ] {
            let e = parse_url(raw, &strict()).unwrap_err();
            assert_eq!(e.code(), code, "{raw}");
        }
        let long = format!("https://example.org/{}", "a".repeat(MAX_URL_CHARS));
        assert_eq!(
            parse_url(&long, &strict()).unwrap_err().code(),
            ProblemCode::InvalidWebhookUrl
        );
        let open = WebhookPolicy::new(true, Duration::from_secs(1));
        assert!(parse_url("http://127.0.0.1:9/", &open).is_ok());
    }

    #[test]
    fn events_are_known_and_listed_once() {
        let asked = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            parse_events(&asked(&["game_finished", "your_turn", "your_turn"])).unwrap(),
            vec![WebhookEvent::YourTurn, WebhookEvent::GameFinished]
        );
        assert!(parse_events(&asked(&[])).is_err());
        assert!(parse_events(&asked(&["your_turn", "checkmate"])).is_err());
    }
}
