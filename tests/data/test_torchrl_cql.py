"""examples/torchrl_minari_cql.py: TorchRL reads a Speed Minari dataset from the local folder
(no download), fits discrete CQL, and its agent plays legal actions and gets a card."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import speed_cli

pytest.importorskip("minari", reason="the [data] extra is not installed")
pytest.importorskip("torchrl", reason="the [examples] extra is not installed")

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "torchrl_minari_cql.py"
ID = "test/chain-greedy-v0"


@pytest.mark.slow
def test_cql_on_a_generated_dataset_plays_legal_actions_and_is_carded(tmp_path, monkeypatch):
    monkeypatch.setenv("MINARI_DATASETS_PATH", str(tmp_path / "datasets"))
    argv = ["data", "generate", "--agents", "chain,greedy", "--games", "4", "--minari", ID]
    assert speed_cli.main(argv) == 0
    out = subprocess.run(
        [sys.executable, str(SCRIPT), "--dataset", ID, "--out", str(tmp_path / "cql"),
         "--updates", "50", "--batch", "64"],
        cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
        text=True, timeout=600,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    (line,) = [x for x in out.stdout.splitlines() if x.startswith("RESULT ")]
    stats = json.loads(line.removeprefix("RESULT "))
    assert stats["updates"] == 50 and stats["transitions"] > 100
    monkeypatch.setenv("SPEED_CQL_WEIGHTS", str(tmp_path / "cql" / "q.pt"))
    card = tmp_path / "card"
    spec = f"py:{SCRIPT}:CQLAgent"
    argv = ["evaluate", spec, "--protocol", "1", "--games", "2", "--workers", "1"]
    argv += ["--out", str(card)]
    assert speed_cli.main(argv) == 0
    report = json.loads((card / "report.json").read_text(encoding="utf-8"))
    assert "trained on us rules only" in json.dumps(report["skipped"])  # other rules: refused
    opponents = report["results"]["rule_sets"]["us"]["opponents"]
    assert len(opponents) >= 6
    assert all(row["illegal_actions"] == 0 for row in opponents.values())
