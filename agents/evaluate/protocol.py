"""The evaluation protocol of ``speed evaluate``, kept as versioned data, and the card's manifest.

A report card is comparable with another only when both played the same
protocol: the same opponents, rule sets, deals, games and reaction. So the
protocol is not a set of flags but a constant, each game's ``protocols`` keyed by
version (:data:`REALTIME_1` here, and protocol 2, 1 with every agent's thinking charged,
:func:`agents.evaluate.thinking.realtime_2`; each game registers its :class:`CardGame`); a change
to anything in it makes a new version (the old one stays, so an old card can still be
re-made). ``--games`` is the one knob, and the card records the games it used.

The manifest (:func:`manifest`) binds a card to what produced it: protocol
version, game, env ids, kit version, the agent spec, the SHA-256 of every
file the agent loads, the seeds and games; :func:`manifest_hash` is a SHA-256
over its canonical JSON, so a later card can be checked against it. The
card's own hash (:func:`card_hash`, its ``card_hash`` field) covers the whole
card, so everything a leaderboard shows is bound to it. Beside it, the results hash
(:func:`results_hash`, the ``results_hash`` field, covered by the card hash) leaves the
measured time out: two runs of one evaluation (agent, its files, games, seed, kit) have
the same results hash, whatever their wall time, so they can be compared by hash.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

PROTOCOL_VERSION = 1
"""The first protocol, which every game has: the version the library's functions take when
none is given (:func:`protocol`, :func:`manifest`, :func:`agents.evaluate.plan.make_plan`).
``speed evaluate`` plays its game's newest unless told otherwise (:func:`default_version`)."""

REALTIME_1: dict[str, Any] = {
    "game": "realtime",
    "opponents": ["random", "greedy", "chain", "search", "trained", "selfplay"],
    "rule_sets": {
        "us": {"preset": "us", "options": {}},
        "pagat": {"preset": "pagat", "options": {}},
        "japanese": {"preset": "japanese", "options": {}},
        "japanese+options": {
            "preset": "japanese",
            "options": {"jokers": True, "play_out": True, "stack_layout": True, "multi_play": True},
        },
    },
    "match_rule_sets": ["us", "pagat"],
    "games": 200,
    "seed": 1,
    "reaction": "human",
    "tick_ms": 50,
    "chunk_deals": 25,
    "latency": {
        "opponent": "chain",
        "rule_set": "us",
        "opponent_reaction": "human",
        # The human shape's Gaussian centre mu (not its mean, mu + tau, nor its median, mu +
        # 64 ms: the card's points are at medians 184-424); the key is data, kept as it was.
        "agent_means_ms": [120, 180, 240, 300, 360],
        "jitter": "human",
        "games": 200,
    },
    "decision_cost": {"rule_set": "us", "batches": [1, 256], "min_seconds": 0.2},
    "rating": {"bootstrap": 300, "scale": "Elo (400 points = 10:1 odds), anchors fixed"},
}
"""Real-time Speed, protocol 1 (documented in docs/evaluate.md)."""


class CardGame(Protocol):
    """One game's report card: its protocols and the pieces that plan, sum up, rate, check and
    show it. Each game's plug-in registers one (:func:`register`, from :mod:`agents.games`);
    the shared card code asks :func:`card_game` and names no game."""

    @property
    def name(self) -> str:
        """The card's ``game`` (``realtime``)."""
        ...

    @property
    def title(self) -> str:
        """The game in words (``Real-time Speed``)."""
        ...

    @property
    def about(self) -> str:
        """Its card in a few words, for ``--game``'s help (``four seats``)."""
        ...

    @property
    def unit(self) -> str:
        """What a card plays its games per (``pairing``, ``table``)."""
        ...

    @property
    def protocols(self) -> dict[int, dict[str, Any]]:
        """Its protocols by version, kept as data (a change makes a new version)."""
        ...

    @property
    def env_mark(self) -> str | None:
        """A text its env ids hold (``None``: the ids no other game's mark is in)."""
        ...

    @property
    def figure_label(self) -> str:
        """``report.png``'s x axis."""
        ...

    @property
    def board_column(self) -> str:
        """The leaderboard's column after the ratings."""
        ...

    def fill(self, plan: Any, act_timeout: float | None) -> Any:
        """The plan (:class:`agents.evaluate.plan.Plan`) filled with the card's games."""
        ...

    def summarise(self, plan: Any, by_group: dict[str, list[Any]]) -> dict[str, Any]:
        """The card's ``results`` from the chunk results by group."""
        ...

    def rate(self, card: dict[str, Any], anchors: dict[str, Any]) -> None:
        """Put the anchored ratings and α-Rank into ``card["results"]`` (a copy, unsealed)."""
        ...

    def alpharank(self, card: dict[str, Any], pools: dict[str, Any]) -> dict[str, Any]:
        """The card's ``alpharank`` entries, keyed as its ratings are."""
        ...

    def check(
        self, c: Any, results: dict[str, Any], proto: dict[str, Any], agent: str, games: int
    ) -> None:
        """Check a card's ``results`` field by field, failing ``c`` (a card check) by name."""
        ...

    def sections(self) -> list[Callable[[dict[str, Any]], list[str]]]:
        """``report.md``, section by section."""
        ...

    def figure_rows(self, card: dict[str, Any]) -> list[tuple[str, float, float, float]]:
        """``report.png``'s rows: a name, a rate and its 95% interval."""
        ...

    def board_row(self, results: dict[str, Any]) -> dict[str, Any]:
        """A leaderboard row's ``ratings`` and its own column's value from a card's results."""
        ...

    def board_cell(self, row: dict[str, Any]) -> str:
        """The leaderboard's cell under :attr:`board_column`."""
        ...

    def anchor_keys(self, proto: dict[str, Any], only: list[str] | None) -> list[str]:
        """The anchors' sections a pool run writes (``only``: those asked for)."""
        ...

    def anchor_pool(self, key: str, version: int, workers: int, progress: Any) -> dict[str, Any]:
        """The reference pool's round robin of one section: its pairwise counts."""
        ...


_CARD_GAMES: dict[str, CardGame] = {}


def register(game: CardGame) -> None:
    """Add a game's report card (its plug-in does, as it is imported: OpenSpiel's way)."""
    _CARD_GAMES[game.name] = game


def card_games() -> list[CardGame]:
    """The registered games' cards, in registration order (the default game first)."""
    return list(_CARD_GAMES.values())


def card_game(name: str) -> CardGame:
    """The report card of the game ``name``."""
    if name not in _CARD_GAMES:
        raise ProtocolError(f"no {name!r} game to evaluate; games: {', '.join(_CARD_GAMES)}")
    return _CARD_GAMES[name]


TIMING_KEYS = ("timing",)
"""Top-level keys of ``report.json`` that hold measured time (left out of reproducibility)."""


class ProtocolError(ValueError):
    """A protocol version or game the kit does not have."""


def protocol(game: str, version: int = PROTOCOL_VERSION) -> dict[str, Any]:
    """The protocol of ``game`` (a registered game's name) at ``version``."""
    versions = sorted({v for g in _CARD_GAMES.values() for v in g.protocols})
    if version not in versions:
        raise ProtocolError(
            f"no evaluation protocol {version}; this kit has {', '.join(map(str, versions))}"
        )
    if game not in _CARD_GAMES or version not in _CARD_GAMES[game].protocols:
        games = ", ".join(g.name for g in _CARD_GAMES.values() if version in g.protocols)
        raise ProtocolError(f"no {game!r} game in protocol {version}; games: {games}")
    return _CARD_GAMES[game].protocols[version]


def default_version(game: str) -> int:
    """The protocol ``speed evaluate`` plays for ``game`` unless told otherwise: its newest
    (real-time Speed's is 2, which charges thinking; a game whose newest is 1 keeps 1). An
    unknown game: 1."""
    return max(_CARD_GAMES[game].protocols) if game in _CARD_GAMES else PROTOCOL_VERSION


def kit_version() -> str:
    """The installed kit's version (``speed_env.__version__`` where it has one)."""
    import speed_env

    version = getattr(speed_env, "__version__", None)
    if version:
        return str(version)
    try:
        from importlib.metadata import version as dist_version

        return dist_version("speed-rl")
    except Exception:  # not installed as a distribution (a bare checkout)
        return "unknown"


def env_ids(game: str) -> list[str]:
    """The current env ids of ``game``: what a card's games were played on.

    They come from ``speed_env.registration``'s tables, outdated ids left out.
    """
    from speed_env import registration

    ids = set(registration.GYMNASIUM_ENVS)
    for table in registration.PETTINGZOO_ENVS.values():
        ids |= set(table)
    ids -= set(getattr(registration, "OUTDATED", {}))
    mark = card_game(game).env_mark
    if mark is not None:
        return sorted(i for i in ids if mark in i)
    marks = [g.env_mark for g in _CARD_GAMES.values() if g.env_mark is not None]
    return sorted(i for i in ids if not any(m in i for m in marks))


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def canonical(doc: Any) -> bytes:
    """``doc`` as canonical JSON bytes (sorted keys, no spaces): what a hash is taken over."""
    return json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()


def manifest_hash(manifest: dict[str, Any]) -> str:
    """SHA-256 over the canonical JSON of a manifest (its own ``hash`` field left out)."""
    body = {k: v for k, v in manifest.items() if k != "hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


SEAL_KEYS = ("results_hash", "card_hash")
"""The hashes :func:`seal` adds to a card, last among its keys, in this order."""


def results_hash(card: dict[str, Any]) -> str:
    """SHA-256 over the canonical JSON of a card less its timing and its hashes.

    It covers the manifest (agent, its files' SHA-256, games, seeds, kit), the skips, the
    results and their ratings: what two runs of one evaluation share. The timing
    (:data:`TIMING_KEYS`: wall time, decision cost) differs from run to run and is left out.
    """
    body = {k: v for k, v in card.items() if k not in (*SEAL_KEYS, *TIMING_KEYS)}
    return hashlib.sha256(canonical(body)).hexdigest()


def card_hash(card: dict[str, Any]) -> str:
    """SHA-256 over the canonical JSON of a whole card, its own ``card_hash`` left out.

    It covers the agent, every count, rating and number, the manifest with its protocol data,
    the timing. A card edited anywhere no longer matches it; a leaderboard also re-rates the
    card from its counts (:mod:`agents.evaluate.card_check`), so a card re-hashed after an edit
    to its ratings is refused too.
    """
    body = {k: v for k, v in card.items() if k != "card_hash"}
    return hashlib.sha256(canonical(body)).hexdigest()


def seal(card: dict[str, Any]) -> dict[str, Any]:
    """``card`` with its ``results_hash`` and ``card_hash`` (re)computed, last among its keys.
    The card hash covers the results hash."""
    body = {k: v for k, v in card.items() if k not in SEAL_KEYS}
    body["results_hash"] = results_hash(body)
    return {**body, "card_hash": card_hash(body)}


def manifest(
    game: str,
    spec: str,
    files: dict[str, str],
    games: int,
    seed: int,
    version: int = PROTOCOL_VERSION,
) -> dict[str, Any]:
    """The card's manifest, its ``hash`` included (see the module docstring).

    ``files`` maps each file the agent loads to its SHA-256; ``games`` is the
    games per pairing or line-up the card used (the protocol's, or ``--games``);
    ``seed`` the seed of the deals (the protocol's, or ``--seed`` for a replication).
    """
    proto = protocol(game, version)
    doc: dict[str, Any] = {
        "protocol": version,
        "game": game,
        "protocol_data": proto,
        "agent": spec,
        "agent_files": dict(sorted(files.items())),
        "games": games,
        "full_protocol": games >= proto["games"],
        "seeds": {"deals": seed, "protocol_default": proto["seed"]},
        "env_ids": env_ids(game),
        "kit_version": kit_version(),
    }
    doc["hash"] = manifest_hash(doc)
    return doc
