"""A play record checked against the game it claims to be, not only for shape.

:func:`speed_data.records.check_record` checks a record's keys, types and lengths;
:func:`check_game` checks that what they hold can be true of a ``Speed-v1`` game
(:func:`read_record` and :func:`read_records` run both; every reader of the kit reads
through them):

- who played: a ``"human"`` record comes from the table (``source`` ``"table"``,
  ``agent`` ``"you"``) and the table records only people; ``"bot"`` and ``"simulated"``
  records come from ``speed data generate``;
- ``rules``: a preset name and inline options, never a path (nothing is read but the
  record);
- ``reaction``: a person's own seat is the table's fixed 1 ms; ``opponent.reaction`` is
  the other seat's profile;
- ``seed``, ``deal``: a ``Speed-v1`` seed; a deal of the rules' deck, and for generated
  games the deal of ``seed``;
- ``obs_dim``, ``n_actions``: the sizes ``Speed-v1`` has under the rules;
- ``observations``: inside ``Speed-v1``'s observation space (its Box bounds);
- ``actions``: each legal under the record's own mask of that step;
- ``rewards``, ``terminated``, ``truncated``, ``winner``: ``Speed-v1`` pays 0 until the
  end, then +1/-1 to the winner and loser (0 for a draw or a truncated game); a record is
  a whole game, so exactly one of the flags is set and the winner agrees with both;
- ``reaction_ms``: times only on plays (a wait has none), none for a bot, and a person's
  record times its plays.

:func:`verify` goes further and replays the whole record in ``Speed-v1``
(:func:`speed_data.replay.compare`). Every failure is a
:class:`~speed_data.records.RecordError` naming where (the file) and the first wrong key,
in the order of the format's table.

Nothing here builds an agent: the opponent's spec is provenance, and its recorded actions
are what a replay plays.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from speed_data import records
from speed_data.records import RecordError, rules_from
from speed_env.rules import Rules

PERSON_PROFILE = {"mu": 1.0, "sigma": 0.0, "tau": 0.0, "floor": 1.0}
"""A person's seat at the table: a fixed 1 ms (their reaction happened before the play)."""
WINNER_REWARD = {"player_0": 1.0, "player_1": -1.0, "draw": 0.0}
"""The recorded seat's last reward for each winner of a terminated game."""


@lru_cache(maxsize=16)
def _space(rules_json: str) -> tuple[np.ndarray, np.ndarray, int]:
    """``Speed-v1``'s observation bounds and action count under the rules (cached)."""
    from speed_env.single import SpeedGymEnv

    env = SpeedGymEnv(Rules(**json.loads(rules_json)))
    space = env.observation_space
    low = np.asarray(space.low, np.float32)  # type: ignore[attr-defined]
    high = np.asarray(space.high, np.float32)  # type: ignore[attr-defined]
    return low, high, int(env.action_space.n)  # type: ignore[attr-defined]


def space_of(rules: Rules) -> tuple[np.ndarray, np.ndarray, int]:
    """``(low, high, n_actions)`` of ``Speed-v1`` under ``rules``."""
    return _space(json.dumps(rules.to_dict(), sort_keys=True))


def check_steps(
    obs: np.ndarray,
    masks: np.ndarray,
    actions: np.ndarray,
    rewards: np.ndarray,
    rules: Rules,
    where: str,
) -> None:
    """One game's arrays against ``Speed-v1`` under ``rules``.

    Observations inside the space, every action legal under its step's mask, rewards
    finite and ``Speed-v1``'s own (0 before the last step, then -1, 0 or +1). Shared by
    records and Minari episodes; raises :class:`~speed_data.records.RecordError`.
    """
    low, high, n_actions = space_of(rules)
    if obs.ndim != 2 or obs.shape[1] != len(low):
        raise RecordError(
            f"{where}: key 'obs_dim' is {obs.shape[-1]}, but Speed-v1 under the "
            f"{rules.preset!r} rules observes {len(low)} numbers"
        )
    if masks.ndim != 2 or masks.shape[1] != n_actions:
        raise RecordError(
            f"{where}: key 'n_actions' is {masks.shape[-1]}, but Speed-v1 under the "
            f"{rules.preset!r} rules has {n_actions} actions"
        )
    if not np.isfinite(obs).all():
        raise RecordError(f"{where}: key 'observations' holds a non-finite number")
    outside = np.argwhere((obs < low) | (obs > high))
    if len(outside):
        t, i = (int(v) for v in outside[0])
        raise RecordError(
            f"{where}: key 'observations' step {t} entry {i} is {float(obs[t, i])!r}, outside "
            f"Speed-v1's observation space [{float(low[i])}, {float(high[i])}]"
        )
    if not ((masks == 0) | (masks == 1)).all():
        raise RecordError(f"{where}: key 'masks' must hold only 0 and 1")
    if len(actions) and (actions.min() < 0 or actions.max() >= n_actions):
        raise RecordError(f"{where}: key 'actions' holds an action outside 0..{n_actions - 1}")
    illegal = np.flatnonzero(masks[np.arange(len(actions)), actions] == 0)
    if len(illegal):
        t = int(illegal[0])
        raise RecordError(
            f"{where}: key 'actions' step {t} plays {int(actions[t])}, which that step's mask "
            "forbids"
        )
    bad = np.flatnonzero(~np.isfinite(rewards) | (np.abs(rewards) > 1))
    if len(bad):
        t = int(bad[0])
        raise RecordError(
            f"{where}: key 'rewards' step {t} is {float(rewards[t])!r}; Speed-v1 pays -1, 0 or +1"
        )
    early = np.flatnonzero(rewards[:-1] != 0)
    if len(early):
        t = int(early[0])
        raise RecordError(
            f"{where}: key 'rewards' step {t} is {float(rewards[t])!r} before the game's end; "
            "Speed-v1 pays only on the last step"
        )
    if len(rewards) and rewards[-1] not in (-1.0, 0.0, 1.0):
        raise RecordError(
            f"{where}: key 'rewards' ends with {float(rewards[-1])!r}; Speed-v1 pays -1, 0 or +1"
        )


def _check_who(record: dict[str, Any], where: str) -> None:
    kind, source = record["seat_kind"], record["source"]
    if kind == "human" and source != "table":
        raise RecordError(
            f"{where}: key 'seat_kind' is 'human' but key 'source' is {source!r}: a person's "
            "games come from the table (source 'table')"
        )
    if source == "table" and kind != "human":
        raise RecordError(
            f"{where}: key 'seat_kind' is {kind!r} but key 'source' is 'table', which records "
            "only a person (seat_kind 'human')"
        )
    if kind == "human" and record["agent"] != "you":
        raise RecordError(
            f"{where}: key 'agent' of a person's record is 'you' (the table writes no other)"
        )


def _check_profiles(record: dict[str, Any], where: str) -> None:
    if record["seat_kind"] == "human":
        mine = {k: float(record["reaction"][0][k]) for k in PERSON_PROFILE}
        if mine != PERSON_PROFILE:
            raise RecordError(
                f"{where}: key 'reaction' of a person's seat is the table's fixed 1 ms "
                "(their reaction happened before the play reached the table)"
            )
    if record["opponent"]["reaction"] != record["reaction"][1]:
        raise RecordError(
            f"{where}: key 'opponent.reaction' differs from reaction[1], the opponent's seat"
        )


def _check_deal(record: dict[str, Any], rules: Rules, where: str) -> None:
    from speed_data.recorder import speed_v1_game_seed
    from speed_env.deal import DealError, deal_from_seed, parse_deal
    from speed_env.game import check_seed

    try:
        check_seed(record["seed"])
    except (TypeError, ValueError) as exc:
        raise RecordError(f"{where}: key 'seed': {exc}") from None
    try:
        deal = parse_deal(rules, record["deal"])
    except (DealError, TypeError, KeyError, AttributeError) as exc:
        raise RecordError(f"{where}: key 'deal' is not a deal of these rules: {exc}") from None
    # A generated game is always dealt from its seed; the table deals from it unless it was
    # given an explicit deal (a test's scenario), which the record cannot tell apart.
    if record["source"] == "generate":
        seed = record["seed"]
        want = deal_from_seed(rules, speed_v1_game_seed(seed))
        if deal.to_dict() != want.to_dict():
            raise RecordError(
                f"{where}: key 'deal' is not the deal of seed {seed}, which a generated game is "
                "dealt from"
            )


def _check_end(record: dict[str, Any], rewards: np.ndarray, where: str) -> None:
    term, trunc, winner = record["terminated"], record["truncated"], record["winner"]
    if term == trunc:
        state = "both" if term else "neither"
        raise RecordError(
            f"{where}: key 'terminated' and 'truncated' are {state} set; a record is a whole "
            "game, which Speed-v1 ends one way"
        )
    last = float(rewards[-1])
    if trunc:
        if winner is not None:
            raise RecordError(
                f"{where}: key 'winner' is {winner!r}, but a truncated game has no winner"
            )
        if last != 0.0:
            raise RecordError(
                f"{where}: key 'rewards' ends with {last!r}, but a truncated game pays 0"
            )
        return
    if winner is None or WINNER_REWARD[winner] != last:
        raise RecordError(
            f"{where}: key 'winner' is {winner!r}, which contradicts the last reward {last!r} "
            "(player_0 +1, player_1 -1, draw 0)"
        )


def _check_times(record: dict[str, Any], actions: np.ndarray, where: str) -> None:
    times = record["reaction_ms"]
    timed = np.array([v is not None for v in times], bool)
    if record["seat_kind"] == "bot" and timed.any():
        raise RecordError(
            f"{where}: key 'reaction_ms' holds a time in a bot's record; only a person's "
            "plays are timed"
        )
    waits = np.flatnonzero(timed & (actions == 0))
    if len(waits):
        raise RecordError(
            f"{where}: key 'reaction_ms' step {int(waits[0])} times a wait; only plays are timed"
        )
    if record["seat_kind"] == "human" and (actions != 0).any() and not timed.any():
        raise RecordError(
            f"{where}: key 'reaction_ms' times none of a person's plays (the table times them)"
        )


def check_game(record: dict[str, Any], where: str = "record") -> dict[str, Any]:
    """A schema-checked record checked against the ``Speed-v1`` game it claims; returns it.

    Raises :class:`~speed_data.records.RecordError` naming ``where`` and the first wrong key.
    """
    _check_who(record, where)
    rules = rules_from(record["rules"], where)
    _check_profiles(record, where)
    _check_deal(record, rules, where)
    data = records.arrays(record)
    check_steps(data["observations"], data["masks"], data["actions"], data["rewards"], rules, where)
    _check_end(record, data["rewards"], where)
    _check_times(record, data["actions"], where)
    return record


def verify(record: dict[str, Any], where: str = "record") -> None:
    """Replay the whole record in ``Speed-v1``; a :class:`RecordError` at its first difference."""
    from speed_data.replay import compare

    try:
        problems = compare(record)
    except (ValueError, IndexError) as exc:  # a deal or action the env itself refuses
        raise RecordError(f"{where}: does not replay in Speed-v1: {exc}") from None
    if problems:
        raise RecordError(f"{where}: does not replay in Speed-v1: {problems[0]}")


def read_record(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The record in file ``path``, checked for shape and against its game."""
    record = records.read_record(path)
    return check_game(record, f"record {str(path)!r}")


def read_records(
    folder: str | os.PathLike[str], seat_kind: str | None = None
) -> Iterator[dict[str, Any]]:
    """Every record in ``folder``, checked (the first bad one raises), of ``seat_kind`` if given."""
    for path in records.record_files(folder):
        record = read_record(path)
        if seat_kind is None or record["seat_kind"] == seat_kind:
            yield record


@dataclass(frozen=True)
class Folder:
    """The record files of a folder that passed, and each bad file's first problem.

    Paths, not records: a folder of many games is checked in bounded memory, and the
    good files are read again one at a time where they are used (``speed data export``
    streams them into the dataset).
    """

    good: list[Path]
    bad: list[tuple[Path, str]]

    def summary(self) -> str:
        """The bad files in one line: how many, then each file's problem."""
        shown = "; ".join(problem for _, problem in self.bad[:3])
        more = f"; and {len(self.bad) - 3} more" if len(self.bad) > 3 else ""
        return f"{len(self.bad)} bad record{'s' * (len(self.bad) != 1)}: {shown}{more}"


def read_folder(
    folder: str | os.PathLike[str],
    seat_kind: str | None = None,
    *,
    verify_replay: bool = False,
    seat_kinds: Iterable[str] | None = None,
) -> Folder:
    """Every record file of ``folder`` read and checked, the bad ones kept apart (paths).

    ``seat_kind`` (or several, ``seat_kinds``) keeps only those records; every file is
    checked all the same, and with ``verify_replay`` the kept ones are replayed too.
    """
    kinds = None if seat_kind is None and seat_kinds is None else {seat_kind, *(seat_kinds or ())}
    good: list[Path] = []
    bad: list[tuple[Path, str]] = []
    for path in records.record_files(folder):
        try:
            record = read_record(path)
            if kinds is not None and record["seat_kind"] not in kinds:
                continue
            if verify_replay:
                verify(record, f"record {str(path)!r}")
        except RecordError as exc:
            bad.append((path, str(exc)))
            continue
        good.append(path)
    return Folder(good, bad)


__all__ = [
    "PERSON_PROFILE",
    "WINNER_REWARD",
    "Folder",
    "check_game",
    "check_steps",
    "read_folder",
    "read_record",
    "read_records",
    "space_of",
    "verify",
]
