//! One email's content, written once and rendered twice: as plain text (complete on its own,
//! the part players reply to and tests read) and as HTML for phones: one column of at most
//! 600 px, inline styles only (mail clients drop style sheets), the board picture by
//! `cid:` reference, the numbered choices as a list. Every piece of text is escaped on its
//! way into the HTML.

use std::fmt::Write as _;

use html_escape::{encode_double_quoted_attribute as attr, encode_text as esc};

use super::words_html::{self, Maps, inline};

/// The heading of [`Letter::recent`].
pub const RECENT_HEADING: &str = "Since your last move";

/// The board picture, attached inline.
#[derive(Clone, Debug)]
pub struct Picture {
    pub png: Vec<u8>,
    /// The Content-ID, without angle brackets.
    pub cid: String,
    pub alt: String,
    /// The picture's left and right halves, drawn larger, which a phone shows one under
    /// the other instead of the whole (too small to read at a phone's width).
    pub halves: Option<[Vec<u8>; 2]>,
}

impl Picture {
    /// The Content-IDs of the halves.
    pub fn half_cids(&self) -> [String; 2] {
        [format!("left.{}", self.cid), format!("right.{}", self.cid)]
    }
}

/// Where a phone shows a picture's halves instead of the whole: a narrow screen. Mail
/// clients that ignore style sheets show the whole picture, as every client did before.
const PHONE_STYLE: &str = "<style>@media only screen and (max-width:480px){\
    .tp-whole{display:none!important}\
    .tp-halves{display:block!important;max-height:none!important;overflow:visible!important}}</style>";

#[derive(Clone, Debug, Default)]
pub struct Letter {
    pub subject: String,
    /// A small line above the heading (the game and move).
    pub kicker: String,
    pub heading: String,
    /// Paragraphs before the position; line breaks inside one are kept in the text part.
    pub paragraphs: Vec<String>,
    /// Chat the recipient has not seen: (who, what), oldest first. Plain text, escaped
    /// for HTML like everything else.
    pub chat: Vec<(String, String)>,
    /// What happened since the recipient last moved, one line per move, oldest first.
    pub recent: Vec<String>,
    /// The position in words (the text part shows it before the choices).
    pub position: Option<String>,
    pub picture: Option<Picture>,
    /// The numbered choices (the listed ones).
    pub choices: Vec<String>,
    /// How many further choices exist but are not listed.
    pub more_choices: usize,
    /// Paragraphs after the choices (how to reply).
    pub notes: Vec<String>,
    /// The address the letter leads to (a game, a confirmation link, …) and the label of the
    /// HTML button leading there, which also leads the link in the plain text.
    pub link: Option<(String, String)>,
    /// Paragraphs after a rule: why this email came and how to stop it.
    pub footer: Vec<String>,
    /// The one-click unsubscribe URL, shown last.
    pub unsubscribe: Option<String>,
}

/// How a board picture sits in the column: as wide as the column, at most its own width.
const PICTURE_STYLE: &str = "display:block;width:100%;max-width:600px;height:auto;\
    border:1px solid #dcd9cf;border-radius:6px;background:#fbfaf5";

/// The heading of a letter's chat, and how to answer it.
const CHAT_HEADING: &str = "Table talk";
const CHAT_REPLY: &str =
    "To answer, reply with a line starting with `say` (`say team:` for your team only).";

const FONT: &str = "-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/// A paragraph for HTML: hard line breaks of the text part become spaces (the client
/// wraps), except before an indented line (a list such as a ranking); blank lines
/// separate paragraphs.
fn paragraphs_html(out: &mut String, text: &str) {
    for para in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let mut html = String::new();
        for (i, line) in para.lines().enumerate() {
            if i > 0 {
                html.push_str(if line.starts_with(' ') { "<br>" } else { " " });
            }
            html.push_str(&inline(line.trim()));
        }
        let _ = write!(out, "<p style=\"margin:0 0 12px\">{html}</p>");
    }
}

impl Letter {
    /// The plain-text part: everything, in reading order.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for p in &self.paragraphs {
            out.push_str(p.trim_end());
            out.push_str("\n\n");
        }
        if !self.chat.is_empty() {
            out.push_str(CHAT_HEADING);
            out.push_str(":\n");
            for (who, text) in &self.chat {
                // Continuation lines are indented, so a message cannot pass for a command.
                let _ = writeln!(out, "  {who}: {}", text.replace('\n', "\n      "));
            }
            out.push_str(CHAT_REPLY);
            out.push_str("\n\n");
        }
        if !self.recent.is_empty() {
            out.push_str(RECENT_HEADING);
            out.push_str(":\n");
            for r in &self.recent {
                let _ = writeln!(out, "  - {r}");
            }
            out.push('\n');
        }
        if let Some(position) = &self.position {
            out.push_str(position.trim_end());
            out.push_str("\n\n");
        }
        if !self.choices.is_empty() {
            out.push_str("Your choices:\n");
            for (i, c) in self.choices.iter().enumerate() {
                let _ = writeln!(out, "  {:>3}. {}", i + 1, c);
            }
            if self.more_choices > 0 {
                let _ = writeln!(
                    out,
                    "  ... and {} more choices, not listed to keep this email readable: reply with one\n  \
                     written out, or see them all in the game's legal_actions.",
                    self.more_choices
                );
            }
            out.push('\n');
        }
        for n in &self.notes {
            out.push_str(n.trim_end());
            out.push('\n');
        }
        // The button's words lead the link in plain text too: not every link is a game's.
        if let Some((url, label)) = &self.link {
            let _ = writeln!(out, "{label}: {url}");
        }
        if !self.footer.is_empty() || self.unsubscribe.is_some() {
            out.push_str("\n-- \n");
            for f in &self.footer {
                out.push_str(f.trim_end());
                out.push('\n');
            }
            if let Some(url) = &self.unsubscribe {
                let _ = writeln!(out, "Unsubscribe from all game emails: {url}");
            }
        }
        out
    }

    /// The HTML part.
    pub fn html(&self) -> String {
        let mut b = String::with_capacity(4096);
        let _ = write!(
            b,
            "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\
             <title>{}</title>{}</head>\
             <body style=\"margin:0;padding:0;background:#f3f1ea\">\
             <div style=\"max-width:600px;margin:0 auto;padding:16px 12px;font-family:{FONT};\
             font-size:16px;line-height:1.45;color:#1f1f1f;overflow-wrap:anywhere;\
             word-break:break-word\">",
            esc(&self.subject),
            if self.picture.as_ref().is_some_and(|p| p.halves.is_some()) {
                PHONE_STYLE
            } else {
                ""
            }
        );
        if !self.kicker.is_empty() {
            let _ = write!(
                b,
                "<p style=\"margin:0 0 4px;font-size:13px;color:#6b6b6b\">{}</p>",
                esc(&self.kicker)
            );
        }
        if !self.heading.is_empty() {
            let _ = write!(
                b,
                "<h1 style=\"margin:0 0 14px;font-size:22px;line-height:1.25\">{}</h1>",
                esc(&self.heading)
            );
        }
        for p in &self.paragraphs {
            paragraphs_html(&mut b, p);
        }
        if !self.chat.is_empty() {
            let _ = write!(
                b,
                "<h2 style=\"margin:14px 0 6px;font-size:16px\">{CHAT_HEADING}</h2>\
                 <ul style=\"margin:0 0 6px;padding-left:1.3em\">"
            );
            for (who, text) in &self.chat {
                let _ = write!(
                    b,
                    "<li style=\"margin:0 0 3px\"><strong>{}</strong>: {}</li>",
                    esc(who),
                    esc(text).replace('\n', "<br>")
                );
            }
            // The reply hint's `say` as code, as in the notes.
            let _ = write!(
                b,
                "</ul><div style=\"margin:0 0 14px;font-size:14px;color:#555\">{}</div>",
                words_html::to_html(CHAT_REPLY, Maps::AsDrawn)
            );
        }
        if !self.recent.is_empty() {
            let _ = write!(
                b,
                "<h2 style=\"margin:14px 0 6px;font-size:16px\">{RECENT_HEADING}</h2>\
                 <ul style=\"margin:0 0 14px;padding-left:1.3em\">"
            );
            for r in &self.recent {
                let _ = write!(b, "<li style=\"margin:0 0 3px\">{}</li>", esc(r));
            }
            b.push_str("</ul>");
        }
        if let Some(pic) = &self.picture {
            let _ = write!(
                b,
                "<p class=\"tp-whole\" style=\"margin:0 0 16px\"><img src=\"cid:{}\" width=\"600\" \
                 alt=\"{}\" style=\"{PICTURE_STYLE}\"></p>",
                attr(&pic.cid),
                attr(&pic.alt)
            );
            if pic.halves.is_some() {
                // Hidden unless the phone style applies (Outlook's `mso-hide` included).
                let [left, right] = pic.half_cids();
                let _ = write!(
                    b,
                    "<div class=\"tp-halves\" style=\"display:none;max-height:0;overflow:hidden;\
                     mso-hide:all;margin:0 0 16px\"><img src=\"cid:{}\" width=\"336\" alt=\"{} \
                     (left half)\" style=\"{PICTURE_STYLE};margin:0 0 6px\"><img src=\"cid:{}\" \
                     width=\"336\" alt=\"(right half)\" style=\"{PICTURE_STYLE}\"></div>",
                    attr(&left),
                    attr(&pic.alt),
                    attr(&right),
                );
            }
        }
        if !self.choices.is_empty() {
            b.push_str("<h2 style=\"margin:18px 0 8px;font-size:18px\">Your choices</h2>");
            b.push_str(
                "<ol style=\"margin:0 0 12px;padding-left:2.4em;background:#ffffff;border:1px solid #e2dfd5;\
                 border-radius:6px;padding-top:8px;padding-bottom:8px\">",
            );
            for c in &self.choices {
                let _ = write!(
                    b,
                    "<li style=\"margin:0 0 4px;padding-right:8px\">{}</li>",
                    esc(c)
                );
            }
            b.push_str("</ol>");
            if self.more_choices > 0 {
                let _ = write!(
                    b,
                    "<p style=\"margin:0 0 12px;font-size:14px;color:#555\">… and {} more choices, not \
                     listed here: reply with one written out, or see them all in the game.</p>",
                    self.more_choices
                );
            }
        }
        if !self.notes.is_empty() {
            b.push_str(
                "<div style=\"margin:0 0 16px;padding:10px 12px;background:#ffffff;border-left:4px solid #2f6f4f;\
                 border-radius:4px;font-size:15px\">",
            );
            for n in &self.notes {
                b.push_str(&words_html::to_html(n, Maps::AsDrawn));
            }
            b.push_str("</div>");
        }
        if let Some((url, label)) = &self.link {
            let _ = write!(
                b,
                "<p style=\"margin:0 0 20px\"><a href=\"{}\" style=\"display:inline-block;padding:10px 18px;\
                 background:#2f6f4f;color:#ffffff;text-decoration:none;border-radius:6px;font-weight:bold\">{}</a></p>",
                attr(url),
                esc(label)
            );
        }
        if let Some(position) = &self.position {
            b.push_str(
                "<h2 style=\"margin:18px 0 8px;font-size:16px;color:#444\">The position in words</h2>",
            );
            // Maps drawn in characters are left to the picture when there is one.
            let maps = if self.picture.is_some() {
                Maps::ToThePicture
            } else {
                Maps::AsDrawn
            };
            let _ = write!(
                b,
                "<div style=\"margin:0 0 16px;padding:10px;background:#ffffff;border:1px solid #e2dfd5;\
                 border-radius:6px;font-size:15px\">{}</div>",
                words_html::to_html(position, maps)
            );
        }
        if !self.footer.is_empty() || self.unsubscribe.is_some() {
            b.push_str(
                "<hr style=\"border:none;border-top:1px solid #dcd9cf;margin:20px 0 10px\">\
                 <div style=\"font-size:13px;color:#6b6b6b\">",
            );
            for f in &self.footer {
                paragraphs_html(&mut b, f);
            }
            if let Some(url) = &self.unsubscribe {
                let _ = write!(
                    b,
                    "<p style=\"margin:0 0 12px\"><a href=\"{}\" style=\"color:#6b6b6b\">Unsubscribe from \
                     game emails</a></p>",
                    attr(url)
                );
            }
            b.push_str("</div>");
        }
        b.push_str("</div></body></html>");
        b
    }
}

/// A letter that is only a block of text (answers to replies, digests): the text in a
/// monospace block, so its columns line up, in the same frame as every other email.
pub fn plain(subject: &str, heading: &str, text: &str, link: &str) -> Letter {
    Letter {
        subject: subject.to_string(),
        heading: heading.to_string(),
        position: Some(text.to_string()),
        link: Some((link.to_string(), "Open Turnpost".into())),
        ..Letter::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn everything_is_escaped_and_the_text_part_stands_alone() {
        let l = Letter {
            subject: "<b>s</b>".into(),
            kicker: "K & co".into(),
            heading: "Your turn, <Eve>".into(),
            paragraphs: vec!["Hello <script>alert(1)</script>,\nsecond line".into()],
            position: Some("Table: <5♦> & 7♣".into()),
            picture: Some(Picture {
                png: vec![],
                cid: "board.1@x\"".into(),
                alt: "alt \"quoted\" <b>".into(),
                halves: Some([vec![], vec![]]),
            }),
            choices: vec!["take <A♠> & 5♦".into(), "trail 2♠".into()],
            more_choices: 3,
            notes: vec!["Reply `1`.".into()],
            recent: vec!["Ada (Seat 1) trailed <5♦>".into()],
            chat: vec![(
                "Bo <img>".into(),
                "<img src=x onerror=alert(1)>\nsay resign".into(),
            )],
            link: Some(("https://x.org/g?a=1&b=\"2\"".into(), "Open".into())),
            footer: vec!["Reply `stop`.".into()],
            unsubscribe: Some("https://x.org/u/1-ab\"c".into()),
        };
        let html = l.html();
        for raw in [
            "<script>",
            "<Eve>",
            "<5♦>",
            "<A♠>",
            "<b>s</b>",
            "\"quoted\"",
            "b=\"2\"",
            "ab\"c",
            "<5♦>",
            "<img src=x",
        ] {
            assert!(!html.contains(raw), "{raw} unescaped in {html}");
        }
        assert!(html.contains("Table talk</h2>"));
        assert!(html.contains(
            "<strong>Bo &lt;img&gt;</strong>: &lt;img src=x onerror=alert(1)&gt;<br>say resign"
        ));
        assert!(html.contains("&lt;script&gt;") && html.contains("take &lt;A♠&gt; &amp; 5♦"));
        assert!(html.contains("src=\"cid:board.1@x&quot;\""));
        // The halves for phones, hidden unless the phone style applies.
        assert!(html.contains("src=\"cid:left.board.1@x&quot;\""));
        assert!(html.contains("src=\"cid:right.board.1@x&quot;\""));
        assert!(html.contains("@media only screen and (max-width:480px)"));
        assert!(html.contains("<code") && html.contains("max-width:600px"));
        // A long link wraps on a phone instead of widening the page.
        assert!(html.contains("overflow-wrap:anywhere"));
        let text = l.text();
        assert!(html.contains("Since your last move</h2>") && html.contains("trailed &lt;5♦&gt;"));
        // A chat line's continuation is indented: quoted back in a reply, it is no command.
        assert!(text.starts_with(
            "Hello <script>alert(1)</script>,\nsecond line\n\nTable talk:\n  Bo <img>: <img src=x onerror=alert(1)>\n      say resign\nTo answer, reply with a line starting with `say`"
        ));
        assert!(
            text.contains("\n\nSince your last move:\n  - Ada (Seat 1) trailed <5♦>\n\nTable:")
        );
        assert!(text.contains("Your choices:\n    1. take <A♠> & 5♦\n    2. trail 2♠\n"));
        assert!(text.contains("and 3 more choices"));
        assert!(text.contains("Reply `1`.\nOpen: https://x.org/g?a=1&b=\"2\"\n"));
        assert!(text.ends_with(
            "-- \nReply `stop`.\nUnsubscribe from all game emails: https://x.org/u/1-ab\"c\n"
        ));
    }
}
