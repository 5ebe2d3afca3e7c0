//! The domain's errors. Each carries a stable `code`; `api::problem` maps them to HTTP in
//! one place.

use serde_json::Value;

use super::ProblemCode;

#[derive(Debug, thiserror::Error)]
pub enum DomainError {
    /// The request is well-formed JSON but its content is unacceptable (422).
    #[error("{message}")]
    Invalid {
        code: ProblemCode,
        message: String,
        /// Extra members for the problem document (e.g. the rule code of an illegal action).
        extra: Option<Value>,
    },
    /// Credentials missing or wrong (401).
    #[error("{message}")]
    Unauthorized { code: ProblemCode, message: String },
    /// Authenticated, but not allowed (403).
    #[error("{message}")]
    Forbidden { code: ProblemCode, message: String },
    #[error("{what} not found")]
    NotFound { code: ProblemCode, what: String },
    /// The request conflicts with the current state (409).
    #[error("{message}")]
    Conflict {
        code: ProblemCode,
        message: String,
        extra: Option<Value>,
    },
    /// The thing existed but is used up or expired for good (410): a used invitation.
    #[error("{message}")]
    Gone { code: ProblemCode, message: String },
    #[error("too many attempts; retry after {retry_after_secs} s")]
    TooManyRequests { retry_after_secs: u64 },
    /// A limit on how often something may be done (429, with `Retry-After`).
    #[error("{message}")]
    Limited {
        code: ProblemCode,
        message: String,
        retry_after_secs: u64,
    },
    /// Too many requests of an expensive kind are running; retry shortly (503).
    #[error("busy; retry after {retry_after_secs} s")]
    Busy { retry_after_secs: u64 },
    /// The database is unreachable or overloaded (503).
    #[error("service unavailable: {0}")]
    Unavailable(String),
    /// A bug or corrupted data: logged in full, reported without details (500).
    #[error(transparent)]
    Internal(#[from] anyhow::Error),
}

impl DomainError {
    pub fn invalid(code: ProblemCode, message: impl Into<String>) -> Self {
        DomainError::Invalid {
            code,
            message: message.into(),
            extra: None,
        }
    }

    pub fn conflict(code: ProblemCode, message: impl Into<String>) -> Self {
        DomainError::Conflict {
            code,
            message: message.into(),
            extra: None,
        }
    }

    pub fn forbidden(code: ProblemCode, message: impl Into<String>) -> Self {
        DomainError::Forbidden {
            code,
            message: message.into(),
        }
    }

    /// The stable code (as in the problem document).
    pub fn code(&self) -> ProblemCode {
        match self {
            DomainError::Invalid { code, .. }
            | DomainError::Unauthorized { code, .. }
            | DomainError::Forbidden { code, .. }
            | DomainError::NotFound { code, .. }
            | DomainError::Gone { code, .. }
            | DomainError::Conflict { code, .. }
            | DomainError::Limited { code, .. } => *code,
            DomainError::TooManyRequests { .. } => ProblemCode::TooManyAttempts,
            DomainError::Busy { .. } => ProblemCode::Busy,
            DomainError::Unavailable(_) => ProblemCode::Unavailable,
            DomainError::Internal(_) => ProblemCode::Internal,
        }
    }

    /// Two transactions got in each other's way (a serialization failure or a deadlock):
    /// nothing was written, and the same request may succeed if sent again.
    pub fn concurrent_update() -> Self {
        DomainError::conflict(
            ProblemCode::ConcurrentUpdate,
            "another request changed this resource at the same time; retry",
        )
    }

    /// Whether [`DomainError::concurrent_update`]: a transaction worth running again.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            DomainError::Conflict {
                code: ProblemCode::ConcurrentUpdate,
                ..
            }
        )
    }

    pub fn not_found(what: impl Into<String>) -> Self {
        DomainError::NotFound {
            code: ProblemCode::NotFound,
            what: what.into(),
        }
    }

    /// Game `id` does not exist, or the caller may not know that it does (a private game):
    /// the two answers are the same, so that ids of private games cannot be probed.
    pub fn game_not_found(id: crate::store::kinds::GameId) -> Self {
        DomainError::NotFound {
            code: ProblemCode::GameNotFound,
            what: format!("game {id}"),
        }
    }
}

impl From<diesel::result::Error> for DomainError {
    fn from(e: diesel::result::Error) -> Self {
        use diesel::result::{DatabaseErrorKind, Error};
        match e {
            Error::NotFound => DomainError::not_found("resource"),
            Error::DatabaseError(DatabaseErrorKind::SerializationFailure, _) => {
                DomainError::concurrent_update()
            }
            // diesel has no kind for SQLSTATE 40P01; PostgreSQL's message is fixed text
            // (the embedded cluster and the tests run with C messages). A deadlock is two
            // requests waiting on each other, not a bug in this one: retryable, like a
            // serialization failure.
            Error::DatabaseError(DatabaseErrorKind::Unknown, info)
                if info.message().starts_with("deadlock detected") =>
            {
                tracing::warn!(detail = info.details(), "deadlock; the request may retry");
                DomainError::concurrent_update()
            }
            // The session's lock_timeout (see store::REQUEST_SESSION): another request
            // held the same row for longer. Nothing was written; worth retrying later,
            // not at once (another wait would hold a connection again).
            Error::DatabaseError(DatabaseErrorKind::Unknown, info)
                if info.message().contains("lock timeout") =>
            {
                DomainError::conflict(
                    ProblemCode::ResourceBusy,
                    "another request has been changing the same game for a while; retry in a moment",
                )
            }
            // The session's statement_timeout: a statement ran too long and was stopped.
            Error::DatabaseError(DatabaseErrorKind::Unknown, info)
                if info.message().contains("statement timeout") =>
            {
                tracing::warn!(message = info.message(), "statement stopped by its timeout");
                DomainError::Busy {
                    retry_after_secs: 5,
                }
            }
            // A row this write refers to was deleted by another request after this one read
            // it (a game whose last player left, and its chat with it): it is gone, as a
            // read a moment later would say, and nothing was written.
            Error::DatabaseError(DatabaseErrorKind::ForeignKeyViolation, info) => {
                tracing::warn!(
                    message = info.message(),
                    "a write referred to a row deleted meanwhile"
                );
                DomainError::not_found("what this refers to")
            }
            Error::DatabaseError(
                DatabaseErrorKind::ClosedConnection | DatabaseErrorKind::UnableToSendCommand,
                info,
            ) => {
                crate::store::connection_lost();
                DomainError::Unavailable(info.message().to_string())
            }
            other => DomainError::Internal(other.into()),
        }
    }
}

impl From<crate::auth::password::HashError> for DomainError {
    fn from(e: crate::auth::password::HashError) -> Self {
        match e {
            crate::auth::password::HashError::Busy => DomainError::Busy {
                retry_after_secs: 2,
            },
            crate::auth::password::HashError::Failed(m) => {
                DomainError::Internal(anyhow::anyhow!(m))
            }
        }
    }
}

impl From<diesel::r2d2::PoolError> for DomainError {
    fn from(e: diesel::r2d2::PoolError) -> Self {
        DomainError::Unavailable(e.to_string())
    }
}

pub type DomainResult<T> = Result<T, DomainError>;

#[cfg(test)]
mod tests {
    use super::*;
    use diesel::result::{DatabaseErrorKind, Error};

    #[test]
    fn a_write_whose_referenced_row_was_deleted_meanwhile_is_not_found() {
        let e = Error::DatabaseError(
            DatabaseErrorKind::ForeignKeyViolation,
            Box::new(String::from(
                "insert or update on table \"chat_messages\" violates foreign key constraint",
            )),
        );
        assert!(matches!(
            DomainError::from(e),
            DomainError::NotFound {
                code: ProblemCode::NotFound,
                ..
            }
        ));
    }
}
