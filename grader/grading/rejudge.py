"""Stored runs judged again under the current judging rules (grader.core.rules), without
running any program again.

Each stored run keeps its measurements, its error output and its whole output (an
accepted run's is the expected output, byte for byte): the judge reads nothing else, so
judging again gives the verdict a new run would get from the same output. A run the
store cannot replay (stored before it kept all that) is forgotten, and `grade` runs it
again. A grader failure (IE) is retried anyway; a failed build's CE is not a judgement
of an output, and is made again from the cached build.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.cases.manifest import Case
from grader.core.model import Limits, RunResult, Verdict
from grader.core.rules import rules_version
from grader.intake.submissions import Submission
from grader.judge.judging import judge
from grader.store import JudgedTable, RunRow, Store, replayed


@dataclass
class Rejudged:
    """What judging again did: runs judged, verdicts that changed, runs to make again."""

    judged: int = 0
    changed: list[str] = field(default_factory=list)  # "ada-c sample: WA -> PE"
    rerun: int = 0

    def lines(self, shown: int = 10) -> list[str]:
        """What `grade` says of it (nothing when nothing was stale)."""
        said = []
        if self.judged:
            said.append(
                f"re-judged {self.judged} run(s) under the new judging rules: "
                f"{len(self.changed)} verdict(s) changed"
            )
            said += [f"  {change}" for change in self.changed[:shown]]
            if len(self.changed) > shown:
                said.append(f"  ... and {len(self.changed) - shown} more")
        if self.rerun:
            said.append(
                f"{self.rerun} stored run(s) were judged under other rules and cannot be "
                "judged again from what the store kept: they are run again"
            )
        return said


@dataclass(frozen=True)
class _Stale:
    """A stored run judged under other rules."""

    table: JudgedTable
    case: Case  # the case, or the pool puzzle
    verdict: Verdict
    diagnosis: str
    kind: str
    row: RunRow | None = None  # a case's run as stored (None: a probe's)


def rejudge(
    store: Store,
    submissions: Sequence[Submission],
    cases: Sequence[Case],
    pool: Sequence[Case],
    limits: Limits,
) -> Rejudged:
    """Every stored run of the submissions' current content on a current case or pool
    puzzle that was judged under other rules, judged again now (or forgotten, to be
    run again)."""
    done = Rejudged()
    current = rules_version()
    by_key = {(c.id, c.version): c for c in cases}
    by_puzzle = {(p.id, p.version): p for p in pool}
    for sub in submissions:
        if sub.problem is not None:
            continue
        stale = [
            _Stale("runs", by_key[key], row.verdict, row.diagnosis, row.kind, row)
            for key, row in store.runs(sub.id, sub.content_hash).items()
            if row.rules != current and key in by_key
        ] + [
            _Stale("pool_runs", by_puzzle[key], Verdict(row.verdict), row.diagnosis, row.kind)
            for key, row in store.pool_runs(sub.id, sub.content_hash).items()
            if row.rules != current and key in by_puzzle
        ]
        for run in stale:
            _again(store, run, sub, limits, current, done)
    return done


def _again(
    store: Store, run: _Stale, sub: Submission, limits: Limits, current: str, done: Rejudged
) -> None:
    """One stale run: judged again, or forgotten (nothing to replay)."""
    table, case, verdict = run.table, run.case, run.verdict
    key = (sub.id, sub.content_hash, case.id, case.version)
    if verdict is Verdict.IE:
        return  # not a judgement: the plan retries it as it is
    if verdict is Verdict.CE:  # the build's verdict, not a judgement of an output
        store.rejudged(table, key, verdict, run.diagnosis, run.kind, False, current)
        return
    blob, output = store.replay(table, key)
    try:
        expected, puzzle = case.expected.read_bytes(), case.input.read_bytes()
    except OSError:
        return  # the plan runs the case, and says what cannot be read
    result = replayed(blob, output, expected) or _accepted_before(run.row, expected)
    judgement = judge(result, case, expected, puzzle, limits, sub.facts) if result else None
    if judgement is None or judgement.rules is None:  # nothing to replay, or an IE now
        store.drop_run(table, key)
        done.rerun += 1
        return
    store.rejudged(
        table,
        key,
        judgement.verdict,
        judgement.diagnosis,
        judgement.kind,
        judgement.policy_only,
        judgement.rules,
    )
    done.judged += 1
    if judgement.verdict is not verdict:
        where = "" if table == "runs" else " (a probe)"
        done.changed.append(f"{sub.id} {case.id}{where}: {verdict} -> {judgement.verdict}")


def _accepted_before(row: RunRow | None, expected: bytes) -> RunResult | None:
    """An accepted run stored before runs kept their replay (schema 7 or older): it
    printed the expected output, exited 0 and hit no limit, which is all the judge
    reads of an accepted run; any other such run is run again."""
    if row is None or row.verdict is not Verdict.AC or row.exit_code != 0:
        return None
    return RunResult(
        exit_code=0,
        signal=None,
        cpu_seconds=row.cpu_seconds or 0.0,
        wall_seconds=row.wall_seconds or 0.0,
        peak_memory_kb=row.peak_memory_kb or 0,
        stdout=expected,
        stderr=row.stderr.encode("utf-8", "surrogateescape"),
        stdout_size=len(expected),
        sandbox=row.sandbox,
        cpu_accounting=row.cpu_accounting,
    )
