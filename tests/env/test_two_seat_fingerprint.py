"""The two-seat game is frozen: a fingerprint of seeded games through the public API.

Every preset and rule option that existed before the Party Speed options
(``hand_size``, wild ``jokers`` in ``us``/``pagat``, ``players``) is played
through ``speed_env.parallel_env`` for a few seeded games with seeded random
legal actions, and everything a learner receives is hashed: each step's
observations, action masks, rewards and termination/truncation flags, per seat.
The expected digests below were computed on the tree before those options
(commit d6256fe, ``git archive d6256fe``) by this very file, so any change to a
two-seat game, observation, mask or reward, or to the env ids and spaces, fails
here. Run ``python tests/env/test_two_seat_fingerprint.py`` to print the
digests of the tree it imports.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import numpy as np
import pytest

import speed_env
from speed_env import registration

# name: (preset, options). The option sets of tests/env/test_differential.py, the
# games every earlier release could play.
OPTION_SETS: dict[str, tuple[str, dict[str, Any]]] = {
    "us": ("us", {}),
    "us-nowrap": ("us", {"wrap": False}),
    "us-same_rank": ("us", {"same_rank": True}),
    "us-lock": ("us", {"reserve_rule": "lock"}),
    "us-countdown0-idle150": ("us", {"stuck_countdown_ms": 0, "idle_flip_ms": 150}),
    "pagat": ("pagat", {}),
    "pagat-lock-idle": ("pagat", {"reserve_rule": "lock", "idle_flip_ms": 120}),
    "japanese": ("japanese", {}),
    "japanese-jokers": ("japanese", {"jokers": True}),
    "japanese-play_out": ("japanese", {"play_out": True}),
    "japanese-all": (
        "japanese",
        {
            "jokers": True,
            "play_out": True,
            "same_rank": True,
            "stack_layout": True,
            "multi_play": True,
            "wrap": False,
        },
    ),
}

GAMES = 25  # seeded games per option set and table
TABLES: tuple[tuple[int, Any], ...] = ((50, None), (100, 250))  # (tick_ms, reaction)
P_WAIT = 0.3  # each seat waits this often; else a uniformly random legal action

# Computed on d6256fe (the tree before hand_size and wild jokers) by this file.
EXPECTED: dict[str, str] = {
    "us": "63f3fec804d9871a8feb2150ff086205b67dffec03d62fb602f1b39510dcdccc",
    "us-nowrap": "1093433e5c27cd560d206906798574d49dfb4e09de3c0a99a00c9ee311aa8f38",
    "us-same_rank": "3f018444bdfe5f455450aa4c751320ac19cf5ee542e4abb2e5629d577ec0d7bd",
    "us-lock": "a16b5e0073a9ca8a5e6b25e2a4b3055c7cf235545c1b1c118b61e8da774662ec",
    "us-countdown0-idle150": "42624d16efc91ad2edc8e328f107ddb9f75417a86f517dc8c30d991a80512e35",
    "pagat": "d7a6b3197048d0c1cdb0ba5d65cba9206a5d764c945586699d2f472060508baa",
    "pagat-lock-idle": "0a0749e634f72eeb4f8958f8b9de90105f09120fc072b3c6a499dbd76af30c5c",
    "japanese": "442461ab78bdd492dd7527b3ee3817be6049e9d3ecaece0cda49b6ca5aac4b69",
    "japanese-jokers": "2abf6191d9e3a40c1268684600fef96599376dcc53c3d0e6d17af9bad5225843",
    "japanese-play_out": "e54d02525e717393152d2488cb98bde52f772e18c5b50cfdfa649be5dd56fc6f",
    "japanese-all": "8194f0fcbcf911adf1c7683432ce18b4c35e51ec393f03002f3eadd66f5b249e",
}
EXPECTED_IDS = "3bdb7fc5b519fcae2a32b7a0bba6317aea852acbf8adb10f45552fb00032bb15"


def play_digest(preset: str, options: dict[str, Any]) -> str:
    """sha256 of every (obs, mask, reward, terminated, truncated) of the seeded games."""
    h = hashlib.sha256()
    for tick_ms, reaction in TABLES:
        env = speed_env.parallel_env(preset, tick_ms=tick_ms, reaction=reaction, **options)
        for game in range(GAMES):
            seed = 1000 * tick_ms + game
            pick = np.random.default_rng(seed)
            obs, _ = env.reset(seed=seed)
            while env.agents:
                actions = {}
                for agent in env.agents:
                    o = obs[agent]
                    h.update(o["observation"].tobytes())
                    h.update(o["action_mask"].tobytes())
                    legal = np.flatnonzero(o["action_mask"])
                    wait = pick.random() < P_WAIT
                    actions[agent] = 0 if wait else int(pick.choice(legal))
                obs, rewards, terms, truncs, _ = env.step(actions)
                for agent in sorted(rewards):
                    h.update(f"{agent}:{rewards[agent]!r}:{terms[agent]}:{truncs[agent]};".encode())
            for agent in sorted(obs):  # the final observations too
                h.update(obs[agent]["observation"].tobytes())
        env.close()
    return h.hexdigest()


def ids_digest() -> str:
    """sha256 of the registered ids and, per preset, the agents and the spaces' sizes."""
    facts: dict[str, Any] = {
        "ids": registration.ENV_IDS,
        "pettingzoo": registration.PETTINGZOO_ENVS,
        "gymnasium": registration.GYMNASIUM_ENVS,
        "vector": registration.GYMNASIUM_VECTOR_ENVS,
    }
    for name, (preset, options) in OPTION_SETS.items():
        env = speed_env.parallel_env(preset, **options)
        agent = env.possible_agents[0]
        facts[name] = [
            env.possible_agents,
            env.metadata["name"],
            env.observation_space(agent)["observation"].shape,
            env.action_space(agent).n,
            speed_env.make_rules(preset, **options).to_dict(),
        ]
    text = json.dumps(facts, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()


@pytest.mark.parametrize("name", list(OPTION_SETS))
def test_two_seat_games_are_unchanged(name):
    preset, options = OPTION_SETS[name]
    assert play_digest(preset, options) == EXPECTED[name], (
        f"the two-seat games of {name} changed: observations, masks, rewards or flags differ "
        "from the tree before the Party Speed options (d6256fe)"
    )


def test_ids_spaces_and_rules_files_are_unchanged():
    assert ids_digest() == EXPECTED_IDS


if __name__ == "__main__":
    digests = {name: play_digest(*OPTION_SETS[name]) for name in OPTION_SETS}
    print(json.dumps({"games": digests, "ids": ids_digest()}, indent=4))
