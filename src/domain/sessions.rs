//! Token generations recently read, per account: authenticating a request is then a lookup
//! in memory rather than a query (two of a move's round trips, the GET and the POST).

use crate::store::kinds::AccountId;
use std::time::{Duration, Instant};

use quick_cache::sync::Cache;

/// How long a generation read from the database is trusted. A password change made on
/// another node is seen within this time; one made on this node at once.
pub const FRESH_FOR: Duration = Duration::from_secs(2);

pub struct SessionCache {
    generations: Cache<AccountId, (i32, Instant)>,
}

impl Default for SessionCache {
    fn default() -> Self {
        SessionCache {
            generations: Cache::new(100_000),
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
