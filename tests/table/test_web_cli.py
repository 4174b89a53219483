"""`speed play` / `speed watch` refuse bad input with one line and exit code 2, serving nothing."""

from __future__ import annotations

import json

import pytest

import speed_cli


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["play", "--opponent", "nosuchbot", "--no-browser"], "unknown agent 'nosuchbot'"),
        (["play", "--deal", "/nonexistent/deal.json", "--no-browser"], "cannot read deal file"),
        (
            ["play", "--rules", "japanese", "--option", "stack_layout=true", "--no-browser"],
            "ordinary plays only",
        ),
        (["watch", "--agents", "chain", "--no-browser"], "--agents takes two to four agent"),
        (["watch", "--agents", "chain,a,b,c,d", "--no-browser"], "--agents takes two to four"),
        (["watch", "--reaction", "pro,human,casual", "--no-browser"], "3 profiles for 2 seats"),
        (
            ["watch", "--agents", "chain,greedy", "--option", "players=3", "--no-browser"],
            "--option players=3 disagrees with --agents, which seats 2",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv, fragment, capsys):
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"speed {argv[0]}: error:") and fragment in err[0], (
        err
    )


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (
            ["play", "--countdown-ms", "-5", "--no-browser"],
            "argument --countdown-ms: must be a whole number from 0 to 60000, got '-5'",
        ),
        (
            ["play", "--countdown-ms", "9" * 400, "--no-browser"],
            "argument --countdown-ms: must be a whole number from 0 to 60000",
        ),
        (
            ["play", "--port", "99999", "--no-browser"],
            "argument --port: must be a whole number from 0 to 65535, got '99999'",
        ),
        (["play", "--port", "-1", "--no-browser"], "argument --port: must be a whole number from"),
        (["watch", "--port", "65536", "--no-browser"], "argument --port: must be"),
        (["play", "--tick-ms", str(2**62), "--no-browser"], "argument --tick-ms: must be"),
        (["play", "--seed", "-1", "--no-browser"], "argument --seed: must be"),
        (["watch", "--seed", str(2**64), "--no-browser"], "argument --seed: must be"),
        (["play", "--replays-keep", "0", "--no-browser"], "argument --replays-keep: must be"),
        (["watch", "--replays-max-mb", "-3", "--no-browser"], "argument --replays-max-mb: must be"),
        (
            ["watch", "--agents", "chain,greedy", "--tick-ms", "0", "--no-browser"],
            "argument --tick-ms: must be a whole number from 1 to 1000, got '0'",
        ),
        (["play", "--reaction", "pro,human", "--no-browser"], "--reaction: takes one profile"),
        (["play", "--reaction", "speedy", "--no-browser"], "unknown reaction 'speedy'"),
        # Once a 1 ms bot: the latency wrapped inside the engine's int64 clock.
        (
            ["play", "--reaction", "1" + "0" * 23, "--no-browser"],
            "argument --reaction: reaction profile 'mu' must be a number of ms between 0 and",
        ),
        (
            ["watch", "--reaction", "pro,2e9ms", "--no-browser"],
            "argument --reaction: reaction profile 'mu' must be a number of ms between 0 and",
        ),
        (["watch", "--reaction", "pro,human,casual,pro,pro", "--no-browser"], "at most 4 profiles"),
    ],
)
def test_a_number_out_of_range_is_refused_by_the_parser_naming_the_flag(argv, fragment, capsys):
    with pytest.raises(SystemExit) as exc:
        speed_cli.main(argv)
    assert exc.value.code == 2
    assert fragment in capsys.readouterr().err


def test_a_bad_deal_or_replay_folder_is_refused(tmp_path, capsys):
    deal = tmp_path / "deal.json"
    deal.write_text(json.dumps({"hands": [["7H"], ["7H"]]}), encoding="utf-8")
    assert (
        speed_cli.main(["play", "--deal", str(deal), "--no-browser", "--opponent", "greedy"]) == 2
    )
    assert "deal is missing 'draw_piles'" in capsys.readouterr().err
    deal.write_text("[1, 2]", encoding="utf-8")
    assert speed_cli.main(["play", "--deal", str(deal), "--no-browser"]) == 2
    assert "must hold a JSON object" in capsys.readouterr().err
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert speed_cli.main(["play", "--replays-dir", str(blocker), "--no-browser"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_a_port_in_use_is_refused(capsys):
    from speed_table.app import listen

    sock = listen("127.0.0.1", 0)
    try:
        port = sock.getsockname()[1]
        assert (
            speed_cli.main(["play", "--port", str(port), "--no-browser", "--opponent", "greedy"])
            == 2
        )
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    finally:
        sock.close()


def test_help_says_how_the_replay_folder_is_bounded(capsys):
    with pytest.raises(SystemExit):
        speed_cli.main(["play", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "a game is saved only if it had a play" in text
    assert "keep at most N replay files in the folder, deleting the oldest" in text
    assert "keep at most MB megabytes of replay files, deleting the oldest" in text
    assert "a game whose replay alone passes MB is not saved" in text
