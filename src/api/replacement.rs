//! A replacement for an abandoned seat: thin handlers over `domain::replacement`.

use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};

use super::auth::{Caller, MaybeCaller};
use super::etag;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::replacement::{SeatOfferList, SeatReplacement};
use crate::domain::shapes::GameResponse;
use crate::store::kinds::GameId;

/// Offer a seat that gave up (resigned, forfeited on time, or whose account was deleted)
/// in a game of three or more, which the computer plays on, to a replacement in the lobby
/// (`GET /seat-offers`). Any player still in the game may offer it.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Game id"),
        ("seat" = i32, Path, minimum = 0, description = "The seat given up (from 0)"),
    ),
    responses(
        (status = 201, description = "Offered in the lobby", body = SeatReplacement),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, or no such seat", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `already_forfeited` (the caller gave up their own seat), `seat_not_abandoned`, `seat_already_offered`, `seat_already_replaced`, `seat_offer_private`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/seats/{seat}/offer")]
pub async fn offer_seat(
    domain: web::Data<Domain>,
    caller: Caller,
    path: web::Path<(GameId, i32)>,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let offer = web::block(move || domain.offer_seat(caller.0, id, seat)).await??;
    Ok(HttpResponse::Created().json(offer))
}

/// Withdraw the offer of a seat not yet taken. Any player still in the game may.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Game id"),
        ("seat" = i32, Path, minimum = 0, description = "The seat offered (from 0)"),
    ),
    responses(
        (status = 204, description = "Withdrawn"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, or no such seat", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `already_forfeited`, `seat_not_offered`, `seat_already_replaced`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/games/{id}/seats/{seat}/offer")]
pub async fn withdraw_seat_offer(
    domain: web::Data<Domain>,
    caller: Caller,
    path: web::Path<(GameId, i32)>,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    web::block(move || domain.withdraw_seat_offer(caller.0, id, seat)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Take an offered seat over: the caller plays it on from its position, with its view
/// only, and the computer stops playing it; turn emails go to the caller from now on. The
/// account that left the seat keeps the loss; the caller is not rated for this game. Of
/// several asking at once, exactly one gets the seat (the others: `seat_already_replaced`).
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Game id"),
        ("seat" = i32, Path, minimum = 0, description = "The seat offered (from 0)"),
    ),
    responses(
        (status = 200, description = "The game, as the seat's new player sees it", body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`join_requirement_not_met`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, or no such seat", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `seat_not_offered`, `seat_already_replaced`, `leaver_cannot_take`, `already_joined`, `seat_not_abandoned`, `too_many_active_games`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/seats/{seat}/take")]
pub async fn take_seat(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
    path: web::Path<(GameId, i32)>,
) -> Result<HttpResponse, ApiError> {
    let (id, seat) = path.into_inner();
    let g = web::block(move || domain.take_seat(caller.0, id, seat)).await??;
    Ok(etag::json(&req, Some(g.version), etag::PRIVATE, &g))
}

/// The game's seat offers (while it is played) and hand-overs: who left which seat, who
/// took it over and at which version. The game's history shows each hand-over beside its
/// log (the log itself holds only the game's moves, so it replays unchanged).
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, body = Vec<SeatReplacement>),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/replacements")]
pub async fn game_replacements(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: MaybeCaller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let list = web::block(move || domain.game_replacements(caller.0, id)).await??;
    Ok(etag::json(&req, None, etag::PRIVATE, &list))
}

/// The lobby's seats to take over: seats offered in public games in play that the caller
/// has no seat in, newest offer first (at most 100).
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    responses(
        (status = 200, body = SeatOfferList),
        (status = 401, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/seat-offers")]
pub async fn seat_offers(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    let list = web::block(move || domain.seat_offers(caller.0)).await??;
    Ok(etag::json(&req, None, etag::PRIVATE, &list))
}
