"""A puzzle file with CR LF line ends: the issue that explains what that does to a
program's output, told before the line ends themselves, only where the output shows it
(a \r the expected output lacks, carried from the input). That the line ends alone
are what a program fails on is said only when the same puzzle with LF passes
(grader.grading.proofs, grader.cases.counterfactual), never guessed from the symptoms."""

from grader.judge.compare.lines import as_bytes, line_at
from grader.judge.compare.ranking import Issue, Rank

_CRLF_INPUT = (
    "the puzzle file of this case ends its lines with CR LF (\\r\\n, Windows "
    "style): your program mishandles CRLF input"
)
_CRLF_FIX = "remove the \\r (as well as the \\n) from each line it reads"


def crlf_input_issues(
    puzzle: bytes | str, expected: bytes, got: bytes, issues: list[Issue]
) -> list[Issue]:
    """When the input has CR LF line ends, a \\r in the output that the expected
    output lacks comes from the input, not from how the program ends its lines;
    and finding nothing where there are solutions is what a \\r kept in the last
    edge of every tile does. Say that first, instead of talking about line ends."""
    if b"\r\n" not in as_bytes(puzzle):
        return issues
    every_line = got.count(b"\r\n") == got.count(b"\n")  # its own line ends, not the input's
    extra_cr = got.count(b"\r") > expected.count(b"\r") and not every_line
    if extra_cr:
        line = line_at(got, got.index(b"\r"))
        text = (
            f"{_CRLF_INPUT}: it carries the \\r into its output (first at line {line}); {_CRLF_FIX}"
        )
        kept = [
            issue
            for issue in issues
            if "CR LF" not in issue.text and "carriage return" not in issue.text
        ]
        return [Issue(Rank.CRLF_INPUT, text)] + kept
    return issues
