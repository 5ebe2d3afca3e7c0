//! The rules contract and what games share. Pure: no I/O, no clock, no ambient randomness.

pub mod bot;
pub mod budget;
pub mod cards;
pub mod contract;
pub mod dynamic;
pub mod erased;
pub mod graph;
pub mod harness;
pub mod hex;
pub mod people;
pub mod rng;
pub mod svg;

pub use contract::{
    Game, GameInfo, Outcome, Placing, RuleError, Seat, SetupError, Status, TeamResult, ViewCommon,
    Viewer, Visibility, only_choice,
};
pub use dynamic::{Applied, DynGame, LoadedGame, SeatJson, SimulationReport, raw_json};
pub use erased::Erased;
pub use people::{Mentions, People};
pub use rng::GameRng;
