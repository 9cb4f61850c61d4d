"""Expected vs got, line by line: the rows of a unified diff, for feedback pages.

Outputs can be megabytes and a program's output anything at all, so the diff
starts a few lines before the first differing line, compares a window of lines
from there, and stops after a number of rows; it says when it did. Lines split
on "\\n" only and keep it, so a missing final newline or a "\\r" is a difference
the page can show. Bytes that are not UTF-8 survive as lone surrogates
(surrogateescape) for the page to show as \\xNN.
"""

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from typing import Literal

CONTEXT = 3  # unchanged lines shown around each change
# Lines of each side compared, from just before the first difference: the matcher is
# quadratic on repetitive output (boards share lines), and a page shows MAX_ROWS anyway.
WINDOW = 400
MAX_ROWS = 400  # rows shown at most
_LINE = re.compile(r"[^\n]*\n|[^\n]+")


@dataclass(frozen=True)
class Row:
    # "hunk" (a header), "same", "expected" (expected only), "got" (got only)
    kind: Literal["hunk", "same", "expected", "got"]
    expected_line: int | None = None  # 1-based line numbers
    got_line: int | None = None
    text: str = ""  # the line with its "\n", if it had one; for a hunk, its header


@dataclass
class LineDiff:
    rows: list[Row] = field(default_factory=list)
    first_difference: int = 0  # 1-based line of the first difference (0: none)
    cut: bool = False  # the window or the row limit ended the diff early


def split_lines(data: bytes) -> list[str]:
    return _LINE.findall(data.decode("utf-8", "surrogateescape"))


def line_diff(
    expected: bytes,
    got: bytes,
    *,
    context: int = CONTEXT,
    window: int = WINDOW,
    max_rows: int = MAX_ROWS,
) -> LineDiff:
    a, b = split_lines(expected), split_lines(got)
    same = 0
    while same < min(len(a), len(b)) and a[same] == b[same]:
        same += 1
    if same == len(a) == len(b):
        return LineDiff()
    start = max(0, same - context)
    a_part, b_part = a[start : start + window], b[start : start + window]
    result = LineDiff(
        first_difference=same + 1, cut=len(a) - start > window or len(b) - start > window
    )
    matcher = SequenceMatcher(None, a_part, b_part, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        result.rows.append(_hunk(group, start))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                result.rows.extend(
                    Row("same", start + i + 1, start + j1 + (i - i1) + 1, a_part[i])
                    for i in range(i1, i2)
                )
                continue
            expected_rows = [Row("expected", start + i + 1, None, a_part[i]) for i in range(i1, i2)]
            got_rows = [Row("got", None, start + j + 1, b_part[j]) for j in range(j1, j2)]
            if len(expected_rows) == len(got_rows):
                # Line for line (white space, a word): each pair one above the other.
                for pair in zip(expected_rows, got_rows):
                    result.rows.extend(pair)
            else:
                result.rows.extend(expected_rows + got_rows)
        if len(result.rows) >= max_rows:
            result.rows = result.rows[:max_rows]
            result.cut = True
            break
    return result


def _hunk(group: Sequence[tuple[str, int, int, int, int]], start: int) -> Row:
    first, last = group[0], group[-1]
    a1, a2, b1, b2 = first[1], last[2], first[3], last[4]
    return Row(
        "hunk",
        start + a1 + 1,
        start + b1 + 1,
        f"expected output lines {_span(start + a1, start + a2)}, "
        f"your output lines {_span(start + b1, start + b2)}",
    )


def _span(begin: int, end: int) -> str:
    if end <= begin:
        return f"(none, after line {begin})"
    return f"{begin + 1}" if end == begin + 1 else f"{begin + 1}-{end}"
