//! RFC 9457 problem details: the one place where errors become HTTP responses.

use crate::domain::ProblemCode;
use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use crate::domain::DomainError;

pub use super::spec::PROBLEM_JSON;

/// An RFC 9457 problem document. `code` is stable; clients switch on it.
#[derive(Debug, Serialize, ToSchema)]
pub struct Problem {
    /// A URI reference naming the problem type: `/problems/<code>`.
    #[serde(rename = "type")]
    pub type_uri: String,
    pub title: String,
    pub status: u16,
    pub detail: String,
    /// Stable machine-readable code, e.g. `stale_version`, `illegal_action`; its page is
    /// `/problems/<code>`.
    pub code: ProblemCode,
    /// Problem-specific members (e.g. `current_version`, `rule_code`).
    #[serde(flatten)]
    #[schema(value_type = Object)]
    pub extra: Map<String, Value>,
}

/// An error on its way out as problem+json.
#[derive(Debug)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: ProblemCode,
    pub detail: String,
    pub extra: Map<String, Value>,
    pub retry_after: Option<u64>,
    /// The `Allow` header of a 405.
    pub allow: Option<String>,
}

impl ApiError {
    pub fn new(status: StatusCode, code: ProblemCode, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            detail: detail.into(),
            extra: Map::new(),
            retry_after: None,
            allow: None,
        }
    }

    pub fn unauthorized(detail: &str) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, ProblemCode::Unauthorized, detail)
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.detail)
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let body = Problem {
            type_uri: format!("/problems/{}", self.code),
            title: self
                .status
                .canonical_reason()
                .unwrap_or("Error")
                .to_string(),
            status: self.status.as_u16(),
            detail: self.detail.clone(),
            code: self.code,
            extra: extension_members(&self.extra),
        };
        let mut resp = HttpResponse::build(self.status);
        resp.insert_header((header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)));
        if let Some(secs) = self.retry_after {
            resp.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        if let Some(allow) = &self.allow {
            resp.insert_header((header::ALLOW, allow.clone()));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            resp.insert_header((header::WWW_AUTHENTICATE, "Bearer"));
        }
        resp.body(serde_json::to_string(&body).unwrap_or_default())
    }
}

/// The members every problem document has; an extension member of the same name would
/// make the JSON carry a key twice, and clients keep whichever their parser keeps.
const STANDARD_MEMBERS: [&str; 5] = ["type", "title", "status", "detail", "code"];

/// Extension members, renamed where they would collide with a standard member.
fn extension_members(extra: &Map<String, Value>) -> Map<String, Value> {
    extra
        .iter()
        .map(|(k, v)| {
            if STANDARD_MEMBERS.contains(&k.as_str()) {
                (format!("{k}_value"), v.clone())
            } else {
                (k.clone(), v.clone())
            }
        })
        .collect()
}

fn with_extra(mut e: ApiError, extra: Option<Value>) -> ApiError {
    if let Some(Value::Object(m)) = extra {
        e.extra = m;
    }
    e
}

impl From<DomainError> for ApiError {
    fn from(e: DomainError) -> ApiError {
        match e {
            DomainError::Invalid {
                code,
                message,
                extra,
            } => {
                // The status of the code's page (422 for nearly all; 400 for
                // `invalid_query`), so that a code is answered with one status wherever
                // it is raised.
                let status = StatusCode::from_u16(code.status())
                    .ok()
                    .filter(StatusCode::is_client_error)
                    .unwrap_or(StatusCode::UNPROCESSABLE_ENTITY);
                with_extra(ApiError::new(status, code, message), extra)
            }
            DomainError::Unauthorized { code, message } => {
                ApiError::new(StatusCode::UNAUTHORIZED, code, message)
            }
            DomainError::Forbidden { code, message } => {
                ApiError::new(StatusCode::FORBIDDEN, code, message)
            }
            DomainError::NotFound { code, what } => {
                ApiError::new(StatusCode::NOT_FOUND, code, format!("{what} not found"))
            }
            DomainError::Conflict {
                code,
                message,
                extra,
            } => with_extra(ApiError::new(StatusCode::CONFLICT, code, message), extra),
            DomainError::Gone { code, message } => ApiError::new(StatusCode::GONE, code, message),
            DomainError::TooManyRequests { retry_after_secs } => {
                let mut e = ApiError::new(
                    StatusCode::TOO_MANY_REQUESTS,
                    ProblemCode::TooManyAttempts,
                    format!("too many failed attempts; retry after {retry_after_secs} s"),
                );
                e.retry_after = Some(retry_after_secs);
                e
            }
            DomainError::Limited {
                code,
                message,
                retry_after_secs,
            } => {
                let mut e = ApiError::new(StatusCode::TOO_MANY_REQUESTS, code, message);
                e.retry_after = Some(retry_after_secs);
                e
            }
            DomainError::Busy { retry_after_secs } => {
                let mut e = ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ProblemCode::Busy,
                    format!("the server is busy; retry after {retry_after_secs} s"),
                );
                e.retry_after = Some(retry_after_secs);
                e
            }
            DomainError::Unavailable(detail) => {
                tracing::error!(%detail, "database unavailable");
                let mut e = ApiError::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ProblemCode::Unavailable,
                    "the service is temporarily unavailable",
                );
                e.retry_after = Some(5);
                e
            }
            DomainError::Internal(err) => {
                tracing::error!(error = ?err, "internal error");
                ApiError::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ProblemCode::Internal,
                    "an internal error occurred; it has been logged",
                )
            }
        }
    }
}

impl From<actix_web::error::BlockingError> for ApiError {
    fn from(_: actix_web::error::BlockingError) -> ApiError {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ProblemCode::Unavailable,
            "the server is overloaded; retry",
        )
    }
}

/// Body errors: syntax (400), shape or an unreadable body (422, as `invalid_body`'s page
/// says), media type (415), size (413).
pub fn json_error(
    err: actix_web::error::JsonPayloadError,
    _req: &actix_web::HttpRequest,
) -> actix_web::Error {
    use actix_web::error::JsonPayloadError as J;
    let e = match &err {
        J::ContentType => ApiError::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ProblemCode::UnsupportedMediaType,
            "send the body as application/json",
        ),
        J::OverflowKnownLength { .. } | J::Overflow { .. } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ProblemCode::PayloadTooLarge,
            "the body is too large",
        ),
        J::Deserialize(d) if d.is_data() => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ProblemCode::InvalidBody,
            d.to_string(),
        ),
        J::Deserialize(d) => ApiError::new(
            StatusCode::BAD_REQUEST,
            ProblemCode::InvalidJson,
            d.to_string(),
        ),
        other => ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            ProblemCode::InvalidBody,
            other.to_string(),
        ),
    };
    e.into()
}

pub fn query_error(
    err: actix_web::error::QueryPayloadError,
    _req: &actix_web::HttpRequest,
) -> actix_web::Error {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        ProblemCode::InvalidQuery,
        err.to_string(),
    )
    .into()
}

/// A path parameter that does not parse (`/games/abc`): every typed path parameter is an
/// id, so the answer says which part should be one, instead of serde's words about `i64`.
pub fn path_error(
    err: actix_web::error::PathError,
    req: &actix_web::HttpRequest,
) -> actix_web::Error {
    let bad = req
        .match_info()
        .iter()
        .find(|(_, value)| value.parse::<i64>().is_err());
    let mut e = ApiError::new(
        StatusCode::NOT_FOUND,
        ProblemCode::InvalidPath,
        match bad {
            Some((name, value)) => format!(
                "`{name}` in the path must be an id, a whole number from 1 (such as 42), not {:?}",
                value.chars().take(40).collect::<String>()
            ),
            // Not seen so far; the deserializer's words are better than none.
            None => format!("a part of the path is not valid: {err}"),
        },
    );
    if let Some((name, _)) = bad {
        e.extra
            .insert("parameter".into(), Value::String(name.into()));
    }
    e.into()
}

/// The API's path templates and their methods, for telling 405 from 404.
pub struct KnownRoutes(pub Vec<(String, Vec<&'static str>)>);

/// No route took the request: 405 with `Allow` when the path exists under other methods,
/// else 404.
pub async fn not_found(
    req: actix_web::HttpRequest,
    routes: Option<actix_web::web::Data<KnownRoutes>>,
) -> Result<HttpResponse, ApiError> {
    let allowed = routes.and_then(|r| {
        r.0.iter()
            .find(|(template, _)| super::spec::matches(template, req.path()))
            .map(|(_, methods)| methods.join(", "))
    });
    match allowed {
        Some(allow) => {
            let mut e = ApiError::new(
                StatusCode::METHOD_NOT_ALLOWED,
                ProblemCode::MethodNotAllowed,
                format!("{} is not allowed here; use {allow}", req.method()),
            );
            e.allow = Some(allow);
            Err(e)
        }
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ProblemCode::NotFound,
            "no such endpoint",
        )),
    }
}
