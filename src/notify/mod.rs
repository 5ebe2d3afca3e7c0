//! Email: what emails say (`compose`, laid out by `letter`, with the board picture drawn
//! by `picture` and long lists of choices grouped by `choices`), the outbox worker that
//! sends them (`worker`) over SMTP or into `.eml` files, reply tokens (`reply`), signed
//! links (`links`), inbound replies (`inbound`) delivery-status reports (`bounce`), and webhook posts (`webhook`).

pub mod bounce;
pub mod choices;
pub mod compose;
pub mod events;
pub mod headers;
pub mod inbound;
pub mod letter;
pub mod links;
pub mod nodelay;
pub mod picture;
pub mod reply;
pub mod webhook;
pub mod worker;
