//! Black-box tests over real HTTP against a real PostgreSQL.

// Tests may panic on what they set up themselves (the workspace denies it elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod abuse;
mod access_tokens;
mod accounts;
mod bots;
mod browser;
mod clocks;
mod computer_games;
mod contract;
mod deliver_agent;
mod email_delivery;
mod email_play;
mod events;
mod fair_play;
mod fuldrigger;
mod games;
mod generated;
mod given_up;
mod hardening;
mod helpers;
mod invitations;
mod kasino;
mod kept_games;
mod migrations;
mod openapi;
mod partners;
mod password_reset;
mod postfix;
mod ratings;
mod rematch;
mod send_refusals;
mod smtp_sink;
mod sp4x;
mod space_empires;
mod spectators;
mod sse_replay;
mod starfarers;
mod stream_tickets;
mod takeback;
mod web_client;
mod webhooks;
