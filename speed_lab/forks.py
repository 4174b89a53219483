"""Stop ``chain``-vs-``chain`` games at chosen states and continue them several ways.

Shared by ``doomed_race``, ``rollout_gap`` and ``search_gap``, with the flags
and the decision picker they share. A fork is one game's
state record (the engine's structured row), its latency parameters and both
seats' chosen actions at that tick. Continuation ``c`` of a fork re-seeds the
game's random streams with ``c`` (the same for every way of continuing it),
so two ways of one continuation share their latencies, ties and rebuilds
(common random numbers) and their difference is measured, not drowned in the
noise of whole games.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

import agents
from agents.stats import mean_interval
from speed_env.game import Games
from speed_env.rules import Rules


@dataclass(frozen=True)
class Fork:
    """One stopped game: state, latencies, seat 0's observation and mask, both chosen actions."""

    record: np.ndarray
    lat: np.ndarray
    obs: np.ndarray
    mask: np.ndarray
    actions: tuple[int, int]


Pick = Callable[[np.ndarray, np.ndarray, int], np.ndarray]
"""``pick(obs, mask, tick)`` -> bool per game: stop seat 0 here (seat-major ``obs``, ``mask``)."""


def study_parser(doc: str | None, games: int, seed: int) -> argparse.ArgumentParser:
    """The flags every fork study takes: ``--rules``, ``--games`` (games played) and ``--seed``."""
    parser = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rules", default="us")
    parser.add_argument("--games", type=int, default=games)
    parser.add_argument("--seed", type=int, default=seed)
    return parser


def add_stop_chance(parser: argparse.ArgumentParser) -> None:
    """``--stop-chance``: the chance per decision tick that :func:`random_decisions` stops there."""
    parser.add_argument(
        "--stop-chance",
        type=float,
        default=0.04,
        help="chance per decision tick to stop a game there",
    )


def random_decisions(rng: np.random.Generator, stop_chance: float) -> Pick:
    """A :data:`Pick` that stops seat 0 at random decisions (two or more legal actions)."""

    def pick(obs: np.ndarray, mask: np.ndarray, tick: int) -> np.ndarray:
        return (mask[0].sum(axis=1) >= 2) & (rng.random(mask.shape[1]) < stop_chance)

    return pick


def points_interval(scores: np.ndarray, digits: int = 2) -> str:
    """Mean of per-state score differences and its 95% interval, in points of win rate."""
    mean, low, high = mean_interval(scores)
    return f"{100 * mean:+.{digits}f} points [{100 * low:+.{digits}f}, {100 * high:+.{digits}f}]"


def find_forks(rules: Rules, games: int, pick: Pick, seed: int) -> list[Fork]:
    """Play ``games`` chain-vs-chain games; keep each game's first state that ``pick`` selects."""
    g = Games(games, rules)
    g.deal_seeded(np.arange(games), np.arange(games) + seed)
    bots = [agents.make("chain", rules, seed=seed + p) for p in range(2)]
    taken = np.zeros(games, bool)
    found = []
    tick = 0
    while not g.over.all():
        obs, mask = g.observe()
        actions = np.stack([bots[p].act(obs[p], mask[p]) for p in range(2)])
        chosen = pick(obs, mask, tick) & ~taken & ~g.over
        for i in np.flatnonzero(chosen):
            found.append(
                Fork(
                    g.state[i].copy(),
                    g.lat[i].copy(),
                    obs[0, i].copy(),
                    mask[0, i].copy(),
                    (int(actions[0, i]), int(actions[1, i])),
                )
            )
        taken |= chosen
        g.step(actions)
        tick += 1
    return found


def continue_forks(
    rules: Rules, forks: list[Fork], first: list[int], continuation: list[int], seed: int
) -> np.ndarray:
    """Seat 0's score (1 win, ½ draw, 0 loss) of each requested continuation.

    Row ``j`` continues ``forks[j]`` with seat 0 playing ``first[j]`` on the
    stopped tick (seat 1 its chosen action) and ``chain`` for both after,
    under random streams number ``continuation[j]``.
    """
    n = len(forks)
    g = Games(n, rules)
    actions = np.zeros((2, n), np.int64)
    for j, (fork, a, c) in enumerate(zip(forks, first, continuation, strict=True)):
        g.state[j] = fork.record
        g.lat[j] = fork.lat
        g.state["seed"][j] = (int(fork.record["seed"]) * 1_000 + c + seed) % 2**63
        actions[:, j] = (a, fork.actions[1])
    bots = [agents.make("chain", rules, seed=seed + 10 + p) for p in range(2)]
    obs = np.zeros((2, n, g.obs_dim), np.float32)
    mask = np.zeros((2, n, g.n_actions), np.int8)
    live = np.arange(n)
    while True:
        g.step(actions)
        live = live[~g.over[live]]
        if live.size == 0:
            break
        g.observe_games(live, obs, mask)
        actions = np.zeros((2, n), np.int64)
        for p in range(2):
            actions[p, live] = bots[p].act(obs[p, live], mask[p, live])
    w = g.winner.astype(np.int64)
    return np.where(w == 0, 1.0, np.where(w == 1, 0.0, 0.5))
