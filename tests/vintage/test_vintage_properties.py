"""Properties over random games (hypothesis): cards are conserved after every step,
the mask is never empty, and observations stay inside their space."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from vintage_helpers import cards_on_table

from speed_env.vintage import raw_env


@settings(max_examples=40, deadline=None)
@given(
    num_players=st.integers(min_value=2, max_value=10),
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    may_draw=st.booleans(),
    rebuild=st.booleans(),
    action_seed=st.integers(min_value=0, max_value=2**32 - 1),
)
def test_every_step_conserves_the_cards(
    num_players: int, seed: int, may_draw: bool, rebuild: bool, action_seed: int
) -> None:
    # Actions come from a generator hypothesis seeds: drawing each through
    # hypothesis would cost more than the game itself.
    rng = np.random.default_rng(action_seed)
    env = raw_env(
        num_players=num_players, may_draw_when_able=may_draw, rebuild_pack=rebuild, max_turns=300
    )
    env.reset(seed=seed)
    everything = Counter(env.rules.pack.cards(env.rules.packs))
    space = env.observation_space("player_0")
    assert cards_on_table(env.game) == everything
    while not env.game.over:
        obs = env.observe(env.agent_selection)
        assert space.contains(obs)
        legal = [i for i, m in enumerate(obs["action_mask"]) if m]
        assert legal, "the mask is never empty"
        env.step(legal[rng.integers(len(legal))])
        assert cards_on_table(env.game) == everything
    assert all(env.terminations.values()) or all(env.truncations.values())
