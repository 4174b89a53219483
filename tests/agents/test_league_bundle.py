"""The bundled league (agents/league/bundle.py): a finished league copied into the kit, played
by ``league`` alone exactly as ``league:DIR`` plays its source; and what bundling refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import agents
from agents.errors import AgentSpecError
from agents.league import bundle, record
from agents.league.mixture import MixturePolicy
from agents.model_io.kit_model import BUNDLED as TRAINED
from agents.model_io.kit_model import copy_model
from agents.tournament import realtime
from speed_env.rules import make_rules

SELFPLAY = TRAINED.parent / "selfplay" / "selfplay.json"
WEIGHTS = [0.0, 0.0, 0.5, 0.5, 0.0]
"""random, greedy, chain, r1, r2: ``chain`` and ``r1`` play, ``r2`` (weight 0) never does."""


def make_league(folder: Path, weights=WEIGHTS, finished=True, extra=()) -> Path:
    """A finished league as ``speed train league`` leaves it: two learned members (copies of
    the bundled ``selfplay`` model) in ``members/round_KK/``, ``best.json``, a ``run.json``."""
    members = [
        {"name": m, "spec": m, "path": None, "round": 0} for m in ("random", "greedy", "chain")
    ]
    for k in (1, 2):
        path = f"members/round_{k:02d}/model.json"
        copy_model(SELFPLAY, folder / path)
        members.append({"name": f"r{k}", "spec": f"ppo:{path}", "path": path, "round": k})
    members += [{"name": s, "spec": s, "path": None, "round": 0} for s in extra]
    copy_model(SELFPLAY, folder / "best.json")
    league = {
        "format": record.FORMAT,
        "format_version": 1,
        "settings": {"rules": "us"},
        "members": members,
        "rounds": [],
        "meta": {"weights": list(weights), "value": 0.0, "method": "nash"},
        "best": {"name": "r1", "path": "best.json", "gain_over_meta": 0.0},
    }
    (folder / record.LEAGUE_FILE).write_text(json.dumps(league))
    done = "2026-12-06T10:00:00Z" if finished else None
    (folder / "run.json").write_text(json.dumps({"format": "speed-run", "finished": done}))
    return folder


@pytest.fixture
def source(tmp_path) -> Path:
    return make_league(tmp_path / "league")


def test_the_bundle_holds_the_record_and_only_the_models_that_play(source, tmp_path):
    dest = bundle.bundle_league(source, tmp_path / "kit" / "league")
    held = sorted(str(p.relative_to(dest)) for p in dest.rglob("*") if p.is_file())
    assert held == [
        "best.json", "best.safetensors", "league.json", "members/r1.json", "members/r1.safetensors"
    ]  # fmt: skip
    assert dest.stat().st_mode & 0o777 == 0o755  # readable by all, as the kit's other models
    rec = json.loads((dest / "league.json").read_text())
    r1, r2 = rec["members"][3], rec["members"][4]
    assert r1["path"] == "members/r1.json" and r1["spec"] == "ppo:members/r1.json"
    assert (r2["path"], r2["spec"], r2["name"]) == (None, None, "r2")  # weight 0: left out
    assert rec["meta"] == json.loads((source / "league.json").read_text())["meta"]
    assert rec["bundle"]["source"] == source.name  # outside the working folder: its name only
    assert agents.make(f"ppo:{dest / 'best.json'}", "us") is not None  # the best member plays


def tournament(spec: str, seed: int = 3) -> list:
    settings = realtime.Settings(
        agents=(spec, "greedy"), games=16, rules=make_rules("us"), seed=seed
    )
    results, _ = realtime.run(settings)
    return [r.outcomes for r in results]


def test_league_plays_the_bundle_exactly_as_league_dir_plays_its_source(
    source, tmp_path, monkeypatch
):
    monkeypatch.setattr(bundle, "BUNDLED", bundle.bundle_league(source, tmp_path / "bundled"))
    bot = agents.make("league", "us", seed=1)
    assert isinstance(bot, MixturePolicy) and bot.names == ["chain", "r1"]
    assert set(bot.member_of(64).tolist()) == {0, 1}  # both members play, drawn per game
    from_bundle = tournament("league")
    assert from_bundle == tournament(f"league:{source}")
    # the draws matter: a league of chain alone plays other games on these deals
    make_league(tmp_path / "chain_only", [0.0, 0.0, 1.0, 0.0, 0.0])
    assert from_bundle != tournament(f"league:{tmp_path / 'chain_only'}")


def test_the_bundle_records_its_rules_and_plays_others_as_its_folder_does(
    source, tmp_path, monkeypatch
):
    """Like ``trained``, a bundle plays any rules its members play; it records which it solved."""
    monkeypatch.setattr(bundle, "BUNDLED", bundle.bundle_league(source, tmp_path / "bundled"))
    assert json.loads((bundle.BUNDLED / "league.json").read_text())["bundle"]["rules"] == "us"
    played = agents.make("league", "japanese")
    assert isinstance(played, MixturePolicy)
    assert played.names == agents.make(f"league:{source}", "japanese").names
    rec = json.loads((source / "league.json").read_text())
    (source / "league.json").write_text(json.dumps(rec | {"settings": {}}))
    assert "settings.rules None names no rules" in one_line_refusal(source, tmp_path / "d")


def test_without_a_bundle_league_names_the_folder_and_the_command(tmp_path, monkeypatch):
    monkeypatch.setattr(bundle, "BUNDLED", tmp_path / "models" / "league")
    for spec in ("league", "league:"):
        with pytest.raises(AgentSpecError) as err:
            agents.make(spec, "us")
        message = str(err.value)
        assert f"the bundled league {tmp_path / 'models' / 'league'} is missing" in message
        assert "python -m agents.league.bundle runs/NAME" in message and "\n" not in message


def one_line_refusal(src, dest) -> str:
    with pytest.raises(ValueError) as err:
        bundle.bundle_league(src, dest)
    assert "\n" not in str(err.value)
    return str(err.value)


def test_a_folder_that_is_no_finished_league_is_refused_naming_it(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert one_line_refusal(empty, tmp_path / "d") == (
        f"{empty} is not a league's folder: it holds no league.json"
    )
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "league.json").write_text('{"format": "speed-run"}')
    assert "is not a league record" in one_line_refusal(tmp_path / "other", tmp_path / "d")
    cut = make_league(tmp_path / "cut", finished=False)
    message = one_line_refusal(cut, tmp_path / "d")
    assert message.startswith(f"{cut} holds an unfinished league: {cut / 'run.json'}")
    young = make_league(tmp_path / "young")
    rec = json.loads((young / "league.json").read_text())
    (young / "league.json").write_text(json.dumps(rec | {"meta": None}))
    assert "has no final meta-strategy" in one_line_refusal(young, tmp_path / "d")
    assert not (tmp_path / "d").exists()  # nothing written for a refused league


def test_a_member_that_cannot_travel_with_the_bundle_is_refused_naming_it(tmp_path):
    mine = make_league(tmp_path / "mine", [0.0, 0.0, 0.5, 0.0, 0.0, 0.5], extra=["py:bot.py:Bot"])
    message = one_line_refusal(mine, tmp_path / "d")
    assert message.startswith(f"{mine}: member 'py:bot.py:Bot' (py:bot.py:Bot) has weight 0.5")
    # the same member at weight 0 is never played: the league bundles
    ok = make_league(tmp_path / "ok", [0.0, 0.0, 0.5, 0.5, 0.0, 0.0], extra=["py:bot.py:Bot"])
    assert bundle.bundle_league(ok, tmp_path / "d").is_dir()


def test_a_destination_holding_something_else_is_refused_and_left_alone(source, tmp_path):
    dest = tmp_path / "dest"
    dest.mkdir()
    (dest / "notes.txt").write_text("mine")
    message = one_line_refusal(source, dest)
    assert message.startswith(f"{dest} holds something other than a bundled league (notes.txt)")
    assert [p.name for p in dest.iterdir()] == ["notes.txt"]
    # the league's own folder is not a bundle either: bundling into it is refused
    assert "holds something other than a bundled league" in one_line_refusal(source, source)


def test_an_earlier_bundle_is_replaced_only_by_a_whole_one(source, tmp_path):
    dest = bundle.bundle_league(source, tmp_path / "dest")
    before = (dest / "league.json").read_bytes()
    other = make_league(tmp_path / "other", [0.0, 0.0, 0.0, 0.0, 1.0])
    broken = other / "members" / "round_02" / "model.safetensors"
    broken.write_bytes(broken.read_bytes()[:-8])  # a damaged member: its copy is refused
    assert "refusing to read it" in one_line_refusal(other, dest)
    assert (dest / "league.json").read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["dest", "league", "other"]  # no temp
    copy_model(SELFPLAY, other / "members" / "round_02" / "model.json")  # mended
    bundle.bundle_league(other, dest)
    assert record.read(dest, bundled=True).weights == (0.0, 0.0, 0.0, 0.0, 1.0)
    assert not (dest / "members" / "r1.json").exists()  # the earlier bundle's member is gone


def test_a_bundled_record_never_plays_a_file_from_outside_it(source, tmp_path, monkeypatch):
    dest = bundle.bundle_league(source, tmp_path / "bundled")
    monkeypatch.setattr(bundle, "BUNDLED", dest)
    rec = json.loads((dest / "league.json").read_text())
    for edit, says in (
        ({"spec": "py:bot.py:Bot", "path": None}, "spec 'py:bot.py:Bot' is not one of the kit's"),
        ({"path": "../league/best.json"}, "path '../league/best.json' is not a file inside"),
    ):
        members = [dict(m) for m in rec["members"]]
        members[3] |= edit
        (dest / "league.json").write_text(json.dumps(rec | {"members": members}))
        with pytest.raises(AgentSpecError, match=f"bad league spec 'league': .*member 3 {says}"):
            agents.make("league", "us")
    # a league's own record (no "bundle") put where the bundle goes is refused as well
    (dest / "league.json").write_text((source / "league.json").read_text())
    with pytest.raises(AgentSpecError, match="is a league's own record, not a bundled league"):
        agents.make("league", "us")


def test_the_command_bundles_in_one_line_and_refuses_in_one(source, tmp_path, capsys):
    assert bundle.main([str(source), "--dest", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert out == f"bundled {source} into {tmp_path / 'b'}: meta-strategy chain 0.50, r1 0.50\n"
    assert bundle.main([str(tmp_path / "nowhere"), "--dest", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert (
        err == f"python -m agents.league.bundle: {tmp_path / 'nowhere'} does not exist: "
        "give a speed train league --out folder\n"
    )


def test_the_bundle_names_no_path_of_the_machine_that_made_it(source, tmp_path):
    """A member trained by the league records its warm start and targets by absolute paths;
    the bundle keeps them relative to the league's folder, and paths outside it by name."""
    for stem in ("members/round_01/model.json", "best.json"):
        manifest = json.loads((source / stem).read_text())
        manifest["training"] = {
            "config": {
                "init_from": str(source.resolve() / "members/round_00/model.json"),
                "target": f"ppo:{source.resolve() / 'members/round_01/model.json'},chain,"
                f"ppo:{source.resolve() / 'members/round_02/model.json'}",
                "elsewhere": "/machine/only/selfplay.json",
                "out": "league/members/round_01",
            }
        }
        (source / stem).write_text(json.dumps(manifest))
    dest = bundle.bundle_league(source, tmp_path / "kit" / "league")
    for stem in ("members/r1.json", "best.json"):
        config = json.loads((dest / stem).read_text())["training"]["config"]
        assert config == {
            "init_from": "members/round_00/model.json",
            "target": "ppo:members/round_01/model.json,chain,ppo:members/round_02/model.json",
            "elsewhere": "selfplay.json",
            "out": "league/members/round_01",
        }
