//! Black-box tests over real HTTP against a real PostgreSQL.

mod accounts;
mod browser;
mod clocks;
mod contract;
mod email_delivery;
mod email_play;
mod events;
mod fuldrigger;
mod games;
mod generated;
mod hardening;
mod helpers;
mod kasino;
mod openapi;
mod partners;
mod smtp_sink;
mod sp4x;
mod space_empires;
mod starfarers;
mod web_client;
