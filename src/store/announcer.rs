//! The announcements of moves written without the row lock (`domain::games::announce`),
//! sent on `turnpost_events` in batches by one thread with a connection of its own.
//!
//! Such a move is announced after its commit by a statement of its own. Made by the request,
//! that statement was a third of a move's round trips to the database and a fifth of its
//! time there. Here the request only queues the announcement; under load, the thread sends
//! what has gathered meanwhile in one statement, and alone a move is still announced at
//! once. A change of a game other than such a move is announced by the trigger on `games`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use diesel::prelude::*;
use diesel::sql_types::{Array, Text};

/// Announcements waiting for the thread at most; past that a request announces its own.
const QUEUE: usize = 4096;
/// Announcements in one statement at most.
const BATCH: usize = 512;
/// How long the thread gathers announcements after the first before it sends them: a live
/// event comes this much later, and under load a statement carries many. Sending each at
/// once woke the thread for every move, which cost more than the statements it saved.
const GATHER: Duration = Duration::from_millis(10);

/// Where a server's requests queue their announcements. The default has no thread behind
/// it (a domain built without the application, as some tests do): each announcement is
/// then sent by its request.
#[derive(Clone, Default)]
pub struct Announcer {
    queue: Option<SyncSender<String>>,
}

impl Announcer {
    /// Starts the thread; it sends what is queued until `stop`, then what is left.
    pub fn spawn(
        database_url: String,
        stop: Arc<AtomicBool>,
    ) -> std::io::Result<(Announcer, JoinHandle<()>)> {
        let (tx, rx) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("announcer".into())
            .spawn(move || run(&database_url, &rx, &stop))?;
        Ok((Announcer { queue: Some(tx) }, thread))
    }

    /// Queues `payload`; gives it back when the thread cannot take it (none, or its queue is
    /// full, or it has stopped), for the caller to send it itself with [`announce_now`].
    pub fn queue(&self, payload: String) -> Result<(), String> {
        match &self.queue {
            None => Err(payload),
            Some(tx) => tx.try_send(payload).map_err(|e| match e {
                TrySendError::Full(p) | TrySendError::Disconnected(p) => p,
            }),
        }
    }
}

/// Sends `payloads` on `turnpost_events`, in order, in one statement whose commit waits for
/// no flush (`turnpost_announce`: it writes nothing that a crash could lose but the events).
pub fn announce_now(conn: &mut PgConnection, payloads: &[String]) -> QueryResult<()> {
    diesel::sql_query("SELECT count(turnpost_announce(p)) FROM unnest($1::text[]) AS p")
        .bind::<Array<Text>, _>(payloads)
        .execute(conn)
        .map(|_| ())
}

fn run(database_url: &str, rx: &Receiver<String>, stop: &AtomicBool) {
    let mut conn: Option<PgConnection> = None;
    loop {
        let first = match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(p) => p,
            // Nothing is left to send once the queue is empty.
            Err(RecvTimeoutError::Timeout) if stop.load(Ordering::Relaxed) => return,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let mut batch = vec![first];
        std::thread::sleep(GATHER);
        while batch.len() < BATCH {
            match rx.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        send(database_url, &mut conn, &batch);
    }
}

/// Sends a batch, on a new connection once more if the first try fails (the database
/// restarted, say). What still fails is lost, and logged: the moves stand, only their live
/// events are missing, and clients that re-read their games see them.
fn send(database_url: &str, conn: &mut Option<PgConnection>, batch: &[String]) {
    for _ in 0..2 {
        let c = match conn {
            Some(c) => c,
            None => match PgConnection::establish(database_url) {
                Ok(c) => conn.insert(c),
                Err(e) => {
                    super::outage::DATABASE.failed("the announcer's connection", &e);
                    std::thread::sleep(Duration::from_millis(200));
                    continue;
                }
            },
        };
        match announce_now(c, batch) {
            Ok(()) => {
                super::outage::DATABASE.back();
                return;
            }
            Err(e) => {
                super::outage::DATABASE.failed("the announcer's statement", &e);
                *conn = None;
            }
        }
    }
    tracing::warn!(
        events = batch.len(),
        "live events of moves were not announced"
    );
}
