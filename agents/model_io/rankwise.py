"""The rank-relative (weight-shared) policy network, played in numpy: :class:`RankwisePolicy`.

A plain MLP over the observation has to learn, separately for each play action
(26 at two seats, 13 per pile at three or four), relations such as "do I hold
the next rank", "is a card flying to this pile" or "how many plays does the new
top give the others". This network has the game's rank symmetry built in
instead: it scores every play ``(rank r, pile p)`` with **one shared MLP** over
the observation *re-indexed relative to r and p* (the gather,
:mod:`agents.model_io.rankwise_gather`, :func:`action_features`):

- each per-rank field (my hand and stacks, the centre tops, the ranks of the
  cards in flight, the opponent's layout and stacks, the unknown cards, my
  unseen colour, rebuilt side piles) rotated so that its entry 0 is rank ``r``
  (entry ``k`` is rank ``r + k`` mod 13: wrap-around ranks, as in both
  ``japanese`` and ``us``);
- each per-pile entry (centre top and size, where a card in flight goes, side
  piles, joker owners, idle rebuilds) reordered as "pile p, then the piles
  after it" (two seats: "then the other");
- each seat's fields at three or four seats in the observation's seat order
  (already ego-centric: me, then the seats after me);
- the scalars every action shares (card counts, phase, seat, clock, rules) and
  the pile ``p`` (the piles are not symmetric: one is fed by my own side pile,
  and my own pile flips in ``japanese``): one entry at two seats, a one-hot
  over the piles at three or four.

The seat count is read from the observation's length: the same network plays
the two-seat observation (:mod:`speed_env.observation`) and the n-seat one
(:mod:`speed_env.party_obs`), a model file the one it was trained on.

These are raw observation entries, only re-indexed: there is no hand-written
score, no term from ``chain`` and no cloning; what matters is learned from
reward alone. The wait action's logit reads the mean and the maximum over
the plays' last hidden vectors (so it too is unchanged when every rank
is rotated). The critic, used only in training, is a plain MLP over the
observation; it is saved beside the actor (``vf.*``, ``value.*``) to resume.

Tensors (``act.K.*`` hidden layer ``K`` of the shared scorer, ``score.*`` its
output, ``wait.*`` the wait head) are checked against the manifest's ``net``
(``kind: "rankwise"``, ``hidden``, ``activation``, ``features``: the gather's
width, which names this version of the gather) by :func:`check_rankwise_tensors`.

Scope: the 13 plain ranks with wrap-around and the wait/play actions only.
Rules with jokers, without wrap, or with the stack or multi-play moves are
refused by :func:`check_rules` with a message naming what is unsupported.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, NamedTuple, Unpack

import numpy as np

from agents.model_io.mlp import ActorOptions, MLPPolicy, check_shapes
from agents.model_io.rankwise_gather import action_features, n_features, n_plays, seat_layout
from agents.model_io.tensor_file import ModelFormatError

KIND = "rankwise"
"""The ``net.kind`` of a rank-relative model's manifest."""
_UNSUPPORTED = ("jokers", "stack_layout", "multi_play")


def check_rules(rules: Any, where: str = "the rankwise network") -> None:
    """Refuse rules this network cannot play, each named.

    Those are jokers, no wrap-around, stack or multi-play moves.
    """
    bad = [name for name in _UNSUPPORTED if getattr(rules, name)]
    if not rules.wrap:
        bad.append("wrap=false")
    if bad:
        raise ModelFormatError(
            f"{where} plays the 13 wrap-around ranks with plain plays only; rules "
            f"{rules.preset} with {', '.join(bad)} are not supported (use the mlp policy)"
        )


class FirstLayerPlan(NamedTuple):
    """How the shared scorer's first layer runs as one matmul over the observation.

    That replaces one matmul per play (``P`` of them: 26 at two seats, 39 or 52 at three or
    four) over the gathered features (:func:`first_layer_plan`): the same numbers, reordered
    sums.

    A feature every play reads from the same entry (the scalars) is multiplied once a row and
    added to every play; the others are folded into a matrix ``M`` of ``(len(used), P * H)``
    (:func:`fold_first_layer`) with ``M[u, a*H:(a+1)*H]`` the sum of the weight columns of the
    features of play ``a`` that read padded entry ``used[u]``, so that
    ``padded[:, used] @ M`` is every play's first layer before its bias."""

    used: np.ndarray
    """Padded observation entries some play reads through a non-shared feature ``(U,)``."""
    varying: np.ndarray
    """The features not shared by all plays ``(V,)`` (columns of the first layer's weight)."""
    slot: np.ndarray
    """``(P, V)``: row ``u * P + a`` of the folded matrix viewed ``(U * P, H)`` that
    feature ``varying[j]`` of play ``a`` adds to."""
    shared: np.ndarray
    """The features every play reads from the same entry ``(S,)``."""
    shared_entries: np.ndarray
    """The padded entries those features read ``(S,)``."""


@cache
def first_layer_plan(obs_dim: int) -> FirstLayerPlan:
    """The :class:`FirstLayerPlan` of the gather of an observation of ``obs_dim`` floats."""
    table = action_features(obs_dim)
    # A column equal to play 0's in every row reads one entry for all plays: shared.
    same = (table == table[0]).all(axis=0)
    shared, varying = np.flatnonzero(same), np.flatnonzero(~same)
    used, where = np.unique(table[:, varying], return_inverse=True)
    where = where.reshape(table.shape[0], len(varying))
    slot = where * table.shape[0] + np.arange(table.shape[0])[:, None]
    plan = FirstLayerPlan(used, varying, slot, shared, table[0, shared].copy())
    for array in plan:
        array.setflags(write=False)
    return plan


def fold_first_layer(weight: np.ndarray, obs_dim: int) -> tuple[np.ndarray, np.ndarray]:
    """The first layer's ``weight`` ``(H, F)`` folded by :func:`first_layer_plan`.

    Returns ``M`` ``(U, P * H)`` and the shared features' weights ``(S, H)``.
    """
    plan = first_layer_plan(obs_dim)
    hidden = weight.shape[0]
    wt = np.asarray(weight, np.float32).T
    folded = np.zeros((len(plan.used) * plan.slot.shape[0], hidden), np.float32)
    src = np.broadcast_to(wt[plan.varying], (plan.slot.shape[0], *wt[plan.varying].shape))
    # add.at, not +=: two features of one play may read the same entry, and their
    # weights must sum rather than overwrite.
    np.add.at(folded, plan.slot.reshape(-1), src.reshape(-1, hidden))
    folded = folded.reshape(len(plan.used), plan.slot.shape[0] * hidden)
    return folded, np.ascontiguousarray(wt[plan.shared])


def pad(obs: np.ndarray) -> np.ndarray:
    """``obs`` ``(n, obs_dim)`` with the two constant entries the gather reads appended.

    ``0`` goes at ``obs_dim``, ``1`` at ``obs_dim + 1``; the result is float32.
    """
    n, dim = obs.shape
    padded = np.empty((n, dim + 2), np.float32)
    padded[:, :dim] = obs
    # np.empty, not zeros: only these two columns need setting.
    padded[:, dim] = 0.0
    padded[:, dim + 1] = 1.0
    return padded


def gather(obs: np.ndarray) -> np.ndarray:
    """Each play action's features ``(n, P, F)`` of a batch of observations ``(n, obs_dim)``."""
    return pad(obs)[:, action_features(obs.shape[1])]


def _act(x: np.ndarray, activation: str) -> np.ndarray:
    return np.tanh(x, out=x) if activation == "tanh" else np.maximum(x, 0.0, out=x)


class RankwisePolicy(MLPPolicy):
    """A saved rank-relative actor as a batch :class:`~speed_env.policy.Policy`.

    Numpy, no torch; acts, samples and refuses other rules as
    :class:`~agents.model_io.mlp.MLPPolicy`.
    """

    def __init__(
        self,
        tensors: Mapping[str, np.ndarray],
        activation: str = "relu",
        *,
        obs_dim: int,
        **options: Unpack[ActorOptions],
    ) -> None:
        # MLPPolicy's own layers are not built: only its acting and rules checks are shared.
        self._acting(activation, **options)
        # Wait, then 13 ranks x one pile per seat: the action layout the gather is built on.
        self.obs_dim, self.n_actions = obs_dim, 1 + n_plays(obs_dim)
        self.layers = [
            (
                np.ascontiguousarray(np.asarray(tensors[f"act.{k}.weight"], np.float32).T),
                np.asarray(tensors[f"act.{k}.bias"], np.float32),
            )
            # Two tensors, weight and bias, per shared layer.
            for k in range(sum(1 for name in tensors if name.startswith("act.")) // 2)
        ]
        # The first layer as one matmul over the observation (FirstLayerPlan): the same
        # numbers as the gather's, at a fraction of its memory traffic.
        self.plan = first_layer_plan(obs_dim)
        self.folded, self.shared_w = fold_first_layer(tensors["act.0.weight"], obs_dim)
        self.score = (
            np.asarray(tensors["score.weight"], np.float32)[0],
            float(np.asarray(tensors["score.bias"])[0]),
        )
        self.wait = (
            np.asarray(tensors["wait.weight"], np.float32)[0],
            float(np.asarray(tensors["wait.bias"])[0]),
        )

    def _logits(self, x: np.ndarray) -> np.ndarray:
        padded, plan = pad(x), self.plan
        n, hidden = x.shape[0], self.shared_w.shape[1]
        h = (padded[:, plan.used] @ self.folded).reshape(n, -1, hidden)
        # The features every play reads from the same entry, computed once a row and
        # broadcast to every play.
        h += (padded[:, plan.shared_entries] @ self.shared_w + self.layers[0][1])[:, None, :]
        _act(h, self.activation)
        for w, b in self.layers[1:]:
            h = h @ w
            h += b
            _act(h, self.activation)
        plays = h @ self.score[0] + self.score[1]
        pooled = np.concatenate([h.mean(axis=1), h.max(axis=1)], axis=1)
        wait = pooled @ self.wait[0] + self.wait[1]
        # Action 0 is wait, so its logit goes first.
        return np.concatenate([wait[:, None], plays], axis=1)


def rankwise_shapes(obs_dim: int, hidden: list[int]) -> dict[str, tuple[int, ...]]:
    """The actor's tensors and their shapes for ``hidden`` layer sizes."""
    dims = [n_features(obs_dim), *hidden]
    need: dict[str, tuple[int, ...]] = {}
    for k in range(len(hidden)):
        need[f"act.{k}.weight"] = (dims[k + 1], dims[k])
        need[f"act.{k}.bias"] = (dims[k + 1],)
    need["score.weight"] = (1, dims[-1])
    need["score.bias"] = (1,)
    need["wait.weight"] = (1, 2 * dims[-1])
    need["wait.bias"] = (1,)
    return need


def check_rankwise_tensors(
    tensors: Mapping[str, np.ndarray], manifest: dict[str, Any], where: str
) -> None:
    """Refuse a rankwise model whose gather or tensors do not fit this version (named)."""
    net, sig = manifest["net"], manifest["observation"]
    dim, n_actions = int(sig["obs_dim"]), int(sig["n_actions"])
    try:
        seats, _ = seat_layout(dim)
        width, plays = n_features(dim), n_plays(dim)
    except (ModelFormatError, ValueError) as exc:
        raise ModelFormatError(f"{where}: {exc}") from None
    if n_actions != 1 + plays:
        raise ModelFormatError(
            f"{where}: a rankwise network of {seats} seats has {1 + plays} actions (wait, "
            f"13 ranks x {seats} piles), the manifest says {n_actions}"
        )
    if net.get("features") != width:
        raise ModelFormatError(
            f"{where}: its rankwise gather reads {net.get('features')!r} features per action, "
            f"this version of the kit gathers {width}; retrain it with this version"
        )
    need = rankwise_shapes(dim, [int(h) for h in net["hidden"]])
    check_shapes(tensors, need, where, "rankwise network")
