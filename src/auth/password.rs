//! Argon2id password hashes in PHC string form.

use argon2::Argon2;
use argon2::password_hash::phc::PasswordHash;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use std::sync::LazyLock;

pub fn hash(password: &str) -> anyhow::Result<String> {
    Argon2::default()
        .hash_password(password.as_bytes())
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hashing password: {e}"))
}

/// A hash of a password nobody knows, verified against when the email is unknown so that
/// "no such account" and "wrong password" take the same time.
static DUMMY: LazyLock<String> =
    LazyLock::new(|| hash("turnpost-timing-equaliser").unwrap_or_default());

/// True when `password` matches `stored`. With `stored == None`, does the same work and
/// returns false.
pub fn verify(password: &str, stored: Option<&str>) -> bool {
    let phc = stored.unwrap_or(DUMMY.as_str());
    let ok = PasswordHash::new(phc)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false);
    ok && stored.is_some()
}

#[cfg(test)]
mod tests {
    #[test]
    fn verifies_only_the_right_password() {
        let h = super::hash("correct horse battery").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(super::verify("correct horse battery", Some(&h)));
        assert!(!super::verify("wrong horse battery", Some(&h)));
        assert!(!super::verify("correct horse battery", None));
    }
}
