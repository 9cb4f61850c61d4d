"""The tutorial course shipped in docs/tutorial/: a small class's downloads, written as
Canvas and Moodle write them (tests/lms_archives.py follows their own code), and a
GitHub Classroom clone folder (zipped: git repositories cannot be tracked inside one)
with GitHub's own lists, holding programs of the example class. The tutorial (docs/instructors/tutorial.md) walks an
instructor through them; tests/test_tutorial.py checks that these files are what this
module makes and that every command of the page prints what the page shows.

    python -m tests.tutorial_course docs/tutorial
"""

import json
import sys
import tempfile
from datetime import datetime
from pathlib import Path

from tests.helpers import ROOT
from tests.lms_archives import (
    canvas_entry,
    canvas_gradebook,
    download,
    make_zip,
    moodle_entry,
    moodle_worksheet,
)

# (example program, Canvas's sortable name, user id, SIS id, login, submitted at (UTC))
CANVAS = (
    ("ada-c", "Lovelace, Ada", 1001, "S-1001", "ada", "2026-03-01T18:04:11Z"),
    ("no-blank-line", "Hopper, Grace", 1002, "S-1002", "grace", "2026-03-01T21:40:02Z"),
    ("guido-py", "van Rossum, Guido", 1003, "S-1003", "guido", "2026-03-01T23:12:45Z"),
    ("james-java", "Gosling, James", 1004, "S-1004", "james", "2026-03-01T16:30:27Z"),
)
# (example program, full name, participant id, e-mail, submitted at (the worksheet's clock))
MOODLE = (
    ("grace-cpp", "Grace Hopper", 31, "grace@uni.example", datetime(2026, 3, 1, 20, 15)),
    ("wrong-plural", "Alan Turing", 32, "alan@uni.example", datetime(2026, 3, 1, 22, 47)),
    ("crash", "Edsger Dijkstra", 33, "edsger@uni.example", datetime(2026, 3, 1, 19, 2)),
)
DUE = "2026-03-02T04:59:00Z"  # 23:59 in New York, the course's clock
ASSIGNMENTS = {"Scramble Squares (88)": "100", "Quiz 1 (87)": "10"}


# (login, roster identifier, name, [(example, commit date)], GitHub's submission time)
CLASSROOM = (
    ("adalovelace", "S-2001", "Ada Lovelace",
     [("wrong-plural", "2026-03-01T20:00:00+00:00"), ("guido-py", "2026-03-02T09:30:00+00:00")],
     "2026-03-02T09:30:05Z"),
    ("GraceHopper", "S-2002", "Grace Hopper",
     [("grace-cpp", "2026-03-01T18:00:00+00:00")], "2026-03-01T18:00:04Z"),
)  # fmt: skip
CLASSROOM_DEADLINE = "2026-03-01T23:59:00Z"


def _source(example: str) -> Path:
    folder = ROOT / "submissions" / example
    return next(p for p in sorted(folder.iterdir()) if p.stem.lower() == "puzzlesolver")


def write(target: Path) -> list[Path]:
    """Every file of the tutorial course, written under `target`; the files written."""
    canvas, moodle = target / "canvas", target / "moodle"
    canvas.mkdir(parents=True, exist_ok=True)
    moodle.mkdir(parents=True, exist_ok=True)
    entries = [
        (canvas_entry(name, uid, 5000 + uid, _source(example).name), _source(example).read_bytes())
        for example, name, uid, _, _, _ in CANVAS
    ]
    download(canvas / "submissions.zip", entries)
    students = [
        {"name": name, "id": uid, "sis": sis, "login": login, "cells": {"Quiz 1 (87)": "9"}}
        for _, name, uid, sis, login, _ in CANVAS
    ]
    canvas_gradebook(canvas / "gradebook.csv", students, ASSIGNMENTS)
    # What Canvas's API gives for the assignment's submissions (the fields the import reads).
    records = [
        {"user_id": uid, "submitted_at": at, "cached_due_date": DUE, "late": False,
         "late_policy_status": None, "seconds_late_override": None, "excused": False}
        for _, _, uid, _, _, at in CANVAS
    ]  # fmt: skip
    (canvas / "submissions.json").write_text(json.dumps(records, indent=1) + "\n")
    download(
        moodle / "submissions.zip",
        [
            (moodle_entry(name, pid, _source(example).name), _source(example).read_bytes())
            for example, name, pid, _, _ in MOODLE
        ],
    )
    rows = [
        {"id": pid, "name": name, "email": email, "submitted": at}
        for _, name, pid, email, at in MOODLE
    ]
    moodle_worksheet(moodle / "worksheet.csv", rows, maximum="100.00")
    github_classroom(target / "github-classroom")
    return sorted(p for p in target.rglob("*") if p.is_file())


def github_classroom(folder: Path) -> None:
    """`gh classroom clone student-repos` zipped, and the lists beside it: the
    Students tab's roster, `gh classroom assignment-grades`' grades.csv, and
    `gh api .../accepted_assignments` (Classroom's deadline). Ada's last commit came
    after the deadline."""
    from tests.helpers import committed, git, grades_csv

    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        clones = Path(tmp) / "hw1-submissions"
        for login, _, _, steps, _ in CLASSROOM:
            committed(clones / f"hw1-{login}", [
                ({_source(example).name: _source(example).read_bytes()}, date)
                for example, date in steps
            ])  # fmt: skip
            # The index as read from the commit, without the stat data of this machine's
            # files: the same bytes each time the course is made.
            (clones / f"hw1-{login}" / ".git" / "index").unlink()
            git("read-tree", "HEAD", cwd=clones / f"hw1-{login}")
        entries = [
            (path.relative_to(clones.parent).as_posix(), path.read_bytes(), None)
            for path in sorted(clones.rglob("*"))
            if path.is_file() and "hooks" not in path.parts  # git's samples: no one's work
        ]
        make_zip(folder / "hw1-submissions.zip", entries)
    (folder / "classroom_roster.csv").write_text(
        '"identifier","github_username","github_id","name"\n'
        + "".join(f'"{ident}","{login}","{7000 + i}","{name}"\n'
                  for i, (login, ident, name, _, _) in enumerate(CLASSROOM))
    )  # fmt: skip
    grades_csv(folder / "grades.csv", [
        (login, ident, f"hw1-{login}", when) for login, ident, _, _, when in CLASSROOM
    ])  # fmt: skip
    accepted = [
        {"id": i + 1, "students": [{"id": 7000 + i, "login": login}],
         "repository": {"id": 90 + i, "name": f"hw1-{login}", "full_name": f"org/hw1-{login}"},
         "assignment": {"id": 3, "slug": "hw1", "deadline": CLASSROOM_DEADLINE}}
        for i, (login, _, _, _, _) in enumerate(CLASSROOM)
    ]  # fmt: skip
    (folder / "accepted.json").write_text(json.dumps(accepted, indent=1) + "\n")


if __name__ == "__main__":
    for path in write(Path(sys.argv[1])):
        print(path)
