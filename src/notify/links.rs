//! Signed links in emails that work without signing in: the one-click unsubscribe link
//! (RFC 8058) and the address confirmation link. Each carries the account id and an HMAC
//! under a key derived from the server secret for that purpose alone, so a link cannot be
//! guessed, edited to name another account, or used for the other purpose. They need no
//! storage. A confirmation link is also bound to the address it was sent to.

use crate::store::kinds::AccountId;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::auth::rotation::Previous;

pub(crate) type HmacSha256 = Hmac<Sha256>;

/// Bytes of the MAC kept in a link (128 bits).
pub(crate) const MAC_BYTES: usize = 16;

#[derive(Clone)]
pub struct SignedLinks {
    unsubscribe: HmacSha256,
    verify: HmacSha256,
    message_ids: HmacSha256,
    calendar: HmacSha256,
    public_url: String,
    /// Links signed with the previous secret, during a rotation.
    previous: Previous<SignedLinks>,
}

/// A key of its own for `purpose`, derived from the server secret (also used by
/// `notify::reset_links`).
pub(crate) fn derive(secret: &[u8], purpose: &[u8]) -> anyhow::Result<HmacSha256> {
    let mut mac = HmacSha256::new_from_slice(secret).map_err(|e| anyhow::anyhow!("{e}"))?;
    mac.update(purpose);
    let key = mac.finalize().into_bytes();
    HmacSha256::new_from_slice(&key).map_err(|e| anyhow::anyhow!("{e}"))
}

/// `<account>-<hex tag>` into its parts; `None` for anything else.
fn split(token: &str) -> Option<(AccountId, Vec<u8>)> {
    let (account, tag) = token.trim().split_once('-')?;
    let account = AccountId(account.parse().ok().filter(|a: &i64| *a > 0)?);
    let tag = hex::decode(tag.to_ascii_lowercase()).ok()?;
    (tag.len() == MAC_BYTES).then_some((account, tag))
}

impl SignedLinks {
    /// `secret` is the server's signing secret; `public_url` the base of the links.
    pub fn new(secret: &[u8], public_url: &str) -> anyhow::Result<SignedLinks> {
        Ok(SignedLinks {
            unsubscribe: derive(secret, b"turnpost unsubscribe links v1")?,
            verify: derive(secret, b"turnpost address confirmation links v1")?,
            message_ids: derive(secret, b"turnpost message ids v1")?,
            calendar: derive(secret, b"turnpost calendar feeds v1")?,
            public_url: public_url.trim_end_matches('/').to_string(),
            previous: Previous::default(),
        })
    }

    /// These links, also accepting what `previous` signed until `until` (Unix seconds).
    /// Message-ID tags are made with the current secret alone: they are never checked.
    pub fn accepting(self, previous: SignedLinks, until: i64) -> SignedLinks {
        SignedLinks {
            previous: Previous::new(previous, until),
            ..self
        }
    }

    fn unsubscribe_mac(&self, account: AccountId) -> HmacSha256 {
        let mut mac = self.unsubscribe.clone();
        mac.update(account.to_string().as_bytes());
        mac
    }

    fn verify_mac(&self, account: AccountId, email: &str) -> HmacSha256 {
        let mut mac = self.verify.clone();
        mac.update(format!("{account}:{}", email.trim().to_lowercase()).as_bytes());
        mac
    }

    /// A tag that makes a Message-ID built from `name` (a row or a game and seat) one
    /// that cannot be guessed: a delivery-status report must name an email we sent, and
    /// only its recipient's mail system saw that email's id.
    pub fn message_tag(&self, name: &str) -> String {
        let mut mac = self.message_ids.clone();
        mac.update(name.as_bytes());
        hex::encode(&mac.finalize().into_bytes()[..8])
    }

    /// The calendar feed's MAC: bound to the account's feed secret, so a new secret
    /// revokes every earlier feed URL.
    fn calendar_mac(&self, account: AccountId, feed_secret: &str) -> HmacSha256 {
        let mut mac = self.calendar.clone();
        mac.update(format!("{account}:{feed_secret}").as_bytes());
        mac
    }

    /// The path segment of the calendar feed's URL: `<account>-<hex tag>`.
    pub fn calendar_token(&self, account: AccountId, feed_secret: &str) -> String {
        let tag = self
            .calendar_mac(account, feed_secret)
            .finalize()
            .into_bytes();
        format!("{account}-{}", hex::encode(&tag[..MAC_BYTES]))
    }

    /// The calendar feed's URL (no login: the token is the authority).
    pub fn calendar_url(&self, account: AccountId, feed_secret: &str) -> String {
        format!(
            "{}/api/v1/calendar/{}.ics",
            self.public_url,
            self.calendar_token(account, feed_secret)
        )
    }

    /// The account a calendar token names (to look up its feed secret with).
    pub fn calendar_account(token: &str) -> Option<AccountId> {
        split(token).map(|(a, _)| a)
    }

    /// Whether `token` is the current feed token of `account`.
    pub fn check_calendar(&self, token: &str, account: AccountId, feed_secret: &str) -> bool {
        self.check_calendar_one(token, account, feed_secret)
            || self
                .previous
                .active()
                .is_some_and(|p| p.check_calendar_one(token, account, feed_secret))
    }

    fn check_calendar_one(&self, token: &str, account: AccountId, feed_secret: &str) -> bool {
        match split(token) {
            Some((a, tag)) if a == account => self
                .calendar_mac(account, feed_secret)
                .verify_truncated_left(&tag)
                .is_ok(),
            _ => false,
        }
    }

    pub fn unsubscribe_token(&self, account: AccountId) -> String {
        let tag = self.unsubscribe_mac(account).finalize().into_bytes();
        format!("{account}-{}", hex::encode(&tag[..MAC_BYTES]))
    }

    /// The one-click unsubscribe URL of `account` (List-Unsubscribe).
    pub fn unsubscribe_url(&self, account: AccountId) -> String {
        format!(
            "{}/api/v1/unsubscribe/{}",
            self.public_url,
            self.unsubscribe_token(account)
        )
    }

    /// The account an unsubscribe token names, if its signature holds.
    pub fn check_unsubscribe(&self, token: &str) -> Option<AccountId> {
        self.check_unsubscribe_one(token)
            .or_else(|| self.previous.active()?.check_unsubscribe_one(token))
    }

    fn check_unsubscribe_one(&self, token: &str) -> Option<AccountId> {
        let (account, tag) = split(token)?;
        self.unsubscribe_mac(account)
            .verify_truncated_left(&tag)
            .ok()
            .map(|()| account)
    }

    pub fn verify_token(&self, account: AccountId, email: &str) -> String {
        let tag = self.verify_mac(account, email).finalize().into_bytes();
        format!("{account}-{}", hex::encode(&tag[..MAC_BYTES]))
    }

    /// The address confirmation URL for `account` at `email`.
    pub fn verify_url(&self, account: AccountId, email: &str) -> String {
        format!(
            "{}/api/v1/verify-email/{}",
            self.public_url,
            self.verify_token(account, email)
        )
    }

    /// The account a confirmation token names (to look up its address with).
    pub fn verify_account(token: &str) -> Option<AccountId> {
        split(token).map(|(a, _)| a)
    }

    /// Whether `token` confirms `email` for `account`.
    pub fn check_verify(&self, token: &str, account: AccountId, email: &str) -> bool {
        self.check_verify_one(token, account, email)
            || self
                .previous
                .active()
                .is_some_and(|p| p.check_verify_one(token, account, email))
    }

    fn check_verify_one(&self, token: &str, account: AccountId, email: &str) -> bool {
        match split(token) {
            Some((a, tag)) if a == account => self
                .verify_mac(account, email)
                .verify_truncated_left(&tag)
                .is_ok(),
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_round_trip_and_resist_tampering() {
        let l = SignedLinks::new(b"a secret of some length, 32 bytes+", "https://x.org/").unwrap();
        let t = l.unsubscribe_token(AccountId(42));
        assert_eq!(l.check_unsubscribe(&t), Some(AccountId(42)));
        assert_eq!(l.check_unsubscribe(&t.to_uppercase()), Some(AccountId(42)));
        assert!(
            l.unsubscribe_url(AccountId(42))
                .starts_with("https://x.org/api/v1/unsubscribe/42-")
        );
        // Another account, a flipped tag, a short tag, garbage: refused.
        assert_eq!(l.check_unsubscribe(&t.replacen("42-", "43-", 1)), None);
        let mut flipped = t.clone();
        let last = flipped.pop().unwrap();
        flipped.push(if last == '0' { '1' } else { '0' });
        assert_eq!(l.check_unsubscribe(&flipped), None);
        assert_eq!(l.check_unsubscribe(&t[..t.len() - 2]), None);
        for bad in ["", "-", "42", "x-00", "-1-00", "0-00"] {
            assert_eq!(l.check_unsubscribe(bad), None, "{bad}");
        }
        // A confirmation link is no unsubscribe link, and is bound to the address.
        let v = l.verify_token(AccountId(42), "Ada@Example.org");
        assert_eq!(l.check_unsubscribe(&v), None);
        assert_eq!(SignedLinks::verify_account(&v), Some(AccountId(42)));
        assert!(l.check_verify(&v, AccountId(42), "ada@example.org"));
        assert!(!l.check_verify(&v, AccountId(42), "eve@example.org"));
        assert!(!l.check_verify(&v, AccountId(43), "ada@example.org"));
        assert!(!l.check_verify(&t, AccountId(42), "ada@example.org"));
        let other = SignedLinks::new(b"another secret, also long enough!!", "").unwrap();
        assert_eq!(other.check_unsubscribe(&t), None);
        // Message-ID tags: stable, 16 hex digits, different per name and per secret.
        assert_eq!(
            l.message_tag("game-1.seat-0"),
            l.message_tag("game-1.seat-0")
        );
        assert_eq!(l.message_tag("game-1.seat-0").len(), 16);
        assert_ne!(
            l.message_tag("game-1.seat-0"),
            l.message_tag("game-1.seat-1")
        );
        assert_ne!(
            l.message_tag("game-1.seat-0"),
            other.message_tag("game-1.seat-0")
        );
    }

    #[test]
    fn after_a_rotation_links_of_the_previous_secret_work_until_the_grace_period_ends() {
        let now = chrono::Utc::now().timestamp();
        let old = SignedLinks::new(b"the old secret, thirty-two bytes long", "").unwrap();
        let new = || SignedLinks::new(b"the new secret, thirty-two bytes long", "").unwrap();
        let (a, mail, feed) = (AccountId(5), "ada@example.org", "feed");
        let unsubscribe = old.unsubscribe_token(a);
        let verify = old.verify_token(a, mail);
        let calendar = old.calendar_token(a, feed);
        let rotated = new().accepting(old.clone(), now + 60);
        assert_eq!(rotated.check_unsubscribe(&unsubscribe), Some(a));
        assert!(rotated.check_verify(&verify, a, mail));
        assert!(rotated.check_calendar(&calendar, a, feed));
        assert_eq!(rotated.unsubscribe_token(a), new().unsubscribe_token(a));
        let over = new().accepting(old, now - 1);
        assert_eq!(over.check_unsubscribe(&unsubscribe), None);
        assert!(!over.check_verify(&verify, a, mail));
        assert!(!over.check_calendar(&calendar, a, feed));
    }
}
