//! What the connection pools tell the metrics: how long each checkout waited for a
//! connection (`turnpost_db_pool_wait_seconds`) and how many gave up waiting
//! (`turnpost_db_pool_timeouts_total`, each one a 503 to a client). A pool that is too small
//! shows as waits long before it shows as timeouts.
//!
//! What they tell the log: a connection that could not be made goes to the outage tracker
//! (r2d2 retries it several times a second, and logged every failure), a connection made
//! tells it the database is back.

use diesel::r2d2::HandleEvent;
use diesel::r2d2::event::{AcquireEvent, CheckoutEvent, TimeoutEvent};
use diesel::r2d2::{Error, HandleError};

use super::outage::DATABASE;

#[derive(Debug)]
pub struct PoolEvents;

impl HandleEvent for PoolEvents {
    fn handle_checkout(&self, event: CheckoutEvent) {
        metrics::histogram!("turnpost_db_pool_wait_seconds").record(event.duration().as_secs_f64());
    }

    fn handle_timeout(&self, _event: TimeoutEvent) {
        metrics::counter!("turnpost_db_pool_timeouts_total").increment(1);
    }

    fn handle_acquire(&self, _event: AcquireEvent) {
        DATABASE.back();
    }
}

/// The pools' connection errors, for the outage tracker instead of one log line each.
#[derive(Debug)]
pub struct PoolErrors;

impl HandleError<Error> for PoolErrors {
    fn handle_error(&self, error: Error) {
        // Every error here is a connection that could not be made (or set up).
        DATABASE.lost("a connection pool", &error);
    }
}
