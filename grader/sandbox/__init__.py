"""Run one untrusted command under limits: bubblewrap namespaces, or rlimits only.

Two implementations of one small interface (``Sandbox.run``); ``make_sandbox`` picks one.

- ``bubblewrap``: namespaces, rlimits, a sandbox uid when root (see its docstring).
  Runs of a read-only workdir go through a warm sandbox (``warm``) when a C compiler
  is there to build its zygote: namespaces made once per worker, a fresh pid, mount
  and ipc namespace per run.
- ``rlimits``: the fallback where bubblewrap cannot run (macOS): limits only.
- ``portable``: where no POSIX module is (Windows): time and output limits only; the
  student kit's ``check`` there (``make_sandbox`` picks it; grading refuses it).
- ``supervise``: what both share: output under caps, the clocks, the verdict flags.
- ``uids``, ``prepared``, ``seccomp``: the host side of the bubblewrap sandbox.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from grader.sandbox.base import INPUT_PLACEHOLDER, Sandbox, SandboxUnavailable
from grader.sandbox.portable import NOT_HELD, PortableSandbox

try:
    from grader.sandbox.bubblewrap import BubblewrapSandbox
    from grader.sandbox.namespaces import namespace_refusal
    from grader.sandbox.rlimits import FALLBACK_WARNING, RlimitSandbox

    NO_POSIX = ""
except ImportError as missing:  # Windows: no resource, fcntl or pwd
    NO_POSIX = missing.name or "a POSIX module"

__all__ = [
    "CGROUPS_ENV",
    "BubblewrapSandbox",
    "FALLBACK_WARNING",
    "INPUT_PLACEHOLDER",
    "NO_POSIX",
    "PROGRAM_FILES",
    "PortableSandbox",
    "RlimitSandbox",
    "Sandbox",
    "SandboxUnavailable",
    "bubblewrap_cause",
    "bubblewrap_refusal",
    "isolating_sandbox",
    "make_sandbox",
]

# Files of the sandbox that run (or are compiled) as programs of their own, never
# imported: whatever ships the grader's modules (the student kit, the Gradescope zip)
# ships them too.
PROGRAM_FILES = tuple(
    sorted(p.name for p in Path(__file__).parent.iterdir() if p.suffix in (".c", ".h"))
) + ("reaper.py",)

INSTALL_HINT = (
    "install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), "
    "or choose the unisolated fallback: --sandbox rlimits, or "
    'sandbox = "rlimits" in course.toml'
)


# Set to "off": no cgroup per run even where one can be made (CPU time is then counted
# as in a container without cgroups: what the run's reaper reaps, auto-reaping refused).
# Set to "v2": the unified hierarchy only, as on a machine that mounts no v1 one.
CGROUPS_ENV = "GRADER_CGROUPS"


def _print_to_stderr(message: str) -> None:
    print(message, file=sys.stderr)


def _cgroups_wanted() -> tuple[bool, tuple[int, ...]]:
    """Whether runs get cgroups, and in hierarchies of which versions (GRADER_CGROUPS)."""
    said = os.environ.get(CGROUPS_ENV, "").strip().lower()
    return said != "off", (2,) if said == "v2" else (1, 2)


def make_sandbox(
    kind: str = "auto",
    *,
    warn: Callable[[str], None] = _print_to_stderr,
    extra_paths: Sequence[Path] = (),
) -> Sandbox:
    """The sandbox of that kind: "auto", "bubblewrap" or "rlimits".

    "auto" uses bubblewrap when it exists and a trivial probe run works, else the
    fallback, and then says so once through ``warn`` (for ``check`` only: grading uses
    ``isolating_sandbox``). "bubblewrap" raises SandboxUnavailable (one line, with how
    to install it) when it cannot work. ``extra_paths``: more host folders to
    show read-only inside bubblewrap (a JDK under /opt, say).
    """
    if NO_POSIX and kind in ("auto", "rlimits"):
        warn(f"sandbox: no POSIX here (no {NO_POSIX} module): the portable fallback: {NOT_HELD}")
        return PortableSandbox()
    if NO_POSIX:
        raise SandboxUnavailable(
            f"no isolation: bubblewrap needs Linux (this Python has no {NO_POSIX} module)"
        )
    cgroups, versions = _cgroups_wanted()
    if kind == "rlimits":
        warn(f"sandbox: rlimits chosen: {FALLBACK_WARNING}")
        return RlimitSandbox(cgroups=cgroups, cgroup_versions=versions)
    if kind not in ("auto", "bubblewrap"):
        raise ValueError(f"unknown sandbox kind {kind!r} (expected auto, bubblewrap or rlimits)")
    try:
        box = BubblewrapSandbox(extra_paths=extra_paths, cgroups=cgroups, cgroup_versions=versions)
        box.probe()
        return box
    except SandboxUnavailable as exc:
        if kind == "bubblewrap":
            raise SandboxUnavailable(f"no isolation: {bubblewrap_refusal(exc)}") from None
        # The fallback is already taken: its warning names no option to take it.
        warn(f"sandbox: bubblewrap not available ({bubblewrap_cause(exc)}): {FALLBACK_WARNING}")
        return RlimitSandbox(cgroups=cgroups, cgroup_versions=versions)


UNISOLATED_HINT = (
    'the unisolated fallback is --sandbox rlimits, or sandbox = "rlimits" in course.toml'
)


def bubblewrap_cause(exc: SandboxUnavailable) -> str:
    """Why bubblewrap cannot isolate programs here: its real cause (namespaces refused
    by the machine or the container) before "it is not installed"."""
    if BubblewrapSandbox.installed():
        refused = namespace_refusal()
        if refused:
            return f"bubblewrap cannot isolate programs here: {refused}"
    return f"bubblewrap cannot run here ({exc})"


def bubblewrap_refusal(exc: SandboxUnavailable) -> str:
    """``bubblewrap_cause`` with what to do about it, for the grader's own commands."""
    cause = bubblewrap_cause(exc)
    hint = UNISOLATED_HINT if cause.startswith("bubblewrap cannot isolate") else INSTALL_HINT
    return f"{cause}; {hint}"


def isolating_sandbox(
    kind: str = "auto",
    *,
    warn: Callable[[str], None] = _print_to_stderr,
    extra_paths: Sequence[Path] = (),
) -> Sandbox:
    """The sandbox for grading untrusted code: bubblewrap, whether "auto" or
    "bubblewrap" asked for it; the rlimits fallback only when the instructor chose it
    ("rlimits"), never by surprise. SandboxUnavailable (one line, with how to install
    bubblewrap) otherwise."""
    strict = "bubblewrap" if kind == "auto" else kind
    return make_sandbox(strict, warn=warn, extra_paths=extra_paths)
