"""The newcomer's journey, read from docs/getting-started.md and run as the page shows it.

Each step of the page is a fenced ``bash`` or ``python`` block preceded by a marker comment,
invisible on the rendered page::

    <!-- journey step=train set="--timesteps 3000 --n-envs 8" writes=runs/first/model.json -->

``step`` names it; ``set`` makes sizes small (each flag's value replaced in every ``speed``
command of the block, or the flag added where the command lacks it; nothing else changes);
``writes`` lists the files the page says the step writes; ``skip`` marks a block the test does
not run (the setup commands: in CI the venv exists, and the ``check-install`` step checks it).
The commands are read from the page, so the page and this test cannot drift: a renamed flag,
a command that fails or a file not written fails here, naming the step.

Each ``speed`` line runs the ``speed`` entry point of this venv, each ``python`` line or block
this venv's Python, in one scratch folder (so ``runs/first`` of the training step is there for
the tournament and the resume after it), with the repository first on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "getting-started.md"
SPEED = Path(sys.executable).parent / "speed"

# The journey the issue asks CI to walk; the page must hold each step (a step removed from
# the page fails here instead of silently leaving the journey).
STEPS = (
    "install",
    "install-pip",
    "check-install",
    "first-game",
    "demo",
    "tournament",
    "train",
    "vs-bots",
    "resume",
    "reaction",
    "own-script",
)

MARKER = re.compile(r"<!--\s*journey\s+(.*?)-->", re.S)
FENCE = re.compile(r"```(bash|python)\n(.*?)```", re.S)


@dataclass
class Step:
    """One marked block of the page: what to run and what it must write."""

    name: str
    lang: str
    body: str
    sizes: dict[str, str] = field(default_factory=dict)
    writes: list[str] = field(default_factory=list)
    skip: bool = False


def parse_sizes(text: str) -> dict[str, str]:
    """``"--games 8 --n-envs 8"`` -> ``{"--games": "8", "--n-envs": "8"}``."""
    words = shlex.split(text)
    if len(words) % 2:
        raise ValueError(f"set=... must be flag/value pairs: {text!r}")
    return dict(zip(words[::2], words[1::2], strict=True))


def read_steps(page: str) -> list[Step]:
    """Every marked block of the page, in page order."""
    steps = []
    for marker in MARKER.finditer(page):
        fence = FENCE.search(page, marker.end())
        if fence is None or page[marker.end() : fence.start()].strip():
            raise ValueError(f"journey marker {marker.group(0)!r} is not followed by a block")
        options: dict[str, str] = {}
        skip = False
        for word in shlex.split(marker.group(1)):
            if word == "skip":
                skip = True
            else:
                key, _, value = word.partition("=")
                if key not in ("step", "set", "writes"):
                    raise ValueError(f"journey marker: unknown key {key!r} in {marker.group(0)!r}")
                options[key] = value
        steps.append(
            Step(
                name=options["step"],
                lang=fence.group(1),
                body=fence.group(2),
                sizes=parse_sizes(options.get("set", "")),
                writes=[w for w in options.get("writes", "").split(",") if w],
                skip=skip,
            )
        )
    return steps


def commands(body: str) -> list[list[str]]:
    """The commands of a bash block: comments dropped, ``\\`` continuations joined."""
    joined = re.sub(r"\\\n\s*", " ", body)
    out = []
    for line in joined.splitlines():
        words = shlex.split(line, comments=True)
        if words:
            out.append(words)
    return out


def made_small(argv: list[str], sizes: dict[str, str]) -> list[str]:
    """``argv`` with each flag of ``sizes`` set to its small value (added if absent)."""
    argv = list(argv)
    for flag, value in sizes.items():
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    return argv


def run_step(step: Step, cwd: Path) -> str | None:
    """Run one step in ``cwd``; ``None`` if it did what the page says, else what went wrong."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    if step.lang == "python":
        runs = [[sys.executable, "-c", step.body]]
    else:
        runs = []
        for argv in commands(step.body):
            if argv[0] == "speed":
                runs.append([str(SPEED), *made_small(argv[1:], step.sizes)])
            elif argv[0] == "python":
                runs.append([sys.executable, *argv[1:]])
            else:
                return f"{argv[0]!r}: only speed and python commands run here (mark it skip)"
    for argv in runs:
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900, check=False
        )
        if done.returncode != 0:
            shown = " ".join(argv[:1] + ["<block>"] if step.lang == "python" else argv)
            return f"`{shown}` exited {done.returncode}:\n{done.stderr[-2500:]}"
    missing = [w for w in step.writes if not (cwd / w).is_file()]
    if missing:
        return f"did not write {missing}"
    return None


def test_page_marks_every_step_of_the_journey() -> None:
    steps = read_steps(PAGE.read_text(encoding="utf-8"))
    names = [s.name for s in steps]
    assert sorted(names) == sorted(STEPS), f"page steps {names}, journey {STEPS}"
    assert [s.name for s in steps if s.skip] == ["install", "install-pip"]
    train = next(s for s in steps if s.name == "train")
    # The default path the suite once missed: the progress bar on, a budget that is not a
    # whole number of rollouts (n_steps 64 per env, so a rollout is 64 * n_envs decisions).
    argv = made_small(commands(train.body)[0][1:], train.sizes)
    assert "--no-progress" not in argv
    n_envs = int(argv[argv.index("--n-envs") + 1])
    assert int(argv[argv.index("--timesteps") + 1]) % (64 * n_envs) != 0


@pytest.mark.slow
def test_the_journey_runs_as_the_page_shows(tmp_path: Path) -> None:
    assert SPEED.is_file(), f"no `speed` entry point beside {sys.executable} (pip install -e .)"
    failed = {}
    for step in read_steps(PAGE.read_text(encoding="utf-8")):
        if not step.skip:
            problem = run_step(step, tmp_path)
            if problem:
                failed[step.name] = problem
    assert not failed, "steps that failed:\n" + "\n\n".join(
        f"[{name}] {problem}" for name, problem in failed.items()
    )
