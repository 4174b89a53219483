"""Small helpers that let a scenario test read like the rules.

* :func:`build_deal` completes a deal from the cards a scenario cares about:
  every card it does not name is filled in automatically (below the named
  cards of the draw piles / stocks, then the side piles, then under the centre
  piles), so each test names only the interesting cards and the deal is still
  a partition of the deck, as ``reset(options={"deal": ...})`` demands.
* :func:`play`, :func:`stack` and :func:`multi` turn a rank and a pile into the
  action index of docs/rules.md.
* :func:`run` plays a scripted timeline (clock in ms -> actions), waiting at
  every other tick; :func:`script` reads one drawn as text.
* :func:`show` draws the table as a few lines of text and :func:`drawn`
  normalises a table drawn in a test's string, so a test can assert
  ``show(env) == drawn(\"\"\"...\"\"\"))``.

Only the public contract is used: ``parallel_env``, ``reset``, ``step``,
``snapshot()`` and ``table()``.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Mapping
from typing import Any

import speed_env
from speed_env import Rules, make_rules

RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS = ("S", "H", "D", "C")
JOKER = 13
AGENTS = ("player_0", "player_1")

Cards = str | Iterable[str]


# ----------------------------------------------------------------- cards


def cards(spec: Cards | None) -> list[str]:
    """A list of canonical card tokens from ``"9D 10S QC"`` or a list of tokens."""
    if spec is None:
        return []
    if isinstance(spec, str):
        spec = spec.replace(",", " ").split()
    return [speed_env.card_str(speed_env.parse_card(t)) for t in spec]


def rank_index(token: str | int) -> int:
    """Rank index (A=0 … K=12, joker 13) of a rank name (``"10"``, ``"K"``,
    ``"joker"``) or of a card token (``"9D"``, ``"RJ"``)."""
    if isinstance(token, int):
        return token
    text = str(token).strip().upper()
    if text in ("JOKER", "JK", "RJ", "BJ"):
        return JOKER
    if text == "T":
        return 9
    if text in RANK_NAMES:
        return RANK_NAMES.index(text)
    return speed_env.parse_card(text) % 13


def full_deck(jokers: bool = False) -> list[str]:
    """Every card of the deck, canonical order (suits S H D C, A … K), jokers last."""
    out = [r + s for s in SUITS for r in RANK_NAMES]
    return [*out, "RJ", "BJ"] if jokers else out


def is_red(token: str) -> bool:
    """Hearts, diamonds and the red joker (player_0's colour in ``japanese``)."""
    return token == "RJ" or (token not in ("RJ", "BJ") and token[-1] in "HD")


# ----------------------------------------------------------------- actions


def play(rank: str | int, pile: int) -> int:
    """Action: play a card of ``rank`` onto centre pile ``pile`` (``1 + 2r + pile``)."""
    return 1 + 2 * rank_index(rank) + pile


def stack(rank: str | int, rules: Rules) -> int:
    """Action (``stack_layout``): stack the leftmost layout card of ``rank`` on the next one."""
    assert rules.stack_layout, "stack actions exist only with stack_layout=True"
    r = rank_index(rank)
    return 1 + 2 * rules.n_ranks + r


def multi(rank: str | int, pile: int, rules: Rules) -> int:
    """Action (``multi_play``): play all layout tops of ``rank`` onto ``pile``."""
    assert rules.multi_play, "multi-play actions exist only with multi_play=True"
    nr = rules.n_ranks
    base = 1 + 2 * nr + (nr if rules.stack_layout else 0)
    return base + 2 * rank_index(rank) + pile


# ----------------------------------------------------------------- deals


def build_deal(
    rules: str | Rules = "us",
    *,
    hands: tuple[Cards, Cards] | list[Cards],
    centre: tuple[Cards, Cards] | list[Cards] | None = None,
    draw_piles: tuple[Cards, Cards] | list[Cards] = ("", ""),
    side_piles: tuple[Cards, Cards] | list[Cards] = ("", ""),
    draw_sizes: tuple[int | None, int | None] | None = None,
    side_sizes: tuple[int, int] | None = None,
    avoid: str = "",
    **options: Any,
) -> dict[str, Any]:
    """A complete deal (public format, piles top first) from the named cards.

    The named cards of each pile are its top; every card not named anywhere is
    dealt below them, in canonical deck order except that cards of the ranks
    listed in ``avoid`` (e.g. ``"2 3 5"``) come last. Draw piles are filled
    first up to ``draw_sizes`` (default: the preset's draw pile; in
    ``japanese`` every remaining card of the seat's colour), then side piles up
    to ``side_sizes`` (default: the preset's side piles), and whatever is left
    goes under the centre piles (alternately 0, 1), below the named cards.
    ``centre`` entries are a card or a pile listed top first.
    """
    r = rules if isinstance(rules, Rules) else make_rules(rules, **options)
    named_hands = [cards(h) for h in hands]
    named_draws = [cards(p) for p in draw_piles]
    named_sides = [cards(p) for p in side_piles]
    named_centre = None if centre is None else [cards(p) for p in centre]
    named = [
        c
        for group in (named_hands, named_draws, named_sides, named_centre or [])
        for pile in group
        for c in pile
    ]
    dup = sorted({c for c in named if named.count(c) > 1})
    if dup:
        raise AssertionError(f"scenario names {dup} more than once")
    avoid_ranks = {rank_index(t) for t in avoid.replace(",", " ").split()}

    def key(tok: str) -> tuple[int, int]:
        rk = JOKER if tok in ("RJ", "BJ") else rank_index(tok[:-1])
        return (1 if rk in avoid_ranks else 0, full_deck(True).index(tok))

    rest = sorted((c for c in full_deck(r.jokers) if c not in named), key=key)
    if r.is_japanese:
        pools = [[c for c in rest if is_red(c)], [c for c in rest if not is_red(c)]]
    else:
        shared = list(rest)
        pools = [shared, shared]  # one pool for both seats
    sizes = draw_sizes or (None, None)
    draws = [list(p) for p in named_draws]
    for p in range(2):
        want = sizes[p]
        if want is None:
            want = 10**6 if r.is_japanese else r.draw_size
        pool = pools[p]
        while len(draws[p]) < want and pool:
            draws[p].append(pool.pop(0))
    dealt = {x for d in draws for x in d}
    left = [c for c in rest if c not in dealt]
    sides = [list(p) for p in named_sides]
    if not r.is_japanese:
        ssizes = side_sizes or (r.side_size, r.side_size)
        for k in range(2):
            while len(sides[k]) < ssizes[k] and left:
                sides[k].append(left.pop(0))
    out: dict[str, Any] = {"hands": named_hands, "draw_piles": draws}
    if not r.is_japanese or any(sides):
        out["side_piles"] = sides
    if named_centre is not None:
        piles = [list(p) for p in named_centre]
        for i, c in enumerate(left):
            piles[i % 2].append(c)
        out["centre"] = piles
    elif left:
        raise AssertionError(f"{len(left)} cards have nowhere to go without centre piles: {left}")
    return out


# ----------------------------------------------------------------- environments


def make_env(rules: str = "us", *, reaction: Any = (100, 200), tick_ms: int = 50, **options: Any):
    """A ``parallel_env`` with fixed latencies (player_0 100 ms, player_1 200 ms by default)."""
    return speed_env.parallel_env(rules, tick_ms=tick_ms, reaction=reaction, **options)


def start(env, deal: dict[str, Any], seed: int = 0):
    """Reset ``env`` from an explicit deal; return the observations."""
    obs, _ = env.reset(seed=seed, options={"deal": deal})
    env._helpers_obs = obs  # the masks, so that run() can check scripted actions
    return obs


_STEP = re.compile(
    r"(p[01])\s*:?\s*(wait|stack\s+\S+|multi\s+\S+\s*->\s*[01]|\S+\s*->\s*[01])", re.I
)


def _action(text: str, rules: Rules) -> int:
    text = text.strip()
    low = text.lower()
    if low == "wait":
        return 0
    if low.startswith("stack"):
        return stack(text.split()[1], rules)
    if low.startswith("multi"):
        rk, pile = text[5:].split("->")
        return multi(rk.strip(), int(pile), rules)
    rk, pile = text.split("->")
    return play(rk.strip(), int(pile))


def script(text: str, rules: Rules) -> dict[int, dict[str, int]]:
    """Read a timeline drawn as text, one tick per line (``#`` starts a comment)::

        0     p0 9D->0
        250   p1 J->0     p0 K->1
        1400  p0 stack 7  p1 multi 8->1

    A play names a card or a rank, then ``->`` and the pile.
    """
    out: dict[int, dict[str, int]] = {}
    for line in textwrap.dedent(text).strip().splitlines():
        line = line.split("#")[0].strip()
        if not line:
            continue
        t, rest = line.split(None, 1)
        acts = {}
        for who, what in _STEP.findall(rest):
            acts[AGENTS[int(who[1])]] = _action(what, rules)
        assert acts, f"no action read from {line!r}"
        out[int(t)] = acts
    return out


def run(
    env,
    timeline: Mapping[int, Mapping[str, int]] | str = (),
    until: int | None = None,
    *,
    strict: bool = True,
):
    """Step ``env`` from its clock up to (not including) clock ``until``.

    At clock ``t`` the agents play ``timeline[t]`` (others wait); at every
    other tick both wait. By default it runs until the last scripted tick
    has been played. With ``strict``, a scripted action the mask forbids fails
    the test at once (instead of silently counting as an illegal wait), and so
    does a scripted time in the range that no tick fell on. Stops early if the
    game ends. Returns the last ``step`` result (``None`` if no step was made).
    """
    u = env.unwrapped
    if isinstance(timeline, str):
        timeline = script(timeline, u.rules)
    timeline = dict(timeline or {})
    now = u.snapshot()["clock_ms"]
    if until is None:
        until = max(timeline, default=now) + 1
    due = {t for t in timeline if now <= t < until}
    last = None
    obs = getattr(env, "_helpers_obs", None)
    while env.agents and u.snapshot()["clock_ms"] < until:
        t = u.snapshot()["clock_ms"]
        acts = dict.fromkeys(env.agents, 0)
        acts.update(timeline.get(t, {}))
        due.discard(t)
        if strict and obs is not None:
            for a, act in acts.items():
                legal = [i for i, m in enumerate(obs[a]["action_mask"]) if m]
                assert act in legal, (
                    f"clock {t}: scripted action {act} of {a} is not legal; "
                    f"legal: {legal}\n{show(env)}"
                )
        last = env.step(acts)
        obs = last[0]
        env._helpers_obs = obs
    if strict and env.agents:
        assert not due, f"scripted clocks {sorted(due)} fell on no tick"
    return last


# ----------------------------------------------------------------- drawing the table


def show(env) -> str:
    """The table as text (hidden cards included), one fact per line::

        clock 450 stuck flip@1450
        centre JS/4 KD/3 side 5 5
        p0 6S 2C 5H 3H 7S draw 11 played 4
        p1 8S 8D 8H 9C 9H draw 14 played 1

    A centre pile is ``top/size``; an empty hand slot, or one whose card is in
    flight, shows ``--``; the card in flight is ``flying 9D->0@100``; ``[7D]`` after a layout
    card lists the cards stacked under it; ``bounced``/``illegal`` appear when not 0.
    """
    t = env.unwrapped.table()
    head = f"clock {t['clock_ms']} {t['phase']}"
    if t["flip_ms"] is not None:
        head += f" flip@{t['flip_ms']}"
    if t["winner"] is not None:
        head += f" winner={t['winner']}"
    if t["truncated"]:
        head += " truncated"
    lines = [head]
    centre = " ".join(f"{p[0] if p else '-'}/{len(p)}" for p in t["centre"])
    line = f"centre {centre}"
    if any(t["side_piles"]) or env.unwrapped.rules.side_size:
        line += f" side {len(t['side_piles'][0])} {len(t['side_piles'][1])}"
    lines.append(line)
    for p, pl in enumerate(t["players"]):
        slots = []
        for c, under in zip(pl["hand"], pl["stacked"], strict=True):
            s = c or "--"
            if under:
                s += "[" + ",".join(under) + "]"
            slots.append(s)
        line = f"p{p} {' '.join(slots)} draw {len(pl['draw_pile'])} played {pl['played']}"
        if pl["bounced"]:
            line += f" bounced {pl['bounced']}"
        if pl["illegal"]:
            line += f" illegal {pl['illegal']}"
        f = pl["in_flight"]
        if f is not None:
            line += f" flying {'+'.join(f['cards'])}->{f['pile']}@{f['lands_ms']}"
            if f["kind"] != "play":
                line += f" ({f['kind']})"
        lines.append(line)
    return "\n".join(lines)


def drawn(text: str) -> str:
    """A table drawn in a test string, with runs of spaces and the indentation normalised."""
    return "\n".join(
        " ".join(line.split())
        for line in textwrap.dedent(text).strip().splitlines()
        if line.strip()
    )


def tops(env) -> list[str | None]:
    """The two centre tops."""
    return [p["top"] for p in env.unwrapped.snapshot()["centre"]]


def all_cards(table: dict[str, Any]) -> list[str]:
    """Every card on the table (``table()`` format), wherever it is, with repeats."""
    out: list[str] = []
    for pile in table["centre"]:
        out += pile
    for pile in table["side_piles"]:
        out += pile
    for pl in table["players"]:
        out += [c for c in pl["hand"] if c is not None]
        for under in pl["stacked"]:
            out += under
        out += pl["draw_pile"]
        if pl["in_flight"] is not None:
            out += pl["in_flight"]["cards"]
    return out
