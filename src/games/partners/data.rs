//! The board and card table of `partners.toml` (house rules HR-1 and HR-2), parsed once
//! and validated. Rule logic lives in `moves.rs`; this holds only numbers and the card list.

use std::sync::LazyLock;

use serde::Deserialize;

const RAW: &str = include_str!("partners.toml");

/// Number of colours (and hand positions) at the table: two teams of two, always.
pub const COLOURS: usize = 4;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Data {
    pub board: BoardData,
    pub deal: DealData,
    pub cards: Vec<CardData>,
    /// `cards` indexed by rank - 1, filled in by validation.
    #[serde(skip)]
    by_rank: Vec<CardData>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BoardData {
    pub track_fields: u8,
    pub section: u8,
    pub home_fields: u8,
    pub pieces_per_colour: u8,
    pub colours: Vec<String>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DealData {
    pub cards_per_deal: u8,
    pub deals_per_cycle: u8,
}

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardData {
    pub rank: String,
    pub name: String,
    #[serde(default)]
    pub start: bool,
    #[serde(default)]
    pub forward: Vec<u8>,
    #[serde(default)]
    pub back: u8,
    #[serde(default)]
    pub split: u8,
    #[serde(default)]
    pub swap: bool,
}

fn rank_number(text: &str) -> Option<u8> {
    match text {
        "A" => Some(1),
        "J" => Some(11),
        "Q" => Some(12),
        "K" => Some(13),
        n => n.parse::<u8>().ok().filter(|r| (2..=10).contains(r)),
    }
}

impl Data {
    pub fn parse(text: &str) -> Result<Data, String> {
        let mut data: Data = toml::from_str(text).map_err(|e| format!("partners.toml: {e}"))?;
        data.validate()?;
        Ok(data)
    }

    fn validate(&mut self) -> Result<(), String> {
        let b = &self.board;
        if b.colours.len() != COLOURS {
            return Err(format!(
                "partners.toml: need exactly {COLOURS} colours, found {}",
                b.colours.len()
            ));
        }
        if b.section == 0 || u16::from(b.section) * COLOURS as u16 != u16::from(b.track_fields) {
            return Err(
                "partners.toml: track_fields must be 4 sections of `section` fields".into(),
            );
        }
        if b.track_fields > 200 {
            return Err("partners.toml: track_fields must be at most 200".into());
        }
        if b.home_fields == 0 || b.home_fields > 20 {
            return Err("partners.toml: home_fields must be 1..=20".into());
        }
        // The split search packs a colour's pieces into 36 bits (moves.rs `key`).
        if b.pieces_per_colour == 0
            || b.pieces_per_colour > b.home_fields
            || b.pieces_per_colour > 4
        {
            return Err(
                "partners.toml: pieces_per_colour must be 1..=4 and at most home_fields".into(),
            );
        }
        let d = &self.deal;
        if d.cards_per_deal == 0 || d.deals_per_cycle == 0 {
            return Err(
                "partners.toml: cards_per_deal and deals_per_cycle must be positive".into(),
            );
        }
        if usize::from(d.cards_per_deal) * usize::from(d.deals_per_cycle) * COLOURS > 52 {
            return Err("partners.toml: the deals of one cycle need more than 52 cards".into());
        }
        let mut by_rank: Vec<Option<CardData>> = vec![None; 13];
        for c in &self.cards {
            let r = rank_number(&c.rank)
                .ok_or_else(|| format!("partners.toml: bad rank {:?}", c.rank))?;
            let slot = by_rank
                .get_mut(usize::from(r) - 1)
                .ok_or_else(|| format!("partners.toml: bad rank {:?}", c.rank))?;
            if slot.is_some() {
                return Err(format!("partners.toml: rank {} listed twice", c.rank));
            }
            if !c.start && c.forward.is_empty() && c.back == 0 && c.split == 0 && !c.swap {
                return Err(format!("partners.toml: card {} has no effect", c.rank));
            }
            if c.forward.iter().any(|&n| n == 0 || n >= b.track_fields) || c.back >= b.track_fields
            {
                return Err(format!(
                    "partners.toml: card {} moves 0 or a whole lap",
                    c.rank
                ));
            }
            // The split enumeration is exponential in the split size: keep it small.
            if c.split > 10 {
                return Err(format!(
                    "partners.toml: card {} splits more than 10 steps",
                    c.rank
                ));
            }
            *slot = Some(c.clone());
        }
        let mut table = Vec::with_capacity(13);
        for (i, c) in by_rank.into_iter().enumerate() {
            table.push(
                c.ok_or_else(|| format!("partners.toml: no entry for rank number {}", i + 1))?,
            );
        }
        self.by_rank = table;
        Ok(())
    }

    /// The card table entry for a rank (1 = ace … 13 = king).
    pub fn card(&self, rank: u8) -> Option<&CardData> {
        self.by_rank.get(usize::from(rank).checked_sub(1)?)
    }

    pub fn colour(&self, c: usize) -> &str {
        self.board.colours.get(c).map_or("?", String::as_str)
    }

    pub fn start_field(&self, c: usize) -> u8 {
        // c < 4 and section * 4 <= 200, so this fits.
        (c as u8 % COLOURS as u8) * self.board.section
    }
}

static DATA: LazyLock<Result<Data, String>> = LazyLock::new(|| Data::parse(RAW));

/// The shipped data, or why it is broken (setup refuses to start a game then).
pub fn data() -> Result<&'static Data, String> {
    DATA.as_ref().map_err(Clone::clone)
}
