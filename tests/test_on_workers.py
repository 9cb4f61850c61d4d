"""Which places of a Dask cluster time the leaderboard's runs (grader.leaderboard
.places): pure decisions over what the workers report. The real cluster's session is
tests/test_cluster.py::test_the_leaderboard_times_on_the_workers_each_core_serving_one."""

import os

import pytest

from grader import leaderboard as lb
from grader.leaderboard.measuring import Place
from grader.leaderboard.page_md import how_timed, machine_line
from grader.leaderboard.places import (
    MachineFacts,
    Survey,
    assign,
    machines_of,
)
from grader.leaderboard.quiet import Load, MachineBusy
from grader.statistics.timing import Rule
from tests.helpers import assert_valid, leaderboard_document

pytestmark = pytest.mark.fast
RULE = Rule(0.03, 0.05)


def facts(machine: str, host: str, cores=(0, 1)) -> MachineFacts:
    return MachineFacts(machine, host, tuple(cores))


def steady(seconds: float, runs: int = 7) -> list[float]:
    return [seconds + i * 1e-5 for i in range(runs)]


def test_workers_sharing_a_boot_id_are_one_machine():
    found = machines_of(
        {
            "tcp://b:2": facts("boot-b", "lab2"),
            "tcp://a:1": facts("boot-a", "lab1"),
            "tcp://a:3": facts("boot-a", "lab1"),  # a second worker (a container) on lab1
        },
        {"tcp://a:1": 2, "tcp://a:3": 1, "tcp://b:2": 4},
    )
    assert [(m.facts.host, [(w.address, w.threads) for w in m.workers]) for m in found] == [
        ("lab1", [("tcp://a:1", 2), ("tcp://a:3", 1)]),
        ("lab2", [("tcp://b:2", 4)]),
    ]


def test_each_core_serves_one_worker_of_its_machine_and_a_worker_no_more_than_its_threads():
    machines = machines_of(
        {"tcp://a:1": facts("A", "lab1", (0, 1, 2)), "tcp://a:2": facts("A", "lab1", (0, 1, 2))},
        {"tcp://a:1": 1, "tcp://a:2": 1},
    )
    surveys = {"A": Survey(({0: steady(0.01), 1: steady(0.01), 2: steady(0.01)},), None)}
    found = assign(machines, surveys, RULE, go_on=False)
    # Three cores agree, but two workers of one thread each serve two of them.
    assert found.places == (Place(0, "tcp://a:1"), Place(1, "tcp://a:2"))
    assert found.hosts == {"tcp://a:1": "lab1", "tcp://a:2": "lab1"}


def test_a_core_goes_only_to_a_worker_that_may_run_on_it():
    """Two containers on one host (one boot id), each with a cpuset of its own."""
    machines = machines_of(
        {"tcp://a:1": facts("A", "lab1", (0, 1)), "tcp://a:2": facts("A", "lab1", (1,))},
        {"tcp://a:1": 2, "tcp://a:2": 2},
    )
    surveys = {"A": Survey(({0: steady(0.01), 1: steady(0.01)},), None)}
    found = assign(machines, surveys, RULE, go_on=False)
    assert found.places == (Place(0, "tcp://a:1"), Place(1, "tcp://a:2"))
    only = machines_of({"tcp://a:2": facts("A", "lab1", (1,))}, {"tcp://a:2": 2})
    assert assign(only, {"A": Survey(({1: steady(0.01)},), None)}, RULE, False).places == (
        Place(1, "tcp://a:2"),
    )


def test_a_core_the_clusters_fastest_is_significantly_faster_than_is_left_out():
    machines = machines_of(
        {"tcp://a:1": facts("A", "lab1"), "tcp://b:1": facts("B", "lab2")},
        {"tcp://a:1": 2, "tcp://b:1": 2},
    )
    surveys = {
        "A": Survey(({0: steady(0.0100), 1: steady(0.0101)},) * 2, Load(0.0, 2)),
        "B": Survey(({0: steady(0.0130), 1: steady(0.0101)},) * 2, Load(0.0, 2)),  # lab2's core 0
    }
    found = assign(machines, surveys, RULE, go_on=False)
    assert found.places == (Place(0, "tcp://a:1"), Place(1, "tcp://a:1"), Place(1, "tcp://b:1"))
    assert found.kept == {("lab1", 0), ("lab1", 1), ("lab2", 1)}
    shown = {(c["host"], c["core"]): c["used"] for c in found.reference_s(found.kept)}
    assert shown == {("lab1", 0): True, ("lab1", 1): True, ("lab2", 0): False, ("lab2", 1): True}


def test_a_core_left_out_waits_on_a_worker_and_never_takes_a_kept_cores_thread():
    """The left-out cores are dealt to workers after the kept ones (each is looked at
    again while the others time: grader.leaderboard.measuring); the fastest core's runs
    are the bar a look must meet. The pages say when a core that did not time the whole
    session did."""
    machines = machines_of(
        {"tcp://a:1": facts("A", "lab1", (0, 1, 2)), "tcp://a:2": facts("A", "lab1", (0, 1, 2))},
        {"tcp://a:1": 1, "tcp://a:2": 2},
    )
    looks = ({0: steady(0.0130), 1: steady(0.0100), 2: steady(0.0102)},) * 2
    found = assign(machines, {"A": Survey(looks, Load(0.0, 3))}, RULE, go_on=False)
    assert found.places == (Place(1, "tcp://a:1"), Place(2, "tcp://a:2"))
    assert found.waiting == (Place(0, "tcp://a:2"),)
    assert found.fastest == tuple(steady(0.0100)) * 2  # both looks
    busy = assign(machines, {"A": Survey(looks, Load(1.0, 3))}, RULE, go_on=False)
    assert busy.waiting == (), "only as many places as the free cores"
    timed = {Place(0, "tcp://a:2"): [(1.25, None)]}
    timed_on = {("lab1", place.core) for place in found.places + tuple(timed)}
    shown = {c["core"]: c for c in found.reference_s(timed_on, timed)}
    assert shown[0]["used"] and shown[0]["timed_s"] == [{"from": 1.2, "to": None}]
    assert "timed_s" not in shown[1] and found.reference_s(found.kept)[0]["used"] is False
    doc = leaderboard_document()
    doc["machine"].update(
        timing_cores=[],
        pinned_core=None,
        timing_workers=[{"worker": "tcp://a:2", "host": "lab1", "cores": [0, 2]}],
        core_reference_s=found.reference_s(timed_on, timed),
    )
    assert_valid(doc, "leaderboard")
    assert "lab1 core 0 timed only while its latest look" in machine_line(doc["machine"])


def test_a_busy_machine_is_refused_unless_told_and_then_times_on_the_cores_left():
    machines = machines_of({"tcp://a:1": facts("A", "lab1", (0, 1, 2, 3))}, {"tcp://a:1": 4})
    cores = {core: steady(0.01 + core * 1e-6) for core in range(4)}
    busy = {"A": Survey((cores,), Load(busy_cores=3.5, cores=4))}
    with pytest.raises(MachineBusy, match="3.5 of its 4 cores"):
        assign(machines, busy, RULE, go_on=False)
    found = assign(machines, busy, RULE, go_on=True)
    assert found.places == (Place(0, "tcp://a:1"),)  # at least one core: told to go on
    assert found.notes and found.notes[0].startswith("lab1: this machine is busy")
    half = {"A": Survey((cores,), Load(busy_cores=2.0, cores=4))}
    assert assign(machines, half, RULE, go_on=False).places == (
        Place(0, "tcp://a:1"),
        Place(1, "tcp://a:1"),
    )  # the two fastest of the four


def test_the_pages_say_which_workers_and_cores_timed():
    doc = leaderboard_document()
    doc["machine"].update(
        timing_cores=[],
        pinned_core=None,
        timing_workers=[
            {"worker": "tcp://10.0.0.1:4001", "host": "lab1", "cores": [0, 1]},
            {"worker": "tcp://10.0.0.2:4001", "host": "", "cores": [3]},
        ],
        core_reference_s=[
            {"host": "lab1", "core": 0, "reference_s": 0.01, "used": True},
            {"host": "lab1", "core": 1, "reference_s": 0.01, "used": True},
            {"host": "lab2", "core": 2, "reference_s": 0.02, "used": False},
        ],
    )
    assert_valid(doc, "leaderboard")
    line = machine_line(doc["machine"])
    assert line.startswith("Timed on a Dask cluster's workers: lab1 (tcp://10.0.0.1:4001): ")
    assert "host not surveyed (tcp://10.0.0.2:4001): core(s) 3" in line
    assert "lab2 core 2 left out" in line
    assert how_timed(doc).startswith("one run per core at once on 3 core(s) of 2 cluster worker(s)")
    assert lb.machine_info("bubblewrap", [0], "cgroup")["timing_workers"] == []


def test_a_core_slower_in_one_look_only_is_kept():
    """Each machine's survey looks twice (grader.leaderboard.on_workers.LOOKS): a core is left
    out only when both looks show the cluster's fastest significantly faster."""
    machines = machines_of({"tcp://a:1": facts("A", "lab1")}, {"tcp://a:1": 2})
    burst, alike = {0: steady(0.0130), 1: steady(0.0100)}, {0: steady(0.0100), 1: steady(0.0100)}
    found = assign(machines, {"A": Survey((burst, alike), Load(0.0, 2))}, RULE, go_on=False)
    assert found.kept == {("lab1", 0), ("lab1", 1)}
    found = assign(machines, {"A": Survey((burst, burst), Load(0.0, 2))}, RULE, go_on=False)
    assert found.kept == {("lab1", 1)}


def test_a_run_is_pinned_to_its_places_core_and_never_timed_on_another():
    """The worker thread is on the place's core during the run, and as before after
    it; a core this worker may not use fails the run (TimingFailed: the grader's
    failure, never stored) instead of timing it elsewhere."""
    from grader.leaderboard.on_workers import TimingFailed, _pinned

    before = os.sched_getaffinity(0)
    core = max(before)
    with _pinned(core):
        assert os.sched_getaffinity(0) == {core}
    assert os.sched_getaffinity(0) == before
    with pytest.raises(TimingFailed, match="cannot be used here"), _pinned(max(before) + 1):
        pass
    assert os.sched_getaffinity(0) == before
