"""How many recorded games a behaviour clone needs to beat chance on held-out games reliably.

A scripted person with a known habit plays ``chain`` (900 ms) in ``parallel_env``;
``train.bc_data.clone`` (what ``speed train bc`` runs, at its defaults) fits it on
some games and scores it on the held-out rest. For each number of games the study
repeats that on independent datasets and prints the held-out agreement, chance on
the same plays, their difference (mean and spread), how often the clone did not beat
chance, the exported model's margin over chance on the plays it was fitted on (mean and
least), and how often the person's own rule picks its
recorded play (the ceiling a clone could reach, since a fifth of its picks are random).

The person is :class:`speed_data.person.Person` (mu 300, sigma 40, tau 100 ms), the one
``tests/data/test_browser_player.py`` drives in the real page, here without the browser: it
answers each *new* chance (a play that was not legal at the
tick before; nothing is legal while its own card is in flight, so after each landing
every play then possible is new) after a wait drawn from an ex-Gaussian, and picks
which one by habit: with probability ``--habit`` the first in habit order (the left
pile, then the lowest rank), otherwise any of the new ones. A wait whose chance
goes away first is kept for the next chance. Its plays land 1 ms after it sends them,
as a person's do at the table (their reaction already happened).

Run: python -m speed_lab.clone_sample_size --games 5,10,20 --datasets 40 --seed 0
"""

from __future__ import annotations

import argparse
import tempfile

import numpy as np

import agents
import speed_env
from speed_data.person import Attention, Person, habit_key, plays_of
from speed_env.rules import make_rules
from train.bc_data import Decisions, chance_agreement, clone, discounted_returns
from train.common.numbers import count, count_list, real

HABIT_ORDER = np.array(sorted(range(1, 27), key=habit_key))
"""The play actions of the 13-rank games (``1 + 2 * rank + pile``) in the person's habit order:
pile 0 before pile 1, then rank."""


def person_game(
    person: Person, seed: int, rng: np.random.Generator, opponent_ms: float = 900.0
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One game of the person (``player_0``) against ``chain``: per tick obs, mask, action,
    reward."""
    env = speed_env.parallel_env("us", tick_ms=50, reaction=(1, opponent_ms))
    obs, _ = env.reset(seed=seed)
    bot = agents.make("chain", make_rules("us"), seed=seed)
    rows: list[tuple[np.ndarray, np.ndarray, int, float]] = []
    attention = Attention(person, rng)
    before: set[int] = set()
    t_ms = 0.0
    while env.agents:
        mask = obs["player_0"]["action_mask"]
        legal = plays_of(mask)
        attention.look(legal, legal - before, t_ms)
        before = legal
        action = 0
        due = attention.due(t_ms)
        if due is not None:
            action = due[0]
            attention.played()
        theirs = obs["player_1"]
        reply = int(bot.act(theirs["observation"][None], theirs["action_mask"][None])[0])
        seen = obs["player_0"]["observation"]
        obs, rewards, _, _, _ = env.step({"player_0": action, "player_1": reply})
        rows.append((seen, mask, action, float(rewards.get("player_0", 0.0))))
        t_ms += 50.0
    return (
        np.array([r[0] for r in rows], np.float32),
        np.array([r[1] for r in rows], np.int8),
        np.array([r[2] for r in rows], np.int64),
        np.array([r[3] for r in rows], np.float32),
    )


def person_dataset(person: Person, games: int, seed: int) -> Decisions:
    """``games`` games of the person as :class:`train.bc_data.Decisions` (dealt from ``seed``)."""
    rng = np.random.default_rng(seed)
    played = [person_game(person, seed * 10_000 + g, rng) for g in range(games)]
    return Decisions(
        obs=np.concatenate([g[0] for g in played]),
        mask=np.concatenate([g[1] for g in played]),
        action=np.concatenate([g[2] for g in played]),
        ret=np.concatenate([discounted_returns(g[3], 0.99) for g in played]),
        game=np.concatenate([np.full(len(g[2]), i) for i, g in enumerate(played)]),
        reaction_ms=np.full(sum(len(g[2]) for g in played), np.nan),
        rules=make_rules("us"),
        tick_ms=50,
        source=f"the scripted person, {games} games from seed {seed}",
    )


def habit_agreement(data: Decisions) -> float:
    """Share of the person's plays that are the first legal play in habit order."""
    plays = data.action != 0
    legal = data.mask[plays][:, HABIT_ORDER]
    first = HABIT_ORDER[np.argmax(legal, axis=1)]
    return float(np.mean(first == data.action[plays]))


def fit_margin(data: Decisions, spec: str, held_out: list[int]) -> float:
    """The agent's agreement with the plays it was fitted on (the games not ``held_out``)
    less chance's: how well the exported model file learned what it was shown."""
    fitted = (data.action != 0) & ~np.isin(data.game, held_out)
    choice = data.mask[fitted].copy()
    choice[:, 0] = 0  # which play, as the fit compares
    picked = np.asarray(agents.make(spec, data.rules, seed=0).act(data.obs[fitted], choice))
    return float(np.mean(picked == data.action[fitted])) - chance_agreement(choice)


def study_row(person: Person, games: int, datasets: int, seed: int, holdout: float) -> str:
    """The printed row for one number of games: ``datasets`` datasets, each cloned once."""
    margins, fits, agree, chance, ceiling, plays, held = [], [], [], [], [], [], []
    for k in range(datasets):
        data = person_dataset(person, games, seed + k)
        with tempfile.TemporaryDirectory() as out:  # the clone's model file is not kept
            stats = clone(data, out, holdout=holdout, seed=seed + k, log=lambda *_: None)
            fits.append(fit_margin(data, f"ppo:{out}/model.json", stats["held_out"]))
        agree.append(stats["held_out_agreement"])
        chance.append(stats["chance_agreement"])
        margins.append(stats["held_out_agreement"] - stats["chance_agreement"])
        ceiling.append(habit_agreement(data))
        plays.append(stats["plays"])
        held.append(stats["held_out_plays"])
    m, f = np.array(margins), np.array(fits)
    return (
        f"{games:5d}  {np.mean(plays):5.0f}  {np.mean(held):8.0f}  {100 * np.mean(agree):5.1f}%  "
        f"{100 * np.mean(chance):6.1f}%  {100 * m.mean():+5.1f} ± {100 * m.std():4.1f}  "
        f"{int((m <= 0).sum()):3d}/{datasets:<3d}  {100 * f.mean():+7.1f} ({100 * f.min():+5.1f})  "
        f"{100 * np.mean(ceiling):8.1f}%"
    )


def main() -> None:
    """Print one row per number of games."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    # Cloning holds whole games out, so a dataset needs 2 at least.
    games_help = "numbers of games, comma-separated (each at least 2)"
    parser.add_argument("--games", type=count_list(2), default=[5, 10, 20], help=games_help)
    parser.add_argument("--datasets", type=count(1), default=40, help="datasets per size")
    parser.add_argument("--habit", type=real(0, 1), default=0.8, help="how often habit decides")
    holdout = real(above=0, below=1)
    parser.add_argument("--holdout", type=holdout, default=0.4, help="share of games held out")
    parser.add_argument("--seed", type=count(0), default=0)
    args = parser.parse_args()
    person = Person(habit=args.habit)
    heads = [("games", 5), ("plays", 5), ("held-out", 8), ("clone", 6), ("chance", 7)]
    heads += [("clone-chance", 12), ("<=0", 7), ("fitted (least)", 15), ("the rule", 9)]
    print("  ".join(f"{name:>{width}}" for name, width in heads))
    for games in args.games:
        row = study_row(person, games, args.datasets, args.seed, args.holdout)
        print(row, flush=True)


if __name__ == "__main__":  # the kit's endings: Ctrl-C, SIGTERM, a reader gone
    from agents.runtime.entry import run_main

    raise SystemExit(run_main(main))
