//! What email a change of a game owes, stored as events in the outbox (game, seat, kind,
//! version) in the change's own transaction. Nothing is rendered here: the outbox worker
//! writes each email when it is due (see `deliveries`), from the game as it is then.
//!
//! A turn email waits out the grace period (`turn_email_grace`), and a newer turn of the
//! same seat in the same game replaces a pending one (one row, due later: see the
//! `turn_email_due` migration), so players who move quickly get no email at all, and a
//! burst of moves gives one email.
//! Turn events are written under the game row lock, so two of them for one seat never race.

use crate::store::kinds::GameId;
use crate::store::kinds::OutboxKind;
use crate::store::kinds::WebhookEvent;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Double, Integer, Text};
use serde_json::json;

use super::{Domain, DomainResult};
use crate::engine::Status;
use crate::store::models::SeatInfo;
use crate::store::models::{GameRow, NewOutbox};
use crate::store::schema::outbox;

pub use super::steps::Actors;

/// What a change owes (see [`Domain::owed`]).
pub(crate) struct Owed<'s> {
    /// (seat, account, event) for each webhook delivery.
    pub webhooks: Vec<(i32, crate::store::kinds::AccountId, WebhookEvent)>,
    /// The seats owed a turn email.
    pub turns: Vec<&'s SeatInfo>,
}

/// The kinds of event rendered when sent.
pub const TURN: OutboxKind = OutboxKind::Turn;
pub const REMINDER: OutboxKind = OutboxKind::Reminder;
pub const NUDGE: OutboxKind = OutboxKind::Nudge;
pub const OVER: OutboxKind = OutboxKind::Over;
/// A player asks the seat to agree to a takeback (or, to the player who asked: declined).
pub const TAKEBACK: OutboxKind = OutboxKind::Takeback;

impl SeatInfo {
    /// Whether email about this game may go to the player now: notifications on, the game
    /// not muted, the address not bouncing, and confirmed where that is required.
    pub fn gets_game_mail(&self, require_verified: bool) -> bool {
        self.why_no_game_mail(require_verified).is_none()
    }

    /// Why no email about this game goes to the player, if none does.
    pub fn why_no_game_mail(&self, require_verified: bool) -> Option<&'static str> {
        if !self.email_notifications {
            Some("notifications_off")
        } else if self.email_bouncing {
            Some("address_bouncing")
        } else if require_verified && !self.email_verified {
            Some("address_unconfirmed")
        } else if self.muted {
            Some("game_muted")
        } else {
            None
        }
    }
}

diesel::define_sql_function! {
    /// Owes a seat its turn email (a function of the database: see its migration).
    fn owe_turn_email(
        version: BigInt,
        key: Text,
        grace: Double,
        game: BigInt,
        seat: Integer,
        account: BigInt,
        address: Text,
    ) -> Bool;
}

impl Domain {
    /// What a change owes, worked out without the database: the webhook deliveries and
    /// the seats owed a turn email. The end of a game owes more (ratings, the final
    /// email), written by [`Domain::owe_finish`].
    pub(crate) fn owed<'s>(
        &self,
        actors: Actors,
        after: &Status,
        seats: &'s [SeatInfo],
        forfeited: &[i32],
    ) -> Owed<'s> {
        // Webhooks take the same changes, whatever the account's email settings.
        let webhooks = super::webhooks::webhooks_owed(actors, after, seats, forfeited);
        let turns = match after {
            // The seats told of a new decision (see `Actors::told`): the seats to act and
            // others with legal actions (an offer made to them, a simultaneous step). The
            // turn may have come back to a seat through moves that played themselves; an
            // earlier turn email of a seat that acted is stale, and the worker drops it.
            Status::Active { to_act } => actors
                .told(to_act)
                .into_iter()
                .filter_map(|s| seats.iter().find(|i| i.seat as usize == s))
                .filter(|p| {
                    !forfeited.contains(&p.seat)
                        && !p.daily_digest
                        && p.gets_game_mail(self.require_email_verification)
                })
                .collect(),
            Status::Finished(_) => Vec::new(),
        };
        Owed { webhooks, turns }
    }

    /// Writes what a change owes (see [`Domain::owed`]), one statement each.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn owe_for_transition(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        version: i64,
        actors: Actors,
        after: &Status,
        seats: &[SeatInfo],
        forfeited: &[i32],
    ) -> DomainResult<()> {
        let owed = self.owed(actors, after, seats, forfeited);
        super::webhooks::owe(conn, row, version, &owed.webhooks)?;
        for p in owed.turns {
            self.owe_turn(conn, row.id, p, version)?;
        }
        if let Status::Finished(outcome) = after {
            self.owe_finish(conn, row, version, outcome, seats)?;
        }
        Ok(())
    }

    /// What the end of a game owes besides its webhooks: its ratings and the final email.
    pub(crate) fn owe_finish(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        version: i64,
        outcome: &crate::engine::Outcome,
        seats: &[SeatInfo],
    ) -> DomainResult<()> {
        // Every path that ends a game passes here, in its transaction: the one place a
        // finished game is rated.
        super::ratings::rate_finished(conn, row, outcome, seats)?;
        let events: Vec<NewOutbox> = seats
            .iter()
            .filter(|p| p.gets_game_mail(self.require_email_verification))
            .map(|p| NewOutbox {
                dedupe_key: format!("over:{}:{}", row.id, p.account_id),
                ..event(row.id, p, OVER, version)
            })
            .collect();
        Ok(enqueue(conn, events)?)
    }

    /// The dedupe key of `seat`'s turn email for the turn at `version`.
    pub(crate) fn turn_key(game: GameId, version: i64, seat: i32) -> String {
        format!("turn:{game}:{version}:{seat}")
    }

    /// A turn email for `player`, due after the grace period; replaces a pending one of the
    /// same game and seat (which is then due later, showing the newer turn).
    pub(crate) fn owe_turn(
        &self,
        conn: &mut PgConnection,
        game: GameId,
        player: &SeatInfo,
        version: i64,
    ) -> DomainResult<()> {
        let key = Self::turn_key(game, version, player.seat);
        let grace = self.turn_email_grace.as_secs_f64();
        // One statement, prepared once per connection (see the function's migration).
        diesel::select(owe_turn_email(
            version,
            &key,
            grace,
            game,
            player.seat,
            player.account_id,
            &player.email,
        ))
        .get_result::<bool>(conn)?;
        Ok(())
    }

    /// A reminder at 50 % (`stage` 1) or 90 % (`stage` 2) of the seat's time.
    pub(crate) fn owe_reminder(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        player: &SeatInfo,
        left_ms: i64,
        stage: i32,
    ) -> DomainResult<()> {
        if !player.gets_game_mail(self.require_email_verification) {
            return Ok(());
        }
        enqueue(
            conn,
            vec![NewOutbox {
                dedupe_key: format!(
                    "remind:{}:{}:{}:{}",
                    row.id, row.version, player.seat, stage
                ),
                detail: Some(json!({ "stage": stage, "left_ms": left_ms })),
                ..event(row.id, player, REMINDER, row.version)
            }],
        )?;
        Ok(())
    }

    /// A nudge from `from` to each of `waiting`.
    pub(crate) fn owe_nudges(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        waiting: &[&SeatInfo],
        from: &str,
        at: chrono::DateTime<chrono::Utc>,
    ) -> DomainResult<()> {
        let events = waiting
            .iter()
            .filter(|p| p.gets_game_mail(self.require_email_verification))
            .map(|p| NewOutbox {
                dedupe_key: format!(
                    "nudge:{}:{}:{}:{}",
                    row.id,
                    row.version,
                    p.seat,
                    at.timestamp()
                ),
                detail: Some(json!({ "from": from })),
                ..event(row.id, p, NUDGE, row.version)
            })
            .collect();
        enqueue(conn, events)?;
        Ok(())
    }
}

/// An event row for `player`'s seat (its dedupe key still to be set).
pub(crate) fn event(game: GameId, player: &SeatInfo, kind: OutboxKind, version: i64) -> NewOutbox {
    NewOutbox {
        account_id: Some(player.account_id),
        game_id: Some(game),
        to_address: player.email.clone(),
        kind: Some(kind),
        seat: Some(player.seat),
        version: Some(version),
        ..NewOutbox::default()
    }
}

/// Inserts mail; a dedupe key already present is skipped (idempotent).
pub fn enqueue(conn: &mut PgConnection, mails: Vec<NewOutbox>) -> QueryResult<()> {
    if mails.is_empty() {
        return Ok(());
    }
    diesel::insert_into(outbox::table)
        .values(&mails)
        .on_conflict(outbox::dedupe_key)
        .do_nothing()
        .execute(conn)?;
    Ok(())
}
