# Quick start: `make grade` grades the example submissions, `make test` runs every test.
# Both set themselves up: a virtual environment in .venv and, as root, bubblewrap.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup grade demo test bench clean leaderboard

setup: $(STAMP)

$(STAMP): pyproject.toml
	@bash .ci/system-packages
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

demo: setup
	$(PY) reference/puzzlesolver.py testcases/public/sample.txt

grade: setup
	$(PY) -m grader grade submissions

test: setup
	$(PY) -m pytest

bench: setup
	$(PY) bench/bench_reference.py

clean:
	rm -rf $(VENV) results .pytest_cache

leaderboard: setup
	$(PY) -m grader leaderboard
