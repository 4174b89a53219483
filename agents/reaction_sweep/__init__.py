"""Reaction-delay experiments: how many milliseconds of reaction is a strategy worth?

A sweep plays one agent against one opponent at several reaction latencies
(or a grid of both players' latencies) on paired deals, through the
tournament harness (``agents.tournament.realtime``): each point is a two-agent
tournament between ``AGENT@LATENCY`` and ``OPPONENT@OPPONENT_LATENCY``. Every
point uses the same seed, so every point plays the same deals (common random
numbers): the differences between points are the latencies, not the luck of
the deal.

The win rate (a draw counts half, as in the tournament) is then fitted by a
logistic curve of the latency difference ``d = agent - opponent`` (ms),
``P(win) = 1 / (1 + exp(-(a + b d)))``, by maximum likelihood on the game
counts. Two numbers summarise it:

- the **break-even difference** ``-a / b``: how many ms slower than its
  opponent the agent can be and still win half its games (negative when it
  must be faster);
- the **ms per ten points** ``ln(1.5) / |b|``: the latency change that moves
  the win rate from 50% to 60% on the fitted curve (its slope at the middle).

Their 95% intervals come from a bootstrap over deals: a resample draws deals
(both seatings of a deal together) with replacement, the same deals at every
point, since the points share their deals, and refits the curve.

Latencies are fixed milliseconds (``250``) or reaction-profile names
(``human``, ``pro`` …; see ``speed_env/reaction.py``), the jittered
ex-Gaussian profiles: a named profile enters a spec as ``chain@human``.
With ``jitter`` set to a preset name, each of the agent's numeric latencies
``L`` is that preset's shape moved so that its median is ``L``
(``shifted_profile``; protocol 1 of ``speed evaluate`` places its Gaussian
centre ``mu`` instead, ``jitter_at="mu"``): every quantile moves by the same amount, so latency
differences between such profiles are the same at the median, the mean or
any percentile. The tournament gives that profile to the agent through its
``Settings.reaction`` (the profile of a spec without ``@``), which it holds
once per match: the opponent's latencies stay fixed ms or preset names.
Every latency number shown (table, plot, ``reaction.csv``'s ``latency_ms``) is
a median: a fixed latency is its own, a jittered profile sits at its measured
median (for ``human``, 304 ms, 64 ms above its ``mu``), a shaped ``L`` at ``L``. Mixing fixed
and jittered players in one sweep is allowed but puts two kinds of player
on one curve.

With fixed latencies both players act on the same ticks and the faster card
always lands first, so the win rate is a step at ``d = 0`` (1 ms faster wins
as often as 100 ms faster) and no logistic curve fits it; the fit's deviance
test (``LogisticFit.fit_p_value``) flags that, and ``headline`` says to read
the points instead. Jittered profiles give smooth, logistic curves.

Pure functions over plain data, a module a job (the evaluation card's break-even latency is
a sweep too):

- :mod:`~agents.reaction_sweep.work`: the settings and the work (``SweepSettings.points``,
  ``plan_chunks``), a point's games (``PointResult``).
- :mod:`~agents.reaction_sweep.sweep`: ``run_sweep``, every point's chunks in one pool of jobs.
- :mod:`~agents.reaction_sweep.crowd`: a point at a table of three or four (``rules.players``):
  the agent in each seat in turn against the opponent in every other seat.
- :mod:`~agents.reaction_sweep.fit`: the statistics, ``fit_logistic`` and ``bootstrap_fit``.
- :mod:`~agents.reaction_sweep.summary`: ``summarise``, the points as ``reaction.json``'s
  summary: counts and the fit.
- :mod:`~agents.reaction_sweep.results`: the results as text: ``rows_csv``, ``table``,
  ``headline``.
- :mod:`~agents.reaction_sweep.plots`: ``curve_png`` and ``grid_png`` (matplotlib is imported
  only inside them).
- :mod:`~agents.reaction_sweep.files`: the output folder, ``write_outputs`` and ``load``.

At a table of three or four (``--players``, Party Speed) the agent plays against ``n - 1``
copies of its opponent, each deal once with the agent in each seat (seat rotation), a draw
counting ``1/n``; the break-even is read where the agent wins its fair share ``1/n``, and the
ms per ten points from that share to ten points above it.

Every public name is importable from the package (``from agents import reaction_sweep as
rs``); ``speed experiment reaction`` runs a sweep from the command line.
"""

from __future__ import annotations

from agents.reaction_sweep.files import FILES, load, write_outputs
from agents.reaction_sweep.fit import (
    LN_1_5,
    Bootstrap,
    LogisticFit,
    bootstrap_fit,
    deal_scores,
    fit_logistic,
)
from agents.reaction_sweep.plots import curve_png, grid_png
from agents.reaction_sweep.results import CSV_COLUMNS, headline, rows_csv, sweep_label, table
from agents.reaction_sweep.summary import summarise
from agents.reaction_sweep.sweep import run_sweep
from agents.reaction_sweep.work import (
    CHUNK_DEALS,
    PointResult,
    SweepError,
    SweepSettings,
    latency_axis_ms,
    parse_latencies,
    plan_chunks,
    profile_for,
    shifted_profile,
)

__all__ = [
    "CHUNK_DEALS",
    "CSV_COLUMNS",
    "FILES",
    "LN_1_5",
    "Bootstrap",
    "LogisticFit",
    "PointResult",
    "SweepError",
    "SweepSettings",
    "bootstrap_fit",
    "curve_png",
    "deal_scores",
    "fit_logistic",
    "grid_png",
    "headline",
    "latency_axis_ms",
    "load",
    "parse_latencies",
    "plan_chunks",
    "profile_for",
    "rows_csv",
    "run_sweep",
    "shifted_profile",
    "summarise",
    "sweep_label",
    "table",
    "write_outputs",
]
