"""Calls into an agent, attributed and checked: every failure is one line naming the agent.

A tournament, an evaluation and the browser table run agents written by other
people. Every call into one goes through here:

=====================  ==========================================================
:func:`calling`        a context manager around any call into an agent (its
                       constructor, a factory, ``act``): whatever escapes it
                       (an exception, ``sys.exit``, ``os._exit``) becomes an
                       :class:`AgentFailure` naming the agent spec, the call and
                       where it was played
:func:`checked_act`    ``policy.act(obs, mask)`` under :func:`calling`, then its
                       answer checked (shape ``(n,)``, an integer dtype, values
                       in range, legal where the game requires it) before the
                       caller stacks it with another seat's; optionally within a
                       time limit
:func:`seed_globals`   Python's ``random`` and numpy's global generator seeded
                       from a chunk's seed, so a bot using them replays exactly
=====================  ==========================================================

**Time limit** (``act_timeout``): the call runs on a helper daemon thread and
the caller waits at most that long. A call that overruns fails the agent at the
deadline, even one that never returns: the helper thread is abandoned (Python
cannot stop a thread), keeps its CPU until it ends or the process exits, and
the agent is not called again. Without a limit the call runs on the caller's
thread, at no cost.

**What this is not**: a sandbox. An agent runs in the kit's process with the
kit's rights; it can read and write files, kill the process by a signal, or
swallow a ``KeyboardInterrupt``. What is contained is an agent that fails by
mistake, not one written to do harm (docs/evaluate.md, "Running other people's
bots").
"""

from __future__ import annotations

import os
import queue
import random
import threading
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import numpy as np

from agents.runtime.failures import AgentFailure


class ProcessExit(BaseException):
    """Raised in place of ``os._exit(code)`` while an agent is being called.

    A ``BaseException``, as ``SystemExit`` is: an agent's ``except Exception`` never catches it.
    """


def describe(exc: BaseException) -> str:
    """What an exception says, whole and on one line (``KeyError: 'japanese'``)."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    if isinstance(exc, ProcessExit):
        return f"called os._exit({exc.args[0]!r})"
    text = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return " ".join(text.split()) or type(exc).__name__


# While any agent call is in progress, os._exit raises ProcessExit instead of ending the process
# (an agent calling it would otherwise end a tournament silently, its exit code chosen by the
# bot). Counted, because table pages call their bots on several threads at once.
_exit_lock = threading.Lock()
_exit_depth = 0
_real_exit = os._exit


def _refuse_exit(status: int) -> NoReturn:
    raise ProcessExit(status)


@contextmanager
def exits_refused() -> Iterator[None]:
    """Within the body, ``os._exit`` raises :class:`ProcessExit` instead of ending the process."""
    global _exit_depth
    with _exit_lock:
        _exit_depth += 1
        os._exit = _refuse_exit
    try:
        yield
    finally:
        with _exit_lock:
            _exit_depth -= 1
            if _exit_depth == 0:
                os._exit = _real_exit


@contextmanager
def calling(
    spec: str, call: str, where: str = "", *, passthrough: tuple[type[BaseException], ...] = ()
) -> Iterator[None]:
    """Run the body as a call into agent ``spec``; what escapes becomes one :class:`AgentFailure`.

    Its line reads ``agent SPEC failed in CALL (WHERE): WHAT``. Left as they are:
    ``KeyboardInterrupt``, and the ``passthrough`` types, a refusal the caller handles.
    An :class:`AgentFailure` from a nested call goes on, ``[CALL, WHERE]`` added to its line.
    """
    try:
        with exits_refused():
            yield
    except KeyboardInterrupt:  # the user's Ctrl-C, never the agent's failure
        raise
    except BaseException as exc:  # SystemExit and ProcessExit too: an agent must not end a run
        if isinstance(exc, passthrough):
            raise
        if isinstance(exc, AgentFailure):
            context = ", ".join(x for x in (call, where) if x)
            if not context or f"[{context}]" in exc.message:  # said once, however deep the nesting
                raise
            raise AgentFailure(f"{exc.message} [{context}]", exc.spec) from None
        raise AgentFailure(failure_line(spec, call, where, describe(exc)), spec) from None


def failure_line(spec: str, call: str, where: str, what: str) -> str:
    """The one line an :class:`AgentFailure` says."""
    place = f" ({where})" if where else ""
    return f"agent {spec} failed in {call}{place}: {what}"


def _run_with_deadline(
    fn: Callable[[], Any], seconds: float, spec: str, call: str, where: str
) -> Any:
    """``fn()`` on a daemon thread, waited for at most ``seconds`` (see the module docstring)."""
    box: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()

    def target() -> None:
        try:
            box.put((True, fn()))
        except BaseException as exc:  # handed to the caller's thread, which attributes it
            box.put((False, exc))

    threading.Thread(target=target, name=f"agent {spec}", daemon=True).start()
    try:
        ok, value = box.get(timeout=seconds)
    except queue.Empty:
        raise AgentFailure(
            failure_line(spec, call, where, f"no answer within --act-timeout {seconds:g} s"), spec
        ) from None
    if not ok:  # raised on the caller's thread; checked_act's fn has attributed it already
        raise value
    return value


def checked_act(
    policy: Any,
    obs: np.ndarray,
    mask: np.ndarray,
    *,
    spec: str,
    where: str = "",
    rows: Callable[[int], str] | None = None,
    legal_only: bool = False,
    timeout: float | None = None,
) -> np.ndarray:
    """``policy.act(obs, mask)`` attributed and checked: an int64 array of shape ``(n,)``.

    ``where`` says what is being played (``a vs b, seat 1``); ``rows(i)``
    names row ``i``'s game (``deal 17``) for a row whose action is wrong.
    ``legal_only`` requires every action to be allowed by ``mask`` (a turn-based
    game, where an illegal action is an error; a real-time illegal action is a
    counted wait). ``timeout``: seconds per call (see the module docstring).
    Raises :class:`AgentFailure`.
    """

    def call() -> Any:
        with calling(spec, "act", where):
            return policy.act(obs, mask)

    raw = call() if timeout is None else _run_with_deadline(call, timeout, spec, "act", where)
    return check_actions(raw, mask, spec=spec, where=where, rows=rows, legal_only=legal_only)


def check_actions(
    raw: Any,
    mask: np.ndarray,
    *,
    spec: str,
    where: str = "",
    rows: Callable[[int], str] | None = None,
    legal_only: bool = False,
) -> np.ndarray:
    """An agent's answer to ``act`` as int64 ``(n,)``, or an :class:`AgentFailure` saying why not.

    Checked before two seats' answers are stacked, since stacking would convert one.
    """
    n, n_actions = mask.shape

    def fail(what: str) -> AgentFailure:
        return AgentFailure(failure_line(spec, "act", where, what), spec)

    if raw is None:
        raise fail(f"act returned None, not {n} actions")
    # Before asarray, which would make [True, 2] ints and [None, 2] objects without a word.
    if isinstance(raw, list | tuple) and any(isinstance(a, bool | float) or a is None for a in raw):
        bad = next(a for a in raw if isinstance(a, bool | float) or a is None)
        raise fail(f"act returned {type(raw).__name__} holding {bad!r}: actions are ints")
    try:
        actions = np.asarray(raw)
    except Exception as exc:  # any object can come back, and its conversion raise anything
        raise fail(f"act returned {type(raw).__name__}, not an array: {describe(exc)}") from None
    if actions.dtype.kind not in "iu":
        raise fail(
            f"act returned dtype {actions.dtype} (of {type(raw).__name__}): actions are integers"
        )
    if actions.shape != (n,):
        raise fail(f"act returned shape {actions.shape}, expected ({n},) for {n} observations")
    out_of_range = (actions < 0) | (actions >= n_actions)
    if out_of_range.any():
        i = int(np.flatnonzero(out_of_range)[0])
        raise fail(f"{_row(rows, i)}: action {int(actions[i])} is outside 0..{n_actions - 1}")
    actions = actions.astype(np.int64)  # safe for uint64 too: the range is checked above
    if legal_only:
        illegal = mask[np.arange(n), actions] == 0
        if illegal.any():
            i = int(np.flatnonzero(illegal)[0])
            legal = np.flatnonzero(mask[i]).tolist()
            raise fail(f"{_row(rows, i)}: action {int(actions[i])} is illegal (legal: {legal})")
    return actions


def _row(rows: Callable[[int], str] | None, i: int) -> str:
    return rows(i) if rows is not None else f"row {i}"


def seed_globals(seed: int) -> None:
    """Seed Python's ``random`` and numpy's global generator from a chunk's ``seed``.

    So an agent that draws from them plays the same for the same ``--seed`` and any
    ``--workers``.
    """
    random.seed(seed)
    # Masked: the legacy generator takes a seed of 32 bits only.
    np.random.seed(seed & 0xFFFFFFFF)  # noqa: NPY002 - the legacy global generator is the point


def positive_seconds(value: float | None) -> float | None:
    """Check an ``act_timeout``: ``None`` (no limit) or a finite number of seconds above 0."""
    if value is None:
        return None
    # The upper bound refuses inf; nan fails every comparison, so it is refused too.
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1e9:
        raise ValueError(f"act_timeout must be a number of seconds above 0, got {value!r}")
    return float(value)


__all__ = [
    "ProcessExit",
    "calling",
    "check_actions",
    "checked_act",
    "describe",
    "exits_refused",
    "failure_line",
    "positive_seconds",
    "seed_globals",
]
