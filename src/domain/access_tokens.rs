//! Personal access tokens and scopes.
//!
//! A login (`POST /auth/token`) gives a JWT good for 7 days with every scope. A personal
//! access token is the long-lived option: named, limited to the scopes asked for, listed
//! and revocable one by one. Its secret (`tp_` and 256 random bits in hex) is shown once;
//! only its SHA-256 is stored. Both kinds are checked against the database at most every
//! [`sessions::FRESH_FOR`] per token, so a revocation on another node takes that long.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Array, BigInt, Bytea, Integer, Nullable, Text, Timestamptz};
use serde::{Deserialize, Serialize};
use sha2::Digest;
use utoipa::ToSchema;

#[allow(unused_imports)] // named in the docs
use super::sessions;
use super::sessions::{Checked, SessionKey};
use super::{Domain, DomainError, DomainResult, ProblemCode};
use crate::auth::jwt::TokenSubject;
use crate::store::kinds::AccountId;

/// What a token may do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scope {
    /// Games: list and read them, act, preview, resign, take back, nudge, invitations,
    /// event streams; read the own account (`GET /me`).
    Play,
    /// The account: its settings, password, vacation, webhooks, calendar feed, access
    /// tokens.
    Account,
}

impl Scope {
    pub const ALL: [Scope; 2] = [Scope::Play, Scope::Account];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Play => "play",
            Scope::Account => "account",
        }
    }

    fn from_word(w: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|s| s.as_str() == w)
    }
}

/// A set of scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Scopes {
    play: bool,
    account: bool,
}

impl Scopes {
    /// A login token's: everything.
    pub const ALL: Scopes = Scopes {
        play: true,
        account: true,
    };

    pub fn has(self, s: Scope) -> bool {
        match s {
            Scope::Play => self.play,
            Scope::Account => self.account,
        }
    }

    fn with(mut self, s: Scope) -> Scopes {
        match s {
            Scope::Play => self.play = true,
            Scope::Account => self.account = true,
        }
        self
    }

    /// In the order of [`Scope::ALL`].
    pub fn list(self) -> Vec<Scope> {
        Scope::ALL.into_iter().filter(|s| self.has(*s)).collect()
    }

    /// Scopes as stored; an unknown word (a newer server's) grants nothing.
    fn from_words(words: &[String]) -> Scopes {
        words
            .iter()
            .filter_map(|w| Scope::from_word(w))
            .fold(Scopes::default(), Scopes::with)
    }
}

/// Personal access tokens per account.
pub const MAX_ACCESS_TOKENS: i64 = 20;
/// Characters of a token's name.
pub const MAX_NAME_CHARS: usize = 80;
/// The longest lifetime that may be asked for, in days (none asked: no expiry).
pub const MAX_LIFETIME_DAYS: i64 = 3650;
/// How a personal access token begins (so that a leaked one is easy to recognise).
pub const PAT_PREFIX: &str = "tp_";
/// `last_used_at` is written at most this often per token.
const LAST_USED_GRAIN: &str = "1 minute";

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewAccessTokenRequest {
    /// What the token is for, to recognise it in the list: 1 to 80 characters.
    #[schema(example = "my chess bot", min_length = 1, max_length = 80)]
    pub name: String,
    /// What it may do: any of `play` and `account` (at least one).
    // Read as words and parsed here, so that a stranger is refused as
    // `invalid_token_scopes` (not as a body of the wrong shape); documented as the enum,
    // with at least one item (schemathesis sent `[]` as valid data and got 422).
    #[schema(value_type = Vec<Scope>, min_items = 1, example = json!(["play"]))]
    pub scopes: Vec<String>,
    /// Days until it expires, 1 to 3650; without it the token works until revoked.
    // JSON Schema counts 90.0 as an integer: so does the server (`integral`).
    #[schema(example = 90, minimum = 1, maximum = 3650)]
    #[serde(default, deserialize_with = "super::integral::opt")]
    pub expires_in_days: Option<i64>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AccessTokenResponse {
    pub id: i64,
    pub name: String,
    #[schema(example = json!(["play"]))]
    pub scopes: Vec<Scope>,
    pub created_at: DateTime<Utc>,
    /// When it was last used, to the minute or so (written at most once a minute).
    pub last_used_at: Option<DateTime<Utc>>,
    /// When it stops working; none: when it is revoked.
    pub expires_at: Option<DateTime<Utc>>,
    /// The token itself: only in the answer that created it. Keep it; it is not shown
    /// again. Send it as `Authorization: Bearer <token>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(example = "tp_3b1f0c2a9e1b7d3c445f0c2a9e1b7d3c445f0c2a9e1b7d3c445f0c2a9e1b7d3c")]
    pub token: Option<String>,
}

#[derive(QueryableByName)]
struct TokenRow {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = Text)]
    name: String,
    #[diesel(sql_type = Array<Text>)]
    scopes: Vec<String>,
    #[diesel(sql_type = Timestamptz)]
    created_at: DateTime<Utc>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    last_used_at: Option<DateTime<Utc>>,
    #[diesel(sql_type = Nullable<Timestamptz>)]
    expires_at: Option<DateTime<Utc>>,
}

impl TokenRow {
    fn response(self, token: Option<String>) -> AccessTokenResponse {
        AccessTokenResponse {
            id: self.id,
            name: self.name,
            scopes: Scopes::from_words(&self.scopes).list(),
            created_at: self.created_at,
            last_used_at: self.last_used_at,
            expires_at: self.expires_at,
            token,
        }
    }
}

#[derive(QueryableByName)]
struct FoundToken {
    #[diesel(sql_type = BigInt)]
    id: i64,
    #[diesel(sql_type = BigInt)]
    account_id: i64,
    #[diesel(sql_type = Array<Text>)]
    scopes: Vec<String>,
    #[diesel(sql_type = Integer)]
    generation: i32,
    #[diesel(sql_type = Integer)]
    current_generation: i32,
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The key a personal access token is stored and cached under.
pub fn pat_key(token: &str) -> [u8; 32] {
    sha2::Sha256::digest(token.as_bytes()).into()
}

fn invalid_name() -> DomainError {
    DomainError::invalid(
        ProblemCode::InvalidTokenName,
        format!("a token's name has 1 to {MAX_NAME_CHARS} characters, not only spaces"),
    )
}

/// The scopes asked for, each once, in the order of [`Scope::ALL`].
fn parse_scopes(asked: &[String]) -> DomainResult<Scopes> {
    let mut scopes = Scopes::default();
    for w in asked {
        let s = Scope::from_word(w).ok_or_else(|| {
            let shown: String = w.chars().take(40).collect();
            DomainError::invalid(
                ProblemCode::InvalidTokenScopes,
                format!("unknown scope {shown:?}: scopes are play and account"),
            )
        })?;
        scopes = scopes.with(s);
    }
    if scopes == Scopes::default() {
        return Err(DomainError::invalid(
            ProblemCode::InvalidTokenScopes,
            "scopes lists at least one of play and account",
        ));
    }
    Ok(scopes)
}

fn signed_out() -> DomainError {
    DomainError::Unauthorized {
        code: ProblemCode::Unauthorized,
        message: "the access token is invalid, expired, signed out or revoked".into(),
    }
}

impl Domain {
    /// A new personal access token for `account`; the answer is the only place its
    /// secret appears.
    pub fn create_access_token(
        &self,
        account: AccountId,
        req: NewAccessTokenRequest,
    ) -> DomainResult<AccessTokenResponse> {
        let name = req.name.trim().to_string();
        if name.is_empty()
            || name.chars().count() > MAX_NAME_CHARS
            || name.chars().any(char::is_control)
        {
            return Err(invalid_name());
        }
        let scopes = parse_scopes(&req.scopes)?;
        if let Some(d) = req.expires_in_days
            && !(1..=MAX_LIFETIME_DAYS).contains(&d)
        {
            return Err(DomainError::invalid(
                ProblemCode::InvalidTokenLifetime,
                format!("expires_in_days is 1 to {MAX_LIFETIME_DAYS}, or absent for no expiry"),
            ));
        }
        let secret = format!("{PAT_PREFIX}{}", hex::encode(rand::random::<[u8; 32]>()));
        let words: Vec<&str> = scopes.list().into_iter().map(Scope::as_str).collect();
        let mut conn = self.conn()?;
        let row = conn.transaction::<_, DomainError, _>(|conn| {
            // The account row's lock puts concurrent creations in line for the count.
            let generation: Option<i32> =
                diesel::sql_query("SELECT token_generation AS n FROM accounts WHERE id = $1 FOR NO KEY UPDATE")
                    .bind::<BigInt, _>(account)
                    .get_result::<Generation>(conn)
                    .optional()?
                    .map(|g| g.n);
            let generation = generation.ok_or_else(|| DomainError::not_found("account"))?;
            let c: Count =
                diesel::sql_query("SELECT count(*) AS n FROM access_tokens WHERE account_id = $1")
                    .bind::<BigInt, _>(account)
                    .get_result(conn)?;
            if c.n >= MAX_ACCESS_TOKENS {
                return Err(DomainError::conflict(
                    ProblemCode::TooManyAccessTokens,
                    format!(
                        "an account has at most {MAX_ACCESS_TOKENS} access tokens; revoke one first"
                    ),
                ));
            }
            Ok(diesel::sql_query(
                "INSERT INTO access_tokens (account_id, name, scopes, token_hash, generation, expires_at) \
                 VALUES ($1, $2, $3, $4, $5, now() + make_interval(days => $6)) \
                 RETURNING id, name, scopes, created_at, last_used_at, expires_at",
            )
            .bind::<BigInt, _>(account)
            .bind::<Text, _>(&name)
            .bind::<Array<Text>, _>(&words)
            .bind::<Bytea, _>(pat_key(&secret).to_vec())
            .bind::<Integer, _>(generation)
            .bind::<Nullable<Integer>, _>(req.expires_in_days.map(|d| d as i32))
            .get_result::<TokenRow>(conn)?)
        })?;
        Ok(row.response(Some(secret)))
    }

    /// The account's personal access tokens, oldest first, without their secrets.
    pub fn list_access_tokens(&self, account: AccountId) -> DomainResult<Vec<AccessTokenResponse>> {
        let mut conn = self.conn()?;
        let rows: Vec<TokenRow> = diesel::sql_query(
            "SELECT id, name, scopes, created_at, last_used_at, expires_at \
             FROM access_tokens WHERE account_id = $1 ORDER BY id",
        )
        .bind::<BigInt, _>(account)
        .load(&mut conn)?;
        Ok(rows.into_iter().map(|r| r.response(None)).collect())
    }

    /// Revokes one of the account's personal access tokens: at once on this node, within
    /// [`sessions::FRESH_FOR`] on the others.
    pub fn revoke_access_token(&self, account: AccountId, id: i64) -> DomainResult<()> {
        #[derive(QueryableByName)]
        struct Hash {
            #[diesel(sql_type = Bytea)]
            token_hash: Vec<u8>,
        }
        let mut conn = self.conn()?;
        let gone: Option<Hash> = diesel::sql_query(
            "DELETE FROM access_tokens WHERE id = $1 AND account_id = $2 RETURNING token_hash",
        )
        .bind::<BigInt, _>(id)
        .bind::<BigInt, _>(account)
        .get_result(&mut conn)
        .optional()?;
        let gone = gone.ok_or_else(|| DomainError::not_found("access token"))?;
        if let Ok(key) = <[u8; 32]>::try_from(gone.token_hash.as_slice()) {
            self.sessions.forget_session(&SessionKey::Pat(key));
        }
        Ok(())
    }

    /// What a personal access token grants, when it exists, has not expired, and its
    /// account's password did not change since it was made. Notes its use (coarsely).
    pub fn authenticate_pat(&self, key: [u8; 32]) -> DomainResult<Checked> {
        if let Some(c) = self.sessions.session(&SessionKey::Pat(key)) {
            return Ok(c);
        }
        let mut conn = self.conn()?;
        let found: Option<FoundToken> = diesel::sql_query(format!(
            "WITH t AS ( \
               SELECT t.id, t.account_id, t.scopes, t.generation, t.last_used_at, \
                      a.token_generation AS current_generation \
               FROM access_tokens t JOIN accounts a ON a.id = t.account_id \
               WHERE t.token_hash = $1 AND (t.expires_at IS NULL OR t.expires_at > now())), \
             used AS ( \
               UPDATE access_tokens SET last_used_at = now() WHERE id IN ( \
                 SELECT id FROM t WHERE last_used_at IS NULL \
                   OR last_used_at < now() - interval '{LAST_USED_GRAIN}') \
               RETURNING id) \
             SELECT id, account_id, scopes, generation, current_generation FROM t"
        ))
        .bind::<Bytea, _>(key.to_vec())
        .get_result(&mut conn)
        .optional()?;
        let found = found.ok_or_else(signed_out)?;
        let account = AccountId(found.account_id);
        self.sessions.remember(account, found.current_generation);
        if found.generation != found.current_generation {
            return Err(DomainError::Unauthorized {
                code: ProblemCode::TokenRevoked,
                message: "the password was changed since this token was made; make a new one"
                    .into(),
            });
        }
        let checked = Checked {
            account,
            generation: found.generation,
            scopes: Scopes::from_words(&found.scopes),
            pat: Some(found.id),
        };
        self.sessions
            .remember_session(SessionKey::Pat(key), checked);
        Ok(checked)
    }

    /// A login token's grant, when checked a moment ago (no query).
    pub fn login_checked_recently(&self, subject: &TokenSubject) -> Option<Checked> {
        self.sessions.session(&SessionKey::Login(subject.jti))
    }

    /// What a verified login token grants (every scope), when its account exists, its
    /// generation is current and it was not signed out.
    pub fn authenticate_login(&self, subject: TokenSubject) -> DomainResult<Checked> {
        if let Some(c) = self.login_checked_recently(&subject) {
            return Ok(c);
        }
        let account = self.authenticate(subject)?;
        let mut conn = self.conn()?;
        let c: Count = diesel::sql_query("SELECT count(*) AS n FROM revoked_logins WHERE jti = $1")
            .bind::<Text, _>(format!("{:032x}", subject.jti))
            .get_result(&mut conn)?;
        if c.n > 0 {
            return Err(signed_out());
        }
        let checked = Checked {
            account,
            generation: subject.generation,
            scopes: Scopes::ALL,
            pat: None,
        };
        self.sessions
            .remember_session(SessionKey::Login(subject.jti), checked);
        Ok(checked)
    }

    /// Signs out the token behind `key`: a personal access token is revoked, a login
    /// token's id is refused until it expires (`expires_at`, Unix seconds).
    pub fn sign_out(&self, key: SessionKey, checked: Checked, expires_at: i64) -> DomainResult<()> {
        match (key, checked.pat) {
            (SessionKey::Pat(_), Some(id)) => {
                return self.revoke_access_token(checked.account, id);
            }
            (SessionKey::Login(jti), _) => {
                let mut conn = self.conn()?;
                conn.transaction::<_, DomainError, _>(|conn| {
                    // Rows of expired tokens protect nothing any more.
                    diesel::sql_query(
                        "DELETE FROM revoked_logins WHERE expires_at < now() - interval '1 minute'",
                    )
                    .execute(conn)?;
                    diesel::sql_query(
                        "INSERT INTO revoked_logins (jti, account_id, expires_at) \
                         VALUES ($1, $2, to_timestamp($3)) ON CONFLICT (jti) DO NOTHING",
                    )
                    .bind::<Text, _>(format!("{jti:032x}"))
                    .bind::<BigInt, _>(checked.account)
                    .bind::<diesel::sql_types::Double, _>(expires_at as f64)
                    .execute(conn)?;
                    Ok(())
                })?;
            }
            (SessionKey::Pat(_), None) => {}
        }
        self.sessions.forget_session(&key);
        Ok(())
    }
}

#[derive(QueryableByName)]
struct Generation {
    #[diesel(sql_type = Integer)]
    n: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_parse_each_once_and_refuse_strangers() {
        let s = parse_scopes(&["account".into(), "play".into(), "play".into()]).unwrap();
        assert_eq!(s.list(), vec![Scope::Play, Scope::Account]);
        assert_eq!(
            parse_scopes(&["admin".into()]).unwrap_err().code(),
            ProblemCode::InvalidTokenScopes
        );
        assert_eq!(
            parse_scopes(&[]).unwrap_err().code(),
            ProblemCode::InvalidTokenScopes
        );
        assert!(!Scopes::from_words(&["play".into()]).has(Scope::Account));
    }
}
