//! Inbound replies: a raw RFC 5322 message, parsed with mail-parser, reduced to what the
//! domain needs: who sent it, which reply address it went to, and the commands in the
//! reply's own text (quoted history, "On … wrote:" lines and signatures stripped).

use sha2::{Digest, Sha256};

/// One inbound email, as the domain sees it.
#[derive(Clone, Debug)]
pub struct InboundMail {
    /// The Message-ID (without angle brackets), or a digest of the raw message when absent.
    pub message_id: String,
    /// The sender's address (display name dropped), as written.
    pub from: String,
    /// Every recipient address that may carry a reply token: To, Cc, Delivered-To,
    /// X-Original-To (and any `extra` recipient the MTA passed along).
    pub recipients: Vec<String>,
    pub subject: String,
    /// The reply's own lines, trimmed, non-empty, in order.
    pub lines: Vec<String>,
    /// An automatic message (Auto-Submitted, Precedence bulk/list/junk, a bounce): it is
    /// never answered, so two robots cannot loop.
    pub automatic: bool,
    /// A delivery-status notification: a report that mail we sent did not arrive.
    pub dsn: Option<crate::notify::bounce::Dsn>,
}

/// Why a message could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum InboundError {
    #[error("the body is not an RFC 5322 message")]
    NotAMessage,
    #[error("the message has no usable From address")]
    NoSender,
    /// Too deeply nested or too many parts to parse safely; recorded and never answered.
    #[error("the message is too complex to read ({0})")]
    TooComplex(String, Poison),
}

/// What is known of a message that was not parsed in full.
#[derive(Debug, Clone)]
pub struct Poison {
    pub message_id: String,
    pub from: String,
}

/// Attached messages (`message/rfc822`) inside one another: a reply has none or one.
pub const MAX_NESTED_MESSAGES: usize = 8;
/// MIME parts (Content-Type headers) in one message.
pub const MAX_PARTS: usize = 256;
/// A Message-ID longer than this is stored as its digest (an index entry has a size limit).
const MAX_MESSAGE_ID: usize = 250;

fn count_ci(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|w| w.eq_ignore_ascii_case(needle))
        .count()
}

/// Counts the nesting and the parts before a full parse: the parser keeps nested messages
/// as a tree, and thousands of levels exhaust the stack when it is walked or dropped.
fn too_complex(raw: &[u8]) -> Option<String> {
    let nested = count_ci(raw, b"message/rfc822") + count_ci(raw, b"message/global");
    if nested > MAX_NESTED_MESSAGES {
        return Some(format!(
            "{nested} attached messages; at most {MAX_NESTED_MESSAGES} are read"
        ));
    }
    let parts = count_ci(raw, b"content-type:");
    if parts > MAX_PARTS {
        return Some(format!("{parts} MIME parts; at most {MAX_PARTS} are read"));
    }
    None
}

/// Text fit to store: PostgreSQL text cannot hold NUL.
fn storable(s: &str) -> String {
    s.replace('\0', "")
}

/// The Message-ID as stored: as written when short and clean, else a digest of it.
fn message_id_key(id: Option<&str>, raw: &[u8]) -> String {
    match id.map(str::trim) {
        Some(id) if !id.is_empty() && id.len() <= MAX_MESSAGE_ID && !id.contains('\0') => {
            id.to_string()
        }
        Some(id) if !id.is_empty() => format!("sha256:{}", hex::encode(Sha256::digest(id))),
        _ => format!("sha256:{}", hex::encode(Sha256::digest(raw))),
    }
}

fn sender(addr: Option<&str>) -> Option<String> {
    addr.map(str::trim)
        .filter(|a| a.contains('@') && a.len() <= 254 && !a.chars().any(char::is_control))
        .map(str::to_string)
}

/// Parses a raw message. `envelope_to` is the envelope recipient when the MTA passes it.
pub fn parse(raw: &[u8], envelope_to: Option<&str>) -> Result<InboundMail, InboundError> {
    if let Some(why) = too_complex(raw) {
        // The top-level headers alone are safe to read: record who sent what.
        let head = mail_parser::MessageParser::default().parse_headers(raw);
        let poison = Poison {
            message_id: message_id_key(head.as_ref().and_then(|m| m.message_id()), raw),
            from: head
                .as_ref()
                .and_then(|m| m.from())
                .and_then(|a| a.first())
                .and_then(|a| sender(a.address()))
                .unwrap_or_default(),
        };
        return Err(InboundError::TooComplex(why, poison));
    }
    let m = mail_parser::MessageParser::default()
        .parse(raw)
        .ok_or(InboundError::NotAMessage)?;
    if m.headers().is_empty() {
        return Err(InboundError::NotAMessage);
    }
    let from = sender(m.from().and_then(|a| a.first()).and_then(|a| a.address()))
        .ok_or(InboundError::NoSender)?;
    let mut recipients: Vec<String> = Vec::new();
    for list in [m.to(), m.cc()].into_iter().flatten() {
        recipients.extend(list.iter().filter_map(|a| a.address()).map(str::to_string));
    }
    for name in ["Delivered-To", "X-Original-To", "Envelope-To"] {
        for v in m.header_values(name) {
            if let Some(t) = v.as_text() {
                recipients.push(t.to_string());
            }
        }
    }
    recipients.extend(envelope_to.map(str::to_string));
    let message_id = message_id_key(m.message_id(), raw);
    let auto_submitted = m
        .header_raw("Auto-Submitted")
        .is_some_and(|v| !v.trim().eq_ignore_ascii_case("no"));
    let precedence = m.header_raw("Precedence").is_some_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "bulk" | "list" | "junk"
        )
    });
    let bounce = from.to_ascii_lowercase().starts_with("mailer-daemon@")
        || m.header_raw("X-Failed-Recipients").is_some();
    let body = m.body_text(0).map(|b| b.into_owned()).unwrap_or_default();
    Ok(InboundMail {
        message_id,
        from,
        recipients: recipients.iter().map(|r| storable(r)).collect(),
        subject: storable(m.subject().unwrap_or_default()),
        lines: reply_lines(&storable(&body)),
        automatic: auto_submitted || precedence || bounce,
        dsn: crate::notify::bounce::parse(&m),
    })
}

/// The lines a person wrote: everything before the quoted history or the signature.
pub fn reply_lines(body: &str) -> Vec<String> {
    let lines: Vec<&str> = body.lines().collect();
    let mut out = Vec::new();
    for (i, raw) in lines.iter().enumerate() {
        let line = raw.trim_end_matches('\r');
        let t = line.trim();
        // Signature separator ("-- "), and common client footers.
        if line == "-- " || t == "--" || t == "__" || t.starts_with("Sent from my ") {
            break;
        }
        // Quoted history: "> ...", Outlook's original-message marker and header block.
        if t.starts_with('>')
            || (t.starts_with("-----") && t.to_ascii_lowercase().contains("original message"))
            || t.starts_with("________________")
            || (t.starts_with("From:")
                && lines
                    .get(i + 1)
                    .is_some_and(|n| n.trim().starts_with("Sent:")))
        {
            break;
        }
        // The attribution line: "On <date>, <someone> wrote:" (possibly wrapped over two
        // lines), and its translations in the most common clients' form "... wrote:".
        let lower = t.to_lowercase();
        if lower.ends_with("wrote:") || lower.ends_with("a écrit :") || lower.ends_with("schrieb:")
        {
            break;
        }
        // HTML mail turned into text may join the attribution with the quote that follows.
        if lower.starts_with("on ") && lower.contains(" wrote:") {
            break;
        }
        if lower.starts_with("on ")
            && lines
                .get(i + 1)
                .is_some_and(|n| n.trim().to_lowercase().ends_with("wrote:"))
        {
            break;
        }
        if !t.is_empty() {
            out.push(t.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A message wrapped in `depth` attached messages.
    /// `depth` messages, each attached to the one around it: the header blocks of every
    /// level, then the innermost message (one pass; wrapping level by level is quadratic).
    fn nested(depth: usize) -> Vec<u8> {
        let level =
            "From: a@b.org\r\nMessage-ID: <deep@b.org>\r\nContent-Type: message/rfc822\r\n\r\n";
        let mut m = level.repeat(depth).into_bytes();
        m.extend_from_slice(b"From: a@b.org\r\nSubject: x\r\n\r\n1\r\n");
        m
    }

    #[test]
    fn deeply_nested_messages_are_refused_before_parsing() {
        // Without the bound, 32,000 levels overflow the stack (about 2 MB).
        let raw = nested(32_000);
        match parse(&raw, None) {
            Err(InboundError::TooComplex(_, poison)) => {
                assert_eq!(poison.message_id, "deep@b.org");
                assert_eq!(poison.from, "a@b.org");
            }
            other => panic!("expected TooComplex, got {other:?}"),
        }
        // A reply with a quoted original attached is fine.
        assert!(parse(&nested(1), None).is_ok());
    }

    #[test]
    fn nul_bytes_and_huge_message_ids_are_made_storable() {
        let raw = b"From: a@b.org\r\nMessage-ID: <x\0y@b.org>\r\nSubject: a\0b\r\n\r\n1\0\r\n";
        let m = parse(raw, None).unwrap();
        assert!(m.message_id.starts_with("sha256:"));
        assert!(!m.subject.contains('\0'));
        assert!(m.lines.iter().all(|l| !l.contains('\0')));
        let long = format!(
            "From: a@b.org\r\nMessage-ID: <{}@b.org>\r\n\r\n1\r\n",
            "x".repeat(5000)
        );
        let m = parse(long.as_bytes(), None).unwrap();
        assert!(m.message_id.len() < 100, "{}", m.message_id);
        let nul_from = b"From: a\0@b.org\r\n\r\n1\r\n";
        assert!(matches!(parse(nul_from, None), Err(InboundError::NoSender)));
    }

    #[test]
    fn quoted_history_and_signatures_are_stripped() {
        let body = "3\r\nrake 5H\r\n\r\nOn Sat, 21 Nov 2026 at 10:00, Turnpost <t@x.org>\r\nwrote:\r\n> Hello\r\n> 1. trail\r\n";
        assert_eq!(reply_lines(body), ["3", "rake 5H"]);
        assert_eq!(reply_lines("2\n-- \nAda\n"), ["2"]);
        assert_eq!(reply_lines("  preview \n4\n\n> quoted\n"), ["preview", "4"]);
        assert_eq!(
            reply_lines("1\n-----Original Message-----\nFrom: x\n"),
            ["1"]
        );
        assert_eq!(reply_lines("1\nSent from my phone\n"), ["1"]);
        assert_eq!(
            reply_lines("On Monday Ada wrote:\n> 2\n"),
            Vec::<String>::new()
        );
        assert_eq!(
            reply_lines("trail 7H\nOn Sat, 21 Nov 2026, T <t@x.org> wrote:Hello\n"),
            ["trail 7H"]
        );
    }
}
