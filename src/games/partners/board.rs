//! The board picture: the ring of track fields with each colour's start field, start
//! circle and home lane, every piece, the deck and the played pile in the middle, then one
//! row per colour with its hand (face up only to the seat that plays it), its exchange step
//! and what happened lately. Drawn from the view alone.

use std::collections::BTreeMap;
use std::f64::consts::PI;
use std::fmt::Write as _;

use super::data::Data;
use super::state::Phase;
use super::view::{ColourView, View};
use turnpost_engine::cards::Card;
use turnpost_engine::svg::{
    Svg, WIDTH, card_back, card_height, fit_text, panel, playing_card, status_banner, text_picture,
    text_width,
};
use turnpost_engine::{People, Seat};

const INK: &str = "#222222";
const MUTED: &str = "#555555";
const MARGIN: f64 = 10.0;

/// Ring geometry: the track's radius and the radius of one field.
const RING: f64 = 212.0;
const FIELD_R: f64 = 8.0;
const PIECE_R: f64 = 9.0;
/// Height of the square board.
const BOARD: f64 = 590.0;
/// Cards in the hand rows.
const ROW_CARD: f64 = 38.0;

/// Fill, tint and text-on-fill colours of a colour name.
fn palette(colour: &str) -> (&'static str, &'static str, &'static str) {
    match colour.to_ascii_lowercase().as_str() {
        "yellow" => ("#e6b400", "#fff3c4", "#222222"),
        "red" => ("#c62828", "#f9d6d6", "#ffffff"),
        "blue" => ("#1f5fbf", "#d6e3f9", "#ffffff"),
        "green" => ("#2a8a3a", "#d6f0dc", "#ffffff"),
        _ => ("#777777", "#e6e6e6", "#ffffff"),
    }
}

/// The text colour for a colour's name on the light background: yellow text is too pale,
/// so it is written in a dark gold.
fn name_ink(colour: &str) -> &'static str {
    match colour.to_ascii_lowercase().as_str() {
        "yellow" => "#8a6a00",
        _ => palette(colour).0,
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

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The people at the table as the picture names them: a colour's player "Ada (Yellow)",
/// a team "Ada & Cy (Yellow + Blue)".
struct Names<'a> {
    people: &'a People,
    /// The colour names, in colour order, with the seat playing each.
    colours: Vec<(String, Seat)>,
}

impl<'a> Names<'a> {
    fn new(people: &'a People, view: &View) -> Names<'a> {
        Names {
            people,
            colours: view
                .colours
                .iter()
                .map(|c| (c.colour.clone(), c.seat))
                .collect(),
        }
    }

    fn seat_of(&self, colour: &str) -> Option<Seat> {
        self.colours
            .iter()
            .find(|(c, _)| c == colour)
            .map(|&(_, s)| s)
    }

    /// "Ada (Yellow)", "You (Yellow)", or "Yellow" when nobody is known there.
    fn colour(&self, colour: &str) -> String {
        match self.seat_of(colour) {
            Some(s) => self.people.label(s, colour),
            None => colour.to_string(),
        }
    }

    /// The person playing `colour` alone ("Ada", "You"), or `fallback`.
    fn who(&self, colour: &str, fallback: &str) -> String {
        match self.seat_of(colour) {
            Some(s) => self.people.who(s, fallback),
            None => fallback.to_string(),
        }
    }

    /// A team (colours `a` and `a + 2`): "Ada & Cy (Yellow + Blue)"; with two seats each
    /// plays a whole team: "You (Yellow + Blue)".
    fn team(&self, team: usize) -> String {
        let (Some((a, sa)), Some((b, sb))) = (self.colours.get(team), self.colours.get(team + 2))
        else {
            return String::new();
        };
        let colours = format!("{a} + {b}");
        if sa == sb {
            return self.people.label(*sa, &colours);
        }
        match (self.people.name(*sa), self.people.name(*sb)) {
            (None, None) => colours,
            _ => format!(
                "{} & {} ({colours})",
                self.people.who(*sa, a),
                self.people.who(*sb, b)
            ),
        }
    }

    /// An event line with its leading colour (the mover) named with its person:
    /// "Ada (Yellow) plays 7♥: …".
    fn event(&self, line: &str) -> String {
        for (colour, _) in &self.colours {
            if let Some(rest) = line.strip_prefix(colour.as_str())
                && (rest.starts_with(' ') || rest.starts_with('\''))
            {
                return format!("{}{rest}", self.colour(colour));
            }
        }
        line.to_string()
    }
}

/// The colours waiting to choose their exchange card.
fn waiting(view: &View) -> Vec<&ColourView> {
    view.colours.iter().filter(|c| !c.exchange_chosen).collect()
}

fn status_line(view: &View, names: &Names) -> String {
    if let Some(over) = names.people.game_over() {
        return over;
    }
    let me = view.common.viewer;
    match view.phase {
        Phase::Finished => view
            .result
            .clone()
            .unwrap_or_else(|| "The game is over".into()),
        Phase::Exchange => {
            let waiting_for: Vec<String> = waiting(view)
                .iter()
                .map(|c| names.colour(&c.colour))
                .collect();
            let mine = waiting(view).iter().any(|c| Some(c.seat) == me);
            if mine {
                "Card exchange: your turn to give your partner a card".to_string()
            } else {
                format!("Card exchange: waiting for {}", waiting_for.join(", "))
            }
        }
        Phase::Play => match &view.to_play {
            Some(colour) => {
                let seat = view
                    .colours
                    .iter()
                    .find(|c| &c.colour == colour)
                    .map(|c| c.seat);
                match seat {
                    Some(s) if Some(s) == me => format!("Your turn: play a card for {colour}"),
                    Some(_) => format!("{} to play", names.colour(colour)),
                    None => format!("{colour} to play"),
                }
            }
            None => String::new(),
        },
    }
}

fn team_names(names: &Names) -> [String; 2] {
    [names.team(0), names.team(1)]
}

fn description(view: &View, names: &Names) -> String {
    let mut d = format!(
        "Partners, deal {} ({} of {} in this deck), dealer {}. {}. ",
        view.deal,
        view.deal_in_cycle,
        view.deals_per_cycle,
        names.colour(&view.dealer),
        status_line(view, names)
    );
    let teams = team_names(names);
    let _ = write!(
        d,
        "Teams: {} against {}. Pieces home: {} {}, {} {}. ",
        teams[0],
        teams[1],
        teams[0],
        view.team_home.first().copied().unwrap_or(0),
        teams[1],
        view.team_home.get(1).copied().unwrap_or(0)
    );
    for c in &view.colours {
        let track: Vec<String> = c
            .on_track
            .iter()
            .map(|p| {
                if p.may_enter_home {
                    p.field.to_string()
                } else {
                    format!("{} (not yet left its start)", p.field)
                }
            })
            .collect();
        let home: Vec<String> = c
            .home
            .iter()
            .enumerate()
            .filter(|(_, o)| **o)
            .map(|(i, _)| format!("H{}", i + 1))
            .collect();
        let _ = write!(
            d,
            "{} (start field {}): {} in the start circle, on the track {}, home {}; {} in hand",
            names.colour(&c.colour),
            c.start_field,
            c.in_circle,
            if track.is_empty() {
                "none".to_string()
            } else {
                track.join(", ")
            },
            if home.is_empty() {
                "none".to_string()
            } else {
                home.join(" ")
            },
            plural(c.cards_in_hand, "card")
        );
        if c.moves_for != c.colour {
            let _ = write!(d, ", all home, now moves {}", c.moves_for);
        }
        if c.laid_down {
            d.push_str(", laid its hand down");
        }
        if view.phase == Phase::Exchange {
            d.push_str(if c.exchange_chosen {
                ", has chosen its exchange card"
            } else {
                ", still choosing its exchange card"
            });
        }
        d.push_str(". ");
    }
    for c in &view.colours {
        if let Some(hand) = &c.hand {
            let _ = write!(d, "Your hand for {}: {}. ", c.colour, cards_words(hand));
        }
        if let Some(card) = c.exchange_card {
            let _ = write!(d, "{} gives {} to its partner. ", c.colour, card.pretty());
        }
    }
    let _ = write!(
        d,
        "Played pile: {} cards{}. Deck: {} cards.",
        view.played.len(),
        view.played
            .last()
            .map_or(String::new(), |c| format!(", last {}", c.pretty())),
        view.cards_in_deck
    );
    d
}

/// Screen position of a point at `radius` from the centre in the direction of track
/// field `field` (fractional fields allowed). Field 0 (Yellow's start) is at the top left
/// and numbers grow clockwise, so the four start fields sit in the corners.
fn polar(centre: (f64, f64), fields: f64, field: f64, radius: f64) -> (f64, f64) {
    let a = -0.75 * PI + field * 2.0 * PI / fields.max(1.0);
    (centre.0 + radius * a.cos(), centre.1 + radius * a.sin())
}

/// A piece; `target` is the `data-target` of the place it stands on (its field, home
/// field or start circle), so a click on the piece picks the moves of that place.
#[allow(clippy::too_many_arguments)]
fn piece(svg: &mut Svg, x: f64, y: f64, colour: &str, fresh: bool, place: &str, target: &str) {
    let (fill, _, on) = palette(colour);
    svg.open(
        "g",
        &[
            ("class", "piece".into()),
            ("data-colour", colour.into()),
            ("data-where", place.into()),
            ("data-target", target.into()),
        ],
    );
    svg.el(
        "circle",
        &[
            ("cx", x.into()),
            ("cy", y.into()),
            ("r", PIECE_R.into()),
            ("fill", fill.into()),
            ("stroke", "#111111".into()),
            ("stroke-width", 1.5.into()),
        ],
    );
    // A piece that has not left its start field yet cannot turn into its home: a ring.
    if fresh {
        svg.el(
            "circle",
            &[
                ("cx", x.into()),
                ("cy", y.into()),
                ("r", 4.0.into()),
                ("fill", "none".into()),
                ("stroke", on.into()),
                ("stroke-width", 2.0.into()),
            ],
        );
    }
    svg.close("g");
}

/// The `data-target` of a track field, a home field (1 to 4) and a start circle.
pub fn field_target(field: u8) -> String {
    format!("field:{field}")
}

pub fn home_target(colour: &str, h: u8) -> String {
    format!("home:{colour}.{h}")
}

pub fn circle_target(colour: &str) -> String {
    format!("circle:{colour}")
}

/// A field of the ring or a home lane: a circle carrying its `data-target`.
#[allow(clippy::too_many_arguments)]
fn field_circle(
    svg: &mut Svg,
    x: f64,
    y: f64,
    r: f64,
    fill: &str,
    stroke: &str,
    width: f64,
    target: &str,
) {
    svg.el(
        "circle",
        &[
            ("cx", x.into()),
            ("cy", y.into()),
            ("r", r.into()),
            ("fill", fill.into()),
            ("stroke", stroke.into()),
            ("stroke-width", width.into()),
            ("data-target", target.into()),
        ],
    );
}

fn draw_board(svg: &mut Svg, d: &Data, view: &View, top: f64, names: &Names) {
    let fields = f64::from(d.board.track_fields);
    let centre = (WIDTH / 2.0, top + BOARD / 2.0);
    panel(
        svg,
        MARGIN,
        top,
        WIDTH - 2.0 * MARGIN,
        BOARD,
        14.0,
        "#f3ead7",
        "#b9a77e",
        2.0,
    );
    svg.circle(centre.0, centre.1, RING, "none", "#cdbb92");
    let start_of: BTreeMap<u8, &ColourView> =
        view.colours.iter().map(|c| (c.start_field, c)).collect();
    // The track.
    for f in 0..d.board.track_fields {
        let (x, y) = polar(centre, fields, f64::from(f), RING);
        let target = field_target(f);
        match start_of.get(&f) {
            Some(c) => {
                let (fill, tint, _) = palette(&c.colour);
                field_circle(svg, x, y, FIELD_R + 2.0, tint, fill, 3.0, &target);
            }
            None => {
                field_circle(svg, x, y, FIELD_R, "#ffffff", "#8c8c8c", 1.0, &target);
            }
        }
        if f % 4 == 0 {
            let (lx, ly) = polar(centre, fields, f64::from(f), RING + 23.0);
            svg.text(lx, ly + 4.0, 11.0, "middle", MUTED, &f.to_string());
        }
    }
    // Home lanes, start circles and names, one per colour.
    for c in &view.colours {
        let (fill, tint, _) = palette(&c.colour);
        let f = f64::from(c.start_field);
        // The lane runs from the start field towards the middle, tighter if it is long.
        let step = (24.0f64).min((RING - 110.0) / c.home.len().max(1) as f64);
        for (i, &occupied) in c.home.iter().enumerate() {
            let (x, y) = polar(centre, fields, f, RING - 30.0 - step * i as f64);
            let target = home_target(&c.colour, i as u8 + 1);
            field_circle(svg, x, y, FIELD_R + 1.0, tint, fill, 1.0, &target);
            if occupied {
                piece(svg, x, y, &c.colour, false, "home", &target);
            }
        }
        // The start circle: a 2 x 2 cluster outside the ring, in the colour's corner.
        let (cx, cy) = polar(centre, fields, f, RING + 62.0);
        let target = circle_target(&c.colour);
        field_circle(svg, cx, cy, 27.0, tint, fill, 1.0, &target);
        let slots = [(-10.0, -10.0), (10.0, -10.0), (-10.0, 10.0), (10.0, 10.0)];
        for &(dx, dy) in slots.iter().take(c.in_circle.min(4)) {
            piece(svg, cx + dx, cy + dy, &c.colour, false, "circle", &target);
        }
        // Its name and seat over the circle in the top corners, under it in the bottom.
        let (name_y, seat_y) = if cy > centre.1 {
            (cy + 45.0, cy + 59.0)
        } else {
            (cy - 47.0, cy - 33.0)
        };
        svg.text_bold(cx, name_y, 14.0, "middle", name_ink(&c.colour), &c.colour);
        let who = names.who(&c.colour, &format!("Seat {}", c.seat + 1));
        svg.text(
            cx,
            seat_y,
            11.0,
            "middle",
            INK,
            &fit_text(&who, 11.0, 180.0),
        );
    }
    // Pieces on the track: a pair on one field is drawn as two overlapping pieces.
    for c in &view.colours {
        let mut by_field: BTreeMap<u8, Vec<bool>> = BTreeMap::new();
        for p in &c.on_track {
            by_field.entry(p.field).or_default().push(p.may_enter_home);
        }
        for (field, pieces) in by_field {
            let n = pieces.len() as f64;
            let (x, y) = polar(centre, fields, f64::from(field), RING);
            for (i, may_enter) in pieces.iter().enumerate() {
                let shift = (i as f64 - (n - 1.0) / 2.0) * 6.0;
                let target = field_target(field);
                piece(
                    svg,
                    x + shift,
                    y - shift,
                    &c.colour,
                    !may_enter,
                    "track",
                    &target,
                );
            }
        }
    }
    // The middle: the deck and the played pile.
    let (mx, my) = centre;
    svg.text_bold(
        mx,
        my - 58.0,
        13.0,
        "middle",
        INK,
        &format!("Deal {}", view.deal),
    );
    svg.text(
        mx,
        my - 42.0,
        11.0,
        "middle",
        MUTED,
        &format!(
            "{} of {} in this deck · dealer {}",
            view.deal_in_cycle, view.deals_per_cycle, view.dealer
        ),
    );
    // The legend of the ring inside a piece, at the foot of the board.
    let (lx, ly) = (centre.0 - 70.0, top + BOARD - 16.0);
    svg.circle(lx, ly - 4.0, PIECE_R, "#777777", "#111111");
    svg.circle(lx, ly - 4.0, 4.0, "none", "#ffffff");
    svg.text(
        lx + 14.0,
        ly,
        11.0,
        "start",
        MUTED,
        "not yet left its start",
    );
    let cw = 40.0;
    if view.cards_in_deck > 0 {
        card_back(svg, mx - cw - 14.0, my - 28.0, cw, "deck");
    } else {
        panel(
            svg,
            mx - cw - 14.0,
            my - 28.0,
            cw,
            card_height(cw),
            4.0,
            "none",
            "#b9a77e",
            1.0,
        );
    }
    svg.text(
        mx - cw / 2.0 - 14.0,
        my + 46.0,
        11.0,
        "middle",
        INK,
        &format!("deck {}", view.cards_in_deck),
    );
    match view.played.last() {
        Some(&card) => playing_card(svg, mx + 14.0, my - 28.0, cw, card, "pile-card"),
        None => panel(
            svg,
            mx + 14.0,
            my - 28.0,
            cw,
            card_height(cw),
            4.0,
            "none",
            "#b9a77e",
            1.0,
        ),
    }
    svg.text(
        mx + cw / 2.0 + 14.0,
        my + 46.0,
        11.0,
        "middle",
        INK,
        &format!("played {}", view.played.len()),
    );
}

fn draw_header(svg: &mut Svg, d: &Data, view: &View, names: &Names) -> f64 {
    svg.text_bold(MARGIN, 24.0, 18.0, "start", INK, "Partners");
    svg.text(
        WIDTH - MARGIN,
        24.0,
        12.0,
        "end",
        MUTED,
        &format!(
            "deal {} · {} of {} in this deck · dealer {}",
            view.deal, view.deal_in_cycle, view.deals_per_cycle, view.dealer
        ),
    );
    let colour = match (&view.phase, &view.to_play) {
        (Phase::Play, Some(c)) if names.people.ending().is_none() => name_ink(c),
        _ => INK,
    };
    let chips = status_banner(svg, 34.0, &status_line(view, names), colour) + 11.0;
    // The two partnerships and their pieces home (the score of this race), one chip per
    // team, each on its own row when the names are long.
    let teams = team_names(names);
    let texts: Vec<String> = teams
        .iter()
        .enumerate()
        .map(|(t, name)| {
            let n = view.team_home.get(t).copied().unwrap_or(0);
            format!(
                "{name}: {n} of {} home",
                2 * usize::from(d.board.pieces_per_colour)
            )
        })
        .collect();
    let room = WIDTH - 2.0 * MARGIN - 30.0;
    let one_row: f64 = texts.iter().map(|t| chip_width(t)).sum::<f64>() + 24.0;
    let mut x = MARGIN;
    let mut y = chips;
    for (t, text) in texts.iter().enumerate() {
        let text = fit_text(text, 12.0, room);
        let w = chip_width(&text).min(WIDTH - 2.0 * MARGIN);
        if t == 1 {
            if one_row > WIDTH - 2.0 * MARGIN {
                x = MARGIN;
                y += 28.0;
            } else {
                svg.text_bold(x + 12.0, y + 15.0, 12.0, "middle", INK, "vs");
                x += 24.0;
            }
        }
        let ink = view.colours.get(t).map_or(INK, |c| name_ink(&c.colour));
        panel(svg, x, y, w, 22.0, 11.0, "#ffffff", ink, 1.5);
        svg.text_bold(x + w / 2.0, y + 15.0, 12.0, "middle", ink, &text);
        x += w;
    }
    y + 22.0
}

/// One row per colour: its name and seat, the hand (face up to its player only, backs to
/// everyone else), and its exchange step. Returns the y below the rows.
fn draw_hands(svg: &mut Svg, view: &View, top: f64, names: &Names) -> f64 {
    let me = view.common.viewer;
    let row_h = card_height(ROW_CARD) + 18.0;
    let mut y = top;
    for c in &view.colours {
        let (fill, tint, _) = palette(&c.colour);
        let ink = name_ink(&c.colour);
        let to_act = match view.phase {
            _ if names.people.ending().is_some() => false,
            Phase::Play => view.to_play.as_deref() == Some(c.colour.as_str()),
            Phase::Exchange => !c.exchange_chosen,
            Phase::Finished => false,
        };
        svg.open(
            "g",
            &[
                ("class", "hand-row".into()),
                ("data-colour", (&c.colour).into()),
            ],
        );
        panel(
            svg,
            MARGIN,
            y,
            WIDTH - 2.0 * MARGIN,
            row_h - 6.0,
            8.0,
            if to_act { tint } else { "#ffffff" },
            fill,
            if to_act { 3.0 } else { 1.0 },
        );
        svg.text_bold(MARGIN + 10.0, y + 20.0, 14.0, "start", ink, &c.colour);
        let who = names.who(&c.colour, &format!("Seat {}", c.seat + 1));
        svg.text(
            MARGIN + 10.0,
            y + 36.0,
            11.0,
            "start",
            INK,
            &fit_text(&who, 11.0, 94.0),
        );
        // The hand whose cards a click plays: the colour to play, or the viewer's own in
        // the exchange.
        let clickable = match view.phase {
            Phase::Play => to_act,
            Phase::Exchange => to_act && Some(c.seat) == me,
            Phase::Finished => false,
        };
        let cards_x = MARGIN + 108.0;
        match &c.hand {
            Some(hand) => {
                for (i, &card) in hand.iter().enumerate() {
                    let target = card_target(card);
                    if clickable {
                        svg.open("g", &[("data-target", (&target).into())]);
                    }
                    playing_card(
                        svg,
                        cards_x + (ROW_CARD + 6.0) * i as f64,
                        y + 4.0,
                        ROW_CARD,
                        card,
                        "hand-card",
                    );
                    if clickable {
                        svg.close("g");
                    }
                }
            }
            None => {
                for i in 0..c.cards_in_hand {
                    card_back(
                        svg,
                        cards_x + 14.0 * i as f64,
                        y + 4.0,
                        ROW_CARD,
                        "card-back",
                    );
                }
            }
        }
        let shown = match &c.hand {
            Some(h) => (ROW_CARD + 6.0) * h.len() as f64,
            None => 14.0 * c.cards_in_hand as f64 + ROW_CARD - 14.0,
        };
        let info_x = cards_x + shown.max(0.0) + 10.0;
        svg.text_bold(
            info_x,
            y + 20.0,
            12.0,
            "start",
            INK,
            &plural(c.cards_in_hand, "card"),
        );
        let mut notes: Vec<String> = Vec::new();
        if c.moves_for != c.colour {
            notes.push(format!("all home, moves {}", c.moves_for));
        }
        if c.laid_down {
            notes.push("laid its hand down".into());
        }
        if view.phase == Phase::Exchange {
            notes.push(if c.exchange_chosen {
                "exchange card chosen".into()
            } else {
                "choosing a card for its partner".into()
            });
        }
        if to_act && view.phase == Phase::Play {
            notes.push("▶ to play".into());
        }
        let note_w =
            WIDTH - MARGIN - 10.0 - info_x - if c.exchange_card.is_some() { 60.0 } else { 0.0 };
        svg.text(
            info_x,
            y + 36.0,
            11.0,
            "start",
            INK,
            &fit_text(&notes.join(" · "), 11.0, note_w),
        );
        // The exchange card, where this viewer may see it.
        if let Some(card) = c.exchange_card {
            let x = WIDTH - MARGIN - 10.0 - ROW_CARD;
            svg.text(x - 6.0, y + 20.0, 11.0, "end", INK, "gives →");
            playing_card(svg, x, y + 4.0, ROW_CARD, card, "exchange-card");
        }
        svg.close("g");
        y += row_h;
    }
    y
}

/// The width of a chip holding bold 12 px `text` (bold runs wider than the estimate).
fn chip_width(text: &str) -> f64 {
    text_width(text, 12.0) * 1.12 + 16.0
}

/// The `data-target` of a card in the hand to play.
pub fn card_target(card: Card) -> String {
    format!("card:{card}")
}

fn draw_recent(svg: &mut Svg, view: &View, top: f64, names: &Names) -> f64 {
    let lines: Vec<&String> = view.recent.iter().rev().take(4).collect();
    if lines.is_empty() {
        return top;
    }
    svg.text_bold(MARGIN, top + 14.0, 12.0, "start", INK, "Recently");
    let mut y = top + 14.0;
    for line in lines.into_iter().rev() {
        y += 16.0;
        svg.text(
            MARGIN + 8.0,
            y,
            11.0,
            "start",
            MUTED,
            &fit_text(&names.event(line), 11.0, WIDTH - 2.0 * MARGIN - 8.0),
        );
    }
    y + 10.0
}

pub fn board_svg(d: &Data, view: &View, people: &People) -> String {
    if view.colours.is_empty() {
        // The data file was broken when the view was made: nothing to draw a board from.
        return text_picture("Partners", &view.recent.join("\n"));
    }
    let names = &Names::new(people, view);
    let title = format!("Partners: {}", status_line(view, names));
    let mut svg = Svg::new(600.0, &title, &description(view, names));
    let top = draw_header(&mut svg, d, view, names) + 12.0;
    draw_board(&mut svg, d, view, top, names);
    let y = draw_hands(&mut svg, view, top + BOARD + 10.0, names);
    let y = draw_recent(&mut svg, view, y, names);
    svg.set_height(y);
    svg.finish()
}

/// The picture for a viewer whose data file is unavailable.
pub fn unavailable(error: &str) -> String {
    text_picture("Partners", error)
}
