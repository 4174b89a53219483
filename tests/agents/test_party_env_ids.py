"""Files of games at three or four seats record the env those games were played on,
``speed_env/speed_party_v0``, not the two-seat ``speed_env/speed_v1``: a model's manifest, a
party tournament's ``results.json``, a crowd reaction sweep's ``reaction.json``."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import reaction_sweep
from agents.model_io import kit_model, rules_signature
from agents.tournament import party
from speed_env.registration import PARTY_ID, REALTIME_ID, made_with
from speed_env.rules import make_rules


def _save(path, rules):
    sig = rules_signature.signature(rules)
    rng = np.random.default_rng(0)
    tensors = {
        "pi.0.weight": rng.normal(size=(4, sig["obs_dim"])).astype(np.float32),
        "pi.0.bias": np.zeros(4, np.float32),
        "logits.weight": rng.normal(size=(sig["n_actions"], 4)).astype(np.float32),
        "logits.bias": np.zeros(sig["n_actions"], np.float32),
    }
    return kit_model.save_model(path, tensors, rules=rules, hidden=[4], activation="tanh")


@pytest.mark.parametrize(("players", "env_id"), [(2, REALTIME_ID), (3, PARTY_ID), (4, PARTY_ID)])
def test_made_with_names_the_env_of_the_seat_count(players, env_id):
    assert made_with("realtime", players=players)["env_id"] == env_id
    assert made_with("vintage")["env_id"] == "speed_env/vintage_speed_v0"


@pytest.mark.parametrize(("players", "env_id"), [(2, REALTIME_ID), (4, PARTY_ID)])
def test_a_saved_model_records_the_env_of_its_seat_count(tmp_path, players, env_id):
    rules = make_rules("us", players=players)
    manifest = json.loads(_save(tmp_path / "m", rules).read_text())
    assert manifest["env_id"] == env_id
    policy = kit_model.load_policy(tmp_path / "m.json", rules)
    assert policy.made_with is not None and policy.made_with.env_id == env_id


def test_a_party_tournament_records_speed_party_v0():
    settings = party.PartySettings(
        agents=("random", "greedy"), rules=make_rules("us", players=3), games=3, seed=2
    )
    chunks = [party.run_chunk(settings, chunk) for chunk in party.plan(settings)]
    doc = party.summarise(settings, chunks, bootstrap=5)
    assert doc["env_id"] == PARTY_ID and doc["settings"]["players"] == 3


@pytest.mark.parametrize(("players", "env_id"), [(2, REALTIME_ID), (3, PARTY_ID)])
def test_a_reaction_sweep_records_the_env_of_its_table(players, env_id):
    settings = reaction_sweep.SweepSettings(
        "greedy", "random", ("200", "300"), games=6, rules=make_rules("us", players=players)
    )
    outcomes = np.array([1, -1, -1, 1, -1, -1], np.int8)
    points = [reaction_sweep.PointResult(p[0], p[1], outcomes) for p in settings.points()]
    doc = reaction_sweep.summarise(settings, points, bootstrap=5)
    assert doc["env_id"] == env_id and doc["settings"]["rules"].get("players", 2) == players
