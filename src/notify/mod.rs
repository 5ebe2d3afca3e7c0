//! Email: what to send when a game moves (`compose`), and the outbox worker that sends it
//! (`worker`) over SMTP or into `.eml` files.

pub mod compose;
pub mod worker;
