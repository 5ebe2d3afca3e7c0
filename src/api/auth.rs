//! The `Authorization: Bearer <token>` extractors: a login JWT (every scope) or a personal
//! access token (`tp_…`, its scopes). Each route's scope is looked up in `scopes::ROUTES`.

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use futures_util::future::LocalBoxFuture;

use super::problem::ApiError;
use super::scopes;
use crate::domain::Domain;
use crate::domain::access_tokens::{PAT_PREFIX, Scope, pat_key};
use crate::domain::sessions::{Checked, SessionKey};
use crate::store::kinds::AccountId;

/// The authenticated account's id: the token is valid, its account exists and its
/// generation is current (a password change revokes older tokens), it was not signed out
/// or revoked, and it has the scope the route needs (`scopes::ROUTES`).
#[derive(Clone, Copy, Debug)]
pub struct Caller(pub AccountId);

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = LocalBoxFuture<'static, Result<Caller, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let domain = req.app_data::<web::Data<Domain>>().cloned();
        let token = bearer_token(req);
        let needs = scopes::needed(req.method().as_str(), req.match_pattern().as_deref());
        Box::pin(async move {
            let Some(domain) = domain else {
                return Err(ApiError::unauthorized("authentication is not configured"));
            };
            let Some(token) = token else {
                return Err(ApiError::unauthorized(
                    "send Authorization: Bearer <access_token>",
                ));
            };
            authenticate_for(domain, &token, needs).await
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

/// A token's session: which token (for signing it out), what it grants, and when a login
/// token expires (Unix seconds; 0 for a personal access token).
pub async fn session(
    domain: web::Data<Domain>,
    token: &str,
) -> Result<(SessionKey, Checked, i64), ApiError> {
    if token.starts_with(PAT_PREFIX) {
        let key = pat_key(token);
        // A token checked a moment ago needs no database, and no blocking thread.
        if let Some(c) = domain.sessions.session(&SessionKey::Pat(key)) {
            return Ok((SessionKey::Pat(key), c, 0));
        }
        let c = web::block(move || domain.authenticate_pat(key)).await??;
        return Ok((SessionKey::Pat(key), c, 0));
    }
    let Some(subject) = domain.tokens.verify(token) else {
        return Err(ApiError::unauthorized(
            "the access token is invalid or expired",
        ));
    };
    let key = SessionKey::Login(subject.jti);
    if let Some(c) = domain.login_checked_recently(&subject) {
        return Ok((key, c, subject.expires_at));
    }
    let c = web::block(move || domain.authenticate_login(subject)).await??;
    Ok((key, c, subject.expires_at))
}

/// The caller behind a bearer token, when it has scope `needs`.
pub async fn authenticate_for(
    domain: web::Data<Domain>,
    token: &str,
    needs: Scope,
) -> Result<Caller, ApiError> {
    let (_, checked, _) = session(domain, token).await?;
    if !checked.scopes.has(needs) {
        return Err(scopes::insufficient(needs));
    }
    Ok(Caller(checked.account))
}

/// The caller behind a bearer token with the `play` scope (from the header, or from a
/// query parameter where a browser's EventSource cannot set headers): the event streams.
pub async fn authenticate(domain: web::Data<Domain>, token: &str) -> Result<Caller, ApiError> {
    authenticate_for(domain, token, Scope::Play).await
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
        let needs = scopes::needed(req.method().as_str(), req.match_pattern().as_deref());
        Box::pin(async move {
            match (domain, token) {
                (_, None) => Ok(MaybeCaller(None)),
                (None, Some(_)) => Err(ApiError::unauthorized("authentication is not configured")),
                (Some(domain), Some(token)) => Ok(MaybeCaller(Some(
                    authenticate_for(domain, &token, needs).await?.0,
                ))),
            }
        })
    }
}
