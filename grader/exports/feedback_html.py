"""Feedback pages: one self-contained HTML page per submission, and an index.

A page holds the summary (score, verdicts, build), every case with its verdict,
and for each failure the diagnosis and a unified diff of the expected output and
the program's (the stored output of the failing run), with white space made
visible. Instructor pages (the default) show everything; student pages show a
hidden case's verdict and nothing else, not even its name. The index, for the
instructor, links every page and counts how many passed each case.

Everything a program or a student chose (output, error output, build log, ids,
file names) is hostile: it is decoded leniently, control characters and bytes
that are not UTF-8 are shown as escapes, and all of it goes through html.escape.
As a second line of defence the pages carry a Content-Security-Policy that
allows no script, no request and no external asset at all: a page is one file.
"""

import hashlib
import html
import re
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from grader import __version__, sensitivity
from grader.atomic import write_file
from grader.exports.common import (
    ExportError,
    language_name,
    verdict_name,
)
from grader.exports.textdiff import LineDiff, Row, line_diff
from grader.last_run import Graded
from grader.late import Lateness
from grader.model import NOT_GRADED, VERDICT_ORDER, Verdict
from grader.reports.html_page import page
from grader.reports.terminal import counterexample_heading
from grader.score import CaseOutcome, SubmissionReport, format_score
from grader.store import MAX_STORED_OUTPUT, Store
from grader.teams import Team, Teams
from grader.text import cut, printable, shorten

LINE_LIMIT = 300  # characters of one output line shown in a diff
STDERR_LIMIT = 4000
BUILD_LOG_LIMIT = 20000
INDEX = "index.html"

STYLE = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0 auto; padding: 24px; max-width: 1100px; }
h1 { font-size: 24px; margin: 0 0 4px; } h2 { font-size: 19px; margin: 28px 0 8px;
     border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 16px; margin: 0 0 6px; }
h4 { font-size: 15px; margin: 12px 0 4px; }
.counterexample { border-top: 1px dashed var(--line); margin-top: 10px; }
h1 code { font-size: inherit; }
code, pre, .code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
                   font-size: 13px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 10px;
      overflow-x: auto; white-space: pre-wrap; word-break: break-all; margin: 6px 0; }
.meta { color: var(--muted); margin: 0; }
.score { font-size: 30px; font-weight: 600; margin: 12px 0 4px; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line);
         vertical-align: top; }
th { background: var(--soft); font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; min-width: 38px; text-align: center; border-radius: 10px;
         padding: 0 8px; font-weight: 600; font-size: 13px; color: #fff; background: #6e7781; }
.v-AC { background: #1a7f37; } .v-WA { background: #cf222e; } .v-PE { background: #9a6700; }
.v-TLE, .v-MLE, .v-OLE { background: #8250df; } .v-RTE { background: #bc4c00; }
.v-CE { background: #57606a; } .v-IE { background: #0969da; }
.counts .badge { margin-right: 6px; }
.case { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; margin: 14px 0; }
.case p { margin: 4px 0; }
.hidden-tag { color: var(--muted); font-size: 13px; }
table.diff { border: 1px solid var(--line); margin: 8px 0; table-layout: fixed; }
table.diff td { border: 0; padding: 0 6px; font-family: ui-monospace, SFMono-Regular, Menlo,
                Consolas, monospace; font-size: 13px; white-space: pre-wrap;
                word-break: break-all; }
table.diff col.ln { width: 56px; } table.diff col.sign { width: 22px; }
table.diff td.ln { color: var(--muted); text-align: right; user-select: none; }
tr.hunk td { background: #ddf4ff; color: #0550ae; padding: 2px 6px; }
tr.exp td { background: #ffebe9; } tr.got td { background: #dafbe1; }
tr.exp td.code { background: #ffd7d5; } tr.got td.code { background: #aceebb; }
.ws { color: #8c959f; } .esc { color: #fff; background: #cf222e; border-radius: 3px;
      padding: 0 2px; } .eol { color: #afb8c1; }
.legend { color: var(--muted); font-size: 13px; }
.note { color: var(--muted); font-style: italic; }
.sensitive { background: #fff8c5; border: 1px solid #d4a72c; border-radius: 6px;
             padding: 6px 10px; }
.near { color: #9a6700; font-weight: 600; }
footer { margin-top: 32px; color: var(--muted); font-size: 13px; }
a { color: #0969da; }
"""


@dataclass(frozen=True)
class Feedback:
    pages: dict[str, Path]  # submission id -> its page
    index: Path | None  # None for student pages


def e(text) -> str:
    """Escape for HTML text and attribute values alike."""
    return html.escape(str(text), quote=True)


def visible(text: str, limit: int = LINE_LIMIT) -> str:
    """One line of output as HTML with its white space visible: · space, → tab,
    ↵ end of line, and \\r, \\xNN (not UTF-8), \\x00 or \\u202e (other unprintable
    characters) marked as escapes."""
    out = []
    body = text[:-1] if text.endswith("\n") else text
    for char in body[:limit]:
        code = ord(char)
        if char == " ":
            out.append('<span class="ws">·</span>')
        elif char == "\t":
            out.append('<span class="ws">→</span>')
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that is not UTF-8 (surrogateescape)
            out.append(f'<span class="esc">\\x{code - 0xDC00:02x}</span>')
        elif char == "\r":
            out.append('<span class="esc">\\r</span>')
        elif not char.isprintable() or unicodedata.category(char) in ("Cf", "Co", "Cs"):
            shown = (
                f"\\x{code:02x}"
                if code < 0x100
                else f"\\u{code:04x}"
                if code < 0x10000
                else f"\\U{code:08x}"
            )
            out.append(f'<span class="esc">{shown}</span>')
        else:
            out.append(e(char))
    if len(body) > limit:
        out.append(f'<span class="note"> … ({len(body) - limit:,} more characters)</span>')
    if text.endswith("\n"):
        out.append('<span class="eol">↵</span>')
    return "".join(out)


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
    sub = result.submission
    title = f"Feedback: {sub.id}"
    parts = [_header(result, student, generated, index_link)]
    if team is not None and (len(team.members) > 1 or team.replaced_by):
        parts.append(_team_line(team))
    if late is not None and (late.submitted_at or late.note):
        parts.append(_late_line(result, late))
    sensitive = sensitivity.note(result, cpu_limit) if cpu_limit is not None else ""
    if sensitive:
        parts.append(
            f'<p class="sensitive">{e(sensitive)}: a '
            "slightly slower machine or a lower limit could change these verdicts "
            '(marked "near the limit" below).</p>'
        )
    parts.append(_build_section(result))
    parts.append(_decisions(result, student))
    parts.append(_case_table(result, student, cpu_limit))
    details = [
        _case_details(outcome, result, store)
        for outcome in result.outcomes
        if _has_details(outcome, student)
    ]
    if student:  # a hidden case: only a public puzzle that fails like it
        hidden = [o for o in result.outcomes if not o.case.public]
        details += [
            _hidden_details(number, outcome)
            for number, outcome in enumerate(hidden, 1)
            if outcome.verdict not in (None, Verdict.AC, Verdict.CE)
        ]
    if details:
        parts.append("<h2>What went wrong</h2>")
        parts.append(_LEGEND)
        parts.extend(details)
    if student and any(not o.case.public for o in result.outcomes):
        parts.append(
            '<p class="note">Hidden cases show only their verdict, and a public puzzle '
            "that your program fails the same way when there is one.</p>"
        )
    parts.append(_footer(generated))
    return _document(title, "\n".join(part for part in parts if part))


def _has_details(outcome: CaseOutcome, student: bool) -> bool:
    """A failure the page explains case by case (a build failure is explained once)."""
    return outcome.verdict not in (Verdict.AC, Verdict.CE) and (outcome.case.public or not student)


_LEGEND = (
    '<p class="legend">In outputs: <span class="ws">·</span> a space, '
    '<span class="ws">→</span> a tab, <span class="eol">↵</span> the end of a line, '
    '<span class="esc">\\r</span> a carriage return, <span class="esc">\\xNN</span> '
    "a byte that is not UTF-8 or another unprintable character. In diffs: "
    "<b>−</b> a line only in the expected output, <b>+</b> a line only in yours.</p>"
)


def _header(result: SubmissionReport, student: bool, generated: str, index_link: bool) -> str:
    sub = result.submission
    back = f'<p class="meta"><a href="{INDEX}">← all submissions</a></p>' if index_link else ""
    meta = [f"language {e(language_name(sub.language))}"]
    if not student:
        meta += [
            f"folder <code>{e(printable(sub.folder))}</code>",
            f"content <code>{e(sub.content_hash[:16])}</code>",
        ]
    return (
        f"{back}<header><h1>Feedback for <code>{e(printable(sub.id))}</code></h1>"
        f'<p class="meta">{" · ".join(meta)}</p></header>'
        f'<p class="score">{format_score(result.score)} / {format_score(result.max_score)}'
        f'</p>{_policy_line(result)}<p class="counts">{_badges(result)}</p>'
        f"<p>Build: {e(_build_line(result))}</p>"
    )


def _team_line(team: Team) -> str:
    """Whose result this is: every member of the team gets it (or a newer one's)."""
    names = ", ".join(m.name or m.id for m in team.members) or "members not known"
    text = f"Team {team.name}: {names}."
    if team.replaced_by:
        text += (
            f" The team handed in again: its newer submission, {team.replaced_by}, is the "
            "one that counts."
        )
    return f'<p class="team">{e(printable(text))}</p>'


def _late_line(result: SubmissionReport, late: Lateness) -> str:
    """Raw score and penalty side by side: the score above is the raw one."""
    when = f"Submitted {e(late.submitted_at)}. " if late.submitted_at else ""
    return (
        f'<p class="late">{when}{e(late.note)}{"." if late.note else ""} '
        f"Raw score {format_score(result.score)}, late penalty "
        f"−{format_score(late.penalty(result.score))}, final score "
        f"<b>{format_score(late.final(result.score))}</b> / "
        f"{format_score(result.max_score)}.</p>"
    )


def _decisions(result: SubmissionReport, student: bool) -> str:
    """The instructor's decisions (overrides), each with its reason: they count in the
    score above. A student sees no hidden case's name in them."""
    hidden = {o.case.id for o in result.outcomes if not o.case.public}
    items = []
    for decision in result.decisions:
        o = decision.override
        if student and o.case_id in hidden:
            text = f"a hidden case: decided by the instructor: {o.reason}"
        else:
            text = decision.describe()
        review = (
            f' <span class="note">(needs review: {e(decision.review)})</span>'
            if decision.needs_review and not student
            else ""
        )
        items.append(f"<li>{e(printable(text))}{review}</li>")
    if not items:
        return ""
    return '<h2>Decided by the instructor</h2><ul class="decisions">' + "".join(items) + "</ul>"


def _policy_line(result: SubmissionReport) -> str:
    """The policy-dependent cases, apart from the score (nothing when nothing to say)."""
    if not result.policy_note:
        return ""
    return f'<p class="meta policy">{e(result.policy_note)}</p>'


def _badges(result: SubmissionReport) -> str:
    counts = result.verdict_counts
    return "".join(
        f'<span class="badge v-{e(v)}">{e(v)} {counts[v]}</span>'
        for v in VERDICT_ORDER
        if counts.get(v)
    )


def _build_line(result: SubmissionReport, width: int = 200) -> str:
    return printable(shorten(result.build_status, width))


def _build_section(result: SubmissionReport) -> str:
    sub = result.submission
    if sub.problem:
        return f"<h2>Not graded</h2><pre>{e(printable(sub.problem))}</pre>"
    if result.build is None or result.build.ok:
        return ""
    log = cut(printable(result.build.log).rstrip(), BUILD_LOG_LIMIT)
    log = log or "(the compiler said nothing)"
    return f"<h2>Build failed</h2><pre>{e(log)}</pre>"


def _case_table(result: SubmissionReport, student: bool, cpu_limit: float | None = None) -> str:
    rows = []
    hidden_number = 0
    for outcome in result.outcomes:
        case, run, verdict = outcome.case, outcome.run, outcome.verdict or NOT_GRADED
        badge = f'<span class="badge v-{e(verdict)}">{e(verdict)}</span>'
        if student and not case.public:
            hidden_number += 1
            decided = " (the instructor's decision)" if outcome.decision is not None else ""
            name = f"hidden case {hidden_number}{e(decided)}"
            if verdict not in (NOT_GRADED, Verdict.AC, Verdict.CE):  # explained below
                name = f'<a href="#hidden-{hidden_number}">{name}</a>'
            rows.append(f"<tr><td>{name}</td><td>{badge}</td><td></td><td></td><td></td></tr>")
            continue
        name = e(case.id)
        if _has_details(outcome, student):
            name = f'<a href="#case-{e(case.id)}">{name}</a>'
        tag = "" if case.public else ' <span class="hidden-tag">(hidden)</span>'
        if outcome.decision is not None:
            tag += (
                ' <span class="hidden-tag">(the instructor\'s decision; judged '
                f"{e(outcome.judged or NOT_GRADED)})</span>"
            )
        cpu = memory = ""
        if run is not None and run.cpu_seconds is not None:
            cpu = f"{run.cpu_seconds:.3f} s"
            memory = f"{(run.peak_memory_kb or 0) / 1024:.0f} MB"
            if cpu_limit is not None and sensitivity.near_limit(
                run.cpu_seconds, verdict, cpu_limit
            ):
                cpu = (
                    '<span class="near" title="sensitive to the time limit: over '
                    f'{sensitivity.SHARE} of {cpu_limit:g} s CPU">{cpu} near the limit</span>'
                )
        rows.append(
            f'<tr><td>{name}{tag}</td><td>{badge}</td><td class="num">{cpu}</td>'
            f'<td class="num">{memory}</td>'
            f'<td class="num">{format_score(case.weight)}</td></tr>'
        )
    return (
        "<h2>Cases</h2><table><thead><tr><th>case</th><th>verdict</th>"
        '<th class="num">CPU</th><th class="num">memory</th><th class="num">weight</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _case_details(outcome: CaseOutcome, result: SubmissionReport, store: Store) -> str:
    case, run = outcome.case, outcome.run
    verdict = outcome.verdict or NOT_GRADED
    parts = [
        f'<section class="case" id="case-{e(case.id)}">',
        f'<h3><span class="badge v-{e(verdict)}">{e(verdict)}</span> {e(case.id)}'
        + ("" if case.public else ' <span class="hidden-tag">(hidden)</span>')
        + "</h3>",
        f"<p>{e(verdict_name(outcome.verdict))}</p>",
    ]
    if run is not None and run.diagnosis:
        parts.append(f"<pre>{e(printable(run.diagnosis).rstrip())}</pre>")
    if run is not None and verdict not in (Verdict.CE, Verdict.IE):
        parts.append(_output_diff(outcome, result, store))
    if run is not None and run.stderr.strip():
        stderr = cut(printable(run.stderr).rstrip(), STDERR_LIMIT)
        parts.append(
            f"<details><summary>error output (stderr)</summary><pre>{e(stderr)}</pre></details>"
        )
    if verdict not in (Verdict.CE, NOT_GRADED):
        parts.append(_counterexample(outcome))
    parts.append("</section>")
    return "\n".join(parts)


def _hidden_details(number: int, outcome: CaseOutcome) -> str:
    """A student's page: a hidden case failed; what it was stays hidden, a public puzzle
    that fails the same way is shown."""
    verdict = outcome.verdict or NOT_GRADED
    return (
        f'<section class="case" id="hidden-{number}"><h3><span class="badge v-{e(verdict)}">'
        f"{e(verdict)}</span> hidden case {number}</h3><p>{e(verdict_name(verdict))}</p>"
        f"{_counterexample(outcome)}</section>"
    )


def _counterexample(outcome: CaseOutcome) -> str:
    """A failing case's public puzzle that fails the same way: its input, the diagnosis
    of the run on it, the expected output against the program's; or why there is none."""
    heading = f"<h4>{e(counterexample_heading(outcome))}</h4>"
    found = outcome.counterexample
    if found is None or not found.found:
        return f'<div class="counterexample">{heading}</div>'
    diff = line_diff(found.expected, found.output)
    table = _diff_table(diff) if diff.rows else ""
    expected = e(printable(found.expected).rstrip("\n"))
    output = e(printable(found.output).rstrip("\n")) or "(nothing)"
    return (
        f'<div class="counterexample">{heading}'
        f"<p>Its input:</p><pre>{e(printable(found.input).rstrip())}</pre>"
        f"<p>What went wrong on it:</p><pre>{e(printable(found.diagnosis).rstrip())}</pre>"
        f"<details open><summary>expected output vs the program's</summary>{table}</details>"
        f"<details><summary>expected output</summary><pre>{expected}</pre></details>"
        f"<details><summary>the program's output</summary><pre>{output}</pre></details>"
        "</div>"
    )


def _output_diff(outcome: CaseOutcome, result: SubmissionReport, store: Store) -> str:
    case, run, sub = outcome.case, outcome.run, result.submission
    assert run is not None, "called only for a case that ran"
    try:
        expected = case.expected.read_bytes()
    except OSError as error:
        return f'<p class="note">(the expected output cannot be read: {e(error.strerror)})</p>'
    got = store.output(sub.id, sub.content_hash, case.id, case.version) or b""
    notes = []
    if not got:
        notes.append("Your program printed nothing.")
    elif run.output_size and run.output_size > len(got):
        notes.append(
            f"Your program printed {run.output_size:,} bytes; the first "
            f"{len(got):,} are compared here (at most {MAX_STORED_OUTPUT:,} are kept)."
        )
    diff = line_diff(expected, got)
    if not diff.rows:
        notes.append("The kept part of your output equals the expected output.")
    table = _diff_table(diff) if diff.rows else ""
    if diff.cut:
        notes.append("The diff is cut short; the first difference is shown above.")
    summary = (
        f"expected output ({len(expected):,} bytes) vs yours "
        f"({run.output_size if run.output_size is not None else len(got):,} bytes)"
    )
    note_html = "".join(f'<p class="note">{e(note)}</p>' for note in notes)
    return f"<details open><summary>{e(summary)}</summary>{table}{note_html}</details>"


def _diff_table(diff: LineDiff) -> str:
    return (
        '<table class="diff"><colgroup><col class="ln"><col class="ln"><col class="sign">'
        "<col></colgroup><tbody>"
        + "".join(_diff_row(row) for row in diff.rows)
        + "</tbody></table>"
    )


def _diff_row(row: Row) -> str:
    if row.kind == "hunk":
        return f'<tr class="hunk"><td colspan="4">{e(row.text)}</td></tr>'
    css, sign = {"same": ("same", " "), "expected": ("exp", "−"), "got": ("got", "+")}[row.kind]
    left = "" if row.expected_line is None else row.expected_line
    right = "" if row.got_line is None else row.got_line
    return (
        f'<tr class="{css}"><td class="ln">{left}</td><td class="ln">{right}</td>'
        f'<td class="ln">{sign}</td><td class="code">{visible(row.text)}</td></tr>'
    )


def _footer(generated: str) -> str:
    return (
        f"<footer>Generated {e(generated)} by the course grader {e(__version__)}. "
        "Questions about a verdict: ask the course staff.</footer>"
    )


def _document(title: str, body: str) -> str:
    return page(title, body, STYLE)


# ------------------------------------------------------------------ the index


def render_index(reports: Sequence[SubmissionReport], names: dict[str, str], generated: str) -> str:
    rows = []
    for result in reports:
        sub = result.submission
        link = f'<a href="{e(quote(names[sub.id]))}">{e(printable(sub.id))}</a>'
        score = f"{format_score(result.score)} / {format_score(result.max_score)}"
        if result.policy_note:
            score += f'<br><span class="meta">{e(result.policy_note)}</span>'
        rows.append(
            f"<tr><td>{link}</td><td>{e(language_name(sub.language))}</td>"
            f'<td class="num">{score}</td><td class="counts">{_badges(result)}</td>'
            f"<td>{e(_build_line(result, 80))}</td></tr>"
        )
    body = [
        f'<header><h1>Feedback pages</h1><p class="meta">{len(reports)} submissions</p></header>',
        "<h2>Submissions</h2><table><thead><tr><th>submission</th><th>language</th>"
        '<th class="num">score</th><th>verdicts</th><th>build</th></tr></thead><tbody>'
        + "".join(rows)
        + "</tbody></table>",
        _pass_rates(reports),
        _footer(generated),
    ]
    return _document("Feedback pages", "\n".join(body))


def _pass_rates(reports: Sequence[SubmissionReport]) -> str:
    if not reports:
        return ""
    rows = []
    for i, outcome in enumerate(reports[0].outcomes):
        case = outcome.case
        passed = sum(r.outcomes[i].verdict == Verdict.AC for r in reports)
        tag = "" if case.public else ' <span class="hidden-tag">(hidden)</span>'
        rows.append(
            f'<tr><td>{e(case.id)}{tag}</td><td class="num">{passed} / {len(reports)}</td></tr>'
        )
    return (
        '<h2>Cases</h2><table><thead><tr><th>case</th><th class="num">passed</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
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
) -> Feedback:
    """A page per submission in `out` and, for instructors, index.html linking them."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ExportError(f"{out}: not a folder (feedback pages go in a folder)")
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
    index = None
    if not student:
        index = out / INDEX
        write_file(index, render_index(results.reports, names, generated))
    return Feedback(pages, index)
