"""Run a benchmark script so that ``perf`` can name the compiled kernels it samples.

numba's kernels live in memory that ``perf`` cannot name; once the script
has run, this writes ``/tmp/perf-<pid>.map`` (the format ``perf report``
reads for code made at run time), one line per compiled kernel: its address,
the distance to the next kernel, its name. Kernels compiled into a caller
(numba links a callee's code into each caller) count as the caller: the
skip loop's ``play_forced`` holds ``chain``'s compiled scoring, for one.

Run: perf record -F 4000 -o perf.data python benchmarks/perf_map.py benchmarks/vec_env.py
--opponents chain --steps 4800, then perf report -i perf.data --no-children --sort sym
"""

from __future__ import annotations

import gc
import os
import runpy
import sys
from pathlib import Path
from typing import Any


def kernel_addresses() -> dict[int, str]:
    """The entry address of every compiled overload of every numba function now alive."""
    from numba.core.registry import CPUDispatcher

    found: dict[int, str] = {}
    for obj in gc.get_objects():
        if isinstance(obj, CPUDispatcher):
            for compiled in obj.overloads.values():
                cres: Any = compiled  # numba's stubs do not declare its library or fndesc
                address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
                if address:
                    found[address] = cres.fndesc.qualname
    return found


def write_map(found: dict[int, str], path: Path) -> None:
    """``perf``'s map file: each kernel spans up to the next one's address (at most 1 MiB)."""
    starts = sorted(found)
    ends = [*starts[1:], starts[-1] + 4096] if starts else []
    lines = [f"{a:x} {min(b - a, 1 << 20):x} {found[a]}" for a, b in zip(starts, ends, strict=True)]
    path.write_text("".join(line + "\n" for line in lines))


def main() -> None:
    """Run the script named first with the arguments after it, then write the map."""
    if len(sys.argv) < 2:
        raise SystemExit("usage: perf_map.py SCRIPT [ARGS...]")
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    sys.path.insert(0, str(Path(script).resolve().parent))
    runpy.run_path(script, run_name="__main__")
    found = kernel_addresses()
    path = Path(f"/tmp/perf-{os.getpid()}.map")
    write_map(found, path)
    print(f"wrote {path} ({len(found)} kernels)")


if __name__ == "__main__":
    main()
