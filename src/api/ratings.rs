//! Ratings: an account's ratings and history, a game type's leaderboard. Both are public,
//! like a club's notice board: names and numbers, never an email address.

use crate::domain::ProblemCode;
use actix_web::http::{StatusCode, header};
use actix_web::{HttpResponse, get, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::auth::MaybeCaller;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::ratings::{AccountRatingsResponse, LeaderboardResponse, Page};
use crate::store::kinds::AccountId;

/// Bounded so that the row offset, (page - 1) × per_page, can never overflow.
const MAX_PAGE: i64 = 1_000_000;

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct PageParams {
    /// 1-based page number, at most 1,000,000.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub per_page: Option<i64>,
}

impl PageParams {
    /// The page asked for, or `400 invalid_query` when out of range.
    fn parse(&self) -> Result<Page, Box<ApiError>> {
        let page = self.page.unwrap_or(1);
        let per_page = self.per_page.unwrap_or(20);
        if !(1..=MAX_PAGE).contains(&page) || !(1..=100).contains(&per_page) {
            return Err(Box::new(ApiError::new(
                StatusCode::BAD_REQUEST,
                ProblemCode::InvalidQuery,
                format!("page must be 1 to {MAX_PAGE} and per_page 1 to 100"),
            )));
        }
        Ok(Page { page, per_page })
    }
}

/// With a `Link: <next>; rel="next"` header while there are more.
fn paged(next: Option<&str>) -> actix_web::HttpResponseBuilder {
    let mut resp = HttpResponse::Ok();
    if let Some(next) = next {
        resp.insert_header((header::LINK, format!("<{next}>; rel=\"next\"")));
    }
    resp
}

/// An account's Glicko-2 rating in each game type it has played rated games of, and its
/// rating history (one entry per rated game, newest first), paged. Public; a private game
/// is listed only to its own players (send their bearer token).
#[utoipa::path(
    tag = "ratings",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Account id"), PageParams),
    responses(
        (status = 200, body = AccountRatingsResponse, headers(("Link" = String, description = "`<next page>; rel=\"next\"` while there are more"))),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such account", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/accounts/{id}/ratings")]
pub async fn account_ratings(
    domain: web::Data<Domain>,
    caller: MaybeCaller,
    id: web::Path<AccountId>,
    params: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    let page = params.parse().map_err(|e| *e)?;
    let id = id.into_inner();
    let answer = web::block(move || domain.account_ratings(id, caller.0, page)).await??;
    Ok(paged(answer.next.as_deref()).json(answer))
}

/// A game type's leaderboard: every rated account, highest rating first (ties by account
/// id), with games played; fewer than five games marks a rating `provisional`. Public.
#[utoipa::path(
    tag = "ratings",
    params(("id" = String, Path, description = "Game type id, e.g. `kasino`"), PageParams),
    responses(
        (status = 200, body = LeaderboardResponse, headers(("Link" = String, description = "`<next page>; rel=\"next\"` while there are more"))),
        (status = 400, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: no such game type", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/game-types/{id}/leaderboard")]
pub async fn leaderboard(
    domain: web::Data<Domain>,
    id: web::Path<String>,
    params: web::Query<PageParams>,
) -> Result<HttpResponse, ApiError> {
    let page = params.parse().map_err(|e| *e)?;
    let id = id.into_inner();
    let answer = web::block(move || domain.leaderboard(&id, page)).await??;
    Ok(paged(answer.next.as_deref()).json(answer))
}
