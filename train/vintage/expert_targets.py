"""Search targets for vintage expert iteration: games played in chunks, the search's values kept.

One round of targets is ``games`` games of Vintage Speed at a ``players``
table. The learner sits in seat ``g % players`` of game ``g``; the other
seats are played by the ``opponents`` bots (the seat ``k`` places after the
learner by ``opponents[(g + k - 1) % len(opponents)]``, so every bot meets
every position). At each decision of the learner's seat with two or more
legal actions, :class:`agents.vintage.search.VintageSearch` values every legal
action; the observation, the mask, the values, the search's choice and its
prior's are recorded. The search's settings:

- ``worlds`` sampled worlds per decision, uniform or, with ``infer``, agreeing
  with the stuck seats;
- greedy, tactician or network rollouts: ``rollout`` for every seat, ``own``
  for the learner's own seat; ``network`` is the round's network;
- rollouts optionally cut ``leaf`` actions in and scored by the ``value``
  network;
- its ``prior``: the tactician or the network.

The learner then plays the search's choice (``acting="search"``) or the
network's (``acting="network"``: states the network reaches, as in DAgger).

The games are cut into chunks of ``chunk_games``; a chunk is a pure function
of the settings, its index and the network (every generator is seeded from
``(seed, round, chunk)``), and the chunks run through
:func:`agents.runtime.jobs.run_jobs`, so ``--backend local`` and ``--backend ray``
(and any number of workers) give the same arrays, and :func:`write_targets`
the same file byte for byte (safetensors, keys sorted, no time stamps).

File ``targets.safetensors``, one row per recorded decision:

- ``obs`` float32 ``(n, 174)``: the learner's raw observation;
- ``mask`` int8 ``(n, 48)``;
- ``values`` float32 ``(n, 48)``: the search's mean score of each legal action
  (share of the other seats finished ahead of, or the reward, per its
  ``score``), NaN for illegal actions;
- ``choice`` int64: the action the search plays; ``prior`` int64: its prior's;
- ``ret`` float32: the learner's reward at the end of that game (+1 out
  first, else minus its penalty points / 100; 0 if truncated);
- ``game`` int64: the game's index in the round.

On disk every column is float32 (whole numbers below 2**24 are exact);
:func:`read_targets` gives them back their types. Its metadata holds the
settings as JSON.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from agents.runtime.jobs import Backend, run_jobs
from agents.vintage.search import PRIORS

if TYPE_CHECKING:
    from agents.vintage.search import SearchSettings

ACTING = ("search", "network")

DTYPES = {
    "obs": np.float32,
    "mask": np.int8,
    "values": np.float32,
    "choice": np.int64,
    "prior": np.int64,
    "ret": np.float32,
    "game": np.int64,
}
"""The columns of a target file and their types in memory (all float32 on disk)."""

Network = tuple[dict[str, np.ndarray], str]
"""A policy network as kit tensors (``pi.*``, ``logits.*``) and its activation."""


@dataclass(frozen=True)
class TargetSettings:
    """Everything one round of targets depends on (but the network, passed beside it)."""

    players: int = 4
    """Seats at the table (2-10)."""
    opponents: tuple[str, ...] = ("vintage-tactician", "vintage-greedy")
    """Vintage agent specs of the other seats, cycled through."""
    games: int = 200
    """Games in the round."""
    worlds: int = 32
    """Worlds the search samples per decision."""
    rollout: str = "greedy"
    """Rollout policy of the search: ``greedy``, ``tactician`` or ``network`` (the round's)."""
    own: str = ""
    """Rollout policy of the learner's own seat in the search (empty: as ``rollout``)."""
    leaf: int = 0
    """Cut the search's rollouts this many actions in, scored by ``value`` (0: play out)."""
    value: str = ""
    """Value network file (:mod:`agents.vintage.value`) of the cut rollouts."""
    z: float = 1.5
    """The search leaves its prior's choice only for a lead of more than ``z`` standard errors."""
    infer: bool = False
    """The search's worlds agree with what the stuck seats reveal (``sample_world(infer=)``)."""
    confirm: int = 0
    """Worlds of the second search that must repeat a choice leaving the prior (0: none)."""
    acting: str = "search"
    """Who plays the learner's seat: ``search`` (its choice) or ``network``."""
    prior: str = "tactician"
    """The search's prior: ``tactician`` or ``network``."""
    seed: int = 0
    """Seed of the deals, the bots and the search."""
    round: int = 0
    """Round of expert iteration (part of every seed)."""
    chunk_games: int = 10
    """Games per chunk of work."""

    def __post_init__(self) -> None:
        from agents.vintage import registry

        if isinstance(self.players, bool) or not 2 <= self.players <= 10:
            raise ValueError(f"players must be 2-10, got {self.players!r}")
        for name in ("games", "chunk_games"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a whole number, at least 1; got {value!r}")
        if not self.opponents:
            raise ValueError("opponents must name at least one vintage agent spec")
        for spec in self.opponents:
            if not registry.is_vintage(spec):
                raise ValueError(f"opponent {spec!r} is no Vintage Speed agent")
        if self.acting not in ACTING:
            raise ValueError(f"acting must be one of {', '.join(ACTING)}; got {self.acting!r}")
        if self.prior not in PRIORS:
            raise ValueError(f"prior must be one of {', '.join(PRIORS)}; got {self.prior!r}")
        self.search_settings()  # checks them

    def search_settings(self) -> SearchSettings:
        """The :class:`agents.vintage.search.SearchSettings` of the round's search.

        Its ``network`` roles are played by the round's network, passed to the search.
        """
        from agents.vintage.search import SearchSettings

        return SearchSettings(
            worlds=self.worlds,
            rollout=self.rollout,
            own=self.own,
            prior=self.prior,
            leaf=self.leaf,
            value=self.value,
            z=self.z,
            infer=self.infer,
            confirm=self.confirm,
        )

    @property
    def needs_network(self) -> bool:
        """Whether the round's network plays a part (acting, prior or a rollout seat)."""
        return "network" in (self.acting, self.prior, self.rollout, self.own)


@dataclass(frozen=True)
class TargetChunk:
    """Games ``start .. start + count`` of one round, and the network of that round."""

    settings: TargetSettings
    index: int
    start: int
    count: int
    network: Network | None = field(default=None, compare=False)


@dataclass
class Targets:
    """Recorded decisions (the columns of the module docstring)."""

    obs: np.ndarray
    mask: np.ndarray
    values: np.ndarray
    choice: np.ndarray
    prior: np.ndarray
    ret: np.ndarray
    game: np.ndarray

    def __len__(self) -> int:
        return len(self.choice)

    def arrays(self) -> dict[str, np.ndarray]:
        """The columns by name."""
        return dict(vars(self))

    @classmethod
    def concat(cls, parts: list[Targets]) -> Targets:
        """The rows of ``parts`` in order."""
        names = list(vars(parts[0]))
        return cls(**{n: np.concatenate([getattr(p, n) for p in parts]) for n in names})


def plan(settings: TargetSettings, network: Network | None = None) -> list[TargetChunk]:
    """The chunks of one round, in the order their rows are concatenated."""
    step = settings.chunk_games
    return [
        TargetChunk(settings, i, start, min(step, settings.games - start), network)
        for i, start in enumerate(range(0, settings.games, step))
    ]


def _seeds(settings: TargetSettings, chunk: int, n: int) -> list[int]:
    """``n`` independent seeds of one chunk (a function of the settings' seed, round and chunk)."""
    # A constant tag keeps these seeds apart from any other stream built from
    # (seed, round, chunk).
    seq = np.random.SeedSequence([settings.seed, settings.round, chunk, 0xE1])
    return [int(s) for s in seq.generate_state(n, dtype=np.uint64)]


def run_chunk(chunk: TargetChunk) -> Targets:
    """Play one chunk's games and record the learner's searched decisions."""
    from agents.model_io.mlp import MLPPolicy
    from agents.vintage import registry
    from agents.vintage.search import VintageSearch
    from agents.vintage.value import load_value
    from speed_env.vintage import raw_env
    from speed_env.vintage.engine import TRUNCATED, penalties

    s = chunk.settings
    n = s.players
    # The search, then each opponent bot, then each game: a chunk is the same whoever runs it.
    seeds = _seeds(s, chunk.index, 1 + len(s.opponents) + chunk.count)
    net = MLPPolicy(*chunk.network) if chunk.network is not None else None
    search = VintageSearch(
        s.search_settings(),
        seed=seeds[0],
        prior=net if s.prior == "network" else None,
        network=net,
        value=load_value(s.value) if s.leaf else None,
    )
    bots = [registry.make(spec, seed=seeds[1 + k]) for k, spec in enumerate(s.opponents)]
    rows: dict[str, list[Any]] = {k: [] for k in ("obs", "mask", "values", "choice", "prior")}
    ret: list[float] = []
    game_ids: list[int] = []
    for i in range(chunk.count):
        g = chunk.start + i
        env = raw_env(num_players=n, games=1)
        env.reset(seed=seeds[1 + len(s.opponents) + i])
        learner = g % n
        recorded = 0
        while not env.game.over:
            seat = env.game.current
            view = env.observe(env.agent_selection)
            obs, mask = view["observation"], view["action_mask"]
            if seat != learner:
                # The bot k seats after the learner, as the module docstring says: shifted by
                # game so that every bot meets every position.
                bot = bots[(g + (seat - learner) % n - 1) % len(bots)]
                env.step(int(bot.act(obs[None], mask[None])[0]))
                continue
            # A forced move teaches nothing and would cost a search: played, not recorded.
            if int(mask.sum()) < 2:
                env.step(int(np.flatnonzero(mask)[0]))
                continue
            found = search.evaluate(obs, mask)
            # NaN marks the illegal actions, so no value of 0 is taken for one.
            values = np.full(mask.shape, np.nan, np.float32)
            values[found.legal] = found.means
            for key, value in zip(
                ("obs", "mask", "values", "choice", "prior"),
                (obs, mask, values, found.choice, found.default),
                strict=True,
            ):
                rows[key].append(value)
            recorded += 1
            action = found.choice
            # DAgger: the search's choice is recorded, the network's played, so the states
            # recorded are the ones the network reaches.
            if net is not None and s.acting == "network":
                action = int(net.act(obs[None], mask[None])[0])
            env.step(action)
        game = env.game
        if game.status == TRUNCATED:
            reward = 0.0
        else:
            reward = 1.0 if game.winner == learner else -penalties(game)[learner] / 100.0
        ret += [reward] * recorded
        game_ids += [g] * recorded
    # Widths from the search, not the rows: a chunk may record nothing.
    width, n_actions = search.layout.size, search.actions.n
    return Targets(
        obs=np.asarray(rows["obs"], np.float32).reshape(-1, width),
        mask=np.asarray(rows["mask"], np.int8).reshape(-1, n_actions),
        values=np.asarray(rows["values"], np.float32).reshape(-1, n_actions),
        choice=np.asarray(rows["choice"], np.int64),
        prior=np.asarray(rows["prior"], np.int64),
        ret=np.asarray(ret, np.float32),
        game=np.asarray(game_ids, np.int64),
    )


def generate(
    settings: TargetSettings,
    network: Network | None = None,
    *,
    workers: int = 1,
    backend: Backend | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[Targets, bool]:
    """One round's targets, chunk by chunk on ``backend``; and whether every chunk finished.

    On Ctrl-C the finished chunks are returned (the rows of the chunks before
    the first unfinished one are all kept; later finished ones too, in order).
    """
    if network is None and settings.needs_network:
        raise ValueError(
            "a round whose acting policy, search prior or rollouts are the network needs one"
        )
    chunks = plan(settings, network)
    results, complete = run_jobs(run_chunk, chunks, workers, progress, backend)
    # A chunk cut off by Ctrl-C comes back as None; every finished one is kept.
    done = [r for r in results if r is not None]
    if not done:
        raise KeyboardInterrupt("no chunk of search targets finished")
    return Targets.concat(done), complete


def write_targets(path: str | Path, targets: Targets, settings: TargetSettings) -> Path:
    """Write ``targets`` as one safetensors file (deterministic bytes) with the settings."""
    from agents.model_io.tensor_file import write_safetensors

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    meta = {"settings": json.dumps(asdict(settings), sort_keys=True), "format": "vintage-targets/1"}
    # The kit's safetensors writer stores floats: whole numbers (< 2**24) stay exact in float32.
    columns = {k: v.astype(np.float32) for k, v in targets.arrays().items()}
    write_safetensors(path, columns, meta)
    return path


def read_targets(path: str | Path) -> tuple[Targets, dict[str, Any]]:
    """The targets and the settings saved by :func:`write_targets`; a clear error otherwise."""
    from agents.model_io.tensor_file import ModelFormatError, read_safetensors

    path = Path(path)
    tensors, meta = read_safetensors(path, "search targets")
    missing = set(Targets.__dataclass_fields__) - set(tensors)
    if meta.get("format") != "vintage-targets/1" or missing:
        raise ModelFormatError(
            f"{path} is not a vintage search-target file (missing {sorted(missing)})"
        )
    columns = {k: tensors[k].astype(DTYPES[k]) for k in Targets.__dataclass_fields__}
    return Targets(**columns), json.loads(meta["settings"])


def distribution(targets: Targets, kind: str, temperature: float = 0.05) -> np.ndarray:
    """float32 ``(n, n_actions)`` target distributions from the recorded search.

    ``choice``: all mass on the action the search plays (tactician-or-prior
    unless another action is clearly better); ``soft``: a softmax of the
    legal actions' mean values at ``temperature`` (values are shares in
    [0, 1], so 0.05 puts about 7 times the mass on a lead of 0.1).
    """
    n, width = targets.mask.shape
    if kind == "choice":
        out = np.zeros((n, width), np.float32)
        out[np.arange(n), targets.choice] = 1.0
        return out
    if kind == "soft":
        if not temperature > 0:
            raise ValueError(f"temperature must be above 0, got {temperature!r}")
        v = np.where(targets.mask > 0, np.nan_to_num(targets.values, nan=0.0), -np.inf)
        # The row's max subtracted before exp: a small temperature would overflow it.
        z = (v - v.max(axis=1, keepdims=True)) / temperature
        e = np.exp(z)
        return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    raise ValueError(f"target must be choice or soft, got {kind!r}")


def summary(targets: Targets) -> Mapping[str, float]:
    """How often the search left its prior, and the mean number of legal actions."""
    # An empty round reports zeros, not a division by zero.
    n = max(1, len(targets))
    return {
        "decisions": len(targets),
        "games": len(np.unique(targets.game)),
        "search_left_prior": round(float((targets.choice != targets.prior).sum()) / n, 4),
        "legal_actions": round(float(targets.mask.sum()) / n, 3),
    }
