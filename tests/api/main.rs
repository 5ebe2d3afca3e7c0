//! Black-box tests over real HTTP against a real PostgreSQL.

// Tests may panic on what they set up themselves (the workspace denies it elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

// The servers under test run inside this process: with the real binary's allocator.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

mod abuse;
mod access_tokens;
mod account_data;
mod accounts;
mod backups;
mod bad_settings;
mod bots;
mod browser;
mod chat;
mod chat_email;
mod clocks;
mod computer_games;
mod conditional;
mod contract;
mod deliver_agent;
mod email_delivery;
mod email_play;
mod events;
mod failover;
mod fair_play;
mod fuldrigger;
mod games;
mod generated;
mod given_up;
mod guides;
mod hardening;
mod helpers;
mod invitations;
mod kasino;
mod kept_games;
mod log_secrets;
mod migrations;
mod mismatches;
mod notes_lobby;
mod observability;
mod openapi;
mod partners;
mod password_reset;
mod postfix;
mod rate_limits;
mod ratings;
mod readiness;
mod rematch;
mod replacement;
mod resigned;
mod response_headers;
mod retention;
mod scale;
mod secret_rotation;
mod send_refusals;
mod service_unit;
mod smtp_sink;
mod sp4x;
mod space_empires;
mod spectators;
mod sql_functions;
mod sse_replay;
mod starfarers;
mod stream_tickets;
mod takeback;
mod trusted_proxies;
mod web_client;
mod webhooks;
