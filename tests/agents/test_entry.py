"""A program's entry point (``agents.runtime.entry.run_main``, which ``speed`` runs under): a
Ctrl-C or SIGTERM ends it with one line, also one that lands while the kit imports, or in a C
callback where Python swallows it (numba's, as it caches a kernel: ``RuntimeError: no compiled
object yet``); a real ``RuntimeError`` is still raised."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

import pytest

import speed_cli

CALLBACK = ctypes.CFUNCTYPE(None)


def _python_call() -> None:
    """A Python frame: where a pending signal's handler runs (and raises)."""


def _in_a_c_callback(body) -> None:
    """Run ``body`` as C code calls it back: what it raises, Python only reports as
    "Exception ignored" (numba's object-cache hook, from LLVM, is such a callback)."""
    CALLBACK(body)()


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    _python_call()


def _term() -> None:
    os.kill(os.getpid(), signal.SIGTERM)
    _python_call()


@pytest.fixture
def ctrl_c_raises():
    """SIGINT raised as Python raises it by default (a test runner may have it ignored)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


@pytest.mark.parametrize(
    ("send", "said", "status"),
    [(_ctrl_c, "interrupted", 130), (_term, "interrupted (SIGTERM)", 143)],
    ids=["ctrl-c", "sigterm"],
)
def test_an_interrupt_swallowed_in_a_c_callback_then_failed_on_ends_as_the_interrupt(
    monkeypatch, capsys, ctrl_c_raises, send, said, status
):
    """numba's way: the interrupt lands in its cache callback, which swallows it, and the
    compile then fails on the object the callback never kept."""

    def compiles(args):
        _in_a_c_callback(send)
        raise RuntimeError("no compiled object yet for <Library 'latency_ms'>")

    monkeypatch.setattr(speed_cli.agents, "run", compiles)
    assert speed_cli.main(["agents"]) == status
    assert capsys.readouterr().err == f"{said}\n"  # one line: no "Exception ignored", no trace


def test_a_runtime_error_with_no_interrupt_before_it_is_raised(monkeypatch, capsys):
    def fails(args):
        raise RuntimeError("no compiled object yet for <Library 'latency_ms'>")

    monkeypatch.setattr(speed_cli.agents, "run", fails)
    with pytest.raises(RuntimeError, match="no compiled object yet"):
        speed_cli.main(["agents"])
    assert capsys.readouterr().err == ""


def test_a_ctrl_c_while_the_parser_imports_the_kit_ends_with_one_line(monkeypatch, capsys):
    """Building the parser imports the kit, where numba compiles in a fresh tree."""

    def imports() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(speed_cli, "build_parser", imports)
    assert speed_cli.main(["agents"]) == 130
    assert capsys.readouterr().err == "interrupted\n"


class _InterruptedImport:
    """A finder that meets ``body`` where ``speed`` first imports the kit."""

    def __init__(self, body) -> None:
        self.body = body

    def find_spec(self, name, path=None, target=None):
        if name == "agents.runtime.entry":
            self.body()
        return None


def _swallowed_then_failed() -> None:
    _in_a_c_callback(_ctrl_c)
    raise RuntimeError("no compiled object yet for <Library 'latency_ms'>")


def _swallowed() -> None:
    _in_a_c_callback(_ctrl_c)  # and the import goes on: no error tells of it


def _ctrl_c_raised() -> None:
    raise KeyboardInterrupt


@pytest.mark.parametrize("body", [_ctrl_c_raised, _swallowed_then_failed, _swallowed])
def test_a_ctrl_c_while_speed_first_imports_the_kit_ends_with_one_line(
    monkeypatch, capsys, ctrl_c_raises, body
):
    monkeypatch.delitem(sys.modules, "agents.runtime.entry", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_InterruptedImport(body), *sys.meta_path])
    assert speed_cli.main(["agents"]) == 130
    assert capsys.readouterr() == ("", "interrupted\n")  # the command never ran


def test_a_runtime_error_while_speed_imports_the_kit_with_no_interrupt_is_raised(monkeypatch):
    def fails() -> None:
        raise RuntimeError("a broken install")

    monkeypatch.delitem(sys.modules, "agents.runtime.entry", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_InterruptedImport(fails), *sys.meta_path])
    with pytest.raises(RuntimeError, match="a broken install"):
        speed_cli.main(["agents"])


def test_what_else_a_callback_swallows_is_still_reported(monkeypatch):
    from agents.runtime.entry import run_main

    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)

    def raises() -> None:
        raise ValueError("a bug in a callback")

    def main() -> int:
        _in_a_c_callback(raises)
        return 0

    assert run_main(main) == 0
    assert [type(u.exc_value) for u in reported] == [ValueError]
    assert sys.unraisablehook == reported.append  # the entry's hook is gone with it
