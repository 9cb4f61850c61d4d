"""Runs made after grading to establish what the feedback claims, never to grade: the
counterfactual runs (a failing case's puzzle with one property changed: grader.
counterfactual) and the search of the whole pool for a public puzzle that fails like a
case nothing a student may see fails like.

They come after every hidden run, so what a program prints in them is never shown: a
counterfactual run only decides whether a property is named ("the same puzzle with Unix
line ends passes"), a search run only which public puzzle is named, for the student to
run. A submission's proofs cost at most BUDGET of the wall time its runs took (and MIN_RUNS
runs whatever they cost), so they stay within about a tenth of the grading; each proof
run has at most what is left of the budget as its CPU limit (never more than the
course's), and one stopped by that shorter limit proves nothing either way. A failure
that ran into a limit (TLE, MLE) is not run again with a property changed: it would
likely cost the whole limit again. What is not proven is not said.
"""

import dataclasses
import tempfile
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from grader.build.builder import build
from grader.cases.counterfactual import Variant, variants
from grader.cases.input_properties import properties_of
from grader.cases.manifest import Case
from grader.cases.pool import Likeness
from grader.core import verdicts
from grader.core.model import Verdict
from grader.core.rules import rules_version
from grader.course.config import CourseConfig
from grader.grading import counterexamples, relations
from grader.grading.counterexamples import Target, find, seen_runs, targets_of
from grader.grading.relations import guesses, likely
from grader.intake.submissions import Submission
from grader.judge.canary import Canaries, build_blame
from grader.judge.judging import Judgement, record_pool_judgement, run_in
from grader.sandbox.base import Sandbox
from grader.store import FindingRow, RunRow, Store

BUDGET = 0.10  # of the wall time a submission's stored runs took, when grading a class
# A student's own check grades one program, for its author waiting on the cause: its
# proofs may take as long as its runs did.
CHECK_BUDGET = 1.0
MIN_RUNS = 1  # runs a submission's proofs may make whatever its budget
_MIN_CPU = 1.0  # seconds: the least CPU limit a proof run gets


@dataclass
class Proven:
    """What the proofs of a grading run did, for the bench and the log."""

    runs: int = 0
    seconds: float = 0.0
    touched: set[str] = field(default_factory=set)  # submissions with new runs
    properties: list[str] = field(default_factory=list)  # "ada-c crlf: line_ends"
    found: list[str] = field(default_factory=list)  # "ada-c puzzle-0000: pool large-1"

    def add(self, other: "Proven") -> None:
        self.touched |= other.touched
        self.runs += other.runs
        self.seconds += other.seconds
        self.properties += other.properties
        self.found += other.found


@dataclass(frozen=True)
class Proving:
    """What proofs run with: the sandbox, the builds' folder, the threads, and the share
    of the runs' wall time they may take."""

    sandbox: Sandbox
    cache_root: Path
    jobs: int = 1
    budget: float = BUDGET
    proven: Callable[[str], None] = lambda submission_id: None  # told as each one ends
    canaries: Canaries | None = None  # the grading process's own (kept open), else new ones


def provable(submissions: Sequence[Submission]) -> list[Submission]:
    """The submissions proofs may run for: those that built into something to run."""
    return [s for s in submissions if s.problem is None and s.language is not None]


def prove(
    store: Store,
    submissions: Sequence[Submission],
    cases: Sequence[Case],
    pool: Sequence[Case],
    config: CourseConfig,
    proving: Proving,
) -> Proven:
    """The counterfactual runs and the pool search of every submission that failed a
    case, `proving.jobs` submissions at a time (every hidden run has ended: nothing
    here is shown)."""
    lock = threading.Lock()  # one writer of the store, as in grading
    sandbox, cache_root = proving.sandbox, proving.cache_root
    canaries = proving.canaries or Canaries(
        sandbox, config.build_limits, config.limits, cache_root / "canaries"
    )
    total = Proven()
    try:
        with ThreadPoolExecutor(max_workers=max(1, proving.jobs)) as workers:
            chosen = provable(submissions)
            for sub, done in zip(
                chosen,
                workers.map(
                    lambda sub: _prove_one(
                        _Context(
                            store, lock, sandbox, config, cache_root, canaries, proving.budget
                        ),
                        sub,
                        cases,
                        pool,
                    ),
                    chosen,
                ),
                strict=True,
            ):
                total.add(done)
                proving.proven(sub.id)
    finally:
        if proving.canaries is None:
            canaries.close()
    return total


@dataclass
class _Context:
    store: Store
    lock: threading.Lock
    sandbox: Sandbox
    config: CourseConfig
    cache_root: Path
    canaries: Canaries
    budget: float = BUDGET


def _prove_one(
    ctx: _Context, sub: Submission, cases: Sequence[Case], pool: Sequence[Case]
) -> Proven:
    with ctx.lock:
        runs = ctx.store.runs(sub.id, sub.content_hash)
        stored = ctx.store.pool_runs(sub.id, sub.content_hash)
    targets = [
        t
        for t in targets_of(cases, runs)
        if runs[(t.case.id, t.case.version)].verdict in verdicts.PROVABLE
    ]
    probes = [
        p
        for p in pool
        if (run := stored.get((p.id, p.version))) is not None
        and not run.exposed
        and Verdict(run.verdict) in verdicts.PROVABLE
    ]
    if not targets and not probes:
        return Proven()
    assert sub.language is not None, "only submissions with a language are proven"
    artifact = build(
        sub,
        ctx.cache_root,
        ctx.sandbox,
        ctx.config.build_limits,
        blame=build_blame(ctx.canaries, sub.language),
    )
    if not artifact.ok:
        return Proven()
    # Every run grading made counts: the cases' and the pool's (not an earlier proof's;
    # the pool keeps CPU time only, a little less than its wall time).
    spent = [run.wall_seconds or 0.0 for run in runs.values()] + [
        run.cpu_seconds or 0.0 for run in stored.values() if not run.exposed
    ]
    budget = ctx.budget * sum(spent)
    prover = _Prover(ctx, sub, artifact.folder, budget)
    # A property is "alone what it fails on" only for a program that passes something:
    # one that passes nothing fails puzzles without the property too.
    passes = any(run.verdict is Verdict.AC for run in runs.values()) or any(
        run.verdict == Verdict.AC.value for run in stored.values()
    )
    with tempfile.TemporaryDirectory(prefix="grader-proofs-") as tmp:
        prover.scratch = Path(tmp)
        for puzzle in [t.case for t in targets] + probes if passes else []:
            prover.counterfactuals(puzzle)
        prover.search(cases, pool, runs, targets)
    return prover.done


class _Prover:
    """One submission's proofs, within its budget."""

    def __init__(self, ctx: _Context, sub: Submission, folder: Path, budget: float) -> None:
        self.ctx, self.sub, self.folder, self.budget = ctx, sub, folder, budget
        self.done = Proven()
        self.scratch = Path()

    def affordable(self) -> bool:
        """MIN_RUNS runs always; more while the runs so far took less than the budget."""
        return self.done.runs < MIN_RUNS or self.done.seconds < self.budget

    def run(self, case: Case) -> Judgement | None:
        """The run, judged; None when it proves nothing either way: the grader failed,
        or the shorter limit of a proof run stopped it."""
        spec = self.sub.language
        assert spec is not None, "checked by the caller"
        limits = self.ctx.config.limits
        left = max(self.budget - self.done.seconds, _MIN_CPU)
        cpu = min(limits.cpu_seconds, left)
        shorter = dataclasses.replace(
            limits, cpu_seconds=cpu, wall_seconds=min(limits.wall_seconds, 2 * cpu)
        )
        judgement = run_in(self.folder, spec, case, self.ctx.sandbox, shorter, self.sub.facts)
        self.done.runs += 1
        self.done.touched.add(self.sub.id)
        if judgement.result is not None:
            self.done.seconds += judgement.result.wall_seconds
        cut = shorter != limits and judgement.verdict is Verdict.TLE
        return None if judgement.verdict is Verdict.IE or cut else judgement

    def counterfactuals(self, case: Case) -> None:
        """Each property of the failing case's puzzle that can change alone, changed."""
        store, sub = self.ctx.store, self.sub
        with self.ctx.lock:
            known = store.proofs(sub.id, sub.content_hash).get((case.id, case.version), {})
        try:
            puzzle, expected = case.input.read_bytes(), case.expected.read_bytes()
        except OSError:
            return
        found = case.properties or properties_of(puzzle, expected)
        for variant in variants(puzzle, expected, found):
            old = known.get(variant.property)
            if old is not None and old.rules == rules_version():
                continue
            if not self.affordable():
                return
            judgement = self.run(self._case(case, variant))
            if judgement is None:
                continue  # nothing established
            with self.ctx.lock:
                store.record_proof(sub, case, variant.property, judgement.verdict, judgement.rules)
            if judgement.verdict is Verdict.AC:
                self.done.properties.append(f"{sub.id} {case.id}: {variant.property}")

    def _case(self, case: Case, variant: Variant) -> Case:
        folder = self.scratch / f"{case.id}-{variant.property}"
        folder.mkdir(parents=True, exist_ok=True)
        puzzle, expected = folder / case.input.name, folder / "expected"
        puzzle.write_bytes(variant.puzzle)
        expected.write_bytes(variant.expected)
        return dataclasses.replace(case, input=puzzle, expected=expected)

    def search(
        self,
        cases: Sequence[Case],
        pool: Sequence[Case],
        runs: dict[tuple[str, str], RunRow],
        targets: Sequence[Target],
    ) -> None:
        """For each failing case nothing a student may see fails like, the pool's
        puzzles not run yet, the most alike first, until one fails the same way."""
        store, sub = self.ctx.store, self.sub
        with self.ctx.lock:
            seen = seen_runs(store, sub, cases, pool, runs)
        found = find(targets, seen)
        with self.ctx.lock:
            findings = guesses(store, sub, cases, pool)
        likeness = Likeness()
        ran = {s.puzzle for s in seen}
        with self.ctx.lock:
            stored = store.pool_runs(sub.id, sub.content_hash)
        ran |= {p for p in pool if (p.id, p.version) in stored}
        for target in targets:
            if not isinstance(found[target.case.id], str) or not target.kind:
                continue  # a puzzle found among what a student may see, or nothing to match
            candidates = [p for p in pool if p not in ran]
            if target.case.public:
                size = likeness.size(target.case)
                candidates = [p for p in candidates if likeness.size(p) <= size]
            for puzzle in _ordered(target, candidates, findings, likeness):
                if not self.affordable():
                    return
                judgement = self.run(puzzle)
                ran.add(puzzle)
                if judgement is None:
                    continue
                with self.ctx.lock:
                    record_pool_judgement(store, sub, puzzle, judgement, exposed=True)
                if judgement.kind == target.kind:
                    self.done.found.append(f"{sub.id} {target.case.id}: pool {puzzle.id}")
                    break


def _ordered(
    target: Target, candidates: Sequence[Case], findings: Sequence[FindingRow], likeness: Likeness
) -> list[Case]:
    """The puzzles to try for `target`: those a finding that explains it says the
    program fails too (the needed kind), the smallest first; then the most alike."""
    said = [f for f in findings if target.case.id in f.explains]
    first = sorted(
        (p for p in candidates if any(likely(f, p) for f in said)),
        key=lambda p: (likeness.size(p), p.id),
    )
    return first + [p for p in likeness.ranked(target.case, candidates) if p not in first]


def explain(
    store: Store,
    submissions: Sequence[Submission],
    cases: Sequence[Case],
    pool: Sequence[Case],
    config: CourseConfig,
    proving: Proving | None,
) -> Proven:
    """Everything the feedback says beyond a run's own diagnosis, after grading: the
    proofs (None: nothing runs, so nothing is proven), what all the runs show (grader.
    relations), and each failing case's counterexample."""
    done = Proven()
    if proving is not None:
        done = prove(store, submissions, cases, pool, config, proving)
    relations.record(store, submissions, cases, pool)
    counterexamples.record(store, submissions, cases, pool, config.limits.cpu_seconds)
    return done
