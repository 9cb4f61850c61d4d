"""Shared test helpers: small case sets and submission folders made on the fly."""

import io
import json
import shutil
import sqlite3
import zlib
from pathlib import Path

from docsgen.browser import HEADLESS_FLAGS, chromium  # noqa: F401 (the page tests')
from reference import puzzlesolver

ROOT = Path(__file__).resolve().parent.parent
# `grader leaderboard` refuses to time on a busy machine: the suite's other worker keeps
# this one busy, and these tests check what is ranked, not how fast.
BUSY_OK = "--busy-ok"
PUBLIC = ROOT / "testcases" / "public"
# The integer-format puzzles the corpus was imported from.
SOURCES = ROOT / "testcases" / "sources"
# The hand-out's example and the lightbulbs puzzle, as shipped public cases
# (tests/test_testcases.py and tests/test_reference.py check them against the
# hand-out's own files).
SAMPLE = PUBLIC / "sample.txt"
LIGHTBULBS = PUBLIC / "lightbulbs.txt"
SAMPLE_TEXT = SAMPLE.read_text()
SAMPLE_EXPECTED = (PUBLIC / "sample.out").read_bytes()
LIGHTBULBS_TEXT = LIGHTBULBS.read_text()
LIGHTBULBS_EXPECTED = (PUBLIC / "lightbulbs.out").read_bytes()
NO_SOLUTION = "A0,A0,A0,A0\n" * 9

# A headless Chromium for the page tests (Debian package chromium), and the flags
# that keep it from reaching out or sandboxing itself inside ours.
CHROMIUM = chromium()


def expected_output(puzzle_text: str) -> bytes:
    out = io.BytesIO()
    puzzlesolver.write_output(puzzlesolver.parse(puzzle_text), out)
    return out.getvalue()


def make_cases(root: Path, puzzles: dict, hidden=()) -> Path:
    """A manifest at root/manifest.json for {case id: puzzle text}; returns its path."""
    entries = []
    for cid, text in puzzles.items():
        visibility = "hidden" if cid in hidden else "public"
        folder = root / visibility
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{cid}.txt").write_text(text)
        (folder / f"{cid}.out").write_bytes(expected_output(text))
        entries.append(
            {
                "id": cid,
                "input": f"{visibility}/{cid}.txt",
                "expected": f"{visibility}/{cid}.out",
                "visibility": visibility,
                "weight": 1,
                "timed": False,
                "policy": [],
                "tags": [],
            }
        )
    manifest = root / "manifest.json"
    manifest.write_text(json.dumps({"version": 1, "cases": entries}, indent=2))
    return manifest


def small_cases(root: Path) -> Path:
    return make_cases(
        root,
        {
            "sample": SAMPLE.read_text(),
            "lightbulbs": LIGHTBULBS.read_text(),
            "none": NO_SOLUTION,
        },
        hidden=("none",),
    )


def submission(root: Path, sid: str, fname: str, source: str) -> Path:
    folder = root / sid
    folder.mkdir(parents=True, exist_ok=True)
    (folder / fname).write_text(source)
    return folder


def reference_submission(root: Path, sid: str = "ref-py") -> Path:
    """The reference solver is itself a valid submission."""
    folder = root / sid
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(ROOT / "reference" / "puzzlesolver.py", folder / "puzzlesolver.py")
    return folder


def processes():
    """(pid, state letter, argv bytes NUL-separated) of every process in /proc
    but this one; processes that vanish while being read are skipped."""
    import os

    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            cmdline = Path(f"/proc/{name}/cmdline").read_bytes()
            stat = Path(f"/proc/{name}/stat").read_bytes()
        except OSError:
            continue
        yield name, stat.rsplit(b")", 1)[1].split()[0].decode(), cmdline


# The results database as graders before runs.policy_only wrote it (store schema 1):
# the tables that schema changed, and the submissions a report starts from.
SCHEMA_1 = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO meta VALUES ('schema', '1');
CREATE TABLE submissions (
    id TEXT PRIMARY KEY,
    language TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    folder TEXT NOT NULL,
    problem TEXT,
    updated_at REAL NOT NULL
);
CREATE TABLE runs (
    submission_id TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    case_id TEXT NOT NULL,
    case_version TEXT NOT NULL,
    verdict TEXT NOT NULL,
    exit_code INTEGER,
    signal INTEGER,
    cpu_seconds REAL,
    wall_seconds REAL,
    peak_memory_kb INTEGER,
    output_size INTEGER,
    diagnosis TEXT NOT NULL,
    stderr TEXT NOT NULL,
    output BLOB,
    sandbox TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (submission_id, content_hash, case_id, case_version)
);
CREATE TABLE builds (
    content_hash TEXT PRIMARY KEY,
    ok INTEGER NOT NULL,
    log TEXT NOT NULL,
    cpu_seconds REAL NOT NULL,
    wall_seconds REAL NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE submission_files (
    id TEXT PRIMARY KEY,
    used TEXT NOT NULL,
    ignored TEXT NOT NULL
);
"""


def schema_1_database(path: Path, sid: str = "amy", content_hash: str = "h1"):
    """A schema-1 results database with one submission; returns its connection."""
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(SCHEMA_1)
    db.execute(
        "INSERT INTO submissions VALUES (?, 'python', ?, ?, NULL, 0)", (sid, content_hash, sid)
    )
    return db


def schema_1_run(db, case, verdict: str, diagnosis: str, output: bytes = b"", **row) -> None:
    """A run as schema 1 stored it: the output as kept (zlib), `output_size` what was
    printed in all (more than kept when the store cut it short)."""
    values = {
        "submission_id": "amy",
        "content_hash": "h1",
        "case_id": case.id,
        "case_version": case.version,
        "verdict": verdict,
        "exit_code": 0,
        "signal": None,
        "cpu_seconds": 0.1,
        "wall_seconds": 0.1,
        "peak_memory_kb": 1024,
        "output_size": len(output),
        "diagnosis": diagnosis,
        "stderr": "",
        "output": zlib.compress(output) if output else None,
        "sandbox": "bubblewrap",
        "created_at": 0.0,
        **row,
    }
    db.execute(
        f"INSERT INTO runs ({', '.join(values)}) VALUES ({', '.join('?' * len(values))})",
        tuple(values.values()),
    )


def gradescope_isolation():
    """An Isolation as the Gradescope autograder records it (for results.json tests)."""
    from grader.exports.gradescope import Isolation

    return Isolation("bubblewrap", "the container lets it make namespaces", "", "cgroup")


def draw_of(manifest: Path, out: Path, seed: int = 1, ids=None) -> Path:
    """A draw file as `testcases draw` writes it (grader/schemas/draw.schema.json), whose
    puzzles are the manifest's timed cases themselves (or the cases `ids`), each standing
    for its own family: for tests that time real programs without drawing (a real draw
    of the shipped families takes seconds; tests/test_draws.py draws for real). Their
    expected outputs are the reference's (`testcases verify` checks them)."""
    data = json.loads(Path(manifest).read_text())
    chosen = [e for e in data["cases"] if (e["id"] in ids if ids else e.get("timed"))]
    puzzles = []
    for entry in chosen:
        expected = (Path(manifest).parent / entry["expected"]).read_bytes().decode("ascii")
        count = expected.split("\n\n", 1)[1].split("\n", 1)[0] if "\n\n" in expected else ""
        puzzles.append(
            {
                "id": f"{entry['id']}-d{seed}",
                "family": entry["id"],
                "input": (Path(manifest).parent / entry["input"]).read_bytes().decode("ascii"),
                "expected": expected,
                "solutions": int(count.split()[0]) if count[:1].isdigit() else 0,
                "policy": entry["policy"],
                "generator": entry.get("generator", {}),
            }
        )
    document = {
        "version": 1,
        "seed": seed,
        "drawn_at": "2026-01-01T00:00:00+00:00",
        "cross_checked": True,
        "puzzles": puzzles,
    }
    out = Path(out)
    out.write_text(json.dumps(document))
    return out
