"""The instructor's decisions (`grader override`) through the CLI on a class graded for
real: recorded with their reason, in the score, the table, `show`, results.json and the
feedback pages; kept across a regrade that changes the run they were made on, which the
regrade report and `grader diff` name as needing review."""

import json

import pytest

from grader import leaderboard as lb
from grader.cases.manifest import load_cases
from grader.core.model import Verdict
from grader.core.rules import rules_version
from grader.course.config import load_config
from grader.intake.submissions import load
from grader.store import OverrideRow, Store
from tests.helpers import NO_SOLUTION, NO_SOLUTION_PY, SAMPLE_TEXT, make_cases
from tests.helpers import REFERENCE_PY as REFERENCE
from tests.helpers import grader_cli as cli
from tests.helpers import read_csv_rows as read_csv
from tests.lms_archives import moodle_worksheet
from tests.lms_rules import moodle_reads


@pytest.fixture
def klass(tmp_path):
    manifest = make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION})
    for sid, source in (("ref", REFERENCE), ("nosol", NO_SOLUTION_PY)):
        (tmp_path / "class" / sid).mkdir(parents=True)
        (tmp_path / "class" / sid / "puzzlesolver.py").write_text(source)
    (tmp_path / "course.toml").write_text("[limits]\nwall_seconds = 120\n")
    base = ["--course", tmp_path / "course.toml", "--manifest", manifest]
    results = tmp_path / "results"
    grade = [*base, "grade", tmp_path / "class", "--results", results, "--jobs", "2"]
    assert cli(*grade).code == 0
    return tmp_path, base, grade, results


def decide(base, results, *args):
    return cli(*base, "override", *args, "--results", results)


def test_a_decision_counts_at_once_and_survives_a_regrade_that_changes_its_run(klass):
    root, base, grade, results = klass
    done = decide(
        base,
        results,
        "nosol",
        "--case",
        "sample",
        "--verdict",
        "AC",
        "--reason",
        "the grading machine\nran out of memory",
    )
    assert done.code == 0, done.err
    assert (
        "decision on nosol case sample: sample: AC instead of WA, by the instructor: the "
        "grading machine ran out of memory" in done.out
    )
    assert "nosol case sample: recorded; score 1 -> 2/2" in done.out
    docked = decide(base, results, "nosol", "--points", "-0.5", "--reason", "no README")
    assert "score 2 -> 1.5/2" in docked.out

    shown = cli(*base, "show", "nosol", "--results", results)
    assert "AC   sample (the instructor's decision; judged WA)" in shown.out
    assert "score: 1.5/2" in shown.out
    assert (
        "decisions of the instructor (overrides):\n  -0.5 points to the score, by the "
        "instructor: no README  (recorded " in shown.out
    )

    regraded = cli(*grade)
    assert regraded.code == 0, regraded.err
    row = next(line for line in regraded.out.splitlines() if line.startswith("nosol"))
    assert "1.5/2" in row and "-0.5 points to the score, by the instructor" in row
    assert "(+1 more)" in row and "[review]" not in row
    assert "nosol" in regraded.out.split("since the previous run:")[1]  # WA -> AC by decision
    assert "sample WA -> AC" in regraded.out
    document = json.loads((results / "results.json").read_text())
    nosol = next(s for s in document["submissions"] if s["id"] == "nosol")
    assert nosol["score"] == 1.5
    assert (nosol["cases"][0]["verdict"], nosol["cases"][0]["judged"]) == ("AC", "WA")
    assert "judged" not in nosol["cases"][1]  # the judge's verdict counts there
    assert [(d["case"], d["verdict"], d["points"], d["review"]) for d in nosol["overrides"]] == [
        (None, None, -0.5, ""),
        ("sample", "AC", None, ""),
    ]

    # The student hands in again: the decisions were made on the other program: shown,
    # flagged, counting for nothing until the instructor confirms them.
    (root / "class" / "nosol" / "puzzlesolver.py").write_text(NO_SOLUTION_PY + "# v2\n")
    again = cli(*grade)
    assert again.code == 0, again.err
    assert "2 decision(s) of the instructor need review" in again.out
    assert (
        "nosol: sample: AC instead of WA, by the instructor: the grading machine ran out of "
        "memory [waiting: made on other content, it counts for nothing until confirmed] "
        "(the submission's content changed)" in again.out
    )
    row = next(line for line in again.out.splitlines() if line.startswith("nosol"))
    assert "1/2" in row and "[review] [waiting]" in row
    diff = cli("diff", "--results", results)
    assert "2 decision(s) of the instructor need review" in diff.out
    shown = cli(*base, "show", "nosol", "--results", results)
    assert "WA   sample" in shown.out and "score: 1/2" in shown.out
    assert "waits: the submission's content changed; it counts toward neither" in shown.out
    assert "grader override nosol --case sample --confirm" in shown.out

    pages = root / "pages"
    assert cli(*base, "export", "html", pages, "--results", results, "--student").code == 0
    page = (pages / "nosol.html").read_text()
    assert "Decided by the instructor" not in page and "ran out of memory" not in page
    grades = root / "grades.csv"
    exported = cli(*base, "export", "csv", grades, "--results", results)
    assert exported.code == 0 and "2 decision(s) of yours wait" in exported.err
    rows = read_csv(grades)
    nosol = dict(zip(rows[0], next(row for row in rows if row[0] == "nosol")))
    assert (nosol["score"], nosol["case:sample"]) == ("1", "WA")
    assert nosol["overrides"].count("[waiting: made on other content") == 2
    sheet = moodle_worksheet(
        root / "worksheet.csv", [{"id": 7, "name": "No Sol", "email": "nosol"}], maximum="2.00"
    )
    done = cli(*base, "export", "moodle", root / "m.csv", "--roster", sheet, "--results", results)
    assert (
        "decided: nosol: -0.5 points to the score, by the instructor: no README [waiting"
        in done.out
    )
    feedback = moodle_reads((root / "m.csv").read_text(), maximum=2.0).feedback["7"]
    assert "instructor" not in feedback  # the student reads no decision that counts for nothing

    # Confirmed for the new content: they count again, no longer to review; cleared: the
    # judge's verdict counts again.
    for case in ([], ["--case", "sample"]):
        confirmed = decide(base, results, "nosol", *case, "--confirm")
        assert confirmed.code == 0 and "confirmed for the content graded now" in confirmed.out
    assert "nosol case sample: confirmed for the content graded now; score 0.5 -> 1.5/2" in (
        confirmed.out
    )
    assert "need review" not in cli(*grade).out
    page_again = cli(*base, "export", "html", pages, "--results", results, "--student")
    assert page_again.code == 0 and "ran out of memory" in (pages / "nosol.html").read_text()
    cleared = decide(base, results, "nosol", "--case", "sample", "--clear")
    assert cleared.code == 0 and "nosol case sample: cleared; score 1.5 -> 0.5/2" in cleared.out


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["nosol", "--case", "nope", "--verdict", "AC", "--reason", "x"],
            "no case 'nope' in the manifest",
        ),
        (["nosol", "--verdict", "AC", "--reason", "x"], "--verdict needs --case"),
        (
            ["nosol", "--case", "sample", "--points", "3", "--reason", "x"],
            "between 0 and its weight 1, not 3",
        ),
        (["nosol", "--case", "sample", "--verdict", "AC"], "--reason is needed"),
        (["nosol", "--case", "sample", "--verdict", "AC", "--reason", "  "], "--reason is needed"),
        (["nosol", "--points", "nan", "--reason", "x"], "--points must be a number"),
        (["nobody", "--points", "1", "--reason", "x"], "no submission 'nobody'"),
        (["nosol", "--case", "sample", "--clear"], "no decision on nosol case sample to clear"),
        (["nosol", "--clear", "--reason", "x"], "--clear and --confirm take no --reason"),
        (["nosol", "--case", "sample", "--confirm"], "no decision on nosol case sample to confirm"),
    ],
)
def test_a_bad_decision_is_one_line_and_changes_nothing(klass, args, message):
    root, base, grade, results = klass
    done = decide(base, results, *args)
    assert done.code == 2 and message in done.err and done.err.count("\n") == 1
    shown = cli(*base, "show", "nosol", "--results", results)
    assert "score: 1/2" in shown.out and "decisions of the instructor" not in shown.out


def amy_on_two_cases(tmp_path):
    """The course, its two cases, and Amy's program (no solution ever) as loaded."""
    config = load_config()
    cases = load_cases(make_cases(tmp_path / "cases", {"sample": SAMPLE_TEXT, "none": NO_SOLUTION}))
    (tmp_path / "amy").mkdir()
    (tmp_path / "amy" / "puzzlesolver.py").write_text(NO_SOLUTION_PY)
    return config, cases, load(tmp_path / "amy", config)


def test_a_decided_verdict_makes_a_program_eligible_for_the_leaderboard(tmp_path):
    """The leaderboard ranks programs passing every case: the instructor's verdict counts."""
    config, cases, amy = amy_on_two_cases(tmp_path)
    with Store(tmp_path / "g.db") as store:
        store.record_submission(amy)
        store.record_run(amy, cases[0], Verdict.WA, "count line wrong", rules=rules_version())
        store.record_run(amy, cases[1], Verdict.AC, "", rules=rules_version())
        row = store.submission("amy")
        assert lb.eligibility(row, store, cases, config) == (None, "WA on 1 case")
        store.record_override(
            OverrideRow(
                "amy", "sample", "AC", None, "appeal", 0.0, row.content_hash, cases[0].version, "WA"
            )
        )
        eligible, reason = lb.eligibility(row, store, cases, config)
        assert reason is None and eligible.id == "amy"
        store.record_override(
            OverrideRow(
                "amy", "sample", None, 1.0, "partial", 0.0, row.content_hash, cases[0].version, "WA"
            )
        )
        assert lb.eligibility(row, store, cases, config) == (None, "WA on 1 case")


def test_a_decision_made_on_other_content_makes_no_program_eligible(tmp_path):
    """The instructor decided AC on one program; the student hands in another, still
    wrong on that case: the old decision counts for nothing (no rank, no bonus) until
    the instructor confirms it for this content."""
    config, cases, first = amy_on_two_cases(tmp_path)
    with Store(tmp_path / "g.db") as store:
        store.record_submission(first)
        decided_on = store.submission("amy")
        store.record_override(
            OverrideRow(
                "amy",
                "sample",
                "AC",
                None,
                "appeal",
                0.0,
                decided_on.content_hash,
                cases[0].version,
                "WA",
            )
        )
        (tmp_path / "amy" / "puzzlesolver.py").write_text(NO_SOLUTION_PY + "# faster\n")
        second = load(tmp_path / "amy", config)
        store.record_submission(second)
        store.record_run(second, cases[0], Verdict.WA, "count line wrong")
        store.record_run(second, cases[1], Verdict.AC, "")
        row = store.submission("amy")
        assert row.content_hash != decided_on.content_hash
        assert lb.eligibility(row, store, cases, config) == (None, "WA on 1 case")
