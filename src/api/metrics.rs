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
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use secrecy::{ExposeSecret, SecretString};
use subtle::ConstantTimeEq;

use super::auth::bearer_token;
use super::problem::{ApiError, Problem};
use super::stream_limits::StreamLimits;
use crate::domain::Domain;
use crate::domain::mail_status::{failed_counts, kind_labels, outbox_kind, pending_counts};

/// Who may read the metrics.
pub struct MetricsAccess {
    pub token: Option<SecretString>,
}

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The process's recorder, installed on first use. None if another recorder was
/// installed first (then the counters go there, and `/metrics` shows the gauges only).
pub fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            // Durations as histograms (aggregatable across nodes, unlike summaries), with
            // buckets from a fast read (1 ms) to a stuck request (30 s).
            PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".into()), SECONDS_BUCKETS)
                .ok()?
                .install_recorder()
                .ok()
        })
        .as_ref()
}

/// Every family the recorder renders, with its `# HELP` text. Prometheus takes a family
/// without one, but the operator reading `/metrics` should not need the hosts' guide beside it.
const COUNTERS: &[(&str, &str)] = &[
    (
        "turnpost_http_requests_total",
        "Requests answered, by method, route pattern and status.",
    ),
    ("turnpost_moves_total", "Actions written, by game type."),
    (
        "turnpost_emails_total",
        "Email send attempts by outcome: sent, failed (retried later or given up), dropped.",
    ),
    (
        "turnpost_emails_bounced_total",
        "Addresses marked bouncing: smtp (refused at send) or report (a delivery status report).",
    ),
    (
        "turnpost_webhook_deliveries_total",
        "Webhook delivery attempts by outcome: delivered, failed (retried later or given up), dropped.",
    ),
    (
        "turnpost_outbox_given_up_total",
        "Messages given up after their last attempt by this process, by kind.",
    ),
    (
        "turnpost_db_pool_timeouts_total",
        "Waits for a database connection given up (each one a 503 to a client).",
    ),
];
const HISTOGRAMS: &[(&str, &str)] = &[
    (
        "turnpost_http_request_duration_seconds",
        "Time to answer a request, by method and route pattern.",
    ),
    (
        "turnpost_db_pool_wait_seconds",
        "Time waited for a database connection at each checkout.",
    ),
];

/// Describes every family, and puts every counter whose labels are a closed set at 0: a
/// counter that appears only with its first event is missed by `increase()` (and by the
/// hosts' guide's alerts), which needs a sample before the event to compare with.
/// `game_types`: the games this node serves, for `turnpost_moves_total`.
pub fn register<'a>(game_types: impl Iterator<Item = &'a str>) {
    for (name, help) in COUNTERS {
        ::metrics::describe_counter!(*name, *help);
    }
    for (name, help) in HISTOGRAMS {
        ::metrics::describe_histogram!(*name, ::metrics::Unit::Seconds, *help);
    }
    for game_type in game_types {
        ::metrics::counter!("turnpost_moves_total", "game_type" => game_type.to_string())
            .increment(0);
    }
    for outcome in ["sent", "failed", "dropped"] {
        ::metrics::counter!("turnpost_emails_total", "outcome" => outcome).increment(0);
    }
    for outcome in ["delivered", "failed", "dropped"] {
        ::metrics::counter!("turnpost_webhook_deliveries_total", "outcome" => outcome).increment(0);
    }
    for reported_by in ["smtp", "report"] {
        ::metrics::counter!("turnpost_emails_bounced_total", "reported_by" => reported_by)
            .increment(0);
    }
    for kind in kind_labels() {
        ::metrics::counter!("turnpost_outbox_given_up_total", "kind" => kind).increment(0);
    }
    ::metrics::counter!("turnpost_db_pool_timeouts_total").increment(0);
}

const SECONDS_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

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
        (status = 200, description = "Prometheus text format 0.0.4; the metrics are listed in the hosts' guide (`/docs/hosting`, Metrics). Among them: `turnpost_http_requests_total{method,route,status}`, `turnpost_http_request_duration_seconds{method,route}` (histogram), `turnpost_moves_total{game_type}`, `turnpost_outbox_pending{kind}`, `turnpost_outbox_oldest_pending_seconds{kind}`, `turnpost_outbox_failed{kind}`, `turnpost_outbox_given_up_total{kind}`, `turnpost_emails_total{outcome}`, `turnpost_webhook_deliveries_total{outcome}`, `turnpost_sse_streams_open`, `turnpost_db_pool_connections{state}`, `turnpost_db_pool_wait_seconds`, `turnpost_db_pool_timeouts_total`, `turnpost_sweeper_lag_seconds`", content_type = "text/plain"),
        (status = 401, body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`metrics_disabled`: a token was sent, but no metrics token is configured", body = Problem, content_type = "application/problem+json"),
        (status = 503, body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/metrics")]
pub async fn metrics(
    domain: web::Data<Domain>,
    access: web::Data<MetricsAccess>,
    streams: web::Data<StreamLimits>,
    req: HttpRequest,
) -> Result<HttpResponse, ApiError> {
    check_token(&access, &req).map_err(|e| *e)?;
    let pool = domain.pool.state();
    let pool_max = domain.pool.max_size();
    let (failed, pending) = web::block(move || -> Result<_, crate::domain::DomainError> {
        let mut conn = domain.conn()?;
        Ok((failed_counts(&mut conn)?, pending_counts(&mut conn)?))
    })
    .await??;
    let mut text = handle().map(PrometheusHandle::render).unwrap_or_default();
    let mut gauge = |name: &str, help: &str, rows: Vec<(String, f64)>| {
        text.push_str(&format!("# HELP {name} {help}\n# TYPE {name} gauge\n"));
        for (labels, value) in rows {
            text.push_str(&format!("{name}{labels} {value}\n"));
        }
    };
    let by_kind = |value: &dyn Fn(&str) -> f64| -> Vec<(String, f64)> {
        kind_labels()
            .map(|kind| (format!("{{kind=\"{kind}\"}}"), value(kind)))
            .collect()
    };
    gauge(
        "turnpost_outbox_failed",
        "Messages given up after their last attempt and not requeued (turnpost outbox requeue).",
        // Summed as integers: a float sum of nothing is -0.0, printed "-0".
        by_kind(&|kind| {
            failed
                .iter()
                .filter(|c| outbox_kind(c.kind) == kind)
                .map(|c| c.count)
                .sum::<i64>() as f64
        }),
    );
    gauge(
        "turnpost_outbox_pending",
        "Messages waiting to be sent (including those waiting for a retry).",
        by_kind(&|kind| {
            pending
                .iter()
                .filter(|c| outbox_kind(c.kind) == kind)
                .map(|c| c.count)
                .sum::<i64>() as f64
        }),
    );
    gauge(
        "turnpost_outbox_oldest_pending_seconds",
        "How long the oldest message waiting to be sent has waited.",
        by_kind(&|kind| {
            pending
                .iter()
                .filter(|c| outbox_kind(c.kind) == kind)
                .map(|c| c.oldest_secs)
                .fold(0.0, f64::max)
        }),
    );
    gauge(
        "turnpost_sse_streams_open",
        "Live-update streams open on this node.",
        vec![(String::new(), streams.open() as f64)],
    );
    gauge(
        "turnpost_db_pool_connections",
        "The request pool's connections on this node, in use or idle.",
        vec![
            (
                "{state=\"in_use\"}".into(),
                f64::from(pool.connections.saturating_sub(pool.idle_connections)),
            ),
            ("{state=\"idle\"}".into(), f64::from(pool.idle_connections)),
        ],
    );
    gauge(
        "turnpost_db_pool_max_connections",
        "The request pool's size on this node (TURNPOST_DB_POOL_SIZE).",
        vec![(String::new(), f64::from(pool_max))],
    );
    if let Some(lag) = crate::domain::sweeper::lag_seconds() {
        gauge(
            "turnpost_sweeper_lag_seconds",
            "How far this node's clock sweeper is behind its schedule: 0 while its passes start on time.",
            vec![(String::new(), lag)],
        );
    }
    Ok(HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(text))
}
