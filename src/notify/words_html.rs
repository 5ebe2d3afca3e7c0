//! A game's position in words (written for a monospace text part) as HTML for a phone's
//! 600 px column. Column-aligned lines become tables, indented lines lists, hard-wrapped
//! prose flows again, and a map drawn in characters (a grid far wider than a phone) is
//! left to the board picture: in a proportional column it could only wrap into garbage.
//! Games write their text freely, so this reads the shapes every game's text uses rather
//! than asking each game for a second rendering.

use std::fmt::Write as _;

use html_escape::encode_text as esc;

/// More cells than this in a row and the lines are a map, not a table.
const MAX_TABLE_COLUMNS: usize = 8;
/// A table cell this short is never broken across lines.
const SHORT_CELL: usize = 8;
/// A prose line at least this long was wrapped by its writer: the next line continues it.
const WRAPPED_AT: usize = 60;

const MONO: &str = "Menlo,Consolas,'DejaVu Sans Mono',monospace";

/// One line of the text, read for its shape.
#[derive(Debug, PartialEq)]
enum Line<'a> {
    Blank,
    /// Cells separated by runs of two or more spaces (or ` | `), or a grid's marks.
    Row {
        cells: Vec<&'a str>,
    },
    /// A line of rule characters (`---+---`), which only draws a table's border.
    Rule,
    Prose {
        indent: usize,
        text: &'a str,
    },
}

fn cells(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for part in s.split(" | ") {
        let mut rest = part;
        while let Some(at) = rest.find("  ") {
            out.push(rest[..at].trim());
            rest = rest[at..].trim_start();
        }
        out.push(rest.trim());
    }
    out.retain(|c| !c.is_empty());
    out
}

fn read(line: &str) -> Line<'_> {
    let trimmed = line.trim_end();
    let body = trimmed.trim_start();
    if body.is_empty() {
        return Line::Blank;
    }
    if body.len() >= 3
        && body
            .chars()
            .all(|c| matches!(c, '-' | '+' | '=' | '|' | ' '))
    {
        return Line::Rule;
    }
    let indent = trimmed.len() - body.len();
    // A grid's line of single marks ("1 1 1 1 …", ". . . ."): a row of many cells.
    let marks: Vec<&str> = body.split_whitespace().collect();
    if marks.len() > 2 * MAX_TABLE_COLUMNS && marks.iter().all(|m| m.chars().count() <= 3) {
        return Line::Row { cells: marks };
    }
    let cells = cells(body);
    if cells.len() >= 2 {
        Line::Row { cells }
    } else {
        Line::Prose { indent, text: body }
    }
}

/// A block of the HTML, before it is written.
enum Block<'a> {
    Para(Vec<&'a str>),
    List(Vec<&'a str>),
    Table(Vec<Vec<&'a str>>),
    Map(Vec<&'a str>),
}

fn blocks<'a>(text: &'a str) -> Vec<Block<'a>> {
    let lines: Vec<(&str, Line)> = text.lines().map(|l| (l, read(l))).collect();
    let mut out: Vec<Block> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        match &lines[i].1 {
            Line::Blank => i += 1,
            Line::Rule | Line::Row { .. } => {
                // A run of rows (and rules); a row alone is prose.
                let mut j = i;
                let mut rows: Vec<Vec<&str>> = Vec::new();
                let mut wide = false;
                while j < lines.len() {
                    match &lines[j].1 {
                        Line::Rule => {}
                        Line::Row { cells } => {
                            wide |= cells.len() > MAX_TABLE_COLUMNS;
                            rows.push(cells.clone());
                        }
                        // A map's rows may hold a single cell or none: once a run is a
                        // map, everything up to a blank line is.
                        Line::Prose { .. } if wide => {}
                        _ => break,
                    }
                    j += 1;
                }
                if wide {
                    out.push(Block::Map(lines[i..j].iter().map(|(l, _)| *l).collect()));
                } else if rows.len() >= 3 && is_heading(lines[i].0.trim()) {
                    // "SHIPS  (id owner at …)" over its rows: a heading, then the table.
                    out.push(Block::Para(vec![lines[i].0.trim()]));
                    out.push(Block::Table(rows.split_off(1)));
                } else if rows.len() >= 2 {
                    out.push(Block::Table(rows));
                } else {
                    if rows.len() == 1 {
                        out.push(Block::Para(vec![lines[i].0.trim()]));
                    }
                    // A rule alone draws nothing.
                    j = i + 1;
                }
                i = j;
            }
            Line::Prose { indent, .. } if *indent > 0 => {
                let mut items = Vec::new();
                while let Some((_, Line::Prose { indent, text })) = lines.get(i) {
                    if *indent == 0 {
                        break;
                    }
                    items.push(*text);
                    i += 1;
                }
                out.push(Block::List(items));
            }
            Line::Prose { text, .. } => {
                let mut para = vec![*text];
                i += 1;
                while let Some((_, Line::Prose { indent: 0, text })) = lines.get(i) {
                    para.push(*text);
                    i += 1;
                }
                out.push(Block::Para(para));
            }
        }
    }
    out
}

/// Escapes `s` and turns `backticked` words into code.
pub fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for (i, piece) in s.split('`').enumerate() {
        if i % 2 == 1 && !piece.is_empty() {
            let _ = write!(
                out,
                "<code style=\"font-family:{MONO};background:#eeece4;padding:0 3px;border-radius:3px\">{}</code>",
                esc(piece)
            );
        } else {
            out.push_str(&esc(piece));
        }
    }
    out
}

/// A heading of the text: a line that ends in a colon, or starts with a word in capitals.
fn is_heading(s: &str) -> bool {
    let first = s.split_whitespace().next().unwrap_or("");
    (s.ends_with(':') && s.chars().count() <= 40)
        || (first.chars().filter(|c| c.is_alphabetic()).count() >= 3
            && first
                .chars()
                .all(|c| !c.is_alphabetic() || c.is_uppercase()))
}

/// Whether `next` continues the sentence of `previous`, which its writer wrapped.
fn continues(previous: &str, next: &str) -> bool {
    let lower = next
        .chars()
        .next()
        .is_some_and(|c| c.is_lowercase() || c == '`' || c.is_ascii_digit());
    previous.chars().count() >= WRAPPED_AT
        && !is_heading(previous)
        && (lower || previous.ends_with([',', ';']))
}

/// Lines of one paragraph: a long line wrapped by its writer flows into the next.
fn para_html(lines: &[&str]) -> String {
    let mut html = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            html.push_str(if continues(lines[i - 1], l) {
                " "
            } else {
                "<br>"
            });
        }
        let text = cells(l).join(" ");
        if is_heading(l) {
            let _ = write!(html, "<strong>{}</strong>", inline(&text));
        } else {
            html.push_str(&inline(&text));
        }
    }
    html
}

/// How a map drawn in characters is shown.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Maps {
    /// The board picture is in the email: the map is left to it.
    ToThePicture,
    /// No picture: the map is shown as drawn, scrolling sideways rather than wrapping.
    AsDrawn,
}

/// The HTML of `text`, in the email's column.
pub fn to_html(text: &str, maps: Maps) -> String {
    let mut b = String::with_capacity(text.len() * 2);
    let mut map_noted = false;
    for block in blocks(text) {
        match block {
            Block::Para(lines) => {
                let _ = write!(b, "<p style=\"margin:0 0 10px\">{}</p>", para_html(&lines));
            }
            Block::List(items) => {
                b.push_str("<ul style=\"margin:0 0 10px;padding-left:1.3em\">");
                for item in items {
                    let _ = write!(b, "<li style=\"margin:0 0 2px\">{}</li>", inline(item));
                }
                b.push_str("</ul>");
            }
            Block::Table(rows) => {
                // Many columns get a smaller type; a table wider than a phone all the same
                // scrolls sideways in its own frame instead of widening the email.
                let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
                let size = if columns >= 6 { 12 } else { 14 };
                let _ = write!(
                    b,
                    "<div style=\"overflow-x:auto;margin:0 0 12px\"><table role=\"presentation\" \
                     style=\"border-collapse:collapse;font-size:{size}px;width:100%\">"
                );
                for row in rows {
                    b.push_str("<tr>");
                    for cell in row {
                        // A short cell ("Player A", "VP") stays whole; a long one wraps
                        // between words, never inside one.
                        let wrap = if cell.chars().count() <= SHORT_CELL {
                            "white-space:nowrap;"
                        } else {
                            "overflow-wrap:normal;word-break:normal;"
                        };
                        let _ = write!(
                            b,
                            "<td style=\"padding:2px 6px 2px 0;border-bottom:1px solid #eeece4;\
                             vertical-align:top;{wrap}\">{}</td>",
                            inline(cell)
                        );
                    }
                    b.push_str("</tr>");
                }
                b.push_str("</table></div>");
            }
            Block::Map(lines) => match maps {
                Maps::ToThePicture => {
                    if !map_noted {
                        b.push_str(
                            "<p style=\"margin:0 0 10px;color:#555;font-style:italic\">The map is in \
                             the picture above (the plain-text part of this email draws it in \
                             characters).</p>",
                        );
                    }
                    map_noted = true;
                }
                Maps::AsDrawn => {
                    let _ = write!(
                        b,
                        "<pre style=\"margin:0 0 12px;padding:8px;background:#ffffff;border:1px solid \
                         #e2dfd5;font-family:{MONO};font-size:11px;line-height:1.3;white-space:pre;\
                         overflow-x:auto\">{}</pre>",
                        esc(&lines.join("\n"))
                    );
                }
            },
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;

    const FULDRIGGER: &str = "FULDRIGGER  round 1/20  Blue to play: movement
Roll: 1+3+3 = 7 fields

PLAYERS
  Red      cash   200  fortune   400  home LIS  forts: -  reefs known: -
  Blue   * cash    45  fortune   375  home AMS  forts: -  reefs known: -

SEA LANES  (one mark per field from the first end)
  L01    CPH ... J_NS
  L02    AMS . J_NS
";

    const PARTNERS: &str = "Track, clockwise (63 → 0); * = start field:
  field  0*  1   2   3   4   5   6   7   8   9  10  11  12  13  14  15
         .   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .
  field 16* 17  18  19  20  21  22  23  24  25  26  27  28  29  30  31
         B   .   .   .   .   .   .   .   .   .   .   .   .   .   .   .

Recently:
  Red plays A♥: Red enters on 16
  Blue plays K♠: Blue enters on 32
";

    #[test]
    fn aligned_lines_become_tables_and_a_wide_grid_is_left_to_the_picture() {
        let html = to_html(FULDRIGGER, Maps::ToThePicture);
        assert!(
            html.contains("white-space:nowrap;\">fortune</td>"),
            "{html}"
        );
        assert_eq!(html.matches("<table").count(), 2, "{html}");
        assert!(html.contains("<strong>FULDRIGGER round 1/20 Blue to play: movement</strong>"));
        // A heading in capitals over aligned rows is a heading, not the table's first row.
        let html = to_html(
            "SHIPS  (id owner at)\n  #1   Red     LIS\n  #2   Red     AMS\n",
            Maps::ToThePicture,
        );
        assert!(
            html.starts_with(
                "<p style=\"margin:0 0 10px\"><strong>SHIPS (id owner at)</strong></p>"
            ),
            "{html}"
        );
        assert_eq!(html.matches("<tr>").count(), 2, "{html}");
        let html = to_html(PARTNERS, Maps::ToThePicture);
        assert!(!html.contains("field 16*") && html.contains("The map is in the picture"));
        assert!(html.contains("<li style=\"margin:0 0 2px\">Red plays A♥: Red enters on 16</li>"));
        // Without a picture the map is shown as drawn, scrolling sideways.
        let html = to_html(PARTNERS, Maps::AsDrawn);
        assert!(html.contains("white-space:pre;") && html.contains("field 16* 17  18"));
    }

    #[test]
    fn wrapped_prose_flows_and_short_lines_keep_their_breaks() {
        let text = "Terrain: Hn/Cn Homeworld/colony of seat n; ?n unexplored (home border of n);\n\
                    deep space; Pl planet.\nDice: 5+6 = 11\nTurn order: <Ada> & Bo";
        let html = to_html(text, Maps::ToThePicture);
        assert!(
            html.contains("of n); deep space; Pl planet.<br>Dice: 5+6 = 11<br>"),
            "{html}"
        );
        assert!(html.contains("&lt;Ada&gt; &amp; Bo") && !html.contains("<Ada>"));
        // A long heading is not continued by the next line.
        let text =
            "THE STARFARERS OF CATAN - turn 3, Player C to play (trade and build)\nDice: 3+4";
        let html = to_html(text, Maps::ToThePicture);
        assert!(html.contains("build)</strong><br>Dice: 3+4"), "{html}");
    }

    #[test]
    fn a_lone_aligned_line_is_prose_and_rules_do_not_break_a_table() {
        let text = "Dealer: Seat 2   Stock: 32 cards\n\n  y\\x|   0   1   2\n  ---+----------\n    0|  G7  G8  G9\n";
        let html = to_html(text, Maps::ToThePicture);
        assert!(
            html.starts_with("<p style=\"margin:0 0 10px\">Dealer: Seat 2 Stock: 32 cards</p>"),
            "{html}"
        );
        assert_eq!(html.matches("<tr>").count(), 2, "{html}");
        assert!(!html.contains("---"));
    }
}
