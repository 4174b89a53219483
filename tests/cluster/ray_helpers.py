"""Helpers for the Ray tests: loopback-only `ray start` nodes in their own processes."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SKIP_REASON = (
    "the [ray] extra is not installed in this venv; `make test` runs tests/cluster in .venv-ray"
)

# Ray rewrites a bootstrap address of 127.0.0.1 to the machine's outward IP (so that a real
# cluster's nodes can reach it). These tests keep every node and every connection on loopback,
# so they switch that rewrite off, in the `ray start` processes and in the test's own driver.
_LAUNCHER = (
    "import sys\n"
    "from ray._private import services\n"
    "services.resolve_ip_for_localhost = lambda host: host\n"
    "from ray.scripts.scripts import main\n"
    "sys.exit(main())\n"
)


def loopback_ray(monkeypatch: Any) -> None:
    """Keep this process's Ray connections on 127.0.0.1 (see ``_LAUNCHER``)."""
    from ray._private import services

    monkeypatch.setattr(services, "resolve_ip_for_localhost", lambda host: host)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(1.0)
        return s.connect_ex(("127.0.0.1", port)) == 0


def ray_start(args: list[str], log: Path, timeout: float = 120.0) -> subprocess.Popen[bytes]:
    """``ray start --block`` with one CPU on 127.0.0.1 in a new process group; a head is
    returned once its port answers."""
    cmd = [
        sys.executable,
        "-c",
        _LAUNCHER,
        "start",
        "--block",
        "--node-ip-address=127.0.0.1",
        "--num-cpus=1",
        "--disable-usage-stats",
        *args,
    ]
    if "--head" in args:
        cmd.append("--include-dashboard=false")
    with log.open("wb") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)

    port = next((a.split("=", 1)[1] for a in args if a.startswith("--port=")), None)
    if port is not None:
        deadline = time.monotonic() + timeout
        while not _listening(int(port)):
            if proc.poll() is not None or time.monotonic() > deadline:
                stop(proc)
                raise AssertionError(f"ray head did not start: {log.read_text()[-2000:]}")
            time.sleep(0.5)
    return proc


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Stop a `ray start --block` node: SIGTERM (it drains and stops its own processes), then,
    if it hangs, SIGKILL to its process group."""
    proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
