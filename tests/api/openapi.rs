//! openapi.yaml is generated from the code; this test fails when the committed file is
//! stale. Regenerate with: `cargo run -- openapi > openapi.yaml`.

use serde_json::Value;

use crate::helpers::spawn_app;

#[test]
fn committed_openapi_yaml_is_current_and_served() {
    let generated = turnpost::api::openapi_yaml();
    let committed = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml"))
        .unwrap_or_default();
    if generated != committed {
        // Left for a diff against the committed file.
        let _ = std::fs::write(
            concat!(env!("CARGO_MANIFEST_DIR"), "/target/openapi.generated.yaml"),
            &generated,
        );
    }
    assert!(
        generated == committed,
        "openapi.yaml is stale: run `cargo run -- openapi > openapi.yaml`"
    );
    let app = spawn_app();
    let r = app.get("/openapi.yaml", None);
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().unwrap(), generated);
}

#[test]
fn openapi_yaml_is_valid_openapi_3_and_describes_every_endpoint() {
    let doc: Value = serde_yaml::from_str(&turnpost::api::openapi_yaml()).unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3."));
    // A full structural parse by an independent OpenAPI 3.1 model.
    let parsed: Result<oas3::Spec, _> = oas3::from_json(serde_json::to_string(&doc).unwrap());
    assert!(parsed.is_ok(), "not valid OpenAPI 3.1: {:?}", parsed.err());
    let paths = doc["paths"].as_object().unwrap();
    for (path, method) in [
        ("/api/v1/accounts", "post"),
        ("/api/v1/auth/token", "post"),
        ("/api/v1/me", "get"),
        ("/api/v1/me", "patch"),
        ("/api/v1/game-types", "get"),
        ("/api/v1/games", "post"),
        ("/api/v1/games", "get"),
        ("/api/v1/games/{id}", "get"),
        ("/api/v1/games/{id}/join", "post"),
        ("/api/v1/games/{id}/leave", "post"),
        ("/api/v1/games/{id}/actions", "post"),
        ("/api/v1/games/{id}/log", "get"),
        ("/api/v1/games/{id}/views/{version}", "get"),
        ("/api/v1/games/{id}/resign", "post"),
        ("/api/v1/games/{id}/nudge", "post"),
        ("/api/v1/me/vacation", "post"),
        ("/api/v1/inbound/email", "post"),
        ("/api/v1/unsubscribe/{token}", "get"),
        ("/api/v1/unsubscribe/{token}", "post"),
        ("/api/v1/verify-email/{token}", "get"),
        ("/api/v1/me/verify-email", "post"),
        ("/healthz", "get"),
        ("/readyz", "get"),
        ("/openapi.yaml", "get"),
    ] {
        let op = &paths[path][method];
        assert!(op.is_object(), "{method} {path} is not described");
        assert!(
            op["responses"].as_object().is_some_and(|r| !r.is_empty()),
            "{method} {path} has no responses"
        );
    }
    // Every error response is a problem document.
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            for (status, resp) in op["responses"].as_object().unwrap() {
                let resp = resolved(&doc, resp);
                if status.starts_with('4') || status.starts_with('5') {
                    assert!(
                        resp["content"]["application/problem+json"].is_object(),
                        "{method} {path} {status} is not problem+json"
                    );
                }
            }
        }
    }
}

/// `v`, or what its `$ref` points at within `doc`.
fn resolved<'a>(doc: &'a Value, v: &'a Value) -> &'a Value {
    v["$ref"]
        .as_str()
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| doc.pointer(pointer))
        .unwrap_or(v)
}
