//! What a player can submit. Every multi-step turn is cut into single steps so that
//! `legal_actions` stays a short, enumerable list.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::state::{Tech, UnitKind};

/// One step of play. Hex coordinates are the map's offset coordinates `(x, y)`
/// (odd rows shifted right); group ids are the counter numbers shown on the map.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// Setup: place your Homeworld on a hex of your Home System.
    ChooseHomeworld { x: i32, y: i32 },
    /// Movement: move these groups (one group, or a stack that started in one hex) one hex.
    /// Moving a different group finishes the movement of the previous one.
    Move { groups: Vec<u32>, x: i32, y: i32 },
    /// Movement: `count` ships leave the group as a new counter.
    Split { group: u32, count: u8 },
    /// Movement: merge `group` into `into` (same hex, type and tech).
    Merge { group: u32, into: u32 },
    /// Movement: a cruiser built with exploration tech looks at an adjacent unexplored marker before it moves.
    Peek { group: u32, x: i32, y: i32 },
    /// After a peek: turn the marker face up.
    RevealPeek,
    /// After a peek: leave the marker face down.
    HidePeek,
    /// Movement: a miner takes the minerals or space wreck in its hex.
    PickUp { group: u32 },
    /// Movement: a miner puts its load down at your colony or Homeworld in its hex.
    Deposit { group: u32 },
    /// Movement: finish your movement for this turn.
    EndMovement,
    /// Combat: fight the battle against `defender` in hex (x, y) next.
    Fight { x: i32, y: i32, defender: usize },
    /// Combat: every armed ship of yours in (x, y) fires once at the enemy colony there.
    Bombard { x: i32, y: i32 },
    /// Combat: finish the combat phase (no more bombardment).
    EndCombat,
    /// Combat round plan (secret until the round is fought): screen one ship of this group.
    Screen { group: u32 },
    /// Combat round plan, from round 2: `count` ships of this group retreat to (x, y) instead
    /// of firing (fewer than all of them leave as a new counter).
    Retreat {
        group: u32,
        count: u8,
        x: i32,
        y: i32,
    },
    /// Combat round plan: add this enemy group to your target priority list.
    Target { group: u32 },
    /// Combat round plan: the plan is complete.
    SubmitPlan,
    /// Lost in space: move the lost player's units to (x, y).
    LostInSpace { x: i32, y: i32 },
    /// Exploration: when several of your hexes are unexplored, reveal this one next.
    Explore { x: i32, y: i32 },
    /// Exploration: land this colony ship on the planet in its hex.
    Colonise { group: u32 },
    /// Exploration: finish your turn.
    EndExploration,
    /// Economic order (secret): bid CP for the choice of turn order. Once per phase.
    Bid { cp: i64 },
    /// Economic order (secret): buy the next level of a technology.
    Research { tech: Tech },
    /// Economic order (secret): build one unit at your colony or Homeworld in (x, y).
    Build { unit: UnitKind, x: i32, y: i32 },
    /// Economic order (secret): scuttle one ship of this group.
    Scuttle { group: u32 },
    /// Economic order: the order is complete.
    SubmitOrders,
    /// The bid winner sets the turn order for the next round (seats, first to last).
    SetTurnOrder { order: Vec<usize> },
}
