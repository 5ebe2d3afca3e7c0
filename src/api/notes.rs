//! Private notes on a game, and the reliability record of an account.

use super::json_body;
use actix_web::{HttpResponse, get, put, web};

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::lobby::ReliabilityResponse;
use crate::domain::notes::{NoteRequest, NoteResponse};
use crate::store::kinds::{AccountId, GameId};

/// The caller's private note on a game: seen by nobody else, not even the other players.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, body = NoteResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: only a seat's player has a note", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or a private one the caller may not see", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/note")]
pub async fn get_note(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let note = web::block(move || domain.get_note(caller.0, id)).await??;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(note))
}

/// Replace the caller's private note on a game (an empty `body` deletes it). Of writes
/// at the same time, one is kept whole.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    request_body = NoteRequest,
    responses(
        (status = 200, body = NoteResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: only a seat's player has a note", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or a private one the caller may not see", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_note`: longer than 4000 characters, or holding NUL, control or bidirectional formatting characters; `invalid_body`: not `{\"body\": \"...\"}`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/games/{id}/note")]
pub async fn put_note(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
    body: json_body::Json<NoteRequest>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let body = body.into_inner();
    let note = web::block(move || domain.put_note(caller.0, id, body)).await??;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "private, no-store"))
        .json(note))
}

/// How often an account plays its games to the end: games finished, resigned and lost on
/// time, and the share of ended games played out. Public.
#[utoipa::path(
    tag = "ratings",
    params(("id" = i64, Path, description = "Account id")),
    responses(
        (status = 200, body = ReliabilityResponse),
        (status = 404, description = "`not_found`: no such account", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/accounts/{id}/reliability")]
pub async fn account_reliability(
    domain: web::Data<Domain>,
    id: web::Path<AccountId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let r = web::block(move || domain.account_reliability(id)).await??;
    Ok(HttpResponse::Ok().json(r))
}
