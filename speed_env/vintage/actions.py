"""Action ids of Vintage Speed and their published names.

Actions name cards, not hand positions. With ``N`` numbered kinds and ``S``
sets in the pack (default N = 40, S = 5, 48 actions):

=================  ===========================  ================================
action             name                         meaning
=================  ===========================  ================================
0 … N-1            ``play A3``, ``play H2/5``   place that numbered card
N + s              ``play L call T``            place a Lightning card, call set s
N + S              ``play X``                   place the Extra Turn card
N + S + 1          ``draw``                     draw one card; ends the turn
N + S + 2          ``pass``                     end the turn without a card
=================  ===========================  ================================

A numbered card's action id is its kind (see :mod:`speed_env.vintage.pack`).
"""

from __future__ import annotations

from dataclasses import dataclass

from speed_env.vintage.pack import Pack, VintageCardError


@dataclass(frozen=True)
class Actions:
    """The action ids of one pack, with names both ways."""

    pack: Pack

    @property
    def n(self) -> int:
        """Number of actions (48 for the default pack)."""
        return self.pack.n_numbered + self.pack.n_sets + 3

    def call(self, set_index: int) -> int:
        """Action id of ``play L call <set>``."""
        return self.pack.n_numbered + set_index

    @property
    def play_x(self) -> int:
        """Action id of ``play X``."""
        return self.pack.n_numbered + self.pack.n_sets

    @property
    def draw(self) -> int:
        """Action id of ``draw``."""
        return self.play_x + 1

    @property
    def pass_(self) -> int:
        """Action id of ``pass``."""
        return self.play_x + 2

    def is_call(self, action: int) -> bool:
        """True for a ``play L call …`` action."""
        return self.pack.n_numbered <= action < self.play_x

    def name(self, action: int) -> str:
        """Published name of ``action`` (``play T5``, ``play L call S``, ``draw`` …)."""
        pack = self.pack
        if not 0 <= action < self.n:
            raise ValueError(f"action {action!r} is out of range; actions are 0–{self.n - 1}")
        if action < pack.n_numbered:
            return f"play {pack.tokens[action]}"
        if action < self.play_x:
            return f"play L call {pack.set_letters[action - pack.n_numbered]}"
        return ("play X", "draw", "pass")[action - self.play_x]

    def index(self, name: str) -> int:
        """Action id of a published name; case and spacing are forgiven."""
        words = name.strip().lower().split() if isinstance(name, str) else []
        hint = (
            f"names look like 'play {self.pack.tokens[0]}', 'play L call A', 'play X', "
            "'draw', 'pass'"
        )
        if words == ["draw"]:
            return self.draw
        if words == ["pass"]:
            return self.pass_
        if words == ["play", "x"]:
            return self.play_x
        if len(words) == 4 and words[:3] == ["play", "l", "call"]:
            try:
                return self.call(self.pack.set_index(words[3]))
            except VintageCardError as exc:
                raise ValueError(f"unknown action name {name!r}: {exc}") from None
        if len(words) == 2 and words[0] == "play" and words[1] != "l":
            try:
                kind = self.pack.parse(words[1])
            except VintageCardError as exc:
                raise ValueError(f"unknown action name {name!r}: {exc}") from None
            return kind
        raise ValueError(f"unknown action name {name!r}; {hint}")
