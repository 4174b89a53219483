"""Time to target: how long the default real-time recipe takes to beat random, greedy and chain.

For each rules preset it runs the default recipe exactly as a user would
(``speed train realtime --rules R --out DIR``, any extra flags after ``--``),
in a child process, and notes the wall time since the command started and the
child's CPU time (user + sys, from ``/proc``) when each checkpoint appears.
Once training ends (so that nothing else shares the CPU with it), every
checkpoint is played against ``random``, ``greedy`` and ``chain`` on paired
deals (``agents.tournament.realtime`` through the recipe's own scoring,
``train.ppo.score``: each deal twice, seats swapped). A target is *reached*
at the first checkpoint where:

- beats ``random`` / beats ``greedy``: the 95% interval's low end is above 50%;
- reaches ``chain``: the interval reaches 50% (its high end is at least 50%).

It writes ``OUT/RULES/`` (the run), ``OUT/checkpoints.csv`` (when each
checkpoint appeared), ``OUT/curve.csv`` and ``OUT/curve.png`` (win rate against
each bot by decisions and wall time) and prints the table in Markdown, with
the machine, its load average and the command. Re-running with the same
``--out`` reuses a finished run and the evaluations already in ``curve.csv``
(resumable: kill it during the evaluations and run it again).

Run (about 10-25 min a preset on a quiet 2-core machine, evaluations included):

    python benchmarks/time_to_target.py --rules us,japanese --out runs/time_to_target
    python benchmarks/time_to_target.py --rules us --games 400 -- --timesteps 500000
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

TARGETS = (("random", "beats random", "low"), ("greedy", "beats greedy", "low"))
CHAIN = ("chain", "reaches chain", "high")
BOTS = ("random", "greedy", "chain")
STAMP_FIELDS = ("rules", "decisions", "wall_s", "cpu_s", "load")
CURVE_FIELDS = (
    "rules",
    "decisions",
    "wall_s",
    "cpu_s",
    "opponent",
    "games",
    "win_rate",
    "ci_low",
    "ci_high",
)


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of process ``pid`` and its waited-for children (``/proc``), or
    None where ``/proc`` cannot tell."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    ticks = sum(int(x) for x in fields[11:15])  # utime stime cutime cstime
    return ticks / os.sysconf("SC_CLK_TCK")


def train(rules: str, out: Path, extra: list[str], log: Path, stamps: Path) -> list[dict[str, Any]]:
    """Run the recipe for ``rules`` into ``out`` and note each checkpoint's wall and CPU time
    (polled every half second; a checkpoint is noted, and appended to ``stamps``, when its
    ``model.json`` appears, so that a run stopped part-way keeps what it reached)."""
    argv = [sys.executable, "-m", "speed_cli", "train", "realtime", "--rules", rules]
    argv += ["--out", str(out), "--no-progress", *extra]
    t0 = time.perf_counter()
    seen: dict[int, dict[str, Any]] = {}
    last_cpu = 0.0
    with log.open("w") as sink:
        child = subprocess.Popen(argv, stdout=sink, stderr=subprocess.STDOUT)
        while True:
            done = child.poll() is not None
            cpu = cpu_seconds(child.pid) if not done else None
            last_cpu = cpu if cpu is not None else last_cpu
            for path in sorted((out / "checkpoints").glob("step_*.json")):
                steps = int(path.stem.split("_")[1])
                if steps not in seen:
                    wall = time.perf_counter() - t0
                    seen[steps] = {"decisions": steps, "wall_s": wall, "cpu_s": last_cpu}
                    row = {"rules": rules, **seen[steps], "load": os.getloadavg()[0]}
                    append_csv(stamps, [row], STAMP_FIELDS)
            if done:
                break
            time.sleep(0.5)
    if child.returncode != 0:
        raise SystemExit(
            f"training {rules} failed (exit {child.returncode}); see {log}; the checkpoints it "
            f"reached are in {stamps}: --no-train evaluates them"
        )
    return [seen[k] for k in sorted(seen)]


def evaluate(model: Path, rules: str, games: int, workers: int, seed: int) -> list[dict[str, Any]]:
    """``model`` against each bot on ``games`` paired deals: the recipe's own scoring rows."""
    from train.ppo import Config, parse_rules_options, score

    cfg = Config(
        rules=rules,
        eval_games=games,
        eval_opponents=",".join(BOTS),
        eval_workers=workers,
        eval_seed=seed,
    )
    return score(model, cfg, parse_rules_options(cfg))


def read_csv(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV file (none if it does not exist)."""
    if not path.exists():
        return []
    with path.open() as f:
        return list(csv.DictReader(f))


def append_csv(path: Path, rows: list[dict[str, Any]], fields: tuple[str, ...]) -> None:
    """Append ``rows`` to a CSV file, writing its header first if it is new."""
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fields, extrasaction="ignore")
        if new:
            writer.writeheader()
        writer.writerows(rows)


def reached(curve: list[dict[str, str]], rules: str, opponent: str, end: str) -> dict[str, str]:
    """The first checkpoint (fewest decisions) whose interval against ``opponent`` passes 50%
    at ``end`` (``low``: its low end above 50%; ``high``: its high end at least 50%)."""
    rows = [r for r in curve if r["rules"] == rules and r["opponent"] == opponent]
    for row in sorted(rows, key=lambda r: int(r["decisions"])):
        value = float(row["ci_low" if end == "low" else "ci_high"])
        if (value > 0.5) if end == "low" else (value >= 0.5):
            return row
    return {}


def table(curve: list[dict[str, str]], presets: list[str]) -> str:
    """The Markdown table: per preset and target, where it was first reached."""
    lines = [
        "| rules | target | decisions | wall time | CPU time | win rate [95% interval] | games |",
        "|---|---|---|---|---|---|---|",
    ]
    for rules in presets:
        for opponent, name, end in (*TARGETS, CHAIN):
            row = reached(curve, rules, opponent, end)
            if not row:
                last = [r for r in curve if r["rules"] == rules and r["opponent"] == opponent]
                best = max(last, key=lambda r: float(r["win_rate"]), default=None)
                said = "not reached"
                if best:
                    said += f" (best {_rate(best)} at {int(best['decisions']):,})"
                lines.append(f"| `{rules}` | {name} | {said} | | | | |")
                continue
            lines.append(
                f"| `{rules}` | {name} | {int(row['decisions']):,} | "
                f"{_minutes(float(row['wall_s']))} | {_minutes(float(row['cpu_s']))} | "
                f"{_rate(row)} | {int(row['games']):,} |"
            )
    return "\n".join(lines)


def _rate(row: dict[str, str]) -> str:
    return (
        f"{100 * float(row['win_rate']):.1f}% "
        f"[{100 * float(row['ci_low']):.1f}, {100 * float(row['ci_high']):.1f}]"
    )


def _minutes(seconds: float) -> str:
    return f"{int(seconds // 60)} min {int(seconds % 60):02d} s"


def plot(curve: list[dict[str, str]], presets: list[str], path: Path) -> None:
    """Win rate against each bot by decisions (top) and by wall time (bottom), a column per
    preset, with the intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, len(presets), figsize=(5 * len(presets), 7), squeeze=False)
    for col, rules in enumerate(presets):
        for row, (x_key, x_label, scale) in enumerate(
            (("decisions", "decisions (millions)", 1e6), ("wall_s", "wall time (min)", 60.0))
        ):
            ax = axes[row][col]
            for opponent in BOTS:
                pts = sorted(
                    (r for r in curve if r["rules"] == rules and r["opponent"] == opponent),
                    key=lambda r: int(r["decisions"]),
                )
                if not pts:
                    continue
                x = [float(r[x_key]) / scale for r in pts]
                ax.plot(x, [100 * float(r["win_rate"]) for r in pts], "o-", label=opponent)
                ax.fill_between(
                    x,
                    [100 * float(r["ci_low"]) for r in pts],
                    [100 * float(r["ci_high"]) for r in pts],
                    alpha=0.2,
                )
            ax.axhline(50, color="grey", lw=0.8, ls="--")
            ax.set_xlabel(x_label)
            ax.set_ylabel("win rate % (paired deals, 95% CI)")
            ax.set_title(f"{rules}: the default recipe against each bot")
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    """Parse the flags, train each preset (or reuse its run), evaluate, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rules", default="us,japanese", help="presets, comma-separated")
    parser.add_argument("--out", default="runs/time_to_target", help="output folder")
    parser.add_argument("--games", type=int, default=2000, help="paired games a checkpoint")
    parser.add_argument("--workers", type=int, default=1, help="processes for the evaluations")
    parser.add_argument("--seed", type=int, default=777, help="seed of the evaluation deals")
    parser.add_argument(
        "--no-train",
        action="store_true",
        help="evaluate the checkpoints already noted in OUT/checkpoints.csv (a run stopped "
        "part-way) without training",
    )
    parser.add_argument("extra", nargs="*", help="after --: extra flags for speed train")
    args = parser.parse_args(argv)
    presets = [r.strip() for r in args.rules.split(",") if r.strip()]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    load_before = os.getloadavg()
    stamps_path, curve_path = out / "checkpoints.csv", out / "curve.csv"
    for rules in presets:
        run = out / rules
        stamps = [r for r in read_csv(stamps_path) if r["rules"] == rules]
        finished = (run / "summary.json").exists()
        if not args.no_train and not (stamps and finished):
            if run.exists():  # an unfinished run: start it again, timed from the start
                import shutil

                shutil.rmtree(run)
            kept = [r for r in read_csv(stamps_path) if r["rules"] != rules]
            stamps_path.unlink(missing_ok=True)
            append_csv(stamps_path, kept, STAMP_FIELDS)
            print(f"training {rules} ...", flush=True)
            train(rules, run, list(args.extra), out / f"{rules}.log", stamps_path)
            stamps = [r for r in read_csv(stamps_path) if r["rules"] == rules]
        done = {
            (r["decisions"], r["opponent"])
            for r in read_csv(curve_path)
            if r["rules"] == rules and int(r["games"]) >= args.games
        }
        for stamp in stamps:
            if all((stamp["decisions"], bot) in done for bot in BOTS):
                continue
            model = run / "checkpoints" / f"step_{int(stamp['decisions']):09d}.json"
            t0 = time.perf_counter()
            rows = evaluate(model, rules, args.games, args.workers, args.seed)
            for row in rows:
                row.update(decisions=stamp["decisions"], wall_s=stamp["wall_s"])
                row["cpu_s"] = stamp["cpu_s"]
            append_csv(curve_path, rows, CURVE_FIELDS)
            said = ", ".join(f"{r['opponent']} {_rate(r)}" for r in rows)
            took = time.perf_counter() - t0
            print(f"{rules} @ {int(stamp['decisions']):,}: {said} ({took:.0f} s)", flush=True)
    curve = [r for r in read_csv(curve_path) if int(r["games"]) >= args.games]
    plot(curve, presets, out / "curve.png")
    command = shlex.join(["python", "benchmarks/time_to_target.py", *(argv or sys.argv[1:])])
    print()
    print(
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.system()} {platform.release()}; load average (1 min) "
        f"{load_before[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end; "
        f"training loads at each checkpoint in {stamps_path}."
    )
    print(f"Command: `{command}`; the recipe: `speed train realtime --rules RULES --out DIR`")
    print(f"{args.games:,} paired games a checkpoint against each bot; curve: {out / 'curve.png'}")
    print()
    print(table(curve, presets))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
