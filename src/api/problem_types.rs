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
        "invalid_if_match",
        400,
        "If-Match must hold exactly one ETag of this game, as GET /api/v1/games/{id} sent it, and name the same version as expected_version when both are sent.",
    ),
    (
        "version_required",
        428,
        "An action must say which version of the game it was chosen on: send expected_version in the body, or If-Match with the game's ETag. Then a move chosen on an old position is refused (409) instead of played.",
    ),
    (
        "your_move",
        409,
        "A nudge reminds the players the game waits for; this game waits for you. Make your move instead.",
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
        "Too many failed sign-ins for this account from this address; or, past the failures allowed from this address or at this account, too many sign-ins waiting for their turn in its slow lane (paced, one every few seconds). Wait for Retry-After seconds.",
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
        "invalid_password",
        422,
        "Passwords are printable characters: no control characters such as NUL or a newline.",
    ),
    (
        "weak_password",
        422,
        "The password is too easy to guess: a common password, a repeat or sequence, a date, or the account's email address or name. The detail says why; a few ordinary words (four make a strong one) do well.",
    ),
    (
        "email_taken",
        409,
        "An account with this email exists already. Sign in instead. (Answered to a sign-up only where the server does not require confirmed addresses; elsewhere sign-up answers 202 for every address and mails the owner instead.)",
    ),
    (
        "email_unconfirmed",
        403,
        "Confirm your own address (follow the link in the confirmation email, or ask for a new one with POST /api/v1/me/verify-email) before inviting people by email.",
    ),
    (
        "too_many_invitations",
        429,
        "An account sends at most 20 invitation emails in 24 hours. Wait for Retry-After seconds.",
    ),
    (
        "invitee_invited_enough",
        429,
        "An address gets at most 3 invitation emails in 24 hours, from everyone together. Wait for Retry-After seconds, or ask the person to join by the game's link.",
    ),
    (
        "metrics_disabled",
        404,
        "This server's operator has not turned metrics on (TURNPOST_METRICS_TOKEN).",
    ),
    (
        "too_many_pings",
        429,
        "A webhook may be pinged once a minute, and an account's webhooks 20 times an hour together. See the webhook's deliveries for the last ping's answer; wait for Retry-After seconds.",
    ),
    (
        "invitee_not_answering",
        429,
        "Your last invitation to this address went unanswered (it expired, or its game or the invitation was withdrawn): you may invite it again 30 days after it.",
    ),
    (
        "too_many_streams",
        429,
        "This client address holds as many event streams open as one address may (64 by default): close one, such as a browser tab, or wait for Retry-After seconds.",
    ),
    (
        "streams_full",
        503,
        "The server holds as many event streams as it can while keeping room for ordinary requests: read the game instead, and retry the stream after Retry-After seconds.",
    ),
    (
        "resource_busy",
        409,
        "Another request held the same game for longer than a request may wait (5 s): nothing was changed. Retry in a moment.",
    ),
    (
        "sign_in_required",
        409,
        "An invitation link was followed without signing in, and the account with the invited address has not confirmed it: that account's owner may not own the address, so the seat is not handed to it. Sign in (to any account) and accept again.",
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
        "timeout_policy is forfeit, random_move or bot.",
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
        "invalid_bots",
        422,
        "bots is the number of seats for the computer: 0 up to one fewer than the players.",
    ),
    (
        "seat_not_with_bot",
        409,
        "The computer is not playing this seat: its player plays it already.",
    ),
    (
        "game_not_finished",
        409,
        "A rematch can be asked for once the game is over.",
    ),
    (
        "rematch_options_invalid",
        409,
        "The finished game's options do not fit the game type's current rules, so it cannot be played again as it was: create a new game.",
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
        "nothing_to_take_back",
        409,
        "The seat has made no move of its own in this game that could be taken back.",
    ),
    (
        "takeback_too_late",
        409,
        "Another player has chosen a move since the caller's: only the last move chosen in the game can be taken back.",
    ),
    (
        "takeback_reveals",
        409,
        "The move showed a player something hidden before (a card, a tile, a secret choice) or a random outcome (a die, a draw): it cannot be taken back.",
    ),
    (
        "takeback_pending",
        409,
        "A takeback is asked for already (takeback_seat says by whom): it must be accepted, declined or withdrawn first.",
    ),
    (
        "no_takeback_pending",
        409,
        "Nobody is asking to take a move back in this game now; a move since lets a request lapse.",
    ),
    (
        "own_takeback",
        409,
        "The caller asked for this takeback: the other players accept it; decline withdraws it.",
    ),
    (
        "not_asked",
        403,
        "The caller's seat has no say in the takeback (it has given up).",
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
        "The unsubscribe, confirmation, sign-up or invitation link was altered, was not made by this server, or was made for another address; a sign-up link also works only once and for 2 days (sign up again for a new one). Use the link from the email as it came.",
    ),
    (
        "already_verified",
        409,
        "The account's email address is confirmed already and does not bounce: there is nothing to confirm.",
    ),
    (
        "game_not_found",
        404,
        "No such game, or a private game the caller is neither seated in nor invited to (the two answers are the same).",
    ),
    (
        "too_many_invitees",
        422,
        "A game invites at most one person fewer than it has players (the creator takes a seat).",
    ),
    (
        "duplicate_invitee",
        422,
        "The same address is invited twice (addresses compare case-insensitively).",
    ),
    (
        "cannot_invite_yourself",
        422,
        "The creator's own address is in the list: the creator has a seat already.",
    ),
    (
        "seats_reserved",
        409,
        "Every free seat of this game is kept for someone invited by email.",
    ),
    (
        "not_game_creator",
        403,
        "Only the player who opened the game sees and cancels its invitations.",
    ),
    (
        "invitation_not_found",
        404,
        "The game has no invitation with this id.",
    ),
    (
        "invitation_closed",
        410,
        "The invitation was accepted, declined or cancelled already: an invitation link works once. Ask the game's creator for a new one.",
    ),
    (
        "invitation_expired",
        410,
        "The invitation was not answered in time, and its seat is free again. Ask the game's creator for a new one.",
    ),
    (
        "account_details_required",
        422,
        "No account has the invited address yet: send a name and a password (at least 10 characters) to create one while accepting, or sign in with an existing account.",
    ),
    (
        "invalid_webhook_url",
        422,
        "A webhook URL is an absolute http or https URL of at most 2048 characters, without spaces, control characters, user name or password.",
    ),
    (
        "webhook_address_not_allowed",
        422,
        "The webhook URL names a loopback, private, link-local or otherwise internal address (or localhost). Webhooks only go to public addresses, unless the server's TURNPOST_WEBHOOK_ALLOW_PRIVATE is set.",
    ),
    (
        "invalid_webhook_events",
        422,
        "events is a list of at least one of your_turn, offer and game_finished.",
    ),
    (
        "too_many_webhooks",
        409,
        "An account has at most 10 webhooks. Delete one (DELETE /api/v1/me/webhooks/{id}) first.",
    ),
    (
        "feed_not_found",
        404,
        "No calendar feed at this address: it was altered, or replaced by a new one. Get the current address from GET /api/v1/me/calendar.",
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
