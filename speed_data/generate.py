"""Play records from bot play: any two agent specs in ``Speed-v1``.

``speed data generate --agents chain,greedy --games N --rules us --minari ID``
plays ``N`` games of the first agent (the recorded seat, ``player_0``)
against the second inside ``Speed-v1``, game ``g`` reset with seed ``seed + g``,
and records each as :mod:`speed_data.records` does a person's (``seat_kind``
``"bot"``, no reaction times: a bot decides at once and the env draws its
latency from its profile). The records replay exactly in ``Speed-v1``
(:func:`speed_data.replay.compare`), like the table's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

import agents
from speed_data.recorder import GameRecorder, speed_v1_game_seed
from speed_env.deal import deal_from_seed
from speed_env.reaction import ReactionProfile
from speed_env.rules import Rules
from speed_env.single import SpeedGymEnv


class _Watched:
    """The opponent inside the env, its last action kept for the record."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.last = 0
        self.reaction = getattr(policy, "reaction", None)

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        actions = np.asarray(self.policy.act(obs, mask))
        self.last = int(actions.reshape(-1)[0])
        return actions


def play_records(
    specs: tuple[str, str],
    rules: Rules,
    games: int,
    *,
    seed: int = 0,
    tick_ms: int = 50,
    reaction: ReactionProfile,
    progress: Callable[[int], None] | None = None,
) -> Iterator[dict[str, Any]]:
    """The records of ``games`` games of ``specs[0]`` (recorded) against ``specs[1]``.

    A spec's own profile (``chain@pro``) is its seat's latency, else ``reaction``.
    ``progress(1)`` is called after each game.
    """
    me = agents.make(specs[0], rules, seed=seed)
    them = agents.make(specs[1], rules, seed=seed + 1)  # not the recorded seat's stream
    profiles = (agents.seat_reaction(me, reaction), agents.seat_reaction(them, reaction))
    opponent = _Watched(them)
    env = SpeedGymEnv(rules, opponent=opponent, seat=0, tick_ms=tick_ms, reaction=profiles)
    for g in range(games):
        game_seed = seed + g
        obs, info = env.reset(seed=game_seed)
        rec = GameRecorder(
            source="generate",
            seat_kind="bot",
            agent=specs[0],
            rules=rules,
            tick_ms=tick_ms,
            reaction=profiles,
            opponent=specs[1],
            seed=game_seed,
            # The deal Speed-v1's reset(seed=game_seed) makes: the env draws the engine's seed
            # from its own generator first, so the deal is not deal_from_seed(game_seed).
            deal=deal_from_seed(rules, speed_v1_game_seed(game_seed)).to_dict(),
        )
        rec.observe(obs, info["action_mask"])
        while True:
            action = int(me.act(obs[None], info["action_mask"][None])[0])
            obs, reward, term, trunc, info = env.step(action)
            rec.step(action, opponent.last, reward, obs, info["action_mask"])
            if term or trunc:
                break
        yield rec.finish(term, trunc, env.snapshot()["winner"])
        if progress is not None:
            progress(1)


__all__ = ["play_records"]
