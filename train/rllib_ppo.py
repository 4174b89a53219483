"""Multi-agent PPO with RLlib on ``speed_v1``: action masking, self-play, checkpoints, kit model.

Run it as ``speed train-rllib --out runs/rllib`` (the ``[ray]`` extra; see
docs/ray.md, "RLlib: multi-agent PPO with action masking"). What it does, top to bottom:

- The env: ``speed_v1`` (``player_0`` and ``player_1``, the dict observation
  with its ``int8`` mask), either one PettingZoo game per env or batches of
  games on the batch engine (``env_runner``, see :mod:`train.rllib.env`).
- The modules: ``main``, the learner (:class:`~train.rllib.module.MaskedMLPModule`,
  illegal actions masked out of its logits), and its opponents: ``main`` itself
  (``self``), ``snapshot`` (a frozen copy of ``main``, refreshed every
  ``snapshot_every`` iterations) and any kit bot (``greedy``, ``chain`` …,
  :class:`~train.rllib.module.BotModule`). Each episode maps one seat, drawn
  from the episode's id, to ``main`` and the other to one of ``opponents``;
  only ``main`` is trained, and with ``self`` both seats' experience trains it.
- The loop: ``iterations`` PPO updates; every ``checkpoint_every`` and at the
  end an RLlib checkpoint (``OUT/checkpoints/iter_N``, resumable with
  ``Algorithm.from_checkpoint``) and the kit model ``OUT/model.json`` +
  ``OUT/model.safetensors`` (play it with ``ppo:OUT/model.json`` in
  ``speed tournament``, ``speed play`` and the reaction experiments);
  ``OUT/progress.csv`` logs each iteration. Ctrl-C stops after the current
  iteration and still writes the model.
"""

from __future__ import annotations

import csv
import dataclasses
import sys
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.runtime.files import write_json
from agents.runtime.interrupts import interrupted_by, said_interrupted
from train.common.sizes import hidden

ENV_RUNNERS = ("batch", "games")


@dataclass
class Config:
    """Settings of an RLlib PPO run (each one a ``speed train-rllib`` flag)."""

    out: str = "runs/rllib"
    """Output folder: progress.csv, checkpoints/, model.json + model.safetensors, summary.json."""
    iterations: int = 50
    """PPO iterations (each samples ``train_batch_size`` agent steps, then updates)."""
    rules: str = "us"
    """Rules preset (us, pagat, japanese) or a TOML file."""
    tick_ms: int = 50
    """Tick of the env in ms."""
    reaction: str = "human"
    """Reaction profile of both seats (ms or a profile name)."""
    opponents: str = "self,snapshot,greedy"
    """Who plays the other seat, one drawn per episode: self, snapshot and/or kit agent specs."""
    snapshot_every: int = 5
    """Iterations between refreshes of the frozen ``snapshot`` opponent from ``main``."""
    env_runner: str = "batch"
    """``batch``: each env runner steps ``games_per_runner`` games on BatchEnv at once;
    ``games``: one PettingZoo env per game (RLlib's ParallelPettingZooEnv)."""
    num_env_runners: int = 0
    """Remote env runner actors (0: sample in the driver)."""
    games_per_runner: int = 64
    """Games each env runner steps (num_envs_per_env_runner)."""
    train_batch_size: int = 4096
    """Env steps per PPO update."""
    minibatch_size: int = 512
    """Minibatch of the PPO update."""
    num_epochs: int = 4
    """Passes over each batch."""
    lr: float = 3e-4
    """Adam step size."""
    gamma: float = 1.0
    """Discount per tick (1: a postponed loss must not look better than a quick one)."""
    lambda_: float = 0.95
    """GAE's lambda."""
    entropy_coeff: float = 0.01
    """Entropy bonus."""
    net_arch: str = "256,256"
    """Hidden layer sizes of the actor and of the critic."""
    activation: str = "relu"
    """Hidden activation: tanh or relu."""
    checkpoint_every: int = 10
    """Iterations between checkpoints (and model exports); the last iteration always saves."""
    seed: int = 0
    """Seed of the env runners, the module initialisation and the opponent draws."""
    ray_address: str | None = None
    """Ray cluster to use (default: RAY_ADDRESS, else a local one started for the run)."""


def check(cfg: Config) -> list[str]:
    """Refuse settings that cannot work, naming the field; returns the opponent list."""
    import agents

    for name in (
        "iterations",
        "snapshot_every",
        "games_per_runner",
        "train_batch_size",
        "minibatch_size",
        "num_epochs",
        "checkpoint_every",
    ):
        if getattr(cfg, name) < 1:
            raise ValueError(f"{name} must be at least 1, got {getattr(cfg, name)}")
    if cfg.num_env_runners < 0:
        raise ValueError(f"num_env_runners must be 0 or more, got {cfg.num_env_runners}")
    if cfg.env_runner not in ENV_RUNNERS:
        raise ValueError(
            f"env_runner must be one of {', '.join(ENV_RUNNERS)}, got {cfg.env_runner!r}"
        )
    if cfg.minibatch_size > cfg.train_batch_size:
        raise ValueError(
            f"minibatch_size ({cfg.minibatch_size}) exceeds "
            f"train_batch_size ({cfg.train_batch_size})"
        )
    hidden(cfg)
    from agents.specs.registry import split_specs

    opponents = split_specs(cfg.opponents)
    if not opponents:
        raise ValueError("opponents must name at least one of self, snapshot or an agent spec")
    for spec in opponents:
        if spec not in ("self", "snapshot"):
            agents.parse_spec(spec)  # an unknown agent fails here, before any work
    return opponents


def opponent_module(spec: str) -> str:
    """The module id of an opponent: ``main``, ``snapshot`` or ``bot_SPEC``.

    RLlib's ids are file names, so the spec's ``:``, ``/``, ``@`` … become ``_``.
    """
    if spec in ("self", "snapshot"):
        return {"self": "main", "snapshot": "snapshot"}[spec]
    # A spec such as ppo:PATH?sample is no module id: keep letters, digits, "-" and "_".
    return "bot_" + "".join(c if c.isalnum() or c in "-_" else "_" for c in spec)


def seat_mapping(opponents: list[str], seed: int) -> Any:
    """Agent-to-module mapping: each episode, ``main`` in a seat, a drawn opponent in the other.

    Drawn from a hash of the episode id (stable across processes, unlike ``hash``),
    so both seats of one episode agree.
    """
    modules = [opponent_module(s) for s in opponents]

    def mapping(agent_id: str, episode: Any, **kwargs: Any) -> str:
        # crc32, not hash(): Python salts str hashes per process, and every env runner
        # process must map an episode to the same seats.
        h = zlib.crc32(f"{seed}:{episode.id_}".encode())
        # The low bit picks the learner's seat, the rest its opponent: the two vary apart.
        main_seat = h % 2
        return "main" if int(agent_id[-1]) == main_seat else modules[(h // 2) % len(modules)]

    return mapping


def build_config(cfg: Config) -> Any:
    """The ``PPOConfig`` of a run (the env registered, modules and mapping set)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from speed_env.rules import make_rules
    from train.rllib import env
    from train.rllib import module as rllib_module

    opponents = check(cfg)
    rules = make_rules(cfg.rules)
    register_env(env.ENV_NAME, env.make_game_env)
    env_config = {"rules": rules, "tick_ms": cfg.tick_ms, "reaction": cfg.reaction}
    net = {"hidden": hidden(cfg), "activation": cfg.activation}
    specs = {
        "main": RLModuleSpec(module_class=rllib_module.MaskedMLPModule, model_config=net),
        "snapshot": RLModuleSpec(module_class=rllib_module.MaskedMLPModule, model_config=net),
    }
    for spec in opponents:
        if spec not in ("self", "snapshot"):
            specs[opponent_module(spec)] = RLModuleSpec(
                module_class=rllib_module.BotModule,
                model_config={"spec": spec, "rules": rules, "seed": cfg.seed},
            )
    runner_kwargs: dict[str, Any] = {}
    if cfg.env_runner == "batch":
        runner_kwargs["env_runner_cls"] = env.BatchEnvRunner
    return (
        PPOConfig()
        .environment(env.ENV_NAME, env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=cfg.num_env_runners,
            num_envs_per_env_runner=cfg.games_per_runner,
            # "auto": RLlib sizes fragments so the runners' games fill one train batch.
            rollout_fragment_length="auto",
            **runner_kwargs,
        )
        .multi_agent(
            policies=set(specs),
            policy_mapping_fn=seat_mapping(opponents, cfg.seed),
            # Only main learns: the snapshot is copied from it, the bots are fixed.
            policies_to_train=["main"],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(
            train_batch_size_per_learner=cfg.train_batch_size,
            minibatch_size=cfg.minibatch_size,
            num_epochs=cfg.num_epochs,
            lr=cfg.lr,
            gamma=cfg.gamma,
            lambda_=cfg.lambda_,
            entropy_coeff=cfg.entropy_coeff,
        )
        .debugging(seed=cfg.seed)
    )


def refresh_snapshot(algo: Any) -> None:
    """Copy ``main``'s weights into the frozen ``snapshot`` opponent on every env runner."""
    state = algo.get_module("main").get_state()
    # The local runner too: with num_env_runners 0 it is the one that samples.
    algo.env_runner_group.foreach_env_runner(
        lambda runner: runner.module["snapshot"].set_state(state), local_env_runner=True
    )


def export(algo: Any, cfg: Config, path: Path, training: dict[str, Any]) -> Path:
    """Write ``main`` in the kit's model format; returns the manifest's path."""
    from agents.model_io.kit_model import save_model
    from speed_env.rules import make_rules
    from train.rllib.module import kit_tensors

    module = algo.get_module("main")
    state = {k: v.detach().cpu().numpy() for k, v in module.state_dict().items()}
    return save_model(
        path,
        kit_tensors(state),
        rules=make_rules(cfg.rules),
        hidden=module.hidden,
        activation=module.activation,
        reaction=cfg.reaction,
        tick_ms=cfg.tick_ms,
        training={"recipe": "train/rllib_ppo.py", **training},
    )


PROGRESS_COLUMNS = (
    "iteration",
    "env_steps",
    "episodes",
    "main_return_mean",
    "wall_s",
    "steps_per_s",
)


def _row(i: int, result: dict[str, Any], wall: float, steps_before: int) -> dict[str, Any]:
    runners = result.get("env_runners", {})
    steps = int(runners.get("num_env_steps_sampled_lifetime", 0))
    returns = runners.get("module_episode_returns_mean", {})
    return {
        "iteration": i,
        "env_steps": steps,
        "episodes": int(runners.get("num_episodes_lifetime", 0)),
        "main_return_mean": round(float(returns.get("main", float("nan"))), 4),
        "wall_s": round(wall, 2),
        # An iteration may report 0 s; the floor keeps the rate finite.
        "steps_per_s": round(
            (steps - steps_before) / max(float(result.get("time_this_iter_s", 0)), 1e-9), 1
        ),
    }


def train(cfg: Config) -> dict[str, Any]:
    """Run the recipe; returns the summary written to ``OUT/summary.json``. The run holds
    ``OUT``'s lock throughout (:mod:`agents.runtime.run_lock`: a second run on the same folder is
    refused at once, naming this one)."""
    from agents.runtime.run_lock import FolderLock

    check(cfg)
    with FolderLock(cfg.out):
        return _train(cfg)


def _train(cfg: Config) -> dict[str, Any]:
    from agents.runtime.ray_jobs import cluster

    out = Path(cfg.out)
    (out / "checkpoints").mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    complete = False
    stopped: str | None = None  # why the run ended early, for summary.json
    error: Exception | None = None
    t0 = time.perf_counter()
    with cluster(cfg.ray_address, workers=max(1, cfg.num_env_runners + 1)):
        algo = build_config(cfg).build_algo()
        try:
            with (out / "progress.csv").open("w", newline="") as f:
                writer = csv.DictWriter(f, PROGRESS_COLUMNS)
                writer.writeheader()
                steps = 0
                for i in range(1, cfg.iterations + 1):
                    result = algo.train()
                    row = _row(i, result, time.perf_counter() - t0, steps)
                    steps = row["env_steps"]
                    rows.append(row)
                    writer.writerow(row)
                    f.flush()
                    print(
                        f"iteration {i}/{cfg.iterations}: {row['env_steps']} env steps, "
                        "main's return "
                        f"{row['main_return_mean']}, {row['steps_per_s']} steps/s",
                        file=sys.stderr,
                    )
                    if i % cfg.snapshot_every == 0:
                        refresh_snapshot(algo)
                    # The last iteration is saved once, by the finally below.
                    if i % cfg.checkpoint_every == 0 and i < cfg.iterations:
                        algo.save_to_path(str((out / "checkpoints" / f"iter_{i}").resolve()))
                        export(algo, cfg, out / "model", {"iterations": i})
            complete = True
        except KeyboardInterrupt as exc:  # Ctrl-C, or a SIGTERM (agents.runtime.interrupts)
            stopped = f"interrupted ({interrupted_by(exc)})"
            print(f"{said_interrupted(exc)}: saving what was trained", file=sys.stderr)
        # Broad on purpose: any failure inside RLlib still leaves a model and a summary.
        except Exception as exc:  # save what was trained, say why, then raise it
            error, stopped = exc, f"failed: {type(exc).__name__}: {exc}"
            print(f"training {stopped}; saving what was trained", file=sys.stderr)
        finally:
            done = len(rows)
            checkpoint = out / "checkpoints" / f"iter_{done}"
            if done:
                algo.save_to_path(str(checkpoint.resolve()))
            manifest = export(
                algo,
                cfg,
                out / "model",
                {
                    "iterations": done,
                    "env_steps": rows[-1]["env_steps"] if rows else 0,
                    "seed": cfg.seed,
                    "opponents": cfg.opponents,
                },
            )
            # Inside the cluster block: the runners stop before Ray is shut down.
            algo.stop()
    summary = {
        "config": dataclasses.asdict(cfg),
        "complete": complete,
        "stopped": stopped,
        "iterations": len(rows),
        "model": str(manifest),
        "checkpoint": str(checkpoint) if rows else None,
        "wall_s": round(time.perf_counter() - t0, 2),
        "progress": rows,
    }
    write_json(out / "summary.json", summary)
    if error is not None:
        raise error
    return summary
