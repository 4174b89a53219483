# One entry per task. `make demo` and `make test` set everything up on a fresh
# machine with Python 3.11 (a venv in .venv; torch's local CPU build first).
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The extras `make setup` installs, and so the ones `make lock` pins: add a new extra here.
EXTRAS ?= train,plot,render,dev,web,examples
# torch's local CPU build, installed first (any other torch request downloads CUDA packages).
TORCH := torch==2.13.0
# The versions CI passed with (pip constraints); `make lock` regenerates it.
LOCK := constraints.txt
LOCK_VENV := .lock-venv
# AgileRL pins pettingzoo<1.27 (the kit's venv has 1.27) and tensordict 0.13, so its worked
# example (examples/agilerl_ippo.py) runs in a venv of its own; tests/test_examples.py uses it.
# AgileRL 2.58 imports peft on `import agilerl.algorithms` but lists it only in its llm extras.
AGILERL_VENV := .venv-agilerl
AGILERL_STAMP := $(AGILERL_VENV)/.installed
AGILERL_PINS := agilerl==2.58.0 pettingzoo==1.26.1 peft==0.21.0

AGENTS ?= random,greedy,chain,trained

.PHONY: setup setup-agilerl setup-ray run demo test test-ray test-fast lint bench lock clean cards

# Ray and RLlib (the [ray] extra) get a venv of their own: RLlib 2.60 pins gymnasium==1.2.2,
# while the main venv keeps the newest Gymnasium the kit supports (README, "Past one machine").
RAY_VENV := .venv-ray
RAY_BIN := $(RAY_VENV)/bin
RAY_STAMP := $(RAY_VENV)/.installed

$(STAMP): pyproject.toml $(LOCK)
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c $(LOCK) $(TORCH)
	$(BIN)/pip install -q -c $(LOCK) -e ".[$(EXTRAS)]"
	touch $(STAMP)

setup: $(STAMP)

$(AGILERL_STAMP): pyproject.toml Makefile
	$(PY) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/pip install -q --upgrade pip
	$(AGILERL_VENV)/bin/pip install -q $(TORCH)
	$(AGILERL_VENV)/bin/pip install -q -e . $(AGILERL_PINS)
	touch $(AGILERL_STAMP)

setup-agilerl: $(AGILERL_STAMP)  ## the AgileRL example's own venv (its pins differ from the kit's)

# The main venv's tested versions, less the Gymnasium pin (RLlib's own pin wins there); Ray's
# other dependencies are new to this venv and resolve freely.
$(RAY_STAMP): pyproject.toml $(LOCK)
	$(PY) -m venv $(RAY_VENV)
	$(RAY_BIN)/pip install -q --upgrade pip
	grep -v '^gymnasium==' $(LOCK) > $(RAY_VENV)/constraints.txt
	$(RAY_BIN)/pip install -q -c $(RAY_VENV)/constraints.txt $(TORCH)
	$(RAY_BIN)/pip install -q -c $(RAY_VENV)/constraints.txt -e ".[ray,plot,dev]"
	touch $(RAY_STAMP)

setup-ray: $(RAY_STAMP)  ## the [ray] extra (Ray, RLlib) in .venv-ray

run: setup  ## the main job: a short tournament of the bundled bots
	$(BIN)/speed tournament --agents $(AGENTS) --games 400 --rules us --seed 0 --workers 2 --out results

# The evaluation's shipped data (docs/evaluate.md): the reference pool's results (the rating
# anchors), the bundled agents' report cards, their leaderboards, and the small card a test
# re-makes. Long (the search opponents dominate): run it after any change to the protocol, the
# bundled models or the games, then commit agents/cards/.
CARD_AGENTS := random greedy chain search trained selfplay
VINTAGE_CARD_AGENTS := vintage-random vintage-greedy vintage-tactician vintage-search vintage-expert
CARDS := agents/cards

cards: setup  ## the rating anchors, the bundled agents' report cards and leaderboards
	$(BIN)/python -m agents.make_anchors --game realtime
	$(BIN)/python -m agents.make_anchors --game vintage
	for a in $(CARD_AGENTS); do $(BIN)/speed evaluate $$a --out $(CARDS)/realtime/$$a || exit 1; done
	for a in $(VINTAGE_CARD_AGENTS); do \
		$(BIN)/speed evaluate $$a --game vintage --out $(CARDS)/vintage/$$a || exit 1; done
	$(BIN)/speed evaluate greedy --games 2 --out $(CARDS)/small/greedy
	$(BIN)/speed leaderboard $(CARDS)/realtime/*/report.json --out $(CARDS)/leaderboard/realtime
	$(BIN)/speed leaderboard $(CARDS)/vintage/*/report.json --out $(CARDS)/leaderboard/vintage

demo: setup  ## one game between two bots, shown as text
	$(BIN)/speed demo

test: setup setup-agilerl setup-ray  ## the whole suite, slow tests included (CI runs this)
	$(BIN)/python -m pytest -n 2 -q
	$(RAY_BIN)/python -m pytest -q -p no:xdist tests/cluster

test-ray: setup-ray  ## only the Ray/RLlib tests, in .venv-ray (one local cluster at a time)
	$(RAY_BIN)/python -m pytest -q -p no:xdist tests/cluster

test-fast: setup
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

# ruff covers every Python file in the repository (notebooks included), its format and the
# 100-column line length (E501) as well as the lint rules in pyproject.toml.
lint: setup
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench: setup
	$(BIN)/speed bench

# Pin the newest versions pyproject.toml allows: install every extra of `make setup` into a
# fresh venv without constraints, then write what it holds (local labels such as +cpu dropped).
lock:  ## regenerate constraints.txt from a fresh venv (then `make test`, and commit it)
	rm -rf $(LOCK_VENV)
	$(PY) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install -q --upgrade pip
	$(LOCK_VENV)/bin/pip install -q $(TORCH)
	$(LOCK_VENV)/bin/pip install -q -e ".[$(EXTRAS)]"
	{ echo "# Tested versions: make setup installs with pip -c $(LOCK) (extras $(EXTRAS))."; \
	  echo "# Generated by make lock from a fresh venv on Python $$($(LOCK_VENV)/bin/python -c 'import platform; print(platform.python_version())'); do not edit by hand."; \
	  $(LOCK_VENV)/bin/pip freeze --exclude-editable | sed -E 's/^([^=]+==[^+]+)\+.*$$/\1/'; \
	} > $(LOCK).new
	mv $(LOCK).new $(LOCK)
	rm -rf $(LOCK_VENV)

clean:
	rm -rf $(VENV) $(AGILERL_VENV) $(RAY_VENV) $(LOCK_VENV) .pytest_cache .ruff_cache .mypy_cache
