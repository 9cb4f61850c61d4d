"""Every source an import reads, by the name `grader import` gives it: each a module
with `read(download, options) -> Parsed` (grader/lms/incoming.py). A new source is a
module and a line here."""

from collections.abc import Callable
from pathlib import Path

from grader.lms import canvas, github_classroom, gradescope, moodle
from grader.lms.incoming import ImportOptions, Parsed

Source = Callable[[Path, ImportOptions], Parsed]

SOURCES: dict[str, Source] = {
    "canvas": canvas.read,
    "moodle": moodle.read,
    "gradescope": gradescope.read,
    "github-classroom": github_classroom.read,
}
