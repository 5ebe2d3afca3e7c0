//! Bearer tokens: HS256 JWTs whose subject is the account id.

use crate::store::kinds::AccountId;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

#[derive(Debug, Serialize, Deserialize)]
struct Claims {
    sub: String,
    iat: i64,
    exp: i64,
    /// The account's token generation at issue; a password change bumps it, and every
    /// token of an older generation is refused.
    #[serde(default)]
    tgn: i32,
    /// The token's own id, so that signing out revokes this token alone (tokens issued
    /// before it was added have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    jti: Option<String>,
}

/// Who a valid token speaks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenSubject {
    pub account_id: AccountId,
    pub generation: i32,
    /// The token's id: its `jti` (random, 128 bits), or for a token issued before those,
    /// the first 128 bits of its SHA-256.
    pub jti: u128,
    /// When it expires (Unix seconds).
    pub expires_at: i64,
}

#[derive(Clone)]
pub struct Tokens {
    encoding: EncodingKey,
    decoding: DecodingKey,
    ttl_secs: i64,
}

impl Tokens {
    pub fn new(secret: &SecretString, ttl_secs: i64) -> Tokens {
        let bytes = secret.expose_secret().as_bytes();
        Tokens {
            encoding: EncodingKey::from_secret(bytes),
            decoding: DecodingKey::from_secret(bytes),
            ttl_secs,
        }
    }

    pub fn ttl_secs(&self) -> i64 {
        self.ttl_secs
    }

    pub fn issue(
        &self,
        account_id: AccountId,
        generation: i32,
        now: i64,
    ) -> anyhow::Result<String> {
        let claims = Claims {
            sub: account_id.to_string(),
            iat: now,
            exp: now + self.ttl_secs,
            tgn: generation,
            jti: Some(format!("{:032x}", rand::random::<u128>())),
        };
        encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .map_err(|e| anyhow::anyhow!("signing token: {e}"))
    }

    /// The subject of a valid, unexpired token. Whether its account still exists and the
    /// generation is current is the caller's check (it needs the database).
    pub fn verify(&self, token: &str) -> Option<TokenSubject> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 5;
        let data = decode::<Claims>(token, &self.decoding, &validation).ok()?;
        let jti = match data.claims.jti {
            Some(j) => u128::from_str_radix(&j, 16).ok()?,
            None => {
                use sha2::Digest;
                let digest = sha2::Sha256::digest(token.as_bytes());
                let mut first = [0u8; 16];
                first.copy_from_slice(&digest[..16]);
                u128::from_be_bytes(first)
            }
        };
        Some(TokenSubject {
            account_id: data.claims.sub.parse().ok()?,
            generation: data.claims.tgn,
            jti,
            expires_at: data.claims.exp,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_round_trip_and_tampering_fails() {
        let t = Tokens::new(&SecretString::from("k".repeat(32)), 60);
        let now = chrono::Utc::now().timestamp();
        let tok = t.issue(AccountId(42), 3, now).unwrap();
        let s = t.verify(&tok).unwrap();
        assert_eq!((s.account_id, s.generation), (AccountId(42), 3));
        assert_eq!(s.expires_at, now + 60);
        // Each token has its own id, for signing out one of them.
        let again = t.verify(&t.issue(AccountId(42), 3, now).unwrap()).unwrap();
        assert_ne!(s.jti, again.jti);
        let other = Tokens::new(&SecretString::from("x".repeat(32)), 60);
        assert_eq!(other.verify(&tok), None);
        let expired = t.issue(AccountId(42), 0, now - 3600).unwrap();
        assert_eq!(t.verify(&expired), None);
    }
}
