//! `GET /api/v1/me/events`: Server-Sent Events for the caller's games, so clients need not
//! poll. Fed by the node's [`EventHub`], which every node fills from PostgreSQL
//! LISTEN/NOTIFY: a move made through any node reaches every node's streams.

use crate::store::kinds::{AccountId, GameId};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, ResponseError, get, web};
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, timeout_at};
use utoipa::{IntoParams, ToSchema};

use super::auth::{Caller, parent_session, stream_caller};
use super::problem::{ApiError, Problem};
use super::stream_limits::{StreamLimits, StreamPermit};
use crate::auth::jwt::TicketParent;
use crate::domain::Domain;
use crate::domain::shapes::GameResponse;
use crate::notify::events::{EventHub, GameEvent, Replay};
use crate::store::kinds::GameStatus;

/// The timing of every stream (settings `sse_keep_alive_ms`, `sse_retry_ms`).
#[derive(Clone, Copy, Debug)]
pub struct StreamTiming {
    /// A stream that has sent nothing for this long sends a comment, so proxies keep it open.
    pub keep_alive: Duration,
    /// The reconnection delay sent as `retry:` at the start of every stream.
    pub retry_ms: u64,
}

/// The data of `game_changed` and `your_turn` on `GET /me/events`.
#[derive(Serialize, ToSchema)]
pub struct GameChangedData {
    /// The game.
    pub id: GameId,
    pub version: i64,
    pub status: GameStatus,
}

/// The data of `game_changed` on `GET /games/{id}/events`.
#[derive(Serialize, ToSchema)]
pub struct GameWatchData {
    /// The game.
    pub id: GameId,
    pub version: i64,
    pub status: GameStatus,
    /// The seats the game now waits for.
    pub to_act: Vec<i32>,
}

/// The data of `lobby_changed`: which game changed in the lobby, and nothing more.
#[derive(Serialize, ToSchema)]
pub struct LobbyChangedData {
    /// The game.
    pub id: GameId,
}

/// The data of `ready` (sent once the replay, if any, is done) and of `resync` (the events
/// the client missed cannot be sent: it must re-read its games).
#[derive(Serialize, ToSchema)]
pub struct StreamPositionData {
    /// The id the stream continues from (also sent as the frame's `id:`).
    pub last_event_id: i64,
    /// Events sent again from `Last-Event-ID` before this frame (0 in `resync`).
    pub replayed: usize,
}

/// The data of `lagged`: this stream fell behind and skipped events.
#[derive(Serialize, ToSchema)]
pub struct LaggedData {
    pub missed: u64,
}

/// The data of `unauthorized`, after which the stream ends.
#[derive(Serialize, ToSchema)]
pub struct UnauthorizedData {
    /// `token_revoked`.
    pub code: String,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventParams {
    /// A stream ticket (`POST /api/v1/me/stream-tickets`), for clients that cannot send an
    /// `Authorization` header (a browser's `EventSource`). Tokens never go in URLs:
    /// `?access_token=` is refused (`400 token_in_url`).
    pub ticket: Option<String>,
    /// Refused (`token_in_url`): read only to say so.
    #[param(ignore)]
    #[serde(default)]
    pub access_token: Option<String>,
    /// Where the client stopped, for a page that cannot send the `Last-Event-ID` header
    /// (a fresh `EventSource`); the header wins when both are sent. Not a number: `resync`.
    pub last_event_id: Option<String>,
}

/// The client's `Last-Event-ID` (header, else query): `None` without one, `Some(None)` when
/// it is not an id this server could have sent.
fn last_event_id(req: &HttpRequest, query: Option<String>) -> Option<Option<i64>> {
    let raw = match req.headers().get("Last-Event-ID") {
        // Not text: not an id this server sent.
        Some(v) => v.to_str().unwrap_or("?").to_string(),
        None => query?,
    };
    let raw = raw.trim();
    // EventSource sends an empty id when no frame carried one: the same as none.
    if raw.is_empty() {
        return None;
    }
    Some(raw.parse::<i64>().ok().filter(|id| *id >= 0))
}

/// `id:` for the last frame of an event: only once all of its frames are written does the
/// client's `Last-Event-ID` move past it (a cut between two would resend them all).
fn with_id(frames: Vec<String>, id: Option<i64>) -> Vec<u8> {
    let count = frames.len();
    let mut out = String::new();
    for (i, frame) in frames.into_iter().enumerate() {
        out.push_str(&frame);
        if i + 1 == count
            && let Some(id) = id
        {
            out.push_str(&format!("id: {id}\n"));
        }
        out.push('\n');
    }
    out.into_bytes()
}

/// One frame without its ending blank line: `event:` and `data:`.
fn frame(event: &str, data: &impl Serialize) -> String {
    let data = serde_json::to_string(data).unwrap_or_else(|_| "{}".to_string());
    format!("event: {event}\ndata: {data}\n")
}

/// The SSE frames one event makes for `account`.
fn frames(event: &GameEvent, account: AccountId) -> Vec<u8> {
    if let Some(chat) = &event.chat {
        if !chat.recipients.contains(&account) {
            return Vec::new();
        }
        return with_id(vec![frame("chat_message", &chat.message)], event.id);
    }
    let mut out = Vec::new();
    if event.lobby {
        out.push(frame("lobby_changed", &LobbyChangedData { id: event.game }));
    }
    if event.accounts.contains(&account) {
        let data = GameChangedData {
            id: event.game,
            version: event.version,
            status: event.status,
        };
        out.push(frame("game_changed", &data));
        if event.to_act_accounts.contains(&account) {
            out.push(frame("your_turn", &data));
        }
    }
    with_id(out, event.id)
}

/// What a `/me/events` stream sends first: `retry:`, then `resync` or the replayed events
/// the account may see, then `ready` with the id the stream goes on from.
fn opening(timing: StreamTiming, cursor: i64, replay: &Replay, account: AccountId) -> Vec<u8> {
    let mut out = format!("retry: {}\n\n", timing.retry_ms).into_bytes();
    let position = match replay {
        Replay::Resync => StreamPositionData {
            last_event_id: cursor,
            replayed: 0,
        },
        Replay::Events(stored) => {
            let mut replayed = 0;
            for event in stored {
                let f = frames(event, account);
                if !f.is_empty() {
                    replayed += 1;
                    out.extend(f);
                }
            }
            StreamPositionData {
                last_event_id: cursor,
                replayed,
            }
        }
    };
    if matches!(replay, Replay::Resync) {
        out.extend(with_id(vec![frame("resync", &position)], Some(cursor)));
    }
    out.extend(with_id(vec![frame("ready", &position)], Some(cursor)));
    out
}

/// Live updates of the caller's games, as Server-Sent Events.
///
/// Every stream starts with `retry: <ms>` (the reconnection delay to use). Events:
/// `game_changed` (`GameChangedData`) whenever one of the caller's games changes;
/// `your_turn` (the same data) when the caller now has something to decide (its turn, or
/// an offer to answer); `chat_message` (`ChatMessage`) when a message is posted in a chat
/// the caller reads (its games' tables and its team's channel), unless the caller muted its
/// author; `lobby_changed` (`LobbyChangedData`) to every stream when the lobby
/// changed (a public game opened, filled up or lost a player).
///
/// Each change carries an `id:` (on the last frame it makes), growing in the order the
/// changes happened. A client that reconnects with `Last-Event-ID` (as `EventSource` does
/// by itself; a fresh page may pass `?last_event_id=`) is first sent every change after
/// that id it may see, then live ones, none twice. Changes are kept for 24 hours and at
/// most 1,000 are replayed: when the id is older than that, or not an id this server
/// sent, the stream sends `event: resync` (`StreamPositionData`) instead: re-read the
/// games. After the replay (or at once) comes `event: ready` (`StreamPositionData`), with
/// the id the stream goes on from. After an `event: lagged` (`LaggedData`) the stream
/// skipped events and the client should re-read its games. A comment line when the stream
/// sent nothing for 15 s keeps the connection open. Once the token is revoked (a password
/// change) or expires, the stream sends `event: unauthorized` (`UnauthorizedData`) and
/// ends, within seconds.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(
        EventParams,
        ("Last-Event-ID" = Option<String>, Header, description = "The `id:` of the last event the client has: the stream first sends what came after it"),
    ),
    responses(
        (status = 200, description = "An endless `text/event-stream`", content_type = "text/event-stream", body = String),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams`: this client address holds as many streams as it may", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`streams_full`: the server holds as many streams as it can", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/events")]
pub async fn events(
    domain: web::Data<Domain>,
    hub: web::Data<EventHub>,
    limits: web::Data<StreamLimits>,
    timing: web::Data<StreamTiming>,
    req: HttpRequest,
    params: web::Query<EventParams>,
) -> Result<HttpResponse, ApiError> {
    let params = params.into_inner();
    let caller = stream_caller(
        domain.clone(),
        &req,
        params.ticket.as_deref(),
        params.access_token.is_some(),
    )
    .await?;
    let Some((Caller(account), parent)) = caller else {
        return Err(ApiError::unauthorized(
            "send Authorization: Bearer <access_token>, or ?ticket= (POST /api/v1/me/stream-tickets)",
        ));
    };
    let permit = permit(limits, &req).map_err(|e| *e)?;
    let after = last_event_id(&req, params.last_event_id);
    // Subscribed before reading the stored events: a change committed after the read
    // arrives live; one both read and heard is skipped by its id.
    let receiver = hub.subscribe();
    let reader = domain.clone();
    let (cursor, replay) = web::block(move || -> crate::domain::DomainResult<(i64, Replay)> {
        let mut conn = reader.conn()?;
        let r = match after {
            None => crate::notify::events::replay(&mut conn, None),
            Some(None) => crate::notify::events::replay(&mut conn, None)
                .map(|(cursor, _)| (cursor, Replay::Resync)),
            Some(Some(id)) => crate::notify::events::replay(&mut conn, Some(id)),
        };
        r.map_err(crate::domain::DomainError::from)
    })
    .await??;
    let timing = **timing;
    let recheck = Recheck { domain, parent };
    Ok(sse(
        receiver,
        opening(timing, cursor, &replay, account),
        cursor,
        timing,
        permit,
        Some(recheck),
        move |event| frames(event, account),
    ))
}

/// How often a stream opened with a token checks that the token is still good: a stream
/// opened before a password change must not go on after it.
const RECHECK: Duration = Duration::from_secs(5);

/// The token a stream was opened with (itself, or the one its ticket was issued for),
/// checked again every [`RECHECK`].
#[derive(Clone)]
struct Recheck {
    domain: web::Data<Domain>,
    parent: TicketParent,
}

/// A place among the node's streams for the client of `req`.
fn permit(
    limits: web::Data<StreamLimits>,
    req: &HttpRequest,
) -> Result<StreamPermit, Box<ApiError>> {
    limits.into_inner().acquire(super::client_addr::of(req))
}

/// Where a stream stands between two of its frames.
struct Stream {
    /// Held while the stream is open; dropped with it when the client leaves.
    _permit: StreamPermit,
    rx: tokio::sync::broadcast::Receiver<GameEvent>,
    first: Vec<u8>,
    /// Live events up to this id were sent already (replayed): skipped.
    sent_upto: i64,
    keep_alive: Duration,
    /// When this stream sends a keep-alive, unless it wrote something before.
    quiet_until: Instant,
    check_at: Instant,
    ended: bool,
}

/// The frame that ends a stream whose token is no longer good.
const REVOKED: &[u8] = b"event: unauthorized\ndata: {\"code\": \"token_revoked\"}\n\n";

/// An endless `text/event-stream`: `first`, then what `frames` makes of each event from
/// `receiver` with an id after `sent_upto`, with keep-alives. With `recheck`, the stream
/// ends (after an `unauthorized` event) once its token is revoked or expires.
fn sse(
    receiver: tokio::sync::broadcast::Receiver<GameEvent>,
    first: Vec<u8>,
    sent_upto: i64,
    timing: StreamTiming,
    permit: StreamPermit,
    recheck: Option<Recheck>,
    frames: impl Fn(&GameEvent) -> Vec<u8> + Clone + 'static,
) -> HttpResponse {
    let now = Instant::now();
    let start = Stream {
        _permit: permit,
        rx: receiver,
        first,
        sent_upto,
        keep_alive: timing.keep_alive,
        quiet_until: now + timing.keep_alive,
        check_at: now + RECHECK,
        ended: false,
    };
    let stream = futures_util::stream::unfold(start, move |mut st| {
        let frames = frames.clone();
        let recheck = recheck.clone();
        async move {
            if st.ended {
                return None;
            }
            if !st.first.is_empty() {
                let first = std::mem::take(&mut st.first);
                st.quiet_until = Instant::now() + st.keep_alive;
                return Some((Ok::<_, actix_web::Error>(Bytes::from(first)), st));
            }
            loop {
                // Each stream keeps its own time: events for other games write nothing to
                // it, and a stream that writes nothing never learns that its client left.
                let wake = match recheck {
                    Some(_) => st.quiet_until.min(st.check_at),
                    None => st.quiet_until,
                };
                let chunk = match timeout_at(wake, st.rx.recv()).await {
                    Err(_) => {
                        let now = Instant::now();
                        if let Some(r) = &recheck
                            && now >= st.check_at
                        {
                            st.check_at = now + RECHECK;
                            if let Err(e) = parent_session(r.domain.clone(), r.parent).await
                                && e.status_code() == StatusCode::UNAUTHORIZED
                            {
                                st.ended = true;
                                return Some((Ok(Bytes::from_static(REVOKED)), st));
                            }
                        }
                        if now >= st.quiet_until {
                            b": keep-alive\n\n".to_vec()
                        } else {
                            Vec::new()
                        }
                    }
                    Ok(Ok(event)) if event.id.is_some_and(|id| id <= st.sent_upto) => Vec::new(),
                    Ok(Ok(event)) => frames(&event),
                    Ok(Err(RecvError::Lagged(n))) => {
                        format!("event: lagged\ndata: {{\"missed\": {n}}}\n\n").into_bytes()
                    }
                    Ok(Err(RecvError::Closed)) => return None,
                };
                if !chunk.is_empty() {
                    st.quiet_until = Instant::now() + st.keep_alive;
                    return Some((Ok(Bytes::from(chunk)), st));
                }
            }
        }
    });
    HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream)
}

/// The frames one event makes for a watcher of `game`: only what everyone may know of it
/// (its version, status and the seats it waits for), never who is seated by account.
fn watch_frames(event: &GameEvent, game: GameId) -> Vec<u8> {
    // Chat is for the game's players only, never its watchers.
    if event.game != game || event.chat.is_some() {
        return Vec::new();
    }
    let data = GameWatchData {
        id: event.game,
        version: event.version,
        status: event.status,
        to_act: event.to_act.clone(),
    };
    with_id(vec![frame("game_changed", &data)], event.id)
}

/// Live updates of one game, for anyone who may read it (a seat, or a spectator of a public
/// game, signed in or not), as Server-Sent Events.
///
/// The stream starts with `retry: <ms>`, then `game_changed` (`GameWatchData`: nothing
/// anyone watching may not know) at once with the game as it is, then whenever it changes
/// (with an `id:`, as on `/me/events`): read the game again for the rest. As the first
/// frame is the game as it is, a reconnecting client misses nothing and `Last-Event-ID` is
/// not needed. Browsers pass `?ticket=` (a stream ticket) to watch as a seat (a private game). After
/// `event: lagged` events were missed. A comment line when the stream sent nothing for 15 s
/// keeps the connection open. A stream opened with a token ends with `event: unauthorized` once the
/// token is revoked or expires.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), EventParams),
    responses(
        (status = 200, description = "An endless `text/event-stream`", content_type = "text/event-stream", body = String),
        (status = 401, description = "`unauthorized`: a token was sent and is not valid", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_streams`: this client address holds as many streams as it may", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`streams_full`: the server holds as many streams as it can", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/events")]
pub async fn game_events(
    domain: web::Data<Domain>,
    hub: web::Data<EventHub>,
    limits: web::Data<StreamLimits>,
    timing: web::Data<StreamTiming>,
    req: HttpRequest,
    id: web::Path<GameId>,
    params: web::Query<EventParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let params = params.into_inner();
    let caller = stream_caller(
        domain.clone(),
        &req,
        params.ticket.as_deref(),
        params.access_token.is_some(),
    )
    .await?;
    let viewer = caller.map(|(Caller(account), _)| account);
    let recheck = caller.map(|(_, parent)| Recheck {
        domain: domain.clone(),
        parent,
    });
    let permit = permit(limits, &req).map_err(|e| *e)?;
    // Subscribed before reading, so that no change falls between the two. The newest
    // stored event id is read before the game: every change up to it is in what is read,
    // so one announced late (the listener may lag) is skipped rather than sent after the
    // newer state, which would show the client a game going back.
    let receiver = hub.subscribe();
    let (cursor, game) = web::block(
        move || -> crate::domain::DomainResult<(i64, GameResponse)> {
            let cursor = {
                let mut conn = domain.conn()?;
                crate::notify::events::replay(&mut conn, None)?.0
            };
            Ok((cursor, domain.get_game(viewer, id)?))
        },
    )
    .await??;
    let timing = **timing;
    let first = format!(
        "retry: {}\n\n{}\n",
        timing.retry_ms,
        frame(
            "game_changed",
            &GameWatchData {
                id: game.id,
                version: game.version,
                status: game.status,
                to_act: game.to_act,
            }
        )
    );
    Ok(sse(
        receiver,
        first.into_bytes(),
        cursor,
        timing,
        permit,
        recheck,
        move |event| watch_frames(event, id),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::kinds::GameId;

    #[test]
    fn events_reach_only_seated_accounts_and_your_turn_only_the_mover() {
        let e = GameEvent {
            id: Some(5),
            game: GameId(7),
            version: 3,
            status: crate::store::kinds::GameStatus::Active,
            to_act: vec![1],
            accounts: vec![AccountId(1), AccountId(2)],
            to_act_accounts: vec![AccountId(2)],
            lobby: false,
            chat: None,
        };
        assert!(frames(&e, AccountId(9)).is_empty());
        let one = String::from_utf8(frames(&e, AccountId(1))).unwrap();
        assert!(one.contains("game_changed") && !one.contains("your_turn"));
        let two = String::from_utf8(frames(&e, AccountId(2))).unwrap();
        assert!(two.contains("event: your_turn\ndata: {\"id\":7"));
    }

    #[test]
    fn a_chat_message_reaches_its_recipients_only_and_never_a_watcher() {
        let message = crate::domain::chat::ChatMessage {
            id: 3,
            game_id: GameId(7),
            channel: crate::store::kinds::ChatChannel::Table,
            seat: 0,
            author_id: AccountId(1),
            author_name: "Ada".into(),
            text: "<b>hi</b>".into(),
            created_at: chrono::DateTime::UNIX_EPOCH,
        };
        let e = GameEvent {
            id: Some(9),
            game: GameId(7),
            version: 4,
            status: crate::store::kinds::GameStatus::Active,
            to_act: Vec::new(),
            accounts: Vec::new(),
            to_act_accounts: Vec::new(),
            lobby: false,
            chat: Some(crate::notify::events::ChatEvent {
                message,
                recipients: vec![AccountId(1), AccountId(2)],
            }),
        };
        let two = String::from_utf8(frames(&e, AccountId(2))).unwrap();
        assert!(
            two.starts_with("event: chat_message\ndata: {\"id\":3,"),
            "{two}"
        );
        assert!(two.ends_with("id: 9\n\n"), "{two}");
        assert!(!two.contains("game_changed"), "{two}");
        // Not a recipient (a spectator, the other team, or a player who muted the author).
        assert!(frames(&e, AccountId(3)).is_empty());
        assert!(watch_frames(&e, GameId(7)).is_empty());
    }

    #[test]
    fn a_lobby_change_reaches_every_stream_and_says_no_more_than_the_game_id() {
        let e = GameEvent {
            id: Some(5),
            game: GameId(8),
            version: 0,
            status: crate::store::kinds::GameStatus::Open,
            to_act: Vec::new(),
            accounts: vec![AccountId(1)],
            to_act_accounts: Vec::new(),
            lobby: true,
            chat: None,
        };
        let outsider = String::from_utf8(frames(&e, AccountId(9))).unwrap();
        // The change's durable id goes on its last frame, so a reconnect resumes after it.
        assert_eq!(
            outsider,
            "event: lobby_changed\ndata: {\"id\":8}\nid: 5\n\n"
        );
        let seated = String::from_utf8(frames(&e, AccountId(1))).unwrap();
        assert!(seated.contains("lobby_changed") && seated.contains("game_changed"));
    }
}
