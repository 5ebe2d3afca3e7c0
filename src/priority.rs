//! Background threads (mail and webhook senders, the computer player) yield the CPU to
//! requests.

/// How much less CPU a sender thread gets than a request when both want it (Linux nice).
pub const SENDER_NICENESS: i32 = 10;

/// Lowers the calling thread's priority to [`SENDER_NICENESS`]: sending is background work,
/// and a move waiting on a core should not wait for a board picture being drawn. In the
/// load bench, half-load p99 of a move went from 16-24 ms to 5-11 ms; an email leaves a
/// moment later under load. (Raising one's own niceness needs no privilege; where the
/// system refuses, the thread keeps its priority.)
pub fn background_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain system calls on the calling thread's own id. A process already
        // started nicer than that stays as it is.
        let done = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            let now = libc::getpriority(libc::PRIO_PROCESS, tid);
            libc::setpriority(libc::PRIO_PROCESS, tid, now.max(SENDER_NICENESS))
        };
        if done != 0 {
            tracing::debug!("an outbox sender kept its priority");
        }
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::*;

    fn niceness() -> i32 {
        // SAFETY: plain system calls on the calling thread's own id.
        unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::getpriority(libc::PRIO_PROCESS, tid)
        }
    }

    #[test]
    fn a_sender_thread_yields_to_requests_and_no_other_thread_does() {
        let before = std::thread::spawn(niceness).join().unwrap();
        let sender = std::thread::spawn(|| {
            background_priority();
            niceness()
        })
        .join()
        .unwrap();
        let after = std::thread::spawn(niceness).join().unwrap();
        assert_eq!(sender, SENDER_NICENESS.max(before));
        assert_eq!(after, before, "only the calling thread is lowered");
    }
}
