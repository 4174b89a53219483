"""Programs run as ``python -m MODULE`` whose stdout's reader is gone, for the entry tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys

INTO_CLOSED_PIPES = """
import json, os, runpy, sys
codes = {}
for name in sys.argv[1:]:
    read, write = os.pipe()  # a reader gone before the first line, as head's after its lines
    os.close(read)
    os.dup2(write, 1)
    os.close(write)
    sys.argv = [name, "--help"]
    try:
        runpy.run_module(name, run_name="__main__", alter_sys=True)  # as -m runs it
        codes[name] = "returned"
    except SystemExit as exc:
        codes[name] = exc.code
print(json.dumps(codes), file=sys.stderr)
os._exit(0)  # stdout: a closed pipe, which a flush at exit would only complain about
"""


def python(code: str, *argv: str) -> subprocess.CompletedProcess[str]:
    """Python running ``code``; its stdout a pipe, buffered as a program's is under ``| head``
    (unbuffered, ``--help``'s one write would raise inside argparse, which ignores it)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("PYTHONUNBUFFERED", None)
    return subprocess.run(
        [sys.executable, "-c", code, *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def help_into_a_reader_gone(*modules: str) -> tuple[dict[str, object], list[str]]:
    """Each of ``modules`` run as ``python -m MODULE --help`` into a pipe whose reader is gone
    (one process for all: the imports shared): its exit code, and what else went to stderr."""
    done = python(INTO_CLOSED_PIPES, *modules)
    assert done.returncode == 0, done.stderr
    *noise, last = done.stderr.strip().splitlines()
    return json.loads(last), noise
