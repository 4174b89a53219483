"""Search targets for vintage expert iteration on the ray backend: the same file as locally.

The cluster listens on 127.0.0.1 only and is stopped by the module that started it.
"""

from __future__ import annotations

import pytest
from ray_helpers import SKIP_REASON

ray = pytest.importorskip("ray", reason=SKIP_REASON)

from agents.runtime.jobs import Backend  # noqa: E402
from train.vintage.expert_targets import TargetSettings, generate, write_targets  # noqa: E402

pytestmark = pytest.mark.slow


def test_search_targets_are_the_same_file_on_ray_as_locally(tmp_path, local_cluster):
    # Three chunks (2 + 2 + 1 games), run as Ray tasks in whatever order they finish.
    settings = TargetSettings(games=5, chunk_games=2, worlds=4, seed=11)
    files = []
    for name, backend in (("local", None), ("ray", Backend("ray"))):
        seen: list[tuple[int, int]] = []
        targets, complete = generate(
            settings, workers=2, backend=backend, progress=lambda d, t, s=seen: s.append((d, t))
        )
        assert complete and seen[-1] == (3, 3)
        files.append(write_targets(tmp_path / name / "targets.safetensors", targets, settings))
    assert len(targets) > 0
    assert files[0].read_bytes() == files[1].read_bytes()
