//! What a due outbox row becomes: an email to send, or nothing. Game emails (turn,
//! reminder, nudge, game over) are written here, when they are sent, from the game as it is
//! then and from the recipient's seat only (text, choices and picture alike); a turn email
//! whose seat has acted, or whose turn has passed, is dropped. Mail stored rendered
//! (answers, digests, confirmation links) is sent as stored. Nothing goes to an address
//! that bounces, except a confirmation link, which is how it comes back.

use crate::store::kinds::GameStatus;
use diesel::prelude::*;
use diesel::sql_types::{BigInt, Integer};

use super::chat_mail;
use super::locked::LockedGame;
use super::mail_events::{OVER, REMINDER, TAKEBACK, TURN};
use super::{Domain, DomainError, DomainResult};
use crate::engine::Outcome;
use crate::notify::compose::{self, GameMail, RecentMove, TurnWhy};
use crate::notify::letter::{Letter, Picture};
use crate::notify::picture;
use crate::notify::reply::ReplyToken;
use crate::store::kinds::OutboxKind;
use crate::store::models::{Account, GameRow, OutboxRow};
use crate::store::schema::{accounts, game_actions};

/// A due row's fate.
pub enum Delivery {
    Send(Box<Outgoing>),
    /// Nothing to send after all, and why (stored with the row).
    Drop(&'static str),
}

/// An email ready for the transport.
#[derive(Clone, Debug)]
pub struct Outgoing {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
    pub picture: Option<Picture>,
    pub reply_to: Option<String>,
    /// The inbound message this email answers (without angle brackets).
    pub answers: Option<String>,
    /// An answer to a player's reply (`Auto-Submitted: auto-replied`), rather than mail the
    /// server sends by itself (`auto-generated`).
    pub is_answer: bool,
    /// The one-click unsubscribe URL (List-Unsubscribe).
    pub unsubscribe: Option<String>,
    /// The game version the email shows (turn emails).
    pub shown_version: Option<i64>,
    /// The newest chat message the email carries (recorded once it is sent).
    pub chat_upto: Option<i64>,
}

#[derive(QueryableByName)]
struct Reason {
    #[diesel(sql_type = Integer)]
    reason: i32,
}

impl Domain {
    /// What `row` becomes now that it is due.
    pub fn render_outbox(&self, row: &OutboxRow) -> DomainResult<Delivery> {
        self.render_outbox_on(&mut *self.conn()?, row)
    }

    /// [`Domain::render_outbox`] on the caller's connection (the worker keeps one).
    pub fn render_outbox_on(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
    ) -> DomainResult<Delivery> {
        let kind = row.kind;
        if let (Some(kind), Some(account)) = (kind, row.account_id)
            && kind.is_game_mail()
        {
            // The seat's player (whose address may bounce) is read with the game.
            let unsubscribe = Some(self.links.unsubscribe_url(account));
            return self.render_game_mail(conn, row, kind, unsubscribe);
        }
        let account: Option<Account> = match row.account_id {
            Some(id) => accounts::table
                .find(id)
                .select(Account::as_select())
                .first(conn)
                .optional()?,
            None => accounts::table
                .filter(accounts::email_lower.eq(row.to_address.trim().to_lowercase()))
                .select(Account::as_select())
                .first(conn)
                .optional()?,
        };
        // A confirmation or reset link is asked for by the address's owner now: a bounce
        // reported earlier may be over, and without the mail they cannot get back in.
        if !matches!(kind, Some(OutboxKind::Verify | OutboxKind::PasswordReset))
            && account
                .as_ref()
                .is_some_and(|a| a.email_bouncing_at.is_some())
        {
            return Ok(Delivery::Drop("address_bouncing"));
        }
        // Mail about the account itself is not game email: "stop game emails" is no
        // answer to it.
        let about_the_account = matches!(
            kind,
            Some(
                OutboxKind::Verify
                    | OutboxKind::SignUp
                    | OutboxKind::SignUpTaken
                    | OutboxKind::PasswordReset
            )
        );
        let unsubscribe = account
            .as_ref()
            .filter(|_| !about_the_account)
            .map(|a| self.links.unsubscribe_url(a.id));
        match kind {
            Some(kind) if kind.is_game_mail() => {
                self.render_game_mail(conn, row, kind, unsubscribe)
            }
            _ => Ok(Delivery::Send(Box::new(Outgoing {
                to: row.to_address.clone(),
                subject: row.subject.clone(),
                text: row.body_text.clone(),
                html: row.body_html.clone(),
                picture: None,
                reply_to: row.reply_to.clone(),
                answers: row.in_reply_to.clone(),
                is_answer: row.in_reply_to.is_some(),
                unsubscribe,
                shown_version: None,
                chat_upto: None,
            }))),
        }
    }

    fn render_game_mail(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
        kind: OutboxKind,
        unsubscribe: Option<String>,
    ) -> DomainResult<Delivery> {
        let (Some(game_id), Some(seat)) = (row.game_id, row.seat) else {
            return Ok(Delivery::Drop("malformed_event"));
        };
        let (game, seats) = match LockedGame::read(conn, game_id) {
            Ok(LockedGame { row, seats }) => (row, seats),
            Err(DomainError::NotFound { .. }) => return Ok(Delivery::Drop("game_gone")),
            Err(e) => return Err(e),
        };
        let Some(player) = seats.iter().find(|s| s.seat == seat) else {
            return Ok(Delivery::Drop("seat_gone"));
        };
        if let Some(why) = player.why_no_game_mail(self.require_email_verification) {
            return Ok(Delivery::Drop(why));
        }
        let Some(state) = self.load(&game)? else {
            return Ok(Delivery::Drop("game_not_started"));
        };
        let engine = self.engine_for(&game)?;
        let info = engine.info();
        let recent = recent_moves(conn, &game, seat)?;
        let mail = GameMail {
            site: self.site(),
            row: &game,
            info: &info,
            state: state.as_ref(),
            player,
            seats: &seats,
            recent: &recent,
        };
        // Chat the player has not had carries over into any game email.
        let chat = chat_mail::unmailed(conn, &game, seat, player.account_id)?;
        let chat_upto = chat.last().map(|m| m.id);
        let drafted = match kind {
            OVER => over_letter(&mail)?,
            TAKEBACK => takeback_letter(&mail, row)?,
            OutboxKind::Chat if chat.is_empty() => Err("chat_seen"),
            OutboxKind::Chat => Ok(mail.table_talk(chat_mail::lines(&chat))),
            _ => self.turn_letter(conn, &mail, row, kind)?,
        };
        let mut letter = match drafted {
            Ok(letter) => letter,
            Err(why) => return Ok(Delivery::Drop(why)),
        };
        if kind != OutboxKind::Chat {
            letter.chat = chat_mail::lines(&chat);
            letter.picture = self.board_picture(&mail);
        }
        Ok(Delivery::Send(Box::new(Outgoing {
            to: player.email.clone(),
            subject: letter.subject.clone(),
            text: letter.text(),
            html: letter.html(),
            picture: letter.picture.clone(),
            reply_to: Some(self.reply.address(ReplyToken {
                game_id,
                seat,
                version: game.version,
            })),
            answers: None,
            is_answer: false,
            unsubscribe,
            shown_version: Some(game.version),
            chat_upto,
        })))
    }

    /// Why a turn email needs no sending although its seat is to act: the seat acted since
    /// the turn began (this turn is a later one, with an email of its own), or an email
    /// already showed this position.
    fn turn_already_handled(
        &self,
        conn: &mut PgConnection,
        row: &OutboxRow,
        game: &GameRow,
        seat: i32,
    ) -> DomainResult<Option<&'static str>> {
        let since = row.version.unwrap_or(game.version);
        let found = diesel::sql_query(
            "SELECT CASE \
                 WHEN EXISTS (SELECT 1 FROM game_actions \
                              WHERE game_id = $1 AND seq > $2 AND seat = $3) THEN 1 \
                 WHEN EXISTS (SELECT 1 FROM outbox \
                              WHERE kind = 'turn' AND game_id = $1 AND seat = $3 AND id <> $4 \
                                AND sent_at IS NOT NULL AND version >= $5) THEN 2 \
                 ELSE 0 END AS reason",
        )
        .bind::<BigInt, _>(game.id)
        .bind::<BigInt, _>(since)
        .bind::<Integer, _>(seat)
        .bind::<BigInt, _>(row.id)
        .bind::<BigInt, _>(game.version)
        .get_result::<Reason>(conn)?
        .reason;
        Ok(match found {
            1 => Some("seat_acted"),
            2 => Some("already_sent"),
            _ => None,
        })
    }
}

/// The log since `seat` last moved, as that seat may see it: at most
/// [`compose::MAX_RECENT`] entries and one more, which tells that earlier ones exist.
fn recent_moves(
    conn: &mut PgConnection,
    game: &GameRow,
    seat: i32,
) -> DomainResult<Vec<RecentMove>> {
    let last_own: Option<i64> = game_actions::table
        .filter(game_actions::game_id.eq(game.id))
        .filter(game_actions::seat.eq(seat))
        .select(diesel::dsl::max(game_actions::seq))
        .first(conn)?;
    let mut rows: Vec<(i32, String, bool, Vec<i32>)> = game_actions::table
        .filter(game_actions::game_id.eq(game.id))
        .filter(game_actions::seq.gt(last_own.unwrap_or(0)))
        .order(game_actions::seq.desc())
        .limit(compose::MAX_RECENT as i64 + 1)
        .select((
            game_actions::seat,
            game_actions::description,
            game_actions::public_action.is_not_null(),
            game_actions::seen_by,
        ))
        .load(conn)?;
    rows.reverse();
    Ok(rows
        .into_iter()
        .map(|(by, text, secret, seen_by)| RecentMove {
            seat: by.max(0) as usize,
            // As the game's log shows it to this seat (see `games::redact`).
            text: (!secret || seen_by.contains(&seat)).then_some(text),
        })
        .collect())
}

/// A letter to send, or why there is none to send after all.
type Drafted = Result<Letter, &'static str>;

/// The game-over letter, while the game is over.
fn over_letter(mail: &GameMail) -> DomainResult<Drafted> {
    let game = mail.row;
    if game.status != GameStatus::Finished {
        return Ok(Err("game_not_over"));
    }
    let outcome: Outcome = game
        .result
        .clone()
        .and_then(|r| serde_json::from_value(r).ok())
        .ok_or_else(|| {
            DomainError::Internal(anyhow::anyhow!("finished game {} has no result", game.id))
        })?;
    Ok(Ok(mail.game_over(&outcome)))
}

/// A takeback request (still owed while it waits for this seat's answer) or its refusal.
fn takeback_letter(mail: &GameMail, row: &OutboxRow) -> DomainResult<Drafted> {
    let game = mail.row;
    let seat = mail.player.seat;
    if game.status != GameStatus::Active {
        return Ok(Err("game_over"));
    }
    let from = detail_from(row);
    if row.detail.as_ref().is_some_and(|d| d["declined"] == true) {
        return Ok(Ok(mail.turn(&TurnWhy::TakebackDeclined { by: from })));
    }
    Ok(match super::takeback::pending(game) {
        Some(p) if Some(p.at_version) == row.version && !p.accepted.contains(&seat) => Ok(mail
            .turn(&TurnWhy::Takeback {
                from,
                undoing: p.texts.join("; "),
            })),
        _ => Err("takeback_answered"),
    })
}

/// Who a nudge or takeback comes from, as stored with the row.
fn detail_from(row: &OutboxRow) -> String {
    row.detail
        .as_ref()
        .and_then(|d| d["from"].as_str())
        .unwrap_or("Another player")
        .to_string()
}

impl Domain {
    /// A turn, reminder or nudge letter, still owed while the seat has something to
    /// decide: its turn, or an offer made to it outside its turn.
    fn turn_letter(
        &self,
        conn: &mut PgConnection,
        mail: &GameMail,
        row: &OutboxRow,
        kind: OutboxKind,
    ) -> DomainResult<Drafted> {
        let (game, player) = (mail.row, mail.player);
        let seat = player.seat;
        if game.status != GameStatus::Active {
            return Ok(Err("game_over"));
        }
        let decides = game.to_act.contains(&seat) || mail.state.has_legal_actions(seat as usize);
        if !decides || game.forfeited.contains(&seat) {
            return Ok(Err("turn_passed"));
        }
        let why = match kind {
            TURN => {
                if player.daily_digest {
                    return Ok(Err("daily_digest"));
                }
                if let Some(reason) = self.turn_already_handled(conn, row, game, seat)? {
                    return Ok(Err(reason));
                }
                TurnWhy::Turn
            }
            REMINDER => TurnWhy::Reminder {
                stage: detail_i64(row, "stage").unwrap_or(1) as i32,
                left_ms: detail_i64(row, "left_ms").unwrap_or(0),
            },
            _ => TurnWhy::Nudge {
                from: detail_from(row),
            },
        };
        Ok(Ok(mail.turn(&why)))
    }

    /// The board picture as the seat sees it, when pictures are on. The text part is
    /// complete without it, so a picture that cannot be drawn is only logged.
    fn board_picture(&self, mail: &GameMail) -> Option<Picture> {
        if !self.email_pictures {
            return None;
        }
        let (game, seat) = (mail.row, mail.player.seat);
        match picture::mail_png(&mail.picture_svg()) {
            Ok(drawn) => Some(Picture {
                png: drawn.whole,
                halves: drawn.halves,
                cid: format!("board.{}.{seat}.{}@turnpost", game.id, game.version),
                alt: format!(
                    "The board of {} #{} as {} sees it, at move {}",
                    mail.info.name,
                    game.id,
                    mail.state.seat_name(seat as usize),
                    game.version + 1
                ),
            }),
            Err(e) => {
                tracing::warn!(game = game.id.0, error = %e, "board picture not drawn");
                None
            }
        }
    }
}

fn detail_i64(row: &OutboxRow, key: &str) -> Option<i64> {
    row.detail.as_ref().and_then(|d| d[key].as_i64())
}
