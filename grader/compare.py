"""Exact comparison of a program's output with the expected output, and the
diagnosis of every difference in the puzzle's own terms.

The verdict is plain: equal bytes are AC, the same white-space-separated
tokens are PE, anything else is WA.  The diagnosis explains it: the first
differing line with white space made visible, then what the difference means
(count line, tile listing, boards missing, extra, not solutions, rotated,
out of order, printed twice, white space), most important first.  When the
case depends on a policy rule and the difference is of the kind that rule
decides, the diagnosis names the rule.

Never raises: whatever the program printed, the caller gets a Comparison.
"""

import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from grader.cases import POLICY_RULES
from grader.model import Verdict
from grader.puzzle import (
    SIDES,
    Board,
    Key,
    PrintedBoard,
    PrintedOutput,
    PuzzleFormatError,
    Tile,
    all_turns,
    board_of,
    canonical_key,
    clashes,
    digits,
    draw,
    foreign_cells,
    is_count_line,
    is_solution_key,
    is_symmetric,
    parse_output,
    parse_puzzle,
    position,
    repeated_tiles,
    turn,
)

# Begins the diagnosis line of a difference that a policy rule decides (grader.score
# reads it back from stored diagnoses).
POLICY_MARKER = "This case is policy-dependent"
POLICY_ONLY = "The output differs only in what the policy rule below decides."
SHOWN_WIDTH = 100  # characters of a line shown in a diagnosis
MAX_EXAMPLES = 3  # boards named one by one before "and N more"
LAYOUT_CHECKS = 300  # boards whose drawing is checked at most, beyond those equal to expected ones
_LISTING_LINE = re.compile(r"\s*(\d+)\.\s*<(.*)>\s*$")
_EDGE_TOKENS = re.compile(r"[A-Z][01]")


@dataclass
class Comparison:
    verdict: Verdict
    summary: str  # one line a student understands at once ("" for AC)
    details: list[str] = field(default_factory=list)  # further lines

    def text(self) -> str:
        return "\n".join(line for line in [self.summary, *self.details] if line)


class Issue(NamedTuple):
    rank: int  # smaller is more important
    text: str
    rule: str | None = None  # the policy rule that decides this difference


def compare(
    expected: bytes | str, got: bytes | str, puzzle: bytes | str, policy: Sequence[str] = ()
) -> Comparison:
    """Compare outputs exactly; diagnose any difference (never raises)."""
    expected, got = _as_bytes(expected), _as_bytes(got)
    policy = (policy,) if isinstance(policy, str) else tuple(policy or ())
    if expected == got:
        return Comparison(Verdict.AC, "")
    verdict = Verdict.PE if same_tokens(expected, got) else Verdict.WA
    try:
        first = first_difference(expected, got)
    except Exception as error:  # a diagnosis must never cost the verdict
        first = [f"(could not show the first difference: {type(error).__name__})"]
    try:
        if verdict is Verdict.PE:
            notes = whitespace_notes(expected, got, full=True)
            issues = [Issue(_WHITE_SPACE, text) for text in notes]
        else:
            issues = answer_issues(expected, got, puzzle, policy)
        issues = _crlf_input_issues(puzzle, expected, got, issues)
    except Exception as error:
        why = f"(the grader could not diagnose this output further: {type(error).__name__})"
        issues = [Issue(99, why)]  # pragma: no mutate (the only issue: its rank orders nothing)
    return _assemble(verdict, first, issues)


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


def _tokens(data: bytes):
    """data.split(), a chunk at a time; a chunk ends at white space, never inside a token."""
    start, size = 0, len(data)
    while start < size:
        space = _WHITE.search(data, start + TOKEN_CHUNK)
        end = space.start() if space else size
        yield from data[start:end].split()
        start = end


_CRLF_INPUT = (
    "the puzzle file of this case ends its lines with CR LF (\\r\\n, Windows "
    "style): your program mishandles CRLF input"
)
_CRLF_FIX = "remove the \\r (as well as the \\n) from each line it reads"


def _crlf_input_issues(
    puzzle: bytes | str, expected: bytes, got: bytes, issues: list[Issue]
) -> list[Issue]:
    """When the input has CR LF line ends, a \\r in the output that the expected
    output lacks comes from the input, not from how the program ends its lines;
    and finding nothing where there are solutions is what a \\r kept in the last
    edge of every tile does. Say that first, instead of talking about line ends."""
    if b"\r\n" not in _as_bytes(puzzle):
        return issues
    every_line = got.count(b"\r\n") == got.count(b"\n")  # its own line ends, not the input's
    extra_cr = got.count(b"\r") > expected.count(b"\r") and not every_line
    if extra_cr:
        line = _line_at(got, got.index(b"\r"))
        text = (
            f"{_CRLF_INPUT}: it carries the \\r into its output (first at line {line}); {_CRLF_FIX}"
        )
        kept = [
            issue
            for issue in issues
            if "CR LF" not in issue.text and "carriage return" not in issue.text
        ]
        # Put first, and sorting is stable: ranks 2 and 3 (the next one used) order it alike.
        return [Issue(2, text)] + kept  # pragma: no mutate
    if _finds_nothing(expected, got):
        text = (
            f"{_CRLF_INPUT}: it finds no solution where there are some, which is what "
            f"keeping the \\r as part of each tile's last edge does; {_CRLF_FIX}"
        )
        return [Issue(2, text)] + issues  # pragma: no mutate (as above)
    return issues


def _finds_nothing(expected: bytes, got: bytes) -> bool:
    return (
        b"No solution found." in got
        and b"No solution found." not in expected
        and b"+--------+" not in got
    )


def _as_bytes(data: bytes | str | None) -> bytes:
    if data is None:
        return b""
    return data.encode(errors="surrogateescape") if isinstance(data, str) else bytes(data)


def _assemble(verdict: Verdict, first: list[str], issues: list[Issue]) -> Comparison:
    issues = sorted(issues, key=lambda issue: issue.rank)
    if issues:
        summary = issues[0].text
    elif verdict is Verdict.PE:
        summary = "the output differs from the expected output only in white space"
    else:
        summary = "the output differs from the expected output"
    if verdict is Verdict.PE and issues:
        summary = "white space differs: " + summary
    details = list(first) + [issue.text for issue in issues[1:]]
    rules = []
    for issue in issues:
        if issue.rule and issue.rule not in rules:
            rules.append(issue.rule)
    if rules and all(issue.rule for issue in issues if issue.rank < 90):
        details.append(POLICY_ONLY)  # nothing else is wrong: grader.score reads this back
    for rule in rules:
        explanation = POLICY_RULES.get(rule, rule)
        details.append(f"{POLICY_MARKER}: its expected output follows {explanation}.")
    return Comparison(verdict, summary, details)


# ---------------------------------------------------------------- showing lines


def show(text: bytes | str, limit: int = SHOWN_WIDTH, spaces: str = "·") -> str:
    """Text safe for any terminal, white space visible, cut to `limit` characters."""
    if isinstance(text, bytes):
        text = text.decode(errors="backslashreplace")
    out = []
    for char in text[:limit]:
        if char == " ":
            out.append(spaces)
        elif char == "\t":
            out.append("→")
        elif 0xDC80 <= ord(char) <= 0xDCFF:  # a byte that was not UTF-8 (surrogateescape)
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif not char.isprintable():  # \r, \x.., \u.... or \U........, as Python writes them
            out.append(repr(char)[1:-1])
        else:
            out.append(char)
    return "".join(out) + ("…" if len(text) > limit else "")


def quote(text: str, limit: int = 60) -> str:
    """A short piece of output inside a sentence, in double quotes, made safe."""
    return '"' + show(text, limit, spaces=" ") + '"'


def first_difference(expected: bytes, got: bytes) -> list[str]:
    """Where the outputs first differ: line, column, both versions."""
    pos = _first_differing_byte(expected, got)
    newline = expected.rfind(b"\n", 0, pos)  # pragma: no mutate (a start of None is 0 too)
    start = newline + 1
    line_no = _line_at(expected, start)
    column = pos - start
    return [
        f"first difference at line {line_no}, column {column + 1}:",
        "  expected: "
        + _show_line(expected, start, column, "(nothing: the expected output ends here)"),
        "  got:      " + _show_line(got, start, column, "(missing: output ended)"),
    ]


def _line_at(data: bytes, offset: int) -> int:
    """The number (from 1) of the line that holds data[offset]."""
    before = data.count(b"\n", 0, offset)  # pragma: no mutate (a start of None is 0 too)
    return before + 1


def _first_differing_byte(a: bytes, b: bytes) -> int:
    """Index of the first byte where a and b differ (or the shorter one's length)."""
    size = min(len(a), len(b))
    # Any first step and any shrinking that ends at 1 find the same byte; these two
    # lines set only the speed, so they are not mutated.
    step, pos = 1 << 16, 0  # pragma: no mutate
    while step:
        while pos + step <= size and a[pos : pos + step] == b[pos : pos + step]:
            pos += step
        step //= 2  # pragma: no mutate
    return pos


def _show_line(data: bytes, start: int, column: int, when_absent: str) -> str:
    if start >= len(data):
        return when_absent
    end = data.find(b"\n", start)
    content = data[start:] if end < 0 else data[start:end]
    left = max(0, min(column - SHOWN_WIDTH // 2, len(content) - SHOWN_WIDTH))
    shown = ("…" if left else "") + show(content[left:])
    return shown + ("⏎" if end >= 0 else "  (no newline at the end of the output)")


# ---------------------------------------------------------------- white space


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
        line = _line_at(got, got.index(b"\t"))
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
    line = _line_at(got, run.start()) + 1  # the run starts with the newline ending a line
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
    line = _line_at(got, first)
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


def _spacing_note(exp_rows, got_rows) -> str:
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


# ---------------------------------------------------------------- wrong answers


# The rank of white-space notes: after every answer issue, and not below 90, where
# _assemble stops looking for causes other than a policy rule.
_WHITE_SPACE = 90


def answer_issues(
    expected: bytes, got: bytes, puzzle: bytes | str, policy: tuple[str, ...]
) -> list[Issue]:
    """What a wrong answer means in the puzzle's terms."""
    exp = parse_output(expected.decode(errors="surrogateescape"))
    out = parse_output(got.decode(errors="surrogateescape"))
    tiles = _tiles(puzzle, exp)
    issues = _shape_issues(got, out)
    if any(issue.rank in (0, 1) for issue in issues):
        return issues  # nothing to read: listing every missing piece would only bury that
    issues += _lookalike_issues(expected, got)
    issues += _count_issues(exp, out, tiles, policy)
    issues += _listing_issues(exp, out)
    issues += _stray_issues(out)
    issues += _board_issues(exp, out, tiles, policy)
    issues += [Issue(_WHITE_SPACE, note) for note in whitespace_notes(expected, got, full=False)]
    return issues


def _tiles(puzzle: bytes | str, exp: PrintedOutput) -> tuple[Tile, ...] | None:
    """The puzzle's tiles; from the expected listing if the puzzle will not parse."""
    try:
        return parse_puzzle(puzzle)
    except (PuzzleFormatError, TypeError, AttributeError):
        pass
    edges = []
    for _, line in exp.listing:
        match = _LISTING_LINE.match(line)
        if match:
            edges.append(tuple(edge.strip() for edge in match.group(2).split(",")))
    tiles = [e for e in edges if len(e) == 4]
    return tuple(tiles) if len(edges) == 9 and len(tiles) == 9 else None


def _shape_issues(got: bytes, out: PrintedOutput) -> list[Issue]:
    """Output that is empty, not text, or nothing like a solver's output."""
    if not got.strip():
        return [Issue(0, "the output is empty" if not got else "the output is only white space")]
    issues = []
    bad = _first_non_text(got)
    if bad is not None:
        line = got.count(b"\n", 0, bad) + 1  # not a slice: the output may be large
        issues.append(
            Issue(
                15,
                f"the output contains bytes that are not printable text "
                f"(first at line {line}: {show(got[bad : bad + 1])})",
            )
        )
    if out.header_line is None and out.count_line is None and not out.boards:
        issues.append(
            Issue(
                1,
                "the output does not look like the puzzle's output: no "
                '"Input tiles:" listing, no count line, no board',
            )
        )
    return issues


_CONTROL = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")  # not text, though valid UTF-8


def _first_non_text(data: bytes) -> int | None:
    match = _CONTROL.search(data)
    first = match.start() if match else None
    try:
        data.decode()
    except UnicodeDecodeError as error:
        first = error.start if first is None else min(first, error.start)
    return first


# ---------------------------------------------------------------- look-alike characters

_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
# Letters of other scripts drawn like the Latin letters and digits the output uses
# (NFKC already maps fullwidth forms and the like to ASCII).
_CONFUSABLE = {
    "А": "A",
    "В": "B",
    "Е": "E",
    "К": "K",
    "М": "M",
    "Н": "H",
    "О": "O",
    "Р": "P",
    "С": "C",
    "Т": "T",
    "Х": "X",
    "а": "a",
    "е": "e",
    "о": "o",
    "р": "p",
    "с": "c",
    "у": "y",
    "х": "x",
    "і": "i",
    "І": "I",
    "ѕ": "s",
    "Ѕ": "S",
    "ј": "j",
    "Ј": "J",
    "Α": "A",
    "Β": "B",
    "Ε": "E",
    "Ζ": "Z",
    "Η": "H",
    "Ι": "I",
    "Κ": "K",
    "Μ": "M",
    "Ν": "N",
    "Ο": "O",
    "Ρ": "P",
    "Τ": "T",
    "Υ": "Y",
    "Χ": "X",
    "ο": "o",
    "ν": "v",
    "\u2212": "-",
    "\u2010": "-",
    "\u2011": "-",
    "\u2013": "-",
    "\u00a0": " ",
}


def _lookalike_issues(expected: bytes, got: bytes) -> list[Issue]:
    """Characters that look like the ASCII the output needs but are not: fullwidth
    digits, a Cyrillic or Greek letter, a combining mark. Named as such, so that
    nobody hunts for a wrong tile or spacing that is not there."""
    if not expected.isascii() or got.isascii():
        return []
    text = got.decode(errors="replace")
    found = _NOT_ASCII.search(text)
    if found is None:
        return []
    char = found.group()
    line = text.count("\n", 0, found.start()) + 1
    total = len(_NOT_ASCII.findall(text, 0, min(len(text), 1 << 20)))
    more = f" ({total:,} characters that are not ASCII in all)" if total > 1 else ""
    return [
        Issue(
            3,
            f"line {line} contains {_describe(char, text, found.start())}; the "
            f"output must use plain ASCII characters only{more}",
        )
    ]


def _describe(char: str, text: str, at: int) -> str:
    code = f"U+{ord(char):04X} {unicodedata.name(char, 'an unnamed character')}"
    if unicodedata.combining(char):
        base = text[at - 1] if at else ""
        return (
            f"a combining mark {code} on {quote(base)}: it draws over the character "
            "before it and is a character of its own"
        )
    if char == "\ufffd":
        return "bytes that are not UTF-8 text"
    plain = _CONFUSABLE.get(char) or unicodedata.normalize("NFKC", char)
    if plain.isascii() and plain.strip() and plain != char:
        return f"the look-alike character {quote(char)} ({code}) where {quote(plain)} belongs"
    if plain.isascii() and plain != char:
        return f"the look-alike white space {code} where a plain space belongs"
    return f"the character {quote(char)} ({code}), which is not ASCII"


# ---------------------------------------------------------------- count line


def _solutions(n: int) -> str:
    return f"{n} solution" + ("" if n == 1 else "s")


def _count_issues(
    exp: PrintedOutput, out: PrintedOutput, tiles: tuple[Tile, ...] | None, policy: tuple[str, ...]
) -> list[Issue]:
    if exp.count_line is None:
        return []
    want_text, want = exp.count_line[1], exp.count or 0
    if out.count_line is None:
        return [Issue(10, f"the count line is missing: expected {quote(want_text)}")]
    line, text = out.count_line
    issues = []
    if out.boards and line > out.boards[0].line:
        issues.append(
            Issue(
                11,
                f"the count line (line {line}) comes after the first board (line "
                f"{out.boards[0].line}): it goes right after the tile listing and an "
                "empty line, before the boards",
            )
        )
    if text.strip() != want_text:
        # Counting a symmetric tile's look-alike placements twice inflates the count.
        inflated = (out.count or 0) > want and "symmetric-tiles" in policy
        rule = "symmetric-tiles" if inflated and any(is_symmetric(t) for t in tiles or ()) else None
        issues.append(Issue(10, _count_message(want, want_text, out.count, text, line), rule))
    printed, stated = len(out.boards), out.count
    if stated is not None and stated != printed:
        readable = " readable" if out.unreadable else ""
        issues.append(
            Issue(
                48,
                f"the count line says {_solutions(stated) if stated else 'no solution'}"
                f" but {printed}{readable} board{'' if printed == 1 else 's'} "
                f"{'is' if printed == 1 else 'are'} printed",
            )
        )
    return issues


def _count_message(want: int, want_text: str, stated: int | None, text: str, line: int) -> str:
    got = quote(text)
    if want == 0 and stated:
        return (
            f"the count line (line {line}) says {_solutions(stated)}, but the puzzle has none: "
            f"expected {quote(want_text)}"
        )
    if want and stated == 0:
        return (
            f"the count line (line {line}) says {got}, but the puzzle has {_solutions(want)}: "
            f"expected {quote(want_text)}"
        )
    if want == 0 and stated is None and "no solution" not in text.lower():
        return f"the count line (line {line}) is {got}: expected {quote(want_text)}"
    if stated is not None and stated != want:
        return (
            f"the count line (line {line}) says {_solutions(stated)}, expected {_solutions(want)}: "
            f"{got} instead of {quote(want_text)}"
        )
    lower = text.lower()
    if want == 1 and "solutions" in lower:
        return (
            f"wrong plural on line {line}: with one solution the count line is {quote(want_text)}, "
            f"not {got}"
        )
    if want > 1 and "solutions" not in lower and "solution" in lower:
        return (
            f"wrong singular on line {line}: with {want} solutions the count line is "
            f"{quote(want_text)}, not {got}"
        )
    return f"the count line (line {line}) is {got}: expected exactly {quote(want_text)}"


# ---------------------------------------------------------------- tile listing


def _listing_issues(exp: PrintedOutput, out: PrintedOutput) -> list[Issue]:
    if exp.header_line is None:
        return []
    if out.header_line is None:
        if out.count_line is None and not out.boards:
            return []  # _shape_issues already says the output is unrecognisable
        return [Issue(20, 'the output must start with the line "Input tiles:"')]
    issues = []
    for (_, want), (line, text) in zip(exp.listing, out.listing):
        if want.strip() != text.strip():
            issues.append(
                Issue(
                    20,
                    f'the "Input tiles:" listing is wrong at line {line}: expected '
                    f"{quote(want)}, got {quote(text)}{_listing_hint(want, text)}",
                )
            )
            break
    if len(exp.listing) != len(out.listing):
        issues.append(
            Issue(
                21,
                f'the "Input tiles:" listing has {len(out.listing)} line(s), '
                f"expected {len(exp.listing)} (one per tile)",
            )
        )
    return issues


def _listing_hint(want: str, text: str) -> str:
    if not text.isascii():
        return " (it contains a character that only looks like the expected one)"
    want_match, got_match = _LISTING_LINE.match(want), _LISTING_LINE.match(text)
    if want_match and got_match and want_match.group(1) != got_match.group(1):
        return f" (tiles are numbered from 1: this is tile {want_match.group(1)})"
    if "<" not in text or ">" not in text:
        return " (the edges go between < and >)"
    if _EDGE_TOKENS.findall(want) != _EDGE_TOKENS.findall(text):
        return " (the tile's edges as given in the puzzle file, in the same order)"
    if got_match and got_match.group(2).count(", ") != 3:
        return " (edges are separated by a comma and a space)"
    return " (spacing differs)"


def _stray_issues(out: PrintedOutput) -> list[Issue]:
    if not out.stray:
        return []
    line, text = out.stray[0]
    more = f" ({len(out.stray)} such lines in all)" if len(out.stray) > 1 else ""
    if out.read_up_to is not None:
        more = (
            f" ({len(out.stray):,} such lines before line {out.read_up_to:,}; the "
            "output's lines were not read one by one past there)"
        )
    return [
        Issue(
            25,
            f"line {line} is not part of the required output: {quote(text)}{more}; "
            "print nothing but the tile listing, the count line and the boards",
        )
    ]


# ---------------------------------------------------------------- boards


@dataclass
class _Seen:
    """The printed boards sorted into what they are."""

    invalid: list[PrintedBoard] = field(default_factory=list)  # not solutions
    found: dict[Key, list[PrintedBoard]] = field(default_factory=dict)  # canonical key -> printed
    order: list[tuple[int, PrintedBoard]] = field(default_factory=list)  # expected index, printed


def _board_issues(
    exp: PrintedOutput, out: PrintedOutput, tiles: tuple[Tile, ...] | None, policy: tuple[str, ...]
) -> list[Issue]:
    where = {printed.key: index for index, printed in enumerate(exp.boards)}
    seen = _sort_boards(out, tiles, where)
    missing = [printed for printed in exp.boards if printed.key not in seen.found]
    issues, seen.invalid, missing = _turned_cells(seen.invalid, missing)
    issues += _invalid_issues(seen.invalid, tiles)
    if missing:
        issues.append(Issue(40, _missing_text(missing)))
    extra = [copies[0] for key, copies in seen.found.items() if key not in where]
    if extra:
        issues.append(Issue(45, _extra_text(extra)))
    issues += _repeat_issues(seen, tiles, policy)
    issues += _rotation_issues(seen)
    issues += _order_issues(seen, exp, policy)
    issues += _unreadable_issues(out)
    issues += _layout_issues(out, exp, where, seen)
    return issues


def _sort_boards(out: PrintedOutput, tiles, where: dict[Key, int]) -> _Seen:
    """A board equal to an expected one is a solution as printed; only the
    others are checked, so a long, mostly right output stays fast."""
    seen = _Seen()
    turns = all_turns(tiles) if tiles else None
    for printed in out.boards:
        key = printed.key
        if key not in where:
            if not is_solution_key(key, turns):
                seen.invalid.append(printed)
                continue
            key = canonical_key(key)
        copies = seen.found.setdefault(key, [])
        copies.append(printed)
        if len(copies) == 1 and key in where:
            seen.order.append((where[key], printed))
    return seen


def _board_problems(board: Board, tiles: tuple[Tile, ...] | None, turns) -> list[str]:
    """Why a printed board is not a solution (nothing if it is one)."""
    if {cell.tile for cell in board} == set(range(9)):
        # Every other complaint would follow from this one.
        return [
            "it numbers the tiles 0-8: tiles are numbered from 1 to 9, in the order of the "
            "puzzle file"
        ]
    problems = []
    for tile, cells in repeated_tiles(board):
        places = " and ".join(position(i) for i in cells)
        problems.append(f"it uses tile {tile} {_times(len(cells))} ({places})")
    if tiles:  # unknown when neither the puzzle nor the expected listing can be read
        for index in foreign_cells(board, turns):
            cell = board[index]
            if not 1 <= cell.tile <= len(tiles):
                problems.append(f"{position(index)} shows tile {cell.tile}, which does not exist")
            else:
                problems.append(
                    f"{position(index)} shows tile {cell.tile} as {' '.join(cell.edges)} "
                    f"(top, right, bottom, left), which is not a rotation of tile {cell.tile} "
                    f"<{', '.join(tiles[cell.tile - 1])}>"
                )
    for clash in clashes(board):
        problems.append(_clash_text(board, clash))
    return problems


def _more(n: int, one: str, many: str) -> str:
    """'1 more board is ...', '2 more boards are ...': the rest of a list cut short."""
    return f"{n} more {one if n == 1 else many}"


def _times(n: int) -> str:
    return {2: "twice", 3: "three times"}.get(n, f"{n} times")


def _clash_text(board: Board, clash) -> str:
    a, b = board[clash.first], board[clash.second]
    if clash.horizontal:
        side_a, side_b, edge_a, edge_b = 1, 3, a.edges[1], b.edges[3]
        where = f"row {clash.first // 3 + 1}, columns {clash.first % 3 + 1}-{clash.first % 3 + 2}"
    else:
        side_a, side_b, edge_a, edge_b = 2, 0, a.edges[2], b.edges[0]
        where = f"column {clash.first % 3 + 1}, rows {clash.first // 3 + 1}-{clash.first // 3 + 2}"
    if edge_a[0] != edge_b[0]:
        why = "different pictures"
    else:
        why = "two heads" if edge_a[1] == "1" else "two tails"
    return (
        f"tile {a.tile}'s {SIDES[side_a]} edge {edge_a} does not match tile {b.tile}'s "
        f"{SIDES[side_b]} edge {edge_b} ({where}: {why})"
    )


def _invalid_issues(invalid: list[PrintedBoard], tiles: tuple[Tile, ...] | None) -> list[Issue]:
    """The first few boards that are not solutions; every problem of the first one."""
    issues = []
    turns = all_turns(tiles) if tiles else None
    for number, printed in enumerate(invalid[:MAX_EXAMPLES]):
        problems = _board_problems(printed.board, tiles, turns)
        if not problems:
            # Unreachable while _board_problems finds whatever is_solution_key rejects:
            # a safety net whose wording no output reaches, so no test can check it.
            problems = ["(no problem found)"]  # pragma: no mutate
        name = f"board {digits(printed.board)}"
        issues.append(Issue(30, f"{name} (line {printed.line}) is not a solution: {problems[0]}"))
        if number == 0:
            issues += [
                Issue(30, f"{name} also: {problem}") for problem in problems[1 : MAX_EXAMPLES + 1]
            ]
            if len(problems) > MAX_EXAMPLES + 1:
                issues.append(
                    Issue(
                        30,
                        f"{name}: {_more(len(problems) - MAX_EXAMPLES - 1, 'problem', 'problems')}",
                    )
                )
    if len(invalid) > MAX_EXAMPLES:
        issues.append(
            Issue(
                31,
                _more(
                    len(invalid) - MAX_EXAMPLES,
                    "printed board is not a solution",
                    "printed boards are not solutions",
                ),
            )
        )
    return issues


_TURN_NAMES = {
    1: "a quarter turn clockwise",
    2: "half a turn",
    3: "a quarter turn counterclockwise",
}


def _turned_cells(invalid: list[PrintedBoard], missing: list[PrintedBoard]):
    """Printed boards with every tile in the cell of a missing expected board, some
    drawn turned: one issue each, instead of "not a solution" and "missing".
    Returns (issues, the other invalid boards, the other missing boards)."""
    by_digits: dict[str, list[PrintedBoard]] = {}
    for printed in missing:
        by_digits.setdefault(digits(printed.board), []).append(printed)
    issues: list[Issue] = []
    rest: list[PrintedBoard] = []
    matched: set[int] = set()
    for printed in invalid:
        match = next(
            (
                want
                for want in by_digits.get(digits(printed.board), ())
                if id(want) not in matched and _turns_of(printed.board, want.board)
            ),
            None,
        )
        if match is None:
            rest.append(printed)
            continue
        matched.add(id(match))
        if len(issues) < MAX_EXAMPLES:
            issues.append(Issue(29, _turned_text(printed, match)))
    if len(matched) > MAX_EXAMPLES:
        issues.append(
            Issue(
                29,
                _more(
                    len(matched) - MAX_EXAMPLES,
                    "board has its tiles in the right cells but some drawn turned",
                    "boards have their tiles in the right cells but some drawn turned",
                ),
            )
        )
    return issues, rest, [want for want in missing if id(want) not in matched]


def _turns_of(got: Board, want: Board) -> list[tuple[int, int]] | None:
    """(cell index, quarter turns) of every cell of `got` drawn turned from `want`'s;
    None unless every cell holds the same tile, drawn as some turn of it."""
    turned = []
    for index, (a, b) in enumerate(zip(got, want)):
        if a.tile != b.tile:
            return None
        k = next((k for k in (0, *_TURN_NAMES) if turn(b.edges, k) == a.edges), None)
        if k is None:
            return None
        if k:
            turned.append((index, k))
    return turned or None


def _turned_text(printed: PrintedBoard, want: PrintedBoard) -> str:
    turned = _turns_of(printed.board, want.board)
    assert turned is not None  # called only for boards _turns_of matched
    cells = "; ".join(
        f"{position(i)} (tile {printed.board[i].tile}) by {_TURN_NAMES[k]}"
        for i, k in turned[:MAX_EXAMPLES]
    )
    more = f" and {len(turned) - MAX_EXAMPLES} more" if len(turned) > MAX_EXAMPLES else ""
    count = f"{len(turned)} of them are" if len(turned) > 1 else "one of them is"
    return (
        f"board {digits(printed.board)} (line {printed.line}) has every tile in the right "
        f"cell, but {count} drawn turned: {cells}{more} (the solution expected at line "
        f"{want.line} draws each tile as it is placed)"
    )


def _boards_named(boards: list[PrintedBoard], which: str) -> str:
    shown = ", ".join(f"{digits(p.board)} ({which} line {p.line})" for p in boards[:MAX_EXAMPLES])
    rest = len(boards) - MAX_EXAMPLES
    return shown + (f" and {rest} more" if rest > 0 else "")


def _missing_text(missing: list[PrintedBoard]) -> str:
    if len(missing) == 1:
        return f"board {digits(missing[0].board)} is missing (expected at line {missing[0].line})"
    return f"{len(missing)} boards are missing: {_boards_named(missing, 'expected at')}"


def _extra_text(extra: list[PrintedBoard]) -> str:
    if len(extra) == 1:
        return (
            f"board {digits(extra[0].board)} (line {extra[0].line}) is extra: "
            "it is not in the expected output"
        )
    return (
        f"{len(extra)} boards are extra, not in the expected output: {_boards_named(extra, 'at')}"
    )


def _repeat_issues(
    seen: _Seen, tiles: tuple[Tile, ...] | None, policy: tuple[str, ...]
) -> list[Issue]:
    issues = []
    for key, copies in seen.found.items():
        if len(copies) < 2:
            continue
        lines = ", ".join(str(p.line) for p in copies[:6]) + (", ..." if len(copies) > 6 else "")
        if len({p.key for p in copies}) == 1:
            issues.append(_duplicate_issue(board_of(key), copies, lines, tiles, policy))
        else:
            names = ", ".join(digits(p.board) for p in copies[:6])
            issues.append(
                Issue(
                    50,
                    f"the same solution is printed {_times(len(copies))}, in "
                    f"different rotations: {names} (lines {lines}) are rotations "
                    "of one board; rotations of a board are one solution",
                )
            )
    if len(issues) > MAX_EXAMPLES:
        rest = len(issues) - MAX_EXAMPLES
        issues = issues[:MAX_EXAMPLES] + [
            Issue(
                51,
                _more(rest, "board is printed more than once", "boards are printed more than once"),
            )
        ]
    return issues


def _duplicate_issue(
    board: Board, copies, lines: str, tiles: tuple[Tile, ...] | None, policy: tuple[str, ...]
) -> Issue:
    text = f"board {digits(board)} is printed {_times(len(copies))} (lines {lines})"
    symmetric = sorted({cell.tile: cell for cell in board if is_symmetric(cell.edges)}.items())
    if not symmetric:
        return Issue(50, text)
    named = [f"{number} <{', '.join(_tile_edges(cell, tiles))}>" for number, cell in symmetric]
    if len(named) == 1:
        text += (
            f"; it contains tile {named[0]}, which looks the same turned by 180 degrees, "
            "so two of its placements draw the same board"
        )
    else:
        placements = 2 ** len(named)
        text += (
            f"; it contains tiles {', '.join(named[:-1])} and {named[-1]}, which each look "
            f"the same turned by 180 degrees, so {placements} of its placements draw the "
            "same board"
        )
    if "symmetric-tiles" in policy:
        return Issue(5, text + ": they are one solution, printed once", "symmetric-tiles")
    return Issue(50, text)


def _tile_edges(cell, tiles: tuple[Tile, ...] | None) -> Tile:
    """The tile's edges as the puzzle gives them (as drawn when the puzzle is unknown)."""
    return tiles[cell.tile - 1] if tiles and 1 <= cell.tile <= len(tiles) else cell.edges


def _rotation_issues(seen: _Seen) -> list[Issue]:
    rotated = [
        (copies[0], key)
        for key, copies in seen.found.items()
        if len(copies) == 1 and copies[0].key != key
    ]
    if not rotated:
        return []
    printed, board = rotated[0][0], board_of(rotated[0][1])
    text = (
        f"board {digits(printed.board)} (line {printed.line}) is a rotation of {digits(board)}: "
        "print the rotation whose top-left tile has the smallest number of the four corners"
    )
    if len(rotated) > 1:
        text += f" ({len(rotated)} boards are printed in another rotation)"
    return [Issue(55, text)]


def _order_issues(seen: _Seen, exp: PrintedOutput, policy: tuple[str, ...]) -> list[Issue]:
    for (i, first), (j, second) in zip(seen.order, seen.order[1:]):
        # Each expected board enters the order once, so i == j never happens.
        if i < j:  # pragma: no mutate
            continue
        a, b = exp.boards[i].board, exp.boards[j].board
        if digits(a) != digits(b):
            return [
                Issue(
                    60,
                    f"boards are out of order: {digits(first.board)} (line {first.line}) "
                    f"comes before {digits(second.board)} (line {second.line}); boards go "
                    "in increasing order of their 9-digit string",
                )
            ]
        text = (
            f"boards with the same 9-digit string {digits(a)} are in the wrong order (lines "
            f"{first.line} and {second.line}): they go by their drawn text, compared as strings"
            f"{_first_text_difference(a, b)}"
        )
        if "tie-order" in policy:
            return [Issue(6, text, "tie-order")]
        return [Issue(60, text)]
    return []


def _first_text_difference(a: Board, b: Board) -> str:
    for line_a, line_b in zip(draw(a).split("\n"), draw(b).split("\n")):
        if line_a != line_b:
            return f" ({quote(line_b)} comes before {quote(line_a)})"  # drawn lines: 28 characters
    # Two different boards never draw the same text: only the type checker gets here.
    return ""  # pragma: no mutate


def _unreadable_issues(out: PrintedOutput) -> list[Issue]:
    if not out.unreadable:
        return []
    line, why = out.unreadable[0]
    more = f" ({len(out.unreadable)} places in all)" if len(out.unreadable) > 1 else ""
    text = f"could not read a board at line {line}: {why}{more}"
    return [Issue(65, text)]  # pragma: no mutate (no rank between 60 and 70 is used)


def _layout_issues(
    out: PrintedOutput, exp: PrintedOutput, where: dict[Key, int], seen: _Seen
) -> list[Issue]:
    """The first readable board whose drawing is not the required layout.

    A wrong layout is the same on every board, so drawing a few hundred
    boards to compare with is enough even for a huge output."""
    bad = {id(printed) for printed in seen.invalid}
    drawn = 0
    for printed in out.boards:
        index = where.get(printed.key)
        if (index is not None and printed.text == exp.boards[index].text) or id(printed) in bad:
            continue
        drawn += 1
        if drawn > LAYOUT_CHECKS:
            return []
        # An expected board is drawn the same way (the reference draws it as draw() does).
        want = tuple(draw(printed.board).split("\n")[:-1])
        got = printed.lines
        if got != want:
            text = (
                f"board {digits(printed.board)} (line {printed.line}) is not drawn in the "
                f"required layout: {_layout_difference(want, got, printed.line)}"
            )
            return [Issue(70, text)]  # pragma: no mutate (no rank between 70 and 90 is used)
    return []


def _layout_difference(want: Sequence[str], got: Sequence[str], first_line: int) -> str:
    """The first line of a drawing that differs from the required one."""
    at = next((k for k, (a, b) in enumerate(zip(want, got)) if a != b), min(len(want), len(got)))
    line = first_line + at
    if want[at + 1 : at + 2] == got[at : at + 1] and len(got) < len(want):
        return f"a line {quote(want[at])} is missing before line {line}"
    if got[at + 1 : at + 2] == want[at : at + 1] and len(got) > len(want):
        return f"line {line} ({quote(got[at])}) should not be there"
    if at >= len(got):
        return f"it ends early: a line {quote(want[at])} is missing after line {line - 1}"
    if at >= len(want):
        return f"line {line} ({quote(got[at])}) should not be there"
    return f"line {line} should be {quote(want[at])}, not {quote(got[at])}"
