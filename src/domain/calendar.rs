//! The calendar feed: an iCalendar document of the account's deadlines, for calendar apps.
//! For every active game with a clock whose game waits for one of the account's seats, one
//! event at the moment that seat's clock runs out (vacations already booked push it back,
//! as they stop the clock), with alarms at the reminders' marks (50 % and 90 % of the time).
//! The event's UID is the game and seat, so a calendar moves it when the deadline moves and
//! removes it when the turn has passed.
//!
//! Calendar apps send no bearer token, so the feed's URL is the authority:
//! `/api/v1/calendar/<account>-<MAC>.ics`, the MAC taken under the server's key over the
//! account and a per-account feed secret (`calendar_feeds`); a new secret revokes it.

use crate::domain::ProblemCode;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Int8, Integer, Jsonb, Nullable, Text, Timestamptz};
use icalendar::{Alarm, Calendar, Component, Event, EventLike};

/// The feed's `PRODID`: who made it.
pub const PRODID: &str = concat!("-//Turnpost//Turnpost ", env!("CARGO_PKG_VERSION"), "//EN");
use serde::Serialize;
use utoipa::ToSchema;

use super::clocks::{DAY_MS, TimeControl, used_ms};
use super::{Domain, DomainError, DomainResult};
use crate::notify::links::SignedLinks;
use crate::store::kinds::{AccountId, TimeoutPolicy};
use crate::store::schema::calendar_feeds;

#[derive(Debug, Serialize, ToSchema)]
pub struct CalendarFeedResponse {
    /// The secret address of the feed (`text/calendar`); subscribe to it in a calendar
    /// app. Anyone with it sees the account's deadlines, so keep it private;
    /// `POST /api/v1/me/calendar/reset` replaces it.
    #[schema(
        example = "https://games.example.org/api/v1/calendar/2-213b62d827e6242094bdacee7f992069.ics"
    )]
    pub url: String,
    /// When the current address was made.
    pub created_at: DateTime<Utc>,
}

fn feed_not_found() -> DomainError {
    DomainError::NotFound {
        code: ProblemCode::FeedNotFound,
        what: "calendar feed".into(),
    }
}

/// A seat whose clock is running, in a game that waits for it.
#[derive(QueryableByName)]
struct Deadline {
    #[diesel(sql_type = Int8)]
    game_id: i64,
    #[diesel(sql_type = Text)]
    game_type: String,
    #[diesel(sql_type = Integer)]
    seat: i32,
    #[diesel(sql_type = Nullable<BigInt>)]
    clock_ms: Option<i64>,
    #[diesel(sql_type = Timestamptz)]
    clock_since: DateTime<Utc>,
    #[diesel(sql_type = Jsonb)]
    time_control: serde_json::Value,
    #[diesel(sql_type = Text)]
    timeout_policy: TimeoutPolicy,
}

/// When `total_ms` of clock time starting at `since` runs out: wall time, plus the
/// account's vacations on the way (which stop the clock).
fn runs_out_at(
    conn: &mut PgConnection,
    account: AccountId,
    since: DateTime<Utc>,
    total_ms: i64,
) -> QueryResult<DateTime<Utc>> {
    let mut at = since + Duration::milliseconds(total_ms);
    // Each vacation found pushes the end back; vacations are few, and each pass finds them.
    for _ in 0..32 {
        let used = used_ms(conn, account, since, at)?;
        if used >= total_ms {
            break;
        }
        at += Duration::milliseconds(total_ms - used);
    }
    Ok(at)
}

impl Domain {
    fn feed_response(
        &self,
        account: AccountId,
        secret: &str,
        created_at: DateTime<Utc>,
    ) -> CalendarFeedResponse {
        CalendarFeedResponse {
            url: self.links.calendar_url(account, secret),
            created_at,
        }
    }

    /// The account's feed address, made on first request.
    pub fn calendar_feed(&self, account: AccountId) -> DomainResult<CalendarFeedResponse> {
        let mut conn = self.conn()?;
        diesel::insert_into(calendar_feeds::table)
            .values((
                calendar_feeds::account_id.eq(account),
                calendar_feeds::secret.eq(hex::encode(rand::random::<[u8; 16]>())),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)?;
        let (secret, created_at): (String, DateTime<Utc>) = calendar_feeds::table
            .find(account)
            .select((calendar_feeds::secret, calendar_feeds::created_at))
            .first(&mut conn)?;
        Ok(self.feed_response(account, &secret, created_at))
    }

    /// A new feed address; the old one stops working.
    pub fn reset_calendar_feed(&self, account: AccountId) -> DomainResult<CalendarFeedResponse> {
        let mut conn = self.conn()?;
        let secret = hex::encode(rand::random::<[u8; 16]>());
        let created_at: DateTime<Utc> = diesel::insert_into(calendar_feeds::table)
            .values((
                calendar_feeds::account_id.eq(account),
                calendar_feeds::secret.eq(&secret),
            ))
            .on_conflict(calendar_feeds::account_id)
            .do_update()
            .set((
                calendar_feeds::secret.eq(&secret),
                calendar_feeds::created_at.eq(diesel::dsl::now),
            ))
            .returning(calendar_feeds::created_at)
            .get_result(&mut conn)?;
        Ok(self.feed_response(account, &secret, created_at))
    }

    /// The feed behind `token` as iCalendar text; `feed_not_found` for a token that is
    /// not the account's current one.
    pub fn calendar_ics(&self, token: &str) -> DomainResult<String> {
        let account = SignedLinks::calendar_account(token).ok_or_else(feed_not_found)?;
        let mut conn = self.conn()?;
        let secret: String = calendar_feeds::table
            .find(account)
            .select(calendar_feeds::secret)
            .first(&mut conn)
            .optional()?
            .ok_or_else(feed_not_found)?;
        if !self.links.check_calendar(token, account, &secret) {
            return Err(feed_not_found());
        }
        let due = diesel::sql_query(
            "SELECT g.id AS game_id, g.game_type, s.seat, s.clock_ms, s.clock_since, \
                    g.time_control, g.timeout_policy \
             FROM game_seats s JOIN games g ON g.id = s.game_id \
             WHERE s.account_id = $1 AND g.status = 'active' AND g.time_control IS NOT NULL \
               AND s.clock_since IS NOT NULL AND s.seat = ANY (g.to_act) \
               AND NOT (s.seat = ANY (g.forfeited)) \
             ORDER BY g.id, s.seat",
        )
        .bind::<BigInt, _>(account)
        .load::<Deadline>(&mut conn)?;
        let base = self.public_url.trim_end_matches('/');
        let host = url::Url::parse(base)
            .ok()
            .and_then(|u| u.host_str().map(str::to_string))
            .unwrap_or_else(|| "turnpost".into());
        let now = self.clock.now();
        // The library's PRODID names the library; calendar clients show and log the
        // product that made the feed, so it names Turnpost and its version (RFC 5545 3.7.3).
        let mut cal = Calendar::empty();
        cal.append_property(("VERSION", "2.0"))
            .append_property(("PRODID", PRODID))
            .append_property(("CALSCALE", "GREGORIAN"));
        cal.name("Turnpost deadlines")
            .description("When your clocks run out in your Turnpost games")
            .ttl(&Duration::hours(1));
        for d in due {
            let per_move = serde_json::from_value::<TimeControl>(d.time_control)
                .map_or(DAY_MS, |tc| tc.days_per_move as i64 * DAY_MS);
            let total = d.clock_ms.unwrap_or(per_move).max(0);
            let at = runs_out_at(&mut conn, account, d.clock_since, total)?;
            let name = self
                .registry
                .get(&d.game_type)
                .map_or(d.game_type.clone(), |g| g.info().name.to_string());
            let page = format!("{base}/#/game/{}", d.game_id);
            let what = match d.timeout_policy {
                TimeoutPolicy::Forfeit => "you forfeit the game",
                TimeoutPolicy::RandomMove => "a random legal move is played for you",
                TimeoutPolicy::Bot => {
                    "the computer plays your seat until you take it back (Resume in the game)"
                }
            };
            let mut event = Event::new();
            event
                .uid(&format!(
                    "turnpost-game-{}-seat-{}@{host}",
                    d.game_id, d.seat
                ))
                .timestamp(now)
                .summary(&format!("{name} #{}: your move is due", d.game_id))
                .description(&format!(
                    "Your clock in {name} #{} runs out at this moment: move before it does, \
                     or {what}.\n{page}",
                    d.game_id
                ))
                .url(&page)
                .starts(at)
                .ends(at + Duration::minutes(15));
            // The reminders' marks: half the time left, and a tenth.
            for (left, text) in [(total / 2, "half"), (total / 10, "a tenth")] {
                event.alarm(Alarm::display(
                    &format!("{name} #{}: {text} of your time is left", d.game_id),
                    -Duration::milliseconds(left),
                ));
            }
            cal.push(event.done());
        }
        Ok(cal.done().to_string())
    }
}
