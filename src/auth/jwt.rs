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
}

/// Who a valid token speaks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenSubject {
    pub account_id: AccountId,
    pub generation: i32,
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
        Some(TokenSubject {
            account_id: data.claims.sub.parse().ok()?,
            generation: data.claims.tgn,
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
        assert_eq!(
            t.verify(&tok),
            Some(TokenSubject {
                account_id: AccountId(42),
                generation: 3
            })
        );
        let other = Tokens::new(&SecretString::from("x".repeat(32)), 60);
        assert_eq!(other.verify(&tok), None);
        let expired = t.issue(AccountId(42), 0, now - 3600).unwrap();
        assert_eq!(t.verify(&expired), None);
    }
}
