//! `GET /api/v1/me/events`: Server-Sent Events for the caller's games, so clients need not
//! poll. Fed by the node's [`EventHub`], which every node fills from PostgreSQL
//! LISTEN/NOTIFY: a move made through any node reaches every node's streams.

use crate::store::kinds::AccountId;
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
    let receiver = hub.subscribe();
    let stream = futures_util::stream::unfold(receiver, move |mut rx| async move {
        loop {
            let chunk = match tokio::time::timeout(KEEP_ALIVE, rx.recv()).await {
                Err(_) => b": keep-alive\n\n".to_vec(),
                Ok(Ok(event)) => frames(&event, account),
                Ok(Err(RecvError::Lagged(n))) => {
                    format!("event: lagged\ndata: {{\"missed\": {n}}}\n\n").into_bytes()
                }
                Ok(Err(RecvError::Closed)) => return None,
            };
            if !chunk.is_empty() {
                return Some((Ok::<_, actix_web::Error>(Bytes::from(chunk)), rx));
            }
        }
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream))
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
