//! Play by email: one inbound reply, processed in one transaction. The reply is matched to
//! a seat by its reply token and its sender, its lines become commands (numbers of listed
//! choices, action texts, `preview`, `status`, `help`, `resign`), every action is applied
//! in memory first, and only a batch that fully succeeds is written. Every processed
//! message is answered by email. Nothing here knows any particular game.

use crate::domain::ProblemCode;
use crate::store::kinds::GameId;
use crate::store::kinds::{GameStatus, InboundOutcome, ReplyCode};

use diesel::prelude::*;
use serde_json::Value;

use super::locked::LockedGame;
use super::mail_events::enqueue;
use super::shapes::{InboundCode, InboundResponse};
use super::{Domain, DomainError, DomainResult};
use crate::engine::{GameInfo, LoadedGame, Seat};
use crate::notify::choices::{Pick, Written, written};
use crate::notify::compose::{self, Answer};
use crate::notify::inbound::{self, InboundMail};
use crate::notify::reply::{ReplyToken, TokenError};
use crate::store::models::{GameRow, NewOutbox, SeatInfo};
use crate::store::schema::inbound_messages;

/// What a reply asks for.
#[derive(Debug, PartialEq, Eq)]
enum Request {
    Help,
    Status,
    Resign,
    /// No more game emails at all (`stop`, `unsubscribe`).
    Stop,
    /// No more email about this game (`mute`), or again (`unmute`).
    Mute(bool),
    /// Play the finished game again (`rematch`).
    Rematch,
    /// Ask to take back one's last move (`takeback`).
    Takeback,
    /// Answer another player's takeback request (`accept` / `decline`).
    AnswerTakeback(bool),
    /// Actions (as written) to apply in order; `preview` only shows the result.
    Play {
        lines: Vec<String>,
        preview: bool,
    },
}

/// The lines of a reply as a request. A line that is one of the game's own choices
/// (`is_choice`) is a move even when it reads like a command: "accept" answers a trade
/// offer before it answers a takeback request.
fn parse_request(
    lines: &[String],
    is_choice: impl Fn(&str) -> bool,
) -> Result<Request, (ReplyCode, String)> {
    let mut preview = false;
    let mut actions = Vec::new();
    let mut keywords = Vec::new();
    for l in lines {
        if is_choice(l) {
            actions.push(l.clone());
            continue;
        }
        match l.to_lowercase().trim_end_matches(['.', '!']) {
            "preview" => preview = true,
            "help" | "?" => keywords.push(Request::Help),
            "status" => keywords.push(Request::Status),
            "resign" => keywords.push(Request::Resign),
            "stop" | "unsubscribe" => keywords.push(Request::Stop),
            "mute" => keywords.push(Request::Mute(true)),
            "unmute" => keywords.push(Request::Mute(false)),
            "rematch" => keywords.push(Request::Rematch),
            "takeback" | "take back" | "undo" => keywords.push(Request::Takeback),
            "accept" | "accept takeback" => keywords.push(Request::AnswerTakeback(true)),
            "decline" | "decline takeback" => keywords.push(Request::AnswerTakeback(false)),
            _ => actions.push(l.clone()),
        }
    }
    match (keywords.len(), actions.is_empty()) {
        (0, true) => Err((
            ReplyCode::EmptyReply,
            "the reply contains no command: write the number of a choice above the quoted email"
                .into(),
        )),
        (0, false) => Ok(Request::Play {
            lines: actions,
            preview,
        }),
        (1, true) if !preview => Ok(keywords.remove(0)),
        _ => Err((
            ReplyCode::MixedCommands,
            "`help`, `status`, `resign`, `rematch`, `takeback`, `accept`, `decline`, `stop`, `mute` and `unmute` must be the only line of a reply"
                .into(),
        )),
    }
}

/// One command line to an action: the number of a listed choice, a move in the game's
/// notation (which may span lines, see [`notation_blocks`]), the choice's text (optionally
/// as copied, "3. text"), or an action as JSON.
fn resolve(
    state: &dyn LoadedGame,
    seat: Seat,
    seats: &[SeatInfo],
    line: &str,
) -> Result<Value, Refusal> {
    let legal = state.legal_actions(seat);
    if legal.is_empty() {
        return Err(DomainError::conflict(
            ProblemCode::NotYourTurn,
            "you have nothing to play at this point",
        )
        .into());
    }
    let trimmed = line.trim().trim_end_matches('.');
    match crate::notify::choices::pick(state, seat, seats, trimmed) {
        Some(Ok(Pick::Action(a))) => return Ok(a),
        Some(Ok(Pick::Ambiguous(ways))) => {
            return Err(Refusal::new(
                ReplyCode::ChooseAWay,
                ways.trim_end().to_string(),
            ));
        }
        Some(Err(why)) => return Err(Refusal::new(ReplyCode::NoSuchChoice, why)),
        None => {}
    }
    if let Some(read) = state.parse_notation(seat, line) {
        return read.map_err(|why| Refusal::new(ProblemCode::MalformedAction, why));
    }
    if line.trim_start().starts_with('{') {
        return serde_json::from_str(line).map_err(|e| {
            Refusal::new(
                ProblemCode::MalformedAction,
                format!("not a valid JSON action: {e}"),
            )
        });
    }
    // "3. trail 7H" as copied from the list: the text decides.
    let text = match line.split_once(". ") {
        Some((n, rest)) if n.trim().parse::<usize>().is_ok() => rest,
        _ => line,
    };
    match written(state, seat, seats, text) {
        Some(Written::Action(a)) => Ok(a),
        Some(Written::Several(texts)) => Err(Refusal::new(
            ReplyCode::ChooseAWay,
            format!(
                "{line:?} begins {} of your choices; write out the one you mean:\n{}",
                texts.len(),
                texts
                    .iter()
                    .map(|t| format!("  {t}"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
        )),
        None => Err(Refusal::new(
            ReplyCode::UnknownCommand,
            format!("{line:?} is neither the number nor the text of one of your choices"),
        )),
    }
}

/// The command lines of a reply with each run of consecutive lines in the game's notation
/// joined into one (a meld written over several lines is one move).
fn notation_blocks(state: &dyn LoadedGame, seat: Seat, lines: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut in_block = false;
    for line in lines {
        let notation = state.parse_notation(seat, &line).is_some();
        match out.last_mut() {
            Some(last) if notation && in_block => {
                last.push('\n');
                last.push_str(&line);
            }
            _ => out.push(line),
        }
        in_block = notation;
    }
    out
}

/// Why a line of a reply was refused: its code, and what the player is told.
#[derive(Debug)]
struct Refusal {
    code: InboundCode,
    detail: String,
}

impl Refusal {
    fn new(code: impl Into<InboundCode>, detail: impl Into<String>) -> Refusal {
        Refusal {
            code: code.into(),
            detail: detail.into(),
        }
    }
}

/// A domain error refuses the line with its own code and message, as the API would.
impl From<DomainError> for Refusal {
    fn from(e: DomainError) -> Refusal {
        Refusal::new(e.code(), e.to_string())
    }
}

/// What the processing decided, before it becomes an answer email and a response.
struct Decision {
    outcome: InboundOutcome,
    code: Option<InboundCode>,
    detail: String,
    applied: Vec<String>,
    mail: Option<NewOutbox>,
    game_id: Option<GameId>,
    version: Option<i64>,
}

impl Domain {
    /// Processes one raw inbound email (once per Message-ID) and queues its answer.
    pub fn handle_inbound(
        &self,
        raw: &[u8],
        envelope_to: Option<&str>,
    ) -> DomainResult<InboundResponse> {
        let mail = match inbound::parse(raw, envelope_to) {
            Ok(m) => m,
            Err(inbound::InboundError::TooComplex(why, poison)) => {
                return self.record_poison(poison, why);
            }
            Err(e) => {
                return Err(DomainError::invalid(
                    ProblemCode::InvalidMessage,
                    e.to_string(),
                ));
            }
        };
        let mut conn = self.conn()?;
        conn.transaction::<_, DomainError, _>(|conn| {
            let fresh = diesel::insert_into(inbound_messages::table)
                .values((
                    inbound_messages::message_id.eq(&mail.message_id),
                    inbound_messages::from_address.eq(&mail.from),
                    inbound_messages::outcome.eq("processing"),
                ))
                .on_conflict_do_nothing()
                .execute(conn)?;
            let d = if fresh == 0 {
                Decision {
                    outcome: InboundOutcome::Duplicate,
                    code: None,
                    detail: "this message was processed before; nothing was done".into(),
                    applied: Vec::new(),
                    mail: None,
                    game_id: None,
                    version: None,
                }
            } else if let Some(dsn) = &mail.dsn {
                let marked = self.mark_bouncing(conn, dsn)?;
                Decision {
                    outcome: if marked.is_empty() {
                        InboundOutcome::Ignored
                    } else {
                        InboundOutcome::Bounce
                    },
                    code: marked
                        .is_empty()
                        .then_some(InboundCode::Reply(ReplyCode::UnknownBounce)),
                    detail: if marked.is_empty() {
                        "a delivery-status report about no email of ours to an account's address; \
                         nothing was changed"
                            .into()
                    } else {
                        format!(
                            "mail to {} failed; nothing more is sent there until the address is \
                             confirmed again",
                            marked.join(", ")
                        )
                    },
                    applied: Vec::new(),
                    mail: None,
                    game_id: None,
                    version: None,
                }
            } else if mail.automatic {
                Decision {
                    outcome: InboundOutcome::Ignored,
                    code: None,
                    detail:
                        "automatic mail (Auto-Submitted, Precedence or a bounce) is not answered"
                            .into(),
                    applied: Vec::new(),
                    mail: None,
                    game_id: None,
                    version: None,
                }
            } else {
                self.decide(conn, &mail)?
            };
            if fresh != 0 {
                diesel::update(inbound_messages::table.find(&mail.message_id))
                    .set((
                        inbound_messages::outcome.eq(d.outcome.as_str()),
                        inbound_messages::game_id.eq(d.game_id),
                    ))
                    .execute(conn)?;
            }
            let answered = d.mail.is_some();
            if let Some(m) = d.mail {
                enqueue(conn, vec![m])?;
            }
            Ok(InboundResponse {
                outcome: d.outcome,
                code: d.code,
                detail: d.detail,
                message_id: mail.message_id.clone(),
                game_id: d.game_id,
                version: d.version,
                applied: d.applied,
                answered,
            })
        })
    }

    /// A message too complex to parse: recorded once by Message-ID (so an MTA's retry is
    /// a duplicate) and never answered (its sender may be forged).
    fn record_poison(&self, poison: inbound::Poison, why: String) -> DomainResult<InboundResponse> {
        let mut conn = self.conn()?;
        let fresh = diesel::insert_into(inbound_messages::table)
            .values((
                inbound_messages::message_id.eq(&poison.message_id),
                inbound_messages::from_address.eq(&poison.from),
                inbound_messages::outcome.eq(InboundOutcome::Ignored.as_str()),
            ))
            .on_conflict_do_nothing()
            .execute(&mut conn)?;
        Ok(InboundResponse {
            outcome: if fresh == 0 {
                InboundOutcome::Duplicate
            } else {
                InboundOutcome::Ignored
            },
            code: Some(InboundCode::Reply(ReplyCode::MessageTooComplex)),
            detail: format!("the message was not read: {why}"),
            message_id: poison.message_id,
            game_id: None,
            version: None,
            applied: Vec::new(),
            answered: false,
        })
    }

    /// Whether `address` belongs to an account: only those are ever answered, so a
    /// forged From cannot turn the server into a mail cannon aimed at a third party.
    fn is_account_address(conn: &mut PgConnection, address: &str) -> DomainResult<bool> {
        use crate::store::schema::accounts;
        Ok(diesel::select(diesel::dsl::exists(
            accounts::table.filter(accounts::email_lower.eq(address.trim().to_lowercase())),
        ))
        .get_result(conn)?)
    }

    fn decide(&self, conn: &mut PgConnection, mail: &InboundMail) -> DomainResult<Decision> {
        let known_sender = Self::is_account_address(conn, &mail.from)?;
        let refuse_unknown = |code: ReplyCode, detail: String| Decision {
            outcome: InboundOutcome::Refused,
            code: Some(InboundCode::Reply(code)),
            mail: known_sender.then(|| {
                compose::answer(
                    self.site(),
                    Answer {
                        game: None,
                        account_id: None,
                        to: mail.from.clone(),
                        what: "reply refused",
                        body: format!(
                            "Your email could not be used, and nothing was changed: {detail}\n"
                        ),
                        reply_to: None,
                        in_reply_to: &mail.message_id,
                        seat: None,
                    },
                )
            }),
            detail,
            applied: Vec::new(),
            game_id: None,
            version: None,
        };
        let token = match self.reply.find(mail.recipients.iter().map(String::as_str)) {
            Ok(t) => t,
            Err(TokenError::Missing) => {
                return Ok(refuse_unknown(
                    ReplyCode::NoReplyToken,
                    "it was not sent to a game's reply address. Reply to the turn email itself, so the \
                     reply goes to its Reply-To address."
                        .into(),
                ));
            }
            Err(TokenError::Invalid) => {
                return Ok(refuse_unknown(
                    ReplyCode::InvalidReplyToken,
                    "its reply address has been altered or does not belong to this server.".into(),
                ));
            }
        };
        let LockedGame { row, seats } = match LockedGame::lock(conn, token.game_id) {
            Ok(g) => g,
            Err(DomainError::NotFound { .. }) => {
                return Ok(refuse_unknown(
                    ReplyCode::InvalidReplyToken,
                    "the game of its reply address no longer exists.".into(),
                ));
            }
            Err(e) => return Err(e),
        };
        let engine = self.engine_for(&row)?;
        let info = engine.info();
        let Some(player) = seats.iter().find(|s| s.seat == token.seat).cloned() else {
            return Ok(refuse_unknown(
                ReplyCode::InvalidReplyToken,
                "its seat no longer exists.".into(),
            ));
        };
        // The sender must be the seat's own account address (display names are ignored).
        if !player.email.trim().eq_ignore_ascii_case(mail.from.trim()) {
            let detail = format!(
                "this reply address belongs to a seat in {} #{}, and only that player's own address may \
                 play through it; {} is not it. Nothing was changed.",
                info.name, row.id, mail.from
            );
            // Only a player of this game hears about it; anyone else is not answered.
            let sender_plays_here = seats
                .iter()
                .any(|s| s.email.trim().eq_ignore_ascii_case(mail.from.trim()));
            return Ok(Decision {
                outcome: InboundOutcome::Refused,
                code: Some(InboundCode::Reply(ReplyCode::WrongSender)),
                mail: sender_plays_here.then(|| {
                    compose::answer(
                        self.site(),
                        Answer {
                            game: Some((&row, &info)),
                            account_id: None,
                            to: mail.from.clone(),
                            what: "reply refused",
                            body: format!("Your email was refused: {detail}\n"),
                            reply_to: None,
                            in_reply_to: &mail.message_id,
                            seat: None,
                        },
                    )
                }),
                detail,
                applied: Vec::new(),
                game_id: Some(row.id),
                version: Some(row.version),
            });
        }
        let ctx = Ctx {
            domain: self,
            row: &row,
            info: &info,
            player: &player,
            seats: &seats,
            mail,
        };
        // `say` lines go to the chat, with the rest of the reply or not at all.
        let (said, lines) = say::split(&mail.lines);
        let said = match say::check(conn, &row, &player, said)? {
            Ok(said) => said,
            Err(refusal) => {
                let state = self.load(&row)?;
                return Ok(ctx.refused(refusal.code, refusal.detail, state.as_deref()));
            }
        };
        let game = LockedGame {
            row: row.clone(),
            seats: seats.clone(),
        };
        if lines.is_empty() && !said.is_empty() {
            return ctx.chat_only(conn, &game, &said);
        }
        let mut decision = self.decide_lines(conn, &ctx, &token, &seats, &lines)?;
        ctx.say_with(conn, &game, &said, &mut decision)?;
        Ok(decision)
    }

    /// What the reply's command lines (its `say` lines taken out) ask of the seat's game.
    fn decide_lines(
        &self,
        conn: &mut PgConnection,
        ctx: &Ctx<'_>,
        token: &ReplyToken,
        seats: &[SeatInfo],
        lines: &[String],
    ) -> DomainResult<Decision> {
        let (row, player) = (ctx.row, ctx.player);
        let state = self.load(row)?;
        let seat = player.seat as usize;
        // The game's own choices, while it is being played, win over the commands.
        let is_choice = |line: &str| {
            row.status == GameStatus::Active
                && state
                    .as_deref()
                    .is_some_and(|s| written(s, seat, seats, line).is_some())
        };
        // Mail settings work through any email of the game, however old, and whatever
        // the game's state: they change what the player receives, not the game.
        match parse_request(lines, is_choice) {
            Ok(Request::Stop) => return ctx.mail_setting(conn, None),
            Ok(Request::Mute(on)) => return ctx.mail_setting(conn, Some(on)),
            Ok(Request::Rematch) if row.status == GameStatus::Finished => {
                return ctx.rematch(conn);
            }
            _ => {}
        }
        let request = parse_request(lines, is_choice);
        let Some(state) = state else {
            return Ok(ctx.refused(
                ProblemCode::GameNotActive,
                "the game has not started".into(),
                None,
            ));
        };
        if row.status == GameStatus::Finished {
            let summary = row
                .result
                .as_ref()
                .and_then(|r| r["summary"].as_str())
                .unwrap_or("the game is over");
            let summary =
                compose::named_sentence(state.as_ref(), player.seat as usize, seats, summary);
            return Ok(ctx.refused(
                ProblemCode::GameNotActive,
                format!("the game is over: {summary}"),
                None,
            ));
        }
        let request = match request {
            Ok(r) => r,
            Err((code, detail)) => return Ok(ctx.refused(code, detail, Some(state.as_ref()))),
        };
        match request {
            Request::Help => Ok(ctx.help(state.as_ref())),
            Request::Stop => ctx.mail_setting(conn, None),
            Request::Mute(on) => ctx.mail_setting(conn, Some(on)),
            Request::Rematch => Ok(ctx.refused(
                ProblemCode::GameNotFinished,
                "a rematch can be asked for once the game is over".into(),
                Some(state.as_ref()),
            )),
            Request::Status => Ok(ctx.status(state.as_ref())),
            Request::Takeback => ctx.takeback(conn, seats, None, state.as_ref()),
            Request::AnswerTakeback(accept) => {
                ctx.takeback(conn, seats, Some(accept), state.as_ref())
            }
            _ if token.version != row.version
                && !self.seat_unchanged_since(
                    conn,
                    row,
                    player.seat,
                    token.version,
                    state.as_ref(),
                )? =>
            {
                Ok(ctx.stale(token.version, state.as_ref()))
            }
            Request::Resign => ctx.resign(conn, seats, state.as_ref()),
            Request::Play { lines, preview } => ctx.play(conn, seats, state, lines, preview),
        }
    }
}

/// The context of an answer to a recognised player.
mod requests;
mod say;

struct Ctx<'a> {
    domain: &'a Domain,
    row: &'a GameRow,
    info: &'a GameInfo,
    player: &'a SeatInfo,
    /// Everyone at the table, to name them in what the answer says.
    seats: &'a [SeatInfo],
    mail: &'a InboundMail,
}

impl Ctx<'_> {
    /// `rematch` on a finished game: the new game is made (or found, when another player
    /// asked first) and named in the answer; its first player gets a turn email of its own.
    fn rematch(&self, conn: &mut PgConnection) -> DomainResult<Decision> {
        let new = self
            .domain
            .rematch_locked(conn, self.player.account_id, self.row.id)?;
        let game = format!("{} #{}", self.info.name, self.row.id);
        let detail = format!("the rematch of {game} is game #{new}");
        let body = format!(
            "Hello {},\n\nThe rematch of {game} is on: {} #{new}, with the same players, the seats \
             rotated by one and the same options. Whoever starts gets an email for their turn.\n\n\
             The new game: {}/#/game/{new}\n",
            self.player.name,
            self.info.name,
            self.domain.public_url.trim_end_matches('/'),
        );
        Ok(Decision {
            outcome: InboundOutcome::Rematch,
            code: None,
            mail: Some(compose::answer(
                self.domain.site(),
                Answer {
                    game: Some((self.row, self.info)),
                    account_id: Some(self.player.account_id),
                    to: self.player.email.clone(),
                    what: "rematch",
                    body,
                    reply_to: None,
                    in_reply_to: &self.mail.message_id,
                    seat: Some(self.player.seat),
                },
            )),
            detail,
            applied: Vec::new(),
            game_id: Some(new),
            version: None,
        })
    }

    /// `stop` (`mute` `None`): no more game emails for the account; `mute`/`unmute`
    /// (`Some(on)`): none, or again, about this game. Answered with what changed.
    fn mail_setting(&self, conn: &mut PgConnection, mute: Option<bool>) -> DomainResult<Decision> {
        use crate::store::schema::{accounts, game_seats};
        let game = format!("{} #{}", self.info.name, self.row.id);
        let (outcome, detail, body) = match mute {
            None => {
                diesel::update(accounts::table.find(self.player.account_id))
                    .set((
                        accounts::email_notifications.eq(false),
                        accounts::daily_digest.eq(false),
                        accounts::updated_at.eq(diesel::dsl::now),
                    ))
                    .execute(conn)?;
                (
                    InboundOutcome::Stopped,
                    "game emails are off for your account".to_string(),
                    "You will get no more game emails: no turn emails, reminders or digests. \
                     Answers to your own replies still come.\n\nTo turn game emails back on, set \
                     email_notifications to each_turn (PATCH /api/v1/me).\n"
                        .to_string(),
                )
            }
            Some(on) => {
                diesel::update(
                    game_seats::table.filter(
                        game_seats::game_id
                            .eq(self.row.id)
                            .and(game_seats::seat.eq(self.player.seat)),
                    ),
                )
                .set(game_seats::muted.eq(on))
                .execute(conn)?;
                if on {
                    (
                        InboundOutcome::Muted,
                        format!("{game} is muted"),
                        format!(
                            "You will get no more email about {game}; the game goes on as before. \
                             Reply `unmute` to this email to get its emails again.\n"
                        ),
                    )
                } else {
                    (
                        InboundOutcome::Unmuted,
                        format!("{game} is no longer muted"),
                        format!("You will get email about {game} again.\n"),
                    )
                }
            }
        };
        let body = format!(
            "Hello {},\n\n{body}\nOpen the game: {}/#/game/{}\n",
            self.player.name,
            self.domain.public_url.trim_end_matches('/'),
            self.row.id
        );
        Ok(Decision {
            outcome,
            code: None,
            mail: Some(compose::answer(
                self.domain.site(),
                Answer {
                    game: Some((self.row, self.info)),
                    account_id: Some(self.player.account_id),
                    to: self.player.email.clone(),
                    what: "email settings",
                    body,
                    reply_to: Some(self.domain.reply.address(ReplyToken {
                        game_id: self.row.id,
                        seat: self.player.seat,
                        version: self.row.version,
                    })),
                    in_reply_to: &self.mail.message_id,
                    seat: Some(self.player.seat),
                },
            )),
            detail,
            applied: Vec::new(),
            game_id: Some(self.row.id),
            version: Some(self.row.version),
        })
    }

    /// An answer to the player; its Reply-To carries a fresh token when they can act.
    fn answer(
        &self,
        outcome: InboundOutcome,
        code: Option<InboundCode>,
        detail: String,
        body: String,
        state: &dyn LoadedGame,
        applied: Vec<String>,
    ) -> Decision {
        let can_act = self.row.status == GameStatus::Active
            && !state.legal_actions(self.player.seat as usize).is_empty();
        let reply_to = can_act.then(|| {
            self.domain.reply.address(ReplyToken {
                game_id: self.row.id,
                seat: self.player.seat,
                version: self.row.version,
            })
        });
        let what = match outcome {
            InboundOutcome::Applied | InboundOutcome::Resigned => "move played",
            InboundOutcome::Previewed => "preview",
            InboundOutcome::Status | InboundOutcome::Help => "status",
            InboundOutcome::Takeback => "takeback",
            InboundOutcome::Chatted => "chat",
            _ => "reply refused",
        };
        let body = format!(
            "Hello {},\n\n{body}\nOpen the game: {}/#/game/{}\n",
            self.player.name,
            self.domain.public_url.trim_end_matches('/'),
            self.row.id
        );
        Decision {
            outcome,
            code,
            mail: Some(compose::answer(
                self.domain.site(),
                Answer {
                    game: Some((self.row, self.info)),
                    account_id: Some(self.player.account_id),
                    to: self.player.email.clone(),
                    what,
                    body,
                    reply_to,
                    in_reply_to: &self.mail.message_id,
                    seat: Some(self.player.seat),
                },
            )),
            detail,
            applied,
            game_id: Some(self.row.id),
            version: Some(self.row.version),
        }
    }

    fn refused(
        &self,
        code: impl Into<InboundCode>,
        detail: String,
        state: Option<&dyn LoadedGame>,
    ) -> Decision {
        let code = code.into();
        let mut body = format!("Your reply was refused: {detail}.\n\n");
        match state {
            Some(st) => {
                if self.row.status == GameStatus::Active {
                    compose::position_and_choices(
                        &mut body,
                        st,
                        self.player.seat as usize,
                        self.seats,
                    );
                }
                self.answer(
                    InboundOutcome::Refused,
                    Some(code),
                    detail,
                    body,
                    st,
                    Vec::new(),
                )
            }
            None => {
                let mut d = Decision {
                    outcome: InboundOutcome::Refused,
                    code: Some(code),
                    detail: detail.clone(),
                    applied: Vec::new(),
                    mail: None,
                    game_id: Some(self.row.id),
                    version: Some(self.row.version),
                };
                d.mail = Some(compose::answer(
                    self.domain.site(),
                    Answer {
                        game: Some((self.row, self.info)),
                        account_id: Some(self.player.account_id),
                        to: self.player.email.clone(),
                        what: "reply refused",
                        body,
                        reply_to: None,
                        in_reply_to: &self.mail.message_id,
                        seat: Some(self.player.seat),
                    },
                ));
                d
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Request, parse_request};
    use crate::store::kinds::ReplyCode;

    fn none(_: &str) -> bool {
        false
    }

    fn lines(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn requests() {
        assert_eq!(parse_request(&lines(&["Help"]), none), Ok(Request::Help));
        assert_eq!(
            parse_request(&lines(&["status"]), none),
            Ok(Request::Status)
        );
        assert_eq!(
            parse_request(&lines(&["Take back"]), none),
            Ok(Request::Takeback)
        );
        assert_eq!(
            parse_request(&lines(&["Accept."]), none),
            Ok(Request::AnswerTakeback(true))
        );
        assert_eq!(
            parse_request(&lines(&["decline takeback"]), none),
            Ok(Request::AnswerTakeback(false))
        );
        assert_eq!(
            parse_request(&lines(&["preview", "3", "trail 7H"]), none),
            Ok(Request::Play {
                lines: lines(&["3", "trail 7H"]),
                preview: true
            })
        );
        assert_eq!(
            parse_request(&[], none).map_err(|e| e.0),
            Err(ReplyCode::EmptyReply)
        );
        assert_eq!(
            parse_request(&lines(&["resign", "2"]), none).map_err(|e| e.0),
            Err(ReplyCode::MixedCommands)
        );
    }

    #[test]
    fn a_games_own_choice_wins_over_a_command_of_the_same_words() {
        let offer = |l: &str| l.eq_ignore_ascii_case("accept");
        assert_eq!(
            parse_request(&lines(&["Accept"]), offer),
            Ok(Request::Play {
                lines: lines(&["Accept"]),
                preview: false
            })
        );
        assert_eq!(
            parse_request(&lines(&["decline"]), offer),
            Ok(Request::AnswerTakeback(false))
        );
    }
}
