"""Building play records step by step.

- :class:`GameRecorder`: one game.
- :class:`TableRecorder`: the games of one page visit at the browser table.

The table calls a :class:`TableRecorder` from three places (a game starts, a
tick is stepped, a game ends) and one more when a play arrives (its measured
reaction time); everything about the format stays here and in
:mod:`speed_data.records`. A game is written, atomically, when it ends, before
the next can start; a game the page leaves mid-way is not written (a record is
always a whole game).
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium.utils import seeding

from speed_data import records
from speed_env.registration import GYMNASIUM_ENVS, made_with


def speed_v1_game_seed(seed: int) -> int:
    """The engine's game seed that ``Speed-v1.reset(seed=seed)`` deals with ``seat=0``.

    ``SpeedGymEnv.reset`` seeds its generator (Gymnasium's ``np_random``) and
    draws the game's seed from it first; a table game dealt with this seed is
    the ``Speed-v1`` game of ``seed``, so its record replays there.
    """
    return int(seeding.np_random(seed)[0].integers(2**63))


ENV_ID = next(k for k in GYMNASIUM_ENVS if k.endswith("Speed-v1"))
"""The single-seat env a record replays in."""


class GameRecorder:
    """One game's record, built decision by decision (``player_0`` is the recorded seat)."""

    def __init__(
        self,
        *,
        source: str,
        seat_kind: str,
        agent: str,
        rules: Any,
        tick_ms: int,
        reaction: tuple[Any, Any],
        opponent: str,
        seed: int,
        deal: dict[str, Any],
        name: str | None = None,
        agent_files: dict[str, str] | None = None,
        opponent_files: dict[str, str] | None = None,
    ) -> None:
        """The record's head; ``*_files``: ``{path: SHA-256}`` a seat's agent was built from."""
        self.head: dict[str, Any] = {
            "format": records.FORMAT,
            "version": records.VERSION,
            "kit_version": made_with("realtime")["kit_version"],
            "env_id": ENV_ID,
            "source": source,
            "seat_kind": seat_kind,
            "agent": agent,
            "agent_files": dict(agent_files or {}),
            "name": name,
            "rules": rules.to_dict(),
            "tick_ms": int(tick_ms),
            "reaction": [records.profile_dict(p) for p in reaction],
            "opponent": {
                "spec": opponent,
                "reaction": records.profile_dict(reaction[1]),
                "files": dict(opponent_files or {}),
            },
            "seed": int(seed),
            "deal": deal,
        }
        self.obs: list[np.ndarray] = []
        self.masks: list[np.ndarray] = []
        self.actions: list[int] = []
        self.opponent_actions: list[int] = []
        self.rewards: list[float] = []
        self.reaction_ms: list[float | None] = []

    def observe(self, obs: np.ndarray, mask: np.ndarray) -> None:
        """The recorded seat's observation and mask at the start (then after each step)."""
        self.obs.append(np.array(obs, np.float32))
        self.masks.append(np.array(mask, np.int8))

    def step(
        self,
        action: int,
        opponent_action: int,
        reward: float,
        obs: np.ndarray,
        mask: np.ndarray,
        reaction_ms: float | None = None,
    ) -> None:
        """One decision: both seats' actions, the recorded seat's reward and what it sees next."""
        self.actions.append(int(action))
        self.opponent_actions.append(int(opponent_action))
        self.rewards.append(float(reward))
        self.reaction_ms.append(None if reaction_ms is None else round(float(reaction_ms), 3))
        self.observe(obs, mask)

    @property
    def n_decisions(self) -> int:
        """Decisions recorded so far."""
        return len(self.actions)

    def finish(self, terminated: bool, truncated: bool, winner: str | None) -> dict[str, Any]:
        """The whole record (checked)."""
        obs, masks = np.stack(self.obs), np.stack(self.masks)
        record = {
            **self.head,
            "n_decisions": self.n_decisions,
            "obs_dim": int(obs.shape[1]),
            "n_actions": int(masks.shape[1]),
            "observations": records.encode_array(obs),
            "masks": records.encode_array(masks),
            "actions": self.actions,
            "opponent_actions": self.opponent_actions,
            "rewards": self.rewards,
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "reaction_ms": self.reaction_ms,
            "winner": winner,
        }
        return records.check_record(record)


def record_stem(source: str, tag: str, game: int) -> str:
    """A record's file name without suffix: source, UTC time, the visit's tag, game number."""
    return f"{source}-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}-{tag}-g{game:04d}"


class TableRecorder:
    """The records of one page visit at ``speed play --record DIR`` (the person is seat 0).

    Without a folder it is inert: it deals the table's own seeds and records nothing, so the
    session calls it the same way whether or not the person opted in."""

    def __init__(self, folder: Path | None, name: str | None = None) -> None:
        self.folder = None if folder is None else Path(folder)
        self.name = name
        self.tag = uuid.uuid4().hex[:6]
        self.game: GameRecorder | None = None
        self.number = 0
        self.pending_ms: float | None = None
        self.flags = (False, False)

    @property
    def active(self) -> bool:
        """Whether games are recorded."""
        return self.folder is not None

    def seed(self, table_seed: int) -> int:
        """The engine seed to deal the table's game ``table_seed`` with.

        When recording, that of ``Speed-v1``'s game ``table_seed``, from
        :func:`speed_v1_game_seed`; else ``table_seed`` itself.
        """
        return speed_v1_game_seed(table_seed) if self.active else table_seed

    def begin(
        self,
        number: int,
        obs: dict[str, Any],
        cfg: Any,
        profiles: list[Any],
        table_seed: int,
        opponent_files: dict[str, str] | None = None,
    ) -> None:
        """Game ``number`` starts.

        Its env was just reset with :meth:`seed` of ``table_seed`` and showed ``obs``; ``cfg``
        is the table's config, ``profiles`` both seats' latencies, ``opponent_files`` the
        files the opponent was built from (``{path: SHA-256}``).
        """
        from speed_env.deal import deal_from_seed

        if not self.active:
            return
        opponent = cfg.agents[1]
        deal = (
            cfg.deal
            if cfg.deal is not None
            else deal_from_seed(cfg.rules, self.seed(table_seed)).to_dict()
        )
        self.number = number
        self.pending_ms = None
        self.game = GameRecorder(
            source="table",
            seat_kind="human",
            agent="you",
            rules=cfg.rules,
            tick_ms=cfg.tick_ms,
            reaction=(profiles[0], profiles[1]),
            opponent=opponent,
            seed=table_seed,
            deal=deal,
            name=self.name,
            opponent_files=opponent_files,
        )
        self.game.observe(obs["player_0"]["observation"], obs["player_0"]["action_mask"])

    def play(self, reaction_ms: float | None) -> None:
        """The person's play arrived ``reaction_ms`` after it became legal (stepped next tick)."""
        self.pending_ms = reaction_ms

    def step(
        self,
        actions: dict[str, int],
        obs: dict[str, Any],
        rewards: dict[str, Any],
        terms: dict[str, bool],
        truncs: dict[str, bool],
    ) -> None:
        """A tick was stepped with ``actions``; the rest is what ``env.step`` returned."""
        if self.game is None:
            return
        self.flags = (bool(terms["player_0"]), bool(truncs["player_0"]))
        # A wait has no reaction time: a measured one belongs to the tick that steps the play.
        ms = self.pending_ms if actions["player_0"] != 0 else None
        self.pending_ms = None
        me = obs["player_0"]
        self.game.step(
            actions["player_0"],
            actions["player_1"],
            float(rewards["player_0"]),
            me["observation"],
            me["action_mask"],
            ms,
        )

    def finish(self, winner: str | None) -> tuple[str | None, str | None]:
        """The game ended: write its record, fsync'd and renamed into place.

        Returns:

        - ``(path, None)`` when it was written;
        - ``(None, problem)`` when the disk refused it;
        - ``(None, None)`` when not recording.
        """
        game, self.game = self.game, None
        if game is None or game.n_decisions == 0 or self.folder is None:
            return None, None
        record = game.finish(*self.flags, winner)
        try:
            path = records.write_record(
                self.folder, record, record_stem("table", self.tag, self.number)
            )
        except OSError as exc:
            return None, f"record not saved: {exc}"
        return str(path), None

    def abandon(self) -> None:
        """The page left mid-game: drop it (a record is a whole game)."""
        self.game = None


__all__ = ["ENV_ID", "GameRecorder", "TableRecorder", "record_stem", "speed_v1_game_seed"]
