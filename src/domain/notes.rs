//! Private notes: one free-text note per seat per game, read and written only by
//! the account holding the seat. Everyone else is answered as for any seat-only request:
//! `404 game_not_found` when the game is hidden from them, else `403 not_a_player`.

use chrono::{DateTime, Utc};
use diesel::prelude::*;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::locked::LockedGame;
use super::{Domain, DomainError, DomainResult, ProblemCode};
use crate::store::kinds::{AccountId, GameId};
use crate::store::schema::game_notes;

/// The most characters a note may hold.
pub const MAX_NOTE_CHARS: usize = 4000;

/// A seat's private note on a game.
#[derive(Debug, Serialize, ToSchema)]
pub struct NoteResponse {
    pub game_id: GameId,
    /// The note's text; empty when none was written.
    pub body: String,
    /// When it was last written; null when never.
    pub updated_at: Option<DateTime<Utc>>,
}

/// A note to keep in place of the seat's current one (empty: delete it).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NoteRequest {
    /// At most 4000 characters; no NUL, no control characters but tab and line breaks, no
    /// bidirectional overrides or isolates (U+202A–U+202E, U+2066–U+2069).
    #[schema(
        max_length = 4000,
        pattern = r"^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\u202A-\u202E\u2066-\u2069]*$",
        example = "Bo keeps the tens; count the spades."
    )]
    pub body: String,
}

/// Whether `c` may not appear in a note: control characters other than tab and line
/// breaks (NUL among them), and the bidirectional embeddings, overrides and isolates that
/// can make text read differently from how it is stored.
pub fn forbidden_char(c: char) -> bool {
    (c.is_control() && !matches!(c, '\t' | '\n' | '\r'))
        || ('\u{202A}'..='\u{202E}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c)
}

/// The note as it will be stored, or why it is refused.
pub fn check_note(body: &str) -> DomainResult<()> {
    let chars = body.chars().count();
    if chars > MAX_NOTE_CHARS {
        return Err(DomainError::invalid(
            ProblemCode::InvalidNote,
            format!("a note holds at most {MAX_NOTE_CHARS} characters, not {chars}"),
        ));
    }
    if let Some((i, c)) = body.chars().enumerate().find(|&(_, c)| forbidden_char(c)) {
        return Err(DomainError::invalid(
            ProblemCode::InvalidNote,
            format!(
                "character {} of the note is U+{:04X}: control and bidirectional formatting characters are not allowed",
                i + 1,
                u32::from(c)
            ),
        ));
    }
    Ok(())
}

impl Domain {
    /// The caller's seat in game `id`: `404` when the game is hidden from them, else `403`.
    fn note_seat(
        &self,
        conn: &mut PgConnection,
        account: AccountId,
        id: GameId,
    ) -> DomainResult<()> {
        let game = LockedGame::read(conn, id)?;
        self.seat_or_hidden(conn, &game, account)?;
        Ok(())
    }

    pub fn get_note(&self, account: AccountId, id: GameId) -> DomainResult<NoteResponse> {
        let mut conn = self.conn()?;
        self.note_seat(&mut conn, account, id)?;
        let row: Option<(String, DateTime<Utc>)> = game_notes::table
            .find((id, account))
            .select((game_notes::body, game_notes::updated_at))
            .first(&mut conn)
            .optional()?;
        Ok(match row {
            Some((body, at)) => NoteResponse {
                game_id: id,
                body,
                updated_at: Some(at),
            },
            None => NoteResponse {
                game_id: id,
                body: String::new(),
                updated_at: None,
            },
        })
    }

    /// Keeps `body` as the caller's note (one statement: concurrent writes end with one of
    /// them whole, never an error).
    pub fn put_note(
        &self,
        account: AccountId,
        id: GameId,
        req: NoteRequest,
    ) -> DomainResult<NoteResponse> {
        check_note(&req.body)?;
        let mut conn = self.conn()?;
        self.note_seat(&mut conn, account, id)?;
        if req.body.is_empty() {
            diesel::delete(game_notes::table.find((id, account))).execute(&mut conn)?;
            return Ok(NoteResponse {
                game_id: id,
                body: String::new(),
                updated_at: None,
            });
        }
        let now = Utc::now();
        let (body, at): (String, DateTime<Utc>) = diesel::insert_into(game_notes::table)
            .values((
                game_notes::game_id.eq(id),
                game_notes::account_id.eq(account),
                game_notes::body.eq(&req.body),
                game_notes::updated_at.eq(now),
            ))
            .on_conflict((game_notes::game_id, game_notes::account_id))
            .do_update()
            .set((
                game_notes::body.eq(&req.body),
                game_notes::updated_at.eq(now),
            ))
            .returning((game_notes::body, game_notes::updated_at))
            .get_result(&mut conn)?;
        Ok(NoteResponse {
            game_id: id,
            body,
            updated_at: Some(at),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn notes_refuse_controls_and_bidi_but_keep_line_breaks() {
        assert!(check_note("plan:\n\tkeep the tens\r\n").is_ok());
        assert!(check_note("<b>bold</b> & \"quotes\"").is_ok());
        for bad in ["a\0b", "x\u{202E}y", "\u{2066}z", "\u{7}", "\u{1b}[31m"] {
            assert!(check_note(bad).is_err(), "{bad:?}");
        }
        assert!(check_note(&"é".repeat(MAX_NOTE_CHARS)).is_ok());
        assert!(check_note(&"é".repeat(MAX_NOTE_CHARS + 1)).is_err());
    }
}
