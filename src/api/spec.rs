//! Finishing touches on the generated OpenAPI document, applied once every route is in:
//! every response has a description (required by OpenAPI 3.1), and every operation lists
//! the problem responses any request can get (a bad query, a bad body, a missing token,
//! a deadline, an overloaded server), so a generated client knows them all.

use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::server::Server;
use utoipa::openapi::{Content, OpenApi, Ref, RefOr};

fn problem(description: &str) -> RefOr<Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                super::problem::PROBLEM_JSON,
                Content::new(Some(Ref::from_schema_name("Problem"))),
            )
            .build(),
    )
}

fn reason(status: &str) -> String {
    status
        .parse::<u16>()
        .ok()
        .and_then(|s| actix_web::http::StatusCode::from_u16(s).ok())
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Response")
        .to_string()
}

fn complete(op: &mut Operation) {
    let has_body = op.request_body.is_some();
    let bearer = op
        .security
        .as_ref()
        .and_then(|s| serde_json::to_string(s).ok())
        .is_some_and(|s| s.contains("\"bearer\""));
    let responses = &mut op.responses.responses;
    for (status, r) in responses.iter_mut() {
        if let RefOr::T(r) = r
            && r.description.trim().is_empty()
        {
            r.description = reason(status);
        }
    }
    let mut add = |status: &str, description: &str| {
        responses
            .entry(status.to_string())
            .or_insert_with(|| problem(description));
    };
    add(
        "400",
        "`invalid_query`: an unknown or malformed query parameter; `invalid_json`: the body is not JSON",
    );
    if has_body {
        add("413", "`payload_too_large`");
        add(
            "415",
            "`unsupported_media_type`: send the body as `application/json`",
        );
        add(
            "422",
            "`invalid_body`: JSON of the wrong shape, or values out of range",
        );
    }
    if bearer {
        add(
            "401",
            "`unauthorized`, `token_revoked` or `unknown_account`: send a valid `Authorization: Bearer` token",
        );
    }
    add(
        "408",
        "`request_timeout`: the request did not arrive in full in time",
    );
    add(
        "503",
        "`unavailable` or `busy`: retry after the `Retry-After` seconds",
    );
}

/// Applies the finishing touches to `api`.
pub fn finish(api: &mut OpenApi) {
    for item in api.paths.paths.values_mut() {
        for op in [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ]
        .into_iter()
        .flatten()
        {
            complete(op);
        }
    }
    let mut server = Server::new("/");
    server.description = Some("this server".into());
    api.servers = Some(vec![server]);
}

/// The path templates of the API with the methods each allows: `(template, methods)`.
pub fn routes(api: &OpenApi) -> Vec<(String, Vec<&'static str>)> {
    api.paths
        .paths
        .iter()
        .map(|(path, item)| {
            let methods = [
                ("GET", item.get.is_some()),
                ("PUT", item.put.is_some()),
                ("POST", item.post.is_some()),
                ("DELETE", item.delete.is_some()),
                ("PATCH", item.patch.is_some()),
            ]
            .into_iter()
            .filter(|(_, on)| *on)
            .map(|(m, _)| m)
            .collect();
            (path.clone(), methods)
        })
        .collect()
}

/// Whether a concrete path matches a template with `{param}` segments.
pub fn matches(template: &str, path: &str) -> bool {
    let t: Vec<&str> = template.trim_end_matches('/').split('/').collect();
    let p: Vec<&str> = path.trim_end_matches('/').split('/').collect();
    t.len() == p.len()
        && t.iter()
            .zip(&p)
            .all(|(t, p)| (t.starts_with('{') && t.ends_with('}') && !p.is_empty()) || t == p)
}

#[cfg(test)]
mod tests {
    use super::matches;

    #[test]
    fn templates_match_concrete_paths() {
        assert!(matches("/api/v1/games/{id}", "/api/v1/games/12"));
        assert!(matches("/api/v1/games", "/api/v1/games/"));
        assert!(!matches("/api/v1/games/{id}", "/api/v1/games"));
        assert!(!matches("/api/v1/games/{id}/log", "/api/v1/games/1/join"));
    }
}
