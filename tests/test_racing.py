"""The leaderboard's race (grader.leaderboard.racing) and its timing on every core
(grader.leaderboard.measuring, .cores): the decisions on known runs, then whole
sessions measured through a fake sandbox whose programs take known CPU times, so
which runs were made is exact. The real sandbox and compilers race in
tests/test_leaderboard.py; the wall-time bar is bench/bench_race.py's."""

from __future__ import annotations

import dataclasses
import itertools
import os
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader import leaderboard as lb
from grader.cases.manifest import load_cases
from grader.core.model import RunResult
from grader.course.config import load_config
from grader.leaderboard.page_md import machine_line as lb_markdown_machine
from grader.leaderboard.page_md import markdown
from grader.leaderboard.racing import decide, first_look, next_step, stopped
from grader.statistics.timing import Rule, ranks, significantly_faster
from grader.store import Store
from tests.fakes import FakeSandbox, Request, result
from tests.helpers import SAMPLE_TEXT, assert_valid, make_cases, store_case

pytestmark = pytest.mark.fast

FAST = [1.000, 1.002, 1.001, 1.003, 1.004, 1.002, 1.001]


def test_the_first_look_is_the_fewest_runs_the_rank_test_can_separate():
    assert first_look(7, Rule(0.03, 0.05)) == 3  # 3 runs against 7: p down to 2/120
    assert first_look(7, Rule(0.03, 0.01)) == 4  # 2/C(10,3) = 0.0167 > 0.01 > 2/C(11,4) = 0.006
    assert first_look(3, Rule(0.03, 0.05)) is None  # only all 3 (p = 0.1 at best): no race


def test_slower_than_every_leader_is_out_within_the_noise_floor_is_not():
    samples = {
        "a": FAST,
        "b": [x * 1.01 for x in FAST],  # tied with a: a leader too
        "slow": [2.0, 2.1, 2.05],
        "close": [x * 1.02 for x in FAST],  # within the noise floor of both
    }
    race = decide(samples, Rule(0.03, 0.05))
    assert race.leaders == {"a", "b", "close"} and race.out == {"slow"}
    # Two runs cannot be told from seven at alpha 0.05 (p >= 2/36): it may still tie.
    assert decide({"a": FAST, "early": [2.0, 2.1]}, Rule(0.03, 0.05)).out == frozenset()
    # A leader timed 3 times cannot tell a slow program's 3 runs apart: it races on.
    few = decide({"a": FAST, "b": FAST[:3], "slow": [2.0, 2.1, 2.05]}, Rule(0.03, 0.05))
    assert few.leaders == {"a", "b"} and few.out == frozenset()


def test_the_race_times_the_best_with_its_like_then_the_other_leaders_then_stops_the_rest():
    runs = 7
    c_copies = {f"c{i}": [1.0 + i * 0.001, 1.001, 1.002] for i in range(3)}
    slow = {"java": [4.0, 4.1, 4.05], "py": [2.5, 2.52, 2.51]}
    following = dict.fromkeys([*c_copies, *slow], 3)
    step = next_step({**c_copies, **slow}, following, runs, Rule(0.03, 0.05))
    # 3 runs against 3 tell nothing: all five lead. The best, with the copies whose
    # medians it cannot be told from (timed fully anyway), round-robin: not java, py.
    assert step.complete == ("c0", "c1", "c2")
    following.update(c0=runs, c1=runs, c2=runs)
    samples = {**c_copies, **slow, "c0": FAST, "c1": FAST, "c2": [x * 1.01 for x in FAST]}
    step = next_step(samples, following, runs, Rule(0.03, 0.05))
    assert step.stop == ("java", "py") and step.round is None and not step.complete
    # A leader apart from the best whose runs overlap the best's (one as fast as the
    # best's slowest) is timed with it, and so is one within CLOSE of it (a copy whose
    # first runs fell in a core's slow moments): most are timed fully anyway, and one
    # timed later runs in other moments than the best's.
    close = {"a": FAST[:3], "b": [0.99, 2.5, 2.6], "c": [1.9, 1.95, 2.0], "d": [2.1, 2.5, 2.6]}
    following = {"a": 3, "b": 3, "c": 3, "d": 3}
    assert next_step(close, following, runs, Rule(0.03, 0.05)).complete == ("a", "b", "c")
    # One apart, beyond CLOSE and not overlapping is not; once the best is timed fully,
    # it is timed fully too if its runs may still tie (the leaders ran slower later).
    following.update(a=runs, b=runs, c=runs)
    close.update(
        a=[1.0, 1.002, 1.001, 2.4, 1.0, 2.6, 2.2],
        b=[0.99, 2.5, 2.6, 1.0, 1.01, 1.0, 2.3],
        c=[1.9, 1.95, 2.0, 2.3, 2.4, 2.5, 2.45],
    )
    assert next_step(close, following, runs, Rule(0.03, 0.05)).complete == ("d",)


def test_a_program_beaten_by_one_leader_only_races_on():
    """Slower than a, but b's runs are spread too wide to tell: it may still tie b."""
    samples = {
        "a": FAST,
        "b": [0.9, 1.3, 1.0, 1.5, 0.95, 1.4, 1.1],
        "mid": [1.2, 1.21, 1.22],
    }
    race = decide(samples, Rule(0.03, 0.05))
    assert race.leaders == {"a", "b"} and race.out == frozenset()


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from("abcdefgh"),
        st.lists(st.integers(1, 40).map(lambda n: n / 10), min_size=1, max_size=7),
        min_size=1,
    )
)
def test_the_race_decides_as_the_full_ranking_would(samples):
    """The early-exit tests find the same rank-1 set as grader.statistics.timing.ranks over every
    pair, and `out` is exactly the programs every one of it is significantly faster than."""
    race = decide(samples, Rule(0.03, 0.05))
    rank = ranks(samples, Rule(0.03, 0.05))
    assert race.leaders == {name for name, r in rank.items() if r == 1}
    wins = {(p.faster, p.slower) for p in significantly_faster(samples, Rule(0.03, 0.05))}
    beaten_by_all = {
        name
        for name in samples
        if name not in race.leaders and all((q, name) in wins for q in race.leaders)
    }
    assert race.out == beaten_by_all


def _stored(store: Store, cpu_by_program: dict) -> lb.Session:
    c1 = store_case("c1", "v1")
    programs = []
    for pid, runs in cpu_by_program.items():
        for index, cpu in enumerate(runs):
            store.record_timing(
                pid, "h-" + pid, c1, index, "AC", RunResult(0, None, cpu, cpu, 1, b"", b"", 0), 0
            )
        programs.append(lb.Program(pid, load_config().languages["c"], "h-" + pid, Path(".")))
    return lb.Session(cases=[c1], programs=programs, startups=[], ineligible=[])


def test_a_program_stopped_by_the_race_is_ranked_by_its_runs_and_says_so(tmp_path):
    config = load_config()
    with Store(tmp_path / "g.db") as store:
        session = _stored(store, {"fast": FAST, "slow": [2.0, 2.1, 2.05]})
        board = lb.collect(store, session, config)
    assert [(rank, t.program.id, t.timed_runs, t.stopped) for rank, t in board.ranked] == [
        (1, "fast", 7, False),
        (2, "slow", 3, True),
    ]
    assert board.ineligible == []
    doc = lb.document(board, lb.machine_info("bubblewrap", [0, 1], "cgroup"), exhaustive=False)
    assert_valid(doc, "leaderboard")
    assert "| 3 of 7, stopped" in markdown(doc) and "slower than every program" in markdown(doc)
    assert "one run per core at once on cores 0, 1; racing" in markdown(doc)
    record = lb.session_record(board)
    [slow] = [p for p in record.programs if p.program_id == "slow"]
    assert slow.outcome == "ranked" and slow.rank == 2 and "timed 3 of 7 runs" in slow.reason


def test_nothing_is_settled_while_a_leader_is_incomplete(tmp_path):
    """A killed session: the fastest has 4 runs; the slow one's 3 prove nothing yet."""
    with Store(tmp_path / "g.db") as store:
        session = _stored(store, {"fast": FAST[:4], "slow": [2.0, 2.1, 2.05], "ok": FAST})
        board = lb.collect(store, session, load_config())
    assert [t.program.id for _, t in board.ranked] == ["ok"]
    assert {i.id: i.reason for i in board.ineligible} == {
        "fast": "timing incomplete: run leaderboard again",
        "slow": "timing incomplete: run leaderboard again",
    }


def test_a_resumed_session_stops_none_while_a_leader_is_incomplete(tmp_path):
    """The leaders' last runs are still to come: a slow program's runs so far are shown
    slower than theirs, yet it is timed on (one rule for the plan and the page)."""
    samples = {"a": FAST, "b": FAST[:6], "slow": [2.0, 2.1, 2.05]}
    assert decide(samples, Rule(0.03, 0.05)).out == {"slow"}
    assert stopped(samples, 7, Rule(0.03, 0.05)) == frozenset()
    assert stopped({**samples, "b": FAST}, 7, Rule(0.03, 0.05)) == {"slow"}
    config = load_config()
    with Store(tmp_path / "g.db") as store:
        session = _stored(store, samples)
        plan = lb.plan_timing(store, session, config)
    assert {pid for pid, _ in plan.todo} == {"b", "slow"}


# ------------------------------------------------------------------ whole sessions


def _session(tmp_path: Path, cpu_of: dict[str, float]):
    """Programs whose every run prints the right answer in a known CPU time (the fake
    sandbox reads the time from the program's folder name)."""
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT})
    [case] = load_cases(manifest)
    programs = []
    for pid in cpu_of:
        folder = tmp_path / "builds" / pid
        folder.mkdir(parents=True)
        programs.append(lb.Program(pid, load_config().languages["python"], "h-" + pid, folder))
    expected = case.expected.read_bytes()
    cores_seen: list[int] = []

    def on_run(request: Request):
        cores_seen.append(min(os.sched_getaffinity(0)))
        time.sleep(0.005)  # a run takes a while: the other core's thread takes the next
        return result(expected, cpu=cpu_of[request.workdir.name])

    session = lb.Session(cases=[case], programs=programs, startups=[], ineligible=[])
    return session, FakeSandbox(on_run=on_run), cores_seen


CLASS = {"c1": 0.01, "c2": 0.0101, "py1": 0.5, "py2": 0.52, "java": 1.0}


@pytest.mark.parametrize("exhaustive", [False, True])
def test_a_session_races_or_times_everything(tmp_path, exhaustive):
    config = dataclasses.replace(load_config(), sandbox="rlimits")
    session, sandbox, cores_seen = _session(tmp_path, CLASS)
    events: list = []
    cores = sorted(os.sched_getaffinity(0))
    with Store(tmp_path / "g.db") as store:
        work = lb.plan_timing(store, session, config)
        assert (
            lb.measure(
                work, store, sandbox, config, events.append, cores=cores, exhaustive=exhaustive
            )
            == 0
        )
        made = {p.id: len(store.timings(p.id, p.content_hash)) for p in session.programs}
        board = lb.collect(store, session, config)
    winners = sorted(t.program.id for rank, t in board.ranked if rank == 1)
    assert winners == ["c1", "c2"]
    if exhaustive:
        assert made == {pid: 7 for pid in CLASS}
        assert not [e for e in events if isinstance(e, lb.RaceEvent)]
        return
    assert made == {"c1": 7, "c2": 7, "py1": 3, "py2": 3, "java": 3}
    [stop] = [e for e in events if isinstance(e, lb.RaceEvent)]
    assert set(stop.stopped) == {"py1", "py2", "java"} and stop.skipped == 12
    assert {t.program.id: t.stopped for _, t in board.ranked}["java"]
    assert set(cores_seen) == set(cores), "every core timed runs"


def test_a_start_up_is_timed_as_far_as_the_programs_of_its_language(tmp_path):
    """C's programs rank 1 and are timed fully, and so is C's start-up; every Python
    and Java program is stopped after its first look, and so are their start-ups
    (nothing to compare their full figures with): the page says so, and a later
    sitting plans none of their runs."""
    languages = load_config().languages
    config = dataclasses.replace(load_config(), sandbox="rlimits")
    of = {"c1": "c", "c2": "c", "py1": "python", "py2": "python", "java": "java"}
    session, sandbox, _ = _session(
        tmp_path, {**CLASS, "startup-c": 0.001, "startup-python": 0.02, "startup-java": 0.05}
    )
    # the fake sandbox tells programs by their folders' names: "startup-c" is startup/c
    language = {**of, **{f"startup-{name}": name for name in ("c", "python", "java")}}
    timed = [
        dataclasses.replace(p, id=p.id.replace("-", "/"), language=languages[language[p.id]])
        for p in session.programs
    ]
    session = dataclasses.replace(
        session,
        programs=[p for p in timed if not p.startup],
        startups=[p for p in timed if p.startup],
    )
    events: list = []
    with Store(tmp_path / "g.db") as store:
        work = lb.plan_timing(store, session, config)
        assert lb.measure(work, store, sandbox, config, events.append, cores=_two_cores()) == 0
        made = {p.id: len(store.timings(p.id, p.content_hash)) for p in session.everything}
        board = lb.collect(store, session, config)
        assert lb.plan_timing(store, session, config).total == 0
        # A later sitting finds C's start-up short of its last runs: C's programs were
        # timed fully, so its start-up is too, and nothing else is timed.
        with sqlite3.connect(tmp_path / "g.db") as db:
            db.execute("DELETE FROM timings WHERE program_id = 'startup/c' AND run_index >= 5")
        again = lb.plan_timing(store, session, config)
        assert again.todo == {("startup/c", "sample"): [5, 6]}
        assert lb.measure(again, store, sandbox, config, cores=_two_cores()) == 0
        assert len(store.timings("startup/c", "h-startup-c")) == 7
    assert made == {
        **{"c1": 7, "c2": 7, "py1": 3, "py2": 3, "java": 3},
        **{"startup/c": 7, "startup/python": 3, "startup/java": 3},
    }
    [_, last] = [e for e in events if isinstance(e, lb.RaceEvent)]
    assert last.startups and last.stopped == ("startup/java", "startup/python")
    assert last.skipped == 8
    assert {name: (t.timed_runs, t.stopped) for name, t in board.startups.items()} == {
        "c": (7, False),
        "java": (3, True),
        "python": (3, True),
    }
    doc = lb.document(board, lb.machine_info("rlimits", [0, 1], "cgroup"), exhaustive=False)
    assert_valid(doc, "leaderboard")
    page = markdown(doc)
    assert "| java       |" in page and "| 3 of 7, stopped |" in page
    assert "every one of them was stopped" in page


def _two_cores() -> list[int]:
    cores = sorted(os.sched_getaffinity(0))
    assert len(cores) >= 2, "this machine kind has 2 cores"
    return cores[:2]


def _looked_at(tmp_path, monkeypatch, every: float):
    """The fake class, its places looked at every `every` seconds while they time, a
    waiting one every 10 ms (the runs take 5 ms)."""
    monkeypatch.setattr(lb.measuring, "JOIN_RETRY_SECONDS", 0.01)
    monkeypatch.setattr(lb.measuring, "LOOK_EVERY_SECONDS", every)
    return (load_config(), *_session(tmp_path, CLASS))


QUICK = [0.010 + i * 1e-5 for i in range(7)]  # the reference work's CPU seconds on a core
SLOWED = [0.0155 + i * 1e-5 for i in range(7)]  # a virtual machine's core in a slow moment


@pytest.mark.parametrize("agrees_at", [3, None])
def test_a_core_left_out_at_the_start_joins_once_a_look_agrees(tmp_path, agrees_at, monkeypatch):
    """A core left out at the start is looked at again while the others time: from the
    look that agrees on (the third here), it times runs too, and says when; one that
    never agrees times nothing (it makes warm-ups only: they are timed nowhere), and the
    session still ends."""
    config, session, sandbox, cores_seen = _looked_at(tmp_path, monkeypatch, every=60)
    first, waiting = _two_cores()
    looks: list[int] = []

    def look(core: int) -> list[float]:
        looks.append(min(os.sched_getaffinity(0)))  # looked at from its own core
        return QUICK if agrees_at is not None and len(looks) >= agrees_at else SLOWED

    timing = lb.LocalTiming(sandbox, config.limits, [first], [waiting], look, QUICK)
    events: list = []
    with Store(tmp_path / "g.db") as store:
        work = lb.plan_timing(store, session, config)
        assert lb.measure(work, store, sandbox, config, events.append, timing=timing) == 0
        stored = {t.core for p in session.programs for t in store.timings(p.id, p.content_hash)}
        board = lb.collect(store, session, config)
    assert sorted(t.program.id for rank, t in board.ranked if rank == 1) == ["c1", "c2"]
    assert set(looks) == {waiting}
    joined = [e for e in events if isinstance(e, lb.PlaceEvent)]
    if agrees_at is None:
        assert not joined and stored == {first} and set(cores_seen) == {first, waiting}
        assert len(looks) >= 2, "looked at again while the other core timed"
        return
    assert len(looks) == agrees_at
    [join] = joined
    assert join.place == lb.measuring.Place(waiting) and join.joined and join.after_seconds > 0
    assert stored == set(cores_seen) == {first, waiting}
    assert lb.spans(joined) == {lb.measuring.Place(waiting): [(join.after_seconds, None)]}


@pytest.mark.parametrize("rejoins", [True, False])
def test_a_core_times_only_while_its_latest_look_agrees(tmp_path, rejoins, monkeypatch):
    """Every core but the first (the fastest at the start: the session always times
    somewhere) is looked at again while it times: a look that finds it slower takes it
    out, and a later one that agrees lets it in again. The spans say when it timed.
    The first core is looked at too, but only as the bar: it always times."""
    config, session, sandbox, cores_seen = _looked_at(tmp_path, monkeypatch, every=0.02)
    first, second = _two_cores()
    looks: list[int] = []

    def look(core: int) -> list[float]:
        looks.append(min(os.sched_getaffinity(0)))
        if core == first:
            return QUICK  # the first core as fast as at the start, throughout
        seconds = looks.count(second)
        return QUICK if rejoins and seconds > 1 else SLOWED  # the first look finds it slower

    timing = lb.LocalTiming(sandbox, config.limits, [first, second], [], look, QUICK)
    events: list = []
    with Store(tmp_path / "g.db") as store:
        work = lb.plan_timing(store, session, config)
        assert lb.measure(work, store, sandbox, config, events.append, timing=timing) == 0
        board = lb.collect(store, session, config)
    assert sorted(t.program.id for rank, t in board.ranked if rank == 1) == ["c1", "c2"]
    assert second in looks and set(looks) <= {first, second}
    moves = [e for e in events if isinstance(e, lb.PlaceEvent)]
    assert [(e.place.core, e.joined) for e in moves] == [(second, False), (second, True)][
        : 1 + rejoins
    ]
    left = moves[0].after_seconds
    if not rejoins:
        assert lb.spans(moves) == {lb.measuring.Place(second): [(0.0, left)]}
        return
    back = moves[1].after_seconds
    assert back > left
    assert lb.spans(moves) == {lb.measuring.Place(second): [(0.0, left), (back, None)]}
    assert set(cores_seen) == {first, second}


def test_a_core_joins_once_it_is_as_fast_as_the_first_core_is_now(tmp_path, monkeypatch):
    """On a virtual machine every core slows down for a while, each on its own: a core
    left out at the start (the first core was in a fast moment then) joins once it is as
    fast as the first core is now, not as the first core was at the start (else it
    could wait a whole session, the first core timing alone)."""
    config, session, sandbox, cores_seen = _looked_at(tmp_path, monkeypatch, every=0.02)
    first, waiting = _two_cores()
    looks: list[int] = []

    def look(core: int) -> list[float]:
        looks.append(core)
        return SLOWED  # both cores now slower than the first was at the start (QUICK)

    timing = lb.LocalTiming(sandbox, config.limits, [first], [waiting], look, QUICK)
    events: list = []
    with Store(tmp_path / "g.db") as store:
        work = lb.plan_timing(store, session, config)
        assert lb.measure(work, store, sandbox, config, events.append, timing=timing) == 0
    joined = [e for e in events if isinstance(e, lb.PlaceEvent)]
    assert [(e.place.core, e.joined) for e in joined] == [(waiting, True)]
    assert looks.index(first) < len(looks) - 1, "the first core's look came before the join"
    assert set(cores_seen) == {first, waiting}


class _Failing(lb.LocalTiming):
    """This machine's timing, failing where told: a place that cannot be entered, or the
    warm-ups of one program."""

    def __init__(self, *args, enter_fails=False, warm_up_fails="", **kwargs):
        super().__init__(*args, **kwargs)
        self.enter_fails, self.warm_up_fails = enter_fails, warm_up_fails

    def enter(self, place):
        if self.enter_fails:
            raise RuntimeError("cannot serve this place")
        return super().enter(place)

    def run(self, place, program, case, timed):
        if not timed and program.id == self.warm_up_fails:
            raise RuntimeError(f"the warm-up of {program.id} failed")
        return super().run(place, program, case, timed)


def _measured_within(seconds, *args, **kwargs):
    """measure's return or error, from a thread given `seconds` to end (a timing that
    waits for ever fails here instead of holding the suite)."""
    outcome: list = []

    def go():
        try:
            outcome.append(lb.measure(*args, **kwargs))
        except Exception as error:  # noqa: BLE001  what the test looks at
            outcome.append(error)

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), "the timing never ended"
    return outcome[0]


@pytest.mark.parametrize("fails", ["enter", "warm-up"])
def test_a_failure_in_the_grader_ends_the_session_with_its_error_and_never_hangs(tmp_path, fails):
    """A place whose thread cannot serve (its only place here) or a warm-up that raises
    ends the timing with that error: nothing waits for ever for work that will not be
    done."""
    config = load_config()
    session, sandbox, _ = _session(tmp_path, CLASS)
    timing = _Failing(
        sandbox,
        config.limits,
        [_two_cores()[0]],
        enter_fails=fails == "enter",
        warm_up_fails="" if fails == "enter" else "py1",
    )
    with Store(tmp_path / "g.db") as store:
        work = lb.plan_timing(store, session, config)
        error = _measured_within(60, work, store, sandbox, config, timing=timing)
        made = {p.id: len(store.timings(p.id, p.content_hash)) for p in session.programs}
    assert isinstance(error, RuntimeError)
    assert str(error) == (
        "cannot serve this place" if fails == "enter" else "the warm-up of py1 failed"
    )
    if fails == "warm-up":  # the warm-ups come first: no timed run was made after it
        assert not any(made.values())


def test_a_look_at_a_core_agrees_only_when_it_is_as_fast_as_the_fastest_was(monkeypatch):
    from grader.leaderboard import cores as module

    rule = Rule(0.03, 0.05)
    fastest = [0.010 + i * 1e-5 for i in range(7)]
    speed = {0: 0.0155}  # a virtual machine's core while its host is busy elsewhere
    monkeypatch.setattr(module, "_on_core", lambda core: speed[core])
    assert not module.agrees(fastest, module.look(0), rule)
    speed[0] = 0.0101
    assert module.agrees(fastest, module.look(0), rule)
    assert not module.agrees([], module.look(0), rule)  # nothing to agree with
    monkeypatch.setattr(module, "_on_core", lambda core: None)  # cannot be pinned
    assert module.look(0) == [] and not module.agrees(fastest, module.look(0), rule)
    found = module.calibrate([0], rule)
    assert found.fastest == () and found.used == ()


def test_no_program_runs_after_the_same_one_in_every_round(tmp_path):
    """A run is slowed by what ran just before it: each round has an order of its own,
    so no program's figures carry one neighbour's cost alone (turning one order round,
    as the rounds once did, keeps every neighbour)."""
    config = load_config()
    cpu = {f"p{i:02d}": 0.01 for i in range(12)}
    session, _, _ = _session(tmp_path, cpu)
    order: list[str] = []
    expected = session.cases[0].expected.read_bytes()
    sandbox = FakeSandbox(
        on_run=lambda request: order.append(request.workdir.name) or result(expected, cpu=0.01)
    )
    with Store(tmp_path / "g.db") as store:
        work = lb.plan_timing(store, session, config, exhaustive=True)
        lb.measure(work, store, sandbox, config, exhaustive=True)  # one thread: in order
    rounds = order[len(cpu) :]  # after the warm-ups
    assert len(rounds) == 7 * len(cpu)
    before: dict[str, list[str]] = {}
    for place, name in enumerate(rounds[1:], start=1):
        before.setdefault(name, []).append(rounds[place - 1])
    most = {name: max(seen.count(other) for other in seen) for name, seen in before.items()}
    assert max(most.values()) <= 3, most  # the same neighbour in at most 3 of 7 rounds


def test_programs_that_may_tie_are_made_back_to_back_and_the_others_are_not():
    """A round's batches: programs in order of their estimates, together while each is
    within CLOSE of the one before it, a batch cut into equal parts beyond
    BATCH_SECONDS, each by tiers of estimate (TIER wide) in the round's order inside
    a tier, a program with no estimate alone, the batches in an order of the round's
    own."""
    from grader.leaderboard.batches import BATCH_SECONDS, CLOSE, TIER, batches

    java = BATCH_SECONDS / 6  # nine: one and a half batches' worth, two parts
    low = TIER**-30 * 1.01  # 1.25 ms: just above a tier's lowest bound (TIER**k, k whole)
    c = [1.0, 1.05, 1.1, TIER * 1.1, TIER * 1.15]  # spread over two tiers, each near
    estimate = {f"c{i}": low * factor for i, factor in enumerate(c)}
    estimate |= {"cpp": estimate["c4"] * CLOSE * 1.01, "py": java / CLOSE / 1.5}
    estimate |= {f"java{i}": java for i in range(9)}
    order = ["py", "java3", "c4", "new", "c0", *(f"java{i}" for i in (0, 1, 2, 4, 5, 6, 7, 8))]
    order += ["cpp", "c2", "c3", "c1"]
    found = batches(order, estimate.get, "round 1")
    assert sorted(map(tuple, found)) == sorted(
        [
            ("c0", "c2", "c1", "c4", "c3"),  # by tiers, the round's order inside each
            ("cpp",),  # more than CLOSE times the slowest C
            ("py",),
            ("java3", "java0", "java1", "java2", "java4"),
            ("java5", "java6", "java7", "java8"),
            ("new",),  # no estimate yet
        ]
    )
    assert found == batches(order, estimate.get, "round 1")
    rounds = {tuple(map(tuple, batches(order, estimate.get, f"round {i}")))
              for i in range(6)}  # fmt: skip
    assert len(rounds) > 1, "the batches' order is the round's own"


def test_in_every_round_the_copies_of_a_program_run_back_to_back(tmp_path):
    """A slow moment of the machine (a virtual machine's core runs everything up to 1.6
    times slower for a while) hits all copies of one program in a round or none, on
    one core and on two: their runs of a round are made back to back, at one place."""
    config = load_config()
    cpu = {f"c{i}": 0.001 for i in range(5)} | {f"slow{i}": 0.02 for i in range(5)}
    session, _, _ = _session(tmp_path, cpu)
    made: list[tuple[int, str]] = []
    expected = session.cases[0].expected.read_bytes()

    def on_run(request):
        made.append((threading.get_native_id(), request.workdir.name.rstrip("0123456789")))
        return result(expected, cpu=cpu[request.workdir.name])

    for exhaustive, cores in ((True, [None]), (False, _two_cores())):
        made.clear()
        with Store(tmp_path / f"g{exhaustive}.db") as store:
            work = lb.plan_timing(store, session, config, exhaustive=exhaustive)
            sandbox = FakeSandbox(on_run=on_run)
            lb.measure(work, store, sandbox, config, cores=cores, exhaustive=exhaustive)
        timed = made[len(cpu) :]  # after the warm-ups
        assert len(timed) == (70 if exhaustive else 5 * 7 + 5 * 3)  # the slow ones stopped
        for place in {thread for thread, _ in timed}:
            kinds = [kind for thread, kind in timed if thread == place]
            streaks = [len(list(same)) for _, same in itertools.groupby(kinds)]
            assert all(streak % 5 == 0 for streak in streaks), kinds  # whole rounds at once


def test_each_run_keeps_the_core_that_timed_it(tmp_path):
    config = load_config()
    session, sandbox, cores_seen = _session(tmp_path, {"c1": 0.01, "c2": 0.011})
    cores = sorted(os.sched_getaffinity(0))
    with Store(tmp_path / "g.db") as store:
        lb.measure(lb.plan_timing(store, session, config), store, sandbox, config, cores=cores)
        stored = {t.core for p in session.programs for t in store.timings(p.id, p.content_hash)}
    assert stored == set(cores_seen) == set(cores)


def test_the_calibration_keeps_the_cores_that_agree(monkeypatch):
    from grader.leaderboard import cores as module

    jitter = iter(range(1000))
    speed = {0: 0.010, 1: 0.0102, 2: 0.0125}  # core 1 within the noise floor of core 0
    monkeypatch.setattr(module, "_on_core", lambda core: speed[core] + (next(jitter) % 5) * 1e-5)
    found = module.calibrate([0, 1, 2], Rule(0.03, 0.05), rounds=5)
    assert found.used == (0, 1) and found.left_out == (2,)
    machine = lb.machine_info("bubblewrap", list(found.used), "cgroup", found)
    assert machine["core_reference_s"][2]["core"] == 2
    assert machine["core_reference_s"][2]["used"] is False
    assert "core(s) 2 left out" in lb_markdown_machine(machine)
    # Slower by a wide margin, but in 3 rounds the rank test cannot show it: kept.
    found = module.calibrate([0, 2], Rule(0.03, 0.05), rounds=3)
    assert found.used == (0, 2)


def test_the_calibration_takes_one_look_and_a_core_it_left_out_joins_later(monkeypatch):
    """One look: a core slower in it (a burst of other work, a VM's slow moment) is
    left out of the start, and no second look holds every core back; it makes the
    warm-ups and joins at its next look (test_a_core_left_out_at_the_start_joins_...)."""
    from grader.leaderboard import cores as module

    calls = iter(range(1000))
    burst = {0: 0.0125, 1: 0.010}
    monkeypatch.setattr(module, "_on_core", lambda core: burst[core] + next(calls) % 5 * 1e-5)
    found = module.calibrate([0, 1], Rule(0.03, 0.05), rounds=5)
    assert found.used == (1,) and found.left_out == (0,)
    assert next(calls) == 2 * 5, "one look: two cores, five rounds"
    assert found.fastest == tuple(0.010 + k % 5 * 1e-5 for k in range(1, 10, 2))
    assert found.seconds[0] == pytest.approx(0.01252)


def test_the_reference_work_runs_on_every_allowed_core():
    cores = lb.allowed_cores()
    found = lb.calibrate(cores, Rule(0.03, 0.05), rounds=1)
    assert sorted(found.seconds) == cores and all(s > 0 for s in found.seconds.values())


class _NeverApart:
    """A rank test that never tells two programs apart (p = 1)."""

    name = "never-apart"

    def p_value(self, x, y) -> float:
        return 1.0

    def smallest_p_value(self, n1: int, n2: int) -> float:
        return 0.0

    def describe(self, n1: int, n2: int) -> str:
        return "never apart"


def test_the_rank_test_is_the_one_course_toml_names(tmp_path, monkeypatch):
    """[leaderboard] rank_test picks the test from grader/statistics/rank_tests/: the ranks and the
    race follow it; a name no module gives is one line naming the key."""
    from grader.course.config import ConfigError
    from grader.statistics import rank_tests

    monkeypatch.setitem(rank_tests.REGISTRY, _NeverApart.name, _NeverApart())
    samples = {"a": FAST, "slow": [2.0 + i / 100 for i in range(7)]}
    course = tmp_path / "course.toml"
    course.write_text("[leaderboard]\n")
    assert ranks(samples, load_config(course).leaderboard.rule) == {"a": 1, "slow": 2}
    course.write_text('[leaderboard]\nrank_test = "never-apart"\n')
    rule = load_config(course).leaderboard.rule
    assert rule.test.name == "never-apart"
    assert ranks(samples, rule) == {"a": 1, "slow": 1}
    assert decide(samples, rule).out == frozenset()
    course.write_text('[leaderboard]\nrank_test = "t-test"\n')
    with pytest.raises(ConfigError) as refused:
        load_config(course)
    said = str(refused.value)
    assert "leaderboard.rank_test" in said and "mann-whitney" in said and "\n" not in said
