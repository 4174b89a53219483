"""``speed evaluate`` and ``speed leaderboard``: the manifest hash, the anchored rating, the
vintage card, reproducing a committed card, and the refusals."""

from __future__ import annotations

import errno
import json
import textwrap
from pathlib import Path

import numpy as np
import pytest

from agents import evaluate
from agents.evaluate import protocol
from agents.evaluate import report as eval_report
from agents.evaluate.card_check import CardError, first_difference
from agents.evaluate.rating import anchor_ratings, anchored_rating
from speed_cli import main

CARDS = Path(__file__).resolve().parents[2] / "agents" / "cards"
SMALL = CARDS / "small"
"""Small committed cards (``--games 2``), re-made by the tests."""

BOT = textwrap.dedent(
    """
    import numpy as np

    class Bot:
        def act(self, obs, mask):
            return mask.argmax(axis=1)
    """
)


def _without_timing(card: dict) -> dict:
    return {k: v for k, v in card.items() if k not in protocol.TIMING_KEYS}


def _comparable(card: dict) -> dict:
    """A card less its timing, and less the kit's version (and so the manifest's and the card's
    hash): a kit release that changes no game must give the same numbers; everything else must
    match. The card's hashes (``card_hash``, ``results_hash``, which a card made before it
    lacks) are of what is compared."""
    out = {k: v for k, v in _without_timing(card).items() if k not in protocol.SEAL_KEYS}
    out["manifest"] = {k: v for k, v in out["manifest"].items() if k not in ("kit_version", "hash")}
    return out


def test_manifest_hash_changes_with_the_seed_and_the_agent_file(tmp_path: Path) -> None:
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    spec = f"py:{bot}:Bot"
    plan = evaluate.make_plan(spec, games=2)
    assert plan.files == {str(bot): protocol.sha256_file(bot)}
    base = protocol.manifest("realtime", spec, plan.files, 2, seed=plan.seed)
    assert base["hash"] == protocol.manifest_hash(base)
    assert (
        protocol.manifest("realtime", spec, plan.files, 2, seed=plan.seed)["hash"] == base["hash"]
    )
    assert (
        protocol.manifest("realtime", spec, plan.files, 2, seed=plan.seed + 1)["hash"]
        != base["hash"]
    )
    bot.write_text(BOT + "\n# one comment more\n")
    changed = evaluate.make_plan(spec, games=2).files
    assert changed != plan.files
    assert protocol.manifest("realtime", spec, changed, 2, seed=plan.seed)["hash"] != base["hash"]


def test_bundled_model_files_are_recorded_relative_to_the_kit() -> None:
    plan = evaluate.make_plan("trained", games=2)
    assert {"agents/models/trained.json", "agents/models/trained.safetensors"} <= set(plan.files)
    assert all(not name.startswith("/") for name in plan.files)


def test_anchored_rating_recovers_an_anchor_from_its_own_results() -> None:
    # A pool whose results follow Bradley–Terry exactly: an agent with B's results against
    # A and C (B's own games) must be rated where B's anchor is.
    truth = {"A": 1700.0, "B": 1500.0, "C": 1300.0}
    names = list(truth)
    n = 4000
    wins = np.zeros((3, 3))
    games = np.full((3, 3), n) - np.diag([n] * 3)
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i != j:
                wins[i, j] = round(n / (1 + 10 ** ((truth[b] - truth[a]) / 400)))
    pool = {
        "agents": names,
        "wins": wins.tolist(),
        "draws": np.zeros((3, 3)).tolist(),
        "games": games.tolist(),
    }
    anchors = anchor_ratings(pool)
    assert anchors["A"] - anchors["C"] == pytest.approx(400, abs=5)
    rows = [("A", int(wins[1, 0]), 0, n), ("C", int(wins[1, 2]), 0, n)]
    fit = anchored_rating(anchors, rows, samples=50, seed=0)
    assert fit is not None and fit.rating == pytest.approx(anchors["B"], abs=3)
    assert fit.low < fit.rating < fit.high and fit.high - fit.low < 40
    # A stronger record rates higher; no anchored opponent: no rating.
    better = anchored_rating(anchors, [("A", n // 2, 0, n), ("C", n - 10, 0, n)], samples=0)
    assert better is not None and better.rating > fit.rating
    assert anchored_rating(anchors, [("Z", 1, 0, 2)]) is None


@pytest.mark.slow
def test_small_committed_card_is_reproduced_exactly(tmp_path: Path) -> None:
    committed = json.loads((SMALL / "greedy" / "report.json").read_text())
    argv = ["evaluate", "greedy", "--protocol", "1", "--games", "2"]  # the protocol-1 card
    code = main([*argv, "--out", str(tmp_path / "card")])
    assert code == 0
    made = json.loads((tmp_path / "card" / "report.json").read_text())
    # α-Rank's stationary masses come from an eigensolver: equal to ~1e-15 across machines.
    ranks = [c["results"].pop("alpharank") for c in (made, committed)]
    assert first_difference(ranks[0], ranks[1], "alpharank", tolerant=True) is None
    assert _comparable(made) == _comparable(committed)
    assert {p.name for p in (tmp_path / "card").iterdir()} == {
        "run.json",  # which run the folder holds (agents/runtime/run_identity.py)
        "report.json",
        "report.md",
        "report.png",
    }
    assert made["timing"]["decision_cost"]["batch_256_us_per_decision"] > 0


def test_vintage_card(tmp_path: Path) -> None:
    code = main(
        [
            "evaluate",
            "vintage-tactician",
            "--game",
            "vintage",
            "--games",
            "4",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    card = json.loads((tmp_path / "report.json").read_text())
    assert card["game"] == "vintage" and card["manifest"]["games"] == 4
    tables = card["results"]["tables"]
    proto = protocol.protocol("vintage")
    assert len(tables) == len(proto["opponents"]) + len(proto["mixed_tables"])
    mirrors = [t for t in tables if "skipped" in t]
    # vintage-tactician sits at its own three-copy table and in both mixed tables.
    assert len(mirrors) == 3 and all("mirror" in t["skipped"] for t in mirrors)
    for t in tables:
        if "games" in t:
            assert t["games"] == 4 and t["lineup"][0] == "vintage-tactician"
            assert 0 <= t["finished_ahead_ci"][0] <= t["finished_ahead_rate"] <= 1
            assert t["win_rate"] == t["wins"] / t["games"]
    assert "finished ahead" in (tmp_path / "report.md").read_text()


def _write_card(path: Path, card: dict) -> Path:
    path.mkdir(parents=True)
    (path / "report.json").write_text(json.dumps(card))
    return path / "report.json"


def test_leaderboard_ranks_and_refuses_mixed_games_and_unknown_protocols(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    card = json.loads((SMALL / "greedy" / "report.json").read_text())
    first = _write_card(tmp_path / "a", card)
    second = CARDS / "vintage" / "vintage-greedy" / "report.json"
    with pytest.raises(CardError, match=r"game realtime: .*a/report.json.*game vintage: .*greedy"):
        eval_report.leaderboard([first, second])
    assert main(["leaderboard", str(first), str(second), "--out", str(tmp_path / "lb")]) == 2
    assert "different games" in capsys.readouterr().err
    other = json.loads(json.dumps(card))
    other["protocol"] = other["manifest"]["protocol"] = 99
    other["manifest"]["hash"] = protocol.manifest_hash(other["manifest"])
    with pytest.raises(
        CardError, match=r"b/report\.json: protocol is 99: no evaluation protocol 99"
    ):
        eval_report.leaderboard([_write_card(tmp_path / "b", protocol.seal(other))])
    edited = json.loads(json.dumps(card))
    edited["manifest"]["games"] = 10_000
    with pytest.raises(CardError, match="card_hash does not match the card"):
        eval_report.leaderboard([_write_card(tmp_path / "c", edited)])
    assert main(["leaderboard", str(first), "--out", str(tmp_path / "lb")]) == 0
    assert "`greedy`" in (tmp_path / "lb" / "leaderboard.md").read_text()


def test_evaluate_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "card"
    for argv, message in [
        (["chain@pro"], "carries its own reaction profile"),
        (["vintage-greedy"], "plays Vintage Speed: evaluate it with --game vintage"),
        (["chain", "--game", "vintage"], "plays real-time Speed"),
        ([f"py:{tmp_path}/nope.py:Bot"], "no such file"),
    ]:
        assert main(["evaluate", *argv, "--out", str(out)]) == 2, argv
        assert message in capsys.readouterr().err, argv
    # A number that cannot be meant is refused by the parser itself, naming the flag.
    with pytest.raises(SystemExit) as exit_info:
        main(["evaluate", "greedy", "--games", "1", "--out", str(out)])
    assert exit_info.value.code == 2
    assert "argument --games" in capsys.readouterr().err
    assert not out.exists()


@pytest.mark.parametrize("game", ["realtime", "vintage"])
def test_committed_leaderboard_is_built_from_the_committed_cards(game: str) -> None:
    cards = sorted((CARDS / game).glob("*/report.json"))
    board = eval_report.leaderboard(cards)
    assert {row["agent"] for row in board["rows"]} == {
        eval_report.read_card(c)["agent"] for c in cards
    }
    committed = (CARDS / "leaderboard" / game / "leaderboard.md").read_text()
    assert committed == eval_report.leaderboard_md(board)


def test_rule_sets_an_agent_refuses_are_skipped_with_its_reason(tmp_path: Path) -> None:
    bot = tmp_path / "us_only.py"
    bot.write_text(
        BOT
        + textwrap.dedent(
            """
            class UsOnly(Bot):
                def __init__(self, rules, seed):
                    if rules.preset != "us":
                        raise ValueError(f"I play us only, not {rules.preset}")
            """
        )
    )
    plan = evaluate.make_plan(f"py:{bot}:UsOnly", games=2)
    assert set(plan.skipped) >= {"pagat", "japanese", "japanese+options"}
    assert "I play us only, not pagat" in plan.skipped["pagat"]
    assert {g.split("/")[0] for g in plan.groups} == {"us", "latency"}


def test_games_are_rounded_down_to_whole_deals() -> None:
    plan = evaluate.make_plan("greedy", games=5)
    assert plan.games == 4
    assert {s.games for _, s, *_ in plan.jobs if s.agents[1] == "random"} == {4}


def test_ctrl_c_while_writing_a_card_comes_after_all_three_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os
    import signal

    from agents.runtime import files

    card = json.loads((SMALL / "greedy" / "report.json").read_text())
    real = files.stage
    written = []

    def interrupted_write(path: Path, data: bytes, **kw: bool) -> Path:
        if not written:
            os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C as the first file is written
        written.append(Path(path).name)
        return real(path, data, **kw)

    monkeypatch.setattr(files, "stage", interrupted_write)
    with pytest.raises(KeyboardInterrupt):
        eval_report.write_card(tmp_path, card)
    assert written == ["report.json", "report.md", "report.png"]
    assert json.loads((tmp_path / "report.json").read_text()) == card


def test_rating_a_committed_card_again_changes_nothing() -> None:
    # A card's ratings are a pure function of its counts, the shipped anchors and its seed: each
    # committed card is re-rated and compared, field by field (agents.evaluate.card_check), by
    # read_card.
    for path in [SMALL / "greedy" / "report.json", *sorted(CARDS.glob("*/*/report.json"))]:
        card = eval_report.read_card(path)
        assert card == json.loads(path.read_text()), path


def test_leaderboard_takes_a_folder_of_cards(tmp_path: Path, capsys) -> None:
    """``speed leaderboard DIR`` with DIR a folder of card folders (as the docs say) ranks every
    card in it, the same board as the cards named one by one."""
    named = sorted(str(p) for p in (CARDS / "vintage").glob("*/report.json"))
    assert main(["leaderboard", *named, "--out", str(tmp_path / "named")]) == 0
    assert main(["leaderboard", str(CARDS / "vintage"), "--out", str(tmp_path / "dir")]) == 0
    board = (tmp_path / "dir" / "leaderboard.md").read_text()
    assert board == (tmp_path / "named" / "leaderboard.md").read_text()
    assert board.count("`vintage-") == len(named) == 5
    assert main(["leaderboard", str(tmp_path / "named"), "--out", str(tmp_path / "x")]) == 2
    assert "no card in" in capsys.readouterr().err


def test_evaluate_plays_on_two_workers_by_default() -> None:
    """The search opponent is most of a card's CPU time (docs/evaluate.md, "What a card
    costs"): both cores of a 2-core machine play it unless told otherwise."""
    from speed_cli import build_parser

    assert build_parser().parse_args(["evaluate", "greedy"]).workers == 2


def test_two_evaluates_into_one_folder_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``speed evaluate`` holds its --out folder's lock, as tournaments and training do: a second
    writer is refused at once, naming the first, and writes nothing."""
    from agents.runtime.run_lock import FolderLock

    out = tmp_path / "card"
    with FolderLock(out, command="speed evaluate chain (the first)"):
        assert main(["evaluate", "greedy", "--games", "2", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "speed evaluate chain (the first)" in err and len(err.strip().splitlines()) == 1
        assert sorted(p.name for p in out.iterdir()) == ["run.lock"]


class _FullDisk:
    """A file whose writes fail as on a full disk."""

    def __init__(self, file: object) -> None:
        self.file = file

    def __enter__(self) -> _FullDisk:
        return self

    def __exit__(self, *exc: object) -> None:
        self.file.close()  # type: ignore[attr-defined]

    def write(self, data: bytes) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def __getattr__(self, name: str) -> object:
        return getattr(self.file, name)


@pytest.mark.parametrize(
    ("call", "name"), [(1, "report.json"), (2, "report.md"), (3, "report.png")]
)
def test_a_failed_card_write_leaves_the_old_card_whole_and_names_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, call: int, name: str
) -> None:
    import os

    old = json.loads((SMALL / "greedy" / "report.json").read_text())
    eval_report.write_card(tmp_path, old)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    new = {**old, "agent": "greedy (another run)"}  # every file of the card differs
    real, opened = os.fdopen, []

    def fdopen(fd: int, *args: object, **kw: object) -> object:
        file = real(fd, *args, **kw)  # type: ignore[call-overload]
        opened.append(fd)
        return _FullDisk(file) if len(opened) == call else file

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(OSError) as caught:
        eval_report.write_card(tmp_path, new)
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before  # no temporary either
    assert str(tmp_path / name) in str(caught.value) and "No space left" in str(caught.value)


def test_a_rename_failing_midway_puts_the_old_files_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files of a set are renamed last; should the second rename fail, the first file's
    old content is put back and nothing else is left in the folder."""
    import os

    from agents.runtime import files

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    files.write_together({a: b"old a", b: b"old b"})
    real, renames = os.replace, []

    def replace(src: str, dst: str) -> None:
        renames.append(dst)
        if len(renames) == 2:
            raise OSError(errno.EIO, "Input/output error")
        real(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(OSError, match=f"could not write {b}: Input/output error"):
        files.write_together({a: b"new a", b: b"new b"})
    monkeypatch.undo()
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == {
        "a.txt": b"old a",
        "b.txt": b"old b",
    }
