"""After the runs: for each failing case, a puzzle the student may see that their
program fails the same way, to run and debug (a hidden case's input is never shown).

"The same way" is the same kind of failure (grader.judge.Judgement.kind: the verdict
and what the diagnosis's first line tells, "WA/missing", "RTE/SIGABRT",
"RTE/input-stdin"), decided as data, never from the text. Candidates are the public
cases (already run: free) and the pool beside them (grader.pool), the most alike to the
failing case first; for a public case only other puzzles with an expected output no
longer than its own (another example of a failure the student sees already). Runs on the pool are bounded by a budget per
submission ([counterexamples] runs in course.toml), shared by its failing cases in
turns, hidden cases first; each is stored as it finishes (store.pool_runs), so an
interrupted search resumes with what it had, and a rerun makes no run twice. What was
found, or why nothing was, is stored per case (store.counterexamples). None of it
counts in a score.
"""

import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from grader.build import Artifact, build
from grader.cases import Case
from grader.config import CourseConfig
from grader.judge import run_case
from grader.model import Verdict
from grader.pool import Likeness
from grader.sandbox.base import Sandbox
from grader.store import CounterexampleRow, RunRow, Store
from grader.submissions import Submission

# A failure with no kind to match: nothing ran, or the grader failed.
_NOT_SEARCHED = {
    Verdict.CE.value: "nothing ran: the program was not built",
    Verdict.IE.value: "the grader failed on this case: grade again",
}
LEGACY = "graded before failures had kinds: grade again with --force to search"
# Failures whose every run lasts until a limit stops it: puzzles already run come first.
COSTLY = ("TLE",)
OFF = "the search is off ([counterexamples] runs = 0 in course.toml)"


@dataclass(frozen=True)
class Target:
    case: Case
    kind: str  # the kind of its failure


@dataclass(frozen=True)
class Found:
    """The puzzle that fails like a target, or None and why."""

    puzzle: Case | None
    reason: str = ""


def search(
    targets: Sequence[Target],
    candidates: Callable[[Target], list[Case]],
    known: dict[Case, str],
    run: Callable[[Case], str],
    budget: int,
) -> dict[str, Found]:
    """For each target (by case id), the first of its candidates whose run has its
    kind. A candidate in `known` (its run's kind, "" for AC) costs nothing; any other
    is run once (`run` gives its kind), at most `budget` times in all. Targets take
    turns, one candidate each, so that one failing case cannot spend the budget of
    the others; once it is spent, only known candidates are looked at."""
    kinds = dict(known)
    order = {target.case.id: candidates(target) for target in targets}
    skipped: set[str] = set()
    found: dict[str, Found] = {}
    pending = [target for target in targets if target.kind]
    for target in targets:
        if not target.kind:
            found[target.case.id] = Found(None, LEGACY)
    depth, spent = 0, 0
    while pending:
        still = []
        for target in pending:
            tried = order[target.case.id]
            if depth >= len(tried):
                found[target.case.id] = Found(
                    None, _none_found(target, len(tried), skipped, budget)
                )
                continue
            candidate = tried[depth]
            if candidate not in kinds:
                if spent >= budget:
                    skipped.add(target.case.id)
                    still.append(target)
                    continue
                kinds[candidate] = run(candidate)
                spent += 1
            if kinds[candidate] == target.kind:
                found[target.case.id] = Found(candidate)
            else:
                still.append(target)
        pending = still
        depth += 1
    return found


def _none_found(target: Target, tried: int, skipped: set[str], budget: int) -> str:
    if target.case.id in skipped:
        return (
            f"none found within the {budget} extra runs allowed per submission "
            "([counterexamples] runs in course.toml)"
        )
    other = " other" if target.case.public else ""
    bound = " no larger than it" if target.case.public else ""
    if not tried:
        return f"there is no{other} public puzzle{bound} to try"
    puzzles = "puzzle" if tried == 1 else "puzzles"
    return f"none of the {tried}{other} public {puzzles}{bound} fails this way"


def targets_of(cases: Sequence[Case], runs: dict[tuple[str, str], RunRow]) -> list[Target]:
    """The failing cases that have a kind to match, hidden ones first (the student cannot
    see their input), in the manifest's order."""
    failing = []
    for case in sorted(cases, key=lambda case: case.public):
        run = runs.get((case.id, case.version))
        if run is not None and run.verdict != Verdict.AC and run.verdict not in _NOT_SEARCHED:
            failing.append(Target(case, run.kind))
    return failing


class Searcher:
    """The search for every submission of a grading run, on this machine: pool runs in
    the same sandbox, under the same limits, as the graded runs."""

    def __init__(
        self,
        store: Store,
        cases: Sequence[Case],
        pool: Sequence[Case],
        config: CourseConfig,
        sandbox: Sandbox,
        cache_root: Path,
    ):
        self.store, self.cases, self.pool = store, list(cases), list(pool)
        self.config, self.sandbox, self.cache_root = config, sandbox, cache_root
        self.public = [case for case in self.cases if case.public]
        self.likeness = Likeness()
        self.lock = threading.Lock()  # one store connection, shared by the threads

    def run(self, submissions: Sequence[Submission], jobs: int = 1) -> None:
        """Search for each submission that failed a case (in `jobs` threads)."""
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
            for done in threads.map(self.submission, submissions):
                del done  # map's iterator raises what a thread raised

    def submission(self, sub: Submission) -> None:
        with self.lock:
            runs = self.store.runs(sub.id, sub.content_hash)
            stored = self.store.pool_runs(sub.id, sub.content_hash)
        targets = targets_of(self.cases, runs)
        if not targets:
            return
        budget = self.config.counterexamples.runs
        known = self._known(runs, stored)
        spent = sum((p.id, p.version) in stored for p in self.pool)
        program = _Program(self, sub)
        if budget == 0:
            found = {target.case.id: Found(None, OFF) for target in targets}
        else:
            found = search(
                targets,
                lambda target: self._candidates(target, known),
                known,
                program.run,
                max(0, budget - spent),
            )
        for target in targets:
            self._record(sub, target.case, found[target.case.id], runs)

    def _known(self, runs: dict, stored: dict) -> dict[Case, str]:
        known = {}
        for case in self.public:
            run = runs.get((case.id, case.version))
            if run is not None and run.verdict not in _NOT_SEARCHED:
                known[case] = run.kind
        for puzzle in self.pool:
            pool_run = stored.get((puzzle.id, puzzle.version))
            if pool_run is not None:
                known[puzzle] = pool_run.kind
        return known

    def _candidates(self, target: Target, known: dict[Case, str]) -> list[Case]:
        everyone = [c for c in self.public + self.pool if c.id != target.case.id]
        if target.case.public:  # another example, no longer, of a failure already seen
            size = self.likeness.size(target.case)
            everyone = [c for c in everyone if self.likeness.size(c) <= size]
        ranked = self.likeness.ranked(target.case, everyone)
        if target.kind in COSTLY:  # each new run would last the whole time limit
            ranked.sort(key=lambda case: case not in known)
        return ranked

    def _record(self, sub: Submission, case: Case, found: Found, runs: dict) -> None:
        puzzle = found.puzzle
        with self.lock:
            if puzzle is None:
                row = CounterexampleRow(
                    case.id, case.version, None, "", b"", b"", b"", "", found.reason
                )
            elif puzzle in self.public:
                run = runs[(puzzle.id, puzzle.version)]
                output = self.store.output(sub.id, sub.content_hash, puzzle.id, puzzle.version)
                row = _shown(case, puzzle, "public", output or b"", run.diagnosis)
            else:
                pool_run = self.store.pool_runs(sub.id, sub.content_hash)[
                    (puzzle.id, puzzle.version)
                ]
                output = self.store.pool_output(sub.id, sub.content_hash, puzzle.id, puzzle.version)
                row = _shown(case, puzzle, "pool", output, pool_run.diagnosis)
            self.store.record_counterexample(sub, case, row)


def _shown(case: Case, puzzle: Case, source: str, output: bytes, diagnosis: str):
    return CounterexampleRow(
        case.id,
        case.version,
        puzzle.id,
        source,
        puzzle.input.read_bytes(),
        puzzle.expected.read_bytes(),
        output,
        diagnosis,
        "",
    )


class _Program:
    """A submission's program, built (from the build cache) when first run on a puzzle."""

    def __init__(self, searcher: Searcher, sub: Submission):
        self.searcher, self.sub = searcher, sub
        self.artifact: Artifact | None = None

    def run(self, puzzle: Case) -> str:
        s, sub = self.searcher, self.sub
        if self.artifact is None:
            self.artifact = build(sub, s.cache_root, s.sandbox, s.config.build_limits)
        if not self.artifact.ok or sub.language is None:
            return "IE"  # nothing to run: a kind no failure has
        judgement = run_case(
            self.artifact, sub.language, puzzle, s.sandbox, s.config.limits, sub.facts
        )
        with s.lock:
            s.store.record_pool_run(
                sub,
                puzzle,
                judgement.verdict,
                judgement.kind,
                judgement.diagnosis,
                judgement.result,
            )
        return judgement.kind


def not_searched(
    store: Store, submissions: Sequence[Submission], cases: Sequence[Case], reason: str
) -> None:
    """Record, for every failing case, that no search was made and why (a grading run
    on a cluster: its programs were built on the workers)."""
    for sub in submissions:
        runs = store.runs(sub.id, sub.content_hash)
        for target in targets_of(cases, runs):
            row = CounterexampleRow(
                target.case.id, target.case.version, None, "", b"", b"", b"", "", reason
            )
            store.record_counterexample(sub, target.case, row)


def reason_without_search(verdict: str | None) -> str:
    """Why a failing case with no stored search has no puzzle."""
    return _NOT_SEARCHED.get(verdict or "", "not searched yet: grade again to search")
