//! Accounts: sign-up, login, profile.

use crate::domain::ProblemCode;
use crate::store::kinds::AccountId;
use std::net::IpAddr;
use std::time::Instant;

use diesel::prelude::*;

use super::shapes::{
    AccountResponse, EmailMode, EmailSetting, NewAccountRequest, TokenResponse, TokenType,
    UpdateAccountRequest,
};
use super::sign_ups::{Requested, SignUp};
use super::{Domain, DomainError, DomainResult};
use crate::auth::jwt::TokenSubject;
use crate::auth::throttle::Attempt;
use crate::store::models::{Account, NewAccount};
use crate::store::schema::accounts;

pub const MIN_PASSWORD: usize = 10;
const MAX_PASSWORD: usize = 1024;
const MAX_NAME: usize = 80;

/// An email address we are willing to send to: one `@`, a dotted domain, no spaces or
/// control characters, at most 254 characters (RFC 5321). Parsed by lettre, then checked
/// for a dotted domain, which lettre allows but no player has.
pub fn parse_email(raw: &str) -> DomainResult<String> {
    let email = raw.trim();
    let bad = || {
        DomainError::invalid(
            ProblemCode::InvalidEmail,
            format!("{raw:?} is not a valid email address"),
        )
    };
    if email.len() > 254 || email.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad());
    }
    let parsed: lettre::Address = email.parse().map_err(|_| bad())?;
    let domain = parsed.domain();
    if !domain.contains('.') || domain.starts_with('.') || domain.ends_with('.') {
        return Err(bad());
    }
    // `.invalid` can never receive mail (RFC 2606), and the computer players' accounts
    // live there: a person taking one of their addresses would shut the computer out.
    if domain.to_ascii_lowercase().ends_with(".invalid") {
        return Err(bad());
    }
    Ok(email.to_string())
}

pub(crate) fn parse_name(raw: &str) -> DomainResult<String> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME || name.chars().any(char::is_control) {
        return Err(DomainError::invalid(
            ProblemCode::InvalidName,
            format!("name must be 1 to {MAX_NAME} printable characters"),
        ));
    }
    Ok(name.to_string())
}

/// A new password: 10 characters to 1024 bytes, printable, and hard to guess. `personal`
/// are the words a guesser tries first for this account (its address, its name).
///
/// Strength is zxcvbn's estimate: at least [`MIN_SCORE`] (more than 10^8 guesses), which
/// refuses the common passwords, repeats, sequences, keyboard rows and dates, and
/// anything built on `personal`, while a few ordinary words pass. Login throttling makes
/// online guessing slow; this makes sure there is something to guess.
pub(crate) fn check_password(pw: &str, personal: &[&str]) -> DomainResult<()> {
    let n = pw.chars().count();
    if n < MIN_PASSWORD {
        return Err(DomainError::invalid(
            ProblemCode::PasswordTooShort,
            format!("password must have at least {MIN_PASSWORD} characters"),
        ));
    }
    if pw.len() > MAX_PASSWORD {
        return Err(DomainError::invalid(
            ProblemCode::PasswordTooLong,
            format!("password must have at most {MAX_PASSWORD} bytes"),
        ));
    }
    // Control characters (a NUL, a newline) cannot be typed into a login form, so a
    // password made of them is a client's bug or an attack on the hasher, not a secret.
    if pw.chars().any(char::is_control) {
        return Err(DomainError::invalid(
            ProblemCode::InvalidPassword,
            "password must be printable characters (no control characters such as NUL or a newline)",
        ));
    }
    check_strength(pw, personal)
}

/// zxcvbn's scores go from 0 to 4; 3 means more than 10^8 guesses.
const MIN_SCORE: zxcvbn::Score = zxcvbn::Score::Three;

fn weak(why: impl Into<String>) -> DomainError {
    DomainError::invalid(ProblemCode::WeakPassword, why)
}

fn check_strength(pw: &str, personal: &[&str]) -> DomainResult<()> {
    let folded = pw.trim().to_lowercase();
    if personal
        .iter()
        .any(|p| !p.trim().is_empty() && p.trim().to_lowercase() == folded)
    {
        return Err(weak(
            "password must not be your email address or your name: choose a few words nobody would connect with you",
        ));
    }
    // Each part of the address counts on its own too (`ada` of `ada@example.org`).
    let mut words: Vec<&str> = Vec::new();
    for p in personal {
        words.push(p);
        words.extend(
            p.split(['@', '.', ' ', '-', '_', '+'])
                .filter(|w| w.len() > 2),
        );
    }
    let estimate = zxcvbn::zxcvbn(pw, &words);
    if estimate.score() >= MIN_SCORE {
        return Ok(());
    }
    let advice = estimate.feedback().map(|f| {
        f.warning()
            .map(|w| w.to_string())
            .into_iter()
            .chain(f.suggestions().iter().map(|s| s.to_string()))
            .collect::<Vec<_>>()
            .join(" ")
    });
    Err(weak(format!(
        "password is too easy to guess{}",
        advice.filter(|a| !a.is_empty()).map_or_else(
            || ": add another word or two".to_string(),
            |a| format!(": {a}")
        )
    )))
}

/// A login attempt holding its place in the throttle (see [`Domain::begin_login`]).
pub struct LoginTicket {
    key: String,
    attempt: Attempt,
}

impl LoginTicket {
    /// When the password may be checked: later than now in a slow lane.
    pub fn not_before(&self) -> Instant {
        self.attempt.not_before()
    }
}

fn wrong_login() -> DomainError {
    DomainError::Unauthorized {
        code: ProblemCode::InvalidCredentials,
        message: "email or password is wrong".into(),
    }
}

#[derive(QueryableByName)]
struct Known {
    #[diesel(sql_type = diesel::sql_types::Bool)]
    known: bool,
}

pub fn to_response(a: &Account) -> AccountResponse {
    AccountResponse {
        id: a.id,
        email: a.email.clone(),
        name: a.name.clone(),
        email_notifications: a.email_notifications,
        email_mode: match (a.email_notifications, a.daily_digest) {
            (false, _) => EmailMode::Off,
            (true, true) => EmailMode::DailyDigest,
            (true, false) => EmailMode::EachTurn,
        },
        digest_hour: a.digest_hour,
        reminders: a.reminders,
        time_zone: a.time_zone.clone(),
        quiet_from: a.quiet_from,
        quiet_until: a.quiet_until,
        email_status: super::mail_links::email_status(a),
        created_at: a.created_at,
    }
}

impl Domain {
    /// Sign-up (see `domain::sign_ups` for why its answer does not depend on the address
    /// where the server requires confirmed addresses).
    pub fn create_account(&self, req: NewAccountRequest) -> DomainResult<SignUp> {
        let email = parse_email(&req.email)?;
        let name = parse_name(&req.name)?;
        check_password(&req.password, &[&email, &name])?;
        // Hashed whatever the address, so that the time taken tells nothing either.
        let hash = self.hashes.hash(&req.password)?;
        let lower = email.to_lowercase();
        let requested = Requested {
            email: &email,
            lower: &lower,
            name: &name,
            password_hash: &hash,
        };
        if self.require_email_verification {
            return self.sign_up_by_mail(&requested);
        }
        self.sign_up_at_once(&requested)
            .map(|a| SignUp::Created(to_response(&a)))
    }

    /// Makes the account at once (where addresses need no confirmation); for a taken
    /// address, tells its owner and answers `email_taken`.
    fn sign_up_at_once(&self, req: &Requested) -> DomainResult<Account> {
        let mut conn = self.conn()?;
        let inserted = diesel::insert_into(accounts::table)
            .values(NewAccount {
                email: req.email,
                email_lower: req.lower,
                name: req.name,
                password_hash: req.password_hash,
            })
            .on_conflict(accounts::email_lower)
            .do_nothing()
            .returning(Account::as_returning())
            .get_result(&mut conn)
            .optional()?;
        if let Some(a) = inserted {
            return Ok(a);
        }
        let owner: Option<Account> = accounts::table
            .filter(accounts::email_lower.eq(req.lower))
            .select(Account::as_select())
            .first(&mut conn)
            .optional()?;
        if let Some(owner) = owner {
            self.notify_sign_up_taken(&mut conn, &owner)?;
        }
        Err(DomainError::conflict(
            ProblemCode::EmailTaken,
            "an account with this email already exists",
        ))
    }

    /// Reserves a login attempt for `email` from `client` (see `api::client_addr`), throttled
    /// per (account, address), and paced per address and per account (see
    /// `auth::throttle`). The caller waits until `LoginTicket::not_before`, then checks the
    /// password with [`Domain::issue_token`].
    pub fn begin_login(&self, email: &str, client: IpAddr) -> DomainResult<LoginTicket> {
        let key = email.trim().to_lowercase();
        // No account has such an address (the database cannot even store a NUL): a wrong
        // login, answered without touching the database.
        if key.is_empty() || key.len() > 254 || key.chars().any(char::is_control) {
            return Err(wrong_login());
        }
        let attempt = self
            .throttle
            .begin(&key, client, Instant::now())
            .map_err(|wait| DomainError::TooManyRequests {
                retry_after_secs: wait,
            })?;
        Ok(LoginTicket { key, attempt })
    }

    /// A token for the right password.
    pub fn issue_token(&self, ticket: LoginTicket, password: &str) -> DomainResult<TokenResponse> {
        let LoginTicket { key, attempt } = ticket;
        let result = self.check_login(&key, password);
        // A busy hasher or a database error is nobody's failed guess: dropping the attempt
        // gives its place back without counting.
        match &result {
            Ok(found) => attempt.finish(found.is_some(), Instant::now()),
            Err(_) => drop(attempt),
        }
        let account = result?.ok_or_else(wrong_login)?;
        let token = self.tokens.issue(
            account.id,
            account.token_generation,
            chrono::Utc::now().timestamp(),
        )?;
        Ok(TokenResponse {
            access_token: token,
            token_type: TokenType::Bearer,
            expires_in: self.tokens.ttl_secs(),
        })
    }

    /// The account when the password is right.
    fn check_login(&self, key: &str, password: &str) -> DomainResult<Option<Account>> {
        let mut conn = self.conn()?;
        let account: Option<Account> = accounts::table
            .filter(accounts::email_lower.eq(key))
            .select(Account::as_select())
            .first(&mut conn)
            .optional()?;
        drop(conn);
        // Verify even for an unknown email, so timing does not reveal which emails exist.
        let ok = self
            .hashes
            .verify(password, account.as_ref().map(|a| a.password_hash.as_str()))?;
        Ok(account.filter(|_| ok))
    }

    /// The account id behind a verified token, if the account still exists and the token
    /// is of its current generation (a password change revokes older tokens).
    ///
    /// A generation read here is trusted for [`sessions::FRESH_FOR`]: a player's every
    /// request would otherwise cost a query. A password change on this node takes effect
    /// at once; on another node, within that time.
    pub fn authenticate(&self, subject: TokenSubject) -> DomainResult<AccountId> {
        if let Some(id) = self.checked_recently(&subject) {
            return Ok(id);
        }
        let mut conn = self.conn()?;
        let generation: Option<i32> = accounts::table
            .find(subject.account_id)
            .select(accounts::token_generation)
            .first(&mut conn)
            .optional()?;
        if let Some(g) = generation {
            self.sessions.remember(subject.account_id, g);
        }
        match generation {
            Some(g) if g == subject.generation => Ok(subject.account_id),
            Some(_) => Err(DomainError::Unauthorized {
                code: ProblemCode::TokenRevoked,
                message: "the password was changed since this token was issued; sign in again"
                    .into(),
            }),
            None => Err(DomainError::Unauthorized {
                code: ProblemCode::UnknownAccount,
                message: "the token's account no longer exists".into(),
            }),
        }
    }

    /// The token's account, when its generation was read from the database a moment ago
    /// and matched (no query, so callers may skip the blocking thread too).
    pub fn checked_recently(&self, subject: &TokenSubject) -> Option<AccountId> {
        (self.sessions.current(subject.account_id) == Some(subject.generation))
            .then_some(subject.account_id)
    }

    pub fn account(&self, id: AccountId) -> DomainResult<Account> {
        let mut conn = self.conn()?;
        accounts::table
            .find(id)
            .select(Account::as_select())
            .first(&mut conn)
            .optional()?
            .ok_or_else(|| DomainError::Unauthorized {
                code: ProblemCode::UnknownAccount,
                message: "the token's account no longer exists".into(),
            })
    }

    pub fn update_account(
        &self,
        id: AccountId,
        req: UpdateAccountRequest,
    ) -> DomainResult<AccountResponse> {
        let current = self.account(id)?;
        let name = req.name.as_deref().map(parse_name).transpose()?;
        let hash = match &req.password {
            Some(pw) => {
                let new_name = name.as_deref().unwrap_or(&current.name);
                check_password(pw, &[&current.email, &current.name, new_name])?;
                let given = req.current_password.as_deref().unwrap_or("");
                if !self.hashes.verify(given, Some(&current.password_hash))? {
                    return Err(DomainError::forbidden(
                        ProblemCode::CurrentPasswordWrong,
                        "changing the password needs the current password in current_password",
                    ));
                }
                Some(self.hashes.hash(pw)?)
            }
            None => None,
        };
        let mut conn = self.conn()?;
        let time_zone = match req.time_zone.as_deref() {
            None => current.time_zone.clone(),
            Some(tz) => {
                // Only the names openapi.yaml lists (its `TimeZone` enum), so that the
                // contract says exactly what is accepted; anything else (a NUL, which the
                // database cannot even take as a parameter) is refused before the query.
                if !super::time_zones::is_known(tz) {
                    return Err(DomainError::invalid(
                        ProblemCode::InvalidTimeZone,
                        format!("{tz:?} is not an IANA time zone name"),
                    ));
                }
                let known = diesel::sql_query(
                    "SELECT EXISTS (SELECT 1 FROM pg_timezone_names WHERE name = $1) AS known",
                )
                .bind::<diesel::sql_types::Text, _>(tz)
                .get_result::<Known>(&mut conn)?
                .known;
                // The database computes the quiet hours and the digest in the zone: a
                // listed name its time zone data lacks (an older tzdata) is refused too.
                if !known {
                    return Err(DomainError::invalid(
                        ProblemCode::InvalidTimeZone,
                        format!("{tz:?} is not an IANA time zone name"),
                    ));
                }
                tz.to_string()
            }
        };
        let (quiet_from, quiet_until) = match req.quiet_hours.as_deref() {
            None => (current.quiet_from, current.quiet_until),
            Some([]) => (None, None),
            Some(&[f, u]) if (0..24).contains(&f) && (0..24).contains(&u) => (Some(f), Some(u)),
            Some(_) => {
                return Err(DomainError::invalid(
                    ProblemCode::InvalidQuietHours,
                    "quiet_hours is [from, until] with hours 0 to 23, or [] for none",
                ));
            }
        };
        let (notifications, digest) = match &req.email_notifications {
            None => (current.email_notifications, current.daily_digest),
            Some(EmailSetting::OnOff(on)) => (*on, current.daily_digest && *on),
            Some(EmailSetting::Mode(EmailMode::EachTurn)) => (true, false),
            Some(EmailSetting::Mode(EmailMode::DailyDigest)) => (true, true),
            Some(EmailSetting::Mode(EmailMode::Off)) => (false, false),
        };
        let digest_hour = match req.digest_hour {
            None => current.digest_hour,
            Some(h) if (0..24).contains(&h) => h,
            Some(_) => {
                return Err(DomainError::invalid(
                    ProblemCode::InvalidDigestHour,
                    "digest_hour is 0 to 23",
                ));
            }
        };
        // A new password revokes every token issued before it.
        let generation = current.token_generation + i32::from(hash.is_some());
        let updated = diesel::update(accounts::table.find(id))
            .set((
                accounts::token_generation.eq(generation),
                accounts::name.eq(name.unwrap_or(current.name)),
                accounts::password_hash.eq(hash.unwrap_or(current.password_hash)),
                accounts::email_notifications.eq(notifications),
                accounts::daily_digest.eq(digest),
                accounts::digest_hour.eq(digest_hour),
                accounts::reminders.eq(req.reminders.unwrap_or(current.reminders)),
                accounts::time_zone.eq(time_zone),
                accounts::quiet_from.eq(quiet_from),
                accounts::quiet_until.eq(quiet_until),
                accounts::updated_at.eq(diesel::dsl::now),
            ))
            .returning(Account::as_returning())
            .get_result(&mut conn)?;
        self.sessions.forget(id);
        Ok(to_response(&updated))
    }
}

#[cfg(test)]
mod tests {
    use super::{check_password, parse_email};
    use crate::domain::ProblemCode;

    #[test]
    fn easy_passwords_are_refused_and_a_few_words_pass() {
        let me = ["ada@example.org", "Ada Lovelace"];
        let code = |pw: &str| check_password(pw, &me).err().map(|e| e.code());
        for weak in [
            "aaaaaaaaaa",
            "password12",
            "password123",
            "1234567890",
            "qwertyuiop",
            "abcdefghij",
            "iloveyou12",
            "ADA@example.org",
            " Ada Lovelace ",
            "ada@example.org1",
        ] {
            assert_eq!(code(weak), Some(ProblemCode::WeakPassword), "{weak}");
        }
        for control in ["\0".repeat(10), "correct horse\nbattery".into()] {
            assert_eq!(
                code(&control),
                Some(ProblemCode::InvalidPassword),
                "{control:?}"
            );
        }
        assert_eq!(code("short"), Some(ProblemCode::PasswordTooShort));
        for strong in [
            "correct horse battery",
            "a brand new passphrase",
            "ivy is a climbing plant",
            "gr8-Pumpkin-42",
        ] {
            assert_eq!(code(strong), None, "{strong}");
        }
    }

    #[test]
    fn emails() {
        for good in ["a@b.co", "Ada.Lovelace+games@example.org"] {
            assert!(parse_email(good).is_ok(), "{good}");
        }
        for bad in [
            "",
            "a",
            "a@b",
            "a b@c.de",
            "@b.co",
            "a@.co",
            "a@b.",
            "a@@b.co",
            "computer-1@bots.invalid",
            "x@BOTS.INVALID",
        ] {
            assert!(parse_email(bad).is_err(), "{bad}");
        }
    }
}
