//! The `Authorization: Bearer <token>` extractors: a login JWT (every scope) or a personal
//! access token (`tp_…`, its scopes). Each route's scope is looked up in `scopes::ROUTES`.

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use futures_util::future::LocalBoxFuture;

use super::problem::ApiError;
use super::scopes;
use crate::auth::jwt::{TicketParent, TokenSubject};
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
        let in_url = token_in_url(req);
        Box::pin(async move {
            if in_url {
                return Err(token_in_url_refused());
            }
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

/// Whether the query names `access_token` (in any case, percent-encoded or not): URLs end
/// up in logs, browser history and `Referer` headers, so a token there is refused rather
/// than read or ignored.
pub fn token_in_url(req: &HttpRequest) -> bool {
    url::form_urlencoded::parse(req.query_string().as_bytes())
        .any(|(k, _)| k.eq_ignore_ascii_case("access_token"))
}

fn token_in_url_refused() -> ApiError {
    ApiError::new(
        actix_web::http::StatusCode::BAD_REQUEST,
        crate::domain::ProblemCode::TokenInUrl,
        "send the token as Authorization: Bearer, or get a stream ticket \
         (POST /api/v1/me/stream-tickets) and pass ?ticket=",
    )
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
    let parent = token_parent(&domain, token).ok_or_else(invalid_token)?;
    let checked = parent_session(domain, parent).await?;
    Ok(match parent {
        TicketParent::Pat { key } => (SessionKey::Pat(key), checked, 0),
        TicketParent::Login {
            jti, expires_at, ..
        } => (SessionKey::Login(jti), checked, expires_at),
    })
}

/// Which token `token` is, if it could be one of ours (signature and expiry of a login
/// token; a personal access token is looked up by [`parent_session`]): `None` is `401`.
pub fn token_parent(domain: &Domain, token: &str) -> Option<TicketParent> {
    if token.starts_with(PAT_PREFIX) {
        return Some(TicketParent::Pat {
            key: pat_key(token),
        });
    }
    domain.tokens.verify(token).map(TicketParent::of_login)
}

/// The refusal of a token that is not one of ours, or has expired.
pub fn invalid_token() -> ApiError {
    ApiError::unauthorized("the access token is invalid or expired")
}

/// What a token grants, named by its parent form (as a stream ticket names it), while it is
/// good: not expired, signed out, revoked or of an old generation.
pub async fn parent_session(
    domain: web::Data<Domain>,
    parent: TicketParent,
) -> Result<Checked, ApiError> {
    match parent {
        TicketParent::Pat { key } => {
            // A token checked a moment ago needs no database, and no blocking thread.
            if let Some(c) = domain.sessions.session(&SessionKey::Pat(key)) {
                return Ok(c);
            }
            Ok(web::block(move || domain.authenticate_pat(key)).await??)
        }
        TicketParent::Login {
            account,
            generation,
            jti,
            expires_at,
        } => {
            if expires_at < chrono::Utc::now().timestamp() {
                return Err(ApiError::unauthorized(
                    "the access token is invalid or expired",
                ));
            }
            let subject = TokenSubject {
                account_id: account,
                generation,
                jti,
                expires_at,
            };
            if let Some(c) = domain.login_checked_recently(&subject) {
                return Ok(c);
            }
            Ok(web::block(move || domain.authenticate_login(subject)).await??)
        }
    }
}

/// The caller of an event stream and the token it opened with (checked again while the
/// stream is open): a bearer header, else a stream ticket (`?ticket=`). A token in the
/// URL (`?access_token=`) is refused: URLs end up in logs and browser history.
pub async fn stream_caller(
    domain: web::Data<Domain>,
    req: &HttpRequest,
    ticket: Option<&str>,
    token_in_url: bool,
) -> Result<Option<(Caller, TicketParent)>, ApiError> {
    if token_in_url {
        return Err(token_in_url_refused());
    }
    let parent = match (bearer_token(req), ticket) {
        (Some(token), _) => token_parent(&domain, &token).ok_or_else(invalid_token)?,
        (None, Some(ticket)) => match domain.tokens.verify_ticket(ticket) {
            Some((_, parent)) => parent,
            None => {
                return Err(ApiError::unauthorized(
                    "the stream ticket is invalid or expired: get a new one",
                ));
            }
        },
        (None, None) => return Ok(None),
    };
    let checked = parent_session(domain, parent).await?;
    if !checked.scopes.has(Scope::Play) {
        return Err(scopes::insufficient(Scope::Play));
    }
    Ok(Some((Caller(checked.account), parent)))
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
        let in_url = token_in_url(req);
        Box::pin(async move {
            if in_url {
                return Err(token_in_url_refused());
            }
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
