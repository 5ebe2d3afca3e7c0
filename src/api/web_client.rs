//! The browser client (`src/web/`): plain HTML, CSS and ES modules, embedded in the binary
//! and served at `/` and `/web/<file>`. It is a reference client: it calls nothing but the
//! public `/api/v1`, so these routes are not part of the API and stay out of the OpenAPI
//! document.
//!
//! Release builds carry the files inside the binary; debug builds read them from
//! `src/web/` at run time (rust-embed's default), so a reload shows an edit.

use crate::domain::ProblemCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};
use rust_embed::RustEmbed;

use super::problem::ApiError;

#[derive(RustEmbed)]
#[folder = "src/web/"]
#[exclude = "screenshots/*"]
#[exclude = "*.md"]
#[exclude = "*LICENSE*"]
// Redoc is compiled in by the reference's own route (api/reference.rs).
#[exclude = "vendor/*"]
struct Assets;

/// Everything the page may load comes from this origin; the board pictures are inlined
/// SVG drawn with presentation attributes, so no inline style or script is needed.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The path templates these routes answer (GET only), for telling 405 from 404.
pub const ROUTES: [&str; 3] = ["/", "/web/{file}", "/web/{dir}/{file}"];

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/", web::get().to(index))
        .route("/web/{file:.+}", web::get().to(asset));
}

async fn index(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    serve(&req, "index.html").ok_or_else(no_such_file)
}

fn no_such_file() -> ApiError {
    ApiError::new(
        actix_web::http::StatusCode::NOT_FOUND,
        ProblemCode::NotFound,
        "no such file",
    )
}

async fn asset(req: HttpRequest, file: web::Path<String>) -> Result<HttpResponse, ApiError> {
    if file.as_str() == EDITOR_LIST {
        let body = serde_json::to_vec(&editors()).unwrap_or_default();
        return Ok(respond(&req, "x.json", &body));
    }
    serve(&req, &file).ok_or_else(no_such_file)
}

/// The generated list of game types with a move editor (`editors/<game_type>.js`), so the
/// game page imports only modules that exist (a failed import is an error in the console).
const EDITOR_LIST: &str = "editors.json";

fn editors() -> Vec<String> {
    let mut list: Vec<String> = Assets::iter()
        .filter_map(|f| {
            f.strip_prefix("editors/")
                .and_then(|n| n.strip_suffix(".js"))
                .filter(|n| !n.contains('/'))
                .map(str::to_string)
        })
        .collect();
    list.sort();
    list
}

/// The content type of a file the client ships, by extension.
fn content_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("js") => "text/javascript; charset=utf-8",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("json") => "application/json",
        _ => "application/octet-stream",
    }
}

/// A shipped file, or None.
fn serve(req: &HttpRequest, path: &str) -> Option<HttpResponse> {
    // Only plain relative names: no parent steps, no hidden files.
    if path.split('/').any(|s| s.is_empty() || s.starts_with('.')) {
        return None;
    }
    Assets::get(path).map(|file| respond(req, path, &file.data))
}

/// 200 with the body, or 304 when the client's copy is current; always revalidated.
fn respond(req: &HttpRequest, path: &str, body: &[u8]) -> HttpResponse {
    use sha2::{Digest, Sha256};
    let tag = format!("\"{}\"", &hex::encode(Sha256::digest(body))[..24]);
    let unchanged = super::etag::none_match_hit(req, &tag);
    let mut resp = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    resp.insert_header((header::ETAG, tag))
        // Revalidate every time: a new server version must not run an old client.
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    if unchanged {
        return resp.finish();
    }
    resp.content_type(content_type(path)).body(body.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_file_has_a_content_type() {
        let files: Vec<_> = Assets::iter().collect();
        assert!(files.iter().any(|f| f == "index.html"), "{files:?}");
        for f in files {
            assert_ne!(content_type(&f), "application/octet-stream", "{f}");
        }
        // Every listed editor is a module the server ships.
        for e in editors() {
            assert!(Assets::get(&format!("editors/{e}.js")).is_some(), "{e}");
        }
    }
}
