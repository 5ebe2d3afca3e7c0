//! `GET /problems/{code}`: the page every problem document's `type` points at, so a
//! developer who follows the link reads what the code means and what to do about it; and
//! `GET /problems`, the list of them all. Both are made from [`ProblemCode`], whose table
//! gives every code its status and text.

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};

use super::problem::{ApiError, Problem};
use crate::domain::ProblemCode;

/// What a problem code means.
#[utoipa::path(
    tag = "health",
    params(("code" = ProblemCode, Path, description = "A problem `code`")),
    responses(
        (status = 200, description = "A page explaining the code", content_type = "text/html", body = String),
        (status = 404, description = "`not_found`: no such code", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/problems/{code}")]
pub async fn problem_type(code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let Some(code) = ProblemCode::from_word(&code) else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ProblemCode::NotFound,
            "no such problem code",
        ));
    };
    Ok(html(&problem_page(code)))
}

/// Every problem code, each linked to its page.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "The list of problem codes, each linked to its page", content_type = "text/html", body = String),
    )
)]
#[get("/problems")]
pub async fn problem_list() -> HttpResponse {
    html(&list_page())
}

fn html(page: &str) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .body(page.to_string())
}

/// "404 Not Found": the status and its reason phrase.
fn status_line(code: ProblemCode) -> String {
    let status = code.status();
    let reason = StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    format!("{status} {reason}")
}

fn problem_page(code: ProblemCode) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{code}</title></head>\
         <body><h1><code>{code}</code></h1><p>HTTP {}</p><p>{}</p>\
         <p>Every error of the Turnpost API is an RFC 9457 problem document \
         (<code>application/problem+json</code>) whose <code>code</code> member is stable; \
         its <code>type</code> links here. <a href=\"/problems\">All codes</a>.</p></body></html>",
        status_line(code),
        html_escape::encode_text(code.text())
    )
}

fn list_page() -> String {
    let items: String = ProblemCode::ALL
        .iter()
        .map(|c| {
            format!(
                "<li><a href=\"/problems/{c}\"><code>{c}</code></a> (HTTP {}): {}</li>",
                status_line(*c),
                html_escape::encode_text(c.text())
            )
        })
        .collect();
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>Problem codes</title></head>\
         <body><h1>Problem codes</h1><p>The stable <code>code</code> of every RFC 9457 problem \
         document the Turnpost API answers.</p><ul>{items}</ul></body></html>"
    )
}
