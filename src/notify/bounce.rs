//! Delivery-status notifications (RFC 3464, and RFC 6533's internationalised form): a
//! `multipart/report; report-type=delivery-status` message whose
//! `message/delivery-status` part lists, per recipient, the `Final-Recipient` and the
//! `Action` taken. Only `failed` recipients count; `delayed` ones may still arrive. The
//! returned original headers (`text/rfc822-headers`, or the whole `message/rfc822`) name
//! the Message-ID of the email that failed, which ties the report to mail we sent.

use mail_parser::{Message, MimeHeaders};

/// What a delivery-status notification reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dsn {
    /// Recipients whose delivery failed for good: (address, status code such as `5.1.1`).
    pub failed: Vec<(String, String)>,
    /// The Message-ID (without angle brackets) of the returned original message: the
    /// first one found (a report returns one message; more would be a forger's guesses).
    pub original_message_id: Option<String>,
}

fn is(ct: Option<&mail_parser::ContentType<'_>>, ctype: &str, subtypes: &[&str]) -> bool {
    ct.is_some_and(|ct| {
        ct.ctype().eq_ignore_ascii_case(ctype)
            && ct
                .subtype()
                .is_some_and(|s| subtypes.iter().any(|w| s.eq_ignore_ascii_case(w)))
    })
}

/// Unfolds header-style fields (continuation lines start with white space) into
/// (lower-case name, value) pairs, block by block (blocks are separated by blank lines).
fn field_blocks(text: &str) -> Vec<Vec<(String, String)>> {
    let mut blocks: Vec<Vec<(String, String)>> = vec![Vec::new()];
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            if blocks.last().is_some_and(|b: &Vec<_>| !b.is_empty()) {
                blocks.push(Vec::new());
            }
            continue;
        }
        let Some(block) = blocks.last_mut() else {
            continue;
        };
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = block.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
        } else if let Some((name, value)) = line.split_once(':') {
            block.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    blocks
}

/// The address of a recipient field: `rfc822; user@example.org` (the type is optional).
fn address(value: &str) -> Option<String> {
    let a = value.rsplit_once(';').map_or(value, |(_, a)| a).trim();
    let a = a.trim_matches(|c| c == '<' || c == '>');
    (a.contains('@') && a.len() <= 254 && !a.chars().any(|c| c.is_whitespace() || c.is_control()))
        .then(|| a.to_string())
}

/// The report, when `m` is a delivery-status notification.
pub fn parse(m: &Message<'_>) -> Option<Dsn> {
    let top = m.content_type()?;
    let is_report = is(Some(top), "multipart", &["report"])
        && top.attributes().is_some_and(|attrs| {
            attrs.iter().any(|a| {
                a.name.eq_ignore_ascii_case("report-type")
                    && (a.value.eq_ignore_ascii_case("delivery-status")
                        || a.value.eq_ignore_ascii_case("global-delivery-status"))
            })
        });
    if !is_report {
        return None;
    }
    let mut dsn = Dsn::default();
    for part in &m.parts {
        let ct = part.content_type();
        if is(
            ct,
            "message",
            &["delivery-status", "global-delivery-status"],
        ) {
            let text = String::from_utf8_lossy(part.contents());
            // The first block is about the message; each further one about a recipient.
            for block in field_blocks(&text).iter().skip(1) {
                let get = |name: &str| {
                    block
                        .iter()
                        .find(|(n, _)| n == name)
                        .map(|(_, v)| v.as_str())
                };
                let failed = get("action").is_some_and(|a| a.eq_ignore_ascii_case("failed"));
                let recipient = get("final-recipient")
                    .or_else(|| get("original-recipient"))
                    .and_then(address);
                if let (true, Some(r)) = (failed, recipient) {
                    let status = get("status").unwrap_or("5.0.0");
                    dsn.failed.push((r, status.chars().take(32).collect()));
                }
            }
        } else if is(ct, "text", &["rfc822-headers"])
            || is(
                ct,
                "message",
                &["rfc822-headers", "global-headers", "rfc822", "global"],
            )
        {
            // The returned message, whole or its header fields only. A headers-only part
            // (often without the blank line after them) may not parse as a message: then
            // its fields are read as they are.
            let id = match part.message().and_then(|o| o.message_id()) {
                Some(id) => Some(id.to_string()),
                None => {
                    let text = String::from_utf8_lossy(part.contents());
                    field_blocks(&text)
                        .first()
                        .and_then(|b| b.iter().find(|(n, _)| n == "message-id").cloned())
                        .map(|(_, id)| id)
                }
            };
            if let Some(id) = id {
                let id = id.trim().trim_matches(|c| c == '<' || c == '>');
                if !id.is_empty() && dsn.original_message_id.is_none() {
                    dsn.original_message_id = Some(id.to_string());
                }
            }
        }
    }
    Some(dsn)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MessageParser;

    pub const DSN: &str = "From: MAILER-DAEMON@mx.example.net\r\n\
To: turnpost@example.org\r\n\
Subject: Undelivered Mail Returned to Sender\r\n\
Message-ID: <bounce-1@mx.example.net>\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\
\r\n\
--B\r\n\
Content-Type: text/plain\r\n\
\r\n\
I'm sorry to have to inform you that your message could not be delivered.\r\n\
--B\r\n\
Content-Type: message/delivery-status\r\n\
\r\n\
Reporting-MTA: dns; mx.example.net\r\n\
\r\n\
Final-Recipient: rfc822; gone@example.com\r\n\
Action: failed\r\n\
Status: 5.1.1\r\n\
Diagnostic-Code: smtp; 550 5.1.1 <gone@example.com>:\r\n\
 Recipient address rejected\r\n\
\r\n\
Final-Recipient: rfc822; slow@example.com\r\n\
Action: delayed\r\n\
Status: 4.4.1\r\n\
--B\r\n\
Content-Type: text/rfc822-headers\r\n\
\r\n\
From: Turnpost <turnpost@example.org>\r\n\
To: gone@example.com\r\n\
Message-ID: <game-7.seat-0@example.org>\r\n\
Subject: [Turnpost] Kasino #7: your turn\r\n\
--B--\r\n";

    #[test]
    fn failed_recipients_and_the_original_message_id() {
        let m = MessageParser::default().parse(DSN.as_bytes()).unwrap();
        let dsn = parse(&m).unwrap();
        assert_eq!(
            dsn.failed,
            vec![("gone@example.com".to_string(), "5.1.1".to_string())]
        );
        assert_eq!(
            dsn.original_message_id.as_deref(),
            Some("game-7.seat-0@example.org")
        );
        // The whole original message works as well as its headers.
        let full = DSN.replace(
            "Content-Type: text/rfc822-headers\r\n\r\n",
            "Content-Type: message/rfc822\r\n\r\n",
        );
        let m = MessageParser::default().parse(full.as_bytes()).unwrap();
        assert_eq!(
            parse(&m).unwrap().original_message_id.as_deref(),
            Some("game-7.seat-0@example.org")
        );
        // Another kind of report, or no report at all: not a DSN.
        let other = DSN.replace(
            "report-type=delivery-status",
            "report-type=disposition-notification",
        );
        let m = MessageParser::default().parse(other.as_bytes()).unwrap();
        assert_eq!(parse(&m), None);
        let plain = MessageParser::default()
            .parse(b"From: a@b.org\r\nSubject: x\r\n\r\nhello\r\n".as_slice())
            .unwrap();
        assert_eq!(parse(&plain), None);
    }
}
