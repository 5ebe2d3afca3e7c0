//! Headers lettre has no type for: `Auto-Submitted` (RFC 3834), so robots do not answer
//! automatic mail, and `List-Unsubscribe` with `List-Unsubscribe-Post` (RFC 2369, 8058),
//! so mail clients offer a one-click unsubscribe button.

use lettre::message::header::{Header, HeaderName, HeaderValue};

macro_rules! text_header {
    ($(#[$doc:meta])* $ty:ident, $name:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug)]
        pub struct $ty(pub String);

        impl Header for $ty {
            fn name() -> HeaderName {
                HeaderName::new_from_ascii_str($name)
            }

            fn parse(s: &str) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
                Ok($ty(s.to_string()))
            }

            fn display(&self) -> HeaderValue {
                HeaderValue::new(Self::name(), self.0.clone())
            }
        }
    };
}

text_header!(
    /// `auto-generated` (turn emails, reminders, digests) or `auto-replied` (answers).
    AutoSubmitted,
    "Auto-Submitted"
);
text_header!(
    /// `<https://…/unsubscribe/…>`.
    ListUnsubscribe,
    "List-Unsubscribe"
);
text_header!(
    /// Always `List-Unsubscribe=One-Click`.
    ListUnsubscribePost,
    "List-Unsubscribe-Post"
);

impl AutoSubmitted {
    pub fn generated() -> Self {
        AutoSubmitted("auto-generated".into())
    }

    pub fn replied() -> Self {
        AutoSubmitted("auto-replied".into())
    }
}

impl ListUnsubscribe {
    pub fn url(url: &str) -> Self {
        ListUnsubscribe(format!("<{url}>"))
    }
}

impl ListUnsubscribePost {
    pub fn one_click() -> Self {
        ListUnsubscribePost("List-Unsubscribe=One-Click".into())
    }
}
