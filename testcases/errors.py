"""Errors every command turns into a one-line message and an exit status."""


class UsageError(Exception):
    """Bad input from the user (a file, an option, an id): exit status 2."""


class Failure(Exception):
    """The command could not do its job (gave up, found a difference): exit status 1."""
