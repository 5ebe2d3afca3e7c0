//! Failed-login throttling per email address: after `max_failures` failures within the
//! window, further attempts get 429 until the oldest failure leaves the window. In memory:
//! a restart forgives, which is acceptable for a single-node server.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct LoginThrottle {
    max_failures: usize,
    window: Duration,
    failures: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl LoginThrottle {
    pub fn new(max_failures: u32, window: Duration) -> LoginThrottle {
        LoginThrottle {
            max_failures: max_failures.max(1) as usize,
            window,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// `Some(seconds)` to wait when `key` is locked out now.
    pub fn check(&self, key: &str, now: Instant) -> Option<u64> {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let list = map.get_mut(key)?;
        while list
            .front()
            .is_some_and(|t| now.duration_since(*t) >= self.window)
        {
            list.pop_front();
        }
        if list.len() >= self.max_failures {
            let oldest = *list.front()?;
            let wait = self.window.saturating_sub(now.duration_since(oldest));
            return Some(wait.as_secs().max(1));
        }
        None
    }

    pub fn record_failure(&self, key: &str, now: Instant) {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        // Bound memory under a flood of distinct keys.
        if map.len() > 100_000 {
            map.retain(|_, l| {
                l.back()
                    .is_some_and(|t| now.duration_since(*t) < self.window)
            });
        }
        map.entry(key.to_string()).or_default().push_back(now);
    }

    pub fn record_success(&self, key: &str) {
        let mut map = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        map.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locks_after_max_failures_and_unlocks_after_the_window() {
        let t = LoginThrottle::new(3, Duration::from_secs(60));
        let start = Instant::now();
        for _ in 0..3 {
            assert_eq!(t.check("a@b", start), None);
            t.record_failure("a@b", start);
        }
        assert!(t.check("a@b", start).is_some());
        assert_eq!(t.check("other@b", start), None);
        assert_eq!(t.check("a@b", start + Duration::from_secs(61)), None);
    }
}
