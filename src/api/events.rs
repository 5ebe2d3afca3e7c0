//! `GET /api/v1/me/events`: Server-Sent Events for the caller's games, so clients need not
//! poll. Fed by the node's [`EventHub`], which every node fills from PostgreSQL
//! LISTEN/NOTIFY: a move made through any node reaches every node's streams.

use crate::store::kinds::{AccountId, GameId};
use std::time::Duration;

use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::broadcast::error::RecvError;
use utoipa::IntoParams;

use super::auth::{Caller, authenticate, bearer_token};
use super::problem::{ApiError, Problem};
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
    if !event.accounts.contains(&account) {
        return Vec::new();
    }
    let data = json!({"id": event.game, "version": event.version, "status": event.status});
    let mut out = format!("event: game_changed\ndata: {data}\n\n");
    if event.to_act_accounts.contains(&account) {
        out.push_str(&format!("event: your_turn\ndata: {data}\n\n"));
    }
    out.into_bytes()
}

/// Live updates of the caller's games, as Server-Sent Events.
///
/// `game_changed` (`{id, version, status}`) whenever one of the caller's games changes;
/// `your_turn` (the same data) when it now waits for the caller. After an `event: lagged`
/// the client missed events and should re-read its games. A comment line every 15 s keeps
/// the connection open.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(EventParams),
    responses(
        (status = 200, description = "An endless `text/event-stream`", content_type = "text/event-stream", body = String),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/events")]
pub async fn events(
    domain: web::Data<Domain>,
    hub: web::Data<EventHub>,
    req: HttpRequest,
    params: web::Query<EventParams>,
) -> Result<HttpResponse, ApiError> {
    let Some(token) = bearer_token(&req).or_else(|| params.into_inner().access_token) else {
        return Err(ApiError::unauthorized(
            "send Authorization: Bearer <access_token>, or ?access_token=",
        ));
    };
    let Caller(account) = authenticate(domain, &token).await?;
    Ok(sse(hub.subscribe(), Vec::new(), move |event| {
        frames(event, account)
    }))
}

/// An endless `text/event-stream`: `first`, then what `frames` makes of each event from
/// `receiver`, with keep-alives.
fn sse(
    receiver: tokio::sync::broadcast::Receiver<GameEvent>,
    first: Vec<u8>,
    frames: impl Fn(&GameEvent) -> Vec<u8> + Clone + 'static,
) -> HttpResponse {
    let stream = futures_util::stream::unfold((receiver, first), move |(mut rx, first)| {
        let frames = frames.clone();
        async move {
            if !first.is_empty() {
                return Some((
                    Ok::<_, actix_web::Error>(Bytes::from(first)),
                    (rx, Vec::new()),
                ));
            }
            loop {
                let chunk = match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
                    Err(_) => b": keep-alive\n\n".to_vec(),
                    Ok(Ok(event)) => frames(&event),
                    Ok(Err(RecvError::Lagged(n))) => {
                        format!("event: lagged\ndata: {{\"missed\": {n}}}\n\n").into_bytes()
                    }
                    Ok(Err(RecvError::Closed)) => return None,
                };
                if !chunk.is_empty() {
                    return Some((Ok(Bytes::from(chunk)), (rx, Vec::new())));
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
/// `event: lagged` events were missed. A comment line every 15 s keeps the connection open.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), EventParams),
    responses(
        (status = 200, description = "An endless `text/event-stream`", content_type = "text/event-stream", body = String),
        (status = 401, description = "`unauthorized`: a token was sent and is not valid", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/events")]
pub async fn game_events(
    domain: web::Data<Domain>,
    hub: web::Data<EventHub>,
    req: HttpRequest,
    id: web::Path<GameId>,
    params: web::Query<EventParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let viewer = match bearer_token(&req).or_else(|| params.into_inner().access_token) {
        Some(token) => Some(authenticate(domain.clone(), &token).await?.0),
        None => None,
    };
    // Subscribed before reading, so that no change falls between the two.
    let receiver = hub.subscribe();
    let game: GameResponse = web::block(move || domain.get_game(viewer, id)).await??;
    let first = format!(
        "event: game_changed\ndata: {}\n\n",
        json!({"id": game.id, "version": game.version, "status": game.status, "to_act": game.to_act})
    );
    Ok(sse(receiver, first.into_bytes(), move |event| {
        watch_frames(event, id)
    }))
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
            status: "active".into(),
            to_act: vec![1],
            accounts: vec![AccountId(1), AccountId(2)],
            to_act_accounts: vec![AccountId(2)],
        };
        assert!(frames(&e, AccountId(9)).is_empty());
        let one = String::from_utf8(frames(&e, AccountId(1))).unwrap();
        assert!(one.contains("game_changed") && !one.contains("your_turn"));
        let two = String::from_utf8(frames(&e, AccountId(2))).unwrap();
        assert!(two.contains("event: your_turn\ndata: {\"id\":7"));
    }
}
