"""Nothing a student chose reaches the terminal as a control sequence: every command's
stdout and stderr pass through grader.core.text.PrintableStream. The names here come from
Gradescope's own metadata (a student's name in their Gradescope account), which the
grader shows in `grade`, `teams` and `show`."""

import subprocess
import sys
from datetime import datetime

import pytest

from grader.core.text import PrintableStream
from tests.helpers import ROOT
from tests.lms_archives import make_zip

# Clear the screen, then a hyperlink (OSC 8) whose text hides where it goes, then a bell.
HOSTILE = "\\e[2J\\e]8;;https://evil.example\\aclick here\\e]8;;\\a\\x9b31m"
T0 = datetime(2026, 3, 1, 23, 30)


def test_a_guarded_stream_escapes_every_control_character():
    written = []

    class Sink:
        def write(self, text):
            written.append(text)

        def isatty(self):
            return True

    stream = PrintableStream(Sink())
    assert stream.write("ok\x1b[2J\r\x07\u202e\n") == 10
    assert written == ["ok\\x1b[2J\\x0d\\x07\\u202e\n"]
    assert stream.isatty() and stream.unguarded.isatty()


def _grader(*args, cwd):
    done = subprocess.run(
        [sys.executable, "-m", "grader", *args], cwd=cwd, capture_output=True, timeout=300
    )
    return done


def test_a_name_from_gradescope_never_drives_the_terminal(tmp_path):
    root = "assignment_77_export/"
    metadata = (
        "---\n:submission_9001:\n  :submitters:\n"
        f'  - :name: "Ada {HOSTILE}"\n'
        "    :sid: 'S100'\n    :email: ada@uni.edu\n"
        f'  - :name: "Bob {HOSTILE}"\n'
        "    :sid: 'S101'\n    :email: bob@uni.edu\n"
        "  :created_at: 2026-03-01 10:00:00.000000000 -0500\n  :score: 0.0\n"
    )
    archive = make_zip(
        tmp_path / "gs.zip",
        [
            (root + "submission_metadata.yml", metadata, T0),
            (root + "submission_9001/puzzlesolver.py", "print('Input tiles:')\n", T0),
        ],
    )
    course = tmp_path / "course.toml"
    course.write_text("[counterexamples]\nruns = 0\n")
    common = ["--course", str(course), "--manifest", str(ROOT / "testcases" / "manifest.json")]
    steps = [
        ["import", "gradescope", str(archive), "--into", str(tmp_path / "class")],
        [*common, "grade", str(tmp_path / "class"), "--results", str(tmp_path / "results")],
        [*common, "teams", "--results", str(tmp_path / "results")],
        [*common, "show", "S100", "--results", str(tmp_path / "results")],
    ]
    for step in steps:
        done = _grader(*step, cwd=tmp_path)
        assert done.returncode in (0, 1), done.stderr.decode()
        said = done.stdout + done.stderr
        for byte in (b"\x1b", b"\x07", "\x9b".encode()):
            assert byte not in said, (step, said)
    assert b"Ada \\x1b[2J" in said  # shown, escaped


pytestmark = pytest.mark.slow
