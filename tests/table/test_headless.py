"""``python -m speed_table.headless`` refuses what it cannot play in one line, before starting a
server; its play itself runs in ``tests/data/test_browser_player.py`` (Chromium, minutes)."""

from __future__ import annotations

import json

import pytest

from speed_data.person import Person
from speed_env.reaction import ReactionProfile
from speed_table import headless


@pytest.mark.parametrize(
    "extra,code,fragment",
    [
        (["--person", "250"], 2, "--person/--habit: '250' is a fixed 250 ms"),
        (["--chromium", "/nowhere/chromium"], 1, "no Chromium at /nowhere/chromium"),
    ],
)
def test_a_bad_flag_is_one_line(extra, code, fragment, tmp_path, capsys):
    pytest.importorskip("playwright", reason="playwright is not installed")
    assert headless.main(["--record", str(tmp_path / "rec"), *extra]) == code
    err = capsys.readouterr().err.strip()
    assert fragment in err and "Traceback" not in err and len(err.splitlines()) <= 2
    assert not (tmp_path / "rec").exists()


def test_a_habit_outside_0_1_is_refused_by_the_parser(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        headless.main(["--record", str(tmp_path / "rec"), "--habit", "1.5"])
    assert info.value.code == 2 and "--habit" in capsys.readouterr().err


def test_a_record_folder_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "f").write_text("x", encoding="utf-8")
    assert headless.main(["--record", str(tmp_path / "f")]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_the_page_script_carries_the_persons_draws_and_habit():
    person = Person(ReactionProfile(300.0, 40.0, 100.0, 20.0), habit=0.6)
    times, picks = headless.draws(person, 500, seed=3)
    assert min(times) >= 20.0 and 330 < sum(times) / len(times) < 470  # mean 400 ms
    assert all(0 <= u < 1 for u in picks)
    script = headless.person_script(person, 1, 3)
    assert "habit = 0.6;" in script and json.dumps(times[:3])[:-1] in script
