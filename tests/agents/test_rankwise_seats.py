"""The rank-relative network at three and four seats: its gather re-indexes the n-seat
observation relative to each play's rank and pile, numpy and torch agree, its files load at
their own seat count; the two-seat gather and the shipped two-seat model are unchanged."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest
from helpers_rankwise import torch_actor

import agents
import speed_env
from agents.model_io import kit_model
from agents.model_io.rankwise import RankwisePolicy, gather, rankwise_shapes
from agents.model_io.rankwise_gather import action_features, rotate_ranks
from agents.model_io.tensor_file import ModelFormatError
from speed_env.party_obs import observe_seats, party_layout, party_obs_dim
from speed_env.rules import make_rules
from speed_env.seats import SeatGames

HIDDEN = [16, 8]


def random_tensors(dim: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Random actor weights for observations of ``dim`` floats."""
    rng = np.random.default_rng(seed)
    return {
        name: rng.normal(0.0, 0.5, shape).astype(np.float32)
        for name, shape in rankwise_shapes(dim, HIDDEN).items()
    }


def played_observations(players: int, games: int = 12, ticks: int = 40) -> np.ndarray:
    """Every seat's observations after some random legal play (cards in flight, piles grown)."""
    rules = make_rules("us", players=players)
    table = SeatGames(games, rules, seed=3)
    rng = np.random.default_rng(players)
    for _ in range(ticks):
        masks = table.masks()
        table.step(np.where(masks > 0, rng.random(masks.shape), -1.0).argmax(axis=2))
    obs = observe_seats(table.state, rules)
    return obs.reshape(-1, obs.shape[-1])


def rotate_piles(obs: np.ndarray, players: int, steps: int) -> np.ndarray:
    """``obs`` with what pile ``j`` showed moved to pile ``j + steps`` (mod n) in every per-pile
    field: centre tops and sizes, side piles, the pile each card in flight goes to."""
    lay = party_layout(make_rules("us", players=players))
    out = np.array(obs, copy=True)
    top = lay["centre_top"].start
    tops = obs[:, top : top + 13 * players].reshape(-1, players, 13)
    out[:, top : top + 13 * players] = np.roll(tops, steps, axis=1).reshape(len(obs), -1)
    for field in ("centre_size", "side_piles"):
        out[:, lay[field]] = np.roll(obs[:, lay[field]], steps, axis=1)
    width = 13 + players + 1
    for seat in range(players):
        at = lay["flight"].start + seat * width + 13
        out[:, at : at + players] = np.roll(obs[:, at : at + players], steps, axis=1)
    return out


@pytest.mark.parametrize("players", [3, 4])
def test_every_play_reads_the_whole_observation_once_plus_its_pile(players):
    """Each play's features are the n-seat observation re-indexed (every entry exactly once)
    followed by its pile as a one-hot over the n piles."""
    dim = party_obs_dim(make_rules("us", players=players))
    table = action_features(dim)
    assert table.shape == (13 * players, dim + players)
    for row in table:
        np.testing.assert_array_equal(np.sort(row[:dim]), np.arange(dim))
    pile_onehot = table[:, dim:] == dim + 1  # the padded constant 1
    np.testing.assert_array_equal(pile_onehot, np.tile(np.eye(players, dtype=bool), (13, 1)))


@pytest.mark.parametrize("players", [3, 4])
def test_each_play_reads_its_rank_and_its_pile_first(players):
    """Play ``(r, p)``'s first feature is my hand's count of rank ``r``; the next 13 are pile
    ``p``'s top from rank ``r`` on, then pile ``p + 1``'s (mod n)."""
    obs = played_observations(players)
    lay = party_layout(make_rules("us", players=players))
    feats = gather(obs)
    top = lay["centre_top"].start
    for r in range(13):
        for p in range(players):
            a = players * r + p
            np.testing.assert_array_equal(feats[:, a, 0], obs[:, lay["hand"].start + r])
            np.testing.assert_array_equal(feats[:, a, 13], obs[:, top + 13 * p + r])
            after = (p + 1) % players
            np.testing.assert_array_equal(feats[:, a, 26], obs[:, top + 13 * after + r])
    assert obs[:, top : top + 13 * players].any()  # piles with tops: not a trivial pass


@pytest.mark.parametrize("players", [3, 4])
@pytest.mark.parametrize("steps", [1, 2])
def test_moving_the_piles_moves_which_play_reads_them(players, steps):
    """With every pile's contents moved ``steps`` piles on, play ``(r, p + steps)`` reads what
    play ``(r, p)`` read before, all but its pile's one-hot: piles are read relative to p."""
    obs = played_observations(players)
    before, after = gather(obs), gather(rotate_piles(obs, players, steps))
    plays = before.reshape(len(obs), 13, players, -1)
    moved = np.roll(after.reshape(len(obs), 13, players, -1), -steps, axis=2)
    np.testing.assert_array_equal(moved[..., :-players], plays[..., :-players])
    assert not np.array_equal(after, before)  # the piles differ: not a trivial pass


@pytest.mark.parametrize("players", [3, 4])
def test_rotating_every_rank_rotates_the_play_scores_at_n_seats(players):
    """The table with every rank one higher scores play ``(r + 1, p)`` exactly as it scored
    ``(r, p)``; the wait logit does not change."""
    obs = played_observations(players)
    policy = RankwisePolicy(random_tensors(obs.shape[1]), "relu", obs_dim=obs.shape[1])
    rotated = rotate_ranks(obs, 1)
    assert not np.array_equal(rotated, obs)
    before, after = policy.logits(obs), policy.logits(rotated)
    assert before.shape == (len(obs), 1 + 13 * players)
    plays_before = before[:, 1:].reshape(-1, 13, players)
    plays_after = after[:, 1:].reshape(-1, 13, players)
    np.testing.assert_allclose(plays_after, np.roll(plays_before, 1, axis=1), atol=1e-5)
    np.testing.assert_allclose(after[:, 0], before[:, 0], atol=1e-5)
    assert np.ptp(plays_before, axis=1).min() > 0  # the ranks' scores differ


def gathered_logits(tensors: dict[str, np.ndarray], obs: np.ndarray) -> np.ndarray:
    """The network the slow way: every play's gathered features through the shared MLP."""
    h = gather(obs).astype(np.float64)
    for k in range(len(HIDDEN)):
        h = np.maximum(h @ tensors[f"act.{k}.weight"].T + tensors[f"act.{k}.bias"], 0.0)
    plays = h @ tensors["score.weight"][0] + tensors["score.bias"][0]
    pooled = np.concatenate([h.mean(axis=1), h.max(axis=1)], axis=1)
    wait = pooled @ tensors["wait.weight"][0] + tensors["wait.bias"][0]
    return np.concatenate([wait[:, None], plays], axis=1)


@pytest.mark.parametrize("players", [3, 4])
def test_numpy_and_torch_give_the_gathered_networks_logits_at_n_seats(players):
    """The numpy player and the torch actor (both with the folded first layer) give the logits
    of the gathered features through the shared MLP, on played and on random observations."""
    torch = pytest.importorskip("torch")
    from train.policy.rankwise_policy import RankwiseExtractor

    dim = party_obs_dim(make_rules("us", players=players))
    tensors = random_tensors(dim, seed=players)
    actor = torch_actor(dim, HIDDEN, tensors)
    policy = RankwisePolicy(tensors, "relu", obs_dim=dim)
    rng = np.random.default_rng(0)
    for obs in (played_observations(players), rng.random((32, dim), dtype=np.float32)):
        want = gathered_logits(tensors, obs)
        with torch.no_grad():
            got = actor(torch.as_tensor(obs)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(policy.logits(obs), got, rtol=1e-5, atol=1e-5)
    extractor = RankwiseExtractor(dim, HIDDEN, [8], torch.nn.ReLU)
    assert extractor.latent_dim_pi == 1 + 13 * players


def test_a_four_seat_rankwise_file_plays_at_four_seats_only(tmp_path):
    """Saved for four seats it records its gather's width, plays the logits it was saved
    with, and is refused at three seats and at two."""
    rules = make_rules("us", players=4)
    dim = party_obs_dim(rules)
    tensors = random_tensors(dim, seed=9)
    path = kit_model.save_model(
        tmp_path / "rw4", tensors, rules=rules, hidden=HIDDEN, activation="relu", kind="rankwise"
    )
    manifest = json.loads(path.read_text())
    assert manifest["net"]["features"] == dim + 4 and manifest["observation"]["n_actions"] == 53
    loaded = agents.make(f"ppo:{path}", rules, seed=0)
    assert isinstance(loaded, RankwisePolicy)
    obs = played_observations(4)
    np.testing.assert_array_equal(
        loaded.logits(obs), RankwisePolicy(tensors, "relu", obs_dim=dim).logits(obs)
    )
    for players in (2, 3):
        with pytest.raises(ModelFormatError, match=f"tables of 4 players, not {players}"):
            agents.make(f"ppo:{path}", make_rules("us", players=players), seed=0)


def test_a_rankwise_file_whose_actions_do_not_fit_its_seats_is_refused(tmp_path):
    """A four-seat manifest that claims the two-seat action count is refused by name."""
    rules = make_rules("us", players=4)
    path = kit_model.save_model(
        tmp_path / "rw4",
        random_tensors(party_obs_dim(rules)),
        rules=rules,
        hidden=HIDDEN,
        activation="relu",
        kind="rankwise",
    )
    manifest = json.loads(path.read_text())
    manifest["observation"]["n_actions"] = 27
    path.write_text(json.dumps(manifest))
    with pytest.raises(ModelFormatError, match=r"rankwise network of 4 seats has 53 actions"):
        kit_model.read_model(path)


# Computed on the tree before the gather took three and four seats (main 08efa70).
TWO_SEAT_TABLE_SHA256 = "5e0df6a8b000afd140deae1702ff32a3234c4e1571c8aae33fed0ea2051cabeb"
SELFPLAY_ACTIONS_SHA256 = {
    "us": "04186f6c970edc615d0855c0c748cb650964a22c1d1965d6247d4757f2ec679b",
    "japanese": "c1155fec9318dcafa252dc1c4670877023c66878ad6939d0eb455b2ba1cd9be5",
}


def test_the_two_seat_gather_is_byte_for_byte_the_one_models_were_trained_on():
    table = action_features(193)
    assert table.shape == (26, 194)
    assert hashlib.sha256(table.tobytes()).hexdigest() == TWO_SEAT_TABLE_SHA256


@pytest.mark.parametrize("rules", ["us", "japanese"])
def test_the_shipped_rankwise_model_plays_the_actions_it_always_played(rules):
    """The bundled ``selfplay`` model (rankwise, two seats) plays both seats of 64 seeded games
    for 60 steps exactly as before the gather took n seats (a digest of every action)."""
    env = speed_env.BatchEnv(64, rules)
    obs, mask = env.reset(seed=3)
    bot = agents.make("selfplay", rules)
    assert isinstance(bot, RankwisePolicy)
    digest = hashlib.sha256()
    for _ in range(60):
        actions = np.stack([bot.act(obs[p], mask[p]) for p in range(2)])
        digest.update(actions.astype(np.int64).tobytes())
        obs, mask, *_ = env.step(actions)
    assert digest.hexdigest() == SELFPLAY_ACTIONS_SHA256[rules]
