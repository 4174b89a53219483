"""Both Speed games in OpenSpiel (``speed_env.openspiel``): OpenSpiel's own checks, and play equal
to the kit's envs on the same deals and actions."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

import speed_env  # noqa: E402
import speed_env.openspiel  # noqa: E402
from speed_env import vintage  # noqa: E402


def test_import_speed_env_does_not_import_pyspiel() -> None:
    code = "import sys, speed_env, speed_env.vintage; print('pyspiel' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_the_package_names_each_games_classes_from_their_modules() -> None:
    # The classes live in their games' modules (speed_env/openspiel/games.py lists them); the
    # package still serves them by name, and a name no game has is an AttributeError.
    from speed_env.openspiel import realtime_game, vintage_game

    package = speed_env.openspiel
    assert package.__all__ == ["SpeedGame", "SpeedState", "VintageSpeedGame", "VintageSpeedState"]
    assert package.VintageSpeedGame is vintage_game.VintageSpeedGame
    assert package.VintageSpeedState is vintage_game.VintageSpeedState
    assert package.SpeedGame is realtime_game.SpeedGame
    with pytest.raises(AttributeError, match="no attribute 'SpeedBoard'"):
        package.SpeedBoard  # noqa: B018


def test_both_games_load_by_name_with_parameters() -> None:
    v = pyspiel.load_game("python_vintage_speed(players=3,max_turns=500)")
    assert v.num_players() == 3
    assert v.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert v.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert v.num_distinct_actions() == vintage.raw_env(num_players=3).actions.n
    r = pyspiel.load_game("python_speed(preset=japanese,options=jokers:true,tick_ms=25)")
    assert r.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert r.num_distinct_actions() == 29
    env = speed_env.parallel_env("japanese", jokers=True)
    assert r.observation_tensor_size() == env.observation_space("player_0")["observation"].shape[0]


@pytest.mark.parametrize(
    "name",
    [
        "python_vintage_speed(players=2)",
        "python_vintage_speed(players=4)",
        "python_vintage_speed(players=7)",
        pytest.param("python_speed(deals=50)", marks=pytest.mark.slow),
        pytest.param(
            "python_speed(preset=japanese,deals=50,reaction=pro/250)", marks=pytest.mark.slow
        ),
    ],
)
def test_openspiel_random_simulation_with_serialisation_and_cloning(name: str) -> None:
    game = pyspiel.load_game(name)
    # OpenSpiel's own check: random games, every state cloned, serialised and deserialised,
    # legal actions inside the game's size, returns summing as declared.
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.slow
def test_realtime_game_turn_based_passes_the_same_check() -> None:
    game = pyspiel.convert_to_turn_based(pyspiel.load_game("python_speed(deals=50)"))
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


def test_bad_parameters_are_refused_by_name() -> None:
    with pytest.raises(Exception, match="preset 'nosuch'"):
        pyspiel.load_game("python_speed(preset=nosuch)")
    with pytest.raises(Exception, match="name:value"):
        pyspiel.load_game("python_speed(options=wrap)")
    with pytest.raises(Exception, match="players must be between 2 and 10"):
        pyspiel.load_game("python_vintage_speed(players=11)")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("python_speed(seed=99999999999)", "python_speed: parameter seed must be a whole number"),
        ("python_speed(deals=-99999999999)", "python_speed: parameter deals must be a whole"),
        ("python_speed(tick_ms=4294967296)", "python_speed: parameter tick_ms must be a whole"),
        ("python_vintage_speed(max_turns=9" + "9" * 30 + ")", "parameter max_turns must be"),
        (
            "python_vintage_speed(seed=99999999999)",
            "python_vintage_speed: unknown parameter.* seed",
        ),
        ("python_speed(seed=" + "9" * 5000 + ")", r"got 9{20}… \(5,000 characters\)"),
    ],
)
def test_parameters_beyond_an_int_are_refused_by_name_not_by_a_bare_check(
    text: str, message: str
) -> None:
    """OpenSpiel's parser stops on such a number with ``CHECK_TRUE(success)``, naming nothing."""
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(text)


def test_a_parameter_dict_beyond_an_int_is_refused_by_name() -> None:
    with pytest.raises(
        ValueError, match="parameter seed must be a whole number OpenSpiel can hold"
    ):
        pyspiel.load_game("python_speed", {"seed": 2**40})
    assert pyspiel.load_game("python_speed", {"seed": 2**31 - 1}).seed == 2**31 - 1
    assert str(pyspiel.load_game("tic_tac_toe")) == "tic_tac_toe()"  # other games: OpenSpiel's own


def _finished_realtime_state() -> object:
    game = pyspiel.load_game("python_speed(tick_ms=500,deals=10)")
    state = game.new_initial_state()
    state.apply_action(3)
    while not state.is_terminal():  # both play their highest legal action: over in ~40 ticks
        state.apply_actions([state.legal_actions(0)[-1], state.legal_actions(1)[-1]])
    return state


def test_realtime_game_stepped_past_its_end_says_the_game_is_over() -> None:
    state = _finished_realtime_state()
    history = state.history()
    with pytest.raises(ValueError, match=r"python_speed: the game is over \(won by player_"):
        state.apply_actions([0, 0])
    # A single action here was taken as a chance outcome: a new deal inside a finished game.
    with pytest.raises(ValueError, match="python_speed: the game is over"):
        state.apply_action(0)
    assert state.history() == history and state.is_terminal()


def test_realtime_game_refuses_a_single_action_when_dealt_and_a_joint_move_before() -> None:
    state = pyspiel.load_game("python_speed(deals=10)").new_initial_state()
    with pytest.raises(ValueError, match="python_speed: the game is not dealt yet"):
        state.apply_actions([0, 0])
    state.apply_action(2)
    with pytest.raises(ValueError, match=r"every tick is a joint move: state\.apply_actions"):
        state.apply_action(5)
    assert state.history() == [2]


def test_vintage_game_stepped_past_its_end_says_the_game_is_over() -> None:
    state = pyspiel.load_game("python_vintage_speed(players=2)").new_initial_state()
    rng = np.random.default_rng(0)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    with pytest.raises(ValueError, match="python_vintage_speed: the game is over"):
        state.apply_action(0)


def _kit_vintage_deal_actions(game: vintage.engine.Game) -> list[int]:
    """Chance outcomes that deal the kit game's hands, one card at a time from the dealer's left."""
    n = game.n_players
    left = [h[:] for h in game.hands]
    outcomes = []
    per_seat = sum(left[0]) if n else 0
    for j in range(per_seat * n):
        seat = (game.dealer + 1 + j) % n
        kind = next(k for k, c in enumerate(left[seat]) if c)
        left[seat][kind] -= 1
        outcomes.append(kind)
    return outcomes


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (4, 1), (6, 2)])
def test_vintage_play_equals_the_kit_env(players: int, seed: int) -> None:
    kit = vintage.env(num_players=players, games=1)
    kit.reset(seed=seed)
    raw = kit.unwrapped
    start = raw.game
    game = pyspiel.load_game("python_vintage_speed", {"players": players})
    state = game.new_initial_state()
    state.apply_action(start.dealer)  # the cut
    for kind in _kit_vintage_deal_actions(start):
        state.apply_action(kind)
    rng = np.random.default_rng(seed)
    steps = 0
    while not state.is_terminal():
        assert not state.is_chance_node()
        seat = state.current_player()
        agent = f"player_{seat}"
        assert kit.agent_selection == agent
        obs = kit.observe(agent)
        np.testing.assert_array_equal(state.observation_tensor(seat), obs["observation"])
        assert state.legal_actions() == list(np.flatnonzero(obs["action_mask"]))
        action = int(rng.choice(state.legal_actions()))
        before = raw.game.hands[seat][:]
        kit.step(action)
        state.apply_action(action)
        if action == raw.actions.draw:
            # The kit drew the top of its (maybe rebuilt) pack: chance deals that card here.
            drawn = [k for k, (a, b) in enumerate(zip(raw.game.hands[seat], before)) if a > b]
            assert state.is_chance_node() and len(drawn) == 1
            assert drawn[0] in dict(state.chance_outcomes())
            state.apply_action(drawn[0])
        steps += 1
    assert steps > 10
    kit_returns = [kit.unwrapped._cumulative_rewards[a] for a in kit.possible_agents]
    assert state.returns() == pytest.approx(kit_returns)


@pytest.mark.parametrize(("preset", "seed"), [("us", 3), ("japanese", 4), ("pagat", 5)])
def test_realtime_play_equals_the_kit_env(preset: str, seed: int) -> None:
    game = pyspiel.load_game("python_speed", {"preset": preset, "deals": 100})
    state = game.new_initial_state()
    state.apply_action(seed)  # deal k is the kit's game seeded seed + k (seed parameter 0)
    kit = speed_env.parallel_env(preset)
    obs, _ = kit.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total = dict.fromkeys(kit.possible_agents, 0.0)
    while kit.agents:
        for p, agent in enumerate(kit.possible_agents):
            np.testing.assert_array_equal(state.observation_tensor(p), obs[agent]["observation"])
            assert state.legal_actions(p) == list(np.flatnonzero(obs[agent]["action_mask"]))
        joint = [int(rng.choice(state.legal_actions(p))) for p in range(2)]
        obs, rewards, *_ = kit.step(dict(zip(kit.possible_agents, joint)))
        for agent, r in rewards.items():
            total[agent] += r
        state.apply_actions(joint)
    assert state.is_terminal()
    assert state.returns() == [total["player_0"], total["player_1"]]
    assert state.snapshot() == kit.unwrapped.snapshot()


def test_vintage_resample_is_consistent_with_the_players_view() -> None:
    game = pyspiel.load_game("python_vintage_speed")
    rng = np.random.default_rng(7)
    state = game.new_initial_state()
    # Play random moves to a decision some way into a game (a new game if one ends first).
    while state.is_chance_node() or len(state.full_history()) < 40:
        if state.is_terminal():
            state = game.new_initial_state()
        elif state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(outcomes, p=probs)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    player = state.current_player()
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    differs = 0
    for _ in range(20):
        world = state.resample_from_infostate(player, sampler)
        assert world.information_state_string(player) == state.information_state_string(player)
        np.testing.assert_array_equal(
            world.observation_tensor(player), state.observation_tensor(player)
        )
        assert world.legal_actions() == state.legal_actions()
        others = [s for s in range(game.num_players()) if s != player]
        differs += any(world.engine.hands[s] != state.engine.hands[s] for s in others)
    assert differs > 10  # the hidden hands are redealt, not copied


@pytest.mark.slow
@pytest.mark.parametrize("name", ["python_vintage_speed(players=3)", "python_speed(deals=20)"])
def test_rl_environment_runs_and_openspiel_a2c_learns_on_it(name: str) -> None:
    """OpenSpiel's own learner (its PyTorch policy-gradient agent, A2C) trains on the game through
    OpenSpiel's ``rl_environment``: every action legal, the network's weights updated."""
    torch = pytest.importorskip("torch")
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import policy_gradient

    torch.manual_seed(0)
    env = rl_environment.Environment(pyspiel.load_game(name), seed=0)
    players = env.num_players
    learners = [
        policy_gradient.PolicyGradient(
            player_id=p,
            info_state_size=env.observation_spec()["info_state"][0],
            num_actions=env.action_spec()["num_actions"],
            loss_str="a2c",
            hidden_layers_sizes=[32],
            batch_size=2,
            num_critic_before_pi=1,
        )
        for p in range(players)
    ]
    before = [p.detach().clone() for p in learners[0]._net_torso.parameters()]
    steps = episodes = 0
    while steps < 2000:
        time_step = env.reset()
        while not time_step.last():
            legal = time_step.observations["legal_actions"]
            if env.is_turn_based:
                p = time_step.observations["current_player"]
                action = learners[p].step(time_step).action
                assert action in legal[p]
                time_step = env.step([action])
            else:
                actions = [learners[p].step(time_step).action for p in range(players)]
                assert all(a in legal[p] for p, a in enumerate(actions))
                time_step = env.step(actions)
            steps += 1
        for learner in learners:
            learner.step(time_step)
        episodes += 1
    after = list(learners[0]._net_torso.parameters())
    assert episodes >= 2  # at least one batch of episodes reached the update
    assert any(not torch.equal(a, b) for a, b in zip(before, after))
    assert learners[0].loss is not None and all(
        np.isfinite(float(v.detach())) for v in learners[0].loss
    )


def test_openspiel_bots_and_ismcts_take_seats_in_kit_tournaments(tmp_path) -> None:
    """``openspiel:random`` plays real-time, ``vintage-openspiel:random`` and ``vintage-ismcts``
    play vintage, through the kit's own tournament command; every game finishes."""
    import json

    from speed_cli import main

    out = tmp_path / "rt"
    assert main(["tournament", "--agents", "openspiel:random,greedy", "--games", "4",
                 "--rules", "us", "--seed", "0", "--workers", "1", "--out", str(out)
                 ]) == 0  # fmt: skip
    played = json.loads((out / "results.json").read_text())
    assert "openspiel:random" in json.dumps(played)
    out = tmp_path / "vt"
    agents = "vintage-ismcts:simulations=8,vintage-openspiel:random,vintage-random"
    assert main(["tournament", "--game", "vintage", "--agents", agents, "--games", "4",
                 "--seed", "0", "--workers", "1", "--out", str(out)]) == 0  # fmt: skip
    text = (out / "leaderboard.md").read_text()
    assert "vintage-ismcts:simulations=8" in text and "vintage-openspiel:random" in text


def test_openspiel_specs_refuse_bad_bots_by_name() -> None:
    import agents
    from agents.vintage import registry

    with pytest.raises(agents.AgentSpecError, match="unknown OpenSpiel bot 'nosuch'"):
        agents.make("openspiel:nosuch")
    with pytest.raises(
        agents.AgentSpecError, match="unknown OpenSpiel bot 'ismcts' for real-time Speed"
    ):
        agents.make("openspiel:ismcts")
    with pytest.raises(agents.AgentSpecError, match="no callable 'nope'"):
        registry.make("vintage-openspiel:json:nope")
    with pytest.raises(agents.AgentSpecError, match="simulations must be a whole number"):
        registry.make("vintage-ismcts:simulations=0")


def test_a_user_factory_bot_is_asked_as_the_seat_to_act() -> None:
    """A ``package.module:FACTORY`` bot gets a world whose view equals the seat's observation."""
    import agents

    seen = []

    class Spy(pyspiel.Bot):
        def __init__(self, player: int) -> None:
            pyspiel.Bot.__init__(self)
            self.player = player

        def step(self, state):
            seen.append(np.array(state.observation_tensor(self.player)))
            return state.legal_actions(self.player)[-1]

    module = type(sys)("spy_bots")
    module.make = lambda game, player, seed: Spy(player)
    sys.modules["spy_bots"] = module
    try:
        seat = agents.make("openspiel:spy_bots:make", seed=0)
        env = speed_env.parallel_env("us")
        obs, _ = env.reset(seed=2)
        for _ in range(30):
            rows = np.stack([obs[a]["observation"] for a in env.agents])
            masks = np.stack([obs[a]["action_mask"] for a in env.agents])
            before = len(seen)
            acts = seat.act(rows, masks)
            assert all(masks[i, a] for i, a in enumerate(acts))
            for view in seen[before:]:  # the bot saw exactly one of the seats' own views
                assert any(np.array_equal(view, row) for row in rows)
            obs, *_ = env.step(dict(zip(env.agents, acts.tolist())))
    finally:
        del sys.modules["spy_bots"]
    assert seen  # it was asked where it had a choice, each time shown its own view
