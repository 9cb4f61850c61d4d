"""The root cause behind a failing run's symptoms, from what the program's source shows
(grader.languages.source_facts) and how the run ended: a module the grading machine does not
have, a Java package line, Python 2's print statement, the right output with a status
other than 0, output lost at the end (a call that skips flushing it), two output
streams that reorder it, the puzzle read from standard input or from a fixed file
instead of the file named by the first argument. Decided from the submitted files,
the verdict, the kind of difference and whether the output was exactly right, never
from anything the program printed as text."""

from dataclasses import dataclass

from grader import languages
from grader.core.model import Verdict
from grader.languages.source_facts import ProgramFacts

# How each language reads the first command-line argument, for the message.
FIRST_ARGUMENT = {lang.name: lang.first_argument for lang in languages.REGISTRY}
# A program that cannot have read its puzzle fails in any of these ways (an endless
# read loop times out; garbage can flood the output or the memory).
_INPUT_VERDICTS = (Verdict.WA, Verdict.RTE, Verdict.TLE, Verdict.OLE, Verdict.MLE)


@dataclass(frozen=True)
class Cause:
    kind: str  # "module-missing", "java-package", "exit-status", "unflushed", "input-stdin"...
    text: str  # one line, told before the symptoms


# How each language ends a program with status 0, for the message.
SUCCESS = {lang.name: lang.success for lang in languages.REGISTRY}


def root_cause(
    verdict: Verdict,
    facts: ProgramFacts,
    kind: str = "",
    right_output: bool = False,
    cut_short: bool = False,
) -> Cause | None:
    """The cause the failure points to, or None. What stops a program before it reads
    anything (a missing module, a package line, Python 2) comes first; then what the
    run's output says with the source (right but ended badly, cut off, reordered);
    then where it reads its puzzle from: a fixed file before standard input (a program
    may reopen standard input on a fixed file). `kind`: the comparison's kind of
    difference ("WA/truncated"); `right_output`: its output was exactly the expected;
    `cut_short`: its output was the start of the expected one (or nothing)."""
    early = _before_it_starts(verdict, facts)
    if early is not None:
        return early
    if verdict is Verdict.RTE and right_output:
        return _status(facts)
    ending = _ending(verdict, kind, cut_short, facts)
    if ending is not None:
        return ending
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


def _before_it_starts(verdict: Verdict, facts: ProgramFacts) -> Cause | None:
    if verdict is not Verdict.RTE:
        return None
    if facts.imports:
        return _missing_modules(facts)
    if facts.package is not None:
        return Cause(
            "java-package",
            f"the file declares {facts.package.what} ({facts.package.where}): the grader "
            "compiles PuzzleSolver.java and runs the class PuzzleSolver in no package "
            "(java PuzzleSolver ...), so Java finds a class of another name and stops "
            "before main: remove the package line",
        )
    if facts.python2 is not None:
        return Cause(
            "python2",
            f"{facts.python2.where} is Python 2's print statement ({facts.python2.what}): "
            "the grader runs Python 3, where print is a function, so the program does not "
            'even start: write print(...) (print("text"), print(a, b))',
        )
    return None


def _status(facts: ProgramFacts) -> Cause:
    where = (
        f" {facts.exit_status.what} ({facts.exit_status.where}) sets it."
        if facts.exit_status is not None
        else ""
    )
    advice = SUCCESS.get(facts.language, "End with status 0.")
    return Cause(
        "exit-status",
        "the output is exactly the expected output, but the program's exit status is not "
        "0: to the grader, as to any caller, a status other than 0 means the program "
        f"failed.{where} {advice}",
    )


def _ending(verdict: Verdict, kind: str, cut_short: bool, facts: ProgramFacts) -> Cause | None:
    """Output lost at the end, or reordered, and the call in the source that does it."""
    difference = kind.split("/", 1)[-1]
    if verdict is Verdict.WA and cut_short and facts.abrupt_exit is not None:
        lost = "nothing it printed" if difference == "empty" else "the end of its output"
        return Cause(
            "unflushed",
            f"the program ends with {facts.abrupt_exit.what} ({facts.abrupt_exit.where}), "
            f"which ends it at once, without flushing its output buffer: {lost} reached "
            "the output. Let main return (or flush the output first)",
        )
    if difference == "reordered" and facts.mixed_streams is not None:
        return Cause(
            "two-streams",
            f"the program writes through {facts.mixed_streams.what} "
            f"({facts.mixed_streams.where}): each has a buffer of its own, and what they "
            "hold reaches the output in the order they are flushed: print everything "
            "through one of them",
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
