//! Chat by email: the lines of a reply that start with `say` go to the game's chat (`say
//! team:` to the team's channel), each run of them one message. They are posted with the
//! rest of the reply or not at all: moves refused, or a reply to an old position, post
//! nothing. Quoted text never gets here (`notify::inbound` leaves it out).

use diesel::prelude::*;
use diesel::sql_types::BigInt;

use super::{Ctx, Decision, Refusal};
use crate::domain::chat::{MAX_CHARS, PER_MINUTE, neutralise, team_of};
use crate::domain::locked::LockedGame;
use crate::domain::{DomainResult, ProblemCode};
use crate::notify::compose;
use crate::store::kinds::{ChatChannel, InboundOutcome};
use crate::store::models::{GameRow, SeatInfo};
use crate::store::schema::chat_email_replies;

/// One message a reply says.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Said {
    pub channel: ChatChannel,
    pub text: String,
}

/// The reply's `say` messages (raw), and its other lines. A `say` line's words go to the
/// chat; consecutive ones to the same channel make one message of several lines.
pub(super) fn split(lines: &[String]) -> (Vec<Said>, Vec<String>) {
    let mut said: Vec<Said> = Vec::new();
    let mut rest = Vec::new();
    let mut in_run = false;
    for line in lines {
        let Some((channel, text)) = say_line(line) else {
            rest.push(line.clone());
            in_run = false;
            continue;
        };
        match said.last_mut() {
            Some(last) if in_run && last.channel == channel => {
                last.text.push('\n');
                last.text.push_str(text);
            }
            _ => said.push(Said {
                channel,
                text: text.to_string(),
            }),
        }
        in_run = true;
    }
    (said, rest)
}

/// `say …` (or `say: …`) to the table, `say team: …` to the team; any case.
fn say_line(line: &str) -> Option<(ChatChannel, &str)> {
    let line = line.trim_start();
    let head = line.get(..4)?;
    if !head.eq_ignore_ascii_case("say ") && !head.eq_ignore_ascii_case("say:") {
        return None;
    }
    let text = line[4..].trim_start();
    match text.get(..5) {
        Some(t) if t.eq_ignore_ascii_case("team:") => Some((ChatChannel::Team, text[5..].trim())),
        _ => Some((ChatChannel::Table, text.trim())),
    }
}

/// The messages neutralised as the API would, or why the reply is refused: no text, too
/// long, a team channel in a game without teams, or more than the rate limit allows.
pub(super) fn check(
    conn: &mut PgConnection,
    row: &GameRow,
    player: &SeatInfo,
    said: Vec<Said>,
) -> DomainResult<Result<Vec<Said>, Refusal>> {
    let mut out = Vec::with_capacity(said.len());
    for (i, s) in said.into_iter().enumerate() {
        let what = format!("`say` message {}", i + 1);
        let text = match neutralise(&s.text, MAX_CHARS, false) {
            Ok(text) => text,
            Err(e) => {
                return Ok(Err(Refusal::new(
                    e.code(),
                    format!("{what}: {e}; nothing was done"),
                )));
            }
        };
        if s.channel == ChatChannel::Team && team_of(row, player.seat).is_none() {
            return Ok(Err(Refusal::new(
                ProblemCode::NoTeamChannel,
                format!(
                    "{what}: this game has no teams, so `say team:` has no one to go to; \
                     write `say` for the table. Nothing was done"
                ),
            )));
        }
        out.push(Said {
            channel: s.channel,
            text,
        });
    }
    if !out.is_empty() {
        let recent: i64 = diesel::sql_query(
            "SELECT count(*) AS n FROM chat_messages WHERE account_id = $1 \
             AND created_at > clock_timestamp() - interval '1 minute'",
        )
        .bind::<BigInt, _>(player.account_id)
        .get_result::<Count>(conn)?
        .n;
        if recent + out.len() as i64 > PER_MINUTE {
            return Ok(Err(Refusal::new(
                ProblemCode::RateLimited,
                format!(
                    "a player may post {PER_MINUTE} chat messages a minute; try again in a \
                     minute. Nothing was done"
                ),
            )));
        }
    }
    Ok(Ok(out))
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// How the answer names what was said.
fn listing(said: &[Said]) -> String {
    said.iter()
        .map(|s| {
            let to = match s.channel {
                ChatChannel::Table => "to the table",
                ChatChannel::Team => "to your team",
            };
            format!("  {to}: {}", s.text.replace('\n', "\n      "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl Ctx<'_> {
    /// Whether this reply's chat was posted before: once its processed record is pruned,
    /// a mail server's second delivery would post it again. Records it otherwise.
    fn said_before(&self, conn: &mut PgConnection) -> DomainResult<bool> {
        use sha2::Digest;
        let hash = sha2::Sha256::digest(self.mail.message_id.as_bytes()).to_vec();
        let fresh = diesel::insert_into(chat_email_replies::table)
            .values((
                chat_email_replies::game_id.eq(self.row.id),
                chat_email_replies::message_hash.eq(hash),
            ))
            .on_conflict_do_nothing()
            .execute(conn)?;
        Ok(fresh == 0)
    }

    /// A reply of `say` lines alone: posted, whatever the game's state or the email's age,
    /// unless the same message was posted before.
    pub(super) fn chat_only(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        said: &[Said],
    ) -> DomainResult<Decision> {
        // Reply addresses come with game emails, sent once a game has begun.
        let Some(state) = self.domain.load(self.row)? else {
            return Ok(self.refused(
                ProblemCode::GameNotActive,
                "the game has not started".into(),
                None,
            ));
        };
        if !self.post(conn, game, said)? {
            // Delivered again after its processed record was pruned: as any duplicate.
            return Ok(Decision {
                outcome: InboundOutcome::Duplicate,
                code: None,
                detail: "this message was processed before; nothing was done".into(),
                applied: Vec::new(),
                mail: None,
                game_id: Some(self.row.id),
                version: None,
            });
        }
        let body = format!("Your message was posted:\n{}\n", listing(said));
        Ok(self.answer(
            InboundOutcome::Chatted,
            None,
            format!("{} message(s) posted to the chat", said.len()),
            body,
            state.as_ref(),
            Vec::new(),
        ))
    }

    /// Posts what a reply said once the rest of it went through, and says so in the
    /// answer; a reply refused (or only previewed, or stale) posts nothing, and says that.
    pub(super) fn say_with(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        said: &[Said],
        decision: &mut Decision,
    ) -> DomainResult<()> {
        if said.is_empty() {
            return Ok(());
        }
        let posted = matches!(
            decision.outcome,
            InboundOutcome::Applied
                | InboundOutcome::Resigned
                | InboundOutcome::Status
                | InboundOutcome::Help
                | InboundOutcome::Takeback
                | InboundOutcome::Stopped
                | InboundOutcome::Muted
                | InboundOutcome::Unmuted
                | InboundOutcome::Rematch
        );
        let note = if posted {
            self.post(conn, game, said)?;
            format!("Your message was posted:\n{}", listing(said))
        } else {
            format!(
                "Your message was not posted either (a reply's chat goes with its moves):\n{}",
                listing(said)
            )
        };
        if let Some(mail) = decision.mail.as_mut() {
            // After the greeting, before what the answer is about.
            let body = match mail.body_text.split_once("\n\n") {
                Some((hello, rest)) => format!("{hello}\n\n{note}\n\n{rest}"),
                None => format!("{note}\n\n{}", mail.body_text),
            };
            let link = format!(
                "{}/#/game/{}",
                self.domain.public_url.trim_end_matches('/'),
                self.row.id
            );
            mail.body_html = compose::html_part(&mail.subject, &body, &link);
            mail.body_text = body;
        }
        Ok(())
    }

    /// Posts `said`, unless this reply's chat was posted before; whether it posted.
    fn post(
        &self,
        conn: &mut PgConnection,
        game: &LockedGame,
        said: &[Said],
    ) -> DomainResult<bool> {
        if self.said_before(conn)? {
            return Ok(false);
        }
        for s in said {
            self.domain
                .post_chat_on(conn, game, self.player.account_id, s.channel, &s.text)?;
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn say_lines_are_taken_out_and_runs_joined() {
        let (said, rest) = split(&lines(
            "3\nSay good luck!\nsay: see you\nsay team: keep the tens\nSAY TEAM: and spades\n4\nsayonara\nsay",
        ));
        assert_eq!(
            said,
            vec![
                Said {
                    channel: ChatChannel::Table,
                    text: "good luck!\nsee you".into()
                },
                Said {
                    channel: ChatChannel::Team,
                    text: "keep the tens\nand spades".into()
                },
            ]
        );
        assert_eq!(rest, lines("3\n4\nsayonara\nsay"));
    }

    #[test]
    fn a_say_line_after_a_move_starts_a_new_message() {
        let (said, rest) = split(&lines("say one\n2\nsay two"));
        assert_eq!(said.len(), 2);
        assert_eq!(rest, lines("2"));
    }
}
