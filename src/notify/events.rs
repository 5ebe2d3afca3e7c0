//! Live game events for every server node: a listener thread holds one connection that
//! LISTENs on `turnpost_events` (filled by a trigger on `games` at commit, and by the server
//! right after a move written without the row lock), and fans each
//! event out to the node's subscribers (the SSE streams of `GET /api/v1/me/events`). A move
//! made through any node reaches a client connected to any other.

use crate::store::kinds::{AccountId, GameId, GameStatus};
use crate::store::outage::DATABASE;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use diesel::prelude::*;
use serde::Deserialize;
use tokio::sync::broadcast;

/// One change of a game, as announced (by the trigger on `games`, or by
/// `domain::games::announce` after a move written without the row lock, through
/// `store::announcer`).
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct GameEvent {
    /// Its row in `game_events`: ids grow in commit order (see the migration
    /// `game_events`). `None` only from a server without that table.
    #[serde(default)]
    pub id: Option<i64>,
    pub game: GameId,
    pub version: i64,
    pub status: GameStatus,
    /// The seats the game now waits for (public: anyone watching may know it).
    #[serde(default)]
    pub to_act: Vec<i32>,
    /// The accounts seated in the game.
    pub accounts: Vec<AccountId>,
    /// The accounts with something to decide now (the game's `deciding` seats).
    pub to_act_accounts: Vec<AccountId>,
    /// The change shows in the lobby (a public game opened, filled up or lost a player):
    /// every stream is told, so open lobby pages refresh.
    #[serde(default)]
    pub lobby: bool,
    /// A chat message, for its recipients only; such an event changes nothing
    /// of the game.
    #[serde(default)]
    pub chat: Option<ChatEvent>,
}

/// A chat message posted, and who is told: the accounts that may read its channel, less
/// those that muted its author.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
pub struct ChatEvent {
    pub message: crate::domain::chat::ChatMessage,
    pub recipients: Vec<AccountId>,
}

/// The node's event fan-out.
#[derive(Clone)]
pub struct EventHub {
    sender: broadcast::Sender<GameEvent>,
}

impl Default for EventHub {
    fn default() -> Self {
        // A slow subscriber that falls this far behind skips events (it is told so and can
        // re-read its games); nobody else waits for it.
        let (sender, _) = broadcast::channel(1024);
        EventHub { sender }
    }
}

impl EventHub {
    pub fn subscribe(&self) -> broadcast::Receiver<GameEvent> {
        self.sender.subscribe()
    }

    fn publish(&self, event: GameEvent) {
        // No subscriber is fine: nobody is watching on this node.
        let _ = self.sender.send(event);
    }

    /// Listens on `database_url` until `stop`, reconnecting after errors. For its own thread.
    pub fn listen(&self, database_url: &str, stop: &AtomicBool) {
        while !stop.load(Ordering::Relaxed) {
            // Reconnects after any error; an unreachable database is logged once, when it
            // goes (and once when it is back), not at each attempt.
            if let Err(e) = self.listen_once(database_url, stop) {
                DATABASE.failed("the event listener", e.as_ref());
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }

    fn listen_once(&self, database_url: &str, stop: &AtomicBool) -> anyhow::Result<()> {
        let mut conn = PgConnection::establish(database_url)?;
        diesel::sql_query("LISTEN turnpost_events").execute(&mut conn)?;
        DATABASE.back();
        let mut idle = 0u32;
        while !stop.load(Ordering::Relaxed) {
            let mut got = false;
            for n in conn.notifications_iter() {
                let n = n?;
                got = true;
                match serde_json::from_str::<GameEvent>(&n.payload) {
                    Ok(event) => self.publish(event),
                    Err(e) => tracing::warn!(error = %e, "unreadable game event"),
                }
            }
            if got {
                idle = 0;
                continue;
            }
            // The iterator only reads what has arrived; a short nap bounds the delay, and
            // a ping now and then notices a dead connection.
            idle += 1;
            if idle.is_multiple_of(600) {
                diesel::sql_query("SELECT 1").execute(&mut conn)?;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        Ok(())
    }
}

/// Starts the listener thread of a node.
pub fn spawn_listener(
    hub: EventHub,
    database_url: String,
    stop: Arc<AtomicBool>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    std::thread::Builder::new()
        .name("events".into())
        .spawn(move || hub.listen(&database_url, &stop))
}

/// Most events a reconnecting stream is sent again; a client further behind is told to
/// re-read its games instead (one read is cheaper than thousands of frames).
pub const MAX_REPLAY: i64 = 1000;

/// How long announced events are kept for replay.
pub const RETENTION_HOURS: i32 = 24;

/// What a stream sends first, given where its client stopped.
#[derive(Debug, PartialEq, Eq)]
pub enum Replay {
    /// The events after the client's id, oldest first (all visible ones; each stream
    /// filters them as it filters live events).
    Events(Vec<GameEvent>),
    /// The events after the client's id are gone (pruned), more than [`MAX_REPLAY`], or
    /// the id is not one this server gave out: the client must re-read its games.
    Resync,
}

#[derive(QueryableByName)]
struct Bounds {
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    oldest: Option<i64>,
    #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::BigInt>)]
    newest: Option<i64>,
}

#[derive(QueryableByName)]
struct Stored {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    id: i64,
    #[diesel(sql_type = diesel::sql_types::Text)]
    payload: String,
}

/// The newest stored event id (0 with none) and, with `after` (the client's
/// `Last-Event-ID`), what the client missed. Read in one snapshot, so that the id is exactly
/// where the replay ends: a stream subscribed to the hub before this read skips live events
/// up to that id, and nothing falls between the two.
pub fn replay(conn: &mut PgConnection, after: Option<i64>) -> QueryResult<(i64, Replay)> {
    conn.build_transaction()
        .repeatable_read()
        .read_only()
        .run(|conn| {
            let b: Bounds =
                diesel::sql_query("SELECT min(id) AS oldest, max(id) AS newest FROM game_events")
                    .get_result(conn)?;
            let newest = b.newest.unwrap_or(0);
            let Some(after) = after else {
                return Ok((newest, Replay::Events(Vec::new())));
            };
            // Ids are drawn in commit order, so every id up to `newest` is either stored
            // or was rolled back; one before the oldest kept may have been pruned.
            let pruned = b.oldest.is_some_and(|oldest| after < oldest - 1);
            if after < 0 || after > newest || pruned || newest - after > MAX_REPLAY {
                return Ok((newest, Replay::Resync));
            }
            let rows: Vec<Stored> = diesel::sql_query(
                "SELECT id, payload::text AS payload FROM game_events WHERE id > $1 ORDER BY id",
            )
            .bind::<diesel::sql_types::BigInt, _>(after)
            .load(conn)?;
            let mut events = Vec::with_capacity(rows.len());
            for row in rows {
                match serde_json::from_str::<GameEvent>(&row.payload) {
                    Ok(mut event) => {
                        event.id = Some(row.id);
                        events.push(event);
                    }
                    // The client cannot be sent what it missed: it must re-read.
                    Err(e) => {
                        tracing::warn!(error = %e, id = row.id, "unreadable stored game event");
                        return Ok((newest, Replay::Resync));
                    }
                }
            }
            Ok((newest, Replay::Events(events)))
        })
}

/// Drops the events older than [`RETENTION_HOURS`], but never the newest, which tells a
/// reconnecting client whether it missed anything. Returns how many went.
pub fn prune(conn: &mut PgConnection) -> QueryResult<usize> {
    diesel::sql_query(
        "DELETE FROM game_events WHERE created_at < now() - make_interval(hours => $1) \
         AND id < (SELECT max(id) FROM game_events)",
    )
    .bind::<diesel::sql_types::Integer, _>(RETENTION_HOURS)
    .execute(conn)
}
