"""Runs graded at the same time share nothing: two colluding submissions, one that
lays every input it is given out on channels a neighbouring run can read (record locks
on a read-only host file, bursts of opens that inotify reports) and two that listen on
them during their own runs and print what they hear where their student's page shows
it. Graded together, on threads and on a Dask cluster: the public inputs the sender
was given are heard (the channels work in the sandbox), no hidden one ever is (every
visible run of the class ends before any hidden run starts: grader.grading.session's rule)."""

import shutil
from pathlib import Path

import pytest

from grader.cli import main as grader_main
from tests.helpers import ROOT
from tests.mistake_variants import case_subset

pytestmark = pytest.mark.slow

ATTACK = ROOT / "tests" / "hostile" / "collude"
PUBLIC = ("sample", "one-solution")
HIDDEN = ("demopuzzle", "puzzle-0000", "crlf")


def tiles(case_id: str) -> set[str]:
    """The tile lines of a case's puzzle."""
    folder = "public" if case_id in PUBLIC else "hidden"
    text = (ROOT / "testcases" / folder / f"{case_id}.txt").read_text()
    return set(text.replace("\r", "").splitlines())


def class_of(root: Path) -> Path:
    klass = root / "class"
    for name, source, define in (
        ("a-sender", "sender.c", ""),
        ("b-hears-locks", "receiver.c", ""),
        ("c-hears-inotify", "receiver.c", "#define CHANNEL_INOTIFY 1\n"),
    ):
        (klass / name).mkdir(parents=True)
        text = (ATTACK / source).read_text()
        (klass / name / "puzzlesolver.c").write_text(define + text)
    return klass


@pytest.mark.parametrize(
    "where", [["--jobs", "6"], ["--cluster", "local:3"]], ids=["threads", "cluster"]
)
def test_no_hidden_input_reaches_a_page_through_a_neighbour(tmp_path, where):
    pytest.importorskip("distributed") if "--cluster" in where else None
    manifest = case_subset(tmp_path / "cases", PUBLIC + HIDDEN, pool=("one-solution-1",))
    course = tmp_path / "course.toml"
    course.write_text("[counterexamples]\nruns = 0\n")
    klass = class_of(tmp_path)
    results = tmp_path / "results"
    base = ["--course", str(course), "--manifest", str(manifest)]
    assert grader_main([*base, "grade", str(klass), "--results", str(results), *where]) == 0
    pages = tmp_path / "pages"
    assert (
        grader_main([*base, "export", "html", str(pages), "--student", "--results", str(results)])
        == 0
    )
    heard = "".join(
        (pages / f"{name}.html").read_text() for name in ("b-hears-locks", "c-hears-inotify")
    )
    heard = heard.replace("&#39;", "'")
    public = set().union(*(tiles(case) for case in PUBLIC))
    assert any(tile in heard for tile in public), "no public input heard: no channel works"
    # Not one tile of a hidden input (that no public one has), even garbled around it.
    leaked = sorted(tile for case in HIDDEN for tile in tiles(case) - public if tile in heard)
    assert leaked == [], leaked
    shutil.rmtree(pages)
