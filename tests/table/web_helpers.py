"""Shared pieces of the web table tests: a short deal, a started table and a WebSocket reader."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest

from speed_env.cards import card_str, deck
from speed_env.reaction import make_profile
from speed_env.rules import make_rules
from speed_table.session import TableConfig

HUMAN = ["7H", "8H"]
BOT = ["6S", "3S", "3C"]


def short_deal() -> dict[str, Any]:
    """A ``us`` deal that ends in two plays of yours, after one of the bot's.

    You hold 7H and 8H and no draw pile; the bot holds 6S, 3S, 3C. Centre
    tops are 5C and KD. Only the bot's 6S goes anywhere (on 5C); then your
    7H and 8H go on it, and you win. Nobody is ever stuck, so no flips.
    """
    used = set(HUMAN + BOT + ["5C", "KD"])
    rest = [card_str(int(c)) for c in deck() if card_str(int(c)) not in used]
    side0, side1, under0, under1 = rest[:5], rest[5:10], rest[10:28], rest[28:]
    return {
        "hands": [list(HUMAN), list(BOT)],
        "draw_piles": [[], []],
        "side_piles": [side0, side1],
        "centre": [["5C", *under0], ["KD", *under1]],
    }


def table_config(replays_dir=None, **changes: Any) -> TableConfig:
    """A table of you against ``greedy`` on the short deal, with ``changes``.

    ``us`` rules, 50 ms ticks, a fixed 300 ms bot, seed 7, a 1 s countdown.
    """
    base: dict[str, Any] = dict(
        mode="play",
        agents=("you", "greedy"),
        rules=make_rules("us"),
        tick_ms=50,
        reaction=make_profile(300),
        seed=7,
        deal=short_deal(),
        countdown_ms=1000,
        replays_dir=replays_dir,
    )
    return TableConfig(**(base | changes))


def receive_until(ws: Any, kind: str, limit: int = 2000, where: Any = None) -> dict[str, Any]:
    """Read messages until one of type ``kind`` (and ``where(msg)`` true), at most ``limit``."""
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["type"] == kind and (where is None or where(msg)):
            return msg
    raise AssertionError(f"no {kind!r} message in {limit} messages")


@contextlib.contextmanager
def started_table(cfg: TableConfig) -> Iterator[tuple[Any, dict[str, Any], dict[str, Any]]]:
    """Serve ``cfg``'s table in a test client and start it as the page does on its welcome.

    Yields the WebSocket, the welcome and the first ``state`` after the start.
    """
    testclient = pytest.importorskip("starlette.testclient")
    from speed_table.app import create_app

    app = create_app(cfg, allowed_hosts=("testserver",))
    with testclient.TestClient(app) as client, client.websocket_connect("/ws") as ws:
        welcome = ws.receive_json()
        ws.send_json({"type": "start"})
        yield ws, welcome, receive_until(ws, "state")
