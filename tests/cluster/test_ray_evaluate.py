"""``speed evaluate --backend ray`` gives the same card as the local backend (both games).

The cluster listens on 127.0.0.1 only and is stopped after the module (``local_cluster``).
"""

from __future__ import annotations

import json

import pytest
from ray_helpers import SKIP_REASON

ray = pytest.importorskip("ray", reason=SKIP_REASON)

from agents.evaluate.protocol import TIMING_KEYS  # noqa: E402
from speed_cli import main as cli  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "argv",
    [
        ["greedy", "--protocol", "1", "--games", "2"],
        ["vintage-greedy", "--game", "vintage", "--games", "4"],
    ],
    ids=["realtime", "vintage"],
)
def test_a_card_is_the_same_on_ray_as_locally(tmp_path, local_cluster, argv):
    assert cli(["evaluate", *argv, "--out", str(tmp_path / "local")]) == 0
    assert cli(["evaluate", *argv, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    cards = [json.loads((tmp_path / d / "report.json").read_text()) for d in ("local", "ray")]
    for card in cards:
        # the seal covers the whole card, timing included, so it differs with the timing
        for key in (*TIMING_KEYS, "card_hash"):
            card.pop(key)
    assert cards[0] == cards[1]
    assert cards[0]["manifest"]["games"] == int(argv[argv.index("--games") + 1])
