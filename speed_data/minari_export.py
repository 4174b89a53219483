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

A dataset is whole or absent: :class:`DatasetSink` checks the destination before the first
record exists (:mod:`speed_data.minari_target`), streams records to a child process that
writes them into a staging folder (:mod:`speed_data.minari_writer`), and moves the dataset
into place only once it is complete; on any failure, Ctrl-C included, nothing is left.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from speed_data import records
from speed_data.minari_env import env_spec, spec_key
from speed_data.minari_target import Staging, claim
from speed_data.minari_writer import BATCH, DatasetWriter

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


# What a Minari episode takes on disk, measured on Speed-v1 (us and pagat rules, chain, greedy
# and random, 50 ms ticks): about 300 decisions and 280 kB a game, 86% of its record's JSON.
GAME_BYTES_AT_50MS = 280_000
RECORD_TO_DATASET = 0.9


def estimate_generate_bytes(games: int, tick_ms: int) -> int:
    """About how many bytes ``games`` generated games take as a dataset (decisions per tick)."""
    return int(games * GAME_BYTES_AT_50MS * 50 / max(tick_ms, 1))


def estimate_export_bytes(files: Iterable[str | os.PathLike[str]]) -> int:
    """About how many bytes the records in ``files`` take as a dataset."""
    return int(sum(os.stat(f).st_size for f in files) * RECORD_TO_DATASET)


@dataclass(frozen=True)
class Written:
    """A dataset written: its id, folder, episodes and steps."""

    dataset_id: str
    path: Path
    total_episodes: int
    total_steps: int


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


class DatasetSink:
    """The Minari dataset ``dataset_id``, written whole or not at all (module docstring).

    Entering checks the destination and claims its staging folder, before any record exists
    (``estimated_bytes``: the space it needs; ``say``: where a cleared leftover is reported);
    :meth:`add` streams one record; :meth:`commit` finishes and moves the dataset into place.
    Leaving the block without a commit (an error, Ctrl-C) removes everything written.
    """

    def __init__(
        self,
        dataset_id: str,
        *,
        estimated_bytes: int = 0,
        author: str | None = None,
        say: Callable[[str], None] | None = None,
    ) -> None:
        self.dataset_id = dataset_id
        self.estimated_bytes = estimated_bytes
        self.author = author
        self.say = say
        self.staging: Staging | None = None
        self.writer: DatasetWriter | None = None
        self.key: str | None = None
        self.count = 0

    def __enter__(self) -> DatasetSink:
        kwargs = {} if self.say is None else {"say": self.say}
        self.staging = claim(self.dataset_id, self.estimated_bytes, **kwargs)
        try:
            self.writer = DatasetWriter(self.dataset_id, self.staging.work, self.author)
        except BaseException:
            self.staging.release()
            raise
        return self

    def add(self, record: dict[str, Any]) -> None:
        """Stream ``record`` as the next episode; one of another env is refused by number."""
        assert self.writer is not None, "use DatasetSink in a with block"
        key = spec_key(record)
        if self.key is None:
            self.key = key
        elif key != self.key:
            raise ValueError(
                f"record {self.count} was played with other rules, tick, profiles or opponent "
                "than record 0; a Minari dataset has one env: export them separately"
            )
        self.writer.add(record)
        self.count += 1

    def commit(self) -> Written:
        """Finish the dataset and move it into place; what was written."""
        assert self.writer is not None and self.staging is not None
        if self.count == 0:
            raise ValueError(
                f"no records to write as {self.dataset_id!r}: the folder has none of that seat kind"
            )
        episodes, steps = self.writer.finish()
        path = self.staging.commit()
        return Written(self.dataset_id, path, episodes, steps)

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self.writer is not None:
            self.writer.abort()
        if self.staging is not None:
            self.staging.release()


def write_dataset(
    dataset_id: str, recs: Iterable[dict[str, Any]], *, author: str | None = None
) -> Written:
    """Write ``recs`` as the Minari dataset ``dataset_id``, streamed; what was written.

    The dataset goes in ``MINARI_DATASETS_PATH``, whole or not at all (:class:`DatasetSink`).
    Refuses no records and records of different envs, naming the first that differs, and an
    id that is taken (nothing is overwritten).
    """
    with DatasetSink(dataset_id, author=author) as sink:
        for rec in recs:
            sink.add(rec)
        return sink.commit()


__all__ = [
    "DESCRIPTION",
    "DatasetSink",
    "EpisodeWriter",
    "Written",
    "episode_buffer",
    "estimate_export_bytes",
    "estimate_generate_bytes",
    "write_dataset",
]
