//! The JSON shapes of the public API (documented in openapi.yaml through utoipa).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccountRequest {
    /// Where turn notifications go; also the login.
    #[schema(example = "ada@example.org")]
    pub email: String,
    #[schema(example = "Ada")]
    pub name: String,
    /// At least 10 characters.
    #[schema(example = "correct horse battery")]
    pub password: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AccountResponse {
    pub id: i64,
    pub email: String,
    pub name: String,
    pub email_notifications: bool,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateAccountRequest {
    pub name: Option<String>,
    /// A new password (at least 10 characters); requires `current_password`.
    pub password: Option<String>,
    pub current_password: Option<String>,
    /// Turn emails on or off.
    pub email_notifications: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TokenRequest {
    pub email: String,
    pub password: String,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct TokenResponse {
    pub access_token: String,
    /// Always "Bearer".
    pub token_type: String,
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
    /// JSON Schema of the `options` object accepted by `POST /api/v1/games`.
    #[schema(value_type = Object)]
    pub options_schema: Value,
    /// JSON Schema of one action, as submitted to `POST /api/v1/games/{id}/actions`.
    #[schema(value_type = Object)]
    pub action_schema: Value,
    /// True when `legal_actions` lists every legal action; false when it is a useful
    /// sample and `action_schema` describes the full space.
    pub legal_actions_complete: bool,
    pub rules_version: u32,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewGameRequest {
    #[schema(example = "kasino")]
    pub game_type: String,
    /// Number of seats.
    #[schema(example = 2)]
    pub players: i64,
    /// Game options (see the game type's `options_schema`); omitted means defaults.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub options: Value,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct SeatResponse {
    pub seat: i32,
    pub account_id: i64,
    pub name: String,
}

/// A game as one player (or a spectator) sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct GameResponse {
    pub id: i64,
    pub game_type: String,
    pub rules_version: i32,
    /// `open` (waiting for players), `active` or `finished`.
    pub status: String,
    /// Number of actions applied; also the `ETag`. Submit it back as `expected_version`.
    pub version: i64,
    pub players: i32,
    #[schema(value_type = Object)]
    pub options: Value,
    pub seats: Vec<SeatResponse>,
    /// Seats the game waits for (several during simultaneous steps).
    pub to_act: Vec<i32>,
    /// The caller's seat, or null for a spectator.
    pub your_seat: Option<i32>,
    /// The caller's view of the state (null while the game is open).
    #[schema(value_type = Object, nullable)]
    pub view: Value,
    /// Every action the caller may submit now, each valid as is.
    #[schema(value_type = Vec<Object>)]
    pub legal_actions: Vec<Value>,
    /// The same actions in words, in the same order (as numbered in emails).
    pub legal_action_texts: Vec<String>,
    /// The outcome once finished: ranking, scores, summary.
    #[schema(value_type = Object, nullable)]
    pub result: Option<Value>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ActionRequest {
    /// The `version` of the game the action was chosen on.
    pub expected_version: i64,
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
}

#[derive(Debug, Serialize, ToSchema)]
pub struct GameSummary {
    pub id: i64,
    pub game_type: String,
    pub status: String,
    pub version: i64,
    pub players: i32,
    pub seats: Vec<SeatResponse>,
    pub to_act: Vec<i32>,
    pub your_seat: Option<i32>,
    /// True when the game waits for the caller.
    pub awaiting_you: bool,
    pub updated_at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct LogEntry {
    pub seq: i64,
    pub seat: i32,
    /// The action as the caller may see it (secret parts replaced for outsiders).
    #[schema(value_type = Object)]
    pub action: Value,
    /// The action in words, or null when it is hidden from the caller.
    pub text: Option<String>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct ViewAtResponse {
    pub id: i64,
    pub version: i64,
    pub your_seat: Option<i32>,
    #[schema(value_type = Object)]
    pub view: Value,
}
