# One entry per task. `make demo` and `make test` set everything up on a fresh
# machine with Python 3.11 (a venv in .venv; torch's local CPU build first).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

AGENTS ?= random,greedy,chain,trained

.PHONY: setup setup-ray run demo test test-ray test-fast lint bench clean

# Ray and RLlib (the [ray] extra) get a venv of their own: RLlib 2.60 pins gymnasium==1.2.2,
# while the main venv keeps the newest Gymnasium the kit supports (README, "Past one machine").
RAY_VENV := .venv-ray
RAY_BIN := $(RAY_VENV)/bin
RAY_STAMP := $(RAY_VENV)/.installed

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,plot,dev,web]"
	touch $(STAMP)

setup: $(STAMP)

$(RAY_STAMP): pyproject.toml
	$(PY) -m venv $(RAY_VENV)
	$(RAY_BIN)/pip install -q --upgrade pip
	$(RAY_BIN)/pip install -q torch==2.13.0
	$(RAY_BIN)/pip install -q -e ".[ray,plot,dev]"
	touch $(RAY_STAMP)

setup-ray: $(RAY_STAMP)  ## the [ray] extra (Ray, RLlib) in .venv-ray

run: setup  ## the main job: a short tournament of the bundled bots
	$(BIN)/speed tournament --agents $(AGENTS) --games 400 --rules us --seed 0 --workers 2 --out results

demo: setup  ## one game between two bots, shown as text
	$(BIN)/speed demo

test: setup setup-ray  ## the whole suite, slow tests included (CI runs this)
	$(BIN)/python -m pytest -n 2 -q
	$(RAY_BIN)/python -m pytest -q -p no:xdist tests/cluster

test-ray: setup-ray  ## only the Ray/RLlib tests, in .venv-ray (one local cluster at a time)
	$(RAY_BIN)/python -m pytest -q -p no:xdist tests/cluster

test-fast: setup
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

lint: setup
	$(BIN)/ruff check speed_env agents train tests benchmarks examples speed_cli.py
	$(BIN)/mypy

bench: setup
	$(BIN)/speed bench

clean:
	rm -rf $(VENV) $(RAY_VENV) .pytest_cache .ruff_cache .mypy_cache
