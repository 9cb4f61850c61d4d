"""The tutorial course shipped in docs/tutorial/: a small class's downloads, written as
Canvas and Moodle write them (tests/lms_archives.py follows their own code), holding
programs of the example class. The tutorial (docs/instructors/tutorial.md) walks an
instructor through them; tests/test_tutorial.py checks that these files are what this
module makes and that every command of the page prints what the page shows.

    python -m tests.tutorial_course docs/tutorial
"""

import json
import sys
from datetime import datetime
from pathlib import Path

from tests.helpers import ROOT
from tests.lms_archives import (
    canvas_entry,
    canvas_gradebook,
    download,
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
    return sorted(p for p in target.rglob("*") if p.is_file())


if __name__ == "__main__":
    for path in write(Path(sys.argv[1])):
        print(path)
