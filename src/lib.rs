//! Turnpost: a server for slow, asynchronous board games played by REST and by email.

pub mod api;
pub mod app;
pub mod auth;
pub mod cli;
pub mod domain;
pub mod embedded_pg;
pub mod engine;
pub mod games;
pub mod notify;
pub mod settings;
pub mod store;
