"""``speed evaluate`` plays each game's newest protocol unless told otherwise (real-time Speed's 2,
which charges thinking; Vintage Speed's 1), and the version played is the run's identity whether
``--protocol`` named it or not (docs/evaluate.md)."""

from __future__ import annotations

from typing import Any

import pytest

from agents.evaluate import card_folder, protocol
from speed_cli import main


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[tuple[Any, dict[str, Any]]]:
    """Each card the command asks ``card_folder.play`` for: its request and its identity
    settings (no game is played: the fake returns as an interrupted run does)."""
    calls: list[tuple[Any, dict[str, Any]]] = []

    def play(request: Any, out: Any, *, settings: dict[str, Any], **_: Any) -> None:
        calls.append((request, settings))

    monkeypatch.setattr(card_folder, "play", play)
    return calls


@pytest.mark.parametrize(
    ("argv", "version"),
    [
        (["greedy"], 2),
        (["greedy", "--protocol", "1"], 1),
        (["vintage-greedy", "--game", "vintage"], 1),
    ],
)
def test_evaluate_plays_the_games_newest_protocol_unless_told(asked, tmp_path, argv, version):
    assert main(["evaluate", *argv, "--games", "4", "--out", str(tmp_path / "c")]) == 130
    ((request, settings),) = asked
    assert request.version == version and settings["--protocol"] == version


def test_no_flag_and_the_flag_naming_the_default_are_one_run_identity(asked, tmp_path):
    out = ["--games", "2", "--out", str(tmp_path / "c")]
    for argv in (["greedy"], ["greedy", "--protocol", "2"], ["greedy", "--protocol", "1"]):
        main(["evaluate", *argv, *out])
    (_, none), (_, two), (_, one) = asked
    assert none == two and none != one


def test_default_version_is_each_games_newest() -> None:
    assert (
        protocol.default_version("realtime") == 2 == max(protocol.card_game("realtime").protocols)
    )
    assert protocol.default_version("vintage") == 1
    assert protocol.PROTOCOL_VERSION == 1  # the library's functions still default to the first
