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
:mod:`speed_data.minari_env` with the records' rules, tick and profiles; the
opponent's spec rides along as provenance only: ``dataset.recover_environment()``
replays the recorded opponent's actions, or plays a kit bot the user names, and
never builds an agent the data names. Records that disagree on those cannot
share one env, and are refused by name. Minari itself is the
``[data]`` extra: nothing here imports it until a dataset is written.

:class:`EpisodeWriter` writes records into a dataset as they come, in batches; it runs in
the writer process of :mod:`speed_data.minari_writer`, and
:func:`speed_data.minari_sink.write_dataset` is the whole-or-absent write that uses it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from speed_data import records
from speed_data.minari_env import env_spec

BATCH = 16
"""Episodes :class:`EpisodeWriter` holds before it writes them (about 0.6 MB each)."""

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


class EpisodeWriter:
    """Records into the Minari dataset ``dataset_id`` (in ``MINARI_DATASETS_PATH``), in batches.

    Runs in the writer process (:mod:`speed_data.minari_writer`): the first batch creates the
    dataset with the first record's env, later ones append; :meth:`close` writes the last
    batch and the metadata that needs every record (who played), and gives (episodes, steps).
    """

    def __init__(self, dataset_id: str, *, author: str | None) -> None:
        self.dataset_id = dataset_id
        self.author = author
        self.pending: list[Any] = []
        self.dataset: Any = None
        self.count = 0
        self.first: dict[str, Any] | None = None
        self.kinds: set[str] = set()
        self.agents: set[str] = set()

    def add(self, record: dict[str, Any]) -> None:
        """Queue ``record`` as the next episode; write the queue when it is a batch."""
        self.first = self.first or record
        self.kinds.add(record["seat_kind"])
        self.agents.add(record["agent"])
        self.pending.append(episode_buffer(record, self.count))
        self.count += 1
        if len(self.pending) >= BATCH:
            self._flush()

    def _algorithm(self) -> str:
        return f"{'/'.join(sorted(self.kinds))} play: {', '.join(sorted(self.agents))}"

    def _flush(self) -> None:
        import minari

        if not self.pending:
            return
        if self.dataset is None:
            assert self.first is not None
            self.dataset = minari.create_dataset_from_buffers(
                dataset_id=self.dataset_id,
                buffer=self.pending,
                env=env_spec(self.first),
                algorithm_name=self._algorithm(),
                author=self.author,
                description=DESCRIPTION + f" Opponent: {self.first['opponent']['spec']}.",
                requirements=[f"speed-rl=={self.first['kit_version']}"],
            )
        else:
            self.dataset.update_dataset_from_buffer(self.pending)
        self.pending = []

    def close(self) -> tuple[int, int]:
        """Write what is queued and the final metadata; (episodes, steps)."""
        self._flush()
        if self.dataset is None:
            raise ValueError(f"no records to write as {self.dataset_id!r}")
        self.dataset.storage.update_metadata({"algorithm_name": self._algorithm()})
        return self.dataset.total_episodes, self.dataset.total_steps


__all__ = ["BATCH", "DESCRIPTION", "EpisodeWriter", "episode_buffer"]
