# One entry per task. `make demo` and `make test` set everything up on a fresh
# machine with Python 3.11 (a venv in .venv; torch's local CPU build first).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

AGENTS ?= random,greedy,chain,trained

.PHONY: setup run demo test test-fast lint bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,plot,dev,web]"
	touch $(STAMP)

setup: $(STAMP)

run: setup  ## the main job: a short tournament of the bundled bots
	$(BIN)/speed tournament --agents $(AGENTS) --games 400 --rules us --seed 0 --workers 2 --out results

demo: setup  ## one game between two bots, shown as text
	$(BIN)/speed demo

test: setup  ## the whole suite, slow tests included (CI runs this)
	$(BIN)/python -m pytest -n 2 -q

test-fast: setup
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

lint: setup
	$(BIN)/ruff check speed_env agents train tests benchmarks speed_cli.py
	$(BIN)/mypy

bench: setup
	$(BIN)/speed bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
