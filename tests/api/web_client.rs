//! The web client's files over HTTP: content types, the content security policy,
//! revalidation, 404 and 405 like the API's, and no trace of them in the API description.

use crate::helpers::{assert_problem, spawn_app};

#[test]
fn the_client_is_served_with_its_types_and_a_strict_policy() {
    let app = spawn_app();
    for (path, ty, needle) in [
        (
            "/",
            "text/html; charset=utf-8",
            "<script type=\"module\" src=\"/web/app.js\">",
        ),
        ("/web/app.js", "text/javascript; charset=utf-8", "import"),
        (
            "/web/style.css",
            "text/css; charset=utf-8",
            ":focus-visible",
        ),
        ("/web/icon.svg", "image/svg+xml", "<svg"),
        ("/web/editors.json", "application/json", "["),
    ] {
        let r = app.get(path, None);
        assert_eq!(r.status(), 200, "{path}");
        let h = r.headers().clone();
        assert_eq!(h["content-type"], ty, "{path}");
        let csp = h["content-security-policy"].to_str().unwrap();
        assert!(csp.starts_with("default-src 'self'"), "{path}: {csp}");
        assert!(!csp.contains("unsafe"), "{path}: {csp}");
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert!(r.text().unwrap().contains(needle), "{path}");

        // Unchanged: 304 on revalidation.
        let etag = h["etag"].to_str().unwrap().to_string();
        let again = app
            .client
            .get(app.url(path))
            .header("if-none-match", &etag)
            .send()
            .unwrap();
        assert_eq!(again.status(), 304, "{path}");
    }
    let editors: Vec<String> = app.get("/web/editors.json", None).json().unwrap();
    for e in editors {
        assert_eq!(app.get(&format!("/web/editors/{e}.js"), None).status(), 200);
    }
}

#[test]
fn unknown_files_are_404_and_other_methods_405_and_none_is_in_the_api_description() {
    let app = spawn_app();
    for path in [
        "/web/nothing.js",
        "/web/../Cargo.toml",
        "/web/%2e%2e/Cargo.toml",
        "/web/.hidden",
        "/web/editors/README.md",
        "/web/screenshots/kasino.png",
    ] {
        let (s, v) = assert_problem(app.get(path, None), path);
        assert_eq!((s, v["code"].as_str()), (404, Some("not_found")), "{path}");
    }
    let r = app.post("/", None, &serde_json::json!({}));
    let allow = r.headers()["allow"].to_str().unwrap().to_string();
    let (s, _) = assert_problem(r, "POST /");
    assert_eq!((s, allow.as_str()), (405, "GET"));
    let doc = turnpost::api::openapi_yaml();
    assert!(
        !doc.contains("\n  /:\n") && !doc.contains("/web/"),
        "web routes leaked into openapi.yaml"
    );
}

/// The four guides are pages beside the API reference, linked to each other, to the
/// reference and to the web client; the players' guide is the web client's help.
#[test]
fn the_guides_are_served_beside_the_reference() {
    let app = spawn_app();
    for guide in ["players", "hosting", "api", "development"] {
        let r = app.get(&format!("/docs/{guide}"), None);
        assert_eq!(r.status(), 200, "{guide}");
        assert_eq!(r.headers()["content-type"], "text/html; charset=utf-8");
        let csp = r.headers()["content-security-policy"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(!csp.contains("script-src"), "{guide}: no script: {csp}");
        let html = r.text().unwrap();
        assert!(html.contains("<h1 id=\""), "{guide}: {html:.300}");
        assert!(
            html.contains("href=\"/docs\"") && html.contains("href=\"/\""),
            "{guide}: the reference and the client are linked"
        );
        for other in ["players", "hosting", "api", "development"] {
            assert!(
                other == guide || html.contains(&format!("href=\"/docs/{other}\"")),
                "{guide} links {other}"
            );
        }
        // Links to repository files that are not served are text, not broken links.
        assert!(
            !html.contains(".md\""),
            "{guide}: a link to a Markdown file"
        );
    }
    let (status, body) = assert_problem(app.get("/docs/nothing", None), "no such guide");
    assert_eq!((status, body["code"].as_str()), (404, Some("not_found")));
    // The reference's own script is still itself.
    let r = app.get("/docs/redoc-2.5.4.standalone.js", None);
    assert_eq!(
        r.headers()["content-type"],
        "text/javascript; charset=utf-8"
    );
    let app_js = app.get("/web/app.js", None).text().unwrap();
    assert!(
        app_js.contains("href: '/docs/players'"),
        "the web client's help"
    );
}
