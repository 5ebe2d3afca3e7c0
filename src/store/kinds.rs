//! The closed sets of words the tables hold (a game's status, its timeout policy, an
//! invitation's status, webhook events), as enums: a row read with anything else is an
//! error at the edge, and code matches on variants instead of comparing strings. Stored as
//! text (most columns have CHECK constraints).

use std::io::Write;

use diesel::deserialize::{self, FromSql, FromSqlRow};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::Text;
use diesel_derive_newtype::DieselNewType;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A word outside its closed set (a corrupt or newer row, a stray value): refused where it
/// is read, as an error the caller handles, never a panic.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {set} {word:?}")]
pub struct UnknownWord {
    /// The set's name, e.g. `InvitationStatus`.
    pub set: &'static str,
    pub word: String,
}

/// Declares a text-stored enum: its words, parsing, display, and diesel mapping.
macro_rules! text_enum {
    ($(#[$meta:meta])* $name:ident { $($(#[$vmeta:meta])* $variant:ident = $word:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema,
            AsExpression, FromSqlRow,
        )]
        #[diesel(sql_type = Text)]
        // Every word is its variant's name in snake case (the unit test checks it).
        #[serde(rename_all = "snake_case")]
        pub enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $word),+
                }
            }

            /// The variant named `word`, if any.
            pub fn from_word(word: &str) -> Option<$name> {
                match word {
                    $($word => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownWord;

            fn from_str(word: &str) -> Result<Self, UnknownWord> {
                $name::from_word(word).ok_or_else(|| UnknownWord {
                    set: stringify!($name),
                    word: word.to_string(),
                })
            }
        }

        impl ToSql<Text, Pg> for $name {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                out.write_all(self.as_str().as_bytes())?;
                Ok(IsNull::No)
            }
        }

        impl FromSql<Text, Pg> for $name {
            fn from_sql(bytes: PgValue<'_>) -> deserialize::Result<Self> {
                let word = std::str::from_utf8(bytes.as_bytes())?;
                Ok(word.parse::<$name>()?)
            }
        }
    };
}

text_enum! {
    /// Where a game is in its life.
    GameStatus {
        /// Waiting for players.
        Open = "open",
        Active = "active",
        Finished = "finished",
    }
}

text_enum! {
    /// A game's chat channel: the whole table's, or the caller's team's (team games).
    ChatChannel {
        /// Every seated player reads it.
        Table = "table",
        /// Only the caller's team reads it (Partners with four players, Kasino in teams).
        Team = "team",
    }
}

text_enum! {
    /// What happens to a seat whose clock runs out.
    TimeoutPolicy {
        /// The seat forfeits (a bot plays it if the game goes on).
        Forfeit = "forfeit",
        /// A random legal move is played for it, and its clock starts again.
        RandomMove = "random_move",
        /// The computer takes the seat over for the rest of the game (its player may take
        /// it back with `POST /games/{id}/resume`).
        Bot = "bot",
    }
}

text_enum! {
    /// Where an invitation is: `pending` until it is answered (or it lapses), then
    /// `accepted`, `declined` or `cancelled` (by the game's creator); `expired` is shown for
    /// a pending one past its time, and is never stored.
    InvitationStatus {
        Pending = "pending",
        Accepted = "accepted",
        Declined = "declined",
        Cancelled = "cancelled",
        Expired = "expired",
    }
}

text_enum! {
    /// An event a webhook may take.
    WebhookEvent {
        /// The game now waits for the seat.
        YourTurn = "your_turn",
        /// The seat has something to decide although the game does not wait for it.
        Offer = "offer",
        /// The game ended.
        GameFinished = "game_finished",
        /// A chat message at the table (or the seat's team) that the account may read.
        ChatMessage = "chat_message",
    }
}

text_enum! {
    /// What a webhook delivery is about: one of the events, or the test `ping`.
    DeliveryEvent {
        YourTurn = "your_turn",
        Offer = "offer",
        GameFinished = "game_finished",
        ChatMessage = "chat_message",
        /// The test delivery of `POST /me/webhooks/{id}/test`.
        Ping = "ping",
    }
}

impl From<WebhookEvent> for DeliveryEvent {
    fn from(e: WebhookEvent) -> DeliveryEvent {
        match e {
            WebhookEvent::YourTurn => DeliveryEvent::YourTurn,
            WebhookEvent::Offer => DeliveryEvent::Offer,
            WebhookEvent::GameFinished => DeliveryEvent::GameFinished,
            WebhookEvent::ChatMessage => DeliveryEvent::ChatMessage,
        }
    }
}

text_enum! {
    /// What became of an inbound email (stored with it, and answered as
    /// `InboundResponse.outcome`).
    InboundOutcome {
        /// The reply's moves were played.
        Applied = "applied",
        /// The moves were tried on a copy (`preview`); nothing was played.
        Previewed = "previewed",
        /// Nothing was done; `code` says why.
        Refused = "refused",
        /// The reply answers an old position; the current one was sent.
        Stale = "stale",
        Status = "status",
        Help = "help",
        Resigned = "resigned",
        /// A takeback was asked for or answered.
        Takeback = "takeback",
        /// Game emails were turned off for the account.
        Stopped = "stopped",
        Muted = "muted",
        Unmuted = "unmuted",
        /// A rematch was made (`game_id` is the new game).
        Rematch = "rematch",
        /// Chat lines only (`say …`), sent to the table.
        Chatted = "chatted",
        /// A delivery-status report marked an address as bouncing.
        Bounce = "bounce",
        /// This Message-ID was processed before.
        Duplicate = "duplicate",
        /// Automatic mail, or a report about no email of ours.
        Ignored = "ignored",
    }
}

text_enum! {
    /// Why an inbound email was refused or ignored, where no problem code says it: the
    /// words of email replies.
    ReplyCode {
        /// The reply holds no command.
        EmptyReply = "empty_reply",
        /// A keyword such as `help` was not the reply's only line.
        MixedCommands = "mixed_commands",
        /// The line fits several actions: the answer lists the ways to write each.
        ChooseAWay = "choose_a_way",
        /// The line names a choice that is not listed.
        NoSuchChoice = "no_such_choice",
        /// The line is neither the number nor the text of a choice.
        UnknownCommand = "unknown_command",
        /// The email was not sent to a game's reply address.
        NoReplyToken = "no_reply_token",
        /// The reply address was altered, or its game or seat is gone.
        InvalidReplyToken = "invalid_reply_token",
        /// The sender is not the seat's player.
        WrongSender = "wrong_sender",
        /// The reply answers an old position.
        StaleToken = "stale_token",
        /// A delivery-status report about no email of ours.
        UnknownBounce = "unknown_bounce",
        /// The message was too complex to read.
        MessageTooComplex = "message_too_complex",
    }
}

text_enum! {
    /// An account's address, as `GET /api/v1/me` shows it (worked out from its row).
    EmailStatus {
        /// The confirmation link sent at sign-up was not followed yet.
        Unverified = "unverified",
        Verified = "verified",
        /// A delivery-status report said mail to the address fails.
        Bouncing = "bouncing",
        /// Our last email to it was given up after every attempt.
        Failing = "failing",
    }
}

text_enum! {
    /// Where a webhook delivery is (worked out from its outbox row).
    DeliveryStatus {
        /// Waiting for its first or next attempt.
        Pending = "pending",
        /// The receiver answered 2xx.
        Delivered = "delivered",
        /// Given up after the last attempt.
        Failed = "failed",
        /// No longer worth sending.
        Dropped = "dropped",
    }
}

text_enum! {
    /// What an outbox row is: the job its sender does. Game emails are rendered when sent
    /// (turn, reminder, nudge, over, takeback); the rest are stored rendered, except
    /// webhooks, which are posted. A row without a kind is mail stored rendered before
    /// kinds existed. The column's CHECK (migration `outbox_kinds`) holds the same words.
    OutboxKind {
        Turn = "turn",
        Reminder = "reminder",
        Nudge = "nudge",
        Over = "over",
        /// A player asks the seat to agree to a takeback (or, to the asker: declined).
        Takeback = "takeback",
        /// The answer to a player's email reply.
        Answer = "answer",
        Digest = "digest",
        /// An address confirmation link.
        Verify = "verify",
        Invite = "invite",
        /// A sign-up link to a new address.
        SignUp = "sign_up",
        /// The notice to an address that already has an account.
        SignUpTaken = "sign_up_taken",
        /// A password reset link.
        PasswordReset = "password_reset",
        Webhook = "webhook",
        /// A game's chat, to a player with no turn email coming (see `domain::chat_mail`).
        Chat = "chat",
    }
}

impl OutboxKind {
    /// Game emails, written from the game as it is when they are sent.
    pub fn is_game_mail(self) -> bool {
        matches!(
            self,
            OutboxKind::Turn
                | OutboxKind::Reminder
                | OutboxKind::Nudge
                | OutboxKind::Over
                | OutboxKind::Takeback
                | OutboxKind::Chat
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_strangers_are_refused() {
        for s in GameStatus::ALL {
            assert_eq!(GameStatus::from_word(s.as_str()), Some(*s));
            assert_eq!(
                serde_json::to_value(s).ok(),
                Some(serde_json::json!(s.as_str()))
            );
        }
        for p in TimeoutPolicy::ALL {
            assert_eq!(TimeoutPolicy::from_word(p.as_str()), Some(*p));
        }
        assert_eq!(GameStatus::from_word("Active"), None);
        assert_eq!(TimeoutPolicy::from_word("random move"), None);
        for w in DeliveryEvent::ALL {
            assert_eq!(w.as_str().parse::<DeliveryEvent>(), Ok(*w));
            assert_eq!(
                serde_json::to_value(w).ok(),
                Some(serde_json::json!(w.as_str()))
            );
        }
        for w in WebhookEvent::ALL {
            assert_eq!(DeliveryEvent::from(*w).as_str(), w.as_str());
        }
        for w in InvitationStatus::ALL {
            assert_eq!(
                serde_json::to_value(w).ok(),
                Some(serde_json::json!(w.as_str()))
            );
        }
    }

    /// Each set's words are its serde form (the wire) and read back as themselves.
    macro_rules! check_words {
        ($($set:ident),+) => {$(
            for w in $set::ALL {
                assert_eq!(w.as_str().parse::<$set>(), Ok(*w));
                assert_eq!(
                    serde_json::to_value(w).ok(),
                    Some(serde_json::json!(w.as_str())),
                    "{w:?}"
                );
            }
        )+};
    }

    #[test]
    fn every_set_speaks_its_words() {
        check_words!(
            GameStatus,
            TimeoutPolicy,
            InvitationStatus,
            WebhookEvent,
            DeliveryEvent,
            ReplyCode,
            InboundOutcome,
            EmailStatus,
            DeliveryStatus
        );
    }

    #[test]
    fn a_bad_stored_word_is_a_typed_error() {
        assert_eq!(
            "withdrawn".parse::<InvitationStatus>(),
            Err(UnknownWord {
                set: "InvitationStatus",
                word: "withdrawn".into()
            })
        );
        assert!("ping".parse::<WebhookEvent>().is_err());
        assert!("".parse::<GameStatus>().is_err());
    }
}

/// Declares an id: a row's `BIGINT` key that cannot be mixed up with another table's. Its
/// diesel mapping is the inner `i64`'s (`DieselNewType`).
macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            ToSchema, DieselNewType,
        )]
        #[serde(transparent)]
        pub struct $name(pub i64);

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::num::ParseIntError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map($name)
            }
        }
    };
}

id_type! {
    /// A game's id.
    GameId
}

id_type! {
    /// An account's id.
    AccountId
}
