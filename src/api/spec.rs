//! Finishing touches on the generated OpenAPI document, applied once every route is in:
//! every response has a description (required by OpenAPI 3.1), and every operation lists
//! the problem responses any request can get (a bad query, a bad body, a missing token,
//! a deadline, an overloaded server), so a generated client knows them all. Each game's
//! view, action and options models join the components, and links lead from a created
//! game to joining, reading and playing it.

use serde_json::{Map, Value, json};
use utoipa::openapi::path::Operation;
use utoipa::openapi::response::{Response, ResponseBuilder};
use utoipa::openapi::server::Server;
use utoipa::openapi::{Content, OpenApi, Ref, RefOr};

/// The media type of every problem answer (RFC 9457).
pub const PROBLEM_JSON: &str = "application/problem+json";

fn problem(description: &str) -> RefOr<Response> {
    RefOr::T(
        ResponseBuilder::new()
            .description(description)
            .content(
                PROBLEM_JSON,
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
        "`request_timeout`: the request was not received in full and answered in time",
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

/// A game type id as a model-name prefix: `space-empires-4x` → `SpaceEmpires4x`.
pub fn model_prefix(game_type: &str) -> String {
    game_type
        .split(['-', '_'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().chain(c).collect::<String>())
                .unwrap_or_default()
        })
        .collect()
}

/// Points every `#/$defs/X` reference inside `schema` at `#/components/schemas/<prefix>X`.
fn rebase_refs(schema: &mut Value, prefix: &str) {
    match schema {
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                match (k.as_str(), v) {
                    ("$ref", Value::String(r)) => {
                        if let Some(name) = r.strip_prefix("#/$defs/") {
                            *r = format!("#/components/schemas/{prefix}{name}");
                        }
                    }
                    (_, v) => rebase_refs(v, prefix),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| rebase_refs(v, prefix)),
        _ => {}
    }
}

/// schemars writes a documented unit-only enum as `oneOf` of `const` branches; OpenAPI
/// code generators read that as a union of one-value types and stumble on it. A plain
/// `enum` means the same, and every generator understands it. The branch texts move into
/// the description.
fn simplify_const_unions(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            if let Some(Value::Array(branches)) = map.get_mut("oneOf") {
                let (strings, others): (Vec<Value>, Vec<Value>) =
                    branches.drain(..).partition(|b| string_branch(b).is_some());
                let mut values = Vec::new();
                let mut notes = Vec::new();
                for b in &strings {
                    if let Some((vals, note)) = string_branch(b) {
                        if let (Some(note), [v]) = (note, vals.as_slice()) {
                            notes.push(format!("`{}`: {}", v, note.trim_end_matches('.')));
                        }
                        values.extend(vals);
                    }
                }
                let mut merged = json!({ "type": "string", "enum": values });
                if !notes.is_empty() && !others.is_empty() {
                    merged["description"] = Value::String(notes.join("; "));
                }
                if others.is_empty() && !values.is_empty() {
                    map.remove("oneOf");
                    map.insert("type".into(), json!("string"));
                    map.insert("enum".into(), json!(values));
                } else {
                    let mut all = others;
                    if !values.is_empty() {
                        all.insert(0, merged);
                    }
                    map.insert("oneOf".into(), Value::Array(all));
                }
                if !notes.is_empty() && !map.contains_key("description") {
                    map.insert("description".into(), Value::String(notes.join("; ")));
                }
            }
            map.values_mut().for_each(simplify_const_unions);
        }
        Value::Array(items) => items.iter_mut().for_each(simplify_const_unions),
        _ => {}
    }
}

/// The string values a `oneOf` branch allows when it is only a `const` or an `enum` of
/// strings (with its description), or `None`.
fn string_branch(b: &Value) -> Option<(Vec<String>, Option<&str>)> {
    let obj = b.as_object()?;
    if obj
        .keys()
        .any(|k| !["const", "enum", "type", "description"].contains(&k.as_str()))
    {
        return None;
    }
    let note = b.get("description").and_then(Value::as_str);
    let values: Option<Vec<String>> = match (b.get("const"), b.get("enum")) {
        (Some(c), None) => Some(vec![c.as_str()?.to_string()]),
        (None, Some(Value::Array(vs))) => vs.iter().map(|v| v.as_str().map(String::from)).collect(),
        _ => None,
    };
    Some((values?, note))
}

/// Adds a schemars root schema (and its `$defs`) to `schemas` as `<prefix><name>`.
fn add_model(schemas: &mut Map<String, Value>, prefix: &str, name: &str, mut schema: Value) {
    let Some(root) = schema.as_object_mut() else {
        return;
    };
    root.remove("$schema");
    let defs = root.remove("$defs");
    root.insert("title".into(), Value::String(format!("{prefix}{name}")));
    rebase_refs(&mut schema, prefix);
    simplify_const_unions(&mut schema);
    schemas.insert(format!("{prefix}{name}"), schema);
    if let Some(Value::Object(defs)) = defs {
        for (def, mut body) in defs {
            rebase_refs(&mut body, prefix);
            simplify_const_unions(&mut body);
            schemas.entry(format!("{prefix}{def}")).or_insert(body);
        }
    }
}

/// Adds each game type's models to the components, generated from the Rust types (the
/// same schemas `GET /api/v1/game-types/{id}` serves), and makes every answer that carries
/// game data a union of per-game-type models discriminated by `game_type`, so a generated
/// client gets narrowable types: `KasinoGame` (with `KasinoView`, `KasinoAction`,
/// `KasinoOptions`), `KasinoLogEntry`, `KasinoViewAt`, `KasinoPreview`, and each action
/// variant by name (`KasinoActionCapture`). Before this, `view` and the actions were
/// `type: object` and clients re-parsed them by hand.
pub fn add_game_models(doc: &mut Value, registry: &crate::games::Registry) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    // Every game's result is the engine's outcome (`Status::Finished`, as stored).
    if let Ok(outcome) = serde_json::to_value(schemars::schema_for!(crate::engine::Outcome)) {
        add_model(schemas, "Game", "Result", outcome);
    }
    schemas.insert("TakebackLogAction".into(), takeback_log_action());
    // The per-game-type unions, each with its discriminator mapping.
    let mut unions: Vec<(&str, Vec<(String, String)>)> = ["Game", "LogEntry", "ViewAt", "Preview"]
        .iter()
        .map(|&kind| (kind, Vec::new()))
        .collect();
    let mut actions = Vec::new();
    let bases: Vec<(&str, Option<Value>)> = [
        "GameResponse",
        "LogEntry",
        "ViewAtResponse",
        "PreviewResponse",
    ]
    .iter()
    .map(|&name| (name, schemas.get(name).cloned()))
    .collect();
    for g in registry.all() {
        let id = g.info().id;
        let prefix = model_prefix(id);
        add_model(schemas, &prefix, "View", g.view_schema());
        add_model(schemas, &prefix, "Action", g.action_schema());
        add_model(schemas, &prefix, "Options", g.options_schema());
        name_variants(schemas, &format!("{prefix}Action"));
        // The redacted forms come first: a generated parser tries the branches in order,
        // and only they carry `redacted: true`, so they never take a game action (a
        // redacted Partners `exchange` would otherwise pass for a real one, its card a
        // string like any other).
        let mut log_action = Vec::new();
        let redacted = redacted_forms(id);
        if !redacted.is_empty() {
            let name = format!("{prefix}RedactedAction");
            schemas.insert(
                name.clone(),
                json!({
                    "title": name,
                    "description": "What a seat that may not see a secret action finds in the log in its place (a spectator, an opponent).",
                    "oneOf": redacted,
                }),
            );
            name_variants(schemas, &name);
            log_action.push(schema_ref(&name));
        }
        log_action.push(schema_ref(&format!("{prefix}Action")));
        log_action.push(schema_ref("TakebackLogAction"));
        schemas.insert(
            format!("{prefix}LogAction"),
            json!({
                "title": format!("{prefix}LogAction"),
                "description": "A log entry's action: an action of the game, what others see of a secret one, or a takeback.",
                "anyOf": log_action,
            }),
        );
        actions.push(schema_ref(&format!("{prefix}Action")));
        let view = schema_ref(&format!("{prefix}View"));
        let typed: [(&str, Vec<(&str, Value)>); 4] = [
            (
                "Game",
                vec![
                    ("view", nullable(view.clone())),
                    (
                        "legal_actions",
                        json!({ "type": "array", "items": schema_ref(&format!("{prefix}Action")) }),
                    ),
                    ("options", schema_ref(&format!("{prefix}Options"))),
                    ("result", nullable(schema_ref("GameResult"))),
                ],
            ),
            (
                "LogEntry",
                vec![("action", schema_ref(&format!("{prefix}LogAction")))],
            ),
            ("ViewAt", vec![("view", view.clone())]),
            ("Preview", vec![("view", view)]),
        ];
        for ((kind, fields), ((_, names), (_, base))) in
            typed.into_iter().zip(unions.iter_mut().zip(&bases))
        {
            let Some(base) = base else { continue };
            let name = format!("{prefix}{kind}");
            schemas.insert(name.clone(), typed_copy(base, id, &name, &fields));
            names.push((id.to_string(), name));
        }
    }
    for ((_, names), (base_name, base)) in unions.into_iter().zip(bases) {
        let Some(base) = base else { continue };
        schemas.insert(base_name.to_string(), discriminated(&base, &names));
    }
    schemas.insert(
        "AnyGameAction".into(),
        json!({
            "title": "AnyGameAction",
            "description": "An action of any game type: the game's own model applies (`KasinoAction` for a `kasino` game, ...).",
            "anyOf": actions,
        }),
    );
    for request in ["ActionRequest", "PreviewRequest"] {
        if let Some(action) = schemas
            .get_mut(request)
            .and_then(|r| r.pointer_mut("/properties/action"))
        {
            let description = action.get("description").cloned();
            *action = schema_ref("AnyGameAction");
            if let Some(d) = description {
                action["description"] = d;
            }
        }
    }
}

fn schema_ref(name: &str) -> Value {
    json!({ "$ref": format!("#/components/schemas/{name}") })
}

fn nullable(schema: Value) -> Value {
    json!({ "anyOf": [schema, { "type": "null" }] })
}

/// `base` (an answer's schema as utoipa wrote it) for one game type: `game_type` is that
/// type's id and `fields` get their typed models, each keeping its description.
fn typed_copy(base: &Value, game_type: &str, title: &str, fields: &[(&str, Value)]) -> Value {
    let mut copy = base.clone();
    copy["title"] = json!(title);
    if let Some(props) = copy.get_mut("properties").and_then(Value::as_object_mut) {
        props.insert(
            "game_type".into(),
            json!({ "type": "string", "const": game_type }),
        );
        for (field, schema) in fields {
            let mut schema = schema.clone();
            if let Some(d) = props.get(*field).and_then(|p| p.get("description")) {
                schema["description"] = d.clone();
            }
            props.insert((*field).to_string(), schema);
        }
    }
    copy
}

/// A union of the per-game-type models `names` (`(game type, model)`), told apart by
/// `game_type`; it keeps the description of the `base` it replaces.
fn discriminated(base: &Value, names: &[(String, String)]) -> Value {
    let mut mapping = Map::new();
    for (id, name) in names {
        mapping.insert(id.clone(), json!(format!("#/components/schemas/{name}")));
    }
    let mut union = json!({
        "oneOf": names.iter().map(|(_, n)| schema_ref(n)).collect::<Vec<_>>(),
        "discriminator": { "propertyName": "game_type", "mapping": mapping },
    });
    if let Some(d) = base.get("description") {
        union["description"] = d.clone();
    }
    union
}

/// Moves each branch of the `oneOf` of `schemas[union]` that is tagged by a `type` const
/// into a component of its own named after the tag (`KasinoAction` + `add_to_build` →
/// `KasinoActionAddToBuild`), and adds the discriminator: generators then name each
/// variant (openapi-python-client numbered them `KasinoActionType0`, ...).
fn name_variants(schemas: &mut Map<String, Value>, union: &str) {
    let Some(branches) = schemas
        .get_mut(union)
        .and_then(|u| u.get_mut("oneOf"))
        .map(Value::take)
    else {
        return;
    };
    let Value::Array(branches) = branches else {
        return;
    };
    let mut refs = Vec::new();
    let mut mapping = Map::new();
    for mut branch in branches {
        let Some(tag) = branch
            .pointer("/properties/type/const")
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            refs.push(branch);
            continue;
        };
        let name = format!("{union}{}", model_prefix(&tag));
        branch["title"] = json!(name);
        schemas.insert(name.clone(), branch);
        mapping.insert(tag, json!(format!("#/components/schemas/{name}")));
        refs.push(schema_ref(&name));
    }
    let tagged = mapping.len() == refs.len();
    if let Some(u) = schemas.get_mut(union) {
        u["oneOf"] = Value::Array(refs);
        // Only when every branch has its tag: a discriminator must cover them all.
        if tagged {
            u["discriminator"] = json!({ "propertyName": "type", "mapping": mapping });
        }
    }
}

/// The log entry a takeback writes in the log (`domain::takeback`).
fn takeback_log_action() -> Value {
    json!({
        "title": "TakebackLogAction",
        "description": "A takeback: the game went back to `to_version` (see `LogEntry.takeback_to`).",
        "type": "object",
        "properties": {
            "takeback": {
                "type": "object",
                "properties": { "to_version": { "type": "integer", "format": "int64", "minimum": 0 } },
                "required": ["to_version"],
                "additionalProperties": false,
            }
        },
        "required": ["takeback"],
        "additionalProperties": false,
    })
}

/// What others see in the log of a game's secret actions: the `public_form` of its
/// `Visibility::Private` (written in `src/games/<id>/mod.rs`, `action_visibility`), which
/// the log marks `redacted: true` (`domain::games::redact`). Each is tagged by `type`;
/// `hidden` stands where the secret was; `to` is the seat an offer went to.
/// The contract test (tests/api/contract.rs) checks the forms real games write against
/// these, as seen by opponents and spectators.
fn redacted_forms(game_type: &str) -> Vec<Value> {
    let form = |tag: &str, hidden: &[&str], seats: &[&str], what: &str| {
        let mut props = Map::new();
        props.insert("type".into(), json!({ "type": "string", "const": tag }));
        props.insert(
            "redacted".into(),
            json!({ "type": "boolean", "const": true, "description": "Always true: the action was secret to the caller." }),
        );
        for h in hidden {
            props.insert((*h).into(), json!({ "type": "string", "const": "hidden" }));
        }
        for s in seats {
            props.insert(
                (*s).into(),
                json!({ "type": "integer", "format": "uint", "minimum": 0, "description": "The seat the offer went to." }),
            );
        }
        let required: Vec<&str> = ["type", "redacted"]
            .into_iter()
            .chain(hidden.iter().copied())
            .chain(seats.iter().copied())
            .collect();
        json!({
            "description": what,
            "type": "object",
            "properties": props,
            "required": required,
            "additionalProperties": false,
        })
    };
    match game_type {
        "crossword-rummy" => vec![form(
            "pass_tiles",
            &["tiles"],
            &[],
            "Tiles passed; which ones is secret.",
        )],
        "partners" => vec![form(
            "exchange",
            &["card"],
            &[],
            "A card given to the partner; which one is secret.",
        )],
        "fuldrigger" => vec![form(
            "offer",
            &["terms"],
            &["to"],
            "An offer to `to`; its terms are secret until accepted.",
        )],
        "space-empires-4x" => vec![
            form(
                "combat_plan",
                &[],
                &[],
                "A secret combat choice (screen, retreat, target, plan).",
            ),
            form(
                "econ_order",
                &[],
                &[],
                "A secret economic order (bid, research, build, scuttle, orders).",
            ),
            form(
                "secret_move_step",
                &[],
                &[],
                "A secret movement step (split, merge, peek).",
            ),
        ],
        "starfarers" => vec![form(
            "offer_trade",
            &[],
            &["to"],
            "A trade offered to `to`; its terms are secret.",
        )],
        _ => Vec::new(),
    }
}

/// Limits the Rust types cannot state through utoipa: clock lengths come from a fixed set,
/// and the words the server takes or answers from a list it holds are enums (time zones,
/// game types), so that a schema-valid request is one the server accepts.
pub fn add_constraints(doc: &mut Value) {
    if let Some(days) = doc
        .pointer_mut("/components/schemas/TimeControl/properties/days_per_move")
        .and_then(Value::as_object_mut)
    {
        days.insert(
            "enum".into(),
            json!(crate::domain::clocks::DAYS_PER_MOVE.to_vec()),
        );
    }
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    schemas.insert("TimeZone".into(), time_zone_enum());
    set_ref(
        schemas,
        "UpdateAccountRequest",
        "time_zone",
        "TimeZone",
        true,
    );
    // `[from, until]` or `[]`: one hour alone is refused (`invalid_quiet_hours`).
    if let Some(quiet) = schemas
        .get_mut("UpdateAccountRequest")
        .and_then(|s| s.pointer_mut("/properties/quiet_hours"))
        .and_then(Value::as_object_mut)
    {
        if let Some(items) = quiet.get_mut("items").and_then(Value::as_object_mut) {
            items.insert("maximum".into(), json!(23));
        }
        quiet.insert(
            "not".into(),
            json!({ "type": "array", "minItems": 1, "maxItems": 1 }),
        );
    }
    let registry = crate::games::Registry::standard();
    let ids: Vec<&str> = registry.all().map(|g| g.info().id).collect();
    schemas.insert(
        "GameTypeId".into(),
        json!({
            "type": "string",
            "description": "A game type's id, as `GET /api/v1/game-types` lists them.",
            "enum": ids,
        }),
    );
    for (model, field) in [
        ("NewGameRequest", "game_type"),
        ("GameSummary", "game_type"),
        ("GameTypeResponse", "id"),
        ("LeaderboardResponse", "game_type"),
        ("RatingResponse", "game_type"),
        ("RatingChange", "game_type"),
        ("PayloadGame", "type"),
    ] {
        set_ref(schemas, model, field, "GameTypeId", false);
    }
    // An invitee's address follows the rules of a sign-up's.
    let email = schemas
        .get("NewAccountRequest")
        .and_then(|s| s.pointer("/properties/email"))
        .cloned();
    if let (Some(mut email), Some(items)) = (
        email,
        schemas
            .get_mut("NewGameRequest")
            .and_then(|s| s.pointer_mut("/properties/invite/items")),
    ) {
        if let Some(e) = email.as_object_mut() {
            e.remove("description");
            e.remove("example");
        }
        *items = email;
    }
    if let Some(invite) = schemas
        .get_mut("NewGameRequest")
        .and_then(|s| s.pointer_mut("/properties/invite"))
        .and_then(Value::as_object_mut)
    {
        invite.insert("uniqueItems".into(), json!(true));
    }
    // The lobby's `game_type` filter takes the same ids.
    if let Some(params) = doc
        .pointer_mut("/paths/~1api~1v1~1games/get/parameters")
        .and_then(Value::as_array_mut)
    {
        for p in params.iter_mut().filter(|p| p["name"] == "game_type") {
            p["schema"] = schema_ref("GameTypeId");
        }
    }
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    // The only code the event stream ends with (`api::events::REVOKED`).
    if let Some(code) = schemas
        .get_mut("UnauthorizedData")
        .and_then(|s| s.pointer_mut("/properties/code"))
        .and_then(Value::as_object_mut)
    {
        code.insert("enum".into(), json!(["token_revoked"]));
    }
}

/// Makes `model.field` a reference to the component `target` (or null, when `nullable`),
/// keeping the field's description and example.
fn set_ref(
    schemas: &mut Map<String, Value>,
    model: &str,
    field: &str,
    target: &str,
    nullable: bool,
) {
    let Some(prop) = schemas
        .get_mut(model)
        .and_then(|s| s.get_mut("properties"))
        .and_then(|p| p.get_mut(field))
    else {
        return;
    };
    let mut new = if nullable {
        json!({ "anyOf": [schema_ref(target), { "type": "null" }] })
    } else {
        schema_ref(target)
    };
    for key in ["description", "example"] {
        if let Some(v) = prop.get(key) {
            new[key] = v.clone();
        }
    }
    *prop = new;
}

/// The `TimeZone` enum: every name `PATCH /me` takes (`domain::time_zones`), each with a
/// member name for generated clients (`x-enum-varnames`), since names such as
/// `Etc/GMT+1` and `Etc/GMT-1` would otherwise make the same identifier.
fn time_zone_enum() -> Value {
    let names = crate::domain::time_zones::TIME_ZONES;
    let varnames: Vec<String> = names
        .iter()
        .map(|n| {
            let mut out = String::new();
            let mut chars = n.chars().peekable();
            while let Some(c) = chars.next() {
                let before_digit = chars.peek().is_some_and(char::is_ascii_digit);
                match c {
                    '+' => out.push_str("_PLUS_"),
                    '-' if before_digit => out.push_str("_MINUS_"),
                    c if c.is_ascii_alphanumeric() => out.push(c.to_ascii_uppercase()),
                    _ => out.push('_'),
                }
            }
            out
        })
        .collect();
    json!({
        "type": "string",
        "description": "An IANA time zone name: every zone and link of the time zone database.",
        "enum": names,
        "x-enum-varnames": varnames,
    })
}

/// OpenAPI links between operations (create → join → get → act), so clients and stateful
/// testers can follow a game from its creation.
pub fn add_links(doc: &mut Value) {
    let id = json!({ "id": "$response.body#/id" });
    // A link's body is the whole body: a stateful tester that merged it into a body of its
    // own would keep members of a generated action that the game's action does not have.
    let whole_body = json!({ "merge_body": false });
    let game_links = json!({
        "GetGame": { "operationId": "get_game", "parameters": id, "description": "The game just returned" },
        "JoinGame": { "operationId": "join_game", "parameters": id, "description": "Take a free seat" },
        "SubmitAction": {
            "operationId": "submit_action",
            "parameters": id,
            "requestBody": {
                "action": "$response.body#/legal_actions/0",
                "expected_version": "$response.body#/version"
            },
            "x-schemathesis": whole_body,
            "description": "Play the first legal action"
        },
        "GameLog": { "operationId": "game_log", "parameters": id, "description": "The game's log" },
        "BoardPicture": { "operationId": "board_svg", "parameters": id, "description": "The board as the caller sees it" },
        "Preview": {
            "operationId": "preview_action",
            "parameters": id,
            "requestBody": { "action": "$response.body#/legal_actions/0" },
            "x-schemathesis": whole_body,
            "description": "What the first legal action would do"
        },
        "ViewAtVersion": {
            "operationId": "view_at",
            "parameters": { "id": "$response.body#/id", "version": "$response.body#/version" },
            "description": "The caller's view at this version"
        },
        "Nudge": { "operationId": "nudge", "parameters": id, "description": "Remind the seats to act" },
        "Resign": { "operationId": "resign", "parameters": id, "description": "Give up the game" }
    });
    for (path, method, status) in [
        ("/api/v1/games", "post", "201"),
        ("/api/v1/games/{id}", "get", "200"),
        ("/api/v1/games/{id}/join", "post", "200"),
        ("/api/v1/games/{id}/actions", "post", "200"),
    ] {
        let pointer = format!(
            "/paths/{}/{method}/responses/{status}",
            path.replace('~', "~0").replace('/', "~1")
        );
        if let Some(resp) = doc.pointer_mut(&pointer).and_then(Value::as_object_mut) {
            resp.insert("links".into(), game_links.clone());
        }
    }
    // A game as `GET` answers it carries its ETag: an action may name the version by it.
    let whole_body = json!({ "merge_body": false });
    let if_match = json!({
        "SubmitActionIfMatch": {
            "operationId": "submit_action",
            "parameters": { "id": "$response.body#/id", "header.If-Match": "$response.header.ETag" },
            "requestBody": {
                "action": "$response.body#/legal_actions/0",
                "expected_version": "$response.body#/version"
            },
            "x-schemathesis": whole_body,
            "description": "Play the first legal action, on the condition that the game is still this version"
        }
    });
    // A webhook and a token just made: what may be done with them.
    let webhook_id = json!({ "id": "$response.body#/id" });
    let more = [
        ("/api/v1/games/{id}", "get", "200", if_match),
        (
            "/api/v1/me/webhooks",
            "post",
            "201",
            json!({
                "TestWebhook": { "operationId": "test_webhook", "parameters": webhook_id, "description": "Ping the webhook just made" },
                "WebhookDeliveries": { "operationId": "webhook_deliveries", "parameters": webhook_id, "description": "Its deliveries" },
                "DeleteWebhook": { "operationId": "delete_webhook", "parameters": webhook_id, "description": "Delete it" }
            }),
        ),
        (
            "/api/v1/me/tokens",
            "post",
            "201",
            json!({
                "DeleteToken": { "operationId": "delete_token", "parameters": { "id": "$response.body#/id" }, "description": "Revoke the token just made" }
            }),
        ),
    ];
    for (path, method, status, links) in more {
        let pointer = format!(
            "/paths/{}/{method}/responses/{status}",
            path.replace('~', "~0").replace('/', "~1")
        );
        let Some(resp) = doc.pointer_mut(&pointer).and_then(Value::as_object_mut) else {
            continue;
        };
        let (Some(all), Value::Object(new)) = (
            resp.entry("links")
                .or_insert_with(|| json!({}))
                .as_object_mut(),
            links,
        ) else {
            continue;
        };
        all.extend(new);
    }
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

/// Declares `X-Request-Id` on every response (all of them carry it, see
/// `api::request_id`): one header in `components/headers`, referred to from each response,
/// so that the document says it once.
pub fn add_request_id_header(doc: &mut Value) {
    if let Some(components) = doc.get_mut("components").and_then(Value::as_object_mut) {
        let headers = components.entry("headers").or_insert_with(|| json!({}));
        if let Some(headers) = headers.as_object_mut() {
            headers.insert(
                "RequestId".into(),
                json!({
                    "description": "The request's id, as the server's log names it: the client's own `X-Request-Id` when it sent a well-formed one (1 to 64 characters of `A-Z a-z 0-9 . _ -`), else a fresh one. Quote it when reporting a problem.",
                    "schema": { "type": "string", "maxLength": 64, "pattern": "^[A-Za-z0-9._-]{1,64}$" }
                }),
            );
        }
    }
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for op in item.values_mut() {
            let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) else {
                continue;
            };
            for resp in responses.values_mut().filter_map(Value::as_object_mut) {
                if resp.contains_key("$ref") {
                    continue;
                }
                let headers = resp.entry("headers").or_insert_with(|| json!({}));
                if let Some(headers) = headers.as_object_mut() {
                    headers.insert(
                        "X-Request-Id".into(),
                        json!({ "$ref": "#/components/headers/RequestId" }),
                    );
                }
            }
        }
    }
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
