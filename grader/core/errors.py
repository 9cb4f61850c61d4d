"""The one family of errors a user sees, and the one place each entry point catches it.

Every problem the user can fix (a bad option, configuration, case, submission folder,
results store or export target, or a sandbox that cannot work here) is a GraderError
whose str() is one line naming the problem. Entry points (`grader`, `testcases`, the
Gradescope runner) call `run_entry_point`, which turns the family into that line and an
exit status; anything else is a bug of the grader and keeps its traceback.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from grader.core.text import PrintableStream

EXIT_USAGE = 2
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a writer whose reader left


class GraderError(Exception):
    """A problem the user can fix; str() is the one-line reason."""

    exit_status = EXIT_USAGE


class UsageError(GraderError):
    """A command used the wrong way (an option, an id, a path)."""


def run_entry_point(
    prefix: str, work: Callable[[], int], on_interrupt: Callable[[], None] | None = None
) -> int:
    """work(), with every GraderError as `prefix: message` on stderr and its exit
    status; Ctrl-C as exit 130 (after on_interrupt); a closed stdout (`| head`) quietly.
    Whatever it writes to stdout and stderr has its control characters escaped."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = PrintableStream(sys.stdout), PrintableStream(sys.stderr)
    try:
        return _run(prefix, work, on_interrupt)
    finally:
        sys.stdout, sys.stderr = streams


def _run(prefix: str, work: Callable[[], int], on_interrupt: Callable[[], None] | None) -> int:
    try:
        status = work()
        sys.stdout.flush()
        return status
    except GraderError as error:
        print(f"{prefix}: {error}", file=sys.stderr)
        return error.exit_status
    except KeyboardInterrupt:
        if on_interrupt is not None:
            on_interrupt()
        return 130
    except BrokenPipeError:
        # The reader went away: nothing is wrong, but Python would still try to flush
        # stdout at exit and print a second error; point it at /dev/null instead.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
