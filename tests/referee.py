"""A plain-Python reference referee for real-time Speed: the oracle of the differential tests.

It plays ``docs/rules.md`` one game at a time with lists and small methods
named after the rules, and shares no code with the batched engine: it imports
only the deal, the rules value, the cards and the counter-based random draws
(``rng``/``reaction``), so any disagreement with ``speed_env.engine`` is a
disagreement about the rules, not about shared code.

Inside, every pile is a Python list **bottom first** (``pile[-1]`` is the top,
``pile.pop()`` takes it); :meth:`Referee.table` turns them round (top first)
as ``docs/rules.md`` "The full table" asks. A hand/layout slot is a list too
(bottom first) so that ``stack_layout`` stacks are plain lists.

Seats and piles are lists of ``rules.players`` entries: two players as ever,
three or four for Party Speed (docs/rules.md: two decks, a centre pile and a
side pile per player, the wider tie-break and rewards).

A player's flight is a tuple ``(kind, cards, slots, pile, lands_ms)``. The
flying cards stay on top of their slot lists until they land (a bounce then
has nothing to move back); while they fly their slots show ``None`` and the
cards below them, if any, are listed as ``stacked``.
"""

from __future__ import annotations

from typing import Any

from speed_env import rng
from speed_env.cards import JOKER_RANK, card_str
from speed_env.deal import Deal, deal_from_seed
from speed_env.reaction import ReactionProfile, latency_ms
from speed_env.rules import Rules

PLAY = "play"
STUCK = "stuck"
OVER = "over"

_NEVER = 1 << 62  # a time later than any event

SEEN_KEYS = (
    "tie",
    "bounce",
    "joker_placed",
    "joker_blocked",
    "wild_covered",  # a card put on a wild joker (us/pagat) by a player who did not play it
    "joker_flipped",  # a side pile's flip put a joker on a centre pile (us/pagat)
    "stack",
    "multi",
    "flip_choice",
    "default_layout_flip",
    "rebuild",
    "lock",
    "cycle_lock",
    "empty_lock",
    "multi_flip_tick",
    "tie3",  # three or more seats' cards landing at one millisecond (three or four players)
    "draw",
    "truncated",
    "idle",  # a countdown started by the idle rule while a player held a legal play
    "idle_after_flight",  # ... at a landing after the idle period had run out
)


# A player's card(s) in flight: (kind, cards, slots, pile or target slot, lands_ms).
Flight = tuple[str, list[int], list[int], int, int]


def _rank(card: int) -> int:
    card %= 54  # a second deck's card (three or four players) is id 54 on
    return JOKER_RANK if card >= 52 else card % 13


class Referee:
    """One game of real-time Speed played exactly as ``docs/rules.md`` says.

    ``step(a0, a1, …)`` takes every seat's action for one tick and returns
    ``((reward0, reward1, …), terminated, truncated)``. ``legal_mask(seat)`` is the
    action mask (a list of 0/1; the referee keeps it, do not modify it).
    """

    def __init__(
        self,
        rules: Rules,
        reactions: tuple[ReactionProfile, ...],
        tick_ms: int,
        seed: int,
        deal: Deal | None = None,
    ) -> None:
        if tick_ms <= 0:
            raise ValueError(f"tick_ms must be > 0, got {tick_ms}")
        self.rules = rules
        self.tick_ms = int(tick_ms)
        self.seed = int(seed)
        self._seed64 = rng.seed_to_u64(seed)
        self.n = rules.players  # seats, and centre piles
        self.seats = range(self.n)
        self._lat_params = tuple(reactions[p].params() for p in self.seats)
        self.japanese = rules.is_japanese
        self.R = rules.n_ranks
        self.hs = rules.hand_size
        self.stack_base = 1 + self.n * self.R
        self.multi_base = self.stack_base + (self.R if rules.stack_layout else 0)
        self.n_actions = self.multi_base + (self.n * self.R if rules.multi_play else 0)
        # ok[tr][r]: may a card of rank r go on a (non-joker) top of rank tr?
        self._ok = [
            [
                r == JOKER_RANK
                or abs(r - tr) == 1
                or (rules.wrap and abs(r - tr) == 12)
                or (rules.same_rank and r == tr)
                for r in range(JOKER_RANK + 1)
            ]
            for tr in range(JOKER_RANK)
        ]
        self._reset(deal if deal is not None else deal_from_seed(rules, seed))

    # ------------------------------------------------------------------ setup
    def _reset(self, deal: Deal) -> None:
        self.clock = 0
        self.phase = PLAY
        self.flip_ms: int | None = None
        self.placed_ms = 0  # when a card was last put on a centre pile: the idle clock
        self.winner: int | str | None = None
        self.truncated = False
        self.done = False
        n = self.n
        self.slots = [[[c] if c >= 0 else [] for c in deal.hands[p]] for p in self.seats]
        self.draw = [list(reversed(deal.draw_piles[p])) for p in self.seats]
        self.side = [list(reversed(deal.side_piles[k])) for k in self.seats]
        self.top_owner: list[int | None] = [None] * n
        self.flight: list[Flight | None] = [None] * n
        self.played = [0] * n
        self.bounced = [0] * n
        self.illegal = [0] * n
        self.commits = [0] * n
        self.flips = 0
        self.reshuffles = 0
        self.ties = 0
        self.rebuilds = [0] * n
        self.idle_rebuilds = [0] * n  # rebuilds of each side pile since the last placed card
        self.events = 0  # events resolved so far (not part of the table)
        self.changes = 0  # bumped whenever the table changes other than its clock
        self.flips_this_step = 0
        # How often each rare rule fired (not part of the table): lets tests check coverage.
        self.seen: dict[str, int] = dict.fromkeys(SEEN_KEYS, 0)
        self._masks: list[list[int] | None] = [None] * n
        if deal.centre is not None:
            self.centre = [list(reversed(deal.centre[k])) for k in self.seats]
        else:
            # japanese opening flip, at clock 0: each stock top onto the player's own pile.
            self.centre = [[] for _ in self.seats]
            for p in self.seats:
                self.centre[p].append(self.draw[p].pop())
                self.top_owner[p] = p
        self.stuck_test(0)

    # ------------------------------------------------------------- legality
    def legal(self, p: int, r: int, k: int) -> bool:
        """May player ``p`` put a card of rank ``r`` on centre pile ``k`` now?"""
        top = _rank(self.centre[k][-1])
        if top == JOKER_RANK:
            if not self.japanese:
                return True  # a wild joker: any card goes on it
            return self.top_owner[k] == p  # japanese: only its owner covers it
        return self._ok[top][r]

    def pile_of(self, p: int, j: int) -> int:
        """The centre pile ``p``'s actions call ``j``: two players, the pile itself; more,
        counted from ``p``'s own pile in seat order."""
        return j if self.n == 2 else (p + j) % self.n

    def shown(self, p: int) -> list[int | None]:
        """The card showing in each of ``p``'s slots (``None``: empty or in flight)."""
        f = self.flight[p]
        away = f[2] if f is not None else ()
        return [s[-1] if s and j not in away else None for j, s in enumerate(self.slots[p])]

    def _shown_ranks(self, p: int) -> list[int]:
        """Rank of each shown card by slot, -1 for none."""
        f = self.flight[p]
        away = f[2] if f is not None else ()
        out = []
        for j, s in enumerate(self.slots[p]):
            if s and j not in away:
                out.append(_rank(s[-1]))
            else:
                out.append(-1)
        return out

    def has_legal_play(self, p: int) -> bool:
        """Does ``p`` hold an ordinary play (a shown card legal on a pile)?"""
        for r in set(self._shown_ranks(p)):
            if r >= 0 and any(self.legal(p, r, k) for k in self.seats):
                return True
        return False

    def flip_choice_allowed(self, p: int) -> bool:
        """A stockless ``play_out`` player may pick the layout card of the coming flip."""
        return self.phase == STUCK and self.rules.play_out and not self.draw[p]

    def legal_mask(self, p: int) -> list[int]:
        """0/1 per action for seat ``p`` (cached until the table changes; do not modify)."""
        m = self._masks[p]
        if m is None:
            m = self._masks[p] = self._compute_mask(p)
        return m

    def _compute_mask(self, p: int) -> list[int]:
        m = [0] * self.n_actions
        m[0] = 1
        if self.done or self.flight[p] is not None:
            return m
        ranks = self._shown_ranks(p)
        present = {r for r in ranks if r >= 0}
        n = self.n
        if self.phase == STUCK:
            if self.flip_choice_allowed(p):
                for r in present:
                    for j in self.seats:
                        m[1 + n * r + j] = 1
            return m
        for r in present:
            for j in self.seats:
                if self.legal(p, r, self.pile_of(p, j)):
                    m[1 + n * r + j] = 1
        if self.rules.stack_layout or self.rules.multi_play:
            for r in present:
                if r == JOKER_RANK or ranks.count(r) < 2:
                    continue
                if self.rules.stack_layout and self.draw[p]:
                    m[self.stack_base + r] = 1
                if self.rules.multi_play:
                    for j in self.seats:
                        if self.legal(p, r, self.pile_of(p, j)):
                            m[self.multi_base + n * r + j] = 1
        return m

    # ----------------------------------------------------------------- step
    def step(self, *actions: int) -> tuple[tuple[float, ...], bool, bool]:
        """Play one tick: every seat's commit (seat order), then every event due by
        ``clock + tick_ms``."""
        if self.done:
            raise RuntimeError("step() on a finished game")
        if len(actions) != self.n:
            raise ValueError(f"step() takes one action per seat ({self.n}), got {len(actions)}")
        t = self.clock
        masks = [self.legal_mask(p) for p in self.seats]
        for p, a in enumerate(actions):
            a = int(a)
            if not 0 <= a < self.n_actions:
                raise ValueError(
                    f"action {a} of seat {p} is outside the action space [0, {self.n_actions})"
                )
            if a == 0:
                continue
            if not masks[p][a]:
                self.illegal[p] += 1
                self.changes += 1
                continue
            self.commit(p, a, t)
        self.run_events(t + self.tick_ms)
        self.clock = t + self.tick_ms
        if not self.done and self.clock >= self.rules.max_game_ms:
            # docs/rules.md only says "truncated"; the table then reads as a finished game.
            self.truncated = True
            self.end(None)
            return (0.0,) * self.n, False, True
        if self.done:
            return self.rewards(), True, False
        return (0.0,) * self.n, False, False

    def rewards(self) -> tuple[float, ...]:
        """+1 to the winner, −1/(n−1) to each other seat (−1 with two); 0 for a draw or an
        unfinished game."""
        if self.winner is None or self.winner == "draw":
            return (0.0,) * self.n
        loss = -1.0 / (self.n - 1)
        return tuple(1.0 if p == self.winner else loss for p in self.seats)

    def commit(self, p: int, a: int, t: int) -> None:
        """Put player ``p``'s (already checked legal) action ``a`` in flight at clock ``t``."""
        self._masks = [None] * self.n
        self.changes += 1
        ranks = self._shown_ranks(p)
        if a < self.stack_base:
            r, j = divmod(a - 1, self.n)
            k = self.pile_of(p, j)
            slot = ranks.index(r)
            card = self.slots[p][slot][-1]
            if self.phase == STUCK:  # a play-out flip choice: placed at the flip, no latency draw
                assert self.flip_ms is not None
                self.flight[p] = ("flip_choice", [card], [slot], k, self.flip_ms)
            else:
                self.flight[p] = (PLAY, [card], [slot], k, t + self._latency(p))
        elif a < self.multi_base:
            r = a - self.stack_base
            src = ranks.index(r)
            dst = ranks.index(r, src + 1)
            card = self.slots[p][src][-1]
            self.flight[p] = ("stack", [card], [src], dst, t + self._latency(p))
            self.seen["stack"] += 1
        else:
            r, j = divmod(a - self.multi_base, self.n)
            k = self.pile_of(p, j)
            slots = [j for j, x in enumerate(ranks) if x == r]
            cards = [self.slots[p][j][-1] for j in slots]
            self.flight[p] = ("multi", cards, slots, k, t + self._latency(p))
            self.seen["multi"] += 1

    def _latency(self, p: int) -> int:
        n = self.commits[p]
        self.commits[p] = n + 1
        return int(latency_ms(self._lat_params[p], self._seed64, p, n))

    # --------------------------------------------------------------- events
    def _next_landing(self, p: int) -> int:
        f = self.flight[p]
        if f is None or f[0] == "flip_choice":
            return _NEVER
        return f[4]

    def run_events(self, end: int) -> None:
        """Resolve every landing and flip due at or before ``end``, in time order."""
        self.flips_this_step = 0
        while not self.done:
            landings = [self._next_landing(p) for p in self.seats]
            lf = self.flip_ms if self.phase == STUCK and self.flip_ms is not None else _NEVER
            li = self._idle_runs_out()
            e = min(*landings, lf, li)
            if e > end:
                return
            due = [p for p in self.seats if landings[p] == e]
            if due:
                # Tied landings land in a uniform random order: while more than one is left,
                # the next is the floor(u * left)-th of them in seat order, each checked and
                # followed by the stuck test before the next (none after a win).
                while len(due) > 1:
                    u = rng.uniform(self._seed64, rng.TIE, self.ties)
                    self.ties += 1
                    self.seen["tie"] += 1
                    if len(due) > 2:
                        self.seen["tie3"] += 1
                    self.land(due.pop(int(u * len(due))), e)
                    self.stuck_test(e)
                    if self.done:
                        return
                self.land(due[0], e)
                self.stuck_test(e)
            elif lf == e:
                if self.flips_this_step:
                    self.seen["multi_flip_tick"] += 1
                self.flips_this_step += 1
                self.flip(e)
                self.stuck_test(e)
            else:  # nothing placed for idle_flip_ms: the stuck test starts the countdown
                self.events += 1
                self._masks = [None] * self.n
                self.changes += 1
                self.stuck_test(e)

    def _idle_runs_out(self) -> int:
        """When the idle period ends, while it can start a countdown (no card flying); or never."""
        idle = self.rules.idle_flip_ms
        flying = any(self._next_landing(p) != _NEVER for p in self.seats)
        if not idle or self.phase != PLAY or flying:
            return _NEVER
        return self.placed_ms + idle

    def land(self, p: int, e: int) -> None:
        """Player ``p``'s flight lands at time ``e``: placed, stacked or bounced."""
        self.events += 1
        self._masks = [None] * self.n
        self.changes += 1
        flight = self.flight[p]
        assert flight is not None
        kind, cards, slots, pile, _ = flight
        self.flight[p] = None
        hand = self.slots[p]
        if kind == "stack":
            card = hand[slots[0]].pop()
            hand[pile].append(card)
            self.refill(p, slots[0])
        elif self.legal(p, _rank(cards[0]), pile):
            if _rank(self.centre[pile][-1]) == JOKER_RANK and self.top_owner[pile] != p:
                self.seen["wild_covered"] += 1
            for j in slots:
                hand[j].pop()
            self.centre[pile].extend(cards)
            self.top_owner[pile] = p
            if _rank(cards[-1]) == JOKER_RANK:
                self.seen["joker_placed"] += 1
            self.played[p] += len(cards)
            self.idle_rebuilds = [0] * self.n
            self.placed_ms = e
            for j in slots:
                self.refill(p, j)
        else:
            self.bounced[p] += len(cards)  # the cards never left their slots
            self.seen["bounce"] += 1
            if _rank(self.centre[pile][-1]) == JOKER_RANK:
                self.seen["joker_blocked"] += 1
        self.check_win_after_landing(p)

    def refill(self, p: int, j: int) -> None:
        """An emptied slot shows its stacked card, else takes the draw pile's top."""
        if not self.slots[p][j] and self.draw[p]:
            self.slots[p][j].append(self.draw[p].pop())

    def stuck_test(self, e: int) -> None:
        """Stuck: no ordinary card in flight, and neither player holds a legal play or
        no card has been put on a centre pile for ``idle_flip_ms``."""
        if self.done:
            return
        calm = all(self._next_landing(p) == _NEVER for p in self.seats)
        no_play = not any(self.has_legal_play(p) for p in self.seats)
        idle = self.rules.idle_flip_ms
        overdue = idle > 0 and e - self.placed_ms >= idle
        stuck = calm and (no_play or overdue)
        if stuck and self.phase == PLAY:
            if not no_play:
                self.seen["idle"] += 1
                if e > self.placed_ms + idle:
                    self.seen["idle_after_flight"] += 1
            self.phase = STUCK
            self.flip_ms = e + self.rules.stuck_countdown_ms
        elif not stuck and self.phase == STUCK:
            self.phase = PLAY
            self.flip_ms = None

    # ---------------------------------------------------------------- flips
    def flip(self, e: int) -> None:
        """The simultaneous flip at the end of the stuck countdown."""
        self.events += 1
        self._masks = [None] * self.n
        self.changes += 1
        self.flips += 1
        self.placed_ms = e  # a flip that does not end the game puts a card on a pile
        self.phase = PLAY
        self.flip_ms = None
        if self.japanese:
            self.flip_japanese()
        else:
            self.flip_side_piles()

    def flip_side_piles(self) -> None:
        """``us``/``pagat``: side pile k onto centre pile k, rebuilding or locking first."""
        if self.rules.reserve_rule == "lock":
            if not any(self.side):
                self.seen["empty_lock"] += 1
                self.lock()
                return
        else:
            # A side pile to rebuild when every side pile has been rebuilt since the last
            # placed card: the cards would cycle for ever.
            if not all(self.side) and all(self.idle_rebuilds):
                self.seen["cycle_lock"] += 1
                self.lock()
                return
            for k in self.seats:
                if not self.side[k]:
                    self.rebuild(k)
        flipped = False
        for k in self.seats:
            if self.side[k]:
                if _rank(self.side[k][-1]) == JOKER_RANK:
                    self.seen["joker_flipped"] += 1
                self.centre[k].append(self.side[k].pop())
                self.top_owner[k] = None
                flipped = True
        if not flipped:
            self.lock()

    def rebuild(self, k: int) -> None:
        """Side pile ``k`` from centre pile ``k``: all but the top, shuffled."""
        c = self.centre[k][:-1]  # bottom first
        order = rng.shuffle_order(
            self._seed64, rng.REBUILD + k, 64 * self.rebuilds[k], len(c)
        ).tolist()
        top_first = [c[i] for i in order]
        self.side[k] = top_first[::-1]
        self.centre[k] = self.centre[k][-1:]
        self.rebuilds[k] += 1
        self.reshuffles += 1
        self.seen["rebuild"] += 1
        self.idle_rebuilds[k] += 1

    def lock(self) -> None:
        """Locked game: the fewest cards (hand + draw pile) wins; a tie for the fewest draws."""
        self.seen["lock"] += 1
        n = [sum(1 for s in self.slots[p] if s) + len(self.draw[p]) for p in self.seats]
        fewest = min(n)
        self.end(n.index(fewest) if n.count(fewest) == 1 else "draw")

    def flip_japanese(self) -> None:
        """Each player's stock top onto their own pile; with play_out a layout card instead."""
        for p in self.seats:
            if self.draw[p]:
                self.centre[p].append(self.draw[p].pop())
                self.top_owner[p] = p
            elif self.rules.play_out:
                f = self.flight[p]
                if f is not None and f[0] == "flip_choice":
                    slot, pile = f[2][0], f[3]
                    self.flight[p] = None
                    self.seen["flip_choice"] += 1
                else:
                    slot = next(j for j, s in enumerate(self.slots[p]) if s)
                    pile = p
                    self.seen["default_layout_flip"] += 1
                self.centre[pile].append(self.slots[p][slot].pop())
                self.top_owner[pile] = p
        # One player out of cards at the flip wins; two or more at once draw.
        winners = [p for p in self.seats if self.has_won(p)]
        if len(winners) > 1:
            self.end("draw")
        elif winners:
            self.end(winners[0])

    # ------------------------------------------------------------- winning
    def has_won(self, p: int) -> bool:
        """The win condition of the preset for player ``p`` (no card in flight)."""
        if self.draw[p] or self.flight[p] is not None:
            return False
        if self.japanese and not self.rules.play_out:
            return True
        return not any(self.slots[p])

    def check_win_after_landing(self, p: int) -> None:
        """Win checks, for the landing player only."""
        if self.has_won(p):
            self.end(p)

    def points(self) -> tuple[int, ...] | None:
        """Match points of the game as it stands (docs/rules.md "Match points"): the winner's
        are every other player's cards left, hand (a flying card included) and draw pile;
        None in ``japanese``, which has no match scoring."""
        if self.japanese:
            return None
        if self.winner is None or self.winner == "draw":
            return (0,) * self.n
        # a flying card stays on top of its slot until it lands, so the slots count it
        left = sum(
            sum(1 for s in self.slots[q] if s) + len(self.draw[q])
            for q in self.seats
            if q != self.winner
        )
        return tuple(left if p == self.winner else 0 for p in self.seats)

    def end(self, winner: int | str | None) -> None:
        """The game is over (``None``: truncated, no winner)."""
        self.winner = winner
        if winner is None:
            self.seen["truncated"] += 1
        elif winner == "draw":
            self.seen["draw"] += 1
        self.phase = OVER
        self.flip_ms = None
        self.done = True
        self._masks = [None] * self.n
        self.changes += 1

    # ---------------------------------------------------------------- table
    def table(self) -> dict[str, Any]:
        """The whole table in the format of docs/rules.md "The full table"."""

        def names(pile: list[int]) -> list[str]:
            return [card_str(c) for c in reversed(pile)]

        players = []
        for p in self.seats:
            f = self.flight[p]
            away = f[2] if f is not None else ()
            hand, stacked = [], []
            for j, s in enumerate(self.slots[p]):
                hand.append(card_str(s[-1]) if s and j not in away else None)
                stacked.append(names(s[:-1]))
            players.append(
                {
                    "hand": hand,
                    "stacked": stacked,
                    "draw_pile": names(self.draw[p]),
                    "in_flight": None
                    if f is None
                    else {
                        "kind": f[0],
                        "cards": [card_str(c) for c in f[1]],
                        "slots": list(f[2]),
                        "pile": f[3],
                        "lands_ms": f[4],
                    },
                    "played": self.played[p],
                    "bounced": self.bounced[p],
                    "illegal": self.illegal[p],
                    "commits": self.commits[p],
                }
            )
        return {
            "clock_ms": self.clock,
            "phase": self.phase,
            "flip_ms": self.flip_ms,
            "placed_ms": self.placed_ms,
            "centre": [names(pile) for pile in self.centre],
            "top_owner": list(self.top_owner),
            "side_piles": [names(pile) for pile in self.side],
            "players": players,
            "winner": self.winner,
            "truncated": self.truncated,
            "flips": self.flips,
            "reshuffles": self.reshuffles,
            "ties": self.ties,
            "rebuilds": list(self.rebuilds),
            "idle_rebuilds": list(self.idle_rebuilds),
        }
