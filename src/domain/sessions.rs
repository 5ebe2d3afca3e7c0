//! Token generations recently read, per account: authenticating a request is then a lookup
//! in memory rather than a query (two of a move's round trips, the GET and the POST).

use super::access_tokens::Scopes;
use crate::store::kinds::AccountId;
use std::time::{Duration, Instant};

use quick_cache::sync::Cache;

/// How long a generation read from the database is trusted. A password change made on
/// another node is seen within this time; one made on this node at once.
pub const FRESH_FOR: Duration = Duration::from_secs(2);

pub struct SessionCache {
    generations: Cache<AccountId, (i32, Instant)>,
    /// Single tokens checked a moment ago (not signed out, not revoked), with what they
    /// grant: a revocation on another node is seen within [`FRESH_FOR`] too.
    sessions: Cache<SessionKey, (Checked, Instant)>,
}

/// One token, as cached: a login token by its `jti`, a personal access token by the
/// SHA-256 of its secret.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SessionKey {
    Login(u128),
    Pat([u8; 32]),
}

/// What a token was found to grant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    pub account: AccountId,
    /// The account's token generation it belongs to.
    pub generation: i32,
    pub scopes: Scopes,
    /// The personal access token's id.
    pub pat: Option<i64>,
}

impl Default for SessionCache {
    fn default() -> Self {
        SessionCache {
            generations: Cache::new(100_000),
            sessions: Cache::new(100_000),
        }
    }
}

impl SessionCache {
    /// The generation of `account`'s tokens, if read less than [`FRESH_FOR`] ago.
    pub fn current(&self, account: AccountId) -> Option<i32> {
        self.generations
            .get(&account)
            .filter(|(_, at)| at.elapsed() < FRESH_FOR)
            .map(|(g, _)| g)
    }

    pub fn remember(&self, account: AccountId, generation: i32) {
        self.generations
            .insert(account, (generation, Instant::now()));
    }

    /// The token, if checked less than [`FRESH_FOR`] ago and its account's generation
    /// (also fresh) is still the one it belongs to: a password change on this node
    /// revokes it at once.
    pub fn session(&self, key: &SessionKey) -> Option<Checked> {
        self.sessions
            .get(key)
            .filter(|(_, at)| at.elapsed() < FRESH_FOR)
            .map(|(c, _)| c)
            .filter(|c| self.current(c.account) == Some(c.generation))
    }

    pub fn remember_session(&self, key: SessionKey, checked: Checked) {
        self.sessions.insert(key, (checked, Instant::now()));
    }

    /// The token was signed out or revoked: check it again next time.
    pub fn forget_session(&self, key: &SessionKey) {
        self.sessions.remove(key);
    }

    /// The account changed its password (or is gone): read it again next time.
    pub fn forget(&self, account: AccountId) {
        self.generations.remove(&account);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generation_is_kept_until_forgotten() {
        let c = SessionCache::default();
        assert_eq!(c.current(AccountId(7)), None);
        c.remember(AccountId(7), 3);
        assert_eq!(c.current(AccountId(7)), Some(3));
        assert_eq!(c.current(AccountId(8)), None);
        c.forget(AccountId(7));
        assert_eq!(c.current(AccountId(7)), None);
    }
}
