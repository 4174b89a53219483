"""The ``speed`` command: one entry point, each subcommand importing what it needs lazily.

``speed demo`` plays one game between two bots as text; ``speed bench``
measures env throughput. It lives outside ``speed_env`` because it reaches
into ``agents`` (and later ``train``), which ``speed_env`` never imports.
Errors in user input print one line and exit with code 2.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from typing import Any


class UsageError(Exception):
    """Bad user input: printed as one line, exit code 2."""


def _parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``--option wrap=false --option stuck_countdown_ms=500`` → typed rule overrides."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--option takes KEY=VALUE, got {pair!r}")
        low = value.strip().lower()
        if low in ("true", "false"):
            out[key] = low == "true"
        elif low.lstrip("-").isdigit():
            out[key] = int(low)
        else:
            out[key] = value
    return out


def _reaction(text: str | None) -> Any:
    if text is None:
        return None
    parts = text.split(",")
    return parts[0] if len(parts) == 1 else tuple(parts)


# ---------------------------------------------------------------------- demo
def cmd_demo(args: argparse.Namespace) -> int:
    """Two bots play one game; the table is printed whenever a card moves."""
    import agents
    import speed_env
    from speed_env.render import render_ansi

    specs = args.agents.split(",")
    if len(specs) != 2:
        raise UsageError(f"--agents takes two specs separated by a comma, got {args.agents!r}")
    env = speed_env.parallel_env(args.rules, tick_ms=args.tick_ms, reaction=_reaction(args.reaction),
                                 **_parse_options(args.option))
    bots = [agents.make(spec, env.rules, seed=args.seed + i) for i, spec in enumerate(specs)]
    obs, _ = env.reset(seed=args.seed)
    last_key = None
    shown = 0
    while env.agents:
        snap = env.snapshot()
        key = json.dumps([snap["centre"], [p["hand"] for p in snap["players"]], snap["phase"]])
        if key != last_key and shown < args.max_frames:
            print(render_ansi(snap), end="\n\n")
            last_key = key
            shown += 1
        actions = {
            agent: int(bots[p].act(obs[agent]["observation"][None], obs[agent]["action_mask"][None])[0])
            for p, agent in enumerate(env.agents)
        }
        obs, *_ = env.step(actions)
    snap = env.snapshot()
    print(render_ansi(snap))
    p0, p1 = snap["players"]
    names = {"player_0": specs[0], "player_1": specs[1]}
    winner = snap["winner"]
    if winner in names:
        verdict = f"{winner} ({names[winner]}) wins"
    else:
        verdict = "draw" if winner == "draw" else "no winner (truncated)"
    print(
        f"\nresult: {verdict} after {snap['clock_ms'] / 1000:.1f} s; played {p0['played']}-{p1['played']}, "
        f"bounced {p0['bounced']}-{p1['bounced']}, flips {snap['flips']}"
    )
    return 0


# --------------------------------------------------------------------- bench
def _bench_parallel(rules: str, seconds: float) -> dict[str, float]:
    import numpy as np

    import speed_env

    env = speed_env.parallel_env(rules)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    steps, env_time, seed = 0, 0.0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        if not env.agents:
            seed += 1
            obs, _ = env.reset(seed=seed)
        actions = {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}
        t0 = time.perf_counter()
        obs, *_ = env.step(actions)
        env_time += time.perf_counter() - t0
        steps += 1
    wall = time.perf_counter() - start
    return {"env": "parallel_env", "n": 1, "steps_per_s": steps / env_time, "loop_steps_per_s": steps / wall}


def _bench_batch(rules: str, n: int, seconds: float) -> dict[str, float]:
    import numpy as np

    import speed_env

    env = speed_env.BatchEnv(n, rules)
    _, mask = env.reset(seed=0)
    env.step(np.zeros((2, n), np.int64))  # load compiled kernels before timing
    rng = np.random.default_rng(0)
    keys = rng.random((8, 2, n, env.n_actions)).astype(np.float32)  # random legal picks, drawn ahead
    steps, env_time, i = 0, 0.0, 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = np.where(mask > 0, keys[i % 8], -1.0).argmax(axis=2)
        t0 = time.perf_counter()
        _, mask, *_ = env.step(actions)
        env_time += time.perf_counter() - t0
        steps += 1
        i += 1
    wall = time.perf_counter() - start
    return {"env": "BatchEnv", "n": n, "steps_per_s": steps * n / env_time, "loop_steps_per_s": steps * n / wall}


def cmd_bench(args: argparse.Namespace) -> int:
    """Game-steps per second of ``parallel_env`` and ``BatchEnv`` with random legal actions."""
    sizes = [int(x) for x in args.sizes.split(",")]
    rows = [_bench_parallel(args.rules, args.seconds)]
    rows += [_bench_batch(args.rules, n, args.seconds) for n in sizes]
    if args.json:
        print(json.dumps({"rules": args.rules, "results": rows}, indent=2))
        return 0
    print(f"rules={args.rules}; steps/s = game-steps per second of env.step alone "
          f"(loop = including the random policy)")
    print(f"{'env':<14}{'n':>6}{'steps/s':>14}{'loop steps/s':>16}")
    for r in rows:
        print(f"{r['env']:<14}{r['n']:>6}{r['steps_per_s']:>14,.0f}{r['loop_steps_per_s']:>16,.0f}")
    return 0


# ---------------------------------------------------------------- tournament
class _Progress:
    """A one-line progress bar on stderr (no dependency)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.start = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        width = 30
        filled = int(width * done / total)
        elapsed = time.perf_counter() - self.start
        sys.stderr.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} chunks {elapsed:5.1f}s")
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def cmd_tournament(args: argparse.Namespace) -> int:
    """Round robin (or gauntlet) on paired deals; leaderboard, files and plots."""
    import agents
    from agents import report, tournament
    from speed_env.reaction import make_profile
    from speed_env.rules import make_rules

    specs = tuple(s.strip() for s in args.agents.split(",") if s.strip())
    if len(specs) < 2:
        raise UsageError(f"--agents needs at least two agent specs, got {args.agents!r}")
    if len(set(specs)) != len(specs):
        raise UsageError(f"--agents lists an agent twice: {args.agents!r}")
    for spec in specs:
        agents.parse_spec(spec)  # an unknown agent fails here, before any work
    if args.gauntlet is not None and args.gauntlet not in specs:
        raise UsageError(f"--gauntlet {args.gauntlet!r} is not one of --agents")
    if args.games < 2:
        raise UsageError("--games must be at least 2 (each deal is played twice, seats swapped)")
    settings = tournament.Settings(
        agents=specs, games=args.games, rules=make_rules(args.rules, **_parse_options(args.option)),
        reaction=make_profile(args.reaction), tick_ms=args.tick_ms, seed=args.seed, gauntlet=args.gauntlet,
    )
    for spec in specs:  # build each agent once (a missing model file fails here)
        agents.make(spec, settings.rules, seed=0)
    out = report.check_writable(args.out)
    t0 = time.perf_counter()
    results, complete = tournament.run(
        settings, workers=args.workers, record=args.save_replays, progress=_Progress("tournament")
    )
    if not results:
        print("interrupted before any games finished; nothing written", file=sys.stderr)
        return 130
    summary = tournament.summarise(settings, results)
    summary["settings"]["complete"] = complete
    summary["settings"]["wall_s"] = round(time.perf_counter() - t0, 2)
    replays = tournament.replay_lines(results) if args.save_replays else None
    paths = report.write_outputs(out, summary, replays)
    print(report.leaderboard(summary))
    if not complete:
        print("interrupted: results cover the chunks that finished", file=sys.stderr)
    print(f"{sum(m['games'] for m in summary['matches'])} games in {summary['settings']['wall_s']} s; "
          f"wrote {', '.join(str(p) for p in paths)}")
    return 0 if complete else 130


def cmd_agents(args: argparse.Namespace) -> int:
    """List the agent specs with a one-line description each."""
    import agents

    for name, text in agents.available().items():
        print(f"{name:<10} {text}")
    print("\nappend @MS or @PROFILE to give an agent a reaction profile, e.g. chain@pro, greedy@200")
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Play back a recorded game in the terminal."""
    from speed_env.render import render_ansi

    path = args.file
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise UsageError(f"cannot read replay file {path!r}: {exc.strerror}") from None
    frames = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            frame = json.loads(line)
        except json.JSONDecodeError:
            raise UsageError(f"{path}:{n} is not a JSON line of a replay") from None
        if not isinstance(frame, dict) or "snapshot" not in frame:
            raise UsageError(f"{path}:{n} has no 'snapshot': not a replay written by speed tournament")
        if frame.get("game", 0) == args.game:
            frames.append(frame)
    if not frames:
        raise UsageError(f"{path} holds no frames of game {args.game}")
    seats = frames[0].get("seats", ["player_0", "player_1"])
    print(f"game {args.game}: player_0 = {seats[0]}, player_1 = {seats[1]}; {len(frames)} frames")
    last = None
    for frame in frames:
        text = render_ansi(frame["snapshot"])
        body = text.split("\n", 1)[1] if "\n" in text else text
        if body != last:
            print(text, end="\n\n")
            last = body
            if args.delay:
                time.sleep(args.delay)
    return 0


# ---------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    """The ``speed`` argument parser with every subcommand."""
    parser = argparse.ArgumentParser(prog="speed", description="Speed RL kit: envs, bots, tournaments.")
    sub = parser.add_subparsers(dest="command", required=True)

    def rules_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", default="us", help="preset (us, pagat, japanese) or a .toml file")
        p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="override one rule")
        p.add_argument("--tick-ms", type=int, default=50)
        p.add_argument("--reaction", default=None, help="ms or profile name, or two separated by a comma")

    demo = sub.add_parser("demo", help="two bots play one game, shown as text")
    rules_args(demo)
    demo.add_argument("--agents", default="greedy,random", help="two agent specs, comma-separated")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument("--max-frames", type=int, default=12, help="tables to print before the result")
    demo.set_defaults(func=cmd_demo)

    tour = sub.add_parser("tournament", help="round robin on paired deals: leaderboard, ratings, plots")
    rules_args(tour)
    tour.set_defaults(reaction="human")
    tour.add_argument("--agents", default="random,greedy,chain", help="agent specs, comma-separated")
    tour.add_argument("--games", type=int, default=2000, help="games per pairing (half as many deals)")
    tour.add_argument("--seed", type=int, default=0)
    tour.add_argument("--workers", type=int, default=1)
    tour.add_argument("--gauntlet", default=None, metavar="AGENT", help="only this agent against each other")
    tour.add_argument("--out", default="results", help="output folder")
    tour.add_argument("--save-replays", type=int, default=0, metavar="N", help="record N games as JSON Lines")
    tour.set_defaults(func=cmd_tournament)

    ag = sub.add_parser("agents", help="list the agent specs")
    ag.set_defaults(func=cmd_agents)

    rep = sub.add_parser("replay", help="play back a recorded game in the terminal")
    rep.add_argument("file")
    rep.add_argument("--game", type=int, default=0)
    rep.add_argument("--delay", type=float, default=0.0, help="seconds between frames")
    rep.set_defaults(func=cmd_replay)

    bench = sub.add_parser("bench", help="env throughput (steps/s)")
    bench.add_argument("--rules", default="us")
    bench.add_argument("--sizes", default="1,256,4096", help="BatchEnv batch sizes")
    bench.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    bench.add_argument("--json", action="store_true", help="print JSON instead of a table")
    bench.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``speed`` command; user errors print one line and return 2."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except (UsageError, ValueError, OSError) as exc:
        print(f"speed {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
