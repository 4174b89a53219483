"""PPO with action masks on ``gymnasium.make_vec("speed_env/Speed-v1")``, one file, CleanRL-style.

    python examples/cleanrl_ppo.py --opponent greedy --total-timesteps 20000000 --csv log.csv

Torch and the kit only: the settings are one dataclass (:class:`Args`, a flag per field, its
docstring the help) and :func:`main` reads top to bottom. What the game asks of a PPO:

- **Masks on the logits.** ``infos["action_mask"]`` (int8) marks the legal actions; illegal
  logits become a large negative number, in the rollout and in the update.
- **Ticks and decisions.** A step is one 50 ms tick; on most ticks only ``wait`` is legal. Those
  rows are neither shown to the policy nor learned from, and GAE runs over each game's
  decisions (the forced ticks' rewards summed between two), so ``gamma`` and ``gae_lambda``
  count decisions, as ``speed train`` counts them.
- **No discount.** Speed pays +1/-1 at a game's end only. With ``gamma < 1`` a postponed loss
  beats a quick one and the agent learns to stall; with 1 waiting pays nothing (and the idle
  rule makes a seat that only waits lose).
- **Next-step autoreset** (Gymnasium 1.x): the step that ends a game returns its last
  observation and reward; the next one ignores that row's action and returns the new game's
  first observation. That row is no transition, so it is never learned from (``valid``). A
  truncated game (``max_game_ms``) is over: nothing to bootstrap.

``--opponent SPEC`` puts a kit bot (``agents.make``) inside Speed-v1 instead of its random
player; ``--self-play`` acts every row of ``speed_env/SpeedSelfPlay-v1`` (row ``2g + s`` is seat
``s`` of game ``g``). The last line printed is ``RESULT {json}`` (tests/kit/test_examples.py).
"""

from __future__ import annotations

import argparse
import ast
import csv
import dataclasses
import inspect
import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import torch
from torch import nn

import agents
import speed_env  # noqa: F401  (registers the env ids)
from agents.stats import wilson_interval
from train.common.numbers import count, real

EVAL_SEED = 12_345  # every evaluation plays the same deals


@dataclass
class Args:
    """Every setting of a run (``--help`` lists them as flags)."""

    seed: int = 0
    """Seed of the deals, the opponents, the network and the minibatches."""
    rules: str = "us"
    """Rules preset to train and evaluate on."""
    opponent: str | None = None
    """Opponent inside Speed-v1, an agent spec (``greedy``, ``chain`` ...); not given:
    Speed-v1's own default, a uniformly random legal player."""
    self_play: bool = False
    """Train on speed_env/SpeedSelfPlay-v1: both seats of every game are rows this policy acts."""
    total_timesteps: int = 2_000_000
    """Env steps to train for (a step is one tick of one game; a game is about 300 ticks)."""
    num_envs: int = 256
    """Games side by side (rows of the vector env; with --self-play two rows a game)."""
    num_steps: int = 512
    """Ticks per row per rollout: 45-65 decisions a row, about as many as a rollout of ``speed
    train`` holds (64 a game, 256 games)."""
    learning_rate: float = 3e-4
    """Adam's step size at the start."""
    anneal_lr: bool = True
    """Decay the step size linearly to 10% of its start by the last rollout."""
    gamma: float = 1.0
    """Discount per decision: 1, so that waiting never pays (see the module docstring)."""
    gae_lambda: float = 0.95
    """GAE's bias/variance trade-off, per decision."""
    minibatch_size: int = 4096
    """Decisions per minibatch of the update."""
    update_epochs: int = 4
    """Passes over each rollout."""
    clip_coef: float = 0.2
    """PPO's policy ratio clip."""
    ent_coef: float = 0.01
    """Entropy bonus."""
    vf_coef: float = 0.5
    """Weight of the value loss."""
    max_grad_norm: float = 0.5
    """Gradient clipping."""
    hidden: int = 64
    """Width of the two hidden layers of the actor and of the critic (separate networks)."""
    torch_threads: int = 1
    """Torch's threads: 1 is fastest for small networks on a small shared CPU."""
    eval_every: int = 0
    """Rollouts between evaluations during training (0: only the final one)."""
    eval_games: int = 200
    """Games against each evaluation opponent during training."""
    final_games: int = 1000
    """Games against each evaluation opponent at the end."""
    eval_opponents: str = "random,greedy"
    """Agent specs the policy is measured against, comma-separated."""
    csv: str | None = None
    """Write one row per rollout here (steps, speed, returns, win rates, losses)."""
    plot: str | None = None
    """After training, draw the CSV's curves to this PNG (needs --csv and matplotlib)."""


FLAG_TYPES: dict[str, Any] = {
    **dict.fromkeys(("seed", "eval_every"), count(0)),
    **dict.fromkeys(("learning_rate", "clip_coef", "max_grad_norm"), real(above=0)),
    **dict.fromkeys(("ent_coef", "vf_coef"), real(0)),
    "gamma": real(above=0, high=1),
    "gae_lambda": real(0, 1),
}  # every other int is a count >= 1


def parse_args(argv: list[str] | None = None) -> Args:
    """The flags of :class:`Args`: one per field, its docstring as the help."""
    body = ast.parse(inspect.getsource(Args)).body[0].body  # type: ignore[attr-defined]
    docs = {
        a.target.id: " ".join(b.value.value.split())
        for a, b in itertools.pairwise(body)
        if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr)
    }
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    for f in dataclasses.fields(Args):
        flag, text = "--" + f.name.replace("_", "-"), docs[f.name].replace("%", "%%")
        if f.type == "bool":
            parser.add_argument(
                flag, action=argparse.BooleanOptionalAction, default=f.default, help=text
            )
            continue
        kind = FLAG_TYPES.get(f.name, count(1) if f.type == "int" else str)
        parser.add_argument(
            flag,
            type=kind,
            default=f.default,
            help=text if f.default is None else f"{text} ({f.default})",
        )
    args = Args(**vars(parser.parse_args(argv)))
    if args.self_play and args.opponent is not None:
        parser.error("--opponent has no effect with --self-play (the policy plays both seats)")
    if args.self_play and args.num_envs % 2:
        parser.error(
            f"--num-envs must be even with --self-play (two rows a game), got {args.num_envs}"
        )
    if args.plot and not args.csv:
        parser.error("--plot draws the rows of --csv: give --csv too")
    for spec in [args.opponent or "random", *args.eval_opponents.split(",")]:
        try:  # an unknown agent or rules preset is one line here, not a traceback later
            agents.make(spec.strip(), args.rules)
        except ValueError as exc:
            parser.error(str(exc))
    return args


# ---------------------------------------------------------------------- the envs
def make_envs(args: Args, num_envs: int, opponent: str | None) -> gym.vector.VectorEnv:
    """``num_envs`` rows: Speed-v1 games against ``opponent`` (None: its default random player),
    or with ``--self-play`` and no opponent, the self-play rows env."""
    if args.self_play and opponent is None:
        return gym.make_vec("speed_env/SpeedSelfPlay-v1", num_envs=num_envs, rules=args.rules)
    kwargs = {} if opponent is None else {"opponent": agents.make(opponent, args.rules, args.seed)}
    return gym.make_vec("speed_env/Speed-v1", num_envs=num_envs, rules=args.rules, **kwargs)


# ---------------------------------------------------------------------- the network
class Agent(nn.Module):
    """Separate actor and critic MLPs; the actor's illegal logits are pushed to ``-1e8``."""

    def __init__(self, obs_dim: int, n_actions: int, hidden: int) -> None:
        super().__init__()

        def mlp(n_out: int, gain: float) -> nn.Sequential:
            layers = [
                nn.Linear(obs_dim, hidden),
                nn.Linear(hidden, hidden),
                nn.Linear(hidden, n_out),
            ]
            for linear, g in zip(layers, (2**0.5, 2**0.5, gain), strict=True):
                nn.init.orthogonal_(linear.weight, g)  # CleanRL's initialisation
                nn.init.zeros_(linear.bias)
            return nn.Sequential(layers[0], nn.ReLU(), layers[1], nn.ReLU(), layers[2])

        self.actor, self.critic = mlp(n_actions, 0.01), mlp(1, 1.0)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The critic's estimate of each row's return."""
        return self.critic(obs).squeeze(-1)

    def dist(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.distributions.Categorical:
        """The policy over the legal actions of each row."""
        # -1e8, not -inf: a probability of exactly 0 keeps the entropy's 0 * log 0 finite.
        return torch.distributions.Categorical(logits=self.actor(obs).masked_fill(mask == 0, -1e8))


def act(agent: Agent, obs: np.ndarray, mask: np.ndarray, rows: np.ndarray, sample: bool) -> tuple:
    """Wait (0) on every row but ``rows``, where the policy picks (a sample, or the argmax of
    the masked logits); the actions, and the log-probabilities and values of ``rows``."""
    actions = np.zeros(len(obs), np.int64)
    if not rows.any():  # the policy is never asked about an empty batch
        return actions, 0.0, 0.0
    with torch.no_grad():
        o = torch.from_numpy(obs[rows])
        dist = agent.dist(o, torch.from_numpy(mask[rows]))
        a = dist.sample() if sample else dist.logits.argmax(1)
        actions[rows] = a.numpy()
        return actions, dist.log_prob(a).numpy(), agent.value(o).numpy()


def evaluate(agent: Agent, args: Args, opponent: str, games: int) -> dict[str, Any]:
    """The first game of each of ``games`` rows against ``opponent``, the policy playing its
    argmax: counts, win rate (a draw half a win) and its 95% interval."""
    envs = make_envs(args, games, opponent)
    obs, infos = envs.reset(seed=EVAL_SEED)
    result = np.full(games, np.nan)
    while np.isnan(result).any():
        mask = infos["action_mask"]
        actions, _, _ = act(agent, obs, mask, mask.sum(1) > 1, sample=False)
        obs, reward, term, trunc, infos = envs.step(actions)
        first = (term | trunc) & np.isnan(result)
        result[first] = reward[first]
    envs.close()
    wins, losses, draws = (int(x.sum()) for x in (result > 0, result < 0, result == 0))
    low, high = wilson_interval(wins + draws / 2, games)
    return {
        "opponent": opponent,
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "win_rate": (wins + draws / 2) / games,
        "ci95": [round(low, 4), round(high, 4)],
    }


# ---------------------------------------------------------------------- advantages
def decision_gae(
    rewards: np.ndarray,
    dones: np.ndarray,
    decision: np.ndarray,
    values: np.ndarray,
    last_value: np.ndarray,
    gamma: float,
    lam: float,
) -> np.ndarray:
    """GAE over the decision rows of each game, 0 on the others (arrays of shape (ticks, rows)).

    Walking back in time, each row keeps the value and advantage of its game's next decision
    (``next_value``, ``next_adv``) and the rewards since (``pending``); a game's end cuts both.
    """
    adv = np.zeros_like(values)
    next_value, next_adv, pending = last_value.copy(), 0.0 * last_value, 0.0 * last_value
    for t in reversed(range(len(rewards))):
        next_value[dones[t]] = next_adv[dones[t]] = pending[dones[t]] = 0.0
        pending += rewards[t]
        delta = pending + gamma * next_value - values[t]
        here = decision[t]
        adv[t] = np.where(here, delta + gamma * lam * next_adv, 0.0)
        next_value = np.where(here, values[t], next_value)
        next_adv = np.where(here, adv[t], next_adv)
        pending = np.where(here, 0.0, pending)
    return adv


# ---------------------------------------------------------------------- the run
def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Train, evaluate, print ``RESULT {json}``; return that dict."""
    args = parse_args(argv)

    # Seeding: every random draw of the run comes from here.
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.torch_threads)  # see speed_env.SpeedGymEnv's "Training speed"
    shuffle = np.random.default_rng(args.seed)

    # Envs and network.
    envs = make_envs(args, args.num_envs, args.opponent)
    n, obs_dim = args.num_envs, envs.single_observation_space.shape[0]
    n_actions = int(envs.single_action_space.n)
    agent = Agent(obs_dim, n_actions, args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    # Rollout storage: one row per tick and env.
    T = args.num_steps
    obs_buf = np.zeros((T, n, obs_dim), np.float32)
    mask_buf = np.zeros((T, n, n_actions), np.int8)
    act_buf = np.zeros((T, n), np.int64)
    logp_buf, value_buf, reward_buf = (np.zeros((T, n), np.float32) for _ in range(3))
    done_buf, decision_buf = np.zeros((T, n), bool), np.zeros((T, n), bool)

    opponents = [o.strip() for o in args.eval_opponents.split(",")]
    writer, log, eval_s = None, None, 0.0
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        log = open(args.csv, "w", newline="")  # noqa: SIM115  (open for the whole run)
    iterations = -(-args.total_timesteps // (T * n))
    step = decisions = illegal = 0
    episode_return = np.zeros(n)
    finished: list[float] = []  # returns of the games finished since the last log line
    returns: list[float] = []  # and of every game finished in training
    start = time.perf_counter()
    obs, infos = envs.reset(seed=args.seed)
    valid = np.ones(n, bool)  # False on a row whose previous step ended its game (autoreset)
    pg_loss = v_loss = entropy = torch.tensor(np.nan)  # until the first update
    approx_kl = np.nan

    for iteration in range(1, iterations + 1):
        if args.anneal_lr:
            frac = 1.0 - (iteration - 1) / iterations
            optimizer.param_groups[0]["lr"] = args.learning_rate * (0.1 + 0.9 * frac)

        # 1. Rollout: ask the policy only on rows with a choice; every other row waits (0).
        for t in range(T):
            mask = infos["action_mask"]
            decision = valid & (mask.sum(1) > 1)
            obs_buf[t], mask_buf[t], decision_buf[t] = obs, mask, decision
            actions, logp_buf[t, decision], value_buf[t, decision] = act(
                agent, obs, mask, decision, sample=True
            )
            act_buf[t] = actions
            obs, reward, term, trunc, infos = envs.step(actions)
            done = term | trunc
            reward_buf[t], done_buf[t] = reward, done
            illegal += int(infos["illegal"].sum())  # the env's own count of illegal picks
            episode_return += reward
            finished += episode_return[done].tolist()
            episode_return[done] = 0.0
            valid = ~done  # NEXT_STEP: the next step of an ended row only resets it
        step += T * n
        decisions += int(decision_buf.sum())

        # 2. Advantages over decisions; the tail bootstraps from the critic.
        with torch.no_grad():
            last_value = agent.value(torch.from_numpy(obs)).numpy() * valid
        adv = decision_gae(
            reward_buf, done_buf, decision_buf, value_buf, last_value, args.gamma, args.gae_lambda
        )
        rows = np.flatnonzero(decision_buf.reshape(-1))
        b_obs = torch.from_numpy(obs_buf.reshape(-1, obs_dim)[rows])
        b_mask = torch.from_numpy(mask_buf.reshape(-1, n_actions)[rows])
        b_act = torch.from_numpy(act_buf.reshape(-1)[rows])
        b_logp = torch.from_numpy(logp_buf.reshape(-1)[rows])
        b_adv = torch.from_numpy(adv.reshape(-1)[rows])
        b_ret = b_adv + torch.from_numpy(value_buf.reshape(-1)[rows])

        # 3. PPO update on the decision rows only.
        n_batches = max(1, round(len(rows) / args.minibatch_size))
        for _ in range(args.update_epochs if len(rows) > 1 else 0):
            for mb in np.array_split(shuffle.permutation(len(rows)), n_batches):
                dist = agent.dist(b_obs[mb], b_mask[mb])
                logratio = dist.log_prob(b_act[mb]) - b_logp[mb]
                ratio = logratio.exp()
                mb_adv = (b_adv[mb] - b_adv[mb].mean()) / (b_adv[mb].std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio, -mb_adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)
                ).mean()
                v_loss = 0.5 * ((agent.value(b_obs[mb]) - b_ret[mb]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean().item()

        # 4. Log: speed (evaluations left out), the games finished, losses; evaluations when due.
        t0 = time.perf_counter()
        due = args.eval_every and iteration % args.eval_every == 0
        rates = {
            f"eval_{o}": evaluate(agent, args, o, args.eval_games)["win_rate"] if due else ""
            for o in opponents
        }
        eval_s += time.perf_counter() - t0
        g = np.array(finished)  # the returns of the games that ended in this rollout
        row = {
            "step": step,
            "decisions": decisions,
            "wall_s": time.perf_counter() - start,
            "steps_per_s": step / (time.perf_counter() - start - eval_s),
            "games": len(finished),
            "mean_return": g.mean() if len(g) else np.nan,
            "win_rate": np.mean((g > 0) + (g == 0) / 2) if len(g) else np.nan,
            **rates,
            "pg_loss": pg_loss.item(),
            "v_loss": v_loss.item(),
            "entropy": entropy.item(),
            "approx_kl": approx_kl,
        }
        row = {k: v if isinstance(v, str | int) else f"{v:.4g}" for k, v in row.items()}
        print(" ".join(f"{k}={v}" for k, v in row.items() if v not in ("", "nan")), flush=True)
        if log is not None:
            writer = writer or csv.DictWriter(log, fieldnames=list(row))
            if iteration == 1:
                writer.writeheader()
            writer.writerow(row)
            log.flush()
        returns, finished = returns + finished, []
    envs.close()
    if log is not None:
        log.close()

    # 5. Final evaluation, then the RESULT line.
    train_s = time.perf_counter() - start
    final = [evaluate(agent, args, o, args.final_games) for o in opponents]
    for r in final:
        low, high = r["ci95"]
        print(
            f"vs {r['opponent']}: {100 * r['win_rate']:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
            f" over {r['games']} games ({r['wins']} won, {r['losses']} lost, {r['draws']} drawn)"
        )
    if args.plot and args.csv:
        plot(Path(args.csv), Path(args.plot), args)
    result = {
        "example": "cleanrl_ppo",
        "steps": step,
        "decisions": decisions,
        "illegal_chosen": illegal,
        "train_games": len(returns),
        "train_return_sum": sum(returns),
        "train_s": round(train_s, 1),
        "eval_s": round(eval_s, 1),
        "final": final,
        "csv": args.csv,
    }
    print("RESULT " + json.dumps(result))
    return result


def plot(csv_path: Path, png: Path, args: Args) -> None:
    """The CSV's win rates (evaluations, and the training games') against env steps, as a PNG."""
    from agents.runtime.plotting import figure, save_png

    rows = list(csv.DictReader(csv_path.read_text().splitlines()))
    fig, ax = figure(6.4, 3.6)
    for key in ["win_rate", *(f"eval_{o}" for o in args.eval_opponents.split(","))]:
        xy = [
            (int(r["step"]) / 1e6, 100 * float(r[key])) for r in rows if r[key] not in ("", "nan")
        ]
        label = "training games" if key == "win_rate" else f"vs {key[5:]} ({args.eval_games} games)"
        if xy:
            ax.plot(*zip(*xy, strict=True), marker=None if key == "win_rate" else ".", label=label)
    ax.axhline(50, color="grey", lw=0.8, ls=":")
    who = "self-play" if args.self_play else f"vs {args.opponent or 'random'}"
    ax.set(
        xlabel="env steps (millions)",
        ylabel="win rate %",
        ylim=(0, 100),
        title=f"examples/cleanrl_ppo.py, {args.rules}, {who}",
    )
    ax.legend(loc="lower right")
    save_png(fig, png, tight=True)


if __name__ == "__main__":
    main()
