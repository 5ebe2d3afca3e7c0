//! The JSON shapes of the public API (documented in openapi.yaml through utoipa).

use super::integral;
use crate::store::kinds::{AccountId, GameId};
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccountRequest {
    /// Where turn notifications go; also the login. An address we can send to: a dotted
    /// domain (not `.invalid`), no spaces (`invalid_email`).
    #[schema(
        format = "email",
        max_length = 254,
        example = "ada@example.org",
        pattern = r"^(?=[^@]{1,64}@)(?![\s\S]*\.[Ii][Nn][Vv][Aa][Ll][Ii][Dd]$)[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"
    )]
    pub email: String,
    /// 1 to 80 characters, not only spaces, no control characters (`invalid_name`).
    #[schema(
        example = "Ada",
        min_length = 1,
        max_length = 80,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: String,
    /// At least 10 characters, none of them control characters, and hard to guess: not a
    /// common password, a repeat or sequence, nor the email address or the name
    /// (`weak_password`, with the reason in `detail`). A few ordinary words do well.
    #[schema(
        example = "correct horse battery",
        min_length = 10,
        max_length = 256,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub password: String,
}

/// The one status of an accepted sign-up.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SignUpStatus {
    /// The next step is in the email sent to the address.
    CheckYourEmail,
}

/// The answer to a sign-up where the server requires confirmed addresses: the same for
/// every address, whether it has an account or not. A new address gets a link that makes
/// the account; the owner of a taken one, a notice.
#[derive(Debug, Serialize, ToSchema)]
pub struct SignUpAccepted {
    /// Always `check_your_email`.
    pub status: SignUpStatus,
    /// The address, as given.
    #[schema(example = "ada@example.org")]
    pub email: String,
    /// What to do next, for people.
    pub detail: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AccountResponse {
    pub id: AccountId,
    pub email: String,
    pub name: String,
    pub email_notifications: bool,
    /// `each_turn`, `daily_digest` or `off` (`email_notifications` is false only for `off`).
    pub email_mode: EmailMode,
    /// Local hour (0–23) of the daily digest.
    pub digest_hour: i16,
    /// Reminder emails at 50 % and 90 % of a clock.
    pub reminders: bool,
    /// IANA time zone of the quiet hours, e.g. `Europe/Copenhagen`.
    pub time_zone: String,
    /// No reminders from this hour (0–23, local time) ...
    pub quiet_from: Option<i16>,
    /// ... until this hour.
    pub quiet_until: Option<i16>,
    /// `unverified` (the confirmation link sent at sign-up was not followed yet; no game
    /// email goes out until it is, where the server requires it), `verified`, or `bouncing`
    /// (a delivery-status report said mail to the address fails: nothing is sent to it
    /// until it is confirmed again, see `POST /api/v1/me/verify-email`), or `failing` (our
    /// last email to it could not be handed over after every attempt, say because its mail
    /// server refused it; mail is still tried, and the state ends when one goes out).
    pub email_status: EmailStatus,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateAccountRequest {
    /// 1 to 80 characters, not only spaces, no control characters (`invalid_name`).
    #[schema(
        min_length = 1,
        max_length = 80,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*[^\u0000-\u0020\u007f-\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub name: Option<String>,
    /// A new password, under the rules of sign-up: at least 10 characters, no control
    /// characters, and hard to guess (else `422 weak_password`, with the reason in
    /// `detail`); requires `current_password`.
    #[schema(
        min_length = 10,
        max_length = 256,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f]*$"
    )]
    pub password: Option<String>,
    pub current_password: Option<String>,
    /// `true`/`false` (turn emails on or off), or `"each_turn"`, `"daily_digest"`, `"off"`.
    pub email_notifications: Option<EmailSetting>,
    /// Local hour (0–23) of the daily digest.
    #[serde(default, deserialize_with = "integral::opt")]
    #[schema(minimum = 0, maximum = 23)]
    pub digest_hour: Option<i16>,
    /// Reminder emails at 50 % and 90 % of a clock on or off.
    pub reminders: Option<bool>,
    /// IANA time zone name, e.g. `Europe/Copenhagen`: one of the `TimeZone` enum.
    // Documented as the enum (see `api::spec::add_constraints`).
    pub time_zone: Option<String>,
    /// Quiet hours as `[from, until]` local hours (0–23); `[]` removes them.
    // Two hours or none: `api::spec::add_constraints` says that one alone is refused.
    #[serde(default, deserialize_with = "integral::opt_vec")]
    #[schema(max_items = 2, value_type = Option<Vec<u8>>)]
    pub quiet_hours: Option<Vec<i16>>,
}

/// `email_notifications`: a boolean (as before) or a mode.
#[derive(Debug, Clone, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum EmailSetting {
    OnOff(bool),
    Mode(EmailMode),
}

/// Turn emails for each turn, one daily digest instead, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum EmailMode {
    EachTurn,
    DailyDigest,
    Off,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    pub email: String,
    pub password: String,
}

/// The kind of an access token (RFC 6750): the only one issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub enum TokenType {
    Bearer,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// Always "Bearer".
    pub token_type: TokenType,
    /// Seconds until the token expires.
    pub expires_in: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameTypeResponse {
    #[schema(example = "kasino")]
    pub id: String,
    pub name: String,
    pub min_players: usize,
    pub max_players: usize,
    /// Every player count the game can be set up for with default options (Partners:
    /// 2 or 4, not 3).
    pub player_counts: Vec<usize>,
    /// JSON Schema of the `options` object accepted by `POST /api/v1/games`.
    #[schema(value_type = Object)]
    pub options_schema: Value,
    /// JSON Schema of one action, as submitted to `POST /api/v1/games/{id}/actions`.
    #[schema(value_type = Object)]
    pub action_schema: Value,
    /// JSON Schema of the `view` member of a game of this type (as any seat or a spectator
    /// receives it). The same models are in this document's components as
    /// `<GameType>View` and `<GameType>Action`.
    #[schema(value_type = Object)]
    pub view_schema: Value,
    /// Where the rules are, as players read them (Markdown).
    #[schema(example = "/api/v1/game-types/kasino/rules")]
    pub rules_url: String,
    /// True when `legal_actions` lists every legal action; false when it is a useful
    /// sample and `action_schema` describes the full space.
    pub legal_actions_complete: bool,
    /// False when no move of this game can be taken back (each shows a card from a hidden
    /// hand): a client need not offer a takeback. Where true, a request is still refused
    /// (`takeback_reveals`) when the moves showed something hidden or a random outcome.
    pub takebacks: bool,
    pub rules_version: u32,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGameRequest {
    /// One of the game types of `/game-types` (documented as the `GameTypeId` enum).
    #[schema(example = "kasino")]
    pub game_type: String,
    /// Number of seats, in the game type's range (its `player_counts` in `/game-types`,
    /// stated per type in this schema); else `422 invalid_player_count`.
    #[serde(deserialize_with = "integral::int")]
    #[schema(example = 2, minimum = 1, maximum = 16)]
    pub players: i64,
    /// Game options: the game type's `{Type}Options` (its `options_schema` in
    /// `/game-types`); omitted means defaults; else `422 invalid_options`.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub options: serde_json::Map<String, Value>,
    /// Clocks measured in days; omitted or null: no clock.
    #[serde(default)]
    pub time_control: Option<crate::domain::clocks::TimeControl>,
    /// What happens when a seat's clock runs out: `forfeit` (default; the seat loses, and
    /// with more than two seats a bot plays on for it), `random_move` (a bot moves once)
    /// or `bot` (the computer plays the seat until its player takes it back).
    #[serde(default)]
    pub timeout_policy: Option<TimeoutPolicy>,
    /// Seats for the computer ("play against the computer"): 0 (default) to players − 1,
    /// else `422 invalid_bots`.
    /// They take the seats after the creator's; with every other seat a computer's, the
    /// game starts at once.
    #[serde(default, deserialize_with = "integral::opt")]
    #[schema(minimum = 0, maximum = 15, value_type = Option<i64>)]
    pub bots: Option<i64>,
    /// A private game is seen only by its seats and the people invited to it (everyone
    /// else gets `404 game_not_found`), and is never in the lobby. Default false.
    #[serde(default)]
    pub private: bool,
    /// Email addresses to invite: at most `players` − 1 − `bots` (else `422
    /// too_many_invitees`), each once, compared regardless of case (else `422
    /// duplicate_invitee`), not the creator's own. Each gets a link to accept or decline;
    /// a seat is kept for each until they answer (14 days at most).
    // Each address as at sign-up, each once (`api::spec::add_constraints` says so).
    #[serde(default)]
    #[schema(max_items = 15, example = json!(["bo@example.org"]))]
    pub invite: Vec<String>,
    /// Whether the result changes the players' ratings (default `true`).
    #[serde(default)]
    pub rated: Option<bool>,
    /// Those who join must have played at least this percent of their ended games to the
    /// end (their reliability `share`, 0 to 100); else `403 join_requirement_not_met`.
    #[serde(default, deserialize_with = "integral::opt")]
    #[schema(minimum = 0, maximum = 100, value_type = Option<i64>)]
    pub min_reliability: Option<i32>,
    /// Those who join must have at least this rating in the game's type (0 to 4000; an
    /// account not yet rated in it counts 1500); else `403 join_requirement_not_met`.
    #[serde(default, deserialize_with = "integral::opt")]
    #[schema(minimum = 0, maximum = 4000, value_type = Option<i64>)]
    pub min_rating: Option<i32>,
}

pub use crate::store::kinds::{EmailStatus, GameStatus, InboundOutcome, ReplyCode, TimeoutPolicy};

/// Why an inbound email was refused or ignored: a word of email replies, or the problem
/// code of the error that refused it (the same as the API would answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
// Each variant is written as its word alone (both are strings).
#[serde(untagged)]
pub enum InboundCode {
    Reply(ReplyCode),
    Problem(super::ProblemCode),
}

impl From<ReplyCode> for InboundCode {
    fn from(c: ReplyCode) -> InboundCode {
        InboundCode::Reply(c)
    }
}

impl From<super::ProblemCode> for InboundCode {
    fn from(c: super::ProblemCode) -> InboundCode {
        InboundCode::Problem(c)
    }
}

impl std::fmt::Display for InboundCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            InboundCode::Reply(c) => c.fmt(f),
            InboundCode::Problem(c) => c.fmt(f),
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SeatResponse {
    pub seat: i32,
    pub account_id: AccountId,
    pub name: String,
    /// What the game calls the seat ("Red", "South", "Seat 2"), once it has started: shown
    /// with the name, as the board picture names it ("Ada (Red)").
    pub label: Option<String>,
    /// Milliseconds left on the seat's clock (null without a time control).
    pub clock_ms_left: Option<i64>,
    /// Whether the seat's clock is running (the game waits for it).
    pub clock_running: bool,
    /// Set while the player is on vacation: their clocks stand still until then.
    pub on_vacation_until: Option<DateTime<Utc>>,
    /// The computer plays this seat: a computer player's, or one it took over when its
    /// player's time ran out (timeout policy `bot`).
    pub bot: bool,
}

/// A game as one player (or a spectator) sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameResponse {
    pub id: GameId,
    pub game_type: String,
    pub rules_version: i32,
    /// `open` (waiting for players), `active` or `finished`.
    pub status: GameStatus,
    /// Number of actions applied; also the `ETag`. Submit it back as `expected_version`.
    pub version: i64,
    pub players: i32,
    #[schema(value_type = Object)]
    pub options: Value,
    pub seats: Vec<SeatResponse>,
    /// The game's clocks, or null.
    pub time_control: Option<crate::domain::clocks::TimeControl>,
    /// `forfeit`, `random_move` or `bot`.
    pub timeout_policy: TimeoutPolicy,
    /// Seats that resigned or timed out (a bot plays for them when the game goes on).
    pub forfeited: Vec<i32>,
    /// Seats the game waits for (several during simultaneous steps); their clocks run.
    pub to_act: Vec<i32>,
    /// Seats with something to decide: those in `to_act` and any other with legal actions
    /// (the recipient of an offer). A client shows it as that seat's turn.
    pub deciding: Vec<i32>,
    /// Seen only by its seats and invitees (see `POST /games`).
    pub private: bool,
    /// The caller's seat, or null for a spectator.
    pub your_seat: Option<i32>,
    /// The caller's view of the state (null while the game is open).
    // The three fields below are kept as JSON text, worked out once per version and seat
    // (see `domain::views`), and copied into each answer as they are.
    #[schema(value_type = Object, nullable)]
    pub view: Box<RawValue>,
    /// Every action the caller may submit now, each valid as is.
    #[schema(value_type = Vec<Object>)]
    pub legal_actions: Box<RawValue>,
    /// The same actions in words, in the same order (as numbered in emails), with people's
    /// names beside the seats they name ("offer Ada (Player A): your 1 food for their 1
    /// ore").
    #[schema(value_type = Vec<String>)]
    pub legal_action_texts: Box<RawValue>,
    /// For each of the same actions, what on the board picture it involves: the
    /// `data-target` values of the picture's elements, so a client can select actions by
    /// a click on the picture (empty where nothing on it stands for the action).
    #[schema(value_type = Vec<Vec<String>>)]
    pub legal_action_targets: Box<RawValue>,
    /// The outcome once finished: ranking, scores, summary.
    #[schema(value_type = Object, nullable)]
    pub result: Option<Value>,
    /// The rematch of this finished game (same players, seats rotated), once a player
    /// asked for it with `POST /games/{id}/rematch` or by replying `rematch`.
    pub rematch: Option<GameId>,
    /// Whether the result changes the players' ratings (see `/accounts/{id}/ratings`).
    pub rated: bool,
    /// A player's pending request to take back their last move, or null (see
    /// `POST /games/{id}/takeback`).
    pub takeback: Option<TakebackResponse>,
    /// Why the computer (or a seat given up) does not move now though the game waits for
    /// it, and until when; null while it plays.
    pub computer_paused: Option<ComputerPause>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// The computer waits in a game.
#[derive(Clone, Debug, Serialize, ToSchema)]
pub struct ComputerPause {
    pub reason: ComputerPauseReason,
    /// When it moves again by itself.
    pub until: DateTime<Utc>,
}

/// Why the computer waits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ComputerPauseReason {
    /// The game's creator has had the computer make its allowance of moves for 24 hours
    /// (`bot_moves_per_account_per_day`) in the games they created.
    DailyAllowance,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The `version` of the game the action was chosen on. Required, unless the request
    /// carries the game's ETag as `If-Match` instead (then it may be left out).
    #[serde(default, deserialize_with = "integral::opt")]
    #[schema(minimum = 0, value_type = i64, required = true)]
    pub expected_version: Option<i64>,
    /// One of `legal_actions` (or any action valid under the game's `action_schema`).
    #[schema(value_type = Object)]
    pub action: Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameListResponse {
    pub items: Vec<GameSummary>,
    pub page: i64,
    pub per_page: i64,
    pub total: i64,
    /// The next page's path, while there are more items (also in the `Link` header).
    pub next: Option<String>,
    /// Games not yet finished (open or in play) the caller holds a seat in.
    pub your_active_games: i64,
    /// How many such games the server allows an account (`max_active_games_per_account`):
    /// creating or joining one more is `409 too_many_active_games`.
    pub max_active_games: i64,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: GameId,
    pub game_type: String,
    pub status: GameStatus,
    pub version: i64,
    pub players: i32,
    pub seats: Vec<SeatResponse>,
    pub to_act: Vec<i32>,
    /// Seats with something to decide (see the game resource's `deciding`).
    pub deciding: Vec<i32>,
    pub your_seat: Option<i32>,
    /// True when the caller has something to decide: its turn, or an offer to answer.
    pub awaiting_you: bool,
    /// The seats ranked first once the game is finished (several for a shared win or a
    /// team); empty before.
    pub winners: Vec<i32>,
    pub updated_at: DateTime<Utc>,
    /// Whether the game has a clock.
    pub clock: bool,
    /// The reliability share (percent) of the game's creator; null before any game ended
    /// for it (see `GET /api/v1/accounts/{id}/reliability`).
    pub creator_reliability: Option<i32>,
    /// What the creator asks of those who join.
    pub requirements: crate::domain::lobby::JoinRequirements,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LogEntry {
    /// The game's type: which game's model `action` follows (`KasinoLogEntry`, ...).
    #[schema(example = "kasino")]
    pub game_type: String,
    pub seq: i64,
    pub seat: i32,
    /// The action as the caller may see it (secret parts replaced for outsiders).
    #[schema(value_type = Object)]
    pub action: Value,
    /// The action in words after its mover's name, other seats named with their people
    /// ("offered you (Player B) 1 food for 1 ore"), or null when it is hidden from the caller.
    pub text: Option<String>,
    pub at: DateTime<Utc>,
    /// A takeback: the game went back to this version (the entry's `action` is then
    /// `{"takeback": {"to_version": n}}`, a `TakebackLogAction`, not a move of the game).
    pub takeback_to: Option<i64>,
    /// The entry was taken back by the takeback entry with this `seq`; it no longer counts.
    pub undone_by: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ViewAtResponse {
    pub id: GameId,
    /// The game's type: which game's model `view` follows (`KasinoView`, ...).
    #[schema(example = "kasino")]
    pub game_type: String,
    pub version: i64,
    pub your_seat: Option<i32>,
    #[schema(value_type = Object)]
    pub view: Value,
}

/// What an action would do, without playing it (`POST /games/{id}/preview`).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PreviewRequest {
    /// An action of the game's model, as it would be submitted.
    #[schema(value_type = Object)]
    pub action: Value,
}

/// The position after a previewed action, as the caller would see it. Hidden information
/// (the next tile, a die) is drawn afresh for the preview, so it foretells nothing.
#[derive(Debug, Serialize, ToSchema)]
pub struct PreviewResponse {
    /// The game's type: which game's model `view` follows (`KasinoView`, ...).
    #[schema(example = "kasino")]
    pub game_type: String,
    /// The action in words, as the log would show it to the caller.
    pub description: String,
    /// The caller's view after the action.
    #[schema(value_type = Object)]
    pub view: Value,
    /// The caller's board picture after the action (SVG).
    pub board_svg: String,
    /// Seats to act after the action (0-based).
    pub to_act: Vec<i32>,
    /// Whether the action would end the game.
    pub finishes_game: bool,
}

/// What became of one inbound email. Every message that could be read is answered to its
/// sender by email (except duplicates and automatic mail); `outcome` says what happened.
#[derive(Debug, Serialize, ToSchema)]
pub struct InboundResponse {
    /// `applied`, `previewed`, `refused`, `stale`, `status`, `help`, `resigned`,
    /// `takeback` (a takeback asked for or answered), `stopped` (game emails off), `muted`, `unmuted`, `rematch` (`game_id` is the new
    /// game), `bounce` (a delivery-status report
    /// marked an address as bouncing), `duplicate` (this Message-ID was processed before)
    /// or `ignored` (automatic mail, or a report about no email of ours).
    pub outcome: InboundOutcome,
    /// Why a reply was refused: a stable code such as `wrong_sender`, `no_reply_token`,
    /// `invalid_reply_token`, `stale_token`, `illegal_action`, `not_your_turn`,
    /// `unknown_command`, `no_such_choice`, `empty_reply`, `game_not_active`; for an
    /// ignored delivery-status report, `unknown_bounce`.
    pub code: Option<InboundCode>,
    /// The same explanation the sender gets by email.
    pub detail: String,
    pub message_id: String,
    pub game_id: Option<GameId>,
    /// The game version after the message was processed.
    pub version: Option<i64>,
    /// The actions applied, in words.
    pub applied: Vec<String>,
    /// Whether an answer was queued for the sender.
    pub answered: bool,
}

/// A pending takeback request, as the game shows it to everyone.
#[derive(Debug, Serialize, ToSchema)]
pub struct TakebackResponse {
    /// The seat asking to take back its last action.
    pub seat: i32,
    /// The version the game returns to if everyone accepts.
    pub to_version: i64,
    /// The log entries it would undo: the seat's action and the moves that played
    /// themselves after it.
    pub undoes: Vec<i64>,
    /// What those entries did, in words.
    pub undoes_texts: Vec<String>,
    /// Seats that accepted.
    pub accepted: Vec<i32>,
    /// Seats whose answer is awaited (`POST /games/{id}/takeback/accept` or `/decline`).
    pub waiting_for: Vec<i32>,
    pub asked_at: DateTime<Utc>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_inbound_code_is_written_as_its_word_alone() {
        let reply = InboundCode::from(ReplyCode::WrongSender);
        let problem = InboundCode::from(crate::domain::ProblemCode::NotYourTurn);
        assert_eq!(
            serde_json::to_value(reply).ok(),
            Some(json_word("wrong_sender"))
        );
        assert_eq!(
            serde_json::to_value(problem).ok(),
            Some(json_word("not_your_turn"))
        );
        assert_eq!(reply.to_string(), "wrong_sender");
        assert_eq!(problem.to_string(), "not_your_turn");
    }

    fn json_word(w: &str) -> Value {
        Value::String(w.to_string())
    }
}
