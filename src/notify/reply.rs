//! Reply tokens: the Reply-To address of a turn email carries a token bound to (game,
//! seat, version), authenticated with an HMAC under a server key, so it cannot be guessed
//! or altered. The token needs no storage; it dies when the game moves past `version`.
//! Form: `<local>+<game>-<seat>-<version>-<mac>@<domain>`, all lower case (some mail
//! systems lower-case local parts).

use crate::store::kinds::GameId;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::auth::rotation::Previous;

type HmacSha256 = Hmac<Sha256>;

/// Bytes of the MAC kept in a token (80 bits).
const MAC_BYTES: usize = 10;

/// What a valid token names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReplyToken {
    pub game_id: GameId,
    pub seat: i32,
    pub version: i64,
}

/// Where replies go and the key that signs their tokens.
#[derive(Clone)]
pub struct ReplyAddress {
    /// HMAC keyed with the token key, cloned for each token.
    base: HmacSha256,
    local: String,
    domain: String,
    /// Tokens signed with the previous secret, during a rotation.
    previous: Previous<ReplyAddress>,
}

/// Why an address carries no usable token.
#[derive(Debug, PartialEq, Eq)]
pub enum TokenError {
    /// No `+token` in a recipient at our reply domain.
    Missing,
    /// Something that looks like a token but does not verify.
    Invalid,
}

impl ReplyAddress {
    /// `address` is the plain reply address (`play@example.org`); `secret` the server's
    /// signing secret, from which the token key is derived.
    pub fn new(address: &str, secret: &[u8]) -> anyhow::Result<ReplyAddress> {
        let parsed: lettre::Address = address
            .trim()
            .parse()
            .map_err(|e| anyhow::anyhow!("invalid reply address {address:?}: {e}"))?;
        let mut mac = HmacSha256::new_from_slice(secret).map_err(|e| anyhow::anyhow!("{e}"))?;
        mac.update(b"turnpost reply tokens v1");
        let key = mac.finalize().into_bytes();
        Ok(ReplyAddress {
            base: HmacSha256::new_from_slice(&key).map_err(|e| anyhow::anyhow!("{e}"))?,
            local: parsed.user().to_lowercase(),
            domain: parsed.domain().to_lowercase(),
            previous: Previous::default(),
        })
    }

    /// This address, also accepting tokens `previous` signed until `until` (Unix seconds).
    pub fn accepting(self, previous: ReplyAddress, until: i64) -> ReplyAddress {
        ReplyAddress {
            previous: Previous::new(previous, until),
            ..self
        }
    }

    fn mac(&self, t: ReplyToken) -> HmacSha256 {
        let mut mac = self.base.clone();
        mac.update(format!("{}:{}:{}", t.game_id, t.seat, t.version).as_bytes());
        mac
    }

    pub fn token(&self, t: ReplyToken) -> String {
        let tag = self.mac(t).finalize().into_bytes();
        format!(
            "{}-{}-{}-{}",
            t.game_id,
            t.seat,
            t.version,
            hex::encode(&tag[..MAC_BYTES])
        )
    }

    /// The full reply address for `t`.
    pub fn address(&self, t: ReplyToken) -> String {
        format!("{}+{}@{}", self.local, self.token(t), self.domain)
    }

    /// The address without a token (for mail that expects no reply).
    pub fn plain(&self) -> String {
        format!("{}@{}", self.local, self.domain)
    }

    /// Checks one token string (the part after `+`).
    pub fn verify(&self, token: &str) -> Result<ReplyToken, TokenError> {
        self.verify_one(token)
            .or_else(|e| match self.previous.active() {
                Some(p) => p.verify_one(token).map_err(|_| e),
                None => Err(e),
            })
    }

    fn verify_one(&self, token: &str) -> Result<ReplyToken, TokenError> {
        let parts: Vec<&str> = token.trim().split('-').collect();
        let [g, s, v, tag] = parts.as_slice() else {
            return Err(TokenError::Invalid);
        };
        let (Ok(game_id), Ok(seat), Ok(version)) =
            (g.parse::<i64>(), s.parse::<i32>(), v.parse::<i64>())
        else {
            return Err(TokenError::Invalid);
        };
        let Ok(tag) = hex::decode(tag.to_ascii_lowercase()) else {
            return Err(TokenError::Invalid);
        };
        if tag.len() != MAC_BYTES {
            return Err(TokenError::Invalid);
        }
        let t = ReplyToken {
            game_id: GameId(game_id),
            seat,
            version,
        };
        // Constant-time comparison of the truncated tag.
        self.mac(t)
            .verify_truncated_left(&tag)
            .map_err(|_| TokenError::Invalid)?;
        Ok(t)
    }

    /// Finds the token among recipient addresses: the first `local+token@domain` of ours.
    pub fn find<'a>(
        &self,
        recipients: impl IntoIterator<Item = &'a str>,
    ) -> Result<ReplyToken, TokenError> {
        let mut result = Err(TokenError::Missing);
        for r in recipients {
            // A `+` that went through a URL query (`?to=play+…`) arrives as a space.
            let r = r
                .trim()
                .trim_matches(|c| c == '<' || c == '>')
                .replace(' ', "+")
                .to_lowercase();
            let Some((local, domain)) = r.rsplit_once('@') else {
                continue;
            };
            let Some((base, token)) = local.split_once('+') else {
                continue;
            };
            if base != self.local || domain != self.domain {
                continue;
            }
            match self.verify(token) {
                Ok(t) => return Ok(t),
                Err(e) => result = Err(e),
            }
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_resist_tampering() {
        let r =
            ReplyAddress::new("Play@Example.org", b"a secret of some length, 32 bytes+").unwrap();
        let t = ReplyToken {
            game_id: GameId(12),
            seat: 1,
            version: 7,
        };
        let addr = r.address(t);
        assert!(
            addr.starts_with("play+12-1-7-") && addr.ends_with("@example.org"),
            "{addr}"
        );
        assert_eq!(r.find([addr.as_str()]), Ok(t));
        assert_eq!(r.find([addr.to_uppercase().as_str()]), Ok(t));
        assert_eq!(r.find([addr.replace('+', " ").as_str()]), Ok(t));
        let forged = addr.replace("12-1-7-", "12-0-7-");
        assert_eq!(r.find([forged.as_str()]), Err(TokenError::Invalid));
        assert_eq!(
            r.find(["play@example.org", "x+1-2-3@other.org"]),
            Err(TokenError::Missing)
        );
        let other =
            ReplyAddress::new("play@example.org", b"another secret, also long enough!!").unwrap();
        assert_eq!(other.find([addr.as_str()]), Err(TokenError::Invalid));
    }

    #[test]
    fn after_a_rotation_old_reply_addresses_work_until_the_grace_period_ends() {
        let now = chrono::Utc::now().timestamp();
        let secret_old = b"the old secret, thirty-two bytes long";
        let secret_new = b"the new secret, thirty-two bytes long";
        let old = ReplyAddress::new("play@example.org", secret_old).unwrap();
        let t = ReplyToken {
            game_id: GameId(3),
            seat: 0,
            version: 9,
        };
        let addr = old.address(t);
        let new = || ReplyAddress::new("play@example.org", secret_new).unwrap();
        assert_eq!(new().find([addr.as_str()]), Err(TokenError::Invalid));
        let rotated = new().accepting(old.clone(), now + 60);
        assert_eq!(rotated.find([addr.as_str()]), Ok(t));
        assert_eq!(rotated.address(t), new().address(t));
        let over = new().accepting(old, now - 1);
        assert_eq!(over.find([addr.as_str()]), Err(TokenError::Invalid));
    }
}
