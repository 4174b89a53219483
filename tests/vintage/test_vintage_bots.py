"""The Vintage Speed bots: they choose only legal actions and behave as documented."""

from __future__ import annotations

import numpy as np
import pytest
from vintage_helpers import table

from agents.tournament import report, vintage
from agents.tournament.harness import Chunk
from agents.vintage.bots import VintageGreedy, VintageRandom, VintageTactician
from speed_env.policy import Policy
from speed_env.vintage import raw_env

BOTS = [VintageRandom(seed=0), VintageGreedy(), VintageTactician()]


@pytest.mark.parametrize("bot", BOTS, ids=lambda b: type(b).__name__)
def test_bots_satisfy_the_policy_protocol_and_choose_legal_actions(bot: Policy) -> None:
    assert isinstance(bot, Policy)
    for num_players in (2, 4, 7):
        env = raw_env(num_players=num_players)
        for seed in range(4):
            env.reset(seed=seed)
            while not env.game.over:
                view = env.observe(env.agent_selection)
                action = bot.act(view["observation"][None], view["action_mask"][None])
                assert action.shape == (1,)
                assert view["action_mask"][action[0]] == 1
                env.step(int(action[0]))


def test_bots_act_on_a_batch() -> None:
    env = raw_env(num_players=3)
    views = []
    for seed in range(5):
        env.reset(seed=seed)
        views.append(env.observe(env.agent_selection))
    obs = np.stack([v["observation"] for v in views])
    mask = np.stack([v["action_mask"] for v in views])
    for bot in BOTS:
        actions = bot.act(obs, mask)
        assert actions.shape == (5,)
        assert all(mask[i, a] for i, a in enumerate(actions))


def test_greedy_sheds_the_costliest_card_and_keeps_lightning_until_stuck() -> None:
    env = table(
        """
        discard: T5
        player_0: T2 A5 H2/5 L
        player_1: A1
        """
    )
    view = env.observe("player_0")
    action = VintageGreedy().act(view["observation"][None], view["action_mask"][None])[0]
    assert env.action_name(action) == "play H2/5"  # 7 points, more than A5 or T2
    stuck = table(
        """
        discard: T5
        player_0: S1 S2 M3 L
        player_1: A1
        """
    )
    view = stuck.observe("player_0")
    action = VintageGreedy().act(view["observation"][None], view["action_mask"][None])[0]
    assert stuck.action_name(action) == "play L call S"  # the set it holds most of


def test_tactician_goes_out_when_it_can() -> None:
    env = table(
        """
        discard: T5
        player_0: T2 X
        player_1: A1 M8 S8
        """
    )
    bot = VintageTactician()
    for expected in ("play T2", "play X"):
        view = env.observe("player_0")
        action = bot.act(view["observation"][None], view["action_mask"][None])[0]
        assert env.action_name(action) == expected
        env.step(int(action))
    assert env.snapshot()["winner"] == "player_0"


def test_a_tournament_of_the_bots_counts_every_game_and_repeats_itself() -> None:
    settings = vintage.VintageSettings(
        agents=("vintage-greedy", "vintage-random", "vintage-tactician"),
        players=3,
        games=30,
        seed=3,
    )
    results, complete = vintage.run(settings)
    summary = vintage.summarise(settings, results, bootstrap=20)
    games = summary["settings"]["games_played"]
    assert complete and games == 30
    wins = sum(a["wins"] for a in summary["agents"])
    assert wins + summary["settings"]["drawn"] + summary["settings"]["truncated"] == games
    assert all(a["mean_penalty"] >= 0 for a in summary["agents"])
    assert "vintage-greedy" in report.leaderboard(summary)
    again, _ = vintage.run(settings)
    assert vintage.summarise(settings, again, bootstrap=20) == summary


def test_deterministic_bots_give_the_same_results_whatever_the_chunks() -> None:
    settings = vintage.VintageSettings(
        agents=("vintage-greedy", "vintage-tactician"), players=2, games=24, seed=5
    )
    whole = vintage.run_chunk(settings, Chunk(0, 0, 0, 12))
    parts = [
        vintage.run_chunk(settings, Chunk(0, 0, 0, 5)),
        vintage.run_chunk(settings, Chunk(1, 0, 5, 7)),
    ]
    assert whole.deal == [d for p in parts for d in p.deal]
    assert whole.penalty == [x for p in parts for x in p.penalty]
    assert whole.winner == [w for p in parts for w in p.winner]
