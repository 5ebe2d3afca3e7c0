//! A small SVG writer shared by the games' board pictures.
//!
//! Pictures must be byte-identical for the same view (they are cached, compared by the
//! contract harness and attached to emails), so attributes are written in the order given,
//! numbers with a fixed precision, and every text escaped. Games draw with these few shapes;
//! anything fancier belongs in a `<g>` of plain shapes.

use std::fmt::Write;

/// Pixel width every board picture is laid out for: readable on a phone and in an email.
pub const WIDTH: f64 = 600.0;

/// A picture under construction. Call [`Svg::finish`] for the document.
#[derive(Debug)]
pub struct Svg {
    body: String,
    width: f64,
    height: f64,
    title: String,
    desc: String,
    depth: usize,
}

/// An attribute value: numbers are printed with at most two decimals, so a layout computed
/// in floating point gives the same bytes on every machine.
pub enum Attr<'a> {
    Num(f64),
    Str(&'a str),
}

impl From<f64> for Attr<'_> {
    fn from(v: f64) -> Self {
        Attr::Num(v)
    }
}

impl From<i64> for Attr<'_> {
    fn from(v: i64) -> Self {
        Attr::Num(v as f64)
    }
}

impl From<usize> for Attr<'_> {
    fn from(v: usize) -> Self {
        Attr::Num(v as f64)
    }
}

impl<'a> From<&'a str> for Attr<'a> {
    fn from(v: &'a str) -> Self {
        Attr::Str(v)
    }
}

impl<'a> From<&'a String> for Attr<'a> {
    fn from(v: &'a String) -> Self {
        Attr::Str(v.as_str())
    }
}

/// Formats a coordinate: integers without a fraction, others with up to two decimals.
pub fn num(v: f64) -> String {
    let mut out = String::new();
    push_num(&mut out, v);
    out
}

/// [`num`] appended to `out`. Drawing writes thousands of numbers per picture, so this
/// works in whole hundredths rather than through float formatting.
fn push_num(out: &mut String, v: f64) {
    if !v.is_finite() {
        out.push('0');
        return;
    }
    let rounded = (v * 100.0).round() / 100.0;
    if rounded == rounded.trunc() {
        let _ = write!(out, "{}", rounded as i64);
    } else {
        // |v| < 2^53 here (larger floats are whole), so hundredths fit an i64 exactly.
        let hundredths = (v * 100.0).round() as i64;
        let (whole, frac) = (hundredths.abs() / 100, hundredths.abs() % 100);
        if hundredths < 0 {
            out.push('-');
        }
        let _ = write!(out, "{whole}.{}", frac / 10);
        if frac % 10 != 0 {
            let _ = write!(out, "{}", frac % 10);
        }
    }
}

fn write_attrs(out: &mut String, attrs: &[(&str, Attr<'_>)]) {
    for (name, value) in attrs {
        out.push(' ');
        out.push_str(name);
        out.push_str("=\"");
        match value {
            Attr::Num(v) => push_num(out, *v),
            Attr::Str(s) => {
                html_escape::encode_double_quoted_attribute_to_string(s, out);
            }
        }
        out.push('"');
    }
}

/// Whether XML 1.0 allows `c` (it forbids NUL and the other C0 controls but tab and
/// newline).
fn xml_allowed(c: char) -> bool {
    c == '\t' || c == '\n' || c == '\r' || (c >= ' ' && c != '\u{FFFE}' && c != '\u{FFFF}')
}

/// Removes characters XML 1.0 forbids, so a player's name can never make the picture
/// unparseable.
fn xml_safe(text: &str) -> String {
    text.chars().filter(|&c| xml_allowed(c)).collect()
}

/// Appends `text` to `out` as element content: what [`xml_safe`] keeps, escaped as
/// `html_escape::encode_text` escapes it (`&`, `<`, `>`), without building either string.
fn push_text(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if xml_allowed(c) => out.push(c),
            _ => {}
        }
    }
}

impl Svg {
    /// A picture `height` pixels tall (600 wide), with a title and a description for screen
    /// readers: say in words what the picture shows.
    pub fn new(height: f64, title: &str, desc: &str) -> Svg {
        Svg::with_width(WIDTH, height, title, desc)
    }

    pub fn with_width(width: f64, height: f64, title: &str, desc: &str) -> Svg {
        Svg {
            body: String::new(),
            width,
            height,
            title: xml_safe(title),
            desc: xml_safe(desc),
            depth: 0,
        }
    }

    pub fn height(&self) -> f64 {
        self.height
    }

    /// Grows the picture (layouts that learn their height while drawing).
    pub fn set_height(&mut self, height: f64) {
        self.height = height;
    }

    fn indent(&mut self) {
        for _ in 0..=self.depth {
            self.body.push_str("  ");
        }
    }

    /// An empty element: `el("rect", &[("x", 1.0.into()), ...])`.
    pub fn el(&mut self, name: &str, attrs: &[(&str, Attr<'_>)]) -> &mut Self {
        self.indent();
        let _ = write!(self.body, "<{name}");
        write_attrs(&mut self.body, attrs);
        self.body.push_str("/>\n");
        self
    }

    /// An element holding escaped text (`text`, `title`, `tspan`).
    pub fn text_el(&mut self, name: &str, attrs: &[(&str, Attr<'_>)], text: &str) -> &mut Self {
        self.indent();
        let _ = write!(self.body, "<{name}");
        write_attrs(&mut self.body, attrs);
        self.body.push('>');
        push_text(&mut self.body, text);
        let _ = writeln!(self.body, "</{name}>");
        self
    }

    /// Opens a group; close it with [`Svg::close`].
    pub fn open(&mut self, name: &str, attrs: &[(&str, Attr<'_>)]) -> &mut Self {
        self.indent();
        let _ = write!(self.body, "<{name}");
        write_attrs(&mut self.body, attrs);
        self.body.push_str(">\n");
        self.depth += 1;
        self
    }

    pub fn close(&mut self, name: &str) -> &mut Self {
        self.depth = self.depth.saturating_sub(1);
        self.indent();
        let _ = writeln!(self.body, "</{name}>");
        self
    }

    pub fn rect(&mut self, x: f64, y: f64, w: f64, h: f64, fill: &str, stroke: &str) -> &mut Self {
        self.el(
            "rect",
            &[
                ("x", x.into()),
                ("y", y.into()),
                ("width", w.into()),
                ("height", h.into()),
                ("rx", 4.0.into()),
                ("fill", fill.into()),
                ("stroke", stroke.into()),
            ],
        )
    }

    pub fn circle(&mut self, cx: f64, cy: f64, r: f64, fill: &str, stroke: &str) -> &mut Self {
        self.el(
            "circle",
            &[
                ("cx", cx.into()),
                ("cy", cy.into()),
                ("r", r.into()),
                ("fill", fill.into()),
                ("stroke", stroke.into()),
            ],
        )
    }

    pub fn line(
        &mut self,
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        stroke: &str,
        width: f64,
    ) -> &mut Self {
        self.el(
            "line",
            &[
                ("x1", x1.into()),
                ("y1", y1.into()),
                ("x2", x2.into()),
                ("y2", y2.into()),
                ("stroke", stroke.into()),
                ("stroke-width", width.into()),
            ],
        )
    }

    /// A closed polygon through `points`.
    pub fn polygon(&mut self, points: &[(f64, f64)], fill: &str, stroke: &str) -> &mut Self {
        let pts = points_attr(points);
        self.el(
            "polygon",
            &[
                ("points", Attr::Str(&pts)),
                ("fill", fill.into()),
                ("stroke", stroke.into()),
            ],
        )
    }

    /// Text anchored at (x, y): `anchor` is `start`, `middle` or `end`.
    pub fn text(
        &mut self,
        x: f64,
        y: f64,
        size: f64,
        anchor: &str,
        fill: &str,
        text: &str,
    ) -> &mut Self {
        self.text_weighted(x, y, size, None, anchor, fill, text)
    }

    /// Bold text anchored at (x, y), like [`Svg::text`]: headings, names, figures.
    pub fn text_bold(
        &mut self,
        x: f64,
        y: f64,
        size: f64,
        anchor: &str,
        fill: &str,
        text: &str,
    ) -> &mut Self {
        self.text_weighted(x, y, size, Some("bold"), anchor, fill, text)
    }

    #[allow(clippy::too_many_arguments)]
    fn text_weighted(
        &mut self,
        x: f64,
        y: f64,
        size: f64,
        weight: Option<&str>,
        anchor: &str,
        fill: &str,
        text: &str,
    ) -> &mut Self {
        let mut attrs: Vec<(&str, Attr)> =
            vec![("x", x.into()), ("y", y.into()), ("font-size", size.into())];
        if let Some(w) = weight {
            attrs.push(("font-weight", w.into()));
        }
        attrs.push(("text-anchor", anchor.into()));
        attrs.push(("fill", fill.into()));
        self.text_el("text", &attrs, text)
    }

    /// The finished document, with `<title>` and `<desc>` first so screen readers announce
    /// them, and a `viewBox` so it scales to any width.
    pub fn finish(mut self) -> String {
        while self.depth > 0 {
            self.close("g");
        }
        let mut out = String::with_capacity(self.body.len() + 512);
        let (w, h) = (num(self.width), num(self.height));
        let _ = writeln!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"title desc\" font-family=\"DejaVu Sans, Verdana, sans-serif\">"
        );
        let _ = writeln!(
            out,
            "  <title id=\"title\">{}</title>",
            html_escape::encode_text(&self.title)
        );
        let _ = writeln!(
            out,
            "  <desc id=\"desc\">{}</desc>",
            html_escape::encode_text(&self.desc)
        );
        let _ = writeln!(
            out,
            "  <rect x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\" fill=\"#fbfaf5\"/>"
        );
        out.push_str(&self.body);
        out.push_str("</svg>\n");
        out
    }
}

/// A picture for a game that draws no board of its own: the title and the text rendering.
pub fn text_picture(title: &str, text: &str) -> String {
    let lines: Vec<&str> = text.lines().take(80).collect();
    let mut svg = Svg::new(40.0 + 16.0 * lines.len() as f64, title, text);
    svg.text(10.0, 24.0, 16.0, "start", "#222", title);
    for (i, line) in lines.iter().enumerate() {
        svg.text_el(
            "text",
            &[
                ("x", 10.0.into()),
                ("y", (44.0 + 16.0 * i as f64).into()),
                ("font-size", 12.0.into()),
                ("font-family", "DejaVu Sans Mono, monospace".into()),
                ("xml:space", "preserve".into()),
                ("fill", "#222".into()),
            ],
            line,
        );
    }
    svg.finish()
}

/// √3, written out so that hexagon layouts are the same bytes on every machine (no libm).
pub const SQRT_3: f64 = 1.732_050_807_568_877_2;

/// The six corners of a pointy-top hexagon with circumradius `size` centred on (cx, cy),
/// clockwise from the top. Only products of constants, so the output is deterministic.
pub fn pointy_hex_corners(cx: f64, cy: f64, size: f64) -> [(f64, f64); 6] {
    let dx = size * SQRT_3 / 2.0;
    let dy = size / 2.0;
    [
        (cx, cy - size),
        (cx + dx, cy - dy),
        (cx + dx, cy + dy),
        (cx, cy + size),
        (cx - dx, cy + dy),
        (cx - dx, cy - dy),
    ]
}

/// The pixel offset of axial hex `h` from hex (0, 0) on a pointy-top grid of circumradius
/// `size` (see [`crate::hex`]).
pub fn pointy_hex_center(h: crate::hex::Hex, size: f64) -> (f64, f64) {
    let q = f64::from(h.q);
    let r = f64::from(h.r);
    (size * SQRT_3 * (q + r / 2.0), size * 1.5 * r)
}

/// A `points` attribute for a polygon or polyline, with [`num`] coordinates.
pub fn points_attr(points: &[(f64, f64)]) -> String {
    let mut out = String::with_capacity(points.len() * 12);
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        push_num(&mut out, x);
        out.push(',');
        push_num(&mut out, y);
    }
    out
}

/// A rough width in pixels of `text` at font `size` (DejaVu Sans: about 0.6 em for lower case
/// and digits, 0.72 for capitals, a third for spaces and narrow marks), so layouts can keep
/// labels apart without measuring fonts. It errs wide rather than narrow.
pub fn text_width(text: &str, size: f64) -> f64 {
    let ems: f64 = text
        .chars()
        .map(|c| match c {
            ' ' | '.' | ',' | ':' | ';' | '\'' | '|' | 'i' | 'j' | 'l' | '!' | '(' | ')' => 0.34,
            'f' | 't' | 'r' | 'I' | '-' => 0.45,
            'm' | 'w' | 'M' | 'W' => 0.92,
            c if c.is_ascii_uppercase() => 0.72,
            c if c.is_ascii() => 0.62,
            _ => 0.8,
        })
        .sum();
    ems * size
}

/// Splits `text` into lines of at most `max_chars` characters at spaces (a longer word gets
/// a line of its own), for paragraphs in a picture.
pub fn wrap_chars(text: &str, max_chars: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > max_chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

// ------------------------------------------------------------- card-game helpers
//
// Shared by the card and tile games' pictures (Kasino, Partners, Crossword Rummy): bold
// text, panels with their own corner radius, text cut to a width, and playing cards.

/// A rectangle with its own corner radius and stroke width (a panel, a tile, a highlight).
#[allow(clippy::too_many_arguments)]
pub fn panel(
    svg: &mut Svg,
    x: f64,
    y: f64,
    w: f64,
    h: f64,
    rx: f64,
    fill: &str,
    stroke: &str,
    stroke_width: f64,
) {
    svg.el(
        "rect",
        &[
            ("x", x.into()),
            ("y", y.into()),
            ("width", w.into()),
            ("height", h.into()),
            ("rx", rx.into()),
            ("fill", fill.into()),
            ("stroke", stroke.into()),
            ("stroke-width", stroke_width.into()),
        ],
    );
}

/// `text` cut (with an ellipsis) so that it fits about `width` pixels at `size` px in the
/// pictures' sans-serif font. An estimate (0.62 em per character, generous for DejaVu
/// Sans), so the result is the same on every machine, with or without the font.
pub fn fit_text(text: &str, size: f64, width: f64) -> String {
    let max = ((width / (size * 0.62)).floor() as usize).max(1);
    if text.chars().count() <= max {
        text.to_string()
    } else {
        let mut cut: String = text.chars().take(max.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Red for hearts and diamonds, near-black for clubs and spades.
pub fn suit_colour(suit: crate::cards::Suit) -> &'static str {
    use crate::cards::Suit;
    match suit {
        Suit::Hearts | Suit::Diamonds => "#c62828",
        Suit::Clubs | Suit::Spades => "#1a1a1a",
    }
}

/// Height of a playing card `w` wide (the usual 5:7 shape).
pub fn card_height(w: f64) -> f64 {
    w * 1.4
}

/// A face-up playing card with its top-left corner at (x, y), `w` wide: the rank and suit
/// in the corner (still readable when the next card overlaps the rest) and a large suit in
/// the middle. The group carries `class` and `data-card` (`"10H"`) so tests and scripts can
/// find what is drawn.
pub fn playing_card(svg: &mut Svg, x: f64, y: f64, w: f64, card: crate::cards::Card, class: &str) {
    let h = card_height(w);
    let code = card.to_string();
    let pretty = card.pretty();
    let colour = suit_colour(card.suit);
    svg.open(
        "g",
        &[("class", class.into()), ("data-card", Attr::Str(&code))],
    );
    svg.text_el("title", &[], &pretty);
    panel(svg, x, y, w, h, w * 0.1, "#ffffff", "#555555", 1.0);
    let rank: String = pretty
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let corner = (w * 0.3).max(11.0);
    svg.text_bold(x + w * 0.08, y + corner, corner, "start", colour, &rank);
    let symbol = card.suit.symbol().to_string();
    svg.text(
        x + w * 0.08,
        y + corner * 2.0,
        corner * 0.9,
        "start",
        colour,
        &symbol,
    );
    svg.text(
        x + w * 0.62,
        y + h * 0.78,
        w * 0.5,
        "middle",
        colour,
        &symbol,
    );
    svg.close("g");
}

/// A face-down playing card with its top-left corner at (x, y), `w` wide, in a group of
/// class `class`.
pub fn card_back(svg: &mut Svg, x: f64, y: f64, w: f64, class: &str) {
    let h = card_height(w);
    svg.open("g", &[("class", class.into())]);
    panel(svg, x, y, w, h, w * 0.1, "#2c4f8a", "#1b2f52", 1.0);
    let inset = (w * 0.12).max(2.0);
    panel(
        svg,
        x + inset,
        y + inset,
        w - 2.0 * inset,
        h - 2.0 * inset,
        w * 0.06,
        "#3d68ad",
        "#c9d6ee",
        1.0,
    );
    svg.close("g");
}

/// `text` broken at spaces into lines of about `width` pixels at `size` px (the estimate
/// of [`fit_text`]); a word longer than a line is cut.
pub fn wrap_text(text: &str, size: f64, width: f64) -> Vec<String> {
    let max = ((width / (size * 0.62)).floor() as usize).max(1);
    let mut lines = wrap_chars(text, max);
    if lines.is_empty() {
        lines.push(String::new());
    }
    lines
        .into_iter()
        .map(|l| fit_text(&l, size, width))
        .collect()
}

/// The last six lines of a game's event list under the heading "Recent events" (or
/// "none yet"), wrapped to the picture's width, from `top`; returns the y of the last line.
pub fn recent_events(svg: &mut Svg, events: &[String], top: f64, ink: &str, muted: &str) -> f64 {
    let mut y = top + 14.0;
    svg.text_bold(10.0, y, 13.0, "start", ink, "Recent events");
    if events.is_empty() {
        y += 15.0;
        svg.text(10.0, y, 11.0, "start", muted, "none yet");
    }
    for e in &events[events.len().saturating_sub(6)..] {
        for line in wrap_chars(e, 90) {
            y += 15.0;
            svg.text(10.0, y, 11.0, "start", muted, &line);
        }
    }
    y
}

/// A full-width banner at `top` saying whose turn it is (or the result) in bold `colour`
/// text, wrapped onto as many lines as it needs. Returns the y below it.
pub fn status_banner(svg: &mut Svg, top: f64, text: &str, colour: &str) -> f64 {
    let margin = 10.0;
    let size = 14.0;
    let width = svg.width;
    let lines = wrap_text(text, size, width - 2.0 * margin - 20.0);
    let h = 8.0 + 18.0 * lines.len() as f64;
    panel(
        svg,
        margin,
        top,
        width - 2.0 * margin,
        h,
        6.0,
        "#ffffff",
        colour,
        2.0,
    );
    for (i, line) in lines.iter().enumerate() {
        svg.text_bold(
            width / 2.0,
            top + 18.0 + 18.0 * i as f64,
            size,
            "middle",
            colour,
            line,
        );
    }
    top + h
}

/// Test aid: rasterises a picture as a person would see it and saves it as
/// `target/pictures/<name>.png`, so a reviewer can look at the games' pictures after
/// `cargo test`. Writes under `target/` only; errors are returned, never panicked on.
#[cfg(any(test, feature = "testing"))]
pub fn save_png(name: &str, svg: &str) -> Result<std::path::PathBuf, String> {
    use resvg::{tiny_skia, usvg};
    let mut options = usvg::Options::default();
    options.fontdb_mut().load_system_fonts();
    let tree = usvg::Tree::from_str(svg, &options).map_err(|e| e.to_string())?;
    let size = tree.size().to_int_size();
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
        .ok_or_else(|| "empty picture".to_string())?;
    resvg::render(
        &tree,
        tiny_skia::Transform::identity(),
        &mut pixmap.as_mut(),
    );
    // This crate sits in src/engine; the pictures go to the workspace's target directory.
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../target")
        .join("pictures");
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let path = dir.join(format!("{name}.png"));
    pixmap.save_png(&path).map_err(|e| e.to_string())?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_short_and_stable() {
        assert_eq!(num(3.0), "3");
        assert_eq!(num(2.5), "2.5");
        assert_eq!(num(1.0 / 3.0), "0.33");
        assert_eq!(num(f64::NAN), "0");
        assert_eq!(num(-0.004), "0");
        assert_eq!(num(-0.5), "-0.5");
        assert_eq!(num(-12.345), "-12.35");
        assert_eq!(num(7.05), "7.05");
        assert_eq!(num(1e300), format!("{}", i64::MAX));
        // A plain float-formatting reference, for every hundredth in a wide range.
        for cents in -100_000..100_000 {
            let v = f64::from(cents) / 100.0 + 0.001;
            let rounded = (v * 100.0).round() / 100.0;
            let old = if rounded == rounded.trunc() {
                format!("{}", rounded as i64)
            } else {
                format!("{rounded:.2}").trim_end_matches('0').to_string()
            };
            assert_eq!(num(v), old, "{v}");
        }
    }

    #[test]
    fn text_and_attributes_are_escaped_and_controls_dropped() {
        let mut svg = Svg::new(100.0, "a <b> & \"c\"", "d\u{0}e");
        svg.text(1.0, 2.0, 10.0, "start", "#000", "<script>&\u{1}");
        svg.el("rect", &[("fill", "\"><x".into())]);
        let doc = svg.finish();
        assert!(doc.contains("&lt;script&gt;&amp;"), "{doc}");
        assert!(!doc.contains('\u{0}') && !doc.contains('\u{1}'));
        assert!(doc.contains("fill=\"&quot;&gt;&lt;x\""), "{doc}");
        assert!(
            doc.contains("<title id=\"title\">a &lt;b&gt; &amp; \"c\"</title>"),
            "{doc}"
        );
    }
}
