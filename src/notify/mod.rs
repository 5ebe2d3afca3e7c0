//! Email: what to send when a game moves (`compose`), the numbered choices (`choices`), the outbox worker that sends it
//! (`worker`) over SMTP or into `.eml` files, reply tokens (`reply`) and inbound replies
//! (`inbound`).

pub mod choices;
pub mod compose;
pub mod events;
pub mod inbound;
pub mod reply;
pub mod worker;
