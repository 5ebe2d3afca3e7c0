//! Email: what emails say (`compose`, laid out by `letter`, with the board picture drawn
//! by `picture` and long lists of choices grouped by `choices`), the transports that carry
//! them (`transport`: SMTP or `.eml` files), reply tokens (`reply`), signed links
//! (`links`), inbound replies (`inbound`), delivery-status reports (`bounce`), refusals at send
//! time that mean a mailbox is gone (`refusal`), and signed
//! webhook posts (`webhook`). Below the domain: nothing here calls into `domain` or
//! `outbox` (the sender threads are `outbox`'s).

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
pub mod refusal;
pub mod reply;
pub mod reset_links;
pub mod smtp_probe;
pub mod transport;
pub mod webhook;
pub mod words_html;
