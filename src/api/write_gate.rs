//! Requests that change a game (its moves, joins, nudges, takebacks, invitations and email
//! replies) take the game's row lock, and may wait for it while holding a database
//! connection. At most the pool's size less a reserve of them run at once; the others wait
//! here, holding nothing, so that however many of them pile up on one busy game, the
//! reserve stays free for everyone else's sign-ins, reads and health checks.

use crate::domain::ProblemCode;
use std::sync::Arc;
use std::time::Duration;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web;
use tokio::sync::Semaphore;

use super::problem::ApiError;

pub struct WriteGate {
    permits: Arc<Semaphore>,
    /// How long a request waits for its turn before `503 busy`.
    wait: Duration,
}

impl WriteGate {
    /// For a pool of `pool_size` connections: a quarter of them (two at least) are kept
    /// for requests that take no game lock.
    pub fn for_pool(pool_size: u32, request_timeout: Duration) -> WriteGate {
        let size = pool_size as usize;
        let reserve = (size / 4).max(2);
        WriteGate {
            permits: Arc::new(Semaphore::new(size.saturating_sub(reserve).max(1))),
            wait: request_timeout / 2,
        }
    }
}

/// Whether the request may take a game's row lock: what changes a game, or a seat in it.
fn changes_a_game(req: &ServiceRequest) -> bool {
    let method = req.method();
    if method == Method::GET || method == Method::HEAD || method == Method::OPTIONS {
        return false;
    }
    let path = req.path();
    path.starts_with("/api/v1/games/")
        || path.starts_with("/api/v1/invitations/")
        || path == "/api/v1/inbound/email"
}

pub async fn gate(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let gate = req.app_data::<web::Data<WriteGate>>().cloned();
    let Some(gate) = gate.filter(|_| changes_a_game(&req)) else {
        return next
            .call(req)
            .await
            .map(ServiceResponse::map_into_boxed_body);
    };
    let permit = tokio::time::timeout(gate.wait, Arc::clone(&gate.permits).acquire_owned()).await;
    match permit {
        Ok(Ok(permit)) => {
            let res = next.call(req).await;
            drop(permit);
            res.map(ServiceResponse::map_into_boxed_body)
        }
        _ => {
            let mut e = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ProblemCode::Busy,
                "the server is busy with changes to games; retry in a moment",
            );
            e.retry_after = Some(2);
            Err(e.into())
        }
    }
}
