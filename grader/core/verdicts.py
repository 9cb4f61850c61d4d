"""The verdict table: one row per verdict, in the order every report lists them, with
what each means to whoever reads it (its name, its badge's colour) and the facts the
grading acts on (whether the program ran, ran to its end, stopped at a limit). The sets
that several modules act on are derived here (a module's own test of one or two
verdicts, "not AC or CE", stays beside its code); the JSON schemas' lists are pinned to
the table by tests/test_verdict_lists.py."""

from collections.abc import Callable
from dataclasses import dataclass

from grader.core.model import Verdict


@dataclass(frozen=True)
class Row:
    verdict: Verdict
    name: str  # what a report, a student's page included, calls it
    colour: str  # its badge's background (feedback.css)
    ran: bool  # the program ran on the case (not a build that failed, nor the grader)
    to_end: bool  # it ran to its end: its output is whole, its time the whole run's
    limit: bool  # it was stopped at one of its limits
    spent: bool  # that limit was its time or memory: a second run would spend it again

    @property
    def passed(self) -> bool:
        return self.verdict is Verdict.AC


def _row(verdict: Verdict, name: str, colour: str, *flags: str) -> Row:
    known = {"ran", "to_end", "limit", "spent"}
    assert known.issuperset(flags), flags
    return Row(verdict, name, colour, **{flag: flag in flags for flag in known})


TABLE: tuple[Row, ...] = (
    _row(Verdict.AC, "accepted", "#1a7f37", "ran", "to_end"),
    _row(Verdict.WA, "wrong answer", "#cf222e", "ran", "to_end"),
    _row(
        Verdict.PE,
        "presentation error: the output differs only in white space",
        "#9a6700",
        "ran",
        "to_end",
    ),
    _row(Verdict.TLE, "time limit exceeded", "#8250df", "ran", "limit", "spent"),
    _row(Verdict.MLE, "memory limit exceeded", "#8250df", "ran", "limit", "spent"),
    _row(Verdict.OLE, "output limit exceeded", "#8250df", "ran", "limit"),
    _row(Verdict.RTE, "run-time error: a crash or a non-zero exit status", "#bc4c00", "ran"),
    _row(
        Verdict.CE,
        "not built: the program did not compile, or the submission has no usable source file",
        "#57606a",
    ),
    _row(
        Verdict.IE,
        "internal error of the grader (not your fault; the course staff will look at it)",
        "#0969da",
    ),
)
assert tuple(row.verdict for row in TABLE) == tuple(Verdict), "every verdict once, in order"


def _where(keep: Callable[[Row], bool]) -> frozenset[Verdict]:
    return frozenset(row.verdict for row in TABLE if keep(row))


# A run that went to its end: its output can be read whole and its time is the whole run's.
FINISHED = _where(lambda row: row.to_end)
# An output compared with the expected one that did not match it (only these can fail
# on a policy rule: grader.judge.policy_backfill).
WRONG_OUTPUT = _where(lambda row: row.to_end and not row.passed)
# A run stopped at one of its limits: probes after one would likely cost it too.
LIMIT = _where(lambda row: row.limit)
# A failure of a run: a property of its puzzle file may explain it (not a build, nor
# the grader's own failure).
RUN_FAILURE = _where(lambda row: row.ran and not row.passed)
# A run failure that did not spend its time or memory: a counterfactual run of it costs
# about what the first did (one of a TLE would likely cost the whole limit again).
PROVABLE = _where(lambda row: row.ran and not row.passed and not row.spent)
NAMES = {row.verdict.value: row.name for row in TABLE}
COLOURS = {row.verdict.value: row.colour for row in TABLE}
