//! Finishing touches on the generated OpenAPI document, applied once every route is in:
//! every response has a description (required by OpenAPI 3.1), and every operation lists
//! the problem responses any request can get (a bad query, a bad body, a missing token,
//! a deadline, an overloaded server), so a generated client knows them all. Each game's
//! view, action and options models join the components, and links lead from a created
//! game to joining, reading and playing it. Last, what the operations repeat (responses,
//! headers, parameters, links) is said once, as components, and the YAML is written
//! compactly (`to_yaml`).

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
    // The per-game-type unions: (game type, model) of each.
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
                // Exactly one fits: a takeback has no `type`, a redacted form is the only
                // one with `redacted`, and its hidden parts fit no real action.
                "oneOf": log_action,
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
            "description": "An action of the game's own type: its model applies (`KasinoAction` for a `kasino` game, ...). A few actions are the same in several game types (`{\"type\": \"end_turn\"}`); the game the request is about says which it is.",
            // One of, not any of: a generated client then offers a choice of the seven
            // models, where with `anyOf` openapi-generator's Rust client merged them into
            // one struct that fitted no action.
            "oneOf": actions,
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

/// A union of the per-game-type models `names` (`(game type, model)`), each telling itself
/// apart by its `game_type` const; it keeps the description of the `base` it replaces.
/// There is no `discriminator`: openapi-generator's Rust client reads one as serde's
/// internal tag, which takes `game_type` away from the model that requires it, so it read
/// no game; told apart by the consts, every generator tries the branches in turn and
/// exactly one fits.
fn discriminated(base: &Value, names: &[(String, String)]) -> Value {
    let mut union = json!({
        "oneOf": names.iter().map(|(_, n)| schema_ref(n)).collect::<Vec<_>>(),
    });
    if let Some(d) = base.get("description") {
        union["description"] = d.clone();
    }
    union
}

/// Moves each branch of the `oneOf` of `schemas[union]` that is tagged by a `type` const
/// into a component of its own named after the tag (`KasinoAction` + `add_to_build` →
/// `KasinoActionAddToBuild`): generators then name each variant (openapi-python-client
/// numbered them `KasinoActionType0`, ...). Like the game unions (`discriminated`), it has
/// no `discriminator`: the `type` consts tell the branches apart.
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
        refs.push(schema_ref(&name));
    }
    if let Some(u) = schemas.get_mut(union) {
        u["oneOf"] = Value::Array(refs);
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
            // No `const: true`: openapi-generator's Rust client makes a boolean const an enum
            // of the string "true", which reads no redacted entry. The member alone marks
            // the form: no game action has it.
            json!({ "type": "boolean", "description": "Always true: the action was secret to the caller." }),
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
    // What each game type takes: its player counts, its options, and as many computer
    // players and invitees as it has other seats. Generators that read no `if` still see
    // every member; validators see each type's rules.
    let per_type: Vec<Value> = registry
        .all()
        .map(|g| {
            let info = g.info();
            let others = info.max_players.saturating_sub(1);
            json!({
                "if": { "properties": { "game_type": { "const": info.id } } },
                "then": { "properties": {
                    "players": { "minimum": info.min_players, "maximum": info.max_players },
                    "options": schema_ref(&format!("{}Options", model_prefix(info.id))),
                    "bots": { "maximum": others },
                    "invite": { "maxItems": others },
                } },
            })
        })
        .collect();
    // Under `dependentSchemas` (the same as beside `properties`, since `game_type` is
    // required) rather than `allOf`: openapi-generator makes a composed model of a schema
    // with `allOf`, whose nullable members no longer read `null`.
    if let Some(new_game) = schemas
        .get_mut("NewGameRequest")
        .and_then(Value::as_object_mut)
    {
        new_game.insert(
            "dependentSchemas".into(),
            json!({ "game_type": { "allOf": per_type } }),
        );
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
    // The body a link sends stands in `x-request-body`, not `requestBody`: OpenAPI allows
    // an object of expressions there, but openapi-generator's validator refuses the whole
    // document for anything but a string. The contract test's schemathesis hook moves it
    // back (tests/schemathesis_hooks.py), and each description says what it sends.
    let game_links = json!({
        "GetGame": { "operationId": "get_game", "parameters": id, "description": "The game just returned" },
        "JoinGame": { "operationId": "join_game", "parameters": id, "description": "Take a free seat" },
        "SubmitAction": {
            "operationId": "submit_action",
            "parameters": id,
            "x-request-body": {
                "action": "$response.body#/legal_actions/0",
                "expected_version": "$response.body#/version"
            },
            "x-schemathesis": whole_body,
            "description": "Play the first legal action: `{\"action\": legal_actions[0], \"expected_version\": version}`"
        },
        "GameLog": { "operationId": "game_log", "parameters": id, "description": "The game's log" },
        "BoardPicture": { "operationId": "board_svg", "parameters": id, "description": "The board as the caller sees it" },
        "Preview": {
            "operationId": "preview_action",
            "parameters": id,
            "x-request-body": { "action": "$response.body#/legal_actions/0" },
            "x-schemathesis": whole_body,
            "description": "What the first legal action would do: `{\"action\": legal_actions[0]}`"
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
            "x-request-body": {
                "action": "$response.body#/legal_actions/0",
                "expected_version": "$response.body#/version"
            },
            "x-schemathesis": whole_body,
            "description": "Play the first legal action, on the condition that the game is still this version: `{\"action\": legal_actions[0], \"expected_version\": version}` with `If-Match: ETag`"
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

/// The methods a path item describes operations under.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// The last touches, once nothing else changes the document: every operation states what
/// it requires (`security: []` where it requires nothing), every array schema has `items`,
/// and what the operations repeat is said once, as components (`share_components`).
pub fn finish_document(doc: &mut Value) {
    declare_open_operations(doc);
    give_arrays_items(doc);
    share_components(doc);
    drop_echoed_titles(doc);
}

/// Takes out each component's `title` that only repeats its name. The names are set as
/// titles while the models are assembled, over the Rust type names schemars writes there
/// (`Action` in every game, which would name the generated classes alike); a generator
/// names a component by its key, so the copy says nothing.
fn drop_echoed_titles(doc: &mut Value) {
    let Some(schemas) = doc
        .pointer_mut("/components/schemas")
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    for (name, schema) in schemas.iter_mut() {
        if let Some(s) = schema.as_object_mut()
            && s.get("title").and_then(Value::as_str) == Some(name)
        {
            s.remove("title");
        }
    }
}

/// There is no document-wide requirement, so an operation without `security` needs no
/// token; `[]` says that it needs none, where leaving it out reads (to linters and to
/// people) like a requirement forgotten.
fn declare_open_operations(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for item in paths.values_mut().filter_map(Value::as_object_mut) {
        for (method, op) in item.iter_mut() {
            if let Some(op) = op.as_object_mut()
                && METHODS.contains(&method.as_str())
                && !op.contains_key("security")
            {
                op.insert("security".into(), json!([]));
            }
        }
    }
}

/// Gives `items` to each array schema without it (tools that read OpenAPI 3.0 take an array
/// without `items` for an error). Its meaning stays: schemars writes a Rust tuple as
/// `prefixItems` with `maxItems` its length, where `items` (for the members after the
/// prefix) can match nothing; there it names what the members are, so that a generator
/// that reads `items` beside `prefixItems` (openapi-python-client) types them as before.
/// Anywhere else it is `{}`, which allows what no `items` allowed.
fn give_arrays_items(v: &mut Value) {
    match v {
        Value::Object(map) => {
            let array = match map.get("type") {
                Some(Value::String(t)) => t == "array",
                Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
                _ => false,
            };
            if array && !map.contains_key("items") {
                let length = map.get("maxItems").and_then(Value::as_u64);
                let items = match map.get("prefixItems") {
                    Some(Value::Array(prefix))
                        if !prefix.is_empty()
                            && length.is_some_and(|n| n <= prefix.len() as u64) =>
                    {
                        // By JSON type alone where every member has one: `items` checks
                        // nothing here (the prefix covers every place), and members of one
                        // type with different bounds would make a `oneOf` that two fit.
                        let types: Option<Vec<&Value>> = prefix
                            .iter()
                            .map(|p| p.get("type").filter(|t| t.is_string()))
                            .collect();
                        let mut kinds: Vec<Value> = Vec::new();
                        for p in prefix {
                            let kind = match &types {
                                Some(_) if p["type"] == "integer" => {
                                    json!({ "type": "integer", "format": "int64" })
                                }
                                Some(_) => json!({ "type": p["type"] }),
                                None => p.clone(),
                            };
                            if !kinds.contains(&kind) {
                                kinds.push(kind);
                            }
                        }
                        match kinds.as_slice() {
                            [one] => one.clone(),
                            // Members of different JSON types (a name and a count): exactly
                            // one fits each, and openapi-generator's Rust client makes
                            // `oneOf` a choice where it makes `anyOf` a struct.
                            _ => json!({ "oneOf": kinds }),
                        }
                    }
                    _ => json!({}),
                };
                map.insert("items".into(), items);
            }
            for (key, x) in map.iter_mut() {
                // Values, not schemas.
                if !matches!(
                    key.as_str(),
                    "example" | "examples" | "default" | "const" | "enum"
                ) {
                    give_arrays_items(x);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(give_arrays_items),
        _ => {}
    }
}

/// What `share_components` shares: each is a section of `components`.
#[derive(Clone, Copy, PartialEq)]
enum Shared {
    Headers,
    Links,
    Responses,
    Parameters,
}

impl Shared {
    fn section(self) -> &'static str {
        match self {
            Shared::Headers => "headers",
            Shared::Links => "links",
            Shared::Responses => "responses",
            Shared::Parameters => "parameters",
        }
    }

    /// The name a component takes: its header's, link's or parameter's name, or a
    /// response's first words and status (`Unauthorized401`); and a longer one, for when
    /// several would take the first (the `id` of a game and of a webhook, `GameId` and
    /// `WebhookId`): more of the words of its description.
    fn names(self, key: &str, value: &Value) -> (String, String) {
        let description = value
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let fallback = |name: String, default: &str| {
            if name.is_empty() {
                default.to_string()
            } else {
                name
            }
        };
        match self {
            Shared::Responses => {
                let first = fallback(identifier(first_clause(description), 4), "Response");
                let more = fallback(identifier(description, 5), "Response");
                (format!("{first}{key}"), format!("{more}{key}"))
            }
            Shared::Parameters => {
                let name = value.get("name").and_then(Value::as_str).unwrap_or(key);
                let name = fallback(identifier(name, 6), "Parameter");
                let words = identifier(first_clause(description), 5);
                (name.clone(), if words.is_empty() { name } else { words })
            }
            Shared::Headers | Shared::Links => {
                let name = fallback(
                    identifier(key, 6),
                    if self == Shared::Headers {
                        "Header"
                    } else {
                        "Link"
                    },
                );
                let words = identifier(first_clause(description), 3);
                (name.clone(), format!("{name}{words}"))
            }
        }
    }
}

/// Says once what the operations repeat: every response, response header, parameter and
/// link that occurs twice or more, identically, becomes a component that each occurrence
/// refers to. Most operations answer the same 400, 401, 408, 429 and 503 and every response
/// carries the same request id and rate-limit headers; written out each time they were
/// most of the document. A response whose description names its operation's own problem
/// codes occurs once and stays in place. Done on the finished document, it shares what any
/// future operation repeats too; names follow the document's order, so the same code gives
/// the same document.
pub fn share_components(doc: &mut Value) {
    // Headers and links first: responses are compared with their shared headers in.
    for kind in [
        Shared::Headers,
        Shared::Links,
        Shared::Responses,
        Shared::Parameters,
    ] {
        share(doc, kind);
    }
}

/// One object as it occurs: the first occurrence and how often it occurs.
struct Occurrence {
    key: String,
    value: Value,
    count: usize,
}

fn share(doc: &mut Value, kind: Shared) {
    let mut found: Vec<Occurrence> = Vec::new();
    let mut index: std::collections::HashMap<String, usize> = Default::default();
    visit(doc, kind, &mut |key, value| {
        if value.get("$ref").is_some() {
            return;
        }
        let id = identity(key, value);
        if let Some(&i) = index.get(&id) {
            found[i].count += 1;
        } else {
            index.insert(id, found.len());
            found.push(Occurrence {
                key: key.to_string(),
                value: value.clone(),
                count: 1,
            });
        }
    });
    let repeated: Vec<&Occurrence> = found.iter().filter(|o| o.count >= 2).collect();
    if repeated.is_empty() {
        return;
    }
    let section = kind.section();
    let existing = doc
        .pointer(&format!("/components/{section}"))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut taken: std::collections::HashSet<String> = existing.keys().cloned().collect();
    // One that is a component already keeps its name.
    let kept: Vec<Option<String>> = repeated
        .iter()
        .map(|o| {
            existing
                .iter()
                .find(|(_, c)| **c == o.value)
                .map(|(name, _)| name.clone())
        })
        .collect();
    let names: Vec<(String, String)> = repeated
        .iter()
        .map(|o| kind.names(&o.key, &o.value))
        .collect();
    // The most used first: where several would take one name, a response used most keeps
    // it (the generic 400, not a variant); the others, and all parameters and headers, take
    // their longer name where it tells them apart, else a number.
    let mut order: Vec<usize> = (0..repeated.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(repeated[i].count));
    let mut named: Vec<String> = kept.iter().map(|k| k.clone().unwrap_or_default()).collect();
    let mut first_taken = std::collections::HashSet::new();
    for &i in order.iter().filter(|&&i| kept[i].is_none()) {
        let (base, longer) = &names[i];
        let rivals: Vec<usize> = (0..repeated.len())
            .filter(|&j| kept[j].is_none() && names[j].0 == *base)
            .collect();
        let distinct =
            longer != base && rivals.iter().filter(|&&j| names[j].1 == *longer).count() == 1;
        let want = if rivals.len() == 1
            || (kind == Shared::Responses && first_taken.insert(base.clone()))
            || !distinct
        {
            base
        } else {
            longer
        };
        named[i] = unique(want, &mut taken);
    }
    let mut new = Vec::new();
    let mut by_id = std::collections::HashMap::new();
    for ((o, name), kept) in repeated.iter().zip(named).zip(&kept) {
        if kept.is_none() {
            new.push((name.clone(), o.value.clone()));
        }
        by_id.insert(identity(&o.key, &o.value), name);
    }
    visit(doc, kind, &mut |key, value| {
        if value.get("$ref").is_some() {
            return;
        }
        if let Some(name) = by_id.get(&identity(key, value)) {
            *value = json!({ "$ref": format!("#/components/{section}/{name}") });
        }
    });
    new.sort_by(|a, b| a.0.cmp(&b.0));
    let Some(doc) = doc.as_object_mut() else {
        return;
    };
    let components = doc.entry("components").or_insert_with(|| json!({}));
    if let Some(components) = components.as_object_mut()
        && let Some(target) = components
            .entry(section)
            .or_insert_with(|| json!({}))
            .as_object_mut()
    {
        target.extend(new);
    }
}

/// `name`, or `name_2`, `name_3`, ... : the first not `taken` (which it joins).
fn unique(name: &str, taken: &mut std::collections::HashSet<String>) -> String {
    let mut candidate = name.to_string();
    let mut n = 2;
    while taken.contains(&candidate) {
        candidate = format!("{name}_{n}");
        n += 1;
    }
    taken.insert(candidate.clone());
    candidate
}

/// What makes two occurrences the same: the name they stand under (a header's, a link's,
/// a status) and the object, whatever the order of its members.
fn identity(key: &str, value: &Value) -> String {
    fn canonical(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut entries: Vec<(&String, &Value)> = map.iter().collect();
                entries.sort_by(|a, b| a.0.cmp(b.0));
                out.push('{');
                for (k, x) in entries {
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    canonical(x, out);
                    out.push(',');
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for x in items {
                    canonical(x, out);
                    out.push(',');
                }
                out.push(']');
            }
            other => out.push_str(&other.to_string()),
        }
    }
    let mut out = format!("{key}\n");
    canonical(value, &mut out);
    out
}

/// Calls `f` on each place where an object of `kind` stands, in the document's order, with
/// the name it stands under (a status, a header's or link's name, a parameter's `name`).
fn visit(doc: &mut Value, kind: Shared, f: &mut dyn FnMut(&str, &mut Value)) {
    fn parameters(list: &mut Value, f: &mut dyn FnMut(&str, &mut Value)) {
        for p in list.as_array_mut().into_iter().flatten() {
            let name = p
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            f(&name, p);
        }
    }
    fn in_response(response: &mut Value, section: &str, f: &mut dyn FnMut(&str, &mut Value)) {
        if let Some(map) = response.get_mut(section).and_then(Value::as_object_mut) {
            for (name, x) in map.iter_mut() {
                f(name, x);
            }
        }
    }
    if let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) {
        for item in paths.values_mut().filter_map(Value::as_object_mut) {
            for (key, node) in item.iter_mut() {
                if key == "parameters" && kind == Shared::Parameters {
                    parameters(node, f);
                }
                if !METHODS.contains(&key.as_str()) {
                    continue;
                }
                if kind == Shared::Parameters {
                    if let Some(list) = node.get_mut("parameters") {
                        parameters(list, f);
                    }
                    continue;
                }
                let Some(responses) = node.get_mut("responses").and_then(Value::as_object_mut)
                else {
                    continue;
                };
                for (status, response) in responses.iter_mut() {
                    match kind {
                        Shared::Responses => f(status, response),
                        _ => in_response(response, kind.section(), f),
                    }
                }
            }
        }
    }
    if matches!(kind, Shared::Headers | Shared::Links)
        && let Some(responses) = doc
            .pointer_mut("/components/responses")
            .and_then(Value::as_object_mut)
    {
        for response in responses.values_mut() {
            in_response(response, kind.section(), f);
        }
    }
}

/// `text` up to its first `:`, `;`, `,`, `(` or `.` outside backticks: "`not_found`: no
/// such game" → "`not_found`".
fn first_clause(text: &str) -> &str {
    let mut code = false;
    for (i, c) in text.char_indices() {
        match c {
            '`' => code = !code,
            ':' | ';' | ',' | '(' | '.' | '\n' if !code => return &text[..i],
            _ => {}
        }
    }
    text
}

/// The words of `text` as one name, at most `max` of them, leaving out small words outside
/// backticks: "`not_a_player`" → `NotAPlayer`, "The token of the invitation link" →
/// `TokenInvitationLink`, `If-None-Match` → `IfNoneMatch`.
fn identifier(text: &str, max: usize) -> String {
    const SMALL: [&str; 15] = [
        "a", "an", "the", "of", "or", "and", "to", "for", "in", "on", "at", "by", "with", "is",
        "its",
    ];
    let mut out = String::new();
    let mut taken = 0;
    let mut code = false;
    let mut word = String::new();
    let mut words = text.chars().chain(std::iter::once(' '));
    while taken < max {
        let Some(c) = words.next() else { break };
        if c.is_ascii_alphanumeric() {
            word.push(c);
            continue;
        }
        if !word.is_empty() && (code || !SMALL.contains(&word.to_ascii_lowercase().as_str())) {
            let mut chars = word.chars();
            if let Some(first) = chars.next() {
                out.push(first.to_ascii_uppercase());
                out.push_str(chars.as_str());
            }
            taken += 1;
        }
        word.clear();
        if c == '`' {
            code = !code;
        }
    }
    out
}

/// How long a line grows before a collection is written over several lines.
const YAML_WIDTH: usize = 120;

/// `doc` as YAML. Block style, as serde_yaml writes it, except that a collection that fits
/// on its line is written there in flow style (`schema: {$ref: '#/components/schemas/X'}`,
/// `type: [integer, 'null']`), and a long list of single values fills lines: written one
/// member a line, a third of the document was indentation. Any YAML reader reads the same
/// document from either.
pub fn to_yaml(doc: &Value) -> String {
    let mut out = String::new();
    match doc {
        Value::Object(m) if !m.is_empty() => write_block(doc, 0, &mut out),
        Value::Array(a) if !a.is_empty() => write_block(doc, 0, &mut out),
        Value::Object(_) => out.push_str("{}\n"),
        Value::Array(_) => out.push_str("[]\n"),
        scalar => {
            out.push_str(&block_scalar(scalar, 0));
            out.push('\n');
        }
    }
    out
}

/// Writes the members of a non-empty map or list at `indent`.
fn write_block(v: &Value, indent: usize, out: &mut String) {
    let pad = " ".repeat(indent);
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                let mut key = block_scalar(&Value::String(k.clone()), 0);
                if key.contains('\n') {
                    key = Value::String(k.clone()).to_string();
                }
                write_member(&format!("{pad}{key}:"), x, indent, false, out);
            }
        }
        Value::Array(items) => {
            for x in items {
                write_member(&format!("{pad}-"), x, indent, true, out);
            }
        }
        _ => {}
    }
}

/// Writes `x` after `head` (`key:`, or `-` when `item`, at `indent`).
fn write_member(head: &str, x: &Value, indent: usize, item: bool, out: &mut String) {
    let line = |out: &mut String, text: &str| {
        out.push_str(head);
        out.push(' ');
        out.push_str(text);
        out.push('\n');
    };
    match x {
        Value::Object(m) if m.is_empty() => line(out, "{}"),
        Value::Array(a) if a.is_empty() => line(out, "[]"),
        Value::Object(_) | Value::Array(_) => {
            if let Some(text) = flow(x, YAML_WIDTH.saturating_sub(head.len() + 1)) {
                return line(out, &text);
            }
            if (head.ends_with("headers:") || head.ends_with("links:"))
                && only_refs(x)
                && let Some(text) = flow(x, usize::MAX)
            {
                return line(out, &text);
            }
            let singles = x.as_array().and_then(|items| {
                items
                    .iter()
                    .map(|y| match y {
                        Value::Object(_) | Value::Array(_) => None,
                        y => flow(y, usize::MAX),
                    })
                    .collect::<Option<Vec<_>>>()
            });
            if let Some(singles) = singles {
                return write_filled(head, &singles, indent + 2, out);
            }
            if item {
                // `- ` stands in the indentation of the first member.
                let mut inner = String::new();
                write_block(x, indent + 2, &mut inner);
                out.push_str(head);
                out.push(' ');
                out.push_str(inner.get(indent + 2..).unwrap_or(&inner));
            } else {
                out.push_str(head);
                out.push('\n');
                // A list's `-` stands under its key, as serde_yaml writes it.
                write_block(x, if x.is_object() { indent + 2 } else { indent }, out);
            }
        }
        scalar => line(out, &block_scalar(scalar, indent)),
    }
}

/// Whether `x` is a map of references only. A response's headers and links are written on
/// one line when they are: every response carries the same five headers, and one a line
/// they were a sixth of the document.
fn only_refs(x: &Value) -> bool {
    x.as_object().is_some_and(|m| {
        m.len() > 1
            && m.values().all(|v| {
                v.as_object()
                    .is_some_and(|r| r.len() == 1 && r.contains_key("$ref"))
            })
    })
}

/// A flow list of `singles` after `head`, as many on a line as fit, further lines at
/// `indent`.
fn write_filled(head: &str, singles: &[String], indent: usize, out: &mut String) {
    let mut line = format!("{head} [");
    let mut fresh = true;
    for (i, s) in singles.iter().enumerate() {
        let end = if i + 1 < singles.len() { ',' } else { ']' };
        if !fresh && line.len() + 1 + s.len() + 1 > YAML_WIDTH {
            out.push_str(&line);
            out.push('\n');
            line = " ".repeat(indent);
            fresh = true;
        }
        if !fresh {
            line.push(' ');
        }
        line.push_str(s);
        line.push(end);
        fresh = false;
    }
    out.push_str(&line);
    out.push('\n');
}

/// `v` in flow style if that takes at most `room` bytes and every string in it can be
/// written on one line.
fn flow(v: &Value, room: usize) -> Option<String> {
    let text = match v {
        Value::Object(map) => {
            let mut text = String::from("{");
            for (i, (k, x)) in map.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                text.push_str(&flow_string(k)?);
                text.push_str(": ");
                text.push_str(&flow(x, room.checked_sub(text.len())?)?);
                if text.len() > room {
                    return None;
                }
            }
            text.push('}');
            text
        }
        Value::Array(items) => {
            let mut text = String::from("[");
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                text.push_str(&flow(x, room.checked_sub(text.len())?)?);
                if text.len() > room {
                    return None;
                }
            }
            text.push(']');
            text
        }
        Value::String(s) => flow_string(s)?,
        scalar => block_scalar(scalar, 0),
    };
    (text.len() <= room).then_some(text)
}

/// The words YAML 1.1 readers (PyYAML, so most Python tools) take for booleans or null.
fn yaml11_word(s: &str) -> bool {
    [
        "y", "n", "yes", "no", "on", "off", "true", "false", "null", "~",
    ]
    .iter()
    .any(|w| w.eq_ignore_ascii_case(s))
}

/// `s` as a flow scalar: bare when it is a plain word of names and paths, else in single
/// quotes; `None` when it has a line break or a control character.
fn flow_string(s: &str) -> Option<String> {
    let plain = s
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || "_/$".contains(c))
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./$+-".contains(c))
        && !yaml11_word(s);
    if plain {
        return Some(s.to_string());
    }
    if s.chars()
        .any(|c| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}'))
    {
        return None;
    }
    Some(format!("'{}'", s.replace('\'', "''")))
}

/// A scalar as serde_yaml writes it in block style, a block string (`|-`) indented for a
/// member at `indent`; quoted where YAML 1.1 would read a boolean.
fn block_scalar(v: &Value, indent: usize) -> String {
    if let Value::String(s) = v
        && yaml11_word(s)
    {
        return format!("'{s}'");
    }
    let text = serde_yaml::to_string(v).unwrap_or_else(|_| v.to_string());
    let text = text.strip_suffix('\n').unwrap_or(&text);
    let pad = " ".repeat(indent);
    let mut lines = text.split('\n');
    let mut out = lines.next().unwrap_or_default().to_string();
    for l in lines {
        out.push('\n');
        if !l.is_empty() {
            out.push_str(&pad);
            out.push_str(l);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_match_concrete_paths() {
        assert!(matches("/api/v1/games/{id}", "/api/v1/games/12"));
        assert!(matches("/api/v1/games", "/api/v1/games/"));
        assert!(!matches("/api/v1/games/{id}", "/api/v1/games"));
        assert!(!matches("/api/v1/games/{id}/log", "/api/v1/games/1/join"));
    }

    fn problem(description: &str) -> Value {
        json!({
            "description": description,
            "content": { "application/problem+json": { "schema": { "$ref": "#/components/schemas/Problem" } } },
            "headers": {
                "X-Request-Id": { "$ref": "#/components/headers/RequestId" },
                "ETag": { "description": "Changes with the answer", "schema": { "type": "string" } }
            }
        })
    }

    fn id(description: &str) -> Value {
        json!({ "name": "id", "in": "path", "required": true, "description": description, "schema": { "type": "integer" } })
    }

    #[test]
    fn what_operations_repeat_is_said_once() {
        let if_none_match =
            json!({ "name": "If-None-Match", "in": "header", "schema": { "type": "string" } });
        let mut doc = json!({
            "paths": {
                "/games/{id}": {
                    "get": {
                        "parameters": [id("Game id"), if_none_match],
                        "responses": { "401": problem("Unauthorized"), "404": problem("`game_not_found`") }
                    },
                    "post": {
                        "parameters": [id("Game id")],
                        "responses": {
                            "401": problem("Unauthorized"),
                            "409": problem("`game_over`: the game has ended")
                        }
                    }
                },
                "/webhooks/{id}": {
                    "delete": {
                        "parameters": [id("Webhook id"), if_none_match],
                        // The same member order need not be kept.
                        "responses": { "401": { "headers": problem("")["headers"], "description": "Unauthorized", "content": problem("")["content"] } }
                    },
                    "get": { "parameters": [id("Webhook id")], "responses": { "401": problem("`unauthorized`: send a token") } },
                    "put": { "responses": { "401": problem("`unauthorized`: send a token") } }
                }
            },
            "components": {
                "headers": { "RequestId": { "description": "The request's id", "schema": { "type": "string" } } },
                "parameters": { "IfNoneMatch": if_none_match }
            }
        });
        share_components(&mut doc);
        let at = |pointer: &str| doc.pointer(pointer).cloned().unwrap_or_default();
        let reference = |to: &str| json!({ "$ref": format!("#/components/{to}") });
        assert_eq!(
            at("/paths/~1games~1{id}/get/responses/401"),
            reference("responses/Unauthorized401")
        );
        assert_eq!(
            at("/paths/~1webhooks~1{id}/delete/responses/401"),
            reference("responses/Unauthorized401")
        );
        // Two distinct 401s would both be `Unauthorized401`: the one used most keeps the name.
        assert_eq!(
            at("/paths/~1webhooks~1{id}/get/responses/401"),
            reference("responses/UnauthorizedSendToken401")
        );
        // Said once: it stays.
        assert_eq!(
            at("/paths/~1games~1{id}/post/responses/409/description"),
            json!("`game_over`: the game has ended")
        );
        assert_eq!(
            at("/components/responses/Unauthorized401/headers/ETag"),
            reference("headers/ETag")
        );
        assert_eq!(
            at("/paths/~1games~1{id}/get/responses/404/headers/ETag"),
            reference("headers/ETag")
        );
        assert_eq!(
            at("/components/headers/ETag/description"),
            json!("Changes with the answer")
        );
        assert_eq!(
            at("/paths/~1games~1{id}/get/parameters/0"),
            reference("parameters/GameId")
        );
        assert_eq!(
            at("/paths/~1webhooks~1{id}/get/parameters/0"),
            reference("parameters/WebhookId")
        );
        assert_eq!(
            at("/components/parameters/WebhookId/description"),
            json!("Webhook id")
        );
        // What is a component already keeps its name.
        assert_eq!(
            at("/paths/~1webhooks~1{id}/delete/parameters/1"),
            reference("parameters/IfNoneMatch")
        );
        assert_eq!(
            doc["components"]["parameters"].as_object().map(|p| p.len()),
            Some(3)
        );
        let again = {
            let mut d = doc.clone();
            share_components(&mut d);
            d
        };
        assert_eq!(again, doc, "sharing twice changes nothing");
    }

    #[test]
    fn arrays_get_items_that_change_nothing() {
        let mut doc = json!({
            "pair": { "type": "array", "prefixItems": [{ "type": "string" }, { "type": "integer" }], "minItems": 2, "maxItems": 2 },
            "dice": { "type": ["array", "null"], "prefixItems": [{ "type": "integer" }, { "type": "integer" }], "minItems": 2, "maxItems": 2 },
            "not": { "type": "array", "minItems": 1, "maxItems": 1 },
            "open": { "type": "array", "prefixItems": [{ "type": "string" }] },
            "example": { "type": "array" }
        });
        give_arrays_items(&mut doc);
        assert_eq!(
            doc["pair"]["items"],
            json!({ "oneOf": [{ "type": "string" }, { "type": "integer", "format": "int64" }] })
        );
        assert_eq!(
            doc["dice"]["items"],
            json!({ "type": "integer", "format": "int64" })
        );
        assert_eq!(doc["not"]["items"], json!({}));
        assert_eq!(doc["open"]["items"], json!({}));
        assert_eq!(doc["example"].get("items"), None);
    }

    #[test]
    fn operations_without_security_say_they_need_none() {
        let mut doc = json!({ "paths": { "/a": {
            "get": { "responses": {} },
            "post": { "security": [{ "bearer": [] }], "responses": {} },
            "parameters": []
        } } });
        declare_open_operations(&mut doc);
        assert_eq!(doc["paths"]["/a"]["get"]["security"], json!([]));
        assert_eq!(
            doc["paths"]["/a"]["post"]["security"],
            json!([{ "bearer": [] }])
        );
        assert_eq!(doc["paths"]["/a"]["parameters"], json!([]));
    }

    #[test]
    fn the_yaml_reads_back_as_the_document() {
        let doc = json!({
            "strings": ["off", "On", "Yes", "n", "null", "~", "a: b", "multi\nline", "ends\n\n", "  lead",
                "it's", "#x", "[x]", "{x}", "", "1", "0x1F", "1e3", "2024-01-01", "true", "-", "- a", "?", "*x",
                "&x", "!x", "%x", "@x", "`x`", "$ref", "a,b", "x\u{85}y", "x\u{2028}y", "tab\there",
                "trailing ", "é ü", "a #b", "a\\b", "'", "\""],
            "keys": { "y": 1, "on": 2, "a: b": 3, "200": 4, "-x": 5, "$ref": "#/components/schemas/X" },
            "long": (0..60).map(|i| format!("word{i}")).collect::<Vec<_>>(),
            "text": "a long line ".repeat(20),
            "nested": { "a": [{ "b": 1, "c": "two\nlines" }, [1, [2, "three\nlines"]], {}, []], "c": { "$ref": "#/x" } },
            "numbers": [1, -2, 1.5, 1e300, u64::MAX, i64::MIN, null, false],
            "deep": [[["a", "b"], { "k": "multi\nline", "l": [{ "m": "n\no" }] }]]
        });
        let yaml = to_yaml(&doc);
        let back: Value = serde_yaml::from_str(&yaml).unwrap_or_default();
        assert_eq!(back, doc, "{yaml}");
        assert!(yaml.contains("$ref: '#/components/schemas/X'"), "{yaml}");
        assert!(
            yaml.lines()
                .all(|l| l.len() <= YAML_WIDTH || !l.contains(", ")),
            "{yaml}"
        );
    }

    #[test]
    fn the_served_spec_reads_back_through_the_yaml_writer() {
        let served: Value = serde_yaml::from_str(&crate::api::openapi_yaml()).unwrap_or_default();
        assert!(served["paths"].is_object());
        let again: Value = serde_yaml::from_str(&to_yaml(&served)).unwrap_or_default();
        assert_eq!(again, served);
    }
}
