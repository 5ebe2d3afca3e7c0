//! Deals written out, for players by email: any terms, as the listed deals word them.
//! `offer Blue 50 ducats + ship #7 for fort LON`, `offer Red 70 ducats for nothing`. A
//! person's name beside the colour (`offer Bo (Blue) …`) is read past.

use super::actions::Action;
use super::rules::seat_name;
use super::state::{Bundle, State};

/// `text` as an offer, `None` when it is not written as one.
pub fn parse_offer(st: &State, text: &str) -> Option<Result<Action, String>> {
    let lower = text.trim().to_lowercase();
    let rest = lower.strip_prefix("offer ")?;
    // "offer #3" and the like are the answers' words, not a deal.
    if rest.starts_with('#') {
        return None;
    }
    Some(read(st.seats, rest))
}

fn read(seats: usize, rest: &str) -> Result<Action, String> {
    let colours: Vec<String> = (0..seats).map(|s| seat_name(s).to_lowercase()).collect();
    let (to, terms) = colours
        .iter()
        .enumerate()
        .find_map(|(seat, c)| {
            let after = rest
                .strip_prefix(c.as_str())
                .or_else(|| rest.split_once(&format!("({c})")).map(|(_, t)| t))?;
            Some((seat, after.trim_start_matches(':').trim()))
        })
        .ok_or_else(|| {
            format!(
                "offer to whom? Write a colour first: {}",
                colours.join(", ")
            )
        })?;
    let (give, get) = terms
        .split_once(" for ")
        .ok_or("write what you give, then \"for\", then what you ask (or \"nothing\")")?;
    Ok(Action::Offer {
        to,
        give: bundle(give)?,
        get: bundle(get)?,
    })
}

/// "50 ducats + ship #7 + fort LON + depot load 2", "nothing".
fn bundle(text: &str) -> Result<Bundle, String> {
    let mut out = Bundle::default();
    let text = text.trim();
    if text == "nothing" {
        return Ok(out);
    }
    for part in text.split(['+', ',']).flat_map(|p| p.split(" and ")) {
        let words: Vec<&str> = part.split_whitespace().collect();
        let number = |w: &str| w.trim_start_matches('#').parse::<u32>().ok();
        match words.as_slice() {
            [n, "ducats" | "ducat" | "d"] => {
                let n = number(n).ok_or_else(|| format!("\"{n}\" is not a number of ducats"))?;
                out.cash = out.cash.saturating_add(n);
            }
            ["ship", id] => out
                .ships
                .push(number(id).ok_or_else(|| format!("\"{id}\" is not a ship number"))?),
            ["fort", port] => out.forts.push(port.to_uppercase()),
            ["depot", "load", id] => out
                .depot
                .push(number(id).ok_or_else(|| format!("\"{id}\" is not a depot load"))?),
            _ => {
                return Err(format!(
                    "\"{}\": write ducats (50 ducats), ships (ship #7), forts (fort LON) or \
                     depot loads (depot load 2), joined with +",
                    part.trim()
                ));
            }
        }
    }
    Ok(out)
}

/// How to write a deal, with an example for `seat`.
pub fn help(seat: usize) -> String {
    let other = seat_name(if seat == 0 { 1 } else { 0 });
    format!(
        "Offer any deal by writing it out: `offer {other} 50 ducats + ship #7 for fort LON`, or \
         `offer {other} 70 ducats for nothing`. Terms: ducats, ship #n, fort PORT, depot load n, \
         joined with +."
    )
}
