//! Game types, games, actions, the log and past views.

use super::json_body;
use crate::domain::ProblemCode;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::auth::{Caller, MaybeCaller};
use super::etag::{self, IfMatch};
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::games::ListQuery;
use crate::domain::shapes::{
    ActionRequest, GameListResponse, GameResponse, GameTypeResponse, LogEntry, NewGameRequest,
    PreviewRequest, PreviewResponse, ViewAtResponse,
};
use crate::domain::{DomainError, DomainResult};
use crate::store::kinds::{GameId, GameStatus};

/// 200 with the game and its ETag (led by its version), or 304 when the caller has this
/// very answer already.
fn with_etag(req: &HttpRequest, game: GameResponse) -> HttpResponse {
    etag::json(req, Some(game.version), etag::PRIVATE, &game)
}

/// A game type's rules as players read them (Markdown), house rules named.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "Game type id, e.g. `kasino`")),
    responses(
        (status = 200, description = "The rules", content_type = "text/markdown", body = String),
        (status = 404, description = "`not_found`: no such game type", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/game-types/{id}/rules")]
pub async fn game_rules(id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let text = crate::games::rules_text(&id).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ProblemCode::NotFound,
            "no such game type",
        )
    })?;
    Ok(HttpResponse::Ok()
        .content_type("text/markdown; charset=utf-8")
        .body(text))
}

/// Every game type this server hosts, with its options and action schemas.
#[utoipa::path(
    tag = "games",
    params(("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, body = Vec<GameTypeResponse>, headers(("ETag" = String, description = "Changes whenever this answer changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
    )
)]
#[get("/game-types")]
pub async fn game_types(domain: web::Data<Domain>, req: HttpRequest) -> HttpResponse {
    etag::json(&req, None, etag::PUBLIC, &domain.game_types())
}

/// One game type: options, action and view schemas, player counts and rules link.
#[utoipa::path(
    tag = "games",
    params(("id" = String, Path, description = "Game type id, e.g. `kasino`"), ("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, body = GameTypeResponse, headers(("ETag" = String, description = "Changes whenever this answer changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
        (status = 404, description = "`not_found`: no such game type", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/game-types/{id}")]
pub async fn game_type(
    domain: web::Data<Domain>,
    req: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    Ok(etag::json(
        &req,
        None,
        etag::PUBLIC,
        &domain.game_type(&id)?,
    ))
}

/// Open a new game; the creator takes seat 0. It starts when the last seat is taken.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    request_body = NewGameRequest,
    responses(
        (status = 201, body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`email_unconfirmed`: invitations come only from accounts that confirmed their address (when the server requires confirmation)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`too_many_active_games`: the caller holds seats in as many unfinished games as the server allows (`limit`)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`unknown_game_type`, `invalid_player_count`, `invalid_options`, `too_many_invitees`, `invalid_email`, `duplicate_invitee`, `cannot_invite_yourself`, `invalid_bots`, `invalid_requirement`", body = Problem, content_type = "application/problem+json"),
        (status = 429, description = "`too_many_invitations` (20 a day per account), `invitee_invited_enough` (3 a day per address), `invitee_not_answering` (the address let your last invitation go unanswered); `Retry-After` says when", body = Problem, content_type = "application/problem+json", headers(("Retry-After" = u64, description = "Seconds until the invitation would be accepted"))),
    )
)]
#[post("/games")]
pub async fn create_game(
    domain: web::Data<Domain>,
    caller: Caller,
    body: json_body::Json<NewGameRequest>,
) -> Result<HttpResponse, ApiError> {
    let g = web::block(move || domain.create_game(caller.0, body.into_inner())).await??;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.id)))
        .insert_header((header::ETAG, format!("\"{}\"", g.version)))
        .json(g))
}

#[derive(Clone, Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct ListParams {
    /// `true`: the lobby, every open game anyone can join. Otherwise the caller's own games.
    /// (Private games and those whose free seats are all kept for invitees are never
    /// listed.)
    pub open: Option<bool>,
    /// Only the caller's games in this state: `open` (waiting for players), `active` or
    /// `finished`.
    #[param(inline)]
    pub status: Option<GameStatus>,
    /// `me`: only games waiting for the caller.
    #[param(inline)]
    pub awaiting: Option<AwaitingParam>,
    /// 1-based page number, at most 1,000,000.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<i64>,
    /// Items per page, 1 to 100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub per_page: Option<i64>,
    /// Only games of this type (an id of `/game-types`); unknown: `422 invalid_filter`.
    #[param(value_type = Option<String>)]
    pub game_type: Option<String>,
    /// Only games with this many seats, 1 to 16.
    #[param(value_type = Option<i64>, minimum = 1, maximum = 16)]
    pub players: Option<String>,
    /// `true`: only games with a clock; `false`: only games without one.
    #[param(value_type = Option<bool>)]
    pub clock: Option<String>,
    /// Only games whose creator's rating in the game's type (1500 when unrated) is at least
    /// this, 0 to 4000.
    #[param(value_type = Option<i64>, minimum = 0, maximum = 4000)]
    pub min_rating: Option<String>,
    /// Only games whose creator's rating in the game's type is at most this, 0 to 4000.
    #[param(value_type = Option<i64>, minimum = 0, maximum = 4000)]
    pub max_rating: Option<String>,
}

const MAX_PAGE: i64 = 1_000_000;

/// The lobby filters of a list, kept for its `next` link.
struct Filters {
    game_type: Option<String>,
    players: Option<i32>,
    clock: Option<bool>,
    rating: Option<(i32, i32)>,
}

#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AwaitingParam {
    Me,
}

fn bad_filter(detail: String) -> DomainError {
    DomainError::invalid(ProblemCode::InvalidFilter, detail)
}

/// A whole number in `range`, or `422 invalid_filter` naming `name`.
fn int_filter(
    name: &str,
    value: Option<&str>,
    range: std::ops::RangeInclusive<i32>,
) -> DomainResult<Option<i32>> {
    let Some(v) = value else { return Ok(None) };
    match v.trim().parse::<i32>() {
        Ok(n) if range.contains(&n) => Ok(Some(n)),
        _ => Err(bad_filter(format!(
            "{name} must be a whole number from {} to {}, not {v:?}",
            range.start(),
            range.end()
        ))),
    }
}

/// The lobby filters of `p`, checked (`known` says which game types exist).
fn parse_filters(
    p: &ListParams,
    known: impl Fn(&str) -> bool,
    q: &mut ListQuery,
) -> DomainResult<()> {
    if let Some(t) = &p.game_type {
        if !known(t) {
            return Err(bad_filter(format!(
                "no game type {t:?}; see GET /api/v1/game-types"
            )));
        }
        q.game_type = Some(t.clone());
    }
    q.players = int_filter("players", p.players.as_deref(), 1..=16)?;
    q.clock = match p.clock.as_deref() {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(v) => {
            return Err(bad_filter(format!(
                "clock must be true or false, not {v:?}"
            )));
        }
    };
    let lo = int_filter("min_rating", p.min_rating.as_deref(), 0..=4000)?;
    let hi = int_filter("max_rating", p.max_rating.as_deref(), 0..=4000)?;
    q.rating = match (lo, hi) {
        (None, None) => None,
        (lo, hi) => {
            // `min_rating` above `max_rating` is an empty range: nothing is listed.
            Some((lo.unwrap_or(0), hi.unwrap_or(4000)))
        }
    };
    Ok(())
}

fn parse_list(p: ListParams) -> DomainResult<ListQuery> {
    let status = p.status;
    let awaiting_me = p.awaiting.is_some();
    let lobby = p.open == Some(true);
    let page = p.page.unwrap_or(1);
    let per_page = p.per_page.unwrap_or(20);
    // Bounded so that the row offset, (page - 1) × per_page, can never overflow.
    if !(1..=MAX_PAGE).contains(&page) || !(1..=100).contains(&per_page) {
        return Err(DomainError::invalid(
            ProblemCode::InvalidQuery,
            format!("page must be 1 to {MAX_PAGE} and per_page 1 to 100"),
        ));
    }
    Ok(ListQuery {
        status,
        lobby,
        awaiting_me,
        page,
        per_page,
        game_type: None,
        players: None,
        clock: None,
        rating: None,
    })
}

/// The caller's games (or, with `open=true`, the lobby of open games), most recently
/// changed first. `next` and a `Link: <…>; rel="next"` header point at the next page.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(ListParams, ("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, body = GameListResponse, headers(("Link" = String, description = "`<next page>; rel=\"next\"` while there are more")), headers(("ETag" = String, description = "Changes whenever this answer changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
        (status = 400, body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`invalid_filter`: an unknown game type, or a malformed or out-of-range `players`, `clock`, `min_rating` or `max_rating`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games")]
pub async fn list_games(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
    params: web::Query<ListParams>,
) -> Result<HttpResponse, ApiError> {
    let params = params.into_inner();
    // Out of range is `invalid_query`, a 400 like an unknown parameter (its page's status).
    let mut q = parse_list(params.clone())?;
    let registry = domain.registry.clone();
    parse_filters(&params, |t| registry.get(t).is_some(), &mut q)?;
    let q_filters = Filters {
        game_type: q.game_type.clone(),
        players: q.players,
        clock: q.clock,
        rating: q.rating,
    };
    let mut list = web::block(move || domain.list_games(caller.0, q)).await??;
    let mut link = None;
    if list.page.saturating_mul(list.per_page) < list.total {
        let mut query = vec![
            format!("page={}", list.page + 1),
            format!("per_page={}", list.per_page),
        ];
        if let Some(open) = params.open {
            query.push(format!("open={open}"));
        }
        if let Some(s) = params.status {
            query.push(format!("status={}", s.as_str()));
        }
        if params.awaiting.is_some() {
            query.push("awaiting=me".into());
        }
        // The filters, as checked (so each is a plain word or number).
        if let Some(t) = &q_filters.game_type {
            query.push(format!("game_type={t}"));
        }
        if let Some(n) = q_filters.players {
            query.push(format!("players={n}"));
        }
        if let Some(c) = q_filters.clock {
            query.push(format!("clock={c}"));
        }
        if let Some((lo, hi)) = q_filters.rating {
            query.push(format!("min_rating={lo}&max_rating={hi}"));
        }
        let next = format!("/api/v1/games?{}", query.join("&"));
        link = Some(format!("<{next}>; rel=\"next\""));
        list.next = Some(next);
    }
    let mut resp = etag::json(&req, None, etag::PRIVATE, &list);
    if let Some(link) = link
        && let Ok(value) = header::HeaderValue::from_str(&link)
    {
        resp.headers_mut().insert(header::LINK, value);
    }
    Ok(resp)
}

/// One game as the caller sees it: view, legal actions, result. Send the `ETag` back as
/// `If-None-Match` to get `304` while nothing changed. Without a token, or with one whose
/// account has no seat, a public game is shown as to a spectator (no private information,
/// no legal actions); a private game is `404` to all but its seats and invitees.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), ("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, body = GameResponse, headers(("ETag" = String, description = "`\"<version>-<digest>\"`: changes whenever this answer changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
        (status = 304, description = "Not modified: the `If-None-Match` tag is current"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or a private one the caller may not see", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}")]
pub async fn get_game(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: MaybeCaller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.get_game(caller.0, id)).await??;
    Ok(with_etag(&req, g))
}

/// Take the next free seat (or, for an invitee, the seat kept for them). The game starts
/// when the last seat is taken.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`join_requirement_not_met`: the caller's reliability share or rating is below what the creator asks (`min_reliability`, `min_rating`)", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_open`, `already_joined`, `seats_reserved` (every free seat is kept for an invitee), `too_many_active_games` (the caller holds seats in as many unfinished games as the server allows)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/join")]
pub async fn join_game(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.join_game(caller.0, id)).await??;
    Ok(with_etag(&req, g))
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
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    web::block(move || domain.leave_game(caller.0, id)).await??;
    Ok(HttpResponse::NoContent().finish())
}

/// Submit an action chosen on `expected_version` (or on the version of the ETag given as
/// `If-Match`).
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), ("If-Match" = Option<String>, Header, nullable = false, pattern = r#"^\s*(\*|(W/)?"-?[0-9]{1,18}-[^",]*"(\s*,\s*(W/)?"-?[0-9]{1,18}-[^",]*")*)\s*$"#, description = "The game's ETag as `GET /games/{id}` sent it (strong comparison: a weak tag fails with `412`), several with `expected_version` saying which, or `*`; stands for `expected_version` when that is absent")),
    request_body = ActionRequest,
    responses(
        (status = 200, description = "Applied; the game as the caller now sees it", body = GameResponse),
        (status = 400, body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`stale_version` (with `current_version`), `not_your_turn`, `game_not_active`, `illegal_action` (with the game's `rule_code`): the action is not legal in the current position", body = Problem, content_type = "application/problem+json"),
        (status = 412, description = "`stale_version` when `If-Match` named an older version, or held only weak tags", body = Problem, content_type = "application/problem+json"),
        (status = 428, description = "`version_required`: neither `expected_version` nor `If-Match`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`malformed_action`: not an action of this game's type", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/actions")]
pub async fn submit_action(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<GameId>,
    body: json_body::Json<ActionRequest>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let mut body = body.into_inner();
    let if_match = etag::if_match(&req).map_err(|e| *e)?;
    let conflicting = || {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            ProblemCode::InvalidIfMatch,
            "If-Match and expected_version name different versions",
        )
    };
    match (&if_match, body.expected_version) {
        // Several tags: the body says which one the move was chosen on.
        (IfMatch::Versions(vs), Some(e)) if !vs.contains(&e) => return Err(conflicting()),
        (IfMatch::Versions(vs), None) if vs.len() == 1 => {
            body.expected_version = vs.first().copied()
        }
        // Several tags hold when the current one is among them (RFC 9110 §13.1.1): the
        // move is then tried on the current version, which the write checks again, so a
        // move made meanwhile still fails it with 412.
        (IfMatch::Versions(vs), None) => {
            let reader = domain.clone();
            let current = web::block(move || reader.get_game(Some(caller.0), id))
                .await??
                .version;
            let newest = vs.last().copied();
            body.expected_version = if vs.contains(&current) {
                Some(current)
            } else {
                newest
            };
        }
        (IfMatch::Absent | IfMatch::Any, None) => {
            return Err(ApiError::new(
                StatusCode::PRECONDITION_REQUIRED,
                ProblemCode::VersionRequired,
                "say which version the action was chosen on: expected_version, or If-Match with the game's ETag",
            ));
        }
        _ => {}
    }
    let if_match = matches!(if_match, IfMatch::Versions(_));
    let g = web::block(move || domain.submit_action(caller.0, id, body))
        .await?
        .map_err(|e| {
            let mut e = ApiError::from(e);
            // With If-Match, a moved-on game is a failed precondition (RFC 9110).
            if if_match && e.code == ProblemCode::StaleVersion {
                e.status = StatusCode::PRECONDITION_FAILED;
            }
            e
        })?;
    Ok(with_etag(&req, g))
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct LogParams {
    /// Only entries with `seq` greater than this (default 0).
    #[param(minimum = 0)]
    pub after: Option<i64>,
    /// At most this many entries, 1 to 1000 (default 200).
    #[param(minimum = 1, maximum = 1000)]
    pub limit: Option<i64>,
}

/// The action log, each entry as the caller may see it.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), LogParams, ("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, body = Vec<LogEntry>, headers(("ETag" = String, description = "Changes whenever this answer changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 400, description = "`invalid_query`: `after` below 0 or `limit` outside 1 to 1000", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or a private one the caller may not see", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/log")]
pub async fn game_log(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: MaybeCaller,
    id: web::Path<GameId>,
    params: web::Query<LogParams>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let after = params.after.unwrap_or(0);
    let limit = params.limit.unwrap_or(200);
    if after < 0 || !(1..=1000).contains(&limit) {
        return Err(DomainError::invalid(
            ProblemCode::InvalidQuery,
            "after must be ≥ 0 and limit 1 to 1000",
        )
        .into());
    }
    let log = web::block(move || domain.game_log(caller.0, id, after, limit)).await??;
    Ok(etag::json(&req, None, etag::PRIVATE, &log))
}

/// The caller's view of the game as it was at `version`.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), ("version" = i64, Path, description = "0 is the start"), ("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, body = ViewAtResponse, headers(("ETag" = String, description = "Changes whenever this answer changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or a private one the caller may not see", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active` (not started)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/views/{version}")]
pub async fn view_at(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: MaybeCaller,
    path: web::Path<(GameId, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, version) = path.into_inner();
    let v = web::block(move || domain.view_at(caller.0, id, version)).await??;
    Ok(etag::json(&req, Some(version), etag::PRIVATE, &v))
}

/// What an action would do, without playing it: the caller's view and picture after it,
/// or the same problem a real submission would get. Hidden information (the next tile, a
/// die) is drawn afresh, so a preview foretells nothing. Nothing is stored.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    request_body = PreviewRequest,
    responses(
        (status = 200, body = PreviewResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`not_your_turn`, `game_not_active`, `illegal_action` (with the game's `rule_code`): the action is not legal in the current position", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`malformed_action`: not an action of this game's type", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/preview")]
pub async fn preview_action(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
    body: json_body::Json<PreviewRequest>,
) -> Result<web::Json<PreviewResponse>, ApiError> {
    let id = id.into_inner();
    let req = body.into_inner();
    let p = web::block(move || domain.preview_action(caller.0, id, req)).await??;
    Ok(web::Json(p))
}

/// Which version of the board to draw; the current one when absent.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct BoardQuery {
    /// A past version (0 is the start).
    #[param(minimum = 0)]
    pub version: Option<i64>,
}

/// The board as the caller sees it, drawn as SVG (600 px wide, with a title and a
/// description for screen readers). Spectators get the public picture.
#[utoipa::path(
    tag = "games",
    security((), ("bearer" = [])),
    params(("id" = i64, Path, description = "Game id"), BoardQuery, ("If-None-Match" = Option<String>, Header, nullable = false, description = "ETags the client holds (`*` for any): `304` while the answer is one of them (weak comparison)")),
    responses(
        (status = 200, description = "The picture", content_type = "image/svg+xml", body = String, headers(("ETag" = String, description = "Changes whenever the picture changes"))),
        (status = 304, description = "Not modified: an `If-None-Match` tag is current"),
        (status = 304, description = "Not modified: the `If-None-Match` tag is current"),
        (status = 400, body = Problem, content_type = "application/problem+json"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`: no such game, or a private one the caller may not see", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active` (not started)", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/board.svg")]
pub async fn board_svg(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: MaybeCaller,
    id: web::Path<GameId>,
    query: web::Query<BoardQuery>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let version = query.into_inner().version;
    let (at, svg) = web::block(move || domain.board_svg(caller.0, id, version)).await??;
    Ok(etag::respond(
        &req,
        etag::tag(Some(at), svg.as_bytes()),
        "image/svg+xml; charset=utf-8",
        etag::PRIVATE,
        svg.into_bytes(),
    ))
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
    req: HttpRequest,
    caller: Caller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.resign(caller.0, id)).await??;
    Ok(with_etag(&req, g))
}

/// Play a finished game again: the same players, the seats rotated by one (another player
/// starts), the same options, clock and timeout policy. The new game starts at once. Any
/// player may ask; asking again (by anyone) answers the same new game, and the old game's
/// `rematch` names it.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "The finished game's id")),
    responses(
        (status = 201, description = "The new game, just made", body = GameResponse, headers(("Location" = String, description = "The new game"))),
        (status = 200, description = "The rematch someone asked for before", body = GameResponse, headers(("Location" = String, description = "The new game"))),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_finished`, `rematch_options_invalid`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/rematch")]
pub async fn rematch(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let (g, created) = web::block(move || domain.rematch(caller.0, id)).await??;
    let mut resp = if created {
        HttpResponse::Created()
    } else {
        HttpResponse::Ok()
    };
    Ok(resp
        .insert_header((header::LOCATION, format!("/api/v1/games/{}", g.id)))
        .insert_header((header::ETAG, format!("\"{}\"", g.version)))
        .json(g))
}

/// Take one's seat back from the computer, which took it over when the seat's time ran out
/// (timeout policy `bot`).
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game, the seat played by its player again", body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `seat_not_with_bot`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/resume")]
pub async fn resume(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.resume_seat(caller.0, id)).await??;
    Ok(with_etag(&req, g))
}

/// Ask to take back your last move: your last action of your own choosing, with the moves
/// that played themselves after it (forced moves, the computer's). The other players still
/// playing must agree (`takeback.waiting_for`); against the computer it is done at once.
/// Refused when someone else has chosen a move since, or when the moves showed anyone
/// something hidden (a card, a tile, a secret choice) or a random outcome (a die, a draw).
/// A takeback is an entry of the log of its own; the entries it undid stay, with
/// `undone_by`. Any move lets a pending request lapse.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, description = "The game: the request pending in `takeback`, or the move already taken back", body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `already_forfeited`, `takeback_pending`, `nothing_to_take_back`, `takeback_too_late`, `takeback_reveals`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/takeback")]
pub async fn ask_takeback(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let g = web::block(move || domain.ask_takeback(caller.0, id)).await??;
    Ok(with_etag(&req, g))
}

/// How a player answers a takeback request.
#[derive(Clone, Copy, Debug, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum TakebackAnswer {
    Accept,
    Decline,
}

/// Answer the pending takeback: `accept`, or `decline` (the player who asked withdraws it
/// this way). When the last player asked accepts, the move is taken back: the game
/// returns to `takeback.to_version`'s position (at a new version). A decline leaves the
/// game as it is, and the player who asked is told by email.
#[utoipa::path(
    tag = "games",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Game id"),
        ("answer" = inline(TakebackAnswer), Path, description = "`accept` or `decline`"),
    ),
    responses(
        (status = 200, description = "The game after the answer", body = GameResponse),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`, `not_asked`", body = Problem, content_type = "application/problem+json"),
        (status = 404, body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`game_not_active`, `no_takeback_pending`, `own_takeback`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/games/{id}/takeback/{answer}")]
pub async fn answer_takeback(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: Caller,
    path: web::Path<(GameId, TakebackAnswer)>,
) -> Result<HttpResponse, ApiError> {
    let (id, answer) = path.into_inner();
    let accept = matches!(answer, TakebackAnswer::Accept);
    let g = web::block(move || domain.answer_takeback(caller.0, id, accept)).await??;
    Ok(with_etag(&req, g))
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
    id: web::Path<GameId>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    web::block(move || domain.nudge(caller.0, id)).await??;
    Ok(HttpResponse::Accepted().finish())
}
