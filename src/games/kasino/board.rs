//! The board picture: the other seats (card backs, piles, sweeps) at the top, the table of
//! loose cards and builds on green cloth, the scores, and the viewer's own hand face up at
//! the bottom. Drawn from the view alone, so it shows nothing the view does not.

use std::fmt::Write as _;

use super::render::{SeatView, TableItem, View};
use super::state::BuildKind;
use turnpost_engine::cards::Card;
use turnpost_engine::svg::{
    Svg, WIDTH, card_back, card_height, fit_text, panel, playing_card, status_banner, wrap_text,
};
use turnpost_engine::{People, Seat, Viewer};

/// Seat colours: seat 1 blue, 2 red, 3 green, 4 purple (distinct from the red suits by
/// their shade and always shown beside the seat's name).
const SEAT_COLOURS: [&str; 4] = ["#1f5fbf", "#b03a2e", "#2a7d3a", "#7b3fa0"];
const INK: &str = "#222222";
const MUTED: &str = "#555555";
const CLOTH: &str = "#2f6b45";
const CLOTH_EDGE: &str = "#1f4a30";

const MARGIN: f64 = 10.0;
/// Widths of cards on the table, in the viewer's hand and in the other hands.
const TABLE_CARD: f64 = 44.0;
const HAND_CARD: f64 = 58.0;
const BACK_CARD: f64 = 28.0;
/// How far a card in a build or a fan of backs overlaps the one before.
const BUILD_STEP: f64 = 20.0;
const BACK_STEP: f64 = 10.0;

fn seat_colour(seat: Seat) -> &'static str {
    SEAT_COLOURS
        .get(seat % SEAT_COLOURS.len())
        .copied()
        .unwrap_or(INK)
}

/// The game's own name for a seat ("Seat 2"), which [`People::label`] puts the person to.
pub(super) fn seat_word(seat: Seat) -> String {
    format!("Seat {}", seat + 1)
}

/// The people at the table as the picture names them: "Ada (Seat 1)", "You (Seat 2)".
struct Names<'a>(&'a People);

impl Names<'_> {
    fn seat(&self, seat: Seat) -> String {
        self.0.label(seat, &seat_word(seat))
    }

    /// A seat's label cut to `width` px at `size`, keeping the seat's name: a long person's
    /// name is shortened first.
    fn seat_fit(&self, seat: Seat, size: f64, width: f64) -> String {
        let full = self.seat(seat);
        if fit_text(&full, size, width) == full {
            return full;
        }
        let tail = format!(" ({})", seat_word(seat));
        let who = self.0.who(seat, &seat_word(seat));
        let room = width - size * 0.62 * tail.chars().count() as f64;
        if room < size * 3.0 {
            return fit_text(&full, size, width);
        }
        format!("{}{tail}", fit_text(&who, size, room))
    }

    /// One side: a seat, or partners "Ada & Cy (Seats 1 & 3)".
    fn side(&self, seats: &[Seat]) -> String {
        if let [one] = seats {
            return self.seat(*one);
        }
        let who: Vec<String> = seats
            .iter()
            .map(|&s| self.0.who(s, &seat_word(s)))
            .collect();
        let nums: Vec<String> = seats.iter().map(|s| (s + 1).to_string()).collect();
        let words = format!("Seats {}", nums.join(" & "));
        if seats.iter().all(|&s| self.0.name(s).is_none()) {
            words
        } else {
            format!("{} ({words})", who.join(" & "))
        }
    }
}

fn cards_words(cards: &[Card]) -> String {
    if cards.is_empty() {
        return "none".into();
    }
    cards
        .iter()
        .map(|c| c.pretty())
        .collect::<Vec<_>>()
        .join(" ")
}

fn kind_word(kind: BuildKind) -> &'static str {
    match kind {
        BuildKind::Single => "single",
        BuildKind::Multiple => "multiple",
    }
}

/// The side(s) with the top score, for a finished game.
fn leaders(view: &View, names: &Names) -> (Vec<String>, i64) {
    let top = view.scores.iter().map(|s| s.score).max().unwrap_or(0);
    let names = view
        .scores
        .iter()
        .filter(|s| s.score == top)
        .map(|s| names.side(&s.seats))
        .collect();
    (names, top)
}

fn status_line(view: &View, me: Option<Seat>, people: &Names) -> String {
    if let Some(over) = people.0.game_over() {
        return over;
    }
    if view.common.finished {
        let (names, top) = leaders(view, people);
        let verb = if names.len() == 1 && !view.teams {
            "wins"
        } else {
            "win"
        };
        return format!("Game over: {} {verb} with {top}", names.join(" and "));
    }
    match people.0.acting(&view.common.to_act).first() {
        Some(&s) if Some(s) == me => format!("Your turn ({})", seat_word(s)),
        Some(&s) => format!("{} to play", people.seat(s)),
        None => String::new(),
    }
}

fn seat_facts(sv: &SeatView, view: &View) -> Vec<String> {
    let mut facts = Vec::new();
    if view.dealer == sv.seat {
        facts.push("dealer".to_string());
    }
    if let Some(id) = sv.owns_build {
        facts.push(format!("owns B{id}"));
    }
    if sv.must_capture {
        facts.push("must capture".into());
    }
    if view.last_capturer == Some(sv.seat) {
        facts.push("last capture".into());
    }
    facts
}

/// The words a screen reader announces: the whole position, as the view gives it.
fn description(view: &View, me: Option<Seat>, names: &Names) -> String {
    let mut d = format!(
        "Kasino, round {}, hand {} of {}{}. {}. ",
        view.round,
        view.hand,
        view.hands_per_round,
        if view.last_hand { " (last hand)" } else { "" },
        status_line(view, me, names)
    );
    let scores: Vec<String> = view
        .scores
        .iter()
        .map(|s| format!("{} {}", names.side(&s.seats), s.score))
        .collect();
    let _ = write!(
        d,
        "Scores: {} (play to {}). Stock: {} cards. ",
        scores.join(", "),
        view.target,
        view.stock_count
    );
    if view.table.is_empty() {
        d.push_str("The table is empty. ");
    } else {
        let loose: Vec<Card> = view
            .table
            .iter()
            .filter_map(|i| match i {
                TableItem::Loose { card, .. } => Some(*card),
                TableItem::Build { .. } => None,
            })
            .collect();
        if !loose.is_empty() {
            let _ = write!(d, "Loose on the table: {}. ", cards_words(&loose));
        }
        for item in &view.table {
            if let TableItem::Build {
                id,
                value,
                kind,
                owner,
                cards,
            } = item
            {
                let _ = write!(
                    d,
                    "Build B{id} worth {value} ({}), owned by {}: {}. ",
                    kind_word(*kind),
                    names.seat(*owner),
                    cards_words(cards)
                );
            }
        }
    }
    for sv in &view.seats {
        let _ = write!(
            d,
            "{}: {} in hand, {} in the capture pile, {} sweeps",
            names.seat(sv.seat),
            sv.hand_size,
            sv.pile_size,
            sv.sweeps
        );
        for f in seat_facts(sv, view) {
            let _ = write!(d, ", {f}");
        }
        d.push_str(". ");
    }
    if let Some(hand) = &view.your_hand {
        let _ = write!(d, "Your hand: {}. ", cards_words(hand));
    }
    for (n, lines) in view.rounds.iter().enumerate() {
        let parts: Vec<String> = lines
            .iter()
            .map(|l| {
                format!(
                    "{} {} ({})",
                    names.side(&l.seats),
                    l.points,
                    super::render::items_words(&l.items)
                )
            })
            .collect();
        let _ = write!(d, "Round {}: {}. ", n + 1, parts.join("; "));
    }
    d.trim_end().to_string()
}

/// One table item's footprint: loose cards are a card wide, builds a fanned stack in a
/// labelled frame.
fn item_width(item: &TableItem, names: &Names) -> f64 {
    match item {
        TableItem::Loose { .. } => TABLE_CARD,
        TableItem::Build {
            id,
            value,
            kind,
            owner,
            cards,
        } => {
            let fan = TABLE_CARD + BUILD_STEP * cards.len().saturating_sub(1) as f64;
            let (head, who) = build_labels(*id, *value, *kind, *owner, names);
            let label =
                (head.chars().count() as f64 * 12.0).max(who.chars().count() as f64 * 11.0) * 0.62;
            fan.max(label) + 12.0
        }
    }
}

/// The two lines above a build's cards: "B3 = 9" and its owner (and "multiple").
fn build_labels(
    id: u32,
    value: u32,
    kind: BuildKind,
    owner: Seat,
    names: &Names,
) -> (String, String) {
    let who = match kind {
        BuildKind::Single => names.seat_fit(owner, 11.0, BUILD_LABEL_MAX),
        BuildKind::Multiple => format!(
            "{} · multiple",
            names.seat_fit(owner, 11.0, BUILD_LABEL_MAX - 60.0)
        ),
    };
    (format!("B{id} = {value}"), who)
}

/// Height of the label band above a build's cards.
const BUILD_LABEL: f64 = 32.0;
/// Widest a build's owner line may be, so a long name does not stretch the build.
const BUILD_LABEL_MAX: f64 = 190.0;

fn draw_table(svg: &mut Svg, view: &View, top: f64, names: &Names) -> f64 {
    let inner_left = MARGIN + 10.0;
    let inner_right = WIDTH - MARGIN - 10.0;
    let row_h = card_height(TABLE_CARD) + BUILD_LABEL + 14.0;
    // Lay out first, so the cloth is drawn under the cards at its final height.
    let mut placed: Vec<(f64, f64, &TableItem)> = Vec::new();
    let (mut x, mut y) = (inner_left, top + 28.0);
    for item in &view.table {
        let w = item_width(item, names);
        if x + w > inner_right && x > inner_left {
            x = inner_left;
            y += row_h;
        }
        placed.push((x, y, item));
        x += w + 10.0;
    }
    let bottom = if view.table.is_empty() {
        top + 70.0
    } else {
        y + row_h
    };
    panel(
        svg,
        MARGIN,
        top,
        WIDTH - 2.0 * MARGIN,
        bottom - top,
        10.0,
        CLOTH,
        CLOTH_EDGE,
        2.0,
    );
    svg.text_bold(MARGIN + 10.0, top + 18.0, 12.0, "start", "#e8f3ea", "Table");
    if view.table.is_empty() {
        svg.text(
            WIDTH / 2.0,
            top + 48.0,
            13.0,
            "middle",
            "#e8f3ea",
            "The table is empty",
        );
    }
    for (x, y, item) in placed {
        match item {
            TableItem::Loose { card, .. } => {
                let target = format!("table:{card}");
                svg.open("g", &[("data-target", (&target).into())]);
                playing_card(svg, x, y + BUILD_LABEL, TABLE_CARD, *card, "table-card");
                svg.close("g");
            }
            TableItem::Build {
                id,
                value,
                kind,
                owner,
                cards,
            } => {
                let w = item_width(item, names);
                let colour = seat_colour(*owner);
                let code = format!("B{id}");
                let target = format!("build:{code}");
                svg.open(
                    "g",
                    &[
                        ("class", "build".into()),
                        ("data-build", (&code).into()),
                        ("data-target", (&target).into()),
                    ],
                );
                panel(
                    svg,
                    x,
                    y,
                    w,
                    BUILD_LABEL + card_height(TABLE_CARD) + 6.0,
                    6.0,
                    "#f4efe1",
                    colour,
                    2.5,
                );
                let (head, who) = build_labels(*id, *value, *kind, *owner, names);
                svg.text_bold(x + 6.0, y + 14.0, 12.0, "start", INK, &head);
                svg.text_bold(
                    x + 6.0,
                    y + 27.0,
                    11.0,
                    "start",
                    colour,
                    &fit_text(&who, 11.0, w - 8.0),
                );
                for (i, card) in cards.iter().enumerate() {
                    playing_card(
                        svg,
                        x + 6.0 + BUILD_STEP * i as f64,
                        y + BUILD_LABEL,
                        TABLE_CARD,
                        *card,
                        "build-card",
                    );
                }
                svg.close("g");
            }
        }
    }
    bottom
}

/// A seat's obligations and markers, wrapped to its box (`w` wide), two lines at most.
fn facts_lines(sv: &SeatView, view: &View, w: f64) -> Vec<String> {
    let facts = seat_facts(sv, view).join(" · ");
    if facts.is_empty() {
        return Vec::new();
    }
    wrap_text(&facts, 11.0, w - 16.0)
        .into_iter()
        .take(2)
        .collect()
}

/// A seat's box: name, card backs (or nothing for the viewer, whose hand is drawn below),
/// pile, sweeps and obligations. Returns nothing; the box is `h` tall.
#[allow(clippy::too_many_arguments)]
fn draw_seat_box(
    svg: &mut Svg,
    view: &View,
    sv: &SeatView,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    names: &Names,
) {
    let colour = seat_colour(sv.seat);
    let to_act = names.0.acting(&view.common.to_act).contains(&sv.seat);
    svg.open(
        "g",
        &[("class", "seat".into()), ("data-seat", sv.seat.into())],
    );
    panel(
        svg,
        x,
        y,
        w,
        h,
        8.0,
        if to_act { "#fff6d6" } else { "#ffffff" },
        colour,
        if to_act { 3.0 } else { 1.5 },
    );
    svg.text_bold(
        x + 8.0,
        y + 17.0,
        13.0,
        "start",
        colour,
        &names.seat_fit(sv.seat, 13.0, w - 16.0),
    );
    if view.teams {
        let partner = (sv.seat + 2) % view.seats.len().max(1);
        svg.text(
            x + w - 8.0,
            y + 84.0,
            11.0,
            "end",
            colour,
            &fit_text(
                &format!("partner {}", names.0.who(partner, &seat_word(partner))),
                11.0,
                w / 2.0 - 8.0,
            ),
        );
    }
    for i in 0..sv.hand_size {
        card_back(
            svg,
            x + 8.0 + BACK_STEP * i as f64,
            y + 26.0,
            BACK_CARD,
            "card-back",
        );
    }
    let fan_right = x + 8.0 + BACK_STEP * sv.hand_size.saturating_sub(1) as f64 + BACK_CARD;
    let hand_text = if sv.hand_size == 1 {
        "1 card".to_string()
    } else {
        format!("{} cards", sv.hand_size)
    };
    let text_x = if sv.hand_size == 0 {
        x + 8.0
    } else {
        fan_right + 6.0
    };
    svg.text_bold(text_x, y + 42.0, 12.0, "start", INK, &hand_text);
    if to_act {
        svg.text_bold(text_x, y + 60.0, 11.0, "start", colour, "▶ to play");
    }
    svg.text(
        x + 8.0,
        y + 84.0,
        11.0,
        "start",
        INK,
        &fit_text(
            &format!("pile {} · sweeps {}", sv.pile_size, sv.sweeps),
            11.0,
            w - 16.0,
        ),
    );
    for (i, line) in facts_lines(sv, view, w).iter().enumerate() {
        svg.text_bold(
            x + 8.0,
            y + 99.0 + 14.0 * i as f64,
            11.0,
            "start",
            "#8a4b00",
            line,
        );
    }
    svg.close("g");
}

fn draw_header(svg: &mut Svg, view: &View, me: Option<Seat>, names: &Names) -> f64 {
    svg.text_bold(
        MARGIN,
        24.0,
        18.0,
        "start",
        INK,
        &format!(
            "Kasino · round {}, hand {} of {}",
            view.round, view.hand, view.hands_per_round
        ),
    );
    if view.last_hand && !view.common.finished {
        panel(
            svg,
            WIDTH - MARGIN - 100.0,
            10.0,
            100.0,
            20.0,
            10.0,
            "#8a4b00",
            "none",
            0.0,
        );
        svg.text_bold(
            WIDTH - MARGIN - 50.0,
            24.0,
            11.0,
            "middle",
            "#ffffff",
            "LAST HAND",
        );
    }
    let mut line = format!(
        "Dealer {} · stock {} cards · play to {}",
        names.0.who(view.dealer, &seat_word(view.dealer)),
        view.stock_count,
        view.target
    );
    if view.sweeps_cancel {
        line.push_str(" · sweeps cancel");
    }
    svg.text(MARGIN, 44.0, 12.0, "start", MUTED, &line);
    // Whose turn (or the result), across the picture in the seat's colour.
    let colour = match names.0.acting(&view.common.to_act).first() {
        Some(&s) => seat_colour(s),
        None => INK,
    };
    let below = status_banner(svg, 52.0, &status_line(view, me, names), colour);
    // Scores, one chip per side, wrapping onto a second row when names are long.
    let mut y = below + 8.0;
    let mut x = MARGIN;
    svg.text_bold(x, y + 15.0, 12.0, "start", INK, "Scores:");
    x += 56.0;
    for s in &view.scores {
        let text = fit_text(
            &format!("{}: {}", names.side(&s.seats), s.score),
            12.0,
            WIDTH - 2.0 * MARGIN - 80.0,
        );
        let w = text.chars().count() as f64 * 7.4 + 16.0;
        if x + w > WIDTH - MARGIN && x > MARGIN + 56.0 {
            x = MARGIN + 56.0;
            y += 27.0;
        }
        let colour = s.seats.first().map_or(INK, |&seat| seat_colour(seat));
        panel(svg, x, y, w, 21.0, 10.0, "#ffffff", colour, 1.5);
        svg.text_bold(x + w / 2.0, y + 15.0, 12.0, "middle", colour, &text);
        x += w + 8.0;
    }
    y + 21.0
}

/// Columns of the round-by-round table: heading and the scoring item it shows.
const ROUND_COLUMNS: [(&str, &str); 7] = [
    ("Cards", "most_cards"),
    ("Spades", "most_spades"),
    ("10♦", "diamond_10"),
    ("2♠", "spade_2"),
    ("Aces", "aces"),
    ("Last", "last_capture"),
    ("Sweeps", "sweeps"),
];

/// Every finished round's points per side, item by item (most cards, most spades, 10♦, 2♠,
/// aces, last capture, sweeps), as a small table; cards and spades also show the counts.
fn draw_rounds(svg: &mut Svg, view: &View, top: f64, names: &Names) -> f64 {
    if view.rounds.is_empty() {
        return top;
    }
    let row = 16.0;
    let name_w = 190.0;
    let col_w = (WIDTH - 2.0 * MARGIN - 20.0 - name_w) / (ROUND_COLUMNS.len() + 1) as f64;
    let rows: usize = view.rounds.iter().map(|r| r.len() + 1).sum();
    let h = 30.0 + row * rows as f64 + 6.0;
    panel(
        svg,
        MARGIN,
        top,
        WIDTH - 2.0 * MARGIN,
        h,
        8.0,
        "#ffffff",
        "#999999",
        1.0,
    );
    let left = MARGIN + 10.0;
    let col_x = |i: usize| left + name_w + col_w * (i as f64 + 0.5);
    let mut y = top + 18.0;
    svg.text_bold(left, y, 12.0, "start", INK, "Points by round");
    for (i, (head, _)) in ROUND_COLUMNS.iter().enumerate() {
        svg.text_bold(col_x(i), y, 11.0, "middle", MUTED, head);
    }
    svg.text_bold(col_x(ROUND_COLUMNS.len()), y, 11.0, "middle", INK, "Round");
    y += 4.0;
    for (n, lines) in view.rounds.iter().enumerate() {
        y += row;
        svg.text_bold(left, y, 11.0, "start", INK, &format!("Round {}", n + 1));
        for l in lines {
            y += row;
            let colour = l.seats.first().map_or(INK, |&seat| seat_colour(seat));
            svg.text(
                left + 8.0,
                y,
                11.0,
                "start",
                colour,
                &fit_text(&names.side(&l.seats), 11.0, name_w - 12.0),
            );
            for (i, (_, key)) in ROUND_COLUMNS.iter().enumerate() {
                let points = l.items.iter().find(|(k, _)| k == key).map(|(_, v)| *v);
                let mut cell = match *key {
                    "most_cards" => l.cards.to_string(),
                    "most_spades" => l.spades.to_string(),
                    _ => String::new(),
                };
                match points {
                    Some(p) if cell.is_empty() => cell = p.to_string(),
                    Some(p) => cell = format!("{cell} +{p}"),
                    None if cell.is_empty() => cell = "·".into(),
                    None => {}
                }
                svg.text(col_x(i), y, 11.0, "middle", INK, &cell);
            }
            svg.text_bold(
                col_x(ROUND_COLUMNS.len()),
                y,
                11.0,
                "middle",
                INK,
                &format!("+{}", l.points),
            );
        }
    }
    top + h
}

pub fn board_svg(view: &View, people: &People) -> String {
    let names = &Names(people);
    let me = match people.viewer() {
        Viewer::Seat(s) => view.common.viewer.filter(|&v| v == s),
        Viewer::Spectator => None,
    };
    let status = status_line(view, me, names);
    let title = format!("Kasino: {status}");
    let mut svg = Svg::new(600.0, &title, &description(view, me, names));
    let mut y = draw_header(&mut svg, view, me, names) + 10.0;

    // The other seats, side by side.
    let others: Vec<&SeatView> = view.seats.iter().filter(|s| Some(s.seat) != me).collect();
    if !others.is_empty() {
        let gap = 8.0;
        let n = others.len() as f64;
        let w = (WIDTH - 2.0 * MARGIN - gap * (n - 1.0)) / n;
        // Tall enough for the seat with the most to say.
        let lines = others
            .iter()
            .map(|sv| facts_lines(sv, view, w).len())
            .max()
            .unwrap_or(0);
        let h = 92.0 + 14.0 * lines.max(1) as f64;
        for (i, sv) in others.iter().enumerate() {
            let x = MARGIN + i as f64 * (w + gap);
            draw_seat_box(&mut svg, view, sv, x, y, w, h, names);
        }
        y += h + 10.0;
    }

    y = draw_table(&mut svg, view, y, names) + 10.0;

    // The viewer's own seat and hand, face up.
    if let (Some(seat), Some(hand)) = (me, &view.your_hand) {
        let colour = seat_colour(seat);
        let to_act = names.0.acting(&view.common.to_act).contains(&seat);
        let per_row = (((WIDTH - 2.0 * MARGIN - 10.0) / (HAND_CARD + 10.0)) as usize).max(1);
        let rows = hand.len().div_ceil(per_row) as f64;
        let h = if hand.is_empty() {
            58.0
        } else {
            (card_height(HAND_CARD) + 10.0) * rows + 30.0
        };
        panel(
            &mut svg,
            MARGIN,
            y,
            WIDTH - 2.0 * MARGIN,
            h,
            8.0,
            if to_act { "#fff6d6" } else { "#ffffff" },
            colour,
            if to_act { 3.0 } else { 1.5 },
        );
        svg.text_bold(
            MARGIN + 10.0,
            y + 19.0,
            13.0,
            "start",
            colour,
            &fit_text(&format!("Your hand · {}", names.seat(seat)), 13.0, 220.0),
        );
        if let Some(sv) = view.seats.iter().find(|s| s.seat == seat) {
            let mut facts = vec![format!("pile {} · sweeps {}", sv.pile_size, sv.sweeps)];
            facts.extend(seat_facts(sv, view));
            svg.text(
                WIDTH - MARGIN - 10.0,
                y + 19.0,
                11.0,
                "end",
                INK,
                &fit_text(&facts.join(" · "), 11.0, 330.0),
            );
        }
        if hand.is_empty() {
            svg.text(MARGIN + 10.0, y + 44.0, 12.0, "start", MUTED, "(no cards)");
        }
        // Hands hold four cards; wrap anyway, should the deal data ever give more.
        for (i, card) in hand.iter().enumerate() {
            let target = format!("card:{card}");
            svg.open("g", &[("data-target", (&target).into())]);
            playing_card(
                &mut svg,
                MARGIN + 10.0 + (HAND_CARD + 10.0) * (i % per_row) as f64,
                y + 30.0 + (card_height(HAND_CARD) + 10.0) * (i / per_row) as f64,
                HAND_CARD,
                *card,
                "hand-card",
            );
            svg.close("g");
        }
        y += h + 10.0;
    } else {
        svg.text(
            MARGIN,
            y + 14.0,
            12.0,
            "start",
            MUTED,
            "Spectator view: every hand is hidden.",
        );
        y += 22.0;
    }
    y = draw_rounds(&mut svg, view, y, names) + 10.0;
    svg.set_height(y);
    svg.finish()
}
