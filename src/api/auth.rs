//! The `Authorization: Bearer <jwt>` extractor.

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use futures_util::future::LocalBoxFuture;

use super::problem::ApiError;
use crate::domain::Domain;
use crate::store::kinds::AccountId;

/// The authenticated account's id: the token is valid, its account exists and its
/// generation is current (a password change revokes older tokens).
#[derive(Clone, Copy, Debug)]
pub struct Caller(pub AccountId);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let domain = req.app_data::<web::Data<Domain>>().cloned();
        let token = bearer_token(req);
        Box::pin(async move {
            let Some(domain) = domain else {
                return Err(ApiError::unauthorized("authentication is not configured"));
            };
            let Some(token) = token else {
                return Err(ApiError::unauthorized(
                    "send Authorization: Bearer <access_token>",
                ));
            };
            authenticate(domain, &token).await
        })
    }
}

/// The token of an `Authorization: Bearer <token>` header.
pub fn bearer_token(req: &HttpRequest) -> Option<String> {
    req.headers()
        .get(actix_web::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        // The scheme is case-insensitive (RFC 9110 §11.1): `BEARER` is `Bearer`.
        .and_then(|v| v.trim_start().split_once(' '))
        .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
        .map(|(_, t)| t.trim().to_string())
}

/// The caller behind a bearer token (from the header, or from a query parameter where a
/// browser's EventSource cannot set headers).
pub async fn authenticate(domain: web::Data<Domain>, token: &str) -> Result<Caller, ApiError> {
    let Some(subject) = domain.tokens.verify(token) else {
        return Err(ApiError::unauthorized(
            "the access token is invalid or expired",
        ));
    };
    // A session checked a moment ago needs no database, and no blocking thread.
    if let Some(id) = domain.checked_recently(&subject) {
        return Ok(Caller(id));
    }
    let id = web::block(move || domain.authenticate(subject)).await??;
    Ok(Caller(id))
}

/// The caller when a bearer token is sent, or nobody: for what anyone may read (a public
/// game, as a spectator). A token that is sent must be valid: a bad one is `401`, not a
/// silent downgrade to an anonymous reader.
#[derive(Clone, Copy, Debug)]
pub struct MaybeCaller(pub Option<AccountId>);

impl FromRequest for MaybeCaller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<MaybeCaller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let domain = req.app_data::<web::Data<Domain>>().cloned();
        let token = bearer_token(req);
        Box::pin(async move {
            match (domain, token) {
                (_, None) => Ok(MaybeCaller(None)),
                (None, Some(_)) => Err(ApiError::unauthorized("authentication is not configured")),
                (Some(domain), Some(token)) => {
                    Ok(MaybeCaller(Some(authenticate(domain, &token).await?.0)))
                }
            }
        })
    }
}
