"""For each failing case, a puzzle the student may see that their program fails the same
way, to run and debug (a hidden case's input is never shown).

"The same way" is the same kind of failure (grader.judge.Judgement.kind: the verdict
and what the diagnosis's first line tells, "WA/missing", "RTE/SIGABRT",
"RTE/input-stdin"), decided as data, never from the text.

The puzzles come only from runs that could not have learned a hidden input (the
store's `exposed`): the public cases, and the probes, puzzles of the pool beside them
(grader.pool) that grading runs after the public cases and before any hidden case
(grader.grading). Which probes is the same for every submission of a class
(`choose_probes`): for each case, the most alike puzzle of the pool, hidden cases
first, then the next most alike, until [counterexamples] runs in course.toml. After
the runs, `find` picks for each failing case the most alike of those runs that failed
the same way; for a public case, only another puzzle no larger than it (another
example of a failure the student sees already). No run is made for it, and none of it
counts in a score. What was found, or why nothing was, is stored per case
(store.counterexamples).
"""

from collections.abc import Sequence
from dataclasses import dataclass

from grader.cases import Case
from grader.model import Verdict
from grader.pool import Likeness
from grader.store import CounterexampleRow, RunRow, Store
from grader.submissions import Submission

# A failure with no kind to match: nothing ran, or the grader failed.
_NOT_SEARCHED = {
    Verdict.CE.value: "nothing ran: the program was not built",
    Verdict.IE.value: "the grader failed on this case: grade again",
}
LEGACY = "graded before failures had kinds: grade again with --force to search"


@dataclass(frozen=True)
class Target:
    case: Case
    kind: str  # the kind of its failure


@dataclass(frozen=True)
class Seen:
    """A puzzle the program ran on that a student may see, and how that run ended."""

    puzzle: Case
    kind: str  # "" for AC
    source: str  # "public" (a public case) or "pool" (a probe)


def choose_probes(cases: Sequence[Case], pool: Sequence[Case], budget: int) -> list[Case]:
    """The pool puzzles every submission runs before its hidden cases, at most `budget`:
    turn by turn, each case's most alike puzzle of the pool, then each one's next most
    alike. Within a turn, the puzzles that stand for the most cases first, hidden cases
    before public ones (the student cannot see their input). A case whose puzzle at a
    turn is a public case needs no probe then."""
    likeness = Likeness()
    public = [case for case in cases if case.public]
    ranked = [
        likeness.ranked(case, _allowed(likeness, case, [*public, *pool]))
        for case in sorted(cases, key=lambda case: case.public)
    ]
    chosen: list[Case] = []
    for depth in range(max((len(order) for order in ranked), default=0)):
        wanted = [order[depth] for order in ranked if depth < len(order)]
        turn = [p for p in dict.fromkeys(wanted) if p not in public and p not in chosen]
        turn.sort(key=lambda puzzle: -wanted.count(puzzle))  # stable: hidden cases first
        chosen += turn[: budget - len(chosen)]
        if len(chosen) >= budget:
            break
    return chosen


def _allowed(likeness: Likeness, target: Case, puzzles: Sequence[Case]) -> list[Case]:
    """The puzzles that may stand for `target`: any other one for a hidden case; for a
    public case, another one no larger than it."""
    others = [p for p in puzzles if p != target]
    if not target.public:
        return others
    size = likeness.size(target)
    return [p for p in others if likeness.size(p) <= size]


def targets_of(cases: Sequence[Case], runs: dict[tuple[str, str], RunRow]) -> list[Target]:
    """The failing cases that have a kind to match, hidden ones first, in the
    manifest's order."""
    failing = []
    for case in sorted(cases, key=lambda case: case.public):
        run = runs.get((case.id, case.version))
        if run is not None and run.verdict != Verdict.AC and run.verdict not in _NOT_SEARCHED:
            failing.append(Target(case, run.kind))
    return failing


def find(targets: Sequence[Target], seen: Sequence[Seen]) -> dict[str, Seen | str]:
    """For each target (by case id), the most alike puzzle seen failing the same way
    (a Seen), or the reason there is none (a str)."""
    likeness = Likeness()
    by_puzzle = {s.puzzle: s for s in seen}
    found: dict[str, Seen | str] = {}
    for target in targets:
        if not target.kind:
            found[target.case.id] = LEGACY
            continue
        ranked = likeness.ranked(target.case, _allowed(likeness, target.case, list(by_puzzle)))
        match = next((by_puzzle[p] for p in ranked if by_puzzle[p].kind == target.kind), None)
        found[target.case.id] = match or _none_found(target, len(ranked))
    return found


def _none_found(target: Target, tried: int) -> str:
    other = " other" if target.case.public else ""
    bound = " no larger than this one" if target.case.public else ""
    if not tried:
        return f"your program was run on no{other} public puzzle{bound} to compare with"
    puzzles = "puzzle" if tried == 1 else "puzzles"
    said = (
        f"none of the {tried}{other} public {puzzles}{bound} your program was run on fails this way"
    )
    return said if target.case.public else said + ": it fails so only on puzzles you cannot see"


def record(
    store: Store, submissions: Sequence[Submission], cases: Sequence[Case], pool: Sequence[Case]
) -> None:
    """Find and store, for every failing case of every submission, its counterexample
    (from the runs already stored: nothing runs here)."""
    for sub in submissions:
        runs = store.runs(sub.id, sub.content_hash)
        targets = targets_of(cases, runs)
        if not targets:
            continue
        found = find(targets, _seen(store, sub, cases, pool, runs))
        for target in targets:
            store.record_counterexample(sub, target.case, _row(store, sub, target, found))


def _seen(
    store: Store,
    sub: Submission,
    cases: Sequence[Case],
    pool: Sequence[Case],
    runs: dict[tuple[str, str], RunRow],
) -> list[Seen]:
    """The runs of this submission a student may see the output of."""
    seen = []
    for case in cases:
        run = runs.get((case.id, case.version))
        if case.public and run is not None and not run.exposed and run.verdict != Verdict.CE:
            seen.append(Seen(case, run.kind, "public"))
    stored = store.pool_runs(sub.id, sub.content_hash)
    for puzzle in pool:
        pool_run = stored.get((puzzle.id, puzzle.version))
        if pool_run is not None and not pool_run.exposed:
            seen.append(Seen(puzzle, pool_run.kind, "pool"))
    return seen


def _row(
    store: Store, sub: Submission, target: Target, found: dict[str, Seen | str]
) -> CounterexampleRow:
    case, match = target.case, found[target.case.id]
    if isinstance(match, str):
        return CounterexampleRow(case.id, case.version, None, "", b"", b"", b"", "", match)
    puzzle = match.puzzle
    if match.source == "public":
        run = store.runs(sub.id, sub.content_hash)[(puzzle.id, puzzle.version)]
        output = store.output(sub.id, sub.content_hash, puzzle.id, puzzle.version) or b""
        diagnosis = run.diagnosis
    else:
        diagnosis = store.pool_runs(sub.id, sub.content_hash)[(puzzle.id, puzzle.version)].diagnosis
        output = store.pool_output(sub.id, sub.content_hash, puzzle.id, puzzle.version)
    return CounterexampleRow(
        case.id,
        case.version,
        puzzle.id,
        match.source,
        puzzle.input.read_bytes(),
        puzzle.expected.read_bytes(),
        output,
        diagnosis,
        "",
    )


def reason_without_search(verdict: str | None) -> str:
    """Why a failing case with no stored search has no puzzle."""
    return _NOT_SEARCHED.get(verdict or "", "not searched yet: grade again to search")
