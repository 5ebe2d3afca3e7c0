//! The API as a client developer meets it: a spec that validates, 405 with `Allow`, a page
//! behind every problem `type`, CORS for browser clients, the caller's games by default
//! with a lobby and next-page links, and entity tags that mean what they say.

use std::process::Command;

use reqwest::blocking::Client;
use serde_json::{Value, json};

use crate::helpers::{assert_problem, spawn_app, spawn_app_with, spawn_app_without_mail};
use turnpost_openapi_models::models;

#[test]
fn openapi_yaml_passes_openapi_spec_validator() {
    let spec = concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml");
    let out = Command::new("python3")
        .args(["-m", "openapi_spec_validator", spec])
        .output()
        .expect("python3");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        !text.contains("No module named"),
        "install the validator: python3 -m pip install openapi-spec-validator ({text})"
    );
    assert!(out.status.success(), "openapi.yaml is not valid: {text}");
}

#[test]
fn a_known_path_with_another_method_is_405_with_allow() {
    let app = spawn_app();
    let r = app.client.delete(app.url("/api/v1/games")).send().unwrap();
    let allow = r.headers()["allow"].to_str().unwrap().to_string();
    let (s, v) = assert_problem(r, "DELETE /games");
    assert_eq!((s, v["code"].as_str()), (405, Some("method_not_allowed")));
    assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
    let r = app
        .client
        .put(app.url("/api/v1/games/12/log"))
        .send()
        .unwrap();
    assert_eq!(r.status(), 405);
    assert_eq!(app.get("/api/v1/nothing-here", None).status(), 404);
}

#[test]
fn every_problem_type_links_to_a_page() {
    let app = spawn_app();
    let r = app.post(
        "/api/v1/auth/token",
        None,
        &json!({"email": "nobody@example.org", "password": "whatever it is"}),
    );
    let (_, v) = assert_problem(r, "bad login");
    let page = app.get(v["type"].as_str().unwrap(), None);
    assert_eq!(page.status(), 200);
    assert!(page.text().unwrap().contains("invalid_credentials"));
    assert_eq!(app.get("/problems/no_such_code", None).status(), 404);
}

/// Every code of `ProblemCode` has its page, saying its status, and is on the list page.
#[test]
fn every_problem_code_has_a_page_with_its_status_and_is_listed() {
    use turnpost::domain::ProblemCode;
    let app = spawn_app();
    let list = app.get("/problems", None);
    assert_eq!(list.status(), 200);
    let list = list.text().unwrap();
    assert!(!ProblemCode::ALL.is_empty());
    for code in ProblemCode::ALL {
        let page = app.get(&format!("/problems/{code}"), None);
        assert_eq!(page.status(), 200, "{code}");
        let reason = reqwest::StatusCode::from_u16(code.status())
            .ok()
            .and_then(|s| s.canonical_reason())
            .unwrap_or_default();
        let html = page.text().unwrap();
        assert!(
            html.contains(&format!("HTTP {} {reason}", code.status())),
            "{code}: {html}"
        );
        assert!(html.contains(&format!("<code>{code}</code>")), "{code}");
        assert!(
            list.contains(&format!("<a href=\"/problems/{code}\">")),
            "{code} is not listed"
        );
        // The wire word is the serde form clients see in a problem's `code`.
        assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
    }
    assert_eq!(list.matches("<li>").count(), ProblemCode::ALL.len());
}

#[test]
fn browsers_on_configured_origins_may_call_the_api() {
    let app = spawn_app_with(|s| s.cors_origins = "https://client.example".into());
    let r = app
        .client
        .request(reqwest::Method::OPTIONS, app.url("/api/v1/games"))
        .header("origin", "https://client.example")
        .header("access-control-request-method", "POST")
        .header(
            "access-control-request-headers",
            "authorization, content-type",
        )
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(
        r.headers()["access-control-allow-origin"],
        "https://client.example"
    );
    let r = app
        .client
        .get(app.url("/api/v1/game-types"))
        .header("origin", "https://evil.example")
        .send()
        .unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());
    // Without configuration there is no CORS at all.
    let plain = spawn_app();
    let r = plain
        .client
        .get(plain.url("/api/v1/game-types"))
        .header("origin", "https://client.example")
        .send()
        .unwrap();
    assert!(r.headers().get("access-control-allow-origin").is_none());
}

#[test]
fn games_lists_the_callers_games_the_lobby_on_request_and_links_the_next_page() {
    let app = spawn_app();
    let (a, b) = (app.player("Ada"), app.player("Bo"));
    let mut created = Vec::new();
    for _ in 0..3 {
        let r = app.post(
            "/api/v1/games",
            Some(&a.token),
            &json!({"game_type": "kasino", "players": 2}),
        );
        created.push(r.json::<Value>().unwrap()["id"].as_i64().unwrap());
    }
    // Bo's own games: none yet. The lobby: Ada's three.
    let mine = app
        .get("/api/v1/games", Some(&b.token))
        .json::<Value>()
        .unwrap();
    assert_eq!(mine["total"], 0, "{mine}");
    let r = app.get("/api/v1/games?open=true&per_page=2", Some(&b.token));
    let link = r.headers()["link"].to_str().unwrap().to_string();
    let lobby: Value = r.json().unwrap();
    assert_eq!(lobby["total"], 3);
    assert_eq!(lobby["items"].as_array().unwrap().len(), 2);
    let next = lobby["next"].as_str().unwrap().to_string();
    assert_eq!(link, format!("<{next}>; rel=\"next\""));
    let page2: Value = app.get(&next, Some(&b.token)).json().unwrap();
    assert_eq!(page2["items"].as_array().unwrap().len(), 1);
    assert!(page2["next"].is_null());
    // A wrong value is a 400, as is an unknown parameter.
    assert_eq!(
        assert_problem(
            app.get("/api/v1/games?status=won", Some(&b.token)),
            "status"
        )
        .0,
        400
    );
    assert_eq!(
        assert_problem(
            app.get("/api/v1/games?colour=red", Some(&b.token)),
            "unknown"
        )
        .0,
        400
    );
    // Options must be an object when given.
    let r = app.post(
        "/api/v1/games",
        Some(&a.token),
        &json!({"game_type": "kasino", "players": 2, "options": null}),
    );
    assert_eq!(assert_problem(r, "options null").0, 422);
}

#[test]
fn etags_change_with_the_answer_and_if_match_guards_actions() {
    let app = spawn_app();
    let (a, b) = (app.player("Ada"), app.player("Bo"));
    let id = app.start_game("kasino", json!({}), &[&a, &b]);
    let path = format!("/api/v1/games/{id}");
    let r = app.get(&path, Some(&a.token));
    let tag = r.headers()["etag"].to_str().unwrap().to_string();
    let g: Value = r.json().unwrap();
    // Polling with the tag: 304 while nothing changed.
    let r = app
        .client
        .get(app.url(&path))
        .bearer_auth(&a.token)
        .header("if-none-match", &tag)
        .send()
        .unwrap();
    assert_eq!(r.status(), 304);
    // A rename changes the answer, so the tag, though nobody moved.
    let r = app
        .client
        .patch(app.url("/api/v1/me"))
        .bearer_auth(&b.token)
        .json(&json!({"name": "Bo Renamed"}))
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = app
        .client
        .get(app.url(&path))
        .bearer_auth(&a.token)
        .header("if-none-match", &tag)
        .send()
        .unwrap();
    assert_eq!(r.status(), 200);
    let tag2 = r.headers()["etag"].to_str().unwrap().to_string();
    assert_ne!(tag, tag2);
    // If-Match instead of expected_version.
    let seat = g["to_act"][0].as_i64().unwrap();
    let p = if g["seats"][seat as usize]["account_id"] == a.id {
        &a
    } else {
        &b
    };
    let r = app.get(&path, Some(&p.token));
    let mover_tag = r.headers()["etag"].to_str().unwrap().to_string();
    let mine: Value = r.json().unwrap();
    let action = mine["legal_actions"][0].clone();
    let client = Client::new();
    let post = |tag: Option<&str>, body: Value| {
        let mut r = client
            .post(app.url(&format!("{path}/actions")))
            .bearer_auth(&p.token)
            .json(&body);
        if let Some(t) = tag {
            r = r.header("if-match", t);
        }
        r.send().unwrap()
    };
    let r = post(None, json!({"action": action}));
    assert_eq!(assert_problem(r, "no version").0, 428);
    let r = post(Some(&mover_tag), json!({"action": action}));
    assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
    let r = post(Some(&mover_tag), json!({"action": action}));
    let (s, v) = assert_problem(r, "stale If-Match");
    assert_eq!((s, v["code"].as_str()), (412, Some("stale_version")));
    let r = post(Some("\"nonsense\""), json!({"action": action}));
    assert_eq!(assert_problem(r, "bad If-Match").0, 400);
}

#[test]
fn the_readme_requests_play_a_move() {
    let app = spawn_app();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/readme_requests.sh");
    let out = Command::new("bash")
        .arg(script)
        .env("BASE", &app.address)
        .output()
        .expect("bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the API guide's walk-through failed (needs curl and jq): {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.starts_with("playing "), "{stdout}");
    let last: Value = serde_json::from_str(&stdout[stdout.find('{').unwrap()..]).unwrap();
    assert_eq!(last["version"], 1, "{stdout}");
}

#[test]
fn partners_with_three_players_is_a_player_count_problem() {
    let app = spawn_app();
    let a = app.player("Ada");
    let types: Value = app.get("/api/v1/game-types", None).json().unwrap();
    let partners = types
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "partners")
        .unwrap();
    assert_eq!(partners["player_counts"], json!([2, 4]));
    let r = app.post(
        "/api/v1/games",
        Some(&a.token),
        &json!({"game_type": "partners", "players": 3}),
    );
    let (s, v) = assert_problem(r, "partners with 3");
    assert_eq!((s, v["code"].as_str()), (422, Some("invalid_player_count")));
}

#[test]
fn simultaneous_choices_made_on_one_version_are_not_false_conflicts() {
    let app = spawn_app();
    let players: Vec<_> = ["A", "B", "C", "D"].iter().map(|n| app.player(n)).collect();
    let refs: Vec<&crate::helpers::Player> = players.iter().collect();
    let id = app.start_game("partners", json!({}), &refs);
    let mut false_conflicts = 0;
    let mut exchanges = 0;
    for _ in 0..3 {
        let g = app.game(id, refs[0]);
        let to_act: Vec<usize> = g["to_act"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap() as usize)
            .collect();
        // Everyone who must choose reads the game at the same version...
        let version = g["version"].clone();
        let choices: Vec<(&crate::helpers::Player, Value)> = to_act
            .iter()
            .map(|&seat| {
                let p = refs
                    .iter()
                    .find(|p| g["seats"][seat]["account_id"] == p.id)
                    .unwrap();
                let mine = app.game(id, p);
                (*p, mine["legal_actions"][0].clone())
            })
            .collect();
        // ...and submits on it, one after another.
        for (p, action) in &choices {
            let r = app.post(
                &format!("/api/v1/games/{id}/actions"),
                Some(&p.token),
                &json!({"expected_version": version, "action": action}),
            );
            if r.status() == 409 {
                false_conflicts += 1;
            } else {
                assert_eq!(r.status(), 200, "{}", r.text().unwrap_or_default());
            }
        }
        exchanges += usize::from(choices.len() > 1);
        if choices.len() <= 1 {
            break;
        }
    }
    assert!(exchanges >= 1, "no simultaneous step was reached");
    assert_eq!(false_conflicts, 0);
    // A seat whose position did change is still refused: replaying the first choice.
    let g = app.game(id, refs[0]);
    let r = app.post(
        &format!("/api/v1/games/{id}/actions"),
        Some(&refs[0].token),
        &json!({"expected_version": 0, "action": g["legal_actions"][0]}),
    );
    assert_ne!(r.status(), 200);
}

#[test]
fn each_game_serves_its_rules() {
    let app = spawn_app();
    let types: Value = app.get("/api/v1/game-types", None).json().unwrap();
    for t in types.as_array().unwrap() {
        let r = app.get(
            &format!("/api/v1/game-types/{}/rules", t["id"].as_str().unwrap()),
            None,
        );
        assert_eq!(r.status(), 200);
        assert!(r.text().unwrap().contains("HR-"));
    }
    assert_eq!(
        app.get("/api/v1/game-types/chess/rules", None).status(),
        404
    );
}

/// Every answer carrying game data, in a playout of each game type through the API, is a
/// valid instance of its model in `openapi.yaml`: each seat's game (view, legal actions,
/// options, result), a spectator's, the log as each seat and a spectator read it (secret
/// actions redacted), views at earlier versions and previews. The game data of each is
/// also spoiled once, which must fail, so a schema that allows anything cannot pass.
/// Validated by tests/validate_instances.py with jsonschema-rs (the validator schemathesis
/// itself installs), which reads the 85 MB of answers in seconds where pure-Python
/// jsonschema took over a minute. The same answers are read with the Rust models
/// openapi-generator makes of `openapi.yaml` (`src/openapi-models`) and must write back as
/// they came, and every move is chosen and sent through them.
#[test]
fn every_game_answer_of_a_playout_validates_against_its_published_schema() {
    let app = spawn_app_without_mail();
    let watcher = app.player("Watcher");
    let mut instances: Vec<Value> = Vec::new();
    let mut add = |schema: &str, what: String, instance: Value, spoil: bool| {
        instances
            .push(json!({"schema": schema, "where": what, "instance": instance, "spoil": spoil}));
    };
    let mut redacted = std::collections::BTreeMap::new();
    for (game_type, seats) in crate::helpers::EVERY_GAME {
        let players: Vec<_> = (0..seats).map(|i| app.player(&format!("P{i}"))).collect();
        let refs: Vec<&_> = players.iter().collect();
        let r = app.post(
            "/api/v1/games",
            Some(&players[0].token),
            &json!({"game_type": game_type, "players": seats}),
        );
        assert_eq!(r.status(), 201);
        let open: Value = r.json().unwrap();
        add(
            "GameResponse",
            format!("{game_type} open"),
            open.clone(),
            true,
        );
        let id = open["id"].as_i64().unwrap();
        for p in &players[1..] {
            let r = app.post(
                &format!("/api/v1/games/{id}/join"),
                Some(&p.token),
                &json!({}),
            );
            assert_eq!(r.status(), 200);
        }
        let by_seat: Vec<(Value, &_)> = players
            .iter()
            .map(|p| (app.game(id, p)["your_seat"].clone(), p))
            .collect();
        let mut rng = turnpost::engine::GameRng::seed_from_u64(11);
        let mut g = app.game(id, &players[0]);
        let mut step = 0;
        while g["status"] == "active" {
            let to_act = g["to_act"].as_array().unwrap().clone();
            let seat = to_act[rng.below(to_act.len())].clone();
            let (_, p) = by_seat.iter().find(|(s, _)| *s == seat).unwrap();
            let mine = app.game(id, p);
            let legal = mine["legal_actions"].as_array().unwrap().clone();
            let at = format!("{game_type} version {}", mine["version"]);
            // The move is chosen from the legal actions as the generated Rust models read
            // them, and sent as they write it: it must be the action the server offered.
            let (typed, version) = typed_legal_actions(&mine, &at);
            assert_eq!(typed.len(), legal.len(), "{at}");
            let i = rng.below(legal.len());
            let action = legal[i].clone();
            let request =
                serde_json::to_value(models::ActionRequest::new(typed[i].clone(), version))
                    .unwrap();
            assert_eq!(
                request["action"], action,
                "{at}: the generated model wrote another action"
            );
            // The whole game (view, legal actions, options) at every step.
            add(
                "GameResponse",
                format!("{at} seat {seat}"),
                mine.clone(),
                step % 50 == 0,
            );
            if step % 25 == 0 {
                add(
                    "GameResponse",
                    format!("{at} spectator"),
                    app.game(id, &watcher),
                    false,
                );
                let r = app.post(
                    &format!("/api/v1/games/{id}/preview"),
                    Some(&p.token),
                    &json!({"action": action}),
                );
                assert_eq!(r.status(), 200, "{at}: preview");
                add(
                    "PreviewResponse",
                    format!("{at} preview"),
                    r.json().unwrap(),
                    true,
                );
            }
            let r = app.post(
                &format!("/api/v1/games/{id}/actions"),
                Some(&p.token),
                &request,
            );
            assert_eq!(r.status(), 200, "{at}: {}", r.text().unwrap_or_default());
            g = r.json().unwrap();
            step += 1;
            assert!(step < 20_000, "{game_type} did not finish");
        }
        assert_eq!(g["status"], "finished", "{game_type}");
        add(
            "GameResponse",
            format!("{game_type} finished"),
            g.clone(),
            true,
        );
        let mut readers: Vec<(String, &_)> = vec![("spectator".into(), &watcher)];
        readers.extend(
            refs.iter()
                .enumerate()
                .map(|(i, p)| (format!("player {i}"), *p)),
        );
        for (who, reader) in readers {
            for entry in whole_log(&app, id, &reader.token) {
                if entry["text"].is_null() {
                    *redacted.entry(game_type).or_insert(0) += 1;
                }
                let what = format!("{game_type} log {} as {who}", entry["seq"]);
                add("LogEntry", what, entry, true);
            }
            let version = g["version"].as_i64().unwrap() / 2;
            let r = app.get(
                &format!("/api/v1/games/{id}/views/{version}"),
                Some(&reader.token),
            );
            assert_eq!(r.status(), 200);
            add(
                "ViewAtResponse",
                format!("{game_type} view at {version} as {who}"),
                r.json().unwrap(),
                true,
            );
        }
    }
    // Secret actions were played, and their redacted forms are among what was checked.
    assert!(
        redacted.get("space-empires-4x").is_some_and(|&n| n > 0),
        "{redacted:?}"
    );
    assert!(
        redacted.get("partners").is_some_and(|&n| n > 0),
        "{redacted:?}"
    );
    // Every answer reads into the generated models and writes back as it came.
    let unread: Vec<String> = instances
        .iter()
        .filter_map(|i| {
            let (schema, what) = (i["schema"].as_str().unwrap(), i["where"].as_str().unwrap());
            read_back(schema, &i["instance"])
                .err()
                .map(|e| format!("{what}: {e}"))
        })
        .collect();
    assert!(
        unread.is_empty(),
        "{} of {} answers the generated Rust models do not read back as they came, such as:\n{}",
        unread.len(),
        instances.len(),
        unread[..unread.len().min(10)].join("\n")
    );
    let file = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("game-answers.json");
    std::fs::write(&file, serde_json::to_vec(&instances).unwrap()).unwrap();
    let out = Command::new("python3")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/validate_instances.py"
        ))
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi.yaml"))
        .arg(&file)
        .output()
        .expect("python3");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    println!("{text}redacted entries read: {redacted:?}");
    assert!(
        out.status.success(),
        "answers that fit no published schema:\n{text}"
    );
}

/// The legal actions of a game answer and its version, as the models openapi-generator
/// makes of `openapi.yaml` for Rust read them, each ready to send as `AnyGameAction`.
fn typed_legal_actions(game: &Value, at: &str) -> (Vec<models::AnyGameAction>, i64) {
    use models::{AnyGameAction as A, GameResponse as G};
    assert!(
        turnpost_openapi_models::generated(),
        "the generated Rust models are missing: install openapi-generator-cli \
         (python3 -m pip install openapi-generator-cli==7.26.0; it needs Java), as .ci/run does"
    );
    let g: G = serde_path_to_error::deserialize(game.clone())
        .unwrap_or_else(|e| panic!("{at}: the generated models do not read the game: {e}"));
    macro_rules! each {
        ($($game:ident => $action:ident),*) => {
            match g {
                $(G::$game(g) => (
                    g.legal_actions.into_iter().map(|a| A::$action(Box::new(a))).collect(),
                    g.version,
                ),)*
            }
        };
    }
    each!(
        KasinoGame => KasinoAction,
        CrosswordRummyGame => CrosswordRummyAction,
        PartnersGame => PartnersAction,
        FuldriggerGame => FuldriggerAction,
        Sp4xGame => Sp4xAction,
        SpaceEmpires4xGame => SpaceEmpires4xAction,
        StarfarersGame => StarfarersAction
    )
}

/// `instance` read as the generated model named `schema` and written back: an error unless
/// it reads, and writes back as it came.
fn read_back(schema: &str, instance: &Value) -> Result<(), String> {
    fn again<T: serde::de::DeserializeOwned + serde::Serialize>(
        v: &Value,
    ) -> Result<Value, String> {
        let typed: T = serde_path_to_error::deserialize(v.clone()).map_err(|e| e.to_string())?;
        serde_json::to_value(typed).map_err(|e| e.to_string())
    }
    let back = match schema {
        "GameResponse" => again::<models::GameResponse>(instance)?,
        // An untagged union says only that no branch fits: the game's own says where.
        "LogEntry" => again::<models::LogEntry>(instance).map_err(|e| {
            let own = match instance["game_type"].as_str() {
                Some("kasino") => again::<models::KasinoLogEntry>(instance),
                Some("crossword-rummy") => again::<models::CrosswordRummyLogEntry>(instance),
                Some("partners") => again::<models::PartnersLogEntry>(instance),
                Some("fuldrigger") => again::<models::FuldriggerLogEntry>(instance),
                Some("sp4x") => again::<models::Sp4xLogEntry>(instance),
                Some("space-empires-4x") => again::<models::SpaceEmpires4xLogEntry>(instance),
                Some("starfarers") => again::<models::StarfarersLogEntry>(instance),
                _ => Err("no game_type".into()),
            };
            format!("{e} ({})", own.err().unwrap_or_default())
        })?,
        "PreviewResponse" => again::<models::PreviewResponse>(instance)?,
        "ViewAtResponse" => again::<models::ViewAtResponse>(instance)?,
        other => return Err(format!("no model for {other}")),
    };
    if &back == instance {
        return Ok(());
    }
    Err(first_difference(instance, &back, String::new()))
}

/// Where `b` first differs from `a`, as a JSON pointer with both values.
fn first_difference(a: &Value, b: &Value, at: String) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) if p == q => {}
                    (Some(p), Some(q)) => return first_difference(p, q, format!("{at}/{k}")),
                    (p, q) => return format!("{at}/{k}: {p:?} came back as {q:?}"),
                }
            }
            format!("{at}: differs")
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (p, q))| p != q)
            .map(|(i, (p, q))| first_difference(p, q, format!("{at}/{i}")))
            .unwrap_or_else(|| format!("{at}: differs")),
        _ => format!("{at}: {a} came back as {b}"),
    }
}

/// Every entry of game `id`'s log as the bearer of `token` reads it, page by page.
fn whole_log(app: &crate::helpers::TestApp, id: i64, token: &str) -> Vec<Value> {
    let mut all: Vec<Value> = Vec::new();
    loop {
        let after = all.last().map_or(0, |e| e["seq"].as_i64().unwrap());
        let r = app.get(
            &format!("/api/v1/games/{id}/log?after={after}&limit=500"),
            Some(token),
        );
        assert_eq!(r.status(), 200);
        let page: Vec<Value> = r.json().unwrap();
        if page.is_empty() {
            return all;
        }
        all.extend(page);
    }
}
