//! Conditional requests as RFC 9110 has them, on every JSON resource a client re-reads:
//! an `ETag` on the game, its log and views, the game list, the account and the game
//! types; `If-None-Match` compares weakly and takes `*`; a move's `If-Match` compares
//! strongly (a weak tag fails with 412) and takes `*` (then the body names the version).

use reqwest::blocking::Response;
use serde_json::{Value, json};

use crate::helpers::{Player, TestApp, assert_problem, spawn_app};

fn get(app: &TestApp, path: &str, p: Option<&Player>, inm: Option<&str>) -> Response {
    let mut r = app.client.get(app.url(path));
    if let Some(p) = p {
        r = r.bearer_auth(&p.token);
    }
    if let Some(t) = inm {
        r = r.header("if-none-match", t);
    }
    r.send().unwrap()
}

fn tag_of(r: &Response) -> String {
    r.headers()
        .get("etag")
        .unwrap_or_else(|| panic!("no ETag on {}", r.url()))
        .to_str()
        .unwrap()
        .to_string()
}

#[test]
fn every_resource_a_client_re_reads_has_an_etag_and_answers_304_to_it() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    for path in [
        "/api/v1/me".to_string(),
        "/api/v1/games".to_string(),
        "/api/v1/games?awaiting=me".to_string(),
        format!("/api/v1/games/{id}"),
        format!("/api/v1/games/{id}/log"),
        format!("/api/v1/games/{id}/views/0"),
        format!("/api/v1/games/{id}/board.svg"),
        "/api/v1/game-types".to_string(),
        "/api/v1/game-types/kasino".to_string(),
    ] {
        let r = get(&app, &path, Some(&ada), None);
        assert_eq!(r.status(), 200, "{path}");
        let tag = tag_of(&r);
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{path}: {tag}");
        assert!(r.headers().contains_key("cache-control"), "{path}");
        let body = r.bytes().unwrap();
        // The same tag: 304 with no body; weakly too; `*`; in a list.
        for held in [
            tag.clone(),
            format!("W/{tag}"),
            "*".to_string(),
            format!("\"zzz\", {tag}"),
        ] {
            let r = get(&app, &path, Some(&ada), Some(&held));
            assert_eq!(r.status(), 304, "{path} with {held}");
            assert_eq!(tag_of(&r), tag, "{path}");
            assert!(r.bytes().unwrap().is_empty());
        }
        // Another tag, or garbage: the whole answer again.
        for other in ["\"0-abc\"", "not a tag"] {
            let r = get(&app, &path, Some(&ada), Some(other));
            assert_eq!(r.status(), 200, "{path} with {other}");
            assert_eq!(r.bytes().unwrap(), body, "{path}");
        }
        // Another reader's answer differs where it should: Bo's account, Bo's view.
        if path == "/api/v1/me" || path.ends_with(&format!("/games/{id}")) {
            let r = get(&app, &path, Some(&bo), Some(&tag));
            assert_eq!(r.status(), 200, "{path}: Bo holds Ada's tag");
        }
    }
    // A move changes the log's, the list's and the game's tags.
    let before: Vec<String> = [
        "/api/v1/games".to_string(),
        format!("/api/v1/games/{id}/log"),
    ]
    .iter()
    .map(|p| tag_of(&get(&app, p, Some(&ada), None)))
    .collect();
    play_one(&app, id, &[&ada, &bo]);
    for (p, old) in [
        "/api/v1/games".to_string(),
        format!("/api/v1/games/{id}/log"),
    ]
    .iter()
    .zip(before)
    {
        let r = get(&app, p, Some(&ada), Some(&old));
        assert_eq!(r.status(), 200, "{p} after a move");
        assert_ne!(tag_of(&r), old, "{p}");
    }
}

/// The player to move plays their first legal action; returns the new version.
fn play_one(app: &TestApp, id: i64, players: &[&Player]) -> i64 {
    let g = app.game(id, players[0]);
    let seat = g["to_act"][0].as_i64().unwrap();
    let p = players
        .iter()
        .find(|p| g["seats"][seat as usize]["account_id"] == p.id)
        .unwrap();
    let mine = app.game(id, p);
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&p.token),
        &json!({"action": mine["legal_actions"][0], "expected_version": mine["version"]}),
    );
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    r.json::<Value>().unwrap()["version"].as_i64().unwrap()
}

/// Which of two players is to move in a two-player game.
fn to_move<'a>(app: &TestApp, id: i64, ada: &'a Player, bo: &'a Player) -> &'a Player {
    let g = app.game(id, ada);
    let seat = g["to_act"][0].as_i64().unwrap();
    if g["seats"][seat as usize]["account_id"] == ada.id {
        ada
    } else {
        bo
    }
}

#[test]
fn if_match_is_strong_takes_a_star_and_a_list() {
    let app = spawn_app();
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let path = format!("/api/v1/games/{id}");
    let p = to_move(&app, id, &ada, &bo);
    let r = get(&app, &path, Some(p), None);
    let tag = tag_of(&r);
    let mine: Value = r.json().unwrap();
    let action = mine["legal_actions"][0].clone();
    let version = mine["version"].as_i64().unwrap();
    let post = |if_match: &str, body: Value| {
        app.client
            .post(app.url(&format!("{path}/actions")))
            .bearer_auth(&p.token)
            .header("if-match", if_match)
            .json(&body)
            .send()
            .unwrap()
    };
    // A weak tag never matches If-Match: 412, and nothing is played.
    let r = post(&format!("W/{tag}"), json!({"action": action}));
    let (s, v) = assert_problem(r, "weak If-Match");
    assert_eq!((s, v["code"].as_str()), (412, Some("stale_version")));
    // `*` alone names no version: the body must.
    let r = post("*", json!({"action": action}));
    let (s, v) = assert_problem(r, "star without a version");
    assert_eq!((s, v["code"].as_str()), (428, Some("version_required")));
    // Several tags: the body may say which; one that is not listed is refused.
    let two = format!("\"{}-0000\", {tag}", version + 5);
    let r = post(
        &two,
        json!({"action": action, "expected_version": version + 1}),
    );
    assert_eq!(assert_problem(r, "a version not in the list").0, 400);
    // Several tags none of which is current: 412.
    let stale = format!("\"{}-0000\", \"{}-0000\"", version + 5, version + 7);
    let r = post(&stale, json!({"action": action}));
    let (s, v) = assert_problem(r, "no current tag in the list");
    assert_eq!((s, v["code"].as_str()), (412, Some("stale_version")));
    // Garbage.
    for bad in ["\"nonsense\"", "7", "\"7-a\", *", ""] {
        let r = post(bad, json!({"action": action}));
        let (s, v) = assert_problem(r, bad);
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("invalid_if_match")),
            "{bad:?}"
        );
    }
    assert_eq!(app.game(id, p)["version"], version, "nothing was played");
    // `*` with the version in the body plays.
    let r = post("*", json!({"action": action, "expected_version": version}));
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    // The next mover, with a list holding the current tag among older ones, plays.
    let q = to_move(&app, id, &ada, &bo);
    let r = get(&app, &path, Some(q), None);
    let current = tag_of(&r);
    let next: Value = r.json().unwrap();
    let r = app
        .client
        .post(app.url(&format!("{path}/actions")))
        .bearer_auth(&q.token)
        .header("if-match", format!("{tag}, {current}"))
        .json(&json!({"action": next["legal_actions"][0]}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
}

#[test]
fn twenty_moves_sent_at_once_with_the_same_if_match_play_once() {
    let app = std::sync::Arc::new(spawn_app());
    let (ada, bo) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&ada, &bo]);
    let g = app.game(id, &ada);
    let seat = g["to_act"][0].as_i64().unwrap();
    let p = if g["seats"][seat as usize]["account_id"] == ada.id {
        ada
    } else {
        bo
    };
    let r = get(&app, &format!("/api/v1/games/{id}"), Some(&p), None);
    let tag = tag_of(&r);
    let action = r.json::<Value>().unwrap()["legal_actions"][0].clone();
    let threads: Vec<_> = (0..20)
        .map(|_| {
            let (app, tag, action, token) =
                (app.clone(), tag.clone(), action.clone(), p.token.clone());
            std::thread::spawn(move || {
                app.client
                    .post(app.url(&format!("/api/v1/games/{id}/actions")))
                    .bearer_auth(&token)
                    .header("if-match", tag)
                    .json(&json!({"action": action}))
                    .send()
                    .unwrap()
                    .status()
                    .as_u16()
            })
        })
        .collect();
    let mut statuses: Vec<u16> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    statuses.sort_unstable();
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        1,
        "{statuses:?}"
    );
    assert!(
        statuses.iter().all(|s| [200, 412].contains(s)),
        "{statuses:?}"
    );
}

/// A compressed answer is another representation: its strong tag names the coding, and
/// either tag sent back is recognised (RFC 9110 §8.8.3).
#[test]
fn a_compressed_answer_has_a_tag_of_its_own_and_either_tag_revalidates() {
    let app = spawn_app();
    let ada = app.player("Ada");
    for (path, who) in [("/api/v1/game-types", None), ("/api/v1/me", Some(&ada))] {
        let fetch = |coding: Option<&str>, inm: Option<&str>| {
            let mut r = app.client.get(app.url(path));
            if let Some(p) = who {
                r = r.bearer_auth(&p.token);
            }
            if let Some(c) = coding {
                r = r.header("accept-encoding", c);
            }
            if let Some(t) = inm {
                r = r.header("if-none-match", t);
            }
            r.send().unwrap()
        };
        let plain = fetch(None, None);
        assert!(plain.headers().get("content-encoding").is_none());
        let plain_tag = tag_of(&plain);
        let zipped = fetch(Some("gzip"), None);
        assert_eq!(zipped.headers()["content-encoding"], "gzip", "{path}");
        let zipped_tag = tag_of(&zipped);
        assert_ne!(plain_tag, zipped_tag, "{path}");
        assert_eq!(
            zipped_tag,
            format!("{}-gzip\"", plain_tag.trim_end_matches('"')),
            "{path}"
        );
        let br = tag_of(&fetch(Some("br"), None));
        assert!(br.ends_with("-br\""), "{path}: {br}");
        // Each tag revalidates, whichever coding the client asks for now.
        for t in [&plain_tag, &zipped_tag, &br] {
            for c in [None, Some("gzip")] {
                assert_eq!(fetch(c, Some(t)).status(), 304, "{path} {t} {c:?}");
            }
        }
    }
    // The web client's files too.
    let js = app
        .client
        .get(app.url("/web/app.js"))
        .header("accept-encoding", "gzip")
        .send()
        .unwrap();
    let t = tag_of(&js);
    assert!(t.ends_with("-gzip\""), "{t}");
    let again = app
        .client
        .get(app.url("/web/app.js"))
        .header("accept-encoding", "gzip")
        .header("if-none-match", &t)
        .send()
        .unwrap();
    assert_eq!(again.status(), 304);
}
