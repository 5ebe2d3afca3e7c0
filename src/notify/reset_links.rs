//! Password reset links: `<account>-<expires>-<authentic><fresh>`, signed like the other
//! links in emails (`notify::links`) under keys derived for this purpose alone, and stored
//! nowhere.
//!
//! Two MACs, because a refused link should say why:
//! - `authentic` covers the account and the expiry: without it the link was altered or not
//!   made by this server (`invalid_link`); with it, the expiry can be trusted
//!   (`link_expired`).
//! - `fresh` also covers the account's *fingerprint*: its password hash, its token
//!   generation, its reset generation and its address. Setting a password (by this link or
//!   any other way) writes a new hash with a new salt and bumps the generation, and mailing
//!   a new link bumps the reset generation, so the fingerprint changes and every link
//!   mailed before no longer matches (`link_used`). That is what makes a link
//!   single-use without a table of used links: using it destroys what it was signed over,
//!   and the check and the change happen under the account's row lock, so two uses at once
//!   cannot both see the old fingerprint.

use hmac::Mac;

use super::links::{HmacSha256, MAC_BYTES, derive};
use crate::auth::rotation::Previous;
use crate::store::kinds::AccountId;

/// What a reset link is signed over besides the account and the expiry: the account as it
/// is now. Any password change alters it.
pub struct Fingerprint<'a> {
    pub password_hash: &'a str,
    pub token_generation: i32,
    /// How many reset links the account was mailed: only the newest one works.
    pub reset_generation: i32,
    pub email: &'a str,
}

/// A link whose authenticity MAC holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claimed {
    pub account: AccountId,
    /// Unix seconds after which the link no longer works.
    pub expires: i64,
    fresh: Vec<u8>,
    /// Signed with the previous secret (during a rotation): its freshness is checked
    /// under that secret too.
    by_previous: bool,
}

/// Why a link is refused before the account is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refused {
    /// Altered, truncated, or not made by this server.
    Invalid,
    /// Authentic, but past its expiry.
    Expired,
}

#[derive(Clone)]
pub struct ResetLinks {
    authentic: HmacSha256,
    fresh: HmacSha256,
    /// Links signed with the previous secret, during a rotation.
    previous: Previous<ResetLinks>,
}

/// `<account>-<expires>-<hex>` into its parts; `None` for anything else.
fn split(token: &str) -> Option<(AccountId, i64, Vec<u8>, Vec<u8>)> {
    let mut parts = token.trim().splitn(3, '-');
    let account: i64 = parts.next()?.parse().ok().filter(|a| *a > 0)?;
    let expires: i64 = parts.next()?.parse().ok().filter(|e| *e > 0)?;
    let tags = hex::decode(parts.next()?.to_ascii_lowercase()).ok()?;
    if tags.len() != 2 * MAC_BYTES {
        return None;
    }
    let (authentic, fresh) = tags.split_at(MAC_BYTES);
    Some((
        AccountId(account),
        expires,
        authentic.to_vec(),
        fresh.to_vec(),
    ))
}

impl ResetLinks {
    /// `secret` is the server's signing secret.
    pub fn new(secret: &[u8]) -> anyhow::Result<ResetLinks> {
        Ok(ResetLinks {
            authentic: derive(secret, b"turnpost password reset links v1")?,
            fresh: derive(secret, b"turnpost password reset freshness v1")?,
            previous: Previous::default(),
        })
    }

    /// These links, also accepting what `previous` signed until `until` (Unix seconds).
    pub fn accepting(self, previous: ResetLinks, until: i64) -> ResetLinks {
        ResetLinks {
            previous: Previous::new(previous, until),
            ..self
        }
    }

    fn authentic_mac(&self, account: AccountId, expires: i64) -> HmacSha256 {
        let mut mac = self.authentic.clone();
        mac.update(format!("{account}:{expires}").as_bytes());
        mac
    }

    fn fresh_mac(&self, account: AccountId, expires: i64, f: &Fingerprint) -> HmacSha256 {
        let mut mac = self.fresh.clone();
        // The hash is last: it is the only part that could hold a `:`.
        mac.update(
            format!(
                "{account}:{expires}:{}:{}:{}:{}",
                f.token_generation,
                f.reset_generation,
                f.email.trim().to_lowercase(),
                f.password_hash
            )
            .as_bytes(),
        );
        mac
    }

    /// The token of a link for `account`, working until `expires` (Unix seconds) and while
    /// the account's fingerprint stays `f`.
    pub fn token(&self, account: AccountId, expires: i64, f: &Fingerprint) -> String {
        let authentic = self.authentic_mac(account, expires).finalize().into_bytes();
        let fresh = self.fresh_mac(account, expires, f).finalize().into_bytes();
        format!(
            "{account}-{expires}-{}{}",
            hex::encode(&authentic[..MAC_BYTES]),
            hex::encode(&fresh[..MAC_BYTES])
        )
    }

    /// The account and expiry of an authentic link that has not expired at `now`.
    pub fn check(&self, token: &str, now: i64) -> Result<Claimed, Refused> {
        match (self.check_one(token, now), self.previous.active_at(now)) {
            (Err(Refused::Invalid), Some(p)) => p.check_one(token, now).map(|c| Claimed {
                by_previous: true,
                ..c
            }),
            (result, _) => result,
        }
    }

    fn check_one(&self, token: &str, now: i64) -> Result<Claimed, Refused> {
        let (account, expires, authentic, fresh) = split(token).ok_or(Refused::Invalid)?;
        self.authentic_mac(account, expires)
            .verify_truncated_left(&authentic)
            .map_err(|_| Refused::Invalid)?;
        if now >= expires {
            return Err(Refused::Expired);
        }
        Ok(Claimed {
            account,
            expires,
            fresh,
            by_previous: false,
        })
    }

    /// Whether `claimed` was signed over the account as it is now (`f`): false once its
    /// password has changed since the link was made.
    pub fn is_fresh(&self, claimed: &Claimed, f: &Fingerprint) -> bool {
        let signer = match (claimed.by_previous, self.previous.inner()) {
            (false, _) => self,
            (true, Some(p)) => p,
            (true, None) => return false,
        };
        signer
            .fresh_mac(claimed.account, claimed.expires, f)
            .verify_truncated_left(&claimed.fresh)
            .is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000;

    fn f(hash: &str, generation: i32) -> Fingerprint<'_> {
        Fingerprint {
            password_hash: hash,
            token_generation: generation,
            reset_generation: 0,
            email: "Ada@Example.org",
        }
    }

    /// `t` with its `at`-th character changed.
    fn flip(t: &str, at: usize) -> String {
        let mut b = t.as_bytes().to_vec();
        b[at] = if b[at] == b'0' { b'1' } else { b'0' };
        String::from_utf8(b).unwrap()
    }

    #[test]
    fn a_link_works_until_it_expires_or_the_password_changes() {
        let l = ResetLinks::new(b"a secret of some length, 32 bytes+").unwrap();
        let t = l.token(AccountId(42), NOW + 3600, &f("$argon2id$a", 3));
        let c = l.check(&t, NOW).unwrap();
        assert_eq!((c.account, c.expires), (AccountId(42), NOW + 3600));
        assert!(l.is_fresh(&c, &f("$argon2id$a", 3)));
        // Upper-case hex is the same link.
        assert!(l.check(&t.to_uppercase(), NOW).is_ok());
        // A new password (new hash, next generation), or either alone: no longer fresh.
        assert!(!l.is_fresh(&c, &f("$argon2id$b", 4)));
        assert!(!l.is_fresh(&c, &f("$argon2id$a", 4)));
        assert!(!l.is_fresh(&c, &f("$argon2id$b", 3)));
        // At and after the expiry: expired, not invalid.
        assert_eq!(l.check(&t, NOW + 3600), Err(Refused::Expired));
        // Another account, a later expiry, a flipped or short tag, garbage: invalid.
        for bad in [
            t.replacen("42-", "43-", 1),
            t.replacen(
                &format!("-{}-", NOW + 3600),
                &format!("-{}-", NOW + 7200),
                1,
            ),
            t[..t.len() - 2].to_string(),
            flip(&t, t.rfind('-').unwrap() + 1),
            String::new(),
            "42-1-00".into(),
            "nonsense".into(),
        ] {
            if bad != t {
                assert_eq!(l.check(&bad, NOW), Err(Refused::Invalid), "{bad}");
            }
        }
        // A flipped freshness tag passes the first check, never the second.
        let c = l.check(&flip(&t, t.len() - 1), NOW).unwrap();
        assert!(!l.is_fresh(&c, &f("$argon2id$a", 3)));
        // Another server's secret: invalid.
        let other = ResetLinks::new(b"another secret, also long enough!!").unwrap();
        assert_eq!(other.check(&t, NOW), Err(Refused::Invalid));
    }

    #[test]
    fn after_a_rotation_a_link_of_the_previous_secret_works_until_the_grace_period_ends() {
        let old = ResetLinks::new(b"the old secret, thirty-two bytes long").unwrap();
        let new = || ResetLinks::new(b"the new secret, thirty-two bytes long").unwrap();
        let t = old.token(AccountId(42), NOW + 3600, &f("$argon2id$a", 3));
        assert_eq!(new().check(&t, NOW), Err(Refused::Invalid));
        let rotated = new().accepting(old.clone(), NOW + 60);
        let c = rotated.check(&t, NOW).unwrap();
        assert!(rotated.is_fresh(&c, &f("$argon2id$a", 3)));
        assert!(!rotated.is_fresh(&c, &f("$argon2id$b", 4)));
        // Authentic under the old secret and past its own expiry: expired, as before.
        assert_eq!(rotated.check(&t, NOW + 30 + 3600), Err(Refused::Invalid));
        let long = new().accepting(old.clone(), NOW + 7200);
        assert_eq!(long.check(&t, NOW + 3600), Err(Refused::Expired));
        // After the grace period: invalid.
        assert_eq!(rotated.check(&t, NOW + 60), Err(Refused::Invalid));
    }
}
