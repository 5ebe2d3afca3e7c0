//! Which SMTP refusals at send time say the recipient's mailbox does not exist.
//!
//! Every email has exactly one recipient, so a permanent refusal of RCPT (or of the
//! message after DATA, where some servers check recipients late) is about that address:
//! retrying it for hours changes nothing, and the address is marked bouncing at once, as a
//! delivery-status report would. But a permanent refusal can also be about us (a relay
//! that does not relay for us, `554 5.7.1`; a rejected sender, `553 5.1.8`; a failed
//! login): marking the recipient then would silence every player at once, so those keep
//! the ordinary retries, and once given up `turnpost outbox requeue` sends them after the
//! fix. lettre does not say at which command a reply came, so the reply itself decides:
//! its enhanced status code (RFC 3463) when it has one, else its basic code.

use lettre::transport::smtp::Error as SmtpError;

/// Enhanced status codes about the destination mailbox: bad mailbox (5.1.1), bad system
/// (5.1.2), bad syntax (5.1.3), moved (5.1.6), no such recipient (5.1.10), disabled (5.2.1).
const MAILBOX_GONE: &[&str] = &["5.1.1", "5.1.2", "5.1.3", "5.1.6", "5.1.10", "5.2.1"];

/// Basic codes that, without an enhanced code, mean the mailbox was refused: 550 mailbox
/// unavailable, 551 user not local, 553 mailbox name not allowed. (554 is as often a
/// policy refusal of the whole transaction, so it needs an enhanced code to count.)
const MAILBOX_REFUSED: &[u16] = &[550, 551, 553];

/// The status that marks the address (the enhanced code, else the basic one), when `e` is
/// a permanent refusal of the recipient's mailbox; `None` for anything else.
pub fn mailbox_refused(e: &anyhow::Error) -> Option<String> {
    let smtp = e.chain().find_map(|c| c.downcast_ref::<SmtpError>())?;
    if !smtp.is_permanent() {
        return None;
    }
    let basic: u16 = smtp.status()?.to_string().parse().ok()?;
    classify(basic, &smtp.to_string())
}

/// The decision on a permanent reply's basic code and text (lettre's error text carries
/// the server's words after the code).
fn classify(basic: u16, text: &str) -> Option<String> {
    match enhanced(text) {
        Some(code) => MAILBOX_GONE.contains(&code.as_str()).then_some(code),
        None => MAILBOX_REFUSED.contains(&basic).then(|| basic.to_string()),
    }
}

/// The first enhanced status code (`5.x.y`) in a reply's text.
fn enhanced(text: &str) -> Option<String> {
    text.split(|c: char| c.is_whitespace() || c == ':' || c == '(' || c == ')' || c == ',')
        .find(|w| {
            let parts: Vec<&str> = w.split('.').collect();
            parts.len() == 3
                && parts[0] == "5"
                && parts[1..]
                    .iter()
                    .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_mailbox_is_refused_and_a_relay_or_sender_refusal_is_not() {
        let cases = [
            (
                550,
                "5.1.1 <bo@example.org>: Recipient address rejected: User unknown",
                Some("5.1.1"),
            ),
            (550, "5.2.1 mailbox disabled", Some("5.2.1")),
            (553, "mailbox name not allowed", Some("553")),
            (
                550,
                "Requested action not taken: mailbox unavailable",
                Some("550"),
            ),
            (554, "5.7.1 <bo@example.org>: Relay access denied", None),
            (
                553,
                "5.1.8 <games@example.org>: Sender address rejected: Domain not found",
                None,
            ),
            (554, "Transaction failed", None),
            (535, "5.7.8 Authentication credentials invalid", None),
            (552, "5.3.4 Message size exceeds fixed limit", None),
        ];
        for (basic, text, want) in cases {
            assert_eq!(
                classify(basic, &format!("permanent error ({basic}): {text}")).as_deref(),
                want,
                "{basic} {text}"
            );
        }
    }

    #[test]
    fn a_connection_failure_is_no_refusal() {
        let e = anyhow::anyhow!("connection refused").context("SMTP send");
        assert_eq!(mailbox_refused(&e), None);
    }
}
