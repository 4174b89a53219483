"""The line a run says of its budget when no ``--timesteps`` was given: minutes that end it are
the budget (``speed exploit --minutes``, a card's ``--exploit-minutes``), the recipe's default
only its cap (train/common/budget.py)."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("sb3_contrib")

DEFAULT = "the default budget (2,000,000)"


def test_minutes_are_said_as_the_budget_and_the_default_as_its_cap():
    from train.common.budget import budget_line

    said = budget_line(True, DEFAULT, 1.5)
    assert said is not None and said.startswith("training for 1.5 minute(s)")
    assert "at most the default budget (2,000,000) timesteps" in said
    assert "no --timesteps given" not in said
    assert budget_line(True, DEFAULT, None) == f"no --timesteps given: training {DEFAULT}"
    assert budget_line(False, "--timesteps as given", 1.5) is None


@pytest.mark.slow
def test_the_card_exploiters_run_says_its_minutes_not_the_default_budget(tmp_path, capsys):
    """What ``speed evaluate SPEC --exploit-minutes M`` trains: speed exploit's run given
    minutes and no timesteps (:class:`train.exploit_card.CardExploiter`)."""
    from agents.evaluate import card_folder  # noqa: F401  (registers the card games)
    from agents.evaluate.plan import make_plan
    from train.exploit import exploit
    from train.exploit_card import CardExploiter

    tiny = {"n_envs": 8, "n_steps": 32, "batch_size": 256, "n_epochs": 1, "net_arch": "16",
            "eval_games": 2, "progress": True}  # fmt: skip
    plan = make_plan("random", games=2, version=1)
    cfg = CardExploiter(minutes=0.001, overrides=tiny).settings(plan, tmp_path / "exploit")
    assert cfg.timesteps is None
    exploit(cfg)
    said = capsys.readouterr()
    out = said.out
    assert "training for 0.001 minute(s): the first whole rollout past them ends it" in out
    assert "no --timesteps given" not in out
    # Its bar counts timesteps against the minutes, not against the default budget it caps.
    assert re.search(r"train [\d,]+ steps .* of 00:00", said.err)
    assert "2,000,000" not in said.err and "eta" not in said.err
