"""examples/bots/my_bot.py, the user's bot of docs/how-strong.md: it loads as the spec the page
gives, from the repository's root, and plays what its docstring says on a real deal."""

from __future__ import annotations

import numpy as np
from helpers_run import ROOT

import agents
from speed_env.batch import BatchEnv

SPEC = "py:examples/bots/my_bot.py:Bot"


def test_the_pages_bot_plays_its_highest_legal_action(monkeypatch):
    monkeypatch.chdir(ROOT)  # the page's commands run from the repository's root
    bot = agents.make(SPEC, "us", seed=0)
    obs, mask = BatchEnv(16, "us").reset(seed=3)
    actions = np.asarray(bot.act(obs[0], mask[0]))
    legal = [np.flatnonzero(row) for row in mask[0]]
    assert actions.shape == (16,)
    assert [int(a) for a in actions] == [int(row.max()) for row in legal]
    assert any(a > 0 for a in actions)  # some deal offers a play from the start: it is made
