//! A deadline on every request: its head and body must arrive, and its answer be ready,
//! within `request_timeout_secs`. Without it a client that sends a body one byte a minute
//! holds a connection and a worker for as long as it likes.

use crate::domain::ProblemCode;
use std::time::Duration;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::web;

use super::problem::ApiError;

/// The time allowed per request, as app data.
#[derive(Clone, Copy, Debug)]
pub struct RequestDeadline(pub Duration);

pub async fn enforce(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let limit = req
        .app_data::<web::Data<RequestDeadline>>()
        .map_or(Duration::from_secs(30), |d| d.0);
    // No clone of the request may live across `next.call`: routing needs it unshared. An
    // error returned from here is rendered by its `ResponseError` (problem+json).
    match tokio::time::timeout(limit, next.call(req)).await {
        Ok(res) => res.map(ServiceResponse::map_into_boxed_body),
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            ProblemCode::RequestTimeout,
            format!(
                "the request was not received in full and answered within {} s",
                limit.as_secs()
            ),
        )
        .into()),
    }
}
