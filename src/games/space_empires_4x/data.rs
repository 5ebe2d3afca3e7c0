//! The tables of `data.toml` (units, research, movement, markers, maps), parsed and checked.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use super::state::{Marker, Tech, UnitKind};

const RAW: &str = include_str!("data.toml");

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct General {
    pub max_group_size: u8,
    pub carry_over_cap: i64,
    pub homeworld_value: u8,
    pub homeworld_step: u8,
    pub colony_steps: Vec<u8>,
    pub die_sides: u8,
    pub black_hole_destroy_min: u8,
    pub start_cp: i64,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UnitData {
    pub id: UnitKind,
    pub code: String,
    pub class: String,
    pub attack: i32,
    pub defense: i32,
    pub hull: u8,
    pub cost: i64,
    pub ship_size: u8,
    pub counter_limit: usize,
    pub maintenance: i64,
    pub combat: bool,
    pub mobile: bool,
    pub needs_yard: bool,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TechData {
    pub id: Tech,
    pub start: u8,
    pub max: u8,
    pub costs: Vec<i64>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovementData {
    pub turn1: Vec<u8>,
    pub turn2: Vec<u8>,
    pub turn3: Vec<u8>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacityData {
    pub per_yard_x2: Vec<u32>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WreckData {
    pub table: Vec<Tech>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MarkerData {
    pub home: Vec<(Marker, usize)>,
    pub deep: Vec<(Marker, usize)>,
}

#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MapData {
    pub players: usize,
    pub width: i32,
    pub height: i32,
    pub homes: Vec<[i32; 4]>,
    #[serde(default)]
    pub off_map: Vec<[i32; 4]>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartData {
    pub units: Vec<(UnitKind, usize, u8)>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    pub general: General,
    pub unit: Vec<UnitData>,
    pub tech: Vec<TechData>,
    pub movement: MovementData,
    pub shipyard_capacity: CapacityData,
    pub wreck: WreckData,
    pub markers: MarkerData,
    pub map: Vec<MapData>,
    pub start: StartData,
}

impl Data {
    pub fn unit(&self, kind: UnitKind) -> &UnitData {
        // check() guarantees one row per kind, in UnitKind order.
        &self.unit[kind as usize]
    }

    pub fn tech(&self, tech: Tech) -> &TechData {
        &self.tech[tech as usize]
    }

    pub fn map_for(&self, players: usize) -> Option<&MapData> {
        self.map.iter().find(|m| m.players == players)
    }

    /// Hexes per turn (1-3) at a movement level (1-7).
    pub fn speed(&self, level: u8, turn: u8) -> u8 {
        let row = match turn {
            1 => &self.movement.turn1,
            2 => &self.movement.turn2,
            _ => &self.movement.turn3,
        };
        let i = (level.max(1) as usize - 1).min(row.len().saturating_sub(1));
        row.get(i).copied().unwrap_or(1)
    }

    /// Hull that `yards` shipyards can build at shipyard tech `level` (HR-6: rounded down).
    pub fn capacity(&self, yards: u32, level: u8) -> u32 {
        let v = &self.shipyard_capacity.per_yard_x2;
        let i = (level.max(1) as usize - 1).min(v.len().saturating_sub(1));
        yards * v.get(i).copied().unwrap_or(2) / 2
    }

    fn check(&self) -> Result<(), String> {
        if self.unit.len() != UnitKind::ALL.len() {
            return Err(format!(
                "data.toml: expected {} units, found {}",
                UnitKind::ALL.len(),
                self.unit.len()
            ));
        }
        for (i, k) in UnitKind::ALL.iter().enumerate() {
            let u = &self.unit[i];
            if u.id != *k {
                return Err(format!(
                    "data.toml: unit {i} must be {k:?}, found {:?}",
                    u.id
                ));
            }
            if u.combat && !["A", "B", "C", "D", "E"].contains(&u.class.as_str()) {
                return Err(format!("data.toml: combat unit {k:?} needs a class A-E"));
            }
            if u.combat && u.hull == 0 {
                return Err(format!("data.toml: combat unit {k:?} needs a hull"));
            }
            if u.cost <= 0 || u.counter_limit == 0 || u.ship_size == 0 {
                return Err(format!(
                    "data.toml: unit {k:?} needs positive cost, counter limit and ship size"
                ));
            }
        }
        if self.tech.len() != Tech::ALL.len() {
            return Err("data.toml: one [[tech]] per research field, in order".into());
        }
        for (i, t) in Tech::ALL.iter().enumerate() {
            let d = &self.tech[i];
            if d.id != *t {
                return Err(format!("data.toml: tech {i} must be {t:?}"));
            }
            if d.max < d.start || d.costs.len() != (d.max - d.start) as usize {
                return Err(format!(
                    "data.toml: tech {t:?} needs one cost per level from start to max"
                ));
            }
            if d.costs.iter().any(|c| *c <= 0) {
                return Err(format!("data.toml: tech {t:?} has a non-positive cost"));
            }
        }
        let mv = self.tech(Tech::Movement).max as usize;
        for row in [
            &self.movement.turn1,
            &self.movement.turn2,
            &self.movement.turn3,
        ] {
            if row.len() != mv || row.contains(&0) {
                return Err(
                    "data.toml: movement rows need one positive speed per movement level".into(),
                );
            }
        }
        if self.shipyard_capacity.per_yard_x2.len() != self.tech(Tech::Shipyard).max as usize {
            return Err("data.toml: one shipyard capacity per shipyard tech level".into());
        }
        if self.wreck.table.len() != self.general.die_sides as usize {
            return Err("data.toml: the wreck table needs one entry per die face".into());
        }
        if self.general.colony_steps.is_empty() || self.general.max_group_size == 0 {
            return Err("data.toml: colony steps and group size must be set".into());
        }
        if self.general.homeworld_step == 0
            || !self
                .general
                .homeworld_value
                .is_multiple_of(self.general.homeworld_step)
        {
            return Err("data.toml: the Homeworld value must be a multiple of its step".into());
        }
        let home: usize = self.markers.home.iter().map(|(_, n)| n).sum();
        for players in 2..=4 {
            let Some(m) = self.map_for(players) else {
                return Err(format!("data.toml: no map for {players} players"));
            };
            if m.homes.len() != players {
                return Err(format!(
                    "data.toml: the {players}-player map needs {players} home blocks"
                ));
            }
            for b in m.homes.iter().chain(m.off_map.iter()) {
                if b[0] < 0
                    || b[1] >= m.width
                    || b[2] < 0
                    || b[3] >= m.height
                    || b[0] > b[1]
                    || b[2] > b[3]
                {
                    return Err(format!(
                        "data.toml: block {b:?} lies outside the {players}-player map"
                    ));
                }
            }
            for b in &m.homes {
                let n = ((b[1] - b[0] + 1) * (b[3] - b[2] + 1)) as usize;
                if n != home + 1 {
                    return Err(format!(
                        "data.toml: a home block holds {n} hexes but there are {home} home markers + the Homeworld"
                    ));
                }
            }
        }
        for (k, _, n) in &self.start.units {
            if *n == 0 || *n > self.general.max_group_size {
                return Err(format!("data.toml: start group of {k:?} has a bad size"));
            }
        }
        Ok(())
    }
}

static DATA: OnceLock<Result<Data, String>> = OnceLock::new();

/// The parsed and checked tables, or why they are broken.
pub fn load() -> Result<&'static Data, String> {
    DATA.get_or_init(|| {
        let d: Data = toml::from_str(RAW).map_err(|e| format!("data.toml: {e}"))?;
        d.check()?;
        Ok(d)
    })
    .as_ref()
    .map_err(|e| e.clone())
}

/// Parses a replacement data file (tests use it to check that broken files are refused).
pub fn parse(raw: &str) -> Result<Data, String> {
    let d: Data = toml::from_str(raw).map_err(|e| format!("data.toml: {e}"))?;
    d.check()?;
    Ok(d)
}
