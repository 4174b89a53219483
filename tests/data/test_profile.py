"""``speed data profile``: the ex-Gaussian by maximum likelihood, bootstrap intervals that hold the
truth, and a profile file every ``--reaction`` and ``@PROFILE`` reads."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import PERSON_RT

import agents
import speed_cli
import speed_env
from speed_data import profile
from speed_env.reaction import ReactionError, make_profile


def _draws(n, mu, sigma, tau, seed):
    rng = np.random.default_rng(seed)
    return (mu + sigma * rng.standard_normal(n) + tau * rng.exponential(size=n)).tolist()


@pytest.mark.parametrize("truth,seed", [((250.0, 30.0, 90.0), 1), ((420.0, 70.0, 160.0), 2)])
def test_the_fit_recovers_known_parameters_within_three_standard_errors(truth, seed):
    fitted = profile.fit(_draws(400, *truth, seed), n_boot=60, seed=seed)
    for name, value in zip(profile.PARAMS, truth):
        low, high = fitted["intervals"][name]
        assert low < fitted[name] < high
        # The 95% interval spans about 3.92 standard errors: a miss of 3 is a 0.3% event.
        se = (high - low) / 3.92
        assert abs(fitted[name] - value) < 3 * se, (name, value, fitted[name], se)


def test_scipy_and_the_numpy_optimiser_find_the_same_maximum():
    x = np.array(_draws(300, 280.0, 35.0, 120.0, 3))
    a = profile.mle(x, use_scipy=True)
    b = profile.mle(x, use_scipy=False)
    assert np.allclose(a, b, atol=0.2)
    # It is the maximum: nudging any parameter lowers the likelihood.
    best = profile.log_likelihood(x, *b)
    for i in range(3):
        for d in (-1.0, 1.0):
            p = list(b)
            p[i] += d
            assert profile.log_likelihood(x, *p) < best


def test_too_few_times_are_refused():
    with pytest.raises(ValueError, match="at least 20 timed plays"):
        profile.fit([300.0] * 19 + [None, 9000.0])


def test_a_profile_file_is_read_by_every_reaction_argument(tmp_path):
    fitted = profile.fit(_draws(200, 260.0, 30.0, 80.0, 4), n_boot=0)
    path = profile.write_profile(tmp_path / "me.json", fitted)
    prof = make_profile(f"profile:{path}")
    assert (prof.mu, prof.sigma, prof.tau, prof.floor) == (
        fitted["mu"],
        fitted["sigma"],
        fitted["tau"],
        fitted["floor"],
    )
    assert agents.make(f"chain@profile:{path}", "us", seed=0).reaction == prof
    env = speed_env.parallel_env("us", reaction=(f"profile:{path}", "human"))
    assert env.reset(seed=0)[0]["player_0"]["action_mask"].dtype == np.int8
    args = speed_cli.build_parser().parse_args(["play", "--reaction", f"profile:{path}"])
    assert args.reaction == f"profile:{path}"


@pytest.mark.parametrize(
    "content,fragment",
    [
        (None, "cannot read"),
        ("{", "is not JSON"),
        ('{"format": "other"}', "speed-reaction-profile"),
        ('{"format": "speed-reaction-profile", "version": 1, "mu": 1}', "lacks 'sigma'"),
        (
            '{"format": "speed-reaction-profile", "version": 1, "mu": -5, "sigma": 1, '
            '"tau": 1, "floor": 1}',
            "'mu' must be a number",
        ),
    ],
)
def test_a_bad_profile_file_is_refused_naming_it(tmp_path, content, fragment):
    path = tmp_path / "p.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(ReactionError, match=r"p\.json") as info:
        make_profile(f"profile:{path}")
    assert fragment in str(info.value)


@pytest.mark.slow
def test_profile_recovers_the_scripted_persons_reaction_times(person_games, capsys):
    folder, sent = person_games
    assert speed_cli.main(["data", "profile", str(folder), "--bootstrap", "100"]) == 0
    out = capsys.readouterr().out
    assert "maximum likelihood" in out and "profile:" in out
    data = json.loads((folder / "profile.json").read_text(encoding="utf-8"))
    assert data["n"] == len(sent) >= 150
    for name, value in zip(profile.PARAMS, PERSON_RT):
        low, high = data["intervals"][name]
        assert low < data[name] < high
        # Within three standard errors (a 95% interval spans about 3.92): a miss is a 0.3%
        # event, where a 95% interval misses one of three parameters one time in seven.
        se = (high - low) / 3.92
        assert abs(data[name] - value) < 3 * se, (name, value, data[name], low, high)
    assert (folder / "profile-qq.png").stat().st_size > 5_000
    assert make_profile(f"profile:{folder / 'profile.json'}").mu == data["mu"]


def test_the_reaction_experiment_plays_against_a_persons_profile(tmp_path, capsys):
    fitted = profile.fit(_draws(200, 330.0, 40.0, 120.0, 5), n_boot=0)
    path = profile.write_profile(tmp_path / "me.json", fitted)
    argv = ["experiment", "reaction", "--agent", "chain", "--opponent", "greedy",
            "--opponent-profile", str(path), "--latencies", "150,450", "--games", "20",
            "--bootstrap", "0", "--workers", "1", "--out", str(tmp_path / "out")]  # fmt: skip
    assert speed_cli.main(argv) == 0
    out = capsys.readouterr().out
    assert f"greedy@profile:{path}" in out
    doc = json.loads((tmp_path / "out" / "reaction.json").read_text(encoding="utf-8"))
    # The opponent sits on the latency axis at the fitted profile's median.
    median = make_profile(f"profile:{path}").median_ms()
    assert [p["opponent_latency_ms"] for p in doc["points"]] == [pytest.approx(median)] * 2
    refused = argv[:-2] + ["--opponent-latency", "250", "--out", str(tmp_path / "o2")]
    assert speed_cli.main(refused) == 2
    assert "drop --opponent-latency" in capsys.readouterr().err


def test_a_fit_no_profile_file_could_hold_is_refused_naming_why():
    # 60 times of 0 ms fit mu just under 0 (about -7e-9), which load_profile refuses.
    with pytest.raises(ValueError, match=r"60 reaction times \(0 to 0 ms\) is no reaction profile"):
        profile.fit([0.0] * 60, n_boot=5)


def test_profile_refuses_before_writing_a_file_its_reader_refuses(person_games, tmp_path, capsys):
    folder, _ = person_games
    zeros = tmp_path / "zeros"
    zeros.mkdir()
    for path in sorted(folder.glob("*.speedrec.json")):
        rec = json.loads(path.read_text(encoding="utf-8"))
        rec["reaction_ms"] = [None if ms is None else 0.0 for ms in rec["reaction_ms"]]
        (zeros / path.name).write_text(json.dumps(rec), encoding="utf-8")
    assert speed_cli.main(["data", "profile", str(zeros), "--bootstrap", "5"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("speed data: error: the fit to ") and "\n" not in err
    assert "'mu' must be a number of ms" in err and err.endswith("no profile written")
    assert not (zeros / "profile.json").exists() and not (zeros / "profile-qq.png").exists()


def test_an_opponent_profile_that_is_a_named_pipe_is_refused_naming_its_flag(tmp_path, capsys):
    import os

    os.mkfifo(tmp_path / "fifo")
    argv = ["experiment", "reaction", "--agent", "chain", "--opponent", "greedy",
            "--opponent-profile", str(tmp_path / "fifo"), "--games", "2",
            "--out", str(tmp_path / "out")]  # fmt: skip
    assert speed_cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "--opponent-profile: reaction profile file" in err and "named pipe (FIFO)" in err
    assert not (tmp_path / "out").exists()
