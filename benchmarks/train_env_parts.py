"""Where the training env's time goes inside a real training run.

Runs ``speed train`` with the given arguments and reads, on the main thread's
CPU clock (so other jobs on the machine inflate it less than the wall clock),
the env's whole step (``SpeedVecEnv.step_wait``, the run's own
``throughput.env.step_wait_cpu_s``) and times two parts of it: the
compiled skip loop (``train.vec_env.skip_loop.play_forced``) and the restarts of the
games that ended (``SpeedVecEnv._finish``); the rest is the Python and numpy
around them. The run itself is the usual one (the timers add a few
microseconds a step).

Run: python benchmarks/train_env_parts.py -- --rules japanese,us --opponent chain
--timesteps 600000 --n-envs 256 --torch-threads 2 --no-progress --out runs/parts
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from vec_env import timed_parts

from speed_cli import main as speed


def run(train_args: list[str]) -> dict[str, float]:
    """``speed train`` with ``train_args`` (they must name ``--out``); the env's CPU seconds:
    its step (the env's own ``step_wait_cpu_s``), the skip loop, the restarts, and the
    decisions the run took."""
    with timed_parts() as parts:
        code = speed(["train", *train_args])
    if code:
        raise SystemExit(code)
    out = Path(train_args[train_args.index("--out") + 1])
    env = json.loads((out / "summary.json").read_text())["throughput"]["env"]
    return {"step": env["step_wait_cpu_s"], **parts, "decisions": env["decisions"]}


def main() -> None:
    """Print the env's CPU split of the run given after ``--``."""
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if "--out" not in args:
        raise SystemExit("give speed train's arguments after --, --out included")
    r = run(args)
    rest = r["step"] - r["skip_loop"] - r["restarts"]
    print(
        f"env step CPU {r['step']:.2f} s = skip loop {r['skip_loop']:.2f} + restarts "
        f"{r['restarts']:.2f} + rest {rest:.2f}; {1e6 * r['step'] / r['decisions']:.2f} us a "
        "decision"
    )


if __name__ == "__main__":
    main()
