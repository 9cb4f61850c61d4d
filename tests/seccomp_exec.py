"""seccomp_exec.py FILTER_HEX -- COMMAND...: no_new_privs, the seccomp filter (classic
BPF, in hex), then exec COMMAND. Standard library only: tests/container.py runs it by
its path, from any folder."""

import ctypes
import os
import sys

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2


class _Filter(ctypes.Structure):  # struct sock_fprog
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(program: bytes) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    code = ctypes.create_string_buffer(program, len(program))
    fprog = _Filter(len(program) // 8, ctypes.addressof(code))
    if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or libc.prctl(
        _PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0
    ):
        raise OSError(ctypes.get_errno(), "seccomp")


if __name__ == "__main__":
    install(bytes.fromhex(sys.argv[1]))
    os.execvp(sys.argv[3], sys.argv[3:])
