"""The newcomer's journey, read from docs/getting-started.md and run as the page shows it.

Each step of the page is a fenced ``bash`` or ``python`` block preceded by a marker comment,
invisible on the rendered page::

    <!-- journey step=train set="--timesteps 3000 --n-envs 8" writes=runs/first/model.json -->

``step`` names it; ``set`` makes sizes small (each flag's value replaced in every ``speed``
command of the block, or the flag added where the command lacks it; nothing else changes);
``writes`` lists the files the page says the step writes; ``skip`` marks a block the test does
not run (the setup commands: in CI the venv exists, and the ``check-install`` step checks it);
``shell-setup`` marks the block the page says to run in each new shell (activating the venv).
The commands are read from the page, so the page and this test cannot drift: a renamed flag,
a command that fails or a file not written fails here, naming the step.

Each step runs as a user runs it: in a fresh ``bash`` holding only what the page says, in one
scratch folder that stands in for the clone (so ``runs/first`` of the training step is there
for the tournament and the resume after it). The shell starts with a plain system ``PATH`` (no
venv on it, no ``speed``), then runs the page's ``shell-setup`` lines, then the step: so a page
that forgot to say how ``speed`` gets on ``PATH`` fails here with "command not found". The
scratch folder's ``.venv`` is the venv running this test (a link), and ``PYTHONPATH`` names the
repository under test (in CI the venv is an editable install of it, so this changes nothing
there; a helper's worktree tests its own code through it).
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

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "getting-started.md"
VENV = Path(sys.prefix)
SPEED = VENV / "bin" / "speed"
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""A fresh login shell's PATH: no venv on it (the page must say how ``speed`` gets there)."""

# The journey a new user walks, which CI walks too; the page must hold each step (a step
# removed from the page fails here instead of silently leaving the journey).
STEPS = (
    "install",
    "activate",
    "install-pip",
    "check-install",
    "first-game",
    "demo",
    "tournament",
    "train",
    "vs-bots",
    "resume",
    "reaction",
    "notebooks",
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
    shell_setup: bool = False
    """Run at the start of every later step's shell (the page says: in each new shell)."""


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
        skip = shell_setup = False
        for word in shlex.split(marker.group(1)):
            if word == "skip":
                skip = True
            elif word == "shell-setup":
                shell_setup = True
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
                shell_setup=shell_setup,
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


def fresh_shell_env() -> dict[str, str]:
    """A new terminal's environment: a system ``PATH`` with no ``speed`` on it, ``HOME``, and
    ``PYTHONPATH`` naming the repository under test (module docstring)."""
    path = ":".join(d for d in SYSTEM_PATH.split(":") if not (Path(d) / "speed").exists())
    env = {"PATH": path, "HOME": os.environ.get("HOME", "/tmp"), "LANG": "C.UTF-8"}
    return env | {"PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1", "MPLBACKEND": "Agg"}


def scratch_clone(tmp_path: Path) -> Path:
    """The folder the steps run in, standing in for the clone: its ``.venv`` is this venv, its
    ``notebooks`` the repository's."""
    if not (VENV / "bin" / "activate").is_file():
        pytest.skip(f"the journey runs in a venv, as `make setup` makes (not {VENV})")
    (tmp_path / ".venv").symlink_to(VENV, target_is_directory=True)
    (tmp_path / "notebooks").symlink_to(ROOT / "notebooks", target_is_directory=True)
    return tmp_path


def script(step: Step, cwd: Path) -> str | None:
    """The step as the shell lines a user types, sizes made small (None: it cannot be run)."""
    if step.lang == "python":
        (cwd / f"{step.name}.py").write_text(step.body, encoding="utf-8")
        return f"python {step.name}.py"
    lines = []
    for argv in commands(step.body):
        if argv[0] == "speed":
            argv = ["speed", *made_small(argv[1:], step.sizes)]
        elif argv[0] not in ("python", "jupyter"):
            return None
        lines.append(shlex.join(argv))
    return "\n".join(lines)


def run_step(step: Step, cwd: Path, setup: str) -> str | None:
    """Run one step in a fresh shell in ``cwd`` after the page's ``setup`` lines; ``None`` if it
    did what the page says, else what went wrong."""
    lines = script(step, cwd)
    if lines is None:
        return "only speed, python and jupyter commands run here (mark the block skip)"
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-e", "-c", f"{setup}\n{lines}"],
        cwd=cwd,
        env=fresh_shell_env(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0:
        return f"`{lines}` exited {done.returncode}:\n{done.stderr[-2500:]}"
    missing = [w for w in step.writes if not (cwd / w).is_file()]
    if missing:
        return f"did not write {missing}"
    return None


def walk(steps: list[Step], cwd: Path, only: set[str] | None = None) -> dict[str, str]:
    """Run the page's steps in order (``only``: just those), each in a fresh shell that first
    runs the ``shell-setup`` blocks above it; the steps that failed, with what went wrong."""
    failed = {}
    setup = ""
    for step in steps:
        if step.shell_setup:
            setup += step.body
        elif not step.skip and (only is None or step.name in only):
            problem = run_step(step, cwd, setup)
            if problem:
                failed[step.name] = problem
    return failed


def test_page_marks_every_step_of_the_journey() -> None:
    steps = read_steps(PAGE.read_text(encoding="utf-8"))
    names = [s.name for s in steps]
    assert sorted(names) == sorted(STEPS), f"page steps {names}, journey {STEPS}"
    assert [s.name for s in steps if s.skip] == ["install", "install-pip"]
    # the venv is activated as the page says, before the first step that runs `speed`
    assert [s.name for s in steps if s.shell_setup] == ["activate"]
    assert names.index("activate") < names.index("check-install")
    train = next(s for s in steps if s.name == "train")
    # The default path the suite once missed: the progress bar on, a budget that is not a
    # whole number of rollouts (n_steps 64 per env, so a rollout is 64 * n_envs decisions).
    argv = made_small(commands(train.body)[0][1:], train.sizes)
    assert "--no-progress" not in argv
    n_envs = int(argv[argv.index("--n-envs") + 1])
    assert int(argv[argv.index("--timesteps") + 1]) % (64 * n_envs) != 0


def _out(argv: list[str]) -> str:
    return argv[argv.index("--out") + 1]


def test_the_readme_trains_and_measures_where_the_journey_does() -> None:
    """The README's training example and the page's once wrote to different folders; both
    train into one run folder and pit its model against the bots in the folder the training
    run itself suggests (``OUT/tournament``)."""
    steps = {s.name: s for s in read_steps(PAGE.read_text(encoding="utf-8"))}
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [commands(b) for b in re.findall(r"```bash\n(.*?)```", readme, re.S)]
    lines = [argv for block in blocks for argv in block if argv[0] == "speed"]
    train = next(a for a in lines if a[1:3] == ["train", "realtime"])
    vs = next(a for a in lines if a[1] == "tournament" and any("ppo:" in w for w in a))
    run = _out(commands(steps["train"].body)[0])
    assert _out(train) == run
    assert _out(vs) == _out(commands(steps["vs-bots"].body)[0]) == f"{run}/tournament"


def test_the_first_check_works_in_a_fresh_shell_as_the_page_says(tmp_path: Path) -> None:
    """The install check (``speed agents``) in a new terminal after the page's setup lines: it
    once failed for a newcomer with "command not found" (no page said to activate .venv)."""
    cwd = scratch_clone(tmp_path)
    steps = read_steps(PAGE.read_text(encoding="utf-8"))
    assert walk(steps, cwd, only={"check-install"}) == {}
    # without the page's setup lines the same shell has no `speed`: the check can fail
    check = next(s for s in steps if s.name == "check-install")
    problem = run_step(check, cwd, setup="")
    assert problem is not None and "speed: command not found" in problem


@pytest.mark.slow
def test_the_journey_runs_as_the_page_shows(tmp_path: Path) -> None:
    assert SPEED.is_file(), f"no `speed` entry point in {VENV} (pip install -e .)"
    failed = walk(read_steps(PAGE.read_text(encoding="utf-8")), scratch_clone(tmp_path))
    assert not failed, "steps that failed:\n" + "\n\n".join(
        f"[{name}] {problem}" for name, problem in failed.items()
    )
