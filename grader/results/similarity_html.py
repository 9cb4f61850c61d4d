"""The similarity report: one self-contained HTML page (no script, no request,
the same Content-Security-Policy as the feedback pages: templates/similarity.html),
pairs ranked by similarity, the top pairs side by side with the matching code marked.

Submission ids and source code are the students' own text: every piece goes through
printable() and the template's escaping.
"""

import re
from collections.abc import Sequence

from grader import __version__
from grader.grading.similarity import Pair, Report
from grader.results.html_page import render as render_template

TABLE_ROWS = 300  # pairs listed in the ranking table


def render(report: Report, *, generated: str, shown: int, copydetect_version: str) -> str:
    """The page: the ranking, then the `shown` most similar pairs side by side."""
    sharing = [p for p in report.pairs if p.tokens > 0]
    sides = sharing[:shown]
    notes = []
    more = max(0, len(sharing) - TABLE_ROWS)
    if more:
        notes.append(f"{more} less similar pairs not listed")
    if len(report.pairs) > len(sharing):
        notes.append(f"{len(report.pairs) - len(sharing)} pairs share no code at all")
    starter = (
        f"{len(report.starter_files)} starter file(s) excluded"
        if report.starter_files
        else "no starter code given (--base)"
    )
    return render_template(
        "similarity.html",
        title="Similarity report",
        count=len(report.documents),
        starter=starter,
        ranking=[
            _ranked(rank, pair, len(sides)) for rank, pair in enumerate(sharing[:TABLE_ROWS], 1)
        ],
        notes=notes,
        sides=[_side_by_side(rank, pair) for rank, pair in enumerate(sides, start=1)],
        skipped=list(report.skipped),
        generated=generated,
        version=__version__,
        copydetect_version=copydetect_version,
    )


def _ranked(rank: int, pair: Pair, linked: int) -> dict[str, object]:
    left, right = pair.similarity
    return {
        "rank": rank,
        "linked": rank <= linked,
        "left": pair.left,
        "right": pair.right,
        "left_share": _percent(left),
        "right_share": _percent(right),
        "bar": round(pair.score * 120),
        "larger": _percent(pair.score),
        "tokens": pair.tokens,
    }


def _side_by_side(rank: int, pair: Pair) -> dict[str, object]:
    left, right = pair.similarity
    return {
        "rank": rank,
        "left": pair.left,
        "right": pair.right,
        "left_share": _percent(left),
        "right_share": _percent(right),
        "texts": [
            {"document": doc, "name": doc.path.name, "pieces": marked(doc.text, ranges)}
            for doc, ranges in ((pair.left, pair.slices[0]), (pair.right, pair.slices[1]))
        ],
    }


def marked(text: str, ranges: Sequence[tuple[int, int]]) -> list[tuple[bool, str]]:
    """`text` in pieces, each (whether it matches, the piece): the template marks them.
    A match is marked line by line (a mark never holds a line end: one box per line,
    whose colours a reader and a checker can tell)."""
    out, position = [], 0
    for start, end in _merged(ranges, text):
        out.append((False, text[position:start]))
        for line in re.split(r"(\n)", text[start:end]):
            out.append((line != "\n", line))
        position = end
    out.append((False, text[position:]))
    return [piece for piece in out if piece[1]]


def _merged(ranges: Sequence[tuple[int, int]], text: str) -> list[list[int]]:
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


def _percent(value: float) -> str:
    return f"{value * 100:.0f}%"
