"""The seccomp filter every sandboxed program runs under (as classic BPF).

It refuses new user namespaces (a nested one could mount an unbounded tmpfs) and the
kernel key rings (they outlive a run, so could carry state between runs). Where no
cgroup counts a run's CPU time, it also refuses to change what SIGCHLD does: a process
that ignores SIGCHLD (or sets SA_NOCLDWAIT) has its children reaped by the kernel
itself, and their CPU time then reaches no one's RUSAGE_CHILDREN. seccomp cannot read
the new action (a pointer), so any new action for SIGCHLD is refused (EPERM): asking
what it is stays allowed. No runtime the course uses sets one.
"""

from __future__ import annotations

import errno
import signal
import struct
from dataclasses import dataclass

# AUDIT_ARCH, x32 bit, and the system calls the filter looks at, per machine.
_TABLES = {
    "x86_64": (0xC000003E, 0x40000000, {"clone": 56, "unshare": 272, "clone3": 435,
               "add_key": 248, "request_key": 249, "keyctl": 250, "rt_sigaction": 13}),
    "aarch64": (0xC00000B7, 0, {"clone": 220, "unshare": 97, "clone3": 435,
                "add_key": 217, "request_key": 218, "keyctl": 219, "rt_sigaction": 134}),
}  # fmt: skip
_CLONE_NEWUSER = 0x10000000
_LD, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW = 0x7FFF0000
_EPERM = 0x00050000 | errno.EPERM
_ENOSYS = 0x00050000 | errno.ENOSYS
# struct seccomp_data: nr, arch, instruction pointer, then six 64-bit arguments.
_NR, _ARCH = 0, 4


def _arg(index: int, high: bool = False) -> int:
    return 16 + 8 * index + (4 if high else 0)


@dataclass(frozen=True)
class _Op:
    code: int
    k: int
    yes: str | None = None  # label jumped to when the test holds (None: the next op)
    no: str | None = None


def _assemble(program: list[_Op | str]) -> bytes:
    """Ops and labels (a str marks the place of the op after it) into BPF."""
    ops = [item for item in program if isinstance(item, _Op)]
    labels, index = {}, 0
    for item in program:
        if isinstance(item, str):
            labels[item] = index
        else:
            index += 1

    def offset(i: int, label: str | None) -> int:
        if label is None:
            return 0
        jump = labels[label] - i - 1
        assert 0 <= jump < 256, f"BPF jumps forward, at most 255 ops: {label}"
        return jump

    return b"".join(
        struct.pack("<HBBI", op.code, offset(i, op.yes), offset(i, op.no), op.k)
        for i, op in enumerate(ops)
    )


def seccomp_program(machine: str, refuse_autoreap: bool = False) -> bytes | None:
    """The filter for this machine; None on architectures it does not know."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine.lower())
    table = _TABLES.get(machine)
    if table is None:
        return None
    arch, x32, nr = table
    program: list[_Op | str] = [
        _Op(_LD, _ARCH),
        _Op(_JEQ, arch, no="deny"),
        _Op(_LD, _NR),
        _Op(_JGE, x32, yes="deny") if x32 else _Op(_JEQ, 0xFFFFFFFF, yes="deny"),
        _Op(_JEQ, nr["clone"], yes="clone flags"),
        _Op(_JEQ, nr["unshare"], yes="clone flags"),
        _Op(_JEQ, nr["clone3"], yes="enosys"),  # clone3 hides its flags: libc falls back
        _Op(_JEQ, nr["add_key"], yes="deny"),
        _Op(_JEQ, nr["request_key"], yes="deny"),
        _Op(_JEQ, nr["keyctl"], yes="deny"),
    ]
    if refuse_autoreap:
        program.append(_Op(_JEQ, nr["rt_sigaction"], yes="sigaction"))
    program += [
        _Op(_RET, _ALLOW),  # any other call
        "clone flags",
        _Op(_LD, _arg(0)),
        _Op(_JSET, _CLONE_NEWUSER, yes="deny", no="allow"),
    ]
    if refuse_autoreap:
        program += [
            "sigaction",
            _Op(_LD, _arg(0)),
            _Op(_JEQ, signal.SIGCHLD, no="allow"),
            _Op(_LD, _arg(1)),  # the new action: NULL only asks what it is
            _Op(_JEQ, 0, no="deny"),
            _Op(_LD, _arg(1, high=True)),
            _Op(_JEQ, 0, yes="allow", no="deny"),
        ]
    program += ["allow", _Op(_RET, _ALLOW), "deny", _Op(_RET, _EPERM)]
    program += ["enosys", _Op(_RET, _ENOSYS)]
    return _assemble(program)
