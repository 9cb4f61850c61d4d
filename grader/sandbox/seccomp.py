"""The seccomp filter every sandboxed program runs under (as classic BPF).

It refuses new user namespaces (a nested one could mount an unbounded tmpfs) and the
kernel key rings (they outlive a run, so could carry state between runs).

It also refuses every call that reports or drops the state of the host's page cache
(which pages of a file are cached outlives a run and is shared by every run: a program
could keep the inputs it saw as "page cached or not" bits of a big read-only system
file, and a later run read them back): mincore, cachestat, fadvise, readahead,
process_madvise, madvise's WILLNEED, COLD and PAGEOUT, preadv2 and pwritev2 with
RWF_NOWAIT (a read that fails rather than wait for the disk tells whether the page was
cached), and the asynchronous I/O interfaces that can ask the same without the filter
seeing it (io_uring, Linux AIO). And POSIX message queues: in the fallback, which shares
the machine's ipc namespace, one would outlive the run. An ordinary read still fills the cache, and how long a
read takes still tells whether it did: the README's threat model names that channel.

Where no
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
               "add_key": 248, "request_key": 249, "keyctl": 250, "rt_sigaction": 13,
               "mincore": 27, "madvise": 28, "readahead": 187, "fadvise64": 221,
               "io_setup": 206, "io_submit": 209, "preadv2": 327, "pwritev2": 328,
               "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
               "process_madvise": 440, "cachestat": 451, "mq_open": 240}),
    "aarch64": (0xC00000B7, 0, {"clone": 220, "unshare": 97, "clone3": 435,
                "add_key": 217, "request_key": 218, "keyctl": 219, "rt_sigaction": 134,
                "mincore": 232, "madvise": 233, "readahead": 213, "fadvise64": 223,
                "io_setup": 0, "io_submit": 2, "preadv2": 286, "pwritev2": 287,
                "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
                "process_madvise": 440, "cachestat": 451, "mq_open": 180}),
}  # fmt: skip
# Refused outright: they exist to report or change the page cache's state, or do I/O
# the filter cannot see the flags of; and POSIX message queues, which outlive a run in
# the fallback (it shares the machine's ipc namespace) and no program here needs.
_REFUSED = (
    "mincore", "cachestat", "readahead", "fadvise64", "process_madvise",
    "io_setup", "io_submit", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "mq_open",
)  # fmt: skip
_MADV_WILLNEED, _MADV_COLD, _MADV_PAGEOUT = 3, 20, 21
_RWF_NOWAIT = 0x8
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
        *(_Op(_JEQ, nr[name], yes="deny") for name in _REFUSED),
        _Op(_JEQ, nr["preadv2"], yes="rw flags"),
        _Op(_JEQ, nr["pwritev2"], yes="rw flags"),
        _Op(_JEQ, nr["madvise"], yes="advice"),
    ]
    if refuse_autoreap:
        program.append(_Op(_JEQ, nr["rt_sigaction"], yes="sigaction"))
    program += [
        _Op(_RET, _ALLOW),  # any other call
        "clone flags",
        _Op(_LD, _arg(0)),
        _Op(_JSET, _CLONE_NEWUSER, yes="deny", no="allow"),
        "rw flags",  # preadv2(fd, iov, count, pos_l, pos_h, flags)
        _Op(_LD, _arg(5)),
        _Op(_JSET, _RWF_NOWAIT, yes="deny", no="allow"),
        "advice",  # madvise(address, length, advice)
        _Op(_LD, _arg(2)),
        _Op(_JEQ, _MADV_WILLNEED, yes="deny"),
        _Op(_JEQ, _MADV_COLD, yes="deny"),
        _Op(_JEQ, _MADV_PAGEOUT, yes="deny", no="allow"),
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
