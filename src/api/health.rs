//! Liveness, readiness and the API description.

use actix_web::{HttpResponse, get, web};
use diesel::RunQueryDsl;

use super::problem::{ApiError, Problem};
use crate::domain::Domain;

/// The process is up.
#[utoipa::path(tag = "health", responses((status = 200, description = "ok")))]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok().content_type("text/plain").body("ok")
}

/// The database is reachable.
#[utoipa::path(tag = "health", responses(
    (status = 200, description = "ready"),
    (status = 503, body = Problem, content_type = "application/problem+json"),
))]
#[get("/readyz")]
pub async fn readyz(domain: web::Data<Domain>) -> Result<HttpResponse, ApiError> {
    web::block(move || -> Result<(), crate::domain::DomainError> {
        let mut conn = domain.conn()?;
        diesel::sql_query("SELECT 1").execute(&mut conn)?;
        Ok(())
    })
    .await??;
    Ok(HttpResponse::Ok().content_type("text/plain").body("ready"))
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
