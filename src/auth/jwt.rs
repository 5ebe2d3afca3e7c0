//! Bearer tokens: HS256 JWTs whose subject is the account id.

use crate::store::kinds::AccountId;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation, decode, encode};
use quick_cache::sync::Cache;
use secrecy::{ExposeSecret, SecretString};
use std::sync::Arc;

use super::rotation::Previous;
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
    /// Stream tickets are signed with a key of their own, so that a ticket is never taken
    /// for a login token (nor a login token for a ticket).
    ticket_encoding: EncodingKey,
    ticket_decoding: DecodingKey,
    ttl_secs: i64,
    /// Tokens and tickets signed with the previous secret, during a rotation.
    previous: Previous<Tokens>,
    /// Tokens this secret already verified, by their whole text, with their subject. A
    /// client sends the same token with every request; checking its signature and decoding
    /// its claims again takes a tenth of the HTTP workers' time under the load bench.
    /// Expiry is still checked on every use. Shared by clones, and by nothing signed with
    /// another secret.
    verified: Arc<Cache<Box<str>, TokenSubject>>,
}

/// How many verified tokens are remembered (a few hundred bytes each).
const VERIFIED_TOKENS: usize = 8192;

/// Seconds of clock difference allowed on expiry, as `Validation::leeway`.
const LEEWAY_SECS: i64 = 5;

/// How long a stream ticket may open streams (seconds). An open stream lives on past it,
/// checked against the token the ticket was issued for.
pub const TICKET_TTL_SECS: i64 = 60;

/// The token a stream ticket was issued for, checked again while its streams are open.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TicketParent {
    /// A login token: its subject (account, generation, id, expiry), as `verify` read it.
    Login {
        account: AccountId,
        generation: i32,
        /// The login token's `jti`, in hex.
        #[serde(with = "hex_u128")]
        jti: u128,
        expires_at: i64,
    },
    /// A personal access token, by the SHA-256 of its secret (which names it and is no
    /// credential: the API takes only the secret).
    Pat {
        #[serde(with = "hex_32")]
        key: [u8; 32],
    },
}

impl TicketParent {
    pub fn of_login(subject: TokenSubject) -> TicketParent {
        TicketParent::Login {
            account: subject.account_id,
            generation: subject.generation,
            jti: subject.jti,
            expires_at: subject.expires_at,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct TicketClaims {
    sub: String,
    iat: i64,
    exp: i64,
    /// What a ticket is for: only opening event streams.
    aud: String,
    parent: TicketParent,
}

const TICKET_AUDIENCE: &str = "turnpost-event-stream";

mod hex_u128 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:032x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let text = String::deserialize(d)?;
        u128::from_str_radix(&text, 16).map_err(serde::de::Error::custom)
    }
}

mod hex_32 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8; 32], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&v.iter().map(|b| format!("{b:02x}")).collect::<String>())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<[u8; 32], D::Error> {
        let text = String::deserialize(d)?;
        let mut out = [0u8; 32];
        if text.len() != 64 || !text.is_ascii() {
            return Err(serde::de::Error::custom("a key is 64 hex digits"));
        }
        for (i, byte) in out.iter_mut().enumerate() {
            *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16)
                .map_err(serde::de::Error::custom)?;
        }
        Ok(out)
    }
}

impl Tokens {
    pub fn new(secret: &SecretString, ttl_secs: i64) -> Tokens {
        let bytes = secret.expose_secret().as_bytes();
        let ticket_key = [bytes, b"\0stream-ticket"].concat();
        Tokens {
            encoding: EncodingKey::from_secret(bytes),
            decoding: DecodingKey::from_secret(bytes),
            ticket_encoding: EncodingKey::from_secret(&ticket_key),
            ticket_decoding: DecodingKey::from_secret(&ticket_key),
            ttl_secs,
            previous: Previous::default(),
            verified: Arc::new(Cache::new(VERIFIED_TOKENS)),
        }
    }

    /// These tokens, also accepting what `previous` signed until `until` (Unix seconds).
    pub fn accepting(self, previous: Tokens, until: i64) -> Tokens {
        Tokens {
            previous: Previous::new(previous, until),
            ..self
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
        self.verify_one(token)
            .or_else(|| self.previous.active()?.verify_one(token))
    }

    fn verify_one(&self, token: &str) -> Option<TokenSubject> {
        let now = jsonwebtoken::get_current_timestamp() as i64;
        if let Some(subject) = self.verified.get(token) {
            return unexpired(subject, now);
        }
        let subject = self.decode_token(token)?;
        self.verified.insert(token.into(), subject);
        unexpired(subject, now)
    }

    /// The subject of a token, if this secret signed it and it has not expired.
    fn decode_token(&self, token: &str) -> Option<TokenSubject> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = LEEWAY_SECS as u64;
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

/// `subject`, unless its token has expired by `now` (as `jsonwebtoken` decides: after its
/// `exp` and the leeway).
fn unexpired(subject: TokenSubject, now: i64) -> Option<TokenSubject> {
    (subject.expires_at >= now - LEEWAY_SECS).then_some(subject)
}

impl Tokens {
    /// A stream ticket for `account`, issued for the token `parent`: it opens event streams
    /// for [`TICKET_TTL_SECS`], so that a browser's `EventSource` (which cannot send a
    /// header) never carries a token in its URL.
    pub fn issue_ticket(
        &self,
        account: AccountId,
        parent: TicketParent,
        now: i64,
    ) -> anyhow::Result<String> {
        let claims = TicketClaims {
            sub: account.to_string(),
            iat: now,
            exp: now + TICKET_TTL_SECS,
            aud: TICKET_AUDIENCE.to_string(),
            parent,
        };
        encode(
            &Header::new(Algorithm::HS256),
            &claims,
            &self.ticket_encoding,
        )
        .map_err(|e| anyhow::anyhow!("signing ticket: {e}"))
    }

    /// The account and parent token of a valid, unexpired stream ticket.
    pub fn verify_ticket(&self, ticket: &str) -> Option<(AccountId, TicketParent)> {
        self.verify_ticket_one(ticket)
            .or_else(|| self.previous.active()?.verify_ticket_one(ticket))
    }

    fn verify_ticket_one(&self, ticket: &str) -> Option<(AccountId, TicketParent)> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = LEEWAY_SECS as u64;
        validation.set_audience(&[TICKET_AUDIENCE]);
        let data = decode::<TicketClaims>(ticket, &self.ticket_decoding, &validation).ok()?;
        let account: AccountId = data.claims.sub.parse().ok()?;
        match data.claims.parent {
            TicketParent::Login { account: a, .. } if a != account => None,
            parent => Some((account, parent)),
        }
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

    #[test]
    fn a_remembered_token_still_expires_and_no_other_text_passes_for_it() {
        let t = Tokens::new(&SecretString::from("k".repeat(32)), 60);
        let now = chrono::Utc::now().timestamp();
        let tok = t.issue(AccountId(42), 3, now).unwrap();
        let first = t.verify(&tok).unwrap();
        assert_eq!(t.verified.len(), 1, "the verified token is remembered");
        assert_eq!(t.clone().verify(&tok), Some(first));
        // One character changed (here the signature's first, all of whose bits count) is
        // another token: it is checked, and fails.
        let at = tok.rfind('.').unwrap() + 1;
        let mut forged = tok.clone();
        let first_char = if tok[at..].starts_with('A') { "B" } else { "A" };
        forged.replace_range(at..at + 1, first_char);
        assert_eq!(t.verify(&forged), None);
        assert_eq!(t.verified.len(), 1, "a token that fails is not remembered");
        // A remembered token past its expiry (and the leeway) no longer passes.
        t.verified.insert(
            tok.as_str().into(),
            TokenSubject {
                expires_at: now - LEEWAY_SECS - 1,
                ..first
            },
        );
        assert_eq!(t.verify(&tok), None);
        // Another secret never sees what this one remembered.
        let other = Tokens::new(&SecretString::from("x".repeat(32)), 60);
        assert_eq!(other.verify(&tok), None);
    }

    #[test]
    fn a_ticket_opens_streams_only_and_a_token_is_no_ticket() {
        let t = Tokens::new(&SecretString::from("k".repeat(32)), 600);
        let now = chrono::Utc::now().timestamp();
        let login = t.verify(&t.issue(AccountId(7), 2, now).unwrap()).unwrap();
        let parent = TicketParent::of_login(login);
        let ticket = t.issue_ticket(AccountId(7), parent, now).unwrap();
        assert_eq!(t.verify_ticket(&ticket), Some((AccountId(7), parent)));
        // Neither passes for the other: their keys differ.
        assert_eq!(t.verify(&ticket), None);
        assert_eq!(
            t.verify_ticket(&t.issue(AccountId(7), 2, now).unwrap()),
            None
        );
        let pat = TicketParent::Pat { key: [0xab; 32] };
        let ticket = t.issue_ticket(AccountId(7), pat, now).unwrap();
        assert_eq!(t.verify_ticket(&ticket), Some((AccountId(7), pat)));
        let old = t
            .issue_ticket(AccountId(7), pat, now - TICKET_TTL_SECS - 10)
            .unwrap();
        assert_eq!(t.verify_ticket(&old), None);
        let other = Tokens::new(&SecretString::from("x".repeat(32)), 600);
        assert_eq!(other.verify_ticket(&ticket), None);
    }

    #[test]
    fn after_a_rotation_the_previous_secret_counts_until_the_grace_period_ends() {
        let now = chrono::Utc::now().timestamp();
        let old = Tokens::new(&SecretString::from("o".repeat(32)), 600);
        let token = old.issue(AccountId(7), 1, now).unwrap();
        let login = old.verify(&token).unwrap();
        let ticket = old
            .issue_ticket(AccountId(7), TicketParent::of_login(login), now)
            .unwrap();
        let new = || Tokens::new(&SecretString::from("n".repeat(32)), 600);
        assert_eq!(new().verify(&token), None);
        let rotated = new().accepting(old.clone(), now + 60);
        assert_eq!(rotated.verify(&token), Some(login));
        assert!(rotated.verify_ticket(&ticket).is_some());
        // What the rotated server signs is the new secret's alone.
        let fresh = rotated.issue(AccountId(7), 1, now).unwrap();
        assert!(new().verify(&fresh).is_some());
        assert_eq!(old.verify(&fresh), None);
        // After the grace period, the old secret no longer counts.
        let over = new().accepting(old, now - 1);
        assert_eq!(over.verify(&token), None);
        assert_eq!(over.verify_ticket(&ticket), None);
    }
}
