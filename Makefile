# One entry per task. `make demo` and `make test` set everything up on a fresh
# machine with Python 3.11 (a venv in .venv; torch's local CPU build first).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# AgileRL pins pettingzoo<1.27 (the kit's venv has 1.27) and tensordict 0.13, so its worked
# example (examples/agilerl_ippo.py) runs in a venv of its own; tests/test_examples.py uses it.
# AgileRL 2.58 imports peft on `import agilerl.algorithms` but lists it only in its llm extras.
AGILERL_VENV := .venv-agilerl
AGILERL_STAMP := $(AGILERL_VENV)/.installed
AGILERL_PINS := agilerl==2.58.0 pettingzoo==1.26.1 peft==0.21.0

AGENTS ?= random,greedy,chain,trained

.PHONY: setup setup-agilerl run demo test test-fast lint bench clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e ".[train,plot,dev,web,examples]"
	touch $(STAMP)

setup: $(STAMP)

$(AGILERL_STAMP): pyproject.toml Makefile
	$(PY) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/pip install -q --upgrade pip
	$(AGILERL_VENV)/bin/pip install -q torch==2.13.0
	$(AGILERL_VENV)/bin/pip install -q -e . $(AGILERL_PINS)
	touch $(AGILERL_STAMP)

setup-agilerl: $(AGILERL_STAMP)  ## the AgileRL example's own venv (its pins differ from the kit's)

run: setup  ## the main job: a short tournament of the bundled bots
	$(BIN)/speed tournament --agents $(AGENTS) --games 400 --rules us --seed 0 --workers 2 --out results

demo: setup  ## one game between two bots, shown as text
	$(BIN)/speed demo

test: setup setup-agilerl  ## the whole suite, slow tests included (CI runs this)
	$(BIN)/python -m pytest -n 2 -q

test-fast: setup
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

lint: setup
	$(BIN)/ruff check speed_env agents train tests benchmarks examples speed_cli.py
	$(BIN)/mypy

bench: setup
	$(BIN)/speed bench

clean:
	rm -rf $(VENV) $(AGILERL_VENV) .pytest_cache .ruff_cache .mypy_cache
