//! `X-Request-Id` on every answer, and the same id in the request's log span, so that a
//! client reporting a failure can name the one request the operator should look up.
//!
//! A well-formed id sent by the client (a proxy's, or the client's own) is kept, so one id
//! follows a request across systems; anything else is replaced by a fresh one rather than
//! refused, since a bad id is no reason to fail a request.
//!
//! This middleware is the outermost one: it must run before the log span is made (so the
//! span carries the id) and see every answer, including the errors of inner middlewares.
//! It also removes the marker [`keep_streams_uncompressed`] sets (see there).

use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::error::InternalError;
use actix_web::http::header::{self, HeaderName, HeaderValue};
use actix_web::middleware::Next;

pub const HEADER: &str = "x-request-id";

/// The longest client id kept.
const MAX_LEN: usize = 64;

/// The request's id, in its extensions (read by the log span, see `log_redact`).
#[derive(Clone, Debug)]
pub struct RequestIdent(pub String);

/// The client's id when it is 1 to 64 characters of `[A-Za-z0-9._-]`: anything else could
/// forge log lines or carry a secret into them.
pub fn well_formed(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_LEN
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A fresh id: 128 random bits, as 32 hex digits.
fn fresh() -> String {
    format!("{:032x}", rand::random::<u128>())
}

pub async fn tag(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let id = req
        .headers()
        .get(HEADER)
        .and_then(|v| v.to_str().ok())
        .filter(|v| well_formed(v))
        .map_or_else(fresh, str::to_string);
    req.extensions_mut().insert(RequestIdent(id.clone()));
    // Only the characters `well_formed` allows, or hex digits: always a valid value.
    let value = HeaderValue::from_str(&id).unwrap_or(HeaderValue::from_static("invalid"));
    let name = HeaderName::from_static(HEADER);
    match next.call(req).await {
        Ok(mut res) => {
            let headers = res.headers_mut();
            headers.insert(name, value);
            unmark(headers);
            Ok(res)
        }
        // An inner middleware's error (a deadline, a refused origin) has no request left
        // to build a response on: its own response is carried, with the header, instead.
        Err(e) => {
            let mut resp = e.error_response();
            resp.headers_mut().insert(name, value);
            Err(InternalError::from_response(e.to_string(), resp).into())
        }
    }
}

/// The value [`keep_streams_uncompressed`] marks streams with.
const IDENTITY: &str = "identity";

/// Event streams must not be compressed: a compressor holds back each small frame until
/// it has enough to compress, so live updates would arrive late or never. `Compress` leaves
/// a response alone when it names a `Content-Encoding` already, so this (inside `Compress`)
/// names `identity` on streams, and [`tag`] (outside) removes it again: RFC 9110 says
/// `identity` is not to be sent as a content coding.
pub async fn keep_streams_uncompressed(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let is_stream = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("text/event-stream"));
    if is_stream {
        res.headers_mut()
            .insert(header::CONTENT_ENCODING, HeaderValue::from_static(IDENTITY));
    }
    Ok(res)
}

fn unmark(headers: &mut actix_web::http::header::HeaderMap) {
    if headers
        .get(header::CONTENT_ENCODING)
        .is_some_and(|v| v == IDENTITY)
    {
        headers.remove(header::CONTENT_ENCODING);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_ids_are_kept_only_when_short_and_plain() {
        assert!(well_formed("abc-123_X.y"));
        assert!(well_formed(&"a".repeat(64)));
        assert!(!well_formed(&"a".repeat(65)));
        assert!(!well_formed(""));
        assert!(!well_formed("a b"));
        assert!(!well_formed("a\u{e9}"));
        assert!(!well_formed("a\"b"));
    }

    #[test]
    fn fresh_ids_are_well_formed_and_differ() {
        let (a, b) = (fresh(), fresh());
        assert!(well_formed(&a) && well_formed(&b));
        assert_ne!(a, b);
    }
}
