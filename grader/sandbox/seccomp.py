"""The seccomp filter every sandboxed program runs under (as classic BPF)."""

from __future__ import annotations

import errno
import struct

_SECCOMP_TABLES = {
    # machine: (AUDIT_ARCH, clone, unshare, clone3, add_key, request_key, keyctl, x32 bit)
    "x86_64": (0xC000003E, 56, 272, 435, 248, 249, 250, 0x40000000),
    "aarch64": (0xC00000B7, 220, 97, 435, 217, 218, 219, 0),
}
_CLONE_NEWUSER = 0x10000000


def seccomp_program(machine: str) -> bytes | None:
    """BPF refusing new user namespaces and key rings; None on other architectures."""
    machine = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine.lower(), machine.lower())
    table = _SECCOMP_TABLES.get(machine)
    if table is None:
        return None
    arch, clone, unshare, clone3, add_key, request_key, keyctl, x32 = table
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06
    allow, eperm = 0x7FFF0000, 0x00050000 | errno.EPERM
    enosys = 0x00050000 | errno.ENOSYS

    def op(code: int, jt: int, jf: int, k: int) -> bytes:
        return struct.pack("<HBBI", code, jt, jf, k)

    checks = [
        (clone, "flags"),
        (unshare, "flags"),
        (clone3, "enosys"),
        (add_key, "deny"),
        (request_key, "deny"),
        (keyctl, "deny"),
    ]
    n = len(checks)
    target = {"flags": n + 1, "deny": n + 4, "enosys": n + 5}
    head = [op(ld, 0, 0, 4), op(jeq, 1, 0, arch), op(ret, 0, 0, eperm), op(ld, 0, 0, 0)]
    head.append(op(jge, 0, 1, x32) if x32 else op(jeq, 0, 1, 0xFFFFFFFF))
    head.append(op(ret, 0, 0, eperm))
    body = [op(jeq, target[kind] - i - 1, 0, nr) for i, (nr, kind) in enumerate(checks)]
    tail = [
        op(ret, 0, 0, allow),  # n: anything else
        op(ld, 0, 0, 16),  # n+1: low half of the first argument (the clone flags)
        op(jset, 1, 0, _CLONE_NEWUSER),
        op(ret, 0, 0, allow),
        op(ret, 0, 0, eperm),  # n+4
        op(ret, 0, 0, enosys),  # n+5: clone3 hides its flags; libc falls back to clone
    ]
    return b"".join(head + body + tail)
