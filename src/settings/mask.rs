//! Secrets as `turnpost config check` shows them: whether they are set, never what they are.

use secrecy::{ExposeSecret, SecretString};
use serde::Serializer;

pub const MASK: &str = "********";

/// A secret: the mask when set, `null` when not.
pub fn secret<S: Serializer>(value: &Option<SecretString>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(_) => s.serialize_str(MASK),
        None => s.serialize_none(),
    }
}

/// A URL that may carry a password (`smtp_url`, `database_url`): shown with the password
/// masked, since where it points is what an operator checks; masked whole if unreadable.
pub fn url<S: Serializer>(value: &Option<SecretString>, s: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(v) => s.serialize_str(&masked_url(v.expose_secret())),
        None => s.serialize_none(),
    }
}

fn masked_url(raw: &str) -> String {
    let Ok(mut url) = url::Url::parse(raw) else {
        return MASK.to_string();
    };
    // A URL that cannot have a password (`cannot-be-a-base`) may hide one elsewhere.
    if url.cannot_be_a_base() || url.query().is_some_and(|q| q.contains("password")) {
        return MASK.to_string();
    }
    if url.password().is_some() && url.set_password(Some(MASK)).is_err() {
        return MASK.to_string();
    }
    url.to_string()
}

#[cfg(test)]
mod tests {
    use super::masked_url;

    #[test]
    fn passwords_in_urls_are_masked() {
        assert_eq!(
            masked_url("smtps://mailer:hunter2@mail.example.org:465"),
            "smtps://mailer:********@mail.example.org:465"
        );
        assert_eq!(masked_url("smtp://127.0.0.1:2525"), "smtp://127.0.0.1:2525");
        assert_eq!(masked_url("postgres://u@h/db?password=hunter2"), "********");
        assert_eq!(masked_url("host=h password=hunter2"), "********");
    }
}
