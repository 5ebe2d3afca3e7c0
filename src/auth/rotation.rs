//! Rotating the server secret. Everything signed with it (login tokens, stream tickets,
//! reply addresses, links in emails) is checked first under the current secret and then,
//! until the grace period ends, under the previous one; everything new is signed with
//! the current one. So tokens in browsers and links in players' mailboxes keep working
//! through a rotation, and stop at a time the host chose.

use std::sync::Arc;

/// A signer made from the previous secret, accepted until `until` (Unix seconds).
pub struct Previous<T> {
    inner: Option<Arc<(T, i64)>>,
}

// By hand: a derived `Clone` would ask `T: Clone` for what is only an `Arc`.
impl<T> Clone for Previous<T> {
    fn clone(&self) -> Self {
        Previous {
            inner: self.inner.clone(),
        }
    }
}

impl<T> Default for Previous<T> {
    fn default() -> Self {
        Previous { inner: None }
    }
}

impl<T> Previous<T> {
    pub fn new(signer: T, until: i64) -> Previous<T> {
        Previous {
            inner: Some(Arc::new((signer, until))),
        }
    }

    /// The previous signer while its grace period lasts, read against the wall clock at
    /// each check: a server runs for longer than any grace period.
    pub fn active(&self) -> Option<&T> {
        self.active_at(chrono::Utc::now().timestamp())
    }

    /// The previous signer whether or not its grace period lasts (for a second check of
    /// something it already accepted).
    pub fn inner(&self) -> Option<&T> {
        self.inner.as_deref().map(|(signer, _)| signer)
    }

    pub fn active_at(&self, now: i64) -> Option<&T> {
        let (signer, until) = self.inner.as_deref()?;
        (now < *until).then_some(signer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_previous_signer_counts_until_its_grace_period_ends() {
        let p = Previous::new("old", 100);
        assert_eq!(p.active_at(99), Some(&"old"));
        assert_eq!(p.active_at(100), None);
        assert_eq!(Previous::<&str>::default().active_at(0), None);
        let now = chrono::Utc::now().timestamp();
        assert!(Previous::new(1, now + 60).active().is_some());
        assert!(Previous::new(1, now - 1).active().is_none());
    }
}
