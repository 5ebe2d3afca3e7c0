//! The guides, one for each reader (players, hosts, client builders, developers): Markdown
//! kept in `src/docs/` beside the code it describes, compiled in, and served as pages at
//! `/docs/<guide>` next to the API reference. Links between guides and to the repository's
//! files are written for the repository (`hosting.md#backups`, `../../openapi.yaml`); on
//! the served page they lead to the served pages instead.

use std::sync::OnceLock;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, get, web};
use html_escape::encode_text as esc;
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use serde::Deserialize;
use utoipa::ToSchema;

use super::problem::{ApiError, Problem};
use crate::domain::ProblemCode;

/// A guide, by the reader it is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum Guide {
    /// Playing in the browser and by email.
    Players,
    /// Running a server: install, mail, proxies, backups, failover, upgrades.
    Hosting,
    /// Building a client on the API.
    Api,
    /// Working on Turnpost itself.
    Development,
}

impl Guide {
    pub const ALL: [Guide; 4] = [
        Guide::Players,
        Guide::Hosting,
        Guide::Api,
        Guide::Development,
    ];

    /// The name in its address (`/docs/<name>`) and its file (`src/docs/<name>.md`).
    pub fn name(self) -> &'static str {
        match self {
            Guide::Players => "players",
            Guide::Hosting => "hosting",
            Guide::Api => "api",
            Guide::Development => "development",
        }
    }

    pub fn title(self) -> &'static str {
        match self {
            Guide::Players => "Playing",
            Guide::Hosting => "Hosting",
            Guide::Api => "Building a client",
            Guide::Development => "Developing Turnpost",
        }
    }

    pub fn markdown(self) -> &'static str {
        match self {
            Guide::Players => include_str!("../docs/players.md"),
            Guide::Hosting => include_str!("../docs/hosting.md"),
            Guide::Api => include_str!("../docs/api.md"),
            Guide::Development => include_str!("../docs/development.md"),
        }
    }

    fn parse(name: &str) -> Option<Guide> {
        Guide::ALL.into_iter().find(|g| g.name() == name)
    }
}

/// The anchor GitHub gives a heading: lower case, punctuation other than `-` and `_`
/// dropped, spaces as `-`. The served page uses the same, so a link's fragment works in
/// both places.
pub fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Where a link of a guide leads on the served page: another guide's page, the web
/// client's rules page of a game, the served API description; other links to repository
/// files lose their link (their text stays).
fn served_link(dest: &str) -> Option<String> {
    // Fragments, absolute paths and other sites are the same on the page.
    if dest.starts_with(['#', '/']) || dest.contains("://") || dest.starts_with("mailto:") {
        return Some(dest.to_string());
    }
    let (path, fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, format!("#{f}")),
        None => (dest, String::new()),
    };
    let file = path.rsplit('/').next().unwrap_or(path);
    if let Some(guide) = file.strip_suffix(".md").and_then(Guide::parse) {
        return Some(format!("/docs/{}{fragment}", guide.name()));
    }
    if file == "RULES.md" {
        let game = path.trim_end_matches("/RULES.md").rsplit('/').next()?;
        return Some(format!("/#/rules/{}", game.replace('_', "-")));
    }
    (file == "openapi.yaml").then(|| "/openapi.yaml".to_string())
}

/// The guide's Markdown as HTML: headings with their anchors, links as served.
pub fn render(markdown: &str) -> String {
    let mut events: Vec<Event> = Vec::new();
    // A heading's events are held until its text (and so its anchor) is known.
    let mut heading: Option<(HeadingLevel, Vec<Event>)> = None;
    // Links whose target is not served keep their text only.
    let mut dropped_links = 0usize;
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    for event in Parser::new_ext(markdown, options) {
        let event = match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => match served_link(&dest_url) {
                Some(to) => Event::Start(Tag::Link {
                    link_type,
                    dest_url: CowStr::from(to),
                    title,
                    id,
                }),
                None => {
                    dropped_links += 1;
                    continue;
                }
            },
            Event::End(TagEnd::Link) if dropped_links > 0 => {
                dropped_links -= 1;
                continue;
            }
            e => e,
        };
        if let Some((level, mut inner)) = heading.take() {
            if let Event::End(TagEnd::Heading(_)) = event {
                let text: String = inner
                    .iter()
                    .filter_map(|e| match e {
                        Event::Text(t) | Event::Code(t) => Some(t.as_ref()),
                        _ => None,
                    })
                    .collect();
                events.push(Event::Start(Tag::Heading {
                    level,
                    id: Some(CowStr::from(anchor(&text))),
                    classes: Vec::new(),
                    attrs: Vec::new(),
                }));
                events.append(&mut inner);
                events.push(Event::End(TagEnd::Heading(level)));
            } else {
                inner.push(event);
                heading = Some((level, inner));
            }
            continue;
        }
        match event {
            Event::Start(Tag::Heading { level, .. }) => heading = Some((level, Vec::new())),
            // Raw HTML in a guide is shown as text: the pages carry no markup of their own.
            Event::Html(h) | Event::InlineHtml(h) => events.push(Event::Text(h)),
            e => events.push(e),
        }
    }
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, events.into_iter());
    out
}

/// A guide's page, built once.
fn page_of(guide: Guide) -> &'static str {
    static PAGES: OnceLock<Vec<String>> = OnceLock::new();
    let pages = PAGES.get_or_init(|| {
        Guide::ALL
            .into_iter()
            .map(|g| {
                let nav: String = Guide::ALL
                    .into_iter()
                    .map(|other| {
                        if other == g {
                            format!("<strong>{}</strong>", esc(other.title()))
                        } else {
                            format!(
                                "<a href=\"/docs/{}\">{}</a>",
                                other.name(),
                                esc(other.title())
                            )
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(" ");
                format!(
                    "{}<body class=\"guide\"><nav class=\"docs-nav\">{nav} \
                     <a href=\"/docs\">API reference</a> <a href=\"/\">Play</a></nav>\
                     <main>{}</main></body></html>",
                    super::reference::head(&format!("{} — Turnpost", g.title())),
                    render(g.markdown())
                )
            })
            .collect()
    });
    let i = Guide::ALL.iter().position(|g| *g == guide).unwrap_or(0);
    pages.get(i).map_or("", String::as_str)
}

/// A guide: for players, hosts, client builders or developers.
#[utoipa::path(
    tag = "health",
    params(("guide" = Guide, Path, description = "Which guide: `players`, `hosting`, `api` or `development`")),
    responses(
        (status = 200, description = "The guide as a page", content_type = "text/html", body = String),
        (status = 404, description = "`not_found`: no such guide", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/docs/{guide}")]
pub async fn guide_page(name: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let guide = Guide::parse(&name).ok_or_else(|| {
        ApiError::new(
            StatusCode::NOT_FOUND,
            ProblemCode::NotFound,
            "no such guide: players, hosting, api or development",
        )
    })?;
    Ok(super::reference::static_page(page_of(guide).to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_get_the_anchors_links_use() {
        let html = render(
            "# Play by email\n\nSee [backups](hosting.md#backups-and-restore), \
             [Kasino's rules](../games/kasino/RULES.md), [the spec](../../openapi.yaml), \
             [a file](../api/mod.rs) and [here](#play-by-email).\n\n## What's `new`, now?\n\n<script>x</script>\n",
        );
        assert!(
            html.contains("<h1 id=\"play-by-email\">Play by email</h1>"),
            "{html}"
        );
        assert!(html.contains("<h2 id=\"whats-new-now\">"), "{html}");
        assert!(
            html.contains("href=\"/docs/hosting#backups-and-restore\""),
            "{html}"
        );
        assert!(html.contains("href=\"/#/rules/kasino\""), "{html}");
        assert!(html.contains("href=\"/openapi.yaml\""), "{html}");
        assert!(html.contains("href=\"#play-by-email\""), "{html}");
        assert!(
            html.contains(" a file and"),
            "an unserved file keeps its text: {html}"
        );
        assert!(!html.contains("<script>"), "{html}");
    }

    #[test]
    fn every_guide_renders() {
        for g in Guide::ALL {
            let page = page_of(g);
            assert!(page.contains("<h1"), "{}", g.name());
            assert!(page.contains("/docs/players") || g == Guide::Players);
        }
    }
}
