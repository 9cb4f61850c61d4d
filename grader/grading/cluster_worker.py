"""The worker side of grading on a Dask cluster (the client side is grader.grading.cluster).

Every Dask worker needs the grader installed (the same version as the client) and
no shared file system: the client ships each submission's source and, once per
grading run, the case inputs and expected outputs. A worker builds each content
once in its own cache, runs every case in its own sandbox under the course's
limits, and returns verdicts: only the client writes the store.

A worker's state (its sandbox, its cache folder) lives in a WorkerPlugin the client
registers. A worker whose sandbox does not work refuses every task with one line
(WorkerRefused) instead of running untrusted code without isolation; the course's
`sandbox = "rlimits"` is the only way to grade without bubblewrap, as locally.
"""

import dataclasses
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from distributed import Worker, WorkerPlugin, get_worker

from grader import __version__
from grader.build.builder import Artifact, build
from grader.cases.manifest import Case
from grader.core import verdicts
from grader.core.atomic import atomic_output
from grader.core.model import Limits, Verdict
from grader.course.config import LanguageSpec
from grader.intake.submissions import Submission
from grader.judge.canary import Canaries, blamed, build_blame
from grader.judge.judging import Judgement, run_case
from grader.languages.source_facts import NO_FACTS, ProgramFacts
from grader.sandbox import Sandbox, SandboxUnavailable, make_sandbox
from grader.store import kept_output

CACHE_ENV = "GRADER_WORKER_CACHE"  # where a worker keeps builds (default: its local directory)

_log = logging.getLogger("grader.grading.cluster_worker")


class WorkerRefused(RuntimeError):
    """This worker will not grade (no working sandbox, another grader version)."""

    def __init__(self, address: str, reason: str):
        super().__init__(address, reason)
        self.address, self.reason = address, reason

    def __str__(self) -> str:
        return f"worker {self.address} refuses work: {self.reason}"


@dataclass(frozen=True)
class Source:
    """What a worker needs to build one submission."""

    id: str
    content_hash: str
    language: LanguageSpec
    data: bytes  # the source file's bytes (named language.source)
    # (name relative to the main file, bytes) of the extra files the build gets
    extra: tuple[tuple[str, bytes], ...] = ()
    facts: ProgramFacts = NO_FACTS  # what its sources show, for the diagnosis

    @classmethod
    def of(cls, sub: Submission) -> "Source":
        """A buildable submission's sources, read now (OSError when they cannot be)."""
        assert sub.source is not None and sub.language is not None, "buildable"
        extra = tuple((name, (sub.folder / name).read_bytes()) for name in sub.extra_files)
        return cls(
            sub.id, sub.content_hash, sub.language, sub.source.read_bytes(), extra, sub.facts
        )


# case version -> (input file name, input bytes, expected output bytes)
CaseData = dict[str, tuple[str, bytes, bytes]]


def plugin_name(sandbox_kind: str) -> str:
    return f"scramble-grader-{__version__}-{sandbox_kind}"


class GraderPlugin(WorkerPlugin):
    """A worker's sandbox and build cache, made on its first task."""

    idempotent = True  # a later grading run keeps the worker's sandbox and cache

    def __init__(self, sandbox_kind: str, client_version: str = __version__):
        self.name = plugin_name(sandbox_kind)
        self.sandbox_kind = sandbox_kind
        self.client_version = client_version

    def setup(self, worker: Worker) -> None:
        self.address = worker.address
        self.root = Path(os.environ.get(CACHE_ENV) or worker.local_directory) / "grader"
        self._lock = threading.Lock()
        self._hash_locks: dict[str, threading.Lock] = {}
        self._sandbox: Sandbox | None = None
        self._refusal: str | None = None
        self._canaries: dict[tuple[Limits, Limits], Canaries] = {}
        self._tallies: dict[str, int] = {}

    def sandbox(self) -> Sandbox:
        """The worker's sandbox, or WorkerRefused saying why there is none."""
        with self._lock:
            if self._sandbox is None and self._refusal is None:
                self._refusal = self._make_sandbox()
                if self._refusal:
                    _log.error("%s", WorkerRefused(self.address, self._refusal))
        if self._refusal:
            raise WorkerRefused(self.address, self._refusal)
        assert self._sandbox is not None, "made whenever there is no refusal"
        return self._sandbox

    def _make_sandbox(self) -> str | None:
        if self.client_version != __version__:
            return (
                f"it has grader {__version__}, the client {self.client_version}: "
                "install the same version on both"
            )
        if self.sandbox_kind == "rlimits":  # the course chose no isolation, knowingly
            self._sandbox = make_sandbox("rlimits", warn=_log.warning)
            return None
        try:
            self._sandbox = make_sandbox("bubblewrap")
        except SandboxUnavailable as error:
            return (
                f"no working sandbox ({error}); install bubblewrap there, or set "
                'sandbox = "rlimits" in course.toml to grade without isolation'
            )
        return None

    def canaries(self, build_limits: Limits, limits: Limits) -> Canaries:
        """This worker's canaries for these limits (grader.judge.canary): its own toolchains'
        health, checked on this machine."""
        sandbox = self.sandbox()  # takes the lock itself
        with self._lock:
            found = self._canaries.get((build_limits, limits))
            if found is None:
                root = self.root / "canaries" / str(len(self._canaries))
                found = Canaries(sandbox, build_limits, limits, root)
                self._canaries[(build_limits, limits)] = found
            return found

    def tally(self, key: str, add: int = 0) -> int:
        """How many times `key` was counted on this worker before; counts it `add` more
        (the leaderboard's warm-ups done here: grader.leaderboard.on_workers)."""
        with self._lock:
            before = self._tallies.get(key, 0)
            self._tallies[key] = before + add
            return before

    def hash_lock(self, key: str) -> threading.Lock:
        with self._lock:
            return self._hash_locks.setdefault(key, threading.Lock())

    def build(
        self, source: Source, limits: Limits, force: bool, run_limits: Limits | None = None
    ) -> Artifact:
        """Build in this worker's cache, once per content (threads wait for each other);
        a failed build is blamed by this worker's canaries (under `run_limits`)."""
        sandbox = self.sandbox()
        canaries = self.canaries(limits, run_limits) if run_limits is not None else None
        folder = self.root / "sources" / source.content_hash[:32]
        path = folder / source.language.source
        names = tuple(name for name, _ in source.extra)
        sub = Submission(source.id, folder, path, source.language, None, source.content_hash, names)
        with self.hash_lock(source.content_hash):
            for target, data in ((path, source.data), *((folder / n, d) for n, d in source.extra)):
                if not target.is_file() or target.read_bytes() != data:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    _write_atomic(target, data)
            return build(
                sub,
                self.root / "builds",
                sandbox,
                limits,
                force=force,
                blame=build_blame(canaries, source.language),
            )

    def local_case(self, case: Case, data: CaseData) -> Case:
        """The case with its files in this worker's cache (written once per version)."""
        name, puzzle, expected = data[case.version]
        folder = self.root / "cases" / case.version
        with self.hash_lock("case:" + case.version):
            folder.mkdir(parents=True, exist_ok=True)
            for path, content in ((folder / name, puzzle), (folder / "expected", expected)):
                if not path.is_file():  # two cases may share a version, not an input name
                    _write_atomic(path, content)
        return dataclasses.replace(case, input=folder / name, expected=folder / "expected")


def _write_atomic(path: Path, data: bytes) -> None:
    with atomic_output(path) as handle:  # OSError propagates: the task fails, IE
        handle.write(data)


def plugin_of(name: str, worker: Worker | None = None) -> GraderPlugin:
    """The grader's plugin on this worker (`worker`: given where no task runs, as in a
    Client.run call)."""
    worker = worker or get_worker()
    plugin = worker.plugins.get(name)
    if not isinstance(plugin, GraderPlugin):
        raise WorkerRefused(worker.address, "the grader's worker plugin is not registered here")
    return plugin


def build_task(
    name: str, source: Source, limits: Limits, force: bool, run_limits: Limits | None = None
) -> Artifact:
    """One submission's build on this worker."""
    return plugin_of(name).build(source, limits, force, run_limits)


def run_task(
    name: str,
    built: Artifact,
    source: Source,
    cases: Sequence[Case],
    data: CaseData,
    limits: Limits,
    build_limits: Limits,
    after: Sequence[list[tuple[str, Judgement | None]]] = (),
    probes: bool = False,
) -> list[tuple[str, Judgement | None]]:
    """Some cases of one submission whose build (`built`, maybe on another worker)
    succeeded: (case id, judgement) each, outputs cut to what the store keeps. `after`:
    the results of the tasks that had to end first (the public runs before the probes,
    everything visible before the hidden runs). `probes`: these are probes, run one
    after the other, none (judgement None) once a public run or a probe reached a
    limit (grader.grading.session)."""
    if not built.ok:
        return []  # the client records CE/IE for every case from the build itself
    plugin = plugin_of(name)
    # This worker's own build, usually cached.
    artifact = plugin.build(source, build_limits, False, limits)
    if not artifact.ok:
        why = f"the build that worked on another worker failed here: {artifact.log[:300]}"
        return [(case.id, Judgement(Verdict.IE, why)) for case in cases]
    sandbox = plugin.sandbox()
    stop = probes and any(
        judgement is not None and judgement.verdict in verdicts.LIMIT
        for results in after
        for _, judgement in results
    )
    results: list[tuple[str, Judgement | None]] = []
    for case in cases:
        if stop:
            results.append((case.id, None))
            continue
        judgement = blamed(
            run_case(
                artifact,
                source.language,
                plugin.local_case(case, data),
                sandbox,
                limits,
                source.facts,
            ),
            source.language,
            plugin.canaries(build_limits, limits),
        )
        stop = probes and judgement.verdict in verdicts.LIMIT
        results.append((case.id, _trimmed(judgement)))
    return results


def _trimmed(judgement: Judgement) -> Judgement:
    """Only what the store keeps travels back: no output of an accepted run."""
    result = judgement.result
    if result is None:
        return judgement
    kept = kept_output(judgement.verdict, result.stdout)
    return dataclasses.replace(judgement, result=dataclasses.replace(result, stdout=kept))
