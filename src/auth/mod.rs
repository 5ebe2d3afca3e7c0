//! Authentication: argon2id passwords, JWT bearer tokens, login throttling.

pub mod jwt;
pub mod password;
pub mod rotation;
pub mod throttle;
