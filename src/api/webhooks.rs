//! The caller's webhooks (see `domain::webhooks` for the events and `notify::webhook` for
//! the signature).

use super::json_body;
use actix_web::{HttpResponse, delete, get, post, web};

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::webhooks::{NewWebhookRequest, WebhookDeliveryResponse, WebhookResponse};

/// Register a webhook: signed POSTs to `url` for the chosen events of the caller's games.
/// The answer carries the signing `secret`, the only time it is shown. Each POST's body
/// is a `WebhookPayload` (see the schemas), naming this webhook's `id` as `webhook_id`.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    request_body = NewWebhookRequest,
    responses(
        (status = 201, body = WebhookResponse),
        (status = 400, description = "`invalid_json`", body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_webhooks`: 10 already", body = Problem, content_type = "application/problem+json"),
        (status = 413, description = "`payload_too_large`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_webhook_url`, `webhook_address_not_allowed`, `invalid_webhook_events`, `invalid_body`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/webhooks")]
pub async fn create_webhook(
    domain: web::Data<Domain>,
    caller: Caller,
    body: json_body::Json<NewWebhookRequest>,
) -> Result<HttpResponse, ApiError> {
    let w = web::block(move || domain.create_webhook(caller.0, body.into_inner())).await??;
    Ok(HttpResponse::Created()
        .insert_header(("Location", format!("/api/v1/me/webhooks/{}", w.id)))
        .json(w))
}

/// The caller's webhooks (without their secrets).
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    responses(
        (status = 200, body = Vec<WebhookResponse>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/webhooks")]
pub async fn list_webhooks(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<web::Json<Vec<WebhookResponse>>, ApiError> {
    Ok(web::Json(
        web::block(move || domain.list_webhooks(caller.0)).await??,
    ))
}

/// Delete one of the caller's webhooks; its pending deliveries are dropped.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        (status = 204, description = "Deleted"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such webhook of the caller's", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/me/webhooks/{id}")]
pub async fn delete_webhook(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    web::block(move || domain.delete_webhook(caller.0, id)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Send a `ping` to one of the caller's webhooks (queued; see its deliveries).
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        (status = 202, description = "Queued", body = WebhookDeliveryResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such webhook of the caller's", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_pings`: one ping per webhook a minute, 20 an hour per account; `Retry-After` says when", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds until a ping would be accepted"))),
    )
)]
#[post("/me/webhooks/{id}/test")]
pub async fn test_webhook(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let d = web::block(move || domain.ping_webhook(caller.0, id)).await??;
    Ok(HttpResponse::Accepted().json(d))
}

/// The newest deliveries (at most 50) of one of the caller's webhooks, newest first.
#[utoipa::path(
    tag = "webhooks",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Webhook id")),
    responses(
        (status = 200, body = Vec<WebhookDeliveryResponse>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such webhook of the caller's", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/webhooks/{id}/deliveries")]
pub async fn webhook_deliveries(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<web::Json<Vec<WebhookDeliveryResponse>>, ApiError> {
    let id = id.into_inner();
    Ok(web::Json(
        web::block(move || domain.webhook_deliveries(caller.0, id)).await??,
    ))
}
