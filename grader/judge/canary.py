"""Blame by evidence: before a build or run failure is stored as the student's, a
known-good program of the same language (a canary) shows that the language's toolchain
works on this machine now, under the same limits.

A canary is built with the course's own build command, under the build limits, and run
with the course's own run command, under the run limits, on a real puzzle file: it reads
the file named on its command line and prints how many bytes and lines it holds. When
it fails, the machine is at fault (a JDK that cannot start, a compiler missing a part of
itself, a runtime gone): every failure of that language is the grader's (IE, retried),
with the toolchain's own words. When it works, a failure is the student's; a compiler
that crashes on the student's source alone (the canary built) is their CE.

A result is kept for the whole grading process (`Canaries`: one for the limits' proof,
the grading and the proofs of the feedback), and checked again, at most
every RECHECK_SECONDS, when a failure looks like the machine's (a compiler killed by a
signal no limit sent, a program that ended abnormally before printing anything).
"""

import dataclasses
import shutil
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from grader import languages
from grader.build.builder import Artifact, Blame, build
from grader.core.model import Limits, RunResult, Verdict
from grader.core.settings.declare import declared_keys
from grader.core.text import printable
from grader.course.config import DEFAULT_BUILD_LIMITS, LanguageSpec
from grader.intake.submissions import Submission
from grader.judge.judging import Judgement, command
from grader.sandbox.base import Sandbox

RECHECK_SECONDS = 10.0  # a failure that looks like the machine's re-checks at most this often

# Each reads the file named by its first argument and prints "canary BYTES LINES".
SOURCES = {lang.name: lang.canary for lang in languages.REGISTRY}


# What a canary reads when no case is at hand: a puzzle as the hand-out writes one.
SAMPLE_PUZZLE = b"""Y1,G0,R0,B1
Y0,B1,R1,B0
Y1,R1,G0,B0
Y1,G0,B0,G1
B0,G0,R1,Y1
Y0,G1,R1,B0
R0,B1,Y1,G0
Y0,R1,B1,G0
R0,G1,Y1,B0
"""


def expected_output(puzzle: bytes) -> bytes:
    lines = puzzle.count(b"\n")
    return f"canary {len(puzzle)} {lines}\n".encode()


@dataclass(frozen=True)
class Health:
    """Whether a language's toolchain built and ran its canary; why not, in its words."""

    ok: bool
    problem: str = ""  # the failure, as the toolchain and the run reported it
    checked_at: float = 0.0  # time.monotonic() of the check
    # The failure is known to be the machine's whatever the limits: the compiler killed
    # by a signal no limit sent, the grader or its sandbox failing. No evidence against
    # the course's limits (limits_refusal).
    machine: bool = False

    def blame(self, language: str) -> str:
        """The diagnosis of a failure found to be the machine's."""
        return (
            f"the grading machine's {language} toolchain does not work now (a known-good "
            f"{language} program fails too: {self.problem}); not the program's fault, it "
            "will be retried"
        )


class Canaries:
    """The health of each language's toolchain on this machine, for one grading process:
    checked once (build and run), then again only when a failure looks like the
    machine's. Safe to use from many threads (one check per language at a time)."""

    def __init__(
        self,
        sandbox: Sandbox,
        build_limits: Limits,
        limits: Limits,
        root: Path,
        puzzle: Path | None = None,
    ) -> None:
        """`root`: a folder of the canaries' own (removed by close()); `puzzle`: the file
        they read (a case's input; None: SAMPLE_PUZZLE)."""
        self.sandbox, self.build_limits, self.limits = sandbox, build_limits, limits
        self.root, self.puzzle = root, puzzle
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._known: dict[str, Health] = {}
        self._built: dict[str, Path] = {}  # the canary's build folder, by language

    def health(self, spec: LanguageSpec, *, again: bool = False, build: bool = False) -> Health:
        """The toolchain's health (checked now if never, or if `again` and the last
        check is older than RECHECK_SECONDS; `build`: the compiler too, not only the
        runtime). A language without a canary has no evidence either way: healthy."""
        if spec.name not in SOURCES:
            return Health(True)
        with self._lock:
            lock = self._locks.setdefault(spec.name, threading.Lock())
        with lock:
            known = self._known.get(spec.name)
            stale = known is None or (
                again and time.monotonic() - known.checked_at >= RECHECK_SECONDS
            )
            if stale:
                known = self._check(spec, rebuild=build or known is None or not known.ok)
                self._known[spec.name] = known
            assert known is not None, "checked above"
            return known

    def close(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> "Canaries":
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _input(self) -> Path:
        if self.puzzle is None:
            self.root.mkdir(parents=True, exist_ok=True)
            self.puzzle = self.root / "puzzle.txt"
            self.puzzle.write_bytes(SAMPLE_PUZZLE)
        return self.puzzle

    def _check(self, spec: LanguageSpec, rebuild: bool) -> Health:
        try:
            puzzle = self._input()
        except OSError as error:
            why = f"cannot write its input: {error.strerror or error}"
            return Health(False, why, _now(), machine=True)
        folder = self._built.get(spec.name)
        if rebuild or folder is None:
            made = _build(spec, self.sandbox, self.build_limits, self.root)
            if not made.ok:
                problem = f"it does not build: {_first_lines(made.log)}"
                return Health(False, problem, _now(), machine=made.suspect or made.internal)
            folder = self._built[spec.name] = made.folder
        return _run(spec, folder, self.sandbox, self.limits, puzzle)


def _now() -> float:
    return time.monotonic()


def _build(spec: LanguageSpec, sandbox: Sandbox, limits: Limits, root: Path) -> Artifact:
    """The canary built afresh (never from a cache, nor into the machine's: it proves
    the compiler works now)."""
    root.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f"canary-{spec.name}-", dir=root))
    try:
        source = work / "source" / spec.source
        source.parent.mkdir()
        source.write_text(SOURCES[spec.name], encoding="utf-8")
        canary = Submission(f"canary/{spec.name}", source.parent, source, spec, None, work.name)
        return build(canary, work / "builds", sandbox, limits, force=True, share=False)
    except OSError as error:
        return Artifact(False, Path(), f"cannot write its files: {error.strerror or error}")


def _run(
    spec: LanguageSpec, folder: Path, sandbox: Sandbox, limits: Limits, puzzle: Path
) -> Health:
    try:
        data = puzzle.read_bytes()
    except OSError as error:
        return Health(
            False, f"cannot read {puzzle}: {error.strerror or error}", _now(), machine=True
        )
    result = sandbox.run(
        command(spec, limits),
        folder,
        limits,
        input_file=puzzle,
        memory_rlimit=spec.memory_rlimit,
    )
    problem = _run_problem(result, expected_output(data))
    return Health(problem is None, problem or "", _now(), machine=result.error is not None)


def _run_problem(result: RunResult, wanted: bytes) -> str | None:
    """What went wrong with the canary's run (None: it printed what it must)."""
    said = _first_lines(printable(result.stderr.decode(errors="replace")))
    tail = f": {said}" if said else ""
    if result.error:
        return f"the sandbox could not run it: {result.error}"
    for flag, what in (
        (result.timed_out, "ran out of time"),
        (result.memory_exceeded, "ran out of memory"),
        (result.output_exceeded, "printed too much"),
        (result.processes_exceeded, "could not start a process or thread"),
    ):
        if flag:
            return f"it {what}{tail}"
    if result.signal:
        return f"it was killed by signal {result.signal}{tail}"
    if result.exit_code != 0:
        return f"it exited with status {result.exit_code}{tail}"
    if result.stdout != wanted:
        return f"it printed {printable(result.stdout[:80].decode(errors='replace'))!r}{tail}"
    return None


def _first_lines(text: str, lines: int = 3, width: int = 300) -> str:
    kept = " / ".join(line.strip() for line in text.strip().splitlines()[:lines] if line.strip())
    return kept[:width]


def looks_like_the_machine(result: RunResult | None) -> bool:
    """A run that ended abnormally before printing anything: a runtime that could not
    start looks like this (so does a program that crashes at once): worth a re-check."""
    if result is None:
        return False
    return result.stdout_size == 0 and (bool(result.signal) or result.exit_code not in (0, None))


def build_blame(canaries: Canaries | None, spec: LanguageSpec | None) -> Blame | None:
    """What build() asks of a failed build: the machine's fault, or None (healthy)."""
    if canaries is None or spec is None:
        return None

    def blame(artifact: Artifact) -> str | None:
        health = canaries.health(spec, again=artifact.suspect, build=True)
        return None if health.ok else health.blame(spec.name)

    return blame


def blamed(judgement: Judgement, spec: LanguageSpec, canaries: Canaries | None) -> Judgement:
    """A run's failure stays the student's only while the canary shows the toolchain
    healthy; else it is the grader's (IE, retried)."""
    if canaries is None or judgement.verdict in (Verdict.AC, Verdict.IE):
        return judgement
    health = canaries.health(spec, again=looks_like_the_machine(judgement.result))
    if health.ok:
        return judgement
    return Judgement(Verdict.IE, health.blame(spec.name), judgement.result, kind="IE")


def limits_refusal(
    sandbox: Sandbox,
    build_limits: Limits,
    limits: Limits,
    specs: Sequence[LanguageSpec],
    root: Path,
    puzzle: Path | None = None,
    known: Canaries | None = None,
) -> str | None:
    """Why the course's limits cannot stand (None: they can): a known-good program of a
    language fails to build or run under them while it works under the defaults; the
    key found by putting each key back to its default in turn. A toolchain that fails
    under the defaults too is not the limits' fault (its runs are IE, said then).
    `root`: a folder of its own, removed at the end; `known`: the grading process's
    canaries under these limits (what they find here, grading need not find again)."""
    try:
        return _refusal(sandbox, build_limits, limits, specs, root, puzzle, known)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _refusal(
    sandbox: Sandbox,
    build_limits: Limits,
    limits: Limits,
    specs: Sequence[LanguageSpec],
    root: Path,
    puzzle: Path | None,
    known: Canaries | None,
) -> str | None:
    defaults = (DEFAULT_BUILD_LIMITS, Limits())
    if (build_limits, limits) == defaults:
        # Nothing to prove: a canary failing under the defaults is never their fault.
        # (Grading checks a toolchain the first time a failure needs blaming.)
        return None
    for spec in specs:
        if spec.name not in SOURCES:
            continue
        found = (
            known.health(spec)
            if known is not None
            else _canary_under(spec, sandbox, build_limits, limits, root, puzzle)
        )
        if found.ok or found.machine:  # the machine's failure: IE when grading, said then
            continue
        if not _canary_under(spec, sandbox, *defaults, root, puzzle).ok:
            continue
        keys = _culprits(spec, sandbox, (build_limits, limits), defaults, root, puzzle)
        return (
            f"{', '.join(keys)}: a known-good {spec.name} program fails under "
            f"{'it' if len(keys) == 1 else 'them'} ({found.problem}) and works under the "
            "defaults, so every correct program would fail too; raise "
            f"{'it' if len(keys) == 1 else 'them'} in course.toml"
        )
    return None


def _canary_under(
    spec: LanguageSpec,
    sandbox: Sandbox,
    build_limits: Limits,
    limits: Limits,
    root: Path,
    puzzle: Path | None,
) -> Health:
    canaries = Canaries(sandbox, build_limits, limits, root / "limits", puzzle)
    try:
        return canaries.health(spec)
    finally:
        canaries.close()


def _culprits(
    spec: LanguageSpec,
    sandbox: Sandbox,
    given: tuple[Limits, Limits],
    defaults: tuple[Limits, Limits],
    root: Path,
    puzzle: Path | None,
) -> list[str]:
    """The keys ("[limits] open_files = 3") whose default alone makes the canary
    work; every key that differs from its default when no single one does."""
    differing = []
    for index, table in enumerate(("build_limits", "limits")):
        for field, setting in declared_keys(given[index]):
            value, default = getattr(given[index], field.name), getattr(defaults[index], field.name)
            if value == default:
                continue
            shown = f"[{table}] {setting.key_name(field)} = {value / setting.scale:g}"
            differing.append(shown)
            tried = list(given)
            tried[index] = dataclasses.replace(given[index], **{field.name: default})
            if _canary_under(spec, sandbox, tried[0], tried[1], root, puzzle).ok:
                return [shown]
    return differing
