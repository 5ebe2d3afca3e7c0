//! Every stable `code` of a problem document (RFC 9457), with the HTTP status and the words
//! of its page (`GET /problems/{code}`). One table declares them all, so a code cannot be
//! answered without a page, nor a page kept for a code that no longer exists: the variant,
//! its wire word, its status and its text are written together.

use serde::Serialize;
use utoipa::ToSchema;

/// Declares the problem codes: each variant with its wire word, HTTP status and page text.
macro_rules! problem_codes {
    ($($variant:ident = ($word:literal, $status:literal, $text:literal)),+ $(,)?) => {
        /// A stable, machine-readable problem code; clients switch on it.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, ToSchema)]
        // Every word is its variant's name in snake case (the unit test checks it).
        #[serde(rename_all = "snake_case")]
        pub enum ProblemCode {
            $($variant),+
        }

        impl ProblemCode {
            /// Every code, in the order of the table (and of the list page).
            pub const ALL: &'static [ProblemCode] = &[$(ProblemCode::$variant),+];

            /// The wire word, as in the problem document's `code`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $(ProblemCode::$variant => $word),+
                }
            }

            /// The HTTP status the code is normally answered with (its page says so).
            pub fn status(self) -> u16 {
                match self {
                    $(ProblemCode::$variant => $status),+
                }
            }

            /// What the code means and what to do about it (the page's text).
            pub fn text(self) -> &'static str {
                match self {
                    $(ProblemCode::$variant => $text),+
                }
            }

            /// The code named `word`, if any.
            pub fn from_word(word: &str) -> Option<ProblemCode> {
                match word {
                    $($word => Some(ProblemCode::$variant),)+
                    _ => None,
                }
            }
        }
    };
}

problem_codes! {
    InvalidJson = (
        "invalid_json",
        400,
        "The body is not JSON. Send a JSON document with Content-Type: application/json."
    ),
    InvalidQuery = (
        "invalid_query",
        400,
        "A query parameter is unknown or malformed, or a value is out of range (see the operation's parameters)."
    ),
    InvalidBody = (
        "invalid_body",
        422,
        "The body is JSON of the wrong shape: a missing or unknown member, or a value of the wrong type or out of range."
    ),
    InvalidIfMatch = (
        "invalid_if_match",
        400,
        "If-Match must hold exactly one ETag of this game, as GET /api/v1/games/{id} sent it, and name the same version as expected_version when both are sent."
    ),
    VersionRequired = (
        "version_required",
        428,
        "An action must say which version of the game it was chosen on: send expected_version in the body, or If-Match with the game's ETag. Then a move chosen on an old position is refused (409) instead of played."
    ),
    YourMove = (
        "your_move",
        409,
        "A nudge reminds the players the game waits for; this game waits for you. Make your move instead."
    ),
    PayloadTooLarge = (
        "payload_too_large",
        413,
        "The body is larger than the endpoint accepts."
    ),
    UnsupportedMediaType = (
        "unsupported_media_type",
        415,
        "The body's Content-Type is not the one the endpoint takes (application/json; message/rfc822 for inbound mail)."
    ),
    RequestTimeout = (
        "request_timeout",
        408,
        "The request was not received in full and answered within the server's deadline. Send the whole body promptly; a login may also wait this long in line behind others."
    ),
    MethodNotAllowed = (
        "method_not_allowed",
        405,
        "The path exists, but not with this method; the Allow header lists the methods it takes."
    ),
    NotFound = (
        "not_found",
        404,
        "No such endpoint or resource (or one the caller may not see)."
    ),
    InvalidPath = (
        "invalid_path",
        404,
        "A part of the path that should be an id is not one: ids are whole numbers from 1 to 9223372036854775807 (for example /api/v1/games/42). `parameter` names the part; nothing can be at such a path, so the answer is 404 like any other path that names nothing."
    ),
    Unauthorized = (
        "unauthorized",
        401,
        "Send Authorization: Bearer <access_token>, from POST /api/v1/auth/token."
    ),
    InvalidCredentials = (
        "invalid_credentials",
        401,
        "The email or the password is wrong (the same answer for an unknown email)."
    ),
    TokenRevoked = (
        "token_revoked",
        401,
        "The account's password changed after this token was issued. Sign in again."
    ),
    UnknownAccount = (
        "unknown_account",
        401,
        "The token's account no longer exists."
    ),
    TooManyAttempts = (
        "too_many_attempts",
        429,
        "Too many failed sign-ins for this account from this address; or, past the failures allowed from this address or at this account, too many sign-ins waiting for their turn in its slow lane (paced, one every few seconds). Wait for Retry-After seconds."
    ),
    Busy = (
        "busy",
        503,
        "Too many expensive requests (sign-ins) at once. Retry after Retry-After seconds."
    ),
    Unavailable = (
        "unavailable",
        503,
        "The database is unreachable or overloaded. Retry after Retry-After seconds."
    ),
    Internal = (
        "internal",
        500,
        "A bug on the server; it was logged. Please report it with the time of the request."
    ),
    InvalidEmail = (
        "invalid_email",
        422,
        "Not an email address we can send to."
    ),
    InvalidName = (
        "invalid_name",
        422,
        "Names are 1 to 80 printable characters."
    ),
    PasswordTooShort = (
        "password_too_short",
        422,
        "Passwords have at least 10 characters."
    ),
    PasswordTooLong = (
        "password_too_long",
        422,
        "Passwords have at most 1024 bytes."
    ),
    InvalidPassword = (
        "invalid_password",
        422,
        "Passwords are printable characters: no control characters such as NUL or a newline."
    ),
    WeakPassword = (
        "weak_password",
        422,
        "The password is too easy to guess: a common password, a repeat or sequence, a date, or the account's email address or name. The detail says why; a few ordinary words (four make a strong one) do well."
    ),
    EmailTaken = (
        "email_taken",
        409,
        "An account with this email exists already. Sign in instead. (Answered to a sign-up only where the server does not require confirmed addresses; elsewhere sign-up answers 202 for every address and mails the owner instead.)"
    ),
    EmailUnconfirmed = (
        "email_unconfirmed",
        403,
        "Confirm your own address (follow the link in the confirmation email, or ask for a new one with POST /api/v1/me/verify-email) before inviting people by email."
    ),
    TooManyInvitations = (
        "too_many_invitations",
        429,
        "An account sends at most 20 invitation emails in 24 hours. Wait for Retry-After seconds."
    ),
    InviteeInvitedEnough = (
        "invitee_invited_enough",
        429,
        "An address gets at most 3 invitation emails in 24 hours, from everyone together. Wait for Retry-After seconds, or ask the person to join by the game's link."
    ),
    MetricsDisabled = (
        "metrics_disabled",
        404,
        "This server's operator has not turned metrics on (TURNPOST_METRICS_TOKEN)."
    ),
    TooManyPings = (
        "too_many_pings",
        429,
        "A webhook may be pinged once a minute, and an account's webhooks 20 times an hour together. See the webhook's deliveries for the last ping's answer; wait for Retry-After seconds."
    ),
    InviteeNotAnswering = (
        "invitee_not_answering",
        429,
        "Your last invitation to this address went unanswered (it expired, or its game or the invitation was withdrawn): you may invite it again 30 days after it."
    ),
    RateLimited = (
        "rate_limited",
        429,
        "This account (all of its tokens together; without a token, this client address) made more requests than its budget allows: 600 a minute per account, 300 a minute per address by default, spendable at once and coming back steadily. Every API answer says where you stand in RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset; wait for Retry-After seconds. Chat has a budget of its own: a player may post 20 chat messages a minute (over all games); wait for Retry-After seconds."
    ),
    TooManyStreams = (
        "too_many_streams",
        429,
        "This client address holds as many event streams open as one address may (64 by default): close one, such as a browser tab, or wait for Retry-After seconds."
    ),
    StreamsFull = (
        "streams_full",
        503,
        "The server holds as many event streams as it can while keeping room for ordinary requests: read the game instead, and retry the stream after Retry-After seconds."
    ),
    ResourceBusy = (
        "resource_busy",
        409,
        "Another request held the same game for longer than a request may wait (5 s): nothing was changed. Retry in a moment."
    ),
    SignInRequired = (
        "sign_in_required",
        409,
        "An invitation link was followed without signing in, and the account with the invited address has not confirmed it: that account's owner may not own the address, so the seat is not handed to it. Sign in (to any account) and accept again."
    ),
    CurrentPasswordWrong = (
        "current_password_wrong",
        403,
        "Changing the password needs the current one in current_password."
    ),
    InvalidTimeZone = (
        "invalid_time_zone",
        422,
        "Time zones are IANA names such as Europe/Copenhagen."
    ),
    InvalidQuietHours = (
        "invalid_quiet_hours",
        422,
        "quiet_hours is [from, until] with hours 0 to 23, or [] for none."
    ),
    InvalidDigestHour = (
        "invalid_digest_hour",
        422,
        "digest_hour is 0 to 23."
    ),
    InvalidVacation = (
        "invalid_vacation",
        422,
        "A vacation starts now or later and ends after it starts."
    ),
    VacationOverlap = (
        "vacation_overlap",
        409,
        "The vacation overlaps one already booked."
    ),
    VacationAllowanceExceeded = (
        "vacation_allowance_exceeded",
        409,
        "The vacation would use more days than the yearly allowance leaves, after the vacations already booked in that year."
    ),
    UnknownGameType = (
        "unknown_game_type",
        422,
        "No such game type: see GET /api/v1/game-types."
    ),
    InvalidPlayerCount = (
        "invalid_player_count",
        422,
        "The game type takes another number of players: see min_players and max_players in /api/v1/game-types."
    ),
    InvalidOptions = (
        "invalid_options",
        422,
        "The options do not fit the game type's options_schema."
    ),
    InvalidTimeControl = (
        "invalid_time_control",
        422,
        "days_per_move is 1, 2, 3, 5, 7 or 14; max_days is at least days_per_move and at most 60."
    ),
    InvalidTimeoutPolicy = (
        "invalid_timeout_policy",
        422,
        "timeout_policy is forfeit, random_move or bot."
    ),
    GameNotOpen = (
        "game_not_open",
        409,
        "The game has started or ended: no one can join or leave it now."
    ),
    AlreadyJoined = (
        "already_joined",
        409,
        "The caller has a seat in this game already."
    ),
    NotAPlayer = (
        "not_a_player",
        403,
        "Only the game's players may do this."
    ),
    GameNotActive = (
        "game_not_active",
        409,
        "The game is not being played (it is open or finished): see game_status."
    ),
    InvalidBots = (
        "invalid_bots",
        422,
        "bots is the number of seats for the computer: 0 up to one fewer than the players."
    ),
    SeatNotWithBot = (
        "seat_not_with_bot",
        409,
        "The computer is not playing this seat: its player plays it already."
    ),
    SeatNotAbandoned = (
        "seat_not_abandoned",
        409,
        "Only a seat that resigned or forfeited on time, and that the computer plays on for in a game of three or more, can be offered to a replacement."
    ),
    SeatAlreadyOffered = (
        "seat_already_offered",
        409,
        "The seat is offered in the lobby already (see GET /api/v1/games/{id}/replacements); withdraw the offer with DELETE first."
    ),
    SeatNotOffered = (
        "seat_not_offered",
        409,
        "Nobody offers this seat: a player still in the game must offer it (POST /api/v1/games/{id}/seats/{seat}/offer) before it can be taken, or withdrawn."
    ),
    SeatAlreadyReplaced = (
        "seat_already_replaced",
        409,
        "Someone took this seat over already (a seat is handed over once); see GET /api/v1/games/{id}/replacements."
    ),
    LeaverCannotTake = (
        "leaver_cannot_take",
        409,
        "The account that gave the seat up cannot come back to it as its replacement: it keeps the loss."
    ),
    SeatOfferPrivate = (
        "seat_offer_private",
        409,
        "A private game's seats are not offered in the lobby: invite someone to a new game instead."
    ),
    GameNotFinished = (
        "game_not_finished",
        409,
        "A rematch can be asked for once the game is over."
    ),
    RematchOptionsInvalid = (
        "rematch_options_invalid",
        409,
        "The finished game's options do not fit the game type's current rules, so it cannot be played again as it was: create a new game."
    ),
    StaleVersion = (
        "stale_version",
        409,
        "Someone moved since the version the action was chosen on. Read the game again (current_version) and choose anew."
    ),
    NotYourTurn = (
        "not_your_turn",
        409,
        "The game is not waiting for the caller's seat."
    ),
    IllegalAction = (
        "illegal_action",
        409,
        "The rules do not allow this action in the game's current position; rule_code says which rule. Read the game again and choose one of its legal_actions."
    ),
    MalformedAction = (
        "malformed_action",
        422,
        "The action does not have the game's action shape (see action_schema)."
    ),
    AlreadyForfeited = (
        "already_forfeited",
        409,
        "The seat has resigned or timed out already."
    ),
    NothingToTakeBack = (
        "nothing_to_take_back",
        409,
        "The seat has made no move of its own in this game that could be taken back."
    ),
    TakebackTooLate = (
        "takeback_too_late",
        409,
        "Another player has chosen a move since the caller's: only the last move chosen in the game can be taken back."
    ),
    TakebackReveals = (
        "takeback_reveals",
        409,
        "The move showed a player something hidden before (a card, a tile, a secret choice) or a random outcome (a die, a draw): it cannot be taken back."
    ),
    TakebackPending = (
        "takeback_pending",
        409,
        "A takeback is asked for already (takeback_seat says by whom): it must be accepted, declined or withdrawn first."
    ),
    NoTakebackPending = (
        "no_takeback_pending",
        409,
        "Nobody is asking to take a move back in this game now; a move since lets a request lapse."
    ),
    OwnTakeback = (
        "own_takeback",
        409,
        "The caller asked for this takeback: the other players accept it; decline withdraws it."
    ),
    NotAsked = (
        "not_asked",
        403,
        "The caller's seat has no say in the takeback (it has given up)."
    ),
    NudgeTooSoon = (
        "nudge_too_soon",
        409,
        "A nudge goes out at most once a day, and only while someone else must move."
    ),
    ConcurrentUpdate = (
        "concurrent_update",
        409,
        "Another request changed the same thing at the same moment. Retry."
    ),
    RulesVersionUnavailable = (
        "rules_version_unavailable",
        409,
        "This server no longer runs the rules version the game was started with."
    ),
    InboundDisabled = (
        "inbound_disabled",
        503,
        "Inbound email is not configured on this server."
    ),
    InvalidMessage = (
        "invalid_message",
        422,
        "The inbound delivery is not an RFC 5322 message with a usable From address."
    ),
    InvalidLink = (
        "invalid_link",
        403,
        "The unsubscribe, confirmation, sign-up, password reset or invitation link was altered, was not made by this server, or was made for another address; a sign-up link also works only once and for 2 days (sign up again for a new one). Use the link from the email as it came."
    ),
    LinkExpired = (
        "link_expired",
        410,
        "The password reset link is older than its hour. Ask for a new one (POST /api/v1/password-reset)."
    ),
    LinkUsed = (
        "link_used",
        410,
        "The password reset link was used already, or the password was changed since it was sent: a link works once. Sign in with the new password, or ask for a new link (POST /api/v1/password-reset)."
    ),
    TooManyPasswordResets = (
        "too_many_password_resets",
        429,
        "Too many password reset requests for this address, or from this client address, in the last hour. Wait for the Retry-After seconds; a link sent earlier still works for its hour."
    ),
    AlreadyVerified = (
        "already_verified",
        409,
        "The account's email address is confirmed already and does not bounce: there is nothing to confirm."
    ),
    GameNotFound = (
        "game_not_found",
        404,
        "No such game, or a private game the caller is neither seated in nor invited to (the two answers are the same)."
    ),
    InvalidChatMessage = (
        "invalid_chat_message",
        422,
        "A chat message must hold some text other than spaces, and no NUL character. Other control characters become spaces, and bidirectional override characters (U+202A to U+202E, U+2066 to U+2069) are removed before it is stored."
    ),
    ChatMessageTooLong = (
        "chat_message_too_long",
        422,
        "A chat message holds at most 1000 characters (a report's reason at most 500). Split it, or say less."
    ),
    NoTeamChannel = (
        "no_team_channel",
        409,
        "Only team games have a team channel: Partners with four players, and Kasino played in teams. Use the table's channel."
    ),
    ChatMessageNotFound = (
        "chat_message_not_found",
        404,
        "No such chat message, or one the caller may not read."
    ),
    CannotMuteYourself = (
        "cannot_mute_yourself",
        422,
        "A player mutes other players, not themselves."
    ),
    TooManyInvitees = (
        "too_many_invitees",
        422,
        "A game invites at most one person fewer than it has players (the creator takes a seat)."
    ),
    DuplicateInvitee = (
        "duplicate_invitee",
        422,
        "The same address is invited twice (addresses compare case-insensitively)."
    ),
    CannotInviteYourself = (
        "cannot_invite_yourself",
        422,
        "The creator's own address is in the list: the creator has a seat already."
    ),
    SeatsReserved = (
        "seats_reserved",
        409,
        "Every free seat of this game is kept for someone invited by email."
    ),
    NotGameCreator = (
        "not_game_creator",
        403,
        "Only the player who opened the game sees and cancels its invitations."
    ),
    InvitationNotFound = (
        "invitation_not_found",
        404,
        "The game has no invitation with this id."
    ),
    InvitationClosed = (
        "invitation_closed",
        410,
        "The invitation was accepted, declined or cancelled already: an invitation link works once. Ask the game's creator for a new one."
    ),
    InvitationExpired = (
        "invitation_expired",
        410,
        "The invitation was not answered in time, and its seat is free again. Ask the game's creator for a new one."
    ),
    AccountDetailsRequired = (
        "account_details_required",
        422,
        "No account has the invited address yet: send a name and a password (at least 10 characters) to create one while accepting, or sign in with an existing account."
    ),
    InvalidWebhookUrl = (
        "invalid_webhook_url",
        422,
        "A webhook URL is an absolute http or https URL of at most 2048 characters, without spaces, control characters, user name or password."
    ),
    WebhookAddressNotAllowed = (
        "webhook_address_not_allowed",
        422,
        "The webhook URL names a loopback, private, link-local or otherwise internal address (or localhost). Webhooks only go to public addresses, unless the server's TURNPOST_WEBHOOK_ALLOW_PRIVATE is set."
    ),
    InvalidWebhookEvents = (
        "invalid_webhook_events",
        422,
        "events is a list of at least one of your_turn, offer and game_finished."
    ),
    TooManyWebhooks = (
        "too_many_webhooks",
        409,
        "An account has at most 10 webhooks. Delete one (DELETE /api/v1/me/webhooks/{id}) first."
    ),
    InsufficientScope = (
        "insufficient_scope",
        403,
        "The access token lacks the scope this request needs (`required_scope` names it): a `play` token plays games, an `account` token manages the account. Use a token with that scope, or sign in."
    ),
    TokenInUrl = (
        "token_in_url",
        400,
        "A token was sent in the URL (?access_token=), where logs, proxies and browser history keep it. Send it as Authorization: Bearer; a browser's EventSource, which cannot, gets a stream ticket (POST /api/v1/me/stream-tickets, valid 60 s, for event streams only) and passes ?ticket=."
    ),
    InvalidTokenName = (
        "invalid_token_name",
        422,
        "An access token's name has 1 to 80 characters, not only spaces, no control characters."
    ),
    InvalidTokenScopes = (
        "invalid_token_scopes",
        422,
        "scopes is a list of at least one of play and account."
    ),
    InvalidTokenLifetime = (
        "invalid_token_lifetime",
        422,
        "expires_in_days is a whole number of days from 1 to 3650, or absent for a token that works until revoked."
    ),
    TooManyAccessTokens = (
        "too_many_access_tokens",
        409,
        "An account has at most 20 personal access tokens. Revoke one (DELETE /api/v1/me/tokens/{id}) first."
    ),
    FeedNotFound = (
        "feed_not_found",
        404,
        "No calendar feed at this address: it was altered, or replaced by a new one. Get the current address from GET /api/v1/me/calendar."
    ),
    InvalidNote = (
        "invalid_note",
        422,
        "A note is text of at most 4000 characters, without NUL, other control characters (tab and line breaks are fine) or bidirectional override characters (U+202A to U+202E, U+2066 to U+2069). Send {\"body\": \"...\"}."
    ),
    JoinRequirementNotMet = (
        "join_requirement_not_met",
        403,
        "The game's creator asks a minimum reliability share (games played to the end) or a minimum rating in the game's type, and the caller's falls short. The detail says which; see GET /api/v1/accounts/{id}/reliability."
    ),
    TooManyActiveGames = (
        "too_many_active_games",
        409,
        "An account holds seats in at most max_active_games_per_account games not yet finished (open or in play; the server's setting, `limit` says how many). Finish or leave one first."
    ),
    InvalidFilter = (
        "invalid_filter",
        422,
        "A lobby filter is malformed: game_type must be a known game type, players a whole number from 1 to 16, clock true or false, min_rating and max_rating whole numbers from 0 to 4000 with min_rating at most max_rating."
    ),
    InvalidRequirement = (
        "invalid_requirement",
        422,
        "min_reliability is a whole percent from 0 to 100, and min_rating a whole number from 0 to 4000."
    ),
}

impl std::fmt::Display for ProblemCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_the_serde_form_and_unique() {
        let mut seen = std::collections::HashSet::new();
        for c in ProblemCode::ALL {
            assert_eq!(
                serde_json::to_value(c).ok(),
                Some(serde_json::json!(c.as_str())),
                "{c:?}"
            );
            assert_eq!(ProblemCode::from_word(c.as_str()), Some(*c));
            assert!(seen.insert(c.as_str()), "{c} twice");
            assert!((400..600).contains(&c.status()), "{c}");
            assert!(!c.text().is_empty(), "{c}");
        }
        assert_eq!(ProblemCode::from_word("Not_Found"), None);
    }
}
