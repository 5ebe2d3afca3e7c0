//! Private games and invitations by email.
//!
//! A private game is seen only by its seats and by the people invited to it; to anyone
//! else it does not exist (`404 game_not_found`, the answer for a game that does not).
//!
//! An invitation keeps one seat of an open game for one address until it is answered,
//! cancelled or expires: `join` leaves that seat to the invitee. The invitee gets an email
//! with a link carrying a random token (256 bits; the table keeps only its SHA-256). The
//! link opens a page to accept or decline; accepting seats the account with the invited
//! address, the signed-in caller, or a new account made there and then (its address counts
//! as confirmed: its owner followed the link). A token works once.

use crate::domain::ProblemCode;
use crate::store::kinds::OutboxKind;
use std::collections::HashSet;

use chrono::{DateTime, Duration, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use super::accounts::{check_password, parse_email, parse_name};
use super::locked::{LockedGame, seat_of};
use super::mail_events::enqueue;
use super::{Domain, DomainError, DomainResult};
use crate::notify::letter::Letter;
use crate::store::kinds::{AccountId, GameId, GameStatus, InvitationStatus};
use crate::store::models::{
    Account, GameRow, InvitationRow, NewAccount, NewInvitation, NewOutbox, SeatInfo,
};
use crate::store::schema::{accounts, game_seats, games, invitations};

/// How long an invitation keeps its seat.
pub const INVITATION_DAYS: i64 = 14;

/// Hex digits of a token (32 random bytes).
const TOKEN_HEX: usize = 64;

/// The invitation list of a new game, checked; the addresses as given, trimmed.
pub(crate) fn parse_invitees(
    raw: &[String],
    players: usize,
    creator_email: &str,
) -> DomainResult<Vec<String>> {
    let max = players.saturating_sub(1);
    // Counted first, so that a list of a thousand is refused without reading it.
    if raw.len() > max {
        return Err(DomainError::invalid(
            ProblemCode::TooManyInvitees,
            format!(
                "a game of {players} players invites at most {max} people (the creator takes a seat)"
            ),
        ));
    }
    let creator = creator_email.trim().to_lowercase();
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(raw.len());
    for r in raw {
        let email = parse_email(r)?;
        let lower = email.to_lowercase();
        if lower == creator {
            return Err(DomainError::invalid(
                ProblemCode::CannotInviteYourself,
                "your own address is in the list: you have a seat already",
            ));
        }
        if !seen.insert(lower) {
            return Err(DomainError::invalid(
                ProblemCode::DuplicateInvitee,
                format!("{email} is invited twice"),
            ));
        }
        out.push(email);
    }
    Ok(out)
}

fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

fn invalid_link() -> DomainError {
    DomainError::forbidden(
        ProblemCode::InvalidLink,
        "this invitation link is not valid: it was altered, or not made by this server",
    )
}

/// The stored hash of a token of the right shape; anything else is refused unread.
fn parse_token(token: &str) -> DomainResult<Vec<u8>> {
    let t = token.trim().to_ascii_lowercase();
    if t.len() != TOKEN_HEX || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid_link());
    }
    Ok(token_hash(&t))
}

/// `410` unless `inv` can still be answered.
fn still_open(inv: &InvitationRow, now: DateTime<Utc>) -> DomainResult<()> {
    if inv.status != InvitationStatus::Pending {
        return Err(DomainError::Gone {
            code: ProblemCode::InvitationClosed,
            message: format!(
                "this invitation was {} already; an invitation link works once",
                inv.status
            ),
        });
    }
    if inv.expires_at <= now {
        return Err(DomainError::Gone {
            code: ProblemCode::InvitationExpired,
            message: format!(
                "this invitation expired on {}; its seat is free again",
                inv.expires_at.format("%Y-%m-%d %H:%M UTC")
            ),
        });
    }
    Ok(())
}

fn find_by_token(conn: &mut PgConnection, hash: &[u8], lock: bool) -> DomainResult<InvitationRow> {
    let q = invitations::table
        .filter(invitations::token_hash.eq(hash))
        .select(InvitationRow::as_select());
    let found = if lock {
        q.for_update().first(conn).optional()?
    } else {
        q.first(conn).optional()?
    };
    found.ok_or_else(invalid_link)
}

fn account_by_address(conn: &mut PgConnection, lower: &str) -> DomainResult<Option<Account>> {
    Ok(accounts::table
        .filter(accounts::email_lower.eq(lower))
        .select(Account::as_select())
        .first(conn)
        .optional()?)
}

/// The pending, unexpired invitation of `game` to the address of `account`.
pub(crate) fn pending_invitation(
    conn: &mut PgConnection,
    game: GameId,
    account: AccountId,
) -> DomainResult<Option<InvitationRow>> {
    Ok(invitations::table
        .inner_join(accounts::table.on(accounts::email_lower.eq(invitations::email_lower)))
        .filter(invitations::game_id.eq(game))
        .filter(accounts::id.eq(account))
        // A kept seat goes to the link, or to an account that proved the address: anyone
        // can sign up with an address they do not own.
        .filter(accounts::email_verified_at.is_not_null())
        .filter(invitations::status.eq(InvitationStatus::Pending))
        .filter(invitations::expires_at.gt(Utc::now()))
        .select(InvitationRow::as_select())
        .first(conn)
        .optional()?)
}

/// Seats of `game` kept for invitees who have not answered yet.
fn reserved_seats(conn: &mut PgConnection, game: GameId) -> DomainResult<i64> {
    Ok(invitations::table
        .filter(invitations::game_id.eq(game))
        .filter(invitations::status.eq(InvitationStatus::Pending))
        .filter(invitations::expires_at.gt(Utc::now()))
        .count()
        .get_result(conn)?)
}

/// The lobby's condition: a public game with a seat that nobody holds or is invited to.
pub(crate) fn in_lobby() -> diesel::expression::SqlLiteral<diesel::sql_types::Bool> {
    diesel::dsl::sql::<diesel::sql_types::Bool>(
        "NOT games.private AND games.players > \
         (SELECT count(*) FROM game_seats s WHERE s.game_id = games.id) + \
         (SELECT count(*) FROM invitations i WHERE i.game_id = games.id \
          AND i.status = 'pending' AND i.expires_at > now())",
    )
}

/// Marks `inv` accepted by `account` (whose seat was just inserted).
pub(crate) fn mark_accepted(
    conn: &mut PgConnection,
    inv: InvitationRow,
    account: AccountId,
) -> DomainResult<()> {
    diesel::update(invitations::table.find(inv.id))
        .set((
            invitations::status.eq(InvitationStatus::Accepted),
            invitations::account_id.eq(Some(account)),
            invitations::answered_at.eq(Some(Utc::now())),
        ))
        .execute(conn)?;
    Ok(())
}

/// `?name=…&password=…` or `{"name", "password"}`: the account to create while accepting,
/// when no account has the invited address and the caller is not signed in.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AcceptInvitationRequest {
    /// The new account's name (1 to 80 printable characters).
    #[schema(example = "Bo")]
    pub name: Option<String>,
    /// The new account's password, under the rules of sign-up: at least 10 characters, no
    /// control characters, and hard to guess (else `422 weak_password`, with the reason in
    /// `detail`). Not needed by someone signed in.
    #[schema(example = "correct horse battery")]
    pub password: Option<String>,
}

/// The seat taken by accepting an invitation.
#[derive(Debug, Serialize, ToSchema)]
pub struct AcceptedInvitation {
    pub game_id: GameId,
    /// The seat taken (0-based).
    pub seat: i32,
    pub account_id: AccountId,
    /// Whether the account was made by this acceptance.
    pub account_created: bool,
    /// A token for the new account (null when an existing account took the seat).
    pub access_token: Option<String>,
    /// Whether this was the last free seat, so the game has begun.
    pub game_started: bool,
}

/// What the invitation page shows.
#[derive(Debug, Serialize)]
pub struct InvitationInfo {
    pub game_id: GameId,
    pub game_name: String,
    pub players: i32,
    pub seats_taken: usize,
    pub inviter: String,
    pub email: String,
    /// The name on the account that has the invited address, if one does.
    pub account_name: Option<String>,
    /// Whether that account has confirmed the address (only then does the link alone
    /// seat it).
    pub account_confirmed: bool,
    pub expires_at: DateTime<Utc>,
}

/// One invitation of a game, as its creator sees it.
#[derive(Debug, Serialize, ToSchema)]
pub struct InvitationResponse {
    pub id: i64,
    pub email: String,
    /// `pending`, `accepted`, `declined`, `cancelled` or `expired`.
    pub status: InvitationStatus,
    /// The account that took the seat (accepted only).
    pub account_id: Option<AccountId>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub answered_at: Option<DateTime<Utc>>,
}

fn to_response(inv: InvitationRow, now: DateTime<Utc>) -> InvitationResponse {
    let status = if inv.status == InvitationStatus::Pending && inv.expires_at <= now {
        InvitationStatus::Expired
    } else {
        inv.status
    };
    InvitationResponse {
        id: inv.id,
        email: inv.email,
        status,
        account_id: inv.account_id,
        created_at: inv.created_at,
        expires_at: inv.expires_at,
        answered_at: inv.answered_at,
    }
}

impl Domain {
    /// `404 game_not_found` unless `viewer` may see the game: anyone (signed in or not) a
    /// game that is not private; a private one, its seats and invitees only.
    pub(crate) fn check_visible(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        viewer: Option<AccountId>,
    ) -> DomainResult<()> {
        if !row.private {
            return Ok(());
        }
        let Some(account) = viewer else {
            return Err(DomainError::game_not_found(row.id));
        };
        if seat_of(seats, account).is_some() || pending_invitation(conn, row.id, account)?.is_some()
        {
            return Ok(());
        }
        Err(DomainError::game_not_found(row.id))
    }

    /// The seat of `account`; `404` when the game is hidden from it, else `403 not_a_player`.
    pub(crate) fn seat_or_hidden(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        account: AccountId,
    ) -> DomainResult<i32> {
        game.player_seat(account).or_else(|not_a_player| {
            self.check_visible(conn, &game.row, &game.seats, Some(account))?;
            Err(not_a_player)
        })
    }

    /// Whether `account` may take a seat of the open game by `join`: its own invitation
    /// (returned, to be marked accepted), or a seat nobody is invited to.
    pub(crate) fn seat_for_joiner(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        seats: &[SeatInfo],
        account: AccountId,
    ) -> DomainResult<Option<InvitationRow>> {
        if let Some(inv) = pending_invitation(conn, row.id, account)? {
            return Ok(Some(inv));
        }
        if seats.len() as i64 + reserved_seats(conn, row.id)? >= i64::from(row.players) {
            return Err(DomainError::conflict(
                ProblemCode::SeatsReserved,
                "every free seat of this game is kept for someone invited to it",
            ));
        }
        Ok(None)
    }

    /// Writes the invitations of a new game and queues their emails. Runs in the
    /// transaction that creates the game.
    pub(crate) fn invite(
        &self,
        conn: &mut PgConnection,
        row: &GameRow,
        inviter: &Account,
        emails: &[String],
    ) -> DomainResult<()> {
        if emails.is_empty() {
            return Ok(());
        }
        let now = Utc::now();
        let lowered: Vec<String> = emails.iter().map(|e| e.to_lowercase()).collect();
        super::invitation_limits::check(
            conn,
            inviter,
            &lowered,
            self.require_email_verification,
            now,
        )?;
        let game_name = self
            .registry
            .get(&row.game_type)
            .map_or_else(|| row.game_type.clone(), |g| g.info().name.to_string());
        let expires_at = Utc::now() + Duration::days(INVITATION_DAYS);
        let base = self.public_url.trim_end_matches('/');
        let mut mails = Vec::with_capacity(emails.len());
        for email in emails {
            let token = hex::encode(rand::random::<[u8; 32]>());
            let id: i64 = diesel::insert_into(invitations::table)
                .values(NewInvitation {
                    game_id: row.id,
                    email,
                    email_lower: &email.to_lowercase(),
                    token_hash: &token_hash(&token),
                    invited_by: inviter.id,
                    expires_at,
                })
                .returning(invitations::id)
                .get_result(conn)?;
            super::invitation_limits::record(conn, inviter.id, &email.to_lowercase(), id)?;
            let url = format!("{base}/api/v1/invitations/{token}");
            // The inviter's name is their own free text: it goes in the body, never in
            // the subject, where it could advertise anything to a stranger.
            let subject = format!("[Turnpost] An invitation to play {game_name}");
            let letter = Letter {
                subject: subject.clone(),
                kicker: format!("{game_name} #{}", row.id),
                heading: format!("{} invites you to play {game_name}", inviter.name),
                paragraphs: vec![
                    "Hello,".into(),
                    format!(
                        "{} has opened a game of {game_name} for {} players on Turnpost, where \
                         board games are played slowly, a move now and then, by email or in \
                         the browser. A seat is kept for you.",
                        inviter.name, row.players
                    ),
                    "Open this link to accept or decline (you can make an account there if \
                     you have none):"
                        .into(),
                    url.clone(),
                    format!(
                        "The link works once, until {}.",
                        expires_at.format("%Y-%m-%d")
                    ),
                ],
                link: Some((url, "Accept or decline".into())),
                footer: vec![format!(
                    "You get this email because {} typed your address. Nothing more is sent \
                     to you unless you accept.",
                    inviter.name
                )],
                ..Letter::default()
            };
            mails.push(NewOutbox {
                dedupe_key: format!("invite:{id}"),
                game_id: Some(row.id),
                to_address: email.clone(),
                subject,
                body_text: letter.text(),
                body_html: letter.html(),
                kind: Some(OutboxKind::Invite),
                ..NewOutbox::default()
            });
        }
        enqueue(conn, mails)?;
        Ok(())
    }

    /// What the page of an invitation link shows.
    pub fn invitation_info(&self, token: &str) -> DomainResult<InvitationInfo> {
        let hash = parse_token(token)?;
        let mut conn = self.conn()?;
        let inv = find_by_token(&mut conn, &hash, false)?;
        still_open(&inv, Utc::now())?;
        let LockedGame { row, seats } = LockedGame::read(&mut conn, inv.game_id)?;
        let inviter: String = accounts::table
            .find(inv.invited_by)
            .select(accounts::name)
            .first(&mut conn)?;
        let account = account_by_address(&mut conn, &inv.email_lower)?;
        let account_confirmed = account
            .as_ref()
            .is_some_and(|a| a.email_verified_at.is_some());
        let account_name = account.map(|a| a.name);
        let game_name = self
            .registry
            .get(&row.game_type)
            .map_or_else(|| row.game_type.clone(), |g| g.info().name.to_string());
        Ok(InvitationInfo {
            game_id: row.id,
            game_name,
            players: row.players,
            seats_taken: seats.len(),
            inviter,
            email: inv.email,
            account_name,
            account_confirmed,
            expires_at: inv.expires_at,
        })
    }

    /// Accepts an invitation: the seat goes to the signed-in `caller`, else to the account
    /// with the invited address, else to a new account made from `req` (its address
    /// confirmed by the link). The game starts when this was its last free seat.
    pub fn accept_invitation(
        &self,
        token: &str,
        caller: Option<AccountId>,
        req: AcceptInvitationRequest,
    ) -> DomainResult<AcceptedInvitation> {
        let hash = parse_token(token)?;
        // Who takes the seat is settled first: hashing a new password takes a while, and
        // must not happen under the game's lock.
        let (inv, existing) = {
            let mut conn = self.conn()?;
            let inv = find_by_token(&mut conn, &hash, false)?;
            still_open(&inv, Utc::now())?;
            let existing = match caller {
                Some(a) => Some(a),
                None => match account_by_address(&mut conn, &inv.email_lower)? {
                    // Whoever made that account may not own the address: the link does not
                    // hand them the seat. Its owner signs in and accepts.
                    Some(a) if a.email_verified_at.is_none() => {
                        return Err(DomainError::conflict(
                            ProblemCode::SignInRequired,
                            format!(
                                "an account with the address {} has not confirmed it yet: sign in to an account and accept again",
                                inv.email
                            ),
                        ));
                    }
                    found => found.map(|a| a.id),
                },
            };
            (inv, existing)
        };
        let new_account = match existing {
            Some(_) => None,
            None => {
                let (Some(name), Some(password)) = (req.name, req.password) else {
                    return Err(DomainError::invalid(
                        ProblemCode::AccountDetailsRequired,
                        format!(
                            "no account has the address {}: send a name and a password to make one",
                            inv.email
                        ),
                    ));
                };
                let name = parse_name(&name)?;
                check_password(&password, &[&inv.email, &name])?;
                Some((name, self.hashes.hash(&password)?))
            }
        };
        let mut conn = self.conn()?;
        let (accepted, account) = conn.transaction::<_, DomainError, _>(|conn| {
            // The game's lock first, as a join takes it (then the invitations): taken the
            // other way round, an acceptance and a join of the same game could deadlock.
            let LockedGame { row, seats } = LockedGame::lock(conn, inv.game_id)?;
            let inv = find_by_token(conn, &hash, true)?;
            still_open(&inv, Utc::now())?;
            if row.status != GameStatus::Open {
                return Err(DomainError::conflict(
                    ProblemCode::GameNotOpen,
                    "this game has already started",
                ));
            }
            let (account, created) = match (existing, &new_account) {
                (Some(a), _) => (a, None),
                (None, Some((name, password_hash))) => {
                    let a: Account = diesel::insert_into(accounts::table)
                        .values(NewAccount {
                            email: &inv.email,
                            email_lower: &inv.email_lower,
                            name,
                            password_hash,
                        })
                        .on_conflict(accounts::email_lower)
                        .do_nothing()
                        .returning(Account::as_returning())
                        .get_result(conn)
                        .optional()?
                        .ok_or_else(|| {
                            DomainError::conflict(
                                ProblemCode::EmailTaken,
                                "an account with this address was made a moment ago: sign in and accept again",
                            )
                        })?;
                    // Following the link sent to the address proves it.
                    diesel::update(accounts::table.find(a.id))
                        .set(accounts::email_verified_at.eq(Some(Utc::now())))
                        .execute(conn)?;
                    (a.id, Some(a))
                }
                (None, None) => return Err(DomainError::Internal(anyhow::anyhow!("no account"))),
            };
            if seat_of(&seats, account).is_some() {
                return Err(DomainError::conflict(
                    ProblemCode::AlreadyJoined,
                    "this account has a seat in this game already",
                ));
            }
            let seat = seats.len() as i32;
            if seat >= row.players {
                return Err(DomainError::conflict(
                    ProblemCode::GameNotOpen,
                    "every seat of this game is taken",
                ));
            }
            diesel::insert_into(game_seats::table)
                .values((
                    game_seats::game_id.eq(row.id),
                    game_seats::seat.eq(seat),
                    game_seats::account_id.eq(account),
                ))
                .execute(conn)?;
            mark_accepted(conn, inv, account)?;
            let game_started = seat + 1 == row.players;
            if game_started {
                self.start(conn, &row)?;
            } else {
                // Watchers of an open game hear of the new seat like of any change.
                diesel::update(games::table.find(row.id))
                    .set(games::updated_at.eq(diesel::dsl::now))
                    .execute(conn)?;
            }
            Ok((
                AcceptedInvitation {
                    game_id: row.id,
                    seat,
                    account_id: account,
                    account_created: created.is_some(),
                    access_token: None,
                    game_started,
                },
                created,
            ))
        })?;
        let access_token = match account {
            Some(a) => Some(
                self.tokens
                    .issue(a.id, a.token_generation, Utc::now().timestamp())?,
            ),
            None => None,
        };
        Ok(AcceptedInvitation {
            access_token,
            ..accepted
        })
    }

    /// Declines an invitation: its seat is free for anyone again. Returns the game.
    pub fn decline_invitation(&self, token: &str) -> DomainResult<GameId> {
        let hash = parse_token(token)?;
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let inv = find_by_token(conn, &hash, true)?;
            still_open(&inv, Utc::now())?;
            diesel::update(invitations::table.find(inv.id))
                .set((
                    invitations::status.eq(InvitationStatus::Declined),
                    invitations::answered_at.eq(Some(Utc::now())),
                ))
                .execute(conn)?;
            Ok(inv.game_id)
        })
    }

    /// The game's creator, or `403 not_game_creator` (`404` for those who may not see it).
    fn creator_of(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        account: AccountId,
    ) -> DomainResult<()> {
        self.check_visible(conn, &game.row, &game.seats, Some(account))?;
        if game.row.created_by != account {
            return Err(DomainError::forbidden(
                ProblemCode::NotGameCreator,
                "only the player who opened this game sees its invitations",
            ));
        }
        Ok(())
    }

    /// Every invitation of the game, for its creator, oldest first.
    pub fn game_invitations(
        &self,
        account: AccountId,
        id: GameId,
    ) -> DomainResult<Vec<InvitationResponse>> {
        let mut conn = self.conn()?;
        let game = LockedGame::read(&mut conn, id)?;
        self.creator_of(&mut conn, &game, account)?;
        let rows: Vec<InvitationRow> = invitations::table
            .filter(invitations::game_id.eq(id))
            .order(invitations::id.asc())
            .select(InvitationRow::as_select())
            .load(&mut conn)?;
        let now = Utc::now();
        Ok(rows.into_iter().map(|r| to_response(r, now)).collect())
    }

    /// The creator withdraws a pending invitation: its link stops working and the seat is
    /// free for anyone.
    pub fn cancel_invitation(
        &self,
        account: AccountId,
        id: GameId,
        invitation: i64,
    ) -> DomainResult<()> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let game = LockedGame::lock(conn, id)?;
            self.creator_of(conn, &game, account)?;
            let inv: InvitationRow = invitations::table
                .filter(invitations::id.eq(invitation))
                .filter(invitations::game_id.eq(id))
                .select(InvitationRow::as_select())
                .for_update()
                .first(conn)
                .optional()?
                .ok_or_else(|| DomainError::NotFound {
                    code: ProblemCode::InvitationNotFound,
                    what: format!("invitation {invitation} of game {id}"),
                })?;
            still_open(&inv, Utc::now())?;
            diesel::update(invitations::table.find(inv.id))
                .set((
                    invitations::status.eq(InvitationStatus::Cancelled),
                    invitations::answered_at.eq(Some(Utc::now())),
                ))
                .execute(conn)?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn invitee_lists_are_checked_before_anything_is_written() {
        let code = |r: DomainResult<Vec<String>>| r.err().map(|e| e.code());
        assert_eq!(
            parse_invitees(&list(&[" Bo@Example.org "]), 2, "ada@example.org").ok(),
            Some(list(&["Bo@Example.org"]))
        );
        assert_eq!(
            code(parse_invitees(&list(&["a@x.org", "b@x.org"]), 2, "c@x.org")),
            Some(ProblemCode::TooManyInvitees)
        );
        assert_eq!(
            code(parse_invitees(&vec!["a@x.org".into(); 1000], 4, "c@x.org")),
            Some(ProblemCode::TooManyInvitees)
        );
        assert_eq!(
            code(parse_invitees(&list(&["a@x.org", "A@X.org"]), 3, "c@x.org")),
            Some(ProblemCode::DuplicateInvitee)
        );
        assert_eq!(
            code(parse_invitees(&list(&["C@x.org"]), 3, "c@x.org")),
            Some(ProblemCode::CannotInviteYourself)
        );
        for bad in ["", "nobody", "a@b", "a\0@x.org", "a b@x.org"] {
            assert_eq!(
                code(parse_invitees(&list(&[bad]), 3, "c@x.org")),
                Some(ProblemCode::InvalidEmail),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn only_tokens_of_the_right_shape_reach_the_database() {
        assert!(parse_token(&"ab".repeat(32)).is_ok());
        assert_eq!(
            parse_token(&"AB".repeat(32)).ok(),
            parse_token(&"ab".repeat(32)).ok()
        );
        for bad in ["", "abc", &"zz".repeat(32), &"ab".repeat(33), "ab\0"] {
            assert_eq!(
                parse_token(bad).err().map(|e| e.code()),
                Some(ProblemCode::InvalidLink)
            );
        }
    }
}
