"""The opponents a learner trains against, sampled per game.

An :class:`OpponentPool` holds *members*: fixed bots built from agent specs
(``greedy``, ``chain@pro`` …) and, for self-play, frozen snapshots of the
learner itself. Each game draws its opponent when it is dealt and keeps it
until it ends. Snapshots share ``self_fraction`` of the draws (uniformly over
the ``max_snapshots`` newest), the bots the rest; before the first snapshot
the bots get every draw. The pool counts the games each member was drawn
for and the learner's results against it, for the logs.

Specs: ``"greedy"``; ``"greedy,chain"`` (a mix, uniform per game);
``"greedy*3,chain"`` (a weighted mix: ``*W`` after a spec weights it, here 3 to 1, as a
league's meta-strategy does); ``"self"`` (self-play with the bots random, greedy and
chain); ``"self,chain"`` (self-play with the bots listed).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agents.specs.registry import split_specs
from agents.think.plan import ThinkPlan
from speed_env.policy import Policy
from speed_env.reaction import ReactionProfile
from speed_env.rules import Rules
from train.common.settings import specs, weighted
from train.common.think import charged_ms

SELF_PLAY_BOTS = ("random", "greedy", "chain")


@dataclass
class Member:
    """One opponent: a policy per rules group (a snapshot shares one across groups)."""

    name: str
    policies: list[Policy]
    kind: str
    """``"bot"`` or ``"snapshot"``."""
    reaction: ReactionProfile | None = None
    """The reaction profile its spec asked for (``chain@pro``), else the env's default."""
    think_ms: float = 0.0
    """The thinking charged to every play it makes (ms): its seat's profile moved this much
    later, as a tournament charges it (:func:`agents.think.plan.seat_profile`)."""
    weight: float = 1.0
    """Its share of the bots' draws, relative to the other bots' (``greedy*3``)."""
    active: bool = True
    """Drawn for new games (old snapshots retire but finish the games they are in)."""
    games: int = 0
    wins: int = 0
    losses: int = 0
    draws: int = 0
    window: dict[str, int] = field(
        default_factory=lambda: {"games": 0, "wins": 0, "losses": 0, "draws": 0}
    )


class OpponentPool:
    """Opponents drawn per game, acting on a batch of rows each with its own member."""

    def __init__(
        self,
        members: Sequence[Member],
        *,
        self_play: bool = False,
        self_fraction: float = 0.5,
        max_snapshots: int = 8,
    ) -> None:
        if not members and not self_play:
            raise ValueError("an opponent pool needs at least one opponent")
        if not 0.0 <= self_fraction <= 1.0:
            raise ValueError(f"self_fraction must lie in [0, 1], got {self_fraction!r}")
        if max_snapshots < 1:
            raise ValueError(f"max_snapshots must be >= 1, got {max_snapshots!r}")
        self.members: list[Member] = list(members)
        self.self_play = self_play
        self.self_fraction = self_fraction
        self.max_snapshots = max_snapshots

    # ------------------------------------------------------------ building
    @classmethod
    def from_spec(
        cls,
        spec: str | Policy | OpponentPool,
        rules: Sequence[Rules],
        seed: int = 0,
        think: ThinkPlan | None = None,
        **kwargs: Any,
    ) -> OpponentPool:
        """A pool from an opponent spec string (see the module docstring), a Policy, or a pool.

        Each bot is charged its thinking as ``think`` says (``None``: off, what it declares
        itself: ``@think=MS``, ``think_ms``, ``search``'s ``ms_per_world``), as a tournament
        charges it: the pool's games are those its scores are measured on.
        """
        if isinstance(spec, OpponentPool):
            return spec
        if not isinstance(spec, str):
            if not isinstance(spec, Policy):
                raise TypeError(
                    "opponent must be a spec string, a Policy or an OpponentPool, "
                    f"got {type(spec).__name__}"
                )
            name = type(spec).__name__
            ms = charged_ms(spec, name, think)
            return cls([Member(name, [spec] * len(rules), "bot", think_ms=ms)])
        import agents

        items = split_specs(spec)
        if not items:
            raise ValueError(f"opponent spec {spec!r} names no opponent")
        self_play = "self" in items
        bots = [weighted(s) for s in items if s != "self"]
        if self_play and not bots:
            # Self-play alone still needs opponents until the first snapshot exists.
            bots = [(bot, 1.0) for bot in SELF_PLAY_BOTS]
        members = []
        for k, (bot, weight) in enumerate(bots):
            parsed = agents.parse_spec(bot)
            policies = [
                # A seed per bot and rules group, kept to 31 bits for agents that want an int32.
                agents.make(bot, r, seed=(seed * 7919 + 97 * k + g) & 0x7FFFFFFF)
                for g, r in enumerate(rules)
            ]
            ms = charged_ms(policies[0], bot, think)
            members.append(Member(bot, policies, "bot", parsed.reaction, ms, weight))
        return cls(members, self_play=self_play, **kwargs)

    def add_snapshot(self, name: str, policy: Policy, n_groups: int) -> None:
        """Add a frozen copy of the learner; the oldest beyond ``max_snapshots`` retire."""
        self.members.append(Member(name, [policy] * n_groups, "snapshot"))
        snaps = [m for m in self.members if m.kind == "snapshot" and m.active]
        # Retired, not removed: member indices held by running games stay valid.
        for old in snaps[: max(0, len(snaps) - self.max_snapshots)]:
            old.active = False

    # ------------------------------------------------------------ playing
    def weights(self) -> np.ndarray:
        """The probability of each member being drawn for a new game."""
        w = np.zeros(len(self.members))
        bots = [i for i, m in enumerate(self.members) if m.active and m.kind == "bot"]
        snaps = [i for i, m in enumerate(self.members) if m.active and m.kind == "snapshot"]
        # Bots share by weight: equal weights give exactly 1/len(bots) (the draws of a
        # uniform mix are those of the pool before weights existed).
        bot_w = np.array([self.members[i].weight for i in bots])
        if snaps and bots:
            w[bots] = (1.0 - self.self_fraction) * bot_w / bot_w.sum()
            w[snaps] = self.self_fraction / len(snaps)
        elif bots:
            w[bots] = bot_w / bot_w.sum()
        elif snaps:
            w[snaps] = 1.0 / len(snaps)
        else:
            raise RuntimeError(
                "self-play pool without bots has no snapshot yet; add one before the first reset"
            )
        return w

    def sample(self, k: int, rng: np.random.Generator) -> np.ndarray:
        """Member indices for ``k`` new games (counted in the logs)."""
        if len(self.members) == 1:
            # What rng.choice(1, size=k, p=[1.0]) returns, drawing the same k uniforms from rng
            # (tests/train/test_vec_env_reference.py checks the stream), minus its ~50 us of checks.
            rng.random(k)
            who = np.zeros(k, np.int64)
        else:
            who = rng.choice(len(self.members), size=k, p=self.weights())
        self.count_dealt(who)
        return who

    def count_dealt(self, who: np.ndarray) -> None:
        """Count new games against members ``who``.

        :meth:`sample` does this after its draw; a caller that made the draw itself counts them
        here.
        """
        for i, count in enumerate(np.bincount(who, minlength=len(self.members)).tolist()):
            if count:
                self.members[i].games += count
                self.members[i].window["games"] += count

    def act(self, obs: np.ndarray, mask: np.ndarray, who: np.ndarray, group: int = 0) -> np.ndarray:
        """Each row's action from its member's policy (for rules group ``group``)."""
        if len(self.members) == 1:  # one opponent (the common case): no sorting of rows
            return np.asarray(self.members[0].policies[group].act(obs, mask)).reshape(-1)
        out = np.zeros(len(who), np.int64)
        for m in np.unique(who):
            rows = np.flatnonzero(who == m)
            out[rows] = np.asarray(
                self.members[m].policies[group].act(obs[rows], mask[rows])
            ).reshape(-1)
        return out

    def record(self, who: np.ndarray, outcome: np.ndarray) -> None:
        """Count finished games: ``outcome`` +1 learner won, -1 lost, 0 drawn or truncated."""
        for m, o in zip(who.tolist(), outcome.tolist(), strict=True):
            mem = self.members[m]
            key = "wins" if o > 0 else ("losses" if o < 0 else "draws")
            setattr(mem, key, getattr(mem, key) + 1)
            mem.window[key] += 1

    def report(self, reset: bool = True) -> dict[str, dict[str, float]]:
        """Per member since the last report.

        Share of games drawn, finished games, the learner's win rate.
        """
        # An empty window reports shares of 0, not a division by zero.
        total = sum(m.window["games"] for m in self.members) or 1
        out = {}
        for m in self.members:
            w = m.window
            done = w["wins"] + w["losses"] + w["draws"]
            if w["games"] == 0 and done == 0 and not m.active:
                continue
            out[m.name] = {
                "share": w["games"] / total,
                "finished": done,
                # A draw counts half a win.
                "win_rate": (w["wins"] + 0.5 * w["draws"]) / done if done else float("nan"),
                "active": float(m.active),
            }
            if reset:
                m.window = {"games": 0, "wins": 0, "losses": 0, "draws": 0}
        return out

    def describe(self) -> list[dict[str, Any]]:
        """The pool's make-up (JSON-ready): each member's kind, whether drawn now, its totals."""
        w = self.weights()
        return [
            {
                "name": m.name,
                "kind": m.kind,
                "active": m.active,
                "p": float(w[i]),
                "think_ms": m.think_ms,
                "games": m.games,
                "wins": m.wins,
                "losses": m.losses,
                "draws": m.draws,
            }
            for i, m in enumerate(self.members)
        ]


def agents_met(opponent: str, eval_opponents: str) -> list[str]:
    """Every agent a learner meets, once each: its training opponents (``opponent``, the
    self-play bots where it names only ``self``) and its evaluation bots (``eval_opponents``)."""
    bots = [weighted(s)[0] for s in specs(opponent) if s != "self"] or list(SELF_PLAY_BOTS)
    return list(dict.fromkeys([*bots, *specs(eval_opponents)]))
