//! `GET /metrics`: the server's Prometheus metrics, for its operator. Off unless
//! `metrics_token` is set (then the scraper sends it as a Bearer token): the numbers say
//! how busy the server is and which mail it could not send, which is nobody else's
//! business, and a reverse proxy usually forwards every path.
//!
//! Counters live in the process (one global recorder, as the `metrics` crate has it);
//! gauges that describe the database (messages given up) are read at each scrape, so
//! every node reports the same.

use crate::domain::ProblemCode;
use std::sync::OnceLock;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, get, web};
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use secrecy::{ExposeSecret, SecretString};
use subtle::ConstantTimeEq;

use super::auth::bearer_token;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::mail_status::{failed_counts, kind_labels, outbox_kind};

/// Who may read the metrics.
pub struct MetricsAccess {
    pub token: Option<SecretString>,
}

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The process's recorder, installed on first use. None if another recorder was
/// installed first (then the counters go there, and `/metrics` shows the gauges only).
pub fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| PrometheusBuilder::new().install_recorder().ok())
        .as_ref()
}

fn check_token(access: &MetricsAccess, req: &HttpRequest) -> Result<(), Box<ApiError>> {
    let unauthorized = || {
        Box::new(ApiError::unauthorized(
            "send Authorization: Bearer <the metrics token>",
        ))
    };
    let given = bearer_token(req).ok_or_else(unauthorized)?;
    let Some(token) = &access.token else {
        return Err(Box::new(ApiError::new(
            StatusCode::NOT_FOUND,
            ProblemCode::MetricsDisabled,
            "metrics are off on this server (its operator sets TURNPOST_METRICS_TOKEN)",
        )));
    };
    if bool::from(given.as_bytes().ct_eq(token.expose_secret().as_bytes())) {
        Ok(())
    } else {
        Err(unauthorized())
    }
}

/// The server's metrics in Prometheus' text format.
#[utoipa::path(
    tag = "health",
    security(("metrics" = [])),
    responses(
        (status = 200, description = "Prometheus text format 0.0.4: `turnpost_outbox_given_up_total{kind}` (messages given up after their last attempt, by this process), `turnpost_outbox_failed{kind}` (messages given up and not requeued, in the database)", content_type = "text/plain"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`metrics_disabled`: a token was sent, but no metrics token is configured", body = Problem, content_type = "application/problem+json"),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/metrics")]
pub async fn metrics(
    domain: web::Data<Domain>,
    access: web::Data<MetricsAccess>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    check_token(&access, &req).map_err(|e| *e)?;
    let counts = web::block(move || -> Result<_, crate::domain::DomainError> {
        Ok(failed_counts(&mut *domain.conn()?)?)
    })
    .await??;
    let mut text = handle().map(PrometheusHandle::render).unwrap_or_default();
    text.push_str(
        "# HELP turnpost_outbox_failed Messages given up after their last attempt and not \
         requeued (turnpost outbox requeue).\n# TYPE turnpost_outbox_failed gauge\n",
    );
    for kind in kind_labels() {
        let n: i64 = counts
            .iter()
            .filter(|c| outbox_kind(c.kind) == kind)
            .map(|c| c.count)
            .sum();
        text.push_str(&format!("turnpost_outbox_failed{{kind=\"{kind}\"}} {n}\n"));
    }
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}
