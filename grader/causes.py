"""The root cause behind a failing run's symptoms, from what the program's source shows
(grader.source_facts): the puzzle read from standard input or from a fixed file
instead of the file named by the first argument, a module the grading machine does
not have. Decided from the submitted files and the verdict, never from anything the
program printed."""

from dataclasses import dataclass

from grader.model import Verdict
from grader.source_facts import ProgramFacts

# How each language reads the first command-line argument, for the message.
FIRST_ARGUMENT = {
    "c": "argv[1]",
    "cpp": "argv[1]",
    "java": "args[0]",
    "python": "sys.argv[1]",
}
# A program that cannot have read its puzzle fails in any of these ways (an endless
# read loop times out; garbage can flood the output or the memory).
_INPUT_VERDICTS = (Verdict.WA, Verdict.RTE, Verdict.TLE, Verdict.OLE, Verdict.MLE)


@dataclass(frozen=True)
class Cause:
    kind: str  # "module-missing", "input-fixed-path", "input-stdin"
    text: str  # one line, told before the symptoms


def root_cause(verdict: Verdict, facts: ProgramFacts) -> Cause | None:
    """The cause the failure points to, or None: a missing module crashes a program
    before it reads anything, so it comes first; a fixed file comes before standard
    input (a program may reopen standard input on a fixed file)."""
    if verdict is Verdict.RTE and facts.imports:
        return _missing_modules(facts)
    if verdict not in _INPUT_VERDICTS or facts.uses_arguments:
        return None
    argument = FIRST_ARGUMENT.get(facts.language, "the first argument")
    if facts.opens:
        opened = facts.opens[0]
        return Cause(
            "input-fixed-path",
            f'the program opens the fixed file "{opened.name}" ({opened.where}) instead '
            "of the puzzle it is given: the grader passes each puzzle's path as the first "
            f"command-line argument ({argument}), and no such file is where the program runs",
        )
    if facts.reads_stdin:
        return Cause(
            "input-stdin",
            f"the program reads its puzzle from standard input ({facts.reads_stdin}), but "
            "the grader passes the puzzle file's path as the first command-line argument "
            f"({argument}) and gives it an empty standard input",
        )
    return None


def _missing_modules(facts: ProgramFacts) -> Cause:
    modules = list(dict.fromkeys(imported.module for imported in facts.imports))
    first = facts.imports[0]
    named = (
        f"{first.where} imports {modules[0]}, which is"
        if len(modules) == 1
        else f"it imports {', '.join(modules[:-1])} and {modules[-1]} ({first.where} first), "
        "which are"
    )
    installed = (
        f"its standard library and the course's packages ({', '.join(facts.packages)})"
        if facts.packages
        else "its standard library only"
    )
    return Cause(
        "module-missing",
        f"{named} not available for grading: the grading machine runs Python with {installed}",
    )
