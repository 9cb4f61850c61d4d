"""The SQLite store: runs keyed by content and case version, resumable, locked."""

import dataclasses
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from grader.core.model import STARTUP_RAN, RunResult, Verdict
from grader.core.text import printable
from grader.intake.submissions import Submission
from grader.store import (
    SCHEMA_VERSION,
    CounterexampleRow,
    FilesRow,
    LeaderboardSession,
    OverrideRow,
    SessionProgram,
    Store,
    StoreError,
    results_folder,
)
from tests.helpers import schema_1_database, schema_1_run
from tests.helpers import store_case as case

pytestmark = pytest.mark.fast


def sub(sid="amy", digest="h1"):
    return Submission(sid, Path("/x") / sid, None, None, None, digest)


def result(stdout=b"out", cpu_accounting=""):
    return RunResult(
        0,
        None,
        0.01,
        0.02,
        1234,
        stdout,
        b"err\xff",
        len(stdout),
        sandbox="bubblewrap",
        cpu_accounting=cpu_accounting,
    )


def test_runs_are_keyed_by_content_and_case_version(tmp_path):
    with Store(tmp_path / "g.db") as store:
        store.record_submission(sub())
        store.record_run(sub(), case(), Verdict.WA, "count line wrong", result(b"bad"))
        store.record_run(sub(), case("c2"), Verdict.IE, "grader failed", result())
        assert store.done("amy", "h1") == {("c1", "v1")}  # IE is retried
        assert store.done("amy", "h2") == set()
        row = store.runs("amy", "h1")[("c1", "v1")]
        assert row.verdict == "WA" and row.diagnosis == "count line wrong"
        assert row.peak_memory_kb == 1234 and row.stderr == "err\\xff"
        assert store.output("amy", "h1", "c1", "v1") == b"bad"
        store.forget("amy")
        assert store.done("amy", "h1") == set()
    # a second connection sees what the first committed
    with Store(tmp_path / "g.db") as store:
        assert store.submission("amy").content_hash == "h1"


def test_a_result_is_on_disk_the_moment_it_is_recorded(tmp_path):
    store = Store(tmp_path / "g.db")
    store.record_submission(sub())
    store.record_run(sub(), case(), Verdict.AC, "", result())
    # another process reads it while this connection is still open
    code = (
        "import sqlite3,sys; db=sqlite3.connect(sys.argv[1]);"
        "print(db.execute('select verdict from runs').fetchall())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "g.db")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "AC" in out
    store.close()


def test_not_a_database_is_a_clear_error(tmp_path):
    bad = tmp_path / "g.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="cannot use the results database"):
        Store(bad)


def test_second_grading_run_on_one_folder_is_refused(tmp_path):
    with results_folder(tmp_path / "r"):
        with pytest.raises(StoreError, match="another grading run is using"):
            with results_folder(tmp_path / "r"):
                pass
    with results_folder(tmp_path / "r"):  # free again afterwards
        pass


def test_unwritable_results_folder_is_a_clear_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StoreError, match="cannot use the results folder"):
        with results_folder(blocker / "r"):
            pass


def test_a_run_keeps_its_policy_decision(tmp_path):
    with Store(tmp_path / "g.db") as store:
        store.record_submission(sub())
        store.record_run(sub(), case("c1"), Verdict.WA, "ties swapped", policy_only=True)
        store.record_run(sub(), case("c2"), Verdict.WA, "count line wrong", result(b"bad"))
        runs = store.runs("amy", "h1")
        assert runs[("c1", "v1")].policy_only is True
        assert runs[("c2", "v1")].policy_only is False


def test_a_schema_1_database_gets_the_column_its_runs_undecided(tmp_path):
    old = schema_1_database(tmp_path / "g.db")
    schema_1_run(old, case("c1"), "WA", "count line wrong", b"bad")
    old.close()
    with Store(tmp_path / "g.db") as store:
        assert store.runs("amy", "h1")[("c1", "v1")].policy_only is None
        assert store.runs("amy", "h1")[("c1", "v1")].diagnosis == "count line wrong"
        store.record_run(sub(), case("c2"), Verdict.WA, "ties swapped", policy_only=True)
        assert store.runs("amy", "h1")[("c2", "v1")].policy_only is True
        store.record_policy_only("amy", "h1", "c1", "v1", False)
    with Store(tmp_path / "g.db") as store:  # migrated once: opens as the current schema
        assert store.runs("amy", "h1")[("c1", "v1")].policy_only is False
        assert store.runs("amy", "h1")[("c1", "v1")].cpu_accounting == ""  # not recorded then
        assert store.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (
            str(SCHEMA_VERSION),
        )


SCHEMA_2_TIMINGS = (
    "CREATE TABLE timings (program_id TEXT NOT NULL, content_hash TEXT NOT NULL,"
    " case_id TEXT NOT NULL, case_version TEXT NOT NULL, run_index INTEGER NOT NULL,"
    " verdict TEXT NOT NULL, cpu_seconds REAL NOT NULL, wall_seconds REAL NOT NULL,"
    " core INTEGER, sandbox TEXT NOT NULL, created_at REAL NOT NULL,"
    " PRIMARY KEY (program_id, content_hash, case_id, case_version, run_index))"
)


def test_a_schema_2_database_gets_what_counted_the_cpu_time_unknown(tmp_path):
    """Schema 2 had no cpu_accounting: its runs and timings say '' (not recorded); a
    run stored after the migration says what counted it."""
    old = schema_1_database(tmp_path / "g.db")
    old.execute("ALTER TABLE runs ADD COLUMN policy_only INTEGER")
    old.execute(SCHEMA_2_TIMINGS)
    old.execute("INSERT INTO timings VALUES ('amy', 'h1', 'c1', 'v1', 0, 'AC', 1, 1, 0, 'b', 0)")
    old.execute("UPDATE meta SET value='2' WHERE key='schema'")
    schema_1_run(old, case("c1"), "WA", "count line wrong", b"bad", policy_only=0)
    old.close()
    with Store(tmp_path / "g.db") as store:
        assert store.runs("amy", "h1")[("c1", "v1")].cpu_accounting == ""
        assert [t.cpu_accounting for t in store.timings("amy", "h1")] == [""]
        counted = result(b"", cpu_accounting="cgroup")
        store.record_run(sub(), case("c2"), Verdict.TLE, "slow", counted)
        assert store.runs("amy", "h1")[("c2", "v1")].cpu_accounting == "cgroup"


def test_a_schema_3_database_gets_the_kind_of_its_runs_unknown_and_the_search_tables(tmp_path):
    """Schema 3 kept no failure's kind and no runs on the pool: its runs say '' (the
    search then says the case must be graded again); the new tables work at once."""
    old = schema_1_database(tmp_path / "g.db")
    old.execute("ALTER TABLE runs ADD COLUMN policy_only INTEGER")
    old.execute("ALTER TABLE runs ADD COLUMN cpu_accounting TEXT NOT NULL DEFAULT ''")
    old.execute(
        SCHEMA_2_TIMINGS.replace(
            "created_at REAL NOT NULL,",
            "created_at REAL NOT NULL, cpu_accounting TEXT NOT NULL DEFAULT '',",
        )
    )
    old.execute("UPDATE meta SET value='3' WHERE key='schema'")
    schema_1_run(old, case("c1"), "WA", "count line wrong", b"bad", policy_only=0)
    old.close()
    with Store(tmp_path / "g.db") as store:
        assert store.runs("amy", "h1")[("c1", "v1")].kind == ""
        store.record_run(sub(), case("c2"), Verdict.WA, "x", result(b"bad"), kind="WA/missing")
        assert store.runs("amy", "h1")[("c2", "v1")].kind == "WA/missing"
        store.record_pool_run(sub(), case("p1"), Verdict.WA, "WA/missing", "y", result(b"out"))
        assert store.pool_runs("amy", "h1")[("p1", "v1")].kind == "WA/missing"
        assert store.pool_output("amy", "h1", "p1", "v1") == b"out"
        found = CounterexampleRow("c2", "v1", "p1", "pool", b"in", b"exp", b"out", "y", "")
        store.record_counterexample(sub(), case("c2"), found)
        none = CounterexampleRow("c1", "v1", None, "", b"", b"", b"", "", "none fails so")
        store.record_counterexample(sub(), case("c1"), none)
    with Store(tmp_path / "g.db") as store:
        kept = store.counterexamples("amy", "h1")
        assert kept[("c2", "v1")] == found and kept[("c1", "v1")] == none
        assert kept[("c2", "v1")].found and not kept[("c1", "v1")].found
        store.forget("amy")  # --force: the search is made again with the runs
        assert store.pool_runs("amy", "h1") == {} and store.counterexamples("amy", "h1") == {}


def test_reads_return_typed_rows(tmp_path):
    with Store(tmp_path / "g.db") as store:
        folder = Submission("amy", Path("/x/amy"), Path("/x/amy/a.c"), None, None, "h1", ("b.h",))
        store.record_submission(replace(folder, ignored=(("notes.txt", "not a source"),)))
        store.record_run(sub(), case(), Verdict.WA, "count line wrong", result(b"bad"))
        for index, verdict in enumerate((Verdict.AC, STARTUP_RAN, Verdict.TLE)):
            store.record_timing("amy", "h1", case(), index, verdict, result(), None)
        assert store.runs("amy", "h1")[("c1", "v1")].verdict is Verdict.WA
        assert [t.verdict for t in store.timings("amy", "h1")] == ["AC", "OK", "TLE"]
        assert [type(t.verdict) for t in store.timings("amy", "h1")] == [Verdict, str, Verdict]
        assert store.files("amy") == FilesRow(["a.c", "b.h"], [("notes.txt", "not a source")])
        assert store.files("bob") == FilesRow([], [])


def override(case_id="c1", verdict="AC", points=None, reason="machine problem", at=100.0):
    return OverrideRow("amy", case_id, verdict, points, reason, at, "h1", "v1", "WA")


def test_an_override_outlives_a_regrade_and_a_new_one_replaces_it(tmp_path):
    with Store(tmp_path / "g.db") as store:
        store.record_submission(sub())
        store.record_run(sub(), case(), Verdict.WA, "count line wrong")
        assert store.record_override(override()) is None
        store.forget("amy")  # grade --force
        assert store.overrides("amy") == [override()]
        docked = override("", None, -2.0, "no README", 101.0)
        store.record_override(docked)
        assert store.record_override(override(points=0.5, verdict=None)) == override()
        assert store.overrides("amy") == [docked, override(points=0.5, verdict=None)]
        assert store.clear_override("amy", "") == docked
        assert store.clear_override("amy", "") is None
    with Store(tmp_path / "g.db") as store:
        assert [o.points for o in store.overrides("amy")] == [0.5]


def test_a_leaderboard_session_is_recorded_with_every_program_it_timed(tmp_path):
    session = LeaderboardSession(
        0,
        1000.0,
        990.0,
        999.0,
        "CPU time",
        {"runs": 7, "noise_floor": 0.03},
        (("t1", "v1"), ("t2", "v9")),
        (
            SessionProgram("amy", "h1", "ranked", 1, 0.5),
            SessionProgram("bob", "h2", "ranked", 2, 0.9),
            SessionProgram("cy", "h3", "failed", reason="failed while being timed: WA on t1"),
            SessionProgram("dee", "h4", "not timed", reason="WA on 1 case"),
        ),
    )
    with Store(tmp_path / "g.db") as store:
        assert store.last_leaderboard_session() is None
        first = store.record_leaderboard_session(session)
        second = store.record_leaderboard_session(dataclasses.replace(session, recorded_at=2000.0))
        assert (first.id, second.id) == (1, 2)
    with Store(tmp_path / "g.db") as store:
        last = store.last_leaderboard_session()
    assert last == dataclasses.replace(session, id=2, recorded_at=2000.0)
    assert [p.program_id for p in last.winners] == ["amy"]


def test_a_schema_3_database_opens_with_no_override_and_no_session(tmp_path):
    with Store(tmp_path / "g.db") as store:
        store.db.execute("DROP TABLE overrides")
        store.db.execute("DROP TABLE leaderboard_sessions")
        store.db.execute("DROP TABLE leaderboard_programs")
        store.db.execute("UPDATE meta SET value='3' WHERE key='schema'")
    with Store(tmp_path / "g.db") as store:
        assert store.overrides("amy") == [] and store.last_leaderboard_session() is None
        assert store.db.execute("SELECT value FROM meta WHERE key='schema'").fetchone() == (
            str(SCHEMA_VERSION),
        )


def test_a_folder_name_that_is_not_utf8_comes_back_as_the_same_folder(tmp_path):
    """`unzip` of a Windows zip names folders in Latin-1: the stored folder was its
    printable text, a path that does not exist ("gone" for the leaderboard)."""
    latin = Path(os.fsdecode(b"/x/caf\xe9"))
    with Store(tmp_path / "g.db") as store:
        store.record_submission(dataclasses.replace(sub("caf"), folder=latin))
    with Store(tmp_path / "g.db") as store:
        row = store.submission("caf")
    assert Path(row.folder) == latin and os.fsencode(row.folder) == b"/x/caf\xe9"
    assert printable(row.folder) == "/x/caf\\xe9"


def test_a_schema_5_database_keeps_its_folders_until_graded_again(tmp_path):
    with Store(tmp_path / "g.db") as store:
        store.record_submission(sub())
        store.db.execute("ALTER TABLE submissions DROP COLUMN path")
        store.db.execute("UPDATE meta SET value='5' WHERE key='schema'")
    with Store(tmp_path / "g.db") as store:
        assert store.submission("amy").folder == "/x/amy"
        store.record_submission(sub())
        assert store.submission("amy").folder == "/x/amy"


def test_a_schema_4_database_has_every_run_exposed(tmp_path):
    """Schema 4 ran hidden and public cases in any order and kept no label: every run
    it stored could have learned a hidden input, and no student sees its output."""
    with Store(tmp_path / "g.db") as store:
        store.record_run(sub(), case("c1"), Verdict.WA, "x", result(b"bad"), exposed=False)
        store.record_pool_run(sub(), case("p1"), Verdict.WA, "WA/x", "y", None, exposed=False)
        store.db.execute("DROP TABLE exposures")
        for table in ("runs", "pool_runs"):
            store.db.execute(f"ALTER TABLE {table} DROP COLUMN exposed")
            store.db.execute(f"ALTER TABLE {table} ADD COLUMN old INTEGER")  # as if it never had it
        store.db.execute("UPDATE meta SET value='4' WHERE key='schema'")
    with Store(tmp_path / "g.db") as store:
        assert store.runs("amy", "h1")[("c1", "v1")].exposed
        assert store.pool_runs("amy", "h1")[("p1", "v1")].exposed
        assert not store.exposed("amy", "h1")
        store.record_exposure("amy", "h1")
        assert store.exposed("amy", "h1") and not store.exposed("amy", "h2")
        store.forget("amy")  # a regrade from scratch starts unexposed
        assert not store.exposed("amy", "h1")
