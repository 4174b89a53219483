# One entry per task. `make run` and `make test` set everything up on a fresh machine with
# Python 3.11 (a venv in .venv; torch's local CPU build first). Each setup step says, before it
# starts, what it installs and roughly how long it takes: the times are what a fresh clone took
# on a 2-core machine busy with other work (load 15); a quiet one is faster (docs/getting-started.md).
# Users without make: torch's CPU build first (`pip install torch==2.13.0 --index-url
# https://download.pytorch.org/whl/cpu`; plain pip pulls the CUDA packages), then
# `pip install ".[train]"`.
PY ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# Two stages: `make run` needs only the kit and matplotlib (the tournament's figures), so it stops
# at CORE_STAMP; `make setup` (and so `make test`) adds torch and every extra.
CORE_STAMP := $(VENV)/.core
STAMP := $(VENV)/.installed
# The extras `make setup` installs, and so the ones `make lock` pins: add a new extra here.
EXTRAS ?= train,plot,render,dev,web,examples,openspiel,docs,data
# torch's local CPU build, installed first (any other torch request downloads CUDA packages).
# Each venv installs its own copy: pip's cache (one for all venvs) already keeps every wheel
# downloaded or built, so a shared wheelhouse would save no download, and what a venv costs is
# unpacking (about a minute for torch), which a wheelhouse does not avoid. One torch made
# visible to every venv by a .pth file was judged too risky: each venv's pip would see it as
# its own, so an upgrade or uninstall in one venv would change the others.
TORCH := torch==2.13.0
# The versions CI passed with (pip constraints); `make lock` regenerates it.
LOCK := constraints.txt
LOCK_VENV := .lock-venv
# AgileRL pins pettingzoo<1.27 (the kit's venv has 1.27) and tensordict 0.13, so its worked
# example (examples/agilerl_ippo.py) runs in a venv of its own; tests/kit/test_examples.py uses it.
# AgileRL's own requirements pull in what the example never imports (jax, minari[all], pandas,
# hydra, pygame-ce, pymunk, redis, google-cloud-storage, pre-commit, mpe2, supersuit: about
# 1 GB), so agilerl and agilerl-arena are installed without their requirements and the venv
# gets only what `import agilerl.algorithms` and its vector env import (AGILERL_NEEDS; the setup
# step checks that import, so a new AgileRL import fails there, by name, not in the suite).
# peft: AgileRL 2.58 imports it on `import agilerl.algorithms` but lists it only in its llm extras.
AGILERL_VENV := .venv-agilerl
AGILERL_STAMP := $(AGILERL_VENV)/.installed
AGILERL_NODEPS := agilerl==2.58.0 agilerl-arena==1.29.0
AGILERL_NEEDS := pettingzoo==1.26.1 peft==0.21.0 tensordict==0.13.0 lazy-loader==0.6 \
	fastrand==3.1.0 wandb==0.31.0 dill==0.4.1 pillow pydantic rich pyyaml click httpx
AGILERL_CHECK := from agilerl.algorithms import IPPO; from agilerl.vector.dummy_vec_env import PzDummyVecEnv

AGENTS ?= random,greedy,chain,trained

.PHONY: setup setup-agilerl setup-ray run demo test test-ray test-fast lint bench docs docs-serve lock clean cards cards-p2 think-costs cards-rehash

# Ray and RLlib (the [ray] extra) get a venv of their own: RLlib 2.60 pins gymnasium==1.2.2,
# while the main venv keeps the newest Gymnasium the kit supports (docs/ray.md, "Why a venv of its own").
RAY_VENV := .venv-ray
RAY_BIN := $(RAY_VENV)/bin
RAY_STAMP := $(RAY_VENV)/.installed

$(CORE_STAMP): pyproject.toml $(LOCK)
	@echo "==> .venv: the kit with numpy, numba, Gymnasium, PettingZoo, matplotlib (about 8 min on a busy 2-core machine)"
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c $(LOCK) -e ".[plot]"
	touch $@

$(STAMP): $(CORE_STAMP)
	@echo "==> .venv: torch 2.13 (CPU), SB3, the test tools and the extras $(EXTRAS) (about 9 min on a busy 2-core machine, 2 GB)"
	$(BIN)/pip install -q -c $(LOCK) $(TORCH)
	$(BIN)/pip install -q -c $(LOCK) -e ".[$(EXTRAS)]"
	touch $@

setup: $(STAMP)  ## the kit's venv with every extra (.venv)

# The kit's constraints less its PettingZoo and tensordict pins (AgileRL's 1.26.1 and 0.13.0 win
# there; the kit's tensordict is TorchRL's).
$(AGILERL_STAMP): pyproject.toml Makefile $(LOCK)
	@echo "==> .venv-agilerl: the AgileRL example's own venv, torch 2.13 (CPU) and AgileRL's imports (about 6 min on a busy 2-core machine, 1.5 GB)"
	$(PY) -m venv $(AGILERL_VENV)
	$(AGILERL_VENV)/bin/pip install -q --upgrade pip
	grep -v -E '^(pettingzoo|tensordict)==' $(LOCK) > $(AGILERL_VENV)/constraints.txt
	$(AGILERL_VENV)/bin/pip install -q -c $(AGILERL_VENV)/constraints.txt $(TORCH)
	$(AGILERL_VENV)/bin/pip install -q -c $(AGILERL_VENV)/constraints.txt -e . $(AGILERL_NEEDS)
	$(AGILERL_VENV)/bin/pip install -q --no-deps $(AGILERL_NODEPS)
	$(AGILERL_VENV)/bin/python -c "$(AGILERL_CHECK)" || { echo "AgileRL imports something AGILERL_NEEDS (Makefile) lacks: add it"; exit 1; }
	touch $@

setup-agilerl: $(AGILERL_STAMP)  ## the AgileRL example's own venv (its pins differ from the kit's)

# The main venv's tested versions, less the Gymnasium pin (RLlib's own pin wins there); Ray's
# other dependencies are new to this venv and resolve freely. tests/cluster needs the kit, Ray,
# torch, matplotlib and pytest: not the dev extra's linters, notebook runners or classic envs.
$(RAY_STAMP): pyproject.toml $(LOCK)
	@echo "==> .venv-ray: Ray and RLlib 2.60 with torch 2.13 (CPU) for tests/cluster (about 7 min on a busy 2-core machine, 2 GB)"
	$(PY) -m venv $(RAY_VENV)
	$(RAY_BIN)/pip install -q --upgrade pip
	grep -v '^gymnasium==' $(LOCK) > $(RAY_VENV)/constraints.txt
	$(RAY_BIN)/pip install -q -c $(RAY_VENV)/constraints.txt $(TORCH)
	$(RAY_BIN)/pip install -q -c $(RAY_VENV)/constraints.txt -e ".[ray,plot]" pytest
	touch $@

setup-ray: $(RAY_STAMP)  ## the [ray] extra (Ray, RLlib) in .venv-ray

run: $(CORE_STAMP)  ## the main job: a short tournament of the bundled bots (no torch needed)
	$(BIN)/speed tournament --agents $(AGENTS) --games 400 --rules us --seed 0 --workers 2 --out results
	@echo "==> the speed command is in .venv: run '. .venv/bin/activate' in each new shell (docs/getting-started.md)"

# The evaluation's shipped data (docs/evaluate.md): the reference pool's results (the rating
# anchors), the bundled agents' report cards, their leaderboards, and the small card a test
# re-makes. Long (the search opponents dominate): run it after any change to the protocol, the
# bundled models or the games, then commit agents/cards/. The real-time cards here are protocol
# 1's, named so: speed evaluate's default is protocol 2, whose cards (cards-p2) charge thinking.
CARD_AGENTS := random greedy chain search trained selfplay
VINTAGE_CARD_AGENTS := vintage-random vintage-greedy vintage-tactician vintage-search vintage-expert
CARDS := agents/cards

cards: setup  ## the rating anchors, the bundled agents' report cards and leaderboards
	$(BIN)/python -m agents.evaluate.make_anchors --game realtime
	$(BIN)/python -m agents.evaluate.make_anchors --game vintage
	for a in $(CARD_AGENTS); do \
		$(BIN)/speed evaluate $$a --protocol 1 --out $(CARDS)/realtime/$$a || exit 1; done
	for a in $(VINTAGE_CARD_AGENTS); do \
		$(BIN)/speed evaluate $$a --game vintage --out $(CARDS)/vintage/$$a || exit 1; done
	$(BIN)/speed evaluate greedy --protocol 1 --games 2 --out $(CARDS)/small/greedy
	$(BIN)/speed leaderboard $(CARDS)/realtime --out $(CARDS)/leaderboard/realtime
	$(BIN)/speed leaderboard $(CARDS)/vintage --out $(CARDS)/leaderboard/vintage
	$(MAKE) cards-p2

# Protocol 2 charges every agent's thinking (docs/thinking-time.md): its anchors, the bundled
# agents' cards, their leaderboard and the small card a test reads, at the shipped costs.
cards-p2: setup  ## protocol 2's anchors, cards and leaderboard (thinking charged)
	$(BIN)/python -m agents.evaluate.make_anchors --game realtime --protocol 2
	for a in $(CARD_AGENTS); do \
		$(BIN)/speed evaluate $$a --protocol 2 --out $(CARDS)/realtime-p2/$$a || exit 1; done
	$(BIN)/speed evaluate greedy --protocol 2 --games 2 --out $(CARDS)/small-p2/greedy
	$(BIN)/speed leaderboard $(CARDS)/realtime-p2 --out $(CARDS)/leaderboard/realtime-p2

# The reference bots' thinking costs, calibrated on this machine: a new calibration changes
# protocol 2's data, so its anchors and cards are made again after it (make cards-p2).
think-costs: setup  ## calibrate the reference bots' thinking (agents/cards/think_realtime.json)
	$(BIN)/python -m agents.evaluate.think_costs

# Cards made before the card hash: checked through (counts, protocol data, ratings re-rated)
# and written back sealed, without replaying a game. `make cards` seals the cards it makes.
cards-rehash: setup  ## seal the committed report cards with their card hash (no replay)
	$(BIN)/python -m agents.evaluate.card_check --rehash $(CARDS)/*/*/report.json

demo: $(CORE_STAMP)  ## one game between two bots, shown as text
	$(BIN)/speed demo

# Said once, before the first long step of a first `make test` (prerequisites run in order).
.PHONY: announce-test
announce-test:
	@[ -f $(STAMP) ] && [ -f $(AGILERL_STAMP) ] && [ -f $(RAY_STAMP) ] || \
	  echo "==> make test: first the setup of .venv, .venv-agilerl and .venv-ray (once; about 30 min on a busy 2-core machine), then the suite"

test: announce-test setup setup-agilerl setup-ray  ## the whole suite, slow tests included (CI runs this)
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

# The documentation site (mkdocs.yml, sources in docs/) into site/; --strict turns a broken link,
# a missing page or an unresolved reference into an error, as in CI (tests/kit/test_docs_site.py).
docs: setup  ## build the documentation site into site/
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

docs-serve: setup  ## serve the documentation site on 127.0.0.1:8000, rebuilt on every edit
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

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
