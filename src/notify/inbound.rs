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
}

/// Why a message could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum InboundError {
    #[error("the body is not an RFC 5322 message")]
    NotAMessage,
    #[error("the message has no From address")]
    NoSender,
}

/// Parses a raw message. `envelope_to` is the envelope recipient when the MTA passes it.
pub fn parse(raw: &[u8], envelope_to: Option<&str>) -> Result<InboundMail, InboundError> {
    let m = mail_parser::MessageParser::default()
        .parse(raw)
        .ok_or(InboundError::NotAMessage)?;
    if m.headers().is_empty() {
        return Err(InboundError::NotAMessage);
    }
    let from = m
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.address())
        .map(|a| a.trim().to_string())
        .filter(|a| a.contains('@'))
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
    let message_id = match m.message_id() {
        Some(id) if !id.trim().is_empty() => id.trim().to_string(),
        _ => format!("sha256:{}", hex::encode(Sha256::digest(raw))),
    };
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
        recipients,
        subject: m.subject().unwrap_or_default().to_string(),
        lines: reply_lines(&body),
        automatic: auto_submitted || precedence || bounce,
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
    use super::reply_lines;

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
