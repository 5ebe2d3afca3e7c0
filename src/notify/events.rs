//! Live game events for every server node: a listener thread holds one connection that
//! LISTENs on `turnpost_events` (filled by a trigger on `games` at commit, and by the server
//! right after a move written without the row lock), and fans each
//! event out to the node's subscribers (the SSE streams of `GET /api/v1/me/events`). A move
//! made through any node reaches a client connected to any other.

use crate::store::kinds::{AccountId, GameId, GameStatus};
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
            if let Err(e) = self.listen_once(database_url, stop) {
                tracing::warn!(error = %e, "event listener lost its connection; reconnecting");
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    }

    fn listen_once(&self, database_url: &str, stop: &AtomicBool) -> anyhow::Result<()> {
        let mut conn = PgConnection::establish(database_url)?;
        diesel::sql_query("LISTEN turnpost_events").execute(&mut conn)?;
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
