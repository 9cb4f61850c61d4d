"""What a regrade changes: the previous run's results.json against the new one.

Both documents are what `grade` writes, so a diff needs nothing else: per
student the verdicts that differ case by case, the raw and final scores before
and after, and why the run differs at all (cases added, removed or changed,
limits or the late policy changed in course.toml).
"""

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.course.config import CourseConfig
from grader.judge.score import format_score
from grader.schemas import validate

PREVIOUS_NAME = "results.previous.json"


def course_fingerprint(config: CourseConfig) -> dict[str, Any]:
    """What of course.toml the verdicts and scores depend on (the build and run commands
    are already in each submission's content hash)."""
    limits = repr((config.limits, config.build_limits, config.sandbox)).encode()
    return {
        "limits": hashlib.sha256(limits).hexdigest()[:16],
        "late": config.late.describe(),
        "missing_as_zero": config.lms.missing_as_zero,
    }


def read_results(path: Path) -> dict[str, Any] | None:
    """A results.json, or None when there is none or it is not the grader's."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return document if validate(document, "results") is None else None


# A score as a regrade compares it: None when the submission is not in that run, the
# word UNSETTLED while its score is not established (never a 0).
UNSETTLED = "unsettled"
Score = float | str | None


@dataclass(frozen=True)
class Change:
    id: str
    old_score: Score  # None: not in that run; UNSETTLED: no score established
    new_score: Score
    old_final: Score
    new_final: Score
    cases: tuple[tuple[str, str | None, str | None], ...]  # (case, old, new) that differ

    @property
    def score_changed(self) -> bool:
        return (self.old_score, self.old_final) != (self.new_score, self.new_final)


@dataclass
class Diff:
    reasons: list[str] = field(default_factory=list)
    changes: list[Change] = field(default_factory=list)
    students: int = 0  # in the new run
    # The instructor's decisions whose run changed: "id: decision: why" (each still applies).
    reviews: list[str] = field(default_factory=list)

    @property
    def score_changes(self) -> list[Change]:
        return [c for c in self.changes if c.score_changed]


def diff(old: dict[str, Any], new: dict[str, Any]) -> Diff:
    result = Diff(reasons=_reasons(old, new), students=len(new["submissions"]))
    before = {s["id"]: s for s in old["submissions"]}
    after = {s["id"]: s for s in new["submissions"]}
    for sid in sorted(set(before) | set(after)):
        a, b = before.get(sid), after.get(sid)
        change = Change(sid, _score(a), _score(b), _final(a), _final(b), tuple(_case_changes(a, b)))
        if change.cases or change.score_changed:
            result.changes.append(change)
    result.reviews = [
        f"{entry['id']}: {decision['text']} ({decision['review']})"
        for entry in new["submissions"]
        for decision in entry.get("overrides", [])
        if decision["review"]
    ]
    return result


def _score(entry: dict[str, Any] | None) -> Score:
    if entry is None:
        return None
    return UNSETTLED if entry["score"] is None else float(entry["score"])


def _final(entry: dict[str, Any] | None) -> Score:
    if entry is None:
        return None
    final = entry.get("final_score", entry["score"])
    return UNSETTLED if final is None else float(final)


def _case_changes(
    a: dict[str, Any] | None, b: dict[str, Any] | None
) -> list[tuple[str, str | None, str | None]]:
    va = {c["id"]: c["verdict"] for c in (a or {}).get("cases", [])}
    vb = {c["id"]: c["verdict"] for c in (b or {}).get("cases", [])}
    order = [c["id"] for c in (b or {}).get("cases", [])]
    order += [cid for cid in va if cid not in vb]
    return [(cid, va.get(cid), vb.get(cid)) for cid in order if va.get(cid) != vb.get(cid)]


def _reasons(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    reasons = []
    a = {c["id"]: c for c in old["cases"]}
    b = {c["id"]: c for c in new["cases"]}
    added = [cid for cid in b if cid not in a]
    removed = [cid for cid in a if cid not in b]
    changed = [cid for cid in b if cid in a and a[cid]["version"] != b[cid]["version"]]
    reweighed = [cid for cid in b if cid in a and a[cid]["weight"] != b[cid]["weight"]]
    ruled = [cid for cid in b if cid in a and a[cid]["policy"] != b[cid]["policy"]]
    for what, ids in (
        ("cases added", added),
        ("cases removed", removed),
        ("input or expected output changed", changed),
        ("weight changed", reweighed),
        ("policy rules (symmetric tiles, ties) changed", ruled),
    ):
        if ids:
            reasons.append(f"{what}: {', '.join(ids)}")
    ca, cb = old.get("course"), new.get("course")
    if ca and cb:
        if ca["limits"] != cb["limits"]:
            reasons.append("course.toml: limits or sandbox changed")
        # Without a deadline nothing is late: the other keys (the zone) change nothing.
        if ca["late"] != cb["late"] and (ca["late"].get("deadline") or cb["late"].get("deadline")):
            reasons.append(
                f"course.toml: late policy changed ({_policy(ca['late'])} -> {_policy(cb['late'])})"
            )
    return reasons


def _policy(late: dict[str, Any]) -> str:
    if not late.get("deadline"):
        return "none"
    return (
        f"deadline {late['deadline']}, grace {late['grace_minutes']:g} min, "
        f"-{late['per_day_percent']:g}%/day, cap {late['max_percent']:g}%, "
        f"zone {late.get('timezone') or '?'}"
    )


def render(result: Diff, *, headline: str) -> str:
    lines = [headline]
    lines.extend(f"  why: {reason}" for reason in result.reasons)
    lines.extend(_changes(result))
    if result.reviews:
        lines.append(
            f"{len(result.reviews)} decision(s) of the instructor need review (the run each "
            "was decided on changed; one made on other content [waiting] counts for nothing "
            "until you confirm it: `grader override ID [--case CASE] --confirm`, or --clear "
            "it):"
        )
        lines.extend(f"  {review}" for review in result.reviews)
    return "\n".join(lines)


def _changes(result: Diff) -> list[str]:
    from tabulate import tabulate  # here: it costs every command 20 ms to import

    if not result.changes:
        return ["no student's verdicts or scores change"]
    lines = []
    moved = result.score_changes
    lines.append(
        f"{len(moved)} student(s) change score, {len(result.changes)} change "
        f"verdicts or score (of {result.students}):"
    )
    rows = [
        (
            c.id,
            _arrow(c.old_score, c.new_score),
            _arrow(c.old_final, c.new_final),
            "; ".join(f"{cid} {old or '-'} -> {new or '-'}" for cid, old, new in c.cases),
        )
        for c in result.changes
    ]
    lines.append(tabulate(rows, headers=("id", "raw score", "final score", "verdicts")))
    return lines


def _arrow(old: Score, new: Score) -> str:
    a, b = _shown(old), _shown(new)
    return a if a == b else f"{a} -> {b}"


def _shown(score: Score) -> str:
    if score is None:
        return "absent"
    return score if isinstance(score, str) else format_score(score)
