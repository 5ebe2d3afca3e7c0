//! Accounts and tokens.

use super::json_body;
use actix_web::{HttpRequest, HttpResponse, get, patch, post, web};

use super::auth::Caller;
use super::etag;
use super::problem::{ApiError, Problem};
use crate::domain::accounts::to_response;
use crate::domain::clocks::{VacationRequest, VacationResponse};
use crate::domain::shapes::{
    AccountResponse, NewAccountRequest, SignUpAccepted, TokenRequest, TokenResponse,
    UpdateAccountRequest,
};
use crate::domain::sign_ups::SignUp;
use crate::domain::{Domain, DomainError};

/// Create an account.
///
/// Where the server requires confirmed addresses (`require_email_verification`, the
/// default), this makes no account yet and answers `202` with the same body whatever the
/// address, so that nobody learns from it whether an address has an account: a new address
/// is mailed a link (`/api/v1/sign-ups/{token}`, working for 2 days) that makes the
/// account, its address confirmed; the owner of a taken address is told that someone tried
/// (at most once a day). Sign in once the link is followed.
///
/// Where the server does not require confirmed addresses, the account works at once, so
/// the answer cannot hide that the address was free: `201` with the account, or
/// `409 email_taken` (and its owner is told).
#[utoipa::path(
    tag = "accounts",
    request_body = NewAccountRequest,
    responses(
        (status = 201, description = "Created (only where the server does not require confirmed addresses)", body = AccountResponse, headers(("Location" = String, description = "`/api/v1/me`: the account, once signed in"))),
        (status = 202, description = "Check your email: the same answer for a new and a taken address (where the server requires confirmed addresses)", body = SignUpAccepted),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`email_taken` (only where the server does not require confirmed addresses)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_email`, `invalid_name`, `password_too_short`, `password_too_long`, `invalid_password`, `weak_password`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`busy`: too many password hashes at once; with Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/accounts")]
pub async fn create_account(
    domain: web::Data<Domain>,
    body: json_body::Json<NewAccountRequest>,
) -> Result<HttpResponse, ApiError> {
    let _admitted = domain.hashes.admit().await.map_err(DomainError::from)?;
    match web::block(move || domain.create_account(body.into_inner())).await?? {
        SignUp::Created(account) => Ok(HttpResponse::Created()
            // The account is read (and changed) at /me, with the token it signs in for;
            // there is no route by account id.
            .insert_header(("Location", "/api/v1/me"))
            .json(account)),
        SignUp::CheckYourEmail(accepted) => Ok(HttpResponse::Accepted().json(accepted)),
    }
}

/// Exchange email and password for a bearer token.
///
/// Failed logins are throttled: 5 per (account, client address) in 15 minutes, then that
/// pair gets `429`. Past 50 failures from one address (across accounts), or 20 at one
/// account (across addresses), logins from that address or at that account are not
/// refused but paced, one every 3 seconds, so a right password still gets in; only a login
/// that would wait more than 10 s for its turn gets `429`. A pair that signed in within 30
/// days is not paced.
#[utoipa::path(
    tag = "accounts",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "A bearer token", body = TokenResponse),
        (status = 401, description = "`invalid_credentials` (same answer for an unknown email)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_attempts`: too many failed logins for this account from this address; or, past the budgets of the address or of the account, too many logins waiting in its slow lane (paced one at a time); with Retry-After", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`busy`: too many logins at once; with Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/token")]
pub async fn token(
    domain: web::Data<Domain>,
    req: HttpRequest,
    body: json_body::Json<TokenRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    // The peer, or the client a trusted proxy names: never a header from anyone else.
    let client = super::client_addr::of(&req);
    let TokenRequest { email, password } = body.into_inner();
    let ticket = domain.begin_login(&email, client)?;
    // A slow lane's wait is spent here, without a thread or a hashing slot.
    tokio::time::sleep_until(tokio::time::Instant::from_std(ticket.not_before())).await;
    let _admitted = domain.hashes.admit().await.map_err(DomainError::from)?;
    let t = web::block(move || domain.issue_token(ticket, &password)).await??;
    Ok(web::Json(t))
}

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    params(("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, body = AccountResponse, headers(("ETag" = String, description = "Changes whenever this answer changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me")]
pub async fn me(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let a = web::block(move || domain.account(caller.0)).await??;
    Ok(etag::json(&req, None, etag::PRIVATE, &to_response(&a)))
}

/// Change name, password (with `current_password`) or email notifications.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = UpdateAccountRequest,
    responses(
        (status = 200, body = AccountResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`current_password_wrong`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_name`, `password_too_short`, `password_too_long`, `invalid_password`, `weak_password`, `invalid_time_zone`, `invalid_quiet_hours`, `invalid_digest_hour`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/me")]
pub async fn update_me(
    domain: web::Data<Domain>,
    caller: Caller,
    body: json_body::Json<UpdateAccountRequest>,
) -> Result<web::Json<AccountResponse>, ApiError> {
    let _admitted = match body.password {
        Some(_) => Some(domain.hashes.admit().await.map_err(DomainError::from)?),
        None => None,
    };
    let a = web::block(move || domain.update_account(caller.0, body.into_inner())).await??;
    Ok(web::Json(a))
}

/// Go on vacation: from `from` to `until` the caller's clocks stand still in every game,
/// and opponents see "on vacation until …". Limited by a yearly allowance.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = VacationRequest,
    responses(
        (status = 201, body = VacationResponse),
        (status = 400, body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`vacation_overlap`, `vacation_allowance_exceeded`: the vacations already booked leave no room for it", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_vacation`: `until` is not after `from`, or `from` is in the past", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/vacation")]
pub async fn vacation(
    domain: web::Data<Domain>,
    caller: Caller,
    body: json_body::Json<VacationRequest>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let allowance = domain.vacation_days_per_year;
    let v =
        web::block(move || domain.add_vacation(caller.0, req.from, req.until, allowance)).await??;
    Ok(HttpResponse::Created().json(v))
}
