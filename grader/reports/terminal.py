"""What `grade`, `check` and `show` print."""

from typing import Sequence

from tabulate import tabulate

from grader.score import SubmissionReport, format_score

VERDICT_ORDER = ("AC", "WA", "PE", "TLE", "MLE", "OLE", "RTE", "CE", "IE", "-")


def verdict_summary(report: SubmissionReport) -> str:
    counts = report.verdict_counts
    return " ".join(f"{v}:{counts[v]}" for v in VERDICT_ORDER if counts.get(v))


def summary_table(reports: Sequence[SubmissionReport]) -> str:
    rows = [
        (r.submission.id, r.submission.language,
         f"{format_score(r.score)}/{format_score(r.max_score)}",
         verdict_summary(r), _cut(r.build_status, 60))
        for r in reports
    ]
    headers = ("id", "language", "score", "verdicts", "build")
    if any(r.policy_note for r in reports):  # shown apart only when there is something
        rows = [row[:3] + (r.policy_note,) + row[3:] for row, r in zip(rows, reports)]
        headers = headers[:3] + ("policy-dependent",) + headers[3:]
    return tabulate(rows, headers=headers)


def case_report(report: SubmissionReport, *, instructor: bool) -> str:
    """Every case with its verdict, time and diagnosis; students see public cases only."""
    lines = []
    for outcome in report.outcomes:
        case, run = outcome.case, outcome.run
        if not instructor and not case.public:
            continue
        label = case.id + ("" if case.public else " (hidden)")
        if outcome.policy_failure:
            label += {"forgive": " (policy-dependent: forgiven)",
                      "apart": " (policy-dependent: scored apart)"}.get(
                report.policy_cases, " (policy-dependent)")
        elif outcome.policy_dependent and report.policy_cases == "apart":
            label += " (policy-dependent: scored apart)"
        verdict = outcome.verdict or "not graded"
        timing = ""
        if run is not None and run.cpu_seconds is not None:
            timing = (f"  {run.cpu_seconds:.3f} s CPU  {run.wall_seconds:.3f} s wall"
                      f"  {(run.peak_memory_kb or 0) / 1024:.0f} MB")
        lines.append(f"{verdict:<4} {label}{timing}")
        if run is not None and run.diagnosis and verdict not in ("AC", "CE"):
            lines.extend("       " + line for line in run.diagnosis.splitlines())
    return "\n".join(lines)


def build_report(report: SubmissionReport) -> str:
    status = report.build_status
    log = report.build.log.strip() if report.build else ""
    files = files_report(report)
    if status == "ok" or not log:
        return files + f"build: {status}"
    indented = "\n".join("  " + line for line in log.splitlines())
    return files + f"build: {status.split(':')[0]}\n" + indented


def files_report(report: SubmissionReport) -> str:
    """Which files the build got and which were ignored, with why ("" if unknown)."""
    lines = []
    if report.files_used:
        lines.append("files used: " + ", ".join(report.files_used))
    if report.files_ignored:
        lines.append("files ignored:")
        lines += [f"  {name} ({why})" for name, why in report.files_ignored]
    return "".join(line + "\n" for line in lines)


def score_line(report: SubmissionReport, what: str) -> str:
    note = f"; {report.policy_note}" if report.policy_note else ""
    return (f"score{what}: {format_score(report.score)}/{format_score(report.max_score)}"
            f"  ({verdict_summary(report)}{note})")


def _cut(text: str, width: int) -> str:
    text = text.splitlines()[0] if text else ""
    return text if len(text) <= width else text[: width - 1] + "…"
