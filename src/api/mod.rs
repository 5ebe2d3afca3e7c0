//! HTTP: thin actix-web handlers. Parse, call the domain, map errors in one place
//! (`problem`). The OpenAPI description is collected from the handlers themselves.

pub mod access_log;
pub mod access_tokens;
pub mod account_data;
pub mod accounts;
pub mod auth;
pub mod calendar;
pub mod chat;
pub mod client_addr;
pub mod deadline;
pub mod email_links;
pub mod etag;
pub mod events;
pub mod games;
pub mod guides;
pub mod health;
pub mod inbound;
pub mod invitations;
pub mod json_body;
pub mod log_redact;
pub mod metrics;
pub mod notes;
pub mod password_reset;
pub mod problem;
pub mod problem_types;
pub mod rate_limit;
pub mod ratings;
pub mod reference;
pub mod replacement;
pub mod request_id;
pub mod scopes;
pub mod spec;
pub mod stream_limits;
pub mod web_client;
pub mod webhooks;
pub mod write_gate;

use utoipa::Modify;
use utoipa::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa_actix_web::service_config::ServiceConfig;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Turnpost",
        description = "A server for slow, asynchronous board games played over days, by REST and by email. \
            Errors are RFC 9457 problem documents (`application/problem+json`) with a stable `code`.\n\n\
            Seat numbers: the API counts seats from 0 (`seat`, `your_seat`, `to_act`, `ranking`; the creator is seat 0). \
            Text written for people (`legal_action_texts`, log descriptions, emails, board pictures) counts from 1: \
            API seat `n` is \"Seat n+1\" there, unless the game names its seats.\n\n\
            Every response carries `X-Request-Id`: the client's own when it sent a well-formed one \
            (1 to 64 characters of `A-Z a-z 0-9 . _ -`), else a fresh one. The server's log names \
            each request by it; quote it when reporting a problem.\n\n\
            Responses are compressed (gzip, br or zstd) as `Accept-Encoding` allows, except \
            event streams (`text/event-stream`) and PNG images.\n\n\
            Requests under `/api/v1/` spend a budget: 600 a minute per account (all of its tokens \
            together), and 300 a \
            minute per client address for requests without a token (a server's operator may \
            change both). A minute's budget may be spent at once and comes back steadily. Every \
            answer says where the caller stands in `RateLimit-Limit`, `RateLimit-Remaining` and \
            `RateLimit-Reset` (IETF draft-ietf-httpapi-ratelimit-headers); past the budget the \
            answer is 429 `rate_limited` with `Retry-After`, and nothing was done. A token the \
            server refuses (401) is charged to its client address too.\n\n\
            Browse this reference at `/docs`, each game type's options, actions (with examples \
            from a played game) and views at `/docs/games/{game_type}`, and every problem code \
            at `/problems`.",
        license(name = "MIT", identifier = "MIT")
    ),
    components(schemas(
        problem::Problem,
        guides::Guide,
        events::GameChangedData,
        events::GameWatchData,
        events::LobbyChangedData,
        events::StreamPositionData,
        events::LaggedData,
        events::UnauthorizedData,
        crate::domain::webhooks::WebhookPayload,
    )),
    modifiers(&BearerAuth)
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .bearer_format("JWT or tp_ personal access token")
                    .build(),
            ),
        );
        components.add_security_scheme(
            "inbound",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The shared secret TURNPOST_INBOUND_SECRET"))
                    .build(),
            ),
        );
        components.add_security_scheme(
            "metrics",
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The operator's TURNPOST_METRICS_TOKEN"))
                    .build(),
            ),
        );
    }
}

/// Registers every endpoint (and its OpenAPI description).
pub fn routes(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(metrics::metrics)
        .service(health::openapi_yaml)
        .service(problem_types::problem_list)
        .service(problem_types::problem_type)
        .service(reference::docs)
        .service(reference::redoc_script)
        .service(reference::game_page)
        // After the Redoc script's own path, which this one would match too.
        .service(guides::guide_page)
        .service(
            utoipa_actix_web::scope("/api/v1")
                .service(accounts::create_account)
                .service(accounts::token)
                .service(accounts::me)
                .service(accounts::update_me)
                .service(account_data::export_account)
                .service(account_data::delete_account)
                .service(accounts::vacation)
                .service(access_tokens::create_token)
                .service(access_tokens::list_tokens)
                .service(access_tokens::delete_token)
                .service(access_tokens::logout)
                .service(access_tokens::create_stream_ticket)
                .service(password_reset::request_password_reset)
                .service(password_reset::set_new_password)
                .service(password_reset::check_reset_link)
                .service(events::events)
                .service(games::game_types)
                .service(games::game_type)
                .service(games::game_rules)
                .service(games::create_game)
                .service(games::list_games)
                .service(games::get_game)
                .service(games::join_game)
                .service(games::leave_game)
                .service(games::submit_action)
                .service(games::game_log)
                .service(games::view_at)
                .service(games::board_svg)
                .service(games::preview_action)
                .service(games::resign)
                .service(games::rematch)
                .service(games::resume)
                .service(replacement::offer_seat)
                .service(replacement::withdraw_seat_offer)
                .service(replacement::take_seat)
                .service(replacement::game_replacements)
                .service(replacement::seat_offers)
                .service(games::ask_takeback)
                .service(games::answer_takeback)
                .service(games::nudge)
                .service(chat::list_chat)
                .service(chat::post_chat)
                .service(chat::mark_chat_read)
                .service(chat::report_chat)
                .service(chat::chat_unread)
                .service(chat::mute)
                .service(chat::unmute)
                .service(chat::list_mutes)
                .service(notes::get_note)
                .service(notes::put_note)
                .service(notes::account_reliability)
                .service(ratings::account_ratings)
                .service(ratings::leaderboard)
                .service(inbound::inbound_email)
                .service(email_links::unsubscribe_page)
                .service(email_links::unsubscribe)
                .service(email_links::verify_email)
                .service(email_links::resend_confirmation)
                .service(email_links::sign_up_page)
                .service(email_links::complete_sign_up)
                .service(events::game_events)
                .service(invitations::invitation_page)
                .service(invitations::accept_invitation)
                .service(invitations::decline_invitation)
                .service(invitations::game_invitations)
                .service(invitations::cancel_invitation)
                .service(webhooks::create_webhook)
                .service(webhooks::list_webhooks)
                .service(webhooks::delete_webhook)
                .service(webhooks::test_webhook)
                .service(webhooks::webhook_deliveries)
                .service(calendar::calendar_feed)
                .service(calendar::reset_calendar_feed)
                .service(calendar::calendar_ics),
        );
}

/// The OpenAPI document, as served and as committed in `openapi.yaml`.
pub fn openapi() -> utoipa::openapi::OpenApi {
    use utoipa_actix_web::AppExt;
    let (_, mut api) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(routes)
        .split_for_parts();
    spec::finish(&mut api);
    api
}

pub fn openapi_yaml() -> String {
    let mut doc = serde_json::to_value(openapi()).unwrap_or_default();
    spec::add_game_models(&mut doc, &crate::games::Registry::standard());
    spec::add_links(&mut doc);
    spec::add_request_id_header(&mut doc);
    rate_limit::describe(&mut doc);
    spec::add_constraints(&mut doc);
    scopes::annotate(&mut doc);
    spec::finish_document(&mut doc);
    quote_yaml11_booleans(&spec::to_yaml(&doc))
}

/// YAML 1.2 writes the string `off` bare, and YAML 1.1 readers (PyYAML, so most Python
/// tooling) read it back as `false`: quote such scalars so every reader sees strings.
fn quote_yaml11_booleans(yaml: &str) -> String {
    const WORDS: [&str; 8] = ["y", "n", "yes", "no", "on", "off", "Y", "N"];
    let mut out = String::with_capacity(yaml.len() + 16);
    for line in yaml.lines() {
        let quoted = ["- ", ": "].iter().find_map(|sep| {
            let (head, value) = line.rsplit_once(sep)?;
            let word = WORDS
                .iter()
                .chain(["Yes", "No", "On", "Off", "YES", "NO", "ON", "OFF"].iter())
                .find(|w| **w == value)?;
            Some(format!("{head}{sep}'{word}'"))
        });
        out.push_str(quoted.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}
