"""OpenSpiel's ISMCTS at the vintage table (``vintage-ismcts``, ``vintage-openspiel:ismcts``):
the same seed gives the same search, down to every world it redeals."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("pyspiel")

from agents.vintage import registry
from speed_env.openspiel.vintage_game import VintageSpeedState
from speed_env.vintage import raw_env

SPECS = [
    "vintage-ismcts:simulations=8",
    "vintage-ismcts:simulations=8,infer=1",
    "vintage-openspiel:ismcts",
]


def _play(spec: str, seed: int, monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[str]]:
    """A 3-seat game, every seat ``spec`` built with ``seed + seat``, for its first 12 choices:
    the actions, and every world the searches redealt (the state's text shows the hands)."""
    worlds: list[str] = []
    resample = VintageSpeedState.resample_from_infostate

    def spy(self: VintageSpeedState, *args: Any, **kwargs: Any) -> VintageSpeedState:
        world = resample(self, *args, **kwargs)
        worlds.append(str(world))
        return world

    monkeypatch.setattr(VintageSpeedState, "resample_from_infostate", spy)
    seats = [registry.make(spec, seed=seed + p) for p in range(3)]
    env = raw_env(num_players=3)
    env.reset(seed=11)
    actions: list[int] = []
    while len(actions) < 12:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            break
        view = env.observe(agent)
        p = env.agents.index(agent)
        mask = view["action_mask"]
        action = int(seats[p].act(view["observation"][None], mask[None])[0])
        if np.count_nonzero(mask) > 1:
            actions.append(action)
        env.step(action)
    monkeypatch.undo()
    return actions, worlds


@pytest.mark.parametrize("spec", SPECS)
def test_ismcts_with_the_same_seed_redeals_the_same_worlds_and_plays_the_same(
    spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _play(spec, 5, monkeypatch)
    assert first[1], "the search redealt no world: the spy saw nothing"
    assert _play(spec, 5, monkeypatch) == first


@pytest.mark.slow
def test_a_tournament_with_both_ismcts_seats_repeats_itself_file_for_file(tmp_path) -> None:
    """Two runs of one seeded tournament, into fresh folders, write the same results and log."""
    from speed_cli import main

    agents = (
        "vintage-greedy,vintage-tactician,vintage-ismcts:simulations=8,vintage-openspiel:ismcts"
    )
    runs = [tmp_path / "first", tmp_path / "second"]
    for out in runs:
        assert main(["tournament", "--game", "vintage", "--players", "3", "--agents", agents,
                     "--games", "4", "--seed", "3", "--workers", "1", "--out", str(out)]
                    ) == 0  # fmt: skip
    for name in ("results.csv", "chunks.jsonl"):
        assert (runs[0] / name).read_bytes() == (runs[1] / name).read_bytes(), name
