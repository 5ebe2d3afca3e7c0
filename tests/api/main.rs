//! Black-box tests over real HTTP against a real PostgreSQL.

mod accounts;
mod fuldrigger;
mod games;
mod helpers;
mod kasino;
mod openapi;
mod partners;
mod space_empires;
mod sp4x;
mod starfarers;
