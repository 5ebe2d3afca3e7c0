//! The links in emails, for people and mail clients rather than API clients: the one-click
//! unsubscribe (RFC 8058: a POST to the List-Unsubscribe URL, no login; a GET shows a
//! page with a button, so a link scanner that follows it changes nothing) and the address
//! confirmation link. Pages are small HTML; a bad link is a problem document.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, get, post, web};

use super::auth::Caller;
use super::problem::{ApiError, Problem};
use crate::domain::Domain;
use crate::domain::sign_ups::SignedUp;

pub(crate) fn page(title: &str, body_html: &str) -> HttpResponse {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width,initial-scale=1\"><title>{}</title>\
         <link rel=\"icon\" href=\"/web/icon.svg\" type=\"image/svg+xml\"></head>\
         <body style=\"margin:0;background:#f3f1ea;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif\">\
         <div style=\"max-width:600px;margin:0 auto;padding:24px 16px;color:#1f1f1f;line-height:1.45\">\
         <h1 style=\"font-size:22px\">{}</h1>{body_html}</div></body></html>",
        html_escape::encode_text(title),
        html_escape::encode_text(title),
    );
    HttpResponse::Ok()
        .content_type("text/html; charset=utf-8")
        .insert_header(("Cache-Control", "no-store"))
        .body(html)
}

/// The unsubscribe page: what the link does, and a button that does it.
#[utoipa::path(
    tag = "email",
    params(("token" = String, Path, description = "The signed token of the List-Unsubscribe URL")),
    responses(
        (status = 200, description = "A page with a button that unsubscribes (a POST to the same URL)", content_type = "text/html", body = String),
        (status = 403, description = "`invalid_link`: the token was altered or not made by this server", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/unsubscribe/{token}")]
pub async fn unsubscribe_page(
    domain: web::Data<Domain>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    let check = t.clone();
    web::block(move || domain.check_unsubscribe_link(&check)).await??;
    let action = format!("/api/v1/unsubscribe/{t}");
    Ok(page(
        "Stop game emails?",
        &format!(
            "<p>This stops every game email from Turnpost to your address: turn emails, reminders \
             and digests. Your games go on; you can still play them through the API, and turn the \
             emails back on in your account settings.</p>\
             <form method=\"post\" action=\"{}\">\
             <input type=\"hidden\" name=\"List-Unsubscribe\" value=\"One-Click\">\
             <button type=\"submit\" style=\"font-size:16px;padding:10px 18px;background:#2f6f4f;\
             color:#fff;border:none;border-radius:6px\">Stop game emails</button></form>",
            html_escape::encode_double_quoted_attribute(&action)
        ),
    ))
}

/// One-click unsubscribe (RFC 8058): turns the account's game emails off. No login: the
/// signed token is the authority. Mail clients send `List-Unsubscribe=One-Click` as a form
/// body; any body is accepted. Idempotent.
#[utoipa::path(
    tag = "email",
    params(("token" = String, Path, description = "The signed token of the List-Unsubscribe URL")),
    responses(
        (status = 200, description = "Game emails are off", content_type = "text/html", body = String),
        (status = 403, description = "`invalid_link`: the token was altered or not made by this server", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "`not_found`: the account no longer exists", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/unsubscribe/{token}")]
pub async fn unsubscribe(
    domain: web::Data<Domain>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    web::block(move || domain.unsubscribe(&t)).await??;
    Ok(page(
        "Game emails are off",
        "<p>You will get no more game emails from Turnpost. To get them again, set \
         <code>email_notifications</code> in your account (<code>PATCH /api/v1/me</code>).</p>",
    ))
}

/// Confirm an email address: the link sent at sign-up (or by
/// `POST /api/v1/me/verify-email`). Game email goes to an account only once its address is
/// confirmed (when the server requires it); confirming also ends a `bouncing` state.
#[utoipa::path(
    tag = "email",
    params(("token" = String, Path, description = "The signed token of the confirmation link")),
    responses(
        (status = 200, description = "The address is confirmed", content_type = "text/html", body = String),
        (status = 403, description = "`invalid_link`: the token was altered, not made by this server, or made for another address", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/verify-email/{token}")]
pub async fn verify_email(
    domain: web::Data<Domain>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    let email = web::block(move || domain.verify_email(&t)).await??;
    Ok(page(
        "Your address is confirmed",
        &format!(
            "<p>Thank you. Game emails will go to {}.</p>",
            html_escape::encode_text(&email)
        ),
    ))
}

/// Send a new confirmation link to the caller's address (at most one a minute), when it
/// is not confirmed yet or bounces.
#[utoipa::path(
    tag = "email",
    security(("bearer" = [])),
    responses(
        (status = 202, description = "A confirmation link is on its way"),
        (status = 409, description = "`already_verified`", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/me/verify-email")]
pub async fn resend_confirmation(
    domain: web::Data<Domain>,
    caller: Caller,
) -> Result<HttpResponse, ApiError> {
    web::block(move || domain.resend_confirmation(caller.0)).await??;
    Ok(HttpResponse::Accepted().finish())
}

/// The page of a sign-up link: the account it makes, and a button that makes it (a POST to
/// the same URL, so that a link scanner that follows the link makes nothing).
#[utoipa::path(
    tag = "accounts",
    params(("token" = String, Path, description = "The token of the link mailed at sign-up")),
    responses(
        (status = 200, description = "A page with a button that makes the account (a POST to the same URL)", content_type = "text/html", body = String),
        (status = 403, description = "`invalid_link`: the link was used already, is older than 2 days, or was altered", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/sign-ups/{token}")]
pub async fn sign_up_page(
    domain: web::Data<Domain>,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    let check = t.clone();
    let pending = web::block(move || domain.pending_sign_up(&check)).await??;
    let action = format!("/api/v1/sign-ups/{t}");
    Ok(page(
        "Finish creating your account",
        &format!(
            "<p>This makes the Turnpost account <strong>{}</strong> for {}, with the password \
             chosen at sign-up. If you did not sign up, close this page: nothing is made.</p>\
             <form method=\"post\" action=\"{}\">\
             <button type=\"submit\" style=\"font-size:16px;padding:10px 18px;background:#2f6f4f;\
             color:#fff;border:none;border-radius:6px\">Make my account</button></form>",
            html_escape::encode_text(&pending.name),
            html_escape::encode_text(&pending.email),
            html_escape::encode_double_quoted_attribute(&action)
        ),
    ))
}

/// Follows a sign-up link: makes the account, its address confirmed. A link works once.
#[utoipa::path(
    tag = "accounts",
    params(("token" = String, Path, description = "The token of the link mailed at sign-up")),
    responses(
        (status = 200, description = "The account is made: sign in", content_type = "text/html", body = String),
        (status = 303, description = "The account is made, when the request was the sign-up page's form: on to the web client, signed in (the session rides in the address's fragment, which no server sees)"),
        (status = 403, description = "`invalid_link`: the link was used already, is older than 2 days, or was altered", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`email_taken`: the address got an account after this link was sent (by an invitation); sign in to it", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/sign-ups/{token}")]
pub async fn complete_sign_up(
    domain: web::Data<Domain>,
    req: HttpRequest,
    token: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let t = token.into_inner();
    let base = domain.public_url.trim_end_matches('/').to_string();
    let sign_in = format!("{base}/#/signin");
    let SignedUp {
        account,
        access_token,
    } = web::block(move || domain.complete_sign_up(&t)).await??;
    if super::invitations::is_form(&req) {
        // The page's button: on to the web client, signed in, as an invited friend is.
        let location = format!(
            "{}/#/welcome/{access_token}",
            super::invitations::path_of(&base)
        );
        return Ok(HttpResponse::SeeOther()
            .insert_header((header::LOCATION, location))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .insert_header((header::REFERRER_POLICY, "no-referrer"))
            .finish());
    }
    Ok(page(
        "Your account is ready",
        &format!(
            "<p>Welcome, {}. Your address {} is confirmed: \
             <a href=\"{}\">sign in</a> with it and your password.</p>",
            html_escape::encode_text(&account.name),
            html_escape::encode_text(&account.email),
            html_escape::encode_double_quoted_attribute(&sign_in)
        ),
    ))
}
