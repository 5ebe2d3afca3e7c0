//! Password reset by email (see `domain::password_reset`).

use super::json_body;
use actix_web::{HttpRequest, HttpResponse, post, web};

use super::problem::{ApiError, Problem};
use crate::domain::password_reset::{
    NewPasswordRequest, PasswordResetAccepted, PasswordResetRequest, ResetLinkRequest,
};
use crate::domain::shapes::TokenResponse;
use crate::domain::{Domain, DomainError};

/// Ask for a password reset link.
///
/// The answer is the same `202` whether or not an account has the address, so that nobody
/// learns from it who plays here; only an account's address is mailed a link to the web
/// client's page `#/reset/{token}`, which works once, for an hour. Requests are limited:
/// 3 an hour for one address (from one client address or across them), 20 an hour from
/// one client address (across email addresses); past that, `429` with Retry-After, for an
/// address with an account and without alike.
#[utoipa::path(
    tag = "accounts",
    request_body = PasswordResetRequest,
    responses(
        (status = 202, description = "Check your email: the same answer for every address", body = PasswordResetAccepted),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_email`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_password_resets`: too many requests for this address, or from this client address; with Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/password-reset")]
pub async fn request_password_reset(
    domain: web::Data<Domain>,
    req: HttpRequest,
    body: json_body::Json<PasswordResetRequest>,
) -> Result<HttpResponse, ApiError> {
    // The peer, or the client a trusted proxy names: never a header from anyone else.
    let client = super::client_addr::of(&req);
    let ticket = domain.begin_password_reset(&body.email, client)?;
    // A slow lane's wait is spent here, without a thread.
    tokio::time::sleep_until(tokio::time::Instant::from_std(ticket.not_before())).await;
    let accepted = web::block(move || domain.send_password_reset(ticket)).await??;
    Ok(HttpResponse::Accepted().json(accepted))
}

/// Choose a new password with the token of a reset link.
///
/// Sets the password (the same rules as at sign-up), revokes every token issued before it,
/// confirms the address (the link was read in its mailbox), and signs in: the answer is a
/// fresh bearer token. The link then no longer works.
#[utoipa::path(
    tag = "accounts",
    request_body = NewPasswordRequest,
    responses(
        (status = 200, description = "The new password is set: a bearer token", body = TokenResponse),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`invalid_link`: the token was altered or not made by this server", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`link_expired`: the link is older than an hour; `link_used`: it was used already, or the password changed since it was sent", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`password_too_short`, `password_too_long`, `invalid_password`, `weak_password`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`busy`: too many password hashes at once; with Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/password-reset/new-password")]
pub async fn set_new_password(
    domain: web::Data<Domain>,
    body: json_body::Json<NewPasswordRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    let _admitted = domain.hashes.admit().await.map_err(DomainError::from)?;
    let t = web::block(move || domain.reset_password(&body)).await??;
    Ok(web::Json(t))
}

/// Check a reset link before choosing a new password.
///
/// `204` while the link still works; the same refusals as choosing the password would get,
/// so the link's page can say at once that a link is used or expired. Changes nothing.
#[utoipa::path(
    tag = "accounts",
    request_body = ResetLinkRequest,
    responses(
        (status = 204, description = "The link works: a new password may be chosen with it"),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`invalid_link`: the token was altered or not made by this server", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`link_expired`: the link is older than an hour; `link_used`: it was used already, a newer link was sent, or the password changed since", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_body`: the token is not a string, or the body has other fields", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/password-reset/check")]
pub async fn check_reset_link(
    domain: web::Data<Domain>,
    body: json_body::Json<ResetLinkRequest>,
) -> Result<HttpResponse, ApiError> {
    web::block(move || domain.check_reset_link(&body.token)).await??;
    Ok(HttpResponse::NoContent().finish())
}
