//! Entity tags and conditional requests (RFC 9110 §8.8.3, §13.1): every JSON resource a
//! client re-reads (games, their logs and views, the game list, the account, the game types)
//! carries an `ETag`, and `If-None-Match` answers `304` while it is unchanged; a move's
//! `If-Match` names the game version it was chosen on.
//!
//! Comparison follows the RFC: `If-None-Match` compares weakly (`W/"x"` matches `"x"`),
//! `If-Match` strongly (a weak tag never matches, so it fails with `412`); `*` matches any
//! current representation in both.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse};
use serde::Serialize;

use super::problem::ApiError;
use crate::domain::ProblemCode;

/// The tag of an answer: a digest of the whole body, so it changes whenever anything the
/// caller receives changes (a rename, a clock, hidden information coming to light), led by
/// the game version where there is one (`If-Match` reads it back).
pub fn tag(version: Option<i64>, body: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    let digest = hex::encode(Sha256::digest(body));
    match version {
        Some(v) => format!("\"{v}-{}\"", &digest[..16]),
        None => format!("\"{}\"", &digest[..24]),
    }
}

/// One entity tag of a conditional header.
#[derive(Debug, PartialEq, Eq)]
enum Tag {
    Any,
    /// The tag with its quotes; `weak` when sent as `W/"…"`.
    Entity {
        opaque: String,
        weak: bool,
    },
}

/// The tags of a conditional header: `None` when it is absent or not a list of entity tags
/// (RFC 9110 §8.8.3: `"…"`, `W/"…"`, or `*` alone).
fn tags(req: &HttpRequest, name: header::HeaderName) -> Option<Result<Vec<Tag>, ()>> {
    let value = req.headers().get(name)?;
    let Ok(text) = value.to_str() else {
        return Some(Err(()));
    };
    let text = text.trim();
    if text == "*" {
        return Some(Ok(vec![Tag::Any]));
    }
    let parsed: Result<Vec<Tag>, ()> = text
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| {
            let (weak, opaque) = match t.strip_prefix("W/") {
                Some(rest) => (true, rest),
                None => (false, t),
            };
            let quoted = opaque.len() >= 2 && opaque.starts_with('"') && opaque.ends_with('"');
            let inner_ok = quoted && !opaque[1..opaque.len() - 1].contains('"');
            if inner_ok {
                Ok(Tag::Entity {
                    opaque: without_coding(opaque).to_string(),
                    weak,
                })
            } else {
                Err(())
            }
        })
        .collect();
    Some(parsed.and_then(|t| if t.is_empty() { Err(()) } else { Ok(t) }))
}

/// The content codings `Compress` may apply; a compressed answer's tag names its coding.
const CODINGS: [&str; 4] = ["gzip", "br", "zstd", "deflate"];

/// A tag as this server made it, before [`per_coding`] named a coding in it: a client
/// sends back the tag of the representation it holds, compressed or not.
fn without_coding(opaque: &str) -> String {
    for c in CODINGS {
        if let Some(stem) = opaque
            .strip_suffix('"')
            .and_then(|o| o.strip_suffix(c))
            .and_then(|o| o.strip_suffix('-'))
        {
            return format!("{stem}\"");
        }
    }
    opaque.to_string()
}

/// Names the content coding in a compressed answer's tag (`"5-ab"` sent gzipped is
/// `"5-ab-gzip"`): RFC 9110 §8.8.3 asks a strong tag to differ between representations,
/// and a cache holding both must not take one for the other. Outside `Compress`, which
/// has set `Content-Encoding` by then; tags coming back are read without the coding.
pub async fn per_coding(
    req: actix_web::dev::ServiceRequest,
    next: actix_web::middleware::Next<impl actix_web::body::MessageBody + 'static>,
) -> Result<actix_web::dev::ServiceResponse<impl actix_web::body::MessageBody>, actix_web::Error> {
    let mut res = next.call(req).await?;
    let coding = res
        .headers()
        .get(header::CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .filter(|c| CODINGS.contains(c))
        .map(str::to_string);
    let tag = res
        .headers()
        .get(header::ETAG)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    if let (Some(coding), Some(tag)) = (coding, tag)
        && let Some(stem) = tag.strip_suffix('"')
        && let Ok(v) = header::HeaderValue::from_str(&format!("{stem}-{coding}\""))
    {
        res.headers_mut().insert(header::ETAG, v);
    }
    Ok(res)
}

/// Whether `If-None-Match` holds `current` (weak comparison) or `*`. A malformed header is
/// ignored, as the RFC lets a server do with a condition it cannot read for a `GET`.
pub fn none_match_hit(req: &HttpRequest, current: &str) -> bool {
    match tags(req, header::IF_NONE_MATCH) {
        Some(Ok(list)) => list.iter().any(|t| match t {
            Tag::Any => true,
            Tag::Entity { opaque, .. } => opaque == current,
        }),
        _ => false,
    }
}

/// `body` (already serialised) with its `ETag`, or `304` when the caller has it.
pub fn respond(
    req: &HttpRequest,
    current: String,
    content_type: &str,
    cache_control: &str,
    body: Vec<u8>,
) -> HttpResponse {
    if none_match_hit(req, &current) {
        return HttpResponse::NotModified()
            .insert_header((header::ETAG, current))
            .insert_header((header::CACHE_CONTROL, cache_control.to_string()))
            .finish();
    }
    HttpResponse::Ok()
        .insert_header((header::ETAG, current))
        .insert_header((header::CACHE_CONTROL, cache_control.to_string()))
        .content_type(content_type.to_string())
        .body(body)
}

/// `value` as JSON with its `ETag` (led by `version` where the answer is a game), or `304`.
/// Answers for one account are `private`; every answer is revalidated (`no-cache`).
pub fn json<T: Serialize>(
    req: &HttpRequest,
    version: Option<i64>,
    cache_control: &str,
    value: &T,
) -> HttpResponse {
    let body = match serde_json::to_vec(value) {
        Ok(b) => b,
        Err(_) => return HttpResponse::Ok().json(value),
    };
    respond(
        req,
        tag(version, &body),
        "application/json",
        cache_control,
        body,
    )
}

/// Cache-Control of an answer for one caller.
pub const PRIVATE: &str = "private, no-cache";
/// Cache-Control of an answer the same for everyone.
pub const PUBLIC: &str = "public, no-cache";

/// What a write's `If-Match` asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum IfMatch {
    /// No `If-Match`.
    Absent,
    /// `If-Match: *`: the game exists (it does, or the write is `404`); the version comes
    /// from the body.
    Any,
    /// The versions named by its strong tags (`"<version>-<digest>"`), at least one.
    Versions(Vec<i64>),
}

/// A write's `If-Match`: `400 invalid_if_match` when it is not a list of this server's game
/// tags; `412 stale_version` when it holds only weak tags, which never match (strong
/// comparison, RFC 9110 §13.1.1).
pub fn if_match(req: &HttpRequest) -> Result<IfMatch, Box<ApiError>> {
    let invalid = || {
        Box::new(ApiError::new(
            StatusCode::BAD_REQUEST,
            ProblemCode::InvalidIfMatch,
            "If-Match takes ETags of this game, as GET /games/{id} sent them, or *",
        ))
    };
    let list = match tags(req, header::IF_MATCH) {
        None => return Ok(IfMatch::Absent),
        Some(Err(())) => return Err(invalid()),
        Some(Ok(list)) => list,
    };
    if list == [Tag::Any] {
        return Ok(IfMatch::Any);
    }
    let mut versions = Vec::new();
    let mut weak = false;
    for t in list {
        let Tag::Entity { opaque, weak: w } = t else {
            return Err(invalid());
        };
        let version = opaque
            .trim_matches('"')
            .split_once('-')
            .and_then(|(v, _)| v.parse::<i64>().ok());
        let Some(version) = version else {
            return Err(invalid());
        };
        if w {
            weak = true;
        } else {
            versions.push(version);
        }
    }
    if versions.is_empty() && weak {
        let e = ApiError::new(
            StatusCode::PRECONDITION_FAILED,
            ProblemCode::StaleVersion,
            "a weak ETag (W/\"…\") never matches If-Match: send the game's ETag as it was sent",
        );
        return Err(Box::new(e));
    }
    versions.sort_unstable();
    versions.dedup();
    Ok(IfMatch::Versions(versions))
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    fn with(name: &str, value: &str) -> HttpRequest {
        TestRequest::default()
            .insert_header((name, value))
            .to_http_request()
    }

    #[test]
    fn if_none_match_compares_weakly_and_takes_a_star() {
        let t = tag(Some(3), b"{}");
        assert!(none_match_hit(&with("If-None-Match", &t), &t));
        assert!(none_match_hit(
            &with("If-None-Match", &format!("W/{t}")),
            &t
        ));
        assert!(none_match_hit(
            &with("If-None-Match", &format!("\"x\", {t}")),
            &t
        ));
        assert!(none_match_hit(&with("If-None-Match", "*"), &t));
        assert!(!none_match_hit(&with("If-None-Match", "\"3-0\""), &t));
        // Not an entity tag (unquoted): no condition.
        assert!(!none_match_hit(
            &with("If-None-Match", t.trim_matches('"')),
            &t
        ));
        assert!(!none_match_hit(
            &TestRequest::default().to_http_request(),
            &t
        ));
    }

    #[test]
    fn if_match_compares_strongly_takes_a_star_and_refuses_garbage() {
        let t = tag(Some(7), b"{}");
        assert_eq!(
            if_match(&with("If-Match", &t)).map_err(|e| e.code),
            Ok(IfMatch::Versions(vec![7]))
        );
        assert_eq!(
            if_match(&with("If-Match", " * ")).map_err(|e| e.code),
            Ok(IfMatch::Any)
        );
        assert_eq!(
            if_match(&with("If-Match", &format!("{t}, W/\"5-ab\", \"7-cd\""))).map_err(|e| e.code),
            Ok(IfMatch::Versions(vec![7]))
        );
        let weak = if_match(&with("If-Match", &format!("W/{t}"))).unwrap_err();
        assert_eq!(
            (weak.status, weak.code),
            (StatusCode::PRECONDITION_FAILED, ProblemCode::StaleVersion)
        );
        for bad in ["7", "\"abc\"", "\"7-x\", *", "\"\"", "W/", ","] {
            let e = if_match(&with("If-Match", bad)).unwrap_err();
            assert_eq!(
                (e.status, e.code),
                (StatusCode::BAD_REQUEST, ProblemCode::InvalidIfMatch),
                "{bad}"
            );
        }
        assert_eq!(
            if_match(&TestRequest::default().to_http_request()).map_err(|e| e.code),
            Ok(IfMatch::Absent)
        );
    }
}
