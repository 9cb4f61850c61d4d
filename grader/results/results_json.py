"""results.json: every submission's score and per-case verdicts, schema-checked."""

import json
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from grader import __version__
from grader.cases.manifest import Case
from grader.core.atomic import write_file
from grader.course.late import Lateness
from grader.grading.counterexamples import reason_without_search
from grader.intake.submissions import Skipped
from grader.intake.teams import Teams
from grader.judge.score import CaseOutcome, Decision, SubmissionReport
from grader.schemas import validate


def results_document(
    reports: Sequence[SubmissionReport],
    cases: Sequence[Case],
    sandbox: str = "",
    lateness: Mapping[str, Lateness] | None = None,
    course: dict[str, Any] | None = None,
    skipped: Sequence[Skipped] = (),
    teams: Teams | None = None,
) -> dict[str, Any]:
    """The document; `lateness` adds each submission's penalty and final score, `course`
    what of the course configuration the scores depend on (for regrade diffs), `skipped`
    the entries of the class folder not graded (grader.intake.submissions.Skipped), `teams` who
    handed in each submission."""
    document: dict[str, Any] = {
        "generated_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "grader_version": __version__,
        "sandbox": sandbox,
        "cases": [
            {
                "id": c.id,
                "visibility": c.visibility,
                "weight": c.weight,
                "timed": c.timed,
                "policy": list(c.policy),
                "version": c.version,
            }
            for c in cases
        ],
        "submissions": [
            _submission(report, (lateness or {}).get(report.submission.id), teams)
            for report in reports
        ],
        "skipped": [{"name": entry.name, "reason": entry.reason} for entry in skipped],
    }
    if course is not None:
        document["course"] = course
    return document


def _submission(
    report: SubmissionReport, late: Lateness | None, teams: Teams | None
) -> dict[str, object]:
    sub = report.submission
    entry: dict[str, object] = {
        "id": sub.id,
        "language": sub.language,
        "content_hash": sub.content_hash,
        "score": report.settled_score,
        "max_score": report.max_score,
        "complete": report.complete,
        "standing": str(report.standing),
        "unsettled": report.unsettled,
        "policy": {
            "mode": report.policy_cases,
            "lost": report.policy_lost,
            "score": report.policy_score,
            "max_score": report.policy_max,
            "note": report.policy_note,
        },
        "build": {
            "status": report.build_status,
            "log": report.build.log if report.build else (sub.problem or ""),
        },
        "files": {
            "used": list(report.files_used),
            "ignored": [{"name": name, "reason": why} for name, why in report.files_ignored],
            **({"unread": list(report.unread)} if report.unread else {}),
        },
        "cases": [_case(outcome) for outcome in report.outcomes],
        "overrides": [_decision(d) for d in report.decisions],
        "findings": [
            {"kind": f.kind, "text": f.text, "explains": list(f.explains), "shown_by": f.shown_by}
            for f in report.findings
        ],
    }
    if teams is not None:
        entry["team"] = teams.as_json(sub.id)
    if late is not None:
        # Raw score stays in "score"; the penalty and what is left sit beside it.
        settled = report.settled_score
        entry["penalty"] = None if settled is None else late.penalty(settled)
        entry["final_score"] = None if settled is None else late.final(settled)
        entry["late"] = {
            "submitted_at": late.submitted_at,
            "late_marker": late.late_marker,
            "days_late": late.days_late,
            "penalty_percent": late.percent,
            "note": late.note,
            "due_at": late.due_at,
            "due_source": late.due_source or None,
        }
    return entry


def _decision(decision: Decision) -> dict[str, object]:
    o = decision.override
    return {
        "case": o.case_id or None,
        "verdict": o.verdict,
        "points": o.points,
        "reason": o.reason,
        "recorded_at": datetime.fromtimestamp(o.recorded_at, timezone.utc).isoformat(
            timespec="seconds"
        ),
        "judged": o.judged,
        "review": decision.review,
        "waiting": decision.waiting,
        "text": decision.describe(),
    }


def _case(outcome: CaseOutcome) -> dict[str, object]:
    run = outcome.run
    entry: dict[str, object] = {
        "id": outcome.case.id,
        "verdict": outcome.verdict,
        "policy_failure": outcome.policy_failure,
    }
    if outcome.decision is not None:
        entry["judged"] = outcome.judged
    if outcome.proven:
        entry["proven"] = list(outcome.proven)
    if run is not None:
        entry.update(
            cpu_seconds=run.cpu_seconds,
            cpu_accounting=run.cpu_accounting,
            wall_seconds=run.wall_seconds,
            peak_memory_kb=run.peak_memory_kb,
            output_size=run.output_size,
            exit_code=run.exit_code,
            signal=run.signal,
            diagnosis=run.diagnosis,
            kind=run.kind,
        )
    if run is not None and run.verdict != "AC":
        entry.update(_counterexample(outcome))
    return entry


def _counterexample(outcome: CaseOutcome) -> dict[str, object]:
    """A failing case's public puzzle that fails the same way, or null and why."""
    found = outcome.counterexample
    if found is None or not found.found:
        reason = found.reason if found is not None else reason_without_search(outcome.verdict)
        return {"counterexample": None, "counterexample_reason": reason}
    text = {
        key: value.decode("utf-8", "backslashreplace")
        for key, value in (
            ("input", found.input),
            ("expected", found.expected),
            ("output", found.output),
        )
    }
    return {
        "counterexample": {
            "puzzle": found.puzzle_id,
            "source": found.source,
            **text,
            "diagnosis": found.diagnosis,
        }
    }


def write_json(document: dict[str, Any], path: Path, schema: str) -> None:
    """Validate, then write atomically: a reader never sees half a file, and a
    failed write leaves the previous file intact."""
    problem = validate(document, schema)
    if problem:
        raise ValueError(f"internal error: {path.name} does not fit its schema {problem}")
    write_file(Path(path), json.dumps(document, indent=2, ensure_ascii=False) + "\n")
