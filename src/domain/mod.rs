//! What Turnpost does, independent of HTTP: accounts, games, the action log. Every
//! function here is synchronous (diesel) and is called from handlers via `web::block`.

pub mod access_tokens;
pub mod account_data;
pub mod accounts;
pub mod autoplay;
pub mod bot_worker;
pub mod bots;
pub mod calendar;
pub mod chat;
pub mod chat_mail;
pub mod clocks;
pub mod computer_budget;
pub mod deliveries;
pub mod digest;
pub mod email_play;
pub mod errors;
pub mod examples;
pub mod game_cache;
pub mod games;
pub mod integral;
pub mod invitation_limits;
pub mod invitations;
pub mod lobby;
pub mod locked;
pub mod mail_events;
pub mod mail_links;
pub mod mail_status;
pub mod mutes;
pub mod naming;
pub mod notes;
pub mod password_reset;
pub mod problem_codes;
pub mod rating_math;
pub mod ratings;
pub mod rematch;
pub mod replacement;
pub mod replay;
pub mod retention;
pub mod sessions;
pub mod shapes;
pub mod sign_ups;
pub mod steps;
pub mod sweeper;
pub mod takeback;
pub mod time_zones;
pub mod verify;
pub mod views;
pub mod webhooks;
pub mod writer;

use std::sync::Arc;

use secrecy::SecretString;

use crate::auth::jwt::Tokens;
use crate::auth::password::HashGate;
use crate::auth::throttle::LoginThrottle;
use crate::games::Registry;
use crate::notify::links::SignedLinks;
use crate::notify::reply::ReplyAddress;
use crate::notify::reset_links::ResetLinks;
use crate::store::{PgConn, PgPool};

pub use errors::{DomainError, DomainResult};
pub use problem_codes::ProblemCode;

/// Everything the domain needs, shared by all requests.
#[derive(Clone)]
pub struct Domain {
    pub pool: PgPool,
    pub registry: Registry,
    pub tokens: Tokens,
    pub throttle: Arc<LoginThrottle>,
    /// Password reset requests per address and per client (`domain::password_reset`).
    pub reset_throttle: Arc<LoginThrottle>,
    /// Password hashing, a few at a time (each takes 19 MiB).
    pub hashes: Arc<HashGate>,
    /// Base address for links in emails.
    pub public_url: String,
    /// Reply-To addresses with reply tokens, and their verification.
    pub reply: ReplyAddress,
    /// Bearer secret of the inbound email endpoint; `None` refuses all inbound mail.
    pub inbound_secret: Option<SecretString>,
    /// Where moves and views get the time from (the sweep takes `now` as a parameter).
    pub clock: Arc<dyn clocks::Clock>,
    /// Vacation days each account may take per calendar year.
    pub vacation_days_per_year: i64,
    /// Games not yet finished an account may hold a seat in (`too_many_active_games`).
    pub max_active_games_per_account: i64,
    /// Moves the computer may make per account and 24 hours (`computer_budget`); `None`:
    /// no limit.
    pub computer_moves_per_day: Option<u32>,
    /// How long sent emails, deliveries and processed replies are kept (`retention`).
    pub outbox_retention: chrono::Duration,
    /// Signed unsubscribe and address confirmation links.
    pub links: SignedLinks,
    /// Signed password reset links.
    pub reset_links: ResetLinks,
    /// How long a turn email waits before it is sent (or dropped, the turn having passed).
    pub turn_email_grace: std::time::Duration,
    /// Whether game email waits for a confirmed address.
    pub require_email_verification: bool,
    /// Whether game emails carry the board picture.
    pub email_pictures: bool,
    /// Each seat's view and choices per game version, worked out once.
    pub views: Arc<views::ViewCache>,
    /// The games read or written last, with their seats, trusted at their revision.
    pub game_cache: Arc<game_cache::GameCache>,
    /// Token generations read in the last moments, per account.
    pub sessions: Arc<sessions::SessionCache>,
    /// Where webhooks may post, and the client that posts them.
    pub webhooks: crate::notify::webhook::WebhookPolicy,
    /// Sends the announcements of moves written without the row lock.
    pub announcer: crate::store::announcer::Announcer,
}

impl Domain {
    pub fn conn(&self) -> DomainResult<PgConn> {
        Ok(self.pool.get()?)
    }

    /// Runs `f` in a transaction, and again (three tries in all) when it lost to a
    /// concurrent transaction (a serialization failure or a deadlock): nothing of a lost
    /// try was written, and a player's move should not fail for a background sender that
    /// happened to hold the same outbox rows.
    pub(crate) fn retrying<T>(
        &self,
        conn: &mut diesel::PgConnection,
        f: impl Fn(&mut diesel::PgConnection) -> DomainResult<T>,
    ) -> DomainResult<T> {
        use diesel::Connection;
        let mut tries = 0;
        loop {
            tries += 1;
            match conn.transaction::<_, DomainError, _>(&f) {
                Err(e) if e.is_retryable() && tries < 3 => continue,
                other => return other,
            }
        }
    }

    /// What emails need of the server.
    pub fn site(&self) -> crate::notify::compose::Site<'_> {
        crate::notify::compose::Site {
            public_url: &self.public_url,
            links: &self.links,
        }
    }
}
