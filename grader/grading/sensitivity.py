"""Which runs finished close to the CPU limit: their verdict could change with a
slightly slower machine or a slightly lower limit, so the instructor and the
student are told ("sensitive to the time limit")."""

from grader.core.model import Verdict
from grader.judge.score import SubmissionReport

MARGIN = 0.25  # within 25% of the limit
SHARE = f"{1 - MARGIN:.0%}"  # "75%", as the reports say it


def near_limit(cpu_seconds: float | None, verdict: str | None, cpu_limit: float) -> bool:
    """A run that finished (not TLE) using at least 75% of the CPU limit."""
    if cpu_seconds is None or verdict in (None, Verdict.TLE, Verdict.CE, Verdict.IE):
        return False
    return cpu_seconds >= (1 - MARGIN) * cpu_limit


def sensitive_cases(report: SubmissionReport, cpu_limit: float) -> list[str]:
    return [
        o.case.id
        for o in report.outcomes
        if o.run is not None and near_limit(o.run.cpu_seconds, o.verdict, cpu_limit)
    ]


def note(report: SubmissionReport, cpu_limit: float) -> str:
    """E.g. "sensitive to the time limit: 2 cases used over 75% of 10 s CPU"; "" if none."""
    cases = sensitive_cases(report, cpu_limit)
    if not cases:
        return ""
    return (
        f"sensitive to the time limit: {len(cases)} case{'s' if len(cases) != 1 else ''} "
        f"used over {SHARE} of {cpu_limit:g} s CPU"
    )
