# Quick start: `make grade` grades the example submissions, `make test` runs every test.
# Both set themselves up: a virtual environment in .venv and, as root, bubblewrap.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Python keeps the bytecode it compiles (a __pycache__ beside each module, ignored by
# git), whatever the shell says: the grader starts a Python for each command, and
# without the cache each start compiles its 170 modules again (0.12 s of CPU; 0.19 s
# instead of 0.32 s for `grader --help`), and every test worker rewrites every test.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup grade demo test durations test-fast lint docs pictures bench clean leaderboard mutation

setup: $(STAMP)

$(STAMP): pyproject.toml a11y/package-lock.json
	@bash .ci/system-packages
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	@# pa11y for tests/test_accessibility.py, run in the Chromium installed above (no
	@# browser download, no install script). Grading needs none of it: without npm or a
	@# network, only that test fails, saying so.
	-cd a11y && PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --ignore-scripts --silent
	@touch $(STAMP)

demo: setup
	$(PY) reference/puzzlesolver.py testcases/public/sample.txt

grade: setup
	$(PY) -m grader grade submissions

# Three workers on two cores: the suite's waits (wall limits, sleeping programs, timed
# runs, a browser) overlap with the other workers' CPU work (the cores are 98% busy,
# against 88% with two). Every test holds under that load (and under a CPU hog beside
# it), as it must on a loaded grading machine.
# Whole files to each worker, the heaviest first (tests/file_order.py).
test: setup
	$(PY) -m pytest -n 3 --dist loadfile --no-loadscope-reorder

# The seconds each test file takes, for that order (tests/durations.json): after a
# change that makes a file much heavier or lighter, on a quiet machine.
durations: setup
	$(PY) -m pytest -n 3 --dist loadfile --no-loadscope-reorder --record-durations

# Pure logic only (no compilers, sandbox or browser; tests/conftest.py enforces it):
# the edit-test loop. `make test` stays what CI runs.
test-fast: setup
	$(PY) -m pytest -q -n 2 -m "fast and not slow"

# Lint, format, types and the import contracts (pyproject.toml [tool.importlinter]):
# what CI checks before the tests.
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache --no-logo

# The documentation site into site/ (mkdocs.yml): the pictures made from the example
# class first (build/pictures/, taken in by docsgen/hooks.py: the build rewrites no
# tracked file), warnings as errors, then every page through pa11y
# (WCAG 2.1 AA, as the grader's own pages).
docs: setup
	$(PY) -m docsgen.pictures build/pictures
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet
	$(PY) -m docsgen.accessibility site

# The README's pictures (images/, tracked), made again from the example class as the
# site's are: a developer's act when the pages change, never a side effect of a build.
pictures: setup
	$(PY) -m docsgen.pictures images

# Mutation testing of the verdict logic (compare, timing, score, judge; configured in
# pyproject.toml [tool.mutmut]), then its score per file. Slow: run it on its own.
# mutmut reuses mutants/ and re-tests only what changed; `rm -rf mutants` starts afresh.
MUTATION_CHILDREN ?= 2
mutation: setup
	$(VENV)/bin/mutmut run --max-children $(MUTATION_CHILDREN) > /dev/null
	$(PY) bench/mutation_score.py --min 85

bench: setup
	$(PY) bench/bench_reference.py

clean:
	rm -rf $(VENV) results .pytest_cache a11y/node_modules

# Each session times puzzles drawn afresh (a published figure can spell out its puzzles).
leaderboard: setup
	$(VENV)/bin/testcases draw -o results/leaderboard-draw.json
	$(PY) -m grader leaderboard --puzzles results/leaderboard-draw.json
