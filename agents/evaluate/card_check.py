"""A report card checked before anyone ranks it: everything shown is what its counts give.

:func:`check_card` is what ``speed leaderboard`` (:func:`agents.evaluate.report.read_card`)
runs on every card, in this order; the first failure is one :class:`CardError`
naming the file and the field:

1. a regular file of at most :data:`MAX_CARD_BYTES`, strict JSON (no key twice, no NaN or
   infinity: :func:`speed_env.user_file.read_json`);
2. the card's hash (``card_hash``, over the whole card), its results hash
   (``results_hash``, the card less its timing; cards made before it have none) and its
   manifest's hash;
3. the card's agent, game and protocol are its manifest's, with exact types
   (``true`` and ``1.0`` are not ``1``), and the manifest's protocol data is
   the protocol of that version, equal value for value and type for type;
4. every field the reports read is there with its type; every count is a
   whole number ``>= 0``, the counts add up (wins + losses + draws = games,
   games = the manifest's games) and every rate and interval is the one its
   counts give (the latency sweep's break-even refitted from its points);
   an optional ``human_likeness`` (``speed evaluate --human``) is type-checked, and an
   optional ``exploiter`` (``--exploit-minutes``) too, its score the one its counts give; a
   protocol that charges thinking has its free pairings checked the same way, and the costs it
   charged (the reference bots' must be the protocol's, the agent's its calibration's);
5. re-rated against the shipped anchors (:func:`agents.evaluate.make_card.rate`), the
   card's ratings and α-Rank are the ones it holds (α-Rank where the
   ``[openspiel]`` extra is installed: it is computed with OpenSpiel).

A hash is not a signature: whoever edits a card can hash it again. What the
checks add is that a card's numbers must agree with each other and with its
counts; the counts themselves are as good as the run that made them, which
anyone can repeat (``speed evaluate`` with the card's agent, ``--games`` and
``--seed`` gives the same card). A game's results are checked by its own card
(:meth:`agents.evaluate.protocol.CardGame.check`); a rate whose counts the card does not
hold (a table's finished-ahead rate, say) is checked for range only.

``python -m agents.evaluate.card_check --rehash CARD...`` checks cards made before the
card hash existed (everything above but the hash) and writes them back with it.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from agents.evaluate import exploiter, protocol
from speed_env import user_file


class CardError(ValueError):
    """Cards that cannot be read, checked or merged: the message names the file(s)."""


CARD_TITLE = "speed-rl evaluation report"
RATING_KEYS = ("rating", "rating_ci", "anchors")
"""Fields rounded to 2 decimals on a card: compared to the re-rated ones within 0.01."""
MAX_NAME = 1000
"""The longest agent spec a card may name (a path and a class name fit many times over)."""


MAX_CARD_BYTES = 16 << 20
"""The largest card file read (16 MiB): a card is a few tens of kilobytes."""


def read_json(path: Path) -> Any:
    """A card file's JSON, read by the kit's one reader of users' files
    (:func:`speed_env.user_file.read_json`: a regular file, bounded, strict JSON);
    :class:`CardError` naming the file otherwise."""
    return user_file.read_json(path, "card", CardError, limit=MAX_CARD_BYTES)


def check_card(
    doc: Any, where: str, anchors: dict[str, Any] | None = None, *, sealed: bool = True
) -> dict[str, Any]:
    """``doc`` checked as a card, or :class:`CardError` naming ``where`` and the field.
    The steps are the module docstring's. ``anchors`` default to the shipped ones;
    ``sealed=False`` skips the card hash, for cards made before it existed."""
    c = Check(where)
    card = c.obj(doc, "the card")
    if sealed:
        stored = card.get("card_hash")
        if stored is None:
            c.fail(
                "card_hash",
                "is missing: a card made before cards were sealed (python -m "
                "agents.evaluate.card_check --rehash checks it and adds it)",
            )
        if stored != protocol.card_hash(card):
            c.fail("card_hash", "does not match the card (edited by hand?)")
        # Cards made before the results hash have none; one that is there must be the card's.
        if "results_hash" in card and card["results_hash"] != protocol.results_hash(card):
            c.fail("results_hash", "does not match the card's results (edited by hand?)")
    manifest = c.obj(card.get("manifest"), "manifest")
    if manifest.get("hash") != protocol.manifest_hash(manifest):
        c.fail("manifest.hash", "does not match the manifest (edited by hand?)")
    if card.get("card") != CARD_TITLE:
        c.fail("card", f"must be {CARD_TITLE!r} (is this a report card?)")
    version = c.whole(card, "protocol", "protocol")
    game = c.text(card, "game", "game")
    for key in ("protocol", "game", "agent"):
        if not _same_json(card.get(key), manifest.get(key)):
            c.fail(key, f"is {card.get(key)!r:.100}, its manifest's {manifest.get(key)!r:.100}")
    try:
        proto = protocol.protocol(game, version)
    except protocol.ProtocolError as exc:
        c.fail("protocol", f"is {version}: {exc}")
    path = first_difference(manifest.get("protocol_data"), proto, "manifest.protocol_data")
    if path is not None:
        c.fail(path, f"differs from protocol {version}'s (compared with exact types)")
    agent = c.text(card, "agent", "agent")
    if not agent or len(agent) > MAX_NAME:
        c.fail("agent", f"must be an agent spec of 1 to {MAX_NAME} characters")
    games = c.whole(manifest, "games", "manifest.games", low=1)
    if manifest.get("full_protocol") is not (games >= proto["games"]):
        c.fail("manifest.full_protocol", f"must be {games >= proto['games']} for {games} games")
    for name, sha in c.obj(manifest.get("agent_files"), "manifest.agent_files").items():
        if not (isinstance(sha, str) and len(sha) == 64):
            c.fail(f"manifest.agent_files.{name}", "must be a SHA-256 (64 hex digits)")
    seeds = c.obj(manifest.get("seeds"), "manifest.seeds")
    c.whole(seeds, "deals", "manifest.seeds.deals")
    for name, reason in c.obj(card.get("skipped"), "skipped").items():
        c.text({name: reason}, name, f"skipped.{name}")
    c.obj(card.get("timing"), "timing")
    if "human_likeness" in card:
        _check_human(c, card["human_likeness"], game)
    if exploiter.KEY in card:
        exploiter.check_line(c, card[exploiter.KEY], game, check_interval)
    results = c.obj(card.get("results"), "results")
    protocol.card_game(game).check(c, results, proto, agent, games)
    _check_rated(c, card, anchors)
    return card


# ------------------------------------------------------------------ human-likeness
def _check_human(c: Check, value: Any, game: str) -> None:
    """The ``human_likeness`` section, type by type (:mod:`train.realtime.human_likeness`)."""
    f = "human_likeness"
    if game != "realtime":
        c.fail(f, "belongs to real-time cards only")
    h = c.obj(value, f)
    for key in ("data", "rules", "decisions"):
        c.text(h, key, f"{f}.{key}")
    n = c.whole(h, "n_decisions", f"{f}.n_decisions")
    for key in ("agreement", "chance_agreement"):
        if n > 0 or h.get(key) is not None:  # no decisions: no shares
            c.number(h, key, f"{f}.{key}", 0.0, 1.0)
    r = c.obj(h.get("reaction"), f"{f}.reaction")
    n_person = c.whole(r, "n_person", f"{f}.reaction.n_person")
    c.text(r, "agent_profile", f"{f}.reaction.agent_profile")
    c.number(r, "agent_median_ms", f"{f}.reaction.agent_median_ms", 0.0)
    c.whole(r, "agent_samples", f"{f}.reaction.agent_samples", low=1)
    for key in ("person_median_ms", "wasserstein_ms"):
        if n_person > 0 or r.get(key) is not None:  # no times measured: no distance
            c.number(r, key, f"{f}.reaction.{key}", 0.0)


# ------------------------------------------------------------------ the counts
def check_realtime(
    c: Check, results: dict[str, Any], proto: dict[str, Any], games: int, agent: str = ""
) -> None:
    rule_sets = c.obj(results.get("rule_sets"), "results.rule_sets")
    if list(rule_sets) != list(proto["rule_sets"]):
        c.fail(
            "results.rule_sets", f"must hold the protocol's rule sets {list(proto['rule_sets'])}"
        )
    _check_rule_sets(c, rule_sets, "results.rule_sets", proto, games)
    latency = c.obj(results.get("latency"), "results.latency")
    if "skipped" in latency:
        c.text(latency, "skipped", "results.latency.skipped")
    else:
        _check_latency(c, latency)
    if "think" in proto:  # protocol 2: the same pairings free, and what each agent was charged
        free = c.obj(c.obj(results.get("free"), "results.free").get("rule_sets"), "results.free")
        if list(free) != list(rule_sets) or any(
            ("skipped" in free[rs]) != ("skipped" in rule_sets[rs]) for rs in rule_sets
        ):
            c.fail("results.free.rule_sets", "must skip and play what results.rule_sets does")
        _check_rule_sets(c, free, "results.free.rule_sets", proto, games)
        from agents.evaluate.thinking import check_thinking

        check_thinking(c, results.get("thinking"), proto, agent)
    elif "free" in results or "thinking" in results:
        c.fail("results", "holds thinking results, but its protocol charges no thinking")


def _check_rule_sets(
    c: Check, rule_sets: dict[str, Any], field: str, proto: dict[str, Any], games: int
) -> None:
    """Each rule set's pairings under ``field``, against each of the protocol's opponents."""
    for rs, row in rule_sets.items():
        where = f"{field}.{rs}"
        row = c.obj(row, where)
        if "skipped" in row:
            c.text(row, "skipped", f"{where}.skipped")
            continue
        opponents = c.obj(row.get("opponents"), f"{where}.opponents")
        if list(opponents) != list(proto["opponents"]):
            c.fail(f"{where}.opponents", f"must be the protocol's {proto['opponents']}")
        for opp, r in opponents.items():
            r = c.obj(r, f"{where}.opponents.{opp}")
            if "skipped" in r:
                c.text(r, "skipped", f"{where}.opponents.{opp}.skipped")
            else:
                _check_pairing(
                    c, r, f"{where}.opponents.{opp}", games, rs in proto["match_rule_sets"]
                )


def _check_pairing(c: Check, r: dict[str, Any], where: str, games: int, match: bool) -> None:
    from agents.stats import wilson_interval

    n = c.whole(r, "games", f"{where}.games", low=1)
    if n != games:
        c.fail(f"{where}.games", f"is {n}, but the card played {games} games a pairing")
    wins, losses, draws, truncations, illegal = (
        c.whole(r, k, f"{where}.{k}")
        for k in ("wins", "losses", "draws", "truncations", "illegal_actions")
    )
    if wins + losses + draws != n:
        c.fail(where, f"wins {wins} + losses {losses} + draws {draws} must make its {n} games")
    if truncations > n:
        c.fail(f"{where}.truncations", f"is {truncations}, more than its {n} games")
    score = wins + draws / 2
    c.close(r, "win_rate", where, score / n)
    c.close(r, "win_rate_ci", where, wilson_interval(score, n))
    c.close(r, "illegal_per_game", where, illegal / n)
    if not match:
        return
    m = c.obj(r.get("match"), f"{where}.match")
    matches = c.whole(m, "matches", f"{where}.match.matches")
    won = c.whole(m, "match_wins", f"{where}.match.match_wins")
    if won > matches or matches > n:
        c.fail(f"{where}.match", f"{won} matches won of {matches}, in {n} games, is impossible")
    c.close(m, "match_win_rate", f"{where}.match", won / matches if matches else None)
    c.close(m, "match_win_rate_ci", f"{where}.match", wilson_interval(won, matches))
    if c.whole(m, "games_left_over", f"{where}.match.games_left_over") > n:
        c.fail(f"{where}.match.games_left_over", f"is more than its {n} games")


def _check_latency(c: Check, lat: dict[str, Any]) -> None:
    from agents.reaction_sweep.fit import fit_logistic
    from agents.stats import wilson_interval

    points = c.items(lat.get("points"), "results.latency.points")
    diffs, counts, scores = [], [], []
    for i, p in enumerate(points):
        where = f"results.latency.points[{i}]"
        p = c.obj(p, where)
        n = c.whole(p, "games", f"{where}.games", low=1)
        rate = c.number(p, "win_rate", f"{where}.win_rate", 0.0, 1.0)
        halves = 2 * rate * n  # wins + draws / 2 in half games: a whole number if honest
        if abs(halves - round(halves)) > 1e-6:
            c.fail(
                f"{where}.win_rate", f"is {rate}: no count of wins and draws in {n} games gives it"
            )
        score = round(halves) / 2
        c.close(p, "ci_low", where, wilson_interval(score, n)[0])
        c.close(p, "ci_high", where, wilson_interval(score, n)[1])
        mine = c.number(p, "latency_ms", f"{where}.latency_ms")
        theirs = c.number(p, "opponent_latency_ms", f"{where}.opponent_latency_ms")
        diffs.append(mine - theirs)
        counts.append(n)
        scores.append(score)
    break_even = None
    if len(set(diffs)) >= 2:
        break_even = fit_logistic(diffs, counts, scores).break_even_ms
    if break_even is not None and not math.isfinite(break_even):
        break_even = None  # a flat fit's infinity is no JSON: the card holds null
    c.close(lat, "break_even_ms", "results.latency", break_even, rel=1e-6)
    if lat.get("break_even_ci") is not None:  # a bootstrap's: it need not hold the estimate
        check_interval(c, lat, "break_even_ci", "results.latency", None, -math.inf, math.inf)


def check_interval(
    c: Check,
    doc: dict[str, Any],
    key: str,
    where: str,
    value: float | None,
    low: float,
    high: float,
) -> None:
    """``doc[key]`` is ``[low, high]`` inside ``[low, high]`` bounds, around ``value`` if given."""
    ci = c.items(doc.get(key), f"{where}.{key}")
    bounds = [c.number({key: v}, key, f"{where}.{key}", low, high) for v in ci]
    if len(bounds) != 2 or bounds[0] > bounds[1]:
        c.fail(f"{where}.{key}", "must be [low, high]")
    if value is not None and not bounds[0] - 1e-9 <= value <= bounds[1] + 1e-9:  # float slack
        c.fail(f"{where}.{key}", f"must hold its estimate {value}")


def _check_rated(c: Check, card: dict[str, Any], anchors: dict[str, Any] | None) -> None:
    """The card's ratings and α-Rank are what its counts give against ``anchors``."""
    from agents.evaluate import make_card

    if anchors is None:
        anchors = make_card.load_anchors(card["game"])
    rated = make_card.rate(card, anchors)
    stored, again = card["results"], rated["results"]
    if importlib.util.find_spec("open_spiel") is None:
        # α-Rank needs the [openspiel] extra: without it, it cannot be re-computed here (and a
        # leaderboard does not show it); the ratings still are.
        stored, again = ({k: v for k, v in r.items() if k != "alpharank"} for r in (stored, again))
    path = first_difference(stored, again, "results", tolerant=True)
    if path is not None:
        c.fail(
            path,
            "disagrees with the card's counts re-rated against the shipped anchors "
            f"(it holds {_at(card, path)!r:.80}; the counts give {_at(rated, path)!r:.80})",
        )


# ------------------------------------------------------------------ helpers
def _same_json(a: Any, b: Any) -> bool:
    return first_difference(a, b, "") is None


def first_difference(a: Any, b: Any, path: str, tolerant: bool = False) -> str | None:
    """The first path where ``a`` and ``b`` differ, types compared exactly; None if none.
    A bool is not an int, an int not a float. ``tolerant``: floats within a card's rounding."""
    if type(a) is not type(b):
        if tolerant and {type(a), type(b)} == {int, float}:
            pass  # tolerant: 1500 and 1500.0 are the same number
        else:
            return path or "the value"
    if isinstance(a, dict):
        if list(a) != list(b) and set(a) != set(b):  # key order alone is no difference
            missing = sorted(set(a) ^ set(b))
            return f"{path}.{missing[0]}"
        for k in a:
            found = first_difference(a[k], b[k], f"{path}.{k}" if path else str(k), tolerant)
            if found is not None:
                return found
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return path
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = first_difference(x, y, f"{path}[{i}]", tolerant)
            if found is not None:
                return found
        return None
    if tolerant and isinstance(a, (int, float)) and not isinstance(a, bool):
        rounded = any(f".{k}" in path for k in RATING_KEYS)  # RATING_KEYS: 2 decimals
        return (
            None if math.isclose(a, b, rel_tol=1e-9, abs_tol=0.0101 if rounded else 1e-9) else path
        )
    return None if a == b else path


def _at(doc: Any, path: str) -> Any:
    """The value at ``path`` (``results.rule_sets.us.rating_ci[0]``) of ``doc``."""
    import re

    value = doc
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        try:
            value = value[int(index)] if index else value[name]
        except (KeyError, IndexError, TypeError):
            return None
    return value


class Check:
    """Typed reads of a card's fields; each failure a :class:`CardError` naming file and field."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, field: str, problem: str) -> NoReturn:
        raise CardError(f"{self.where}: {field} {problem}")

    def obj(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            self.fail(field, f"must be an object, got {_kind(value)}")
        return value  # type: ignore[no-any-return]

    def items(self, value: Any, field: str) -> list[Any]:
        if not isinstance(value, list):
            self.fail(field, f"must be a list, got {_kind(value)}")
        return value  # type: ignore[no-any-return]

    def text(self, doc: dict[str, Any], key: str, field: str) -> str:
        value = doc.get(key)
        if not isinstance(value, str):
            self.fail(field, f"must be text, got {_kind(value)}")
        return value  # type: ignore[return-value]

    def whole(self, doc: dict[str, Any], key: str, field: str, low: int = 0) -> int:
        value = doc.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            self.fail(field, f"must be a whole number >= {low}, got {value!r:.80}")
        return value  # type: ignore[return-value]

    def number(
        self,
        doc: dict[str, Any],
        key: str,
        field: str,
        low: float = -math.inf,
        high: float = math.inf,
    ) -> float:
        value = doc.get(key)
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok or not low <= value <= high:  # type: ignore[operator]
            span = "" if (low, high) == (-math.inf, math.inf) else f" in [{low}, {high}]"
            self.fail(field, f"must be a number{span}, got {value!r:.80}")
        return float(value)  # type: ignore[arg-type]

    def close(
        self, doc: dict[str, Any], key: str, where: str, want: Any, rel: float = 1e-9
    ) -> None:
        """``doc[key]`` is ``want`` (a number, a pair or None) up to float rounding."""
        got = doc.get(key)
        wants = list(want) if isinstance(want, (tuple, list)) else [want]
        gots = got if isinstance(got, list) else [got]
        if len(gots) == len(wants) and all(
            (g is None and w is None)
            or (
                isinstance(g, (int, float))
                and not isinstance(g, bool)
                and w is not None
                and math.isclose(g, w, rel_tol=rel, abs_tol=1e-9)
            )
            for g, w in zip(gots, wants, strict=True)
        ):
            return
        self.fail(f"{where}.{key}", f"is {got!r:.80}, but its counts give {want!r:.80}")


def _kind(value: Any) -> str:
    return "nothing (missing)" if value is None else f"{type(value).__name__} {value!r:.60}"


# ------------------------------------------------------------------ re-hashing
def rehash(paths: Sequence[str | Path]) -> list[Path]:
    """Check each card fully but for its hash, then write it back sealed.
    The bytes are those ``speed evaluate`` writes; nothing is written unless every card checks."""

    from agents.runtime.files import json_bytes, write_atomic

    done = []
    for p in map(Path, paths):
        card = check_card(read_json(p), str(p), sealed=False)
        done.append((p, protocol.seal(card)))
    for p, card in done:  # a second loop: every card checked before any is written
        write_atomic(p, json_bytes(card))
    return [p for p, _ in done]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m agents.evaluate.card_check [--rehash] CARD...``: check (and seal) cards."""
    prog = "python -m agents.evaluate.card_check"
    parser = argparse.ArgumentParser(prog=prog, description=__doc__)
    parser.add_argument("cards", nargs="+", metavar="CARD", help="report.json files")
    parser.add_argument("--rehash", action="store_true", help="check all but the hash, then seal")
    args = parser.parse_args(argv)
    try:
        if args.rehash:
            for p in rehash(args.cards):
                print(f"sealed {p}")
        else:
            for p in args.cards:
                check_card(read_json(Path(p)), p)
                print(f"checked {p}")
    except CardError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
