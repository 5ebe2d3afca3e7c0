//! The embedded data file (`sp4x.toml`): piece counts, points, tiles and cards.

use std::sync::OnceLock;

use serde::Deserialize;

use super::state::{Ability, Card, Resource, TileKind};

/// Age-end scoring mode of a faction board (6.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FactionMode {
    Sum,
    Multiply,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Points {
    pub ai_alone: i64,
    pub move_explore_pair: i64,
    pub steal_pair: i64,
    pub grand_plan_pair: i64,
    pub men_per_shared_tile: i64,
    pub war_per_tile: i64,
    pub single_move_explore_men: u8,
    pub single_men: u8,
    pub pair_men_per_base: u8,
    pub build_pair_roads: u8,
    pub steal_pair_max: u8,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileData {
    pub kind: TileKind,
    pub count: u8,
    #[serde(default)]
    pub plastic: u8,
    #[serde(default)]
    pub food: u8,
    #[serde(default)]
    pub metal: u8,
    /// Enterable only along an own road (5.1).
    #[serde(default)]
    pub barrier: bool,
    #[serde(default)]
    pub ability: Option<Ability>,
    #[serde(default)]
    pub bonus_man: i64,
    #[serde(default)]
    pub bonus_base: i64,
    #[serde(default)]
    pub base_plastic: u8,
}

impl TileData {
    pub fn yield_of(&self, r: Resource) -> u8 {
        match r {
            Resource::Plastic => self.plastic,
            Resource::Food => self.food,
            Resource::Metal => self.metal,
        }
    }
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardData {
    pub card: Card,
    pub copies: u8,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    pub men: u8,
    pub bases: u8,
    pub roads: u8,
    pub track_max: u8,
    pub hand_size: usize,
    pub faction_values: Vec<i64>,
    pub faction_mode: FactionMode,
    pub start_directions_3: Vec<usize>,
    pub start_directions_4: Vec<usize>,
    pub points: Points,
    pub tiles: Vec<TileData>,
    pub cards: Vec<CardData>,
}

/// Used only if a kind is missing, which `validate` refuses; keeps lookups total.
static NO_TILE: TileData = TileData {
    kind: TileKind::SlimeSea,
    count: 0,
    plastic: 0,
    food: 0,
    metal: 0,
    barrier: true,
    ability: None,
    bonus_man: 0,
    bonus_base: 0,
    base_plastic: 0,
};

impl Data {
    pub fn parse(text: &str) -> Result<Data, String> {
        let d: Data = toml::from_str(text).map_err(|e| format!("sp4x.toml: {e}"))?;
        d.validate()?;
        Ok(d)
    }

    fn validate(&self) -> Result<(), String> {
        for k in TileKind::ALL {
            let n = self.tiles.iter().filter(|t| t.kind == k).count();
            if n != 1 {
                return Err(format!(
                    "sp4x.toml: tile kind {k:?} listed {n} times, expected once"
                ));
            }
        }
        let total: u32 = self.tiles.iter().map(|t| u32::from(t.count)).sum();
        if total != 20 {
            return Err(format!("sp4x.toml: {total} tiles, the game has 20"));
        }
        if self.tile(TileKind::Mothership).count != 1 {
            return Err("sp4x.toml: exactly one mothership is needed".into());
        }
        let start_ok = self
            .tiles
            .iter()
            .filter(|t| !t.barrier && t.kind != TileKind::Mothership)
            .map(|t| t.count as usize)
            .sum::<usize>();
        if start_ok < 4 {
            return Err("sp4x.toml: fewer than 4 possible start tiles".into());
        }
        for t in &self.tiles {
            let is_alien = matches!(
                t.kind,
                TileKind::AlienTransmogrifier
                    | TileKind::AlienClusterBots
                    | TileKind::AlienTelemorpher
                    | TileKind::AlienClonePool
            );
            if is_alien != t.ability.is_some() {
                return Err(format!(
                    "sp4x.toml: tile {:?}: alien tiles (only) need an ability",
                    t.kind
                ));
            }
        }
        if self.faction_values.len() != usize::from(self.track_max) + 1 {
            return Err("sp4x.toml: faction_values needs one value per track position".into());
        }
        for c in [
            Card::MoveExplore,
            Card::Exploit,
            Card::Build,
            Card::Men,
            Card::Steal,
            Card::War,
            Card::GrandPlan,
            Card::Ai,
        ] {
            if self.cards.iter().filter(|x| x.card == c).count() != 1 {
                return Err(format!("sp4x.toml: card {c:?} must be listed once"));
            }
        }
        if self.cards.iter().any(|c| c.card == Card::Star) {
            return Err("sp4x.toml: the star card is not dealt; do not list it".into());
        }
        if self
            .cards
            .iter()
            .find(|c| c.card == Card::Ai)
            .map(|c| c.copies)
            != Some(1)
        {
            return Err("sp4x.toml: there is exactly one ai card".into());
        }
        let cards: usize = self.cards.iter().map(|c| usize::from(c.copies)).sum();
        if cards != 31 {
            return Err(format!("sp4x.toml: {cards} action cards, the game has 31"));
        }
        if self.hand_size * 4 >= cards {
            return Err("sp4x.toml: hand_size too large for 4 players".into());
        }
        for (n, dirs) in [(3, &self.start_directions_3), (4, &self.start_directions_4)] {
            let mut v = dirs.clone();
            v.sort_unstable();
            v.dedup();
            if v.len() != n || v.iter().any(|&d| d > 5) {
                return Err(format!(
                    "sp4x.toml: start_directions_{n} needs {n} different directions 0..5"
                ));
            }
        }
        if self.men == 0 || self.bases == 0 || self.roads == 0 || self.track_max == 0 {
            return Err("sp4x.toml: piece counts and track_max must be positive".into());
        }
        Ok(())
    }

    pub fn tile(&self, k: TileKind) -> &TileData {
        self.tiles.iter().find(|t| t.kind == k).unwrap_or(&NO_TILE)
    }

    /// The 31 action cards (ai included), in data order.
    pub fn action_cards(&self) -> Vec<Card> {
        let mut v = Vec::new();
        for c in &self.cards {
            for _ in 0..c.copies {
                v.push(c.card);
            }
        }
        v
    }
}

static DATA: OnceLock<Result<Data, String>> = OnceLock::new();

/// The parsed data file, or why it is broken.
pub fn data() -> Result<&'static Data, String> {
    DATA.get_or_init(|| Data::parse(include_str!("sp4x.toml")))
        .as_ref()
        .map_err(Clone::clone)
}
