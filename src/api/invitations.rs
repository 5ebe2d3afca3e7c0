//! Invitations by email: the page an invitation link opens (accept or decline, making an
//! account on the way when the invitee has none), the same as an API for programs, and
//! the creator's list of a game's invitations.
//!
//! Accept and decline take a JSON body (programs) or the page's form
//! (`application/x-www-form-urlencoded`), answered in kind: JSON, or a page.

use crate::domain::ProblemCode;
use actix_web::http::StatusCode;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, delete, get, post, web};
use html_escape::{encode_double_quoted_attribute as attr, encode_text as esc};
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;

use super::auth::{Caller, MaybeCaller};
use super::email_links::page;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::invitations::{AcceptInvitationRequest, AcceptedInvitation, InvitationResponse};
use crate::store::kinds::GameId;

/// Whether the body came from the page's form (then the answer is a page too).
pub(super) fn is_form(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        })
}

/// The body of accept: empty, JSON, or the page's form.
fn accept_body(req: &HttpRequest, body: &[u8]) -> Result<AcceptInvitationRequest, Box<ApiError>> {
    let bad =
        |status, code: ProblemCode, detail: String| Box::new(ApiError::new(status, code, detail));
    if is_form(req) {
        let text = std::str::from_utf8(body).map_err(|_| {
            bad(
                StatusCode::UNPROCESSABLE_ENTITY,
                ProblemCode::InvalidBody,
                "the form is not UTF-8".into(),
            )
        })?;
        return web::Query::<AcceptInvitationRequest>::from_query(text)
            .map(web::Query::into_inner)
            .map_err(|e| {
                bad(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    ProblemCode::InvalidBody,
                    e.to_string(),
                )
            });
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(AcceptInvitationRequest::default());
    }
    serde_json::from_slice(body).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => bad(
            StatusCode::UNPROCESSABLE_ENTITY,
            ProblemCode::InvalidBody,
            e.to_string(),
        ),
        _ => bad(
            StatusCode::BAD_REQUEST,
            ProblemCode::InvalidJson,
            e.to_string(),
        ),
    })
}

fn button(label: &str, style: &str) -> String {
    format!(
        "<button type=\"submit\" style=\"font-size:16px;padding:10px 18px;border:none;\
         border-radius:6px;{style}\">{}</button>",
        esc(label)
    )
}

const PRIMARY: &str = "background:#2f6f4f;color:#fff";
const SECONDARY: &str = "background:#e4e1d6;color:#1f1f1f";
const FIELD: &str = "display:block;margin:6px 0 14px;font-size:16px;padding:8px;width:100%;\
                     max-width:360px;box-sizing:border-box";

/// The invitation page: what the game is, and buttons to accept or decline. Someone without
/// an account gives a name and a password to make one while accepting.
#[utoipa::path(
    tag = "invitations",
    params(("token" = String, Path, description = "The token of the invitation link")),
    responses(
        (status = 200, description = "A page with the invitation and its two buttons (POSTs to `/accept` and `/decline`)", content_type = "text/html", body = String),
        (status = 403, description = "`invalid_link`: no such invitation (altered or made up)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`invitation_closed` (answered or cancelled already), `invitation_expired`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/invitations/{token}")]
pub async fn invitation_page(
    domain: web::Data<Domain>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    let check = t.clone();
    let info = web::block(move || domain.invitation_info(&check)).await??;
    let base = format!("/api/v1/invitations/{t}");
    let accept = if info.account_name.is_some() && !info.account_confirmed {
        // Whoever made that account may not own the address: the link alone does not
        // seat it (409 sign_in_required).
        "<p>An account with this address has not confirmed it yet. Confirm the address with the link Turnpost emailed to it, then open this invitation again.</p>"
            .to_string()
    } else if let Some(name) = &info.account_name {
        format!(
            "<form method=\"post\" action=\"{}/accept\" style=\"margin:0 0 12px\">{}</form>",
            attr(&base),
            button(&format!("Accept and play as {name}"), PRIMARY)
        )
    } else {
        format!(
            "<p>You have no Turnpost account under this address yet: choose a name and a \
             password, and it is made as you accept (your address counts as confirmed).</p>\
             <form method=\"post\" action=\"{}/accept\" style=\"margin:0 0 12px\">\
             <label>Your name<input name=\"name\" required maxlength=\"80\" autocomplete=\"name\" style=\"{FIELD}\"></label>\
             <label>Password (at least 10 characters and hard to guess: a few words do well)<input name=\"password\" type=\"password\" required minlength=\"10\" maxlength=\"1024\" autocomplete=\"new-password\" style=\"{FIELD}\"></label>\
             {}</form>",
            attr(&base),
            button("Make my account and accept", PRIMARY)
        )
    };
    let body = format!(
        "<p>{} has opened {} #{} for {} players ({} seated) and keeps a seat for you. \
         This invitation went to {} and is open until {}.</p>{accept}\
         <form method=\"post\" action=\"{}/decline\">{}</form>",
        esc(&info.inviter),
        esc(&info.game_name),
        info.game_id,
        info.players,
        info.seats_taken,
        esc(&info.email),
        info.expires_at.format("%Y-%m-%d"),
        attr(&base),
        button("Decline", SECONDARY),
    );
    Ok(page(
        &format!("{} invites you to play {}", info.inviter, info.game_name),
        &body,
    ))
}

/// Accept an invitation: take the seat kept for it. The seat goes to the signed-in caller
/// (with a bearer token), else to the account with the invited address (when that
/// account has confirmed it; otherwise `409 sign_in_required`), else to a new
/// account made from `name` and `password` (its address counts as confirmed: the invitee
/// followed the link); then `access_token` is the new account's. The game starts when
/// this was its last free seat. The link works once.
#[utoipa::path(
    tag = "invitations",
    security((), ("bearer" = [])),
    params(("token" = String, Path, description = "The token of the invitation link")),
    request_body(content(
        (AcceptInvitationRequest = "application/json"),
        (AcceptInvitationRequest = "application/x-www-form-urlencoded"),
    ), description = "Empty, or a name and password for a new account"),
    responses(
        (status = 200, description = "Seated", body = AcceptedInvitation),
        (status = 303, description = "Seated, when the request was the invitation page's form: on to the game in the web client (signed in, for an account made just now)"),
        (status = 403, description = "`invalid_link`", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`already_joined`, `game_not_open`, `email_taken`, `sign_in_required` (an account with the invited address has not confirmed it: sign in and accept again)", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`invitation_closed`, `invitation_expired`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`account_details_required`, `invalid_name`, `password_too_short`, `password_too_long`, `invalid_password`, `weak_password`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/invitations/{token}/accept")]
pub async fn accept_invitation(
    domain: web::Data<Domain>,
    req: HttpRequest,
    caller: MaybeCaller,
    token: web::Path<String>,
    body: web::Bytes,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    let request = accept_body(&req, &body).map_err(|e| *e)?;
    let base = domain.public_url.trim_end_matches('/').to_string();
    let done = web::block(move || domain.accept_invitation(&t, caller.0, request)).await??;
    if !is_form(&req) {
        return Ok(HttpResponse::Ok().json(done));
    }
    // A person accepted on the invitation's page: on to the game in the web client, signed
    // in when the account was made just now (its token rides in the fragment, which no
    // server sees; the client takes it out of the address at once). An existing account
    // signs in there first, and the client brings it back to the game.
    let path = path_of(&base);
    let location = match &done.access_token {
        Some(token) => format!("{path}/#/welcome/{}/{token}", done.game_id),
        None => format!("{path}/#/game/{}", done.game_id),
    };
    Ok(HttpResponse::SeeOther()
        .insert_header((actix_web::http::header::LOCATION, location))
        .insert_header((actix_web::http::header::CACHE_CONTROL, "no-store"))
        .insert_header((actix_web::http::header::REFERRER_POLICY, "no-referrer"))
        .finish())
}

/// The path of the public URL alone, for a redirect: the browser stays on the host it came
/// by (behind a proxy too).
pub(super) fn path_of(base: &str) -> &str {
    base.split_once("://")
        .and_then(|(_, rest)| rest.find('/').map(|i| &rest[i..]))
        .unwrap_or("")
}

/// A declined invitation.
#[derive(Debug, Serialize, ToSchema)]
pub struct DeclinedInvitation {
    pub game_id: GameId,
}

/// Decline an invitation: its seat is free for anyone again. The link works once.
#[utoipa::path(
    tag = "invitations",
    params(("token" = String, Path, description = "The token of the invitation link")),
    responses(
        (status = 200, description = "Declined (a page when the request was the page's form)", body = DeclinedInvitation),
        (status = 403, description = "`invalid_link`", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`invitation_closed`, `invitation_expired`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/invitations/{token}/decline")]
pub async fn decline_invitation(
    domain: web::Data<Domain>,
    req: HttpRequest,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    let game_id = web::block(move || domain.decline_invitation(&t)).await??;
    if !is_form(&req) {
        return Ok(HttpResponse::Ok().json(json!({ "game_id": game_id })));
    }
    Ok(page(
        "Invitation declined",
        "<p>Thank you for answering. The seat is free for someone else; nothing more will be \
         sent to you about this game.</p>",
    ))
}

/// The invitations of a game, oldest first, for the player who opened it.
#[utoipa::path(
    tag = "invitations",
    security(("bearer" = [])),
    params(("id" = i64, Path, description = "Game id")),
    responses(
        (status = 200, body = Vec<InvitationResponse>),
        (status = 403, description = "`not_game_creator`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/games/{id}/invitations")]
pub async fn game_invitations(
    domain: web::Data<Domain>,
    caller: Caller,
    id: web::Path<GameId>,
) -> Result<web::Json<Vec<InvitationResponse>>, ApiError> {
    let id = id.into_inner();
    Ok(web::Json(
        web::block(move || domain.game_invitations(caller.0, id)).await??,
    ))
}

/// Withdraw a pending invitation (the game's creator only): its link stops working and its
/// seat is free for anyone.
#[utoipa::path(
    tag = "invitations",
    security(("bearer" = [])),
    params(
        ("id" = i64, Path, description = "Game id"),
        ("invitation" = i64, Path, description = "Invitation id, from the list"),
    ),
    responses(
        (status = 204, description = "Cancelled"),
        (status = 403, description = "`not_game_creator`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`game_not_found`, `invitation_not_found`", body = Problem, content_type = "application/problem+json"),
        (status = 410, description = "`invitation_closed`, `invitation_expired`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[delete("/games/{id}/invitations/{invitation}")]
pub async fn cancel_invitation(
    domain: web::Data<Domain>,
    caller: Caller,
    path: web::Path<(GameId, i64)>,
) -> Result<HttpResponse, ApiError> {
    let (id, invitation) = path.into_inner();
    web::block(move || domain.cancel_invitation(caller.0, id, invitation)).await??;
    Ok(HttpResponse::NoContent().finish())
}
