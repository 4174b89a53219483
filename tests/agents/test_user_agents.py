"""A user's own agent as a spec (``py:PATH.py:NAME``, ``package.module:NAME``): loading it in
every form, in both games, and the errors that name the file and what is missing."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.errors import AgentSpecError
from agents.specs import user_files
from agents.specs.user_files import UserAgentError, is_user_spec
from agents.vintage import registry
from speed_cli import main

BOT = textwrap.dedent(
    """
    import numpy as np

    class Bot:
        '''First legal action (a class built with no arguments).'''
        def act(self, obs, mask):
            return mask.argmax(axis=1)

    class Seeded:
        '''Built with (rules, seed).'''
        def __init__(self, rules, seed):
            self.rules, self.seed = rules, seed
        def act(self, obs, mask):
            return mask.argmax(axis=1)

    def factory(rules, seed):
        return Seeded(rules, seed)

    def bad_factory(rules):
        return Bot()

    def returns_junk(rules, seed):
        return 42

    class NoAct:
        pass

    class OneArgAct:
        def act(self, obs):
            return obs

    class Picky:
        def __init__(self, a, b, c):
            pass
        def act(self, obs, mask):
            return mask.argmax(axis=1)

    instance = Bot()
    number = 3
    """
)


@pytest.fixture
def bot_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_bot.py"
    path.write_text(BOT)
    return path


def test_grammar_keeps_registered_specs_with_colons() -> None:
    # Registered names hold no dot, so specs with ':' that existed before stay theirs.
    for spec in (
        "ppo:model.json",
        "chain:run=1,flying=0",
        "search:wait=0",
        "trained:sample",
        "vintage-search:rollout=tactician@8",
        "vintage-ppo:m.json?sample",
    ):
        assert not is_user_spec(spec), spec
    for spec in ("py:bot.py:Bot", "py:dir/bot.py:Bot@pro", "my_pkg.bots:Bot", "a.b.c:make@250"):
        assert is_user_spec(spec), spec
    # A top-level module without a dot is not a module spec (it would shadow typos of names).
    assert not is_user_spec("my_bot:Bot")
    parsed = user_files.parse("py:C:/odd@dir/bot.py:Bot@pro")
    assert (parsed.source, parsed.name, parsed.tail) == ("C:/odd@dir/bot.py", "Bot", "pro")
    assert agents.parse_spec("chain:run=1").name == "chain"


@pytest.mark.parametrize("name", ["Bot", "Seeded", "factory", "instance"])
def test_each_form_loads_and_plays(bot_file: Path, name: str) -> None:
    policy = agents.make(f"py:{bot_file}:{name}", "pagat", seed=5)
    mask = np.array([[0, 1, 1], [1, 0, 0]], np.int8)
    assert policy.act(np.zeros((2, 4), np.float32), mask).tolist() == [1, 0]
    if name in ("Seeded", "factory"):
        assert policy.rules.preset == "pagat" and policy.seed == 5


def test_reaction_tail_and_module_form(bot_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    policy = agents.make(f"py:{bot_file}:Bot@pro", seed=0)
    assert policy.reaction is not None and policy.reaction.name == "pro"
    pkg = bot_file.parent / "userpkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "bots.py").write_text(BOT)
    monkeypatch.syspath_prepend(str(bot_file.parent))
    try:
        assert agents.make("userpkg.bots:factory", "us", seed=1).seed == 1
    finally:
        for mod in ("userpkg", "userpkg.bots"):
            sys.modules.pop(mod, None)


def test_vintage_user_agent_plays_a_vintage_tournament(bot_file: Path) -> None:
    from agents.tournament import vintage

    spec = f"py:{bot_file}:factory"
    assert registry.make(spec, seed=0).rules is None  # no real-time rules in vintage
    settings = vintage.VintageSettings(agents=(spec, "vintage-greedy"), players=2, games=4, seed=0)
    results, complete = vintage.run(settings)
    assert complete
    summary = vintage.summarise(settings, results, bootstrap=0)
    assert {a["name"] for a in summary["agents"]} == {spec, "vintage-greedy"}
    with pytest.raises(AgentSpecError, match="takes no @pro"):
        registry.parse_spec(f"py:{bot_file}:Bot@pro")


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("Missing", r"no name 'Missing' in file .*my_bot\.py \(it defines Bot"),
        ("NoAct", r"class 'NoAct' in file .*my_bot\.py is not a Policy: it has no act"),
        ("OneArgAct", r"is not a Policy: its act\(obs\) cannot be called as act\(obs, mask\)"),
        ("bad_factory", r"factory 'bad_factory' .* wrong signature \(rules\)"),
        ("returns_junk", r"what factory 'returns_junk' .* returned is not a Policy"),
        ("Picky", r"constructor\(a, b, c\) takes neither \(rules, seed\) nor no arguments"),
        ("number", r"'number' in file .* is not a Policy"),
    ],
)
def test_errors_name_the_file_and_what_is_missing(bot_file: Path, name: str, message: str) -> None:
    with pytest.raises(UserAgentError, match=message):
        agents.make(f"py:{bot_file}:{name}", seed=0)


def test_file_and_import_errors(tmp_path: Path) -> None:
    with pytest.raises(UserAgentError, match=r"no such file .*nowhere\.py"):
        agents.make(f"py:{tmp_path}/nowhere.py:Bot")
    broken = tmp_path / "broken.py"
    broken.write_text("import numpy\nx = undefined_name + 1\n")
    with pytest.raises(
        UserAgentError, match=r"importing .*broken\.py failed: NameError: name 'undefined_name'"
    ):
        agents.make(f"py:{broken}:Bot")
    with pytest.raises(UserAgentError, match="no module named 'no_such_pkg'"):
        agents.make("no_such_pkg.bots:Bot")
    with pytest.raises(UserAgentError, match=r"py:PATH\.py:NAME"):
        agents.parse_spec("py:bot.txt:Bot")


def test_a_bot_file_that_is_no_regular_file_or_too_large_is_refused_by_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A ``py:`` file is read by the kit's reader of user files: a named pipe is named as one
    (it was 'no such file'), a file past the bound refused before a byte is read."""
    pipe = tmp_path / "pipe_bot.py"
    os.mkfifo(pipe)
    spec = f"py:{pipe}:Bot"
    out = str(tmp_path / "out")
    code = main(["tournament", "--agents", f"{spec},greedy", "--games", "2", "--out", out])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1
    assert f"agent file {pipe} is a named pipe (FIFO), not a regular file; refusing it" in err
    huge = tmp_path / "huge_bot.py"
    with huge.open("wb") as f:
        f.truncate(user_files.SOURCE_LIMIT + 1)  # sparse: no disk used, no byte read
    with pytest.raises(UserAgentError, match=r"huge_bot\.py is larger than 67,108,864 bytes"):
        agents.make(f"py:{huge}:Bot")


def test_a_syntax_error_names_the_file_and_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bot file that does not parse is one line naming the file, the line and the reason."""
    bad = tmp_path / "typo.py"
    bad.write_text("import numpy\n\nclass Bot:\n    def act(self, obs, mask)\n        return 0\n")
    with pytest.raises(UserAgentError, match=r"SyntaxError in .*typo\.py, line 4: expected ':'"):
        agents.make(f"py:{bad}:Bot")
    out = str(tmp_path / "out")
    code = main(["tournament", "--agents", f"py:{bad}:Bot,greedy", "--games", "2", "--out", out])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"{bad}, line 4" in err


def test_an_error_at_import_names_the_line_of_the_bot_file(tmp_path: Path) -> None:
    raising = tmp_path / "raising.py"
    raising.write_text("import numpy\n\nraise RuntimeError('no config')\n")
    with pytest.raises(
        UserAgentError, match=r"RuntimeError: no config \(at .*raising\.py, line 3\)"
    ):
        agents.make(f"py:{raising}:Bot")


def test_cli_refuses_a_bad_user_agent_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            "tournament",
            "--agents",
            f"py:{tmp_path}/gone.py:Bot,greedy",
            "--games",
            "2",
            "--out",
            str(tmp_path / "out"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "no such file" in err and "gone.py" in err
    assert not (tmp_path / "out").exists()


def test_cli_tournament_takes_a_user_agent(
    bot_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"py:{bot_file}:Seeded"
    code = main(
        ["tournament", "--agents", f"{spec},greedy", "--games", "4", "--out", str(tmp_path / "out")]
    )
    assert code == 0
    assert spec in (tmp_path / "out" / "results.json").read_text()


def test_cli_vintage_tournament_builds_a_user_agent_for_vintage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent refuses real-time rules: the up-front check must build it for vintage.
    bot = tmp_path / "vintage_only.py"
    bot.write_text(
        BOT
        + textwrap.dedent(
            """
            def vintage_only(rules, seed):
                if rules is not None:
                    raise ValueError("I play Vintage Speed only")
                return Bot()
            """
        )
    )
    argv = ["tournament", "--game", "vintage", "--agents", f"py:{bot}:vintage_only,vintage-greedy"]
    assert main([*argv, "--players", "2", "--games", "4", "--out", str(tmp_path / "out")]) == 0
    assert "vintage_only" in (tmp_path / "out" / "results.json").read_text()


def test_vintage_training_takes_a_user_agent_as_opponent(bot_file: Path) -> None:
    """``speed train vintage --opponent py:...`` once refused every spec not named
    ``vintage-...``, while every other command took a user's agent."""
    from speed_env.vintage import make_vintage_rules
    from train.vintage_ppo import VintageConfig, check_config, observation_scale, table_env

    spec = f"py:{bot_file}:factory"
    check_config(VintageConfig(opponent=spec, eval_opponents=f"vintage-greedy,{spec}"))
    scale = observation_scale(make_vintage_rules(2, 1))
    env = table_env(2, [spec], seed=0, i=0, scale=scale, seat=0)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert obs.shape == env.observation_space.shape
    with pytest.raises(ValueError, match="'chain' plays real-time Speed"):
        check_config(VintageConfig(opponent="chain"))
    with pytest.raises(AgentSpecError, match="unknown agent 'nobody'"):
        check_config(VintageConfig(opponent="nobody"))


def test_a_python_file_given_as_a_spec_gets_the_py_spelling(bot_file: Path, capsys) -> None:
    """``speed evaluate my_bot.py`` once answered "unknown agent 'my_bot.py'"; it now shows the
    ``py:`` spelling with the names the file defines (read, not run)."""
    assert main(["evaluate", str(bot_file), "--games", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is a Python file, not an agent spec" in err
    assert f"py:{bot_file}:Bot or py:{bot_file}:Seeded" in err
    with pytest.raises(AgentSpecError, match=r"py:no_such_bot\.py:NAME"):
        agents.parse_spec("no_such_bot.py")
    with pytest.raises(AgentSpecError, match="is a Python file"):
        registry.parse_spec("no_such_bot.py")


NUMBA_BOT = textwrap.dedent(
    """
    import numpy as np
    from numba import njit

    @njit(cache=True)
    def first_legal(mask):
        out = np.zeros(mask.shape[0], np.int64)
        for i in range(mask.shape[0]):
            out[i] = np.argmax(mask[i])
        return out

    class Bot:
        '''First legal action, from a numba function cached on disk.'''
        def act(self, obs, mask):
            return first_legal(mask)
    """
)


@pytest.mark.slow
def test_a_bot_file_with_a_cached_numba_function_plays_again_in_a_new_process(
    tmp_path: Path,
) -> None:
    """The second run loads the compiled function from numba's cache, which finds the bot's
    module again by name: the name must not change between processes (``hash()`` is salted)."""
    import subprocess

    bot = tmp_path / "numba_bot.py"
    bot.write_text(NUMBA_BOT)
    play = (
        "import agents, numpy as np; "
        f"b = agents.make('py:{bot}:Bot'); "
        "print(b.act(np.zeros((2, 4)), np.array([[0, 1, 0, 0], [1, 0, 0, 0]], np.int8)))"
    )
    for hash_seed in ("1", "2"):  # the second process finds the first one's cache
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        done = subprocess.run(
            [sys.executable, "-c", play], env=env, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == 0, done.stderr[-2000:]
        assert done.stdout.strip() == "[1 0]"
    # numba caches beside a writable source file: the second run did load from it.
    assert list(tmp_path.rglob("numba_bot.first_legal*.nbi")), "no cache: the test proves nothing"


def test_a_bot_file_loads_under_one_module_name_in_every_process(bot_file: Path) -> None:
    """One file, one name, however the path to it is spelled."""
    other_spelling = bot_file.parent / ".." / bot_file.parent.name / bot_file.name
    assert user_files.module_name(bot_file) == user_files.module_name(other_spelling)
    assert user_files.module_name(bot_file).startswith("_speed_user_agent_")
