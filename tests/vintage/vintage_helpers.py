"""Helpers for the Vintage Speed tests: tables written as text, and conservation checks.

A table reads like the rules::

    discard: T5 A1       (top first)
    called: S            (the top Lightning's call)
    pack: H2/5           (top first; every card not placed anywhere goes below)
    dealer: 1            (default: the last seat, so player_0 acts first)
    player_0: T2 A5 X
    player_1: M3
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from speed_env.vintage import raw_env
from speed_env.vintage.engine import Game
from speed_env.vintage.pack import Pack, default_pack


def parse_table(text: str, pack: Pack | None = None, packs: int | None = None) -> dict[str, Any]:
    """The explicit deal a table text describes, the rest of the cards at the pack's bottom."""
    pack = pack or default_pack()
    fields: dict[str, list[str]] = {}
    hands: dict[int, list[str]] = {}
    for raw in text.strip().splitlines():
        line = raw.split("#")[0].strip()
        if not line:
            continue
        key, _, rest = line.partition(":")
        tokens = rest.split()
        if key.startswith("player_"):
            hands[int(key.removeprefix("player_"))] = tokens
        else:
            fields[key.strip()] = tokens
    n = len(hands)
    packs = packs or (1 if n <= 5 else 2)
    hand_lists = [hands[s] for s in range(n)]
    discard = fields.get("discard", [])
    top_pack = fields.get("pack", [])
    empty_pack = top_pack == ["empty"]
    if empty_pack:
        top_pack = []
    used = Counter(
        pack.parse(t) for t in [*discard, *top_pack, *(t for h in hand_lists for t in h)]
    )
    rest = Counter(pack.cards(packs)) - used
    filler = [pack.tokens[k] for k in sorted(rest.elements())]
    deal: dict[str, Any] = {
        "hands": hand_lists,
        "discard": discard,
        "pack": [] if empty_pack else [*top_pack, *filler],
        "dealer": int(fields["dealer"][0]) if "dealer" in fields else n - 1,
    }
    if empty_pack:
        # "pack: empty" puts every card not placed elsewhere at the discard's bottom.
        deal["discard"] = [*discard, *filler]
    if "called" in fields:
        deal["called"] = fields["called"][0]
    return deal


def table(text: str, **options: Any) -> raw_env:
    """A raw env reset to the deal ``text`` describes (options go to the env)."""
    deal = parse_table(text, options.get("pack") if isinstance(options.get("pack"), Pack) else None)
    env = raw_env(num_players=len(deal["hands"]), **options)
    env.reset(seed=0, options={"deal": deal})
    return env


def legal_names(env: raw_env) -> set[str]:
    """Names of the legal actions of the agent to act."""
    return set(env.legal_action_names())


def play(env: raw_env, *names: str) -> None:
    """Step the env with actions given by name, in order."""
    for name in names:
        env.step(env.action_index(name))


def cards_on_table(game: Game) -> Counter[int]:
    """Every card in hands, pack and discard, as a multiset of kinds."""
    counts: Counter[int] = Counter(game.pack) + Counter(game.discard)
    for hand in game.hands:
        counts += Counter({k: c for k, c in enumerate(hand) if c})
    return counts
