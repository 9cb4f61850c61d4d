"""Build a submission once per content, in the sandbox, cached by content hash."""

import json
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.model import Limits, RunResult
from grader.sandbox.base import SANDBOX_PATH, Sandbox
from grader.submissions import Submission
from grader.text import printable

MAX_LOG_CHARS = 16_000
_STAMP = ".build.json"
# Compiler messages that mean the grading machine failed, not the student's code.
_MACHINE_FAILURES = (
    "No space left on device",
    "Cannot allocate memory",
    "Disk quota exceeded",
    "virtual memory exhausted",
)


@dataclass(frozen=True)
class Artifact:
    ok: bool
    folder: Path  # the build folder the program runs in
    log: str  # compiler messages (capped), or why there is nothing to build
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    cached: bool = False
    internal: bool = False  # the grader failed, not the student: IE, never cached


def build(
    submission: Submission,
    cache_root: Path,
    sandbox: Sandbox,
    limits: Limits,
    *,
    force: bool = False,
) -> Artifact:
    """Build `submission` into cache_root/<hash>, or reuse an earlier build."""
    if submission.problem is not None:
        return Artifact(False, Path(), submission.problem)
    try:
        return _build(submission, cache_root, sandbox, limits, force)
    except OSError as error:  # a full disk, say: the grader's failure, retried next run
        return Artifact(
            False,
            Path(),
            f"cannot write the build folder in {cache_root}: {error.strerror or error}",
            internal=True,
        )


def _build(
    submission: Submission, cache_root: Path, sandbox: Sandbox, limits: Limits, force: bool
) -> Artifact:
    cache_root.mkdir(parents=True, exist_ok=True)
    name = submission.content_hash[:32]
    final = cache_root / name
    stamp = final / _STAMP
    # Identical submissions share one folder: whoever holds the lock builds it,
    # the others wait and reuse it (threads and processes alike).
    with _content_lock(cache_root / f"{name}.lock"):
        if stamp.exists() and not force:
            try:
                return _read_stamp(stamp, final)
            except (OSError, ValueError, KeyError):
                pass  # a damaged cache entry: build again
        for stale in cache_root.glob(f".tmp-{name[:16]}-*"):  # left by a killed grader
            shutil.rmtree(stale, ignore_errors=True)
        work = Path(tempfile.mkdtemp(prefix=f".tmp-{name[:16]}-", dir=cache_root))
        try:
            copy_sources(submission, work)
            artifact = _compile(submission, work, sandbox, limits)
            if artifact.internal:
                return artifact
            stamp_data = {
                k: v
                for k, v in asdict(artifact).items()
                if k not in ("folder", "cached", "internal")
            }
            (work / _STAMP).write_text(json.dumps(stamp_data), encoding="utf-8")
            shutil.rmtree(final, ignore_errors=True)
            os.replace(work, final)  # atomic: a half-built folder never looks finished
            return Artifact(**{**stamp_data, "folder": final})
        finally:
            shutil.rmtree(work, ignore_errors=True)


def copy_sources(submission: Submission, work: Path) -> None:
    """The main file under the course's name, and the extra files the course's
    policy keeps (see grader.submissions), beside it."""
    assert submission.source is not None and submission.language is not None, (
        "only a submission without a problem is built"
    )
    shutil.copyfile(submission.source, work / submission.language.source)
    for relative in submission.extra_files:
        shutil.copyfile(submission.folder / relative, work / relative)


@contextmanager
def _content_lock(path: Path) -> Iterator[None]:
    try:
        import fcntl
    except ImportError:  # Windows: the grading run's own memo (grader.grading) suffices
        yield
        return
    # flock locks an open file description: two threads opening the file block each other.
    with open(path, "a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read_stamp(stamp: Path, folder: Path) -> Artifact:
    data = json.loads(stamp.read_text(encoding="utf-8"))
    return Artifact(
        data["ok"], folder, data["log"], data["cpu_seconds"], data["wall_seconds"], cached=True
    )


def _compile(submission: Submission, work: Path, sandbox: Sandbox, limits: Limits) -> Artifact:
    spec = submission.language
    assert spec is not None, "only a submission without a problem is built"
    if not spec.build:
        return Artifact(True, work, "")
    if shutil.which(spec.build[0], path=SANDBOX_PATH) is None and "/" not in spec.build[0]:
        return Artifact(
            False,
            work,
            f"the build command {spec.build[0]!r} is not installed on the grading machine",
            internal=True,
        )
    result = sandbox.run(
        build_command(submission), work, limits, writable=True, memory_rlimit=spec.memory_rlimit
    )
    if result.error:
        return Artifact(False, work, f"the build could not run: {result.error}", internal=True)
    log = printable(result.stderr + result.stdout)
    problem = _build_failure(result, limits)
    if problem:
        machine = next((text for text in _MACHINE_FAILURES if text in log), None)
        if machine:
            return Artifact(
                False,
                work,
                f"the build failed on the grading machine ({machine}); it will be retried",
                internal=True,
            )
        log = f"{problem}\n{log}" if log.strip() else problem
    if len(log) > MAX_LOG_CHARS:
        log = log[:MAX_LOG_CHARS] + f"\n... (compiler output cut at {MAX_LOG_CHARS:,} characters)"
    return Artifact(problem is None, work, log, result.cpu_seconds, result.wall_seconds)


def build_command(submission: Submission) -> list:
    """The course's build command; a word "{sources}" becomes the main file and
    the extra files that are compiled (not headers), for courses that want them."""
    spec = submission.language
    assert spec is not None, "only a submission without a problem is built"
    compiled = [
        name
        for name in submission.extra_files
        if name.lower().endswith(_COMPILED_SUFFIXES.get(spec.name, ()))
    ]
    command = []
    for word in spec.build:
        command += [spec.source, *compiled] if word == "{sources}" else [word]
    return command


_COMPILED_SUFFIXES = {"c": (".c",), "cpp": (".cpp", ".cc", ".cxx", ".c++"), "java": (".java",)}


def _build_failure(result: RunResult, limits: Limits):
    if result.timed_out:
        return (
            f"the build took too long (limits: {limits.cpu_seconds:g} s CPU, "
            f"{limits.wall_seconds:g} s wall) and was stopped"
        )
    if result.memory_exceeded:
        return f"the build used more than {limits.memory_mb} MB of memory and was stopped"
    if result.output_exceeded:
        return "the compiler printed more output than allowed and was stopped"
    if result.signal:
        name = signal.Signals(result.signal).name if result.signal in signal.valid_signals() else ""
        return f"the compiler was killed by signal {result.signal} {name}".rstrip()
    if result.exit_code != 0:
        return f"the build failed (exit status {result.exit_code})"
    return None
