//! Argon2id password hashes in PHC string form, computed behind a gate: each hash takes
//! 19 MiB and a core for tens of milliseconds, so a flood of logins must queue rather than
//! run hundreds at once (memory would grow by 19 MiB per concurrent login). Freed hash
//! buffers go back to the system by the binary's allocator (jemalloc, see `main.rs`, which
//! purges unused pages after a short decay); glibc tuning (`mallopt`) would have no
//! effect since jemalloc serves every allocation. The flood test in `tests/api/hardening.rs`
//! measures the peak of the real binary.

use std::sync::{Condvar, LazyLock, Mutex};
use std::time::{Duration, Instant};

use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};

/// Why a hash was not computed.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Every slot stayed busy for the whole queue time: the caller should retry later.
    #[error("password hashing is busy; retry in a few seconds")]
    Busy,
    #[error("hashing password: {0}")]
    Failed(String),
}

/// What a new hash costs. Verifying always costs what the stored hash names.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HashCost {
    /// Argon2id's recommended parameters (19 MiB, 2 passes): what every server uses.
    #[default]
    Production,
    /// The smallest parameters Argon2 allows, for the test suite's thousand sign-ups. Only
    /// code can choose it: no setting, variable or file reaches it.
    Minimal,
}

impl HashCost {
    fn hasher(self) -> Argon2<'static> {
        match self {
            HashCost::Production => Argon2::default(),
            HashCost::Minimal => Argon2::new(
                Algorithm::Argon2id,
                Version::V0x13,
                Params::new(Params::MIN_M_COST, 1, 1, None).unwrap_or(Params::DEFAULT),
            ),
        }
    }
}

/// A counting semaphore for blocking threads: `slots` hashes at once, callers queue for
/// at most `patience`.
pub struct HashGate {
    cost: HashCost,
    slots: usize,
    patience: Duration,
    /// Requests wait here, without a thread, before they take a blocking thread to hash.
    admission: std::sync::Arc<tokio::sync::Semaphore>,
    busy: Mutex<usize>,
    freed: Condvar,
}

struct Slot<'a>(&'a HashGate);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut busy = self.0.busy.lock().unwrap_or_else(|p| p.into_inner());
        *busy = busy.saturating_sub(1);
        self.0.freed.notify_one();
    }
}

impl HashGate {
    /// `slots == 0` means one per core (at most 8).
    pub fn new(slots: usize, patience: Duration) -> HashGate {
        Self::with_cost(slots, patience, HashCost::Production)
    }

    /// A gate whose new hashes cost `cost`.
    pub fn with_cost(slots: usize, patience: Duration, cost: HashCost) -> HashGate {
        let slots = if slots == 0 {
            std::thread::available_parallelism().map_or(2, |n| n.get().min(8))
        } else {
            slots
        };
        HashGate {
            cost,
            slots,
            patience,
            admission: std::sync::Arc::new(tokio::sync::Semaphore::new(slots)),
            busy: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// Waits (asynchronously, at most the patience) until a request may go on to hash. A
    /// request holds the returned permit while its blocking work runs, so a login flood
    /// occupies `slots` blocking threads, not one per request: the threads that moves and
    /// reads need stay free.
    pub async fn admit(&self) -> Result<tokio::sync::OwnedSemaphorePermit, HashError> {
        tokio::time::timeout(self.patience, self.admission.clone().acquire_owned())
            .await
            .map_err(|_| HashError::Busy)?
            .map_err(|_| HashError::Busy)
    }

    fn enter(&self) -> Result<Slot<'_>, HashError> {
        let deadline = Instant::now() + self.patience;
        let mut busy = self.busy.lock().unwrap_or_else(|p| p.into_inner());
        while *busy >= self.slots {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(HashError::Busy);
            }
            busy = self
                .freed
                .wait_timeout(busy, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        *busy += 1;
        Ok(Slot(self))
    }

    pub fn hash(&self, password: &str) -> Result<String, HashError> {
        let _slot = self.enter()?;
        hash_now(self.cost, password)
    }

    /// True when `password` matches `stored`. With `stored == None`, does the same work
    /// and returns false, so "no such account" and "wrong password" take the same time.
    pub fn verify(&self, password: &str, stored: Option<&str>) -> Result<bool, HashError> {
        let _slot = self.enter()?;
        let dummy = match self.cost {
            HashCost::Production => &DUMMY,
            HashCost::Minimal => &DUMMY_MINIMAL,
        };
        let phc = stored.unwrap_or(dummy.as_str());
        let ok = PasswordHash::new(phc)
            .map(|parsed| {
                Argon2::default()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok()
            })
            .unwrap_or(false);
        Ok(ok && stored.is_some())
    }
}

fn hash_now(cost: HashCost, password: &str) -> Result<String, HashError> {
    cost.hasher()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| HashError::Failed(e.to_string()))
}

/// A hash of a password nobody knows, verified against when the email is unknown.
static DUMMY: LazyLock<String> = LazyLock::new(|| {
    hash_now(HashCost::Production, "turnpost-timing-equaliser").unwrap_or_default()
});
static DUMMY_MINIMAL: LazyLock<String> =
    LazyLock::new(|| hash_now(HashCost::Minimal, "turnpost-timing-equaliser").unwrap_or_default());

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn a_server_hashes_at_production_cost_and_verifies_any_cost() {
        let production = HashGate::new(1, Duration::from_secs(5));
        let h = production.hash("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        let minimal = HashGate::with_cost(1, Duration::from_secs(5), HashCost::Minimal);
        let cheap = minimal.hash("correct horse battery").unwrap();
        assert!(cheap.starts_with("$argon2id$v=19$m=8,t=1,p=1$"), "{cheap}");
        // Each gate reads the cost from the stored hash.
        assert!(
            production
                .verify("correct horse battery", Some(&cheap))
                .unwrap()
        );
        assert!(minimal.verify("correct horse battery", Some(&h)).unwrap());
        assert!(
            !production
                .verify("correct horse batter", Some(&cheap))
                .unwrap()
        );
    }

    #[test]
    fn verifies_only_the_right_password() {
        let gate = HashGate::new(1, Duration::from_secs(5));
        let h = gate.hash("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(gate.verify("correct horse battery", Some(&h)).unwrap());
        assert!(!gate.verify("wrong horse battery", Some(&h)).unwrap());
        assert!(!gate.verify("correct horse battery", None).unwrap());
    }

    #[test]
    fn no_more_than_the_slots_hash_at_once_and_the_rest_wait_or_give_up() {
        let gate = Arc::new(HashGate::new(2, Duration::from_secs(30)));
        let (inside, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let threads: Vec<_> = (0..12)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                std::thread::spawn(move || {
                    let _slot = gate.enter().unwrap();
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(10));
                    inside.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);

        let impatient = HashGate::new(1, Duration::from_millis(50));
        let _held = impatient.enter().unwrap();
        assert!(matches!(impatient.enter(), Err(HashError::Busy)));
    }
}
