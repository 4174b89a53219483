"""The league's agent: ``league:DIR``, a member drawn per game from the final meta-strategy."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
from agents.errors import AgentSpecError
from agents.league.mixture import MixturePolicy
from agents.league.record import FORMAT, LEAGUE_FILE
from agents.tournament import realtime
from speed_env.rules import make_rules


class Says:
    """A member that always plays action ``k`` (so a row's action names its member)."""

    def __init__(self, k: int) -> None:
        self.k = k

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return np.full(len(obs), self.k, np.int64)


def members_of(policy: MixturePolicy, rows: int) -> np.ndarray:
    return policy.act(np.zeros((rows, 3), np.float32), np.ones((rows, 3), np.int8))


def test_each_row_draws_its_member_repeatably_by_weight():
    weights = [0.2, 0.0, 0.8]
    first = members_of(MixturePolicy([Says(0), Says(1), Says(2)], weights, seed=5), 4000)
    again = members_of(MixturePolicy([Says(0), Says(1), Says(2)], weights, seed=5), 4000)
    other = members_of(MixturePolicy([Says(0), Says(1), Says(2)], weights, seed=6), 4000)
    assert np.array_equal(first, again) and not np.array_equal(first, other)
    shares = np.bincount(first, minlength=3) / 4000
    assert shares[1] == 0.0  # a member of weight 0 is never drawn
    assert shares[0] == pytest.approx(0.2, abs=0.03) and shares[2] == pytest.approx(0.8, abs=0.03)


def test_a_row_keeps_its_member_whatever_the_batch_size():
    mixture = MixturePolicy([Says(0), Says(1)], [0.5, 0.5], seed=11)
    whole = members_of(mixture, 64)
    assert np.array_equal(members_of(mixture, 64), whole)  # the same games, the same members
    for rows in (1, 7, 40):  # a smaller batch is the first rows of a larger one
        small = MixturePolicy([Says(0), Says(1)], [0.5, 0.5], seed=11)
        assert np.array_equal(members_of(small, rows), whole[:rows])
    assert 0 < whole.sum() < 64  # both members play


def write_league(folder, weights, members=("random", "greedy", "chain")):
    folder.mkdir(parents=True, exist_ok=True)
    record = {
        "format": FORMAT,
        "format_version": 1,
        "members": [{"name": m, "spec": m, "path": None, "round": 0} for m in members],
        "meta": {"weights": list(weights), "value": 0.0, "method": "nash"},
    }
    (folder / LEAGUE_FILE).write_text(json.dumps(record))
    return folder


def test_league_spec_plays_the_meta_strategy_and_tournaments_repeat(tmp_path):
    folder = write_league(tmp_path / "lg", [0.0, 0.5, 0.5])
    bot = agents.make(f"league:{folder}", "us", seed=1)
    assert isinstance(bot, MixturePolicy) and bot.names == ["greedy", "chain"]  # random: weight 0
    settings = realtime.Settings(
        agents=(f"league:{folder}", "random"), games=40, rules=make_rules("us"), seed=3
    )
    first, _ = realtime.run(settings)
    again, _ = realtime.run(settings, workers=2)
    assert [r.outcomes for r in first] == [r.outcomes for r in again]
    assert sum(r.wins_a for r in first) > 20  # greedy and chain beat random (64%, 77% here)


def test_league_members_differ_between_games(tmp_path):
    """A league of ``random`` and ``greedy`` half and half: its games are a mix of both."""
    folder = write_league(tmp_path / "lg", [0.5, 0.5], ("random", "greedy"))
    bot = agents.make(f"league:{folder}", "us", seed=2)
    drawn = bot.member_of(200)
    assert set(drawn.tolist()) == {0, 1}


def test_a_bad_league_folder_is_refused_naming_the_file(tmp_path):
    with pytest.raises(AgentSpecError, match=r"league.json does not exist"):
        agents.make(f"league:{tmp_path / 'none'}", "us")
    # league alone (or league:) plays the bundled league: tests/agents/test_league_bundle.py
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / LEAGUE_FILE).write_text("{not json")
    with pytest.raises(AgentSpecError, match=r"bad league spec .*cannot be read"):
        agents.make(f"league:{tmp_path / 'bad'}", "us")
    write_league(tmp_path / "short", [1.0])
    with pytest.raises(AgentSpecError, match=r"meta\.weights must hold one weight per member"):
        agents.make(f"league:{tmp_path / 'short'}", "us")


def test_a_member_path_outside_the_league_folder_is_refused(tmp_path):
    """A record is data: its members' model files lie inside its folder, never elsewhere."""
    from agents.model_io.kit_model import BUNDLED, copy_model

    copy_model(BUNDLED.parent / "selfplay" / "selfplay.json", tmp_path / "elsewhere" / "m.json")
    for path in ("../elsewhere/m.json", str(tmp_path / "elsewhere" / "m.json")):
        folder = write_league(tmp_path / "lg", [0.5, 0.5], ("random", "r1"))
        record = json.loads((folder / LEAGUE_FILE).read_text())
        record["members"][1] |= {"spec": f"ppo:{path}", "path": path}
        (folder / LEAGUE_FILE).write_text(json.dumps(record))
        with pytest.raises(AgentSpecError, match=r"member 1 path .* is not a file inside"):
            agents.make(f"league:{folder}", "us")
