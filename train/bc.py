"""Behaviour cloning: warm-start a MaskablePPO policy by imitating a bot (``chain`` by default).

PPO from scratch spends its first million decisions learning what any
heuristic already knows (play when you can, keep runs going). Cloning a bot
first, actor *and* critic, lets PPO start from that level:

1. the teacher plays the learner's seat of the training run's VecEnv (a
   :class:`~train.vec_env.env.SpeedVecEnv` of real-time games, a
   :class:`~train.vec_env.party_env.PartyVecEnv` of tables of three or four, or a
   ``DummyVecEnv`` of :class:`~speed_env.vintage.single.VintageSingleEnv` tables) against its
   opponents, and every decision is recorded (observation, mask, the teacher's
   action, the reward);
2. the actor is fitted to the teacher's choices and the critic to the
   discounted returns the teacher got (so PPO's first advantages are not
   noise that undoes the cloning). A teacher that exposes ``scores(obs,
   n_actions)`` (``chain`` does) labels each state with *every* legal action
   of the best score, and the loss is ``-log P(best set)``: its random
   tie-break (about 7-9% of decisions are ties) would otherwise be noise the
   student is asked to predict. A teacher with ``best_set(obs, mask, chosen)``
   says itself which actions match its choice (``search``: its choice, or
   ``chain``'s tied best where it kept ``chain``'s). Other teachers label
   their one action;
3. optionally, DAgger rounds: the *student* plays while the teacher labels
   every state it reaches, and the fit continues on all the data, which fixes
   the states a clone drifts into that the teacher never visits;
4. held-out agreement is reported: the share of choice decisions where the
   student's most likely action is one of the teacher's best.

Both recipes run this before PPO with ``--init-bc SPEC`` (``speed train
realtime --init-bc chain``, and the same flag of train/vintage_ppo.py's
recipe); :func:`clone` is the function.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import torch

from agents.chain import tied_best
from speed_env.policy import Policy
from train.common.warm_start import CloningInterrupted

if TYPE_CHECKING:
    from train.common.run import Run


@dataclass
class BCConfig:
    """Hyperparameters of the behaviour-cloning warm start."""

    # ---- the recording
    teacher: str = "chain"
    """Agent spec of the bot to imitate."""
    decisions: int = 300_000
    """Teacher decisions to record (forced waits are not recorded)."""
    holdout: float = 0.05
    """Share of the recorded games kept out of training to measure agreement."""
    # ---- the fit
    epochs: int = 12
    """Passes over the recorded decisions (held-out agreement with chain: 99.3% after 16 on
    1M)."""
    batch_size: int = 512
    """Decisions per gradient step (small batches fit the teacher much better than large
    ones)."""
    learning_rate: float = 1e-3
    """Adam step size at the start, decayed to 0 along a cosine (a fresh optimizer; PPO keeps
    its own)."""
    value_coef: float = 0.5
    """Weight of the critic's squared error next to the actor's cross-entropy."""
    # ---- DAgger
    dagger_rounds: int = 0
    """Rounds of DAgger after the first fit: the student plays, the teacher labels, the fit
    continues."""
    dagger_epochs: int = 4
    """Passes over all data so far after each DAgger round."""


def best_actions(teacher: Any, obs: np.ndarray, mask: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """int8 ``(n, n_actions)``: the legal actions the teacher rates as high as its best.

    A teacher with ``best_set(obs, mask, chosen)`` (``search``) says so itself.
    For a teacher with ``scores(obs, n_actions)`` that is every legal action
    within 1e-9 of the top score (it breaks such ties at random); for any
    other teacher it is the one action it chose, ``chosen``.
    """
    n, n_actions = mask.shape
    if hasattr(teacher, "best_set"):  # the teacher says which actions match its choice
        return np.asarray(teacher.best_set(obs, mask, chosen), np.int8)
    if hasattr(teacher, "scores"):
        return tied_best(teacher.scores(obs, n_actions), mask).astype(np.int8)
    best = np.zeros((n, n_actions), np.int8)
    best[np.arange(n), chosen] = 1
    return best


def _forward(policy: Any, obs: torch.Tensor, mask: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Masked log-probabilities of every action and the value, in one pass of a MaskablePPO
    policy."""
    latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
    # -1e8 as sb3-contrib masks, not -inf: log_softmax and its gradient stay finite.
    logits = policy.action_net(latent_pi).masked_fill(torch.as_tensor(mask) == 0, -1e8)
    return torch.log_softmax(logits, dim=1), policy.value_net(latent_vf).flatten()


def returns_to_go(
    rew: np.ndarray, done: np.ndarray, gamma: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Discounted return, whether it is known, and a game id, per step of ``(steps, n_envs)``.

    Computed backwards from each game's last step; the steps after an env's
    last finished game have an unknown return (``known`` False). Game ids are
    unique within the recording (the step that ends a game belongs to it).
    """
    steps, n = rew.shape
    ret = np.zeros((steps, n), np.float32)
    known = np.zeros((steps, n), bool)
    g_ret = np.zeros(n, np.float32)
    g_known = np.zeros(n, bool)
    for t in range(steps - 1, -1, -1):
        # At a done step the return restarts: the next row is another game.
        g_ret = np.where(done[t], rew[t], rew[t] + gamma * g_ret)
        g_known = done[t] | g_known
        ret[t], known[t] = g_ret, g_known
    # Games counted down each env's column; envs spaced steps + 1 apart, so no two
    # envs share an id.
    game = np.cumsum(done, axis=0) - done + np.arange(n)[None] * (steps + 1)
    return ret, known, game


# The teacher of slots lo..hi of the VecEnv: (lo, hi, bot). The real-time recipe has one per
# rules preset of its SpeedVecEnv, train/vintage_ppo.py's a single bot over all its envs.
Teachers = Callable[[int], Sequence[tuple[int, int, Any]]]


def record(
    env: Any,
    teachers: Teachers,
    decisions: int,
    gamma: float,
    seed: int = 0,
    student: Policy | None = None,
    teacher_view: Callable[[np.ndarray], np.ndarray] | None = None,
    progress: bool = False,
) -> dict[str, np.ndarray]:
    """Record about ``decisions`` steps of the learner's seat of ``env``, labelled by the teachers.

    ``teachers(seed)`` gives the bots and the slots they label; ``teacher_view``
    turns the env's observations into the ones the teachers read (train/vintage_ppo.py
    scales its observations; its bots read raw counts). The teacher
    plays, or with ``student`` the student plays and the teacher only labels
    (DAgger). Returns ``obs``, ``mask``, ``action`` (the teacher's), ``best``
    (int8 flags of the teacher's best actions, see :func:`best_actions`),
    ``ret`` (discounted return to the end of the game) and ``game`` (an id per
    game, for a held-out split); steps of games still running at the end are
    dropped (their return is unknown). ``progress`` draws a bar on stderr (decisions recorded,
    the rate and the time left at that rate).
    """
    from sb3_contrib.common.maskable.utils import get_action_masks

    bots = teachers(seed)
    n, obs_dim, n_actions = env.num_envs, env.observation_space.shape[0], env.action_space.n
    steps = max(1, -(-decisions // n))
    obs_buf = np.zeros((steps, n, obs_dim), np.float32)
    mask_buf = np.zeros((steps, n, n_actions), np.int8)
    act_buf = np.zeros((steps, n), np.int64)
    best_buf = np.zeros((steps, n, n_actions), np.int8)
    rew_buf = np.zeros((steps, n), np.float32)
    done_buf = np.zeros((steps, n), bool)
    obs = env.reset()
    bar = _bar(steps * n, "bc record", "decision", progress)
    # closed also on Ctrl-C, so the run's own lines do not land beside a stale bar
    with bar:
        for t in range(steps):
            mask = get_action_masks(env).astype(np.int8)
            seen = obs if teacher_view is None else teacher_view(obs)
            labels = np.zeros(n, np.int64)
            for lo, hi, bot in bots:
                labels[lo:hi] = bot.act(seen[lo:hi], mask[lo:hi])
                best_buf[t, lo:hi] = best_actions(bot, seen[lo:hi], mask[lo:hi], labels[lo:hi])
            obs_buf[t], mask_buf[t], act_buf[t] = obs, mask, labels
            # DAgger: the student moves and the teacher only labels, so the states are the
            # student's own.
            actions = labels if student is None else student.act(obs, mask)
            obs, rew_buf[t], done_buf[t], _ = env.step(actions)
            bar.update(n)
    ret, known, game = returns_to_go(rew_buf, done_buf, gamma)
    game += seed * n * (steps + 1)  # ids that differ between recordings (DAgger rounds)
    # A game still running at the end has no return yet: its rows are dropped.
    keep = known.reshape(-1)
    if not keep.any():
        # Nothing to hold out or fit: say which setting is too small rather than fail in numpy.
        raise ValueError(
            f"bc_decisions: {decisions:,} decisions over {n:,} games at once ({steps} steps "
            "each) finished no game, so no recorded play has a known return; record more "
            "decisions (--bc-decisions)"
        )
    return {
        "obs": obs_buf.reshape(-1, obs_dim)[keep],
        "mask": mask_buf.reshape(-1, n_actions)[keep],
        "action": act_buf.reshape(-1)[keep],
        "best": best_buf.reshape(-1, n_actions)[keep],
        "ret": ret.reshape(-1)[keep],
        "game": game.reshape(-1)[keep],
    }


def _fit(
    policy: Any,
    data: dict[str, np.ndarray],
    train_idx: np.ndarray,
    epochs: int,
    cfg: BCConfig,
    rng: np.random.Generator,
    log: Any,
    progress: bool = False,
) -> list[float]:
    """Fit actor (cross-entropy) and critic (squared error) on ``train_idx``, ``epochs`` passes
    (``progress``: a bar of the minibatches on stderr, with the time left at its rate)."""
    policy.set_training_mode(True)
    optimizer = torch.optim.Adam(policy.parameters(), lr=cfg.learning_rate)
    n_batches = epochs * -(-len(train_idx) // cfg.batch_size)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(1, n_batches))
    obs = torch.as_tensor(data["obs"])
    mask = data["mask"]
    not_best = torch.as_tensor(data["best"]) == 0
    # A float "target" distribution (search targets, train/vintage_expert.py) replaces the best set.
    target = torch.as_tensor(data["target"]) if "target" in data else None
    ret = torch.as_tensor(data["ret"])
    losses: list[float] = []
    idx = train_idx.copy()
    bar = _bar(n_batches, f"bc fit ({epochs} epochs)", "batch", progress)
    with bar:  # closed also on Ctrl-C
        for _ in range(epochs):
            rng.shuffle(idx)
            for start in range(0, len(idx), cfg.batch_size):
                b = idx[start : start + cfg.batch_size]
                log_p, values = _forward(policy, obs[b], mask[b])
                if target is None:
                    # -log P(the teacher's best set): any of its equally good actions is right.
                    log_p_best = torch.logsumexp(log_p.masked_fill(not_best[b], -torch.inf), dim=1)
                    actor_loss = -log_p_best.mean()
                else:  # cross-entropy to the target distribution (0 on illegal actions)
                    actor_loss = -(target[b] * log_p).sum(dim=1).mean()
                loss = actor_loss + cfg.value_coef * torch.nn.functional.mse_loss(values, ret[b])
                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
                optimizer.step()
                schedule.step()
                losses.append(float(loss.detach()))
                bar.update(1)
            if log is not None:
                log(f"bc epoch loss {np.mean(losses[-max(1, len(idx) // cfg.batch_size) :]):.4f}")
    policy.set_training_mode(False)
    return losses


def _bar(total: int, desc: str, unit: str, enabled: bool) -> Any:
    """A tqdm bar on stderr below the run's own (its rate and time left are its own: the
    run's bar does not move while cloning)."""
    from tqdm import tqdm

    return tqdm(
        total=total,
        desc=desc,
        unit=unit,
        disable=not enabled,
        file=sys.stderr,
        mininterval=0.5,
        leave=False,
        position=1,
        bar_format="{desc} [{bar:30}] {n_fmt}/{total_fmt} {rate_fmt} eta {remaining}",
    )


def _split(data: dict[str, np.ndarray], holdout: float, rng: np.random.Generator) -> np.ndarray:
    """Held-out flags: a share of whole games."""
    games = np.unique(data["game"])
    held = rng.choice(games, size=max(1, int(len(games) * holdout)), replace=False)
    return np.isin(data["game"], held)


def clone(
    model: Any,
    env: Any,
    cfg: BCConfig,
    teachers: Teachers,
    *,
    seed: int = 0,
    log: Any = None,
    teacher_view: Callable[[np.ndarray], np.ndarray] | None = None,
    progress: bool = False,
) -> dict[str, Any]:
    """Fit ``model.policy`` to ``cfg.teacher`` playing in ``env``; return stats.

    - ``model.policy``: a MaskablePPO policy;
    - ``teachers``, ``teacher_view``: as in :func:`record`;
    - ``progress``: draws a bar on stderr for each recording and each fit.
    """
    from train.policy.checkpoint import snapshot_policy

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    stage = f"recording {cfg.decisions:,} decisions"
    try:
        data = record(
            env,
            teachers,
            cfg.decisions,
            model.gamma,
            seed,
            teacher_view=teacher_view,
            progress=progress,
        )
        t_record = time.perf_counter() - t0
        held = _split(data, cfg.holdout, rng)
        train_idx = np.flatnonzero(~held)
        stage = f"fitting ({cfg.epochs} epochs)"
        losses = _fit(model.policy, data, train_idx, cfg.epochs, cfg, rng, log, progress)
        for r in range(cfg.dagger_rounds):
            stage = f"DAgger round {r + 1} of {cfg.dagger_rounds}, recording"
            t1 = time.perf_counter()
            # Greedy: the states the student reaches when it plays for real.
            student = snapshot_policy(model, sample=False, seed=seed)
            # A seed per round: fresh deals, and game ids apart from earlier rounds'.
            more = record(
                env,
                teachers,
                cfg.decisions,
                model.gamma,
                seed + 1 + r,
                student,
                teacher_view,
                progress,
            )
            t_record += time.perf_counter() - t1
            held = np.concatenate([held, _split(more, cfg.holdout, rng)])
            data = {k: np.concatenate([data[k], more[k]]) for k in data}
            train_idx = np.flatnonzero(~held)
            stage = f"DAgger round {r + 1} of {cfg.dagger_rounds}, fitting"
            losses = _fit(model.policy, data, train_idx, cfg.dagger_epochs, cfg, rng, log, progress)
    except KeyboardInterrupt:
        # The network is half fitted: the recipe must not save it as the clone.
        raise CloningInterrupted(cfg.teacher, stage) from None
    # Forced moves agree by force: only real choices are scored.
    test_idx = np.flatnonzero(held & (data["mask"].sum(axis=1) >= 2))
    policy = model.policy
    obs = torch.as_tensor(data["obs"][test_idx])
    ret = torch.as_tensor(data["ret"][test_idx])
    with torch.no_grad():
        log_p, values = _forward(policy, obs, data["mask"][test_idx])
        pred = log_p.argmax(dim=1).numpy()
    best = data["best"][test_idx]
    agreement = float(best[np.arange(len(pred)), pred].mean()) if len(test_idx) else float("nan")
    return {
        "teacher": cfg.teacher,
        "recorded_decisions": len(data["action"]),
        "choice_decisions": int((data["mask"].sum(axis=1) >= 2).sum()),
        "dagger_rounds": cfg.dagger_rounds,
        "held_out_agreement": agreement,
        "held_out_value_mse": float(torch.mean((values - ret) ** 2))
        if len(test_idx)
        else float("nan"),
        "final_loss": float(np.mean(losses[-10:])) if losses else float("nan"),
        "record_s": round(t_record, 2),
        "fit_s": round(time.perf_counter() - t0 - t_record, 2),
    }


def describe(stats: dict[str, Any]) -> str:
    """One line on a finished cloning: the teacher, the held-out agreement, the time spent."""
    return (
        f"cloned {stats['teacher']}: held-out agreement {100 * stats['held_out_agreement']:.1f}% "
        f"({stats['record_s']} s recording, {stats['fit_s']} s fitting)"
    )


def warm_start(
    run: Run,
    env: Any,
    teachers: Teachers,
    *,
    dagger_rounds: int = 0,
    teacher_view: Callable[[np.ndarray], np.ndarray] | None = None,
) -> dict[str, Any]:
    """A recipe's warm start ``init_bc``: :func:`clone` of ``run``'s model; returns its stats.

    The cloning is timed (``bc_s``), reported on ``run``'s bar and kept in ``state.json``.
    """
    cfg = run.cfg
    t0 = time.perf_counter()
    run.bar.print(f"behaviour cloning {cfg.init_bc} ({cfg.bc_decisions:,} decisions) ...")
    bc_cfg = BCConfig(
        teacher=str(cfg.init_bc),
        decisions=cfg.bc_decisions,
        epochs=cfg.bc_epochs,
        dagger_rounds=dagger_rounds,
    )
    stats = clone(
        run.model,
        env,
        bc_cfg,
        teachers,
        seed=cfg.seed,
        teacher_view=teacher_view,
        progress=cfg.progress,
    )
    run.timing["bc_s"] = time.perf_counter() - t0
    run.bar.restart_clock()  # its rate and time left: PPO's, not the cloning's
    run.state["bc"] = stats
    run.bar.print(describe(stats))
    return stats
