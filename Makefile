# Quick start: `make grade` grades the example submissions, `make test` runs every test.
# Both set themselves up: a virtual environment in .venv and, as root, bubblewrap.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup grade demo test test-fast bench clean leaderboard

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

# Pure logic only (no compilers, sandbox or browser; tests/conftest.py enforces it):
# the edit-test loop. `make test` stays what CI runs.
test-fast: setup
	$(PY) -m pytest -q -n 2 -m "fast and not slow"

bench: setup
	$(PY) bench/bench_reference.py

clean:
	rm -rf $(VENV) results .pytest_cache

leaderboard: setup
	$(PY) -m grader leaderboard
