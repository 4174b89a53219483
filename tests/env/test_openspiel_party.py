"""The real-time OpenSpiel game with three and four players (``python_speed(players=n)``):
OpenSpiel's own checks, play equal to the kit's n-seat env, and the parameter's refusals."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import speed_env  # noqa: E402
import speed_env.openspiel  # noqa: E402


@pytest.mark.parametrize(("players", "actions"), [(2, 27), (3, 40), (4, 53)])
def test_the_game_declares_its_players_and_the_kit_envs_sizes(players: int, actions: int) -> None:
    game = pyspiel.load_game(f"python_speed(players={players})")
    assert game.num_players() == players
    assert game.num_distinct_actions() == actions  # wait, then 1 + n * rank + pile
    kit = speed_env.parallel_env("us", players=players)
    assert (
        game.observation_tensor_size() == kit.observation_space("player_0")["observation"].shape[0]
    )
    kind = game.get_type()
    assert (kind.min_num_players, kind.max_num_players) == (2, 4)
    assert kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS


def test_three_player_random_games_pass_openspiel_checks() -> None:
    # OpenSpiel's own check: random games, every state cloned, serialised and deserialised,
    # legal actions inside the game's size, returns summing to the declared zero.
    game = pyspiel.load_game("python_speed(players=3,deals=20,tick_ms=250)")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


@pytest.mark.parametrize(("preset", "players", "seed"), [("us", 3, 2), ("japanese", 4, 5)])
def test_n_player_play_equals_the_kit_env(preset: str, players: int, seed: int) -> None:
    game = pyspiel.load_game(
        "python_speed", {"preset": preset, "players": players, "deals": 10, "tick_ms": 250}
    )
    state = game.new_initial_state()
    state.apply_action(seed)  # deal k is the kit's game seeded seed + k (seed parameter 0)
    kit = speed_env.parallel_env(preset, players=players, tick_ms=250)
    obs, _ = kit.reset(seed=seed)
    rng = np.random.default_rng(seed)
    winner = None
    while kit.agents:
        for p, agent in enumerate(kit.possible_agents):
            np.testing.assert_array_equal(state.observation_tensor(p), obs[agent]["observation"])
            assert state.legal_actions(p) == list(np.flatnonzero(obs[agent]["action_mask"]))
        joint = [int(rng.choice(state.legal_actions(p))) for p in range(players)]
        obs, rewards, _, _, infos = kit.step(dict(zip(kit.possible_agents, joint, strict=True)))
        winner = infos["player_0"].get("winner", winner)
        state.apply_actions(joint)
    assert state.is_terminal()
    assert state.snapshot() == kit.table()
    assert winner is not None and winner < players  # random play: someone wins
    loss = -1.0 / (players - 1)
    assert state.returns() == [1.0 if p == winner else loss for p in range(players)]
    assert sum(state.returns()) == pytest.approx(0.0, abs=1e-12)
    again = game.deserialize_state(state.serialize())  # the history replays to the same end
    assert again.returns() == state.returns() and again.snapshot() == state.snapshot()


def test_a_three_player_state_speaks_for_each_seat() -> None:
    game = pyspiel.load_game("python_speed(players=3,deals=5)")
    state = game.new_initial_state()
    state.apply_action(1)
    mine = state.observation_string(1)
    assert mine.startswith("p1 t=0") and mine.count(" | p") == 2  # the two others, counted
    assert str(state).count("\np") == 3  # one line per seat
    assert state.action_to_string(0, 1 + 3 * 4 + 2) == "play rank 4 on pile 2"
    with pytest.raises(ValueError, match=r"one action per player \(3\), got 2"):
        state.apply_actions([0, 0])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("python_speed(players=5)", "python_speed: parameter players must be between 2 and 4"),
        ("python_speed(players=1)", "python_speed: parameter players must be between 2 and 4"),
        ("python_speed(options=players:3)", "give the seat count as the game's parameter players"),
        ("python_speed(players=3,reaction=pro/250)", r"one per seat \(3\), got 2"),
    ],
)
def test_a_seat_count_it_cannot_seat_is_refused_by_name(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(text)


def test_a_seat_count_that_is_not_a_number_is_refused_by_openspiel_naming_it() -> None:
    # OpenSpiel's own parameter check (the spec declares players an int) names it.
    with pytest.raises(pyspiel.SpielError, match="Wrong type for parameter players"):
        pyspiel.load_game("python_speed(players=three)")
