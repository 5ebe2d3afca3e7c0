//! The daily digest: for accounts with `email_notifications = daily_digest`, one email a
//! day at their chosen local hour listing every game awaiting them, each with its position,
//! its numbered choices and its own reply address. Sent by the sweep; once per local date
//! (the date is recorded in the transaction that queues the digest, under the account row
//! lock, and the outbox dedupe key names it too).

use crate::store::kinds::OutboxKind;
use crate::store::kinds::{AccountId, GameStatus};
use std::fmt::Write as _;

use chrono::{DateTime, NaiveDate, Utc};
use diesel::prelude::*;
use diesel::sql_types::{Date, Integer, Text, Timestamptz};

use super::chat::ChatMessage;
use super::mail_events::enqueue;
use super::{Domain, DomainError, DomainResult};
use crate::notify::compose::{self, REPLY_HELP};
use crate::notify::reply::ReplyToken;
use crate::store::models::{Account, GameRow, NewOutbox};
use crate::store::schema::{accounts, chat_messages, game_seats, games};

#[derive(QueryableByName)]
struct Local {
    #[diesel(sql_type = Integer)]
    h: i32,
    #[diesel(sql_type = Date)]
    d: NaiveDate,
}

impl Domain {
    /// Queues the digests due at `now`; returns how many were queued.
    pub fn send_digests(&self, now: DateTime<Utc>) -> DomainResult<usize> {
        let mut conn = self.conn()?;
        let mut query = accounts::table
            .filter(accounts::daily_digest.eq(true))
            .filter(accounts::email_notifications.eq(true))
            .filter(accounts::email_bouncing_at.is_null())
            .into_boxed();
        if self.require_email_verification {
            query = query.filter(accounts::email_verified_at.is_not_null());
        }
        let ids: Vec<AccountId> = query
            .order(accounts::id.asc())
            .select(accounts::id)
            .load(&mut conn)?;
        let mut sent = 0;
        for id in ids {
            if conn.transaction::<_, DomainError, _>(|conn| self.digest_for(conn, id, now))? {
                sent += 1;
            }
        }
        Ok(sent)
    }

    fn digest_for(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
        now: DateTime<Utc>,
    ) -> DomainResult<bool> {
        let a: Account = accounts::table
            .find(account)
            .select(Account::as_select())
            .for_update()
            .first(conn)?;
        let local = diesel::sql_query(
            "SELECT EXTRACT(HOUR FROM ($1 AT TIME ZONE $2))::int AS h, ($1 AT TIME ZONE $2)::date AS d",
        )
        .bind::<Timestamptz, _>(now)
        .bind::<Text, _>(&a.time_zone)
        .get_result::<Local>(conn)?;
        if local.h < a.digest_hour as i32 || a.last_digest_on == Some(local.d) {
            return Ok(false);
        }
        diesel::update(accounts::table.find(account))
            .set(accounts::last_digest_on.eq(Some(local.d)))
            .execute(conn)?;
        let mine: Vec<(GameRow, i32)> = game_seats::table
            .inner_join(games::table)
            .filter(game_seats::account_id.eq(account))
            .filter(games::status.eq(GameStatus::Active))
            .order(games::id.asc())
            .select((GameRow::as_select(), game_seats::seat))
            .load(conn)?;
        let waiting: Vec<(GameRow, i32)> = mine
            .into_iter()
            .filter(|(g, s)| g.to_act.contains(s))
            .collect();
        let talk = self.chat_for_digest(conn, account)?;
        if waiting.is_empty() && talk.is_empty() {
            return Ok(false);
        }
        let mut body = if waiting.is_empty() {
            format!("Hello {},\n\nNo game awaits your move.\n", a.name)
        } else {
            format!(
                "Hello {},\n\n{} game{} await{} your move.\n",
                a.name,
                waiting.len(),
                if waiting.len() == 1 { "" } else { "s" },
                if waiting.len() == 1 { "s" } else { "" }
            )
        };
        for (row, chat) in &talk {
            let engine = self.engine_for(row)?;
            let _ = writeln!(
                body,
                "\n==== Table talk in {} #{} ====",
                engine.info().name,
                row.id
            );
            for (who, text) in super::chat_mail::lines(chat) {
                let _ = writeln!(body, "  {who}: {}", text.replace('\n', "\n      "));
            }
            if let Some(last) = chat.last() {
                super::chat_mail::record_mailed(conn, account, row.id, last.id)?;
            }
        }
        if !talk.is_empty() {
            body.push_str("To answer, reply to a game's email with a line starting with `say`.\n");
        }
        for (row, seat) in &waiting {
            let engine = self.engine_for(row)?;
            let Some(state) = self.load(row)? else {
                continue;
            };
            let address = self.reply.address(ReplyToken {
                game_id: row.id,
                seat: *seat,
                version: row.version,
            });
            let _ = write!(
                body,
                "\n==== {} #{} (move {}) ====\nTo play by email, write to {address}\n\n",
                engine.info().name,
                row.id,
                row.version + 1
            );
            let mut part = String::new();
            let seats = super::locked::seat_infos(conn, row.id)?;
            compose::position_and_choices(&mut part, state.as_ref(), *seat as usize, &seats);
            body.push_str(&part.replace(REPLY_HELP, ""));
        }
        let _ = write!(
            body,
            "\nWrite the number of your choice (or the choice itself) to a game's address above; \
             `preview`, `status`, `help` and `resign` work too.\n\
             To get an email on each turn instead, choose it in your settings: {}/#/settings\n",
            self.public_url.trim_end_matches('/')
        );
        let n = waiting.len();
        let subject = if n == 0 {
            "[Turnpost] daily digest: table talk".to_string()
        } else {
            format!(
                "[Turnpost] daily digest: {n} game{} await{} you",
                if n == 1 { "" } else { "s" },
                if n == 1 { "s" } else { "" }
            )
        };
        let mail = NewOutbox {
            dedupe_key: format!("digest:{account}:{}", local.d),
            account_id: Some(account),
            game_id: None,
            to_address: a.email.clone(),
            body_html: compose::html_part(&subject, &body, &self.public_url),
            subject,
            body_text: body,
            kind: Some(OutboxKind::Digest),
            ..NewOutbox::default()
        };
        enqueue(conn, vec![mail])?;
        Ok(true)
    }

    /// The chat a digest reader has not had, by game (games with none left out).
    fn chat_for_digest(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
    ) -> DomainResult<Vec<(GameRow, Vec<ChatMessage>)>> {
        let games: Vec<(GameRow, i32)> = game_seats::table
            .inner_join(games::table)
            .filter(game_seats::account_id.eq(account))
            .filter(game_seats::muted.eq(false))
            .filter(diesel::dsl::exists(
                chat_messages::table
                    .filter(chat_messages::game_id.eq(games::id))
                    .filter(chat_messages::account_id.ne(account)),
            ))
            .order(games::id.asc())
            .select((GameRow::as_select(), game_seats::seat))
            .load(conn)?;
        let mut out = Vec::new();
        for (row, seat) in games {
            if row.forfeited.contains(&seat) {
                continue;
            }
            let chat = super::chat_mail::unmailed(conn, &row, seat, account)?;
            if !chat.is_empty() {
                out.push((row, chat));
            }
        }
        Ok(out)
    }
}
