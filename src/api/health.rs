//! Liveness, readiness and the API description.

use actix_web::{HttpResponse, get, web};
use diesel::RunQueryDsl;
use serde::Serialize;
use utoipa::ToSchema;

use super::problem::{ApiError, Problem};
use crate::domain::Domain;

/// The process is up.
#[utoipa::path(tag = "health", responses((status = 200, description = "ok")))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// The mail transport as `/readyz` sees it: the SMTP server's probe, or none when mail is
/// written to files.
pub struct MailCheck(pub Option<crate::notify::smtp_probe::SmtpProbe>);

/// The answer of `/readyz`.
#[derive(Serialize, ToSchema)]
pub struct Readiness {
    /// `ready`, or `degraded`: serving, but something it needs is down (see `reasons`).
    #[schema(example = "ready")]
    pub status: &'static str,
    /// Always `ok` in a 200 answer (an unreachable database is a 503).
    #[schema(example = "ok")]
    pub database: &'static str,
    /// `smtp`, or `files` (mail is written as `.eml` files).
    #[schema(example = "smtp")]
    pub mail_transport: &'static str,
    /// `ok` or `unreachable`.
    #[schema(example = "ok")]
    pub mail: &'static str,
    /// Why the status is `degraded`; empty when ready.
    pub reasons: Vec<String>,
}

/// The database is reachable; and whether mail can be sent.
///
/// 200 while the database answers, 503 when it does not. An SMTP server that cannot be
/// reached (checked at most every 10 seconds) leaves the node ready, since games go on
/// without mail, but `degraded` with a reason.
#[utoipa::path(tag = "health", responses(
    (status = 200, description = "ready, or ready but degraded", body = Readiness),
    (status = 503, body = Problem, content_type = "application/problem+json"),
))]
#[get("/readyz")]
pub async fn readyz(
    domain: web::Data<Domain>,
    mail: web::Data<MailCheck>,
) -> Result<HttpResponse, ApiError> {
    web::block(move || -> Result<(), crate::domain::DomainError> {
        let mut conn = domain.conn()?;
        diesel::sql_query("SELECT 1").execute(&mut conn)?;
        Ok(())
    })
    .await??;
    let (mail_transport, outcome) = if mail.0.is_some() {
        // A probe may wait for the network: off the async workers.
        let outcome = web::block(move || mail.0.as_ref().map_or(Ok(()), |p| p.check()))
            .await
            .unwrap_or_else(|e| Err(e.to_string()));
        ("smtp", outcome)
    } else {
        ("files", Ok(()))
    };
    let body = match outcome {
        Ok(()) => Readiness {
            status: "ready",
            database: "ok",
            mail_transport,
            mail: "ok",
            reasons: Vec::new(),
        },
        Err(reason) => Readiness {
            status: "degraded",
            database: "ok",
            mail_transport,
            mail: "unreachable",
            reasons: vec![reason],
        },
    };
    Ok(HttpResponse::Ok().json(body))
}

/// This API's OpenAPI 3.1 description.
#[utoipa::path(tag = "health", responses((status = 200, description = "openapi.yaml", content_type = "application/yaml")))]
#[get("/openapi.yaml")]
pub async fn openapi_yaml(spec: web::Data<OpenApiText>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/yaml")
        .body(spec.0.clone())
}

/// The rendered spec, computed once at start.
pub struct OpenApiText(pub String);
