"""Plays one game of every type to the end through a client generated from openapi.yaml.

Run by tests/api/generated.rs: it generates the client with openapi-python-client into
target/, then runs this script with BASE (server URL) and CLIENT_DIR set. The generated
client parses every answer into the game type's own models (`KasinoGame` with its
`KasinoView`, `KasinoActionCapture`, ..., chosen by `game_type`); the script re-parses
nothing by hand, and checks that each part was read as its game's model, with no field
left over that the model does not name.
"""

import os
import random
import sys
import uuid

sys.path.insert(0, os.environ["CLIENT_DIR"])

from turnpost_client import AuthenticatedClient, Client  # noqa: E402
from turnpost_client.api.accounts import create_account, token  # noqa: E402
from turnpost_client.api.games import (  # noqa: E402
    create_game,
    game_log,
    game_type,
    game_types,
    get_game,
    join_game,
    submit_action,
)
from turnpost_client.models import (  # noqa: E402
    ActionRequest,
    GameTypeResponse,
    NewAccountRequest,
    NewGameRequest,
    Problem,
    TakebackLogAction,
    TokenRequest,
)

BASE = os.environ["BASE"]
MAX_ACTIONS = 20_000


def model_prefix(game_type_id: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in game_type_id.replace("_", "-").split("-"))


def is_model(value, game_type_id: str, *kinds: str) -> bool:
    """Whether `value` was parsed as one of the game's models named `<Prefix><kind>...`
    (the generator spells some names its own way: Sp4XView for Sp4xView)."""
    name = type(value).__name__.lower()
    prefix = model_prefix(game_type_id).lower()
    return any(name.startswith(prefix + k.lower()) for k in kinds)


def no_leftovers(model, where: str) -> None:
    """A model keeps the fields its schema does not name in `additional_properties`: a
    game's data has none."""
    extra = getattr(model, "additional_properties", {})
    assert not extra, f"{where}: fields outside the model: {sorted(extra)}"


def sign_up(anon: Client, name: str) -> AuthenticatedClient:
    email = f"{name.lower()}-{uuid.uuid4().hex[:8]}@example.org"
    password = "correct horse battery"
    r = create_account.sync_detailed(
        client=anon, body=NewAccountRequest(email=email, name=name, password=password)
    )
    assert r.status_code == 201, (r.status_code, r.content)
    t = token.sync(client=anon, body=TokenRequest(email=email, password=password))
    assert t is not None and hasattr(t, "access_token"), t
    return AuthenticatedClient(base_url=BASE, token=t.access_token, timeout=60)


def play(anon: Client, gt: GameTypeResponse, rng: random.Random) -> tuple[int, str]:
    players = min(gt.player_counts)
    clients = [sign_up(anon, f"P{i}") for i in range(players)]
    watcher = sign_up(anon, "Watcher")
    created = create_game.sync(
        client=clients[0], body=NewGameRequest(game_type=gt.id, players=players)
    )
    assert is_model(created, gt.id, "Game"), created
    gid = created.id
    for c in clients[1:]:
        joined = join_game.sync(gid, client=c)
        assert is_model(joined, gt.id, "Game"), joined
    by_seat = {}
    for c in clients:
        g = get_game.sync(gid, client=c)
        assert is_model(g, gt.id, "Game"), g
        by_seat[g.your_seat] = c
    actions = 0
    g = get_game.sync(gid, client=clients[0])
    while True:
        assert is_model(g, gt.id, "Game"), g
        assert is_model(g.options, gt.id, "Options"), g.options
        if g.status == "finished":
            break
        assert g.status == "active", g.status
        assert g.to_act, "an active game waits for nobody"
        seat = rng.choice(g.to_act)
        mine = get_game.sync(gid, client=by_seat[seat])
        assert is_model(mine, gt.id, "Game"), mine
        # The view is the game type's own model, every field of it named.
        assert is_model(mine.view, gt.id, "View"), type(mine.view)
        no_leftovers(mine.view, f"{gt.id} view")
        assert mine.legal_actions, f"seat {seat} is to act but has no legal action"
        for a in mine.legal_actions:
            assert is_model(a, gt.id, "Action"), type(a)
            no_leftovers(a, f"{gt.id} action {a.type_}")
        choice = rng.choice(mine.legal_actions)
        body = ActionRequest(action=choice, expected_version=mine.version)
        r = submit_action.sync_detailed(gid, client=by_seat[seat], body=body)
        assert r.status_code == 200, (gt.id, r.status_code, r.content)
        # The answer is the game after the move, as the mover sees it: who acts next.
        g = r.parsed
        actions += 1
        assert actions < MAX_ACTIONS, f"{gt.id} did not finish in {MAX_ACTIONS} actions"
    # The log as an outsider reads it: secret actions come as the game's redacted forms.
    log = game_log.sync(gid, client=watcher)
    assert isinstance(log, list) and log, log
    hidden = 0
    for e in log:
        assert not isinstance(e, Problem), e
        assert is_model(e, gt.id, "LogEntry"), type(e)
        assert isinstance(e.action, TakebackLogAction) or is_model(
            e.action, gt.id, "Action", "RedactedAction"
        ), type(e.action)
        if is_model(e.action, gt.id, "RedactedAction"):
            assert e.text is None and e.action.redacted, e
            hidden += 1
    summary = g.result.summary if g.result else ""
    return actions, f"{summary} ({len(log)} log entries, {hidden} redacted for a spectator)"


def main() -> None:
    anon = Client(base_url=BASE, timeout=60)
    types = game_types.sync(client=anon)
    assert types and len(types) == 7, types
    only = os.environ.get("ONLY")
    rng = random.Random(int(os.environ.get("SEED", "7")))
    for listed in types:
        if only and listed.id != only:
            continue
        gt = game_type.sync(listed.id, client=anon)
        assert isinstance(gt, GameTypeResponse), gt
        actions, summary = play(anon, gt, rng)
        print(f"{gt.id}: finished after {actions} actions: {summary}", flush=True)


if __name__ == "__main__":
    main()
