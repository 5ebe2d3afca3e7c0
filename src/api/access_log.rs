//! One access-log line per request, and the request metrics.
//!
//! Runs inside the request's span (`TracingLogger`, see `log_redact`), so the line carries
//! the span's request id, method, redacted target and client address; it adds the status
//! and the time taken. The same numbers feed `turnpost_http_requests_total` and the latency
//! histogram `turnpost_http_request_duration_seconds`, labelled by route pattern (never the
//! raw path: ids and tokens would make a series per request).

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;

/// The log target of access lines: `RUST_LOG=turnpost::access=off` silences them alone.
pub const TARGET: &str = "turnpost::access";

/// The route label of a request no route matched.
const UNMATCHED: &str = "unmatched";

pub async fn record(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let start = Instant::now();
    let route = req.match_pattern().unwrap_or_else(|| UNMATCHED.to_string());
    let method = method_label(req.method());
    let result = next.call(req).await;
    let status = match &result {
        Ok(res) => res.status(),
        Err(e) => e.as_response_error().status_code(),
    };
    let elapsed = start.elapsed();
    observe(method, &route, status, elapsed.as_secs_f64());
    tracing::info!(
        target: TARGET,
        status = status.as_u16(),
        route = %route,
        duration_ms = (elapsed.as_secs_f64() * 1000.0 * 100.0).round() / 100.0,
        "request"
    );
    result
}

fn observe(method: &'static str, route: &str, status: StatusCode, seconds: f64) {
    metrics::counter!(
        "turnpost_http_requests_total",
        "method" => method,
        "route" => route.to_string(),
        "status" => status.as_str().to_string(),
    )
    .increment(1);
    metrics::histogram!(
        "turnpost_http_request_duration_seconds",
        "method" => method,
        "route" => route.to_string(),
    )
    .record(seconds);
}

/// A closed set of method labels: a client may send any token as its method.
fn method_label(m: &Method) -> &'static str {
    match *m {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_methods_share_one_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        let made_up = Method::from_bytes(b"BREW").expect("a token");
        assert_eq!(method_label(&made_up), "other");
    }
}
