//! Argon2id password hashes in PHC string form, computed behind a gate: each hash takes
//! 19 MiB and a core for tens of milliseconds, so a flood of logins must queue rather than
//! run hundreds at once (memory would grow by 19 MiB per concurrent login). Freed hash
//! buffers go back to the system by the binary's allocator (jemalloc, see `main.rs`, which
//! purges unused pages after a short decay); the glibc tuning once here (`mallopt`) had no
//! effect since jemalloc serves every allocation. The flood test in `tests/api/hardening.rs`
//! measures the peak of the real binary.

use std::sync::{Condvar, LazyLock, Mutex};
use std::time::{Duration, Instant};

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};

/// Why a hash was not computed.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Every slot stayed busy for the whole queue time: the caller should retry later.
    #[error("password hashing is busy; retry in a few seconds")]
    Busy,
    #[error("hashing password: {0}")]
    Failed(String),
}

/// A counting semaphore for blocking threads: `slots` hashes at once, callers queue for
/// at most `patience`.
pub struct HashGate {
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
        let slots = if slots == 0 {
            std::thread::available_parallelism().map_or(2, |n| n.get().min(8))
        } else {
            slots
        };
        HashGate {
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
        hash_now(password)
    }

    /// True when `password` matches `stored`. With `stored == None`, does the same work
    /// and returns false, so "no such account" and "wrong password" take the same time.
    pub fn verify(&self, password: &str, stored: Option<&str>) -> Result<bool, HashError> {
        let _slot = self.enter()?;
        let phc = stored.unwrap_or(DUMMY.as_str());
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

fn hash_now(password: &str) -> Result<String, HashError> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| HashError::Failed(e.to_string()))
}

/// A hash of a password nobody knows, verified against when the email is unknown.
static DUMMY: LazyLock<String> =
    LazyLock::new(|| hash_now("turnpost-timing-equaliser").unwrap_or_default());

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

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
