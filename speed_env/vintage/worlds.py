"""Complete games consistent with one seat's view: the determinizations a fair search plays.

:func:`sample_world` turns one observation vector (what its seat legitimately
knows: its hand, the discard pile, the call, the counts of the other hands and
of the pack, who is stuck, the passes in a row) into a full :class:`Game` that
could be the true one: the cards it has not seen (every card in play less its
hand and the discard pile) are shuffled uniformly and dealt to the other
hands and the pack with the counts it sees. It reads nothing but the vector,
so a search built on it is fair by construction.

The world's seats are relative to the observer: seat 0 is the observer and
acts now, seat ``j`` is the ``j``-th player after it in turn order (the
observation's order). Its ``turns`` count restarts at 0 (the observation does
not carry it) and the observer's own ``stuck`` flag is False (the observation
carries only the others'); the discard pile below its top is in a fixed order
(only its contents matter: a rebuild shuffles it). The rules are the default
options for that table size with the given pack, as one game (``games=1``);
pass ``rules`` to use others.

With ``infer=True`` the worlds also use what the table reveals: the seats just
before the observer that are stuck (the run of stuck seats that ends with the
one who acted last) all faced the current top and could not place a card on
it. Each such seat's hand before its draw held nothing that follows the top
(:func:`followers`), and a seat that passed (the last ``passes`` of them) drew
nothing. The worlds are then uniform over the deals consistent with that:
a seat that drew holds no follower (each of its cards may be the one drawn)
or exactly one (the card drawn), weighted by how many draws explain its hand,
by rejection of uniform deals. Nothing is inferred when the observer leads,
may add X (the top is its own card) or the rules let a player draw when able.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from speed_env.vintage.engine import Game
from speed_env.vintage.observation import ObservationLayout
from speed_env.vintage.pack import Pack, default_pack
from speed_env.vintage.rules import VintageRules, make_vintage_rules


class WorldError(ValueError):
    """An observation no game could produce (bad shape, counts that do not add up)."""


@lru_cache(maxsize=64)
def _default_rules(players: int, pack: Pack) -> VintageRules:
    return make_vintage_rules(players, 1, pack=pack)


def _ints(values: np.ndarray) -> list[int]:
    return [round(float(v)) for v in values]


MAX_TRIES = 2000
"""Uniform deals :func:`sample_world` tries per world when ``infer`` rejects them; past
that it keeps the last one, as a uniform sampler would."""


def followers(pack: Pack, top: int, called: int) -> list[bool]:
    """Per kind: may it be placed as a turn's first card on ``top`` (under call ``called``)."""
    n = pack.n_numbered
    if top == pack.X:
        return [k != pack.X for k in range(pack.n_kinds)]
    if top == pack.L:
        numbered = [pack.kind_sets[k] == called for k in range(n)]
    else:
        numbered = [bool(pack.matches[k, top]) for k in range(n)]
    return [*numbered, True, False]


def _stuck_run(obs: np.ndarray, layout: ObservationLayout, players: int) -> list[tuple[int, bool]]:
    """(world seat, passed) of each seat in the run of stuck seats that ends just before
    the observer (seat ``players - 1`` acted last), the last ``passes`` of them passed."""
    stuck = obs[layout["stuck"]]
    passes = round(float(obs[layout["passes"]][0]))
    run: list[tuple[int, bool]] = []
    for back, seat in enumerate(range(players - 1, 0, -1)):
        if not stuck[seat - 1]:
            break
        run.append((seat, back < passes))
    return run


def _weight(hand: list[int], follows: list[bool], passed: bool) -> float:
    """Chance (up to a constant) that a seat which could not follow ends with ``hand``."""
    held = sum(hand)
    f = sum(c for c, ok in zip(hand, follows, strict=True) if ok)
    if passed:
        return 1.0 if f == 0 else 0.0
    # Each card of the hand may be the one drawn: the rest must not follow.
    return 1.0 if f == 0 else 1.0 / held if f == 1 else 0.0


def sample_world(
    obs: np.ndarray,
    rng: np.random.Generator,
    *,
    pack: Pack | None = None,
    rules: VintageRules | None = None,
    infer: bool = False,
) -> Game:
    """One complete game consistent with ``obs`` (one seat's observation vector).

    Hidden cards (the other hands and the pack) are a uniform shuffle of the
    cards the observer has not seen, dealt with the counts it sees; with
    ``infer`` also consistent with the stuck seats' draws (module docstring).
    Raises :class:`WorldError` when ``obs`` is not an observation of ``pack``
    or its counts cannot come from one deal.
    """
    pack = pack if pack is not None else (rules.pack if rules is not None else default_pack())
    layout = ObservationLayout(pack)
    obs = np.asarray(obs)
    if obs.shape != (layout.size,):
        raise WorldError(
            f"expected one observation of {layout.size} entries for the pack "
            f"{pack.name!r}; got shape {obs.shape}"
        )
    players = round(float(obs[layout["seated"]].sum())) + 1
    if rules is None:
        rules = _default_rules(players, pack)
    elif rules.num_players != players:
        raise WorldError(
            f"the observation seats {players} players; the rules given seat {rules.num_players}"
        )
    hand = _ints(obs[layout["hand"]])
    discard_counts = _ints(obs[layout["discard"]])
    sizes = _ints(obs[layout["hand_sizes"]][: players - 1])
    pack_count = round(float(obs[layout["pack"]][0]))
    in_play = [c * rules.packs for c in pack.copies]
    unseen_counts = [t - h - d for t, h, d in zip(in_play, hand, discard_counts, strict=True)]
    if min(unseen_counts) < 0:
        kind = int(np.argmin(unseen_counts))
        raise WorldError(
            f"the observation shows {hand[kind] + discard_counts[kind]} of "
            f"{pack.tokens[kind]}; only {in_play[kind]} are in play"
        )
    unseen = [k for k, c in enumerate(unseen_counts) for _ in range(c)]
    if len(unseen) != sum(sizes) + pack_count:
        raise WorldError(
            f"{len(unseen)} cards are unseen, but the other hands hold {sum(sizes)} "
            f"and the pack {pack_count}"
        )
    leads = obs[layout["lead"]][0] != 0 or not sum(discard_counts)
    called_vec = obs[layout["called"]]
    called = int(np.argmax(called_vec)) if called_vec.any() else -1
    top = -1 if leads else int(np.argmax(obs[layout["top"]]))
    run: list[tuple[int, bool]] = []
    if infer and not leads and not obs[layout["extra"]][0] and not rules.may_draw_when_able:
        run = _stuck_run(obs, layout, players)
        follows = followers(pack, top, called)
    for _ in range(MAX_TRIES):
        order = rng.permutation(len(unseen))
        shuffled = [unseen[i] for i in order]
        hands = [hand]
        at = 0
        for size in sizes:
            h = [0] * pack.n_kinds
            for kind in shuffled[at : at + size]:
                h[kind] += 1
            hands.append(h)
            at += size
        if not run:
            break
        weight = 1.0
        for seat, passed in run:
            weight *= _weight(hands[seat], follows, passed)
        if weight > 0 and rng.random() < weight:
            break
    discard: list[int] = []
    if not leads:
        discard = [top]
        discard_counts[top] -= 1
        discard += [k for k, c in enumerate(discard_counts) for _ in range(c)]
    stuck = [False] + [bool(v) for v in obs[layout["stuck"]][: players - 1]]
    return Game(
        rules=rules,
        hands=hands,
        pack=shuffled[at:],
        discard=discard,
        dealer=players - 1,
        current=0,
        called=called,
        extra_pending=bool(obs[layout["extra"]][0]),
        passes=round(float(obs[layout["passes"]][0])),
        stuck=stuck,
    )


def sample_worlds(
    obs: np.ndarray,
    n: int,
    rng: np.random.Generator,
    *,
    pack: Pack | None = None,
    rules: VintageRules | None = None,
    infer: bool = False,
) -> list[Game]:
    """``n`` independent worlds from :func:`sample_world`."""
    return [sample_world(obs, rng, pack=pack, rules=rules, infer=infer) for _ in range(n)]


def copy_game(game: Game) -> Game:
    """An independent copy of ``game`` to play on (its history is not copied)."""
    return game.copy(history=False)
