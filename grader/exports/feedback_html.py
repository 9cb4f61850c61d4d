"""Feedback pages: one self-contained HTML page per submission, and an index.

A page holds the summary (score, verdicts, build), every case with its verdict,
and for each failure the diagnosis and a unified diff of the expected output and
the program's (the stored output of the failing run), with white space made
visible. Instructor pages (the default) show everything; student pages show a
hidden case's verdict and nothing else, not even its name. The index, for the
instructor, links every page and counts how many passed each case.

Everything a program or a student chose (output, error output, build log, ids,
file names) is hostile: it is decoded leniently, control characters and bytes
that are not UTF-8 are shown as escapes, and the pages are rendered from
templates that escape every value (grader/results/html_page.py). As a second line
of defence the pages carry a Content-Security-Policy that allows no script, no
request and no external asset at all: a page is one file. A student's page is
drawn from grader.judge.student_view alone: nothing of a run that could have learned a
hidden input.
"""

import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from grader import __version__
from grader.core.atomic import atomic_folder, write_file
from grader.core.model import NOT_GRADED, VERDICT_ORDER, Verdict
from grader.core.text import cut, printable, shorten
from grader.course.late import Lateness
from grader.exports.common import (
    ExportError,
    language_name,
    verdict_name,
)
from grader.exports.textdiff import LineDiff, line_diff
from grader.grading import sensitivity
from grader.intake.teams import Team, Teams
from grader.judge.score import CaseOutcome, SubmissionReport, format_score, shown_score
from grader.judge.student_view import (
    ShownCase,
    finding_sentence,
    set_apart,
    shown_decisions,
    student_view,
)
from grader.results.html_page import render
from grader.results.last_run import Graded
from grader.results.terminal import counterexample_heading
from grader.store import MAX_STORED_OUTPUT, RunRow, Store

LINE_LIMIT = 300  # characters of one output line shown in a diff
# A page shows the start of a difference, not all of it: a page of a hundred failing
# cases stays one a person (and a screen reader, and an accessibility check) can read.
PAGE_DIFF_ROWS = 80
PAGE_OUTPUT_LINES = 150  # of a counterexample's expected output and the program's
STDERR_LIMIT = 4000
BUILD_LOG_LIMIT = 20000
INDEX = "index.html"


@dataclass(frozen=True)
class Feedback:
    pages: dict[str, Path]  # submission id -> its page
    index: Path | None  # None for student pages


Token = tuple[str, str]  # (kind, text): "" plain, "ws", "eol", "esc", "more"


def tokens(text: str, limit: int = LINE_LIMIT) -> list[Token]:
    """One line of output, its white space made visible: · space, → tab, ↵ end of
    line, and \\r, \\xNN (not UTF-8), \\x00 or \\u202e (other unprintable characters)
    as escapes; the template marks each kind (macros.html: line)."""
    out: list[Token] = []
    body = text[:-1] if text.endswith("\n") else text
    plain: list[str] = []
    for char in body[:limit]:
        kind, shown = _token(char)
        if not kind:
            plain.append(char)
            continue
        if plain:
            out.append(("", "".join(plain)))
            plain = []
        out.append((kind, shown))
    if plain:
        out.append(("", "".join(plain)))
    if len(body) > limit:
        out.append(("more", f" … ({len(body) - limit:,} more characters)"))
    if text.endswith("\n"):
        out.append(("eol", "↵"))
    return out


def _token(char: str) -> Token:
    code = ord(char)
    if char == " ":
        return "ws", "·"
    if char == "\t":
        return "ws", "→"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (surrogateescape)
        return "esc", f"\\x{code - 0xDC00:02x}"
    if char == "\r":
        return "esc", "\\r"
    if not char.isprintable() or unicodedata.category(char) in ("Cf", "Co", "Cs"):
        if code < 0x100:
            return "esc", f"\\x{code:02x}"
        return "esc", f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
    return "", char


_UNSAFE_IN_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]")
MAX_STEM = 80  # characters of an id kept in its page's file name


def page_stem(sid: str) -> str:
    """A file name stem for a submission id: the id itself when it is short and
    plain; otherwise its plain characters, cut, and a digest of the whole id."""
    stem = _UNSAFE_IN_FILE_NAME.sub("_", sid).lstrip(".") or "submission"
    if stem == sid and len(sid) <= MAX_STEM:
        return sid
    digest = hashlib.sha256(sid.encode("utf-8", "surrogateescape")).hexdigest()[:10]
    return f"{stem[:MAX_STEM]}-{digest}"


def page_names(ids: Iterable[str]) -> dict[str, str]:
    """A file name per submission id: `<id>.html` (see page_stem), never index.html,
    never two alike (even on a case-insensitive file system)."""
    used = {INDEX}
    names = {}
    for sid in sorted(ids):
        stem = page_stem(sid)
        name, n = f"{stem}.html", 2
        while name.lower() in used:
            name, n = f"{stem}-{n}.html", n + 1
        used.add(name.lower())
        names[sid] = name
    return names


# ------------------------------------------------------------------ one submission


def render_page(
    result: SubmissionReport,
    store: Store,
    *,
    student: bool,
    generated: str,
    index_link: bool = False,
    cpu_limit: float | None = None,
    late: Lateness | None = None,
    team: Team | None = None,
) -> str:
    """A submission's page: everything for the instructor; for a student only what
    grader.judge.student_view lets them see."""
    sub = result.submission
    context = _summary(result, student, late, team, cpu_limit)
    if student:
        shown = student_view(result)
        rows = [_student_row(case, cpu_limit) for case in shown]
        details = [_student_details(case, result, store) for case in shown if _explained(case)]
    else:
        rows = [_row(outcome, cpu_limit) for outcome in result.outcomes]
        apart = set_apart(result)
        details = [
            _details(outcome, result, store, apart.get(outcome.case.id, ()))
            for outcome in result.outcomes
            if outcome.verdict not in (Verdict.AC, Verdict.CE)
        ]
    return render(
        "feedback.html",
        title=f"Feedback: {sub.id}",
        index_link=index_link,
        rows=rows,
        details=details,
        hidden_note=student and any(not o.case.public for o in result.outcomes),
        generated=generated,
        version=__version__,
        **context,
    )


def _summary(
    result: SubmissionReport,
    student: bool,
    late: Lateness | None,
    team: Team | None,
    cpu_limit: float | None,
) -> dict[str, object]:
    sub = result.submission
    meta = [("language", language_name(sub.language), False)]
    if not student:
        meta += [("folder", printable(sub.folder), True), ("content", sub.content_hash[:16], True)]
    build_log = ""
    if not sub.problem and result.build is not None and not result.build.ok:
        build_log = cut(printable(result.build.log).rstrip(), BUILD_LOG_LIMIT)
        build_log = build_log or "(the compiler said nothing)"
    sensitive = sensitivity.note(result, cpu_limit) if cpu_limit is not None else ""
    return {
        "sub_id": printable(sub.id),
        "meta": meta,
        "score": format_score(result.score),
        "max_score": format_score(result.max_score),
        "unsettled": _unsettled(result, student),
        "unread": [printable(why) for why in result.unread],
        "findings": [printable(finding_sentence(f)) for f in result.findings],
        "policy_note": result.policy_note,
        "counts": [
            (v, result.verdict_counts[v]) for v in VERDICT_ORDER if result.verdict_counts.get(v)
        ],
        "build_line": _build_line(result),
        "team_line": _team_line(team)
        if team is not None and (len(team.members) > 1 or not team.counts)
        else "",
        "late": _late(result, late)
        if late is not None and (late.submitted_at or late.note) and result.settled
        else None,
        "sensitive": sensitive,
        "problem": printable(sub.problem) if sub.problem else "",
        "build_log": build_log,
        "decisions": _decisions(result, student),
    }


def _unsettled(result: SubmissionReport, student: bool) -> str:
    """Why the page shows no score ("" when it has one): an unknown score is no 0."""
    if result.settled:
        return ""
    if student:
        return (
            "not every case has its final verdict yet (the grader itself failed on one, or "
            "it was not graded completely): your instructor will grade it again"
        )
    return result.unsettled


def _team_line(team: Team) -> str:
    """Whose result this is: every member of the team gets it (or a newer one's)."""
    names = ", ".join(m.name or m.id for m in team.members) or "members not known"
    text = f"Team {team.name}: {names}."
    if team.replaced_by:
        text += (
            f" The team handed in again: its newer submission, {team.replaced_by}, is the "
            "one that counts."
        )
    elif team.undecided:
        text += (
            " The team handed in twice and nothing tells which is newer: neither counts "
            "until your instructor decides."
        )
    return printable(text)


def _late(result: SubmissionReport, late: Lateness) -> dict[str, object]:
    """Raw score and penalty side by side: the score above is the raw one."""
    return {
        "when": f"Submitted {late.submitted_at}. " if late.submitted_at else "",
        "note": f"{late.note}." if late.note else "",
        "raw": format_score(result.score),
        "penalty": format_score(late.penalty(result.score)),
        "final": format_score(late.final(result.score)),
    }


def _decisions(result: SubmissionReport, student: bool) -> list[dict[str, object]]:
    """The instructor's decisions (overrides), each with its reason; a student sees
    only those that count, a hidden case's by no name (grader.judge.student_view)."""
    if student:
        return [{"text": printable(text), "review": ""} for text in shown_decisions(result)]
    return [
        {
            "text": printable(decision.describe()),
            "review": f"needs review: {decision.review}" if decision.needs_review else "",
        }
        for decision in result.decisions
    ]


def _row(outcome: CaseOutcome, cpu_limit: float | None) -> dict[str, object]:
    """The instructor's row of a case: everything."""
    case, verdict = outcome.case, outcome.verdict or NOT_GRADED
    tags = [] if case.public else ["hidden"]
    if outcome.decision is not None:
        tags.append(f"the instructor's decision; judged {outcome.judged or NOT_GRADED}")
    explained = verdict not in (Verdict.AC, Verdict.CE, NOT_GRADED)
    return _figures(
        {
            "name": case.id,
            "link": f"case-{case.id}" if explained else "",
            "tags": tags,
            "verdict": verdict,
            "weight": format_score(case.weight),
        },
        outcome.run,
        verdict,
        cpu_limit,
    )


def _student_row(case: ShownCase, cpu_limit: float | None) -> dict[str, object]:
    """A student's row of a case: a hidden one by its number, with its verdict only."""
    verdict = case.verdict or NOT_GRADED
    tags = ["the instructor's decision"] if case.decided else []
    row: dict[str, object] = {
        "name": case.label,
        "link": case.anchor if _explained(case) else "",
        "tags": tags,
        "verdict": verdict,
        "weight": format_score(case.weight) if case.public else "",
    }
    return _figures(row, case.run, verdict, cpu_limit)


def _figures(
    row: dict[str, object], run: RunRow | None, verdict: str, cpu_limit: float | None
) -> dict[str, object]:
    row.update(cpu="", memory="", near="")
    if run is None or run.cpu_seconds is None:
        return row
    row["cpu"] = f"{run.cpu_seconds:.3f} s"
    row["memory"] = f"{(run.peak_memory_kb or 0) / 1024:.0f} MB"
    if cpu_limit is not None and sensitivity.near_limit(run.cpu_seconds, verdict, cpu_limit):
        row["near"] = (
            f"sensitive to the time limit: over {sensitivity.SHARE} of {cpu_limit:g} s CPU"
        )
    return row


def _explained(case: ShownCase) -> bool:
    """A failure a student's page explains case by case (a build failure is explained
    once)."""
    return case.verdict not in (None, Verdict.AC, Verdict.CE)


def _details(
    outcome: CaseOutcome, result: SubmissionReport, store: Store, apart: Sequence[str] = ()
) -> dict[str, object]:
    """The instructor's section on a failing case: everything its run left."""
    case, run = outcome.case, outcome.run
    verdict = outcome.verdict or NOT_GRADED
    section = _section(f"case-{case.id}", case.id, verdict, not case.public)
    section["apart"] = list(apart)
    _run_details(section, outcome, run, result, store)
    if verdict not in (Verdict.CE, NOT_GRADED):
        section["counterexample"] = _counterexample(outcome)
    return section


def _student_details(case: ShownCase, result: SubmissionReport, store: Store) -> dict[str, object]:
    """A student's section on a failing case: a hidden one shows only its verdict and a
    public puzzle that failed the same way; a public one its run, where they may see it."""
    verdict = case.verdict or NOT_GRADED
    section = _section(case.anchor, case.label, verdict, False)
    section["withheld"] = case.withheld
    section["apart"] = list(case.apart)
    if case.run is not None:
        _run_details(section, case.outcome, case.run, result, store)
    section["counterexample"] = _counterexample(case.outcome)
    return section


def _section(anchor: str, title: str, verdict: str, hidden_tag: bool) -> dict[str, object]:
    return {
        "anchor": anchor,
        "title": title,
        "verdict": verdict,
        "verdict_name": verdict_name(verdict if verdict != NOT_GRADED else None),
        "hidden_tag": hidden_tag,
        "withheld": "",
        "apart": [],
        "diagnosis": "",
        "diff": None,
        "stderr": "",
        "counterexample": None,
    }


def _run_details(
    section: dict[str, object],
    outcome: CaseOutcome,
    run: RunRow | None,
    result: SubmissionReport,
    store: Store,
) -> None:
    if run is None:
        return
    section["diagnosis"] = printable(run.diagnosis).rstrip()
    if (outcome.verdict or NOT_GRADED) not in (Verdict.CE, Verdict.IE):
        section["diff"] = _output_diff(outcome, run, result, store)
    if run.stderr.strip():
        section["stderr"] = cut(printable(run.stderr).rstrip(), STDERR_LIMIT)


def _counterexample(outcome: CaseOutcome) -> dict[str, object]:
    """A failing case's public puzzle that fails the same way: its input, the diagnosis
    of the run on it, the expected output against the program's; or why there is none."""
    found = outcome.counterexample
    example: dict[str, object] = {"heading": counterexample_heading(outcome), "found": False}
    if found is None or not found.found:
        return example
    if found.source == "search":  # run after the hidden cases: what it printed is not shown
        example.update(
            found=True,
            input=printable(found.input).rstrip(),
            diagnosis="",
            rows=[],
            expected=_head(printable(found.expected).rstrip("\n")),
            output="(not shown: run it yourself)",
        )
        return example
    diff = line_diff(found.expected, found.output, max_rows=PAGE_DIFF_ROWS)
    example.update(
        found=True,
        input=printable(found.input).rstrip(),
        diagnosis=printable(found.diagnosis).rstrip(),
        rows=_diff_rows(diff),
        expected=_head(printable(found.expected).rstrip("\n")),
        output=_head(printable(found.output).rstrip("\n")) or "(nothing)",
    )
    return example


def _head(text: str, lines: int = PAGE_OUTPUT_LINES) -> str:
    """The first `lines` lines of a text, and how many more there are."""
    kept = text.split("\n", lines)
    if len(kept) <= lines:
        return text
    more = kept[lines].count("\n") + 1
    return "\n".join(kept[:lines]) + f"\n… ({more:,} more lines: run the puzzle yourself)"


def _output_diff(
    outcome: CaseOutcome, run: RunRow, result: SubmissionReport, store: Store
) -> dict[str, object]:
    case, sub = outcome.case, result.submission
    try:
        expected = case.expected.read_bytes()
    except OSError as error:
        return {
            "summary": "expected output",
            "rows": [],
            "notes": [f"(the expected output cannot be read: {error.strerror})"],
        }
    got = store.output(sub.id, sub.content_hash, case.id, case.version) or b""
    notes = []
    if not got:
        notes.append("Your program printed nothing.")
    elif run.output_size and run.output_size > len(got):
        notes.append(
            f"Your program printed {run.output_size:,} bytes; the first "
            f"{len(got):,} are compared here (at most {MAX_STORED_OUTPUT:,} are kept)."
        )
    diff = line_diff(expected, got, max_rows=PAGE_DIFF_ROWS)
    if not diff.rows:
        notes.append("The kept part of your output equals the expected output.")
    if diff.cut:
        notes.append("The diff is cut short; the first difference is shown above.")
    size = run.output_size if run.output_size is not None else len(got)
    return {
        "summary": f"expected output ({len(expected):,} bytes) vs yours ({size:,} bytes)",
        "rows": _diff_rows(diff),
        "notes": notes,
    }


_ROW_KINDS = {"same": ("same", ""), "expected": ("exp", "expected"), "got": ("got", "yours")}


def _diff_rows(diff: LineDiff) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for row in diff.rows:
        if row.kind == "hunk":
            rows.append({"kind": "hunk", "text": row.text})
            continue
        css, where = _ROW_KINDS[row.kind]
        rows.append(
            {
                "kind": row.kind,
                "css": css,
                "where": where,
                "left": "" if row.expected_line is None else row.expected_line,
                "right": "" if row.got_line is None else row.got_line,
                "tokens": tokens(row.text),
            }
        )
    return rows


def _build_line(result: SubmissionReport, width: int = 200) -> str:
    return printable(shorten(result.build_status, width))


# ------------------------------------------------------------------ the index


def render_index(reports: Sequence[SubmissionReport], names: dict[str, str], generated: str) -> str:
    submissions = [
        {
            "href": quote(names[r.submission.id]),
            "id": printable(r.submission.id),
            "language": language_name(r.submission.language),
            "score": shown_score(r).replace("/", " / "),
            "policy_note": r.policy_note,
            "counts": [(v, r.verdict_counts[v]) for v in VERDICT_ORDER if r.verdict_counts.get(v)],
            "build": _build_line(r, 80),
        }
        for r in reports
    ]
    cases = []
    if reports:
        for i, outcome in enumerate(reports[0].outcomes):
            passed = sum(r.outcomes[i].verdict == Verdict.AC for r in reports)
            cases.append(
                {"id": outcome.case.id, "hidden": not outcome.case.public, "passed": passed}
            )
    return render(
        "feedback_index.html",
        title="Feedback pages",
        submissions=submissions,
        cases=cases,
        total=len(reports),
        generated=generated,
        version=__version__,
    )


# ------------------------------------------------------------------ writing


def write_feedback(
    results: Graded,
    out: Path,
    *,
    student: bool = False,
    cpu_limit: float | None = None,
    lateness: Mapping[str, Lateness] | None = None,
    teams: Teams | None = None,
    written: Callable[[str], None] = lambda submission_id: None,
) -> Feedback:
    """A page per submission in `out` and, for instructors, index.html linking them:
    made in a new folder that then takes the place of `out` whole (a reader, or an
    export killed midway, never leaves new pages beside an old index). `written` is
    told of each page as it is written."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: not a folder (feedback pages go in a folder)")
    with atomic_folder(out) as folder:
        made = _write_pages(results, folder, student, cpu_limit, lateness, teams, written)
    return Feedback(
        {sid: out / path.name for sid, path in made.pages.items()},
        None if made.index is None else out / made.index.name,
    )


def _write_pages(
    results: Graded,
    out: Path,
    student: bool,
    cpu_limit: float | None,
    lateness: Mapping[str, Lateness] | None,
    teams: Teams | None,
    written: Callable[[str], None],
) -> Feedback:
    generated = datetime.now(timezone.utc).isoformat(timespec="seconds")
    names = page_names(r.submission.id for r in results.reports)
    pages = {}
    for result in results.reports:
        path = out / names[result.submission.id]
        write_file(
            path,
            render_page(
                result,
                results.store,
                student=student,
                generated=generated,
                index_link=not student,
                cpu_limit=cpu_limit,
                late=(lateness or {}).get(result.submission.id),
                team=teams.of(result.submission.id) if teams is not None else None,
            ),
        )
        pages[result.submission.id] = path
        written(result.submission.id)
    index = None
    if not student:
        index = out / INDEX
        write_file(index, render_index(results.reports, names, generated))
    return Feedback(pages, index)
