"""Behaviour cloning from recorded play: a person's (or a bot's) plays become a kit model.

``speed train bc --data DIR_OR_MINARI_ID --out M`` (or ``python -m train.bc_data``)
reads play records (a folder written by ``speed play --record`` or ``speed data
generate --out``) or a Minari dataset written by ``speed data export|generate``,
and fits a MaskablePPO actor (and critic) to the recorded seat's decisions with
:mod:`train.bc`'s loss, then writes ``M/model.json`` in the kit's format, so
``ppo:M/model.json`` plays in every command.

What is cloned is *which* play, not *when*: the decisions kept are the ticks
where the recorded seat played a card (a person's waits are mostly their
reaction time, which the env's latency profile stands for; fit it with ``speed
data profile`` and play the clone as ``ppo:M/model.json@profile:FILE``).

Whole games are held out (``--holdout``; ``bc.json``'s ``held_out`` lists them, numbered
from 0 in the order read: a folder's records of the seat by file name, a Minari
dataset's episodes) and the **held-out agreement**, the
share of held-out plays where the model's most likely play (a wait left out) is
the one recorded, is reported beside two references on the same plays: *chance* (a
uniformly random legal play) and *chain* (the kit's heuristic bot).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from speed_data.record_check import check_steps
from speed_data.records import rules_from
from speed_env.rules import Rules


@dataclass
class Decisions:
    """The recorded seat's decisions as arrays, one row a tick.

    With the rules they were made under.
    """

    obs: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    ret: np.ndarray
    """Discounted return from each tick to the end of its game."""
    game: np.ndarray
    reaction_ms: np.ndarray
    """The person's measured reaction time of each tick's play in ms (NaN where none)."""
    rules: Rules
    tick_ms: int
    source: str


def discounted_returns(rewards: np.ndarray, gamma: float) -> np.ndarray:
    """float32: the discounted return from each step of one game to its end."""
    out = np.zeros(len(rewards), np.float32)
    g = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        g = float(rewards[t]) + gamma * g
        out[t] = g
    return out


def load(data: str, seat: str = "human", gamma: float = 0.99) -> Decisions:
    """The decisions of a records folder or of a Minari dataset id.

    ``seat`` is ``human``, ``bot`` or ``any``. Refused by name when empty or played under
    different rules, and when a record or episode is not true of its game
    (:mod:`speed_data.record_check`: the first bad file or episode and its first wrong key).
    """
    games: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    rules: list[dict[str, Any]] = []
    ticks: list[int] = []
    if Path(data).is_dir():
        from speed_data import record_check, records

        for rec in record_check.read_records(data, None if seat == "any" else seat):
            arr = records.arrays(rec)
            games.append(
                (
                    # The last observation follows the last action: nothing was chosen there.
                    arr["observations"][:-1],
                    arr["masks"][:-1],
                    arr["actions"],
                    arr["rewards"],
                    arr["reaction_ms"],
                )
            )
            rules.append(rec["rules"])
            ticks.append(rec["tick_ms"])
        source = f"play records in {data} ({seat} seat)"
    else:
        try:
            import minari
        except ImportError:
            raise ValueError(
                f"--data {data!r} is not a folder, and a Minari dataset id needs the [data] extra"
            ) from None
        try:
            dataset = minari.load_dataset(data)
        except (FileNotFoundError, ValueError) as exc:
            raise ValueError(
                f"--data {data!r} is neither a records folder nor a local Minari dataset ({exc})"
            ) from None
        kwargs = dataset.spec.env_spec.kwargs if dataset.spec.env_spec is not None else {}
        if "rules" not in kwargs:
            raise ValueError(f"Minari dataset {data!r} was not written by the Speed kit")
        ds_rules = rules_from(kwargs["rules"], f"Minari dataset {data!r}")
        for ep in dataset.iterate_episodes():
            mask = np.asarray(ep.infos["action_mask"], np.int8)
            # The same checks as a record's: in the space, legal under its mask, Speed-v1's pay.
            check_steps(
                np.asarray(ep.observations, np.float32),
                mask,
                np.asarray(ep.actions, np.int64),
                np.asarray(ep.rewards, np.float64),
                ds_rules,
                f"Minari dataset {data!r} episode {ep.id}",
            )
            # infos hold one row more than actions (the reset's first): step t's time is row t + 1
            reaction = np.asarray(ep.infos["reaction_ms"], np.float64)[1:]
            games.append((ep.observations[:-1], mask[:-1], ep.actions, ep.rewards, reaction))
            rules.append(kwargs["rules"])
            ticks.append(int(kwargs.get("tick_ms", 50)))
        source = f"Minari dataset {data}"
    if not games:
        raise ValueError(f"no {seat} games in {data!r}")
    if any(r != rules[0] for r in rules):
        raise ValueError(f"the games in {data!r} were played under different rules")
    return Decisions(
        obs=np.concatenate([g[0] for g in games]).astype(np.float32),
        mask=np.concatenate([g[1] for g in games]).astype(np.int8),
        action=np.concatenate([g[2] for g in games]).astype(np.int64),
        ret=np.concatenate([discounted_returns(np.asarray(g[3]), gamma) for g in games]),
        game=np.concatenate([np.full(len(g[2]), i) for i, g in enumerate(games)]),
        reaction_ms=np.concatenate([g[4] for g in games]).astype(np.float64),
        rules=rules_from(rules[0], f"the games in {data!r}"),
        tick_ms=ticks[0],
        source=source,
    )


def agreement(pred: np.ndarray, action: np.ndarray) -> float:
    """Share of rows where ``pred`` is the recorded action."""
    return float(np.mean(pred == action)) if len(action) else float("nan")


def chance_agreement(choice: np.ndarray) -> float:
    """Agreement of a uniformly random legal play on rows of play masks ``choice``.

    Wait is left out: the mean of one over each row's legal plays.
    """
    n_plays = choice[:, 1:].sum(axis=1)
    return float(np.mean(1.0 / np.maximum(n_plays, 1))) if len(choice) else 0.0


def clone(
    data: Decisions,
    out: str | Path,
    *,
    epochs: int = 100,
    holdout: float = 0.2,
    net_arch: Sequence[int] = (64, 64),
    seed: int = 0,
    log: Any = print,
) -> dict[str, Any]:
    """Fit a MaskablePPO policy to ``data``'s plays, write ``out/model.json``; the stats."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents import make
    from speed_env.single import SpeedGymEnv
    from train.bc import BCConfig, _fit, _forward
    from train.policy.checkpoint import export_model
    from train.policy.masked_policy import OnceMaskedPolicy

    # A small MLP pays torch's thread hand-offs on every batch; one thread is several times
    # faster (speed_env.single's "Training speed").
    torch.set_num_threads(1)
    torch.manual_seed(seed)
    # Plays only: a person's waits mostly measure reaction time, which the engine
    # draws apart from the policy.
    plays = data.action != 0
    obs, mask, action = data.obs[plays], data.mask[plays], data.action[plays]
    ret, game = data.ret[plays], data.game[plays]
    rng = np.random.default_rng(seed)
    games = np.unique(game)
    if len(games) < 2:
        raise ValueError("cloning needs at least 2 games with plays (one is held out)")
    # At least one game held out, and at least one left to train on.
    n_held = min(len(games) - 1, max(1, round(holdout * len(games))))
    held_games = np.sort(rng.choice(games, n_held, replace=False))
    held = np.isin(game, held_games)
    best = np.zeros_like(mask)
    best[np.arange(len(action)), action] = 1
    arrays = {"obs": obs, "mask": mask, "best": best, "ret": ret, "game": game}
    # Only to give MaskablePPO its spaces: the fit reads the recorded arrays.
    env = SpeedGymEnv(data.rules, tick_ms=data.tick_ms)
    model = MaskablePPO(
        OnceMaskedPolicy,
        env,
        policy_kwargs={"net_arch": {"pi": list(net_arch), "vf": list(net_arch)}},
        seed=seed,
        device="cpu",
    )
    cfg = BCConfig(teacher="recorded", epochs=epochs, batch_size=256)
    t0 = time.perf_counter()
    _fit(model.policy, arrays, np.flatnonzero(~held), epochs, cfg, rng, None)
    fit_s = time.perf_counter() - t0
    test = np.flatnonzero(held)
    choice = mask[test].copy()
    choice[:, 0] = 0  # compared on which play: a recorded play is never a wait
    with torch.no_grad():
        log_p, _ = _forward(model.policy, torch.as_tensor(obs[test]), choice)
    pred = log_p.argmax(dim=1).numpy()
    # A yardstick: how often a simple rule bot picks the person's play.
    chain = make("chain", data.rules, seed=seed).act(obs[test], choice)
    stats: dict[str, Any] = {
        "data": data.source,
        "rules": data.rules.preset,
        "plays": int(plays.sum()),
        "games": len(games),
        "held_out_games": n_held,
        "held_out": [int(g) for g in held_games],
        "held_out_plays": len(test),
        "held_out_agreement": agreement(pred, action[test]),
        "chance_agreement": chance_agreement(choice),
        "chain_agreement": agreement(np.asarray(chain), action[test]),
        "epochs": epochs,
        "fit_s": round(fit_s, 2),
    }
    path = export_model(
        model,
        Path(out) / "model.json",
        rules=data.rules,
        reaction=None,
        tick_ms=data.tick_ms,
        training={"recipe": "bc_data", **stats},
    )
    (Path(out) / "bc.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    log(
        f"cloned {stats['plays']} plays of {stats['games']} games; held-out agreement "
        f"{100 * stats['held_out_agreement']:.1f}% on {stats['held_out_plays']} plays of "
        f"{n_held} games (chance {100 * stats['chance_agreement']:.1f}%, chain "
        f"{100 * stats['chain_agreement']:.1f}%); model {path} (play it as ppo:{path})"
    )
    return stats


def build_parser(prog: str = "speed train bc") -> argparse.ArgumentParser:
    """The flags of ``speed train bc``."""
    from agents.runtime.flags import FlagParser
    from train.common.numbers import real
    from train.common.settings import FLAG_TYPES
    from train.common.sizes import layer_sizes

    # Every flag's value checked as it is parsed, naming the flag in one line, as the PPO
    # recipes' are (train.common.settings.FLAG_TYPES).
    p = FlagParser(prog=prog, description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--data", required=True, help="a play records folder or a Minari dataset id")
    p.add_argument("--out", required=True, help="folder for model.json (and bc.json)")
    p.add_argument(
        "--seat",
        choices=("human", "bot", "any"),
        default="human",
        help="whose records of a folder to clone (default human)",
    )
    p.add_argument(
        "--epochs",
        type=FLAG_TYPES["epochs"],
        default=100,
        help="passes over the plays (default 100)",
    )
    # Above 0: the held-out games are where agreement is measured.
    p.add_argument(
        "--holdout", type=real(above=0, below=1), default=0.2, help="share of games held out"
    )
    p.add_argument(
        "--net-arch",
        type=layer_sizes,
        default=[64, 64],
        metavar="NET_ARCH",
        help="hidden layer sizes (default 64,64)",
    )
    p.add_argument("--seed", type=FLAG_TYPES["seed"], default=0)
    p.add_argument(
        "--overwrite",
        action="store_true",
        help="--out holds another run: move it aside (to OUT.replaced-TIME, named) and start "
        "afresh; without it such a folder is refused",
    )
    return p


def digest(data: Decisions) -> str:
    """SHA-256 of the decisions cloned: a run on other data is not the run already there."""
    h = hashlib.sha256()
    for part in (data.obs, data.mask, data.action, data.game, data.reaction_ms):
        h.update(np.ascontiguousarray(part).tobytes())
    h.update(json.dumps([data.rules.to_dict(), data.tick_ms], sort_keys=True).encode())
    return h.hexdigest()


def run(argv: Sequence[str], prog: str = "speed train bc") -> int:
    """Parse ``argv`` and clone; 0 when the model is written."""
    args = build_parser(prog).parse_args(list(argv))
    data = load(args.data, args.seat)
    from agents.runtime import run_identity

    identity = run_identity.RunIdentity(
        "speed train bc", run_identity.flag_settings(args), {"--data": digest(data)}
    )
    with run_identity.RunOutput(
        args.out, identity, results=("model.json", "bc.json"), overwrite=args.overwrite
    ) as run_folder:
        if run_folder.done is not None:
            print(run_folder.done)
            return 0
        clone(
            data,
            args.out,
            epochs=args.epochs,
            holdout=args.holdout,
            net_arch=args.net_arch,
            seed=args.seed,
        )
        out = run_folder.path
        run_folder.finish(
            [out / n for n in ("model.json", "model.safetensors", "bc.json") if (out / n).exists()]
        )
    return 0


def main() -> int:
    """``python -m train.bc_data``: bad flags or data print one line and return 2."""
    try:
        return run(sys.argv[1:], "python -m train.bc_data")
    except BrokenPipeError:  # stdout's reader gone: run_main's to end
        raise
    except (ValueError, OSError) as exc:  # bad flags or data; a folder in use or unwritable
        print(f"train.bc_data: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    from agents.runtime.entry import run_main  # Ctrl-C, SIGTERM, a reader gone: as speed's

    raise SystemExit(run_main(main))
