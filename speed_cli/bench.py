"""``speed bench``: game-steps per second of the kit's envs with random legal actions, optionally
beside PettingZoo's ``connect_four_v3`` and pgx's ``connect_four``."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from speed_cli.common import add_command_flags, count, count_list, real


@dataclass
class BenchSettings:
    """What ``speed bench`` times, for how long, and how it shows the figures."""

    rules: str = "us"
    """preset (us, pagat, japanese) or a .toml file"""
    sizes: Sequence[int] = field(
        default=(1, 256, 4096), metadata={"type": count_list(1, 1_000_000)}
    )
    """BatchEnv batch sizes, comma-separated"""
    seconds: float = field(default=3.0, metadata={"type": real(above=0, high=3600)})
    """time per system, up to 3600"""
    rounds: int = field(default=5, metadata={"type": count(1)})
    """interleaved rounds (each system gets --seconds / --rounds a round)"""
    compare: bool = False
    """also PettingZoo's connect_four_v3 and, when installed, pgx's connect_four (at the largest
    --sizes), as ratios"""
    vector_size: int = field(default=1024, metadata={"type": count(0, 1_000_000)})
    """games of make_vec's native vector env, timed beside vectorization_mode='sync' and BatchEnv
    at that size, as two ratios (0 skips it)"""
    json: bool = False
    """print JSON instead of a table"""


def register(sub: Any) -> None:
    """Add ``speed bench`` to the subcommands ``sub``, one flag per :class:`BenchSettings` field."""
    bench = sub.add_parser("bench", help="env throughput (steps/s)")
    add_command_flags(bench, BenchSettings)
    bench.set_defaults(func=run)


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


class _Sampler:
    """The compiled random legal player as a batch ``Policy``: the vector envs' opponent."""

    def __init__(self, seed: int) -> None:
        import numpy as np

        self.rng = np.random.default_rng(seed)

    def act(self, obs: Any, mask: Any) -> Any:
        from speed_env.policy import sample_legal

        return sample_legal(mask, self.rng.random(len(mask)))


def _kit_vector(rules: str, n: int, mode: str | None) -> Runner:
    """``gymnasium.make_vec("speed_env/Speed-v1", num_envs=n)``: the native vector env, or with
    ``mode="sync"`` Gymnasium's ``SyncVectorEnv`` of ``n`` single envs; the learner's actions
    and the opponent's (inside the env) both from the compiled sampler."""
    import gymnasium
    import numpy as np

    import speed_env  # registers the ids
    from speed_env.policy import sample_legal

    del speed_env
    env = gymnasium.make_vec(
        "speed_env/Speed-v1",
        num_envs=n,
        vectorization_mode=mode,
        rules=rules,
        opponent=_Sampler(1),
    )
    rng = np.random.default_rng(0)
    state: dict[str, Any] = {"mask": env.reset(seed=0)[1]["action_mask"]}

    def run(budget: float) -> tuple[int, float, float, float]:
        mask = state["mask"]
        steps, env_s = 0, 0.0
        start, cpu = time.perf_counter(), time.process_time()
        while time.perf_counter() - start < budget:
            actions = sample_legal(mask, rng.random(n))
            t0 = time.perf_counter()
            *_, infos = env.step(actions)
            env_s += time.perf_counter() - t0
            mask = infos["action_mask"]  # the reset rows' masks too (next-step autoreset)
            steps += 1
        state["mask"] = mask
        return steps * n, env_s, time.perf_counter() - start, time.process_time() - cpu

    return run


def _connect_four() -> Runner | None:
    """PettingZoo's ``connect_four_v3`` (AEC; one move a step), or None without
    pettingzoo[classic]."""
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


def run(args: argparse.Namespace) -> int:
    """Game-steps per second of ``parallel_env`` and ``BatchEnv`` with random legal actions.

    With ``--vector-size N`` (default 1024; 0 skips it), also ``make_vec``'s native vector
    env at ``N`` games beside ``vectorization_mode="sync"`` and ``BatchEnv`` at ``N``, as
    two ratios with their targets (:data:`VECTOR_TARGETS`).

    With ``--compare``, beside PettingZoo's ``connect_four_v3`` and (when
    installed) pgx's ``connect_four`` at the largest batch size, as ratios.
    """
    from agents.runtime.flags import from_args

    cfg = from_args(BenchSettings, args)
    sizes = list(cfg.sizes)  # checked by the flag's type
    runners: dict[str, Runner] = {"parallel_env 1": _kit_parallel(cfg.rules)}
    runners.update({f"BatchEnv {n}": _kit_batch(cfg.rules, n) for n in sizes})
    refs: dict[str, str] = {}  # kit row -> the row it is compared with
    missing = []
    if cfg.compare:
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
                runners[f"BatchEnv({label}) {big}"] = _kit_batch(cfg.rules, big, **kwargs)
                refs[f"BatchEnv({label}) {big}"] = f"pgx connect_four {big}"
            runners[f"pgx connect_four {big}"] = pgx_c4
            refs[f"BatchEnv {max(sizes)}"] = f"pgx connect_four {max(sizes)}"
    vector: dict[str, str] = {}  # what the native vector env is compared with -> its row
    if cfg.vector_size:
        big = cfg.vector_size
        runners[f"make_vec {big}"] = _kit_vector(cfg.rules, big, None)
        runners[f"make_vec(sync) {big}"] = _kit_vector(cfg.rules, big, "sync")
        vector = {"sync": f"make_vec(sync) {big}", "BatchEnv": f"BatchEnv {big}"}
        if vector["BatchEnv"] not in runners:
            runners[vector["BatchEnv"]] = _kit_batch(cfg.rules, big)
    rates = _measure(runners, cfg.seconds, cfg.rounds)
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
    ratios = _vector_ratios(rates, f"make_vec {cfg.vector_size}", vector)
    if cfg.json:
        report: dict[str, Any] = {
            "rules": cfg.rules,
            "rounds": cfg.rounds,
            "results": rows,
            "missing": missing,
        }
        if ratios:
            report["vector"] = {"n": cfg.vector_size, **ratios}
        print(json.dumps(report, indent=2))
        return 0
    print(
        f"rules={cfg.rules}; game-steps/s with a random legal player in the loop (loop), "
        "of env.step alone (step), and per CPU-second of the loop (cpu); "
        f"medians of {cfg.rounds} interleaved rounds"
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
    if ratios:
        print(
            f"make_vec('speed_env/Speed-v1', num_envs={cfg.vector_size}), the native vector env, "
            "in the same rounds (loop / cpu):"
        )
        for what, target in VECTOR_TARGETS.items():
            got = ratios[what]
            label = {"sync": "vectorization_mode='sync'"}.get(what, f"BatchEnv {cfg.vector_size}")
            print(
                f"  {got['loop_ratio']:.2f}x / {got['cpu_ratio']:.2f}x {label} "
                f"(target >= {target}x)"
            )
    for m in missing:
        print(f"not compared: {m}")
    return 0


VECTOR_TARGETS = {"sync": 50.0, "BatchEnv": 0.8}
"""The native vector env's throughput targets: at least this many times each reference's."""


def _vector_ratios(
    rates: dict[str, list[dict[str, float]]], native: str, refs: dict[str, str]
) -> dict[str, dict[str, float]]:
    """The native vector env's ratio to each reference: medians over rounds of the ratio within
    each round (loop and cpu), with the target."""
    out = {}
    for ref, name in refs.items():
        out[ref] = {
            f"{k}_ratio": _median(
                [a[k] / b[k] for a, b in zip(rates[native], rates[name], strict=True)]
            )
            for k in ("loop", "cpu")
        }
        out[ref]["target"] = VECTOR_TARGETS[ref]
    return out
