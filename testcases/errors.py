"""Errors every command turns into a one-line message and an exit status: the
grader's error family (grader/core/errors.py), so one handler serves every entry point."""

from grader.core.errors import GraderError, UsageError

__all__ = ["Failure", "GraderError", "UsageError"]


class Failure(GraderError):
    """The command could not do its job (gave up, found a difference): exit status 1."""

    exit_status = 1
