"""Exact comparison of a program's output with the expected output, and the
diagnosis of every difference in the puzzle's own terms.

The verdict is plain: equal bytes are AC, the same white-space-separated
tokens are PE, anything else is WA.  The diagnosis explains it: the first
differing line with white space made visible, then what the difference means
(count line, tile listing, boards missing, extra, not solutions, rotated,
out of order, printed twice, white space), most important first.  When the
case depends on a policy rule and that rule alone decides the failure (decided on
the whole output: Comparison.policy_only, what the score reads), the diagnosis
names the rule; beside any other difference it names none.

One module per step, in the order a comparison runs them:

    verdict     compare(): the verdict, then the diagnosis assembled from the issues
    lines       output shown safely, the first difference
    whitespace  same tokens (PE) and which kinds of white space differ
    answer      a wrong answer's issues, step by step:
      relation    the whole output to the expected one: cut off, with more after, reordered
      lookalike   characters that only look like the ASCII needed
      counts      the count line
      listing     the "Input tiles:" listing, stray lines
      boards      missing, extra, unreadable, badly drawn boards, using
        sorting     the printed boards sorted into what they are
        solutions   boards that are not solutions, or drawn turned
        order       boards printed twice, in another rotation, out of order
        one_per_string  boards missing because one is kept per 9-digit string
    crlf        what CR LF line ends in the puzzle file do to the output
    policy      whether only the case's policy rules decide the failure
    ranking     Issue, the unit of a diagnosis, and its rank
    wording     words the diagnoses share
"""

from grader.judge.compare.answer import answer_issues
from grader.judge.compare.lines import first_difference, quote, show
from grader.judge.compare.ranking import Issue
from grader.judge.compare.verdict import POLICY_MARKER, POLICY_ONLY, Comparison, compare
from grader.judge.compare.whitespace import TOKEN_CHUNK, same_tokens, whitespace_notes

__all__ = [
    "POLICY_MARKER",
    "POLICY_ONLY",
    "TOKEN_CHUNK",
    "Comparison",
    "Issue",
    "answer_issues",
    "compare",
    "first_difference",
    "quote",
    "same_tokens",
    "show",
    "whitespace_notes",
]
