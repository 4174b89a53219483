"""OpenSpiel on the kit's games: load both by name, and let OpenSpiel's own ISMCTS play vintage.

Run: python examples/openspiel_ismcts.py [--games 10] [--simulations 50]

``import speed_env.openspiel`` registers ``python_vintage_speed`` and
``python_speed`` with ``pyspiel``. This script plays two-player Vintage Speed
between OpenSpiel's Python ``ISMCTSBot`` (worlds redealt from its own view by
the kit's fair sampler) and OpenSpiel's uniform random bot, seats alternating,
then one game of real-time ``python_speed``
between two random bots, and ends with a ``RESULT {json}`` line.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import speed_env.openspiel  # noqa: F401  (registers the games)


def main() -> None:
    """Play the games and print what happened."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--simulations", type=int, default=50)
    args = parser.parse_args()

    game = pyspiel.load_game("python_vintage_speed(players=2)")
    rng = np.random.RandomState(0)
    search = ismcts.ISMCTSBot(
        game, mcts.RandomRolloutEvaluator(1, rng), 2.0, args.simulations, random_state=rng
    )
    returns = []
    for g in range(args.games):
        seat = g % 2  # alternate who deals first
        bots = [pyspiel.make_uniform_random_bot(p, g) for p in range(2)]
        bots[seat] = search
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():  # the cut, the deal and each card drawn
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                state.apply_action(int(bots[state.current_player()].step(state)))
        result = state.returns()
        returns.append((result[seat], result[1 - seat]))
    ismcts_mean, random_mean = np.mean(returns, axis=0)
    print(f"vintage, {args.games} games: ISMCTS mean return {ismcts_mean:+.2f}, "
          f"random {random_mean:+.2f}")  # fmt: skip

    realtime = pyspiel.load_game("python_speed(preset=us,tick_ms=50)")
    state = realtime.new_initial_state()
    state.apply_action(0)  # the deal: the kit's game seeded 0
    ticks = 0
    while not state.is_terminal():
        state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
        ticks += 1
    print(f"real time, one random game: {ticks} ticks, returns {state.returns()}")
    print("RESULT " + json.dumps({
        "games": args.games,
        "ismcts_mean_return": float(ismcts_mean),
        "random_mean_return": float(random_mean),
        "realtime_ticks": ticks,
        "realtime_returns": state.returns(),
    }))  # fmt: skip


if __name__ == "__main__":
    main()
