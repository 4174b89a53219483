"""``speed train league`` (train/league/): a consistent payoff table, exact resume, refusals;
and the opponent pool's weights it trains through (train/vec_env/pool.py)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

import agents
from agents.league import meta, record
from agents.league.mixture import MixturePolicy
from agents.runtime.run_identity import FolderHoldsRun
from speed_env.rules import make_rules
from train.common.settings import weighted
from train.league.member import MemberBudget, MemberInterrupted, drawn_opponents, train_member
from train.league.run import LeagueSettings, resumed, run_league
from train.vec_env.pool import OpponentPool

TINY = {
    "n_envs": 8,
    "n_steps": 32,
    "batch_size": 256,
    "n_epochs": 1,
    "net_arch": "32",
    "eval_games": 2,
}
"""A member's exploiter cut to one rollout of 256 decisions: the league's logic, not its play."""
SETTINGS = LeagueSettings(rules="us", rounds=2, timesteps_per_round=256, games_per_pairing=20)


# ---------------------------------------------------------------------- the pool's weights
def test_pool_draws_opponents_by_weight():
    rules = [make_rules("us")]
    pool = OpponentPool.from_spec("greedy*3,random", rules)
    assert [m.name for m in pool.members] == ["greedy", "random"]
    assert pool.weights() == pytest.approx([0.75, 0.25])
    shares = np.bincount(pool.sample(4000, np.random.default_rng(0)), minlength=2) / 4000
    assert shares == pytest.approx([0.75, 0.25], abs=0.03)
    # equal weights are exactly the uniform mix the pool drew before weights existed
    assert pool.from_spec("greedy,random,chain", rules).weights().tolist() == [1 / 3] * 3


def test_weighted_specs_and_bad_weights():
    assert weighted("chain*0.25") == ("chain", 0.25)
    assert weighted("chain") == ("chain", 1.0)
    assert weighted("ppo:runs/a*b/model.json") == ("ppo:runs/a*b/model.json", 1.0)
    with pytest.raises(ValueError, match="opponent weight must be a positive number"):
        weighted("chain*0")
    assert drawn_opponents(["random", "ppo:m.json"], [0.0, 0.5]) == (["ppo:m.json"], [0.5])
    with pytest.raises(ValueError, match="holds a comma"):
        drawn_opponents(["chain:run=1,flying=0"], [1.0])
    with pytest.raises(ValueError, match="at least one opponent of positive weight"):
        drawn_opponents(["chain"], [0.0])


# ---------------------------------------------------------------------- a tiny league


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """A league of two rounds, uninterrupted."""
    out = tmp_path_factory.mktemp("league") / "whole"
    assert run_league(SETTINGS, out, recipe=TINY, say=lambda line: None) == 0
    return out


def record_of(out: Path) -> dict:
    return json.loads((out / "league.json").read_text())


def test_two_rounds_write_a_consistent_table_whose_meta_strategy_solves_it(whole):
    rec = record_of(whole)
    names = [m["name"] for m in rec["members"]]
    assert names == ["random", "greedy", "chain", "r1", "r2"]
    table = np.asarray(rec["table"])
    assert table.shape == (5, 5)
    assert np.allclose(table + table.T, 1.0) and np.allclose(np.diag(table), 0.5)
    # each round's table is the one before it, extended by the new member's gauntlet
    assert [r["round"] for r in rec["rounds"]] == [0, 1, 2]
    for r in rec["rounds"]:
        n = 3 + r["round"]
        assert np.asarray(r["table"]).shape == (n, n)
        assert np.array_equal(np.asarray(r["table"]), table[:n, :n])
        assert len(r["meta"]["weights"]) == n
    # the recorded meta-strategy is an equilibrium of the recorded game
    x = np.asarray(rec["meta"]["weights"])
    assert x.sum() == pytest.approx(1.0) and x.min() >= 0
    assert meta.best_reply(table, x)[1] <= 1e-9
    assert meta.guaranteed(table, x) == pytest.approx(rec["meta"]["value"], abs=1e-9)
    # each gain is the new member's score against the meta-strategy it trained against
    for before, r in zip(rec["rounds"], rec["rounds"][1:], strict=False):
        n = len(before["meta"]["weights"])
        expect = np.asarray(r["table"])[n, :n] @ np.asarray(before["meta"]["weights"]) - 0.5
        assert r["gain"] == pytest.approx(expect, abs=1e-6)
    rows = (whole / "league.csv").read_text().splitlines()
    assert rows[0].startswith("round,new_member,gain,value,weight:random") and len(rows) == 4
    assert (whole / "league.png").stat().st_size > 0
    assert rec["best"]["name"] in ("r1", "r2") and (whole / "best.json").exists()
    assert agents.make(f"ppo:{whole / 'best.json'}", "us") is not None
    run = json.loads((whole / "run.json").read_text())
    assert run["finished"] and "league.json" in run["outputs"]


def test_each_member_is_an_exploiter_of_the_meta_strategy_it_trained_against(whole):
    """One trainer for both: a member's folder is ``speed exploit``'s (train/exploit.py), its
    targets the members of positive weight in the round's meta-strategy, drawn by it."""
    rec = record_of(whole)
    root = whole.resolve()
    for before, r in zip(rec["rounds"], rec["rounds"][1:], strict=False):
        held = json.loads(
            (whole / "members" / f"round_{r['round']:02d}" / "exploit.json").read_text()
        )
        specs = [record.member_spec(root, m) for m in rec["members"]]
        drawn = {s: w for s, w in zip(specs, before["meta"]["weights"], strict=False) if w > 0}
        assert held["format"] == "speed-exploit" and held["complete"]
        assert held["weights"] == pytest.approx(drawn)
        assert held["seed"] == SETTINGS.seed * 1009 + r["round"]
        assert held["budget"]["timesteps_requested"] == SETTINGS.timesteps_per_round


def test_league_spec_plays_the_final_meta_strategy(whole):
    bot = agents.make(f"league:{whole}", "us", seed=4)
    weights = record_of(whole)["meta"]["weights"]
    assert isinstance(bot, MixturePolicy)
    assert len(bot.members) == sum(w > 0 for w in weights)


def test_a_finished_league_bundles_and_plays_as_its_own_folder(whole, tmp_path, monkeypatch):
    """What ``speed train league`` leaves is what ``python -m agents.league.bundle`` takes."""
    from agents.league import bundle
    from agents.tournament import realtime

    monkeypatch.setattr(bundle, "BUNDLED", bundle.bundle_league(whole, tmp_path / "league"))
    assert (tmp_path / "league" / "best.json").exists()
    played = []
    for spec in ("league", f"league:{whole}"):
        settings = realtime.Settings(agents=(spec, "greedy"), games=8, rules=make_rules("us"))
        played.append([r.outcomes for r in realtime.run(settings)[0]])
    assert played[0] == played[1]


def without_timing(rec: dict) -> dict:
    return {k: v for k, v in rec.items() if k not in ("timing", "settings")}


def test_resume_after_ctrl_c_continues_at_the_next_round_exactly(whole, tmp_path):
    out = tmp_path / "cut"
    rounds = []

    def stopped_in_round_two(opponents, weights, init, rules, budget, seed, out):
        rounds.append(out.name)
        if out.name == "round_02":
            out.mkdir(parents=True)  # a member half trained: dropped by the resume
            raise MemberInterrupted("Ctrl-C")
        return train_member(opponents, weights, init, rules, budget, seed, out, recipe=TINY)

    code = run_league(SETTINGS, out, recipe=TINY, trainer=stopped_in_round_two, say=print)
    assert code == 130 and rounds == ["round_01", "round_02"]
    kept = record_of(out)
    assert [r["round"] for r in kept["rounds"]] == [0, 1]
    assert json.loads((out / "run.json").read_text())["finished"] is None
    # without --resume the unfinished league is refused, nothing touched
    with pytest.raises(FolderHoldsRun, match="holds an unfinished league; continue it with"):
        run_league(SETTINGS, out, recipe=TINY, say=print)
    assert record_of(out) == kept
    assert run_league(SETTINGS, out, resume=True, recipe=TINY, say=print) == 0
    assert without_timing(record_of(out)) == without_timing(record_of(whole))
    assert (out / "league.csv").read_text() == (whole / "league.csv").read_text()


def test_a_finished_league_is_not_run_again_and_grows_on_resume(whole, tmp_path, capsys):
    out = tmp_path / "copy"
    shutil.copytree(whole, out)
    said: list[str] = []
    assert run_league(SETTINGS, out, recipe=TINY, say=said.append) == 0
    assert "already holds this speed train league run" in said[0]
    other = LeagueSettings(**{**SETTINGS.__dict__, "games_per_pairing": 40})
    with pytest.raises(FolderHoldsRun, match="--games-per-pairing"):
        run_league(other, out, recipe=TINY, say=said.append)
    with pytest.raises(ValueError, match=r"--resume: --games-per-pairing 40 is not the league's"):
        resumed(out, {"games_per_pairing": 40})
    assert resumed(out, {"rounds": 5, "seed": 0}).rounds == 5

    # --resume --rounds 3, stopped before round 3 is written: a plain --resume goes on to 3
    def stopped(*args):
        raise MemberInterrupted("Ctrl-C")

    more = resumed(out, {"rounds": 3})
    said.clear()
    assert run_league(more, out, resume=True, trainer=stopped, recipe=TINY, say=said.append) == 130
    assert said[0].startswith("speed train league: 1 round(s) of 256 timesteps")
    assert resumed(out, {}).rounds == 3
    assert [r["round"] for r in record_of(out)["rounds"]] == [0, 1, 2]


def test_bad_settings_are_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "never"
    party = tmp_path / "party.toml"
    party.write_text('preset = "us"\nplayers = 3\n')
    for bad, message in (
        ({"include": ("nobody",)}, "--include 'nobody': unknown agent 'nobody'"),
        ({"include": ("chain:run=1,flying=0",)}, "cannot hold a comma"),
        ({"include": ("greedy",)}, "--include repeats a member"),
        ({"init": "warm"}, "--init must be one of fresh, previous"),
        ({"rules": "nowhere"}, "--rules 'nowhere'"),
        ({"rules": str(party)}, "a league seats two players; these rules seat 3"),
    ):
        settings = LeagueSettings(**{**SETTINGS.__dict__, **bad})
        with pytest.raises(ValueError, match=message):
            run_league(settings, out, recipe=TINY, say=print)
        assert not out.exists()


def test_a_ctrl_c_the_recipe_swallows_still_stops_the_member(monkeypatch, tmp_path):
    """A Ctrl-C landing in the recipe's evaluation is kept by its tournament harness, which
    plays on: the league once took that member as trained and went on to the next round."""
    import contextlib
    import signal

    import train.exploit

    def swallowed(cfg, charged=None):
        with contextlib.suppress(KeyboardInterrupt):  # as agents/tournament/harness.py does
            signal.raise_signal(signal.SIGINT)
        return {"stopped": None}

    monkeypatch.setattr(train.exploit, "exploit", swallowed)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in a terminal
    try:
        with pytest.raises(MemberInterrupted):
            train_member(["chain"], [1.0], None, "us", MemberBudget(256), 0, tmp_path / "m")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    finally:
        signal.signal(signal.SIGINT, before)


def test_a_sigterm_the_recipe_swallows_still_stops_the_member(monkeypatch, tmp_path):
    """The same for a SIGTERM (``speed`` stops on it as on Ctrl-C): kept by the harness, it
    still stops the member."""
    import contextlib
    import signal

    import train.exploit
    from agents.runtime.interrupts import sigterm_stops

    def swallowed(cfg, charged=None):
        with contextlib.suppress(KeyboardInterrupt):  # as agents/tournament/harness.py does
            signal.raise_signal(signal.SIGTERM)
        return {"stopped": None}

    monkeypatch.setattr(train.exploit, "exploit", swallowed)
    with pytest.raises(MemberInterrupted), sigterm_stops():
        train_member(["chain"], [1.0], None, "us", MemberBudget(256), 0, tmp_path / "m")


def test_init_previous_starts_each_member_from_the_last_and_trains_against_the_meta(
    whole, tmp_path
):
    from agents.model_io.kit_model import copy_model

    calls = []

    def copying(opponents, weights, init, rules, budget, seed, out):
        calls.append((list(opponents), list(weights), init, rules, budget, seed))
        return copy_model(whole / "members" / "round_01" / "model.json", out / "model.json")

    out = tmp_path / "prev"
    settings = LeagueSettings(**{**SETTINGS.__dict__, "init": "previous"})
    assert run_league(settings, out, trainer=copying, say=lambda line: None) == 0
    rec = record_of(out)
    assert calls[0][2] is None  # no member before the first
    assert calls[1][2] == (out / "members" / "round_01" / "model.json").resolve()
    for (opponents, weights, *_), r in zip(calls, rec["rounds"], strict=False):
        assert weights == r["meta"]["weights"] and len(opponents) == len(weights)
    assert [c[5] for c in calls] == [1, 2] and calls[0][4] == MemberBudget(256)


def test_minutes_end_the_league_at_a_round_boundary(tmp_path):
    said: list[str] = []
    settings = LeagueSettings(**{**SETTINGS.__dict__, "minutes": 1e-6})
    assert run_league(settings, tmp_path / "m", recipe=TINY, say=said.append) == 0
    # before any work, what it will do and a rough time
    assert said[0] == (
        "speed train league: the starting table (3 pairings), then 2 round(s) of 256 "
        "timesteps, each member then playing 20 games against every member; roughly 1 s of "
        "training at ~1,500 decisions/s plus the games; --minutes 1e-06 stops it sooner"
    )
    assert "the 1e-06-minute budget is spent after round 0" in said
    assert [r["round"] for r in record_of(tmp_path / "m")["rounds"]] == [0]


def test_the_command_refuses_bad_input_in_one_line_naming_the_flag(tmp_path, capsys):
    import speed_cli

    out = tmp_path / "x"
    assert speed_cli.main(["train", "league", "--out", str(out), "--include", "nobody"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "--include 'nobody': unknown agent" in err
    # the league's own refusals name the command as argparse's do
    assert err.startswith("speed train league: error: --include 'nobody'")
    with pytest.raises(SystemExit) as exc:  # argparse's exit, as for every sub-parser of speed
        speed_cli.main(["train", "league", "--out", str(out), "--rounds", "0"])
    assert exc.value.code == 2
    assert "speed train league: error: argument --rounds: must be a whole number >= 1" in (
        capsys.readouterr().err
    )
    assert not out.exists()


def test_an_included_bot_is_built_first_and_its_file_is_the_runs_input(tmp_path):
    from agents.runtime.failures import AgentFailure

    broken = tmp_path / "broken.py"
    broken.write_text(
        "class Bot:\n    def __init__(self, rules, seed):\n        raise OSError('no')\n"
    )
    settings = LeagueSettings(**{**SETTINGS.__dict__, "include": (f"py:{broken}:Bot",)})
    with pytest.raises(AgentFailure, match=r"failed in building it .*OSError: no"):
        run_league(settings, tmp_path / "never", recipe=TINY, say=print)
    assert not (tmp_path / "never").exists()
    # a py: file that is not there: refused as bad input, in one line naming the flag
    missing = f"py:{tmp_path / 'nope.py'}:Bot"
    settings = LeagueSettings(**{**SETTINGS.__dict__, "include": (missing,)})
    with pytest.raises(ValueError, match=rf"^--include '{re.escape(missing)}': .*no such file"):
        run_league(settings, tmp_path / "never", recipe=TINY, say=print)
    assert not (tmp_path / "never").exists()
    good = tmp_path / "bot.py"
    good.write_text("from speed_env.policy import RandomPolicy\nBot = RandomPolicy\n")
    settings = LeagueSettings(
        **{**SETTINGS.__dict__, "include": (f"py:{good}:Bot",), "minutes": 1e-6}
    )
    assert run_league(settings, tmp_path / "lg", recipe=TINY, say=lambda line: None) == 0
    inputs = json.loads((tmp_path / "lg" / "run.json").read_text())["inputs"]
    assert list(inputs) == [f"py:{good}:Bot"] and len(inputs[f"py:{good}:Bot"]) == 1
    assert [m["name"] for m in record_of(tmp_path / "lg")["members"]][-1] == f"py:{good}:Bot"
