//! Personal access tokens (see `domain::access_tokens`) and signing out.

use super::json_body;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};

use serde::Serialize;
use utoipa::ToSchema;

use super::auth::{Caller, bearer_token, invalid_token, session, token_parent};
use super::problem::{ApiError, Problem};
use crate::auth::jwt::TICKET_TTL_SECS;
use crate::domain::access_tokens::{AccessTokenResponse, NewAccessTokenRequest};
use crate::domain::{Domain, DomainError};

/// Make a personal access token: a long-lived bearer token with the scopes chosen
/// (`play`: games; `account`: the account's settings, webhooks, vacation, tokens), working
/// until it expires (`expires_in_days`, if given) or is revoked, or the password changes.
/// The answer carries the token, the only time it is shown. At most 20 per account.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = NewAccessTokenRequest,
    responses(
        (status = 201, body = AccessTokenResponse),
        (status = 400, description = "`invalid_json`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`insufficient_scope`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_access_tokens`: 20 already", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_token_name`, `invalid_token_scopes`, `invalid_token_lifetime`, `invalid_body`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/tokens")]
pub async fn create_token(
    domain: web::Data<Domain>,
    caller: Caller,
    body: json_body::Json<NewAccessTokenRequest>,
) -> Result<HttpResponse, ApiError> {
    let t = web::block(move || domain.create_access_token(caller.0, body.into_inner())).await??;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/me/tokens/{}", t.id)))
        // The answer holds a secret: no cache may keep it.
        .insert_header(("Cache-Control", "no-store"))
        .json(t))
}

/// The caller's personal access tokens, oldest first (never the tokens themselves).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Vec<AccessTokenResponse>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`insufficient_scope`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/tokens")]
pub async fn list_tokens(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<web::Json<Vec<AccessTokenResponse>>, ApiError> {
    Ok(web::Json(
        web::block(move || domain.list_access_tokens(caller.0)).await??,
    ))
}

/// Revoke one of the caller's personal access tokens. It is refused at once by this
/// server, and within 2 seconds by every other node.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The token's id")),
    responses(
        (status = 204, description = "Revoked"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`insufficient_scope`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such token of the caller's", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/tokens/{id}")]
pub async fn delete_token(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    web::block(move || domain.revoke_access_token(caller.0, id)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Sign out: the token this request carries stops working (a personal access token is
/// revoked; a login token is refused until it would have expired). Any valid token may
/// sign itself out, whatever its scopes. Other tokens of the account are untouched.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 204, description = "Signed out"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/logout")]
pub async fn logout(domain: web::Data<Domain>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    let Some(token) = bearer_token(&req) else {
        return Err(ApiError::unauthorized(
            "send Authorization: Bearer <access_token>",
        ));
    };
    let (key, checked, expires_at) = session(domain.clone(), &token).await?;
    web::block(move || domain.sign_out(key, checked, expires_at)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// A stream ticket: what a browser's `EventSource` passes as `?ticket=` to open
/// `GET /me/events` or `GET /games/{id}/events`, since it cannot send an `Authorization`
/// header and tokens never go in URLs. A ticket opens streams only, for 60 seconds (as
/// many as the stream limits allow); a stream it opened lives on while the token it was
/// issued for is good (signing that token out or revoking it ends the stream). Needs the
/// `play` scope.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    responses(
        (status = 200, body = StreamTicketResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`insufficient_scope`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/stream-tickets")]
pub async fn create_stream_ticket(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    // `Caller` checked the token and its scope; its session names the ticket's parent.
    let Some(token) = bearer_token(&req) else {
        return Err(ApiError::unauthorized(
            "send Authorization: Bearer <access_token>",
        ));
    };
    let parent = token_parent(&domain, &token).ok_or_else(invalid_token)?;
    let ticket = domain
        .tokens
        .issue_ticket(caller.0, parent, chrono::Utc::now().timestamp())
        .map_err(|e| ApiError::from(DomainError::Internal(e)))?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(StreamTicketResponse {
            ticket,
            expires_in: TICKET_TTL_SECS,
        }))
}

/// A stream ticket and how long it opens streams.
#[derive(Serialize, ToSchema)]
pub struct StreamTicketResponse {
    /// Pass as `?ticket=` to an event stream.
    pub ticket: String,
    /// Seconds the ticket may open streams.
    #[schema(example = 60)]
    pub expires_in: i64,
}
