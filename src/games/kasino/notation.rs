//! A move as a person writes it in an email reply, in the words the game log and the list
//! of choices already use ([`super::render::describe`]), so that any capture or build can
//! be played, also one the list leaves out on a crowded table:
//!
//! ```text
//! take 5♥+4♦, 9♣, build B2 with 9♦
//! build 9 with 2♥: 2♥+7♣
//! raise build B3 (5) to 9 with 4♦
//! add to build B3 (9) with 4♦: 4♦+5♣, 9♠
//! trail 7♥
//! clear the table with 5♠
//! ```
//!
//! Cards are written as the log writes them (`10♦`) or with a letter for the suit (`10d`),
//! in capitals or not; `+` joins the cards of one group, commas (or spaces, or `and`)
//! separate groups, and a build is named by its number (`B2`, or `build B2`). Whether the
//! move is allowed is the rules' business ([`super::actions::apply`]): this reads the
//! words, and checks only what the words themselves claim (a group written with `+` adds
//! up to the value), so that a slip is explained where it was made.

use super::actions::Action;
use super::state::State;
use turnpost_engine::Seat;
use turnpost_engine::cards::Card;

/// The first words of the moves the notation writes.
const VERBS: &[&str] = &["take", "capture", "build", "raise", "add", "trail", "clear"];

/// True when `text` is written in the notation (its first word is one of [`VERBS`]).
pub fn is_notation(text: &str) -> bool {
    text.split_whitespace()
        .next()
        .map(str::to_lowercase)
        .is_some_and(|w| VERBS.contains(&w.as_str()))
}

/// Reads a move written in the notation on `state`, for `seat`; `None` when `text` is not
/// in the notation.
pub fn parse(state: &State, _seat: Seat, text: &str) -> Option<Result<Action, String>> {
    if !is_notation(text) {
        return None;
    }
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.len() > 1 {
        return Some(Err(
            "one move a turn: write it on one line (`take 5♥+4♦ with 9♦`)".into(),
        ));
    }
    Some(read(state, &words(text)))
}

/// The words of `text`, lower case, with `:`, `,` and brackets apart and `+` joined to its
/// cards (`5♥ + 4♦` is `5♥+4♦`).
fn words(text: &str) -> Vec<String> {
    let mut t = String::new();
    for ch in text.trim().trim_end_matches('.').chars() {
        match ch {
            // Mail programs add a variation selector to suit symbols (♥️), or send the
            // white forms.
            '\u{fe0f}' | '\u{fe0e}' => {}
            '♡' => t.push('♥'),
            '♢' => t.push('♦'),
            '♧' => t.push('♣'),
            '♤' => t.push('♠'),
            ':' | ',' | '(' | ')' => {
                t.push(' ');
                t.push(ch);
                t.push(' ');
            }
            c => t.extend(c.to_lowercase()),
        }
    }
    let t = t
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" +", "+")
        .replace("+ ", "+");
    t.split_whitespace().map(String::from).collect()
}

fn read(state: &State, w: &[String]) -> Result<Action, String> {
    let first = w.first().map(String::as_str).unwrap_or_default();
    match first {
        "trail" => match &w[1..] {
            [c] => Ok(Action::Trail { card: card(c)? }),
            _ => Err("write the card to trail: `trail 7♥`".into()),
        },
        "clear" => {
            let rest: Vec<&str> = w[1..]
                .iter()
                .map(String::as_str)
                .filter(|x| !matches!(*x, "the" | "table" | "with"))
                .collect();
            match rest.as_slice() {
                [] => Ok(Action::ClearTable),
                [c] if card(c).is_ok_and(|c| c == super::data::spade_5()) => Ok(Action::ClearTable),
                _ => Err("only the 5♠ clears the table: `clear the table with 5♠`".into()),
            }
        }
        "take" | "capture" => take(state, &w[1..]),
        "build" => build(state, &w[1..]),
        "raise" => raise(&w[1..]),
        "add" => add(state, &w[1..]),
        _ => Err(format!("{first:?} is not a move")),
    }
}

/// `take ITEMS with CARD`.
fn take(state: &State, w: &[String]) -> Result<Action, String> {
    let example = "`take 5♥+4♦, 9♣ with 9♦`";
    let with = w
        .iter()
        .rposition(|x| x == "with")
        .ok_or_else(|| format!("write the card you take with at the end: {example}"))?;
    let played = match &w[with + 1..] {
        [c] => card(c)?,
        _ => return Err(format!("one card from your hand after `with`: {example}")),
    };
    let value = state.params.cv(played);
    let items = items(&w[..with])?;
    if items.groups.is_empty() && items.builds.is_empty() {
        return Err(format!("name the table cards or builds to take: {example}"));
    }
    check_groups(
        state,
        &items.groups,
        value,
        &format!("{} is worth {value} in hand", played.pretty()),
    )?;
    Ok(Action::Capture {
        card: played,
        cards: in_table_order(state, items.groups.concat()),
        builds: builds_in_table_order(state, items.builds),
    })
}

/// `build VALUE [(multiple)] with CARD: GROUPS` (the played card may be left out of the
/// groups).
fn build(state: &State, w: &[String]) -> Result<Action, String> {
    let example = "`build 9 with 2♥: 2♥+7♣`";
    let value: u32 = w
        .first()
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| format!("write the value of the build first: {example}"))?;
    let mut rest = &w[1..];
    if let [open, m, close, tail @ ..] = rest
        && open == "("
        && m == "multiple"
        && close == ")"
    {
        rest = tail;
    } else if let [m, tail @ ..] = rest
        && m == "multiple"
    {
        rest = tail;
    }
    let (played, groups) = card_and_groups(rest, example)?;
    check_groups(
        state,
        &groups,
        value,
        &format!("the build is worth {value}"),
    )?;
    Ok(Action::Build {
        card: played,
        value,
        cards: in_table_order(state, without(groups.concat(), played)),
    })
}

/// `raise [build] B3 [(5)] to 9 with CARD`.
fn raise(w: &[String]) -> Result<Action, String> {
    let example = "`raise build B3 to 9 with 4♦`";
    let w: Vec<&str> = w
        .iter()
        .map(String::as_str)
        .filter(|x| *x != "build")
        .collect();
    let (id, rest) = match w.as_slice() {
        [b, "(", _, ")", rest @ ..] | [b, rest @ ..] => (build_id(b), rest),
        [] => (None, &[][..]),
    };
    let id = id.ok_or_else(|| format!("name the build to raise: {example}"))?;
    match rest {
        ["to", v, "with", c] => Ok(Action::Raise {
            card: card(c)?,
            build: id,
            value: v
                .parse()
                .map_err(|_| format!("{v:?} is not a value: {example}"))?,
        }),
        _ => Err(format!("write the new value and your card: {example}")),
    }
}

/// `add to [build] B3 [(9)] with CARD[: GROUPS]`.
fn add(state: &State, w: &[String]) -> Result<Action, String> {
    let example = "`add to build B3 with 4♦: 4♦+5♣`";
    let w: Vec<String> = w
        .iter()
        .filter(|x| *x != "to" && *x != "build")
        .cloned()
        .collect();
    let id = w
        .first()
        .and_then(|b| build_id(b))
        .ok_or_else(|| format!("name the build to add to: {example}"))?;
    let mut rest = &w[1..];
    if let [open, _, close, tail @ ..] = rest
        && open == "("
        && close == ")"
    {
        rest = tail;
    }
    let (played, groups) = card_and_groups(rest, example)?;
    if let Some(b) = state.build(id) {
        check_groups(
            state,
            &groups,
            b.value,
            &format!("build B{id} is worth {}", b.value),
        )?;
    }
    Ok(Action::AddToBuild {
        card: played,
        build: id,
        cards: in_table_order(state, without(groups.concat(), played)),
    })
}

/// `with CARD[:] GROUPS`.
fn card_and_groups(w: &[String], example: &str) -> Result<(Card, Vec<Vec<Card>>), String> {
    let (played, rest) = match w {
        [with, c, rest @ ..] if with == "with" => (card(c)?, rest),
        _ => {
            return Err(format!(
                "write `with` and the card from your hand: {example}"
            ));
        }
    };
    let rest = match rest {
        [colon, rest @ ..] if colon == ":" => rest,
        rest => rest,
    };
    let items = items(rest)?;
    if let Some(b) = items.builds.first() {
        return Err(format!(
            "B{b} is a build: name only loose table cards here ({example})"
        ));
    }
    Ok((played, items.groups))
}

struct Items {
    groups: Vec<Vec<Card>>,
    builds: Vec<u32>,
}

/// Groups of cards (`5♥+4♦`), single cards and builds (`B2`, `build B2`), separated by
/// commas, spaces or `and`.
fn items(w: &[String]) -> Result<Items, String> {
    let mut out = Items {
        groups: Vec::new(),
        builds: Vec::new(),
    };
    for word in w {
        if matches!(word.as_str(), "," | "and" | "build" | "builds") {
            continue;
        }
        if let Some(id) = build_id(word) {
            out.builds.push(id);
            continue;
        }
        let group = word
            .split('+')
            .map(card)
            .collect::<Result<Vec<Card>, String>>()?;
        out.groups.push(group);
    }
    Ok(out)
}

/// A group written with `+` must add up to `value` on the table.
fn check_groups(state: &State, groups: &[Vec<Card>], value: u32, why: &str) -> Result<(), String> {
    for g in groups.iter().filter(|g| g.len() > 1) {
        let sum: u32 = g.iter().map(|&c| state.params.tv(c)).sum();
        if sum != value {
            let text: Vec<String> = g.iter().map(|c| c.pretty()).collect();
            return Err(format!(
                "{} adds up to {sum}, not {value} ({why})",
                text.join("+")
            ));
        }
    }
    Ok(())
}

fn card(word: &str) -> Result<Card, String> {
    word.parse::<Card>().map_err(|_| {
        format!("{word:?} is not a card: write e.g. 5♥ or 5h, 10♦ or 10d, A♠ or as, Q♣ or qc")
    })
}

/// `b3` (any case) is build 3.
fn build_id(word: &str) -> Option<u32> {
    word.strip_prefix('b')
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
}

/// `cards` without the first `played` among them (the notation lists the played card in
/// its group).
fn without(mut cards: Vec<Card>, played: Card) -> Vec<Card> {
    if let Some(i) = cards.iter().position(|&c| c == played) {
        cards.remove(i);
    }
    cards
}

/// Loose cards in the order they lie on the table, as the listed actions name them (a
/// card not on the table goes last, for the rules to refuse by name).
fn in_table_order(state: &State, mut cards: Vec<Card>) -> Vec<Card> {
    let loose = state.loose();
    cards.sort_by_key(|c| loose.iter().position(|l| l == c).unwrap_or(usize::MAX));
    cards
}

fn builds_in_table_order(state: &State, mut ids: Vec<u32>) -> Vec<u32> {
    let order: Vec<u32> = state.builds().map(|b| b.id).collect();
    ids.sort_by_key(|id| order.iter().position(|x| x == id).unwrap_or(usize::MAX));
    ids
}

/// How to write moves, with this seat's largest capture now (or its hand) as an example.
pub fn help(state: &State, seat: Seat) -> String {
    let mut text = String::from(
        "Writing a move: any capture or build can be written out, also one the list leaves \
         out on a crowded table. Use the words of the list:\n  \
         take 5♥+4♦, 9♣, build B2 with 9♦   + joins the cards of one group worth your card\n  \
         build 9 with 2♥: 2♥+7♣             your card and the loose cards it builds with\n  \
         raise build B3 to 9 with 4♦\n  \
         add to build B3 with 4♦: 4♦+5♣\n  \
         trail 7♥\n\
         Cards as 10♦ or 10d, A♠ or as, in capitals or not.\n",
    );
    let largest = super::actions::legal(state, seat)
        .into_iter()
        .filter_map(|a| match &a {
            Action::Capture { cards, builds, .. } => {
                let n = cards.len()
                    + builds
                        .iter()
                        .filter_map(|id| state.build(*id))
                        .map(|b| b.cards.len())
                        .sum::<usize>();
                Some((n, a))
            }
            _ => None,
        })
        // The first of the largest, so the example is the same every time.
        .fold(None::<(usize, Action)>, |best, (n, a)| match best {
            Some((m, _)) if m >= n => best,
            _ => Some((n, a)),
        });
    match largest {
        Some((_, a)) => {
            text.push_str("For example, your largest capture now:\n  ");
            text.push_str(&super::render::describe(state, &a));
            text.push('\n');
        }
        None => {
            let hand: Vec<String> = state.hand(seat).iter().map(|c| c.pretty()).collect();
            if !hand.is_empty() {
                text.push_str(&format!("Your hand: {}\n", hand.join(" ")));
            }
        }
    }
    text
}
