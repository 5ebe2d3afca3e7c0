//! What Turnpost does, independent of HTTP: accounts, games, the action log. Every
//! function here is synchronous (diesel) and is called from handlers via `web::block`.

pub mod accounts;
pub mod errors;
pub mod games;
pub mod shapes;
pub mod verify;

use std::sync::Arc;

use crate::auth::jwt::Tokens;
use crate::auth::throttle::LoginThrottle;
use crate::games::Registry;
use crate::store::{PgConn, PgPool};

pub use errors::{DomainError, DomainResult};

/// Everything the domain needs, shared by all requests.
#[derive(Clone)]
pub struct Domain {
    pub pool: PgPool,
    pub registry: Registry,
    pub tokens: Tokens,
    pub throttle: Arc<LoginThrottle>,
    /// Base address for links in emails.
    pub public_url: String,
}

impl Domain {
    pub fn conn(&self) -> DomainResult<PgConn> {
        Ok(self.pool.get()?)
    }
}
