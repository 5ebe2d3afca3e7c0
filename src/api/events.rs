//! `GET /api/v1/me/events`: Server-Sent Events for the caller's games, so clients need not
//! poll. Fed by the node's [`EventHub`], which every node fills from PostgreSQL
//! LISTEN/NOTIFY: a move made through any node reaches every node's streams.

use crate::store::kinds::{AccountId, GameId};
use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, ResponseError, get, web};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Instant, timeout_at};
use utoipa::IntoParams;

use super::auth::{Caller, authenticate, bearer_token};
use super::problem::{ApiError, Problem};
use super::stream_limits::{StreamLimits, StreamPermit};
use crate::domain::Domain;
use crate::domain::shapes::GameResponse;
use crate::notify::events::{EventHub, GameEvent};

/// How often an idle stream sends a comment, so proxies keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct EventParams {
    /// The access token, for clients that cannot send an `Authorization` header (a
    /// browser's `EventSource`).
    pub access_token: Option<String>,
}

/// The SSE frames one event makes for `account`.
fn frames(event: &GameEvent, account: AccountId) -> Vec<u8> {
    let mut out = String::new();
    if event.lobby {
        out.push_str(&format!(
            "event: lobby_changed\ndata: {}\n\n",
            json!({"id": event.game})
        ));
    }
    if !event.accounts.contains(&account) {
        return out.into_bytes();
    }
    let data = json!({"id": event.game, "version": event.version, "status": event.status});
    out.push_str(&format!("event: game_changed\ndata: {data}\n\n"));
    if event.to_act_accounts.contains(&account) {
        out.push_str(&format!("event: your_turn\ndata: {data}\n\n"));
    }
    out.into_bytes()
}

/// Live updates of the caller's games, as Server-Sent Events.
///
/// `game_changed` (`{id, version, status}`) whenever one of the caller's games changes;
/// `your_turn` (the same data) when the caller now has something to decide (its turn, or
/// an offer to answer); `lobby_changed` (`{id}`) to every stream when the lobby changed
/// (a public game opened, filled up or lost a player). After an `event: lagged`
/// the client missed events and should re-read its games. A comment line after 15 s
/// without a frame keeps the connection open. Once the token is revoked (a password
/// change) or expires, the stream sends `event: unauthorized` and ends, within seconds.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(EventParams),
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
    req: HttpRequest,
    params: web::Query<EventParams>,
) -> Result<HttpResponse, ApiError> {
    let Some(token) = bearer_token(&req).or_else(|| params.into_inner().access_token) else {
        return Err(ApiError::unauthorized(
            "send Authorization: Bearer <access_token>, or ?access_token=",
        ));
    };
    let Caller(account) = authenticate(domain.clone(), &token).await?;
    let permit = permit(limits, &req).map_err(|e| *e)?;
    let recheck = Recheck { domain, token };
    Ok(sse(
        hub.subscribe(),
        Vec::new(),
        permit,
        Some(recheck),
        move |event| frames(event, account),
    ))
}

/// How often a stream opened with a token checks that the token is still good: a stream
/// opened before a password change must not go on after it.
const RECHECK: Duration = Duration::from_secs(5);

/// The token a stream was opened with, checked again every [`RECHECK`].
#[derive(Clone)]
struct Recheck {
    domain: web::Data<Domain>,
    token: String,
}

/// A place among the node's streams for the client of `req`.
fn permit(
    limits: web::Data<StreamLimits>,
    req: &HttpRequest,
) -> Result<StreamPermit, Box<ApiError>> {
    let address = req
        .peer_addr()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |a| a.ip());
    limits.into_inner().acquire(address)
}

/// Where a stream stands between two of its frames.
struct Stream {
    /// Held while the stream is open; dropped with it when the client leaves.
    _permit: StreamPermit,
    rx: tokio::sync::broadcast::Receiver<GameEvent>,
    first: Vec<u8>,
    /// When this stream sends a keep-alive, unless it wrote something before.
    quiet_until: Instant,
    check_at: Instant,
    ended: bool,
}

/// The frame that ends a stream whose token is no longer good.
const REVOKED: &[u8] = b"event: unauthorized\ndata: {\"code\": \"token_revoked\"}\n\n";

/// An endless `text/event-stream`: `first`, then what `frames` makes of each event from
/// `receiver`, with keep-alives. With `recheck`, the stream ends (after an `unauthorized`
/// event) once its token is revoked or expires.
fn sse(
    receiver: tokio::sync::broadcast::Receiver<GameEvent>,
    first: Vec<u8>,
    permit: StreamPermit,
    recheck: Option<Recheck>,
    frames: impl Fn(&GameEvent) -> Vec<u8> + Clone + 'static,
) -> HttpResponse {
    let now = Instant::now();
    let start = Stream {
        _permit: permit,
        rx: receiver,
        first,
        quiet_until: now + KEEP_ALIVE,
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
                st.quiet_until = Instant::now() + KEEP_ALIVE;
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
                            if let Err(e) = authenticate(r.domain.clone(), &r.token).await
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
                    Ok(Ok(event)) => frames(&event),
                    Ok(Err(RecvError::Lagged(n))) => {
                        format!("event: lagged\ndata: {{\"missed\": {n}}}\n\n").into_bytes()
                    }
                    Ok(Err(RecvError::Closed)) => return None,
                };
                if !chunk.is_empty() {
                    st.quiet_until = Instant::now() + KEEP_ALIVE;
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
    if event.game != game {
        return Vec::new();
    }
    let data = json!({
        "id": event.game,
        "version": event.version,
        "status": event.status,
        "to_act": event.to_act,
    });
    format!("event: game_changed\ndata: {data}\n\n").into_bytes()
}

/// Live updates of one game, for anyone who may read it (a seat, or a spectator of a public
/// game, signed in or not), as Server-Sent Events.
///
/// `game_changed` (`{id, version, status, to_act}`: nothing anyone watching may not know)
/// at once with the game as it is, then whenever it changes: read the game again for the
/// rest. Browsers may pass `?access_token=` to watch as a seat (a private game). After
/// `event: lagged` events were missed. A comment line after 15 s without a frame keeps the
/// connection open. A stream opened with a token ends with `event: unauthorized` once the
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
    req: HttpRequest,
    id: web::Path<GameId>,
    params: web::Query<EventParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let token = bearer_token(&req).or_else(|| params.into_inner().access_token);
    let viewer = match &token {
        Some(token) => Some(authenticate(domain.clone(), token).await?.0),
        None => None,
    };
    let recheck = token.map(|token| Recheck {
        domain: domain.clone(),
        token,
    });
    let permit = permit(limits, &req).map_err(|e| *e)?;
    // Subscribed before reading, so that no change falls between the two.
    let receiver = hub.subscribe();
    let game: GameResponse = web::block(move || domain.get_game(viewer, id)).await??;
    let first = format!(
        "event: game_changed\ndata: {}\n\n",
        json!({"id": game.id, "version": game.version, "status": game.status, "to_act": game.to_act})
    );
    Ok(sse(
        receiver,
        first.into_bytes(),
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
            game: GameId(7),
            version: 3,
            status: crate::store::kinds::GameStatus::Active,
            to_act: vec![1],
            accounts: vec![AccountId(1), AccountId(2)],
            to_act_accounts: vec![AccountId(2)],
            lobby: false,
        };
        assert!(frames(&e, AccountId(9)).is_empty());
        let one = String::from_utf8(frames(&e, AccountId(1))).unwrap();
        assert!(one.contains("game_changed") && !one.contains("your_turn"));
        let two = String::from_utf8(frames(&e, AccountId(2))).unwrap();
        assert!(two.contains("event: your_turn\ndata: {\"id\":7"));
    }

    #[test]
    fn a_lobby_change_reaches_every_stream_and_says_no_more_than_the_game_id() {
        let e = GameEvent {
            game: GameId(8),
            version: 0,
            status: crate::store::kinds::GameStatus::Open,
            to_act: Vec::new(),
            accounts: vec![AccountId(1)],
            to_act_accounts: Vec::new(),
            lobby: true,
        };
        let outsider = String::from_utf8(frames(&e, AccountId(9))).unwrap();
        assert_eq!(outsider, "event: lobby_changed\ndata: {\"id\":8}\n\n");
        let seated = String::from_utf8(frames(&e, AccountId(1))).unwrap();
        assert!(seated.contains("lobby_changed") && seated.contains("game_changed"));
    }
}
