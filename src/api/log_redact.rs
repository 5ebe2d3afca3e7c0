//! The request log never holds a secret: an access token passed as `?access_token=` (a
//! browser's `EventSource` cannot send a header), the reply address of an emailed move
//! (`?to=`), and the tokens that are the path of a
//! link (invitations, calendar feeds, unsubscribe, confirmation and sign-up links) are
//! replaced by `[redacted]` before the request's span is made; `Authorization` is never
//! recorded.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::{Error, HttpMessage};
use tracing::Span;
use tracing_actix_web::{DefaultRootSpanBuilder, RootSpanBuilder};

/// Query parameters whose values are secrets. `to` is the recipient a mail server's pipe
/// passes to the inbound endpoint: `play+<reply token>@…`, a token that moves for a seat.
const SECRET_QUERY_KEYS: &[&str] = &["access_token", "token", "ticket", "to"];

/// Path segments after which the next segment is a secret token (`/invitations/{token}`,
/// `/calendar/{token}.ics`, `/unsubscribe/{token}`, `/verify-email/{token}`,
/// `/sign-ups/{token}`).
const SECRET_AFTER: &[&str] = &[
    "invitations",
    "calendar",
    "unsubscribe",
    "verify-email",
    "sign-ups",
];

const REDACTED: &str = "[redacted]";

/// `path?query` with every secret replaced.
pub fn redact_target(path: &str, query: Option<&str>) -> String {
    let mut out = String::with_capacity(path.len() + query.map_or(0, str::len) + 1);
    let mut secret_next = false;
    let mut previous = "";
    for (i, segment) in path.split('/').enumerate() {
        if i > 0 {
            out.push('/');
        }
        if secret_next && !segment.is_empty() {
            out.push_str(REDACTED);
            if segment.ends_with(".ics") {
                out.push_str(".ics");
            }
        } else {
            out.push_str(segment);
        }
        // Only right under the API root (or the site root): `/games/{id}/invitations/{n}`
        // and `/me/calendar/reset` hold no token.
        secret_next = SECRET_AFTER.contains(&segment) && matches!(previous, "v1" | "");
        previous = segment;
    }
    if let Some(q) = query {
        out.push('?');
        for (i, pair) in q.split('&').enumerate() {
            if i > 0 {
                out.push('&');
            }
            let key = pair.split('=').next().unwrap_or("");
            let decoded = key.replace('+', " ");
            let secret = SECRET_QUERY_KEYS
                .iter()
                .any(|k| decoded.eq_ignore_ascii_case(k) || percent_decoded_is(&decoded, k));
            if secret {
                out.push_str(key);
                out.push('=');
                out.push_str(REDACTED);
            } else {
                out.push_str(pair);
            }
        }
    }
    out
}

/// A key written with percent escapes (`access%5Ftoken`) is still that key.
fn percent_decoded_is(key: &str, name: &str) -> bool {
    url::form_urlencoded::parse(format!("{key}=").as_bytes())
        .next()
        .is_some_and(|(k, _)| k.eq_ignore_ascii_case(name))
}

/// The request spans of [`tracing_actix_web::TracingLogger`] with the target redacted.
pub struct RedactedSpans;

impl RootSpanBuilder for RedactedSpans {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let uri = request.uri();
        let target = redact_target(uri.path(), uri.query());
        let info = request.connection_info();
        let user_agent = request
            .headers()
            .get("user-agent")
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        // Set by `request_id::tag`, outside this logger: the id the answer carries.
        let request_id = request
            .extensions()
            .get::<super::request_id::RequestIdent>()
            .map(|r| r.0.clone())
            .unwrap_or_default();
        tracing::info_span!(
            "HTTP request",
            request_id = %request_id,
            http.method = %request.method(),
            http.route = request.match_pattern().as_deref().unwrap_or(""),
            http.flavor = ?request.version(),
            http.host = %info.host(),
            http.client_ip = %super::client_addr::of(request.request()),
            http.user_agent = user_agent,
            http.target = %target,
            http.status_code = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
            exception.message = tracing::field::Empty,
            exception.details = tracing::field::Empty,
        )
    }

    fn on_request_end<B: MessageBody>(span: Span, outcome: &Result<ServiceResponse<B>, Error>) {
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

#[cfg(test)]
mod tests {
    use super::redact_target;

    #[test]
    fn tokens_in_queries_and_link_paths_are_redacted() {
        let cases = [
            (
                "/api/v1/me/events",
                Some("access_token=eyJ.abc.def"),
                "/api/v1/me/events?access_token=[redacted]",
            ),
            (
                "/api/v1/games/4/events",
                Some("x=1&ACCESS_TOKEN=s3cret&y=2"),
                "/api/v1/games/4/events?x=1&ACCESS_TOKEN=[redacted]&y=2",
            ),
            (
                "/api/v1/games/4/events",
                Some("access%5Ftoken=s3cret"),
                "/api/v1/games/4/events?access%5Ftoken=[redacted]",
            ),
            (
                "/api/v1/invitations/0123abcd/accept",
                None,
                "/api/v1/invitations/[redacted]/accept",
            ),
            (
                "/api/v1/calendar/0123abcd.ics",
                None,
                "/api/v1/calendar/[redacted].ics",
            ),
            (
                "/api/v1/unsubscribe/ab",
                None,
                "/api/v1/unsubscribe/[redacted]",
            ),
            (
                "/api/v1/verify-email/ab",
                None,
                "/api/v1/verify-email/[redacted]",
            ),
            ("/api/v1/sign-ups/ab", None, "/api/v1/sign-ups/[redacted]"),
            (
                "/api/v1/inbound/email",
                Some("to=play%2Bc0ffee%40games.example.org"),
                "/api/v1/inbound/email?to=[redacted]",
            ),
            (
                "/api/v1/games/4/invitations/17",
                None,
                "/api/v1/games/4/invitations/17",
            ),
            ("/api/v1/games/4", Some("page=2"), "/api/v1/games/4?page=2"),
            (
                "/api/v1/me/calendar/reset",
                None,
                "/api/v1/me/calendar/reset",
            ),
        ];
        for (path, query, want) in cases {
            assert_eq!(redact_target(path, query), want, "{path} {query:?}");
        }
    }
}
