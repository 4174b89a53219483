"""The ``speed`` command: one entry point, each subcommand importing what it needs lazily.

``speed demo`` plays one game between two bots as text; ``speed bench``
measures env throughput. It lives outside ``speed_env`` because it reaches
into ``agents`` (and later ``train``), which ``speed_env`` never imports.
Errors in user input print one line and exit with code 2.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import importlib.util
import json
import sys
import time
from collections.abc import Callable, Sequence
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
    env = speed_env.parallel_env(
        args.rules,
        tick_ms=args.tick_ms,
        reaction=_reaction(args.reaction),
        **_parse_options(args.option),
    )
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
            agent: int(
                bots[p].act(obs[agent]["observation"][None], obs[agent]["action_mask"][None])[0]
            )
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
# Every system is measured the same way: a loop of (pick random legal actions,
# step, receive observations and masks), for a time budget; the random legal
# actions of every system come from one compiled sampler
# (``speed_env.policy.sample_legal``), so the policy costs the same few ns a
# row everywhere and the figures compare the environments. A runner plays for
# about ``budget`` seconds and returns (game-steps, seconds inside env.step,
# wall seconds, CPU seconds of the process: every thread, so a system that
# spreads over both cores is charged for both).
Runner = Callable[[float], tuple[int, float, float, float]]


def _kit_parallel(rules: str) -> Runner:
    import numpy as np

    import speed_env
    from speed_env.policy import sample_legal

    env = speed_env.parallel_env(rules)
    rng = np.random.default_rng(0)
    masks = np.empty((2, env.games.n_actions), np.int8)  # both players' masks, for one sampler call
    state: dict[str, Any] = {"obs": env.reset(seed=0)[0], "seed": 0}

    def run(budget: float) -> tuple[int, float, float, float]:
        obs = state["obs"]
        steps, env_s = 0, 0.0
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < budget:
            if not env.agents:
                state["seed"] += 1
                obs, _ = env.reset(seed=state["seed"])
            for p, a in enumerate(env.agents):
                masks[p] = obs[a]["action_mask"]
            picks = sample_legal(masks, rng.random(2)).tolist()
            actions = dict(zip(env.agents, picks, strict=True))
            t0 = time.perf_counter()
            obs, *_ = env.step(actions)
            env_s += time.perf_counter() - t0
            steps += 1
        state["obs"] = obs
        return steps, env_s, time.perf_counter() - start, time.process_time() - cpu

    return run


def _kit_batch(rules: str, n: int, copy: bool = True, threads: int = 1) -> Runner:
    import numpy as np

    import speed_env
    from speed_env.policy import sample_legal

    env = speed_env.BatchEnv(n, rules, copy=copy, threads=threads)
    rng = np.random.default_rng(0)
    state: dict[str, Any] = {"mask": env.reset(seed=0)[1]}

    def run(budget: float) -> tuple[int, float, float, float]:
        mask = state["mask"]
        steps, env_s = 0, 0.0
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < budget:
            actions = sample_legal(mask.reshape(2 * n, -1), rng.random(2 * n)).reshape(2, n)
            t0 = time.perf_counter()
            _, mask, *_ = env.step(actions)
            env_s += time.perf_counter() - t0
            steps += 1
        state["mask"] = mask
        return steps * n, env_s, time.perf_counter() - start, time.process_time() - cpu

    return run


def _connect_four() -> Runner | None:
    """PettingZoo's ``connect_four_v3`` (AEC; one move a step), or None without pettingzoo[classic]."""
    import warnings

    import numpy as np

    from speed_env.policy import sample_legal

    try:
        with warnings.catch_warnings():  # its module warns that the old creation API is deprecated
            warnings.simplefilter("ignore", DeprecationWarning)
            from pettingzoo.classic import connect_four_v3
    except ImportError:
        return None
    env = connect_four_v3.env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    state: dict[str, Any] = {"seed": 0}

    def run(budget: float) -> tuple[int, float, float, float]:
        steps, env_s = 0, 0.0
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < budget:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                state["seed"] += 1
                env.reset(seed=state["seed"])
                continue
            action = int(sample_legal(obs["action_mask"][None], rng.random(1))[0])
            t0 = time.perf_counter()
            env.step(action)
            env_s += time.perf_counter() - t0
            steps += 1
        return steps, env_s, time.perf_counter() - start, time.process_time() - cpu

    return run


def _pgx_connect_four(n: int) -> Runner | None:
    """pgx's ``connect_four``, ``n`` games under jit + vmap with auto-reset, observations and
    masks handed to numpy every step (as a numpy learner needs them); None without pgx."""
    try:
        import jax
        import numpy as np
        import pgx
        from pgx.experimental import auto_reset
    except ImportError:
        return None
    from speed_env.policy import sample_legal

    env = pgx.make("connect_four")
    batch_step = jax.vmap(auto_reset(env.step, env.init))

    def step(state: Any, action: Any, key: Any) -> tuple[Any, Any]:
        key, sub = jax.random.split(key)
        return batch_step(state, action, jax.random.split(sub, n)), key

    step_jit = jax.jit(step)
    st: dict[str, Any] = {
        "state": jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), n)),
        "key": jax.random.PRNGKey(1),
    }
    st["mask"] = np.asarray(st["state"].legal_action_mask)
    rng = np.random.default_rng(0)

    def run(budget: float) -> tuple[int, float, float, float]:
        state, key, mask = st["state"], st["key"], st["mask"]
        steps, env_s = 0, 0.0
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < budget:
            actions = sample_legal(mask, rng.random(n))
            t0 = time.perf_counter()
            state, key = step_jit(state, actions, key)
            _ = np.asarray(state.observation)
            mask = np.asarray(state.legal_action_mask)
            env_s += time.perf_counter() - t0
            steps += 1
        st.update(state=state, key=key, mask=mask)
        return steps * n, env_s, time.perf_counter() - start, time.process_time() - cpu

    return run


def _measure(
    runners: dict[str, Runner], seconds: float, rounds: int
) -> dict[str, list[dict[str, float]]]:
    """Each runner's game-steps/s in each round, rounds interleaved: of the whole loop (``loop``),
    of env.step alone (``step``) and per CPU-second of the process (``cpu``).

    Interleaving puts every system under the same load in each round, so a
    ratio taken within a round holds even on a busy machine.
    """
    for run in runners.values():
        run(min(0.2, seconds))  # compile and warm up outside the timing
    rates: dict[str, list[dict[str, float]]] = {name: [] for name in runners}
    for _ in range(rounds):
        for name, run in runners.items():
            steps, env_s, wall, cpu = run(seconds / rounds)
            rates[name].append(
                {"loop": steps / wall, "step": steps / env_s, "cpu": steps / max(cpu, 1e-9)}
            )
    return rates


def _median(xs: Sequence[float]) -> float:
    s = sorted(xs)
    mid = len(s) // 2
    return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


def cmd_bench(args: argparse.Namespace) -> int:
    """Game-steps per second of ``parallel_env`` and ``BatchEnv`` with random legal actions.

    With ``--compare``, beside PettingZoo's ``connect_four_v3`` and (when
    installed) pgx's ``connect_four`` at the largest batch size, as ratios.
    """
    sizes = [int(x) for x in args.sizes.split(",")]
    if min(sizes) < 1 or args.seconds <= 0 or args.rounds < 1:
        raise UsageError("--sizes must be whole numbers >= 1, --seconds > 0 and --rounds >= 1")
    runners: dict[str, Runner] = {"parallel_env 1": _kit_parallel(args.rules)}
    runners.update({f"BatchEnv {n}": _kit_batch(args.rules, n) for n in sizes})
    refs: dict[str, str] = {}  # kit row -> the row it is compared with
    missing = []
    if args.compare:
        c4 = _connect_four()
        if c4 is None:
            missing.append("PettingZoo's connect_four_v3 (pip install 'pettingzoo[classic]')")
        else:
            runners["connect_four_v3 1"] = c4
            refs["parallel_env 1"] = "connect_four_v3 1"
        pgx_c4 = _pgx_connect_four(max(sizes))
        if pgx_c4 is None:
            missing.append("pgx's connect_four (pip install pgx)")
        else:
            big = max(sizes)
            for label, kwargs in (("copy=False", {"copy": False}), ("threads=2", {"threads": 2})):
                runners[f"BatchEnv({label}) {big}"] = _kit_batch(args.rules, big, **kwargs)
                refs[f"BatchEnv({label}) {big}"] = f"pgx connect_four {big}"
            runners[f"pgx connect_four {big}"] = pgx_c4
            refs[f"BatchEnv {max(sizes)}"] = f"pgx connect_four {max(sizes)}"
    rates = _measure(runners, args.seconds, args.rounds)
    rows = []
    for name, rs in rates.items():
        system, n = name.rsplit(" ", 1)
        row: dict[str, Any] = {"env": system, "n": int(n)}
        row.update(
            {f"{k}_steps_per_s": _median([r[k] for r in rs]) for k in ("loop", "step", "cpu")}
        )
        if name in refs:  # the median over rounds of the ratio within each round
            ref = rates[refs[name]]
            row["vs"] = refs[name].rsplit(" ", 1)[0]
            for k in ("loop", "cpu"):
                row[f"{k}_ratio"] = _median([a[k] / b[k] for a, b in zip(rs, ref, strict=True)])
        rows.append(row)
    if args.json:
        print(
            json.dumps(
                {"rules": args.rules, "rounds": args.rounds, "results": rows, "missing": missing},
                indent=2,
            )
        )
        return 0
    print(
        f"rules={args.rules}; game-steps/s with a random legal player in the loop (loop), of env.step "
        f"alone (step), and per CPU-second of the loop (cpu); medians of {args.rounds} interleaved rounds"
    )
    print(
        f"{'env':<24}{'n':>6}{'loop':>12}{'step':>12}{'cpu':>12}  ratio, loop / cpu (same rounds)"
    )
    for r in rows:
        ratio = f"  {r['loop_ratio']:.2f}x / {r['cpu_ratio']:.2f}x {r['vs']}" if "vs" in r else ""
        print(
            f"{r['env']:<24}{r['n']:>6}{r['loop_steps_per_s']:>12,.0f}{r['step_steps_per_s']:>12,.0f}"
            f"{r['cpu_steps_per_s']:>12,.0f}{ratio}"
        )
    for m in missing:
        print(f"not compared: {m}")
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
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} chunks {elapsed:5.1f}s"
        )
        if done == total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def _backend(args: argparse.Namespace) -> Any:
    """The job backend (agents/jobs.py) named by ``--backend`` / ``--ray-address`` / ``--max-retries``."""
    from agents.jobs import Backend

    if args.backend == "local" and args.ray_address is not None:
        raise UsageError("--ray-address needs --backend ray")
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise UsageError(
            "--backend ray needs the [ray] extra (pip install 'speed-rl[ray]', "
            "or `make setup-ray`, which makes .venv-ray)"
        )
    return Backend(args.backend, address=args.ray_address, max_retries=args.max_retries)


def _backend_args(p: argparse.ArgumentParser, workers: int) -> None:
    """``--workers``, ``--backend``, ``--ray-address``, ``--max-retries`` (the chunked job runner)."""
    p.add_argument(
        "--workers",
        type=int,
        default=workers,
        help="local processes (--backend local), or CPUs of the Ray cluster started for the run",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where the chunks run: local processes, or tasks on a Ray cluster (the [ray] extra); "
        "the result files are the same",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="the Ray cluster to join (HOST:PORT or auto); default: RAY_ADDRESS, else a cluster "
        "on 127.0.0.1 started for the run and stopped after it",
    )
    p.add_argument(
        "--max-retries",
        type=int,
        default=3,
        help="ray: runs of a chunk whose worker or node died, before giving up",
    )


def cmd_tournament(args: argparse.Namespace) -> int:
    """Round robin (or gauntlet) on paired deals; leaderboard, files and plots."""
    if args.game == "vintage":
        if args.match:
            raise UsageError(
                "--match scores real-time Speed (us/pagat); a vintage match is its option 'games'"
            )
        return cmd_tournament_vintage(args)
    if args.players not in (None, 2):
        raise UsageError(
            f"--players {args.players}: real-time Speed has two players; use --game vintage"
        )
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
    rules = make_rules(args.rules, **_parse_options(args.option))
    if args.match and rules.is_japanese:
        raise UsageError(
            "--match: match scoring (match_target) exists for the us and pagat presets only, "
            "not japanese"
        )
    settings = tournament.Settings(
        agents=specs,
        games=args.games,
        rules=rules,
        reaction=make_profile(args.reaction),
        tick_ms=args.tick_ms,
        seed=args.seed,
        gauntlet=args.gauntlet,
        match=args.match,
    )
    for spec in specs:  # build each agent once (a missing model file fails here)
        agents.make(spec, settings.rules, seed=0)
    backend = _backend(args)
    out = report.check_writable(args.out)
    t0 = time.perf_counter()
    results, complete = tournament.run(
        settings,
        workers=args.workers,
        record=args.save_replays,
        progress=_Progress("tournament"),
        backend=backend,
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
    print(
        f"{sum(m['games'] for m in summary['matches'])} games in {summary['settings']['wall_s']} s; "
        f"wrote {', '.join(str(p) for p in paths)}"
    )
    return 0 if complete else 130


def cmd_tournament_vintage(args: argparse.Namespace) -> int:
    """Vintage Speed at N-player tables (agents/vintage_tournament.py): line-ups, seat rotation, shared deals."""
    import agents
    from agents import report
    from agents import vintage_tournament as vt

    if args.save_replays:
        raise UsageError("--save-replays records real-time games only")
    if args.rules != "us":
        raise UsageError(
            "--rules is for real-time Speed; give vintage rule options as --option KEY=VALUE"
        )
    text = (
        "vintage-random,vintage-greedy,vintage-tactician"
        if args.agents == "random,greedy,chain"
        else args.agents
    )
    specs = tuple(s.strip() for s in text.split(",") if s.strip())
    settings = vt.VintageSettings(
        agents=specs,
        players=4 if args.players is None else args.players,
        games=args.games,
        seed=args.seed,
        gauntlet=args.gauntlet,
        options=tuple(sorted(_parse_options(args.option).items())),
    )
    for spec in specs:  # build each agent once (a missing model file fails here)
        agents.make(spec, seed=0)
    backend = _backend(args)
    out = report.check_writable(args.out)
    t0 = time.perf_counter()
    results, complete = vt.run(
        settings, workers=args.workers, progress=_Progress("vintage tournament"), backend=backend
    )
    if not results:
        print("interrupted before any games finished; nothing written", file=sys.stderr)
        return 130
    summary = vt.summarise(settings, results)
    summary["settings"].update(complete=complete, wall_s=round(time.perf_counter() - t0, 2))
    paths = vt.write_outputs(out, summary)
    print(report.leaderboard(summary))
    if not complete:
        print("interrupted: results cover the chunks that finished", file=sys.stderr)
    print(
        f"{summary['settings']['games_played']} games in {summary['settings']['wall_s']} s; "
        f"wrote {', '.join(str(p) for p in paths)}"
    )
    return 0 if complete else 130


def cmd_agents(args: argparse.Namespace) -> int:
    """List the agent specs with a one-line description each."""
    import agents

    for name, text in agents.available().items():
        print(f"{name:<10} {text}")
    print(
        "\nappend @MS or @PROFILE to give an agent a reaction profile, e.g. chain@pro, greedy@200"
    )
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
            raise UsageError(
                f"{path}:{n} has no 'snapshot': not a replay written by speed tournament"
            )
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


# ---------------------------------------------------------------- play/watch
def _table_config(args: argparse.Namespace, mode: str, specs: Sequence[str]) -> Any:
    """The ``TableConfig`` of ``speed play`` / ``speed watch`` from the command line, checked."""
    from pathlib import Path

    import agents
    from speed_env.reaction import make_profile
    from speed_env.rules import make_rules
    from speed_table.replays import ReplayLimits
    from speed_table.session import TableConfig

    _check_table_numbers(args)
    reactions = [r.strip() for r in (args.reaction or "human").split(",")]
    if len(reactions) > 2 or (mode == "play" and len(reactions) > 1):
        raise UsageError(
            f"--reaction takes {'one profile' if mode == 'play' else 'one or two profiles'}, "
            f"got {args.reaction!r}"
        )
    profiles = [make_profile(r) for r in reactions]
    specs = list(specs)
    if mode == "watch" and len(profiles) == 2:
        # A pair gives each seat its own profile, unless the spec carries one (chain@pro).
        specs = [s if "@" in s else f"{s}@{r}" for s, r in zip(specs, reactions, strict=True)]
    for spec in specs:
        if spec != "you":
            agents.parse_spec(spec)  # an unknown agent fails here, before the server starts
    deal = None
    if args.deal:
        try:
            with open(args.deal, encoding="utf-8") as f:
                deal = json.load(f)
        except OSError as exc:
            raise UsageError(f"cannot read deal file {args.deal!r}: {exc.strerror}") from None
        except json.JSONDecodeError as exc:
            raise UsageError(f"deal file {args.deal!r} is not JSON: {exc}") from None
        if not isinstance(deal, dict):
            raise UsageError(
                f"deal file {args.deal!r} must hold a JSON object (hands, draw_piles, …)"
            )
    replays = None
    if args.replays_dir:
        replays = Path(args.replays_dir)
        if replays.exists() and not replays.is_dir():
            raise UsageError(f"--replays-dir {str(replays)!r} is a file, not a folder")
    return TableConfig(
        mode=mode,
        agents=(specs[0], specs[1]),
        rules=make_rules(args.rules, **_parse_options(args.option)),
        tick_ms=args.tick_ms,
        reaction=profiles[0],
        seed=args.seed,
        deal=deal,
        countdown_ms=args.countdown_ms,
        replays_dir=replays,
        replay_limits=ReplayLimits(keep=args.replays_keep, max_bytes=args.replays_max_mb * 2**20),
    )


# The numeric options of play/watch and their bounds, checked before anything starts.
TABLE_BOUNDS = {
    "port": (0, 65535),
    "tick_ms": (1, 1000),
    "seed": (0, 2**63 - 1),
    "countdown_ms": (0, 60_000),
    "replays_keep": (1, 1_000_000),
    "replays_max_mb": (1, 1_000_000),
}


def _check_table_numbers(args: argparse.Namespace) -> None:
    for name, (lo, hi) in TABLE_BOUNDS.items():
        value = getattr(args, name)
        if value is not None and not lo <= value <= hi:
            flag = "--" + name.replace("_", "-")
            raise UsageError(f"{flag} must be from {lo} to {hi}, got {value}")


def _serve_table(cfg: Any, args: argparse.Namespace) -> int:
    try:
        from speed_table import app as server
    except ImportError as exc:  # pragma: no cover - the [web] extra is missing
        raise UsageError(
            f"speed {cfg.mode} needs the [web] extra (pip install 'speed-rl[web]'): {exc}"
        ) from None
    print("loading the bots and the engine…", file=sys.stderr, flush=True)
    server.warm_up(cfg)  # a missing model or a bad deal fails here, before the server starts
    try:
        sock = server.listen("127.0.0.1", args.port)
    except OSError as exc:
        raise UsageError(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}") from None

    def announce(url: str) -> None:
        print(f"Speed table at {url}  (Ctrl-C to stop)", flush=True)

    # uvicorn shuts down on Ctrl-C, then passes the signal on: the normal way out.
    with contextlib.suppress(KeyboardInterrupt):
        server.serve(cfg, sock=sock, open_browser=not args.no_browser, announce=announce)
    print("server stopped", file=sys.stderr)
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play a bot in the browser, with your reaction time measured on every play."""
    return _serve_table(_table_config(args, "play", ["you", args.opponent]), args)


def cmd_watch(args: argparse.Namespace) -> int:
    """Two bots play live in the browser, with speed controls."""
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if len(specs) != 2:
        raise UsageError(
            f"--agents takes two agent specs separated by a comma, got {args.agents!r}"
        )
    return _serve_table(_table_config(args, "watch", specs), args)


# --------------------------------------------------------------------- train
def cmd_train(args: argparse.Namespace) -> int:
    """Train a MaskablePPO agent (train/ppo.py): logs, evaluations, checkpoints, curves, the model."""
    import dataclasses

    import agents

    try:
        from train import ppo
    except ImportError as exc:  # pragma: no cover - the [train] extra is missing
        raise UsageError(
            f"speed train needs the [train] extra (pip install 'speed-rl[train]'): {exc}"
        ) from None
    if args.game == "vintage":  # train/vintage_ppo.py; the flags given override its own defaults
        from train import vintage_ppo

        changed = {
            f.name: getattr(args, f.name)
            for f in dataclasses.fields(ppo.Config)
            if getattr(args, f.name) != f.default
        }
        summary = vintage_ppo.train(vintage_ppo.config_from_flags(changed, players=args.players))
        return 0 if summary["complete"] else 130
    if args.players not in (None, 2):
        raise UsageError(
            f"--players {args.players}: real-time Speed has two players; use --game vintage"
        )
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(ppo.Config)}
    cfg = ppo.Config(**values)
    for spec in [s.strip() for s in cfg.opponent.split(",") if s.strip() and s.strip() != "self"]:
        agents.parse_spec(spec)  # an unknown opponent fails here, before any work
    for spec in [s.strip() for s in cfg.eval_opponents.split(",") if s.strip()]:
        agents.parse_spec(spec)
    if cfg.init_bc:
        agents.parse_spec(cfg.init_bc)
    summary = ppo.train(cfg)
    return 0 if summary["complete"] else 130


def _train_args(p: argparse.ArgumentParser) -> None:
    """One flag per field of ``train.ppo.Config``, its docstring as the help."""
    import dataclasses

    from train.ppo import Config, field_help
    from train.ppo_common import PPOHyperparams

    helps = field_help(Config)
    ppo_names = {f.name for f in dataclasses.fields(PPOHyperparams)}
    ppo_group = p.add_argument_group("PPO settings (train/ppo_common.py)")
    fields = dataclasses.fields(Config)
    # The recipe's own settings first, then PPO's (the dataclass lists its base's fields first).
    for f in [f for f in fields if f.name not in ppo_names] + [
        f for f in fields if f.name in ppo_names
    ]:
        _field_flag(ppo_group if f.name in ppo_names else p, f, helps.get(f.name, ""))


def _field_flag(where: Any, f: Any, text: str) -> None:
    """One ``--flag`` for a dataclass field (its docstring as the help; ``lambda_`` becomes ``--lambda``)."""
    flag = "--" + f.name.rstrip("_").replace("_", "-")
    kind = str(f.type)
    text = text.replace("%", "%%")  # argparse formats help with %
    if kind == "bool":
        where.add_argument(
            flag, dest=f.name, action=argparse.BooleanOptionalAction, default=f.default, help=text
        )
        return
    convert = {"int": int, "float": float, "str": str, "str | None": str, "float | None": float}[
        kind
    ]
    default = f.default
    shown = f" (default {default})" if default not in (None, "") else ""
    where.add_argument(
        flag,
        dest=f.name,
        type=convert,
        default=default,
        help=text + shown,
        metavar=f.name.rstrip("_").upper() if convert is str else None,
    )


def cmd_train_rllib(args: argparse.Namespace) -> int:
    """Multi-agent PPO with RLlib (train/rllib_ppo.py): progress, checkpoints, the kit model."""
    import dataclasses

    if importlib.util.find_spec("ray") is None:
        raise UsageError(
            "speed train-rllib needs the [ray] extra (pip install 'speed-rl[ray]', "
            "or `make setup-ray`, which makes .venv-ray)"
        )
    from train import rllib_ppo

    cfg = rllib_ppo.Config(
        **{f.name: getattr(args, f.name) for f in dataclasses.fields(rllib_ppo.Config)}
    )
    rllib_ppo.check(cfg)  # bad settings fail here, before Ray starts
    summary = rllib_ppo.train(cfg)
    print(
        f"{summary['iterations']} iterations in {summary['wall_s']} s; model {summary['model']} "
        f"(play it with ppo:{summary['model']}); checkpoint {summary['checkpoint']}"
    )
    return 0 if summary["complete"] else 130


# ---------------------------------------------------------------- experiment
def cmd_experiment_reaction(args: argparse.Namespace) -> int:
    """Win rate against reaction latency (speed_lab/reaction_sweep): CSV, JSON with the fit, plots."""
    import agents
    from agents import report
    from speed_env.rules import make_rules
    from speed_lab import reaction_sweep as rs

    latencies = rs.parse_latencies(args.latencies, "--latencies")
    if args.grid:
        if args.jitter and not args.opponent_latency:
            raise UsageError(
                "--grid --jitter needs --opponent-latency (ms are fixed, names are presets)"
            )
        opponent = rs.parse_latencies(args.opponent_latency or args.latencies, "--opponent-latency")
    else:
        default = args.jitter or "250"  # a jittered agent meets the preset it is shaped like
        opponent = rs.parse_latencies(args.opponent_latency or default, "--opponent-latency")
        if len(opponent) != 1:
            raise UsageError(
                f"--opponent-latency takes one latency without --grid, got {args.opponent_latency!r}"
            )
    if args.bootstrap < 0:
        raise UsageError(f"--bootstrap must be 0 (no intervals) or more, got {args.bootstrap}")
    settings = rs.SweepSettings(
        agent=args.agent.strip(),
        opponent=args.opponent.strip(),
        latencies=latencies,
        opponent_latencies=opponent,
        games=args.games,
        rules=make_rules(args.rules, **_parse_options(args.option)),
        tick_ms=args.tick_ms,
        seed=args.seed,
        jitter=args.jitter,
    )
    for spec in (
        settings.agent,
        settings.opponent,
    ):  # unknown agent or missing model: fail before any work
        agents.parse_spec(spec)
        agents.make(spec, settings.rules, seed=0)
    compare = [
        rs.load(folder) for folder in filter(None, (s.strip() for s in args.compare.split(",")))
    ]
    backend = _backend(args)
    out = report.check_writable(args.out)
    t0 = time.perf_counter()
    results, complete = rs.run_sweep(
        settings, workers=args.workers, progress=_Progress("reaction sweep"), backend=backend
    )
    if not results:
        print("interrupted before any games finished; nothing written", file=sys.stderr)
        return 130
    wall = time.perf_counter() - t0
    doc = rs.summarise(settings, results, bootstrap=args.bootstrap)
    doc["settings"] |= {
        "complete": complete,
        "wall_s": round(wall, 2),
        "workers": args.workers,
        "bootstrap": args.bootstrap,
    }
    paths = rs.write_outputs(out, doc, compare)
    print(rs.table(doc))
    print(rs.headline(doc))
    if not complete:
        print("interrupted: results cover the chunks that finished", file=sys.stderr)
    print(
        f"{sum(r['games'] for r in doc['points'])} games in {wall:.1f} s; wrote {', '.join(map(str, paths))}"
    )
    return 0 if complete else 130


# ---------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    """The ``speed`` argument parser with every subcommand."""
    parser = argparse.ArgumentParser(
        prog="speed", description="Speed RL kit: envs, bots, tournaments."
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def rules_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", default="us", help="preset (us, pagat, japanese) or a .toml file")
        p.add_argument(
            "--option", action="append", default=[], metavar="KEY=VALUE", help="override one rule"
        )
        p.add_argument("--tick-ms", type=int, default=50)
        p.add_argument(
            "--reaction", default=None, help="ms or profile name, or two separated by a comma"
        )

    demo = sub.add_parser("demo", help="two bots play one game, shown as text")
    rules_args(demo)
    demo.add_argument("--agents", default="greedy,random", help="two agent specs, comma-separated")
    demo.add_argument("--seed", type=int, default=0)
    demo.add_argument(
        "--max-frames", type=int, default=12, help="tables to print before the result"
    )
    demo.set_defaults(func=cmd_demo)

    tour = sub.add_parser(
        "tournament", help="round robin on paired deals: leaderboard, ratings, plots"
    )
    rules_args(tour)
    tour.set_defaults(reaction="human")
    tour.add_argument(
        "--agents", default="random,greedy,chain", help="agent specs, comma-separated"
    )
    tour.add_argument(
        "--games", type=int, default=2000, help="games per pairing (half as many deals)"
    )
    tour.add_argument("--seed", type=int, default=0)
    _backend_args(tour, workers=1)
    tour.add_argument(
        "--gauntlet", default=None, metavar="AGENT", help="only this agent against each other"
    )
    tour.add_argument("--out", default="results", help="output folder")
    tour.add_argument(
        "--save-replays", type=int, default=0, metavar="N", help="record N games as JSON Lines"
    )
    tour.add_argument(
        "--match",
        action="store_true",
        help="us/pagat: also score matches, consecutive games of a pairing (seats alternating, "
        "paired deals) until a seat has match_target points (--option match_target=N)",
    )
    tour.add_argument(
        "--game",
        choices=("realtime", "vintage"),
        default="realtime",
        help="realtime (two players, paired deals) or vintage (N players, seat rotation; "
        "--games per line-up, rule options as --option)",
    )
    tour.add_argument(
        "--players", type=int, default=None, help="vintage: players at each table, 2-10 (default 4)"
    )
    tour.set_defaults(func=cmd_tournament)

    ag = sub.add_parser("agents", help="list the agent specs")
    ag.set_defaults(func=cmd_agents)

    rep = sub.add_parser("replay", help="play back a recorded game in the terminal")
    rep.add_argument("file")
    rep.add_argument("--game", type=int, default=0)
    rep.add_argument("--delay", type=float, default=0.0, help="seconds between frames")
    rep.set_defaults(func=cmd_replay)

    def table_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--rules", default="us", help="preset (us, pagat, japanese) or a .toml file")
        p.add_argument(
            "--option", action="append", default=[], metavar="KEY=VALUE", help="override one rule"
        )
        p.add_argument(
            "--tick-ms", type=int, default=50, help="ms of game time per tick, 1-1000 (default 50)"
        )
        p.add_argument(
            "--port", type=int, default=0, help="port on 127.0.0.1, 0-65535 (default 0: a free one)"
        )
        p.add_argument(
            "--no-browser", action="store_true", help="print the URL, do not open a browser"
        )
        p.add_argument(
            "--seed", type=int, default=None, help="game i of a page visit is seeded SEED + i"
        )
        p.add_argument(
            "--replays-dir",
            default="replays",
            help="folder for JSON Lines replays ('' for none); a game is saved only if it had a "
            "play (yours; either bot's when watching)",
        )
        p.add_argument(
            "--replays-keep",
            type=int,
            default=200,
            metavar="N",
            help="keep at most N replay files in the folder, deleting the oldest (default 200)",
        )
        p.add_argument(
            "--replays-max-mb",
            type=int,
            default=64,
            metavar="MB",
            help="keep at most MB megabytes of replay files, deleting the oldest (default 64)",
        )
        p.add_argument(
            "--deal", default=None, metavar="FILE.json", help="an explicit deal for every game"
        )
        p.add_argument(
            "--countdown-ms",
            type=int,
            default=2000,
            help="get-ready time before each game, 0-60000",
        )

    play = sub.add_parser(
        "play",
        help="play a bot in the browser and measure your reaction time",
        description="Starts a local server (127.0.0.1 only) with the table as a page. Your card lands 1 ms after "
        "your play arrives (your own reaction already happened in real time); the bot's after its reaction "
        "profile. Needs the [web] extra.",
    )
    table_args(play)
    play.add_argument(
        "--opponent", default="chain", help="agent spec of the bot (e.g. trained, chain@pro)"
    )
    play.add_argument(
        "--reaction", default="human", help="the bot's reaction profile: ms or a profile name"
    )
    play.set_defaults(func=cmd_play)

    watch = sub.add_parser(
        "watch", help="watch two bots play live in the browser (0.5x, 1x, 2x, pause)"
    )
    table_args(watch)
    watch.add_argument("--agents", default="chain,greedy", help="two agent specs, comma-separated")
    watch.add_argument(
        "--reaction", default="human", help="profile of bots without @: one, or two by seat"
    )
    watch.set_defaults(func=cmd_watch, countdown_ms=1000)

    tr = sub.add_parser(
        "train",
        help="train a MaskablePPO agent (logs, gauntlet evaluations, checkpoints, curves, model)",
        description="Train with sb3-contrib's MaskablePPO (train/ppo.py). One timestep is one decision of the "
        "learner. Writes OUT/logs (TensorBoard, CSV), OUT/eval.csv, OUT/curves.png, OUT/checkpoints, "
        "OUT/model.json + model.safetensors (play it with ppo:OUT/model.json).",
    )
    with contextlib.suppress(
        ImportError
    ):  # without the [train] extra, `speed train` says so when run
        _train_args(tr)
    tr.add_argument(
        "--game",
        choices=("realtime", "vintage"),
        default="realtime",
        help="vintage: train/vintage_ppo.py (MaskablePPO at an N-player table; its own defaults "
        "for any flag not given; writes OUT/model.json, play it with vintage-ppo:OUT/model.json)",
    )
    tr.add_argument(
        "--players", type=int, default=None, help="vintage: players at the table, 2-10 (default 4)"
    )
    tr.set_defaults(func=cmd_train)

    trl = sub.add_parser(
        "train-rllib",
        help="multi-agent PPO with RLlib: masking, self-play, checkpoints, the kit model",
        description="Multi-agent PPO with RLlib on speed_v0 (train/rllib_ppo.py; the [ray] extra): one module "
        "'main' trained against itself, a frozen snapshot of itself and kit bots, illegal actions masked. "
        "Writes OUT/progress.csv, OUT/checkpoints/iter_N (RLlib), OUT/model.json + model.safetensors "
        "(play it with ppo:OUT/model.json) and OUT/summary.json.",
    )
    from train.ppo_common import field_help
    from train.rllib_ppo import Config as RLlibConfig

    rllib_helps = field_help(RLlibConfig)
    for f in dataclasses.fields(RLlibConfig):
        _field_flag(trl, f, rllib_helps.get(f.name, ""))
    trl.set_defaults(func=cmd_train_rllib)

    exp = sub.add_parser(
        "experiment", help="experiments: reaction (win rate against reaction latency)"
    )
    exp_sub = exp.add_subparsers(dest="experiment", required=True)
    rx = exp_sub.add_parser(
        "reaction",
        help="win rate against reaction latency, a logistic fit, the break-even latency",
        description="Play --agent at each of --latencies against --opponent at --opponent-latency on paired "
        "deals (the same deals at every point), fit a logistic curve of win rate against the latency "
        "difference and report the break-even difference and the ms worth ten points of win rate, with "
        "bootstrap intervals. Latencies are ms (fixed) or profile names (superhuman, pro, human, casual: "
        "jittered ex-Gaussian, placed on the axis at their median); with --jitter each numeric latency L of the "
        "agent is the human shape (or --jitter PRESET's) moved to mean L. Writes OUT/reaction.csv, "
        "OUT/reaction.json, OUT/winrate_vs_latency.png and, with --grid, OUT/latency_grid.png.",
    )
    rx.add_argument(
        "--agent", default="chain", help="spec of the agent whose latency varies (no @)"
    )
    rx.add_argument("--opponent", default="greedy", help="spec of the opponent (no @)")
    rx.add_argument(
        "--latencies", default="150,200,250,300,350", help="the agent's latencies, comma-separated"
    )
    rx.add_argument(
        "--opponent-latency",
        default=None,
        metavar="LATENCY",
        help="the opponent's latency (default 250); with --grid a list (default: --latencies)",
    )
    rx.add_argument(
        "--grid", action="store_true", help="play every pair of agent and opponent latencies"
    )
    rx.add_argument(
        "--jitter",
        nargs="?",
        const="human",
        default=None,
        metavar="PRESET",
        help="the agent's ms latencies jitter: PRESET's shape (default human) moved to mean L; "
        "the opponent then defaults to that preset",
    )
    rx.add_argument("--games", type=int, default=2000, help="games per point (half as many deals)")
    rx.add_argument("--seed", type=int, default=0)
    _backend_args(rx, workers=2)
    rx.add_argument(
        "--bootstrap",
        type=int,
        default=1000,
        help="bootstrap resamples for the intervals (0: none)",
    )
    rx.add_argument(
        "--compare",
        default="",
        metavar="DIR[,DIR]",
        help="earlier sweeps' output folders to draw beside this one on the curve",
    )
    rx.add_argument("--rules", default="us", help="preset (us, pagat, japanese) or a .toml file")
    rx.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="override one rule"
    )
    rx.add_argument("--tick-ms", type=int, default=50)
    rx.add_argument("--out", default="results/reaction", help="output folder")
    rx.set_defaults(func=cmd_experiment_reaction)

    bench = sub.add_parser("bench", help="env throughput (steps/s)")
    bench.add_argument("--rules", default="us")
    bench.add_argument("--sizes", default="1,256,4096", help="BatchEnv batch sizes")
    bench.add_argument("--seconds", type=float, default=3.0, help="time per system")
    bench.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="interleaved rounds (each system gets --seconds / --rounds a round)",
    )
    bench.add_argument(
        "--compare",
        action="store_true",
        help="also PettingZoo's connect_four_v3 and, when installed, pgx's connect_four "
        "(at the largest --sizes), as ratios",
    )
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
