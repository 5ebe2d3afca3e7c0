//! `GET /problems/{code}`: the page every problem document's `type` points at, so a
//! developer who follows the link reads what the code means and what to do about it.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};

use super::problem::{ApiError, Problem};

/// Every stable problem code: (code, HTTP status, what it means and what to do).
pub const PROBLEM_TYPES: &[(&str, u16, &str)] = &[
    (
        "invalid_json",
        400,
        "The body is not JSON. Send a JSON document with Content-Type: application/json.",
    ),
    (
        "invalid_query",
        400,
        "A query parameter is unknown or malformed, or a value is out of range (see the operation's parameters).",
    ),
    (
        "invalid_body",
        422,
        "The body is JSON of the wrong shape: a missing or unknown member, or a value of the wrong type or out of range.",
    ),
    (
        "payload_too_large",
        413,
        "The body is larger than the endpoint accepts.",
    ),
    (
        "unsupported_media_type",
        415,
        "The body's Content-Type is not the one the endpoint takes (application/json; message/rfc822 for inbound mail).",
    ),
    (
        "request_timeout",
        408,
        "The request was not received in full and answered within the server's deadline. Send the whole body promptly; a login may also wait this long in line behind others.",
    ),
    (
        "method_not_allowed",
        405,
        "The path exists, but not with this method; the Allow header lists the methods it takes.",
    ),
    (
        "not_found",
        404,
        "No such endpoint or resource (or one the caller may not see).",
    ),
    (
        "unauthorized",
        401,
        "Send Authorization: Bearer <access_token>, from POST /api/v1/auth/token.",
    ),
    (
        "invalid_credentials",
        401,
        "The email or the password is wrong (the same answer for an unknown email).",
    ),
    (
        "token_revoked",
        401,
        "The account's password changed after this token was issued. Sign in again.",
    ),
    (
        "unknown_account",
        401,
        "The token's account no longer exists.",
    ),
    (
        "too_many_attempts",
        429,
        "Too many failed sign-ins for this account from this address, or from this address overall. Wait for Retry-After seconds.",
    ),
    (
        "busy",
        503,
        "Too many expensive requests (sign-ins) at once. Retry after Retry-After seconds.",
    ),
    (
        "unavailable",
        503,
        "The database is unreachable or overloaded. Retry after Retry-After seconds.",
    ),
    (
        "internal",
        500,
        "A bug on the server; it was logged. Please report it with the time of the request.",
    ),
    ("invalid_email", 422, "Not an email address we can send to."),
    (
        "invalid_name",
        422,
        "Names are 1 to 80 printable characters.",
    ),
    (
        "password_too_short",
        422,
        "Passwords have at least 10 characters.",
    ),
    (
        "password_too_long",
        422,
        "Passwords have at most 1024 bytes.",
    ),
    (
        "email_taken",
        409,
        "An account with this email exists already. Sign in instead.",
    ),
    (
        "current_password_wrong",
        403,
        "Changing the password needs the current one in current_password.",
    ),
    (
        "invalid_time_zone",
        422,
        "Time zones are IANA names such as Europe/Copenhagen.",
    ),
    (
        "invalid_quiet_hours",
        422,
        "quiet_hours is [from, until] with hours 0 to 23, or [] for none.",
    ),
    ("invalid_digest_hour", 422, "digest_hour is 0 to 23."),
    (
        "invalid_vacation",
        422,
        "A vacation starts now or later and ends after it starts.",
    ),
    (
        "vacation_overlap",
        409,
        "The vacation overlaps one already booked.",
    ),
    (
        "vacation_allowance_exceeded",
        422,
        "The vacation would use more days than the yearly allowance leaves.",
    ),
    (
        "unknown_game_type",
        422,
        "No such game type: see GET /api/v1/game-types.",
    ),
    (
        "invalid_player_count",
        422,
        "The game type takes another number of players: see min_players and max_players in /api/v1/game-types.",
    ),
    (
        "invalid_options",
        422,
        "The options do not fit the game type's options_schema.",
    ),
    (
        "invalid_time_control",
        422,
        "days_per_move is 1, 2, 3, 5, 7 or 14; max_days is at least days_per_move and at most 60.",
    ),
    (
        "invalid_timeout_policy",
        422,
        "timeout_policy is forfeit or random_move.",
    ),
    (
        "game_not_open",
        409,
        "The game has started or ended: no one can join or leave it now.",
    ),
    (
        "already_joined",
        409,
        "The caller has a seat in this game already.",
    ),
    ("not_a_player", 403, "Only the game's players may do this."),
    (
        "game_not_active",
        409,
        "The game is not being played (it is open or finished): see game_status.",
    ),
    (
        "stale_version",
        409,
        "Someone moved since the version the action was chosen on. Read the game again (current_version) and choose anew.",
    ),
    (
        "not_your_turn",
        409,
        "The game is not waiting for the caller's seat.",
    ),
    (
        "illegal_action",
        422,
        "The rules do not allow this action now; rule_code says which rule.",
    ),
    (
        "malformed_action",
        422,
        "The action does not have the game's action shape (see action_schema).",
    ),
    (
        "already_forfeited",
        409,
        "The seat has resigned or timed out already.",
    ),
    (
        "nudge_too_soon",
        409,
        "A nudge goes out at most once a day, and only while someone else must move.",
    ),
    (
        "concurrent_update",
        409,
        "Another request changed the same thing at the same moment. Retry.",
    ),
    (
        "rules_version_unavailable",
        409,
        "This server no longer runs the rules version the game was started with.",
    ),
    (
        "inbound_disabled",
        503,
        "Inbound email is not configured on this server.",
    ),
    (
        "invalid_message",
        422,
        "The inbound delivery is not an RFC 5322 message with a usable From address.",
    ),
    (
        "invalid_link",
        403,
        "The unsubscribe or confirmation link was altered, was not made by this server, or was made for another address. Use the link from the email as it came.",
    ),
    (
        "already_verified",
        409,
        "The account's email address is confirmed already and does not bounce: there is nothing to confirm.",
    ),
];

/// What a problem code means.
#[utoipa::path(
    tag = "health",
    params(("code" = String, Path, description = "A problem `code`")),
    responses(
        (status = 200, description = "A page explaining the code", content_type = "text/html", body = String),
        (status = 404, description = "`not_found`: no such code", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/problems/{code}")]
pub async fn problem_type(code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let Some((code, status, text)) = PROBLEM_TYPES.iter().find(|(c, _, _)| *c == code.as_str())
    else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such problem code",
        ));
    };
    let reason = StatusCode::from_u16(*status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    let page = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{code}</title></head>\
         <body><h1><code>{code}</code></h1><p>HTTP {status} {reason}</p><p>{}</p>\
         <p>Every error of the Turnpost API is an RFC 9457 problem document \
         (<code>application/problem+json</code>) whose <code>code</code> member is stable; \
         its <code>type</code> links here.</p></body></html>",
        html_escape::encode_text(text)
    );
    Ok(HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page))
}
