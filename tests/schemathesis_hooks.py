"""Schemathesis hooks of the contract test (tests/api/generated.rs sets SCHEMATHESIS_HOOKS).

openapi.yaml states every rule of a request that JSON Schema can state: patterns, lengths,
ranges, enums (time zones, game types). What is left are rules that compare one member
with another, with the time, with the caller or with the game a request is about. A
schema-valid request may break them, and the server refuses it (422, with a stable code,
changing nothing), so schemathesis would report valid data rejected.

Rather than relaxing the check for these operations, each hook below teaches the
generator one such rule: it changes a generated request that breaks the rule into one
that keeps it, for positive cases only (negative ones are meant to be refused). Nothing
else about a request changes, so every other member is still fuzzed as generated.
"""

import hashlib
import json
import os
import urllib.request
from datetime import datetime, timedelta, timezone

import hypothesis
import schemathesis
from schemathesis.config._projects import ProjectConfig
from schemathesis.core.parameters import ParameterLocation

# Hypothesis's target phase is left out. Schemathesis scores every fuzzed request by
# whether it was accepted, and with fewer than 1,000 examples Hypothesis then runs one
# unbounded hill-climb on that score. Measured on this suite, the climb was more than
# half of the fuzzer's CPU time, and without it the fuzzing phase sends more requests
# (2,381 against 2,213) reaching more pairs of operation and status (153 against 146).
# Every operation still gets its `max-examples` generated cases, as random draws.
_settings_with_target = ProjectConfig.get_hypothesis_settings


def _settings_without_target(self, *args, **kwargs):
    settings = _settings_with_target(self, *args, **kwargs)
    phases = [p for p in settings.phases if p != hypothesis.Phase.target]
    return hypothesis.settings(settings, phases=phases)


ProjectConfig.get_hypothesis_settings = _settings_without_target

BASE = os.environ.get("TURNPOST_BASE", "")
CREATOR_EMAIL = os.environ.get("TURNPOST_CALLER_EMAIL", "").lower()
CALLER_TOKEN = os.environ.get("TURNPOST_CALLER_TOKEN", "")

# Words for a password the strength rule accepts (zxcvbn's estimate of a few unrelated
# words is well above the bar); which ones is taken from the generated password, so that
# different cases still send different passwords.
WORDS = [
    "lantern", "gravel", "orbit", "meadow", "quill", "harbor", "saffron", "tundra",
    "violet", "bramble", "copper", "whistle", "juniper", "marble", "thistle", "nimbus",
]


def _positive_body(case):
    meta = case.meta
    return (
        meta is not None
        and meta.generation.mode.is_positive
        and not meta.is_negative_at(ParameterLocation.BODY)
        and isinstance(case.body, dict)
    )


def _strong_password(seed):
    digest = hashlib.sha256(json.dumps(seed, default=str).encode()).digest()
    words = sorted(WORDS, key=lambda w: hashlib.sha256(digest + w.encode()).digest())
    return " ".join(words[:4])


_game_types = None


def _game_types_by_id():
    """`GET /game-types` of the server under test, once: player counts and options schemas."""
    global _game_types
    if _game_types is None:
        with urllib.request.urlopen(f"{BASE}/api/v1/game-types", timeout=30) as r:
            _game_types = {g["id"]: g for g in json.load(r)}
    return _game_types


_validators = {}


def _fits(schema, value):
    import jsonschema_rs

    key = json.dumps(schema, sort_keys=True)
    try:
        if key not in _validators:
            _validators[key] = jsonschema_rs.validator_for(schema)
        return _validators[key].is_valid(value)
    except Exception:
        return False


def _password(case):
    """Sign-up and a password change: a password must be hard to guess (zxcvbn), which
    no schema can say; the generated one (length, characters) is replaced by a few words."""
    if case.body.get("password") is not None:
        case.body["password"] = _strong_password(case.body["password"])


def _vacation(case):
    """`until` after `from`, and `from` not in the past: two comparisons, one of them with
    the time of the request. A vacation that breaks them becomes one of the same length
    (at least an hour, at most a week) starting tomorrow."""
    now = datetime.now(timezone.utc)
    try:
        start, end = (
            datetime.fromisoformat(case.body[k].upper().replace("Z", "+00:00"))
            for k in ("from", "until")
        )
        if start.tzinfo is None or end.tzinfo is None:
            raise ValueError
        if start > now + timedelta(minutes=1) and end > start:
            return
        length = min(max(abs(end - start), timedelta(hours=1)), timedelta(days=7))
    except (KeyError, AttributeError, ValueError, OverflowError):
        # A form Python does not read (a leap second): an hour.
        length = timedelta(hours=1)
    start = now + timedelta(days=1)
    case.body["from"] = start.isoformat()
    case.body["until"] = (start + length).isoformat()


def _new_game(case):
    """A new game's members depend on each other and on the game type: the player count
    (`/game-types`: `player_counts`), the options (its `options_schema`), fewer computer
    players and invitees than seats, invitees each once (addresses compare regardless of
    case) and not the caller, and a clock cap of at least `days_per_move`. Each member
    that breaks them is brought within them."""
    body = case.body
    game = _game_types_by_id().get(body.get("game_type"))
    if game is None:
        return
    counts = game["player_counts"]
    # JSON Schema counts 2.0 as an integer, and so does the server.
    if body.get("players") not in counts:
        body["players"] = counts[0] if body.get("players", 0) < counts[0] else counts[-1]
    players = int(body["players"])
    if not _fits(game["options_schema"], body.get("options", {})):
        body["options"] = {}
    if body.get("bots") is not None and body["bots"] >= players:
        body["bots"] = players - 1
    if isinstance(body.get("invite"), list):
        seen, invite = {CREATOR_EMAIL}, []
        for address in body["invite"]:
            if address.lower() not in seen:
                seen.add(address.lower())
                invite.append(address)
        room = players - 1 - int(body.get("bots") or 0)
        body["invite"] = invite[:room]
    clock = body.get("time_control")
    if isinstance(clock, dict) and clock.get("max_days") is not None:
        clock["max_days"] = max(clock["max_days"], clock["days_per_move"])


# An action of each game type, as some game offered it.
_seen_actions = {}


def _game(game_id):
    """The game as the caller sees it, or None."""
    request = urllib.request.Request(
        f"{BASE}/api/v1/games/{game_id}", headers={"Authorization": f"Bearer {CALLER_TOKEN}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as r:
            return json.load(r)
    except Exception:
        return None


def _action(case):
    """An action is one of the model of the game's own type (`AnyGameAction` lists every
    type's, since the path's id decides the type): an action drawn for another type is
    replaced by one of the game's legal actions. And `If-Match` must name the game's
    current version, which only its ETag tells: a generated tag names none (412, as RFC
    9110 requires), so generated requests leave it out; the stateful phase sends the real
    one along the `SubmitActionIfMatch` link."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    if _positive_body(case) and "action" in case.body:
        game = _game((case.path_parameters or {}).get("id"))
        kind = game.get("game_type") if game is not None else None
        if game is not None and game.get("legal_actions"):
            _seen_actions[kind] = game["legal_actions"][0]
        model = _game_types_by_id().get(kind, {}).get("action_schema")
        if model is not None and not _fits(model, case.body["action"]):
            # One the caller may play, else one of the same type seen in another game.
            legal = game.get("legal_actions") or [_seen_actions.get(kind)]
            if legal[0] is not None:
                case.body["action"] = legal[0]
    # A generated If-Match goes even where the case calls the header valid: the coverage
    # phase sends values outside its pattern (`If-Match: 0`) in positive cases.
    if not case.headers:
        return
    linked = getattr(getattr(case, "_override", None), "headers", None) or {}
    for name in list(case.headers):
        if name.lower() == "if-match" and name not in linked:
            del case.headers[name]


_caller_id = None


def _caller():
    """The caller's account id (`GET /me`), once."""
    global _caller_id
    if _caller_id is None:
        request = urllib.request.Request(
            f"{BASE}/api/v1/me", headers={"Authorization": f"Bearer {CALLER_TOKEN}"}
        )
        with urllib.request.urlopen(request, timeout=30) as r:
            _caller_id = json.load(r)["id"]
    return _caller_id


def _someone_else(case):
    """Muting compares the path's account with the caller: nobody mutes themselves
    (`cannot_mute_yourself`; unmuting yourself is accepted, changing nothing). A generated id that names the caller names the next
    account instead."""
    meta = case.meta
    if meta is None or not meta.generation.mode.is_positive:
        return
    params = case.path_parameters or {}
    # Generated ids come as numbers or strings, depending on the phase.
    if str(params.get("id")) == str(_caller()):
        case.path_parameters = {**params, "id": _caller() + 1}


def _deletes_the_game(case):
    """Whether leaving would delete the game: an open game whose only person is the caller
    (computer players aside) goes away when they leave, as after a DELETE."""
    game = _game((case.path_parameters or {}).get("id"))
    if game is None or game.get("status") != "open":
        return False
    people = [s for s in game.get("seats", []) if not s.get("bot")]
    return len(people) == 1 and people[0].get("account_id") == _caller()


@schemathesis.hook
def filter_case(context, case):
    """In the stateful phase, a game the caller made is not left when that would delete
    it: leaving is a POST, so schemathesis's resource check (ST302) would take the game's
    404 afterwards for a created resource lost, where a DELETE would have told it. The
    other phases still send `leave` (tests/api/games.rs covers the deletion)."""
    meta = case.meta
    if (
        meta is not None
        and str(meta.phase.name).lower() == "stateful"
        and case.operation.method.upper() == "POST"
        and case.operation.path == "/api/v1/games/{id}/leave"
    ):
        return not _deletes_the_game(case)
    return True


@schemathesis.hook
def before_load_schema(context, raw_schema):
    """A link's body stands in `x-request-body` (openapi-generator's validator refuses an
    object as a link's `requestBody`, which OpenAPI allows); the stateful phase sends it as
    the link's `requestBody`. And a new game's rules per game type stand in
    `dependentSchemas`, which schemathesis cannot generate from: the same rules are taught
    to it by `_new_game`, so the copy it reads leaves them out."""

    def visit(node):
        if isinstance(node, dict):
            if "x-request-body" in node and "operationId" in node:
                node["requestBody"] = node.pop("x-request-body")
            for value in node.values():
                visit(value)
        elif isinstance(node, list):
            for value in node:
                visit(value)

    visit(raw_schema.get("components", {}).get("links", {}))
    visit(raw_schema.get("paths", {}))
    new_game = raw_schema.get("components", {}).get("schemas", {}).get("NewGameRequest", {})
    new_game.pop("dependentSchemas", None)


BODY_RULES = {
    "POST /api/v1/accounts": _password,
    "PATCH /api/v1/me": _password,
    "POST /api/v1/me/vacation": _vacation,
    "POST /api/v1/games": _new_game,
}


@schemathesis.hook
def map_case(context, case):
    label = f"{case.operation.method.upper()} {case.operation.path}"
    rule = BODY_RULES.get(label)
    if rule is not None and _positive_body(case):
        rule(case)
    if label in ("POST /api/v1/games/{id}/actions", "POST /api/v1/games/{id}/preview"):
        _action(case)
    if label == "POST /api/v1/accounts/{id}/mute":
        _someone_else(case)
    return case


# With ST_DEBUG_LOG set to a file, each call is logged there as a JSON line (operation,
# phase, mode, status, time): how to see where a run spends its time or what it sent.
_DEBUG = os.environ.get("ST_DEBUG_LOG")
if _DEBUG:

    @schemathesis.hook
    def after_call(context, case, response):
        meta = case.meta
        with open(_DEBUG, "a") as f:
            f.write(json.dumps({
                "op": f"{case.operation.method.upper()} {case.operation.path}",
                "path": {k: str(v) for k, v in (case.path_parameters or {}).items()},
                                "phase": str(meta.phase.name) if meta else None,
                "mode": str(meta.generation.mode) if meta else None,
                "status": response.status_code,
                "elapsed": response.elapsed,
                "t": __import__("time").time(),
                "headers": {k: v for k, v in (case.headers or {}).items() if k.lower() == "if-match"},
                "override": str(getattr(case, "_override", None))[:200] if "actions" in case.operation.path else None,
            }) + "\n")
