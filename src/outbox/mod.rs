//! The background workers above the domain: the outbox's sender threads claim due rows
//! (emails, webhook deliveries), have the domain render them, and hand them to `notify`'s
//! transports. Nothing below calls up into here.

pub mod webhooks;
pub mod worker;
