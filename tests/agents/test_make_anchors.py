"""``python -m agents.evaluate.make_anchors`` refuses what the kit does not have in one line,
writing nothing (the anchors file stays as it was)."""

from __future__ import annotations

import pytest

from agents.evaluate import make_anchors


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["--game", "realtime", "--protocol", "99"], "no evaluation protocol 99"),
        (["--game", "vintage", "--protocol", "99"], "no evaluation protocol 99"),
        (["--game", "realtime", "--rule-sets", "us,klondike"], "no rule set klondike"),
    ],
)
def test_an_unknown_protocol_or_rule_set_is_one_line(tmp_path, capsys, argv, named):
    out = tmp_path / "anchors.json"
    out.write_text("{}")
    with pytest.raises(SystemExit) as done:
        make_anchors.main([*argv, "--out", str(out)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err
    assert err.strip().splitlines()[-1].startswith("python -m agents.evaluate.make_anchors: error:")
    assert out.read_text() == "{}"
