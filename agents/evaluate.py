"""``speed evaluate``: play an agent through the fixed protocol and make its report card.

The protocol is data (:mod:`agents.eval_protocol`); the games are the
tournaments' own (:mod:`agents.tournament` for real-time Speed, paired deals;
:mod:`agents.vintage_tournament` for Vintage Speed, seat rotation), cut into
chunks and run by :func:`agents.jobs.run_jobs`, so a card is the same for any
number of workers and on either backend. The latency curve is a reaction
sweep (:mod:`speed_lab.reaction_sweep`) played in the same pool of jobs.

Real-time card, per rule set the agent can play (those it refuses are listed
with its reason) and per opponent that can play it: games, wins, losses,
draws, truncations, win rate (a draw half) with its Wilson interval, match
win rate (``us``/``pagat``) and the illegal actions the agent chose; per rule
set the anchored rating (:mod:`agents.anchored_rating`); the break-even
latency against ``chain``; the decision cost (CPU µs a decision at batch 1
and 256, a timing field).

Vintage card, per table (the agent with three copies of each reference bot,
then the mixed tables): finished-ahead rate (every seat-by-seat comparison,
fewer penalty points ahead, a tie half) with its deal-clustered interval, the
mean penalty with its interval, the win rate with its Wilson interval; and
the anchored rating against the five bots.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from agents import eval_protocol as ep
from agents import tournament
from agents import tournament_harness as harness
from agents.jobs import Backend, run_jobs

CARDS = Path(__file__).parent / "cards"
"""The shipped anchors, the bundled agents' cards and their leaderboards."""


def anchors_file(game: str) -> Path:
    """The reference pool's results under each protocol for ``game``
    (``python -m agents.make_anchors --game GAME``)."""
    return CARDS / f"anchors_{game}.json"


class EvaluationError(ValueError):
    """An agent or setting the evaluation cannot play: the message says what would be right."""


# ------------------------------------------------------------------ the work
@dataclass
class Plan:
    """Everything a card plays: the jobs, and what each group of jobs is."""

    game: str
    spec: str
    games: int
    seed: int
    version: int
    jobs: list[tuple[str, Any, Any]] = field(default_factory=list)
    """``(group, settings, chunk)``: a chunk of one group's tournament."""
    groups: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per group (``us/chain``, ``latency/240``, ``table/0``): what it plays."""
    skipped: dict[str, str] = field(default_factory=dict)
    """What is not played (``pagat``, ``pagat/trained``) and why."""
    files: dict[str, str] = field(default_factory=dict)
    """Files the agent loads, with their SHA-256."""


def _job(job: tuple[str, Any, Any]) -> tuple[str, Any]:
    """One chunk of a group (module level: pickled to workers and Ray tasks)."""
    group, settings, chunk = job
    if isinstance(settings, tournament.Settings):
        return group, tournament.run_chunk(settings, chunk)
    from agents import vintage_tournament as vt

    return group, vt.run_chunk(settings, chunk)


def _reason(exc: BaseException) -> str:
    """A refusal's message with the kit's own folder left out (the card reads the same on
    every machine)."""
    from agents.agent_files import KIT_ROOT

    return str(exc).replace(f"{KIT_ROOT}/", "")


def _try_build(build: Callable[[], Any]) -> str | None:
    """``None`` when ``build()`` succeeds, else the reason it refused (its message)."""
    try:
        build()
    except ValueError as exc:
        return _reason(exc)
    return None


def _user_files(spec: str) -> dict[str, str]:
    from agents import agent_files, user_agents

    if not user_agents.is_user_spec(spec):
        return {}
    source = user_agents.source_file(user_agents.parse(spec))
    if source is None or not source.is_file():
        return {}
    return {agent_files.record_name(source): agent_files.sha256(source)}


def plan_realtime(spec: str, games: int, seed: int, version: int = ep.PROTOCOL_VERSION) -> Plan:
    """The games of a real-time card; refuses a spec that names no agent or carries ``@``."""
    import agents
    from agents import agent_files, user_agents
    from speed_env.reaction import make_profile
    from speed_env.rules import make_rules
    from speed_lab.reaction_sweep import SweepSettings, plan_chunks

    proto = ep.protocol("realtime", version)
    parsed = agents.parse_spec(spec)
    if agents.vintage_agents.is_vintage(spec):
        raise EvaluationError(f"{spec!r} plays Vintage Speed: evaluate it with --game vintage")
    if parsed.reaction is not None:
        raise EvaluationError(
            f"{spec!r} carries its own reaction profile; the protocol gives every seat the "
            f"{proto['reaction']!r} profile, so give the spec without @"
        )
    plan = Plan("realtime", spec, games, seed, version, files=_user_files(spec))
    reaction = make_profile(proto["reaction"])
    for rs, cfg in proto["rule_sets"].items():
        rules = make_rules(cfg["preset"], **cfg["options"])
        try:
            _, files = agent_files.files_read(partial(agents.make, spec, rules, seed=0))
        except user_agents.UserAgentError as exc:
            if not isinstance(exc, user_agents.AgentBuildError):
                raise  # the file or name is wrong: nothing to evaluate
            plan.skipped[rs] = f"the agent refuses these rules: {_reason(exc)}"
            continue
        except ValueError as exc:
            plan.skipped[rs] = f"the agent refuses these rules: {_reason(exc)}"
            continue
        plan.files.update(files)
        for opp in proto["opponents"]:
            reason = _try_build(partial(agents.make, opp, rules, seed=0))
            if reason is not None:
                plan.skipped[f"{rs}/{opp}"] = f"{opp} refuses these rules: {reason}"
                continue
            settings = tournament.Settings(
                agents=(spec, opp),
                games=games,
                rules=rules,
                reaction=reaction,
                tick_ms=proto["tick_ms"],
                seed=seed,
                match=rs in proto["match_rule_sets"],
            )
            group = f"{rs}/{opp}"
            plan.groups[group] = {"kind": "pairing", "rule_set": rs, "opponent": opp}
            for chunk in harness.plan(1, settings.deals, proto["chunk_deals"]):
                plan.jobs.append((group, settings, chunk))
    if all(rs in plan.skipped for rs in proto["rule_sets"]):
        raise EvaluationError(
            f"{spec!r} plays none of the protocol's rule sets: "
            + "; ".join(f"{rs}: {plan.skipped[rs]}" for rs in proto["rule_sets"])
        )
    lat = proto["latency"]
    if lat["rule_set"] in plan.skipped or f"{lat['rule_set']}/{lat['opponent']}" in plan.skipped:
        plan.skipped["latency"] = f"the agent does not play {lat['rule_set']} against chain"
        return plan
    cfg = proto["rule_sets"][lat["rule_set"]]
    sweep = SweepSettings(
        agent=spec,
        opponent=lat["opponent"],
        latencies=tuple(str(ms) for ms in lat["agent_means_ms"]),
        opponent_latencies=(lat["opponent_reaction"],),
        games=max(2, lat["games"] * games // proto["games"]),  # --games scales the sweep too
        rules=make_rules(cfg["preset"], **cfg["options"]),
        tick_ms=proto["tick_ms"],
        seed=seed,
        jitter=lat["jitter"],
    )
    for k, point in enumerate(sweep.points()):
        ts = sweep.tournament_settings(point)
        group = f"latency/{point[0]}"
        plan.groups[group] = {"kind": "latency", "point": k, "sweep": sweep}
        for chunk in plan_chunks(ts):
            plan.jobs.append((group, ts, chunk))
    return plan


def _vintage_tables(spec: str, proto: dict[str, Any]) -> list[tuple[list[str], str | None]]:
    """The line-ups of a vintage card (the agent first) and a reason where one is skipped."""
    tables: list[tuple[list[str], str | None]] = []
    for bot in proto["opponents"]:
        mirror = "a mirror table (the agent is this bot)" if bot == spec else None
        tables.append(([spec] + [bot] * (proto["players"] - 1), mirror))
    for mix in proto["mixed_tables"]:
        mirror = "a mirror table (the agent is one of its bots)" if spec in mix else None
        tables.append(([spec, *mix], mirror))
    return tables


def plan_vintage(spec: str, games: int, seed: int, version: int = ep.PROTOCOL_VERSION) -> Plan:
    """The games of a vintage card; refuses a real-time agent."""
    import agents
    from agents import agent_files, vintage_agents
    from agents import vintage_tournament as vt

    proto = ep.protocol("vintage", version)
    if agents.REALTIME.knows(spec):
        raise EvaluationError(f"{spec!r} plays real-time Speed: evaluate it without --game vintage")
    vintage_agents.parse_spec(spec)
    plan = Plan("vintage", spec, games, seed, version, files=_user_files(spec))
    _, files = agent_files.files_read(lambda: vintage_agents.make(spec, seed=0))
    plan.files.update(files)
    for t, (lineup, reason) in enumerate(_vintage_tables(spec, proto)):
        group = f"table/{t}"
        if reason:
            plan.skipped[group] = reason
            continue
        others = tuple(dict.fromkeys(lineup[1:]))
        settings = vt.VintageSettings(
            agents=(spec, *others),
            players=proto["players"],
            games=games,
            seed=seed,
            gauntlet=spec if len(others) == 1 else None,
            options=tuple(sorted(proto["options"].items())),
        )
        plan.groups[group] = {"kind": "table", "lineup": lineup, "settings": settings}
        for chunk in vt.plan(settings):
            plan.jobs.append((group, settings, chunk))
    return plan


def make_plan(
    spec: str,
    game: str = "realtime",
    games: int | None = None,
    seed: int | None = None,
    version: int = ep.PROTOCOL_VERSION,
) -> Plan:
    """The plan of a card: ``games`` per pairing or table (default: the protocol's; fewer make
    a quick card whose manifest says so; rounded down to whole deals, each played once per
    seating) and the deal ``seed`` (default: the protocol's)."""
    proto = ep.protocol(game, version)
    games = proto["games"] if games is None else games
    least = proto.get("players", 2)
    if isinstance(games, bool) or not isinstance(games, int) or games < least:
        raise EvaluationError(
            f"--games must be a whole number of at least {least} (each deal is played once per "
            f"seating), got {games!r}"
        )
    seed = proto["seed"] if seed is None else seed
    # Whole deals only (each played once per seating): the card records the games played.
    games -= games % least
    maker = plan_vintage if game == "vintage" else plan_realtime
    return maker(spec, games, seed, version)


def run_plan(
    plan: Plan,
    workers: int = 1,
    progress: Callable[[int, int], None] | None = None,
    backend: Backend | None = None,
) -> tuple[dict[str, list[Any]], bool]:
    """Play every job: the chunk results by group, in plan order, and whether all finished."""
    results, complete = run_jobs(_job, plan.jobs, workers, progress, backend)
    by_group: dict[str, list[Any]] = {g: [] for g in plan.groups}
    for r in results:
        if r is not None:
            by_group[r[0]].append(r[1])
    return by_group, complete


# ------------------------------------------------------------------ the numbers
def load_anchors(game: str) -> dict[str, Any]:
    """The shipped reference-pool results of ``game`` (``{}`` when the file is missing)."""
    path = anchors_file(game)
    if not path.is_file():
        return {}
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def _pool(anchors: dict[str, Any], version: int, game: str, key: str) -> dict[str, Any] | None:
    return anchors.get(str(version), {}).get(game, {}).get(key)


def _rating(
    anchors: dict[str, Any],
    version: int,
    game: str,
    key: str,
    rows: list[tuple[str, int, int, int]],
    samples: int,
    seed: int,
) -> dict[str, Any]:
    from agents.anchored_rating import anchor_ratings, anchored_rating

    pool = _pool(anchors, version, game, key)
    if pool is None:
        return {"rating": None, "note": f"no anchors for protocol {version} {game} {key}"}
    fixed = anchor_ratings(pool)
    fit = anchored_rating(fixed, rows, samples=samples, seed=seed)
    if fit is None:
        return {"rating": None, "note": "no games against an anchored agent"}
    return {
        "rating": round(fit.rating, 2),
        "rating_ci": [round(fit.low, 2), round(fit.high, 2)],
        "against": list(fit.opponents),
        "anchors": {k: round(v, 2) for k, v in fixed.items()},
    }


def _pairing_row(settings: tournament.Settings, chunks: list[Any]) -> dict[str, Any]:
    from agents.stats import wilson_interval

    chunks = sorted(chunks, key=lambda c: c.chunk.start)
    games = sum(c.games for c in chunks)
    wins = sum(c.wins_a for c in chunks)
    losses = sum(c.wins_b for c in chunks)
    draws = sum(c.draws for c in chunks)
    score = wins + draws / 2
    lo, hi = wilson_interval(score, games)
    illegal = sum(c.illegal_a for c in chunks)
    row: dict[str, Any] = {
        "games": games,
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "truncations": sum(c.truncated for c in chunks),
        "win_rate": score / games if games else 0.0,
        "win_rate_ci": [lo, hi],
        "illegal_actions": illegal,
        "illegal_per_game": illegal / games if games else 0.0,
    }
    if settings.match:
        matches, left = tournament.pairing_matches(settings, chunks).get(0, ([], 0))
        won = sum(1 for w, _ in matches if w > 0)
        mlo, mhi = wilson_interval(won, len(matches))
        row["match"] = {
            "matches": len(matches),
            "match_wins": won,
            "match_win_rate": won / len(matches) if matches else None,
            "match_win_rate_ci": [mlo, mhi],
            "games_left_over": left,
        }
    return row


def _settings_of(plan: Plan, group: str) -> Any:
    return next(s for g, s, _ in plan.jobs if g == group)


def summarise_realtime(plan: Plan, by_group: dict[str, list[Any]]) -> dict[str, Any]:
    """The real-time card's results: per rule set and opponent, the latency fit (the ratings:
    :func:`rate`)."""
    from speed_lab import reaction_sweep as rs_mod

    proto = ep.protocol("realtime", plan.version)
    samples = proto["rating"]["bootstrap"]
    out: dict[str, Any] = {}
    for rs in proto["rule_sets"]:
        if rs in plan.skipped:
            out[rs] = {"skipped": plan.skipped[rs]}
            continue
        opponents: dict[str, Any] = {}
        for opp in proto["opponents"]:
            group = f"{rs}/{opp}"
            if group in plan.skipped:
                opponents[opp] = {"skipped": plan.skipped[group]}
                continue
            opponents[opp] = _pairing_row(_settings_of(plan, group), by_group[group])
        out[rs] = {"opponents": opponents}  # the rating: rate()
    latency: dict[str, Any] = {}
    if "latency" in plan.skipped:
        latency = {"skipped": plan.skipped["latency"]}
    else:
        groups = [g for g in plan.groups if plan.groups[g]["kind"] == "latency"]
        sweep = plan.groups[groups[0]]["sweep"]
        points = []
        for g in groups:
            lat, opp = sweep.points()[plan.groups[g]["point"]]
            outcomes = np.array(
                [o for c in sorted(by_group[g], key=lambda c: c.chunk.start) for o in c.outcomes],
                np.int8,
            )
            points.append(rs_mod.PointResult(lat, opp, outcomes))
        doc = rs_mod.summarise(sweep, points, bootstrap=samples)
        fit = doc.get("fit") or {}
        latency = {
            "opponent": f"{sweep.opponent}@{sweep.opponent_latencies[0]}",
            "rule_set": proto["latency"]["rule_set"],
            "points": [
                {
                    k: row[k]
                    for k in (
                        "latency_ms",
                        "opponent_latency_ms",
                        "games",
                        "win_rate",
                        "ci_low",
                        "ci_high",
                    )
                }
                for row in doc["points"]
            ],
            "break_even_ms": fit.get("break_even_ms"),
            "break_even_ci": fit.get("break_even_ci"),
            "break_even_latency_ms": fit.get("break_even_latency_ms"),
            "fit_p_value": fit.get("fit_p_value"),
            "meaning": "how many ms slower than chain (both jittered, at the median) the agent "
            "can react and still win half its games; negative: it must be faster",
        }
    return {"rule_sets": out, "latency": latency}


def summarise_vintage(plan: Plan, by_group: dict[str, list[Any]]) -> dict[str, Any]:
    """The vintage card's results: per table, and the agent's seat-by-seat comparisons with
    each bot, all tables together (the rating: :func:`rate`)."""
    from agents.stats import clustered_mean, wilson_interval
    from agents.vintage_stats import comparisons, game_table

    proto = ep.protocol("vintage", plan.version)
    tables: list[dict[str, Any]] = []
    per_bot: dict[str, list[float]] = {}  # bot -> [wins, draws, comparisons]
    for t, (lineup, _) in enumerate(_vintage_tables(plan.spec, proto)):
        group = f"table/{t}"
        if group in plan.skipped:
            tables.append({"lineup": lineup, "skipped": plan.skipped[group]})
            continue
        settings = plan.groups[group]["settings"]
        table = game_table(by_group[group], settings.deals)
        comp = comparisons(table)
        mine_a, mine_b = comp.a == 0, comp.b == 0
        scores = np.concatenate([comp.score_a[mine_a], 1.0 - comp.score_a[mine_b]])
        clusters = np.concatenate([comp.cluster[mine_a], comp.cluster[mine_b]])
        ahead, lo, hi = clustered_mean(scores, clusters)
        others = np.concatenate([comp.b[mine_a], comp.a[mine_b]])
        for k, name in enumerate(settings.agents):
            if k == 0:
                continue
            s = scores[others == k]
            acc = per_bot.setdefault(name, [0.0, 0.0, 0.0])
            acc[0] += float((s == 1).sum())
            acc[1] += float((s == 0.5).sum())
            acc[2] += float(s.size)
        seats = table.seating == 0
        finished = ~table.truncated
        seat_idx = np.arange(table.seating.shape[1])
        g_idx, s_idx = np.nonzero(seats & finished[:, None])
        pen, plo, phi = clustered_mean(table.penalty[g_idx, s_idx], table.cluster[g_idx])
        n = int(seats.sum())
        wins = int((seats & (table.winner[:, None] == seat_idx[None, :])).sum())
        wlo, whi = wilson_interval(wins, n)
        tables.append(
            {
                "lineup": lineup,
                "games": len(table.winner),
                "truncations": int(table.truncated.sum()),
                "finished_ahead_rate": ahead,
                "finished_ahead_ci": [max(0.0, lo), min(1.0, hi)],
                "mean_penalty": pen,
                "mean_penalty_ci": [plo, phi],
                "wins": wins,
                "win_rate": wins / n if n else 0.0,
                "win_rate_ci": [wlo, whi],
            }
        )
    counts = {
        bot: {"wins": int(w), "draws": int(d), "games": int(g)}
        for bot, (w, d, g) in per_bot.items()
    }
    return {"tables": tables, "comparisons": counts}  # the rating: rate()


# ------------------------------------------------------------------ timing
def decision_cost(spec: str, version: int = ep.PROTOCOL_VERSION) -> dict[str, Any]:
    """CPU microseconds per decision at each batch size of the protocol (real-time Speed)."""
    import agents
    from speed_env.batch import BatchEnv
    from speed_env.rules import make_rules

    proto = ep.protocol("realtime", version)
    cost = proto["decision_cost"]
    cfg = proto["rule_sets"][cost["rule_set"]]
    rules = make_rules(cfg["preset"], **cfg["options"])
    policy = agents.make(spec, rules, seed=0)
    size = max(cost["batches"])
    env = BatchEnv(size, rules)
    obs, mask = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(20):  # some way into the games: hands and piles vary
        acts = np.stack(
            [
                np.where(mask[p].any(1), (mask[p] * rng.random(mask[p].shape)).argmax(1), 0)
                for p in range(2)
            ]
        )
        obs, mask, *_ = env.step(acts)
    out: dict[str, Any] = {}
    for batch in cost["batches"]:
        o, m = obs[0][:batch], mask[0][:batch]
        policy.act(o, m)  # warm-up (compilation, caches)
        calls, t0 = 0, time.process_time()
        while True:
            policy.act(o, m)
            calls += 1
            spent = time.process_time() - t0
            if spent >= cost["min_seconds"]:
                break
        out[f"batch_{batch}_us_per_decision"] = round(1e6 * spent / (calls * batch), 3)
    return out


# ------------------------------------------------------------------ the card
def card(
    plan: Plan,
    by_group: dict[str, list[Any]],
    anchors: dict[str, Any] | None = None,
    timing: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The ``report.json`` document: manifest, results, and (apart) the timing fields."""
    summarise = summarise_vintage if plan.game == "vintage" else summarise_realtime
    manifest = ep.manifest(plan.game, plan.spec, plan.files, plan.games, plan.seed, plan.version)
    doc = {
        "card": "speed-rl evaluation report",
        "protocol": plan.version,
        "game": plan.game,
        "agent": plan.spec,
        "manifest": manifest,
        "skipped": dict(plan.skipped),
        "results": summarise(plan, by_group),
        "timing": timing or {},
    }
    return rate(doc, load_anchors(plan.game) if anchors is None else anchors)


def rate(card: dict[str, Any], anchors: dict[str, Any]) -> dict[str, Any]:
    """The card with its anchored ratings (re)computed from its own results and ``anchors``.

    A pure function of the card's counts, the anchors and the card's deal seed (the bootstrap's
    seed), so a card rated when it is made equals one rated later against the same anchors.
    """
    from agents.eval_alpharank import card_alpharank

    out = json.loads(json.dumps(card))  # a deep copy
    version, game = out["protocol"], out["game"]
    proto = ep.protocol(game, version)
    samples, seed = proto["rating"]["bootstrap"], out["manifest"]["seeds"]["deals"]
    keys = ("rating", "rating_ci", "against", "anchors", "note")
    if game == "vintage":
        res = out["results"]
        rows = [(b, c["wins"], c["draws"], c["games"]) for b, c in res["comparisons"].items()]
        for k in keys:
            res.pop(k, None)
        res.update(_rating(anchors, version, game, "4p", rows, samples, seed))
        res["alpharank"] = card_alpharank(out, anchors)
        return out
    for rs, row in out["results"]["rule_sets"].items():
        if "opponents" not in row:
            continue
        rows = [
            (opp, r["wins"], r["draws"], r["games"])
            for opp, r in row["opponents"].items()
            if "games" in r
        ]
        for k in keys:
            row.pop(k, None)
        row.update(_rating(anchors, version, game, rs, rows, samples, seed))
    out["results"]["alpharank"] = card_alpharank(out, anchors)
    return out
