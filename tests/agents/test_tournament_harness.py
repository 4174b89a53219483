"""The chunked harness both tournaments share: the plan, and results merged in plan order."""

from __future__ import annotations

from agents.tournament import harness
from agents.tournament.harness import Chunk


def test_the_plan_cuts_each_line_up_into_chunks_of_deals_in_order():
    chunks = harness.plan(lineups=2, deals=5, chunk_deals=2)
    assert [(c.index, c.lineup, c.start, c.count) for c in chunks] == [
        (0, 0, 0, 2),
        (1, 0, 2, 2),
        (2, 0, 4, 1),
        (3, 1, 0, 2),
        (4, 1, 2, 2),
        (5, 1, 4, 1),
    ]
    assert chunks[4].lineup == 1 and not hasattr(chunks[4], "pair")  # one name, no alias


def _echo(settings: str, chunk: Chunk, record: int) -> tuple[str, int, int]:
    return settings, chunk.index, record


def test_every_chunk_is_played_once_in_plan_order_and_only_the_first_records():
    chunks = harness.plan(lineups=3, deals=4, chunk_deals=3)
    seen: list[tuple[int, int]] = []
    results, complete = harness.run(
        _echo, "s", chunks, record=7, progress=lambda done, total: seen.append((done, total))
    )
    assert complete and results == [("s", c.index, 7 if c.index == 0 else 0) for c in chunks]
    assert seen == [(k, len(chunks)) for k in range(1, len(chunks) + 1)]
