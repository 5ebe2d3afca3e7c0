//! Game types, games, actions, the log and past views.

use actix_web::http::header;
use actix_web::{HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::IntoParams;

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::games::{ListQuery, ListStatus};
use crate::domain::shapes::{
    ActionRequest, GameListResponse, GameResponse, GameTypeResponse, LogEntry, NewGameRequest,
    ViewAtResponse,
};
use crate::domain::{DomainError, DomainResult};

fn with_etag(game: GameResponse) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::ETAG, format!("\"{}\"", game.version)))
        .json(game)
}

/// Every game type this server hosts, with its options and action schemas.
#[utoipa::path(tag = "games", responses((status = 200, body = Vec<GameTypeResponse>)))]
#[get("/game-types")]
pub async fn game_types(domain: web::Data<Domain>) -> web::Json<Vec<GameTypeResponse>> {
    web::Json(domain.game_types())
}

/// Open a new game; the creator takes seat 0. It starts when the last seat is taken.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body = NewGameRequest,
    responses(
        (status = 201, body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_type`, `invalid_player_count`, `invalid_options`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games")]
pub async fn create_game(
    domain: web::Data<Domain>,
    caller: Caller,
    body: web::Json<NewGameRequest>,
) -> Result<HttpResponse, ApiError> {
    let g = web::block(move || domain.create_game(caller.0, body.into_inner())).await??;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.id)))
        .insert_header((header::ETAG, format!("\"{}\"", g.version)))
        .json(g))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// `open` (games to join), `active` or `finished` (the caller's).
    pub status: Option<String>,
    /// `me`: only games waiting for the caller.
    pub awaiting: Option<String>,
    /// 1-based page number, at most 1,000,000.
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    pub per_page: Option<i64>,
}

const MAX_PAGE: i64 = 1_000_000;

fn parse_list(p: ListParams) -> DomainResult<ListQuery> {
    let status = p.status.as_deref().map(ListStatus::parse).transpose()?;
    let awaiting_me = match p.awaiting.as_deref() {
        None => false,
        Some("me") => true,
        Some(other) => {
            return Err(DomainError::invalid(
                "invalid_query",
                format!("awaiting must be \"me\", not {other:?}"),
            ));
        }
    };
    let page = p.page.unwrap_or(1);
    let per_page = p.per_page.unwrap_or(20);
    // Bounded so that the row offset, (page - 1) × per_page, can never overflow.
    if !(1..=MAX_PAGE).contains(&page) || !(1..=100).contains(&per_page) {
        return Err(DomainError::invalid(
            "invalid_query",
            format!("page must be 1 to {MAX_PAGE} and per_page 1 to 100"),
        ));
    }
    Ok(ListQuery {
        status,
        awaiting_me,
        page,
        per_page,
    })
}

/// The caller's games and open games to join, most recently changed first.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(ListParams),
    responses(
        (status = 200, body = GameListResponse),
        (status = 400, body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_query`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games")]
pub async fn list_games(
    domain: web::Data<Domain>,
    caller: Caller,
    params: web::Query<ListParams>,
) -> Result<web::Json<GameListResponse>, ApiError> {
    let q = parse_list(params.into_inner())?;
    let list = web::block(move || domain.list_games(caller.0, q)).await??;
    Ok(web::Json(list))
}

/// One game as the caller sees it: view, legal actions, result. `ETag` is the version.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, body = GameResponse, headers(("ETag" = String, description = "The game version"))),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}")]
pub async fn get_game(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.get_game(caller.0, id)).await??;
    Ok(with_etag(g))
}

/// Take the next free seat. The game starts when the last seat is taken.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open`, `already_joined`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/join")]
pub async fn join_game(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.join_game(caller.0, id)).await??;
    Ok(with_etag(g))
}

/// Give up one's seat in a game that has not started.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 204, description = "Left"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/leave")]
pub async fn leave_game(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    web::block(move || domain.leave_game(caller.0, id)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Submit an action chosen on `expected_version`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    request_body = ActionRequest,
    responses(
        (status = 200, description = "Applied; the game as the caller now sees it", body = GameResponse),
        (status = 400, body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`stale_version` (with `current_version`), `not_your_turn`, `game_not_active`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`illegal_action` (with the game's `rule_code`), `malformed_action`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/actions")]
pub async fn submit_action(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
    body: web::Json<ActionRequest>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.submit_action(caller.0, id, body.into_inner())).await??;
    Ok(with_etag(g))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LogParams {
    /// Only entries with `seq` greater than this (default 0).
    pub after: Option<i64>,
    /// At most this many entries, 1 to 1000 (default 200).
    pub limit: Option<i64>,
}

/// The action log, each entry as the caller may see it.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), LogParams),
    responses(
        (status = 200, body = Vec<LogEntry>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 422, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/log")]
pub async fn game_log(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
    params: web::Query<LogParams>,
) -> Result<web::Json<Vec<LogEntry>>, ApiError> {
    let id = id.into_inner();
    let after = params.after.unwrap_or(0);
    let limit = params.limit.unwrap_or(200);
    if after < 0 || !(1..=1000).contains(&limit) {
        return Err(
            DomainError::invalid("invalid_query", "after must be ≥ 0 and limit 1 to 1000").into(),
        );
    }
    let log = web::block(move || domain.game_log(caller.0, id, after, limit)).await??;
    Ok(web::Json(log))
}

/// The caller's view of the game as it was at `version`.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), ("version" = i64, Path, description = "0 is the start")),
    responses(
        (status = 200, body = ViewAtResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active` (not started)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/views/{version}")]
pub async fn view_at(
    domain: web::Data<Domain>,
    caller: Caller,
    path: web::Path<(i64, i64)>,
) -> Result<web::Json<ViewAtResponse>, ApiError> {
    let (id, version) = path.into_inner();
    let v = web::block(move || domain.view_at(caller.0, id, version)).await??;
    Ok(web::Json(v))
}

/// Give up the game: the caller's seat ranks last. With one other player left the game
/// ends; with more, a bot plays the seat's moves (marked `[bot]` in the log).
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game after the resignation", body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `already_forfeited`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/resign")]
pub async fn resign(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.resign(caller.0, id)).await??;
    Ok(with_etag(g))
}

/// Remind the players the game waits for, by email. Only when it is someone else's move,
/// and once per 24 hours per game.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 202, description = "The reminder is queued"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`your_move`, `nudge_too_soon` (with `next_nudge_at`), `game_not_active`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/nudge")]
pub async fn nudge(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<i64>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    web::block(move || domain.nudge(caller.0, id)).await??;
    Ok(HttpResponse::Accepted().finish())
}
