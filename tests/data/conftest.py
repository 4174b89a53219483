"""A folder of a scripted person's recorded table games, shared by the data tests."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_player import play_game
from web_helpers import table_config

from speed_env.reaction import make_profile
from speed_table.session import GameSession

PERSON_RT = (300.0, 40.0, 100.0)
"""The scripted person's reaction times: ex-Gaussian mu, sigma, tau (ms)."""


@pytest.fixture(scope="session")
def person_games(tmp_path_factory):
    """Ten games of the scripted person against chain (900 ms), recorded; (folder, times sent)."""
    folder = tmp_path_factory.mktemp("person")
    cfg = table_config(
        seed=4, deal=None, agents=("you", "chain"), reaction=make_profile(900), record_dir=folder
    )
    session = GameSession(cfg)
    rng = np.random.default_rng(0)
    t, sent = 0.0, []
    for _ in range(10):
        t, _, times = play_game(session, t + 1.0, rng, PERSON_RT)
        sent += times
    return folder, sent
