"""A Minari dataset written whole or not at all, from records streamed to it.

:class:`DatasetSink` checks the destination before the first record exists
(:mod:`speed_data.minari_target`), streams records to a child process that writes them into
a staging folder (:mod:`speed_data.minari_writer`), and moves the dataset into place only
once it is complete; on any failure, Ctrl-C included, nothing is left.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from speed_data.minari_env import spec_key
from speed_data.minari_target import Staging, claim
from speed_data.minari_writer import DatasetWriter

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
        try:
            if self.writer is not None:
                self.writer.abort()
        finally:  # a second Ctrl-C while the writer stops still removes the staging folder
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
    "DatasetSink",
    "Written",
    "estimate_export_bytes",
    "estimate_generate_bytes",
    "write_dataset",
]
