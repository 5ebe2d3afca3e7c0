//! Failed-login throttling that slows guessing without locking owners out. Refusing every
//! login from an address past a number of failures would refuse the correct passwords of
//! other accounts behind it, and counting per address alone would check every guess at one
//! account spread over many addresses.
//!
//! - **Per (account, client address)**: past `max_failures` failures in the window the
//!   pair is refused (429) until the oldest failure leaves the window. Only this pair: a
//!   stranger's guesses cannot lock the owner out from elsewhere.
//! - **Per client address, across accounts**, and **per account, across addresses**: past
//!   their budgets, attempts are not refused but paced through a *slow lane*, one every
//!   `pace` for that address (or account). A correct password from a busy address (a
//!   school's NAT where someone sprays guesses) still gets in, and guesses at one account
//!   from many addresses come slowly. Only an attempt that would wait in a lane longer than
//!   [`MAX_LANE_WAIT`] is refused, with the time to come back.
//! - An (account, address) pair that signed in within [`TRUST_FOR`] is *trusted*: it skips
//!   both lanes, so an owner at their usual address is not slowed by guesses at their
//!   account from elsewhere, nor by a neighbour's failures at their address.
//!
//! An attempt reserves its place before the password is checked (`begin`), under one lock
//! with the checks, so concurrent guesses cannot overrun a budget while earlier ones are
//! being verified. In memory: a restart forgives (and forgets trust), which is acceptable
//! for a single-node server.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// An attempt that would wait longer than this in a slow lane is refused: it would hold
/// the request for most of its deadline (30 s by default; a login may still queue for a
/// hashing slot after the lane).
pub const MAX_LANE_WAIT: Duration = Duration::from_secs(10);

/// How long a successful sign-in trusts its (account, address) pair.
pub const TRUST_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

/// Budgets kept before the dead ones are swept out, and pairs trusted at most: bounds
/// memory under a flood of distinct emails or addresses (about 100 bytes each).
const MAX_KEYS: usize = 100_000;

/// The limits, from the settings.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Failures per (account, address) before that pair is refused.
    pub per_pair: usize,
    /// Failures per address, across accounts, before its attempts are paced.
    pub per_address: usize,
    /// Failures per account, across addresses, before its attempts are paced.
    pub per_account: usize,
    pub window: Duration,
    /// One attempt per this long in a slow lane.
    pub pace: Duration,
}

#[derive(Default)]
struct Budget {
    failures: VecDeque<Instant>,
    in_flight: usize,
    /// The slow lane's next free moment (only once the budget was exceeded).
    next_slot: Option<Instant>,
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

    /// Failures plus attempts in flight reach `max`.
    fn spent(&self, max: usize) -> bool {
        self.failures.len() + self.in_flight >= max
    }

    /// Seconds to wait, when failures plus attempts in flight reach `max`.
    fn wait(&self, now: Instant, window: Duration, max: usize) -> Option<u64> {
        if !self.spent(max) {
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

    /// Worth keeping: something in flight, a failure in the window, or a lane still busy.
    fn live(&self, now: Instant, window: Duration) -> bool {
        self.in_flight > 0
            || self
                .failures
                .back()
                .is_some_and(|t| now.duration_since(*t) < window)
            || self.next_slot.is_some_and(|s| s > now)
    }
}

pub struct LoginThrottle {
    limits: Limits,
    budgets: Mutex<Budgets>,
    /// (account, address) pairs that signed in, with the moment they last did.
    trusted: Mutex<HashMap<String, Instant>>,
}

/// The budgets an attempt counts against: the pair's, the address's, the account's.
struct Keys {
    pair: String,
    address: String,
    account: String,
}

impl Keys {
    fn new(email: &str, ip: IpAddr) -> Keys {
        Keys {
            pair: format!("p:{ip}|{email}"),
            address: format!("i:{ip}"),
            account: format!("u:{email}"),
        }
    }

    fn all(&self) -> [&String; 3] {
        [&self.pair, &self.address, &self.account]
    }
}

/// A login attempt that holds its place in its budgets until `finish`. Dropped unfinished
/// (the client went away while it waited), it gives its place back without counting as a
/// failure.
#[must_use]
pub struct Attempt {
    throttle: Arc<LoginThrottle>,
    keys: Keys,
    not_before: Instant,
    done: bool,
}

impl Attempt {
    /// When the password may be checked: later than now when the attempt waits its turn in
    /// a slow lane.
    pub fn not_before(&self) -> Instant {
        self.not_before
    }

    /// Ends the attempt: a failure counts against all three budgets; a success clears the
    /// pair's failures and trusts the pair.
    pub fn finish(mut self, succeeded: bool, now: Instant) {
        self.done = true;
        self.throttle.finish(&self.keys, Some(succeeded), now);
    }
}

impl Drop for Attempt {
    fn drop(&mut self) {
        if !self.done {
            self.throttle.finish(&self.keys, None, Instant::now());
        }
    }
}

/// The budgets, and when to next sweep out the dead ones.
struct Budgets {
    map: HashMap<String, Budget>,
    sweep_at: usize,
    swept: Option<Instant>,
}

impl Budgets {
    /// Drops the budgets that no longer hold anything once the map has grown past
    /// [`MAX_KEYS`]; then again when it has doubled or a window has passed, not on every
    /// request: a flood of live keys costs memory for a window, not a full sweep per
    /// attempt. Live budgets are never dropped, so a flood cannot wipe out a lock.
    fn sweep(&mut self, now: Instant, window: Duration) {
        let len = self.map.len();
        let stale = self.swept.is_none_or(|t| now.duration_since(t) >= window);
        if len <= MAX_KEYS || (len <= self.sweep_at && !stale) {
            return;
        }
        self.map.retain(|_, b| b.live(now, window));
        self.sweep_at = MAX_KEYS.max(2 * self.map.len());
        self.swept = Some(now);
    }
}

/// Trusts `pair` from `now`, keeping at most [`MAX_KEYS`] pairs: the expired go first,
/// then the half that signed in longest ago (trust lost is only a slower sign-in).
fn trust(trusted: &mut HashMap<String, Instant>, pair: &str, now: Instant) {
    if trusted.len() >= MAX_KEYS {
        trusted.retain(|_, t| now.duration_since(*t) < TRUST_FOR);
    }
    if trusted.len() >= MAX_KEYS {
        let mut times: Vec<Instant> = trusted.values().copied().collect();
        let mid = times.len() / 2;
        let (_, median, _) = times.select_nth_unstable(mid);
        let median = *median;
        trusted.retain(|_, t| *t > median);
    }
    trusted.insert(pair.to_string(), now);
}

impl LoginThrottle {
    pub fn new(limits: Limits) -> LoginThrottle {
        LoginThrottle {
            limits: Limits {
                per_pair: limits.per_pair.max(1),
                per_address: limits.per_address.max(1),
                per_account: limits.per_account.max(1),
                ..limits
            },
            budgets: Mutex::new(Budgets {
                map: HashMap::new(),
                sweep_at: MAX_KEYS,
                swept: None,
            }),
            trusted: Mutex::new(HashMap::new()),
        }
    }

    fn is_trusted(&self, pair: &str, now: Instant) -> bool {
        let trusted = self.trusted.lock().unwrap_or_else(|p| p.into_inner());
        trusted
            .get(pair)
            .is_some_and(|t| now.duration_since(*t) < TRUST_FOR)
    }

    /// Reserves an attempt for `email` from `ip`, or says how many seconds to wait. The
    /// attempt may have to wait its turn in a slow lane first (`Attempt::not_before`).
    pub fn begin(self: &Arc<Self>, email: &str, ip: IpAddr, now: Instant) -> Result<Attempt, u64> {
        let keys = Keys::new(email, ip);
        let trusted = self.is_trusted(&keys.pair, now);
        let Limits { window, .. } = self.limits;
        let mut budgets = self.budgets.lock().unwrap_or_else(|p| p.into_inner());
        budgets.sweep(now, window);
        let map = &mut budgets.map;
        if let Some(b) = map.get_mut(&keys.pair) {
            b.prune(now, window);
            if let Some(wait) = b.wait(now, window, self.limits.per_pair) {
                return Err(wait);
            }
        }
        let lanes = if trusted {
            Vec::new()
        } else {
            self.lanes(map, &keys, now)
        };
        let slot = lanes
            .iter()
            .filter_map(|key| map.get(*key).and_then(|b| b.next_slot))
            .fold(now, Instant::max);
        let wait = slot.saturating_duration_since(now);
        if wait > MAX_LANE_WAIT {
            return Err((wait - MAX_LANE_WAIT).as_secs().max(1));
        }
        for key in lanes {
            if let Some(b) = map.get_mut(key) {
                b.next_slot = Some(slot + self.limits.pace);
            }
        }
        for key in keys.all() {
            map.entry(key.clone()).or_default().in_flight += 1;
        }
        Ok(Attempt {
            throttle: self.clone(),
            keys,
            not_before: slot,
            done: false,
        })
    }

    /// The keys of the slow lanes the attempt goes through: the address's and the
    /// account's, each once its budget is spent.
    fn lanes<'k>(
        &self,
        map: &mut HashMap<String, Budget>,
        keys: &'k Keys,
        now: Instant,
    ) -> Vec<&'k String> {
        let mut lanes = Vec::new();
        for (key, max) in [
            (&keys.address, self.limits.per_address),
            (&keys.account, self.limits.per_account),
        ] {
            if let Some(b) = map.get_mut(key) {
                b.prune(now, self.limits.window);
                if b.spent(max) {
                    lanes.push(key);
                }
            }
        }
        lanes
    }

    /// `succeeded`: `None` when nothing was decided (a busy hasher, a database error, a
    /// client that went away): nobody's failed guess.
    fn finish(&self, keys: &Keys, succeeded: Option<bool>, now: Instant) {
        {
            let mut budgets = self.budgets.lock().unwrap_or_else(|p| p.into_inner());
            let map = &mut budgets.map;
            for key in keys.all() {
                let b = map.entry(key.clone()).or_default();
                b.in_flight = b.in_flight.saturating_sub(1);
                if succeeded == Some(false) {
                    b.failures.push_back(now);
                }
            }
            if succeeded == Some(true)
                && let Some(b) = map.get_mut(&keys.pair)
            {
                b.failures.clear();
            }
        }
        if succeeded == Some(true) {
            let mut trusted = self.trusted.lock().unwrap_or_else(|p| p.into_inner());
            trust(&mut trusted, &keys.pair, now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));
    const PACE: Duration = Duration::from_secs(3);

    fn throttle(per_pair: usize, per_address: usize, per_account: usize) -> Arc<LoginThrottle> {
        Arc::new(LoginThrottle::new(Limits {
            per_pair,
            per_address,
            per_account,
            window: Duration::from_secs(60),
            pace: PACE,
        }))
    }

    fn fail(t: &Arc<LoginThrottle>, email: &str, ip: IpAddr, now: Instant) {
        t.begin(email, ip, now).unwrap().finish(false, now);
    }

    fn ip(n: u32) -> IpAddr {
        IpAddr::V4(std::net::Ipv4Addr::from(0x0a01_0000 + n))
    }

    #[test]
    fn a_pair_locks_after_max_failures_and_unlocks_after_the_window() {
        let t = throttle(3, 100, 100);
        let start = Instant::now();
        for _ in 0..3 {
            fail(&t, "a@b", A, start);
        }
        assert!(t.begin("a@b", A, start).is_err());
        // The owner at another address, and other accounts, are unaffected.
        assert!(t.begin("a@b", B, start).is_ok());
        assert!(t.begin("other@b", A, start).is_ok());
        assert!(t.begin("a@b", A, start + Duration::from_secs(61)).is_ok());
    }

    #[test]
    fn attempts_in_flight_count_against_the_pair() {
        let t = throttle(5, 100, 100);
        let now = Instant::now();
        let held: Vec<Attempt> = (0..5).map(|_| t.begin("a@b", A, now).unwrap()).collect();
        assert_eq!(t.begin("a@b", A, now).err(), Some(1));
        for a in held {
            a.finish(false, now);
        }
        assert!(t.begin("a@b", A, now).err().unwrap() > 1);
    }

    #[test]
    fn a_dropped_attempt_gives_its_place_back_without_a_failure() {
        let t = throttle(1, 100, 100);
        let now = Instant::now();
        drop(t.begin("a@b", A, now).unwrap());
        let again = t.begin("a@b", A, now).unwrap();
        again.finish(false, now);
        assert!(t.begin("a@b", A, now).is_err());
    }

    #[test]
    fn a_busy_address_is_paced_not_refused() {
        let t = throttle(5, 8, 100);
        let now = Instant::now();
        for i in 0..8 {
            fail(&t, &format!("user{i}@b"), A, now);
        }
        // Past the address's budget: the first attempt goes at once, the next ones each a
        // pace later, whatever their account.
        let first = t.begin("fresh@b", A, now).unwrap();
        assert_eq!(first.not_before(), now);
        let second = t.begin("other@b", A, now).unwrap();
        assert_eq!(second.not_before(), now + PACE);
        // Another address is not paced.
        assert_eq!(t.begin("fresh@b", B, now).unwrap().not_before(), now);
        // A lane more than MAX_LANE_WAIT ahead refuses, with the time to come back.
        let queued: Vec<Attempt> = (0..2).map(|_| t.begin("x@b", A, now).unwrap()).collect();
        assert_eq!(queued[1].not_before(), now + 3 * PACE);
        assert_eq!(t.begin("y@b", A, now).err(), Some(2));
        // Later, the lane has room again.
        let later = now + 4 * PACE;
        assert_eq!(t.begin("y@b", A, later).unwrap().not_before(), later);
    }

    #[test]
    fn guesses_at_one_account_from_many_addresses_are_paced() {
        let t = throttle(5, 100, 10);
        let now = Instant::now();
        for i in 0..10 {
            fail(&t, "a@b", ip(i), now);
        }
        let slots: Vec<Instant> = (10..14)
            .map(|i| t.begin("a@b", ip(i), now).unwrap().not_before())
            .collect();
        assert_eq!(slots, [0, 1, 2, 3].map(|k| now + k * PACE));
        // Other accounts at those addresses are not paced.
        assert_eq!(t.begin("b@b", ip(13), now).unwrap().not_before(), now);
    }

    #[test]
    fn a_pair_that_signed_in_skips_the_lanes() {
        let t = throttle(5, 4, 4);
        let now = Instant::now();
        t.begin("owner@b", A, now).unwrap().finish(true, now);
        for i in 0..4 {
            fail(&t, "owner@b", ip(i), now);
            fail(&t, &format!("user{i}@b"), A, now);
        }
        // The account's and the address's lanes are busy for strangers ...
        let _queued = t.begin("owner@b", B, now).unwrap();
        assert_eq!(t.begin("owner@b", B, now).unwrap().not_before(), now + PACE);
        let _queued = t.begin("user9@b", A, now).unwrap();
        assert!(t.begin("user8@b", A, now).unwrap().not_before() > now);
        // ... while the owner at the address they signed in from goes at once.
        assert_eq!(t.begin("owner@b", A, now).unwrap().not_before(), now);
        // Trust is only for the pair's own failures' sake: the pair still locks.
        for _ in 0..5 {
            fail(&t, "owner@b", A, now);
        }
        assert!(t.begin("owner@b", A, now).is_err());
    }

    #[test]
    fn concurrent_guesses_are_capped() {
        let t = throttle(5, 1000, 1000);
        let evaluated = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..80)
            .map(|_| {
                let (t, n) = (t.clone(), evaluated.clone());
                std::thread::spawn(move || {
                    if let Ok(a) = t.begin("a@b", A, Instant::now()) {
                        n.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        a.finish(false, Instant::now());
                    }
                })
            })
            .collect();
        for th in threads {
            th.join().unwrap();
        }
        assert_eq!(evaluated.load(std::sync::atomic::Ordering::SeqCst), 5);
    }

    #[test]
    fn memory_stays_bounded_under_a_flood_of_distinct_keys() {
        let t = throttle(5, usize::MAX, usize::MAX);
        let now = Instant::now();
        for i in 0..(MAX_KEYS as u32 / 2 + 10) {
            fail(&t, "a@b", ip(i), now);
        }
        assert!(t.budgets.lock().unwrap().map.len() > MAX_KEYS);
        // Once the window has passed, the next attempt sweeps the dead budgets out.
        fail(&t, "a@b", A, now + Duration::from_secs(61));
        assert!(t.budgets.lock().unwrap().map.len() <= 3);
        let mut trusted = HashMap::new();
        for i in 0..(MAX_KEYS as u64 + 10) {
            trust(&mut trusted, &i.to_string(), now + Duration::from_secs(i));
        }
        assert!(trusted.len() <= MAX_KEYS);
        assert!(trusted.contains_key(&(MAX_KEYS as u64 + 9).to_string()));
    }
}
