//! Which scope each authenticated route needs: one table, read by the `Caller` and
//! `MaybeCaller` extractors (by the matched route pattern) and written into the OpenAPI
//! description (each bearer requirement lists its scope). A test checks that every
//! route taking a bearer token in the description is in the table, so a new route
//! cannot be forgotten; one missing from it anyway needs `account`, the narrower grant of
//! personal access tokens, so it fails closed.

use actix_web::http::StatusCode;
use serde_json::Value;

use super::problem::ApiError;
use crate::domain::ProblemCode;
use crate::domain::access_tokens::Scope;

use Scope::{Account, Play};

/// (method, route pattern as in the OpenAPI paths, scope needed).
pub const ROUTES: &[(&str, &str, Scope)] = &[
    ("GET", "/api/v1/accounts/{id}/ratings", Play),
    ("POST", "/api/v1/accounts/{id}/mute", Play),
    ("DELETE", "/api/v1/accounts/{id}/mute", Play),
    ("GET", "/api/v1/games", Play),
    ("POST", "/api/v1/games", Play),
    ("GET", "/api/v1/games/{id}", Play),
    ("POST", "/api/v1/games/{id}/actions", Play),
    ("GET", "/api/v1/games/{id}/board.svg", Play),
    ("GET", "/api/v1/games/{id}/chat", Play),
    ("POST", "/api/v1/games/{id}/chat", Play),
    ("POST", "/api/v1/games/{id}/chat/read", Play),
    ("POST", "/api/v1/games/{id}/chat/{message}/report", Play),
    ("GET", "/api/v1/games/{id}/events", Play),
    ("GET", "/api/v1/games/{id}/invitations", Play),
    (
        "DELETE",
        "/api/v1/games/{id}/invitations/{invitation}",
        Play,
    ),
    ("POST", "/api/v1/games/{id}/join", Play),
    ("POST", "/api/v1/games/{id}/leave", Play),
    ("GET", "/api/v1/games/{id}/log", Play),
    ("POST", "/api/v1/games/{id}/nudge", Play),
    ("GET", "/api/v1/games/{id}/note", Play),
    ("PUT", "/api/v1/games/{id}/note", Play),
    ("POST", "/api/v1/games/{id}/preview", Play),
    ("POST", "/api/v1/games/{id}/rematch", Play),
    ("POST", "/api/v1/games/{id}/resign", Play),
    ("GET", "/api/v1/games/{id}/replacements", Play),
    ("POST", "/api/v1/games/{id}/resume", Play),
    ("POST", "/api/v1/games/{id}/seats/{seat}/offer", Play),
    ("DELETE", "/api/v1/games/{id}/seats/{seat}/offer", Play),
    ("POST", "/api/v1/games/{id}/seats/{seat}/take", Play),
    ("POST", "/api/v1/games/{id}/takeback", Play),
    ("POST", "/api/v1/games/{id}/takeback/{answer}", Play),
    ("GET", "/api/v1/games/{id}/views/{version}", Play),
    ("POST", "/api/v1/invitations/{token}/accept", Play),
    ("GET", "/api/v1/seat-offers", Play),
    // Who the token speaks for: a game client needs it to find its seats.
    ("GET", "/api/v1/me", Play),
    ("GET", "/api/v1/me/events", Play),
    ("GET", "/api/v1/me/chat/unread", Play),
    ("POST", "/api/v1/me/stream-tickets", Play),
    ("PATCH", "/api/v1/me", Account),
    ("GET", "/api/v1/me/export", Account),
    ("GET", "/api/v1/me/mutes", Account),
    ("POST", "/api/v1/me/delete", Account),
    // The feed's address is a secret of the account's.
    ("GET", "/api/v1/me/calendar", Account),
    ("POST", "/api/v1/me/calendar/reset", Account),
    ("POST", "/api/v1/me/vacation", Account),
    ("POST", "/api/v1/me/verify-email", Account),
    ("GET", "/api/v1/me/webhooks", Account),
    ("POST", "/api/v1/me/webhooks", Account),
    ("DELETE", "/api/v1/me/webhooks/{id}", Account),
    ("GET", "/api/v1/me/webhooks/{id}/deliveries", Account),
    ("POST", "/api/v1/me/webhooks/{id}/test", Account),
    ("GET", "/api/v1/me/tokens", Account),
    ("POST", "/api/v1/me/tokens", Account),
    ("DELETE", "/api/v1/me/tokens/{id}", Account),
];

/// Routes that take any valid token whatever its scopes (signing it out).
pub const ANY_SCOPE: &[(&str, &str)] = &[("POST", "/api/v1/auth/logout")];

/// The scope a route needs (`account` for one missing from the table).
pub fn needed(method: &str, pattern: Option<&str>) -> Scope {
    ROUTES
        .iter()
        .find(|(m, p, _)| *m == method && Some(*p) == pattern)
        .map_or(Account, |(_, _, s)| *s)
}

/// The refusal of a token without scope `s`: `403 insufficient_scope`, naming it.
pub fn insufficient(s: Scope) -> ApiError {
    let mut e = ApiError::new(
        StatusCode::FORBIDDEN,
        ProblemCode::InsufficientScope,
        format!("this request needs a token with the `{}` scope", s.as_str()),
    );
    e.extra
        .insert("required_scope".into(), Value::from(s.as_str()));
    e
}

/// Writes each route's scope into its bearer requirement (`bearer: [play]`), and the
/// scopes into the scheme's description.
pub fn annotate(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            let method = method.to_ascii_uppercase();
            let Some(reqs) = op.get_mut("security").and_then(Value::as_array_mut) else {
                continue;
            };
            let scope = ROUTES
                .iter()
                .find(|(m, p, _)| *m == method && p == path)
                .map(|(_, _, s)| s.as_str());
            for r in reqs.iter_mut() {
                if let (Some(bearer), Some(scope)) = (r.get_mut("bearer"), scope) {
                    *bearer = Value::from(vec![scope]);
                }
            }
        }
    }
    if let Some(scheme) = doc.pointer_mut("/components/securitySchemes/bearer")
        && let Some(scheme) = scheme.as_object_mut()
    {
        scheme.insert(
            "description".into(),
            Value::from(
                "A login token (`POST /api/v1/auth/token`: a JWT good for 7 days, with every \
                 scope) or a personal access token (`tp_…`, from `POST /api/v1/me/tokens`: \
                 long-lived, with the scopes chosen). Each operation's requirement lists the \
                 scope it needs: `play` (games) or `account` (the account's settings, \
                 webhooks, vacation, tokens); a token without it gets `403 insufficient_scope`.",
            ),
        );
    }
}
