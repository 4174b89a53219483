"""Fit a Vintage Speed value network V(obs) on games of cheap bots.

    python -m train.vintage_value --games 4000 --bots vintage-tactician,vintage-greedy \\
        --seed 0 --out runs/vintage_value/value.safetensors

The games are ``games`` games at a ``players`` table, the seats played by
``bots`` cycled (seat ``s`` of game ``g`` by ``bots[(g + s) % len(bots)]``).
After every action each seat's observation is recorded with probability
``keep`` (the search asks for the value of its own seat at any point of a
rollout, also on another seat's turn), labelled with the share of the other
seats that seat finished ahead of (fewer penalty points; ties and truncation
count half). A small MLP (``net_arch``, sigmoid output) is fitted by binary
cross-entropy to that share on all but a held-out share of the games, whose
mean squared error is reported beside that of the constant mean (``r2``: the
share of the variance explained). The result is a
:class:`agents.vintage.value.ValueNet` file that ``vintage-search:leaf=D,value=PATH``
and ``speed train-expert --leaf D`` read. :func:`fit_value` is the function.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class ValueConfig:
    """Every setting of a value-network fit."""

    players: int = 4
    """Players at the table (2-10)."""
    games: int = 4000
    """Games played to record observations (at least 2: one or more are held out)."""
    bots: str = "vintage-tactician,vintage-greedy"
    """Comma-separated vintage bots that play the seats, cycled."""
    keep: float = 0.25
    """Chance that one seat's observation after one action is recorded."""
    net_arch: str = "128,128"
    """Hidden layer sizes."""
    epochs: int = 8
    """Passes over the recorded observations."""
    batch_size: int = 512
    """Observations per gradient step."""
    learning_rate: float = 1e-3
    """Adam step size, cosine-decayed to 0."""
    holdout: float = 0.1
    """Share of the games held out to measure the fit (whole games: one game's observations are
    correlated, so none of a held-out game's is fitted)."""
    seed: int = 0
    """Seed of the games, the recording and the fit."""
    torch_threads: int = 1
    """Threads torch may use."""
    out: str = "runs/vintage_value/value.safetensors"
    """The value network file to write."""
    progress: bool = True
    """Print progress on stderr."""


def record(cfg: ValueConfig) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, their seat's final finished-ahead share, and their game's index."""
    from agents.vintage import registry
    from agents.vintage.value import ahead_share
    from speed_env.vintage import raw_env
    from speed_env.vintage.engine import TRUNCATED, penalties
    from train.common.settings import specs

    # A seed per bot: two bots of one spec must not draw the same random stream.
    bots = [registry.make(s, seed=cfg.seed + k) for k, s in enumerate(specs(cfg.bots))]
    rng = np.random.default_rng(cfg.seed)
    obs: list[np.ndarray] = []
    seats: list[int] = []
    labels: list[float] = []
    game_ids: list[int] = []
    for g in range(cfg.games):
        env = raw_env(num_players=cfg.players, games=1)
        env.reset(seed=int(rng.integers(2**31)))
        start = len(obs)
        while not env.game.over:
            view = env.observe(env.agent_selection)
            # Bots rotate by game and seat, so every bot meets every position.
            bot = bots[(g + env.game.current) % len(bots)]
            env.step(int(bot.act(view["observation"][None], view["action_mask"][None])[0]))
            # Every seat's view may be kept, not only the mover's: the value is asked of any
            # seat. keep thins the rows, which after each move are much alike.
            for kept in np.flatnonzero(rng.random(cfg.players) < cfg.keep):
                obs.append(env.observe(env.possible_agents[kept])["observation"])
                seats.append(int(kept))
        game = env.game
        points = penalties(game)
        for seat in seats[start:]:
            # A game cut by the turn limit says nothing of who was ahead: the neutral 0.5.
            labels.append(0.5 if game.status == TRUNCATED else ahead_share(points, seat))
        game_ids += [g] * (len(obs) - start)
    # The reshape needs a width even when nothing was kept.
    width = len(obs[0]) if obs else 0
    return (
        np.asarray(obs, np.float32).reshape(-1, width),
        np.asarray(labels, np.float32),
        np.asarray(game_ids, np.int64),
    )


def fit_value(cfg: ValueConfig) -> dict[str, Any]:
    """Record, fit and write the value network; returns what was measured.

    That is also saved in the file's ``training`` record.
    """
    import torch

    from agents.vintage.value import ValueNet, save_value
    from speed_env.vintage import make_vintage_rules
    from train.vintage_ppo import observation_scale

    check_config(cfg)
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.torch_threads)
    t0 = time.perf_counter()
    obs, labels, games = record(cfg)
    record_s = time.perf_counter() - t0
    scale = observation_scale(make_vintage_rules(cfg.players, 1))
    # Apart from the recording's generator (seed): the split and shuffles draw their own.
    rng = np.random.default_rng(cfg.seed + 1)
    ids = np.unique(games)
    # Held out by whole games: rows of one game are alike, so a row split would leak.
    held = np.isin(
        games, rng.choice(ids, size=max(1, round(len(ids) * cfg.holdout)), replace=False)
    )
    sizes = [int(h) for h in cfg.net_arch.split(",")]
    layers: list[torch.nn.Module] = []
    width = obs.shape[1]
    for h in sizes:
        layers += [torch.nn.Linear(width, h), torch.nn.Tanh()]
        width = h
    net = torch.nn.Sequential(*layers, torch.nn.Linear(width, 1))
    x = torch.as_tensor(obs * scale[None, :])
    y = torch.as_tensor(labels)
    train_idx = np.flatnonzero(~held)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate)
    # Ceiling division: the last short batch is a step too, and the cosine schedule
    # must span every step.
    steps = cfg.epochs * -(-len(train_idx) // cfg.batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, steps))
    # The labels are shares in [0, 1]: a logistic output fits them.
    loss_fn = torch.nn.BCEWithLogitsLoss()
    t1 = time.perf_counter()
    for epoch in range(cfg.epochs):
        rng.shuffle(train_idx)
        for start in range(0, len(train_idx), cfg.batch_size):
            b = torch.as_tensor(train_idx[start : start + cfg.batch_size])
            loss = loss_fn(net(x[b])[:, 0], y[b])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            schedule.step()
        if cfg.progress:
            print(
                f"value epoch {epoch}: loss {float(loss.detach()):.4f}", file=sys.stderr, flush=True
            )
    fit_s = time.perf_counter() - t1
    linears = [m for m in net if isinstance(m, torch.nn.Linear)]
    tensors: dict[str, np.ndarray] = {}
    for k, lin in enumerate(linears):
        name = "out" if k == len(linears) - 1 else f"v.{k}"
        w = lin.weight.detach().numpy().astype(np.float32)
        tensors[f"{name}.weight"] = w * scale[None, :] if k == 0 else w  # reads raw observations
        tensors[f"{name}.bias"] = lin.bias.detach().numpy().astype(np.float32)
    value = ValueNet(tensors, "tanh", cfg.out)
    pred = value(obs[held])
    mse = float(np.mean((pred - labels[held]) ** 2))
    # The constant predictor, the training mean: r2 says how much the network beats it.
    base = float(np.mean((labels[~held].mean() - labels[held]) ** 2))
    measured = {
        "observations": len(obs),
        "held_out": int(held.sum()),
        "held_out_mse": round(mse, 5),
        "constant_mse": round(base, 5),
        "r2": round(1 - mse / base, 4) if base > 0 else None,
        "record_s": round(record_s, 1),
        "fit_s": round(fit_s, 1),
    }
    value.training = {"recipe": "train/vintage_value.py", "config": asdict(cfg), **measured}
    save_value(cfg.out, value)
    if cfg.progress:
        print(f"value network {cfg.out}: {measured}", file=sys.stderr, flush=True)
    return measured


def check_config(cfg: ValueConfig) -> None:
    """Refuse settings that cannot work, naming the field."""
    from agents.vintage import registry
    from train.common.settings import specs

    # Two games at least: one is held out and one must remain to train on.
    for name, least in (("games", 2), ("epochs", 1), ("batch_size", 1), ("torch_threads", 1)):
        value = getattr(cfg, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise ValueError(f"{name} must be a whole number, at least {least}; got {value!r}")
    if isinstance(cfg.seed, bool) or not isinstance(cfg.seed, int) or cfg.seed < 0:
        raise ValueError(f"seed must be a whole number, at least 0; got {cfg.seed!r}")
    if not 0 < cfg.learning_rate < float("inf"):
        raise ValueError(f"learning_rate must be a number above 0, got {cfg.learning_rate!r}")
    if not 2 <= cfg.players <= 10:
        raise ValueError(f"players must be 2-10, got {cfg.players!r}")
    if not 0 < cfg.keep <= 1:
        raise ValueError(f"keep must be above 0 and at most 1, got {cfg.keep!r}")
    if not 0 < cfg.holdout < 1:
        raise ValueError(f"holdout must be between 0 and 1, got {cfg.holdout!r}")
    try:
        if not all(int(h) > 0 for h in cfg.net_arch.split(",")):
            raise ValueError
    except ValueError:
        raise ValueError(f"net_arch must be sizes like 128,128; got {cfg.net_arch!r}") from None
    bots = specs(cfg.bots)
    if not bots or not all(registry.is_vintage(b) for b in bots):
        raise ValueError(f"bots must name vintage agents; got {cfg.bots!r}")
    if Path(cfg.out).is_dir():
        raise ValueError(f"out must be a file path, not the folder {cfg.out}")


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m train.vintage_value``: bad settings print one line and return 2."""
    from train.common.settings import recipe_main

    def run(cfg: ValueConfig) -> dict[str, Any]:
        return {"complete": True, **fit_value(cfg)}

    return recipe_main(
        ValueConfig, run, argv, prog="python -m train.vintage_value", description=__doc__ or ""
    )


if __name__ == "__main__":  # pragma: no cover
    from agents.runtime.entry import run_main  # a reader gone from stdout: 141, as speed's

    raise SystemExit(run_main(main))
