"""A seat that only waits cannot stall a game to a draw (docs/rules.md "Idle").

Before ``idle_flip_ms`` a seat holding a legal play that kept waiting kept the
table from ever being stuck: nothing flipped and the game ran to
``max_game_ms``, a draw. With the default idle rule the other seat sheds its
cards through plays and idle flips and wins, on every preset. Exact timings
are in ``tests/env/test_scenarios.py`` ("Idle"); the engine and the referee agree
on them in ``tests/env/test_differential.py`` (option sets ``*-idle``). The games
are played by ``speed_lab/idle_waiter.py``, which measures the same on more deals.
"""

from __future__ import annotations

import pytest

from speed_lab import idle_waiter


@pytest.mark.slow
@pytest.mark.parametrize("bot", ["random", "greedy", "chain"])
@pytest.mark.parametrize("preset", list(idle_waiter.PRESETS))
def test_a_seat_that_only_waits_loses_every_game_and_none_reaches_the_cap(preset, bot):
    """48 games (24 deals, both seatings) per preset and bot, default rules.

    A waiter can still stretch a game: when it hoards every card that fits the
    other seat's last cards, those wait for the rare flips that turn one up, one
    idle period plus a countdown (6 s) per flip (README, "Idle flips", gives the
    measured lengths).
    """
    rules = idle_waiter.preset_rules(preset)
    res = idle_waiter.waiter_games(rules, bot, deals=24, seed=1000)
    assert (res["winner"] == -1).all(), f"{preset} v {bot}: waiter results {res['winner'].tolist()}"
    assert not res["truncated"].any()
    assert res["clock_ms"].max() < rules.max_game_ms


def test_without_the_idle_rule_a_waiter_stalls_the_game_to_the_cap():
    """idle_flip_ms=0 (the first release's behaviour): the same waiter draws by truncation."""
    rules = idle_waiter.preset_rules("us", idle_flip_ms=0, max_game_ms=20_000)
    res = idle_waiter.waiter_games(rules, "greedy", deals=8, seed=1000)
    assert res["truncated"].all() and (res["winner"] == 0).all()
    with_rule = idle_waiter.waiter_games(
        idle_waiter.preset_rules("us"), "greedy", deals=8, seed=1000
    )
    assert (with_rule["winner"] == -1).all() and not with_rule["truncated"].any()


@pytest.mark.parametrize("value", [-1, 1.5, "5000", True, None, 10**12 + 1, 2**63])
def test_a_bad_idle_flip_ms_is_refused_naming_the_option(value, tmp_path):
    from speed_env import RulesError, make_rules

    with pytest.raises(RulesError, match="idle_flip_ms"):
        make_rules("us", idle_flip_ms=value)
    if isinstance(value, (int, str)) and not isinstance(value, bool) and value != 2**63:
        path = tmp_path / "rules.toml"
        path.write_text(f"idle_flip_ms = {value!r}\n".replace("'", '"'))
        with pytest.raises(RulesError, match=rf"idle_flip_ms.*{path.name}"):
            make_rules(path)


def test_idle_flip_ms_is_a_rule_option_read_from_toml(tmp_path):
    from speed_env import make_rules

    path = tmp_path / "rules.toml"
    path.write_text('preset = "pagat"\nidle_flip_ms = 0\n')
    assert make_rules(path).idle_flip_ms == 0 and make_rules("us").idle_flip_ms == 5000
    assert make_rules("japanese", idle_flip_ms=10**12).idle_flip_ms == 10**12  # rules.MAX_MS
