//! What every answer carries whatever the route: `X-Request-Id`, and compression where the
//! client accepts it (but never on event streams).

use std::io::{BufRead, BufReader};
use std::sync::mpsc;
use std::time::Duration;

use reqwest::blocking::{Client, Response};
use serde_json::json;

use crate::helpers::*;

fn request_id(r: &Response) -> String {
    r.headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_else(|| panic!("no X-Request-Id on {} {}", r.status(), r.url()))
        .to_string()
}

fn is_fresh(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

fn get_with(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Response {
    let mut r = app.client.get(app.url(path));
    for (k, v) in headers {
        r = r.header(*k, *v);
    }
    r.send().expect("request")
}

#[test]
fn every_answer_has_a_request_id_fresh_or_the_clients_well_formed_one() {
    let app = spawn_app();
    let ada = app.player("Ada");
    // Success, error, an unknown route, a known route with the wrong method.
    let answers = [
        app.get("/healthz", None),
        app.get("/api/v1/me", Some(&ada.token)),
        app.get("/api/v1/me", None),
        app.get("/no/such/route", None),
        app.client
            .delete(app.url("/api/v1/game-types"))
            .send()
            .unwrap(),
    ];
    let statuses: Vec<u16> = answers.iter().map(|r| r.status().as_u16()).collect();
    assert_eq!(statuses, [200, 200, 401, 404, 405]);
    let ids: Vec<String> = answers.iter().map(request_id).collect();
    assert!(ids.iter().all(|id| is_fresh(id)), "{ids:?}");
    let distinct: std::collections::HashSet<&String> = ids.iter().collect();
    assert_eq!(distinct.len(), ids.len(), "a fresh id per request: {ids:?}");

    // A well-formed client id comes back, on success and on error alike.
    let mine = "client-7_a.B";
    let longest = "a".repeat(64);
    for (path, id) in [
        ("/healthz", mine),
        ("/no/such/route", mine),
        ("/healthz", longest.as_str()),
    ] {
        let r = get_with(&app, path, &[("X-Request-Id", id)]);
        assert_eq!(request_id(&r), id, "{path}");
    }
    // Anything else is replaced by a fresh id, and the request still answered.
    let too_long = "a".repeat(65);
    for bad in ["has space", "semi;colon", too_long.as_str(), "", "x\"y"] {
        let r = get_with(&app, "/healthz", &[("X-Request-Id", bad)]);
        assert_eq!(r.status(), 200, "{bad:?}");
        let id = request_id(&r);
        assert!(is_fresh(&id), "{bad:?} became {id}");
    }
    let (status, _) = assert_problem(get_with(&app, "/api/v1/games/abc", &[]), "bad path");
    assert_eq!(status, 404);

    // The description says so, for every response.
    let spec: serde_json::Value =
        serde_yaml::from_str(&app.get("/openapi.yaml", None).text().unwrap()).unwrap();
    let header = json!({ "$ref": "#/components/headers/RequestId" });
    let mut responses = 0;
    for (path, item) in spec["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, resp) in op["responses"].as_object().into_iter().flatten() {
                // A response several operations share stands in the components.
                let resp = resp["$ref"]
                    .as_str()
                    .and_then(|r| r.strip_prefix('#'))
                    .and_then(|pointer| spec.pointer(pointer))
                    .unwrap_or(resp);
                assert_eq!(
                    resp["headers"]["X-Request-Id"], header,
                    "{method} {path} {status}"
                );
                responses += 1;
            }
        }
    }
    assert!(responses > 100, "{responses}");
    assert!(spec["components"]["headers"]["RequestId"]["description"].is_string());
}

#[test]
fn the_game_types_are_compressed_as_the_client_accepts() {
    let app = spawn_app();
    let plain = get_with(&app, "/api/v1/game-types", &[]);
    assert_eq!(plain.status(), 200);
    assert!(plain.headers().get("content-encoding").is_none());
    let plain_len = plain.bytes().unwrap().len();

    let gzip = get_with(
        &app,
        "/api/v1/game-types",
        &[("Accept-Encoding", "gzip, br")],
    );
    assert_eq!(gzip.status(), 200);
    let encoding = gzip.headers()["content-encoding"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(encoding == "br" || encoding == "gzip", "{encoding}");
    assert!(request_id(&gzip).len() == 32);
    let packed = gzip.bytes().unwrap();

    let only_gzip = get_with(&app, "/api/v1/game-types", &[("Accept-Encoding", "gzip")]);
    assert_eq!(only_gzip.headers()["content-encoding"], "gzip");
    let gz = only_gzip.bytes().unwrap();
    assert_eq!(&gz[..2], [0x1f, 0x8b], "a gzip stream");
    eprintln!(
        "game-types: {plain_len} bytes plain, {} {encoding}, {} gzip",
        packed.len(),
        gz.len()
    );
    assert!(plain_len > 50_000, "{plain_len}");
    // Measured: 86,723 bytes plain, 17,052 br, 23,742 gzip (actix's fast levels).
    assert!(
        packed.len() * 3 < plain_len && gz.len() * 3 < plain_len,
        "{plain_len} → {} / {}",
        packed.len(),
        gz.len()
    );
}

#[test]
fn event_streams_are_never_compressed_and_carry_the_request_id() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    for path in [
        format!("/api/v1/me/events?ticket={}", app.ticket(&ada.token)),
        format!(
            "/api/v1/games/{id}/events?ticket={}",
            app.ticket(&ada.token)
        ),
    ] {
        let url = app.url(&path);
        let (tx, rx) = mpsc::channel();
        // A thread of its own: a stream whose frames were held back would block the read.
        std::thread::spawn(move || {
            let resp = Client::builder()
                .timeout(Duration::from_secs(60))
                .build()
                .unwrap()
                .get(url)
                .header("Accept-Encoding", "gzip, br, zstd")
                .header("X-Request-Id", "stream-1")
                .send()
                .unwrap();
            let head = (
                resp.status().as_u16(),
                content_type(&resp),
                resp.headers().get("content-encoding").cloned(),
                request_id(&resp),
            );
            let _ = tx.send(Err(head));
            for line in BufReader::new(resp).lines() {
                let Ok(line) = line else { break };
                if let Some(e) = line.strip_prefix("event: ") {
                    let _ = tx.send(Ok(e.to_string()));
                    break;
                }
            }
        });
        let head = rx.recv_timeout(Duration::from_secs(20)).expect("the head");
        let Err((status, ct, encoding, rid)) = head else {
            panic!("no head first")
        };
        assert_eq!(status, 200, "{path}");
        assert!(ct.starts_with("text/event-stream"), "{ct}");
        assert_eq!(encoding, None, "{path}: a stream must not be compressed");
        assert_eq!(rid, "stream-1");
        // The opening frame arrives at once, readable as it is.
        let first = rx.recv_timeout(PATIENCE).expect("a frame");
        assert!(matches!(first, Ok(ref e) if !e.is_empty()), "{first:?}");
    }
}
