"""`speed play` / `speed watch` refuse bad input with one line and exit code 2, before serving anything."""

from __future__ import annotations

import json

import pytest

import speed_cli


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["play", "--opponent", "nosuchbot", "--no-browser"], "unknown agent 'nosuchbot'"),
        (["play", "--reaction", "pro,human", "--no-browser"], "--reaction takes one profile"),
        (["play", "--reaction", "speedy", "--no-browser"], "unknown reaction 'speedy'"),
        (["play", "--deal", "/nonexistent/deal.json", "--no-browser"], "cannot read deal file"),
        (["play", "--countdown-ms", "-5", "--no-browser"], "--countdown-ms must be >= 0"),
        (["play", "--rules", "japanese", "--option", "stack_layout=true", "--no-browser"], "ordinary plays only"),
        (["watch", "--agents", "chain", "--no-browser"], "--agents takes two agent specs"),
        (["watch", "--agents", "chain,greedy", "--tick-ms", "0", "--no-browser"], "tick_ms must be"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, fragment, capsys):
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"speed {argv[0]}: error:") and fragment in err[0], err


def test_a_bad_deal_or_replay_folder_is_refused(tmp_path, capsys):
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps({"hands": [["7H"], ["7H"]]}), encoding="utf-8")
    assert speed_cli.main(["play", "--deal", str(deal), "--no-browser", "--opponent", "greedy"]) == 2
    assert "deal is missing 'draw_piles'" in capsys.readouterr().err
    deal.write_text("[1, 2]", encoding="utf-8")
    assert speed_cli.main(["play", "--deal", str(deal), "--no-browser"]) == 2
    assert "must hold a JSON object" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert speed_cli.main(["play", "--replays-dir", str(blocker), "--no-browser"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_a_port_in_use_is_refused(capsys):
    from agents.web.server import listen

    sock = listen("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        assert speed_cli.main(["play", "--port", str(port), "--no-browser", "--opponent", "greedy"]) == 2
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    finally:
        sock.close()
