"""Every file a user names (a card, a record, a rules or pack file, a profile, a deal) is read
by one reader, :mod:`speed_env.user_file`: a named pipe is refused at once instead of hanging,
a device or an oversized file before it is read, and JSON strictly (no key twice, no NaN); each
refusal one line naming the file.

Before: a FIFO given as a card hung ``speed leaderboard``, ``/dev/zero`` ended in a
``MemoryError`` traceback, and records, profiles and deals kept the last of two equal keys and
read NaN. The readers that could hang run in a child process under a timeout (a regression fails
rather than hangs) and a memory limit (``/dev/zero`` cannot eat the machine's memory).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
MEMORY = 1536 << 20
"""The child's address-space limit: what ``speed leaderboard`` needs, far less than the machine."""
TIMEOUT = 60.0


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY, MEMORY))


def _child(argv: list[str]) -> subprocess.CompletedProcess[str]:
    """``argv`` run by this Python in a child, bounded in time and memory."""
    return subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        preexec_fn=_limited,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def _fifo(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def _one_line(err: str, *fragments: str) -> None:
    err = err.strip()
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    for fragment in fragments:
        assert fragment in err, err


# ------------------------------------------------------------------ speed leaderboard


def test_a_fifo_card_is_refused_by_speed_leaderboard_without_hanging(tmp_path):
    fifo = _fifo(tmp_path / "card" / "report.json")
    done = _child(["-m", "speed_cli", "leaderboard", str(fifo), "--out", str(tmp_path / "lb")])
    assert done.returncode == 2
    _one_line(done.stderr, str(fifo), "is a named pipe (FIFO), not a regular file")
    assert not (tmp_path / "lb").exists()


def test_dev_zero_as_a_card_is_refused_before_a_byte_is_read(tmp_path):
    done = _child(["-m", "speed_cli", "leaderboard", "/dev/zero", "--out", str(tmp_path / "lb")])
    assert done.returncode == 2
    _one_line(done.stderr, "card /dev/zero is a character device, not a regular file")


def test_a_card_larger_than_the_bound_is_refused_unread(tmp_path):
    from agents.evaluate.card_check import MAX_CARD_BYTES

    big = tmp_path / "big" / "report.json"
    big.parent.mkdir()
    with open(big, "wb") as f:
        f.truncate(MAX_CARD_BYTES + 1)  # sparse: no disk spent
    done = _child(["-m", "speed_cli", "leaderboard", str(big), "--out", str(tmp_path / "lb")])
    assert done.returncode == 2
    _one_line(done.stderr, str(big), f"is larger than {MAX_CARD_BYTES:,} bytes")


# ------------------------------------------------------------------ every reader, one way

_READS = {
    "card": "from agents.evaluate.report import read_card as read",
    "record": "from speed_data.records import read_record as read",
    "profile": "from speed_env.reaction import load_profile as read",
    "rules": "from speed_env.rules import load_rules_file as read",
    "pack": "from speed_env.vintage.pack import load_pack as read",
    "deal": "from speed_cli.table import _read_deal as read",
    "replay": "from speed_cli.replay import read_frames\nread = lambda p: read_frames(p, 0)",
}
"""How each kind of user's file is read, as the commands that take it read it."""


def _read_in_child(kind: str, path: str) -> subprocess.CompletedProcess[str]:
    code = _READS[kind] + textwrap.dedent(
        f"""
        import sys
        try:
            read({path!r})
        except Exception as exc:  # the refusal, whatever the caller's error type
            print(f"{{type(exc).__name__}}: {{exc}}", file=sys.stderr)
            sys.exit(2)
        """
    )
    return _child(["-c", code])


@pytest.mark.parametrize("kind", sorted(_READS))
def test_every_users_file_that_is_a_fifo_is_refused_at_once(tmp_path, kind):
    fifo = _fifo(tmp_path / f"{kind}.file")
    done = _read_in_child(kind, str(fifo))
    assert done.returncode == 2
    _one_line(done.stderr, str(fifo), "is a named pipe (FIFO), not a regular file")


@pytest.mark.parametrize("kind", sorted(_READS))
def test_every_users_file_that_is_dev_zero_is_refused_unread(kind):
    done = _read_in_child(kind, "/dev/zero")
    assert done.returncode == 2
    _one_line(done.stderr, "/dev/zero is a character device, not a regular file")


def _profile(extra: str = "") -> str:
    return (
        '{"format": "speed-reaction-profile", "version": 1, "mu": 200, "sigma": 30, '
        f'"tau": 80, "floor": 100{extra}}}'
    )


@pytest.mark.parametrize(
    ("kind", "text", "refusal"),
    [
        ("profile", _profile(', "mu": 5'), "the key mu is given twice"),
        ("profile", _profile(', "n": NaN'), "n is NaN (not a JSON number)"),
        ("deal", '{"hands": [["AS"]], "hands": [["2S"]]}', "the key hands is given twice"),
        ("deal", '{"hands": [[Infinity]]}', "hands[0][0] is Infinity (not a JSON number)"),
        ("record", '{"format": "speed-play-record", "format": "x"}', "key format is given twice"),
        ("record", '{"rewards": [NaN]}', "rewards[0] is NaN (not a JSON number)"),
    ],
)  # fmt: skip
def test_duplicate_keys_and_nan_are_refused_in_every_json_file(tmp_path, kind, text, refusal):
    path = tmp_path / f"{kind}.json"
    path.write_text(text, encoding="utf-8")
    done = _read_in_child(kind, str(path))
    assert done.returncode == 2
    _one_line(done.stderr, str(path), "is not JSON: ", refusal)


def test_a_record_larger_than_the_bound_is_refused_unread(tmp_path):
    from speed_data.records import MAX_RECORD_BYTES, RecordError, read_record

    path = tmp_path / "big.speedrec.json"
    with open(path, "wb") as f:
        f.truncate(MAX_RECORD_BYTES + 1)
    with pytest.raises(RecordError, match=f"is larger than {MAX_RECORD_BYTES:,} bytes"):
        read_record(path)


# ------------------------------------------------------------------ the reader itself


class _Refused(Exception):
    """A caller's own error type."""


def test_the_reader_bounds_names_and_reads(tmp_path):
    from speed_env import user_file

    good = tmp_path / "good.json"
    good.write_text('{"a": [1, 2.5]}', encoding="utf-8")
    assert user_file.read_json(good, "thing", _Refused) == {"a": [1, 2.5]}
    with pytest.raises(_Refused, match=r"^thing .*good\.json is larger than 4 bytes \(it holds"):
        user_file.read_json(good, "thing", _Refused, limit=4)
    with pytest.raises(_Refused, match=r"^cannot read thing .*gone\.json: No such file"):
        user_file.read_json(tmp_path / "gone.json", "thing", _Refused)
    with pytest.raises(_Refused, match=r"^thing .* is a directory, not a regular file"):
        user_file.read_json(tmp_path, "thing", _Refused)
    good.write_bytes(b'{"a": "\xff"}')
    with pytest.raises(_Refused, match=r"good\.json is not UTF-8 text"):
        user_file.read_json(good, "thing", _Refused)
    toml = tmp_path / "r.toml"
    toml.write_text("wrap = false\n", encoding="utf-8")
    assert user_file.read_toml(toml, "rules file", _Refused) == {"wrap": False}


def test_a_link_to_a_fifo_is_refused_naming_its_target(tmp_path):
    from speed_env import user_file

    fifo = _fifo(tmp_path / "pipe")
    link = tmp_path / "card.json"
    link.symlink_to(fifo)
    with pytest.raises(_Refused, match=r"\(a link to .*pipe\) is a named pipe"):
        user_file.read_json(link, "card", _Refused)


def test_the_reader_keeps_importing_speed_env_light():
    code = (
        "import sys, speed_env.user_file; "
        "print(sorted({'torch', 'matplotlib', 'agents'} & set(sys.modules)))"
    )
    done = _child(["-c", code])
    assert done.returncode == 0 and done.stdout.strip() == "[]", done.stderr
