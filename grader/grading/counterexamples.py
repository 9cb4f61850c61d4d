"""For each failing case, a puzzle the student may see that their program fails the same
way, to run and debug (a hidden case's input is never shown).

"The same way" is the same kind of failure (grader.judge.judging.Judgement.kind: the verdict
and what the diagnosis's first line tells, "WA/missing", "RTE/SIGABRT",
"RTE/input-stdin"), decided as data, never from the text.

The puzzles come only from runs that could not have learned a hidden input (the
store's `exposed`): the public cases, and the probes, puzzles of the pool beside them
(grader.cases.pool) that grading runs after the public cases and before any hidden case
(grader.grading.session). Which probes is the same for every submission of a class
(`choose_probes`): for each case, the most alike puzzle of the pool, hidden cases
first, then the next most alike, until [counterexamples] runs in course.toml. After
the runs, `find` picks for each failing case the most alike of those runs that failed
the same way; for a public case, only another puzzle no larger than it (another
example of a failure the student sees already). No run is made for it, and none of it
counts in a score. What was found, or why nothing was, is stored per case
(store.counterexamples).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass

from grader.cases.manifest import Case
from grader.cases.pool import Likeness
from grader.core import verdicts
from grader.core.model import Verdict
from grader.intake.submissions import Submission
from grader.store import CounterexampleRow, FindingRow, RunRow, Store

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
    # "public" (a public case), "pool" (a probe), or "search" (a pool puzzle run after the
    # hidden cases: its puzzle may be named, never what the program printed on it)
    source: str
    cpu_seconds: float | None = None  # what the run used (None: not known)
    verdict: str = ""


def choose_probes(cases: Sequence[Case], pool: Sequence[Case], budget: int) -> list[Case]:
    """The pool puzzles every submission runs before its hidden cases, at most `budget`.
    First, what the hidden cases have and no public case does (CR LF line ends, no final
    newline, as many solutions as the timed cases...: grader.cases.pool.features): the pool
    puzzle that has the most of it still uncovered, again and again, so that a failure
    that only such a puzzle brings out has one the student may see. Then, turn by turn,
    each case's most alike puzzle of the pool, then each one's next most alike; within
    a turn, the puzzles that stand for the most cases first, hidden cases before public
    ones. A case whose puzzle at a turn is a public case needs no probe then."""
    likeness = Likeness()
    public = [case for case in cases if case.public]
    chosen = _covering(cases, pool, likeness)[:budget]
    for puzzle in _most_alike(cases, pool, likeness, public):
        if len(chosen) >= budget:
            break
        if puzzle not in chosen:
            chosen.append(puzzle)
    return chosen


def _covering(cases: Sequence[Case], pool: Sequence[Case], likeness: Likeness) -> list[Case]:
    """Pool puzzles that together have every feature a hidden case has and no public
    case has, the most at a time (the smallest first among equals)."""
    wanted = set().union(*(likeness.features(c) for c in cases if not c.public))
    wanted -= set().union(*(likeness.features(c) for c in cases if c.public))
    chosen: list[Case] = []
    while wanted:
        best = min(
            pool,
            key=lambda p: (-len(likeness.features(p) & wanted), likeness.size(p), p.id),
            default=None,
        )
        if best is None or not likeness.features(best) & wanted:
            break  # no puzzle of the pool has what is left
        chosen.append(best)
        wanted -= likeness.features(best)
    return chosen


def _most_alike(
    cases: Sequence[Case], pool: Sequence[Case], likeness: Likeness, public: list[Case]
) -> list[Case]:
    """Pool puzzles turn by turn: each case's most alike, then next most alike."""
    ranked = [
        likeness.ranked(case, _allowed(likeness, case, [*public, *pool]))
        for case in sorted(cases, key=lambda case: case.public)
    ]
    order: list[Case] = []
    for depth in range(max((len(each) for each in ranked), default=0)):
        wanted = [each[depth] for each in ranked if depth < len(each)]
        turn = [p for p in dict.fromkeys(wanted) if p not in public and p not in order]
        turn.sort(key=lambda puzzle: -wanted.count(puzzle))  # stable: hidden cases first
        order += turn
    return order


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


def find(
    targets: Sequence[Target], seen: Sequence[Seen], cpu_limit: float | None = None
) -> dict[str, Seen | str]:
    """For each target (by case id), the most alike puzzle seen failing the same way
    (a Seen), or the reason there is none (a str; for a time-out, with how the
    program's time grows, given the `cpu_limit` it ran under)."""
    likeness = Likeness()
    by_puzzle = {s.puzzle: s for s in seen}
    found: dict[str, Seen | str] = {}
    for target in targets:
        if not target.kind:
            found[target.case.id] = LEGACY
            continue
        ranked = likeness.ranked(target.case, _allowed(likeness, target.case, list(by_puzzle)))
        match = next((by_puzzle[p] for p in ranked if by_puzzle[p].kind == target.kind), None)
        if match is None:
            growth = _growth(target, seen, cpu_limit) if target.kind == "TLE" else ""
            found[target.case.id] = _none_found(target, len(ranked)) + growth
        else:
            found[target.case.id] = match
    return found


def _growth(target: Target, seen: Sequence[Seen], cpu_limit: float | None) -> str:
    """A time-out on a puzzle larger than any public one the program finished: its
    times there, by size, and what they say of its time here (how fast it grows). Of a
    hidden puzzle nothing is told, not its number of solutions: only that the program's
    time grows faster than the public puzzles allow."""
    wanted = target.case.properties.solutions if target.case.properties else None
    finished = sorted(
        (s.puzzle.properties.solutions, s.cpu_seconds)
        for s in seen
        if s.verdict in verdicts.FINISHED and s.cpu_seconds is not None
        if s.puzzle.properties and s.puzzle.properties.solutions
    )
    if not wanted or not finished or cpu_limit is None or wanted <= finished[-1][0]:
        return ""
    by_size = dict(finished)  # one time per size: the longest (sorted last)
    shown = ", ".join(f"{_seconds(t)} ({n:,})" for n, t in _spread(sorted(by_size.items())))
    public = target.case.public
    said = (
        f". Your program's CPU time on the public puzzles it finished, by their number of "
        f"solutions: {shown}" + (f"; this puzzle has {wanted:,} solutions" if public else "")
    )
    here = "here" if public else "on a puzzle with as many solutions as this one"
    start = min(t for _, t in finished)  # starting up, reading, printing little
    (small, t_small), (large, t_large) = (
        finished[-2] if len(finished) > 1 else finished[0],
        finished[-1],
    )
    power = _power(small, t_small - start, large, t_large - start)
    if power is not None and power >= 1.5:
        need = start + (t_large - start) * (wanted / large) ** power
        rate = f"at that rate it needs about {need:,.1f} s here, " if public else ""
        return (
            f"{said}. Its time grows about as the number of solutions to the power "
            f"{power:.1f}: {rate}more than the {cpu_limit:g} s limit {here}. Look for work "
            "done again for every solution found (each new one compared with all those "
            "found before, say)"
        )
    linear = start + (t_large - start) * wanted / large
    if linear < cpu_limit:
        rate = f"it would need about {linear:,.2f} s, " if public else "it would "
        return (
            f"{said}: at the same time per solution {rate}stay within the {cpu_limit:g} s "
            f"limit {here}, yet it ran out of time. Its time grows faster than the number "
            "of solutions: look for work done again for every solution found (each new one "
            "compared with all those found before, say)"
        )
    rate = f"it needs about {linear:,.1f} s, " if public else "it needs "
    return (
        f"{said}: at the same time per solution {rate}more than the {cpu_limit:g} s limit "
        f"{here}: it must spend less time per solution"
    )


def _seconds(t: float) -> str:
    return f"{t * 1000:.1f} ms" if t < 0.1 else f"{t:.2f} s"


def _spread(finished: list[tuple[int, float]], shown: int = 4) -> list[tuple[int, float]]:
    """A few of the runs, from the smallest to the largest."""
    if len(finished) <= shown:
        return finished
    step = (len(finished) - 1) / (shown - 1)
    return [finished[round(i * step)] for i in range(shown)]


MEASURABLE = 0.005  # seconds: a difference of times smaller than this is noise


def _power(n1: int, t1: float, n2: int, t2: float) -> float | None:
    """The power p of t = c * n ** p through two points (times above start-up), or
    None when the times are too small or too close to tell."""
    if n2 <= n1 or t1 < MEASURABLE or t2 < MEASURABLE or n2 < 2 * n1:
        return None
    return math.log(t2 / t1) / math.log(n2 / n1)


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
    store: Store,
    submissions: Sequence[Submission],
    cases: Sequence[Case],
    pool: Sequence[Case],
    cpu_limit: float | None = None,
) -> None:
    """Find and store, for every failing case of every submission, its counterexample
    (from the runs already stored: nothing runs here): among the runs a student may
    see, else among the search's runs (grader.grading.proofs), whose puzzle alone is named;
    `cpu_limit`: the limit the runs had, to say how a time-out's time grows."""
    for sub in submissions:
        runs = store.runs(sub.id, sub.content_hash)
        targets = targets_of(cases, runs)
        if not targets:
            continue
        try:
            seen = seen_runs(store, sub, cases, pool, runs)
            found = find(targets, seen, cpu_limit)
            searched = _searched(store, sub, pool)
            explained = _by_finding(store.findings(sub.id, sub.content_hash), seen + searched)
            for target in targets:
                if target.case.id in explained:  # the same mistake, as the runs show it
                    found[target.case.id] = explained[target.case.id]
                elif isinstance(found[target.case.id], str) and target.kind:
                    match = find([target], searched).get(target.case.id)
                    if isinstance(match, Seen):
                        found[target.case.id] = match
            rows = [_row(store, sub, target, found) for target in targets]
        except (RecursionError, MemoryError, ValueError, OSError) as error:
            # Feedback, never a grade: this piece is missing and named; the class goes on.
            why = f"the search failed ({type(error).__name__}: {error}); grade again to retry"
            rows = [_none(target, why[:300]) for target in targets]
        for target, row in zip(targets, rows, strict=True):
            store.record_counterexample(sub, target.case, row)


def seen_runs(
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
            seen.append(Seen(case, run.kind, "public", run.cpu_seconds, str(run.verdict)))
    stored = store.pool_runs(sub.id, sub.content_hash)
    for puzzle in pool:
        pool_run = stored.get((puzzle.id, puzzle.version))
        if pool_run is not None and not pool_run.exposed:
            seen.append(Seen(puzzle, pool_run.kind, "pool", pool_run.cpu_seconds, pool_run.verdict))
    return seen


def _by_finding(findings: Sequence[FindingRow], seen: Sequence[Seen]) -> dict[str, Seen]:
    """Each failing case a finding (grader.grading.relations) explains -> the public puzzle
    that shows the same finding: one a student may see first, else one of the
    search's; the smallest (the easiest to read)."""
    by_id = {s.puzzle.id: s for s in seen}
    chosen: dict[str, Seen] = {}
    for finding in findings:
        shown = [by_id[p] for p in finding.explains if p in by_id]
        if not shown:
            continue
        best = min(shown, key=lambda s: (s.source == "search", _size(s.puzzle), s.puzzle.id))
        for case_id in finding.explains:
            if case_id not in by_id or by_id[case_id].source == "search":
                chosen.setdefault(case_id, best)
    return chosen


def _size(puzzle: Case) -> int:
    try:
        return puzzle.expected.stat().st_size
    except OSError:
        return 0


def _searched(store: Store, sub: Submission, pool: Sequence[Case]) -> list[Seen]:
    """The pool runs made after the hidden ones (grader.grading.proofs' search)."""
    stored = store.pool_runs(sub.id, sub.content_hash)
    return [
        Seen(p, run.kind, "search", run.cpu_seconds, run.verdict)
        for p in pool
        if (run := stored.get((p.id, p.version))) is not None and run.exposed
    ]


def _row(
    store: Store, sub: Submission, target: Target, found: dict[str, Seen | str]
) -> CounterexampleRow:
    case, match = target.case, found[target.case.id]
    if isinstance(match, str):
        return _none(target, match)
    puzzle = match.puzzle
    if match.source == "public":
        run = store.runs(sub.id, sub.content_hash)[(puzzle.id, puzzle.version)]
        output = store.output(sub.id, sub.content_hash, puzzle.id, puzzle.version) or b""
        diagnosis = run.diagnosis
    elif match.source == "search":
        output, diagnosis = b"", ""  # made after the hidden runs: never shown
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


def _none(target: Target, reason: str) -> CounterexampleRow:
    case = target.case
    return CounterexampleRow(case.id, case.version, None, "", b"", b"", b"", "", reason)


def reason_without_search(verdict: str | None) -> str:
    """Why a failing case with no stored search has no puzzle."""
    return _NOT_SEARCHED.get(verdict or "", "not searched yet: grade again to search")
