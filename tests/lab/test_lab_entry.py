"""``python -m speed_lab.<study>`` ends as ``speed`` does (``agents.runtime.entry.run_main``): a
reader of stdout gone ends it quietly with 141, a SIGTERM stops it as Ctrl-C does, each with
one line and no traceback."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import pytest
from helpers_entry import help_into_a_reader_gone, python

import speed_lab

STUDIES = sorted(
    m.name
    for m in pkgutil.iter_modules(speed_lab.__path__)
    if "__main__" in (Path(speed_lab.__path__[0]) / f"{m.name}.py").read_text()
)

SIGNAL_WHILE_IT_PLAYS = """
import os, runpy, signal, sys
import speed_env
signal.signal(signal.SIGINT, signal.default_int_handler)  # as a terminal's Ctrl-C raises it
make_rules = speed_env.make_rules
signum = int(sys.argv[1])

def signalled(*args, **kwargs):
    os.kill(os.getpid(), signum)
    return make_rules(*args, **kwargs)

speed_env.make_rules = signalled  # the study's first call into the kit, under its main
sys.argv = ["idle_waiter", "--deals", "2"]
runpy.run_module("speed_lab.idle_waiter", run_name="__main__")
"""


def test_the_studies_are_found():
    assert {"clone_sample_size", "idle_waiter", "search_departures"} <= set(STUDIES)


@pytest.mark.slow  # one subprocess importing every study (torch among them): ~5 s
def test_every_study_into_a_reader_gone_ends_quietly_with_141():
    codes, noise = help_into_a_reader_gone(*(f"speed_lab.{name}" for name in STUDIES))
    assert (codes, noise) == ({f"speed_lab.{name}": 141 for name in STUDIES}, [])


@pytest.mark.parametrize(
    ("signum", "status", "said"),
    [(2, 130, "interrupted"), (15, 143, "interrupted (SIGTERM)")],
    ids=["ctrl-c", "sigterm"],
)
def test_a_study_stopped_by_a_signal_says_so_in_one_line(signum, status, said):
    done = python(SIGNAL_WHILE_IT_PLAYS, str(signum))
    assert (done.returncode, done.stderr) == (status, f"{said}\n")
