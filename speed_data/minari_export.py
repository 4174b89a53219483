"""Play records as a Minari dataset: one ego-centric episode per game, ``Speed-v1``'s spaces.

Each record becomes one episode: ``observations`` the recorded seat's
observation vectors (``n + 1``: the reset's, then one per step), ``actions``,
``rewards``, ``terminations``/``truncations`` as ``Speed-v1`` gives them, and
``infos`` with ``action_mask`` (int8, ``n + 1`` rows like the observations),
``opponent_action`` and ``reaction_ms`` (the person's measured reaction time of
the action that led to this step, NaN for waits, bots and the reset row).
Episode ``i`` keeps its record's ``seed`` and deal as the episode's ``seed``
and ``options`` metadata, so ``env.reset(seed=ep.seed, options=...)`` replays it.

The dataset's env spec is ``speed_env/Speed-v1`` built by
:mod:`speed_data.minari_env` with the records' rules, tick, profiles and
opponent spec (``dataset.recover_environment()``); records that disagree on
those cannot share one env, and are refused by name. Minari itself is the
``[data]`` extra: nothing here imports it until a dataset is written.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from speed_data import records
from speed_data.minari_env import env_spec, spec_key

DESCRIPTION = (
    "Real-time Speed (the Speed RL kit), one seat's view per episode: observations are "
    "Speed-v1's ego-centric vectors, infos hold action_mask (int8), opponent_action and "
    "reaction_ms (a person's measured reaction time, NaN where none). Each episode replays "
    "in Speed-v1 from its seed and deal."
)


def episode_buffer(record: dict[str, Any], index: int) -> Any:
    """A record as Minari's ``EpisodeBuffer`` (episode ``index``)."""
    from minari.data_collector import EpisodeBuffer

    data = records.arrays(record)
    n = record["n_decisions"]
    terminations = [False] * n
    truncations = [False] * n
    terminations[-1], truncations[-1] = record["terminated"], record["truncated"]
    # n + 1 rows like the observations: the reset's row has no reaction and no opponent action.
    reaction = np.concatenate([[np.nan], data["reaction_ms"]])
    opponent = np.concatenate([[0], data["opponent_actions"]])
    return EpisodeBuffer(
        id=index,
        seed=record["seed"],
        options={"deal": json.dumps(record["deal"])},
        observations=data["observations"],
        actions=data["actions"],
        rewards=data["rewards"].tolist(),
        terminations=terminations,
        truncations=truncations,
        infos={
            "action_mask": data["masks"],
            "opponent_action": opponent.astype(np.int64),
            "reaction_ms": reaction.astype(np.float64),
        },
    )


def write_dataset(
    dataset_id: str, recs: Iterable[dict[str, Any]], *, author: str | None = None
) -> Any:
    """Write ``recs`` as the Minari dataset ``dataset_id``; the ``MinariDataset``.

    The dataset goes in ``MINARI_DATASETS_PATH``. Refuses an empty list and records of
    different envs, naming the first that differs; an existing id is Minari's error, and
    nothing is overwritten.
    """
    import minari

    recs = list(recs)
    if not recs:
        raise ValueError(
            f"no records to write as {dataset_id!r}: the folder has none of that seat kind"
        )
    key = spec_key(recs[0])
    for i, rec in enumerate(recs):
        if spec_key(rec) != key:
            raise ValueError(
                f"record {i} was played with other rules, tick, profiles or opponent than record "
                "0; a Minari dataset has one env: export them separately"
            )
    with warnings.catch_warnings():
        # Minari asks for a code link, an author's e-mail and an evaluation env; a local dataset
        # of someone's games has no link or e-mail to give, and its env is the evaluation env.
        warnings.filterwarnings(
            "ignore", r"`(code_permalink|author|author_email|eval_env)`", UserWarning
        )
        return _create(minari, dataset_id, recs, author)


def _create(minari: Any, dataset_id: str, recs: list[dict[str, Any]], author: str | None) -> Any:
    spec = env_spec(recs[0])
    kinds = sorted({r["seat_kind"] for r in recs})
    agents_played = sorted({r["agent"] for r in recs})
    return minari.create_dataset_from_buffers(
        dataset_id=dataset_id,
        buffer=[episode_buffer(r, i) for i, r in enumerate(recs)],
        env=spec,
        algorithm_name=f"{'/'.join(kinds)} play: {', '.join(agents_played)}",
        author=author,
        description=DESCRIPTION + f" Opponent: {recs[0]['opponent']['spec']}.",
        requirements=[f"speed-rl=={recs[0]['kit_version']}"],
    )


__all__ = ["DESCRIPTION", "episode_buffer", "write_dataset"]
