//! The component list and numeric parameters (`rules.toml`), and the tile encoding built on
//! them. A copy of the parsed [`Rules`] lives in every game state, so a live game keeps the
//! numbers it started with even if the data file changes later.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const RULES_TOML: &str = include_str!("rules.toml");

/// One row of the group-limit table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupLimit {
    pub players: usize,
    pub max_groups: usize,
}

/// The parsed, validated `rules.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rules {
    pub min_players: usize,
    pub max_players: usize,
    pub colours: Vec<String>,
    pub max_value: u8,
    pub copies: u8,
    pub pass_two_copies: u8,
    pub draw_three_copies: u8,
    pub rack_start: usize,
    pub display_size: usize,
    pub pass_two_tiles: usize,
    pub draw_three_tiles: usize,
    pub min_line: usize,
    pub action_tile_penalty: i64,
    pub coordinate_limit: i32,
    pub max_series_games: u32,
    pub group_limit: Vec<GroupLimit>,
}

/// A physical tile: an index into the tile list of [`Rules`]. Number tiles come first
/// (colour-major, then value, then copy), then the pass_two tiles, then the draw_three tiles.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(transparent)]
pub struct Tile(pub u8);

/// What is printed on a tile. Two copies of a tile share one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Face {
    Number { colour: u8, value: u8 },
    PassTwo,
    DrawThree,
}

impl Face {
    pub fn is_action(self) -> bool {
        !matches!(self, Face::Number { .. })
    }
}

/// The shipped rules, parsed and validated.
pub fn load() -> Result<Rules, String> {
    parse(RULES_TOML)
}

/// Parses and validates a rules file (separate from [`load`] so tests can feed broken files).
pub fn parse(text: &str) -> Result<Rules, String> {
    let rules: Rules =
        toml::from_str(text).map_err(|e| format!("crossword-rummy rules.toml: {e}"))?;
    rules.validate()?;
    Ok(rules)
}

impl Rules {
    fn validate(&self) -> Result<(), String> {
        let err = |m: String| Err(format!("crossword-rummy rules.toml: {m}"));
        if self.colours.is_empty() || self.colours.len() > 8 {
            return err(format!("need 1 to 8 colours, found {}", self.colours.len()));
        }
        let mut initials: Vec<char> = Vec::new();
        for c in &self.colours {
            let Some(first) = c.chars().next() else {
                return err("a colour name is empty".into());
            };
            if !c.chars().all(|ch| ch.is_ascii_lowercase() || ch == '_') {
                return err(format!("colour {c:?} must be lower-case ascii letters"));
            }
            let initial = first.to_ascii_uppercase();
            if initials.contains(&initial) {
                return err(format!("two colours share the initial {initial}"));
            }
            if initial == 'P' || initial == 'D' {
                return err(format!(
                    "colour {c:?}: initials P and D are kept for the action tiles"
                ));
            }
            initials.push(initial);
        }
        if self.max_value < 3 || self.max_value > 99 {
            return err(format!("max_value must be 3..=99, not {}", self.max_value));
        }
        if self.copies == 0 || self.copies > 26 {
            return err(format!("copies must be 1..=26, not {}", self.copies));
        }
        if self.pass_two_copies > 26 || self.draw_three_copies > 26 {
            return err("at most 26 copies of an action tile".into());
        }
        if self.total_tiles() > 255 {
            return err(format!(
                "{} tiles do not fit the tile encoding (255 at most)",
                self.total_tiles()
            ));
        }
        if self.min_players < 2 || self.max_players < self.min_players || self.max_players > 8 {
            return err("players must satisfy 2 <= min_players <= max_players <= 8".into());
        }
        for n in self.min_players..=self.max_players {
            match self.group_limit.iter().filter(|g| g.players == n).count() {
                1 => {}
                0 => return err(format!("no group_limit row for {n} players")),
                _ => return err(format!("two group_limit rows for {n} players")),
            }
        }
        if self.group_limit.iter().any(|g| g.max_groups == 0) {
            return err("max_groups must be at least 1".into());
        }
        if self.min_line < 3 || self.min_line > self.colours.len().min(self.max_value as usize) {
            return err("min_line must be at least 3 and fit both a sequence and a run".into());
        }
        let needed = self.rack_start * self.max_players + self.display_size;
        if needed > self.total_tiles() {
            return err(format!(
                "dealing needs {needed} tiles but there are {}",
                self.total_tiles()
            ));
        }
        if self.rack_start == 0 || self.pass_two_tiles == 0 || self.draw_three_tiles == 0 {
            return err("rack_start, pass_two_tiles and draw_three_tiles must be positive".into());
        }
        if self.action_tile_penalty < 0 {
            return err("action_tile_penalty must not be negative".into());
        }
        if !(10..=1_000_000).contains(&self.coordinate_limit) {
            return err("coordinate_limit must be 10..=1000000".into());
        }
        if self.max_series_games == 0 {
            return err("max_series_games must be at least 1".into());
        }
        Ok(())
    }

    pub fn number_tiles(&self) -> usize {
        self.colours.len() * self.max_value as usize * self.copies as usize
    }

    pub fn total_tiles(&self) -> usize {
        self.number_tiles() + self.pass_two_copies as usize + self.draw_three_copies as usize
    }

    /// Every tile, in id order.
    pub fn all_tiles(&self) -> Vec<Tile> {
        (0..self.total_tiles().min(255))
            .map(|i| Tile(i as u8))
            .collect()
    }

    pub fn max_groups(&self, players: usize) -> usize {
        self.group_limit
            .iter()
            .find(|g| g.players == players)
            .map_or(1, |g| g.max_groups)
    }

    /// The face of a tile, or None for an index outside the tile list.
    pub fn face(&self, t: Tile) -> Option<Face> {
        let i = t.0 as usize;
        let n = self.number_tiles();
        let copies = self.copies as usize;
        let per_colour = self.max_value as usize * copies;
        if i < n {
            Some(Face::Number {
                colour: (i / per_colour) as u8,
                value: ((i % per_colour) / copies + 1) as u8,
            })
        } else if i < n + self.pass_two_copies as usize {
            Some(Face::PassTwo)
        } else if i < self.total_tiles() {
            Some(Face::DrawThree)
        } else {
            None
        }
    }

    fn copy_index(&self, t: Tile) -> usize {
        let i = t.0 as usize;
        let n = self.number_tiles();
        let p = self.pass_two_copies as usize;
        if i < n {
            i % self.copies.max(1) as usize
        } else if i < n + p {
            i - n
        } else {
            i.saturating_sub(n + p)
        }
    }

    /// The stable id clients use: `red-5-a`, `pass_two-b`.
    pub fn tile_id(&self, t: Tile) -> String {
        let copy = (b'a' + self.copy_index(t).min(25) as u8) as char;
        match self.face(t) {
            Some(Face::Number { colour, value }) => {
                let name = self
                    .colours
                    .get(colour as usize)
                    .map_or("?", String::as_str);
                format!("{name}-{value}-{copy}")
            }
            Some(Face::PassTwo) => format!("pass_two-{copy}"),
            Some(Face::DrawThree) => format!("draw_three-{copy}"),
            None => format!("unknown-{}", t.0),
        }
    }

    /// Parses a tile id; None if it names no tile.
    pub fn parse_tile(&self, id: &str) -> Option<Tile> {
        let (head, copy) = id.rsplit_once('-')?;
        let mut chars = copy.chars();
        let c = chars.next()?;
        if chars.next().is_some() || !c.is_ascii_lowercase() {
            return None;
        }
        let copy = (c as u8 - b'a') as usize;
        let n = self.number_tiles();
        let index = match head {
            "pass_two" if copy < self.pass_two_copies as usize => n + copy,
            "draw_three" if copy < self.draw_three_copies as usize => {
                n + self.pass_two_copies as usize + copy
            }
            _ => {
                let (colour, value) = head.rsplit_once('-')?;
                let colour = self.colours.iter().position(|x| x == colour)?;
                // Only plain decimal digits: "+5" or "05" are not ids.
                if value.is_empty()
                    || value.starts_with('0')
                    || !value.bytes().all(|b| b.is_ascii_digit())
                {
                    return None;
                }
                let value: usize = value.parse().ok()?;
                if value == 0 || value > self.max_value as usize || copy >= self.copies as usize {
                    return None;
                }
                (colour * self.max_value as usize + value - 1) * self.copies as usize + copy
            }
        };
        u8::try_from(index).ok().map(Tile)
    }

    /// The short label of a face in the text grid: `R5`, `Y14`, `P2` (pass_two), `D3` (draw_three).
    pub fn face_label(&self, f: Face) -> String {
        match f {
            Face::Number { colour, value } => {
                let initial = self
                    .colours
                    .get(colour as usize)
                    .and_then(|c| c.chars().next())
                    .map_or('?', |c| c.to_ascii_uppercase());
                format!("{initial}{value}")
            }
            Face::PassTwo => "P2".into(),
            Face::DrawThree => "D3".into(),
        }
    }

    pub fn label(&self, t: Tile) -> String {
        self.face(t)
            .map_or_else(|| "??".into(), |f| self.face_label(f))
    }

    /// A person's name for a face: "red 5", "pass_two".
    pub fn face_name(&self, f: Face) -> String {
        match f {
            Face::Number { colour, value } => {
                let name = self
                    .colours
                    .get(colour as usize)
                    .map_or("?", String::as_str);
                format!("{name} {value}")
            }
            Face::PassTwo => "pass_two".into(),
            Face::DrawThree => "draw_three".into(),
        }
    }

    /// Penalty of a tile left in a rack: its value, or the action-tile penalty.
    pub fn penalty(&self, t: Tile) -> i64 {
        match self.face(t) {
            Some(Face::Number { value, .. }) => value as i64,
            Some(_) => self.action_tile_penalty,
            None => 0,
        }
    }
}
