"""White space: whether two outputs differ in nothing else (the PE verdict), and
which kinds of white space differ."""

import itertools
import re
from collections.abc import Iterator

from grader.cases.puzzle import is_count_line
from grader.judge.compare.lines import line_at, quote
from grader.judge.compare.wording import MAX_EXAMPLES

TOKEN_CHUNK = 1 << 18  # bytes split into tokens at a time by same_tokens
_WHITE = re.compile(rb"[ \t\n\r\x0b\x0c]")  # what bytes.split() splits on


def same_tokens(a: bytes, b: bytes) -> bool:
    """a.split() == b.split(), without holding millions of tokens at once: both
    are split a chunk at a time, and the first difference ends it."""
    # zip_longest pads the shorter with None, which equals no token (tokens are bytes).
    for x, y in itertools.zip_longest(_tokens(a), _tokens(b)):
        if x != y:
            return False
    return True


def _tokens(data: bytes) -> Iterator[bytes]:
    """data.split(), a chunk at a time; a chunk ends at white space, never inside a token."""
    start, size = 0, len(data)
    while start < size:
        space = _WHITE.search(data, start + TOKEN_CHUNK)
        end = space.start() if space else size
        yield from data[start:end].split()
        start = end


def whitespace_notes(expected: bytes, got: bytes, full: bool) -> list[str]:
    """Which kinds of white space differ.  `full` adds the line-by-line ones
    (blank lines, spacing inside lines), meaningful when the tokens agree."""
    notes = []
    crlf = got.count(b"\r\n") - expected.count(b"\r\n")
    if crlf > 0:
        every = got.count(b"\r\n") == got.count(b"\n")
        notes.append(
            ("every line ends" if every else "1 line ends" if crlf == 1 else f"{crlf} lines end")
            + " in CR LF (\\r\\n, Windows style); end lines with \\n only"
        )
    stray = got.count(b"\r") - got.count(b"\r\n")
    if stray > expected.count(b"\r") - expected.count(b"\r\n"):
        returns = (
            "1 carriage return (\\r) that does"
            if stray == 1
            else f"{stray} carriage returns (\\r) that do"
        )
        notes.append(f"the output contains {returns} not end a line")
    notes += _trailing_notes(expected, got)
    if b"\t" in got and b"\t" not in expected:
        line = line_at(got, got.index(b"\t"))
        notes.append(f"tab characters where the layout has spaces (first at line {line})")
    notes += _ending_notes(expected, got)
    if full and got.count(b"\n") > max(MAX_LINE_NOTES, 4 * expected.count(b"\n")):
        notes.append(_many_lines_note(expected, got))  # millions of lines: count, not list
    elif full:
        exp_lines, got_lines = _clean_lines(expected), _clean_lines(got)
        if exp_lines != got_lines:
            notes += _line_notes(exp_lines, got_lines)
    return notes


MAX_LINE_NOTES = 100_000  # lines beyond which white space is summed up, not compared line by line
# Two blank lines in a row (the expected output never has that); no repeated group,
# which would cost the regex engine memory for every line of a long run.
_BLANK_RUN = re.compile(rb"\n[ \t\r\x0b\x0c]*\n[ \t\r\x0b\x0c]*\n")


def _many_lines_note(expected: bytes, got: bytes) -> str:
    extra = got.count(b"\n") - expected.count(b"\n")
    run = _BLANK_RUN.search(got)
    if not run:  # no empty lines in a row: the same words, with more line breaks
        return (
            f"the output has {extra:,} more lines than the expected output: the same words, "
            "broken into more lines"
        )
    line = line_at(got, run.start()) + 1  # the run starts with the newline ending a line
    return (
        f"the output has {extra:,} more lines than the expected output, empty or only white "
        f"space (the first run of empty lines starts at line {line})"
    )


_TRAILING_ENDS = (b" \n", b"\t\n", b" \r\n", b"\t\r\n")


def _trailing_count(data: bytes) -> tuple[int, int]:
    """(lines ending in spaces or tabs, offset of the first); substring counts
    rather than a regular expression, to stay fast on megabytes."""
    count = sum(data.count(end) for end in _TRAILING_ENDS)
    first = min((data.find(end) for end in _TRAILING_ENDS if end in data), default=-1)
    if data.endswith((b" ", b"\t")):
        count += 1
        first = first if first >= 0 else len(data) - 1
    return count, first


def _trailing_notes(expected: bytes, got: bytes) -> list[str]:
    count, first = _trailing_count(got)
    if not count or _trailing_count(expected)[0]:
        return []
    line = line_at(got, first)
    many = f"{count} lines" if count > 1 else "1 line"
    return [
        f"trailing white space at the end of {many} (first: line {line}); "
        "no line may end in spaces or tabs"
    ]


def _clean_lines(data: bytes) -> list[str]:
    text = data.decode("latin-1")  # pragma: no mutate (codec names ignore case: LATIN-1 too)
    return [line.rstrip() for line in text.split("\n")]


def _ending_notes(expected: bytes, got: bytes) -> list[str]:
    def blank_tail(data: bytes) -> tuple[int, bool]:
        """Empty lines at the end (a missing final newline counts -1); all blank?"""
        window = data[-4096:]
        lines = _clean_lines(window)
        if len(window) < len(data):
            lines = lines[1:]  # the window's first piece may end a longer line: not counted
        count = 0
        while count < len(lines) and not lines[-1 - count]:
            count += 1
        return count, count == len(lines) and len(window) == len(data)

    (exp_tail, _), (got_tail, blank) = blank_tail(expected), blank_tail(got)
    if blank or exp_tail == got_tail:
        return []
    if got_tail == 0 and exp_tail == 1:
        return ["the output does not end with a newline: print \\n after the last line"]
    if got_tail > exp_tail:  # pragma: no mutate (equal tails returned above: >= is the same)
        extra = got_tail - exp_tail
        # All white space in the window, yet not blank: more lines before it than counted.
        at_least = "at least " if got[-4096:].isspace() else ""
        return [
            f"{at_least}{extra} extra empty line{'s' if extra > 1 else ''} at the end of the output"
        ]
    return ["empty lines missing at the end of the output"]


def _line_notes(exp_lines: list[str], got_lines: list[str]) -> list[str]:
    exp_rows, got_rows = _nonblank(exp_lines), _nonblank(got_lines)
    if [text for text, _, _ in exp_rows] != [text for text, _, _ in got_rows]:
        return [_spacing_note(exp_rows, got_rows)]
    notes: list[str] = []
    places = 0
    for index, ((_, exp_blanks, _), (_, got_blanks, got_no)) in enumerate(zip(exp_rows, got_rows)):
        if exp_blanks == got_blanks:
            continue
        places += 1
        if len(notes) < MAX_EXAMPLES:
            where = _blank_context(exp_rows, index)
            if got_blanks < exp_blanks:  # pragma: no mutate (equal ones skipped: <= is the same)
                notes.append(f"missing empty line {where} (before line {got_no} of your output)")
            else:
                extra = got_blanks - exp_blanks
                notes.append(
                    f"{extra} extra empty line{'s' if extra > 1 else ''} {where} "
                    f"(before line {got_no} of your output)"
                )
    if places > len(notes):
        notes.append(f"empty lines differ in {places} places in all")
    return notes


def _nonblank(lines: list[str]) -> list[tuple[str, int, int]]:
    """(text, empty lines before it, line number) of each non-empty line."""
    rows, blanks = [], 0
    for number, line in enumerate(lines, start=1):
        if line:
            rows.append((line, blanks, number))
            blanks = 0
        else:
            blanks += 1
    return rows


def _blank_context(rows: list[tuple[str, int, int]], index: int) -> str:
    if index == 0:
        return "at the start of the output"
    after, before = rows[index - 1][0], rows[index][0]
    if after.startswith("+") and before.startswith("+"):
        return "between two boards"
    if is_count_line(before):
        return "between the tile listing and the count line"
    return f"after {quote(after, 40)}"


def _spacing_note(
    exp_rows: list[tuple[str, int, int]], got_rows: list[tuple[str, int, int]]
) -> str:
    for (exp_text, _, _), (got_text, _, got_no) in zip(exp_rows, got_rows):
        if exp_text == got_text:
            continue
        if exp_text == got_text.lstrip():
            return f"line {got_no} starts with white space the expected line does not have"
        if exp_text.split() == got_text.split():
            return (
                f"spacing inside line {got_no} differs: expected {quote(exp_text)}, "
                f"got {quote(got_text)} (cells are 8 characters wide)"
            )
        return (
            f"line {got_no} should be {quote(exp_text)}, not {quote(got_text)} "
            "(the same words, broken into lines differently)"
        )
    # Unreachable when the tokens agree (rows equal as far as both go would leave extra
    # rows, hence extra tokens, on one side); kept as a safe answer, not mutated.
    return "the output is broken into lines differently near its end"  # pragma: no mutate
