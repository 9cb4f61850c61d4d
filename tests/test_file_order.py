"""tests/file_order.py: whole files, the heaviest first, from tests/durations.json."""

import json
from types import SimpleNamespace

import pytest

from tests import file_order

pytestmark = pytest.mark.fast


def items(*nodeids):
    return [SimpleNamespace(nodeid=nodeid) for nodeid in nodeids]


def test_files_go_heaviest_first_each_in_its_own_order(tmp_path, monkeypatch):
    weights = tmp_path / "durations.json"
    weights.write_text(
        json.dumps({"tests/test_a.py": 1.0, "tests/test_b.py": 30.0, "tests/test_c.py": 5.0})
    )
    monkeypatch.setattr(file_order, "DURATIONS", weights)
    found = items(
        "tests/test_a.py::one", "tests/test_a.py::two", "tests/test_b.py::one",
        "tests/test_new.py::one", "tests/test_c.py::one", "tests/test_b.py::two[x]",
    )  # fmt: skip
    file_order.pytest_collection_modifyitems(found)
    assert [item.nodeid for item in found] == [
        "tests/test_b.py::one",
        "tests/test_b.py::two[x]",
        "tests/test_new.py::one",  # the median (5.0), for a file the figures do not name
        "tests/test_c.py::one",  # as heavy: the collected order between them
        "tests/test_a.py::one",
        "tests/test_a.py::two",
    ]


def test_without_figures_the_order_is_the_collected_one(tmp_path, monkeypatch):
    monkeypatch.setattr(file_order, "DURATIONS", tmp_path / "absent.json")
    found = items("tests/test_z.py::one", "tests/test_a.py::one")
    file_order.pytest_collection_modifyitems(found)
    assert [item.nodeid for item in found] == ["tests/test_z.py::one", "tests/test_a.py::one"]


def test_figures_are_written_only_after_a_whole_passing_run(tmp_path, monkeypatch):
    (tmp_path / "test_a.py").touch()
    (tmp_path / "test_b.py").touch()
    monkeypatch.setattr(file_order, "DURATIONS", tmp_path / "durations.json")
    recorder = file_order._Recorder()
    for nodeid, seconds in (("tests/test_a.py::x", 1.25), ("tests/test_a.py::y", 2.0)):
        recorder.pytest_runtest_logreport(SimpleNamespace(nodeid=nodeid, duration=seconds))
    recorder.pytest_sessionfinish(exitstatus=0)  # test_b.py never ran: a part of the suite
    assert not (tmp_path / "durations.json").exists()
    recorder.pytest_runtest_logreport(SimpleNamespace(nodeid="tests/test_b.py::z", duration=4.0))
    recorder.pytest_sessionfinish(exitstatus=1)  # a failed run
    assert not (tmp_path / "durations.json").exists()
    recorder.pytest_sessionfinish(exitstatus=0)
    written = json.loads((tmp_path / "durations.json").read_text())
    assert written == {"tests/test_a.py": 3.2, "tests/test_b.py": 4.0}
