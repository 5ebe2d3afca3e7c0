//! Sign-up that does not tell whether an address has an account (answering
//! `409 email_taken` would let anyone learn who plays here).
//!
//! Where the server requires confirmed addresses (the default), `POST /accounts` makes no
//! account. It answers `202` with the same body whatever the address, and mails the
//! address: a new one gets a link (`/api/v1/sign-ups/{token}`; 256 random bits, only their
//! SHA-256 stored) that makes the account, its address confirmed, when it is followed; an
//! address with an account gets a notice that someone tried to sign up with it. Only who
//! reads the mailbox learns which. The password is hashed either way, so the answer takes
//! as long. Neither mail carries anything the requester wrote (not even the name), so
//! sign-up cannot carry a stranger's message to an address.
//!
//! Where the server does not require confirmed addresses, an account works at once: whoever
//! signs up learns that the address was free by signing in, so no answer could hide it.
//! There sign-up answers `201` with the account, or `409 email_taken`; the owner still gets
//! the notice.
//!
//! Mail to an address is limited, so sign-up cannot flood it: at most [`LINKS_PER_DAY`]
//! links (a later sign-up past them changes nothing, and the last link stands) and one
//! notice a day.

use crate::domain::ProblemCode;
use crate::store::kinds::OutboxKind;
use chrono::{Duration, Utc};
use diesel::prelude::*;
use sha2::{Digest, Sha256};

use super::shapes::{SignUpAccepted, SignUpStatus};
use super::{Domain, DomainError, DomainResult};
use crate::notify::letter::Letter;
use crate::store::models::{Account, NewAccount, NewOutbox};
use crate::store::schema::{accounts, outbox, sign_ups};

/// How long a sign-up link works.
pub const LINK_DAYS: i64 = 2;

/// Sign-up links one address gets in a UTC day.
pub const LINKS_PER_DAY: usize = 3;

/// Hex digits of a link's token (32 random bytes).
const TOKEN_HEX: usize = 64;

/// The outbox kinds of the two emails (neither carries an unsubscribe link: they are
/// about the account, not game email).
pub const LINK_KIND: OutboxKind = OutboxKind::SignUp;
pub const NOTICE_KIND: OutboxKind = OutboxKind::SignUpTaken;

/// An account made by its sign-up link, signed in.
pub struct SignedUp {
    pub account: Account,
    /// A session for the account, so that the person lands in the web client signed in.
    pub access_token: String,
}

/// A sign-up waiting for its link, as its page shows it.
pub struct PendingSignUp {
    pub email: String,
    pub name: String,
}

/// What `POST /accounts` answers: the account (where addresses need no confirmation), or
/// the same acknowledgement for every address.
pub enum SignUp {
    Created(super::shapes::AccountResponse),
    CheckYourEmail(SignUpAccepted),
}

/// What a sign-up stores until its link is followed.
pub(crate) struct Requested<'a> {
    pub email: &'a str,
    pub lower: &'a str,
    pub name: &'a str,
    pub password_hash: &'a str,
}

fn invalid_link() -> DomainError {
    DomainError::forbidden(
        ProblemCode::InvalidLink,
        format!(
            "this sign-up link is not valid: it was used already, it is older than \
             {LINK_DAYS} days, or it was altered"
        ),
    )
}

fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// The stored hash of a token of the right shape; anything else is refused unread.
fn parse_token(token: &str) -> DomainResult<Vec<u8>> {
    let t = token.trim().to_ascii_lowercase();
    if t.len() != TOKEN_HEX || !t.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(invalid_link());
    }
    Ok(token_hash(&t))
}

/// The same answer for every address.
pub(crate) fn accepted(email: &str) -> SignUpAccepted {
    SignUpAccepted {
        status: SignUpStatus::CheckYourEmail,
        email: email.to_string(),
        detail: format!(
            "We sent an email to {email}: follow its link within {LINK_DAYS} days to finish \
             creating your account, then sign in."
        ),
    }
}

/// Queues `mail` under the first free key of `keys`; false when every key was taken (the
/// address had its share of such mail).
fn enqueue_once(conn: &mut PgConnection, keys: &[String], mail: NewOutbox) -> QueryResult<bool> {
    for key in keys {
        let inserted = diesel::insert_into(outbox::table)
            .values(NewOutbox {
                dedupe_key: key.clone(),
                ..mail.clone()
            })
            .on_conflict(outbox::dedupe_key)
            .do_nothing()
            .execute(conn)?;
        if inserted > 0 {
            return Ok(true);
        }
    }
    Ok(false)
}

impl Domain {
    fn sign_in_url(&self) -> String {
        format!("{}/#/signin", self.public_url.trim_end_matches('/'))
    }

    /// Tells the owner of `account` that someone tried to sign up with its address (at
    /// most once a day).
    pub(crate) fn notify_sign_up_taken(
        &self,
        conn: &mut PgConnection,
        account: &Account,
    ) -> DomainResult<()> {
        let sign_in = self.sign_in_url();
        let subject = "[Turnpost] Someone tried to sign up with your address".to_string();
        let letter = Letter {
            subject: subject.clone(),
            heading: "Someone tried to sign up with your address".into(),
            paragraphs: vec![
                format!("Hello {},", account.name),
                "Someone asked to create a new Turnpost account with this address, which has \
                 one already: yours. No account was made, and nothing about yours changed."
                    .into(),
                "If it was you, you need no new account: sign in with your password here:".into(),
                sign_in.clone(),
                "If it was not you, you may ignore this email: nobody can use your account \
                 without your password. This notice comes at most once a day."
                    .into(),
            ],
            link: Some((sign_in, "Sign in".into())),
            ..Letter::default()
        };
        let day = Utc::now().date_naive();
        enqueue_once(
            conn,
            &[format!("{NOTICE_KIND}:{}:{day}", account.id)],
            NewOutbox {
                account_id: Some(account.id),
                to_address: account.email.clone(),
                subject,
                body_text: letter.text(),
                body_html: letter.html(),
                kind: Some(NOTICE_KIND),
                ..NewOutbox::default()
            },
        )?;
        Ok(())
    }

    /// Stores `req` and mails its address a link that makes the account; past the
    /// address's links for the day, changes nothing.
    pub(crate) fn mail_sign_up_link(
        &self,
        conn: &mut PgConnection,
        req: &Requested,
    ) -> DomainResult<()> {
        let token = hex::encode(rand::random::<[u8; 32]>());
        let url = format!(
            "{}/api/v1/sign-ups/{token}",
            self.public_url.trim_end_matches('/')
        );
        let subject = "[Turnpost] Finish creating your account".to_string();
        let letter = Letter {
            subject: subject.clone(),
            heading: "Finish creating your account".into(),
            paragraphs: vec![
                "Hello,".into(),
                "Someone (we hope it was you) asked to create a Turnpost account with this \
                 address. To finish, open this link and confirm:"
                    .into(),
                url.clone(),
                format!(
                    "The link works for {LINK_DAYS} days. If you did not sign up, ignore this \
                     email: no account is made, and nothing more will be sent to you."
                ),
            ],
            link: Some((url, "Finish creating my account".into())),
            ..Letter::default()
        };
        let day = Utc::now().date_naive();
        let keys: Vec<String> = (0..LINKS_PER_DAY)
            .map(|n| format!("{LINK_KIND}:{}:{day}:{n}", req.lower))
            .collect();
        let mail = NewOutbox {
            to_address: req.email.to_string(),
            subject,
            body_text: letter.text(),
            body_html: letter.html(),
            kind: Some(LINK_KIND),
            ..NewOutbox::default()
        };
        if !enqueue_once(conn, &keys, mail)? {
            return Ok(());
        }
        let row = (
            sign_ups::email_lower.eq(req.lower),
            sign_ups::email.eq(req.email),
            sign_ups::name.eq(req.name),
            sign_ups::password_hash.eq(req.password_hash),
            sign_ups::token_hash.eq(token_hash(&token)),
            sign_ups::created_at.eq(Utc::now()),
        );
        diesel::insert_into(sign_ups::table)
            .values(row.clone())
            .on_conflict(sign_ups::email_lower)
            .do_update()
            .set(row)
            .execute(conn)?;
        Ok(())
    }

    /// A sign-up's answer where addresses must be confirmed: the notice to the owner, or
    /// the link to a new address; the same answer either way.
    pub(crate) fn sign_up_by_mail(&self, req: &Requested) -> DomainResult<SignUp> {
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            // The links that can no longer be used.
            diesel::delete(
                sign_ups::table
                    .filter(sign_ups::created_at.lt(Utc::now() - Duration::days(LINK_DAYS))),
            )
            .execute(conn)?;
            let owner: Option<Account> = accounts::table
                .filter(accounts::email_lower.eq(req.lower))
                .select(Account::as_select())
                .first(conn)
                .optional()?;
            match owner {
                Some(a) => self.notify_sign_up_taken(conn, &a),
                None => self.mail_sign_up_link(conn, req),
            }
        })?;
        Ok(SignUp::CheckYourEmail(accepted(req.email)))
    }

    /// The sign-up a link is for, while the link works.
    pub fn pending_sign_up(&self, token: &str) -> DomainResult<PendingSignUp> {
        let hash = parse_token(token)?;
        let mut conn = self.conn()?;
        let (email, name): (String, String) = sign_ups::table
            .filter(sign_ups::token_hash.eq(hash))
            .filter(sign_ups::created_at.gt(Utc::now() - Duration::days(LINK_DAYS)))
            .select((sign_ups::email, sign_ups::name))
            .first(&mut conn)
            .optional()?
            .ok_or_else(invalid_link)?;
        Ok(PendingSignUp { email, name })
    }

    /// Follows a sign-up link: makes the account, its address confirmed (the link was
    /// read in its mailbox), and signs it in: whoever follows the link reads the address's
    /// mail and chose the password. A link works once.
    pub fn complete_sign_up(&self, token: &str) -> DomainResult<SignedUp> {
        let account = self.make_signed_up_account(token)?;
        let access_token =
            self.tokens
                .issue(account.id, account.token_generation, Utc::now().timestamp())?;
        Ok(SignedUp {
            account,
            access_token,
        })
    }

    fn make_signed_up_account(&self, token: &str) -> DomainResult<Account> {
        let hash = parse_token(token)?;
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let (email, lower, name, password_hash): (String, String, String, String) =
                sign_ups::table
                    .filter(sign_ups::token_hash.eq(&hash))
                    .filter(sign_ups::created_at.gt(Utc::now() - Duration::days(LINK_DAYS)))
                    .select((
                        sign_ups::email,
                        sign_ups::email_lower,
                        sign_ups::name,
                        sign_ups::password_hash,
                    ))
                    .for_update()
                    .first(conn)
                    .optional()?
                    .ok_or_else(invalid_link)?;
            diesel::delete(sign_ups::table.find(&lower)).execute(conn)?;
            let made: Option<Account> = diesel::insert_into(accounts::table)
                .values(NewAccount {
                    email: &email,
                    email_lower: &lower,
                    name: &name,
                    password_hash: &password_hash,
                })
                .on_conflict(accounts::email_lower)
                .do_nothing()
                .returning(Account::as_returning())
                .get_result(conn)
                .optional()?;
            // Made meanwhile (by an invitation's link): whoever follows this link reads
            // the address's mail, so telling them is telling the owner.
            let made = made.ok_or_else(|| {
                DomainError::conflict(
                    ProblemCode::EmailTaken,
                    "an account with this address exists already: sign in",
                )
            })?;
            diesel::update(accounts::table.find(made.id))
                .set(accounts::email_verified_at.eq(Some(Utc::now())))
                .returning(Account::as_returning())
                .get_result(conn)
                .map_err(DomainError::from)
        })
    }
}
