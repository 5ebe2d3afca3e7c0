//! Your data: an export of everything about the account, and deleting it.

use super::json_body;
use actix_web::{HttpResponse, get, post, web};

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::account_data::{AccountDeleted, AccountExport, DeleteAccountRequest};
use crate::domain::{Domain, DomainError};

/// Everything about the caller's account as one JSON document: profile, every game with
/// a seat of theirs (as that seat sees it, with its log), ratings, personal access tokens
/// and webhooks (never their secrets). Served as a download (`Content-Disposition`).
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    responses(
        (status = 200, body = AccountExport, headers(("Content-Disposition" = String, description = "`attachment; filename=\"turnpost-account-<id>.json\"`"))),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/export")]
pub async fn export_account(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let id = caller.0;
    let export = web::block(move || domain.export_account(id)).await??;
    Ok(HttpResponse::Ok()
        .insert_header((
            "Content-Disposition",
            format!("attachment; filename=\"turnpost-account-{id}.json\""),
        ))
        .insert_header(("Cache-Control", "private, no-store"))
        .json(export))
}

/// Delete the caller's account, with its password. Games in progress are resigned (in a
/// game of three or more the computer plays the seat on), games not started are left.
/// Then the address, name, password, tokens, webhooks, calendar feed and vacations are
/// erased; finished games keep the seat as "Deleted player", so that they still replay.
/// The address is free for a new account at once. Cannot be undone.
#[utoipa::path(
    tag = "accounts",
    security(("bearer" = [])),
    request_body = DeleteAccountRequest,
    responses(
        (status = 200, body = AccountDeleted),
        (status = 401, description = "The account is already deleted (`unknown_account`), or the token is not valid", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`current_password_wrong`", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`busy`: too many password hashes at once; with Retry-After", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/delete")]
pub async fn delete_account(
    domain: web::Data<Domain>,
    caller: Caller,
    body: json_body::Json<DeleteAccountRequest>,
) -> Result<web::Json<AccountDeleted>, ApiError> {
    let _admitted = domain.hashes.admit().await.map_err(DomainError::from)?;
    let password = body.into_inner().password;
    let done = web::block(move || domain.delete_account(caller.0, &password)).await??;
    Ok(web::Json(done))
}
