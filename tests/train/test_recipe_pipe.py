"""``python -m train.<recipe> --help | head``: a reader of stdout gone ends a recipe quietly with
141, as it does ``speed`` (``agents.runtime.entry.run_main``, which the recipes run under)."""

from __future__ import annotations

import pytest
from helpers_entry import help_into_a_reader_gone

RECIPES = ["train.vintage_value", "train.vintage_expert", "train.bc_data"]
"""The recipes whose help fits stdout's buffer, so the reader's absence is met at run_main's
flush. ``train.ppo``'s and ``train.vintage_ppo``'s help outgrow it: argparse's own write then
meets the closed pipe and argparse ignores the error (exit 0, no traceback)."""


@pytest.mark.slow  # one subprocess importing the recipes (torch, SB3): ~5 s
def test_a_recipe_into_a_reader_gone_ends_quietly_with_141():
    codes, noise = help_into_a_reader_gone(*RECIPES)
    assert (codes, noise) == (dict.fromkeys(RECIPES, 141), [])
