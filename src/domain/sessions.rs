//! Token generations recently read, per account: authenticating a request is then a lookup
//! in memory rather than a query (two of a move's round trips, the GET and the POST).

use std::time::{Duration, Instant};

use quick_cache::sync::Cache;

/// How long a generation read from the database is trusted. A password change made on
/// another node is seen within this time; one made on this node at once.
pub const FRESH_FOR: Duration = Duration::from_secs(2);

pub struct SessionCache {
    generations: Cache<i64, (i32, Instant)>,
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
    pub fn current(&self, account: i64) -> Option<i32> {
        self.generations
            .get(&account)
            .filter(|(_, at)| at.elapsed() < FRESH_FOR)
            .map(|(g, _)| g)
    }

    pub fn remember(&self, account: i64, generation: i32) {
        self.generations
            .insert(account, (generation, Instant::now()));
    }

    /// The account changed its password (or is gone): read it again next time.
    pub fn forget(&self, account: i64) {
        self.generations.remove(&account);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_generation_is_kept_until_forgotten() {
        let c = SessionCache::default();
        assert_eq!(c.current(7), None);
        c.remember(7, 3);
        assert_eq!(c.current(7), Some(3));
        assert_eq!(c.current(8), None);
        c.forget(7);
        assert_eq!(c.current(7), None);
    }
}
