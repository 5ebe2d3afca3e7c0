//! Bounds on the Server-Sent Events streams a node holds open, so that streams cannot take
//! the server off the network: each open stream is a socket, and a server out of file
//! descriptors accepts nothing, `/healthz` and logins included (about a thousand anonymous
//! streams do that under a 1,024-descriptor limit). Streams are counted per
//! client address and in total; a stream over either bound is refused at once with
//! `Retry-After` (429 for the address, 503 for the node), and the total leaves a reserve of
//! descriptors for ordinary requests, the database and the mail.

use crate::domain::ProblemCode;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;

use super::problem::ApiError;

/// Descriptors kept for everything but streams: ordinary connections, the database pools,
/// the event listener, SMTP and files.
pub const RESERVED_DESCRIPTORS: u64 = 512;

/// How long a refused client is asked to wait.
const RETRY_AFTER_SECS: u64 = 30;

#[derive(Default)]
struct Counts {
    total: usize,
    by_address: HashMap<IpAddr, usize>,
}

pub struct StreamLimits {
    max_total: usize,
    max_per_address: usize,
    counts: Mutex<Counts>,
}

/// An open stream's place; given back when the stream is dropped (its client left or the
/// stream ended).
pub struct StreamPermit {
    limits: Arc<StreamLimits>,
    address: IpAddr,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut c = self.limits.counts.lock().unwrap_or_else(|p| p.into_inner());
        c.total = c.total.saturating_sub(1);
        if let Some(n) = c.by_address.get_mut(&self.address) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                c.by_address.remove(&self.address);
            }
        }
    }
}

impl StreamLimits {
    /// `max_total` 0: as many as the descriptor limit `nofile` allows after the reserve.
    pub fn new(max_total: usize, max_per_address: usize, nofile: u64) -> StreamLimits {
        let room = usize::try_from(nofile.saturating_sub(RESERVED_DESCRIPTORS))
            .unwrap_or(usize::MAX)
            .max(16);
        let max_total = if max_total == 0 {
            room
        } else {
            max_total.min(room)
        };
        StreamLimits {
            max_total,
            max_per_address: max_per_address.max(1),
            counts: Mutex::new(Counts::default()),
        }
    }

    pub fn max_total(&self) -> usize {
        self.max_total
    }

    /// Streams open now on this node (the gauge `turnpost_sse_streams_open`).
    pub fn open(&self) -> usize {
        self.counts.lock().unwrap_or_else(|p| p.into_inner()).total
    }

    /// A place for one more stream from `address`, or the problem to answer.
    pub fn acquire(self: &Arc<Self>, address: IpAddr) -> Result<StreamPermit, Box<ApiError>> {
        let mut c = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        let mine = c.by_address.get(&address).copied().unwrap_or(0);
        if mine >= self.max_per_address {
            let mut e = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ProblemCode::TooManyStreams,
                format!(
                    "this address has {mine} event streams open, the most one address may: close one (a browser tab) first"
                ),
            );
            e.retry_after = Some(RETRY_AFTER_SECS);
            return Err(Box::new(e));
        }
        if c.total >= self.max_total {
            let mut e = ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                ProblemCode::StreamsFull,
                "this server holds as many event streams as it can: poll the game instead, or retry later",
            );
            e.retry_after = Some(RETRY_AFTER_SECS);
            return Err(Box::new(e));
        }
        c.total += 1;
        *c.by_address.entry(address).or_insert(0) += 1;
        drop(c);
        Ok(StreamPermit {
            limits: Arc::clone(self),
            address,
        })
    }
}

/// Raises the soft limit on open files to the hard one (a server needs descriptors; the
/// soft default of 1,024 is for interactive shells) and returns the limit in force.
pub fn raise_open_file_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit write to and read from a valid rlimit we own.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return 1024;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = lim.rlim_max;
            }
        }
    }
    // Each event stream holds a descriptor; an operator reads here what this
    // node can hold (the hosts' guide, "Scale": `LimitNOFILE=65536` under systemd).
    if lim.rlim_cur < LOW_OPEN_FILE_LIMIT {
        tracing::warn!(
            nofile = lim.rlim_cur,
            "open-file limit (raised to the hard limit) is low: event streams are capped at it less {RESERVED_DESCRIPTORS}; raise LimitNOFILE"
        );
    } else {
        tracing::info!(
            nofile = lim.rlim_cur,
            "open-file limit raised to the hard limit"
        );
    }
    lim.rlim_cur
}

/// Under this many descriptors a node cannot hold the 10,000 streams it is sized for.
const LOW_OPEN_FILE_LIMIT: u64 = 16_384;

#[cfg(test)]
mod tests {
    use super::*;

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn streams_are_bounded_per_address_and_in_total_and_given_back() {
        let l = Arc::new(StreamLimits::new(3, 2, 1 << 20));
        let a1 = l.acquire(A).unwrap();
        let _a2 = l.acquire(A).unwrap();
        assert_eq!(
            l.acquire(A).err().unwrap().code,
            ProblemCode::TooManyStreams
        );
        let _b1 = l.acquire(B).unwrap();
        assert_eq!(l.acquire(B).err().unwrap().code, ProblemCode::StreamsFull);
        drop(a1);
        assert!(l.acquire(B).is_ok());
    }

    #[test]
    fn the_total_leaves_the_reserve_of_descriptors() {
        assert_eq!(StreamLimits::new(0, 8, 1024).max_total(), 512);
        assert_eq!(StreamLimits::new(10_000, 8, 1024).max_total(), 512);
        assert_eq!(StreamLimits::new(100, 8, 1 << 20).max_total(), 100);
        assert_eq!(StreamLimits::new(0, 8, 100).max_total(), 16);
    }
}
