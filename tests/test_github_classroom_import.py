"""`grader import github-classroom`: the folder `gh classroom clone student-repos`
makes (`<slug>-submissions/<repository>/`, each a real `git clone`), the classroom's
roster as its Students tab downloads it, and what GitHub lists for the assignment
(`gh classroom assignment-grades`' grades.csv, written by Go's encoding/csv; `gh api
assignments/ID/accepted_assignments --paginate`), all built as those tools write them
(github/gh-classroom: cmd/gh-classroom/clone, pkg/classroom). Then graded, and the
grades out to a Canvas gradebook."""

import csv
import io
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.course.submission_meta import META_NAME
from tests.helpers import CLASSROOM_ROSTER as ROSTER
from tests.helpers import ROOT, accepted, cloned, committed, git, grades_csv, pushed
from tests.helpers import grader_cli as cli
from tests.lms_archives import canvas_gradebook, moodle_worksheet
from tests.mistake_variants import case_subset, variant

COURSE = """
[late]
deadline = 2026-03-01T23:59:00
per_day_percent = 10
max_percent = 50
timezone = "UTC"
"""
CASES = ("sample", "one-solution")


def source(folder: str, name: str) -> bytes:
    return (ROOT / "submissions" / folder / name).read_bytes()


@pytest.fixture(scope="module")
def clones(tmp_path_factory):
    root = tmp_path_factory.mktemp("classroom")
    plural = variant("plural", "c", root / "programs") / "puzzlesolver.c"
    origins = root / "github"
    pushed(origins / "hw1-adalovelace", {"puzzlesolver.c": source("ada-c", "puzzlesolver.c")},
           "2030-01-01T12:00:00+00:00")  # fmt: skip
    pushed(origins / "hw1-GraceHopper", {"puzzlesolver.c": plural.read_bytes()},
           "2020-01-01T12:00:00+00:00")  # fmt: skip
    pushed(origins / "hw1-mallory", {"puzzlesolver.c": source("ada-c", "puzzlesolver.c")},
           "2026-02-01T12:00:00+00:00")  # fmt: skip
    pushed(origins / "hw1-alanturing",  # a solver only in hidden folders: none counts
           {".github/puzzlesolver.c": source("ada-c", "puzzlesolver.c"), "notes.txt": b"hi\n"},
           "2026-02-01T12:00:00+00:00")  # fmt: skip
    folder = cloned(origins, "hw1", root / "download")
    shutil.copy(ROOT / "submissions" / "guido-py" / "puzzlesolver.py",
                folder / "hw1-alanturing" / ".git" / "puzzlesolver.py")  # fmt: skip
    (root / "classroom_roster.csv").write_text(ROSTER)
    (root / "course.toml").write_text(COURSE)
    grades = grades_csv(root / "grades.csv", [
        ("adalovelace", "S-1001", "hw1-adalovelace", "2026-03-01T20:00:00Z"),
        ("GraceHopper", "S-1002", "hw1-GraceHopper", "2026-03-02 04:58:00 UTC"),
        ("alanturing", "S-1003", "hw1-alanturing", "2026-03-01T10:00:00Z"),
        ("mallory", "", "hw1-mallory", "2026-03-01T10:00:00Z"),
    ])  # fmt: skip
    manifest = case_subset(root / "cases", CASES, pool=("no-solution-1",))
    base = ["--course", root / "course.toml", "--manifest", manifest]
    return root, folder, grades, base


@pytest.fixture(scope="module")
def imported(clones):
    root, folder, grades, base = clones
    done = cli(*base, "import", "github-classroom", folder.parent, "--roster",
               root / "classroom_roster.csv", "--grades", grades, "--into", root / "class")  # fmt: skip
    assert done.code == 0, done.err
    graded = cli(*base, "grade", root / "class", "--results", root / "results", "--jobs", "2")
    assert graded.code == 0, graded.err
    return root, done.out


def students(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith("."))


def meta(folder: Path) -> dict:
    return json.loads((folder / META_NAME).read_text())


def test_each_student_under_their_roster_identifier(imported):
    root, out = imported
    assert [p.name for p in students(root / "class")] == ["S-1001", "S-1002", "S-1003"]
    ada = meta(root / "class" / "S-1001")
    assert ada["lms_user_id"] == "S-1001" and ada["name"] == "Ada Lovelace"
    assert len(ada["submission_id"]) == 40  # the commit the clone holds


def test_an_unknown_username_is_named_and_not_graded(imported):
    _, out = imported
    refused = [line for line in out.splitlines() if line.startswith("refused: hw1-mallory")]
    assert (
        len(refused) == 1
        and "mallory" in refused[0]
        and "never graded under a guess" in (refused[0])
    )


def test_no_file_of_git_or_hidden_folders_is_used(imported):
    root, _ = imported
    alan = root / "class" / "S-1003"
    assert sorted(p.name for p in alan.iterdir()) == sorted([META_NAME, "notes.txt"])
    assert not any(".git" in p.parts for p in (root / "class").rglob("*"))


def test_scores_and_lateness_come_from_github_not_from_commit_dates(imported, tmp_path):
    root, _ = imported
    base = ["--course", root / "course.toml"]
    done = cli(*base, "--manifest", root / "cases" / "manifest.json", "export", "csv",
               tmp_path / "grades.csv", "--results", root / "results")  # fmt: skip
    assert done.code == 0, done.err
    rows = {
        row["member"]: row
        for row in csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text()))
    }
    assert set(rows) == {"S-1001", "S-1002", "S-1003"}
    # Ada's commit says 2030, GitHub's record the day before the deadline: on time.
    assert (rows["S-1001"]["score"], rows["S-1001"]["final_score"]) == ("2", "2")
    # Grace's commit says 2020, GitHub's record 5 hours after: a day late, 10 %.
    assert (rows["S-1002"]["score"], rows["S-1002"]["final_score"]) == ("1", "0.9")
    assert rows["S-1003"]["score"] == "0"
    # Out to Canvas by the identifier, the course's SIS User ID.
    gradebook = canvas_gradebook(tmp_path / "gradebook.csv", [
        {"name": "Lovelace, Ada", "id": 11, "sis": "S-1001", "login": "ada"},
        {"name": "Hopper, Grace", "id": 12, "sis": "S-1002", "login": "grace"},
        {"name": "Turing, Alan", "id": 13, "sis": "S-1003", "login": "alan"},
    ], {"Scramble Squares (88)": "2"})  # fmt: skip
    done = cli(*base, "--manifest", root / "cases" / "manifest.json", "export", "canvas",
               tmp_path / "canvas.csv", "--roster", gradebook, "--results", root / "results")  # fmt: skip
    assert done.code == 0, done.err
    table = list(csv.reader(io.StringIO((tmp_path / "canvas.csv").read_text())))
    column = table[0].index("Scramble Squares (88)")
    scores = {row[2]: row[column] for row in table[2:]}
    assert scores == {"S-1001": "2", "S-1002": "0.9", "S-1003": "0"}


def test_without_githubs_times_only_the_commit_dates_are_known_and_it_says_so(clones, tmp_path):
    """No grades download: the commits' own dates (the committers' clocks) are all the
    clone has. Ada's clock says 2030, after the course's deadline: her one commit is
    graded as late work (the course's policy takes it), timed and named as her clock;
    Grace's says 2020: on time, no time charged."""
    root, folder, _, base = clones
    done = cli(*base, "import", "github-classroom", folder, "--roster",
               root / "classroom_roster.csv", "--into", tmp_path / "class")  # fmt: skip
    assert done.code == 0, done.err
    assert "only a commit's own date is known, the committer's clock" in done.out
    assert [p.name for p in students(tmp_path / "class")] == ["S-1001", "S-1002", "S-1003"]
    ada, grace = meta(tmp_path / "class" / "S-1001"), meta(tmp_path / "class" / "S-1002")
    assert ada["submitted_at"] == "2030-01-01T12:00:00+00:00"
    assert ada["time_source"].endswith("(the committer's clock)")
    assert "as late work" in done.out and "(the committer's clock), not after" in done.out
    assert grace["submitted_at"] is None


@pytest.mark.parametrize("listing", ["grades", "accepted"])
def test_a_teams_repository_gives_every_member_its_result(clones, tmp_path, listing):
    base = clones[3]
    origins = tmp_path / "github"
    pushed(origins / "proj-rocket", {"puzzlesolver.py": source("guido-py", "puzzlesolver.py")},
           "2030-01-01T12:00:00+00:00")  # fmt: skip
    folder = cloned(origins, "proj", tmp_path / "download")
    (tmp_path / "classroom_roster.csv").write_text(ROSTER)
    if listing == "grades":
        listed = grades_csv(tmp_path / "grades.csv", [
            ("alanturing", "S-1003", "proj-rocket", "2026-03-01T10:00:00Z", "rocket"),
            ("kjohnson", "S-1004", "proj-rocket", "2026-03-01T10:00:00Z", "rocket"),
        ], group=True)  # fmt: skip
    else:  # two pages, back to back, as `gh api --paginate` prints them
        page = {"id": 1, "students": [{"id": 5003, "login": "alanturing"}],
                "repository": {"id": 9, "name": "proj-rocket", "full_name": "org/proj-rocket"}}  # fmt: skip
        second = dict(page, students=[{"id": 5004, "login": "kjohnson"}])
        listed = tmp_path / "accepted.json"
        listed.write_text(json.dumps([page]) + json.dumps([second]))
    done = cli(*base, "import", "github-classroom", folder, "--roster",
               tmp_path / "classroom_roster.csv", f"--{listing}", listed, "--into",
               tmp_path / "class")  # fmt: skip
    assert done.code == 0, done.err
    (team,) = students(tmp_path / "class")
    members = meta(team)["team"]["members"]
    assert sorted(m["lms_user_id"] for m in members) == ["S-1003", "S-1004"]
    results = tmp_path / "results"
    assert cli(*base, "grade", tmp_path / "class", "--results", results).code == 0
    [entry] = json.loads((results / "results.json").read_text())["submissions"]
    assert entry["team"]["source"] == "github-classroom"  # GitHub's team, never "alone"
    done = cli(*base, "export", "csv", tmp_path / "grades.csv", "--results", results)
    assert done.code == 0, done.err
    rows = csv.DictReader(io.StringIO((tmp_path / "grades.csv").read_text()))
    assert {row["member"]: row["score"] for row in rows} == {"S-1003": "2", "S-1004": "2"}


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "--roster classroom_roster.csv"),
        (["--roster", "ROSTER", "--teams", "x.csv"], "--grades or --accepted"),
        (["--roster", "NOT_CLASSROOM"], "GitHub Classroom"),
    ],
)
def test_a_missing_or_wrong_option_is_one_clear_error(clones, tmp_path, argv, message):
    root, folder, _, _ = clones
    canvas = tmp_path / "canvas.csv"
    canvas.write_text("Student,ID,SIS User ID,SIS Login ID,Section\n")
    argv = [{"ROSTER": root / "classroom_roster.csv", "NOT_CLASSROOM": canvas}.get(a, a)
            for a in argv]  # fmt: skip
    done = cli("import", "github-classroom", folder, *argv, "--into", tmp_path / "class")
    assert done.code != 0 and message in done.err and len(done.err.strip().splitlines()) == 1
    assert not (tmp_path / "class").exists() or not students(tmp_path / "class")


def test_identifiers_set_to_e_mails_reach_moodles_worksheet(clones, tmp_path):
    """A course that sets its classroom identifiers to the students' e-mails: Moodle's
    worksheet finds each by its "Email address"."""
    base = clones[3]
    origins = tmp_path / "github"
    pushed(origins / "hw1-adalovelace", {"puzzlesolver.c": source("ada-c", "puzzlesolver.c")},
           "2026-02-01T12:00:00+00:00")  # fmt: skip
    folder = cloned(origins, "hw1", tmp_path / "download")
    roster = tmp_path / "classroom_roster.csv"
    roster.write_text('"identifier","github_username","github_id","name"\n'
                      '"ada@uni.example","adalovelace","5001","Ada Lovelace"\n')  # fmt: skip
    done = cli(*base, "import", "github-classroom", folder, "--roster", roster, "--into",
               tmp_path / "class")  # fmt: skip
    assert done.code == 0, done.err
    results = tmp_path / "results"
    assert cli(*base, "grade", tmp_path / "class", "--results", results).code == 0
    worksheet = moodle_worksheet(tmp_path / "worksheet.csv", [
        {"id": 7, "name": "Ada Lovelace", "email": "ada@uni.example"},
        {"id": 8, "name": "Grace Hopper", "email": "grace@uni.example"},
    ], maximum="2.00")  # fmt: skip
    done = cli(*base, "export", "moodle", tmp_path / "moodle.csv", "--roster", worksheet,
               "--results", results)  # fmt: skip
    assert done.code == 0, done.err
    rows = {r["Email address"]: r["Grade"] for r in csv.DictReader(io.StringIO(
        (tmp_path / "moodle.csv").read_text(encoding="utf-8-sig")))}  # fmt: skip
    assert rows == {"ada@uni.example": "2", "grace@uni.example": ""}


# ------------------------------------------------------------------ the commit at the deadline


@pytest.fixture
def fixed_after_the_deadline(tmp_path):
    """Ada's first program (wrong on plurals) committed before Classroom's deadline, her
    fix after it; `gh classroom clone` clones the branch as it is now."""
    wrong = variant("plural", "c", tmp_path / "programs") / "puzzlesolver.c"
    shas = committed(tmp_path / "github" / "hw1-adalovelace", [
        ({"puzzlesolver.c": wrong.read_bytes()}, "2026-03-01T20:00:00+00:00"),
        ({"puzzlesolver.c": source("ada-c", "puzzlesolver.c")}, "2026-03-02T10:00:00+00:00"),
    ])  # fmt: skip
    folder = cloned(tmp_path / "github", "hw1", tmp_path / "download")
    (tmp_path / "classroom_roster.csv").write_text(ROSTER)
    listed = accepted(tmp_path / "accepted.json", "hw1-adalovelace", "2026-03-01T23:59:00Z")
    return folder, listed, shas, wrong.read_bytes()


@pytest.mark.parametrize("course", ["", COURSE])
def test_the_commit_at_classroom_s_deadline_is_graded_and_later_ones_named(
    fixed_after_the_deadline, tmp_path, course
):
    """No late policy: Classroom's own submission, the commit at its deadline, is graded
    and the fix is named. A late policy that takes late work: the fix, graded as late
    with its own time (its commit date: the committer's clock)."""
    folder, listed, (first, fix), wrong = fixed_after_the_deadline
    (tmp_path / "course.toml").write_text(course)
    done = cli("--course", tmp_path / "course.toml", "import", "github-classroom", folder,
               "--roster", tmp_path / "classroom_roster.csv", "--accepted", listed,
               "--into", tmp_path / "class")  # fmt: skip
    assert done.code == 0, done.err
    ada = tmp_path / "class" / "S-1001"
    recorded = meta(ada)
    if not course:
        assert recorded["submission_id"] == first
        assert (ada / "puzzlesolver.c").read_bytes() == wrong
        assert f"graded commit {first[:12]}" in done.out
        assert f"not graded (the course's late policy takes no late work): {fix[:12]}" in done.out
        assert recorded["submitted_at"] is None
    else:
        assert recorded["submission_id"] == fix
        assert (ada / "puzzlesolver.c").read_bytes() == source("ada-c", "puzzlesolver.c")
        assert f"graded commit {fix[:12]}, the newest on the default branch, as late" in done.out
        assert (
            f"the commit at Classroom's deadline 2026-03-01 23:59+00:00 was {first[:12]}"
            in done.out
        )
        assert recorded["submitted_at"] == "2026-03-02T10:00:00+00:00"


def test_github_s_record_before_the_deadline_grades_the_branch_as_cloned(
    fixed_after_the_deadline, tmp_path
):
    """GitHub's record of the submission (grades.csv) is not after the deadline: what
    was pushed by then is the branch as cloned, whatever the commits' clocks say."""
    folder, listed, (_, fix), _ = fixed_after_the_deadline
    grades = grades_csv(tmp_path / "grades.csv",
                        [("adalovelace", "S-1001", "hw1-adalovelace", "2026-03-01T23:00:00Z")])  # fmt: skip
    done = cli("import", "github-classroom", folder, "--roster", tmp_path / "classroom_roster.csv",
               "--accepted", listed, "--grades", grades, "--into", tmp_path / "class")  # fmt: skip
    assert done.code == 0, done.err
    assert meta(tmp_path / "class" / "S-1001")["submission_id"] == fix
    assert "GitHub's record of the submission (2026-03-01 23:00+00:00) is not after" in done.out


def test_files_a_clone_holds_but_cannot_use_are_in_the_student_s_report(tmp_path):
    """The entry point committed as a link, a Git LFS pointer, a submodule: each named
    with why in what the student sees, never "no file is named puzzlesolver.py"."""
    from grader.course.config import load_config
    from grader.intake.submissions import load

    origin = tmp_path / "github" / "hw1-adalovelace"
    pushed(origin, {"src/solver.py": source("guido-py", "puzzlesolver.py"),
                    "big.bin": b"version https://git-lfs.github.com/spec/v1\noid sha256:ab\nsize 9\n"},
           "2026-02-01T12:00:00+00:00")  # fmt: skip
    os.symlink("src/solver.py", origin / "puzzlesolver.py")
    git("add", "puzzlesolver.py", cwd=origin)
    library = subprocess.run(["git", "rev-parse", "HEAD"], cwd=origin, capture_output=True,
                             text=True, check=True).stdout.strip()  # fmt: skip
    git("update-index", "--add", "--cacheinfo", f"160000,{library},lib", cwd=origin)
    (origin / ".gitmodules").write_text('[submodule "lib"]\n\tpath = lib\n\turl = ../lib\n')
    git("add", ".gitmodules", cwd=origin)
    git("commit", "-q", "-m", "link", cwd=origin, date="2026-02-02T12:00:00+00:00")
    folder = cloned(tmp_path / "github", "hw1", tmp_path / "download")
    (tmp_path / "classroom_roster.csv").write_text(ROSTER)
    listed = accepted(tmp_path / "accepted.json", "hw1-adalovelace", "2026-03-01T23:59:00Z")
    done = cli("import", "github-classroom", folder, "--roster", tmp_path / "classroom_roster.csv",
               "--accepted", listed, "--into", tmp_path / "class")  # fmt: skip
    assert done.code == 0, done.err
    graded = load(tmp_path / "class" / "S-1001", load_config(None))
    assert graded.problem == (
        "puzzlesolver.py cannot be used: a symbolic link in the repository (to src/solver.py): "
        "never followed; commit the file itself"
    )
    reasons = dict(graded.ignored)
    assert "a Git LFS pointer" in reasons["big.bin"]
    assert "a git submodule" in reasons["lib"]
    assert reasons["puzzlesolver.py"].startswith("in the submission, not imported: a symbolic link")
