"""`speed bench` on two trees of this repository, interleaved: is one slower than the other?

The tree at ``--base`` (a commit, extracted with ``git archive``) and the working tree take
turns running ``speed bench --json`` (each in its own process, the same flags), ``--pairs``
times, so that a load that comes and goes on a shared machine falls on both alike. Prints
each system's median game-steps per CPU-second on each tree and their ratio (working tree
over base; below 1 is slower). Used for issue 39's bar: the two-seat engine within 5% of the
tree before three- and four-seat tables (d6256fe).

Run: python benchmarks/bench_trees.py --base d6256fe [--pairs 6] [--seconds 8] [--sizes 1,1024]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def extract(commit: str, into: Path) -> Path:
    """The tree of ``commit`` written under ``into`` (``git archive``, no checkout)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", commit],
        check=True,
        capture_output=True,
    ).stdout
    tree = into / commit
    tree.mkdir()
    with tempfile.TemporaryFile() as tmp:
        tmp.write(archive)
        tmp.seek(0)
        with tarfile.open(fileobj=tmp) as tar:
            tar.extractall(tree, filter="data")
    return tree


def bench(tree: Path, flags: list[str]) -> dict[str, float]:
    """``speed bench --json`` run from ``tree``: steps per CPU-second by system (``env@n``)."""
    code = "import sys, speed_cli; sys.argv = ['speed', 'bench', *sys.argv[1:]]; speed_cli.main()"
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", code, *flags, "--json"],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {f"{r['env']}@{r['n']}": r["cpu_steps_per_s"] for r in json.loads(out)["results"]}


def main() -> None:
    """Parse the flags, run the pairs, print the medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--pairs", type=int, default=6, help="runs of each tree, alternating")
    parser.add_argument("--seconds", default="8", help="speed bench --seconds")
    parser.add_argument("--sizes", default="1,1024", help="speed bench --sizes")
    parser.add_argument("--rules", default="us", help="speed bench --rules")
    args = parser.parse_args()
    flags = ["--rules", args.rules, "--sizes", args.sizes, "--seconds", args.seconds]
    flags += ["--rounds", "2", "--vector-size", "0"]
    with tempfile.TemporaryDirectory() as tmp:
        trees = {"base": extract(args.base, Path(tmp)), "work": ROOT}
        runs: dict[str, list[dict[str, float]]] = {"base": [], "work": []}
        for i in range(args.pairs):
            for side, tree in trees.items():
                runs[side].append(bench(tree, flags))
                load = os.getloadavg()[0]
                print(f"pair {i + 1}/{args.pairs}: {side} done (load {load:.2f})", file=sys.stderr)
    print(f"system\tbase {args.base} (median steps/CPU-s)\tworking tree\tratio")
    for system in runs["base"][0]:
        base = statistics.median(r[system] for r in runs["base"])
        work = statistics.median(r[system] for r in runs["work"])
        print(f"{system}\t{base:,.0f}\t{work:,.0f}\t{work / base:.3f}")


if __name__ == "__main__":
    main()
