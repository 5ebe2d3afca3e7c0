//! Chat at the table: thin handlers over `domain::chat`.

use super::json_body;
use actix_web::{HttpResponse, delete, get, post, web};

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::chat::{
    ChatMessage, ChatPage, ChatParams, ChatReadMark, ChatReport, ChatUnread, NewChatMessage,
};
use crate::domain::mutes::MutedPlayer;
use crate::store::kinds::{AccountId, GameId};

/// A page of the game's chat, oldest first: the newest page by default, an older one with
/// `before` (the `next_before` of the page after it), or what came after a known message
/// with `after`. Only the game's seated players read it; the `team` channel only the
/// caller's team. Messages of players the caller muted are left out.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), ChatParams),
    responses(
        (status = 200, body = ChatPage),
        (status = 400, description = "`invalid_query`: `limit` outside 1 to 200, a negative cursor, or an unknown channel", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: only the game's players read its chat", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or a private one the caller may not see", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`no_team_channel`: the game has no teams", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/chat")]
pub async fn list_chat(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
    params: web::Query<ChatParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let params = params.into_inner();
    let page = web::block(move || domain.list_chat(caller.0, id, params)).await??;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(page))
}

/// Post a chat message to the table (or, in a team game, to the caller's team). The text
/// is stored neutralised: NUL is refused, other control characters become spaces, and
/// bidirectional override characters are removed. Readers are told by a `chat_message`
/// event on `GET /me/events` and by webhooks taking `chat_message`.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    request_body = NewChatMessage,
    responses(
        (status = 201, body = ChatMessage),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: only the game's players write in its chat", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`no_team_channel`: the game has no teams", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_chat_message` (no text, or a NUL), `chat_message_too_long` (over 1000 characters), `invalid_body`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`rate_limited`: 20 chat messages a minute per player; `Retry-After` says when", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds until a message would be accepted"))),
    )
)]
#[post("/games/{id}/chat")]
pub async fn post_chat(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
    body: json_body::Json<NewChatMessage>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let m = web::block(move || domain.post_chat(caller.0, id, body.into_inner())).await??;
    Ok(HttpResponse::Created().json(m))
}

/// Mark the game's chat read up to a message (for the unread counts of `GET /me/chat/unread`).
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    request_body = ChatReadMark,
    responses(
        (status = 204, description = "Marked"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_body`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/chat/read")]
pub async fn mark_chat_read(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
    body: json_body::Json<ChatReadMark>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    web::block(move || domain.mark_chat_read(caller.0, id, body.into_inner())).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Report a chat message to the server's operator (who lists reports with
/// `turnpost chat reports`). Reporting a message twice is reporting it once.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), ("message" = i64, Path, description = "Chat message id")),
    request_body = ChatReport,
    responses(
        (status = 202, description = "Reported"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, `chat_message_not_found`: no such message in this game, or one the caller may not read", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`chat_message_too_long` (a reason over 500 characters), `invalid_chat_message` (a NUL), `invalid_body`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/chat/{message}/report")]
pub async fn report_chat(
    domain: web::Data<Domain>,
    caller: Caller,
    path: web::Path<(GameId, i64)>,
    body: json_body::Json<ChatReport>,
) -> Result<HttpResponse, ApiError> {
    let (id, message) = path.into_inner();
    web::block(move || domain.report_chat(caller.0, id, message, body.into_inner())).await??;
    Ok(HttpResponse::Accepted().finish())
}

/// The caller's games with chat messages it has not read (its own and those of players it
/// muted are not counted), by game.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Vec<ChatUnread>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/chat/unread")]
pub async fn chat_unread(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let list = web::block(move || domain.chat_unread(caller.0)).await??;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(list))
}

/// Mute a player: their chat messages are hidden from the caller everywhere (lists, unread
/// counts, events, webhooks) until unmuted. They are not told.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The account to mute")),
    responses(
        (status = 204, description = "Muted"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such account", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`cannot_mute_yourself`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/accounts/{id}/mute")]
pub async fn mute(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<AccountId>,
) -> Result<HttpResponse, ApiError> {
    let other = id.into_inner();
    web::block(move || domain.set_mute(caller.0, other, true)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Unmute a player.
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The account to unmute")),
    responses(
        (status = 204, description = "Not muted (any more); unmuting yourself changes nothing"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such account", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/accounts/{id}/mute")]
pub async fn unmute(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<AccountId>,
) -> Result<HttpResponse, ApiError> {
    let other = id.into_inner();
    web::block(move || domain.set_mute(caller.0, other, false)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// The players the caller muted, most recently muted first (for unmuting them).
#[utoipa::path(
    tag = "chat",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Vec<MutedPlayer>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`insufficient_scope`: a personal access token needs the `account` scope", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/mutes")]
pub async fn list_mutes(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let list = web::block(move || domain.list_mutes(caller.0)).await??;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(list))
}
