"""The order `make test` hands test files to its workers: the heaviest first.

`make test` runs `pytest -n 3 --dist loadfile --no-loadscope-reorder`: each worker takes
a whole file at a time (a file's module fixtures, a graded class say, are made once),
the next free worker the next file. Handed out longest first, the light files left for
last fill the end evenly; in the order of their names, a heavy file that starts last
runs alone while the other workers wait (on 2 cores: 20 to 35 s of the suite).

How heavy each file is comes from tests/durations.json: the seconds each file took in a
whole quiet run, written by `make durations` (`--record-durations`). A file it does not
name counts as the median one. The weights only order the files: a stale figure costs
some seconds at the end of a run, never a result.
"""

from __future__ import annotations

import json
import statistics
from collections import defaultdict
from pathlib import Path

import pytest

DURATIONS = Path(__file__).resolve().with_name("durations.json")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-durations",
        action="store_true",
        help=f"write the seconds each test file took to {DURATIONS.name} (make durations)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # Only where the reports of every worker meet (xdist's controller, or a run alone).
    if config.getoption("--record-durations") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(_Recorder(), "record-durations")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Whole files, heaviest first, each in its own order (every worker collects the
    same order: xdist requires it)."""
    weights = _weights()
    if not weights:
        return
    usual = statistics.median(weights.values())
    first: dict[str, int] = {}
    for item in items:
        first.setdefault(_file(item.nodeid), len(first))
    items.sort(
        key=lambda item: (-weights.get(_file(item.nodeid), usual), first[_file(item.nodeid)])
    )


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _weights() -> dict[str, float]:
    try:
        found = json.loads(DURATIONS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in found.items()} if isinstance(found, dict) else {}


class _Recorder:
    """Sums each file's setup, call and teardown seconds; writes them at the end of a
    run that ran every test (a part of the suite would forget the rest)."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self.seconds[_file(report.nodeid)] += report.duration

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        every = {f"tests/{path.name}" for path in DURATIONS.parent.glob("test_*.py")}
        if exitstatus != 0 or set(self.seconds) != every:
            return
        figures = {name: round(self.seconds[name], 1) for name in sorted(self.seconds)}
        DURATIONS.write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
