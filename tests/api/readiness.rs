//! `/readyz` reports the mail transport: an SMTP server that cannot be reached
//! leaves the node ready (200) but `degraded`, with the reason.

use secrecy::SecretString;
use serde_json::Value;

use crate::helpers::{spawn_app, spawn_app_with};
use crate::smtp_sink::Sink;

#[test]
fn an_unreachable_smtp_server_makes_readyz_degraded_with_a_reason() {
    // A port nobody listens on.
    let port = crate::hardening::free_port();
    let app = spawn_app_with(|s| {
        s.smtp_url = Some(SecretString::from(format!("smtp://127.0.0.1:{port}")));
    });
    let r = app.get("/readyz", None);
    assert_eq!(r.status(), 200);
    let body: Value = r.json().unwrap();
    assert_eq!(body["status"], "degraded", "{body}");
    assert_eq!(body["database"], "ok", "{body}");
    assert_eq!(body["mail_transport"], "smtp", "{body}");
    assert_eq!(body["mail"], "unreachable", "{body}");
    let reason = body["reasons"][0].as_str().unwrap_or_default();
    assert!(reason.contains(&format!("127.0.0.1:{port}")), "{body}");
    // Asked again at once: the same answer, from the cache.
    let again: Value = app.get("/readyz", None).json().unwrap();
    assert_eq!(again, body);
}

#[test]
fn a_reachable_smtp_server_or_file_mail_is_ready() {
    let sink = Sink::start();
    let app = spawn_app_with(|s| {
        s.smtp_url = Some(SecretString::from(format!(
            "smtp://127.0.0.1:{}",
            sink.port
        )));
    });
    let body: Value = app.get("/readyz", None).json().unwrap();
    assert_eq!(body["status"], "ready", "{body}");
    assert_eq!(body["mail"], "ok", "{body}");
    assert_eq!(body["reasons"], serde_json::json!([]), "{body}");
    let body: Value = spawn_app().get("/readyz", None).json().unwrap();
    assert_eq!(body["status"], "ready", "{body}");
    assert_eq!(body["mail_transport"], "files", "{body}");
}
