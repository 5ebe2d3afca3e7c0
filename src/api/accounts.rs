//! Accounts and tokens.

use actix_web::{HttpRequest, HttpResponse, get, patch, post, web};

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::accounts::to_response;
use crate::domain::clocks::{VacationRequest, VacationResponse};
use crate::domain::shapes::{
    AccountResponse, NewAccountRequest, TokenRequest, TokenResponse, UpdateAccountRequest,
};
use crate::domain::{Domain, DomainError};

/// Create an account.
#[utoipa::path(
    tag = "accounts",
    request_body = NewAccountRequest,
    responses(
        (status = 201, description = "Created", body = AccountResponse),
        (status = 400, description = "Malformed JSON", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`email_taken`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_email`, `invalid_name`, `password_too_short`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/accounts")]
pub async fn create_account(
    domain: web::Data<Domain>,
    body: web::Json<NewAccountRequest>,
) -> Result<HttpResponse, ApiError> {
    let _admitted = domain.hashes.admit().await.map_err(DomainError::from)?;
    let account = web::block(move || domain.create_account(body.into_inner())).await??;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/accounts/{}", account.id)))
        .json(account))
}

/// Exchange email and password for a bearer token.
#[utoipa::path(
    tag = "accounts",
    request_body = TokenRequest,
    responses(
        (status = 200, description = "A bearer token", body = TokenResponse),
        (status = 401, description = "`invalid_credentials` (same answer for an unknown email)", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_attempts`: too many failed logins for this account from this address, or from this address overall; with Retry-After", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`busy`: too many logins at once; with Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/auth/token")]
pub async fn token(
    domain: web::Data<Domain>,
    req: HttpRequest,
    body: web::Json<TokenRequest>,
) -> Result<web::Json<TokenResponse>, ApiError> {
    // The peer address, not X-Forwarded-For: a header is the client's to forge.
    let client = req
        .peer_addr()
        .map_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED), |a| {
            a.ip()
        });
    let _admitted = domain.hashes.admit().await.map_err(DomainError::from)?;
    let t = web::block(move || domain.issue_token(body.into_inner(), client)).await??;
    Ok(web::Json(t))
}

/// The caller's account.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, body = AccountResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me")]
pub async fn me(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<web::Json<AccountResponse>, ApiError> {
    let a = web::block(move || domain.account(caller.0)).await??;
    Ok(web::Json(to_response(&a)))
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
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[patch("/me")]
pub async fn update_me(
    domain: web::Data<Domain>,
    caller: Caller,
    body: web::Json<UpdateAccountRequest>,
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
        (status = 409, description = "`vacation_overlap`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_vacation`, `vacation_allowance_exceeded`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/vacation")]
pub async fn vacation(
    domain: web::Data<Domain>,
    caller: Caller,
    body: web::Json<VacationRequest>,
) -> Result<HttpResponse, ApiError> {
    let req = body.into_inner();
    let allowance = domain.vacation_days_per_year;
    let v =
        web::block(move || domain.add_vacation(caller.0, req.from, req.until, allowance)).await??;
    Ok(HttpResponse::Created().json(v))
}
