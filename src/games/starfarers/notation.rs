//! Trade offers written out, for players by email: the seed leaves prices to the players
//! ("aftaler man selv prisen"), so any offer can be written, not only the listed ones.
//!
//! `offer Player B: your 2 food, 1 ore for their 1 carbon` (the words of the offer
//! choices), or shorter: `offer B 2 food and 1 ore for 1 carbon`. A person's name beside
//! the player (`offer Bo (Player B): …`) is read past.

use super::actions::Action;
use super::data::{Resource, Resources};
use super::rules::player_name;
use super::state::State;

/// `text` as a trade offer, `None` when it is not written as one.
pub fn parse_offer(s: &State, text: &str) -> Option<Result<Action, String>> {
    let lower = text.trim().to_lowercase();
    let rest = lower.strip_prefix("offer ")?;
    let (to_part, trade) = split_target(rest)?;
    Some(read_offer(s, to_part, trade))
}

/// The target before the first resource amount: "player b:", "bo (player b)", "b".
fn split_target(rest: &str) -> Option<(&str, &str)> {
    if let Some((to, trade)) = rest.split_once(':') {
        return Some((to.trim(), trade.trim()));
    }
    // No colon: the target is the words before the first number or "your".
    let at = rest
        .char_indices()
        .find(|&(i, c)| c.is_ascii_digit() || rest[i..].starts_with("your "))
        .map(|(i, _)| i)?;
    Some((rest[..at].trim(), rest[at..].trim()))
}

fn read_offer(s: &State, to_part: &str, trade: &str) -> Result<Action, String> {
    let to = (0..s.seats)
        .find(|&x| {
            let label = player_name(s, x).to_lowercase();
            let letter = label.trim_start_matches("player ").to_string();
            to_part == label || to_part == letter || to_part.ends_with(&format!("({label})"))
        })
        .ok_or_else(|| {
            format!(
                "who is \"{to_part}\"? Write the player as the game does, e.g. {}",
                player_name(s, 1.min(s.seats.saturating_sub(1)))
            )
        })?;
    let (give, get) = trade
        .split_once(" for ")
        .ok_or("write what you give, then \"for\", then what you ask, e.g. 2 food for 1 ore")?;
    let give = resources(give.trim().trim_start_matches("your "))?;
    let get = resources(get.trim().trim_start_matches("their "))?;
    Ok(Action::OfferTrade { to, give, get })
}

/// "2 food, 1 ore", "2 food and 1 trade goods", "food" (one).
fn resources(text: &str) -> Result<Resources, String> {
    let mut out = Resources::default();
    for part in text.split([',', '+']).flat_map(|p| p.split(" and ")) {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        let (n, name) = match part.split_once(' ') {
            Some((n, name)) if n.parse::<u32>().is_ok() => {
                (n.parse::<u32>().unwrap_or(0), name.trim())
            }
            _ => (1, part),
        };
        let resource = Resource::ALL
            .into_iter()
            .find(|r| {
                r.name() == name || r.name().trim_end_matches('s') == name.trim_end_matches('s')
            })
            .ok_or_else(|| {
                let names: Vec<&str> = Resource::ALL.iter().map(|r| r.name()).collect();
                format!("\"{name}\" is not a resource: {}", names.join(", "))
            })?;
        let slot = out.slot(resource);
        *slot = slot.saturating_add(n);
    }
    if out.total() == 0 {
        return Err(format!("\"{text}\" names no cards"));
    }
    Ok(out)
}

/// How to write an offer, with an example from `seat`'s position.
pub fn help(s: &State, seat: usize) -> String {
    let other = (0..s.seats).find(|&x| x != seat).unwrap_or(0);
    format!(
        "Offer any trade to another player by writing it out: `offer {}: your 2 food, 1 ore \
         for their 1 carbon` (or `offer {} 2 food for 1 carbon`). Resources: carbon, food, \
         fuel, ore, trade goods.",
        player_name(s, other),
        player_name(s, other).trim_start_matches("Player "),
    )
}
