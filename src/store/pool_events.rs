//! What the connection pools tell the metrics: how long each checkout waited for a
//! connection (`turnpost_db_pool_wait_seconds`) and how many gave up waiting
//! (`turnpost_db_pool_timeouts_total`, each one a 503 to a client). A pool that is too small
//! shows as waits long before it shows as timeouts.

use diesel::r2d2::HandleEvent;
use diesel::r2d2::event::{CheckoutEvent, TimeoutEvent};

#[derive(Debug)]
pub struct PoolEvents;

impl HandleEvent for PoolEvents {
    fn handle_checkout(&self, event: CheckoutEvent) {
        metrics::histogram!("turnpost_db_pool_wait_seconds").record(event.duration().as_secs_f64());
    }

    fn handle_timeout(&self, _event: TimeoutEvent) {
        metrics::counter!("turnpost_db_pool_timeouts_total").increment(1);
    }
}
