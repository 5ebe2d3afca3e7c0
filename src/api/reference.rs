//! The reference to browse: `GET /docs`, the whole API described by
//! `openapi.yaml` and drawn by Redoc (vendored in `src/web/vendor/redoc/`, compiled in,
//! nothing fetched at run time), and `GET /docs/games/{id}`, one page
//! per game type: its options, every action with a real example, and its views, named as
//! the generated clients name them (`KasinoView`, `KasinoActionCapture`, ...).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, get, web};
use html_escape::encode_text as esc;
use serde_json::Value;

use super::problem::{ApiError, Problem};
use super::spec::model_prefix;
use crate::domain::ProblemCode;
use crate::domain::examples::{self, GameExamples};
use crate::engine::DynGame;
use crate::games::Registry;

/// Where the vendored Redoc is served.
pub const REDOC_SCRIPT: &str = "/docs/redoc-2.5.4.standalone.js";

/// The bundle as published on npm (`src/web/vendor/redoc/README.md`).
const REDOC: &str = include_str!("../web/vendor/redoc/redoc.standalone.js");

/// The bundle's one outside address: a logo it draws under the menu. Served in its place:
/// a blank picture, so the page asks nothing of anyone but this server.
const REDOC_CDN_LOGO: &str = "https://cdn.redoc.ly/redoc/logo-mini.svg";
const BLANK_SVG: &str =
    "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg' width='1' height='1'/%3E";

/// The bundle as served, and its entity tag.
fn redoc_served() -> &'static (String, String) {
    static SERVED: OnceLock<(String, String)> = OnceLock::new();
    SERVED.get_or_init(|| {
        use sha2::{Digest, Sha256};
        let body = REDOC.replace(REDOC_CDN_LOGO, BLANK_SVG);
        let tag = format!(
            "\"{}\"",
            &hex::encode(Sha256::digest(body.as_bytes()))[..24]
        );
        (body, tag)
    })
}

/// Redoc's script (vendored, versioned in its path: cached for a day, then revalidated).
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "Redoc 2.5.4, the API reference's renderer", content_type = "text/javascript", body = String),
        (status = 304, description = "The client's copy (`If-None-Match`) is current"),
    )
)]
#[get("/docs/redoc-2.5.4.standalone.js")]
pub async fn redoc_script(req: actix_web::HttpRequest) -> HttpResponse {
    let (body, tag) = redoc_served();
    if super::etag::none_match_hit(&req, tag) {
        return HttpResponse::NotModified()
            .insert_header((header::ETAG, tag.as_str()))
            .finish();
    }
    HttpResponse::Ok()
        .content_type("text/javascript; charset=utf-8")
        .insert_header((header::ETAG, tag.as_str()))
        .insert_header((header::CACHE_CONTROL, "public, max-age=86400"))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .body(body.clone())
}

/// Only this server: Redoc draws with inline styles (styled-components) and runs its
/// search in a worker made from a blob.
const DOCS_CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'; \
    object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The game pages hold no script at all.
const PAGE_CSP: &str = "default-src 'none'; style-src 'self'; img-src 'self' data:; \
    base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// A page without script (the guides).
pub(super) fn static_page(body: String) -> HttpResponse {
    page(body, PAGE_CSP)
}

fn page(body: String, csp: &'static str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(csp),
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .body(body)
}

pub(super) fn head(title: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><link rel=\"icon\" href=\"/web/icon.svg\" type=\"image/svg+xml\">\
         <link rel=\"stylesheet\" href=\"/web/docs.css\"></head>",
        esc(title)
    )
}

fn game_links() -> String {
    Registry::standard()
        .all()
        .map(|g| {
            let info = g.info();
            format!("<a href=\"/docs/games/{}\">{}</a>", info.id, esc(info.name))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The API reference.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "The API reference (Redoc, drawing `/openapi.yaml`), with links to every game type's page and to the problem codes", content_type = "text/html", body = String),
    )
)]
#[get("/docs")]
pub async fn docs() -> HttpResponse {
    let body = format!(
        "{}<body class=\"redoc\"><nav class=\"docs-nav\"><strong>Turnpost API</strong> \
         <span>Games: {}</span> <a href=\"/problems\">Problem codes</a> \
         <a href=\"/openapi.yaml\">openapi.yaml</a> <a href=\"/\">Play</a></nav>\
         <redoc spec-url=\"/openapi.yaml\" hide-download-button=\"false\" \
         expand-responses=\"200,201\" json-sample-expand-level=\"3\"></redoc>\
         <script src=\"{REDOC_SCRIPT}\"></script></body></html>",
        head("Turnpost API reference"),
        game_links()
    );
    page(body, DOCS_CSP)
}

/// A game type's reference page: options, actions with examples, views.
#[utoipa::path(
    tag = "health",
    params(("id" = String, Path, description = "Game type id, e.g. `kasino`")),
    responses(
        (status = 200, description = "The game type's page: its options, every action with an example taken from a played game, its views", content_type = "text/html", body = String),
        (status = 404, description = "`not_found`: no such game type", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/docs/games/{id}")]
pub async fn game_page(id: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let not_found = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ProblemCode::NotFound,
            "no such game type",
        )
    };
    let registry = Registry::standard();
    let game = registry.get(&id).cloned().ok_or_else(not_found)?;
    static PAGES: OnceLock<Mutex<HashMap<String, Arc<String>>>> = OnceLock::new();
    let pages = PAGES.get_or_init(Default::default);
    if let Some(p) = pages.lock().ok().and_then(|m| m.get(&id).cloned()) {
        return Ok(page(p.to_string(), PAGE_CSP));
    }
    // A game played to find its examples: CPU work, off the request threads.
    let built = web::block(move || {
        let ex = examples::sample(game.as_ref());
        game_page_html(game.as_ref(), ex)
    })
    .await
    .map_err(|_| {
        ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ProblemCode::Busy,
            "try again",
        )
    })?;
    let built = Arc::new(built);
    if let Ok(mut m) = pages.lock() {
        m.insert(id, built.clone());
    }
    Ok(page(built.to_string(), PAGE_CSP))
}

fn json_block(v: &Value) -> String {
    let text = serde_json::to_string_pretty(v).unwrap_or_default();
    format!("<pre tabindex=\"0\"><code>{}</code></pre>", esc(&text))
}

/// A schema's type in a few words.
fn type_words(schema: &Value) -> String {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        return r.rsplit('/').next().unwrap_or(r).to_string();
    }
    if let Some(c) = schema.get("const") {
        return format!("`{c}`");
    }
    if let Some(e) = schema.get("enum").and_then(Value::as_array) {
        let words: Vec<String> = e.iter().map(Value::to_string).collect();
        return format!("one of {}", words.join(", "));
    }
    match schema.get("type") {
        Some(Value::String(t)) if t == "array" => {
            let items = schema.get("items").map(type_words).unwrap_or_default();
            format!("array of {items}")
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" or "),
        _ if schema.get("oneOf").is_some() || schema.get("anyOf").is_some() => {
            "one of several forms".into()
        }
        _ => "any".into(),
    }
}

/// The fields of an object schema as a table.
fn fields(schema: &Value) -> String {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return String::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let rows: String = props
        .iter()
        .map(|(name, s)| {
            format!(
                "<tr><td><code>{}</code>{}</td><td>{}</td><td>{}</td></tr>",
                esc(name),
                if required.contains(&name.as_str()) {
                    ""
                } else {
                    " (optional)"
                },
                esc(&type_words(s)),
                esc(s.get("description").and_then(Value::as_str).unwrap_or(""))
            )
        })
        .collect();
    format!(
        "<table tabindex=\"0\"><thead><tr><th>field</th><th>type</th><th>meaning</th></tr></thead><tbody>{rows}</tbody></table>"
    )
}

fn game_page_html(game: &dyn DynGame, ex: Result<GameExamples, String>) -> String {
    let info = game.info();
    let prefix = model_prefix(info.id);
    let mut out = head(&format!("{} — Turnpost API", info.name));
    out.push_str(
        "<body class=\"game-doc\"><nav class=\"docs-nav\"><a href=\"/docs\">API reference</a> ",
    );
    out.push_str(&format!(
        "<span>Games: {}</span> <a href=\"/problems\">Problem codes</a></nav><main>",
        game_links()
    ));
    out.push_str(&format!(
        "<h1>{} <code>{}</code></h1><p>{}–{} players; rules version {}. \
         <a href=\"/api/v1/game-types/{}/rules\">The rules</a> (Markdown, house rules named). \
         Generated clients name this game's models <code>{prefix}Options</code>, \
         <code>{prefix}Action</code> (one model per kind below, e.g. \
         <code>{prefix}Action…</code>), <code>{prefix}View</code> and <code>{prefix}Game</code>; \
         a game resource's <code>game_type</code> is <code>{}</code>.</p>",
        esc(info.name),
        info.id,
        info.min_players,
        info.max_players,
        info.rules_version,
        info.id,
        info.id,
    ));
    let ex = match ex {
        Ok(ex) => ex,
        Err(e) => {
            out.push_str(&format!(
                "<p>No example could be played: {}</p></main></body></html>",
                esc(&e)
            ));
            return out;
        }
    };
    // Options.
    let options = game.options_schema();
    out.push_str("<h2 id=\"options\">Options</h2><p>Sent as <code>options</code> when creating a game (<code>POST /api/v1/games</code>); every one may be left out. The defaults:</p>");
    out.push_str(&json_block(&ex.options));
    out.push_str(&fields(&options));
    // Actions.
    let actions = game.action_schema();
    let branches = actions
        .get("oneOf")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_else(|| vec![actions.clone()]);
    out.push_str(&format!(
        "<h2 id=\"actions\">Actions ({})</h2><p>A seat sends one of these as <code>action</code> to \
         <code>POST /api/v1/games/{{id}}/actions</code> (with the game's <code>expected_version</code>, \
         or <code>If-Match</code>); the game resource lists the legal ones for the caller's seat in \
         <code>legal_actions</code>, so a client can offer them without knowing the rules. \
         The examples are from one game of {} players played by random legal moves ({} moves).</p>",
        branches.len(),
        ex.players,
        ex.moves
    ));
    for b in &branches {
        let kind = b
            .pointer("/properties/type/const")
            .and_then(Value::as_str)
            .unwrap_or("action");
        out.push_str(&format!(
            "<section class=\"action\" id=\"action-{kind}\"><h3><code>{kind}</code> <small>{prefix}Action{}</small></h3><p>{}</p>",
            model_prefix(kind),
            esc(b.get("description").and_then(Value::as_str).unwrap_or("")),
        ));
        out.push_str(&fields(b));
        match ex.actions.iter().find(|a| a.kind == kind) {
            Some(a) => {
                out.push_str(&format!(
                    "<p>Example (seat {}), which the log tells as “{}”:</p>",
                    a.seat,
                    esc(&a.text)
                ));
                out.push_str(&json_block(&a.action));
                if let Some(public) = &a.public_form {
                    out.push_str("<p>A secret action: seats that may not see it (and spectators) find this in the log in its place, marked <code>\"redacted\": true</code>:</p>");
                    out.push_str(&json_block(public));
                }
            }
            None => out.push_str(&format!(
                "<p class=\"none\">Not met in the example game ({} moves).</p>",
                ex.moves
            )),
        }
        out.push_str("</section>");
    }
    // Views.
    let view = game.view_schema();
    out.push_str(&format!(
        "<h2 id=\"views\">Views</h2><p>The game resource's <code>view</code> (<code>{prefix}View</code>): what one seat may know, \
         never more. A spectator's view hides every hand. Fields:</p>"
    ));
    out.push_str(&fields(&view));
    out.push_str("<h3>Seat 0 at the start</h3>");
    out.push_str(&json_block(&ex.first_view));
    out.push_str("<h3>A spectator at the start</h3>");
    out.push_str(&json_block(&ex.spectator_view));
    if let Some((moves, v)) = &ex.later_view {
        out.push_str(&format!("<h3>Seat 0 after {moves} moves</h3>"));
        out.push_str(&json_block(v));
    }
    out.push_str("</main></body></html>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_served_redoc_names_no_outside_address_to_load() {
        let (body, _) = redoc_served();
        assert!(
            REDOC.contains(REDOC_CDN_LOGO),
            "the bundle changed: check what it loads"
        );
        assert!(!body.contains("cdn.redoc.ly"));
        assert!(body.len() > 1_000_000);
    }

    #[test]
    fn each_game_page_names_every_action_kind_with_an_escaped_example() {
        for game in Registry::standard().all() {
            let html = game_page_html(game.as_ref(), examples::sample(game.as_ref()));
            let schema = game.action_schema();
            let kinds: Vec<&str> = schema
                .get("oneOf")
                .and_then(Value::as_array)
                .map(|b| {
                    b.iter()
                        .filter_map(|b| b.pointer("/properties/type/const").and_then(Value::as_str))
                        .collect()
                })
                .unwrap_or_default();
            assert!(!kinds.is_empty(), "{}", game.info().id);
            for k in kinds {
                assert!(
                    html.contains(&format!("id=\"action-{k}\"")),
                    "{}: {k}",
                    game.info().id
                );
            }
            assert!(html.contains("<h2 id=\"views\">"));
            // JSON examples are escaped: no raw quote-bearing tag from the data.
            assert!(!html.contains("<script"), "{}", game.info().id);
        }
    }
}
