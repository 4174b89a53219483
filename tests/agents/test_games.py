"""One object per game, registered by name: the harness and the CLI ask it, and name no game.

Also the tournament's life in its folder (:func:`agents.tournament.run_folder.play`), called as
a library, the way a league's payoff table will call it.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from agents.games.registry import GAMES, UnknownGameError, game_of_spec, load_game, make
from agents.tournament import run_folder
from agents.tournament.game import Game, TournamentError, TournamentRequest

ROOT = Path(__file__).resolve().parents[2]


def test_every_game_is_registered_under_its_own_name_and_found_by_its_agents():
    assert list(GAMES) == ["realtime", "vintage"]
    for name, game in GAMES.items():
        assert load_game(name) is game and game.name == name
        for spec in game.default_agents:
            assert game.knows(spec) and game_of_spec(spec) is game
    # A user's agent names no registered kind: it is the default game's.
    assert game_of_spec("py:bot.py:Bot") is GAMES["realtime"]


def test_an_unknown_game_is_refused_naming_the_games():
    with pytest.raises(UnknownGameError, match="no game 'texas'; games: realtime, vintage"):
        load_game("texas")


def test_make_builds_each_spec_for_its_own_game():
    assert make("greedy", "us", seed=0).spec == "greedy"
    assert make("vintage-greedy", seed=0).spec == "vintage-greedy"


@pytest.mark.parametrize(("name", "seats"), [("realtime", 5), ("vintage", 11), ("vintage", 1)])
def test_a_table_size_the_game_does_not_seat_is_refused(name, seats):
    game: Game = load_game(name)
    request = TournamentRequest(agents=None, games=20, seed=0, seats=seats)
    with pytest.raises(TournamentError, match=f"--players {seats}: "):
        game.tournament(request)


def test_the_seat_count_is_the_tables_not_the_games():
    game = load_game("vintage")
    for seats in (2, 3, 5):
        t = game.tournament(TournamentRequest(agents=None, games=2 * seats, seed=1, seats=seats))
        assert t.settings.players == seats
        assert t.games_used == (
            2 * seats,
            "line-up",
            f"2 deals, each once per seat rotation of {seats} players",
        )
    assert game.tournament(TournamentRequest(None, 8, 1)).settings.players == game.default_seats


def test_play_runs_a_tournament_into_its_folder_as_a_library_call(tmp_path):
    notes: list[str] = []
    game = load_game("vintage")
    request = TournamentRequest(agents=None, games=6, seed=3, seats=3)
    played = run_folder.play(game, request, tmp_path / "out", note=notes.append)
    assert played is not None and played.complete and played.failure is None
    assert {p.name for p in played.paths} >= {"results.json", "agents.csv", "penalties.png"}
    doc = json.loads((tmp_path / "out" / "results.json").read_text())
    assert doc == played.summary and doc["settings"]["players"] == 3
    assert played.games == doc["settings"]["games_played"] == 6
    header = json.loads((tmp_path / "out" / "chunks.jsonl").read_text().splitlines()[0])
    assert json.dumps(header).count('"--game": "vintage"') == 1
    # The same request again finds this very run finished there: nothing is played or touched.
    again = run_folder.play(game, request, tmp_path / "out", note=notes.append)
    assert isinstance(again, run_folder.AlreadyFinished) and again.message
    assert json.loads((tmp_path / "out" / "results.json").read_text()) == doc and notes == []


def test_the_spec_room_imports_no_game_room_above_it():
    """agents/specs/ is the grammar every game's registry shares: no arrow back up to a game."""
    upward = []
    for path in sorted((ROOT / "agents" / "specs").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            upward += [
                f"{path.name} imports {n}"
                for n in names
                if n.startswith(("agents.vintage", "agents.games", "agents.tournament"))
            ]
    assert upward == []


def test_each_game_names_its_own_env_ids():
    realtime, vintage = load_game("realtime").env_ids(), load_game("vintage").env_ids()
    assert "speed_env/speed_v1" in realtime and "speed_env/Speed-v1" in realtime
    assert "speed_env/vintage_speed_v0" in vintage and "speed_env/VintageSpeed-v0" in vintage
    assert not set(realtime) & set(vintage)


def test_a_bare_model_path_is_refused_with_every_games_spelling():
    spellings = " or ".join(
        f"{g.model_kind}:runs/model.json ({g.title})" for g in GAMES.values() if g.model_kind
    )
    assert "ppo:runs/model.json (real-time Speed)" in spellings
    assert "vintage-ppo:runs/model.json (Vintage Speed)" in spellings
    with pytest.raises(
        ValueError, match=f"name a saved model by its kind, {re.escape(spellings)}$"
    ):
        make("runs/model.json")


def test_each_game_registers_its_report_card_for_the_shared_card_code():
    from agents.evaluate import protocol

    assert [card.name for card in protocol.card_games()] == list(GAMES)
    for name in GAMES:
        card = protocol.card_game(name)
        assert protocol.protocol(name, 1)["game"] == name
        assert card.sections() and card.unit and card.title
    with pytest.raises(protocol.ProtocolError, match="no 'texas' game to evaluate"):
        protocol.card_game("texas")
