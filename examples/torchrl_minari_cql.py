"""Offline RL on a Speed Minari dataset with TorchRL: discrete CQL, then ``speed evaluate``.

TorchRL's ``MinariExperienceReplay`` reads a dataset that ``speed data generate`` or
``speed data export`` wrote, from the local Minari folder (``load_from_local_minari``: no
download), and ``DiscreteCQLLoss`` fits a Q-network to it. ``CQLAgent`` plays the greedy
legal action of the saved network, so ``speed evaluate`` takes it as a user agent::

    speed data generate --agents chain,greedy --games 200 --minari speed/chain-vs-greedy-v0
    python examples/torchrl_minari_cql.py --dataset speed/chain-vs-greedy-v0 --out models/cql
    speed evaluate py:examples/torchrl_minari_cql.py:CQLAgent --games 2 --out cards/cql

``CQLAgent`` reads ``models/cql/q.pt`` (relative to the working folder), or the file in
``SPEED_CQL_WEIGHTS``. The observation is ``Speed-v1``'s vector; the dataset's
``info.action_mask`` is not needed to learn (the recorded actions are legal) but the agent
masks illegal actions when it plays.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

WEIGHTS = Path("models/cql/q.pt")
"""Where ``main`` writes the network and ``CQLAgent`` reads it by default."""


def q_network(obs_dim: int, n_actions: int, hidden: int = 128) -> nn.Module:
    """The Q-network: an MLP from the observation to one value per action."""
    return nn.Sequential(
        nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, n_actions),
    )  # fmt: skip


def train(dataset_id: str, out: Path, updates: int, batch: int, seed: int) -> dict[str, Any]:
    """Fit a Q-network to ``dataset_id`` with TorchRL's discrete CQL; write ``out/q.pt``.

    Returns the figures (updates, transitions, final losses, seconds) also written to
    ``out/cql.json``.
    """
    from tensordict.nn import TensorDictModule
    from torchrl.data.datasets.minari_data import MinariExperienceReplay
    from torchrl.modules import QValueActor
    from torchrl.objectives import DiscreteCQLLoss, SoftUpdate, ValueEstimators

    torch.manual_seed(seed)
    torch.set_num_threads(1)
    start = time.perf_counter()
    with tempfile.TemporaryDirectory() as root:  # TorchRL's own copy of the data
        data = MinariExperienceReplay(
            dataset_id, batch_size=batch, root=root, load_from_local_minari=True
        )
        sample = data.sample()
        obs_dim, n_actions = (
            sample["observation"].shape[-1],
            sample["info", "action_mask"].shape[-1],
        )
        net = q_network(obs_dim, n_actions)
        actor = QValueActor(
            TensorDictModule(net, in_keys=["observation"], out_keys=["action_value"]),
            in_keys=["observation"],
            spec=None,
            action_space="categorical",
        )
        loss = DiscreteCQLLoss(actor, action_space="categorical")
        loss.make_value_estimator(ValueEstimators.TD0, gamma=0.99)
        target = SoftUpdate(loss, eps=0.99)
        optim = torch.optim.Adam(loss.parameters(), lr=3e-4)
        for _ in range(updates):
            td = data.sample()
            # Minari gives rewards and flags as (B, 1); the loss wants float rewards.
            td["next", "reward"] = td["next", "reward"].float()
            losses = loss(td)
            total = losses["loss_qvalue"] + losses["loss_cql"]
            optim.zero_grad()
            total.backward()
            optim.step()
            target.step()
        n = len(data)
    out.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": net.state_dict(), "obs_dim": obs_dim, "n_actions": n_actions},
               out / "q.pt")  # fmt: skip
    stats = {
        "dataset": dataset_id,
        "transitions": n,
        "updates": updates,
        "batch": batch,
        "loss_qvalue": float(losses["loss_qvalue"]),
        "loss_cql": float(losses["loss_cql"]),
        "seconds": round(time.perf_counter() - start, 1),
    }
    (out / "cql.json").write_text(json.dumps(stats, indent=2) + "\n", encoding="utf-8")
    return stats


class CQLAgent:
    """The saved Q-network as a kit agent: the legal action of highest value."""

    def __init__(self, rules: Any, seed: int | None) -> None:
        torch.set_num_threads(1)  # one decision at a time: threads only contend
        path = Path(os.environ.get("SPEED_CQL_WEIGHTS", WEIGHTS))
        if not path.is_file():
            raise FileNotFoundError(f"{path}: no Q-network (run examples/torchrl_minari_cql.py)")
        saved = torch.load(path, map_location="cpu")
        self.net = q_network(saved["obs_dim"], saved["n_actions"])
        self.net.load_state_dict(saved["state_dict"])
        self.net.eval()
        if rules is None or rules.preset != "us":
            # The dataset is of ``us`` games: other rules change the observation's meaning.
            raise ValueError("the CQL network was trained on us rules only")

    def act(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Batched greedy legal actions (int64, one per row of ``obs``)."""
        with torch.no_grad():
            q = self.net(torch.as_tensor(obs, dtype=torch.float32)).numpy()
        q = np.where(mask.astype(bool), q, -np.inf)
        return q.argmax(axis=-1).astype(np.int64)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Command line: ``--dataset ID --out DIR [--updates N] [--batch B] [--seed S]``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="speed/chain-vs-greedy-v0", help="Minari dataset id")
    parser.add_argument("--out", type=Path, default=WEIGHTS.parent, help="output folder")
    parser.add_argument("--updates", type=int, default=2000, help="gradient steps")
    parser.add_argument("--batch", type=int, default=256, help="transitions per step")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    stats = train(args.dataset, args.out, args.updates, args.batch, args.seed)
    print("RESULT " + json.dumps(stats))
    return stats


if __name__ == "__main__":
    main()
