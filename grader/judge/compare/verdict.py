"""The verdict of a program's output against the expected output, and its
diagnosis assembled from the issues found, most important first.

The verdict is plain: equal bytes are AC, the same white-space-separated
tokens are PE, anything else is WA.  Never raises: whatever the program
printed, the caller gets a Comparison.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

from grader.cases.manifest import POLICY_RULES
from grader.core.model import Verdict
from grader.judge.compare.answer import answer_issues
from grader.judge.compare.crlf import crlf_input_issues
from grader.judge.compare.lines import as_bytes, first_difference
from grader.judge.compare.policy import decided_by_policy
from grader.judge.compare.ranking import Issue, Rank
from grader.judge.compare.whitespace import same_tokens, whitespace_notes

# Begins the diagnosis line naming a policy rule that decides a difference shown.
POLICY_MARKER = "This case is policy-dependent"
POLICY_ONLY = "The output differs only in what the policy rule below decides."


@dataclass
class Comparison:
    verdict: Verdict
    summary: str  # one line a student understands at once ("" for AC)
    details: list[str] = field(default_factory=list)  # further lines
    # The failure is decided only by the case's policy rules (see grader.judge.compare.policy):
    # what the score reads; the text only reports it.
    policy_only: bool = False
    # What kind of difference the summary tells (the name of its Rank, "count-line"):
    # two failures of one kind are "the same mistake" (grader.grading.counterexamples).
    kind: str = ""

    def text(self) -> str:
        return "\n".join(line for line in [self.summary, *self.details] if line)


def compare(
    expected: bytes | str, got: bytes | str, puzzle: bytes | str, policy: Sequence[str] = ()
) -> Comparison:
    """Compare outputs exactly; diagnose any difference (never raises)."""
    expected, got = as_bytes(expected), as_bytes(got)
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
            issues = [Issue(Rank.WHITE_SPACE, text) for text in notes]
        else:
            issues = answer_issues(expected, got, puzzle, policy)
        issues = crlf_input_issues(puzzle, expected, got, issues)
    except Exception as error:
        why = f"(the grader could not diagnose this output further: {type(error).__name__})"
        # Not mutated: the only issue, so its rank orders nothing.
        issues = [Issue(Rank.UNDIAGNOSED, why)]  # pragma: no mutate
    try:
        policy_only = decided_by_policy(expected, got, policy)
    except Exception:  # undecided: nothing is forgiven, and the verdict stands
        policy_only = False
    return _assemble(verdict, first, issues, policy_only)


def _assemble(
    verdict: Verdict, first: list[str], issues: list[Issue], policy_only: bool = False
) -> Comparison:
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
    if policy_only:
        # The rule is named only when it decides the failure: beside an output wrong in
        # anything else (a constant line, a missing listing), it points at no real cause.
        details.append(POLICY_ONLY)
        rules = []
        for issue in issues:
            if issue.rule and issue.rule not in rules:
                rules.append(issue.rule)
        for rule in rules:
            explanation = POLICY_RULES.get(rule, rule)
            details.append(f"{POLICY_MARKER}: its expected output follows {explanation}.")
    kind = _kind(issues[0].rank) if issues else "differs"
    return Comparison(verdict, summary, details, policy_only, kind)


def _kind(rank: int) -> str:
    try:
        return Rank(rank).name.lower().replace("_", "-")
    except ValueError:  # a rank between the named ones
        return str(rank)
