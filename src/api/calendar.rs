//! The calendar feed of the caller's deadlines (see `domain::calendar`).

use actix_web::{HttpResponse, get, post, web};

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::calendar::CalendarFeedResponse;

/// The secret address of the caller's calendar feed (made on first request).
#[utoipa::path(
    tag = "calendar",
    security(("bearer" = [])),
    responses(
        (status = 200, body = CalendarFeedResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/me/calendar")]
pub async fn calendar_feed(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<web::Json<CalendarFeedResponse>, ApiError> {
    Ok(web::Json(
        web::block(move || domain.calendar_feed(caller.0)).await??,
    ))
}

/// A new address for the caller's calendar feed; the old one stops working.
#[utoipa::path(
    tag = "calendar",
    security(("bearer" = [])),
    responses(
        (status = 200, body = CalendarFeedResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/calendar/reset")]
pub async fn reset_calendar_feed(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<web::Json<CalendarFeedResponse>, ApiError> {
    Ok(web::Json(
        web::block(move || domain.reset_calendar_feed(caller.0)).await??,
    ))
}

/// The calendar feed (iCalendar): one event where each clock of the account's runs out.
/// No login: the address from `GET /api/v1/me/calendar` is the authority.
#[utoipa::path(
    tag = "calendar",
    params(("token" = String, Path, description = "The signed token of the feed's address")),
    responses(
        (status = 200, description = "The deadlines", content_type = "text/calendar", body = String),
        (status = 404, description = "`feed_not_found`: the address was altered or replaced", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/calendar/{token}.ics")]
pub async fn calendar_ics(
    domain: web::Data<Domain>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let token = token.into_inner();
    let ics = web::block(move || domain.calendar_ics(&token)).await??;
    Ok(HttpResponse::Ok()
        .content_type("text/calendar; charset=utf-8")
        .insert_header(("Cache-Control", "private, max-age=300"))
        .body(ics))
}
