//! What a reply asks for, once its sender is known to hold its seat: help, the position,
//! a takeback, a resignation, or moves (played or previewed). Each answers with a
//! [`Decision`] for `decide` to record and send.

use std::fmt::Write as _;

use super::{Ctx, Decision, Refusal, notation_blocks, resolve};
use crate::domain::games::rule_error;
use crate::domain::locked::{LockedGame, lock_game};
use crate::domain::steps::Step;
use crate::domain::takeback::TakebackStep;
use crate::domain::{DomainError, DomainResult};
use crate::engine::{LoadedGame, Viewer};
use crate::notify::compose::{self, REPLY_HELP};
use crate::store::kinds::{GameStatus, InboundOutcome, ReplyCode};
use crate::store::models::SeatInfo;

impl Ctx<'_> {
    /// How to play by email, with the position and choices.
    pub(super) fn help(&self, state: &dyn LoadedGame) -> Decision {
        let (d, ctx, row, info, player) = (self.domain, self, self.row, self.info, self.player);
        let mut body = format!(
            "How to play {} #{} by email\n\nThe rules: {base}/#/rules/{}\n\
             Playing by email, every game's words, chat, takebacks and clocks: {base}/docs/players\n\n\
             {REPLY_HELP}\nQuoted text and signatures are ignored. \
             A reply to an old email (the game has moved on since) plays nothing and brings the \
             current position.\n\n",
            info.name,
            row.id,
            info.id,
            base = d.public_url.trim_end_matches('/'),
        );
        compose::position_and_choices(&mut body, state, player.seat as usize, ctx.seats);
        ctx.answer(
            InboundOutcome::Help,
            None,
            "help".into(),
            body,
            state,
            Vec::new(),
        )
    }

    /// The position now, with the seat's choices.
    pub(super) fn status(&self, state: &dyn LoadedGame) -> Decision {
        let (ctx, player) = (self, self.player);
        let mut body = String::new();
        compose::position_and_choices(&mut body, state, player.seat as usize, ctx.seats);
        ctx.answer(
            InboundOutcome::Status,
            None,
            "the current position".into(),
            body,
            state,
            Vec::new(),
        )
    }

    /// Asks for a takeback (`answer` none) or answers another player's (`Some(accept)`),
    /// on the game as it is now, whatever email is answered.
    pub(super) fn takeback(
        &self,
        conn: &mut diesel::PgConnection,
        seats: &[SeatInfo],
        answer: Option<bool>,
        state: &dyn LoadedGame,
    ) -> DomainResult<Decision> {
        let (d, ctx, row, player) = (self.domain, self, self.row, self.player);
        let game = LockedGame {
            row: row.clone(),
            seats: seats.to_vec(),
        };
        let done = match answer {
            Some(accept) => d.answer_takeback_locked(conn, &game, player.seat, accept),
            None => d.ask_takeback_locked(conn, &game, player.seat).map(|now| {
                if now {
                    TakebackStep::TakenBack
                } else {
                    TakebackStep::Asked
                }
            }),
        };
        let outcome = match done {
            Ok(outcome) => outcome,
            Err(
                e @ (DomainError::Conflict { .. }
                | DomainError::Forbidden { .. }
                | DomainError::Invalid { .. }),
            ) => {
                return Ok(ctx.refused(e.code(), e.to_string(), Some(state)));
            }
            Err(e) => return Err(e),
        };
        let detail = match outcome {
            TakebackStep::TakenBack => "the move is taken back",
            TakebackStep::Asked => "the other players are asked to agree to your takeback",
            TakebackStep::Accepted => "you accepted the takeback; the others have yet to answer",
            TakebackStep::Declined => "you declined the takeback; the game goes on",
            TakebackStep::Withdrawn => "you withdrew your takeback request",
        };
        let row = lock_game(conn, row.id)?;
        let state = d.load(&row)?.ok_or_else(|| {
            DomainError::Internal(anyhow::anyhow!("active game {} has no snapshot", row.id))
        })?;
        let ctx = Ctx { row: &row, ..*ctx };
        let mut body = format!("{detail}.\n\n");
        compose::position_and_choices(&mut body, state.as_ref(), player.seat as usize, ctx.seats);
        Ok(ctx.answer(
            InboundOutcome::Takeback,
            None,
            detail.to_string(),
            body,
            state.as_ref(),
            Vec::new(),
        ))
    }

    /// A reply to an email of a position the game has left: nothing is played, and the
    /// position now is sent.
    pub(super) fn stale(&self, answered_version: i64, state: &dyn LoadedGame) -> Decision {
        let (ctx, row, player) = (self, self.row, self.player);
        let detail = format!(
            "this reply answers move {}, but the game has moved on to move {}; nothing was played",
            answered_version + 1,
            row.version + 1
        );
        let mut body = format!("{detail}. Here is the position now.\n\n");
        compose::position_and_choices(&mut body, state, player.seat as usize, ctx.seats);
        ctx.answer(
            InboundOutcome::Stale,
            Some(ReplyCode::StaleToken.into()),
            detail,
            body,
            state,
            Vec::new(),
        )
    }

    /// The seat resigns.
    pub(super) fn resign(
        &self,
        conn: &mut diesel::PgConnection,
        seats: &[SeatInfo],
        state: &dyn LoadedGame,
    ) -> DomainResult<Decision> {
        let (d, ctx, row, info, player) = (self.domain, self, self.row, self.info, self.player);
        d.forfeit_locked(
            conn,
            row,
            seats,
            player.seat,
            super::super::games::GaveUp::Resigned,
            d.clock.now(),
        )?;
        let detail = format!("you resigned {} #{}", info.name, row.id);
        let row = lock_game(conn, row.id)?;
        let ctx = Ctx { row: &row, ..*ctx };
        let body = format!("{detail}.\n");
        Ok(ctx.answer(
            InboundOutcome::Resigned,
            None,
            detail,
            body,
            state,
            Vec::new(),
        ))
    }

    /// Plays (or, with `preview`, only shows) the reply's lines in order: all or nothing.
    pub(super) fn play(
        &self,
        conn: &mut diesel::PgConnection,
        seats: &[SeatInfo],
        state: Box<dyn LoadedGame>,
        lines: Vec<String>,
        preview: bool,
    ) -> DomainResult<Decision> {
        let (d, ctx, row, player) = (self.domain, self, self.row, self.player);
        let seat = player.seat as usize;
        let before_actors = state.actors(row.players as usize);
        let lines = notation_blocks(state.as_ref(), seat, lines);
        // A preview must not foretell what the player cannot know yet (the next
        // tile from the bag, a die): it plays on a copy whose hidden parts, the
        // random stream included, are drawn afresh.
        let mut current = if preview {
            state.resample_hidden(Viewer::Seat(seat), rand::random())
        } else {
            state
        };
        let mut steps = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            let applied = resolve(current.as_ref(), seat, seats, line).and_then(|a| {
                current
                    .apply(seat, &a)
                    .map_err(|e| Refusal::from(rule_error(e)))
            });
            match applied {
                Ok(applied) => {
                    let (step, next) = Step::from_applied(player.seat, applied);
                    steps.push(step);
                    current = next;
                }
                Err(e) => {
                    let detail = format!(
                        "line {} ({line:?}) was refused: {} [{}]; nothing was played{}",
                        i + 1,
                        e.detail,
                        e.code,
                        if i > 0 {
                            ", not even the lines before it"
                        } else {
                            ""
                        }
                    );
                    let state = d
                        .load(row)?
                        .ok_or_else(|| anyhow::anyhow!("snapshot vanished"))?;
                    return Ok(ctx.refused(e.code, detail, Some(state.as_ref())));
                }
            }
        }
        let texts: Vec<String> = steps.iter().map(|s| s.chosen.clone()).collect();
        let mut listing = String::new();
        for t in &texts {
            let _ = writeln!(listing, "  - {t}");
        }
        if preview {
            let mut body = format!(
                "Preview: nothing was played. After\n{listing}\nthe position could be as \
                 below. Anything you cannot know yet (a draw, a die, another player's \
                 hidden choice) is made up for this preview; the real outcome is decided \
                 only when you play.\n\n"
            );
            body.push_str(&current.render_text(Viewer::Seat(seat)));
            body.push_str(
                "\n\nTo play it, reply to this email with the same lines without `preview`.\n",
            );
            let original = d
                .load(row)?
                .ok_or_else(|| anyhow::anyhow!("snapshot vanished"))?;
            return Ok(ctx.answer(
                InboundOutcome::Previewed,
                None,
                "preview; nothing was played".into(),
                body,
                original.as_ref(),
                texts,
            ));
        }
        let (state, row) = d.persist(conn, row, seats, &before_actors, steps, current)?;
        let ctx = Ctx { row: &row, ..*ctx };
        let mut body = format!("Played:\n{listing}\n");
        if row.status == GameStatus::Finished {
            let summary = row
                .result
                .as_ref()
                .and_then(|r| r["summary"].as_str())
                .unwrap_or_default();
            let summary = compose::named_sentence(state.as_ref(), seat, seats, summary);
            let _ = writeln!(body, "The game is over: {summary}");
        } else if state.legal_actions(seat).is_empty() {
            let waiting: Vec<String> = seats
                .iter()
                .filter(|s| row.to_act.contains(&s.seat))
                .map(|s| s.name.clone())
                .collect();
            let _ = writeln!(body, "Now waiting for {}.\n", waiting.join(", "));
            body.push_str(&compose::position_text(state.as_ref(), seat, seats));
            body.push('\n');
        } else {
            body.push_str("It is still your turn.\n\n");
            compose::position_and_choices(&mut body, state.as_ref(), seat, seats);
        }
        Ok(ctx.answer(
            InboundOutcome::Applied,
            None,
            format!("played {} action(s)", texts.len()),
            body,
            state.as_ref(),
            texts,
        ))
    }
}
