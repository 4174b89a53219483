"""Real-time protocol 2: every agent's thinking charged on its report card (issue 40 §2).

The card charges the evaluated agent its calibrated (or recorded) cost and each reference bot
its shipped cost, shows each cost beside the ratings with thinking charged and without, reads
the break-even against the agent's own cost; protocol 1's cards still verify; the leaderboard
refuses to mix the two, saying why.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from agents import evaluate
from agents.evaluate import protocol, thinking
from agents.evaluate import report as eval_report
from agents.evaluate.card_check import CardError, check_card
from agents.think import record
from agents.think.calibrate import Calibration
from speed_cli import main
from speed_env.rules import make_rules

CARDS = Path(__file__).resolve().parents[2] / "agents" / "cards"

BOT = textwrap.dedent(
    """
    import time

    import agents


    class Chainlike:
        '''Plays as chain does.'''

        def __init__(self, rules, seed):
            self.chain = agents.make("chain", rules, seed)

        def act(self, obs, mask):
            return self.chain.act(obs, mask)


    class Sleepy(Chainlike):
        '''Plays as chain does, after sleeping 5 ms over every decision.'''

        def act(self, obs, mask):
            time.sleep(0.005)
            return self.chain.act(obs, mask)
    """
)
SLOW_MS = 2000.0
"""The recorded cost the tests charge a bot: two seconds a play loses nearly every game."""


@pytest.fixture
def bot(tmp_path: Path) -> str:
    """A ``py:`` bot that plays as chain does, and a calibration file recording it at 2 s."""
    (tmp_path / "bot.py").write_text(BOT)
    return f"py:{tmp_path / 'bot.py'}:Chainlike"


def _think_file(path: Path, spec: str, ms: float) -> str:
    doc = record.make_record({spec: Calibration(ms, ms, 256, 1.0)}, make_rules("us"))
    path.write_text(json.dumps(doc))
    return str(path)


def test_protocol_2_is_protocol_1_with_the_pools_shipped_costs() -> None:
    one, two = protocol.protocol("realtime", 1), protocol.protocol("realtime", 2)
    assert {k: v for k, v in two.items() if k != "think"} == one
    assert "think" not in one and protocol.default_version("realtime") == 2  # speed evaluate's
    shipped = json.loads((CARDS / "think_realtime.json").read_text())
    assert shipped["format"] == record.FORMAT and shipped["machine"]["cores"] >= 1
    assert two["think"]["opponents_ms"] == {
        opp: shipped["agents"][opp]["think_ms"] for opp in one["opponents"]
    }


def test_the_plan_charges_the_agent_and_every_opponent_and_plays_each_pairing_free(
    tmp_path: Path, bot: str
) -> None:
    path = _think_file(tmp_path / "think.json", bot, 7.5)
    plan = evaluate.make_plan(bot, games=2, version=2, think_file=path)
    pool = protocol.protocol("realtime", 2)["think"]["opponents_ms"]
    charged = [
        j for j in plan.jobs if plan.groups[j[0]]["kind"] == "pairing" and "free" not in j[0]
    ]
    free = [j for j in plan.jobs if j[0].startswith(thinking.FREE_GROUP)]
    assert charged and len(free) == len(charged)
    for group, settings, *_ in charged:
        agent, opp = settings.agents
        assert settings.think.cost(agent) == 7.5 and settings.think.cost(opp) == pool[opp], group
    assert all(settings.think is None for _, settings, *_ in free)
    sweep = [j for j in plan.jobs if plan.groups[j[0]]["kind"] == "latency"]
    assert sweep and all(settings.think is None for _, settings, *_ in sweep)  # worth: free
    assert plan.thinking["agent_source"] == "recorded"


def test_an_agent_without_a_file_is_calibrated_before_play(tmp_path: Path, bot: str) -> None:
    sleepy = bot.replace(":Chainlike", ":Sleepy")
    plan = evaluate.plan.Plan("realtime", sleepy, 2, 1, 2)
    found = thinking.agent_thinking(plan, protocol.protocol("realtime", 2))
    assert found["agent_source"] == "calibrated" and found["rule_set"] == "us"
    # Its sleep at least; the scheduler of a loaded machine adds to it (test_think.py holds the
    # calibration itself to a tolerance: here what matters is that the card's path times it).
    assert 5.0 <= found["agent_ms"] < 100.0
    assert found["calibration"]["machine"]["cores"] >= 1


def test_a_finished_card_run_again_does_not_time_its_agent_again(
    tmp_path: Path, bot: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The folder is checked before the agent is timed: the same command run again over its
    finished card says so at once, without the calibration (the slow part) it would throw away.
    """
    from agents.runtime import run_identity
    from agents.tournament import run_folder

    timed: list[str] = []

    def calibrate(spec: str, rules: object, act_timeout: float | None = None) -> dict:
        timed.append(spec)
        return record.make_record({spec: Calibration(1.0, 1.0, 256, 1.0)}, rules)

    def finish_unplayed(work, identity, out, write, *, results, **_):
        """The folder as a finished run of the card leaves it, its games not played (fast)."""
        with run_identity.RunOutput(out, identity, results=results) as output:
            if output.done is not None:
                return run_folder.AlreadyFinished(output.done)
            (Path(out) / "report.json").write_text("{}")
            output.finish([Path(out) / "report.json"])
        return None

    monkeypatch.setattr(thinking, "calibrate", calibrate)
    monkeypatch.setattr(run_folder, "play_chunks", finish_unplayed)
    argv = ["evaluate", bot, "--protocol", "2", "--games", "2", "--out", str(tmp_path / "card")]
    main(argv)
    assert timed == [bot]  # the first run times its agent
    capsys.readouterr()
    assert main(argv) == 0
    assert "already holds this speed evaluate run" in capsys.readouterr().out
    assert timed == [bot]  # the second does not


@pytest.mark.slow
def test_a_protocol_2_card_shows_each_cost_and_both_ratings(tmp_path: Path, bot: str) -> None:
    path = _think_file(tmp_path / "think.json", bot, SLOW_MS)
    out = tmp_path / "card"
    argv = ["evaluate", bot, "--protocol", "2", "--games", "2", "--think-file", path]
    assert main([*argv, "--out", str(out)]) == 0
    card = check_card(json.loads((out / "report.json").read_text()), "card")
    res = card["results"]
    assert res["thinking"]["agent_ms"] == SLOW_MS
    assert (
        res["thinking"]["opponents_ms"] == protocol.protocol("realtime", 2)["think"]["opponents_ms"]
    )

    def wins(rule_sets: dict) -> int:
        return sum(
            r["wins"] for row in rule_sets.values() for r in row.get("opponents", {}).values()
            if "wins" in r
        )  # fmt: skip

    # Two seconds of thinking a play: the charged games are lost that the free ones won.
    assert wins(res["rule_sets"]) < wins(res["free"]["rule_sets"])
    us, free_us = res["rule_sets"]["us"], res["free"]["rule_sets"]["us"]
    assert us["rating"] < free_us["rating"]
    page = (out / "report.md").read_text()
    assert "## Thinking charged" in page
    own = next(line for line in page.splitlines() if "(evaluated) |" in line)
    assert f"| {SLOW_MS:g} ms |" in own
    shown = [round(us["rating"]), round(free_us["rating"])]
    assert f"{shown[0]} / {shown[1]} ({shown[0] - shown[1]:+d})" in own
    chain = next(line for line in page.splitlines() if line.startswith("| `chain` |"))
    assert f"| {res['thinking']['opponents_ms']['chain']:g} ms |" in chain
    assert f"costs {SLOW_MS:g} ms**" in page  # the break-even read against its own cost
    # The same card again from the calibration it keeps: the same results, byte for byte.
    kept = str(out / "think.json")
    assert main([*argv[:-1], kept, "--out", str(tmp_path / "again")]) == 0
    again = json.loads((tmp_path / "again" / "report.json").read_text())
    assert again["results_hash"] == card["results_hash"]


def _resealed(card: dict, edit) -> dict:
    doc = json.loads(json.dumps(card))
    edit(doc)
    return protocol.seal(doc)


def test_a_card_charging_other_costs_than_its_protocols_is_refused() -> None:
    card = json.loads((CARDS / "small-p2" / "greedy" / "report.json").read_text())
    check_card(card, "card")

    def pool(doc: dict) -> None:
        doc["results"]["thinking"]["opponents_ms"]["chain"] = 0.0

    def own(doc: dict) -> None:
        doc["results"]["thinking"]["agent_ms"] = 0.0

    with pytest.raises(CardError, match=r"results\.thinking\.opponents_ms must be the protocol's"):
        check_card(_resealed(card, pool), "card")
    with pytest.raises(CardError, match=r"thinking\.agent_ms must be reference bot greedy"):
        check_card(_resealed(card, own), "card")


def test_protocol_1_shipped_cards_still_verify_and_rank() -> None:
    paths = sorted(CARDS.glob("realtime/*/report.json"))
    assert len(paths) == 6
    for p in [*paths, CARDS / "small" / "greedy" / "report.json"]:
        assert eval_report.read_card(p)["protocol"] == 1
    assert eval_report.leaderboard([CARDS / "realtime"])["protocol"] == 1


def test_the_leaderboard_refuses_to_mix_protocols_and_says_why() -> None:
    one = CARDS / "small" / "greedy" / "report.json"
    two = CARDS / "small-p2" / "greedy" / "report.json"
    with pytest.raises(CardError) as refused:
        eval_report.leaderboard([one, two])
    text = str(refused.value)
    assert f"protocol 1: {one}" in text and f"protocol 2: {two}" in text
    assert "protocol 2 charges every agent's thinking as latency, protocol 1 does not" in text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["greedy", "--protocol", "1", "--think-file", "x.json"], "protocol 1 of realtime charges"),
        (["greedy", "--protocol", "9"], "--protocol: no evaluation protocol 9; this kit has 1, 2"),
        (["vintage-greedy", "--game", "vintage", "--protocol", "2"], "no 'vintage' game in"),
        (["greedy@think=5ms", "--protocol", "2"], "declares its own thinking cost (5 ms)"),
        (["chain", "--protocol", "2", "--think-file", "x.json"], "'chain' is a reference bot"),
    ],
)
def test_protocol_2_refusals_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    out = tmp_path / "card"
    assert main(["evaluate", *argv, "--games", "2", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not out.exists()


def test_a_think_file_without_the_agent_is_refused_naming_it(
    tmp_path: Path, bot: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _think_file(tmp_path / "think.json", "someone-else", 1.0)
    argv = ["evaluate", bot, "--protocol", "2", "--games", "2", "--think-file", path]
    assert main([*argv, "--out", str(tmp_path / "card")]) == 2
    assert f"has no calibration for agent {bot!r}" in capsys.readouterr().err


def test_the_pool_costs_command_writes_a_calibration_file(tmp_path: Path) -> None:
    from agents.evaluate import think_costs

    out = tmp_path / "costs.json"
    assert think_costs.main(["--out", str(out)]) == 0
    costs = thinking.pool_costs(out)
    assert list(costs) == protocol.REALTIME_1["opponents"]
    assert all(0 < ms < 1000 for ms in costs.values())
    assert json.loads(out.read_text())["machine"]["load_1min"] is not None
    with pytest.raises(thinking.ThinkCardError, match="no thinking cost for chain"):
        thinking.think_protocol(
            protocol.REALTIME_1, {k: v for k, v in costs.items() if k != "chain"}
        )


def test_a_protocol_2_leaderboard_shows_each_agents_cost_beside_its_break_even() -> None:
    board = eval_report.leaderboard([CARDS / "small-p2" / "greedy" / "report.json"])
    assert board["protocol"] == 2 and board["rows"][0]["think_ms"] == 0.011
    assert "(costs 0.011 ms)" in eval_report.leaderboard_md(board)


def test_the_rating_without_thinking_is_protocol_1s_card_exactly() -> None:
    """The free half of a protocol 2 card is protocol 1's games: counts, ratings and sweep."""
    two = json.loads((CARDS / "small-p2" / "greedy" / "report.json").read_text())["results"]
    one = json.loads((CARDS / "small" / "greedy" / "report.json").read_text())["results"]
    assert two["free"]["rule_sets"] == one["rule_sets"]
    assert two["latency"] == one["latency"]
    assert two["rule_sets"] != one["rule_sets"]  # rated on protocol 2's anchors


def test_the_bundled_bots_costs_change_only_the_games_against_search() -> None:
    """Microseconds of thinking leave the other bots' cards landing on the same whole
    milliseconds: chain's charged games are its free ones, but for those against search (whose
    play the few microseconds do reach; how is not traced here)."""
    card = json.loads((CARDS / "realtime-p2" / "chain" / "report.json").read_text())["results"]

    def counts(rule_sets: dict) -> dict:
        return {
            (rs, opp): (r["wins"], r["draws"])
            for rs, row in rule_sets.items()
            for opp, r in row.get("opponents", {}).items()
            if "wins" in r
        }

    charged, free = counts(card["rule_sets"]), counts(card["free"]["rule_sets"])
    differ = {opp for key, opp in charged if charged[key, opp] != free[key, opp]}
    assert differ == {"search"}


def _card_charging(source: str, calibration: dict | None) -> dict:
    """The shipped small greedy card, as if its agent's cost came from ``source``."""
    card = json.loads((CARDS / "small-p2" / "greedy" / "report.json").read_text())
    card["results"]["thinking"].update(agent_source=source, calibration=calibration)
    return card


@pytest.mark.parametrize("source", ["calibrated", "recorded"])
def test_a_card_says_which_runs_repeat_it_and_keeps_its_calibration(
    tmp_path: Path, source: str
) -> None:
    """A cost timed before play differs from run to run: the card repeats only from its recorded
    calibration, which it keeps beside it as think.json; a recorded cost repeats as it is."""
    calibration = record.make_record(
        {"greedy": Calibration(0.02, 0.03, 256, 1.0)}, make_rules("us")
    )
    card = _card_charging(source, calibration)
    header = "\n".join(eval_report.header_section(card))
    if source == "calibrated":
        assert "a run that times it again can give other results" in header
        assert "a run with `--think-file think.json` charges this cost again" in header
        assert "gives this one" not in header
    else:
        assert "can give other results" not in header
        assert "and the --think-file cost, kept in `think.json` beside it) gives this one" in header
    eval_report.write_card(tmp_path, card)
    kept = record.read(str(tmp_path / "think.json"), ["greedy"], make_rules("us"))
    assert kept == calibration  # what --think-file reads back: the cost the card charged


def test_a_card_charging_a_shipped_cost_repeats_without_a_file(tmp_path: Path) -> None:
    card = json.loads((CARDS / "small-p2" / "greedy" / "report.json").read_text())
    header = "\n".join(eval_report.header_section(card))
    assert (
        "every run of this evaluation (agent and files, games, seed, kit) gives this one" in header
    )
    eval_report.write_card(tmp_path, card)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.json", "report.md", "report.png"]
