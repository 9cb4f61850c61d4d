"""The similarity report: one self-contained HTML page (no script, no request,
the same Content-Security-Policy as the feedback pages), pairs ranked by
similarity, the top pairs side by side with the matching code marked.

Submission ids and source code are the students' own text: every piece goes
through printable() and html.escape.
"""

import html
from collections.abc import Sequence

from grader import __version__
from grader.reports.html_page import page
from grader.similarity import Document, Pair, Report
from grader.text import printable

TABLE_ROWS = 300  # pairs listed in the ranking table

STYLE = """
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       margin: 0 auto; padding: 24px; max-width: 1500px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 19px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); }
.meta { color: var(--muted); margin: 2px 0; }
table.rank { border-collapse: collapse; width: 100%; }
table.rank th, table.rank td { text-align: left; padding: 3px 8px;
                               border-bottom: 1px solid var(--line); }
table.rank th { background: var(--soft); }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: inline-block; height: 10px; background: #cf222e; vertical-align: middle; }
section.pair { border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px;
               margin: 16px 0; }
section.pair h3 { margin: 0 0 8px; font-size: 16px; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 10px; }
.sides h4 { margin: 0 0 4px; font-size: 14px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 6px; padding: 8px;
      margin: 0; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
      white-space: pre-wrap; word-break: break-all; max-height: 720px; overflow: auto; }
mark { background: #ffd8b5; color: inherit; border-radius: 2px; }
footer { margin-top: 32px; color: var(--muted); font-size: 13px; }
a { color: #0969da; }
"""


def e(text) -> str:
    return html.escape(printable(str(text)), quote=True)


def render(report: Report, *, generated: str, shown: int, copydetect_version: str) -> str:
    """The page: the ranking, then the `shown` most similar pairs side by side."""
    with_matches = [p for p in report.pairs if p.tokens > 0]
    sides = with_matches[:shown]
    parts = [
        _header(report, generated, copydetect_version),
        _ranking(report.pairs, len(sides)),
        "<h2>Most similar pairs, side by side</h2>" if sides else "",
        *(_pair_section(rank, pair) for rank, pair in enumerate(sides, start=1)),
        _skipped(report.skipped),
        f"<footer>Generated {e(generated)} by the course grader {e(__version__)} with "
        f"copydetect {e(copydetect_version)}. Similarity is evidence to look at, not a "
        "verdict.</footer>",
    ]
    return _document("Similarity report", "\n".join(part for part in parts if part))


def _header(report: Report, generated: str, version: str) -> str:
    starter = (
        f"{len(report.starter_files)} starter file(s) excluded"
        if report.starter_files
        else "no starter code given (--base)"
    )
    count = len(report.documents)
    return (
        "<header><h1>Similarity report</h1>"
        f'<p class="meta">{count} submissions, {count * (count - 1) // 2} pairs compared; '
        f"{e(starter)}. Share = the part of a program's tokens (names and strings "
        "ignored) also found in the other; ranked by the larger share.</p></header>"
    )


def _ranking(pairs: Sequence[Pair], linked: int) -> str:
    """The pairs sharing any code, best first (pairs with nothing in common are counted)."""
    sharing = [p for p in pairs if p.tokens > 0]
    rows = []
    for rank, pair in enumerate(sharing[:TABLE_ROWS], start=1):
        name = f'<a href="#pair-{rank}">{rank}</a>' if rank <= linked else str(rank)
        left, right = pair.similarity
        rows.append(
            f'<tr><td class="num">{name}</td><td>{_who(pair.left)}</td>'
            f'<td>{_who(pair.right)}</td><td class="num">{_percent(left)}</td>'
            f'<td class="num">{_percent(right)}</td>'
            f'<td><span class="bar" style="width:{round(pair.score * 120)}px"></span>'
            f'</td><td class="num">{pair.tokens}</td></tr>'
        )
    more = max(0, len(sharing) - TABLE_ROWS)
    notes = [f"{more} less similar pairs not listed"] if more else []
    if len(pairs) > len(sharing):
        notes.append(f"{len(pairs) - len(sharing)} pairs share no code at all")
    note = f'<p class="meta">{"; ".join(notes)}.</p>' if notes else ""
    return (
        '<h2>Pairs, most similar first</h2><table class="rank"><thead><tr>'
        '<th class="num">#</th><th>submission</th><th>submission</th>'
        '<th class="num">share of first</th><th class="num">share of second</th><th></th>'
        '<th class="num">matching tokens</th></tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{note}"
    )


def _pair_section(rank: int, pair: Pair) -> str:
    left, right = pair.similarity
    return (
        f'<section class="pair" id="pair-{rank}"><h3>#{rank}: {_who(pair.left)} and '
        f"{_who(pair.right)}: {_percent(left)} / {_percent(right)}</h3>"
        '<div class="sides">'
        f"<div><h4>{_who(pair.left)} <code>{e(pair.left.path.name)}</code></h4>"
        f"<pre>{marked(pair.left.text, pair.slices[0])}</pre></div>"
        f"<div><h4>{_who(pair.right)} <code>{e(pair.right.path.name)}</code></h4>"
        f"<pre>{marked(pair.right.text, pair.slices[1])}</pre></div>"
        "</div></section>"
    )


def marked(text: str, ranges: Sequence[tuple[int, int]]) -> str:
    """`text` escaped, each matching range inside <mark>."""
    out, position = [], 0
    for start, end in _merged(ranges, text):
        out.append(e(text[position:start]))
        out.append(f"<mark>{e(text[start:end])}</mark>")
        position = end
    out.append(e(text[position:]))
    return "".join(out)


def _merged(ranges: Sequence[tuple[int, int]], text: str):
    """Sorted, non-overlapping, widened to whole words: copydetect maps its token
    positions back to characters only approximately, and a mark that starts in
    the middle of `continue` reads as a bug."""
    length = len(text)
    merged: list[list[int]] = []  # [start, end]: the end grows as ranges merge
    for start, end in sorted(ranges):
        start, end = max(0, min(start, length)), max(0, min(end, length))
        while 0 < start < length and _word(text[start - 1]) and _word(text[start]):
            start -= 1
        while 0 < end < length and _word(text[end - 1]) and _word(text[end]):
            end += 1
        if end <= start:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _who(document: Document) -> str:
    return f"<b>{e(document.id)}</b> ({e(document.language)})"


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def _skipped(skipped: Sequence[tuple[str, str]]) -> str:
    if not skipped:
        return ""
    items = "".join(f"<li><b>{e(sid)}</b>: {e(why)}</li>" for sid, why in skipped)
    return f"<h2>Not compared</h2><ul>{items}</ul>"


def _document(title: str, body: str) -> str:
    return page(title, body, STYLE)
