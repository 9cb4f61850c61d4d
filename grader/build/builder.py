"""Build a submission once per content, in the sandbox, cached by content hash."""

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from grader import languages
from grader.build.shared_builds import adopt, entry_name, publish, shared_folder
from grader.core.atomic import atomic_output
from grader.core.model import Limits, RunResult
from grader.core.text import printable
from grader.intake.submissions import Submission
from grader.sandbox.base import SANDBOX_PATH, Sandbox

MAX_LOG_CHARS = 16_000
# The build's record is kept BESIDE its folder (<hash>.build.json), where the sandboxed
# build cannot write: nothing the build made is ever opened by the grader.
_STAMP_SUFFIX = ".build.json"
_STAMP_BYTES = 1 << 20  # a stamp is a few kB (the capped log): more is not ours
# Signals the grader's own limits send (through the kernel): RLIMIT_CPU, RLIMIT_FSIZE
# (none on Windows, where the student kit builds too).
_LIMIT_SIGNALS = tuple(getattr(signal, name, -1) for name in ("SIGXCPU", "SIGXFSZ"))


@dataclass(frozen=True)
class Artifact:
    ok: bool
    folder: Path  # the build folder the program runs in
    log: str  # compiler messages (capped), or why there is nothing to build
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0
    cached: bool = False
    internal: bool = False  # the grader failed, not the student: IE, never cached
    # The compiler was killed by a signal no limit of the build sent (a crash): the
    # machine's fault or the source's, which only a canary (grader.judge.canary) tells apart;
    # never cached until it has.
    suspect: bool = False


# What a failed build's blame found: None, the machine is healthy (the failure is the
# source's); else the machine's fault, in words.
Blame = Callable[[Artifact], "str | None"]


def build(
    submission: Submission,
    cache_root: Path,
    sandbox: Sandbox,
    limits: Limits,
    *,
    force: bool = False,
    blame: Blame | None = None,
    share: bool = True,
) -> Artifact:
    """Build `submission` into cache_root/<hash>, or reuse an earlier build (`share`:
    the machine's shared builds too, grader.build.shared_builds).

    A failed build is the student's (CE, cached) only once `blame` has shown the
    machine is healthy (grader.judge.canary): when it says the machine is at fault, the build
    is the grader's failure (IE, never cached); a compiler that crashed is built once
    more, and a crash then is the source's. Without `blame`, a crash is the grader's."""
    if submission.problem is not None:
        return Artifact(False, Path(), submission.problem)
    try:
        shares = share and sandbox.shares_builds
        return _build(submission, cache_root, sandbox, limits, force, blame, shares)
    except OSError as error:  # a full disk, say: the grader's failure, retried next run
        return Artifact(
            False,
            Path(),
            f"cannot write the build folder in {cache_root}: {error.strerror or error}",
            internal=True,
        )


def _build(
    submission: Submission,
    cache_root: Path,
    sandbox: Sandbox,
    limits: Limits,
    force: bool,
    blame: Blame | None,
    shares: bool,
) -> Artifact:
    cache_root.mkdir(parents=True, exist_ok=True)
    name = submission.content_hash[:32]
    final = cache_root / name
    stamp = cache_root / f"{name}{_STAMP_SUFFIX}"
    # Identical submissions share one folder: whoever holds the lock builds it,
    # the others wait and reuse it (threads and processes alike).
    with _content_lock(cache_root / f"{name}.lock"):
        if not force:
            try:
                return _read_stamp(stamp, final)
            except (OSError, ValueError, KeyError, TypeError):
                pass  # none yet, or a damaged cache entry: build again
        shared = shared_folder() if shares else None
        key = "" if shared is None else entry_name(submission.content_hash, sandbox.name, limits)
        if not force and shared is not None and (adopted := _adopted(shared, key, final, stamp)):
            return adopted
        for stale in cache_root.glob(f".tmp-{name[:16]}-*"):  # left by a killed grader
            shutil.rmtree(stale, ignore_errors=True)
        work = Path(tempfile.mkdtemp(prefix=f".tmp-{name[:16]}-", dir=cache_root))
        try:
            copy_sources(submission, work)
            artifact = _blamed(submission, work, sandbox, limits, blame)
            if artifact.internal:
                return artifact
            stamp_data = {
                k: v
                for k, v in asdict(artifact).items()
                if k not in ("folder", "cached", "internal", "suspect")
            }
            with contextlib.suppress(FileNotFoundError):
                stamp.unlink()  # the old record goes first: never one over a new folder
            shutil.rmtree(final, ignore_errors=True)  # never follows a link in it
            os.replace(work, final)  # atomic: a half-built folder never looks finished
            with atomic_output(stamp) as handle:  # a new file, renamed over the old
                handle.write(json.dumps(stamp_data).encode("utf-8"))
            # A failed build is shared only once blamed by evidence (a canary): another
            # results folder takes it as the student's CE without asking again.
            if shared is not None and (artifact.ok or blame is not None):
                publish(shared, key, final, stamp_data)
            return Artifact(**{**stamp_data, "folder": final})
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _adopted(shared: Path, key: str, final: Path, stamp: Path) -> Artifact | None:
    """The machine's shared build (grader.build.shared_builds) made this results folder's
    own, or None when there is none to take."""
    with contextlib.suppress(FileNotFoundError):
        stamp.unlink()
    shutil.rmtree(final, ignore_errors=True)
    record = adopt(shared, key, final)
    try:
        if record is None:
            return None
        data = {k: record[k] for k in ("ok", "log", "cpu_seconds", "wall_seconds")}
        with atomic_output(stamp) as handle:
            handle.write(json.dumps(data).encode("utf-8"))
        return Artifact(**data, folder=final, cached=True)
    except (OSError, KeyError, TypeError):
        shutil.rmtree(final, ignore_errors=True)
        return None


def _blamed(
    submission: Submission, work: Path, sandbox: Sandbox, limits: Limits, blame: Blame | None
) -> Artifact:
    """Compile, and a failure blamed by evidence: the machine's (IE) or the source's."""
    artifact = _compile(submission, work, sandbox, limits, crash_is_theirs=False)
    if artifact.ok or artifact.internal:
        return artifact
    fault = blame(artifact) if blame is not None else _unproven(artifact)
    if fault is not None:
        return dataclasses.replace(artifact, log=fault, internal=True, suspect=False)
    if not artifact.suspect:
        return artifact
    # The compiler works here, yet crashed: once more on a clean copy; a crash again is
    # the source's (a transient fault of the machine does not repeat).
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir()
    copy_sources(submission, work)
    return _compile(submission, work, sandbox, limits, crash_is_theirs=True)


def _unproven(artifact: Artifact) -> str | None:
    """No canary to ask: a crashed compiler stays the grader's failure (retried)."""
    if not artifact.suspect:
        return None
    first = artifact.log.strip().splitlines()[:1]
    return (
        "the build failed on the grading machine ("
        + (first[0] if first else "the compiler crashed")
        + "); it will be retried"
    )


def copy_sources(submission: Submission, work: Path) -> None:
    """The main file under the course's name, and the extra files the course's
    policy keeps (see grader.intake.submissions), beside it."""
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
    except ImportError:  # Windows: the grading run's own memo (grader.grading.session) suffices
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
    """The record of an earlier build, opened without following a link (the grader
    wrote it; anything else there is not a record)."""
    fd = os.open(stamp, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        raw = handle.read(_STAMP_BYTES + 1)
    if len(raw) > _STAMP_BYTES:
        raise ValueError("not a build record")
    if not os.path.isdir(folder) or os.path.islink(folder):
        raise ValueError("the build folder is gone")
    data = json.loads(raw.decode("utf-8"))
    return Artifact(
        data["ok"], folder, data["log"], data["cpu_seconds"], data["wall_seconds"], cached=True
    )


def _compile(
    submission: Submission, work: Path, sandbox: Sandbox, limits: Limits, crash_is_theirs: bool
) -> Artifact:
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
    suspect = False
    if problem:
        # Decided from what the grader measured, never from the compiler's words: the
        # student's code can make a compiler print anything ("#error No space left").
        machine = _machine_failure(result, work, limits)
        if machine:
            return Artifact(
                False,
                work,
                f"the build failed on the grading machine ({machine}); it will be retried",
                internal=True,
            )
        crashed = _crashed(result, limits)
        if crashed and not crash_is_theirs:
            problem = crashed  # for the canary's verdict: whose crash it was
        if crashed and crash_is_theirs:
            problem = (
                f"the compiler itself crashed on your source ({crashed}): a known-good "
                "program of the same language builds on the grading machine, and yours "
                "made the compiler crash twice; look for what is extreme in it (nesting "
                "thousands of levels deep, a huge expression or array initialiser)"
            )
        suspect = bool(crashed) and not crash_is_theirs
        log = f"{problem}\n{log}" if log.strip() else problem
    if len(log) > MAX_LOG_CHARS:
        log = log[:MAX_LOG_CHARS] + f"\n... (compiler output cut at {MAX_LOG_CHARS:,} characters)"
    return Artifact(
        problem is None, work, log, result.cpu_seconds, result.wall_seconds, suspect=suspect
    )


def build_command(submission: Submission) -> list[str]:
    """The course's build command; a word "{sources}" becomes the main file and
    the extra files that are compiled (not headers), for courses that want them."""
    spec = submission.language
    assert spec is not None, "only a submission without a problem is built"
    compiled = [
        name
        for name in submission.extra_files
        if name.lower().endswith(_COMPILED_SUFFIXES.get(spec.name, ()))
    ]
    # "./" before each name: a file named "-specs=x.c" or "@options.c" is a file to the
    # compiler, never an option or a file of options.
    sources = [f"./{name}" for name in (spec.source, *compiled)]
    command = []
    for word in spec.build:
        command += sources if word == "{sources}" else [word]
    return command


_COMPILED_SUFFIXES = {lang.name: lang.compiled for lang in languages.REGISTRY}


def _build_failure(result: RunResult, limits: Limits) -> str | None:
    """Why the build failed, the build's own limit named when it hit one; None when it
    worked."""
    if result.timed_out:
        return (
            f"the build took too long (limits: {limits.cpu_seconds:g} s CPU, "
            f"{limits.wall_seconds:g} s wall) and was stopped"
        )
    if result.memory_exceeded:
        return f"the build used more than {limits.memory_mb} MB of memory and was stopped"
    if result.output_exceeded:
        return "the compiler printed more output than allowed and was stopped"
    if result.processes_exceeded:
        return f"the build tried to run more than {limits.processes} processes at once"
    if result.signal == getattr(signal, "SIGXFSZ", -1):
        return f"the build wrote a file larger than {limits.file_size_mb} MB"
    if result.signal:
        return _killed(result.signal)
    if result.exit_code != 0:
        return f"the build failed (exit status {result.exit_code})"
    return None


def _killed(number: int) -> str:
    name = signal.Signals(number).name if number in signal.valid_signals() else ""
    return f"the compiler was killed by signal {number} {name}".rstrip()


def _crashed(result: RunResult, limits: Limits) -> str | None:
    """The compiler killed by a signal no limit of the build sent: its own crash on
    this source, the kernel's OOM killer for the whole machine, an administrator. Which
    one only a canary can tell (grader.judge.canary)."""
    limit_hit = result.timed_out or result.memory_exceeded or result.output_exceeded
    if result.signal and not limit_hit and result.signal not in _LIMIT_SIGNALS:
        return f"{_killed(result.signal)}, by none of the build's limits"
    return None


def _machine_failure(result: RunResult, work: Path, limits: Limits) -> str | None:
    """What the grader itself measures wrong with the machine after a failed build: a
    full disk where builds write."""
    for folder in (work, Path(tempfile.gettempdir())):
        free = _free_bytes(folder)
        if free is not None and free < limits.file_size_mb << 20:
            return f"{free >> 20} MB free on the disk of {folder}"
    return None


def _free_bytes(folder: Path) -> int | None:
    try:
        st = os.statvfs(folder)
    except OSError:
        return None
    return st.f_bavail * st.f_frsize
