"""Plays one game of every type to the end through a client generated from openapi.yaml.

Run by tests/api/generated_client.rs: it generates the client with openapi-python-client
into target/, then runs this script with BASE (server URL) and CLIENT_DIR set. Each step
parses the caller's view with the game type's own generated model (KasinoView, ...), so a
view that drifts from its published schema fails here.
"""

import importlib
import os
import random
import sys
import uuid

sys.path.insert(0, os.environ["CLIENT_DIR"])

from turnpost_client import AuthenticatedClient, Client  # noqa: E402
from turnpost_client.api.accounts import create_account, token  # noqa: E402
from turnpost_client.api.games import (  # noqa: E402
    create_game,
    game_type,
    game_types,
    get_game,
    join_game,
    submit_action,
)
from turnpost_client.models import (  # noqa: E402
    ActionRequest,
    ActionRequestAction,
    GameResponse,
    GameTypeResponse,
    NewAccountRequest,
    NewGameRequest,
    TokenRequest,
)

BASE = os.environ["BASE"]
MAX_ACTIONS = 20_000


def model_prefix(game_type_id: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in game_type_id.replace("_", "-").split("-"))


def view_model(game_type_id: str):
    # The generator spells class names its own way (Sp4XView for Sp4xView).
    models = importlib.import_module("turnpost_client.models")
    wanted = (model_prefix(game_type_id) + "View").lower()
    return next(getattr(models, n) for n in dir(models) if n.lower() == wanted)


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
    created = create_game.sync(
        client=clients[0], body=NewGameRequest(game_type=gt.id, players=players)
    )
    assert isinstance(created, GameResponse), created
    gid = created.id
    for c in clients[1:]:
        joined = join_game.sync(gid, client=c)
        assert isinstance(joined, GameResponse), joined
    model = view_model(gt.id)
    by_seat = {}
    for c in clients:
        g = get_game.sync(gid, client=c)
        assert isinstance(g, GameResponse), g
        by_seat[g.your_seat] = c
    actions = 0
    g = get_game.sync(gid, client=clients[0])
    while True:
        assert isinstance(g, GameResponse), g
        if g.status == "finished":
            return actions, g.result.to_dict()["summary"] if g.result else ""
        assert g.status == "active", g.status
        assert g.to_act, "an active game waits for nobody"
        seat = rng.choice(g.to_act)
        mine = get_game.sync(gid, client=by_seat[seat])
        assert isinstance(mine, GameResponse), mine
        # The view parses as the game type's own model, and survives a round trip.
        typed = model.from_dict(mine.view.to_dict())
        assert typed.to_dict().keys() <= mine.view.to_dict().keys() | typed.additional_properties.keys()
        assert mine.legal_actions, f"seat {seat} is to act but has no legal action"
        choice = rng.choice(mine.legal_actions)
        body = ActionRequest(
            action=ActionRequestAction.from_dict(choice.to_dict()),
            expected_version=mine.version,
        )
        r = submit_action.sync_detailed(gid, client=by_seat[seat], body=body)
        assert r.status_code == 200, (gt.id, r.status_code, r.content)
        # The answer is the game after the move, as the mover sees it: who acts next.
        g = r.parsed
        actions += 1
        assert actions < MAX_ACTIONS, f"{gt.id} did not finish in {MAX_ACTIONS} actions"


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
        assert gt.view_schema.to_dict(), "no view schema"
        actions, summary = play(anon, gt, rng)
        print(f"{gt.id}: finished after {actions} actions: {summary}", flush=True)


if __name__ == "__main__":
    main()
