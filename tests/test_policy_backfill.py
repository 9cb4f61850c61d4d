"""grader.judge.policy_backfill through grader.judge.score.report: a results database of store
schema 1 (the policy decision only a sentence in the diagnosis) is migrated on opening,
and each stored run's decision is made again the first time a report reads it, from the
output the store kept, and stored."""

from __future__ import annotations

import pytest

from grader.cases.manifest import load_cases
from grader.judge.compare import POLICY_ONLY
from grader.judge.score import report
from grader.store import Store
from reference import puzzlesolver as ps
from tests.helpers import each_placement_output as each_placement
from tests.helpers import schema_1_database, schema_1_run
from tests.helpers import ties_reversed_output as ties_reversed

pytestmark = pytest.mark.fast

CASES = {case.id: case for case in load_cases()}


def output(cid: str, program) -> bytes:
    return program(ps.parse(CASES[cid].input.read_text()))


def decisions(path, mode="forgive"):
    """(the stored decisions by case, the report's score) of amy's runs."""
    with Store(path) as store:
        rep = report(store, store.recorded("amy"), list(CASES.values()), mode)
        stored = dict(store.db.execute("SELECT case_id, policy_only FROM runs"))
    return stored, rep.score


def test_stored_runs_are_decided_again_from_their_outputs(tmp_path):
    db = schema_1_database(tmp_path / "g.db")
    # Every look-alike placement printed: the old grader missed it (no sentence).
    schema_1_run(
        db,
        CASES["symmetric-duplicates"],
        "WA",
        "board 124569378 is printed 4 times",
        output("symmetric-duplicates", each_placement),
    )
    # Ties swapped and a trailing space: the old grader forgave it (the sentence).
    spaced = output("ties", ties_reversed).replace(b"Input tiles:", b"Input tiles: ")
    schema_1_run(db, CASES["ties"], "WA", f"boards ... wrong order\n{POLICY_ONLY}", spaced)
    # Not a failure a rule can decide, whatever it printed.
    schema_1_run(
        db, CASES["symmetric"], "TLE", "ran out of time", output("symmetric", each_placement)
    )
    schema_1_run(db, CASES["sample"], "AC", "")
    db.close()
    stored, score = decisions(tmp_path / "g.db")
    assert stored == {"symmetric-duplicates": 1, "ties": 0, "symmetric": 0, "sample": 0}
    assert score == 2  # sample, and symmetric-duplicates forgiven
    assert decisions(tmp_path / "g.db", "count") == (stored, 1)


def test_an_output_the_store_cut_short_keeps_the_old_graders_decision(tmp_path):
    db = schema_1_database(tmp_path / "g.db")
    for cid, diagnosis in [
        ("timed-2-letters-a", f"boards ... wrong order\n{POLICY_ONLY}"),
        ("timed-2-letters-b", "boards ... wrong order"),
    ]:
        printed = output(cid, ties_reversed)
        kept = printed[: len(printed) // 2]  # as if over MAX_STORED_OUTPUT
        schema_1_run(db, CASES[cid], "WA", diagnosis, kept, output_size=len(printed))
    db.close()
    stored, score = decisions(tmp_path / "g.db")
    assert stored == {"timed-2-letters-a": 1, "timed-2-letters-b": 0}
    assert score == 2  # timed-2-letters-a's 2 points, forgiven
