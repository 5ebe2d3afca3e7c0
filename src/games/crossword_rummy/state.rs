//! Options, actions and the game state.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::data::{Rules, Tile};
use turnpost_engine::{GameRng, Outcome, Seat};

/// Game options, fixed when the game is created.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(default, deny_unknown_fields)]
pub struct Options {
    /// The seat that starts the first game (HR-3: the seed says "the youngest"; the server
    /// does not know ages, so the host chooses). Omit for a random first player.
    pub first_player: Option<Seat>,
    /// Number of games in the series (digest 6, optional series scoring). 1 plays a single
    /// game. With more, the losers of each game score the values left in their racks
    /// (action tiles 20), the winner 0, and the lowest total after the last game wins
    /// (HR-10: ties share the win). The start passes one seat to the left each game. 1 to
    /// 20 (`max_series_games` in the rules file).
    #[schemars(range(min = 1, max = 20))]
    pub games: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            first_player: None,
            games: 1,
        }
    }
}

/// One tile on the grid, as submitted in a meld.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Placement {
    /// Tile id: `<colour>-<value>-<copy>` (for example `red-5-a`; colours red, yellow, blue,
    /// green; values 1-14; copies a and b). The two copies of a tile are distinct tiles.
    pub tile: String,
    /// Column; grows to the right. Any integer within +-10000.
    pub x: i32,
    /// Row; grows downwards. Any integer within +-10000.
    pub y: i32,
}

/// A turn choice. On your turn choose exactly one of `take_display`, `draw_bag`,
/// `play_action`, `meld` (or `pass` when the bag and the display are both empty). After a
/// `pass_two` action tile every player submits `pass_tiles` at the same time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Take one tile (by id) from the open display into your rack. The display is refilled
    /// to 6 from the bag while the bag lasts.
    TakeDisplay { tile: String },
    /// Draw one random tile from the bag (not allowed when the bag is empty).
    DrawBag,
    /// Play an action tile from your rack (it leaves the game; it may not be your last tile).
    /// `pass_two-a`/`pass_two-b`: every player passes 2 tiles to the left, secretly and at
    /// the same time. `draw_three-a`/`draw_three-b`: `target` (another seat, 0-based) draws
    /// 3 tiles from the bag.
    PlayAction {
        tile: String,
        /// The opponent who draws, for draw_three only.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        target: Option<Seat>,
    },
    /// After a pass_two: the tiles (ids from your rack) you pass to the player on your left,
    /// 2 of them, or 1 if you hold only 1.
    PassTiles { tiles: Vec<String> },
    /// Lay tiles: submit the COMPLETE new table. Every tile already on the table must appear
    /// (it may move to any cell), plus at least one tile from your rack, and nothing else.
    /// No two tiles share a cell. Every horizontal and vertical line of touching tiles must
    /// be a sequence (3-4 tiles of one value in different colours) or a run (3-14 tiles of
    /// one colour whose values rise or fall by 1, read left to right or top to bottom; no
    /// wrap from 14 to 1); a line of 2 is never allowed and no tile may stand alone.
    /// Orthogonally connected tiles form a group; at most 3 groups (4 with 4 players). Your
    /// first meld must open your own group: at least 3 of your tiles forming one sequence or
    /// run, touching no table tile (you may add to other groups in the same meld). Nobody
    /// starts a further group until everyone has opened.
    Meld { table: Vec<Placement> },
    /// Do nothing this turn: only when the bag and the display are both empty (HR-4). A full
    /// round of passes ends the game.
    Pass,
}

/// One tile on the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Placed {
    pub tile: Tile,
    pub x: i32,
    pub y: i32,
}

/// Where the current game stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "phase", rename_all = "snake_case")]
pub enum Phase {
    /// `turn` chooses one action.
    Turn,
    /// After `initiator` played pass_two: every seat with `None` still has to choose. The
    /// chosen tiles stay in the racks until everyone has chosen.
    Passing {
        initiator: Seat,
        chosen: Vec<Option<Vec<Tile>>>,
    },
    /// The series is over.
    Finished { outcome: Outcome },
}

/// The result of one finished game of a series (public: racks are revealed for scoring).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    pub winners: Vec<Seat>,
    /// True when the game ended by a full round of passes (HR-4).
    pub blocked: bool,
    /// Points scored this game (winners 0).
    pub points: Vec<i64>,
    /// The racks at the end, revealed to everyone.
    pub racks: Vec<Vec<Tile>>,
}

/// The rules version new games start under. 2: no new group before everyone has opened,
/// even when a merge in the same move keeps the group count.
pub const RULES_VERSION: u32 = 2;

/// Snapshots from before the field existed were set up under version 1.
fn rules_version_1() -> u32 {
    1
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The rules version this game was set up under; replays branch on it.
    #[serde(default = "rules_version_1")]
    pub rules_version: u32,
    /// The data-file numbers this game started with.
    pub rules: Rules,
    pub options: Options,
    pub seats: usize,
    pub rng: GameRng,
    /// Kept sorted; draws pick a random index (the contents are hidden, the count public).
    pub bag: Vec<Tile>,
    /// The open display, in the order the tiles arrived.
    pub display: Vec<Tile>,
    /// Racks, each kept sorted.
    pub racks: Vec<Vec<Tile>>,
    /// The table, kept sorted by tile.
    pub table: Vec<Placed>,
    pub opened: Vec<bool>,
    pub turn: Seat,
    pub phase: Phase,
    /// Passes since the last other action (HR-4: a full round ends the game).
    pub passes_in_row: usize,
    /// Action tiles played this game (out of the game).
    pub played_actions: Vec<Tile>,
    /// What each seat received in the last pass_two (shown to that seat only).
    pub received: Vec<Vec<Tile>>,
    /// Public one-line notes of the last few events.
    pub events: Vec<String>,
    /// 1-based number of the current game in the series.
    pub game_no: u32,
    /// The seat that started the current game.
    pub starter: Seat,
    pub totals: Vec<i64>,
    pub history: Vec<GameRecord>,
}
