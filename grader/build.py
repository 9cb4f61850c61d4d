"""Build a submission once per content, in the sandbox, cached by content hash."""

import json
import os
import shutil
import signal
from dataclasses import asdict, dataclass
from pathlib import Path

from grader.model import Limits, RunResult
from grader.submissions import Submission
from grader.text import printable

MAX_LOG_CHARS = 16_000
_STAMP = ".build.json"


@dataclass(frozen=True)
class Artifact:
    ok: bool
    folder: Path  # the build folder the program runs in
    log: str  # compiler messages (capped), or why there is nothing to build
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    cached: bool = False
    internal: bool = False  # the grader failed, not the student: IE, never cached


def build(submission: Submission, cache_root: Path, sandbox, limits: Limits,
          *, force: bool = False) -> Artifact:
    """Build `submission` into cache_root/<hash>, or reuse an earlier build."""
    if submission.problem is not None:
        return Artifact(False, Path(), submission.problem)
    try:
        return _build(submission, cache_root, sandbox, limits, force)
    except OSError as error:  # a full disk, say: the grader's failure, retried next run
        return Artifact(False, Path(), f"cannot write the build folder in {cache_root}: "
                        f"{error.strerror or error}", internal=True)


def _build(submission: Submission, cache_root: Path, sandbox, limits: Limits,
           force: bool) -> Artifact:
    cache_root.mkdir(parents=True, exist_ok=True)
    final = cache_root / submission.content_hash[:32]
    stamp = final / _STAMP
    if stamp.exists() and not force:
        try:
            return _read_stamp(stamp, final)
        except (OSError, ValueError, KeyError):
            pass  # a damaged cache entry: build again
    work = cache_root / f".tmp-{submission.content_hash[:16]}-{os.getpid()}"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    shutil.copyfile(submission.source, work / submission.language.source)
    artifact = _compile(submission, work, sandbox, limits)
    if artifact.internal:
        shutil.rmtree(work, ignore_errors=True)
        return artifact
    stamp_data = {k: v for k, v in asdict(artifact).items()
                  if k not in ("folder", "cached", "internal")}
    (work / _STAMP).write_text(json.dumps(stamp_data), encoding="utf-8")
    shutil.rmtree(final, ignore_errors=True)
    os.replace(work, final)  # atomic: a half-built folder never looks finished
    return Artifact(**{**stamp_data, "folder": final})


def _read_stamp(stamp: Path, folder: Path) -> Artifact:
    data = json.loads(stamp.read_text(encoding="utf-8"))
    return Artifact(data["ok"], folder, data["log"], data["cpu_seconds"],
                    data["wall_seconds"], cached=True)


def _compile(submission: Submission, work: Path, sandbox, limits: Limits) -> Artifact:
    spec = submission.language
    if not spec.build:
        return Artifact(True, work, "")
    result = sandbox.run(list(spec.build), work, limits, writable=True,
                         memory_rlimit=spec.memory_rlimit)
    if result.error:
        return Artifact(False, work, f"the build could not run: {result.error}", internal=True)
    log = printable(result.stderr + result.stdout)
    problem = _build_failure(result, limits)
    if problem:
        log = f"{problem}\n{log}" if log.strip() else problem
    if len(log) > MAX_LOG_CHARS:
        log = log[:MAX_LOG_CHARS] + f"\n... (compiler output cut at {MAX_LOG_CHARS:,} characters)"
    return Artifact(problem is None, work, log, result.cpu_seconds, result.wall_seconds)


def _build_failure(result: RunResult, limits: Limits):
    if result.timed_out:
        return (f"the build took too long (limits: {limits.cpu_seconds:g} s CPU, "
                f"{limits.wall_seconds:g} s wall) and was stopped")
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
