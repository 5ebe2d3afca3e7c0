//! Turnpost: a server for slow, asynchronous board games played by REST and by email.

pub mod api;
pub mod app;
pub mod auth;
pub mod cli;
pub mod deliver;
pub mod domain;
pub mod embedded_pg;
pub mod notify;
pub mod outbox;
pub mod priority;
pub mod settings;
pub mod store;

// The rules crates, under the names the server has always used for them.
pub use turnpost_engine as engine;
pub use turnpost_games as games;
