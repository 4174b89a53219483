"""How long a seat that only waits can stretch a game under the idle rule (docs/rules.md "Idle").

A seat that only ever waits plays each deal against a bot, in both seats, on
``BatchEnv``; the script prints, per preset and bot, the waiter's wins, the
draws, the truncations at ``max_game_ms`` and percentiles of the game length.
``--idle-flip-ms 0`` shows the first release's behaviour (every game to the cap).

Run: python -m speed_lab.idle_waiter --deals 256 --seed 1000
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

import agents
from speed_env import BatchEnv, make_rules
from speed_env.rules import Rules

PRESETS: dict[str, dict[str, Any]] = {
    "us": {"rules": "us"},
    "pagat": {"rules": "pagat"},
    "japanese": {"rules": "japanese"},
    "japanese-all-options": {
        "rules": "japanese",
        "jokers": True,
        "play_out": True,
        "stack_layout": True,
        "multi_play": True,
        "same_rank": True,
    },
}


def preset_rules(name: str, **changes: object) -> Rules:
    """The rules of one of :data:`PRESETS`, with ``changes``."""
    options = dict(PRESETS[name])
    return make_rules(str(options.pop("rules")), **options, **changes)


def waiter_games(rules: Rules, bot: str, deals: int, seed: int) -> dict[str, np.ndarray]:
    """Each of ``deals`` deals twice, a seat that only waits against ``bot`` in either seat.

    Returns per game (waiter in seat 0 first): ``winner`` from the waiter's side
    (1 the waiter won, -1 lost, 0 draw or truncated), ``truncated`` and ``clock_ms``.
    """
    out: dict[str, list[np.ndarray]] = {"winner": [], "truncated": [], "clock_ms": []}
    for waiter in (0, 1):
        policy = agents.make(bot, rules, seed=seed + waiter)
        env = BatchEnv(deals, rules, autoreset=False)
        obs, mask = env.reset(seed=seed)
        winner = np.zeros(deals, np.int64)
        truncated = np.zeros(deals, bool)
        clock = np.zeros(deals, np.int64)
        while not env.all_finished:
            actions = np.zeros((2, deals), np.int64)  # the waiter's row stays 0: wait
            actions[1 - waiter] = policy.act(obs[1 - waiter], mask[1 - waiter])
            obs, mask, _, term, trunc, info = env.step(actions)
            ended = term | trunc
            if ended.any():
                w = info["winner"][ended]
                winner[ended] = np.where(w == waiter, 1, np.where(w == 1 - waiter, -1, 0))
                truncated[ended] = trunc[ended]
                clock[ended] = info["clock_ms"][ended]
        out["winner"].append(winner)
        out["truncated"].append(truncated)
        out["clock_ms"].append(clock)
    return {k: np.concatenate(v) for k, v in out.items()}


def main() -> None:
    """Print one row per preset and bot."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--deals", type=int, default=256, help="deals per preset and bot (each played twice)"
    )
    parser.add_argument("--seed", type=int, default=1000)
    parser.add_argument("--idle-flip-ms", type=int, default=5000)
    parser.add_argument("--presets", default=",".join(PRESETS))
    parser.add_argument("--bots", default="random,greedy,chain")
    args = parser.parse_args()
    print("preset                bot     games  waiter_wins  draws  truncated  p50_s  p99_s  max_s")
    for name in args.presets.split(","):
        rules = preset_rules(name, idle_flip_ms=args.idle_flip_ms)
        for bot in args.bots.split(","):
            res = waiter_games(rules, bot, args.deals, args.seed)
            s = res["clock_ms"] / 1000
            print(
                f"{name:21s} {bot:7s} {len(s):5d}  {int((res['winner'] == 1).sum()):11d}  "
                f"{int((res['winner'] == 0).sum()):5d}  {int(res['truncated'].sum()):9d}  "
                f"{np.percentile(s, 50):5.0f}  {np.percentile(s, 99):5.0f}  {s.max():5.0f}",
                flush=True,
            )


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
