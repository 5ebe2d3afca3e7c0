//! Limits on invitation emails, so that no account can use the server to mail strangers:
//! an unconfirmed account invites nobody (where the server requires confirmed addresses),
//! an inviter sends at most [`PER_INVITER_PER_DAY`] a day, an address gets at most
//! [`PER_ADDRESS_PER_DAY`] a day from everyone together, and an inviter whose last
//! invitation to an address went unanswered (it expired, or its game or the invitation was
//! withdrawn) may not invite that address again for [`QUIET_AFTER_UNANSWERED_DAYS`] days.
//! Sends are counted in `invitation_sends`, which outlives the games.

use crate::domain::ProblemCode;
use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;

use super::{DomainError, DomainResult};
use crate::store::kinds::{AccountId, InvitationStatus};
use crate::store::models::Account;
use crate::store::schema::{accounts, invitation_sends, invitations};

pub const PER_INVITER_PER_DAY: i64 = 20;
pub const PER_ADDRESS_PER_DAY: i64 = 3;
pub const QUIET_AFTER_UNANSWERED_DAYS: i64 = 30;

/// Checks every limit for `inviter` inviting `addresses` (lower-cased) now, holding locks
/// (the inviter's account row, one advisory lock per address) until the transaction ends,
/// so that invitations racing each other are counted one after the other.
pub(crate) fn check(
    conn: &mut PgConnection,
    inviter: &Account,
    addresses: &[String],
    require_confirmed: bool,
    now: DateTime<Utc>,
) -> DomainResult<()> {
    if require_confirmed && inviter.email_verified_at.is_none() {
        return Err(DomainError::forbidden(
            ProblemCode::EmailUnconfirmed,
            "confirm your own address (the link in the confirmation email) before inviting people by email",
        ));
    }
    accounts::table
        .find(inviter.id)
        .select(accounts::id)
        .for_update()
        .first::<AccountId>(conn)?;
    let mut sorted: Vec<&String> = addresses.iter().collect();
    sorted.sort();
    for address in &sorted {
        diesel::sql_query("SELECT pg_advisory_xact_lock(hashtextextended($1, 28))")
            .bind::<diesel::sql_types::Text, _>(address.as_str())
            .execute(conn)?;
    }
    let day_ago = now - Duration::days(1);
    let mine: Vec<DateTime<Utc>> = invitation_sends::table
        .filter(invitation_sends::inviter_id.eq(inviter.id))
        .filter(invitation_sends::sent_at.gt(day_ago))
        .select(invitation_sends::sent_at)
        .order(invitation_sends::sent_at.asc())
        .load(conn)?;
    if mine.len() as i64 + addresses.len() as i64 > PER_INVITER_PER_DAY {
        return Err(DomainError::Limited {
            code: ProblemCode::TooManyInvitations,
            message: format!(
                "an account sends at most {PER_INVITER_PER_DAY} invitations a day; you sent {} in the last 24 hours",
                mine.len()
            ),
            retry_after_secs: retry_after(&mine, now),
        });
    }
    for address in &sorted {
        let theirs: Vec<DateTime<Utc>> = invitation_sends::table
            .filter(invitation_sends::email_lower.eq(address.as_str()))
            .filter(invitation_sends::sent_at.gt(day_ago))
            .select(invitation_sends::sent_at)
            .order(invitation_sends::sent_at.asc())
            .load(conn)?;
        if theirs.len() as i64 >= PER_ADDRESS_PER_DAY {
            return Err(DomainError::Limited {
                code: ProblemCode::InviteeInvitedEnough,
                message: format!(
                    "{address} has had {PER_ADDRESS_PER_DAY} invitations in the last 24 hours: invite them again later"
                ),
                retry_after_secs: retry_after(&theirs, now),
            });
        }
        let last: Option<(Option<i64>, DateTime<Utc>)> = invitation_sends::table
            .filter(invitation_sends::inviter_id.eq(inviter.id))
            .filter(invitation_sends::email_lower.eq(address.as_str()))
            .filter(invitation_sends::sent_at.gt(now - Duration::days(QUIET_AFTER_UNANSWERED_DAYS)))
            .order(invitation_sends::sent_at.desc())
            .select((invitation_sends::invitation_id, invitation_sends::sent_at))
            .first(conn)
            .optional()?;
        if let Some((invitation, sent_at)) = last
            && !answered_or_open(conn, invitation, now)?
        {
            let again = sent_at + Duration::days(QUIET_AFTER_UNANSWERED_DAYS);
            return Err(DomainError::Limited {
                code: ProblemCode::InviteeNotAnswering,
                message: format!(
                    "{address} did not answer your last invitation: you may invite them again from {}",
                    again.format("%Y-%m-%d")
                ),
                retry_after_secs: secs_until(again, now),
            });
        }
    }
    Ok(())
}

/// Records the sending of invitation `invitation` to `address`.
pub(crate) fn record(
    conn: &mut PgConnection,
    inviter: AccountId,
    address: &str,
    invitation: i64,
) -> DomainResult<()> {
    diesel::insert_into(invitation_sends::table)
        .values((
            invitation_sends::inviter_id.eq(inviter),
            invitation_sends::email_lower.eq(address),
            invitation_sends::invitation_id.eq(Some(invitation)),
        ))
        .execute(conn)?;
    Ok(())
}

/// Whether the invitation was answered (accepted or declined) or is still open. One whose
/// game is gone, that was cancelled, or that expired unanswered was not.
fn answered_or_open(
    conn: &mut PgConnection,
    invitation: Option<i64>,
    now: DateTime<Utc>,
) -> DomainResult<bool> {
    let Some(id) = invitation else {
        return Ok(false);
    };
    let found: Option<(InvitationStatus, DateTime<Utc>)> = invitations::table
        .find(id)
        .select((invitations::status, invitations::expires_at))
        .first(conn)
        .optional()?;
    Ok(match found {
        Some((InvitationStatus::Accepted | InvitationStatus::Declined, _)) => true,
        Some((status, expires)) => status == InvitationStatus::Pending && expires > now,
        None => false,
    })
}

/// Seconds until the oldest of `sends` (in order) leaves the 24-hour window.
fn retry_after(sends: &[DateTime<Utc>], now: DateTime<Utc>) -> u64 {
    sends
        .first()
        .map_or(60, |oldest| secs_until(*oldest + Duration::days(1), now))
}

fn secs_until(at: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
    u64::try_from((at - now).num_seconds()).unwrap_or(0).max(1)
}
