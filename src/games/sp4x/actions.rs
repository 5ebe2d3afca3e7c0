//! The action shape clients submit. Each step of a turn is its own action.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::state::{Card, Resource};
use turnpost_engine::Seat;
use turnpost_engine::hex::Hex;

/// One decision. Hexes are axial coordinates `{ "q": .., "r": .. }`; the mothership is (0,0).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Action {
    /// STEAL step: draw a random card from this opponent's hand.
    DrawFrom { victim: Seat },
    /// MAIN: show one card (its single action), or with the star active start the star procedure.
    /// `ai` may be shown only as your last card: the age ends.
    Show { card: Card },
    /// MAIN: play two identical cards for the pair action and its points.
    Pair { card: Card },
    /// MAIN: play `ai` with this card: its pair action, bonus points only, both back to hand.
    AiPair { card: Card },
    /// Move a man from `from` to `to` (own roads plus at most one other step).
    Move { from: Hex, to: Hex },
    /// A man at `from` travels along own roads to `via`, then explores the empty position `at`
    /// next to `via` with the top tile of the stack.
    Explore { from: Hex, via: Hex, at: Hex },
    /// Finish the current optional step (no more men move, no more resources taken, ...).
    Stop,
    /// Place a road on the edge between the tiles `a` and `b`.
    Road { a: Hex, b: Hex },
    /// Build pair option (a): place roads.
    BuildRoads,
    /// Build pair option (b): place a base.
    BuildBase,
    /// Place a base at `at`.
    Base { at: Hex },
    /// Exploit single: gain the full yield of the tile `at`.
    Harvest { at: Hex },
    /// Exploit pair: gain all of one resource from the tiles where you have men or bases.
    HarvestAll { resource: Resource },
    /// Exploit pair: use the abilities of all your alien CIV tiles.
    AllAliens,
    /// Use the ability of the alien CIV tile at `at`.
    UseAlien { at: Hex },
    /// Transmogrifier: fill this track to the top.
    Fill { resource: Resource },
    /// Telemorpher: move one man from the alien tile to `to`.
    Teleport { to: Hex },
    /// Put man/men from your pool on your base tile `at`.
    MenAt { at: Hex },
    /// Steal: rob `victim`, who has a man or base on `at` where you have a man.
    Rob { at: Hex, victim: Seat },
    /// Steal: take one resource of this type from the victim.
    Take { resource: Resource },
    /// War: name tile `at` (where you have a man) and `victim` (who has a piece there).
    Attack { at: Hex, victim: Seat },
    /// War victim: pay 1 metal instead of losing a piece.
    PayMetal,
    /// War victim: lose a man on the named tile.
    LoseMan,
    /// War victim: lose your base on the named tile.
    LoseBase,
    /// War victim: lose your road on the edge a–b (touching the named tile).
    LoseRoad { a: Hex, b: Hex },
    /// Grand plan: name the basic action to perform as a pair.
    NameAction { card: Card },
    /// Star procedure: you act first.
    ActFirst,
    /// Star procedure: you act last.
    ActLast,
    /// RESOURCES: pay 1 food, a man moves (no exploring).
    SpendFoodMove { from: Hex, to: Hex },
    /// RESOURCES: pay 1 food, a man from the pool onto your base tile.
    SpendFoodMan { at: Hex },
    /// RESOURCES: pay 1 plastic, a road on an edge touching a tile with your man.
    SpendPlasticRoad { a: Hex, b: Hex },
    /// RESOURCES: end your turn.
    EndTurn,
}
