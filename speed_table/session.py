"""One browser table: a real-time game of Speed that a person plays or watches.

The person plays or watches through messages. This is the game logic of the web table
without any networking, so it can be tested on a fake clock: :mod:`speed_table.app` calls
:meth:`GameSession.tick` every ``tick_ms`` of wall time, divided by the watch speed, and hands
each message from the page to :meth:`GameSession.handle`. Every method takes ``now``, a
monotonic time in seconds, and returns the messages to send back.

Each tick steps the same ``parallel_env`` that bots train in: the bot's action
is chosen from the observation the page was last sent, and your play is the
one that arrived since the last tick. Your card lands after a fixed 1 ms
(:data:`HUMAN_LATENCY_MS`): your physical reaction already happened in real
time before the message arrived, so the env must not add a second one. The
bot's cards land after a latency drawn from its reaction profile, so you face
exactly what a bot faces. Your reaction times: :mod:`speed_table.clock`.

Games are recorded as JSON Lines replays, one frame per tick (the format of
``speed tournament --save-replays``, played back by ``speed replay``), one file per page visit,
a game appended when it ends or is abandoned if it holds a play (yours; either bot's when
watching). The folder is bounded (:mod:`speed_table.replays`: oldest files pruned, a visit's
file split, a game larger than the bound alone not saved, and the result says so). With
``--record``, :mod:`speed_data.recorder` also writes each game as a dataset record. A bot's
thinking is charged before its card flies: :mod:`speed_table.thinking`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import speed_env
from agents.evaluate.agent_files import source_files
from agents.think.plan import ThinkPlan
from speed_data.recorder import TableRecorder
from speed_env import latency_fit
from speed_env.cards import JOKER_RANK, parse_card, rank_of
from speed_env.reaction import ReactionProfile, fixed, make_profile
from speed_env.rules import Rules, make_rules
from speed_table import protocol
from speed_table.clock import LegalSince
from speed_table.party_view import check_seats
from speed_table.protocol import ILLEGAL, NO_PROFILE, OUT_OF_TURN, WRONG_MODE, ProtocolError
from speed_table.replays import ReplayFile, ReplayLimits, ReplayTooLarge, frame_line
from speed_table.table_bots import built_bots
from speed_table.thinking import BotThinking, check_recordable

HUMAN_LATENCY_MS = 1
"""The env latency of a person's play: their reaction happened before the message arrived."""

MAX_CATCH_UP_TICKS = 5
"""A loop this many ticks late (a stalled machine) restarts its schedule, not races to catch up."""

MODES = ("play", "watch")

MAX_COUNTDOWN_MS = 60_000
"""Longest get-ready time before a game."""


@dataclass(frozen=True)
class TableConfig:
    """What a page visit plays: mode, seats, rules, clock, seed, replays."""

    mode: str = "play"
    """``play``: you (player_0) against ``agents[1]``; ``watch``: ``agents[0]`` vs ``agents[1]``.

    At a table of three or four (``rules.players``): you against ``agents[1:]``, or watched."""
    agents: tuple[str, ...] = ("you", "chain")
    """Seat specs (``agents.make`` strings), one a seat; seat 0 is ignored in ``play`` mode."""
    rules: Rules = field(default_factory=lambda: make_rules("us"))
    """The rules; ``rules.players`` is the number of seats (``agents``)."""
    tick_ms: int = 50
    reaction: ReactionProfile = field(default_factory=lambda: make_profile("human"))
    """Profile of a bot whose spec carries no ``@reaction``."""
    seed: int | None = None
    """Game ``i`` of a visit is seeded ``seed + i`` (a random base when ``None``)."""
    deal: dict[str, Any] | None = None
    """An explicit deal (``reset(options={"deal": ...})``) for every game, not a seeded one."""
    countdown_ms: int = 2000
    """Time between dealing and the first tick, to get ready."""
    replays_dir: Path | None = None
    """Folder for JSON Lines replays; ``None`` saves none."""
    replay_limits: ReplayLimits = field(default_factory=ReplayLimits)
    """How many replay files (and bytes) the folder keeps; the oldest go first."""
    record_dir: Path | None = None
    """Folder for play records (``speed play --record``, opt-in; :mod:`speed_data.records`);
    ``None`` records nothing."""
    record_name: str | None = None
    """A name the person chose to put in their records; ``None`` keeps them anonymous."""
    think: ThinkPlan | None = None
    """How the bots' thinking is charged (:mod:`agents.think.plan`); ``None`` is ``off``: only
    what a bot declares itself (``@think=MS``, ``think_ms``). ``speed play`` and ``speed watch``
    give ``measured`` unless told otherwise (docs/table.md)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {self.mode!r}")
        if not isinstance(self.tick_ms, int) or not 1 <= self.tick_ms <= 1000:
            raise ValueError(f"tick_ms must be a whole number from 1 to 1000, got {self.tick_ms!r}")
        if not isinstance(self.countdown_ms, int) or not 0 <= self.countdown_ms <= MAX_COUNTDOWN_MS:
            raise ValueError(
                f"countdown_ms must be a whole number from 0 to {MAX_COUNTDOWN_MS}, "
                f"got {self.countdown_ms!r}"
            )
        check_seats(self.agents, self.rules.players, self.record_dir)
        if self.record_dir is not None and self.mode != "play":
            raise ValueError("records are of a person's play: --record is for speed play")
        check_recordable(self.think, self.record_dir)
        if self.mode == "play" and (self.rules.stack_layout or self.rules.multi_play):
            raise ValueError(
                "the web table offers ordinary plays only; stack_layout and multi_play can be "
                "watched (speed watch) but not played"
            )

    @property
    def human_seat(self) -> int | None:
        """Your seat (0) in ``play`` mode, ``None`` when watching."""
        return 0 if self.mode == "play" else None


def _rank_index(token: str) -> int:
    card = parse_card(token)
    return JOKER_RANK if card >= 52 else rank_of(card)


def _seat_name(spec: str, profile: ReactionProfile) -> str:
    base = spec.partition("@")[0]
    return f"{base}@{profile.label()}"


class GameSession:
    """One page visit: games (rematches) at one table, driven by ``handle`` and ``tick``."""

    def __init__(self, cfg: TableConfig, bots: dict[int, Any] | None = None) -> None:
        self.cfg = cfg
        if bots is None:
            self.bots, self.bot_files = built_bots(cfg)
        else:
            # Built elsewhere (a test, the warm-up): the spec's own file is what is known.
            self.bots = bots
            self.bot_files = {seat: source_files(cfg.agents[seat]) for seat in bots}
        self.base_seed = (
            cfg.seed if cfg.seed is not None else int(np.random.SeedSequence().generate_state(1)[0])
        )
        self.state = "idle"  # idle → countdown → running → over → countdown …
        self.game = -1
        self.env: Any = None
        self.obs: dict[str, Any] = {}
        self.players = cfg.rules.players  # seats, and centre piles (one a seat)
        self.profiles: list[ReactionProfile] = [fixed(HUMAN_LATENCY_MS)] * self.players
        self.seats: list[str] = []
        self.frames: list[str] = []
        """This game's replay frames so far, as JSON lines (none kept when replays are off or
        once they passed the bound)."""
        self.n_frames = 0
        self.frame_bytes = 0
        self.too_big = False
        self.pending: int | None = None
        self.start_at = math.inf
        self.next_tick_at = math.inf
        self.speed = 1.0
        self.paused = False
        self.n_plays = self.players * cfg.rules.n_ranks
        self.legal = LegalSince(self.n_plays)
        self.latencies: list[float] = []  # the whole visit, for the profile
        self.game_latencies: list[float] = []
        self.replay = ReplayFile(cfg.replays_dir, cfg.mode, cfg.replay_limits)
        self.hand_size = cfg.rules.hand_size
        self.thinking = BotThinking(cfg.think, self.bots, cfg.agents)
        for seat, bot in self.bots.items():
            self.profiles[seat] = self.thinking.profile(seat, bot.reaction)
        self.recorder = TableRecorder(cfg.record_dir, cfg.record_name)  # inert without a folder

    # ------------------------------------------------------------------ messages
    def welcome(self) -> dict[str, Any]:
        """The first message of a visit: what this table is."""
        seats = self._seat_names(self.profiles)
        return {
            "type": "welcome",
            "mode": self.cfg.mode,
            "seat": self.cfg.human_seat,
            "seats": seats,
            "rules": self.cfg.rules.preset,
            "tick_ms": self.cfg.tick_ms,
            "hand_size": self.hand_size,
            "reaction": [p.label() for p in self.profiles],
            "countdown_ms": self.cfg.countdown_ms,
            "min_plays_for_profile": latency_fit.MIN_PLAYS,
            "speed": self.speed,
            "paused": self.paused,
            "recording": self.recorder.active,
            "think": self.thinking.mode,
        }

    def handle(self, msg: protocol.ClientMessage, now: float) -> list[dict[str, Any]]:
        """Apply a checked message; the replies. Raises :class:`ProtocolError`, changing nothing."""
        if isinstance(msg, protocol.Ping):
            return [{"type": "pong", "t": msg.t}]
        if isinstance(msg, protocol.Start):
            return self._start(msg.mirror, now)
        if isinstance(msg, protocol.Play):
            return [self._play(msg.slot, msg.pile, now)]
        if self.cfg.mode != "watch":
            raise ProtocolError(
                WRONG_MODE, "speed and pause are for watching bots (speed watch), not playing"
            )
        if isinstance(msg, protocol.Speed):
            if self.state == "running" and not self.paused:
                # Keep the time already waited for the next tick in proportion.
                left = max(0.0, self.next_tick_at - now) * self.speed / msg.factor
                self.next_tick_at = now + left
            self.speed = msg.factor
        elif isinstance(msg, protocol.Pause):
            if msg.paused and not self.paused:
                self.paused = True
                self.next_tick_at = math.inf
            elif not msg.paused and self.paused:
                self.paused = False
                if self.state == "running":
                    self.next_tick_at = now + self._interval()
        return [self._state_message()] if self.env is not None else []

    def _seat_names(self, profiles: list[ReactionProfile]) -> list[str]:
        names = []
        for seat in range(self.players):
            if seat == self.cfg.human_seat:
                names.append("you")
            else:
                names.append(_seat_name(self.cfg.agents[seat], profiles[seat]))
        return names

    def _start(self, mirror: bool, now: float) -> list[dict[str, Any]]:
        if self.state in ("countdown", "running"):
            raise ProtocolError(
                OUT_OF_TURN, "a game is already under way; start a new one when it ends", "start"
            )
        profiles = list(self.profiles)
        if mirror:
            if self.cfg.mode != "play":
                raise ProtocolError(
                    WRONG_MODE, "a mirror game needs your reaction times: play, not watch", "start"
                )
            you = latency_fit.mirror_profile(self.latencies, self.cfg.tick_ms)
            if you is None:
                n = latency_fit.count_timed(self.latencies)
                raise ProtocolError(
                    NO_PROFILE,
                    f"need at least {latency_fit.MIN_PLAYS} timed plays to fit your profile, "
                    f"have {n}",
                    "start",
                )
            for seat in self.bots:  # every bot at the table plays at your speed
                profiles[seat] = you
        elif self.cfg.mode == "play":
            for seat, bot in self.bots.items():
                profiles[seat] = bot.reaction
        if self.cfg.mode == "play":  # each bot's thinking on its profile (a mirror's: yours)
            for seat in self.bots:
                profiles[seat] = self.thinking.profile(seat, profiles[seat])
        self.profiles = profiles
        self.game += 1
        self.seats = self._seat_names(profiles)
        self.env = speed_env.parallel_env(
            self.cfg.rules, tick_ms=self.cfg.tick_ms, reaction=tuple(profiles)
        )
        options = {"deal": self.cfg.deal} if self.cfg.deal is not None else None
        seed = self.base_seed + self.game
        # Recording deals Speed-v1's game `seed` (the record replays there); else the game `seed`.
        self.obs, _ = self.env.reset(seed=self.recorder.seed(seed), options=options)
        self.recorder.begin(
            self.game, self.obs, self.cfg, profiles, seed, self.bot_files.get(1, {})
        )
        self.frames, self.n_frames, self.frame_bytes, self.too_big = [], 0, 0, False
        self.thinking.new_game(self.game)
        self._record()
        self.pending = None
        self.game_latencies = []
        self.legal.clear()
        self.state = "countdown"
        self.start_at = now + self.cfg.countdown_ms / 1000.0
        self.next_tick_at = self.start_at
        countdown = {
            "type": "countdown",
            "game": self.game,
            "ms": self.cfg.countdown_ms,
            "seats": self.seats,
            "reaction": [p.label() for p in profiles],
        }
        return [countdown, self._state_message()]

    def _play(self, slot: int, pile: int, now: float) -> dict[str, Any]:
        seat = self.cfg.human_seat
        if seat is None:
            raise ProtocolError(WRONG_MODE, "you are watching: bots play every seat", "play")
        if self.state == "countdown":
            left = max(0.0, self.start_at - now)
            raise ProtocolError(OUT_OF_TURN, f"the game starts in {left:.1f} s", "play")
        if self.state != "running":
            what = (
                "is over: start a new one"
                if self.state == "over"
                else "has not started: send start"
            )
            raise ProtocolError(OUT_OF_TURN, f"the game {what}", "play")
        if slot >= self.hand_size:
            raise ProtocolError(
                ILLEGAL, f"slot {slot} is outside a hand of {self.hand_size}", "play"
            )
        if self.pending is not None:
            raise ProtocolError(
                OUT_OF_TURN, "you already played this tick: wait for that card to land", "play"
            )
        snap = self.env.snapshot()
        me = snap["players"][seat]
        if me["in_flight"] is not None:
            raise ProtocolError(OUT_OF_TURN, "your last card is still in flight", "play")
        if snap["phase"] == "stuck" and not self._mask()[1:].any():
            flip = snap.get("flip_ms")
            when = "" if flip is None else f" in {max(0, flip - snap['clock_ms']) / 1000:.1f} s"
            piles = "both piles flip" if self.players == 2 else "every pile flips"
            raise ProtocolError(OUT_OF_TURN, f"nobody can play: {piles}{when}", "play")
        card = me["hand"][slot] if slot < len(me["hand"]) else None
        if card is None:
            raise ProtocolError(ILLEGAL, f"slot {slot + 1} is empty", "play")
        # 0 is wait; then a pile per seat per rank (your seat, 0, counts the piles as they are)
        action = 1 + self.players * _rank_index(card) + pile
        if not self._mask()[action]:
            top = snap["centre"][pile]["top"]
            raise ProtocolError(ILLEGAL, f"{card} does not go on pile {pile} (top {top})", "play")
        self.pending = action
        ms = self.legal.latency_ms(action, now)
        if ms is not None:
            self.latencies.append(ms)
            self.game_latencies.append(ms)
        self.recorder.play(ms)
        return {
            "type": "played",
            "slot": slot,
            "pile": pile,
            "card": card,
            "latency_ms": None if ms is None else round(ms, 1),
        }

    # ------------------------------------------------------------------ the clock
    def _interval(self) -> float:
        return self.cfg.tick_ms / 1000.0 / self.speed

    def due(self, now: float) -> bool:
        """True when :meth:`tick` has work to do at ``now``."""
        return now >= self.next_tick_at

    def tick(self, now: float) -> list[dict[str, Any]]:
        """Step the game if a tick is due at ``now``; returns the messages for the page.

        A bot that fails raises :class:`agents.runtime.failures.AgentFailure` naming it; the game is
        over then, and :func:`speed_table.app.play_connection` tells the page why."""
        if not self.due(now):
            return []
        if self.state == "countdown":
            # Go: the first step comes one tick later, with the bot deciding on
            # the table you have been shown; legality is timed from now.
            self.state = "running"
            self._update_legal(now)
            self.next_tick_at = now + self._interval()
            return [self._state_message()]
        if self.state != "running":
            self.next_tick_at = math.inf
            return []
        actions: dict[str, int] = {}
        self.thinking.new_tick()
        for seat, agent in enumerate(self.env.possible_agents):
            if seat in self.bots:
                lat = self.env.games.lat[0, seat]  # measured: moved by each decision's time
                actions[agent] = self.thinking.act(seat, self.obs[agent], lat, self.profiles[seat])
            else:
                actions[agent] = self.pending or 0  # no play since the last tick: wait
        self.pending = None
        self.obs, rewards, terms, truncs, _infos = self.env.step(actions)
        self._record()
        self.recorder.step(actions, self.obs, rewards, terms, truncs)
        out = [self._state_message()]
        if any(terms.values()) or any(truncs.values()):
            out.append(self._finish())
            return out
        self._update_legal(now)
        late = now - self.next_tick_at
        self.next_tick_at += self._interval()  # from the schedule, not from now: no drift
        if late > MAX_CATCH_UP_TICKS * self._interval():
            self.next_tick_at = now + self._interval()
        return out

    def _mask(self) -> np.ndarray:
        seat = self.cfg.human_seat
        return self.obs[f"player_{seat}"]["action_mask"]

    def _update_legal(self, now: float) -> None:
        if self.cfg.human_seat is not None:
            self.legal.update(self._mask(), now)

    # ------------------------------------------------------------------ output
    def _frame(self) -> dict[str, Any]:
        """A replay frame; the deal's names the thinking plan, a tick's the charge of its plays."""
        frame = {"game": self.game, "seats": list(self.seats), "snapshot": self.env.snapshot()}
        return frame | self.thinking.frame(first=self.n_frames == 1)

    def _record(self) -> None:
        """Keep this tick's frame for the replay, unless the game already passed the bound.

        Then its frames are dropped: it will not be saved, and memory stays bounded."""
        self.n_frames += 1
        if self.replay.path is None or self.too_big:
            return
        line = frame_line(self._frame())
        self.frame_bytes += len(line.encode("utf-8"))
        if not self.cfg.replay_limits.fits(self.frame_bytes):
            self.too_big, self.frames = True, []
            return
        self.frames.append(line)

    def _state_message(self) -> dict[str, Any]:
        snap = self.env.snapshot()
        if self.cfg.human_seat is not None and snap["phase"] != "over":  # the end shows all
            snap = protocol.hide_hand(snap, self.cfg.human_seat)
        return {
            "type": "state",
            "game": self.game,
            "status": self.state,
            "snapshot": snap,
            "speed": self.speed,
            "paused": self.paused,
        }

    def _has_a_play(self) -> bool:
        """Whether this game is worth a replay: you played a card (watching: either bot did).

        A page that only connects, starts and leaves (or lets the bot win alone)
        writes nothing, so dropped connections cannot fill the disk.
        """
        players = self.env.snapshot()["players"]
        seats = range(self.players) if self.cfg.human_seat is None else [self.cfg.human_seat]
        return any(players[seat]["played"] > 0 for seat in seats)

    def _save(self) -> tuple[str | None, str | None]:
        if not self._has_a_play():
            return None, None
        try:
            if self.too_big:
                raise ReplayTooLarge(self.frame_bytes, self.cfg.replay_limits)
            return self.replay.append(self.frames), None
        except ReplayTooLarge as exc:
            return None, str(exc)
        except OSError as exc:
            return None, f"replay not saved: {exc}"

    def _finish(self) -> dict[str, Any]:
        self.state = "over"
        self.next_tick_at = math.inf
        snap = self.env.snapshot()
        path, problem = self._save()
        self.frames = []
        winner = snap["winner"]
        record, record_error = self.recorder.finish(winner)  # on disk before the next game
        you = None
        if self.cfg.human_seat is not None:
            me = f"player_{self.cfg.human_seat}"
            you = {None: "none", "draw": "draw", me: "win"}.get(winner, "loss")
        mirror = latency_fit.mirror_profile(self.latencies, self.cfg.tick_ms)
        return {
            "type": "result",
            "game": self.game,
            "winner": winner,
            "you": you,
            "seats": self.seats,
            "snapshot": snap,
            "latencies_ms": [round(x, 1) for x in self.game_latencies],
            "game_profile": latency_fit.summarize(self.game_latencies),
            "profile": latency_fit.summarize(self.latencies),
            "mirror": None if mirror is None else mirror.label(),
            "think": self.thinking.summary(),
            "replay": path,
            "replay_error": problem,
            "record": record,
            "record_error": record_error,
        }

    def close(self) -> str | None:
        """The page went away: keep an unfinished game's frames (if it had a play); its path."""
        self.recorder.abandon()  # a record is a whole game
        if self.state in ("countdown", "running") and self.n_frames > 1:  # more than the deal
            path, _ = self._save()
            self.frames = []
            self.state = "over"
            return path
        return None


__all__ = ["HUMAN_LATENCY_MS", "GameSession", "TableConfig"]
