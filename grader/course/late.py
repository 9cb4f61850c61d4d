"""The late policy: from a submission's time to a penalty beside its raw score.

A submission after `deadline` + `grace_minutes` loses `per_day_percent` of its
raw score for every started day past the deadline (a minute late counts as one
day), never more than `max_percent` in all. A status a teacher set on the submission
in the LMS decides first, as the LMS itself applies it (Canvas's Submission::
Tardiness: "late" is late by the seconds typed in beside it, any other status and
"excused" are not late), whatever the times say. Else, where the LMS marks lateness
itself (Canvas's LATE), its marker decides whether a submission is late, since it
knows their extensions; the time then only counts the days. Only a due date from the
course's own extensions file (the instructor's later word) lets the time decide
against the marker.
Without a time nothing is charged that cannot be justified: a submission the LMS
marks late is at least one day late when the policy has no grace period (with one,
it may be within it: nothing), any other is charged nothing, and each such
submission is flagged (`unknown_time`) so that a command says so once for all of
them. Days are real elapsed time: a time without an offset is read on the
course's clock (`timezone`, see grader.course.zones), so one instant gets one penalty
however it is written, across a daylight-saving change too. The raw score is never
changed: every report shows raw score, penalty and the final score side by side.

Each student is judged on their own due date where one is known: the course's
extensions file (`[late] extensions`, grader.intake.extensions), else what the LMS said of
them when imported (Canvas's cached_due_date, which holds its overrides and
extensions; Moodle's "Extension granted until" and per-student "Due date"), else the
course's `deadline`. The penalty's days count from that date, and the note names it.
"""

import dataclasses
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from pathlib import Path
from typing import Protocol

from grader.course.submission_meta import SubmissionMeta, read_meta
from grader.course.zones import course_zone, instant, zone_name


@dataclass(frozen=True)
class LatePolicy:
    deadline: datetime | None = None  # None: no late policy
    grace_minutes: float = 0
    per_day_percent: float = 0  # of the raw score, per started day late
    max_percent: float = 100  # the penalty's cap
    timezone: str = ""  # IANA name of the course's clock; "": this machine's zone
    extensions: str = ""  # the course's file of due dates per person (grader.intake.extensions)

    @property
    def enabled(self) -> bool:
        return self.deadline is not None

    @property
    def zone(self) -> tzinfo:
        return course_zone(self.timezone)

    def describe(self) -> dict[str, str | float | None]:
        return {
            "deadline": self.deadline.isoformat() if self.deadline else None,
            "grace_minutes": self.grace_minutes,
            "per_day_percent": self.per_day_percent,
            "max_percent": self.max_percent,
            "timezone": zone_name(self.zone),
        }


@dataclass(frozen=True)
class Due:
    """A student's own due date, and who said so."""

    at: datetime  # naive: the course's clock
    source: str  # "extensions.csv line 3", "Canvas's cached_due_date in times.json"


@dataclass(frozen=True)
class Lateness:
    submitted_at: str | None  # ISO 8601, as imported
    late_marker: bool | None  # the LMS's own flag
    days_late: int  # started days past the due date, 0 when on time or within grace
    percent: float  # penalty in percent of the raw score
    note: str  # one line for people: "2 days late: -20%", "on time", "no submission time"
    unknown_time: bool = False  # the policy needed the submission time and had none
    due_at: str | None = None  # ISO 8601: the student's own due date; None: the course's
    due_source: str = ""  # who set it

    def penalty(self, raw: float) -> float:
        return round(raw * self.percent / 100, 4)

    def final(self, raw: float) -> float:
        return max(0.0, round(raw - self.penalty(raw), 4))


NOT_LATE = Lateness(None, None, 0, 0.0, "")


def assess(policy: LatePolicy, meta: SubmissionMeta | None, due: Due | None = None) -> Lateness:
    """How late a submission is under the policy; no penalty without a policy or a time.
    `due`: the student's own due date from the course's extensions file, which comes
    before any the LMS gave."""
    if meta is not None and meta.lms_status and policy.enabled:
        return _by_status(policy, meta)
    own = due is not None  # the course's extensions file: it may overrule the marker
    if due is None and meta is not None and meta.due is not None:
        due = Due(meta.due, meta.due_source or f"{meta.lms}'s due date for them")
    late = _assess(policy, meta, due.at if due is not None else policy.deadline, own)
    if due is None or not policy.enabled:
        return late
    shown = due.at.isoformat(sep=" ", timespec="minutes")
    return dataclasses.replace(
        late,
        note=f"{late.note} (due {shown}: {due.source})",
        due_at=due.at.isoformat(),
        due_source=due.source,
    )


def _assess(
    policy: LatePolicy, meta: SubmissionMeta | None, deadline: datetime | None, own: bool
) -> Lateness:
    """`own`: the deadline is the course's extensions file's: with a time, it decides,
    whatever the LMS's marker (judged against a date the instructor has since moved)
    says."""
    if meta is None:
        if policy.enabled:  # a folder made by hand: say why it has no penalty
            return Lateness(
                None, None, 0, 0.0, "no submission time (not imported): no penalty", True
            )
        return NOT_LATE
    marker = meta.late_marker
    submitted = meta.submitted
    if not policy.enabled:
        note = "the LMS marks it late (no late policy in course.toml)" if marker else ""
        return Lateness(meta.submitted_at, marker, 0, 0.0, note)
    if marker is False and not (own and submitted is not None):
        # The LMS judged it against the student's own due date (extensions included),
        # which course.toml's one deadline does not know.
        return Lateness(meta.submitted_at, marker, 0, 0.0, "on time (the LMS's own marker)")
    assert deadline is not None, "policy.enabled: it has a deadline"
    if submitted is None:
        return _without_time(policy, meta)
    late_by = _late_by(submitted, deadline, policy.zone)
    if late_by <= timedelta(0):
        if not marker or own:
            return Lateness(meta.submitted_at, marker, 0, 0.0, "on time")
        days, why = 1, " (the LMS marks it late; its time is not past the deadline)"
    elif late_by <= timedelta(minutes=policy.grace_minutes):
        return Lateness(meta.submitted_at, marker, 0, 0.0, "within the grace period")
    else:
        days, why = math.ceil(late_by / timedelta(days=1)), ""
    percent = min(policy.max_percent, days * policy.per_day_percent)
    capped = " (capped)" if percent < days * policy.per_day_percent else ""
    note = f"{days} day{'s' if days != 1 else ''} late: -{percent:g}%{capped}{why}"
    return Lateness(meta.submitted_at, marker, days, float(percent), note)


_STATUS_NAMES = {"none": "None", "late": "Late", "missing": "Missing", "extended": "Extended"}


def _by_status(policy: LatePolicy, meta: SubmissionMeta) -> Lateness:
    """What a status a teacher set in the LMS decides (Canvas's Tardiness: late? is the
    status being "late", and seconds_late the typed-in seconds, 0 when none were)."""
    shown = _STATUS_NAMES.get(meta.lms_status, meta.lms_status.capitalize())
    said = f"{meta.lms.capitalize()}'s status: {shown}"
    if meta.lms_status != "late":
        return Lateness(meta.submitted_at, False, 0, 0.0, f"on time ({said})")
    seconds = meta.lms_seconds_late or 0
    typed = f"{seconds / 86400:g} days typed in" if seconds else "no days typed in"
    late_by = timedelta(seconds=seconds)
    if late_by <= timedelta(minutes=policy.grace_minutes):
        why = "within the grace period" if seconds else "0 seconds late: no penalty"
        return Lateness(meta.submitted_at, True, 0, 0.0, f"{why} ({said}, {typed})")
    days = math.ceil(late_by / timedelta(days=1))
    percent = min(policy.max_percent, days * policy.per_day_percent)
    capped = " (capped)" if percent < days * policy.per_day_percent else ""
    note = f"{days} day{'s' if days != 1 else ''} late: -{percent:g}%{capped} ({said}, {typed})"
    return Lateness(meta.submitted_at, True, days, float(percent), note)


def _without_time(policy: LatePolicy, meta: SubmissionMeta) -> Lateness:
    """What can be charged knowing only the LMS's marker (False was handled before)."""
    if not meta.late_marker:
        return Lateness(None, meta.late_marker, 0, 0.0, "no submission time: no penalty", True)
    if policy.grace_minutes:
        note = (
            "the LMS marks it late, but without a submission time the grace period "
            "cannot be told apart: no penalty"
        )
        return Lateness(None, True, 0, 0.0, note, True)
    percent = min(policy.max_percent, policy.per_day_percent)
    note = (
        f"1 day late: -{percent:g}% (the LMS marks it late; without a submission time, "
        "the fewest days it can be)"
    )
    return Lateness(None, True, 1, float(percent), note, True)


def unknown_times(lateness: dict[str, "Lateness"]) -> list[str]:
    """The submissions the policy had no time for, in id order."""
    return sorted(sid for sid, late in lateness.items() if late.unknown_time)


def _late_by(submitted: datetime, deadline: datetime, zone: tzinfo) -> timedelta:
    return instant(submitted, zone) - instant(deadline, zone)


class Submitted(Protocol):
    """What the late policy reads of a submission (grader.store's SubmissionRow)."""

    @property
    def id(self) -> str: ...
    @property
    def folder(self) -> str | Path: ...


class Reported(Protocol):
    """What the late policy reads of a report (grader.judge.score's SubmissionReport, a layer
    above)."""

    @property
    def submission(self) -> Submitted: ...


def lateness_of(
    reports: Iterable[Reported], policy: LatePolicy, dues: Mapping[str, Due] | None = None
) -> dict[str, Lateness]:
    """Each report's lateness, from the metadata its folder's import left (if any) and
    `dues`, the extensions file's due date of a submission (grader.intake.extensions)."""
    dues = dues or {}
    return {
        r.submission.id: assess(policy, read_meta(r.submission.folder), dues.get(r.submission.id))
        for r in reports
    }


def worth_showing(lateness: dict[str, Lateness], policy: LatePolicy) -> bool:
    """Late columns appear once there is a policy or anything imported with a time."""
    return policy.enabled or any(
        entry.submitted_at or entry.late_marker for entry in lateness.values()
    )
