//! The closed sets of words the tables hold (a game's status, its timeout policy), as enums:
//! a row read with anything else is an error at the edge, and code matches on variants
//! instead of comparing strings. Stored as text (the columns have CHECK constraints).

use std::io::Write;

use diesel::deserialize::{self, FromSql, FromSqlRow};
use diesel::expression::AsExpression;
use diesel::pg::{Pg, PgValue};
use diesel::serialize::{self, IsNull, Output, ToSql};
use diesel::sql_types::{BigInt, Text};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

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

        impl ToSql<Text, Pg> for $name {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                out.write_all(self.as_str().as_bytes())?;
                Ok(IsNull::No)
            }
        }

        impl FromSql<Text, Pg> for $name {
            fn from_sql(bytes: PgValue<'_>) -> deserialize::Result<Self> {
                let word = std::str::from_utf8(bytes.as_bytes())?;
                $name::from_word(word).ok_or_else(|| {
                    format!(concat!("unknown ", stringify!($name), " {:?}"), word).into()
                })
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
    }
}

/// Declares an id: a row's `BIGINT` key that cannot be mixed up with another table's.
macro_rules! id_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
            ToSchema, AsExpression, FromSqlRow,
        )]
        #[diesel(sql_type = BigInt)]
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

        impl ToSql<BigInt, Pg> for $name {
            fn to_sql<'b>(&'b self, out: &mut Output<'b, '_, Pg>) -> serialize::Result {
                <i64 as ToSql<BigInt, Pg>>::to_sql(&self.0, out)
            }
        }

        impl FromSql<BigInt, Pg> for $name {
            fn from_sql(bytes: PgValue<'_>) -> deserialize::Result<Self> {
                <i64 as FromSql<BigInt, Pg>>::from_sql(bytes).map($name)
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
