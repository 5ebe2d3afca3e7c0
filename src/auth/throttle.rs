//! Failed-login throttling. Two budgets, both per window: failures per (account, client
//! address), so a stranger's wrong guesses cannot lock the owner out from elsewhere, and
//! failures per client address across all accounts, so one address cannot spray guesses.
//!
//! An attempt reserves its place before the password is checked (`begin`), and the check
//! and the reservation happen under one lock, so concurrent guesses cannot overrun the
//! budget while earlier ones are still being verified. In memory: a restart forgives,
//! which is acceptable for a single-node server.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

#[derive(Default)]
struct Budget {
    failures: VecDeque<Instant>,
    in_flight: usize,
}

impl Budget {
    fn prune(&mut self, now: Instant, window: Duration) {
        while self
            .failures
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            self.failures.pop_front();
        }
    }

    /// Seconds to wait, when failures plus attempts in flight reach `max`.
    fn wait(&self, now: Instant, window: Duration, max: usize) -> Option<u64> {
        if self.failures.len() + self.in_flight < max {
            return None;
        }
        let wait = match self.failures.front() {
            // Full of failures: until the oldest leaves the window.
            Some(oldest) if self.failures.len() >= max => {
                window.saturating_sub(now.duration_since(*oldest))
            }
            // Full only because attempts are being checked right now.
            _ => Duration::from_secs(1),
        };
        Some(wait.as_secs().max(1))
    }
}

pub struct LoginThrottle {
    per_account_address: usize,
    per_address: usize,
    window: Duration,
    budgets: Mutex<HashMap<String, Budget>>,
}

/// A login attempt that holds its place in both budgets until `finish`.
#[must_use]
pub struct Attempt {
    keys: [String; 2],
}

fn keys(email: &str, ip: IpAddr) -> [String; 2] {
    [format!("a:{ip}|{email}"), format!("i:{ip}")]
}

impl LoginThrottle {
    /// `max_failures` per account and address; `max_per_address` per address.
    pub fn new(max_failures: u32, max_per_address: u32, window: Duration) -> LoginThrottle {
        LoginThrottle {
            per_account_address: max_failures.max(1) as usize,
            per_address: max_per_address.max(1) as usize,
            window,
            budgets: Mutex::new(HashMap::new()),
        }
    }

    /// Reserves an attempt for `email` from `ip`, or says how many seconds to wait.
    pub fn begin(&self, email: &str, ip: IpAddr, now: Instant) -> Result<Attempt, u64> {
        let mut map = self.budgets.lock().unwrap_or_else(|p| p.into_inner());
        // Bound memory under a flood of distinct keys.
        if map.len() > 100_000 {
            let window = self.window;
            map.retain(|_, b| {
                b.in_flight > 0
                    || b.failures
                        .back()
                        .is_some_and(|t| now.duration_since(*t) < window)
            });
        }
        let keys = keys(email, ip);
        let limits = [self.per_account_address, self.per_address];
        let mut wait = None;
        for (key, max) in keys.iter().zip(limits) {
            if let Some(b) = map.get_mut(key) {
                b.prune(now, self.window);
                wait = wait.max(b.wait(now, self.window, max));
            }
        }
        if let Some(w) = wait {
            return Err(w);
        }
        for key in &keys {
            map.entry(key.clone()).or_default().in_flight += 1;
        }
        Ok(Attempt { keys })
    }

    /// Ends an attempt: a failure counts against both budgets; a success clears the
    /// account's budget at this address.
    pub fn finish(&self, attempt: Attempt, succeeded: bool, now: Instant) {
        let mut map = self.budgets.lock().unwrap_or_else(|p| p.into_inner());
        for (i, key) in attempt.keys.iter().enumerate() {
            let b = map.entry(key.clone()).or_default();
            b.in_flight = b.in_flight.saturating_sub(1);
            if !succeeded {
                b.failures.push_back(now);
            } else if i == 0 {
                b.failures.clear();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn locks_after_max_failures_and_unlocks_after_the_window() {
        let t = LoginThrottle::new(3, 100, Duration::from_secs(60));
        let start = Instant::now();
        for _ in 0..3 {
            let a = t.begin("a@b", A, start).unwrap();
            t.finish(a, false, start);
        }
        assert!(t.begin("a@b", A, start).is_err());
        // The owner at another address, and other accounts, are unaffected.
        assert!(t.begin("a@b", B, start).is_ok());
        assert!(t.begin("other@b", A, start).is_ok());
        assert!(t.begin("a@b", A, start + Duration::from_secs(61)).is_ok());
    }

    #[test]
    fn attempts_in_flight_count_against_the_budget() {
        let t = LoginThrottle::new(5, 100, Duration::from_secs(60));
        let now = Instant::now();
        let held: Vec<Attempt> = (0..5).map(|_| t.begin("a@b", A, now).unwrap()).collect();
        assert_eq!(t.begin("a@b", A, now).err(), Some(1));
        for a in held {
            t.finish(a, false, now);
        }
        assert!(t.begin("a@b", A, now).err().unwrap() > 1);
    }

    #[test]
    fn one_address_has_a_budget_across_accounts() {
        let t = LoginThrottle::new(5, 8, Duration::from_secs(60));
        let now = Instant::now();
        for i in 0..8 {
            let a = t.begin(&format!("user{i}@b"), A, now).unwrap();
            t.finish(a, false, now);
        }
        assert!(t.begin("fresh@b", A, now).is_err());
        assert!(t.begin("fresh@b", B, now).is_ok());
    }

    #[test]
    fn concurrent_guesses_are_capped() {
        let t = std::sync::Arc::new(LoginThrottle::new(5, 1000, Duration::from_secs(60)));
        let evaluated = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..80)
            .map(|_| {
                let (t, n) = (t.clone(), evaluated.clone());
                std::thread::spawn(move || {
                    if let Ok(a) = t.begin("a@b", A, Instant::now()) {
                        n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        t.finish(a, false, Instant::now());
                    }
                })
            })
            .collect();
        for th in threads {
            th.join().unwrap();
        }
        assert_eq!(evaluated.load(std::sync::atomic::Ordering::SeqCst), 5);
    }
}
