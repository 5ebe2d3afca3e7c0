//! Inbound email: an MTA (piping to `turnpost deliver`) or a provider's inbound webhook
//! delivers each reply here as a raw RFC 5322 message, authenticated by a shared secret.

use crate::domain::ProblemCode;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, post, web};
use secrecy::ExposeSecret;
use serde::Deserialize;
use subtle::ConstantTimeEq;
use utoipa::IntoParams;

use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::shapes::InboundResponse;

/// Largest inbound message accepted (attachments included).
pub const MAX_MESSAGE_BYTES: usize = 10 * 1024 * 1024;

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct InboundParams {
    /// The envelope recipient, when the MTA passes it (Postfix: `${recipient}`); the reply
    /// token is also looked for in To, Cc, Delivered-To and X-Original-To.
    pub to: Option<String>,
}

fn check_secret(domain: &Domain, req: &HttpRequest) -> Result<(), Box<ApiError>> {
    let Some(secret) = &domain.inbound_secret else {
        return Err(Box::new(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ProblemCode::InboundDisabled,
            "inbound email is not configured on this server (set TURNPOST_INBOUND_SECRET)",
        )));
    };
    let given = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .unwrap_or("");
    if bool::from(given.as_bytes().ct_eq(secret.expose_secret().as_bytes())) {
        Ok(())
    } else {
        Err(Box::new(ApiError::unauthorized(
            "send Authorization: Bearer <the inbound secret>",
        )))
    }
}

/// Deliver one inbound email (a reply to a turn email) as a raw RFC 5322 message.
///
/// Every message that can be read is processed once (by Message-ID) and answered to its
/// sender by email; the response says what happened. A refused reply (wrong sender, bad or
/// stale token, illegal move) is a successful delivery with `outcome` `refused` or `stale`
/// and a `code`: answering it with an HTTP error would make the MTA bounce it.
#[utoipa::path(
    tag = "email",
    security(("inbound" = [])),
    params(InboundParams),
    request_body(content = String, content_type = "message/rfc822", description = "The raw message, headers and body"),
    responses(
        (status = 200, description = "Processed (or recognised as a duplicate); see `outcome`", body = InboundResponse),
        (status = 401, description = "`unauthorized`: missing or wrong inbound secret", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`", body = Problem, content_type = "application/problem+json"),
        (status = 415, description = "`unsupported_media_type`: send `Content-Type: message/rfc822`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_message`: not an RFC 5322 message, or no From address", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "`inbound_disabled`: no inbound secret configured", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/inbound/email")]
pub async fn inbound_email(
    domain: web::Data<Domain>,
    req: HttpRequest,
    params: web::Query<InboundParams>,
    payload: web::Payload,
) -> Result<web::Json<InboundResponse>, ApiError> {
    check_secret(&domain, &req).map_err(|e| *e)?;
    let media = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if media != "message/rfc822" {
        return Err(ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ProblemCode::UnsupportedMediaType,
            "send the raw email with Content-Type: message/rfc822",
        ));
    }
    let body = match payload.to_bytes_limited(MAX_MESSAGE_BYTES).await {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                ProblemCode::InvalidBody,
                e.to_string(),
            ));
        }
        Err(_) => {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                ProblemCode::PayloadTooLarge,
                format!("messages are limited to {MAX_MESSAGE_BYTES} bytes"),
            ));
        }
    };
    let to = params.into_inner().to;
    let r = web::block(move || domain.handle_inbound(&body, to.as_deref())).await??;
    Ok(web::Json(r))
}
