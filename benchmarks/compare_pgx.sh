#!/usr/bin/env bash
# The README's performance table: `speed bench --compare` with pgx installed beside the kit.
#
# pgx and JAX are not in the kit's venvs: the first run makes .venv-pgx (the kit's core
# dependencies at the versions of constraints.txt, pettingzoo[classic] for connect_four_v3,
# pgx 2.6.0 with jax[cpu] 0.10.2, the kit itself editable), then every run prints the
# load average and the table RUNS times (default 3; report the median of the ratios).
# Usage: benchmarks/compare_pgx.sh   (RUNS=1 PYTHON=python3.12 to change)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-pgx
if [ ! -x "$venv/bin/speed" ]; then
    "${PYTHON:-python3.11}" -m venv "$venv"
    "$venv/bin/pip" install -q -c constraints.txt numpy numba llvmlite gymnasium "pettingzoo[classic]"
    "$venv/bin/pip" install -q pgx==2.6.0 "jax[cpu]==0.10.2"
    "$venv/bin/pip" install -q --no-deps -e .
fi
for _ in $(seq "${RUNS:-3}"); do
    uptime
    "$venv/bin/speed" bench --compare --sizes 4096 --seconds 10 --rounds 5
done
