"""Tournaments of both games on one chunked harness, with the chunk log and the reports.

- :mod:`~agents.tournament.game`: the :class:`Game` protocol a game plugs in by, and the
  :class:`TournamentRequest` every game reads.
- :mod:`~agents.tournament.harness`: plan the chunks, play them on any backend, merge in order.
- :mod:`~agents.tournament.realtime`: real-time round robins and gauntlets on ``BatchEnv``,
  paired deals, match points.
- :mod:`~agents.tournament.vintage`: N-player vintage tournaments: line-ups, seat rotation,
  shared deals.
- :mod:`~agents.tournament.party`: real-time tournaments at tables of three or four (Party
  Speed): :mod:`agents.tournament.vintage_stats`'s line-ups, seat rotation and shared deals,
  win shares.
- :mod:`~agents.tournament.party_report`: their leaderboard, ``agents.csv`` and
  ``win_shares.png``.
- :mod:`~agents.tournament.summary`: what both games' ``results.json`` share: head-to-head
  rows, rated agents.
- :mod:`~agents.tournament.vintage_stats`: a vintage tournament's statistics, pure functions
  over its per-game table.
- :mod:`~agents.tournament.run_folder`: a chunked run's life in its output folder (lock,
  chunk log, resume, Ctrl-C), :func:`~agents.tournament.run_folder.play_chunks`, which a report
  card's pairings go through too; a tournament's (status, result files):
  :func:`~agents.tournament.run_folder.play`.
- :mod:`~agents.tournament.chunk_log`: each finished chunk written as it finishes, for
  ``--resume``.
- :mod:`~agents.tournament.chunk_checks`: what a logged chunk must hold before a resume trusts it.
- :mod:`~agents.tournament.report`: the terminal leaderboard and the files in ``--out``.

The package re-exports the real-time tournament's public names (``agents.tournament.run``).
"""

from __future__ import annotations

from agents.tournament.realtime import (
    CHUNK_DEALS,
    ChunkResult,
    MatchScore,
    Settings,
    describe_chunk,
    describe_pairing,
    pair_counts,
    pairing_matches,
    plan,
    replay_lines,
    run,
    run_chunk,
    seated,
    split_matches,
    summarise,
)
from agents.tournament.summary import Match

__all__ = [
    "CHUNK_DEALS",
    "ChunkResult",
    "Match",
    "MatchScore",
    "Settings",
    "describe_chunk",
    "describe_pairing",
    "pair_counts",
    "pairing_matches",
    "plan",
    "replay_lines",
    "run",
    "run_chunk",
    "seated",
    "split_matches",
    "summarise",
]
